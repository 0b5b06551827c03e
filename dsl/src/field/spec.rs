//! Field specifications: the one place where a field's name on the command line (or in a
//! macro argument) is read, and the run-time choice among the field types.

use super::{Field, FieldError, Fp32, Fp64, Srgfn};
use num_bigint::BigUint;
use std::fmt;
use std::str::FromStr;

/// The sign in r = 2^w ± 2^u.
///
/// ```
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let p2 = SrgfnParams { w: 64, u: 50, sign: Sign::Minus, k: 4 };
/// assert_eq!(p2.radix()?, (1u64 << 63) + ((1u64 << 63) - (1 << 50))); // 2^64 − 2^50
/// assert_eq!(Sign::Minus.as_char(), '-');
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sign {
    /// r = 2^w + 2^u.
    Plus,
    /// r = 2^w − 2^u.
    Minus,
}

impl Sign {
    /// `'+'` or `'-'`, as a field's specification spells it ([`Sign`] has an example).
    pub fn as_char(self) -> char {
        match self {
            Sign::Plus => '+',
            Sign::Minus => '-',
        }
    }
}

/// The parameters of a sparse-radix generalized Fermat number p = r^k + 1 with
/// r = 2^w ± 2^u (2017 paper, §3 and Table 1).
///
/// ```
/// use fermat_dsl::field::{Sign, SrgfnParams, CATALOGUE_SRGFNS};
///
/// let (name, p3) = CATALOGUE_SRGFNS[2];
/// assert_eq!((name, p3), ("P3", SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 }));
/// assert_eq!(p3.to_string(), "srgfn:63,34,+,8");
/// assert_eq!(p3.modulus()?.bits(), 505); // (2^63 + 2^34)^8 + 1
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrgfnParams {
    /// Exponent of the leading power of two in r.
    pub w: u32,
    /// Exponent of the trailing power of two in r (u < w).
    pub u: u32,
    /// Whether 2^u is added or subtracted.
    pub sign: Sign,
    /// The number of base-r digits (a power of two); the base-case DFT has K = 2k points.
    pub k: u64,
}

/// The largest number of digits fermat supports: it bounds the element types it compiles.
///
/// ```
/// use fermat_dsl::field::{Sign, SrgfnParams, MAX_K};
///
/// let p = |k| SrgfnParams { w: 63, u: 40, sign: Sign::Minus, k };
/// assert!(p(MAX_K).check_k().is_ok());
/// assert!(p(2 * MAX_K).check_k().is_err());
/// ```
pub const MAX_K: u64 = 64;

impl SrgfnParams {
    /// The radix r = 2^w ± 2^u, checked to be a 64-bit digit with w > u.
    ///
    /// ```
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let r = |w, u, sign| SrgfnParams { w, u, sign, k: 8 }.radix();
    /// assert_eq!(r(63, 34, Sign::Plus)?, (1 << 63) + (1 << 34));
    /// assert!(r(34, 63, Sign::Plus).is_err()); // u ≥ w
    /// assert!(r(64, 3, Sign::Plus).is_err()); // beyond 64 bits
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn radix(&self) -> Result<u64, FieldError> {
        let bad = |why| FieldError::BadRadix {
            w: self.w,
            u: self.u,
            sign: self.sign.as_char(),
            why,
        };
        if self.u >= self.w {
            return Err(bad("u must be smaller than w"));
        }
        if self.w > 64 {
            return Err(bad("r must fit 64 bits (w ≤ 64)"));
        }
        let r = match self.sign {
            Sign::Plus if self.w == 64 => return Err(bad("2^64 + 2^u does not fit 64 bits")),
            Sign::Plus => (1u64 << self.w) + (1u64 << self.u),
            Sign::Minus if self.w == 64 => u64::MAX - (1u64 << self.u) + 1,
            Sign::Minus => (1u64 << self.w) - (1u64 << self.u),
        };
        if r < 2 {
            return Err(bad("r must be at least 2"));
        }
        Ok(r)
    }

    /// Checks k: a power of two, at most [`MAX_K`] (which has an example).
    pub fn check_k(&self) -> Result<(), FieldError> {
        if self.k == 0 || !self.k.is_power_of_two() {
            return Err(FieldError::KNotPowerOfTwo {
                k: self.k,
                max_k: MAX_K,
            });
        }
        if self.k > MAX_K {
            return Err(FieldError::KTooLarge {
                k: self.k,
                max_k: MAX_K,
            });
        }
        Ok(())
    }

    /// p = r^k + 1 (without any primality check).
    ///
    /// ```
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let small = SrgfnParams { w: 2, u: 0, sign: Sign::Plus, k: 2 }; // r = 5
    /// assert_eq!(small.modulus()?, 26u32.into()); // 5^2 + 1, not prime: no check
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn modulus(&self) -> Result<BigUint, FieldError> {
        let r = self.radix()?;
        self.check_k()?;
        Ok(BigUint::from(r).pow(self.k as u32) + 1u32)
    }
}

impl fmt::Display for SrgfnParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "srgfn:{},{},{},{}",
            self.w,
            self.u,
            self.sign.as_char(),
            self.k
        )
    }
}

/// The word primes of the catalogue: (name, p).
///
/// ```
/// use fermat_dsl::field::{primality::is_prime_u64, CATALOGUE_WORD_PRIMES};
///
/// for (name, p) in CATALOGUE_WORD_PRIMES {
///     assert!(is_prime_u64(p), "{name}");
///     assert!((p - 1).trailing_zeros() >= 26, "{name}: NTT-friendly");
/// }
/// ```
pub const CATALOGUE_WORD_PRIMES: [(&str, u64); 4] = [
    ("p469762049", 469_762_049),
    ("babybear", 2_013_265_921),
    ("p4179340454199820289", 4_179_340_454_199_820_289),
    ("goldilocks", 0xFFFF_FFFF_0000_0001),
];

const fn srgfn(w: u32, u: u32, sign: Sign, k: u64) -> SrgfnParams {
    SrgfnParams { w, u, sign, k }
}

/// The SRGFNs of the catalogue (2017 paper, Table 1): (name, parameters).
///
/// ```
/// use fermat_dsl::field::CATALOGUE_SRGFNS;
///
/// let ks: Vec<u64> = CATALOGUE_SRGFNS.iter().map(|(_, p)| p.k).collect();
/// assert_eq!(ks, [2, 4, 8, 16, 32, 64]); // P1..P6
/// ```
pub const CATALOGUE_SRGFNS: [(&str, SrgfnParams); 6] = [
    ("P1", srgfn(63, 53, Sign::Plus, 2)),
    ("P2", srgfn(64, 50, Sign::Minus, 4)),
    ("P3", srgfn(63, 34, Sign::Plus, 8)),
    ("P4", srgfn(62, 36, Sign::Plus, 16)),
    ("P5", srgfn(62, 56, Sign::Plus, 32)),
    ("P6", srgfn(63, 40, Sign::Minus, 64)),
];

/// A field as named by a user: a catalogue name (`P1`..`P6`, `goldilocks`, `babybear`),
/// a decimal word prime, or `srgfn:w,u,sign,k`.
///
/// Parsing checks the syntax only; [`FieldSpec::build`] checks the mathematics
/// (primality, the radix, k).
///
/// ```
/// use fermat_dsl::field::{FieldError, FieldSpec};
///
/// let p3: FieldSpec = "P3".parse()?;
/// assert_eq!(p3, FieldSpec::parse("srgfn:63,34,+,8")?); // the catalogue's P3
/// assert!(matches!(FieldSpec::parse("12"), Ok(FieldSpec::Word { p: 12, .. }))); // syntax only
/// assert!(FieldSpec::parse("12")?.build().is_err()); // 12 is not prime
/// # Ok::<(), FieldError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldSpec {
    /// A word-size prime, with its catalogue name if it has one.
    Word {
        /// The modulus.
        p: u64,
        /// The catalogue name, if any.
        name: Option<&'static str>,
    },
    /// A sparse-radix generalized Fermat prime, with its catalogue name if it has one.
    Srgfn {
        /// w, u, sign, k.
        params: SrgfnParams,
        /// The catalogue name, if any.
        name: Option<&'static str>,
    },
}

const SPEC_HELP: &str = "expected a catalogue name (P1..P6, goldilocks, babybear), \
a decimal word prime, or srgfn:w,u,sign,k with sign + or -";

impl FieldSpec {
    /// Parses a field specification: names case-insensitively, decimal primes below 2^64,
    /// `srgfn:w,u,sign,k`; an error names the refused text and what was expected.
    ///
    /// ```
    /// use fermat_dsl::field::FieldSpec;
    ///
    /// assert_eq!(FieldSpec::parse("Goldilocks").unwrap().name(), "goldilocks");
    /// let err = FieldSpec::parse("P7").unwrap_err().to_string();
    /// assert!(err.contains("P7") && err.contains("catalogue name"), "{err}");
    /// ```
    pub fn parse(text: &str) -> Result<Self, FieldError> {
        let spec = text.trim();
        let bad = |why: String| FieldError::BadSpec {
            spec: text.to_string(),
            why,
        };
        if spec.is_empty() {
            return Err(bad(SPEC_HELP.into()));
        }
        if let Some((name, params)) = CATALOGUE_SRGFNS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(spec))
        {
            return Ok(FieldSpec::Srgfn {
                params: *params,
                name: Some(name),
            });
        }
        if let Some(rest) = spec.strip_prefix("srgfn:") {
            let parts: Vec<&str> = rest.split(',').map(str::trim).collect();
            let [w, u, sign, k] = parts[..] else {
                return Err(bad(format!(
                    "srgfn takes four fields w,u,sign,k; got {}",
                    parts.len()
                )));
            };
            let num = |what: &str, s: &str| -> Result<u64, FieldError> {
                s.parse::<u64>()
                    .map_err(|_| bad(format!("{what} = '{s}' is not a non-negative integer")))
            };
            let small = |what: &str, s: &str| -> Result<u32, FieldError> {
                let v = num(what, s)?;
                u32::try_from(v)
                    .ok()
                    .filter(|&v| v <= 64)
                    .ok_or_else(|| bad(format!("{what} = {v} is out of range 0..=64")))
            };
            let sign = match sign {
                "+" => Sign::Plus,
                "-" => Sign::Minus,
                other => return Err(bad(format!("sign '{other}' must be + or -"))),
            };
            let params = SrgfnParams {
                w: small("w", w)?,
                u: small("u", u)?,
                sign,
                k: num("k", k)?,
            };
            let name = CATALOGUE_SRGFNS
                .iter()
                .find(|(_, p)| *p == params)
                .map(|(n, _)| *n);
            return Ok(FieldSpec::Srgfn { params, name });
        }
        let word = |p: u64| {
            let name = CATALOGUE_WORD_PRIMES
                .iter()
                .find(|(n, q)| *q == p && !n.starts_with('p'))
                .map(|(n, _)| *n);
            FieldSpec::Word { p, name }
        };
        if let Some((_, p)) = CATALOGUE_WORD_PRIMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(spec))
        {
            return Ok(word(*p));
        }
        if spec.bytes().all(|b| b.is_ascii_digit()) {
            return match spec.parse::<u64>() {
                Ok(p) => Ok(word(p)),
                Err(_) => Err(bad(
                    "decimal word primes must be below 2^64; larger fields are SRGFNs (srgfn:w,u,sign,k)".into(),
                )),
            };
        }
        Err(bad(SPEC_HELP.into()))
    }

    /// Builds the field, checking primality and the parameters.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, FieldSpec};
    ///
    /// let f = FieldSpec::parse("babybear")?.build()?;
    /// assert!(matches!(f, AnyField::Fp32(_)));
    /// assert_eq!(f.two_adicity(), 27);
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn build(&self) -> Result<AnyField, FieldError> {
        match *self {
            FieldSpec::Word { p, name } => {
                if let Ok(p32) = u32::try_from(p) {
                    Ok(AnyField::Fp32(Fp32::new(p32)?.with_name(name)))
                } else {
                    Ok(AnyField::Fp64(Fp64::new(p)?.with_name(name)))
                }
            }
            FieldSpec::Srgfn { params, name } => {
                params.check_k()?;
                params.radix()?;
                Ok(match params.k {
                    1 => AnyField::Srgfn1(Srgfn::new(params, name)?),
                    2 => AnyField::Srgfn2(Srgfn::new(params, name)?),
                    4 => AnyField::Srgfn4(Srgfn::new(params, name)?),
                    8 => AnyField::Srgfn8(Srgfn::new(params, name)?),
                    16 => AnyField::Srgfn16(Srgfn::new(params, name)?),
                    32 => AnyField::Srgfn32(Srgfn::new(params, name)?),
                    64 => AnyField::Srgfn64(Srgfn::new(params, name)?),
                    k => unreachable!("check_k admitted k = {k}"),
                })
            }
        }
    }

    /// The catalogue name if there is one, else the canonical spelling of the spec.
    ///
    /// ```
    /// use fermat_dsl::field::FieldSpec;
    ///
    /// assert_eq!(FieldSpec::parse("2013265921").unwrap().name(), "babybear");
    /// assert_eq!(FieldSpec::parse("srgfn:62,3,-,4").unwrap().name(), "srgfn:62,3,-,4");
    /// ```
    pub fn name(&self) -> String {
        match self {
            FieldSpec::Word { name: Some(n), .. } | FieldSpec::Srgfn { name: Some(n), .. } => {
                n.to_string()
            }
            FieldSpec::Word { p, name: None } => p.to_string(),
            FieldSpec::Srgfn { params, name: None } => params.to_string(),
        }
    }
}

impl FromStr for FieldSpec {
    type Err = FieldError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FieldSpec::parse(s)
    }
}

impl fmt::Display for FieldSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A field chosen at run time: one variant per element type fermat compiles.
///
/// Generic code runs on it through [`with_field!`](crate::with_field).
///
/// ```
/// use fermat_dsl::field::{AnyField, Field};
/// use fermat_dsl::with_field;
///
/// let f = AnyField::from_spec("P3")?;
/// assert_eq!((f.name(), f.bits()), ("P3".to_string(), 505));
/// assert_eq!(f.srgfn_params().map(|p| p.k), Some(8));
/// // Generic code on the concrete field inside: here 2 + 2 in it.
/// let four = with_field!(&f, field => {
///     let two = field.from_u64(2);
///     field.to_biguint(&field.add(&two, &two))
/// });
/// assert_eq!(four, 4u32.into());
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum AnyField {
    Fp32(Fp32),
    Fp64(Fp64),
    Srgfn1(Srgfn<1>),
    Srgfn2(Srgfn<2>),
    Srgfn4(Srgfn<4>),
    Srgfn8(Srgfn<8>),
    Srgfn16(Srgfn<16>),
    Srgfn32(Srgfn<32>),
    Srgfn64(Srgfn<64>),
}

/// Runs a generic expression on the concrete field inside an [`AnyField`]:
/// `with_field!(&any, f => two_adicity_of_field(f))`.
///
/// ```
/// use fermat_dsl::field::{AnyField, Field};
/// use fermat_dsl::with_field;
///
/// /// Bytes of one element: generic code, monomorphised for each field type.
/// fn element_bytes<F: Field>(_: &F) -> usize {
///     std::mem::size_of::<F::Elem>()
/// }
///
/// let sizes: Vec<usize> = ["babybear", "goldilocks", "P3"]
///     .iter()
///     .map(|name| AnyField::from_spec(name).map(|f| with_field!(&f, f => element_bytes(f))))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(sizes, [4, 8, 64]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[macro_export]
macro_rules! with_field {
    ($any:expr, $f:ident => $body:expr) => {
        match $any {
            $crate::field::AnyField::Fp32($f) => $body,
            $crate::field::AnyField::Fp64($f) => $body,
            $crate::field::AnyField::Srgfn1($f) => $body,
            $crate::field::AnyField::Srgfn2($f) => $body,
            $crate::field::AnyField::Srgfn4($f) => $body,
            $crate::field::AnyField::Srgfn8($f) => $body,
            $crate::field::AnyField::Srgfn16($f) => $body,
            $crate::field::AnyField::Srgfn32($f) => $body,
            $crate::field::AnyField::Srgfn64($f) => $body,
        }
    };
}

impl AnyField {
    /// Parses and builds a field from its specification.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// assert_eq!(AnyField::from_spec("goldilocks").unwrap().bits(), 64);
    /// assert!(AnyField::from_spec("469762048").is_err()); // even
    /// ```
    pub fn from_spec(text: &str) -> Result<Self, FieldError> {
        FieldSpec::parse(text)?.build()
    }

    /// The field's name.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// assert_eq!(AnyField::from_spec("469762049").unwrap().name(), "469762049");
    /// ```
    pub fn name(&self) -> String {
        crate::with_field!(self, f => f.name())
    }

    /// The modulus p.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// let p = AnyField::from_spec("babybear").unwrap().modulus();
    /// assert_eq!(p, (15u32 << 27 | 1).into());
    /// ```
    pub fn modulus(&self) -> BigUint {
        crate::with_field!(self, f => f.modulus())
    }

    /// The 2-adicity of p − 1.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// assert_eq!(AnyField::from_spec("goldilocks").unwrap().two_adicity(), 32);
    /// ```
    pub fn two_adicity(&self) -> u32 {
        crate::with_field!(self, f => f.two_adicity())
    }

    /// The bit length of p.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// assert_eq!(AnyField::from_spec("babybear").unwrap().bits(), 31);
    /// ```
    pub fn bits(&self) -> u64 {
        self.modulus().bits()
    }

    /// The SRGFN parameters, for SRGFNs.
    ///
    /// ```
    /// use fermat_dsl::field::AnyField;
    ///
    /// let p1 = AnyField::from_spec("P1").unwrap().srgfn_params().unwrap();
    /// assert_eq!((p1.w, p1.k), (63, 2));
    /// assert!(AnyField::from_spec("babybear").unwrap().srgfn_params().is_none());
    /// ```
    pub fn srgfn_params(&self) -> Option<SrgfnParams> {
        match self {
            AnyField::Fp32(_) | AnyField::Fp64(_) => None,
            AnyField::Srgfn1(f) => Some(f.params()),
            AnyField::Srgfn2(f) => Some(f.params()),
            AnyField::Srgfn4(f) => Some(f.params()),
            AnyField::Srgfn8(f) => Some(f.params()),
            AnyField::Srgfn16(f) => Some(f.params()),
            AnyField::Srgfn32(f) => Some(f.params()),
            AnyField::Srgfn64(f) => Some(f.params()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_catalogue_names_case_insensitively() {
        for (name, params) in CATALOGUE_SRGFNS {
            let spec = FieldSpec::parse(&name.to_lowercase()).unwrap();
            assert_eq!(
                spec,
                FieldSpec::Srgfn {
                    params,
                    name: Some(name)
                }
            );
        }
        assert_eq!(
            FieldSpec::parse("Goldilocks").unwrap(),
            FieldSpec::Word {
                p: 0xFFFF_FFFF_0000_0001,
                name: Some("goldilocks")
            }
        );
        assert_eq!(
            FieldSpec::parse("2013265921").unwrap().name(),
            "babybear",
            "a catalogue prime given in decimal keeps its name"
        );
        assert_eq!(FieldSpec::parse("469762049").unwrap().name(), "469762049");
    }

    #[test]
    fn parses_srgfn_specs() {
        let spec = FieldSpec::parse("srgfn:63,34,+,8").unwrap();
        assert_eq!(spec.name(), "P3");
        let spec = FieldSpec::parse("srgfn:62,3,-,4").unwrap();
        assert_eq!(spec.to_string(), "srgfn:62,3,-,4");
    }

    #[test]
    fn refuses_malformed_specs_naming_the_problem() {
        let cases = [
            ("", "catalogue name"),
            ("P7", "catalogue name"),
            ("srgfn:63,34,+", "four fields"),
            ("srgfn:63,34,*,8", "sign '*'"),
            ("srgfn:x,34,+,8", "w = 'x'"),
            ("srgfn:99,34,+,8", "w = 99"),
            ("18446744073709551617", "below 2^64"),
        ];
        for (text, needle) in cases {
            let err = FieldSpec::parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn radix_checks_width_and_order() {
        let p = |w, u, sign, k| SrgfnParams { w, u, sign, k };
        assert_eq!(
            p(64, 50, Sign::Minus, 4).radix().unwrap(),
            u64::MAX - (1 << 50) + 1
        );
        assert!(matches!(
            p(64, 3, Sign::Plus, 4).radix(),
            Err(FieldError::BadRadix { w: 64, .. })
        ));
        assert!(matches!(
            p(10, 10, Sign::Plus, 4).radix(),
            Err(FieldError::BadRadix { .. })
        ));
        assert!(matches!(
            p(63, 34, Sign::Plus, 6).check_k(),
            Err(FieldError::KNotPowerOfTwo { k: 6, .. })
        ));
        assert!(matches!(
            p(63, 34, Sign::Plus, 128).check_k(),
            Err(FieldError::KTooLarge { k: 128, .. })
        ));
    }
}
