//! Shared helpers for fermat's integration tests: the reference vectors (exact values
//! computed independently of fermat with arbitrary-precision integers). The DFT and
//! element vectors are those `fermat selftest` ships, in `runtime/vectors/`.

use num_bigint::BigUint;
use serde::Deserialize;
use std::path::PathBuf;

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
