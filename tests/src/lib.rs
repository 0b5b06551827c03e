//! Shared helpers for fermat's integration tests: the reference vectors (exact values
//! computed independently of fermat with arbitrary-precision integers). The DFT and
//! element vectors are those `fermat selftest` ships, in `runtime/vectors/`; the
//! polynomial vectors (products, divisions, GCDs) are in `tests/data/poly/`.

use num_bigint::BigUint;
use serde::Deserialize;
use std::path::PathBuf;
use std::process::Command;

/// Runs `program ARGS…` (a binary under test, `env!("CARGO_BIN_EXE_…")`): its exit
/// status (−1 when a signal ended it), standard output and standard error.
pub fn run(program: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// How [`run_with`] runs a binary: its working directory, environment and standard input.
#[derive(Clone, Debug, Default)]
pub struct Setting<'a> {
    /// The working directory (default: the test's).
    pub dir: Option<&'a std::path::Path>,
    /// Variables set for the run.
    pub env: Vec<(&'a str, &'a str)>,
    /// Variables removed for the run.
    pub env_remove: Vec<&'a str>,
    /// Bytes written to its standard input (default: none, the input is closed).
    pub stdin: Option<&'a [u8]>,
}

/// [`run`] in a [`Setting`].
pub fn run_with(program: &str, args: &[&str], setting: &Setting) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = setting.dir {
        command.current_dir(dir);
    }
    for (k, v) in &setting.env {
        command.env(k, v);
    }
    for k in &setting.env_remove {
        command.env_remove(k);
    }
    let mut child = command.spawn().expect("the binary runs");
    let mut stdin = child.stdin.take().expect("a piped input");
    let input = setting.stdin.unwrap_or_default().to_vec();
    // Written from another thread, so that a large input cannot block on a full output.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary runs");
    writer.join().expect("the input is written");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One element pair of an SRGFN vector file, with its exact results.
#[derive(Debug, Clone, Deserialize)]
pub struct OpCase {
    /// First operand (decimal).
    pub a: String,
    /// Second operand (decimal).
    pub b: String,
    /// Digits of `a`, least significant first.
    pub a_digits: Vec<String>,
    /// a + b mod p.
    pub sum: String,
    /// a − b mod p.
    pub diff: String,
    /// a · b mod p.
    pub prod: String,
    /// The power of r for `a_times_r_pow_shift`, in [0, 2k).
    pub shift: u32,
    /// a · r^shift mod p.
    pub a_times_r_pow_shift: String,
    /// Digits of a + b, least significant first.
    pub sum_digits: Vec<String>,
}

/// A DFT at the canonical root, natural order.
#[derive(Debug, Clone, Deserialize)]
pub struct FftCase {
    /// The transform size.
    #[serde(rename = "N")]
    pub n: u64,
    /// The canonical N-th root of unity (decimal).
    pub omega: String,
    /// Input vector (decimal).
    pub input: Vec<String>,
    /// output_i = Σ_j omega^(i·j) input_j mod p.
    pub output: Vec<String>,
}

/// A vector file: an SRGFN (with `ops`) or a word prime (without).
#[derive(Debug, Clone, Deserialize)]
pub struct VectorFile {
    /// The field's name (P2, goldilocks, …).
    pub name: String,
    /// The modulus (decimal).
    pub p: String,
    /// The 2-adicity of p − 1.
    pub two_adicity: u32,
    /// SRGFN only: w in r = 2^w ± 2^u.
    pub w: Option<u32>,
    /// SRGFN only: u.
    pub u: Option<u32>,
    /// SRGFN only: +1 or −1.
    pub sign: Option<i32>,
    /// SRGFN only: the number of digits.
    pub k: Option<u64>,
    /// SRGFN only: r (decimal).
    pub r: Option<String>,
    /// SRGFN only: element pairs with their exact results.
    #[serde(default)]
    pub ops: Vec<OpCase>,
    /// DFTs at the canonical root.
    pub ffts: Vec<FftCase>,
}

/// The names of the vector files in `runtime/vectors/`.
pub const VECTOR_FILES: [&str; 7] = [
    "P2",
    "P3",
    "P4",
    "p469762049",
    "p2013265921",
    "p4179340454199820289",
    "goldilocks",
];

/// The folder holding the DFT and element vectors.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../runtime/vectors")
}

/// Loads `runtime/vectors/NAME.json`.
pub fn load(name: &str) -> VectorFile {
    let path = data_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// Parses a decimal string of a vector file.
pub fn big(s: &str) -> BigUint {
    s.parse()
        .unwrap_or_else(|e| panic!("bad decimal {s:?} in a vector file: {e}"))
}

/// The field specification of a vector file, as `FieldSpec::parse` reads it.
pub fn spec_of(file: &VectorFile) -> String {
    match (file.w, file.u, file.sign, file.k) {
        (Some(w), Some(u), Some(sign), Some(k)) => {
            let s = if sign > 0 { '+' } else { '-' };
            format!("srgfn:{w},{u},{s},{k}")
        }
        _ => file.p.clone(),
    }
}

/// A product of two polynomials. A polynomial is a list of decimal strings, lowest
/// degree first; the zero polynomial is `[]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolyMulCase {
    /// The first factor (may end in zeros).
    pub a: Vec<String>,
    /// The second factor (may end in zeros).
    pub b: Vec<String>,
    /// a · b, normalised.
    pub product: Vec<String>,
}

/// A division with remainder: a = quotient·b + remainder, deg remainder < deg b.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolyDivRemCase {
    /// The dividend.
    pub a: Vec<String>,
    /// The divisor (nonzero).
    pub b: Vec<String>,
    /// The quotient, normalised.
    pub quotient: Vec<String>,
    /// The remainder, normalised.
    pub remainder: Vec<String>,
}

/// A greatest common divisor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolyGcdCase {
    /// The first polynomial.
    pub a: Vec<String>,
    /// The second polynomial.
    pub b: Vec<String>,
    /// gcd(a, b), monic; gcd(0, 0) is the zero polynomial `[]`.
    pub gcd: Vec<String>,
}

/// A polynomial vector file: the cases of one field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolyVectorFile {
    /// The field's name (`P2`, `babybear`, `p469762049`, …).
    pub name: String,
    /// The modulus (decimal).
    pub p: String,
    /// Products.
    pub mul: Vec<PolyMulCase>,
    /// Divisions with remainder.
    pub divrem: Vec<PolyDivRemCase>,
    /// Greatest common divisors.
    pub gcd: Vec<PolyGcdCase>,
}

impl PolyVectorFile {
    /// The field specification, as `FieldSpec::parse` reads it: the decimal modulus for
    /// a word prime, the catalogue name for an SRGFN.
    pub fn spec(&self) -> String {
        if self.p.parse::<u64>().is_ok() {
            self.p.clone()
        } else {
            self.name.clone()
        }
    }
}

/// The names of the polynomial vector files in `tests/data/poly/`.
pub const POLY_VECTOR_FILES: [&str; 5] = ["p469762049", "babybear", "goldilocks", "P2", "P3"];

/// The folder holding the polynomial vectors.
pub fn poly_data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/poly")
}

/// Loads `tests/data/poly/NAME.json`.
pub fn load_poly(name: &str) -> PolyVectorFile {
    let path = poly_data_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// The arguments of every `cargo run --release -p fermat -- …` line of the README, split
/// as a shell splits them; a `#` comment ends a command. The binary's unit tests parse each
/// of them and `runtime/tests/readme_cli.rs` runs them.
pub fn readme_commands() -> Vec<Vec<String>> {
    const PREFIX: &str = "cargo run --release -p fermat -- ";
    // Read when called, not included: a packaged crate holds no file outside its folder.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|line| line.strip_prefix(PREFIX))
        .map(|rest| {
            let words = shlex::split(rest).expect("README commands are shell words");
            words
                .into_iter()
                .take_while(|w| !w.starts_with('#'))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalised(p: &[String]) -> bool {
        p.last().is_none_or(|c| big(c) != BigUint::default())
    }

    #[test]
    fn every_poly_vector_file_loads_with_normalised_outputs_below_p() {
        for name in POLY_VECTOR_FILES {
            let file = load_poly(name);
            assert_eq!(file.name, name);
            let p = big(&file.p);
            let below_p = |poly: &[String]| poly.iter().all(|c| big(c) < p);
            assert!(!file.mul.is_empty() && !file.divrem.is_empty() && !file.gcd.is_empty());
            for case in &file.mul {
                assert!(normalised(&case.product), "{name}: a product ends in 0");
                assert!(below_p(&case.a) && below_p(&case.b) && below_p(&case.product));
            }
            for case in &file.divrem {
                assert!(normalised(&case.quotient) && normalised(&case.remainder));
                assert!(case.remainder.len() < case.b.len(), "{name}: deg r < deg b");
            }
            for case in &file.gcd {
                assert!(normalised(&case.gcd));
                assert!(
                    case.gcd.last().is_none_or(|c| c == "1"),
                    "{name}: gcds are monic"
                );
            }
        }
    }

    #[test]
    fn specs_of_poly_files() {
        assert_eq!(load_poly("P2").spec(), "P2");
        assert_eq!(load_poly("babybear").spec(), "2013265921");
    }
}

/// The README's examples, compiled and run as doctests of this crate (the published
/// crates include no file from outside their own folder).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
