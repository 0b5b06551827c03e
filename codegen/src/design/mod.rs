//! From a field and a size to a factorisation and its kernels: the defaults of
//! `fermat::FftPlan`, of `fermat gen` and of the `fft!` macro, in one place.
//!
//! [`design`] chooses the radix, the strategy and the piece size and derives `DFT(n)`
//! ([`fermat_dsl::derive`](mod@fermat_dsl::derive)); [`Design::lower`] turns the factorisation into kernel plans;
//! [`generate`] prints both directions into one CUDA file. [`transform`] does all three
//! for a field named at run time (what `fft!` runs while a user's crate compiles), and
//! [`fingerprint`] identifies the plans a file was generated from, so that a file made
//! ahead of time can be checked against the plans a program lowers for itself.

use crate::error::CodegenError;
use crate::exec::ExecError;
use crate::plan::{Direction, Io, Order, Plan, PlanError, PlanOptions};
use fermat_dsl::derive::{derive, Derivation, DeriveError, Options, Rewriter, Strategy};
use fermat_dsl::field::{check_order, AnyField, FieldError};
use fermat_dsl::formula::Formula;
use fermat_dsl::rules::{self, Params};
use thiserror::Error;

mod defaults;
mod source;

pub use defaults::*;
pub use source::*;

/// The version of this crate: part of every [`fingerprint`], since the printer of one
/// version need not print a plan as another does.
///
/// ```
/// use fermat_codegen::design::CODEGEN_VERSION;
///
/// assert_eq!(CODEGEN_VERSION.split('.').count(), 3); // major.minor.patch
/// ```
pub const CODEGEN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The choices [`design`] leaves open; `None` takes fermat's default.
///
/// ```
/// use fermat_codegen::design::{design, DesignOptions};
/// use fermat_dsl::derive::Strategy;
/// use fermat_dsl::field::AnyField;
///
/// let babybear = AnyField::from_spec("babybear")?;
/// let strategy = Some(Strategy::Radix2);
/// let options = DesignOptions { radix: Some(4), strategy, ..Default::default() };
/// let d = design(&babybear, 1 << 10, &options)?;
/// assert_eq!((d.strategy, d.radix), (Strategy::Radix2, 4));
/// assert_eq!(design(&babybear, 1 << 10, &DesignOptions::default())?.radix, 16);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DesignOptions {
    /// The derivation strategy (default `ct`, recursive Cooley–Tukey).
    pub strategy: Option<Strategy>,
    /// The radix K (default [`default_radix`]).
    pub radix: Option<u64>,
    /// log2 of the largest piece a kernel exchanges on chip (default
    /// [`default_local_bits`]); pieces of the lowest index bits may be larger
    /// ([`default_contiguous_bits`]) for an SRGFN, and for a word prime where this is left
    /// to the default.
    pub max_local_bits: Option<u32>,
}

/// Why a transform could not be designed or generated.
///
/// ```
/// use fermat_codegen::design::{design, DesignError, DesignOptions};
/// use fermat_dsl::field::AnyField;
///
/// let p3 = AnyField::from_spec("P3")?; // k = 8: radices up to 2k = 16
/// let radix = |k| DesignOptions { radix: Some(k), ..Default::default() };
/// let err = design(&p3, 4096, &radix(32)).unwrap_err();
/// assert_eq!(err, DesignError::RadixTooLarge { radix: 32, field: "P3".into(), max: 16 });
/// let err = design(&p3, 4096, &radix(12)).unwrap_err();
/// assert!(err.to_string().contains("radix 12 must be a power of two"), "{err}");
/// assert!(matches!(design(&p3, 3, &radix(16)), Err(DesignError::Field(_)))); // n = 3
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DesignError {
    /// The field refused the size, a value or a root.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// The strategy could not derive the transform.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// The factorisation could not be lowered into kernels.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// CUDA source could not be printed.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The roots of unity of the plan could not be made.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The radix is not a power of two of at least 2.
    #[error("radix {radix} must be a power of two ≥ 2")]
    RadixNotPowerOfTwo {
        /// The refused radix.
        radix: u64,
    },
    /// An SRGFN radix beyond 2k: its base case would need full multiplications.
    #[error("radix {radix} is too large for {field}: an SRGFN radix must divide 2k = {max}, so that the base case uses only shifts")]
    RadixTooLarge {
        /// The refused radix.
        radix: u64,
        /// The field's name.
        field: String,
        /// 2k, the largest radix allowed.
        max: u64,
    },
}

/// A chosen factorisation.
///
/// ```
/// use fermat_codegen::design::{design, DesignOptions};
/// use fermat_dsl::derive::Strategy;
/// use fermat_dsl::field::AnyField;
///
/// let d = design(&AnyField::from_spec("goldilocks")?, 1 << 16, &DesignOptions::default())?;
/// assert_eq!((d.strategy, d.radix), (Strategy::Ct, 16));
/// assert_eq!(d.formula.checked_size()?, 1 << 16);
/// assert!(d.leftover_first.is_none()); // 2^16 is a power of the radix
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Design {
    /// The strategy.
    pub strategy: Strategy,
    /// The radix K.
    pub radix: u64,
    /// The derived formula.
    pub formula: Formula,
    /// log2 of the largest piece.
    pub max_local_bits: u32,
    /// log2 of the largest piece made of the lowest index bits ([`default_contiguous_bits`]).
    pub max_contiguous_bits: u32,
    /// The same DFT derived with the radix's leftover factor split off first, where n is
    /// not a power of the radix (word primes, `ct`): the forward transform of a product,
    /// which reads natural order and writes bit-reversed, then ends in the low bits of
    /// whole radix stages, one run for one pass (2^21 points: 9 + 12 bits instead of
    /// 8 + 8 + 5). The inverse keeps [`formula`](Self::formula), whose leftover, last,
    /// joins its first run instead (12 + 9).
    pub leftover_first: Option<Formula>,
}

impl Design {
    /// Lowers the formula into the kernel plan of one direction, reading and writing whole
    /// vectors.
    ///
    /// ```
    /// use fermat_codegen::design::{design, DesignOptions};
    /// use fermat_codegen::plan::{Direction, Order};
    /// use fermat_dsl::field::AnyField;
    ///
    /// let d = design(&AnyField::from_spec("babybear")?, 1 << 20, &DesignOptions::default())?;
    /// let plan = d.lower(Direction::Forward, Order::Natural, Order::BitReversed)?;
    /// assert_eq!(plan.n(), 1 << 20);
    /// assert!(plan.kernels.len() <= 3); // passes over memory
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lower(
        &self,
        direction: Direction,
        input_order: Order,
        output_order: Order,
    ) -> Result<Plan, PlanError> {
        self.lower_io(direction, input_order, output_order, Io::default())
    }

    /// Lowers the formula into the kernel plan of one direction with the given I/O (see
    /// [`Io`]).
    pub fn lower_io(
        &self,
        direction: Direction,
        input_order: Order,
        output_order: Order,
        io: Io,
    ) -> Result<Plan, PlanError> {
        self.lower_formula(&self.formula, direction, (input_order, output_order), io)
    }

    fn lower_formula(
        &self,
        formula: &Formula,
        direction: Direction,
        (input_order, output_order): (Order, Order),
        io: Io,
    ) -> Result<Plan, PlanError> {
        Plan::lower(
            formula,
            PlanOptions {
                max_local_bits: self.max_local_bits,
                max_contiguous_bits: self.max_contiguous_bits,
                input_order,
                output_order,
                direction,
                io,
            },
        )
    }

    /// The two plans of a cyclic product: the forward transform reads a short polynomial
    /// (natural order in, bit-reversed out), the inverse multiplies by the other factor's
    /// transform as it reads and writes a short product (bit-reversed in, natural out).
    /// The forward is lowered from [`leftover_first`](Self::leftover_first) where that
    /// takes fewer passes.
    ///
    /// ```
    /// use fermat_codegen::design::{design, DesignOptions};
    /// use fermat_dsl::field::{AnyField, FieldSpec};
    ///
    /// let any: AnyField = "babybear".parse::<FieldSpec>()?.build()?;
    /// let (forward, inverse) = design(&any, 256, &DesignOptions::default())?.convolution_plans()?;
    /// assert!(forward.io().short_input && inverse.io().pointwise && inverse.io().short_output);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn convolution_plans(&self) -> Result<(Plan, Plan), PlanError> {
        let orders = (Order::Natural, Order::BitReversed);
        let mut forward = self.lower_io(Direction::Forward, orders.0, orders.1, Io::FACTOR)?;
        if let Some(formula) = &self.leftover_first {
            let other = self.lower_formula(formula, Direction::Forward, orders, Io::FACTOR)?;
            if other.kernels.len() < forward.kernels.len() {
                forward = other;
            }
        }
        Ok((
            forward,
            self.lower_io(
                Direction::Inverse,
                Order::BitReversed,
                Order::Natural,
                Io::PRODUCT,
            )?,
        ))
    }
}

/// Chooses and derives the factorisation of `DFT(n)`.
///
/// ```
/// use fermat_codegen::design::{design, DesignOptions};
/// use fermat_dsl::field::AnyField;
///
/// let d = design(&AnyField::from_spec("P1")?, 256, &DesignOptions::default())?;
/// assert_eq!(d.radix, 4); // 2k for P1 (k = 2): the base case is all shifts
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn design(field: &AnyField, n: u64, options: &DesignOptions) -> Result<Design, DesignError> {
    derive_design(field, n, options).map(|(design, _)| design)
}

/// [`design`], with the derivation that led to the formula: the strategy's steps from
/// `DFT(n)`, then (SRGFNs) the Cooley–Tukey splits of each base case into codelets.
///
/// ```
/// use fermat_codegen::design::{derive_design, DesignOptions};
/// use fermat_dsl::field::AnyField;
///
/// let p3 = AnyField::from_spec("P3")?;
/// let (d, derivation) = derive_design(&p3, 4096, &DesignOptions::default())?;
/// assert_eq!(derivation.steps[0].rule, "cooley_tukey");
/// assert_eq!(derivation.final_formula(), d.formula);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn derive_design(
    field: &AnyField,
    n: u64,
    options: &DesignOptions,
) -> Result<(Design, Derivation), DesignError> {
    check_order(n, field.two_adicity())?;
    let max_local_bits = options
        .max_local_bits
        .unwrap_or_else(|| default_local_bits(field, n));
    let radix = options.radix.unwrap_or_else(|| default_radix(field));
    check_radix(field, radix)?;
    let radix = radix.min(n.max(2)).min(1 << max_local_bits);
    let strategy = options.strategy.unwrap_or(Strategy::Ct);
    let mut derivation = if n == 1 {
        Derivation::new(Formula::dft(1).expect("DFT(1) is well formed"))
    } else {
        derive(
            &Formula::dft(n).expect("n ≥ 1"),
            strategy,
            &Options::radix(radix),
        )?
    };
    let mut formula = derivation.final_formula();
    if let Some(leaf) = leaf_radix(field).filter(|&l| l < radix) {
        // Split each base case DFT(K) by Cooley–Tukey into DFT(leaf)s: the twiddles inside
        // stay powers of r (shifts) and a thread's codelet holds `leaf` elements instead
        // of K, which keeps an SRGFN kernel within the register file.
        let mut r = Rewriter::new(formula);
        r.apply_everywhere(
            rules::find("cooley_tukey").expect("the registry has cooley_tukey"),
            &Params::radix(leaf),
        )?;
        let split = r.finish();
        formula = split.final_formula();
        // The splits start where the strategy ended, so they continue its derivation.
        derivation.steps.extend(split.steps);
    }
    Ok((
        Design {
            strategy,
            radix,
            formula,
            max_local_bits,
            max_contiguous_bits: match (field.srgfn_params(), options.max_local_bits) {
                // The pieces a caller chose for a word prime bound its runs too.
                (None, Some(bits)) => bits,
                _ => default_contiguous_bits(field, max_local_bits),
            },
            leftover_first: match (strategy, leaf_radix(field)) {
                (Strategy::Ct, None) => leftover_first(n, radix)?,
                _ => None,
            },
        },
        derivation,
    ))
}

/// DFT(n) by Cooley–Tukey with the leftover factor DFT(2^(log n mod log K)) split off
/// first, the rest by radix K ([`Design::leftover_first`]); `None` where n is a power of K.
fn leftover_first(n: u64, radix: u64) -> Result<Option<Formula>, DesignError> {
    if radix < 2 || n <= radix {
        return Ok(None);
    }
    let leftover = n.ilog2() % radix.ilog2();
    if leftover == 0 {
        return Ok(None);
    }
    let cooley_tukey = rules::find("cooley_tukey").expect("the registry has cooley_tukey");
    let mut r = Rewriter::new(Formula::dft(n).expect("n ≥ 1"));
    // The right factor of a split is taken first: DFT(2^leftover) of the top index bits.
    r.apply_first(cooley_tukey, &Params::radix(1 << leftover));
    r.apply_everywhere(cooley_tukey, &Params::radix(radix))?;
    r.normalise();
    Ok(Some(r.finish().final_formula()))
}

/// The field of `spec`, for the tests of this module and its submodules.
#[cfg(test)]
fn field(spec: &str) -> AnyField {
    fermat_dsl::field::FieldSpec::parse(spec)
        .unwrap()
        .build()
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_products_take_two_passes_a_transform_up_to_2_pow_22() {
        let passes = |spec: &str, log_n: u32| {
            let d = design(&field(spec), 1 << log_n, &DesignOptions::default()).unwrap();
            let (forward, inverse) = d.convolution_plans().unwrap();
            let bits = |p: &Plan| p.kernels.iter().map(|k| k.local_bits()).collect::<Vec<_>>();
            (bits(&forward), bits(&inverse))
        };
        assert_eq!(passes("babybear", 20), (vec![8, 12], vec![12, 8]));
        assert_eq!(passes("babybear", 19), (vec![8, 11], vec![12, 7]));
        // The forward from the formula with the leftover DFT(2) or DFT(4) first.
        assert_eq!(passes("babybear", 21), (vec![9, 12], vec![12, 9]));
        assert_eq!(passes("babybear", 22), (vec![10, 12], vec![12, 10]));
        // Degenerate pieces are refused by the lowering, not by a panic of the design.
        let tiny = DesignOptions {
            max_local_bits: Some(0),
            ..Default::default()
        };
        assert!(design(&field("babybear"), 1, &tiny).is_ok_and(|d| d.leftover_first.is_none()));
        // A larger piece that saves no pass is not taken.
        assert_eq!(passes("babybear", 16), (vec![8, 8], vec![8, 8]));
        assert_eq!(passes("babybear", 23), (vec![8, 8, 7], vec![8, 8, 7]));
        assert_eq!(passes("goldilocks", 19), (vec![8, 11], vec![8, 8, 3]));
    }

    #[test]
    fn refuses_bad_radices_naming_the_limit() {
        let p3 = field("P3");
        let err = design(
            &p3,
            256,
            &DesignOptions {
                radix: Some(32),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(
            err,
            DesignError::RadixTooLarge {
                radix: 32,
                field: "P3".into(),
                max: 16
            }
        );
        assert!(err.to_string().contains("2k = 16"), "{err}");
        let err = design(
            &p3,
            256,
            &DesignOptions {
                radix: Some(12),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(err, DesignError::RadixNotPowerOfTwo { radix: 12 });
        assert!(matches!(
            design(&p3, 3, &DesignOptions::default()),
            Err(DesignError::Field(FieldError::SizeNotPowerOfTwo { n: 3 }))
        ));
    }

    #[test]
    fn the_derivation_ends_in_the_designed_formula() {
        let p3 = field("P3");
        let (d, derivation) = derive_design(
            &p3,
            256,
            &DesignOptions {
                strategy: Some(Strategy::Prop3),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(derivation.start, Formula::dft(256).unwrap());
        assert_eq!(derivation.steps[0].rule, "prop3");
        assert!(
            derivation.steps.iter().any(|s| s.rule == "cooley_tukey"),
            "the codelet splits are part of the derivation"
        );
        derivation.replay().unwrap();
        assert_eq!(derivation.final_formula(), d.formula);
    }
}
