//! Polynomials as JSON, in the format of the reference vectors: a list of decimal strings,
//! lowest degree first, the zero polynomial `[]`.
//!
//! Reading is generous: trailing zero coefficients are dropped, and JSON integers are
//! accepted as well as strings (in text of any length; in a parsed [`Value`] only up to
//! 2^64, since `serde_json` keeps larger numbers as floats). Writing is normalised:
//! strings, no trailing zeros. Every refusal is a [`PolyIoError`] naming the coefficient's
//! index and value.
//!
//! ```
//! use fermat::dsl::Fp32;
//! use fermat::poly::Poly;
//!
//! let f = Fp32::new(469762049)?;
//! let p = Poly::from_json(&f, r#"["1", 2, "0"]"#)?;
//! assert_eq!(p.to_json(), r#"["1","2"]"#);
//! # Ok::<(), fermat::Error>(())
//! ```

use super::dynamic::Polynomial;
use super::host::Poly;
use crate::element::PrimeField;
use crate::error::Error;
use fermat_dsl::field::Field;
use fermat_dsl::with_field;
use num_bigint::{BigInt, BigUint};
use serde_json::Value;
use thiserror::Error;

/// Why a polynomial could not be read: each names the coefficient and what was allowed.
///
/// ```
/// use fermat::poly::{integers_of_json, PolyIoError};
///
/// let err = integers_of_json(r#"["1", "two"]"#).unwrap_err();
/// assert!(matches!(err, PolyIoError::NotAnInteger { index: 1, .. }), "{err}");
/// assert!(matches!(integers_of_json("[1, 2"), Err(PolyIoError::Json { line: 1, .. })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PolyIoError {
    /// The text is not JSON.
    #[error("malformed JSON: {why}")]
    Json {
        /// The line of the fault (1-based).
        line: usize,
        /// The column of the fault (1-based).
        column: usize,
        /// What the JSON parser found.
        why: String,
    },
    /// The JSON value is not a list.
    #[error("a polynomial is a JSON list of decimal strings, lowest degree first; found {found}")]
    NotAList {
        /// The kind of value found, and the value.
        found: String,
    },
    /// A coefficient is not a non-negative decimal integer.
    #[error("coefficient {index} = {value} is not a non-negative decimal integer")]
    NotADecimal {
        /// The index of the coefficient (its degree).
        index: usize,
        /// The coefficient as written.
        value: String,
    },
    /// A coefficient is negative.
    #[error("coefficient {index} = {value} is negative; coefficients are integers in [0, p)")]
    Negative {
        /// The index of the coefficient.
        index: usize,
        /// The coefficient as written.
        value: String,
    },
    /// A coefficient is not below p.
    #[error("coefficient {index} = {value} is not below p = {p}")]
    OutOfRange {
        /// The index of the coefficient.
        index: usize,
        /// The coefficient.
        value: BigUint,
        /// The modulus.
        p: BigUint,
    },
    /// A coefficient of an integer polynomial is not a (signed) decimal integer.
    #[error("coefficient {index} = {value} is not a decimal integer")]
    NotAnInteger {
        /// The index of the coefficient.
        index: usize,
        /// The coefficient as written.
        value: String,
    },
    /// A JSON number of a parsed value beyond 2^64: its digits are lost.
    #[error("coefficient {index} = {value} is a JSON number beyond 2^64, whose digits a parsed JSON value does not keep; write it as a string")]
    Inexact {
        /// The index of the coefficient.
        index: usize,
        /// The number as parsed.
        value: String,
    },
}

/// The value of a decimal coefficient written as a string (surrounding whitespace is
/// ignored).
fn decimal(index: usize, text: &str) -> Result<BigUint, PolyIoError> {
    let digits = text.trim();
    let is_decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if is_decimal(digits) {
        return Ok(digits.parse().expect("ASCII digits are a decimal integer"));
    }
    match digits.strip_prefix('-') {
        Some(magnitude) if is_decimal(magnitude) && magnitude.bytes().any(|b| b != b'0') => {
            Err(PolyIoError::Negative {
                index,
                value: text.to_string(),
            })
        }
        Some(zero) if is_decimal(zero) => Ok(BigUint::default()),
        _ => Err(PolyIoError::NotADecimal {
            index,
            value: text.to_string(),
        }),
    }
}

/// The value of a coefficient written as a JSON number token (`12`, `-3`, `1.5e3`).
fn number_token(index: usize, token: &str) -> Result<BigUint, PolyIoError> {
    if token.contains(['.', 'e', 'E']) {
        return Err(PolyIoError::NotADecimal {
            index,
            value: token.to_string(),
        });
    }
    decimal(index, token)
}

/// The value of a coefficient of a parsed JSON list.
fn value_coefficient(index: usize, value: &Value) -> Result<BigUint, PolyIoError> {
    match value {
        Value::String(s) => decimal(index, s),
        Value::Number(n) => {
            if let Some(v) = n.as_u64() {
                return Ok(BigUint::from(v));
            }
            let text = n.to_string();
            match n.as_f64() {
                Some(x) if x < 0.0 => Err(PolyIoError::Negative { index, value: text }),
                // 2^64: integers from here on were read as floats.
                Some(x) if x >= 18_446_744_073_709_551_616.0 => {
                    Err(PolyIoError::Inexact { index, value: text })
                }
                _ => Err(PolyIoError::NotADecimal { index, value: text }),
            }
        }
        other => Err(PolyIoError::NotADecimal {
            index,
            value: other.to_string(),
        }),
    }
}

/// A word naming the kind of a JSON value, for error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The coefficients of a parsed JSON list.
fn values_of(value: &Value) -> Result<Vec<BigUint>, PolyIoError> {
    let Value::Array(items) = value else {
        let mut text = value.to_string();
        if text.chars().count() > 60 {
            text = text.chars().take(57).chain("...".chars()).collect();
        }
        return Err(PolyIoError::NotAList {
            found: format!("{} ({text})", kind(value)),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| value_coefficient(i, v))
        .collect()
}

/// One item of a flat JSON list, as written.
enum Item<'a> {
    /// A string, unescaped.
    Str(String),
    /// A number token.
    Number(&'a str),
}

/// Whether `token` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(token: &str) -> bool {
    fn digits(s: &[u8]) -> usize {
        s.iter().take_while(|b| b.is_ascii_digit()).count()
    }
    let s = token.strip_prefix('-').unwrap_or(token).as_bytes();
    let int = digits(s);
    if int == 0 || (s[0] == b'0' && int > 1) {
        return false;
    }
    let mut rest = &s[int..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = digits(frac);
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    if let Some(exp) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exp = exp
            .strip_prefix(b"+")
            .or_else(|| exp.strip_prefix(b"-"))
            .unwrap_or(exp);
        let n = digits(exp);
        return n > 0 && n == exp.len();
    }
    rest.is_empty()
}

/// The items of `text` when it is a list of strings and numbers, read as written (numbers
/// of any length keep their digits); `None` for anything else, which `serde_json` then
/// reads to say what is wrong.
fn flat_list(text: &str) -> Option<Vec<Item<'_>>> {
    const SPACE: &[char] = &[' ', '\t', '\n', '\r'];
    let inner = text
        .trim_matches(SPACE)
        .strip_prefix('[')?
        .strip_suffix(']')?;
    let mut items = Vec::new();
    let mut rest = inner.trim_start_matches(SPACE);
    if rest.is_empty() {
        return Some(items);
    }
    loop {
        let end = if let Some(body) = rest.strip_prefix('"') {
            let mut escaped = false;
            let close = body.find(|c| {
                let close = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                close
            })?;
            let end = close + 2;
            items.push(Item::Str(serde_json::from_str(&rest[..end]).ok()?));
            end
        } else {
            let end = rest
                .find([',', ' ', '\t', '\n', '\r'])
                .unwrap_or(rest.len());
            let token = &rest[..end];
            if !is_json_number(token) {
                return None;
            }
            items.push(Item::Number(token));
            end
        };
        rest = rest[end..].trim_start_matches(SPACE);
        if rest.is_empty() {
            return Some(items);
        }
        rest = rest.strip_prefix(',')?.trim_start_matches(SPACE);
    }
}

/// The signed value of an integer coefficient written as a string or a number token: an
/// optional sign, then decimal digits (surrounding whitespace in strings is ignored).
fn signed_decimal(index: usize, text: &str) -> Result<BigInt, PolyIoError> {
    let t = text.trim();
    let (negative, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PolyIoError::NotAnInteger {
            index,
            value: text.to_string(),
        });
    }
    let m: BigUint = digits.parse().expect("ASCII digits are a decimal integer");
    Ok(if negative {
        -BigInt::from(m)
    } else {
        BigInt::from(m)
    })
}

/// The integers of a JSON list of decimal strings or integer numbers (signed, of any
/// size: number tokens keep their digits), lowest degree first: the operands of products
/// in Z\[x\].
///
/// Errors: [`PolyIoError::Json`], [`PolyIoError::NotAList`], and
/// [`PolyIoError::NotAnInteger`] naming the index and the text of a coefficient that is
/// no decimal integer.
///
/// ```
/// use fermat::poly::integers_of_json;
/// use fermat::num_bigint::BigInt;
///
/// let v = integers_of_json(r#"["-12", 7, -123456789012345678901234567890]"#)?;
/// assert_eq!(v[0], BigInt::from(-12));
/// assert_eq!(v[2].to_string(), "-123456789012345678901234567890");
/// assert!(integers_of_json(r#"["1", "x"]"#).is_err());
/// # Ok::<(), fermat::poly::PolyIoError>(())
/// ```
pub fn integers_of_json(text: &str) -> Result<Vec<BigInt>, PolyIoError> {
    if let Some(items) = flat_list(text) {
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Item::Str(s) => signed_decimal(i, s),
                Item::Number(token) if token.contains(['.', 'e', 'E']) => {
                    Err(PolyIoError::NotAnInteger {
                        index: i,
                        value: token.to_string(),
                    })
                }
                Item::Number(token) => signed_decimal(i, token),
            })
            .collect();
    }
    let value = parse(text)?;
    let Value::Array(items) = &value else {
        return Err(PolyIoError::NotAList {
            found: kind(&value).to_string(),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => signed_decimal(i, s),
            other => Err(PolyIoError::NotAnInteger {
                index: i,
                value: other.to_string(),
            }),
        })
        .collect()
}

/// Integers as a JSON list of decimal strings, without spaces.
///
/// ```
/// use fermat::poly::integers_to_json;
/// use fermat::num_bigint::BigInt;
///
/// assert_eq!(integers_to_json(&[BigInt::from(-3), BigInt::from(40)]), r#"["-3","40"]"#);
/// ```
pub fn integers_to_json<T: std::fmt::Display>(values: &[T]) -> String {
    Value::Array(
        values
            .iter()
            .map(|v| Value::String(v.to_string()))
            .collect(),
    )
    .to_string()
}

/// `text` as JSON, or the parser's fault with its line and column.
fn parse(text: &str) -> Result<Value, PolyIoError> {
    serde_json::from_str(text).map_err(|e| PolyIoError::Json {
        line: e.line(),
        column: e.column(),
        why: e.to_string(),
    })
}

/// The coefficients written in `text`, unchecked against p.
pub(crate) fn values_of_text(text: &str) -> Result<Vec<BigUint>, PolyIoError> {
    if let Some(items) = flat_list(text) {
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Item::Str(s) => decimal(i, s),
                Item::Number(token) => number_token(i, token),
            })
            .collect();
    }
    let value = parse(text)?;
    values_of(&value)
}

/// Reading and writing.
impl<F: Field> Poly<F> {
    /// The polynomial Σ `values[i]`·x^i.
    ///
    /// Errors: [`PolyIoError::OutOfRange`] (in [`Error::PolyIo`]) naming the first value
    /// not below p and its index.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyIoError};
    /// use fermat::Error;
    ///
    /// let f = Fp32::new(7)?;
    /// let p = Poly::from_biguints(&f, &[3u32.into(), 0u32.into()])?;
    /// assert_eq!(p.to_string(), "3");
    /// let err = Poly::from_biguints(&f, &[1u32.into(), 7u32.into()]).unwrap_err();
    /// assert!(matches!(err, Error::PolyIo(PolyIoError::OutOfRange { index: 1, .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_biguints(field: &F, values: &[BigUint]) -> Result<Self, Error> {
        let coeffs = values
            .iter()
            .enumerate()
            .map(|(index, value)| {
                field
                    .from_biguint(value)
                    .map_err(|_| PolyIoError::OutOfRange {
                        index,
                        value: value.clone(),
                        p: field.modulus(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Poly::new(field, coeffs))
    }

    /// The polynomial whose coefficients are written in decimal, lowest degree first.
    ///
    /// Errors ([`Error::PolyIo`]): [`PolyIoError::NotADecimal`],
    /// [`PolyIoError::Negative`], [`PolyIoError::OutOfRange`], each naming the index.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_decimals(&f, &["0", "1"])?, Poly::x(&f));
    /// assert!(Poly::from_decimals(&f, &["one"]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_decimals<S: AsRef<str>>(field: &F, values: &[S]) -> Result<Self, Error> {
        let values = values
            .iter()
            .enumerate()
            .map(|(i, s)| decimal(i, s.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Poly::from_biguints(field, &values)
    }

    /// The polynomial written in JSON: a list of decimal strings or integers, lowest
    /// degree first; trailing zeros are dropped.
    ///
    /// Errors ([`Error::PolyIo`]): [`PolyIoError::Json`] for text that is not JSON,
    /// [`PolyIoError::NotAList`], and the errors of [`Poly::from_decimals`].
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyIoError};
    /// use fermat::Error;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_json(&f, "[1, \"2\", 0]")?.to_string(), "2*x + 1");
    /// let err = Poly::from_json(&f, r#"["1", "-2"]"#).unwrap_err();
    /// assert!(matches!(err, Error::PolyIo(PolyIoError::Negative { index: 1, .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_json(field: &F, text: &str) -> Result<Self, Error> {
        Poly::from_biguints(field, &values_of_text(text)?)
    }

    /// The polynomial in a JSON value already parsed, such as one entry of a file holding
    /// several (`{"quotient": [...], "remainder": [...]}`).
    ///
    /// Errors: those of [`Poly::from_json`], and [`PolyIoError::Inexact`] for a JSON
    /// number beyond 2^64 (a parsed value has lost its digits: write such values as
    /// strings).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let file: serde_json::Value = serde_json::from_str(r#"{"q": ["1", "1"], "r": []}"#).unwrap();
    /// assert_eq!(Poly::from_json_value(&f, &file["q"])?.to_string(), "x + 1");
    /// assert!(Poly::from_json_value(&f, &file["r"])?.is_zero());
    /// assert!(Poly::from_json_value(&f, &file["missing"]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_json_value(field: &F, value: &Value) -> Result<Self, Error> {
        Poly::from_biguints(field, &values_of(value)?)
    }

    /// The polynomial as a JSON list of decimal strings, lowest degree first.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_u64s(&f, &[0, 1]).to_json_value(), serde_json::json!(["0", "1"]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_json_value(&self) -> Value {
        json_of(&self.to_biguints())
    }

    /// The polynomial as JSON text: a list of decimal strings, lowest degree first,
    /// without spaces; `[]` for zero.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_u64s(&f, &[5, 0, 7]).to_json(), r#"["5","0","7"]"#);
    /// assert_eq!(Poly::zero(&f).to_json(), "[]");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        self.to_json_value().to_string()
    }
}

/// A list of decimal strings.
fn json_of(values: &[BigUint]) -> Value {
    Value::Array(
        values
            .iter()
            .map(|v| Value::String(v.to_string()))
            .collect(),
    )
}

/// Reading and writing.
impl Polynomial {
    /// The polynomial over `field` written in JSON: a list of decimal strings or
    /// integers, lowest degree first; trailing zeros are dropped.
    ///
    /// Errors ([`Error::PolyIo`]): [`PolyIoError::Json`], [`PolyIoError::NotAList`],
    /// [`PolyIoError::NotADecimal`], [`PolyIoError::Negative`],
    /// [`PolyIoError::OutOfRange`] (naming p), each naming the index and the value.
    ///
    /// ```
    /// use fermat::poly::{PolyIoError, Polynomial};
    /// use fermat::{Error, PrimeField};
    ///
    /// let f = PrimeField::p2();
    /// let p = Polynomial::from_json(&f, r#"["3", "0", "1", "0"]"#)?;
    /// assert_eq!(p.to_string(), "x^2 + 3");
    /// assert_eq!(p.to_json(), r#"["3","0","1"]"#);
    /// let err = Polynomial::from_json(&f, "[1, \"two\"]").unwrap_err();
    /// assert!(matches!(err, Error::PolyIo(PolyIoError::NotADecimal { index: 1, .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_json(field: &PrimeField, text: &str) -> Result<Polynomial, Error> {
        with_field!(field.any(), f => Ok(Poly::from_json(f, text)?.into()))
    }

    /// The polynomial over `field` in a JSON value already parsed
    /// ([`Poly::from_json_value`]).
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::babybear();
    /// let file = serde_json::json!({"quotient": ["1", "2"], "remainder": []});
    /// let q = Polynomial::from_json_value(&f, &file["quotient"])?;
    /// assert_eq!(q.to_string(), "2*x + 1");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_json_value(field: &PrimeField, value: &Value) -> Result<Polynomial, Error> {
        with_field!(field.any(), f => Ok(Poly::from_json_value(f, value)?.into()))
    }

    /// The polynomial as a JSON list of decimal strings, lowest degree first.
    ///
    /// ```
    /// let x = fermat::poly::Polynomial::x(&fermat::PrimeField::p3());
    /// assert_eq!(x.to_json_value(), serde_json::json!(["0", "1"]));
    /// ```
    pub fn to_json_value(&self) -> Value {
        json_of(&self.to_biguints())
    }

    /// The polynomial as JSON text: a list of decimal strings, lowest degree first,
    /// without spaces; `[]` for zero.
    ///
    /// ```
    /// let zero = fermat::poly::Polynomial::zero(&fermat::PrimeField::p3());
    /// assert_eq!(zero.to_json(), "[]");
    /// ```
    pub fn to_json(&self) -> String {
        self.to_json_value().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::Fp64;

    fn values(text: &str) -> Result<Vec<BigUint>, PolyIoError> {
        values_of_text(text)
    }

    #[test]
    fn numbers_of_any_length_keep_their_digits() {
        let big = "1".repeat(400);
        let got = values(&format!("[ {big} ,\"{big}\",0]")).unwrap();
        assert_eq!(got[0].to_string(), big);
        assert_eq!(got[1].to_string(), big);
        assert_eq!(values(" [ ] ").unwrap(), Vec::<BigUint>::new());
        assert_eq!(values(r#"["\u0031"]"#).unwrap(), [BigUint::from(1u8)]);
    }

    #[test]
    fn refusals_name_index_and_value() {
        let cases: [(&str, PolyIoError); 8] = [
            (
                "[1, 2.5]",
                PolyIoError::NotADecimal {
                    index: 1,
                    value: "2.5".into(),
                },
            ),
            (
                "[1e3]",
                PolyIoError::NotADecimal {
                    index: 0,
                    value: "1e3".into(),
                },
            ),
            (
                "[\"x\"]",
                PolyIoError::NotADecimal {
                    index: 0,
                    value: "x".into(),
                },
            ),
            (
                "[\"\"]",
                PolyIoError::NotADecimal {
                    index: 0,
                    value: "".into(),
                },
            ),
            (
                "[0, null]",
                PolyIoError::NotADecimal {
                    index: 1,
                    value: "null".into(),
                },
            ),
            (
                "[0, [1]]",
                PolyIoError::NotADecimal {
                    index: 1,
                    value: "[1]".into(),
                },
            ),
            (
                "[-3]",
                PolyIoError::Negative {
                    index: 0,
                    value: "-3".into(),
                },
            ),
            (
                "[\"0\", \"-3\"]",
                PolyIoError::Negative {
                    index: 1,
                    value: "-3".into(),
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(values(text).unwrap_err(), expected, "{text}");
        }
        assert_eq!(values("[-0]").unwrap(), [BigUint::default()]);
    }

    #[test]
    fn malformed_json_and_non_lists() {
        for text in ["", "[", "[1,]", "[1 2]", "[\"1\"", "{\"a\": }", "[01]"] {
            assert!(
                matches!(values(text), Err(PolyIoError::Json { .. })),
                "{text:?}: {:?}",
                values(text)
            );
        }
        for text in ["{}", "\"1\"", "7", "null", "true"] {
            assert!(
                matches!(values(text), Err(PolyIoError::NotAList { .. })),
                "{text:?}"
            );
        }
    }

    #[test]
    fn parsed_values_refuse_numbers_that_lost_their_digits() {
        let value: Value =
            serde_json::from_str("[18446744073709551615, 18446744073709551616]").unwrap();
        assert_eq!(
            values_of(&value).unwrap_err(),
            PolyIoError::Inexact {
                index: 1,
                value: "1.8446744073709552e+19".into()
            }
        );
        let value: Value = serde_json::from_str("[-1]").unwrap();
        assert!(matches!(
            values_of(&value),
            Err(PolyIoError::Negative { index: 0, .. })
        ));
    }

    #[test]
    fn round_trips_are_normalised() {
        let f = Fp64::new(0xFFFF_FFFF_0000_0001).unwrap();
        let p = Poly::from_json(&f, "[\"18446744069414584320\", 1, \"0\", 0]").unwrap();
        assert_eq!(p.to_json(), r#"["18446744069414584320","1"]"#);
        assert_eq!(Poly::from_json(&f, &p.to_json()).unwrap(), p);
        let err = Poly::from_json(&f, "[\"18446744069414584321\"]").unwrap_err();
        assert!(err.to_string().contains("18446744069414584321"), "{err}");
    }
}
