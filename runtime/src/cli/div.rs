//! `fermat div`: the quotient and remainder of two polynomials from files or random,
//! verified and timed.

use super::operands::{check_output, finish, report_for, timed_twice, Operands, RingArgs};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{Poly, PolyRing};
use fermat::HostField;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `fermat div`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    ring: RingArgs,
    /// The dividend a and the divisor b.
    #[command(flatten)]
    operands: Operands,
    /// Where to write {"quotient": [...], "remainder": [...]} (lists of decimal strings);
    /// standard output without it.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Check a = q·b + r (with the fast product) and deg r < deg b.
    #[arg(long)]
    verify: bool,
}

/// Runs `fermat div`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let field = args.ring.field()?;
    check_output(&args.output)?;
    with_field!(&field, f => div(f, &args))
}

fn div<F: HostField>(field: &F, args: &Args) -> Result<ExitCode, CliError> {
    let (a, b) = args.operands.read(field)?;
    let (ring, field_line) = args.ring.ring(field)?;
    let mut report = report_for(&args.output);
    writeln!(report, "{field_line}")?;
    writeln!(report, "lengths  {} / {}", a.len(), b.len())?;
    writeln!(report, "backend  {}", ring.running())?;
    let ((q, r), again) = timed_twice(&mut report, ring.running(), "division", || {
        ring.divrem(&a, &b)
    })?;
    writeln!(
        report,
        "result   quotient of {} coefficients, remainder of {}",
        q.len(),
        r.len()
    )?;
    let mut ok = again == (q.clone(), r.clone());
    if !ok {
        writeln!(report, "verify   two runs: DIFFER")?;
    }
    if args.verify {
        ok &= verify(&ring, (&a, &b), (&q, &r), &mut report)?;
    }
    let json = serde_json::json!({
        "quotient": q.to_json_value(),
        "remainder": r.to_json_value(),
    })
    .to_string();
    finish(&args.output, &json, ok, &mut report)
}

/// Checks a = q·b + r with the ring's product, and deg r < deg b.
fn verify<F: HostField>(
    ring: &PolyRing<F>,
    (a, b): (&Poly<F>, &Poly<F>),
    (q, r): (&Poly<F>, &Poly<F>),
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let recomposed = ring.mul(q, b)?.add(r)? == *a;
    let degree = r.len() < b.len();
    writeln!(
        report,
        "verify   a = q·b + r: {}; deg r < deg b: {}",
        if recomposed { "ok" } else { "WRONG" },
        if degree { "ok" } else { "WRONG" }
    )?;
    Ok(recomposed && degree)
}
