//! What `fermat mul` and `fermat div` share: the ring (field and backend) and the two
//! polynomial operands, from JSON files or random from a seed.

use super::fft::backend;
use super::CliError;
use fermat::poly::{Poly, PolyRing};
use fermat::{AnyField, HostField};
use rand::SeedableRng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The ring the operations run in.
#[derive(Debug, clap::Args)]
pub struct RingArgs {
    /// The field: P1..P6, goldilocks, babybear, a decimal word prime (469762049) or
    /// srgfn:w,u,sign,k.
    #[arg(long)]
    pub field: Option<String>,
    /// Where to run: cpu, gpu or auto (the GPU if there is one).
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// The GPU ordinal for --backend gpu.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
}

impl RingArgs {
    /// The field named by --field.
    pub fn field(&self) -> Result<AnyField, CliError> {
        let spec = self
            .field
            .as_deref()
            .ok_or("give the field: --field F (P1..P6, goldilocks, babybear, a decimal word prime or srgfn:w,u,sign,k)")?;
        super::fields::parse(spec)
    }

    /// The ring of polynomials over `field` on the backend named, and the report's first
    /// line: the field and its size.
    pub fn ring<F: HostField>(&self, field: &F) -> Result<(PolyRing<F>, String), CliError> {
        let ring = PolyRing::new(field, backend(&self.backend, self.device)?)?;
        let line = format!(
            "field    {} ({} bits)",
            field.name(),
            field.modulus().bits()
        );
        Ok((ring, line))
    }
}

/// Where the operands come from.
#[derive(Debug, clap::Args)]
pub struct Operands {
    /// The first operand: a JSON list of decimal strings, lowest degree first.
    #[arg(long, requires = "b", conflicts_with = "random")]
    pub a: Option<PathBuf>,
    /// The second operand, likewise.
    #[arg(long, requires = "a")]
    pub b: Option<PathBuf>,
    /// Random operands from this seed, of --len-a and --len-b coefficients.
    #[arg(long, requires_all = ["len_a", "len_b"])]
    pub random: Option<u64>,
    /// Coefficients of the random first operand.
    #[arg(long)]
    pub len_a: Option<usize>,
    /// Coefficients of the random second operand.
    #[arg(long)]
    pub len_b: Option<usize>,
}

impl Operands {
    /// The operands over `field`; a file that cannot be read or parsed is named in the
    /// error.
    pub fn read<F: HostField>(&self, field: &F) -> Result<(Poly<F>, Poly<F>), CliError> {
        match (&self.a, &self.b, self.random) {
            (Some(a), Some(b), _) => {
                let read = |path: &Path| -> Result<Poly<F>, CliError> {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                    Poly::from_json(field, &text)
                        .map_err(|e| format!("{}: {e}", path.display()).into())
                };
                Ok((read(a)?, read(b)?))
            }
            (_, _, Some(seed)) => {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let (la, lb) = (self.len_a.unwrap_or(0), self.len_b.unwrap_or(0));
                // The operands, their product and the transforms' buffers: a few times
                // the product's length, checked before the operands are made.
                fermat::memory::check(
                    || {
                        format!(
                            "random operands of {la} and {lb} coefficients over {}",
                            field.name()
                        )
                    },
                    4 * (la as u128 + lb as u128) * fermat::memory::element_bytes::<F>(),
                )?;
                Ok((
                    Poly::random(field, la, &mut rng),
                    Poly::random(field, lb, &mut rng),
                ))
            }
            _ => Err(
                "give the operands: --a FILE --b FILE, or --random SEED --len-a N --len-b M".into(),
            ),
        }
    }
}

/// Refuses an output that cannot be written, before any work.
pub fn check_output(output: &Option<PathBuf>) -> Result<(), CliError> {
    super::output::check(output)
}

/// Where the report goes: standard error when the result goes to standard output.
pub fn report_for(output: &Option<PathBuf>) -> Box<dyn Write> {
    if output.is_some() {
        Box::new(std::io::stdout())
    } else {
        Box::new(std::io::stderr())
    }
}

/// Writes the result's JSON to `output` (else standard output) and gives the exit code of
/// the checks: 1 when one failed.
pub fn finish(
    output: &Option<PathBuf>,
    json: &str,
    ok: bool,
    report: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    match output {
        Some(path) => {
            std::fs::write(path, json)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            writeln!(report, "output   {}", path.display())?;
        }
        None => println!("{json}"),
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Runs `op` twice and reports the second run's time beside the first's (`what`: "product",
/// "division"): both results, for the caller to compare.
pub fn timed_twice<T>(
    report: &mut dyn Write,
    running: &fermat::Running,
    what: &str,
    mut op: impl FnMut() -> Result<T, fermat::Error>,
) -> Result<(T, T), CliError> {
    let started = std::time::Instant::now();
    let first = op()?;
    let first_time = started.elapsed();
    let started = std::time::Instant::now();
    let again = op()?;
    let steady = started.elapsed();
    writeln!(
        report,
        "time     {:.3} ms (the first {what} {:.1} ms, {})",
        steady.as_secs_f64() * 1e3,
        first_time.as_secs_f64() * 1e3,
        first_call_includes(running)
    )?;
    Ok((first, again))
}

/// What the first call's time includes besides the work: compilation only on a GPU.
fn first_call_includes(running: &fermat::Running) -> &'static str {
    match running {
        fermat::Running::Gpu(_) => "with planning and compilation when not cached",
        fermat::Running::Cpu { .. } => "with planning",
    }
}
