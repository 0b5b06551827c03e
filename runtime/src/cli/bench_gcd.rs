//! The gcd rows of `fermat bench --poly`: the monic gcd of random (coprime) pairs, on the
//! GPU with the data on the device (CUDA events around `gcd_device`, which takes the
//! on-chip Euclid for short pairs and Lehmer's rounds for long ones, and around each of
//! the two with a given window where the rows compare them), and of the extended gcd and
//! the resultant of host polynomials, beside the figures they are measured against.

use super::bench_poly::{median_device_ms, print_row, random, PolyResult};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::PolyRing;
use fermat::{Backend, FieldSpec, HostField};

/// How a row computes the gcd.
#[derive(Clone, Copy)]
enum Method {
    /// `gcd_device`: what a user gets.
    Default,
    /// The on-chip Euclid, one block.
    OnChip,
    /// Lehmer's rounds with windows of 2·half + 1.
    Lehmer(usize),
    /// `xgcd_device`: Lehmer's rounds carrying a's cofactors, s and t left on the device.
    Xgcd,
    /// `resultant` of host polynomials: Lehmer's rounds keeping a trail on the GPU.
    Resultant,
}

/// A row: the field, the operands' degree, the method, the anchor and the target.
struct Row {
    field: &'static str,
    degree: usize,
    method: Method,
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
        method: Method::Default,
        anchor,
        target,
    }
}

/// A row that compares one method with the default.
const fn compare(field: &'static str, degree: usize, method: Method) -> Row {
    Row {
        field,
        degree,
        method,
        anchor: "—",
        target: "—",
    }
}

const CROSSOVER: &str = "FLINT nmod_poly_gcd (one core)";

/// The targets' workloads, smaller degrees for the crossover with one CPU core, and the
/// methods side by side: the on-chip Euclid against Lehmer's rounds, and their windows.
const GPU: [Row; 31] = [
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
    row("469762049", 1 << 20, "FLINT (half-gcd)", "≥ 10× FLINT"),
    compare("469762049", 10_000, Method::OnChip),
    compare("469762049", 10_000, Method::Lehmer(32)),
    compare("469762049", 10_000, Method::Lehmer(128)),
    compare("469762049", 1 << 16, Method::Lehmer(32)),
    compare("469762049", 1 << 16, Method::Lehmer(128)),
    compare("469762049", 1000, Method::OnChip),
    compare("469762049", 1000, Method::Lehmer(64)),
    compare("469762049", 1500, Method::OnChip),
    compare("469762049", 1500, Method::Lehmer(64)),
    compare("469762049", 2000, Method::OnChip),
    compare("469762049", 2000, Method::Lehmer(64)),
    compare("goldilocks", 2000, Method::OnChip),
    compare("goldilocks", 2000, Method::Lehmer(32)),
    compare("goldilocks", 4000, Method::OnChip),
    compare("goldilocks", 4000, Method::Lehmer(32)),
    compare("goldilocks", 10_000, Method::Lehmer(64)),
    compare("P3", 1 << 12, Method::Lehmer(8)),
    compare("P3", 1 << 12, Method::Lehmer(32)),
    Row {
        method: Method::Xgcd,
        ..row(
            "469762049",
            10_000,
            "FLINT nmod_poly_xgcd 18.3 ms (one core)",
            "—",
        )
    },
    Row {
        method: Method::Xgcd,
        ..row(
            "469762049",
            1 << 16,
            "FLINT nmod_poly_xgcd 140 ms (one core)",
            "≥ 5× FLINT (≤ 28 ms)",
        )
    },
    Row {
        method: Method::Resultant,
        ..row("469762049", 10_000, "—", "—")
    },
    Row {
        method: Method::Resultant,
        ..row("469762049", 1 << 16, "—", "—")
    },
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
    let on_chip = !ring.gcd_by_rounds(r.degree + 1, r.degree + 1)?;
    // Quadratic work: fewer runs at the largest degrees.
    let runs = if r.degree > 20_000 { runs.min(3) } else { runs };
    let (ms, algorithm) = match r.method {
        Method::Default => (
            median_device_ms(runs, || ring.gcd_device(&da, &db).map(drop))?,
            if on_chip {
                "on-chip Euclid, one block".to_string()
            } else {
                format!("Lehmer's rounds, half {}", ring.lehmer_half(r.degree + 1)?)
            },
        ),
        Method::OnChip => (
            median_device_ms(runs, || ring.gcd_on_chip(&da, &db).map(drop))?,
            "on-chip Euclid, one block".to_string(),
        ),
        Method::Lehmer(half) => (
            median_device_ms(runs, || ring.gcd_lehmer_device(&da, &db, half).map(drop))?,
            format!("Lehmer's rounds, half {half}"),
        ),
        Method::Xgcd => (
            median_device_ms(runs, || ring.xgcd_device(&da, &db).map(drop))?,
            format!(
                "Lehmer's rounds carrying cofactors, half {}",
                ring.lehmer_half(r.degree + 1)?
            ),
        ),
        Method::Resultant => (
            median_device_ms(runs, || ring.resultant(&a, &b).map(drop))?,
            format!(
                "Lehmer's rounds keeping a trail, half {}",
                ring.trail_half(r.degree + 1)?
            ),
        ),
    };
    let operation = match r.method {
        Method::Xgcd => "xgcd",
        Method::Resultant => "resultant",
        _ => "gcd",
    };
    Ok(PolyResult {
        field: field.name(),
        operation: operation.into(),
        len_a: r.degree + 1,
        len_b: r.degree + 1,
        algorithm,
        backend: "gpu".into(),
        median_ms: ms,
        anchor: r.anchor.into(),
        target: r.target.into(),
    })
}
