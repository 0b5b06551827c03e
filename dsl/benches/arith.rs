//! Field arithmetic on one core: SRGFN addition, multiplication by r^i and multiplication
//! (2017 paper, Algorithms 2 and 3 and §3.4) for P2, P3 and P4, against num-bigint's
//! `(a * b) % p` on the same inputs.
//!
//! `cargo bench -p fermat-dsl --bench arith`; results and their history are in
//! bench/RESULTS.md. Each benchmark runs a batch of 256 independent operations on
//! pseudo-random elements so that the loop overhead and the branch predictor see realistic
//! data; "time" is per batch and "thrpt" is operations per second. "mul" is `Field::mul`
//! (AVX-512 IFMA lanes for P3 and P4 where the CPU has them), "mul portable" the scalar
//! code every CPU runs (`Srgfn::mul_portable`).
//!
//! Time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) rather than wall time: the
//! benchmark is single-threaded, so on an idle machine the two agree, and on a shared one
//! (CI, a busy workstation) CPU time does not count the slices other processes take.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fermat_dsl::{AnyField, Field, FieldSpec, Srgfn};
use num_bigint::{BigUint, RandBigInt};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

const BATCH: usize = 256;

/// The calling thread's CPU time.
struct CpuTime;

fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is unavailable");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu_time()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_time() - start
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

/// Formats CPU time like criterion's wall time.
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else {
            (1e-6, "ms")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }
    fn scale_throughputs(
        &self,
        typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per_iter = match *throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                n as f64
            }
        };
        let _ = typical;
        // Operations per microsecond (= Mop/s).
        values.iter_mut().for_each(|v| *v = per_iter * 1e3 / *v);
        "Mop/s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn operands<const K: usize>(f: &Srgfn<K>) -> Vec<(BigUint, BigUint)> {
    let mut rng = ChaCha8Rng::seed_from_u64(2017);
    let p = f.modulus();
    (0..BATCH)
        .map(|_| (rng.gen_biguint_below(&p), rng.gen_biguint_below(&p)))
        .collect()
}

fn bench_field<const K: usize>(c: &mut Criterion<CpuTime>, f: &Srgfn<K>) {
    let name = f.name();
    let big = operands(f);
    let p = f.modulus();
    let elems: Vec<_> = big
        .iter()
        .map(|(a, b)| (f.from_biguint(a).unwrap(), f.from_biguint(b).unwrap()))
        .collect();
    let mut group = c.benchmark_group(format!("{name} x{BATCH}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function(BenchmarkId::new("add", &name), |bench| {
        bench.iter(|| {
            for (a, b) in &elems {
                black_box(f.add(black_box(a), black_box(b)));
            }
        })
    });
    group.bench_function(BenchmarkId::new("sub", &name), |bench| {
        bench.iter(|| {
            for (a, b) in &elems {
                black_box(f.sub(black_box(a), black_box(b)));
            }
        })
    });
    group.bench_function(BenchmarkId::new("mul_r_pow", &name), |bench| {
        bench.iter(|| {
            for (i, (a, _)) in elems.iter().enumerate() {
                black_box(f.mul_r_pow(black_box(a), black_box(i as u32 * 7 + 1)));
            }
        })
    });
    group.bench_function(BenchmarkId::new("mul", &name), |bench| {
        bench.iter(|| {
            for (a, b) in &elems {
                black_box(f.mul(black_box(a), black_box(b)));
            }
        })
    });
    group.bench_function(BenchmarkId::new("num-bigint mul mod", &name), |bench| {
        bench.iter(|| {
            for (a, b) in &big {
                black_box((black_box(a) * black_box(b)) % &p);
            }
        })
    });
    group.finish();
}

/// The multiplication without the AVX-512 IFMA path (`Srgfn::mul_portable`), as CPUs
/// without it run it. A function of its own: as one more closure of `bench_field` it moved
/// the other benchmarks' loops in the binary, and P2's addition loop, the same
/// instructions, measured 5.7 ns instead of 4.1 ns.
fn bench_portable<const K: usize>(c: &mut Criterion<CpuTime>, f: &Srgfn<K>) {
    let name = f.name();
    let elems: Vec<_> = operands(f)
        .iter()
        .map(|(a, b)| (f.from_biguint(a).unwrap(), f.from_biguint(b).unwrap()))
        .collect();
    let mut group = c.benchmark_group(format!("{name} x{BATCH}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function(BenchmarkId::new("mul portable", &name), |bench| {
        bench.iter(|| {
            for (a, b) in &elems {
                black_box(f.mul_portable(black_box(a), black_box(b)));
            }
        })
    });
    group.finish();
}

fn field<const K: usize>(name: &str) -> Srgfn<K> {
    let any = FieldSpec::parse(name).unwrap().build().unwrap();
    let any: Box<dyn std::any::Any> = match any {
        AnyField::Srgfn4(f) => Box::new(f),
        AnyField::Srgfn8(f) => Box::new(f),
        AnyField::Srgfn16(f) => Box::new(f),
        other => panic!("{name} is not a catalogue SRGFN with 4, 8 or 16 digits: {other:?}"),
    };
    *any.downcast::<Srgfn<K>>()
        .expect("the digit count of the catalogue entry")
}

fn arith(c: &mut Criterion<CpuTime>) {
    bench_field(c, &field::<4>("P2"));
    bench_field(c, &field::<8>("P3"));
    bench_field(c, &field::<16>("P4"));
    bench_portable(c, &field::<4>("P2"));
    bench_portable(c, &field::<8>("P3"));
    bench_portable(c, &field::<16>("P4"));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .with_measurement(CpuTime)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30);
    targets = arith
}
criterion_main!(benches);
