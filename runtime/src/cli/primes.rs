//! `fermat primes`: the SRGFN catalogue (2017 paper, Table 1) computed afresh, the facts of
//! one field, and a search for sparse radices r = 2^w ± 2^u with r^k + 1 prime.

use super::CliError;
use fermat_dsl::field::primality::{probable_prime, SRGFN_MR_ROUNDS};
use fermat_dsl::field::{two_adicity_of, CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES, MAX_K};
use fermat_dsl::{with_field, AnyField, Field, Sign, SrgfnParams};
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `fermat primes`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the facts of one field (P1..P6, goldilocks, babybear, a decimal word prime or
    /// srgfn:w,u,sign,k) instead of the catalogue.
    #[arg(long, value_name = "SPEC", conflicts_with = "search")]
    field: Option<String>,
    /// Search sparse radices r = 2^w ± 2^u (w ≤ 64) for which r^k + 1 is prime.
    #[arg(long, requires = "digits")]
    search: bool,
    /// The number of digits k of the searched primes (a power of two, at most 64).
    #[arg(long, value_name = "K")]
    digits: Option<u64>,
    /// The search's time budget in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    budget: f64,
    /// Stop the search after this many primes.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Only report primes whose p − 1 has at least this 2-adicity.
    #[arg(long, default_value_t = 0)]
    min_two_adicity: u32,
}

/// Runs `fermat primes`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(spec) = &args.field {
        return describe(spec);
    }
    if args.search {
        let k = args.digits.expect("clap requires --digits with --search");
        return search(k, &args);
    }
    if args.digits.is_some() {
        return Err("--digits goes with --search".into());
    }
    catalogue();
    Ok(ExitCode::SUCCESS)
}

fn radix_text(p: &SrgfnParams) -> String {
    format!("2^{} {} 2^{}", p.w, p.sign.as_char(), p.u)
}

/// One row of Table 1, computed from (w, u, sign, k) alone.
struct Row {
    name: String,
    radix: String,
    k: u64,
    bits: u64,
    two_adicity: u32,
    prime: bool,
}

fn row(name: &str, params: &SrgfnParams) -> Result<Row, CliError> {
    let p = params.modulus()?;
    Ok(Row {
        name: name.to_string(),
        radix: radix_text(params),
        k: params.k,
        bits: p.bits(),
        two_adicity: two_adicity_of(&p),
        prime: probable_prime(&p, SRGFN_MR_ROUNDS).is_ok(),
    })
}

fn print_rows(rows: &[Row]) {
    println!(
        "{:<8} {:<14} {:>3} {:>4} {:>5} {:>11} {:>6}",
        "name", "r", "k", "K", "bits", "2-adicity", "prime"
    );
    for r in rows {
        println!(
            "{:<8} {:<14} {:>3} {:>4} {:>5} {:>11} {:>6}",
            r.name,
            r.radix,
            r.k,
            2 * r.k,
            r.bits,
            r.two_adicity,
            if r.prime { "yes" } else { "no" }
        );
    }
}

fn catalogue() {
    println!("Sparse-radix generalized Fermat primes p = r^k + 1 (K = 2k: the base-case DFT size)");
    let rows: Vec<Row> = CATALOGUE_SRGFNS
        .iter()
        .map(|(name, params)| row(name, params).expect("catalogue parameters are well formed"))
        .collect();
    print_rows(&rows);
    println!();
    println!("Word-size NTT primes");
    println!(
        "{:<22} {:>22} {:>5} {:>11}",
        "name", "p", "bits", "2-adicity"
    );
    for (name, p) in CATALOGUE_WORD_PRIMES {
        let big = num_bigint::BigUint::from(p);
        // Printed as every subcommand prints the field.
        let name = super::fields::parse(name).map_or_else(|_| name.to_string(), |f| f.name());
        println!(
            "{:<22} {:>22} {:>5} {:>11}",
            name,
            p,
            big.bits(),
            two_adicity_of(&big)
        );
    }
    println!();
    println!(
        "primality: {SRGFN_MR_ROUNDS} Miller–Rabin rounds (error ≤ 2^-{}) for SRGFNs; deterministic for word primes",
        2 * SRGFN_MR_ROUNDS
    );
}

fn describe(spec: &str) -> Result<ExitCode, CliError> {
    let field = super::fields::parse(spec)?;
    println!("field       {}", field.name());
    match field.srgfn_params() {
        Some(params) => {
            let r = params.radix()?;
            println!("kind        SRGFN p = r^k + 1 ({params})");
            println!("r           {} = {r}", radix_text(&params));
            println!(
                "k           {} (base-case DFT size K = 2k = {})",
                params.k,
                2 * params.k
            );
            println!("prime       yes (probable, {SRGFN_MR_ROUNDS} Miller–Rabin rounds)");
        }
        None => {
            let kind = match field {
                AnyField::Fp32(_) => "word prime, 32-bit Montgomery arithmetic",
                _ => "word prime, 64-bit Montgomery arithmetic",
            };
            println!("kind        {kind}");
            println!("prime       yes (deterministic Miller–Rabin)");
        }
    }
    println!("p           {}", field.modulus());
    println!("bits        {}", field.bits());
    println!(
        "2-adicity   {} (transforms of every size 2^i ≤ 2^{})",
        field.two_adicity(),
        field.two_adicity()
    );
    let alpha = with_field!(&field, f => f.to_biguint(&f.non_residue()));
    println!("α           {alpha} (smallest quadratic non-residue: generates the canonical roots)");
    Ok(ExitCode::SUCCESS)
}

/// Every sparse radix r = 2^w ± 2^u < 2^64, largest 2-adicity (u·k) first.
fn candidates(k: u64) -> Vec<SrgfnParams> {
    let mut all = Vec::new();
    for w in 2..=64u32 {
        for u in 1..w {
            for sign in [Sign::Plus, Sign::Minus] {
                let params = SrgfnParams { w, u, sign, k };
                if params.radix().is_ok() {
                    all.push(params);
                }
            }
        }
    }
    all.sort_by_key(|p| (std::cmp::Reverse(p.u), std::cmp::Reverse(p.w)));
    all
}

fn search(k: u64, args: &Args) -> Result<ExitCode, CliError> {
    SrgfnParams {
        w: 63,
        u: 1,
        sign: Sign::Plus,
        k,
    }
    .check_k()?;
    if !(args.budget > 0.0 && args.budget.is_finite()) {
        return Err(format!(
            "--budget {} must be a positive number of seconds",
            args.budget
        )
        .into());
    }
    let budget = Duration::from_secs_f64(args.budget);
    let all: Vec<SrgfnParams> = candidates(k)
        .into_iter()
        .filter(|p| p.u as u64 * k >= args.min_two_adicity as u64)
        .collect();
    let bar = ProgressBar::new(all.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} radices, {msg}",
        )
        .expect("the progress template is valid"),
    );
    let start = Instant::now();
    let mut found = Vec::new();
    let mut tried = 0usize;
    for params in &all {
        if start.elapsed() > budget || found.len() >= args.limit {
            break;
        }
        let p = params.modulus()?;
        if probable_prime(&p, SRGFN_MR_ROUNDS).is_ok() {
            found.push(row(&params.to_string(), params)?);
            bar.set_message(format!("{} primes", found.len()));
        }
        tried += 1;
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "searched {tried} of {} radices r = 2^w ± 2^u for k = {k} in {:.1} s (MAX_K = {MAX_K}); {} primes:",
        all.len(),
        start.elapsed().as_secs_f64(),
        found.len()
    );
    print_rows(&found);
    Ok(ExitCode::SUCCESS)
}
