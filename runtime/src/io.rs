//! Vectors of field elements in files: what `fermat fft --input` reads and `--output`
//! writes.
//!
//! Two formats, told apart by the file's extension (`.bin` is binary, anything else JSON)
//! or chosen outright ([`Format`]); the path `-` is standard input or output.
//!
//! - **JSON**: a list of decimal strings or JSON integers (`["1", "2"]`, `[1, 2]`, mixed;
//!   integers of any length keep their digits), or a reference-vector file
//!   (`runtime/vectors/*.json`, see [`crate::vectors`]), of which the DFT of the size asked
//!   for is read: its input, and its output to compare with. Output is a list of decimal
//!   strings.
//! - **Binary**: raw little-endian words, element after element: one `u32` per element
//!   for primes below 2^32, one `u64` for the other word primes, and k `u64` digits (base r,
//!   least significant first) per element of an SRGFN p = r^k + 1 — the host layout of
//!   [`HostField::Host`], for data too large for text.
//!
//! Every refusal is an [`InputError`] naming the file and, for a bad value, its index
//! and the value.
//!
//! ```
//! use fermat::dsl::Fp32;
//! use fermat::io::{self, Format, InputError};
//! use fermat::Error;
//!
//! let f = Fp32::new(17)?;
//! let dir = std::env::temp_dir().join(format!("fermat-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("x.json");
//! std::fs::write(&path, r#"["1", 2, "16"]"#).unwrap();
//! let read = io::read(&f, &path, Format::of(&path), None)?;
//! assert_eq!(read.values, vec![1u32, 2, 16]);
//!
//! std::fs::write(&path, r#"[1, 17]"#).unwrap();
//! let err = io::read(&f, &path, Format::Json, None).unwrap_err();
//! assert!(matches!(&err, Error::Input(e) if matches!(**e, InputError::OutOfRange { index: 1, .. })));
//! assert!(err.to_string().contains("x.json"), "{err}");
//!
//! let bin = dir.join("y.bin");
//! io::write(&f, &bin, Format::of(&bin), &read.values)?;
//! assert_eq!(std::fs::read(&bin).unwrap(), [1, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0]);
//! assert_eq!(io::read(&f, &bin, Format::Binary, Some(3))?.values, read.values);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), fermat::Error>(())
//! ```

use crate::error::Error;
use crate::host::HostField;
use crate::poly::PolyIoError;
use crate::vectors::{DftFile, VectorError};
use fermat_dsl::FieldError;
use num_bigint::BigUint;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// How a file's elements are written.
///
/// ```
/// use fermat::io::Format;
///
/// assert_eq!(Format::default(), Format::Json);
/// assert_eq!(Format::of("x.bin".as_ref()), Format::Binary);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// A JSON list of decimals, or a reference-vector file.
    #[default]
    Json,
    /// Raw little-endian words, element after element.
    Binary,
}

impl Format {
    /// The format a path's extension names: `.bin` is binary, anything else JSON.
    ///
    /// ```
    /// use fermat::io::Format;
    /// use std::path::Path;
    ///
    /// assert_eq!(Format::of(Path::new("x.bin")), Format::Binary);
    /// assert_eq!(Format::of(Path::new("x.json")), Format::Json);
    /// assert_eq!(Format::of(Path::new("-")), Format::Json);
    /// ```
    pub fn of(path: &Path) -> Format {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("bin") => Format::Binary,
            _ => Format::Json,
        }
    }
}

/// Why a file of elements could not be read or written. Each names the file (`-` is
/// standard input or output).
///
/// ```
/// use fermat::io::{self, Format, InputError};
/// use fermat::Error;
///
/// let f = fermat::dsl::Fp32::new(17)?;
/// let path = std::env::temp_dir().join(format!("fermat-bad-{}.json", std::process::id()));
/// std::fs::write(&path, "[1, 2,").unwrap(); // cut short
/// match io::read(&f, &path, Format::Json, None) {
///     Err(Error::Input(e)) => {
///         assert!(matches!(*e, InputError::Malformed { line: 1, .. }), "{e}");
///         println!("{e}"); // names the file, the line and the column
///     }
///     other => panic!("{other:?}"),
/// }
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be opened, read or written.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file holds nothing.
    #[error("{path} is empty: expected a JSON list of decimals, a reference-vector file or raw binary words")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The text is not JSON.
    #[error("{path}: malformed JSON at line {line}, column {column}: {why}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line of the fault (1-based).
        line: usize,
        /// The column of the fault (1-based).
        column: usize,
        /// What the parser found.
        why: String,
    },
    /// JSON that is neither a list nor a reference-vector file.
    #[error("{path}: expected a JSON list of decimals or a reference-vector file; found {found}")]
    NotAList {
        /// The file.
        path: PathBuf,
        /// What was found.
        found: String,
    },
    /// A value that is not a non-negative decimal integer.
    #[error("{path}, value {index}: {value:?} is not a non-negative decimal integer")]
    NotDecimal {
        /// The file.
        path: PathBuf,
        /// The value's index.
        index: usize,
        /// The value as written.
        value: String,
    },
    /// A negative value.
    #[error("{path}, value {index}: {value} is negative; values are integers in [0, p)")]
    Negative {
        /// The file.
        path: PathBuf,
        /// The value's index.
        index: usize,
        /// The value as written.
        value: String,
    },
    /// A value not below p.
    #[error("{path}, value {index}: {value} is not below p = {p}")]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The value's index.
        index: usize,
        /// The value.
        value: BigUint,
        /// The modulus.
        p: BigUint,
    },
    /// Binary digits that are not an element (a digit beyond r, say).
    #[error("{path}, element {index}: {source}")]
    Element {
        /// The file.
        path: PathBuf,
        /// The element's index.
        index: usize,
        /// Why the field refused it.
        source: FieldError,
    },
    /// A list of another length than the transform's.
    #[error("{path} holds {len} values; the transform has n = {n}")]
    Length {
        /// The file.
        path: PathBuf,
        /// The values in it.
        len: u64,
        /// The size asked for.
        n: u64,
    },
    /// A binary file that is not a whole number of elements.
    #[error("{path} has {bytes} bytes: not a whole number of {element_bytes}-byte elements")]
    Ragged {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The bytes of one element.
        element_bytes: usize,
    },
    /// A reference-vector file that does not parse or check.
    #[error("{path}: {source}")]
    Vectors {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        source: VectorError,
    },
    /// A reference-vector file over another field.
    #[error("{path} holds vectors over p = {file_p}, not over {field} (p = {p})")]
    WrongField {
        /// The file.
        path: PathBuf,
        /// The file's modulus.
        file_p: BigUint,
        /// The field's name.
        field: String,
        /// The field's modulus.
        p: BigUint,
    },
    /// A reference-vector file without a DFT of the size asked for (or, with none asked
    /// for, with several).
    #[error("{path} holds DFTs of {sizes:?} points; {}", match n {
        Some(n) => format!("none of n = {n}"),
        None => "choose one with --n".to_string(),
    })]
    NoEntry {
        /// The file.
        path: PathBuf,
        /// The size asked for.
        n: Option<u64>,
        /// The sizes in the file.
        sizes: Vec<u64>,
    },
}

/// The values of a file, and the reference output when it was a reference-vector file.
///
/// ```
/// use fermat::io::{self, Format};
///
/// let f = fermat::dsl::Fp32::new(17)?;
/// let path = std::env::temp_dir().join(format!("fermat-dft-{}.json", std::process::id()));
/// std::fs::write(&path, r#"{"name": "p17", "p": "17", "ffts": [
///     {"N": 2, "input": ["1", "2"], "output": ["3", "16"]}]}"#).unwrap();
/// let read = io::read(&f, &path, Format::Json, Some(2))?; // the DFT of 2 points
/// assert_eq!(read.values, [1, 2]);
/// assert_eq!(read.expected, Some(vec![3, 16]));
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read<H> {
    /// The elements, in the host form.
    pub values: Vec<H>,
    /// The DFT of `values` the file lists (reference-vector files only).
    pub expected: Option<Vec<H>>,
}

/// How standard input and output are named in errors.
fn shown(path: &Path) -> PathBuf {
    if is_std(path) {
        PathBuf::from("standard input")
    } else {
        path.to_path_buf()
    }
}

/// Whether `path` is `-`: standard input or output.
///
/// ```
/// assert!(fermat::io::is_std(std::path::Path::new("-")));
/// assert!(!fermat::io::is_std(std::path::Path::new("x.json")));
/// ```
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads the elements of `field` in `path` (`-`: standard input) in `format`; `n`, when
/// given, is the number of elements wanted (and picks the DFT of a reference-vector
/// file). Files are checked against the memory available before they are read.
///
/// The [module's documentation](self) has an example; a reference-vector file gives its
/// DFT of n points and the output to compare with:
///
/// ```
/// use fermat::io::{read, Format};
///
/// let f = fermat::dsl::Fp32::new(17)?;
/// let path = std::env::temp_dir().join(format!("fermat-read-doc-{}.json", std::process::id()));
/// std::fs::write(&path, r#"{"name": "p17", "p": "17", "ffts": [
///     {"N": 2, "input": ["1", "2"], "output": ["3", "16"]}]}"#).unwrap();
/// let dft = read(&f, &path, Format::Json, Some(2))?;
/// assert_eq!(dft.values, vec![1u32, 2]);
/// assert_eq!(dft.expected, Some(vec![3u32, 16]));
/// assert!(read(&f, &path, Format::Json, Some(4)).is_err()); // no DFT of 4 points
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn read<F: HostField>(
    field: &F,
    path: &Path,
    format: Format,
    n: Option<u64>,
) -> Result<Read<F::Host>, Error> {
    let bytes = read_bytes(path)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty { path: shown(path) }.into());
    }
    let read = match format {
        Format::Binary => Read {
            values: binary(field, path, &bytes)?,
            expected: None,
        },
        Format::Json => json(field, path, &bytes, n)?,
    };
    if let Some(n) = n {
        if read.values.len() as u64 != n {
            return Err(InputError::Length {
                path: shown(path),
                len: read.values.len() as u64,
                n,
            }
            .into());
        }
    }
    Ok(read)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let io = |source| InputError::Io {
        action: "read",
        path: shown(path),
        source,
    };
    let mut bytes = Vec::new();
    if is_std(path) {
        std::io::stdin().read_to_end(&mut bytes).map_err(io)?;
        return Ok(bytes);
    }
    let len = std::fs::metadata(path).map_err(io)?.len();
    // The text and the values read from it, about twice the file.
    crate::memory::check(
        || format!("reading {}", path.display()),
        2 * u128::from(len),
    )?;
    Ok(std::fs::read(path).map_err(io)?)
}

/// The bytes of one element in a binary file.
///
/// ```
/// use fermat::io::element_bytes;
///
/// assert_eq!(element_bytes(&fermat::dsl::Fp32::new(17)?), 4);
/// assert_eq!(element_bytes(fermat::PrimeField::p3().typed::<fermat::dsl::Srgfn<8>>().unwrap()), 64);
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn element_bytes<F: HostField>(field: &F) -> usize {
    field.words() * std::mem::size_of::<F::Word>()
}

fn binary<F: HostField>(field: &F, path: &Path, bytes: &[u8]) -> Result<Vec<F::Host>, Error> {
    let size = std::mem::size_of::<F::Word>();
    let element = element_bytes(field);
    if !bytes.len().is_multiple_of(element) {
        return Err(InputError::Ragged {
            path: shown(path),
            bytes: bytes.len() as u64,
            element_bytes: element,
        }
        .into());
    }
    let zero = field.to_host(&field.zero());
    bytes
        .chunks_exact(element)
        .enumerate()
        .map(|(index, chunk)| {
            let words: Vec<F::Word> = chunk
                .chunks_exact(size)
                .map(|w| {
                    let mut le = [0u8; 8];
                    le[..size].copy_from_slice(w);
                    F::word(u64::from_le_bytes(le))
                })
                .collect();
            // One element is a transform of one point: its device layout is its digits.
            let mut host = [zero];
            field.unpack(&words, 1, &mut host);
            field
                .to_elem(&host[0])
                .map(|_| host[0])
                .map_err(|source| InputError::Element {
                    path: shown(path),
                    index,
                    source,
                })
        })
        .collect::<Result<_, InputError>>()
        .map_err(Error::from)
}

fn json<F: HostField>(
    field: &F,
    path: &Path,
    bytes: &[u8],
    n: Option<u64>,
) -> Result<Read<F::Host>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| InputError::Malformed {
        path: shown(path),
        line: 1,
        column: e.valid_up_to() + 1,
        why: "the file is not UTF-8 text (binary data is read from .bin files)".into(),
    })?;
    if text.trim_start().starts_with('{') {
        return vector_file(field, path, text, n);
    }
    let values = crate::poly::json::values_of_text(text).map_err(|e| at(path, e))?;
    Ok(Read {
        values: elements(field, path, &values)?,
        expected: None,
    })
}

/// A poly reader's refusal, put in terms of a file of values.
fn at(path: &Path, e: PolyIoError) -> InputError {
    let path = shown(path);
    match e {
        PolyIoError::Json { line, column, why } => InputError::Malformed {
            path,
            line,
            column,
            why,
        },
        PolyIoError::NotAList { found } => InputError::NotAList { path, found },
        PolyIoError::Negative { index, value } => InputError::Negative { path, index, value },
        PolyIoError::NotADecimal { index, value }
        | PolyIoError::NotAnInteger { index, value }
        | PolyIoError::Inexact { index, value } => InputError::NotDecimal { path, index, value },
        PolyIoError::OutOfRange { index, value, p } => InputError::OutOfRange {
            path,
            index,
            value,
            p,
        },
    }
}

fn elements<F: HostField>(
    field: &F,
    path: &Path,
    values: &[BigUint],
) -> Result<Vec<F::Host>, InputError> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            field
                .from_biguint(value)
                .map(|e| field.to_host(&e))
                .map_err(|_| InputError::OutOfRange {
                    path: shown(path),
                    index,
                    value: value.clone(),
                    p: field.modulus(),
                })
        })
        .collect()
}

fn vector_file<F: HostField>(
    field: &F,
    path: &Path,
    text: &str,
    n: Option<u64>,
) -> Result<Read<F::Host>, Error> {
    let file = DftFile::parse(text).map_err(|source| InputError::Vectors {
        path: shown(path),
        source,
    })?;
    if file.p != field.modulus() {
        return Err(InputError::WrongField {
            path: shown(path),
            file_p: file.p,
            field: field.name(),
            p: field.modulus(),
        }
        .into());
    }
    let sizes: Vec<u64> = file.ffts.iter().map(|d| d.n).collect();
    let entry = match n {
        Some(n) => file.ffts.iter().find(|d| d.n == n),
        None if file.ffts.len() == 1 => file.ffts.first(),
        None => None,
    }
    .ok_or_else(|| InputError::NoEntry {
        path: shown(path),
        n,
        sizes,
    })?;
    // The file's values were checked below its p, which is the field's.
    Ok(Read {
        values: elements(field, path, &entry.input)?,
        expected: Some(elements(field, path, &entry.output)?),
    })
}

/// Writes `values` to `path` (`-`: standard output) in `format`: a JSON list of decimal
/// strings, or raw little-endian words (the [module's documentation](self) has an
/// example).
pub fn write<F: HostField>(
    field: &F,
    path: &Path,
    format: Format,
    values: &[F::Host],
) -> Result<(), Error> {
    let bytes = match format {
        Format::Json => {
            let texts = values
                .iter()
                .map(|h| field.to_elem(h).map(|e| field.to_biguint(&e).to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            let mut text = serde_json::to_string(&texts).expect("strings serialise");
            text.push('\n');
            text.into_bytes()
        }
        Format::Binary => {
            let size = std::mem::size_of::<F::Word>();
            let mut bytes = Vec::with_capacity(values.len() * element_bytes(field));
            let mut words = Vec::with_capacity(field.words());
            for h in values {
                words.clear();
                field.pack(std::slice::from_ref(h), 1, &mut words);
                for &w in &words {
                    let w: u64 = w.into();
                    bytes.extend_from_slice(&w.to_le_bytes()[..size]);
                }
            }
            bytes
        }
    };
    let io = |source| InputError::Io {
        action: "write",
        path: if is_std(path) {
            PathBuf::from("standard output")
        } else {
            path.to_path_buf()
        },
        source,
    };
    if is_std(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes).map_err(io)?;
        out.flush().map_err(io)?;
    } else {
        std::fs::write(path, bytes).map_err(io)?;
    }
    Ok(())
}
