//! `fermat gcd`: the monic gcd of two polynomials (with `--xgcd`, and its cofactors; with
//! `--resultant`, and the resultant) from files or random, verified and timed.

use super::operands::{check_output, finish, report_for, Operands, RingArgs};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{resultant_euclid, Poly, PolyRing};
use fermat::HostField;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat gcd`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    ring: RingArgs,
    /// The two polynomials.
    #[command(flatten)]
    operands: Operands,
    /// Where to write the gcd (a JSON list of decimal strings); standard output without it.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Check that the gcd is monic and divides both operands (with --xgcd, also the
    /// Bézout identity and the cofactors' bounds).
    #[arg(long)]
    verify: bool,
    /// Write {"gcd": [...], "s": [...], "t": [...]} with s·a + t·b = gcd.
    #[arg(long)]
    xgcd: bool,
    /// Also compute the resultant of the operands: writes {"gcd": [...], "resultant": "…"}
    /// (with --xgcd, beside the cofactors).
    #[arg(long)]
    resultant: bool,
}

/// Up to this operand length `--verify` recomputes the resultant by Euclid's quadratic
/// algorithm; longer ones are checked by the law res = 0 ⟺ deg gcd > 0 alone.
const EUCLID_CHECK_LEN: usize = 20_000;

/// Runs `fermat gcd`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let field = args.ring.field()?;
    check_output(&args.output)?;
    with_field!(&field, f => gcd(f, &args))
}

fn gcd<F: HostField>(field: &F, args: &Args) -> Result<ExitCode, CliError> {
    let (a, b) = args.operands.read(field)?;
    let (ring, field_line) = args.ring.ring(field)?;
    let mut report = report_for(&args.output);
    writeln!(report, "{field_line}")?;
    writeln!(report, "lengths  {} and {}", a.len(), b.len())?;
    writeln!(report, "backend  {}", ring.running())?;
    let started = Instant::now();
    let (g, cofactors) = if args.xgcd {
        let (g, s, t) = ring.xgcd(&a, &b)?;
        (g, Some((s, t)))
    } else {
        (ring.gcd(&a, &b)?, None)
    };
    let resultant = args.resultant.then(|| ring.resultant(&a, &b)).transpose()?;
    writeln!(
        report,
        "time     {:.3} ms, degree {}",
        started.elapsed().as_secs_f64() * 1e3,
        g.degree()
            .map_or("−∞ (zero)".to_string(), |d| d.to_string())
    )?;
    let mut ok = !args.verify || verify(&ring, (&a, &b), &g, &mut report)?;
    if !args.xgcd && !args.resultant {
        return finish(&args.output, &g.to_json(), ok, &mut report);
    }
    let mut json = serde_json::json!({ "gcd": g.to_json_value() });
    if let Some((s, t)) = &cofactors {
        if args.verify {
            ok &= verify_bezout(&ring, (&a, &b), (&g, s, t), &mut report)?;
        }
        json["s"] = s.to_json_value();
        json["t"] = t.to_json_value();
    }
    if let Some(r) = &resultant {
        if args.verify {
            ok &= verify_resultant(field, (&a, &b), &g, r, &mut report)?;
        }
        json["resultant"] = field.to_biguint(r).to_string().into();
    }
    finish(&args.output, &json.to_string(), ok, &mut report)
}

/// Checks the law res(a, b) = 0 ⟺ deg gcd(a, b) > 0 or an operand is zero, and at
/// lengths up to [`EUCLID_CHECK_LEN`] the value against Euclid's algorithm.
fn verify_resultant<F: HostField>(
    field: &F,
    (a, b): (&Poly<F>, &Poly<F>),
    g: &Poly<F>,
    r: &F::Elem,
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let vanishes = a.is_zero() || b.is_zero() || g.len() > 1;
    let law = (*r == field.zero()) == vanishes;
    let euclid = (a.len().max(b.len()) <= EUCLID_CHECK_LEN)
        .then(|| resultant_euclid(a, b).map(|e| e == *r))
        .transpose()?;
    writeln!(
        report,
        "verify   resultant zero exactly when the gcd is not constant: {}; Euclid's value: {}",
        if law { "ok" } else { "WRONG" },
        match euclid {
            Some(true) => "ok",
            Some(false) => "WRONG",
            None => "skipped (operands too long for the quadratic check)",
        }
    )?;
    Ok(law && euclid != Some(false))
}

/// Checks s·a + t·b = g and the bounds len s ≤ max(len b − len g, 1),
/// len t ≤ max(len a − len g, 1).
fn verify_bezout<F: HostField>(
    ring: &PolyRing<F>,
    (a, b): (&Poly<F>, &Poly<F>),
    (g, s, t): (&Poly<F>, &Poly<F>, &Poly<F>),
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let identity = ring.mul(s, a)?.add(&ring.mul(t, b)?)? == *g;
    let bounds = s.len() <= b.len().saturating_sub(g.len()).max(1)
        && t.len() <= a.len().saturating_sub(g.len()).max(1);
    writeln!(
        report,
        "verify   s·a + t·b = g: {}; cofactor bounds: {}",
        if identity { "ok" } else { "WRONG" },
        if bounds { "ok" } else { "WRONG" }
    )?;
    Ok(identity && bounds)
}

/// Checks that g is monic (or zero, for two zeros) and divides a and b.
fn verify<F: HostField>(
    ring: &PolyRing<F>,
    (a, b): (&Poly<F>, &Poly<F>),
    g: &Poly<F>,
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let field = ring.field();
    let ok = if g.is_zero() {
        a.is_zero() && b.is_zero()
    } else {
        g.leading() == Some(field.one()) && ring.rem(a, g)?.is_zero() && ring.rem(b, g)?.is_zero()
    };
    writeln!(
        report,
        "verify   monic, divides both: {}",
        if ok { "ok" } else { "WRONG" }
    )?;
    Ok(ok)
}
