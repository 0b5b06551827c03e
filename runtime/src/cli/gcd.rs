//! `fermat gcd`: the monic gcd of two polynomials from files or random, verified and
//! timed.

use super::operands::{finish, report_for, Operands, RingArgs};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{Poly, PolyRing};
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
    /// Check that the gcd is monic and divides both operands.
    #[arg(long)]
    verify: bool,
}

/// Runs `fermat gcd`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let field = args.ring.field()?;
    // Refuse an output that cannot be written before any work.
    if let Some(path) = &args.output {
        std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
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
    let g = ring.gcd(&a, &b)?;
    writeln!(
        report,
        "time     {:.3} ms, degree {}",
        started.elapsed().as_secs_f64() * 1e3,
        g.degree()
            .map_or("−∞ (zero)".to_string(), |d| d.to_string())
    )?;
    let ok = !args.verify || verify(&ring, (&a, &b), &g, &mut report)?;
    finish(&args.output, &g.to_json(), ok, &mut report)
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
