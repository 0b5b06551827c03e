//! `fermat fft`: one transform on a file or on random data, verified and timed.

use super::{fields, output, progress, CliError};
use fermat::dsl::interp::dft_entry;
use fermat::dsl::with_field;
use fermat::io::{self, Format};
use fermat::{Backend, FftOptions, FftPlan, HostField, Order, Running, Strategy};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat fft`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The field: P1..P6, goldilocks, babybear, a decimal word prime (469762049) or
    /// srgfn:w,u,sign,k.
    #[arg(long)]
    field: String,
    #[command(flatten)]
    transform: Transform,
    /// A primitive n-th root of unity instead of the canonical ω_n: a decimal, or minus
    /// one (p − 1 for n = 2) and other negative decimals, read mod p.
    #[arg(long, allow_hyphen_values = true, value_name = "ROOT")]
    root: Option<String>,
    /// The inverse transform (at ω^(−1), scaled by 1/n).
    #[arg(long)]
    inverse: bool,
    /// Where to run: cpu, gpu or auto (the GPU if one works).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// The GPU ordinal for --backend gpu.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Input: a JSON list of decimal strings or integers; a reference-vector file
    /// (runtime/vectors/*.json: its DFT of n points, whose output --verify also compares);
    /// raw little-endian binary (.bin: a u32 or u64 per element, k u64 digits per SRGFN
    /// element); or - for standard input. Without --n, n is the number of values.
    #[arg(long, conflicts_with = "random", value_name = "FILE")]
    input: Option<PathBuf>,
    /// Input: n random elements from this seed.
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
    /// Where to write the output: a JSON list of decimal strings, raw binary for .bin, or
    /// `-`, standard output (the report then goes to standard error). Checked before the
    /// transform runs.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The format of --input and --output, where the file name does not say it (- above
    /// all): json or bin.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Check the result: against the defining sum at random outputs, and a round trip.
    #[arg(long)]
    verify: bool,
    /// Write the output in bit-reversed order (no permutation on the last pass).
    #[arg(long)]
    bit_reversed: bool,
}

/// A file format on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// A JSON list of decimals (or a reference-vector file, as input).
    Json,
    /// Raw little-endian words.
    Bin,
}

impl FormatArg {
    fn or_of(format: Option<FormatArg>, path: &Path) -> Format {
        match format {
            Some(FormatArg::Json) => Format::Json,
            Some(FormatArg::Bin) => Format::Binary,
            None => Format::of(path),
        }
    }
}

/// The size and factorisation options shared by `fermat fft` and `fermat gen`.
#[derive(Debug, clap::Args)]
pub struct Transform {
    /// The transform size, a power of two (1, 2, 4, …) up to 2^(the field's 2-adicity); or
    /// give --radix and --e for n = K^e.
    #[arg(long, short = 'n')]
    pub n: Option<u64>,
    /// The radix K (with --e: n = K^e).
    #[arg(long, short = 'K')]
    pub radix: Option<u64>,
    /// The exponent e of n = K^e.
    #[arg(long, short = 'e')]
    pub e: Option<u32>,
    /// The derivation strategy: ct (the default), radix2, stockham or prop3.
    #[arg(long)]
    pub strategy: Option<String>,
}

impl Transform {
    /// n from --n, or --radix and --e.
    pub fn size(&self) -> Result<u64, CliError> {
        size(self.n, self.radix, self.e)
    }

    /// The strategy, parsed.
    pub fn strategy(&self) -> Result<Option<Strategy>, CliError> {
        Ok(self
            .strategy
            .as_deref()
            .map(str::parse::<Strategy>)
            .transpose()?)
    }

    /// A line saying that the radix asked for is not the one the plan uses, and why.
    pub fn radix_note(&self, used: u64, n: u64, max_local_bits: u32) -> Option<String> {
        let asked = self.radix?;
        (asked != used).then(|| {
            let why = if asked > n {
                format!("it exceeds n = {n}")
            } else {
                format!(
                    "a kernel keeps at most 2^{max_local_bits} elements of this field on chip \
                     (--max-local-bits for gen)"
                )
            };
            format!("note     radix {asked} asked for; the plan uses radix {used}: {why}")
        })
    }
}

/// Parses `--backend`.
pub fn backend(name: &str, device: usize) -> Result<Backend, CliError> {
    match name {
        "cpu" => Ok(Backend::Cpu),
        "gpu" => Ok(Backend::Gpu(device)),
        "auto" => Ok(Backend::Auto),
        other => Err(format!("--backend {other}: expected cpu, gpu or auto").into()),
    }
}

/// n from --n, or --radix and --e.
fn size(n: Option<u64>, radix: Option<u64>, e: Option<u32>) -> Result<u64, CliError> {
    match (n, radix, e) {
        (Some(n), _, None) => Ok(n),
        (None, Some(k), Some(e)) => k
            .checked_pow(e)
            .ok_or_else(|| format!("K^e = {k}^{e} overflows 64 bits").into()),
        (Some(_), _, Some(_)) => Err("give either --n or --radix with --e, not both".into()),
        (None, _, _) => Err("give the size: --n N, or --radix K with --e E".into()),
    }
}

/// Runs `fermat fft`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let field = fields::parse(&args.field)?;
    output::check(&args.output)?;
    with_field!(&field, f => fft(f, &args))
}

/// `--root`: a decimal, negative ones read mod p.
fn parse_root<F: HostField>(field: &F, text: &str) -> Result<BigUint, CliError> {
    let bad = || format!("--root {text}: not a decimal integer (negative ones are read mod p)");
    let (negative, digits) = match text.trim().strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.trim()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad().into());
    }
    let v: BigUint = digits.parse().map_err(|_| bad())?;
    let p = field.modulus();
    Ok(if negative { (&p - v % &p) % &p } else { v })
}

/// The input: from a file (n from it when --n is not given) or random.
struct Input<F: HostField> {
    x: Vec<F::Elem>,
    /// A reference-vector file's output.
    expected: Option<Vec<F::Host>>,
}

/// Host vectors of n elements the command holds: input, its host copy, the output and
/// the round trip's copy.
const VECTORS: u32 = 4;

fn input<F: HostField>(field: &F, args: &Args) -> Result<Input<F>, CliError> {
    let n = match (&args.input, args.transform.n, args.transform.e) {
        (Some(_), None, None) => None,
        _ => Some(args.transform.size()?),
    };
    if let Some(n) = n {
        // Before anything of size n is made.
        fermat::memory::check_transform(field, n, VECTORS)?;
    }
    match (&args.input, args.random) {
        (Some(path), _) => {
            let format = FormatArg::or_of(args.format, path);
            let read = io::read(field, path, format, n)?;
            fermat::memory::check_transform(field, read.values.len() as u64, VECTORS)?;
            let x = read
                .values
                .iter()
                .map(|h| field.to_elem(h))
                .collect::<Result<_, _>>()?;
            Ok(Input {
                x,
                expected: read.expected,
            })
        }
        (None, Some(seed)) => {
            let n = n.expect("--random has a size");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            Ok(Input {
                x: (0..n).map(|_| field.random(&mut rng)).collect(),
                expected: None,
            })
        }
        (None, None) => Err("give the input: --input FILE or --random SEED".into()),
    }
}

fn fft<F: HostField>(field: &F, args: &Args) -> Result<ExitCode, CliError> {
    let strategy = args.transform.strategy()?;
    let root = args
        .root
        .as_deref()
        .map(|s| parse_root(field, s))
        .transpose()?;
    let options = FftOptions {
        backend: backend(&args.backend, args.device)?,
        strategy,
        radix: args.transform.radix,
        root: root.clone(),
        output_order: if args.bit_reversed {
            Order::BitReversed
        } else {
            Order::Natural
        },
        ..Default::default()
    };
    let Input { x, expected } = input(field, args)?;
    let n = x.len() as u64;
    let started = Instant::now();
    let plan = progress::during("planning", || FftPlan::new(field, n, options.clone()))?;
    let planned = started.elapsed();
    let host: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
    let mut y = host.clone();
    let started = Instant::now();
    progress::during("transform", || {
        if args.inverse {
            plan.inverse(&mut y)
        } else {
            plan.forward(&mut y)
        }
    })?;
    let ran = started.elapsed();
    let to_stdout = args.output.as_deref().is_some_and(io::is_std);
    let mut report: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    };
    let (strategy, radix) = plan.factorisation();
    writeln!(
        report,
        "field    {} ({} bits)",
        field.name(),
        field.modulus().bits()
    )?;
    writeln!(
        report,
        "size     n = {n} ({} {strategy}, radix {radix})",
        if args.inverse { "inverse" } else { "forward" },
    )?;
    let local_bits = fermat::design::default_local_bits(&fermat::design::any_field(field)?, n);
    if let Some(note) = args.transform.radix_note(radix, n, local_bits) {
        writeln!(report, "{note}")?;
    }
    writeln!(report, "backend  {}", plan.running())?;
    writeln!(
        report,
        "time     {:.3} ms (plan {:.1} ms{})",
        ran.as_secs_f64() * 1e3,
        planned.as_secs_f64() * 1e3,
        match plan.running() {
            Running::Gpu(_) => ", including compilation when not cached",
            Running::Cpu { .. } => "",
        }
    )?;
    let mut ok = true;
    if args.verify {
        let check = Check {
            field,
            plan: &plan,
            x: &x,
            host: &host,
            y: &y,
            root: root.as_ref(),
            args,
        };
        ok = check.run(&mut report)?;
    }
    if let Some(want) = &expected {
        let same = (!args.inverse && !args.bit_reversed && root.is_none()).then(|| *want == y);
        let path = args.input.as_deref().unwrap_or(Path::new("-"));
        writeln!(
            report,
            "verify   reference output of {}: {}",
            path.display(),
            match same {
                Some(true) => "ok",
                Some(false) => "WRONG",
                None => "not compared (it is the forward transform at ω_n, in natural order)",
            }
        )?;
        ok &= same != Some(false);
    }
    if let Some(path) = &args.output {
        io::write(field, path, FormatArg::or_of(args.format, path), &y)?;
        if !to_stdout {
            writeln!(report, "output   {}", path.display())?;
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What `--verify` checks a transform with.
struct Check<'a, F: HostField> {
    field: &'a F,
    plan: &'a FftPlan<F>,
    x: &'a [F::Elem],
    host: &'a [F::Host],
    y: &'a [F::Host],
    root: Option<&'a BigUint>,
    args: &'a Args,
}

impl<F: HostField> Check<'_, F> {
    /// The defining sum at random outputs, then the round trip; whether both pass.
    fn run(&self, report: &mut dyn Write) -> Result<bool, CliError> {
        let (field, args) = (self.field, self.args);
        let n = self.x.len() as u64;
        let omega = match self.root {
            Some(r) => field.from_biguint(r)?,
            None => field.root_of_unity(n)?,
        };
        let omega = if args.inverse {
            field.inv(&omega)?
        } else {
            omega
        };
        let scale = if args.inverse {
            field.inv(&field.from_u64(n))?
        } else {
            field.one()
        };
        let log_n = n.trailing_zeros();
        let at = |i: u64| {
            if args.bit_reversed && log_n > 0 {
                (i.reverse_bits() >> (64 - log_n)) as usize
            } else {
                i as usize
            }
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n ^ 0x5eed);
        let count = n.min(32);
        let mut bad = 0;
        // Each output is a sum of n products: seconds for large n and big fields.
        let bar = progress::bar(count, "verify");
        bar.set_message("outputs against the defining sum");
        for t in 0..count {
            let i = if count == n { t } else { rng.gen_range(0..n) };
            let want = field.mul(&dft_entry(field, self.x, &omega, i as usize), &scale);
            if field.to_elem(&self.y[at(i)])? != want {
                bad += 1;
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        writeln!(
            report,
            "verify   defining sum at {count} outputs: {}",
            if bad == 0 {
                "ok".to_string()
            } else {
                format!("{bad} WRONG")
            }
        )?;
        let round_trip = progress::during("verify: round trip", || self.round_trip())?;
        writeln!(
            report,
            "verify   round trip: {}",
            if round_trip { "ok" } else { "WRONG" }
        )?;
        Ok(bad == 0 && round_trip)
    }

    /// Undoes the transform with the plan of the other direction.
    fn round_trip(&self) -> Result<bool, CliError> {
        let (strategy, radix) = self.plan.factorisation();
        let undo = FftPlan::new(
            self.field,
            self.plan.n(),
            FftOptions {
                backend: backend(&self.args.backend, self.args.device)?,
                strategy: Some(strategy),
                radix: Some(radix),
                root: self.root.cloned(),
                input_order: if self.args.bit_reversed {
                    Order::BitReversed
                } else {
                    Order::Natural
                },
                ..Default::default()
            },
        )?;
        let mut back = self.y.to_vec();
        if self.args.inverse {
            undo.forward(&mut back)?;
        } else {
            undo.inverse(&mut back)?;
        }
        Ok(back == self.host)
    }
}
