//! The CPU's polynomial operations over 469762049 on random operands, the plans warm (a
//! ring keeps its transforms between calls): products of 2^16 by 2^16, divisions of 10^4
//! by 5·10^3 and of 2^17 by 2^16, the power-series inverse mod x^(2^16), gcds of 10^4 and
//! 2^16, the extended gcd of 10^4 and 2^16 — the shapes FLINT's `nmod_poly` is measured
//! at in bench/RESULTS.md —, and over P3 products of 2^16 by 2^16 by both routes, the
//! division of 2^14 by 2^13 and the gcd of 2^12, as `fmpz_mod_poly` is. Threads:
//! `RAYON_NUM_THREADS` (`taskset -c 0` and 1 for one core).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fermat::dsl::{AnyField, FieldSpec, Fp32};
use fermat::poly::{Crossover, Poly, PolyRing};
use fermat::Backend;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_poly");
    g.sample_size(10);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let f = Fp32::new(469_762_049).unwrap();
    let ring = PolyRing::new(&f, Backend::Cpu).unwrap();
    let mut random = |len: usize| Poly::random(&f, len, &mut rng);
    let (a, b) = (random(1 << 16), random(1 << 16));
    g.bench_function("mul/65536", |t| t.iter(|| ring.mul(&a, &b).unwrap()));
    for (la, lb) in [(10_001, 5_001), (1 << 17, 1 << 16)] {
        let (a, b) = (random(la), random(lb));
        g.bench_function(BenchmarkId::new("divrem", la), |t| {
            t.iter(|| ring.divrem(&a, &b).unwrap())
        });
    }
    let s = random(1 << 16);
    g.bench_function("inv/65536", |t| {
        t.iter(|| ring.inv_series(&s, 1 << 16).unwrap())
    });
    for len in [10_001, 65_537] {
        let (a, b) = (random(len), random(len));
        g.bench_function(BenchmarkId::new("gcd", len), |t| {
            t.iter(|| ring.gcd(&a, &b).unwrap())
        });
        g.bench_function(BenchmarkId::new("xgcd", len), |t| {
            t.iter(|| ring.xgcd(&a, &b).unwrap())
        });
    }
    // P3 (505 bits) by its own transforms and by the CRT route over word primes.
    let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!("P3 has eight digits")
    };
    let (a, b) = (
        Poly::random(&p3, 1 << 16, &mut rng),
        Poly::random(&p3, 1 << 16, &mut rng),
    );
    for (route, crt_from) in [("fft", None), ("crt", Some(1))] {
        let crossover = Crossover::cpu().with_crt_from(crt_from);
        let ring = PolyRing::new(&p3, Backend::Cpu)
            .unwrap()
            .with_crossover(crossover);
        g.bench_function(BenchmarkId::new(format!("P3/mul/{route}"), 1 << 16), |t| {
            t.iter(|| ring.mul(&a, &b).unwrap())
        });
    }
    // P3's division of 2^14 by 2^13 and gcd of 2^12, as `fmpz_mod_poly_divrem` and
    // `fmpz_mod_poly_gcd` are, each on the routes the crossovers choose.
    let ring = PolyRing::new(&p3, Backend::Cpu).unwrap();
    let mut random = |len: usize| Poly::random(&p3, len, &mut rng);
    let (a, b) = (random((1 << 14) + 1), random((1 << 13) + 1));
    g.bench_function(BenchmarkId::new("P3/divrem", a.len()), |t| {
        t.iter(|| ring.divrem(&a, &b).unwrap())
    });
    let (a, b) = (random((1 << 12) + 1), random((1 << 12) + 1));
    g.bench_function(BenchmarkId::new("P3/gcd", a.len()), |t| {
        t.iter(|| ring.gcd(&a, &b).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
