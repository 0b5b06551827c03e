//! Reference DFT vectors: exact transforms computed independently of fermat with
//! arbitrary-precision integers, in the JSON format of the files fermat ships
//! (`runtime/vectors/`, which `fermat selftest` compares against).
//!
//! A file names its field (`name`, and `p` in decimal) and lists DFTs at the canonical root
//! in natural order: `{"N": n, "input": [...], "output": [...]}` with n decimal strings
//! each. Reading checks everything a comparison relies on, so a file that is truncated,
//! holds a number that is not decimal, or lists fewer values than its size is an error,
//! never a comparison that passes on what is missing.
//!
//! ```
//! let text = r#"{"name": "p17", "p": "17", "ffts": [
//!     {"N": 2, "input": ["1", "2"], "output": ["3", "16"]}]}"#;
//! let file = fermat::vectors::DftFile::parse(text)?;
//! assert_eq!(file.ffts[0].output[1], 16u32.into());
//! assert!(fermat::vectors::DftFile::parse(&text.replace(r#""16""#, r#""x""#)).is_err());
//! # Ok::<(), fermat::vectors::VectorError>(())
//! ```

use num_bigint::BigUint;
use serde::Deserialize;
use thiserror::Error;

/// Why a vector file was refused: each names the list, the DFT and the index.
///
/// ```
/// use fermat::vectors::{DftFile, VectorError};
///
/// let text = r#"{"name": "p17", "p": "17", "ffts": [
///     {"N": 2, "input": ["1", "17"], "output": ["1", "1"]}]}"#;
/// let err = DftFile::parse(text).unwrap_err();
/// assert!(matches!(err, VectorError::OutOfRange { what: "input", index: 1, .. }));
/// assert_eq!(err.to_string(), "input of the DFT of 2 points, index 1: 17 is not below p = 17");
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum VectorError {
    /// The text is not JSON of the vector format (a field missing, of the wrong type, or
    /// the file cut short).
    #[error("not a vector file: {source}")]
    Json {
        /// The parser's error (with line and column).
        #[source]
        source: serde_json::Error,
    },
    /// A value is not a decimal integer.
    #[error("{what} of the DFT of {n} points, index {index}: {value:?} is not a decimal integer")]
    NotDecimal {
        /// Which list (`input` or `output`).
        what: &'static str,
        /// The DFT's size.
        n: u64,
        /// The value's index.
        index: usize,
        /// The text.
        value: String,
    },
    /// The modulus is not a decimal integer.
    #[error("the modulus {p:?} is not a decimal integer")]
    Modulus {
        /// The text.
        p: String,
    },
    /// A value is not below the modulus.
    #[error("{what} of the DFT of {n} points, index {index}: {value} is not below p = {p}")]
    OutOfRange {
        /// Which list.
        what: &'static str,
        /// The DFT's size.
        n: u64,
        /// The value's index.
        index: usize,
        /// The value.
        value: BigUint,
        /// The modulus.
        p: BigUint,
    },
    /// A list does not hold one value per point.
    #[error("the DFT of {n} points lists {len} {what} values")]
    Length {
        /// Which list.
        what: &'static str,
        /// The DFT's size.
        n: u64,
        /// The values listed.
        len: usize,
    },
}

/// One reference DFT, as [`DftFile::parse`] reads it (the module has an example).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dft {
    /// The size.
    pub n: u64,
    /// The input, natural order.
    pub input: Vec<BigUint>,
    /// output_i = Σ_j ω_n^(i·j) input_j mod p, at the canonical root ω_n.
    pub output: Vec<BigUint>,
}

/// A file of reference DFTs over one field.
///
/// ```
/// use fermat::{Backend, FftOptions, FftPlan};
///
/// // The shipped BabyBear file, checked against a CPU plan.
/// let file = fermat::vectors::shipped()?.into_iter().find(|f| f.name == "p2013265921").unwrap();
/// let f = fermat::dsl::Fp32::new(2013265921).unwrap();
/// for dft in file.ffts.iter().filter(|d| d.n <= 1024) {
///     let plan = FftPlan::new(&f, dft.n, FftOptions { backend: Backend::Cpu, ..Default::default() }).unwrap();
///     let mut x: Vec<u32> = dft.input.iter().map(|v| v.try_into().unwrap()).collect();
///     plan.forward(&mut x).unwrap();
///     assert!(x.iter().zip(&dft.output).all(|(y, want)| fermat::num_bigint::BigUint::from(*y) == *want));
/// }
/// # Ok::<(), fermat::vectors::VectorError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DftFile {
    /// The field's name (`P3`, `goldilocks`, `p469762049`, …).
    pub name: String,
    /// The modulus.
    pub p: BigUint,
    /// The DFTs.
    pub ffts: Vec<Dft>,
}

#[derive(Deserialize)]
struct RawFile {
    name: String,
    p: String,
    ffts: Vec<RawDft>,
}

#[derive(Deserialize)]
struct RawDft {
    #[serde(rename = "N")]
    n: u64,
    input: Vec<String>,
    output: Vec<String>,
}

impl DftFile {
    /// Reads a vector file, checking every value (the module's documentation has an
    /// example, [`VectorError`] a refusal).
    pub fn parse(text: &str) -> Result<DftFile, VectorError> {
        let raw: RawFile =
            serde_json::from_str(text).map_err(|source| VectorError::Json { source })?;
        let p: BigUint = raw
            .p
            .parse()
            .map_err(|_| VectorError::Modulus { p: raw.p.clone() })?;
        let ffts = raw
            .ffts
            .into_iter()
            .map(|d| {
                Ok(Dft {
                    n: d.n,
                    input: values("input", d.n, &d.input, &p)?,
                    output: values("output", d.n, &d.output, &p)?,
                })
            })
            .collect::<Result<_, VectorError>>()?;
        Ok(DftFile {
            name: raw.name,
            p,
            ffts,
        })
    }
}

/// The n values of one list, each a decimal below p.
fn values(
    what: &'static str,
    n: u64,
    texts: &[String],
    p: &BigUint,
) -> Result<Vec<BigUint>, VectorError> {
    if texts.len() as u64 != n {
        return Err(VectorError::Length {
            what,
            n,
            len: texts.len(),
        });
    }
    texts
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let value: BigUint = text
                .parse()
                .ok()
                .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| VectorError::NotDecimal {
                    what,
                    n,
                    index,
                    value: text.clone(),
                })?;
            if &value >= p {
                return Err(VectorError::OutOfRange {
                    what,
                    n,
                    index,
                    value,
                    p: p.clone(),
                });
            }
            Ok(value)
        })
        .collect()
}

/// The files fermat ships, as `fermat selftest` reads them ([`shipped`] reads them).
///
/// ```
/// use fermat::vectors::{shipped, SHIPPED};
///
/// assert_eq!(shipped()?.len(), SHIPPED.len());
/// assert!(SHIPPED.iter().all(|text| text.trim_start().starts_with('{')));
/// # Ok::<(), fermat::vectors::VectorError>(())
/// ```
pub const SHIPPED: [&str; 7] = [
    include_str!("../vectors/P2.json"),
    include_str!("../vectors/P3.json"),
    include_str!("../vectors/P4.json"),
    include_str!("../vectors/p469762049.json"),
    include_str!("../vectors/p2013265921.json"),
    include_str!("../vectors/p4179340454199820289.json"),
    include_str!("../vectors/goldilocks.json"),
];

/// The shipped files, read.
///
/// ```
/// let files = fermat::vectors::shipped()?;
/// let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
/// assert!(names.contains(&"P3") && names.contains(&"goldilocks"));
/// # Ok::<(), fermat::vectors::VectorError>(())
/// ```
pub fn shipped() -> Result<Vec<DftFile>, VectorError> {
    SHIPPED.iter().map(|text| DftFile::parse(text)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"name": "p17", "p": "17", "ffts": [
        {"N": 2, "input": ["1", "2"], "output": ["3", "16"]}]}"#;

    #[test]
    fn the_shipped_files_read_whole() {
        let files = shipped().unwrap();
        assert_eq!(files.len(), 7);
        for f in &files {
            assert!(!f.ffts.is_empty(), "{}", f.name);
            for d in &f.ffts {
                assert_eq!(d.output.len() as u64, d.n);
            }
        }
    }

    #[test]
    fn short_truncated_and_corrupt_files_are_errors() {
        assert_eq!(DftFile::parse(GOOD).unwrap().ffts[0].input.len(), 2);
        // A missing output value: the comparison would have passed on what is missing.
        let short = GOOD.replace(r#"["3", "16"]"#, r#"["3"]"#);
        assert!(matches!(
            DftFile::parse(&short),
            Err(VectorError::Length {
                what: "output",
                n: 2,
                len: 1
            })
        ));
        // A bad number: it would have become 0.
        let bad = GOOD.replace(r#""16""#, r#""1x""#);
        let err = DftFile::parse(&bad).unwrap_err();
        assert!(
            matches!(&err, VectorError::NotDecimal { what: "output", index: 1, value, .. } if value == "1x"),
            "{err}"
        );
        for not_decimal in [r#""+16""#, r#""""#, r#"" 16""#] {
            let text = GOOD.replace(r#""16""#, not_decimal);
            assert!(DftFile::parse(&text).is_err(), "{not_decimal}");
        }
        // A value of the wrong field.
        let big = GOOD.replace(r#""16""#, r#""17""#);
        assert!(matches!(
            DftFile::parse(&big),
            Err(VectorError::OutOfRange { index: 1, .. })
        ));
        // Cut short anywhere.
        for cut in [0, 10, GOOD.len() / 2, GOOD.len() - 1] {
            assert!(
                matches!(DftFile::parse(&GOOD[..cut]), Err(VectorError::Json { .. })),
                "cut at {cut}"
            );
        }
        // A missing list, a number where a string belongs.
        assert!(DftFile::parse(
            r#"{"name": "p17", "p": "17", "ffts": [{"N": 2, "input": ["1", "2"]}]}"#
        )
        .is_err());
        assert!(DftFile::parse(&GOOD.replace(r#""3""#, "3")).is_err());
        assert!(matches!(
            DftFile::parse(&GOOD.replace(r#""p": "17""#, r#""p": "seventeen""#)),
            Err(VectorError::Modulus { .. })
        ));
    }
}
