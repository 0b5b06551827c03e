//! # fermat
//!
//! Exact fast Fourier transforms over finite fields — word-size NTT primes and the big
//! generalized Fermat primes p = r^k + 1 — compiled into specialised kernels.
//!
//! This crate is what users depend on: it re-exports the formula language
//! ([`dsl`]) and the code generator ([`codegen`]).

#![warn(missing_docs)]

pub use fermat_codegen as codegen;
pub use fermat_dsl as dsl;
pub use fermat_dsl::{AnyField, Field, FieldError, FieldSpec};
