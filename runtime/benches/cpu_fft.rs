//! One forward transform of 2^20 points (and 2^16) over babybear and the 62-bit prime
//! 29·2^57 + 1 on the CPU, data in memory: `FftPlan::forward` (which validates the input
//! and runs the word-prime NTT) and the NTT alone, natural and bit-reversed output.
//! Threads: `RAYON_NUM_THREADS`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fermat::cpu::{Isa, WordNtt};
use fermat::dsl::{Fp32, Fp64};
use fermat::{Backend, Direction, FftOptions, FftPlan, Field, Order};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn omega<F: Field>(f: &F, n: u64) -> u64 {
    u64::try_from(f.to_biguint(&f.root_of_unity(n).unwrap())).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_fft");
    g.sample_size(20);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let bb = Fp32::new(2_013_265_921).unwrap();
    let p62 = Fp64::new(4_179_340_454_199_820_289).unwrap();
    let orders = [
        ("nn", Order::Natural, Order::Natural),
        ("nb", Order::Natural, Order::BitReversed),
    ];
    for log_n in [16u32, 20] {
        let n = 1u64 << log_n;
        let mut x32: Vec<u32> = (0..n).map(|_| rng.gen_range(0..bb.p())).collect();
        let mut x64: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p62.p())).collect();
        for (name, i, o) in orders {
            let w = omega(&bb, n);
            let ntt = WordNtt::<u32>::new(bb.p(), w as u32, n, Direction::Forward, i, o, Isa::Auto)
                .unwrap();
            g.bench_function(BenchmarkId::new(format!("babybear/{name}"), log_n), |b| {
                b.iter(|| ntt.apply(&mut x32).unwrap())
            });
            let w = omega(&p62, n);
            let ntt =
                WordNtt::<u64>::new(p62.p(), w, n, Direction::Forward, i, o, Isa::Auto).unwrap();
            g.bench_function(BenchmarkId::new(format!("p62/{name}"), log_n), |b| {
                b.iter(|| ntt.apply(&mut x64).unwrap())
            });
        }
        let cpu = FftOptions {
            backend: Backend::Cpu,
            ..Default::default()
        };
        let plan = FftPlan::new(&bb, n, cpu.clone()).unwrap();
        g.bench_function(BenchmarkId::new("babybear/plan", log_n), |b| {
            b.iter(|| plan.forward(&mut x32).unwrap())
        });
        let plan = FftPlan::new(&p62, n, cpu).unwrap();
        g.bench_function(BenchmarkId::new("p62/plan", log_n), |b| {
            b.iter(|| plan.forward(&mut x64).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
