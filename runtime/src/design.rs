//! From a field and a size to a factorisation and its kernels: the defaults of
//! [`FftPlan`](crate::FftPlan) and of `fermat gen`, in one place.
//!
//! The choices and the generation live in [`fermat_codegen::design`] (the `fft!` macro
//! runs them while a user's crate compiles, and cannot depend on this crate); this module
//! re-exports them and adds what needs the runtime's types.

use crate::error::Error;
use crate::fft::FftOptions;
use crate::host::HostField;
use fermat_dsl::field::AnyField;

pub use fermat_codegen::design::{
    check_radix, default_local_bits, default_radix, derive_design, fingerprint, gen_command,
    generate, leaf_radix, transform, Design, DesignError, DesignOptions, Generated, Transform,
    TransformOptions, CODEGEN_VERSION,
};

/// The field as an [`AnyField`] (for code generation).
///
/// ```
/// let f = fermat::dsl::Fp32::new(469762049)?;
/// assert_eq!(fermat::design::any_field(&f)?.name(), "469762049");
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn any_field<F: HostField>(field: &F) -> Result<AnyField, Error> {
    Ok(field.spec().build()?)
}

/// Chooses and derives the factorisation of `DFT(n)` ([`fermat_codegen::design::design`]
/// with the factorisation choices of `options`).
///
/// ```
/// use fermat::{FftOptions, FieldSpec, Strategy};
///
/// let p3 = FieldSpec::parse("P3")?.build()?;
/// let d = fermat::design::design(&p3, 4096, &FftOptions::default())?;
/// assert_eq!((d.strategy, d.radix), (Strategy::Ct, 16)); // K = 2k: twiddles are shifts
/// assert_eq!(d.formula.checked_size().unwrap(), 4096);
/// println!("{}", d.formula);
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn design(field: &AnyField, n: u64, options: &FftOptions) -> Result<Design, Error> {
    Ok(fermat_codegen::design::design(
        field,
        n,
        &DesignOptions::from(options),
    )?)
}

impl From<&FftOptions> for DesignOptions {
    fn from(options: &FftOptions) -> Self {
        DesignOptions {
            strategy: options.strategy,
            radix: options.radix,
            max_local_bits: options.max_local_bits,
        }
    }
}
