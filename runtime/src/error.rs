//! The one error type of the `fermat` library.

use fermat_codegen::{CodegenError, ExecError, PlanError};
use fermat_dsl::derive::DeriveError;
use fermat_dsl::FieldError;
use thiserror::Error;

/// Everything that can go wrong when planning or running a transform.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A field could not be built, or a value or root was refused.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// The transform could not be derived.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// The derivation could not be lowered into kernels.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// CUDA source could not be generated.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The CPU executor refused its buffers.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// A GPU could not be used.
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    /// A buffer does not hold a whole number of transforms.
    #[error("{what} has {len} elements: it must hold a positive multiple of n = {n} (one transform per n elements)")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The transform size.
        n: u64,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Options(String),
}
