use num_bigint::BigUint;
use thiserror::Error;

/// Why a field could not be built, or an element or root was refused.
///
/// Every variant names the offending value and what would have been allowed.
///
/// ```
/// use fermat_dsl::field::{FieldError, Fp32};
///
/// let err = Fp32::new(469762047).unwrap_err(); // 3 · 156587349
/// assert!(matches!(err, FieldError::NotPrime { .. }));
/// assert!(err.to_string().contains("469762047"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FieldError {
    /// The modulus is even (and not 2) or smaller than 3.
    #[error("modulus {p} is not an odd number ≥ 3")]
    NotOdd {
        /// The refused modulus.
        p: BigUint,
    },
    /// The modulus is composite.
    #[error("modulus {p} is not prime{}", witness.as_ref().map(|w| format!(" (Miller–Rabin witness {w})")).unwrap_or_default())]
    NotPrime {
        /// The refused modulus.
        p: BigUint,
        /// A Miller–Rabin witness of compositeness, when one was found.
        witness: Option<BigUint>,
    },
    /// A word prime must fit 64 bits.
    #[error("modulus {p} has {bits} bits; word-size primes must be below 2^64")]
    TooWide {
        /// The refused modulus.
        p: BigUint,
        /// Its bit length.
        bits: u64,
    },
    /// The SRGFN parameter k is not a power of two.
    #[error("k = {k} is not a power of two; an SRGFN needs k ∈ {{1, 2, 4, …, {max_k}}}")]
    KNotPowerOfTwo {
        /// The refused k.
        k: u64,
        /// The largest k fermat supports.
        max_k: u64,
    },
    /// The SRGFN parameter k is a power of two beyond what fermat supports.
    #[error("k = {k} is too large; fermat supports k ∈ {{1, 2, 4, …, {max_k}}}")]
    KTooLarge {
        /// The refused k.
        k: u64,
        /// The largest k fermat supports.
        max_k: u64,
    },
    /// The radix r = 2^w ± 2^u does not fit one 64-bit digit, or w ≤ u.
    #[error("radix r = 2^{w} {sign} 2^{u} is not allowed: {why}")]
    BadRadix {
        /// Exponent w.
        w: u32,
        /// Exponent u.
        u: u32,
        /// '+' or '-'.
        sign: char,
        /// What is allowed.
        why: &'static str,
    },
    /// A digit vector is not a valid representation (2017 paper, §3.1).
    #[error("invalid digit vector: {why} (digit {index} = {value}, r = {r}, k = {k})")]
    InvalidDigits {
        /// The index of the offending digit.
        index: usize,
        /// Its value.
        value: u64,
        /// The radix.
        r: u64,
        /// The number of digits expected.
        k: usize,
        /// What is wrong.
        why: &'static str,
    },
    /// A value is not in `[0, p)`.
    #[error("value {value} is not a field element: it must be below p = {p}")]
    OutOfRange {
        /// The refused value.
        value: BigUint,
        /// The modulus.
        p: BigUint,
    },
    /// A buffer for an element's 64-bit limbs is shorter than the modulus.
    #[error("{len} limbs cannot hold this field's elements: p has {need}")]
    LimbsTooShort {
        /// The buffer's length.
        len: usize,
        /// The limbs of p.
        need: usize,
    },
    /// The field keeps no radix digits (see [`Field::radix_digits`](super::Field::radix_digits)).
    #[error("{field} keeps no radix digits: sums in a radix are for SRGFNs")]
    NoRadixDigits {
        /// The field's name.
        field: String,
    },
    /// Zero has no inverse.
    #[error("zero has no multiplicative inverse")]
    NotInvertible,
    /// A transform size must be a power of two.
    #[error("n = {n} is not a power of two; transform sizes are 1, 2, 4, 8, …")]
    SizeNotPowerOfTwo {
        /// The refused size.
        n: u64,
    },
    /// A transform size beyond the field's 2-adicity has no root of unity.
    #[error(
        "n = {n} exceeds the field's 2-adicity: roots of unity exist only for n ≤ 2^{two_adicity}"
    )]
    SizeBeyondTwoAdicity {
        /// The refused size.
        n: u64,
        /// The field's 2-adicity.
        two_adicity: u32,
    },
    /// A root of unity of order 2^log_order does not exist in the field, or its order does
    /// not fit 64 bits.
    #[error("no root of unity of order 2^{log_order}: orders go up to 2^{max_log_order} here")]
    RootOrderTooLarge {
        /// log2 of the order asked for.
        log_order: u32,
        /// log2 of the largest order there is (the 2-adicity, at most 63).
        max_log_order: u32,
    },
    /// A table of roots of unity larger than memory can hold.
    #[error(
        "a table of 2^{log_order} roots of unity takes {bytes} bytes: more than can be allocated"
    )]
    TableTooLarge {
        /// log2 of the number of roots.
        log_order: u32,
        /// The bytes the table takes.
        bytes: u128,
    },
    /// A user-supplied root is not a primitive n-th root of unity.
    #[error("{root} is not a primitive {n}-th root of unity")]
    NotPrimitiveRoot {
        /// The refused root.
        root: BigUint,
        /// The order it was meant to have.
        n: u64,
    },
    /// An SRGFN transform at a user's root needs 2k | n (its base case is a DFT_2k).
    #[error("n = {n} is not a multiple of the base-case size 2k = {base}")]
    SizeBelowBaseCase {
        /// The refused size.
        n: u64,
        /// 2k.
        base: u64,
    },
    /// A field specification could not be parsed.
    #[error("cannot read field '{spec}': {why}")]
    BadSpec {
        /// The text given.
        spec: String,
        /// What is allowed.
        why: String,
    },
}
