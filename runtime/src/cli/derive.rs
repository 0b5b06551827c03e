//! `fermat derive`: a formula's rewrites step by step (rule, position, before → after),
//! optionally checked step by step with the reference interpreter; or the rule registry.

use super::CliError;
use fermat_dsl::derive::{
    derive, derive_devices, show_position, CheckReport, DeviceSplit, DeviceStage, Distribution,
    Options, Strategy, Verdict,
};
use fermat_dsl::formula::Formula;
use fermat_dsl::rules::{self, Rule};
use fermat_dsl::with_field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::process::ExitCode;

/// Arguments of `fermat derive`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The formula to derive: DFT(N) with N a power of two, in Unicode or ASCII notation
    /// (`DFT(4096)`, `DFT_4096`).
    #[arg(required_unless_present = "rules")]
    formula: Option<String>,
    /// The strategy: ct (recursive Cooley–Tukey; the default, as for `fft` and `gen`),
    /// radix2 (2010, (10)), stockham (2010, (12)) or prop3 (2017, Proposition 3).
    #[arg(long, short = 's', default_value = "ct")]
    strategy: Strategy,
    /// The radix K, a power of two: the Cooley–Tukey split, the base case DFT(K), or K in
    /// N = K^e for prop3 (stockham does not use it).
    #[arg(short = 'K', long = "radix", default_value_t = 16, value_name = "K")]
    radix: u64,
    /// Expand every remaining DFT(n), n ≥ 4, into DFT(2)s by the base-case rule (thesis,
    /// DFT16): twiddles that are powers of ω_K = r, digit shifts for an SRGFN.
    #[arg(long)]
    expand_base: bool,
    /// prop3 only: rewrite each U_i by Proposition 2 into V_i · (I ⊗ DFT(K)) · W_i.
    #[arg(long)]
    prop2: bool,
    /// Evaluate every step's before and after on a random vector and report agreement.
    #[arg(long)]
    check: bool,
    /// The field of --check: P1..P6, goldilocks, babybear, a decimal word prime or
    /// srgfn:w,u,sign,k.
    #[arg(long, default_value = "P3", value_name = "SPEC")]
    field: String,
    /// The seed of --check's random vectors.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// List the rewrite rules with their identities instead of deriving.
    #[arg(long, conflicts_with_all = ["formula", "check", "final_only"])]
    rules: bool,
    /// Print only the final formula.
    #[arg(long)]
    final_only: bool,
    /// Print formulas and identities in ASCII (`(x)`, `*`, `(+)`).
    #[arg(long)]
    ascii: bool,
    /// Split the transform over G devices (a power of two, N ≥ G²): local factors of
    /// N/G points and all-to-all exchanges, the local DFT derived by --strategy.
    #[arg(long, value_name = "G", conflicts_with = "rules")]
    devices: Option<u64>,
    /// With --devices, where the input lives: cyclic (element i on device i mod G) or
    /// blocks (natural order, N/G consecutive elements per device).
    #[arg(long, default_value = "cyclic", requires = "devices")]
    input: Distribution,
    /// With --devices, where the output lives: transposed (the last exchange left out) or
    /// blocks.
    #[arg(long, default_value = "transposed", requires = "devices")]
    output: Distribution,
}

/// Runs `fermat derive`: exit status 0, or 1 when a checked step disagrees; malformed
/// input is an error (the binary exits with 2).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.rules {
        print!("{}", rule_list(rules::registry(), args.ascii));
        return Ok(ExitCode::SUCCESS);
    }
    let text = args
        .formula
        .as_deref()
        .expect("clap requires a formula unless --rules");
    let formula = Formula::parse(text).map_err(|e| format!("cannot read the formula: {e}"))?;
    let options = Options {
        radix: args.radix,
        expand_base: args.expand_base,
        prop2: args.prop2,
    };
    // Build the field before deriving so that a bad --field is reported at once.
    let field = if args.check {
        Some(super::fields::parse(&args.field)?)
    } else {
        None
    };
    let split = match args.devices {
        Some(g) => Some(derive_devices(
            &formula,
            g,
            args.input,
            args.output,
            args.strategy,
            &options,
        )?),
        None => None,
    };
    let derivation = match &split {
        Some(s) => s.derivation.clone(),
        None => derive(&formula, args.strategy, &options)?,
    };
    let show = |f: &Formula| if args.ascii { f.ascii() } else { f.to_string() };
    if args.final_only {
        println!("{}", show(&derivation.final_formula()));
    } else {
        println!("{}", header(&args));
        print!("{}", derivation.render(args.ascii));
        if let Some(split) = &split {
            print!("{}", schedule(split, &show));
        }
    }
    let Some(field) = field else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let report = with_field!(&field, f => derivation.check(f, &mut rng))?;
    print!("{}", report_text(&report, args.seed));
    Ok(if report.all_agree() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What each device runs, in order, and where the data lives before and after.
fn schedule(split: &DeviceSplit, show: &dyn Fn(&Formula) -> String) -> String {
    let (g, m) = (split.devices, split.local_size());
    let mut out = format!(
        "on {g} devices of N/G = {m} points, {} exchange(s) of N/G² = {} points per pair:\n",
        split.exchanges(),
        m / g
    );
    out += &match split.input {
        Distribution::Cyclic => format!(
            "  input cyclic: element i on device i mod {g}; L({}, {g}) is the distribution and moves nothing\n",
            split.n
        ),
        _ => "  input in blocks: element i on device i div N/G\n".to_string(),
    };
    for (i, stage) in split.stages().iter().enumerate() {
        let what = match stage {
            DeviceStage::Local(f) => format!("each device: {}", show(f)),
            DeviceStage::Twiddle => {
                format!("each device d: D({g}, {m}) row d, element j times ω_N^(d·j)")
            }
            DeviceStage::Exchange => {
                "all-to-all: chunk c of device d to slot d of device c".to_string()
            }
            DeviceStage::TwiddleExchanged => format!(
                "each device e: element d·{s} + j times ω_N^(d·({g}·j + e))",
                s = m / g
            ),
        };
        out += &format!("  {}. {what}\n", i + 1);
    }
    out += &match split.output {
        Distribution::Transposed => format!(
            "  output transposed: the last exchange is left out; device d holds y[k·{m} + d·{} + j] at k·{} + j\n",
            m / g,
            m / g
        ),
        Distribution::Cyclic => format!(
            "  output cyclic: element i on device i mod {g}; L({}, {m}) is the distribution and moves nothing\n",
            split.n
        ),
        Distribution::Blocks => "  output in blocks: element i on device i div N/G\n".to_string(),
    };
    out
}

fn header(args: &Args) -> String {
    let mut h = format!("strategy {}", args.strategy);
    if args.strategy != Strategy::Stockham {
        h += &format!(", K = {}", args.radix);
    }
    if args.prop2 {
        h += ", prop2";
    }
    if args.expand_base {
        h += ", expand_base";
    }
    if let Some(g) = args.devices {
        h += &format!(
            ", split over {g} devices ({} in, {} out)",
            args.input, args.output
        );
    }
    h
}

/// The registry as `--rules` prints it: per rule its name, kind and source, the identity,
/// the condition and the parameter.
fn rule_list(rules: &[Rule], ascii: bool) -> String {
    let text = |s: &str| {
        if ascii {
            rules::ascii(s)
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for r in rules {
        out += &format!("{} ({}, {})\n", r.name, r.kind.name(), text(r.source));
        out += &format!("    {}\n", text(r.identity));
        out += &format!("    applies to: {}\n", text(r.condition));
        if let Some(p) = r.parameter {
            out += &format!("    parameter: {}\n", text(p));
        }
    }
    out
}

fn report_text(report: &CheckReport, seed: u64) -> String {
    let mut out = format!("check over {} (seed {seed})\n", report.field);
    let width = report.steps.len().to_string().len();
    let outcome = |size: u64, compared: u64, verdict: Verdict| match verdict {
        Verdict::Skipped => {
            "skipped (DFT leaves too large to evaluate; covered end to end)".to_string()
        }
        _ => {
            let word = if verdict == Verdict::Agree {
                "agree"
            } else {
                "DISAGREE"
            };
            if compared == size {
                format!("{size} points: {word}")
            } else {
                format!("{size} points, {compared} sampled outputs: {word}")
            }
        }
    };
    for c in &report.steps {
        out += &format!(
            "{:>width$}. {} at {}: {}\n",
            c.step,
            c.rule,
            show_position(&c.position),
            outcome(c.size, c.compared, c.verdict)
        );
    }
    let w = &report.whole;
    out += &format!("end to end: {}\n", outcome(w.size, w.compared, w.verdict));
    let failures = report.failures().count() + usize::from(w.verdict == Verdict::Disagree);
    if failures == 0 {
        out += "the derivation checks out\n";
    } else {
        out += &format!("{failures} comparisons disagree\n");
    }
    out
}
