//! Transforms generated ahead of time: what the [`fft!`](crate::fft) macro embeds in a
//! user's crate, and how a plan is rebuilt from it at run time.
//!
//! The macro designs, derives, lowers and prints a transform while the user's crate
//! compiles, and writes the result as one constant [`Embedded`]: the CUDA source, the
//! launches of its kernels, the derived formula and the [`fingerprint`] of the kernel
//! plans. [`FftPlan::from_embedded`](crate::FftPlan::from_embedded) skips the derivation
//! and the code generation: it parses the formula, lowers it (the CPU backend runs the
//! plans), checks that the fingerprint of its own plans equals the embedded one — so that
//! the kernels compiled from the embedded source are the kernels of these plans, even if
//! the runtime's `fermat-codegen` is not the one the macro ran — and compiles the embedded
//! source for the GPU.
//!
//! ```
//! use fermat::Backend;
//!
//! fermat::fft! {
//!     /// The 16-point DFT over babybear, p = 15·2^27 + 1.
//!     struct BabyBear16;
//!     field = babybear, n = 16, radix = 4
//! }
//!
//! assert!(BabyBear16::CUDA_SOURCE.contains("fwd_k0"));
//! assert!(BabyBear16::COMMAND.starts_with("fermat gen --field babybear --n 16 --radix 4"));
//! let plan = BabyBear16::new(Backend::Cpu)?;
//! let mut x: Vec<u32> = (0..16).collect();
//! plan.forward(&mut x)?;
//! assert_eq!(x[0], (0..16).sum::<u32>()); // the first output is the sum of the inputs
//! plan.inverse(&mut x)?;
//! assert_eq!(x, (0..16).collect::<Vec<u32>>());
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! [`fingerprint`]: fermat_codegen::design::fingerprint

use crate::design::Design;
use crate::error::Error;
use crate::fft::{Backend, FftOptions};
use fermat_codegen::contract::Launch;
use fermat_codegen::design::default_contiguous_bits;
use fermat_codegen::plan::Order;
use fermat_dsl::derive::Strategy;
use fermat_dsl::field::{AnyField, FieldSpec};
use fermat_dsl::formula::{Formula, FormulaError, ParseError};
use num_bigint::BigUint;

/// A transform designed, lowered and printed at compile time by `fft!`.
///
/// The fields are public so that the macro can write the value as a constant; build plans
/// from it with [`FftPlan::from_embedded`](crate::FftPlan::from_embedded), which checks
/// it.
///
/// ```
/// fermat::fft! {
///     /// The 256-point DFT over Goldilocks.
///     pub struct Goldilocks256;
///     field = goldilocks, n = 256
/// }
///
/// let e: &fermat::Embedded = Goldilocks256::EMBEDDED;
/// assert_eq!((e.field, e.n), ("goldilocks", 256));
/// assert_eq!(e.any_field()?.name(), "goldilocks");
/// assert_eq!(e.design()?.formula.checked_size().unwrap(), 256); // parsed, not derived
/// assert_eq!(e.options(fermat::Backend::Cpu)?.radix, Some(e.radix));
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Embedded {
    /// The field, as [`FieldSpec::parse`] reads it (`P3`, `469762049`, …).
    pub field: &'static str,
    /// The transform size.
    pub n: u64,
    /// The derivation strategy.
    pub strategy: Strategy,
    /// The radix K.
    pub radix: u64,
    /// log2 of the largest piece a kernel exchanges on chip.
    pub max_local_bits: u32,
    /// Order of the input.
    pub input_order: Order,
    /// Order of the output.
    pub output_order: Order,
    /// The user's primitive n-th root of unity (decimal), if not the canonical one.
    pub root: Option<&'static str>,
    /// The number of transforms every call takes, if fixed.
    pub batch: Option<usize>,
    /// The derived formula, in ASCII notation (what the plans are lowered from).
    pub formula: &'static str,
    /// The derivation from `DFT(n)` to the formula, as `fermat derive` prints it.
    pub derivation: &'static str,
    /// The command line in the CUDA file's header.
    pub command: &'static str,
    /// The CUDA source: the field prelude, the forward kernels `fwd_k*` and, unless
    /// [`inverse`](Self::inverse) is `None`, the inverse kernels `inv_k*`.
    pub source: &'static str,
    /// How to launch the forward kernels, in order.
    pub forward: &'static [Launch],
    /// How to launch the inverse kernels, in order; `None` when the source holds the
    /// forward kernels only.
    pub inverse: Option<&'static [Launch]>,
    /// Rows of the twiddle table the kernels read (2^L powers of the root and n^(−1)).
    pub table_rows: u64,
    /// [`fingerprint`](fermat_codegen::design::fingerprint) of the plans the kernels were
    /// printed from.
    pub fingerprint: u64,
    /// The version of `fermat-codegen` that printed the source.
    pub codegen_version: &'static str,
}

impl Embedded {
    /// The field, built ([`Embedded`] has an example).
    pub fn any_field(&self) -> Result<AnyField, Error> {
        Ok(FieldSpec::parse(self.field)?.build()?)
    }

    /// The plan options the transform was generated with, running on `backend`
    /// ([`Embedded`] has an example).
    pub fn options(&self, backend: Backend) -> Result<FftOptions, Error> {
        let root = self
            .root
            .map(|root| {
                root.parse::<BigUint>()
                    .map_err(|source| EmbeddedError::Root { root, source })
            })
            .transpose()?;
        Ok(FftOptions {
            backend,
            strategy: Some(self.strategy),
            radix: Some(self.radix),
            input_order: self.input_order,
            output_order: self.output_order,
            root,
            max_local_bits: Some(self.max_local_bits),
        })
    }

    /// The factorisation, from the embedded formula (no derivation runs; [`Embedded`] has
    /// an example).
    pub fn design(&self) -> Result<Design, Error> {
        let formula = Formula::parse(self.formula).map_err(|source| EmbeddedError::Parse {
            field: self.field,
            n: self.n,
            source,
        })?;
        let size = formula
            .checked_size()
            .map_err(|source| EmbeddedError::Malformed {
                field: self.field,
                n: self.n,
                source,
            })?;
        if size != self.n {
            return Err(EmbeddedError::Size { size, n: self.n }.into());
        }
        Ok(Design {
            strategy: self.strategy,
            radix: self.radix,
            formula,
            max_local_bits: self.max_local_bits,
            max_contiguous_bits: default_contiguous_bits(&self.any_field()?, self.max_local_bits),
            leftover_first: None,
        })
    }
}

/// Why an embedded transform cannot be trusted or rebuilt.
///
/// ```
/// use fermat::{Backend, EmbeddedError, FftPlan};
///
/// fermat::fft! {
///     /// The 16-point DFT over BabyBear.
///     pub struct BabyBear16;
///     field = babybear, n = 16
/// }
///
/// // Kernels printed from other plans: the fingerprint no longer matches.
/// let tampered = fermat::Embedded { fingerprint: 42, ..*BabyBear16::EMBEDDED };
/// let tampered: &'static fermat::Embedded = Box::leak(Box::new(tampered));
/// match FftPlan::<fermat::dsl::Fp32>::from_embedded(tampered, Backend::Cpu) {
///     Err(fermat::Error::Embedded(EmbeddedError::Fingerprint { embedded: 42, .. })) => {}
///     other => panic!("{:?}", other.map(|p| p.n())),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbeddedError {
    /// The embedded field is not the plan's field type.
    #[error("the embedded transform is over {field}, which is not a {expected}")]
    FieldType {
        /// The embedded field's name.
        field: &'static str,
        /// The plan's field type.
        expected: &'static str,
    },
    /// The embedded kernels were printed from other plans than this program lowers.
    #[error("the kernels embedded for the {n}-point transform over {field} were printed by fermat-codegen {printed_by} from other plans than this program lowers with fermat-codegen {running} (fingerprint {embedded:#018x}, expected {expected:#018x}); rebuild the crate that expanded fft!")]
    Fingerprint {
        /// The field.
        field: &'static str,
        /// The transform size.
        n: u64,
        /// The version of `fermat-codegen` that printed the kernels.
        printed_by: &'static str,
        /// The version of `fermat-codegen` this program runs.
        running: &'static str,
        /// The embedded fingerprint.
        embedded: u64,
        /// The fingerprint of this program's plans.
        expected: u64,
    },
    /// The embedded root is not a decimal integer.
    #[error("the embedded root {root:?} is not a decimal integer")]
    Root {
        /// The embedded text.
        root: &'static str,
        /// Why it does not parse.
        #[source]
        source: num_bigint::ParseBigIntError,
    },
    /// The embedded formula does not parse.
    #[error("the embedded formula of the {n}-point transform over {field} does not parse")]
    Parse {
        /// The field.
        field: &'static str,
        /// The transform size.
        n: u64,
        /// The parser's error.
        #[source]
        source: ParseError,
    },
    /// The embedded formula parses but is malformed.
    #[error("the embedded formula of the {n}-point transform over {field} is malformed")]
    Malformed {
        /// The field.
        field: &'static str,
        /// The transform size.
        n: u64,
        /// What is wrong.
        #[source]
        source: FormulaError,
    },
    /// The embedded formula has another size than the transform.
    #[error("the embedded formula has size {size} but the transform has n = {n}")]
    Size {
        /// The formula's size.
        size: u64,
        /// The transform's size.
        n: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Direction, FftPlan};
    use fermat_codegen::design::{transform, TransformOptions};
    use fermat_dsl::Fp32;

    /// An [`Embedded`] made at run time from what `fft!` would embed (leaked to be
    /// `'static`, as the macro's constants are).
    fn embed(spec: &str, n: u64, options: TransformOptions) -> &'static Embedded {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        let t = transform(&any, n, &options).unwrap();
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let launches = |l: &[Launch]| -> &'static [Launch] { l.to_vec().leak() };
        Box::leak(Box::new(Embedded {
            field: leak(t.field.clone()),
            n,
            strategy: t.design.strategy,
            radix: t.design.radix,
            max_local_bits: t.design.max_local_bits,
            input_order: options.input_order,
            output_order: options.output_order,
            root: options.root.as_ref().map(|r| leak(r.to_string())),
            batch: None,
            formula: leak(t.design.formula.ascii()),
            derivation: leak(t.derivation.render(true).to_string()),
            command: leak(t.command.clone()),
            source: leak(t.source.clone()),
            forward: launches(&t.forward_launches),
            inverse: t.inverse_launches.as_deref().map(launches),
            table_rows: t.table_rows,
            fingerprint: t.fingerprint,
            codegen_version: fermat_codegen::design::CODEGEN_VERSION,
        }))
    }

    #[test]
    fn plans_from_embedded_transforms_run_like_new_ones() {
        let e = embed("469762049", 256, TransformOptions::default());
        let plan = FftPlan::<Fp32>::from_embedded(e, Backend::Cpu).unwrap();
        let field = Fp32::new(469762049).unwrap();
        let fresh = FftPlan::new(
            &field,
            256,
            FftOptions {
                backend: Backend::Cpu,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            plan.kernel_plan(Direction::Forward),
            fresh.kernel_plan(Direction::Forward)
        );
        let x: Vec<u32> = (0..256).map(|i| i * 7919 % 469762049).collect();
        let (mut a, mut b) = (x.clone(), x.clone());
        plan.forward(&mut a).unwrap();
        fresh.forward(&mut b).unwrap();
        assert_eq!(a, b);
        plan.inverse(&mut a).unwrap();
        assert_eq!(a, x);
        assert_eq!(plan.embedded(), Some(e));
    }

    #[test]
    fn a_changed_embedding_is_refused() {
        let e = embed("469762049", 256, TransformOptions::default());
        let other = Box::leak(Box::new(Embedded {
            fingerprint: e.fingerprint ^ 1,
            ..*e
        }));
        let err = FftPlan::<Fp32>::from_embedded(other, Backend::Cpu)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("fingerprint"), "{err}");
        assert!(matches!(
            FftPlan::<Fp32>::from_embedded(other, Backend::Cpu).err(),
            Some(Error::Embedded(EmbeddedError::Fingerprint { n: 256, .. }))
        ));
        let wrong_field = Box::leak(Box::new(Embedded {
            field: "babybear",
            ..*e
        }));
        assert!(FftPlan::<Fp32>::from_embedded(wrong_field, Backend::Cpu).is_err());
        let wrong_type = FftPlan::<fermat_dsl::Fp64>::from_embedded(e, Backend::Cpu)
            .err()
            .unwrap();
        assert!(
            matches!(
                &wrong_type,
                Error::Embedded(EmbeddedError::FieldType {
                    field: "469762049",
                    ..
                })
            ),
            "{wrong_type}"
        );
        assert!(wrong_type.to_string().contains("Fp64"), "{wrong_type}");
        let bad_formula = Box::leak(Box::new(Embedded {
            formula: "DFT(128)",
            ..*e
        }));
        let err = FftPlan::<Fp32>::from_embedded(bad_formula, Backend::Cpu)
            .err()
            .unwrap();
        assert!(
            matches!(
                err,
                Error::Embedded(EmbeddedError::Size { size: 128, n: 256 })
            ),
            "{err}"
        );
        let bad_root = Box::leak(Box::new(Embedded {
            root: Some("0x11"),
            ..*e
        }));
        assert!(matches!(
            FftPlan::<Fp32>::from_embedded(bad_root, Backend::Cpu).err(),
            Some(Error::Embedded(EmbeddedError::Root { root: "0x11", .. }))
        ));
        let unparsable = Box::leak(Box::new(Embedded {
            formula: "DFT(",
            ..*e
        }));
        assert!(matches!(
            FftPlan::<Fp32>::from_embedded(unparsable, Backend::Cpu).err(),
            Some(Error::Embedded(EmbeddedError::Parse { n: 256, .. }))
        ));
    }

    #[test]
    fn fixed_batches_are_enforced() {
        let e = embed("469762049", 16, TransformOptions::default());
        let two = Box::leak(Box::new(Embedded {
            batch: Some(2),
            ..*e
        }));
        let plan = FftPlan::<Fp32>::from_embedded(two, Backend::Cpu).unwrap();
        let mut one = vec![1u32; 16];
        let err = plan.forward(&mut one).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Batch {
                    len: 16,
                    n: 16,
                    batch: 2,
                    ..
                }
            ),
            "{err}"
        );
        let mut two = vec![1u32; 32];
        plan.forward(&mut two).unwrap();
    }
}
