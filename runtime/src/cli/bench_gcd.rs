//! The gcd rows of `fermat bench --poly`: the monic gcd of random (coprime) pairs, on the
//! GPU with the data on the device (CUDA events around `gcd_device`: the on-chip Euclid
//! where the pair fits one block's shared memory, else the half-gcd on the host with its
//! long products on the device and its short ones on the host), beside the figures they
//! are measured against.

use super::bench_poly::{median_device_ms, print_row, random, PolyResult};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::PolyRing;
use fermat::{Backend, FieldSpec, HostField};

/// A row: the field, the operands' degree, the anchor and the target.
struct Row {
    field: &'static str,
    degree: usize,
    anchor: &'static str,
    target: &'static str,
}

const fn row(
    field: &'static str,
    degree: usize,
    anchor: &'static str,
    target: &'static str,
) -> Row {
    Row {
        field,
        degree,
        anchor,
        target,
    }
}

const CROSSOVER: &str = "FLINT nmod_poly_gcd (one core)";

/// The targets' workloads, and smaller degrees for the crossover with one CPU core.
const GPU: [Row; 8] = [
    row(
        "469762049",
        10_000,
        "CUMODP 50 ms (H200); FLINT 16.5 ms (1 core)",
        "≤ 5 ms",
    ),
    row(
        "469762049",
        1 << 16,
        "CUMODP 329 ms; FLINT 144 ms (1 core)",
        "≤ 30 ms",
    ),
    row("469762049", 1000, CROSSOVER, "the crossover"),
    row("469762049", 3000, CROSSOVER, "the crossover"),
    row("469762049", 20_000, CROSSOVER, "—"),
    row("babybear", 10_000, "—", "—"),
    row("goldilocks", 10_000, "—", "—"),
    row(
        "P3",
        1 << 12,
        "FLINT fmpz_mod_poly_gcd (one core)",
        "≥ 10× FLINT",
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

fn time_gpu<F: HostField>(field: &F, r: &Row, runs: usize) -> Result<PolyResult, CliError> {
    let ring = PolyRing::new(field, Backend::Gpu(0))?;
    let (a, b) = (
        random(field, r.degree + 1, 1),
        random(field, r.degree + 1, 2),
    );
    let (da, db) = (ring.to_device(&a)?, ring.to_device(&b)?);
    let on_chip = 2 * (r.degree + 1) <= ring.euclid_capacity()?;
    // The half-gcd on the host takes seconds at the largest degrees: fewer runs.
    let runs = if on_chip { runs } else { runs.min(3) };
    let ms = median_device_ms(runs, || ring.gcd_device(&da, &db).map(drop))?;
    let algorithm = match (on_chip, ring.crossover().host_below) {
        (true, _) => "on-chip Euclid, one block".to_string(),
        (false, Some(below)) => {
            format!("half-gcd on the host, products from {below} coefficients on the device")
        }
        (false, None) => "half-gcd on the host, products on the device".to_string(),
    };
    Ok(PolyResult {
        field: field.name(),
        operation: "gcd".into(),
        len_a: r.degree + 1,
        len_b: r.degree + 1,
        algorithm,
        backend: "gpu".into(),
        median_ms: ms,
        anchor: r.anchor.into(),
        target: r.target.into(),
    })
}
