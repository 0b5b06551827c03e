//! `fermat bench --poly`: products of polynomials, timed like the transforms (device time
//! of CUDA events behind a hold kernel, data on the device), beside the figures they are
//! measured against, quoted.

use super::bench::{hold, median, PolyGroup};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{Crossover, Poly, PolyRing, ProductPlan};
use fermat::{Backend, Direction, FftOptions, FftPlan, FieldSpec, HostField, Order};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One measured product.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PolyResult {
    /// The field.
    pub field: String,
    /// What is timed: `mul`, `sqr`, or `3 transforms` (the reference of a row).
    pub operation: String,
    /// Coefficients of the first operand (transforms: their size).
    pub len_a: usize,
    /// Coefficients of the second operand.
    pub len_b: usize,
    /// How the product is computed.
    pub algorithm: String,
    /// "gpu" or "cpu, T threads".
    pub backend: String,
    /// Median time of one call, in milliseconds (GPU: device time, launches queued).
    pub median_ms: f64,
    /// The figure the row is measured against, as its source gives it.
    pub anchor: String,
    /// The target the issue sets, in words.
    pub target: String,
}

/// A product to time, with what it is compared with.
struct Workload {
    field: &'static str,
    len_a: usize,
    len_b: usize,
    anchor: &'static str,
    target: &'static str,
    /// Products per call (one batch).
    batch: usize,
    /// Which products are plain: the ring's crossover, or plain at every size.
    crossover: Option<Crossover>,
}

const fn w(
    field: &'static str,
    len_a: usize,
    len_b: usize,
    anchor: &'static str,
    target: &'static str,
) -> Workload {
    Workload {
        field,
        len_a,
        len_b,
        anchor,
        target,
        batch: 1,
        crossover: None,
    }
}

impl Workload {
    const fn batch(mut self, batch: usize) -> Workload {
        self.batch = batch;
        self
    }

    const fn plain(mut self) -> Workload {
        self.crossover = Some(Crossover::always());
        self
    }
}

/// The GPU products, with the anchors they are measured against.
const GPU: [Workload; 13] = [
    w(
        "469762049",
        1 << 22,
        1 << 22,
        "CUMODP 7.5 ms (H200); FLINT 186 ms (one core)",
        "≤ 0.5 ms",
    ),
    w(
        "4179340454199820289",
        1 << 22,
        1 << 22,
        "FLINT 832 ms (1 thread), 251 ms (16 threads)",
        "≤ 1.0 ms",
    ),
    w(
        "babybear",
        1 << 20,
        1 << 20,
        "three sppark transforms of 2^21 ≈ 0.15 ms",
        "≤ 0.12 ms",
    ),
    w(
        "babybear",
        (1 << 20) + 1,
        (1 << 20) + 1,
        "the 2^20 row",
        "≤ 1.3 × (L/2^20) × it",
    ),
    w(
        "babybear",
        5 << 18,
        5 << 18,
        "the 2^20 row",
        "≤ 1.3 × (L/2^20) × it",
    ),
    w(
        "babybear",
        3 << 19,
        3 << 19,
        "the 2^20 row",
        "≤ 1.3 × (L/2^20) × it",
    ),
    w(
        "P3",
        1 << 16,
        1 << 16,
        "FLINT fmpz_mod_poly_mul 205 ms (one core)",
        "≤ 1.15 × three P3 transforms of 2^17",
    ),
    w(
        "P4",
        1 << 16,
        1 << 16,
        "FLINT 412 ms (one core)",
        "≤ 1.15 × three P4 transforms of 2^17",
    ),
    w("babybear", 1 << 20, 1 << 6, "—", "≤ 2 × one 2^20 transform"),
    w(
        "469762049",
        1 << 12,
        1 << 12,
        "CUMODP plain 0.12 ms (H200)",
        "≤ 0.03 ms",
    )
    .plain(),
    w(
        "469762049",
        1 << 10,
        1 << 10,
        "CUMODP FFT 0.87 ms, plain 0.062 ms (H200)",
        "≤ 0.015 ms",
    ),
    w("babybear", 1 << 10, 1 << 10, "—", "≥ 1,000 GB/s effective").batch(4096),
    w("P3", 1 << 12, 1 << 12, "—", "≥ 300 GB/s effective").batch(1024),
];

/// The CPU products, with FLINT on one core of a development machine.
const CPU: [Workload; 4] = [
    w(
        "469762049",
        1 << 20,
        1 << 20,
        "FLINT nmod_poly_mul 36.4 ms (one core)",
        "faster than FLINT",
    ),
    w(
        "4179340454199820289",
        1 << 20,
        1 << 20,
        "FLINT 122 ms (one core)",
        "faster than FLINT",
    ),
    w(
        "P3",
        1 << 16,
        1 << 16,
        "FLINT fmpz_mod_poly_mul 159 ms (one core)",
        "within 2× of FLINT",
    ),
    w(
        "P4",
        1 << 16,
        1 << 16,
        "FLINT 332 ms (one core)",
        "within 2× of FLINT",
    ),
];

/// The transforms the SRGFN rows are measured against: three of 2^17 points.
const REFERENCE_TRANSFORMS: [(&str, u64); 3] =
    [("P3", 1 << 17), ("P4", 1 << 17), ("babybear", 1 << 20)];

/// Times the polynomial rows of `groups` on the GPU (when `gpu`) and on the CPU (with
/// one thread and all), printing each row as it is measured.
pub fn run(
    gpu: bool,
    cpu: bool,
    quick: bool,
    runs: usize,
    groups: &[PolyGroup],
) -> Result<Vec<PolyResult>, CliError> {
    let mut out = Vec::new();
    let wants = |group| groups.contains(&group);
    print_header();
    if gpu && wants(PolyGroup::Mul) {
        let take = if quick { 1 } else { GPU.len() };
        for work in GPU.iter().take(take) {
            let any = FieldSpec::parse(work.field)?.build()?;
            let r = with_field!(&any, f => time_gpu(f, work, runs))?;
            print_row(&r);
            out.push(r);
        }
        if !quick {
            for (field, n) in REFERENCE_TRANSFORMS {
                let any = FieldSpec::parse(field)?.build()?;
                let rows = with_field!(&any, f => time_transforms(f, n, runs))?;
                for r in rows {
                    print_row(&r);
                    out.push(r);
                }
            }
        }
    }
    if gpu && !quick {
        if wants(PolyGroup::Div) {
            out.extend(super::bench_div::run_gpu(runs)?);
        }
        if wants(PolyGroup::Gcd) {
            out.extend(super::bench_gcd::run_gpu(runs)?);
        }
        if wants(PolyGroup::Ring) {
            out.extend(super::bench_ring::run_gpu(runs)?);
        }
    }
    if cpu && wants(PolyGroup::Mul) {
        let take = if quick { 1 } else { CPU.len() };
        for work in CPU.iter().take(take) {
            for threads in [1, rayon::current_num_threads()] {
                let any = FieldSpec::parse(work.field)?.build()?;
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?;
                let r = pool
                    .install(|| with_field!(&any, f => time_cpu(f, work, threads, runs.min(super::bench::CPU_POLY_RUNS))))?;
                print_row(&r);
                out.push(r);
            }
        }
    }
    if cpu && !quick && wants(PolyGroup::Div) {
        out.extend(super::bench_div::run_cpu(runs)?);
    }
    Ok(out)
}

impl PolyResult {
    /// The row of a product workload.
    fn product<F: HostField>(
        field: &F,
        work: &Workload,
        plan: &ProductPlan,
        backend: String,
        median_ms: f64,
    ) -> PolyResult {
        PolyResult {
            field: field.name(),
            operation: "mul".into(),
            len_a: work.len_a,
            len_b: work.len_b,
            algorithm: plan.to_string(),
            backend,
            median_ms,
            anchor: work.anchor.into(),
            target: work.target.into(),
        }
    }
}

fn print_header() {
    println!(
        "{:<20} {:<13} {:>9} {:>9} {:<12} {:>10}  {:<60} anchor | target",
        "field", "operation", "len a", "len b", "backend", "median ms", "algorithm"
    );
}

pub(super) fn print_row(r: &PolyResult) {
    println!(
        "{:<20} {:<13} {:>9} {:>9} {:<12} {:>10.4}  {:<60} \"{}\" | {}",
        r.field,
        r.operation,
        r.len_a,
        r.len_b,
        r.backend,
        r.median_ms,
        r.algorithm,
        r.anchor,
        r.target
    );
}

pub(super) fn random<F: HostField>(field: &F, len: usize, seed: u64) -> Poly<F> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    Poly::random(field, len, &mut rng)
}

fn time_gpu<F: HostField>(field: &F, work: &Workload, runs: usize) -> Result<PolyResult, CliError> {
    let mut ring = PolyRing::new(field, Backend::Gpu(0))?;
    if let Some(c) = work.crossover {
        ring = ring.with_crossover(c);
    }
    if work.batch > 1 {
        return time_gpu_batch(field, &ring, work, runs);
    }
    let plan = ring.product_plan(work.len_a, work.len_b)?;
    let a = ring.to_device(&random(field, work.len_a, 1))?;
    let b = ring.to_device(&random(field, work.len_b, 2))?;
    let mut c = ring.mul_device(&a, &b)?;
    let ms = median_device_ms(runs, || ring.mul_device_into(&a, &b, &mut c))?;
    Ok(PolyResult::product(field, work, &plan, "gpu".into(), ms))
}

/// The median device time of `runs` calls on GPU 0's stream, after three to warm up, in
/// milliseconds: CUDA events around each call, queued behind a hold kernel so that the
/// launches run back to back.
pub(super) fn median_device_ms(
    runs: usize,
    mut call: impl FnMut() -> Result<(), fermat::Error>,
) -> Result<f64, CliError> {
    for _ in 0..3 {
        call()?;
    }
    let device = fermat::gpu::device(0)?;
    let stream = device.stream();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = device.event()?;
        let end = device.event()?;
        hold(&device, stream, 200_000)?;
        start.record(stream)?;
        call()?;
        end.record(stream)?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)? as f64);
    }
    Ok(median(times))
}

/// A batch of products on the GPU, its effective bandwidth (operands and products, in
/// bytes of their elements, over the median time) in the algorithm's column.
fn time_gpu_batch<F: HostField>(
    field: &F,
    ring: &PolyRing<F>,
    work: &Workload,
    runs: usize,
) -> Result<PolyResult, CliError> {
    let plan = ring.batch_plan(work.len_a, work.len_b)?;
    let polys = |len, seed| -> Vec<Poly<F>> {
        (0..work.batch)
            .map(|q| random(field, len, seed + 2 * q as u64))
            .collect()
    };
    let a = ring.to_device_batch(&polys(work.len_a, 1), work.len_a)?;
    let b = ring.to_device_batch(&polys(work.len_b, 2), work.len_b)?;
    // The products are freed as they are made, on the stream, as a user's would be.
    let ms = median_device_ms(runs, || ring.mul_batch_device(&a, &b).map(drop))?;
    let elements = work.batch * (work.len_a + work.len_b + plan.len());
    let bytes = (elements * field.words() * std::mem::size_of::<F::Word>()) as f64;
    let mut r = PolyResult::product(field, work, &plan, "gpu".into(), ms);
    r.operation = format!("mul ×{}", work.batch);
    r.algorithm = format!("{:.0} GB/s; {}", bytes / (ms * 1e-3) / 1e9, plan);
    Ok(r)
}

/// The references of a product of n points on the GPU: three forward transforms (natural
/// in, bit-reversed out), and the product's own three, two forward and the inverse
/// (bit-reversed in, natural out, scaled by 1/n) without the pointwise product.
fn time_transforms<F: HostField>(
    field: &F,
    n: u64,
    runs: usize,
) -> Result<[PolyResult; 2], CliError> {
    let plan = |input_order, output_order| {
        FftPlan::new(
            field,
            n,
            FftOptions {
                backend: Backend::Gpu(0),
                input_order,
                output_order,
                ..FftOptions::default()
            },
        )
    };
    let forward = plan(Order::Natural, Order::BitReversed)?;
    let inverse = plan(Order::BitReversed, Order::Natural)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n);
    let x: Vec<F::Host> = (0..n)
        .map(|_| field.to_host(&field.random(&mut rng)))
        .collect();
    let input = forward.to_device(&x)?;
    let mut output = forward.alloc_device(1)?;
    let device = fermat::gpu::device(0)?;
    let stream = device.stream();
    let mut time = |steps: [(&FftPlan<F>, Direction); 3]| -> Result<f64, CliError> {
        let mut times = Vec::with_capacity(runs);
        for i in 0..runs + 3 {
            let start = device.event()?;
            let end = device.event()?;
            hold(&device, stream, 200_000)?;
            start.record(stream)?;
            for (plan, direction) in steps {
                plan.run_device(direction, &input, &mut output, None)?;
            }
            end.record(stream)?;
            end.synchronize()?;
            if i >= 3 {
                times.push(start.elapsed_ms(&end)? as f64);
            }
        }
        Ok(median(times))
    };
    let log_n = n.trailing_zeros();
    let row = |operation: &str, algorithm: String, median_ms| PolyResult {
        field: field.name(),
        operation: operation.into(),
        len_a: n as usize,
        len_b: 0,
        algorithm,
        backend: "gpu".into(),
        median_ms,
        anchor: "—".into(),
        target: "the reference of its field's product row".into(),
    };
    let fwd = (&forward, Direction::Forward);
    Ok([
        row(
            "3 transforms",
            format!("three forward transforms of 2^{log_n}"),
            time([fwd, fwd, fwd])?,
        ),
        row(
            "2 fwd + inv",
            format!("two forward transforms of 2^{log_n} and an inverse"),
            time([fwd, fwd, (&inverse, Direction::Inverse)])?,
        ),
    ])
}

fn time_cpu<F: HostField>(
    field: &F,
    work: &Workload,
    threads: usize,
    runs: usize,
) -> Result<PolyResult, CliError> {
    let ring = PolyRing::new(field, Backend::Cpu)?;
    let plan = ring.product_plan(work.len_a, work.len_b)?;
    let (a, b) = (random(field, work.len_a, 1), random(field, work.len_b, 2));
    let ms = median_wall_ms(runs, || ring.mul(&a, &b).map(drop))?;
    Ok(PolyResult::product(
        field,
        work,
        &plan,
        format!("cpu, {threads} thr"),
        ms,
    ))
}

/// The median wall time of `runs` calls after one call to warm up, in milliseconds.
pub(super) fn median_wall_ms(
    runs: usize,
    mut call: impl FnMut() -> Result<(), fermat::Error>,
) -> Result<f64, fermat::Error> {
    call()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        call()?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}
