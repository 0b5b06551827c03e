//! `fermat fft`: one transform on a file or on random data, verified and timed.

use super::CliError;
use fermat::dsl::interp::dft_entry;
use fermat::dsl::with_field;
use fermat::{Backend, FftOptions, FftPlan, FieldSpec, HostField, Order, Strategy};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat fft`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The field: P1..P6, goldilocks, babybear, a decimal word prime or srgfn:w,u,sign,k.
    #[arg(long)]
    field: String,
    #[command(flatten)]
    transform: Transform,
    /// A primitive n-th root of unity (decimal) instead of the canonical ω_n.
    #[arg(long)]
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
    /// Input: a JSON list of decimal strings (the format of the reference vectors).
    #[arg(long, conflicts_with = "random")]
    input: Option<PathBuf>,
    /// Input: n random elements from this seed.
    #[arg(long)]
    random: Option<u64>,
    /// Where to write the output (a JSON list of decimal strings).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Check the result: against the defining sum at random outputs, and a round trip.
    #[arg(long)]
    verify: bool,
    /// Write the output in bit-reversed order (no permutation on the last pass).
    #[arg(long)]
    bit_reversed: bool,
}

/// The size and factorisation options shared by `fermat fft` and `fermat gen`.
#[derive(Debug, clap::Args)]
pub struct Transform {
    /// The transform size (a power of two); or give --radix and --e for n = K^e.
    #[arg(long, short = 'n')]
    pub n: Option<u64>,
    /// The radix K (with --e: n = K^e).
    #[arg(long, short = 'K')]
    pub radix: Option<u64>,
    /// The exponent e of n = K^e.
    #[arg(long, short = 'e')]
    pub e: Option<u32>,
    /// The derivation strategy: ct, radix2, stockham or prop3.
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
    let field = FieldSpec::parse(&args.field)?.build()?;
    with_field!(&field, f => fft(f, &args))
}

fn read_input<F: HostField>(field: &F, path: &PathBuf, n: u64) -> Result<Vec<F::Elem>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let items: Vec<String> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: expected a JSON list of decimal strings: {e}",
            path.display()
        )
    })?;
    if items.len() as u64 != n {
        return Err(format!("{} holds {} values; n = {n}", path.display(), items.len()).into());
    }
    items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let v: BigUint = s.parse().map_err(|_| {
                format!(
                    "{}: value {i} = {s:?} is not a decimal integer",
                    path.display()
                )
            })?;
            Ok(field.from_biguint(&v)?)
        })
        .collect()
}

fn fft<F: HostField>(field: &F, args: &Args) -> Result<ExitCode, CliError> {
    let n = args.transform.size()?;
    let strategy = args.transform.strategy()?;
    let root = args
        .root
        .as_deref()
        .map(|s| {
            s.parse::<BigUint>()
                .map_err(|_| format!("--root {s}: not a decimal integer"))
        })
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
    let x: Vec<F::Elem> = match (&args.input, args.random) {
        (Some(path), _) => read_input(field, path, n)?,
        (None, Some(seed)) => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            (0..n).map(|_| field.random(&mut rng)).collect()
        }
        (None, None) => return Err("give the input: --input FILE or --random SEED".into()),
    };
    let started = Instant::now();
    let plan = FftPlan::new(field, n, options.clone())?;
    let planned = started.elapsed();
    let host: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
    let mut y = host.clone();
    let started = Instant::now();
    if args.inverse {
        plan.inverse(&mut y)?;
    } else {
        plan.forward(&mut y)?;
    }
    let ran = started.elapsed();
    println!(
        "field    {} ({} bits)",
        field.name(),
        field.modulus().bits()
    );
    println!(
        "size     n = {n} ({} {}, radix {})",
        if args.inverse { "inverse" } else { "forward" },
        plan.factorisation().0,
        plan.factorisation().1
    );
    println!("backend  {}", plan.running());
    println!(
        "time     {:.3} ms (plan {:.1} ms, including compilation when not cached)",
        ran.as_secs_f64() * 1e3,
        planned.as_secs_f64() * 1e3
    );
    let mut ok = true;
    if args.verify {
        ok = verify(field, &plan, &x, &y, root.as_ref(), args)?;
    }
    if let Some(path) = &args.output {
        let out: Vec<String> = y
            .iter()
            .map(|h| field.to_elem(h).map(|e| field.to_biguint(&e).to_string()))
            .collect::<Result<_, _>>()?;
        std::fs::write(path, serde_json::to_string_pretty(&out)?)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("output   {}", path.display());
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn verify<F: HostField>(
    field: &F,
    plan: &FftPlan<F>,
    x: &[F::Elem],
    y: &[F::Host],
    root: Option<&BigUint>,
    args: &Args,
) -> Result<bool, CliError> {
    let n = x.len() as u64;
    let omega = match root {
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
    for t in 0..count {
        let i = if count == n { t } else { rng.gen_range(0..n) };
        let want = field.mul(&dft_entry(field, x, &omega, i as usize), &scale);
        if field.to_elem(&y[at(i)])? != want {
            bad += 1;
        }
    }
    println!(
        "verify   defining sum at {count} outputs: {}",
        if bad == 0 {
            "ok".to_string()
        } else {
            format!("{bad} WRONG")
        }
    );
    // The round trip undoes the transform with the plan of the other direction.
    let mut back = y.to_vec();
    let undo = FftPlan::new(
        field,
        n,
        FftOptions {
            input_order: if args.bit_reversed {
                Order::BitReversed
            } else {
                Order::Natural
            },
            ..plan_options_of(plan, args)?
        },
    )?;
    if args.inverse {
        undo.forward(&mut back)?;
    } else {
        undo.inverse(&mut back)?;
    }
    let host: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
    let round_trip = back == host;
    println!(
        "verify   round trip: {}",
        if round_trip { "ok" } else { "WRONG" }
    );
    Ok(bad == 0 && round_trip)
}

fn plan_options_of<F: HostField>(plan: &FftPlan<F>, args: &Args) -> Result<FftOptions, CliError> {
    let (strategy, radix) = plan.factorisation();
    Ok(FftOptions {
        backend: backend(&args.backend, args.device)?,
        strategy: Some(strategy),
        radix: Some(radix),
        root: args.root.as_deref().map(|s| s.parse()).transpose()?,
        ..Default::default()
    })
}
