//! Why the device arithmetic does not cover a field, or why a carry chain is malformed.

use fermat_dsl::field::FieldError;
use num_bigint::BigUint;
use thiserror::Error;

/// Why a prelude could not be built for a field: a bound of the device arithmetic that the
/// field's constants exceed, or a carry chain that is not well formed.
///
/// Every variant names the offending value and what would have been allowed.
///
/// ```
/// use fermat_codegen::prelude::{MulBounds, PreludeError};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // r = 2^4 + 2 with k = 1: p = 19 is a word prime, not an SRGFN.
/// let err = MulBounds::new(SrgfnParams { w: 4, u: 1, sign: Sign::Plus, k: 1 }).unwrap_err();
/// assert_eq!(err, PreludeError::OneDigit { k: 1, word: 19 });
/// assert!(err.to_string().contains("(r + 1 = 19); name it as a decimal word prime"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PreludeError {
    /// The SRGFN parameters themselves are refused (radix, k or modulus).
    #[error(transparent)]
    Params {
        /// Why the field's parameters were refused.
        #[from]
        source: FieldError,
    },
    /// Montgomery arithmetic needs an odd modulus of at least 3.
    #[error("Montgomery arithmetic needs an odd modulus ≥ 3; got p = {p}")]
    EvenModulus {
        /// The refused modulus.
        p: u64,
    },
    /// A word prime does not fit the word that holds it.
    #[error("word prime p = {p} does not fit a {bits}-bit word")]
    WordWidth {
        /// The refused modulus.
        p: BigUint,
        /// The width of the word.
        bits: u32,
    },
    /// An SRGFN with one digit is a word prime.
    #[error(
        "k = {k}: an SRGFN with one digit is a word prime (r + 1 = {word}); name it as a decimal word prime"
    )]
    OneDigit {
        /// The refused k (the multiplication needs k ≥ 2).
        k: u64,
        /// The field's modulus r + 1, the word prime to name instead.
        word: u128,
    },
    /// The final carry of the multiplication does not fold into digits 0 and 1 with one
    /// correction per digit.
    #[error(
        "radix r = {r} is too small for k = {k}: the device multiplication needs \
         ⌊c/r⌋ + 2 ≤ r for carries |c| ≤ {carry}"
    )]
    FinalCarry {
        /// The radix.
        r: u64,
        /// The number of digits.
        k: u64,
        /// The largest |carry| out of a digit, which must satisfy ⌊carry/r⌋ + 2 ≤ r.
        carry: BigUint,
    },
    /// A product coefficient does not fit the device's accumulators.
    #[error(
        "product coefficients up to {coef} exceed the device's 160-bit accumulators \
         (at most {max_bits} bits, the top one read as the sign)"
    )]
    CoefficientWidth {
        /// The largest |coefficient plus carry|.
        coef: BigUint,
        /// The most bits a coefficient may have.
        max_bits: u64,
    },
    /// The quotient of digit 0 less the final carry does not fit the one signed limb that
    /// digit 1 takes.
    #[error(
        "radix r = {r} is too small for k = {k}: carries up to {carry} leave more than \
         32 bits after one division by r ({limbs} limbs)"
    )]
    FoldQuotient {
        /// The radix.
        r: u64,
        /// The number of digits.
        k: u64,
        /// The largest |carry| out of a digit.
        carry: BigUint,
        /// The limbs the quotient needs, where one is allowed.
        limbs: u32,
    },
    /// The values a division takes do not fit its limbs.
    #[error("values up to {bound} do not fit {limbs} 32-bit limbs")]
    DivisionLimbs {
        /// The bound on the values' magnitude.
        bound: BigUint,
        /// The limbs that hold them.
        limbs: u32,
    },
    /// The series for 1/r needs too many terms to estimate a quotient.
    #[error("dividing by r = {r} needs more than {max_terms} terms for values up to {bound}")]
    DivisionTerms {
        /// The radix.
        r: u64,
        /// The bound on the values' magnitude.
        bound: BigUint,
        /// The most terms a division may have.
        max_terms: u32,
    },
    /// The 32-bit digit chains need a radix whose low half is 0.
    #[error("r = {r} has a nonzero low half: the 32-bit digit chains need u ≥ 32")]
    RadixLowHalf {
        /// The radix.
        r: u64,
    },
    /// A step of a carry chain names an instruction the chains do not use.
    #[error(
        "step {step}: unknown mnemonic {mnemonic}; a chain uses {}",
        super::chain::MNEMONICS.map(|(m, ..)| m).join(", ")
    )]
    ChainMnemonic {
        /// The index of the step.
        step: usize,
        /// The refused mnemonic.
        mnemonic: &'static str,
    },
    /// A step of a carry chain has the wrong number of sources.
    #[error("step {step}: {mnemonic} takes {sources} sources; got {got}")]
    ChainArity {
        /// The index of the step.
        step: usize,
        /// The instruction.
        mnemonic: &'static str,
        /// The sources it takes.
        sources: usize,
        /// The sources the step gives it.
        got: usize,
    },
    /// A step of a carry chain reads the carry flag before any step of the chain wrote it
    /// (the condition code is undefined when an asm statement starts).
    #[error("step {step}: {mnemonic} reads the carry before the chain sets it")]
    ChainCarry {
        /// The index of the step.
        step: usize,
        /// The instruction.
        mnemonic: &'static str,
    },
    /// A step of a carry chain reads a register before any step wrote it.
    #[error("step {step} reads register {register} before it is written")]
    ChainRegister {
        /// The index of the step.
        step: usize,
        /// The register read.
        register: &'static str,
    },
}
