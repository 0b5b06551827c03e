//! `fermat selftest`: every catalogue field at many sizes, on each backend, against exact
//! references — transforms, then products of polynomials (`selftest_mul`); a pass/fail
//! table and exit status 1 on any failure.

use super::{fields, progress, CliError};
use fermat::dsl::field::{CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES};
use fermat::dsl::interp::dft_entry;
use fermat::dsl::with_field;
use fermat::vectors::DftFile;
use fermat::{AnyField, Backend, Direction, FftOptions, FftPlan, HostField};
use rand::{Rng, SeedableRng};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat selftest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Test the GPU backend only (an error if there is no working GPU).
    #[arg(long, conflicts_with_all = ["cpu", "all"])]
    gpu: bool,
    /// Test the CPU backend only.
    #[arg(long, conflicts_with = "all")]
    cpu: bool,
    /// Test both backends (the default: the CPU, and the GPU when one works).
    #[arg(long)]
    all: bool,
    /// The largest transform size tested, log2 (word primes go up to 2^26).
    #[arg(long, default_value_t = 26)]
    max_log_n: u32,
    /// The largest size compared in whole with the CPU backend, log2 (larger sizes are
    /// checked at random outputs and by a round trip).
    #[arg(long, default_value_t = 20)]
    max_log_compare: u32,
    /// The largest size the CPU backend runs, log2.
    #[arg(long, default_value_t = 20)]
    max_log_cpu: u32,
    /// The seed of the random inputs (default: fresh each run).
    #[arg(long)]
    seed: Option<u64>,
    /// Transforms per call for sizes up to 2^14 (larger ones run one at a time): a batch
    /// large enough to fill the device also makes multi-pass SRGFN plans hand off between
    /// passes group by group.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=4096))]
    batch: u64,
    /// Only these catalogue fields (repeatable), named in any way a field is, e.g.
    /// `--field P5 --field 469762049`.
    #[arg(long = "field", value_name = "NAME")]
    fields: Vec<String>,
    /// Test transforms and products split over these devices instead (e.g. `0,1`): GPUs of
    /// this host exchanging through NCCL, or with --cpu as many devices simulated on the
    /// CPU (sizes up to 2^16 there).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "ORDINALS",
        conflicts_with = "all"
    )]
    devices: Option<Vec<usize>>,
}

/// One transform size of one field.
pub struct Case {
    /// The field's name in the catalogue (what it is built from).
    spec: &'static str,
    /// The field's name as printed.
    field: String,
    n: u64,
    note: &'static str,
}

fn cases(max_log_n: u32, chosen: &[AnyField]) -> Vec<Case> {
    let mut all = every_case(max_log_n);
    all.retain(|c| fields::chosen(chosen, c.spec));
    all
}

/// The printed name of a catalogue field.
fn printed(spec: &str) -> String {
    fields::parse(spec).map_or_else(|_| spec.to_string(), |f| fields::name(&f))
}

fn every_case(max_log_n: u32) -> Vec<Case> {
    let mut out = Vec::new();
    for (name, p) in CATALOGUE_WORD_PRIMES {
        let top = max_log_n.min((p - 1).trailing_zeros());
        let field = printed(name);
        for log_n in 4..=top {
            out.push(Case {
                spec: name,
                field: field.clone(),
                n: 1 << log_n,
                note: "",
            });
        }
    }
    for (name, params) in CATALOGUE_SRGFNS {
        let big_k = 2 * params.k;
        let bytes = 8 * params.k;
        let last_e = if params.k >= 32 { 3 } else { u32::MAX };
        let field = printed(name);
        let mut e = 2;
        while let Some(n) = big_k.checked_pow(e) {
            if e > last_e || n > 1 << max_log_n.min(24) || n * bytes > 4 << 30 {
                break;
            }
            out.push(Case {
                spec: name,
                field: field.clone(),
                n,
                note: "K^e",
            });
            e += 1;
        }
        // Sizes that are not powers of K: radix-K stages and a smaller remainder.
        for c in [1, 3] {
            let n = (big_k * big_k) << c;
            if n <= 1 << max_log_n.min(20) {
                out.push(Case {
                    spec: name,
                    field: field.clone(),
                    n,
                    note: "K^2·2^c",
                });
            }
        }
    }
    out
}

/// The checks of one case (pass, fail or not made), and whether its device calls handed
/// off between passes.
struct Outcome {
    checks: Vec<(&'static str, Option<bool>)>,
    handed_off: bool,
}

struct Row {
    field: String,
    n: u64,
    backend: String,
    checks: Vec<(&'static str, Option<bool>)>,
    /// Whether the device calls handed off between passes group by group.
    handed_off: bool,
    millis: f64,
    error: Option<String>,
}

impl Row {
    fn passed(&self) -> bool {
        self.error.is_none() && self.checks.iter().all(|(_, ok)| ok.unwrap_or(true))
    }
}

/// Runs `fermat selftest`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(devices) = &args.devices {
        let offered: Vec<&str> = every_case(args.max_log_n).iter().map(|c| c.spec).collect();
        let chosen = fields::filter(&args.fields, &offered)?;
        return super::selftest_split::run(&super::selftest_split::SplitTest {
            devices,
            cpu: args.cpu,
            max_log_n: args.max_log_n,
            chosen: &chosen,
            seed: args.seed.unwrap_or_else(|| rand::thread_rng().gen()),
        });
    }
    let gpu_works = fermat::gpu::device(0);
    let mut backends = Vec::new();
    if !args.gpu {
        backends.push(Backend::Cpu);
    }
    if args.gpu || args.all || (!args.cpu && gpu_works.is_ok()) {
        match &gpu_works {
            Ok(d) => {
                println!("GPU: {}", d.describe());
                backends.push(Backend::Gpu(0));
            }
            Err(e) if args.gpu || args.all => return Err(format!("no GPU to test: {e}").into()),
            Err(_) => {}
        }
    }
    if let Err(e) = &gpu_works {
        println!("GPU: none ({e}); testing the CPU backend");
    }
    let seed = args.seed.unwrap_or_else(|| rand::thread_rng().gen());
    println!("seed {seed} (rerun with --seed {seed})");
    let offered: Vec<&str> = every_case(args.max_log_n).iter().map(|c| c.spec).collect();
    let chosen = fields::filter(&args.fields, &offered)?;
    let vectors = fermat::vectors::shipped()?;
    if backends.iter().any(|b| matches!(b, Backend::Gpu(_))) {
        compile_ahead(&cases(args.max_log_n, &chosen));
    }
    let runs: Vec<(Backend, Case)> = backends
        .iter()
        .flat_map(|&backend| {
            cases(args.max_log_n, &chosen)
                .into_iter()
                .filter(move |c| {
                    backend != Backend::Cpu || c.n.trailing_zeros() <= args.max_log_cpu
                })
                .map(move |c| (backend, c))
        })
        .collect();
    let bar = progress::bar(runs.len() as u64, "selftest");
    let mut rows = Vec::new();
    for (backend, case) in runs {
        bar.set_message(format!(
            "{} n = {} on {}",
            case.field,
            case.n,
            name(backend)
        ));
        let row = run_case(&case, backend, &args, seed, &vectors)?;
        bar.suspend(|| print_row(&row, case.note));
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let failed = rows.iter().filter(|r| !r.passed()).count();
    let (products, products_failed) = super::selftest_mul::run(&chosen, &backends, seed);
    let (total, failed) = (rows.len() + products, failed + products_failed);
    println!("{} passed, {} failed", total - failed, failed);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One case on one backend, timed: its row of the table.
fn run_case(
    case: &Case,
    backend: Backend,
    args: &Args,
    seed: u64,
    vectors: &[DftFile],
) -> Result<Row, CliError> {
    let any = fields::parse(case.spec)?;
    let started = Instant::now();
    let result = with_field!(&any, f => check(f, case, backend, args, seed, vectors));
    let millis = started.elapsed().as_secs_f64() * 1e3;
    let (checks, handed_off, error) = match result {
        Ok(Outcome { checks, handed_off }) => (checks, handed_off, None),
        Err(e) => (Vec::new(), false, Some(e.to_string())),
    };
    Ok(Row {
        field: case.field.clone(),
        n: case.n,
        backend: name(backend),
        checks,
        handed_off,
        millis,
        error,
    })
}

/// Compiles every case's kernels on all cores first: the CUBINs land in the disk cache, so
/// the checks that follow (one case at a time) do not wait for NVRTC.
pub fn compile_ahead(cases: &[Case]) {
    use rayon::prelude::*;
    let bar = progress::bar(cases.len() as u64, "compiling kernels");
    cases.par_iter().for_each(|case| {
        if let Ok(any) = fields::parse(case.spec) {
            // Errors surface again, with context, when the case runs.
            let _ = with_field!(&any, f => FftPlan::new(f, case.n, FftOptions {
                backend: Backend::Gpu(0),
                ..FftOptions::default()
            }).map(|_| ()));
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
}

fn name(b: Backend) -> String {
    match b {
        Backend::Gpu(i) => format!("gpu{i}"),
        _ => "cpu".into(),
    }
}

fn print_row(row: &Row, note: &str) {
    let checks: Vec<String> = row
        .checks
        .iter()
        .map(|(what, ok)| {
            let mark = match ok {
                Some(true) => "ok",
                Some(false) => "FAIL",
                None => "-",
            };
            format!("{what} {mark}")
        })
        .collect();
    println!(
        "{:<5} {:<22} n = {:<10} {:<8} {:>9.1} ms  {}{}",
        if row.passed() { "PASS" } else { "FAIL" },
        row.field,
        row.n,
        row.backend,
        row.millis,
        match &row.error {
            Some(e) => format!("error: {e}"),
            None => checks.join(", "),
        },
        match (note.is_empty(), row.handed_off) {
            (true, false) => String::new(),
            (true, true) => " (hand-offs)".to_string(),
            (false, false) => format!(" ({note})"),
            (false, true) => format!(" ({note}, hand-offs)"),
        }
    );
}

fn check<F: HostField>(
    field: &F,
    case: &Case,
    backend: Backend,
    args: &Args,
    seed: u64,
    vectors: &[DftFile],
) -> Result<Outcome, fermat::Error> {
    let n = case.n;
    let options = FftOptions {
        backend,
        ..FftOptions::default()
    };
    let plan = FftPlan::new(field, n, options)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ n ^ field.modulus().bits());
    let batch = if n <= 1 << 14 { args.batch } else { 1 };
    let x: Vec<F::Elem> = (0..n * batch).map(|_| field.random(&mut rng)).collect();
    let host: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
    let forward = transform(&plan, Direction::Forward, &host, backend)?;

    // Exact vectors where they exist: every output compared (the files' lengths and values
    // were checked when they were read).
    let mut vector = None;
    let p = field.modulus();
    for d in vectors.iter().filter(|f| f.p == p).flat_map(|f| &f.ffts) {
        if d.n == n {
            let xs: Vec<F::Host> = d
                .input
                .iter()
                .map(|x| Ok(field.to_host(&field.from_biguint(x)?)))
                .collect::<Result<_, fermat::Error>>()?;
            let ys = transform(&plan, Direction::Forward, &xs, backend)?;
            let ok = ys.len() == d.output.len()
                && ys.iter().zip(&d.output).all(|(y, want)| {
                    field
                        .to_elem(y)
                        .is_ok_and(|e| field.to_biguint(&e) == *want)
                });
            vector = Some(ok);
        }
    }

    // The defining sum at random outputs of every transform of the batch.
    let omega = field.root_of_unity(n)?;
    let mut sum_ok = true;
    for t in 0..batch as usize {
        let xs = &x[t * n as usize..(t + 1) * n as usize];
        for _ in 0..8 {
            let i = rng.gen_range(0..n) as usize;
            let got = field.to_elem(&forward[t * n as usize + i]);
            sum_ok &= got.ok() == Some(dft_entry(field, xs, &omega, i));
        }
    }

    // The GPU's whole output against the CPU backend's.
    let compared =
        if matches!(backend, Backend::Gpu(_)) && n.trailing_zeros() <= args.max_log_compare {
            let cpu = FftPlan::new(
                field,
                n,
                FftOptions {
                    backend: Backend::Cpu,
                    ..FftOptions::default()
                },
            )?;
            let mut want = host.clone();
            cpu.forward(&mut want)?;
            Some(want == forward)
        } else {
            None
        };

    // The inverse undoes the forward transform.
    let back = transform(&plan, Direction::Inverse, &forward, backend)?;
    let round_trip = back == host;
    let handed_off = plan.hands_off(Direction::Forward, batch as usize);
    Ok(Outcome {
        checks: vec![
            ("vectors", vector),
            ("sum", Some(sum_ok)),
            ("cpu", compared),
            ("round trip", Some(round_trip)),
        ],
        handed_off,
    })
}

/// One direction over a batch, on the device API for GPUs (with a poisoned output).
fn transform<F: HostField>(
    plan: &FftPlan<F>,
    direction: Direction,
    data: &[F::Host],
    backend: Backend,
) -> Result<Vec<F::Host>, fermat::Error> {
    match backend {
        Backend::Gpu(_) => {
            let input = plan.to_device(data)?;
            let batch = input.batch();
            let mut output = plan.poisoned_device(batch)?;
            plan.run_device(direction, &input, &mut output, None)?;
            plan.from_device(&output)
        }
        _ => {
            let mut out = data.to_vec();
            match direction {
                Direction::Forward => plan.forward(&mut out)?,
                Direction::Inverse => plan.inverse(&mut out)?,
            }
            Ok(out)
        }
    }
}
