//! `fermat mul --ring Z` and `--ring mod:M`: products of polynomials with big integer
//! coefficients, exact, by the CRT route.

use super::fft::backend;
use super::operands::{check_output, finish, report_for, timed_twice};
use super::CliError;
use fermat::crt::{IntPolyRing, ModPolyRing};
use fermat::dsl::field::primality::is_prime_u64;
use fermat::num_bigint::{BigInt, BigUint, RandBigInt, Sign};
use fermat::poly::{integers_of_json, integers_to_json};
use num_traits::{ToPrimitive, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A coefficient ring other than a field: the integers, or the integers modulo M.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ring {
    /// Z.
    Integers,
    /// Z/MZ, M ≥ 2.
    Modular(BigUint),
}

impl Ring {
    /// Reads `Z` or `mod:M` (M in decimal, at least 2).
    pub fn parse(text: &str) -> Result<Ring, CliError> {
        if text == "Z" {
            return Ok(Ring::Integers);
        }
        let Some(m) = text.strip_prefix("mod:") else {
            return Err(
                format!("--ring {text}: expected Z or mod:M with M a decimal integer ≥ 2").into(),
            );
        };
        if m.is_empty() || !m.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "--ring {text}: the modulus {m:?} is not a decimal integer (mod:M, M ≥ 2)"
            )
            .into());
        }
        let m: BigUint = m.parse().expect("ASCII digits are a decimal integer");
        if m < BigUint::from(2u32) {
            return Err(
                format!("--ring {text}: the modulus {m} is below 2 (mod:M needs M ≥ 2)").into(),
            );
        }
        Ok(Ring::Modular(m))
    }
}

/// What `fermat mul` passes on for a ring: the operands, the output and the checks.
pub struct Job<'a> {
    pub ring: Ring,
    pub backend: &'a str,
    pub device: usize,
    pub a: Option<&'a Path>,
    pub b: Option<&'a Path>,
    pub random: Option<u64>,
    pub len_a: Option<usize>,
    pub len_b: Option<usize>,
    pub bits: u64,
    pub output: &'a Option<PathBuf>,
    pub verify: bool,
}

/// Random points, and primes for Z, a product is checked at.
const POINTS: usize = 2;
const PRIMES: usize = 3;

/// Runs the product of `job`.
pub fn run(job: Job) -> Result<ExitCode, CliError> {
    check_output(job.output)?;
    let (a, b) = operands(&job)?;
    let backend = backend(job.backend, job.device)?;
    let mut report = report_for(job.output);
    writeln!(
        report,
        "lengths  {} × {} → {}",
        a.len(),
        b.len(),
        (a.len() + b.len()).saturating_sub(1)
    )?;
    let (c, ok) = match &job.ring {
        Ring::Integers => {
            let ring = IntPolyRing::new(backend)?;
            writeln!(
                report,
                "ring     Z (coefficients of up to {} bits)",
                max_bits(&a).max(max_bits(&b))
            )?;
            let (bits_a, bits_b) = (max_bits(&a), max_bits(&b));
            let route = match ring.takes_schoolbook(a.len(), b.len(), bits_a, bits_b) {
                true => SCHOOLBOOK.to_string(),
                false => ring.plan(a.len(), b.len(), bits_a, bits_b)?.to_string(),
            };
            writeln!(report, "product  {route}")?;
            let c = timed(&mut *report, ring.running(), || ring.mul(&a, &b))?;
            let ok = !job.verify || verify_integers(&a, &b, &c, &mut *report)?;
            (c, ok)
        }
        Ring::Modular(m) => {
            let ring = ModPolyRing::new(m, backend)?;
            writeln!(report, "ring     Z/mZ, m = {m} ({} bits)", m.bits())?;
            let route = match ring.takes_schoolbook(a.len(), b.len()) {
                true => SCHOOLBOOK.to_string(),
                false => ring.plan(a.len(), b.len())?.to_string(),
            };
            writeln!(report, "product  {route}")?;
            let residues = |v: &[BigInt], operand: &str| -> Result<Vec<BigUint>, CliError> {
                v.iter()
                    .enumerate()
                    .map(|(i, c)| match c.to_biguint() {
                        Some(r) if &r < m => Ok(r),
                        _ => Err(format!("coefficient {i} of {operand} is {c}, not a residue modulo {m} (0 ≤ c < m)").into()),
                    })
                    .collect()
            };
            let (ra, rb) = (residues(&a, "a")?, residues(&b, "b")?);
            let c = timed(&mut *report, ring.integers().running(), || {
                ring.mul(&ra, &rb)
            })?;
            let ok = !job.verify || verify_modular(m, &ra, &rb, &c, &mut *report)?;
            (c.into_iter().map(BigInt::from).collect(), ok)
        }
    };
    finish(job.output, &integers_to_json(&c), ok, &mut *report)
}

/// What `fermat mul` says of a product the ring takes by sums of products of big integers.
const SCHOOLBOOK: &str =
    "sums of products of big integers (short operands of huge coefficients: cheaper than a CRT)";

/// Runs `product` twice and reports the second run's time beside the first's; two runs
/// that differ are an error.
fn timed<T: PartialEq>(
    report: &mut dyn Write,
    running: &fermat::Running,
    product: impl FnMut() -> Result<T, fermat::Error>,
) -> Result<T, CliError> {
    let (c, again) = timed_twice(report, running, "product", product)?;
    if again != c {
        return Err("two runs of the product differ".into());
    }
    Ok(c)
}

/// The operands: JSON files, or random with --random.
fn operands(job: &Job) -> Result<(Vec<BigInt>, Vec<BigInt>), CliError> {
    match (job.a, job.b, job.random) {
        (Some(a), Some(b), _) => Ok((read(a)?, read(b)?)),
        (_, _, Some(seed)) => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (la, lb) = (job.len_a.unwrap_or(0), job.len_b.unwrap_or(0));
            let bits = match &job.ring {
                Ring::Integers => job.bits,
                Ring::Modular(m) => m.bits(),
            };
            // The operands, the product (twice the bits) and the route's residues: a few
            // times the operands' bytes, checked before the operands are made.
            let coefficient_bytes = u128::from(bits.div_ceil(8)) + 32;
            fermat::memory::check(
                || format!("random operands of {la} and {lb} coefficients of {bits} bits"),
                4 * (la as u128 + lb as u128) * coefficient_bytes,
            )?;
            let mut random = |len: usize| -> Vec<BigInt> {
                (0..len)
                    .map(|_| match &job.ring {
                        Ring::Integers => {
                            let sign = if rng.gen() { Sign::Minus } else { Sign::Plus };
                            BigInt::from_biguint(sign, rng.gen_biguint(job.bits))
                        }
                        Ring::Modular(m) => BigInt::from(rng.gen_biguint_below(m)),
                    })
                    .collect()
            };
            Ok((random(la), random(lb)))
        }
        _ => {
            Err("give the operands: --a FILE --b FILE, or --random SEED --len-a N --len-b M".into())
        }
    }
}

/// A JSON list of (signed) decimal integers.
fn read(path: &Path) -> Result<Vec<BigInt>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    integers_of_json(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn max_bits(v: &[BigInt]) -> u64 {
    v.iter().map(BigInt::bits).max().unwrap_or(0)
}

/// Checks c = a·b in Z at random points modulo random 62-bit primes.
fn verify_integers(
    a: &[BigInt],
    b: &[BigInt],
    c: &[BigInt],
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let mut rng = ChaCha8Rng::seed_from_u64(rand::thread_rng().gen());
    let mut ok = true;
    for _ in 0..PRIMES {
        let q = loop {
            let q = rng.gen_range(1u64 << 61..1 << 62) | 1;
            if is_prime_u64(q) {
                break q;
            }
        };
        for _ in 0..POINTS {
            let x = rng.gen_range(0..q);
            let eval = |v: &[BigInt]| {
                let qi = BigInt::from(q);
                v.iter().rev().fold(0u64, |acc, coef| {
                    let r = ((coef % &qi) + &qi) % &qi;
                    let r = r.to_u64().expect("a residue below q fits 64 bits");
                    ((u128::from(acc) * u128::from(x) + u128::from(r)) % u128::from(q)) as u64
                })
            };
            ok &= eval(c) == (u128::from(eval(a)) * u128::from(eval(b)) % u128::from(q)) as u64;
        }
    }
    writeln!(
        report,
        "verify   a(x)·b(x) = c(x) at {POINTS} random points modulo {PRIMES} random 62-bit primes: {}",
        if ok { "ok" } else { "WRONG" }
    )?;
    Ok(ok)
}

/// Checks c = a·b in (Z/mZ)\[x\] at random points of Z/mZ.
fn verify_modular(
    m: &BigUint,
    a: &[BigUint],
    b: &[BigUint],
    c: &[BigUint],
    report: &mut dyn Write,
) -> Result<bool, CliError> {
    let mut rng = ChaCha8Rng::seed_from_u64(rand::thread_rng().gen());
    let mut ok = true;
    for _ in 0..POINTS {
        let x = rng.gen_biguint_below(m);
        let eval = |v: &[BigUint]| {
            v.iter()
                .rev()
                .fold(BigUint::zero(), |acc, coef| (acc * &x + coef) % m)
        };
        ok &= eval(c) == eval(a) * eval(b) % m;
    }
    writeln!(
        report,
        "verify   a(x)·b(x) = c(x) at {POINTS} random points of Z/mZ: {}",
        if ok { "ok" } else { "WRONG" }
    )?;
    Ok(ok)
}
