//! # fermat
//!
//! Exact fast Fourier transforms over finite fields — word-size NTT primes and the big
//! generalized Fermat primes p = r^k + 1 — compiled into specialised CUDA kernels, with a
//! CPU backend that runs the same kernel plans.
//!
//! ```
//! use fermat::{Backend, FftOptions, FftPlan};
//! use fermat::dsl::FieldSpec;
//!
//! // P3 = (2^63 + 2^34)^8 + 1: elements are 8 digits in base r.
//! let p3 = FieldSpec::parse("P3")?.build()?;
//! let fermat::AnyField::Srgfn8(field) = p3 else { unreachable!() };
//! let plan = FftPlan::new(&field, 256, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
//! let mut x = vec![[0u64; 8]; 256];
//! x[1][0] = 1; // the polynomial T
//! plan.forward(&mut x)?;
//! assert_eq!(x[0][0], 1); // ω^0 = 1
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! The crate re-exports the formula language ([`dsl`]) and the code generator
//! ([`codegen`]).

#![warn(missing_docs)]

pub mod cache;
pub mod catalogue;
pub mod cpu;
pub mod crt;
pub mod design;
pub mod element;
pub mod embedded;
mod error;
mod fft;
pub mod gpu;
pub mod host;
pub mod poly;
pub mod tune;
pub mod vectors;

pub use element::{Element, PrimeField};
pub use embedded::{Embedded, EmbeddedError};
pub use error::Error;
pub use fermat_codegen as codegen;
pub use fermat_codegen::plan::{Direction, Order};
pub use fermat_dsl as dsl;
pub use fermat_dsl::derive::Strategy;
pub use fermat_dsl::{AnyField, Field, FieldError, FieldSpec};
pub use fermat_macros::fft;
pub use fft::{Backend, DeviceVec, FftOptions, FftPlan, Running};
pub use host::HostField;
pub use num_bigint;

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn plans_are_send_and_sync() {
        assert_send_sync::<FftPlan<dsl::Fp32>>();
        assert_send_sync::<FftPlan<dsl::Srgfn<8>>>();
    }
}
