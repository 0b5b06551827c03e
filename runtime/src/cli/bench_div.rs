//! The division rows of `fermat bench --poly`: divisions with remainder and power-series
//! inverses, timed like the products (GPU: CUDA events, data on the device; CPU: wall
//! time on one thread and on all), beside the figures they are measured against.

use super::bench_poly::{median_device_ms, median_wall_ms, print_row, random, PolyResult};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{Poly, PolyRing};
use fermat::{Backend, FieldSpec, HostField};

/// What a row times.
#[derive(Clone, Copy)]
enum Op {
    /// The quotient and remainder of len a by len b coefficients.
    Divrem,
    /// The inverse of a series of len a coefficients mod x^(len b).
    Inverse,
    /// The product of len a by len b coefficients: the reference of the inverse's row.
    Mul,
}

struct Row {
    field: &'static str,
    op: Op,
    len_a: usize,
    len_b: usize,
    anchor: &'static str,
    target: &'static str,
}

const fn row(
    field: &'static str,
    op: Op,
    (len_a, len_b): (usize, usize),
    anchor: &'static str,
    target: &'static str,
) -> Row {
    Row {
        field,
        op,
        len_a,
        len_b,
        anchor,
        target,
    }
}

/// The inverse mod x^(2^log) of a series of as many coefficients.
const fn chain(log: u32) -> Row {
    let n = 1 << log;
    row("469762049", Op::Inverse, (n, n), "—", "the chain")
}

const CUMODP: &str = "CUMODP 2.58 ms (H200); FLINT 0.39 ms (1 core)";

/// The GPU rows: the targets' workloads, the inverse's Newton chain at four lengths, and
/// smaller degrees for the crossover with one CPU core.
const GPU: [Row; 13] = [
    row("469762049", Op::Divrem, (10_001, 5001), CUMODP, "≤ 0.2 ms"),
    row(
        "469762049",
        Op::Divrem,
        ((1 << 20) + 1, (1 << 19) + 1),
        "FLINT nmod_poly_divrem (one core)",
        "≤ 1 ms and ≥ 20× FLINT",
    ),
    row(
        "469762049",
        Op::Inverse,
        (1 << 20, 1 << 20),
        "FLINT nmod_poly_inv_series (one core)",
        "≤ 3 × the next row",
    ),
    row(
        "469762049",
        Op::Mul,
        (1 << 20, 1 << 20),
        "—",
        "the inverse's reference",
    ),
    // The Newton chain's shape: each row is the one before it and two more steps.
    chain(12),
    chain(14),
    chain(16),
    chain(18),
    row(
        "P3",
        Op::Divrem,
        ((1 << 14) + 1, (1 << 13) + 1),
        "FLINT fmpz_mod_poly_divrem (one core)",
        "≥ 20× FLINT",
    ),
    row(
        "469762049",
        Op::Divrem,
        (1001, 501),
        "FLINT (one core)",
        "the crossover",
    ),
    row(
        "469762049",
        Op::Divrem,
        (2001, 1001),
        "FLINT (one core)",
        "the crossover",
    ),
    row(
        "469762049",
        Op::Divrem,
        (5001, 2501),
        "FLINT (one core)",
        "the crossover",
    ),
    row("babybear", Op::Divrem, (10_001, 5001), "—", "—"),
];

/// The CPU rows, on one thread and on all.
const CPU: [Row; 4] = [
    row(
        "469762049",
        Op::Divrem,
        (10_001, 5001),
        "FLINT 0.39 ms (one core)",
        "within 1.5× of FLINT",
    ),
    row(
        "469762049",
        Op::Divrem,
        ((1 << 20) + 1, (1 << 19) + 1),
        "FLINT nmod_poly_divrem (one core)",
        "within 1.5× of FLINT",
    ),
    row(
        "469762049",
        Op::Inverse,
        (1 << 20, 1 << 20),
        "FLINT nmod_poly_inv_series (one core)",
        "within 1.5× of FLINT",
    ),
    row(
        "P3",
        Op::Divrem,
        ((1 << 14) + 1, (1 << 13) + 1),
        "FLINT fmpz_mod_poly_divrem (one core)",
        "within 1.5× of FLINT",
    ),
];

/// Times the GPU rows, printing each.
pub fn run_gpu(runs: usize) -> Result<Vec<PolyResult>, CliError> {
    let mut out = Vec::new();
    for r in &GPU {
        let any = FieldSpec::parse(r.field)?.build()?;
        let result = with_field!(&any, f => time_gpu(f, r, runs))?;
        print_row(&result);
        out.push(result);
    }
    Ok(out)
}

/// Times the CPU rows on one thread and on all, printing each.
pub fn run_cpu(runs: usize) -> Result<Vec<PolyResult>, CliError> {
    let mut out = Vec::new();
    for r in &CPU {
        for threads in [1, rayon::current_num_threads()] {
            let any = FieldSpec::parse(r.field)?.build()?;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            let result =
                pool.install(|| with_field!(&any, f => time_cpu(f, r, threads, runs.min(super::bench::CPU_POLY_RUNS))))?;
            print_row(&result);
            out.push(result);
        }
    }
    Ok(out)
}

impl Row {
    fn result(&self, field: String, backend: String, median_ms: f64) -> PolyResult {
        let (operation, algorithm) = match self.op {
            Op::Divrem => ("divrem", "Newton: inverse, 2 middle products"),
            Op::Inverse => ("inv_series", "Newton: 2 middle products per step"),
            Op::Mul => ("mul", "the ring's product"),
        };
        PolyResult {
            field,
            operation: operation.into(),
            len_a: self.len_a,
            len_b: self.len_b,
            algorithm: algorithm.into(),
            backend,
            median_ms,
            anchor: self.anchor.into(),
            target: self.target.into(),
        }
    }

    /// The operands: a dividend and a divisor, a series, or two factors.
    fn operands<F: HostField>(&self, field: &F) -> (Poly<F>, Poly<F>) {
        let a = random(field, self.len_a, 1);
        let b = random(field, self.len_b, 2);
        match self.op {
            // A series with a nonzero constant term.
            Op::Inverse => (a.add(&Poly::one(field)).expect("one field"), b),
            _ => (a, b),
        }
    }
}

fn time_gpu<F: HostField>(field: &F, r: &Row, runs: usize) -> Result<PolyResult, CliError> {
    let ring = PolyRing::new(field, Backend::Gpu(0))?;
    let (a, b) = r.operands(field);
    let (da, db) = (ring.to_device(&a)?, ring.to_device(&b)?);
    let call = || -> Result<(), fermat::Error> {
        match r.op {
            Op::Divrem => ring.divrem_device(&da, &db).map(drop),
            Op::Inverse => ring.inv_series_device(&da, r.len_b).map(drop),
            Op::Mul => ring.mul_device(&da, &db).map(drop),
        }
    };
    let ms = median_device_ms(runs, call)?;
    Ok(r.result(field.name(), "gpu".into(), ms))
}

fn time_cpu<F: HostField>(
    field: &F,
    r: &Row,
    threads: usize,
    runs: usize,
) -> Result<PolyResult, CliError> {
    let ring = PolyRing::new(field, Backend::Cpu)?;
    let (a, b) = r.operands(field);
    let call = || -> Result<(), fermat::Error> {
        match r.op {
            Op::Divrem => ring.divrem(&a, &b).map(drop),
            Op::Inverse => ring.inv_series(&a, r.len_b).map(drop),
            Op::Mul => ring.mul(&a, &b).map(drop),
        }
    };
    let ms = median_wall_ms(runs, call)?;
    Ok(r.result(field.name(), format!("cpu, {threads} thr"), ms))
}
