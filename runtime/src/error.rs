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
    /// A buffer does not hold the fixed number of transforms of its plan (a `fft!` type
    /// declared with `batch = …`).
    #[error("{what} has {len} elements: this plan transforms exactly {batch} vectors of n = {n} at a time ({total} elements)", total = *batch as u64 * n)]
    Batch {
        /// Which buffer.
        what: &'static str,
        /// Its length in elements.
        len: usize,
        /// The transform size.
        n: u64,
        /// The transforms per call.
        batch: usize,
    },
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Options(String),
}
