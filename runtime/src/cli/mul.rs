//! `fermat mul`: the product of two polynomials from files or random, verified and timed.

use super::mul_ring;
use super::operands::{check_output, finish, report_for, timed_twice, Operands, RingArgs};
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::Poly;
use fermat::HostField;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat mul`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    ring_args: RingArgs,
    #[command(flatten)]
    operands: Operands,
    /// Where to write the product (a JSON list of decimal strings); standard output
    /// without it.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Check the product: at random points, and against the schoolbook product where it
    /// takes at most 2^26 coefficient products.
    #[arg(long)]
    verify: bool,
    /// Multiply B pairs of random polynomials of lengths --len-a and --len-b in one batch
    /// (with --random; the products are checked with --verify, not written)
    #[arg(long, requires = "random", conflicts_with_all = ["output", "ring"])]
    batch: Option<usize>,
    /// A coefficient ring instead of a field: Z (signed integers of any size) or mod:M
    /// (residues modulo any M ≥ 2, in decimal); the product runs by the CRT route
    #[arg(long, conflicts_with = "field")]
    ring: Option<String>,
    /// Bits of the random coefficients of --ring Z
    #[arg(long, default_value_t = 64, requires = "ring")]
    bits: u64,
    /// Split the product's transforms over these devices (e.g. `0,1`): GPUs of this host
    /// exchanging through NCCL, or devices simulated on the CPU with --backend cpu or where
    /// there are not that many GPUs
    #[arg(long, value_delimiter = ',', value_name = "ORDINALS", conflicts_with_all = ["batch", "ring"])]
    devices: Option<Vec<usize>>,
}

/// Products up to this many coefficient products are checked against the schoolbook one.
const SCHOOLBOOK_CHECK: u64 = 1 << 26;
/// Random points a product is checked at.
const POINTS: usize = 4;

/// Runs `fermat mul`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(ring) = &args.ring {
        return mul_ring::run(mul_ring::Job {
            ring: mul_ring::Ring::parse(ring)?,
            backend: &args.ring_args.backend,
            device: args.ring_args.device,
            a: args.operands.a.as_deref(),
            b: args.operands.b.as_deref(),
            random: args.operands.random,
            len_a: args.operands.len_a,
            len_b: args.operands.len_b,
            bits: args.bits,
            output: &args.output,
            verify: args.verify,
        });
    }
    let field = args.ring_args.field()?;
    check_output(&args.output)?;
    with_field!(&field, f => mul(f, &args))
}

fn mul<F: HostField>(field: &F, args: &Args) -> Result<ExitCode, CliError> {
    if let Some(count) = args.batch {
        return mul_batch(field, args, count);
    }
    let (a, b) = args.operands.read(field)?;
    if let Some(devices) = &args.devices {
        let field_line = format!(
            "field    {} ({} bits)",
            field.name(),
            field.modulus().bits()
        );
        return super::mul_split::run(
            field,
            (&a, &b),
            (devices, &args.ring_args.backend),
            &field_line,
            (&args.output, args.verify),
        );
    }
    let (ring, field_line) = args.ring_args.ring(field)?;
    let plan = ring.product_plan(a.len(), b.len())?;
    let mut report = report_for(&args.output);
    writeln!(report, "{field_line}")?;
    writeln!(
        report,
        "lengths  {} × {} → {}",
        a.len(),
        b.len(),
        plan.len()
    )?;
    writeln!(report, "backend  {}", ring.running())?;
    writeln!(report, "product  {}", ring.route(a.len(), b.len())?)?;
    let (c, again) = timed_twice(&mut report, ring.running(), "product", || ring.mul(&a, &b))?;
    let mut ok = again == c;
    if !ok {
        writeln!(report, "verify   two runs: DIFFER")?;
    }
    if args.verify {
        ok &= verify(field, &a, &b, &c, &mut report)?;
    }
    let json = c.to_json();
    finish(&args.output, &json, ok, &mut report)
}

/// Checks c = a·b at random points, and against the schoolbook product where affordable.
pub(super) fn verify<F: HostField>(
    field: &F,
    a: &Poly<F>,
    b: &Poly<F>,
    c: &Poly<F>,
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::thread_rng().gen());
    let mut ok = true;
    for _ in 0..POINTS {
        let x = field.random(&mut rng);
        ok &= c.eval(&x) == field.mul(&a.eval(&x), &b.eval(&x));
    }
    writeln!(
        report,
        "verify   a(x)·b(x) = c(x) at {POINTS} random points: {}",
        if ok { "ok" } else { "WRONG" }
    )?;
    if (a.len() as u64).saturating_mul(b.len() as u64) <= SCHOOLBOOK_CHECK {
        let same = fermat::poly::schoolbook_mul(a, b)? == *c;
        writeln!(
            report,
            "verify   schoolbook product: {}",
            if same { "ok" } else { "WRONG" }
        )?;
        ok &= same;
    }
    Ok(ok)
}

/// The most products of one batch `fermat mul --batch` takes.
const MAX_BATCH: usize = 1 << 20;

/// `--batch B`: B random products in one batch, timed, each verified at random points.
fn mul_batch<F: HostField>(field: &F, args: &Args, count: usize) -> Result<ExitCode, CliError> {
    if count == 0 || count > MAX_BATCH {
        return Err(format!("--batch {count}: give 1 to {MAX_BATCH} products").into());
    }
    let (la, lb) = (
        args.operands.len_a.unwrap_or(0),
        args.operands.len_b.unwrap_or(0),
    );
    let words = (la + lb) as u64 * count as u64 * field.words() as u64;
    if words > 1 << 32 {
        return Err(format!(
            "--batch {count} of {la} × {lb}: {words} words of operands, more than 2^32"
        )
        .into());
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.operands.random.unwrap_or(0));
    let a: Vec<Poly<F>> = (0..count)
        .map(|_| Poly::random(field, la, &mut rng))
        .collect();
    let b: Vec<Poly<F>> = (0..count)
        .map(|_| Poly::random(field, lb, &mut rng))
        .collect();
    let (ring, field_line) = args.ring_args.ring(field)?;
    let plan = ring.batch_plan(la, lb)?;
    let mut report = std::io::stdout();
    writeln!(report, "{field_line}")?;
    writeln!(
        report,
        "batch    {count} products of {la} × {lb} → {}",
        plan.len()
    )?;
    writeln!(report, "backend  {}", ring.running())?;
    writeln!(report, "product  {plan}")?;
    let started = Instant::now();
    let c = ring.mul_batch(&a, &b)?;
    writeln!(
        report,
        "time     {:.3} ms for the batch, transfers included",
        started.elapsed().as_secs_f64() * 1e3
    )?;
    let mut ok = true;
    if args.verify {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rand::thread_rng().gen());
        let wrong = (0..count)
            .filter(|&q| {
                let x = field.random(&mut rng);
                c[q].eval(&x) != field.mul(&a[q].eval(&x), &b[q].eval(&x))
            })
            .count();
        writeln!(
            report,
            "verify   every product at a random point: {}",
            if wrong == 0 {
                "ok".to_string()
            } else {
                format!("{wrong} WRONG")
            }
        )?;
        ok = wrong == 0;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
