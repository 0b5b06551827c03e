//! # fermat-dsl
//!
//! The mathematical core of fermat: finite fields with exact arithmetic (word-size NTT
//! primes and the sparse-radix generalized Fermat primes of Chen, Covanov, Mohajerani and
//! Moreno Maza, ISSAC 2017), the tensor-product formula language of SPIRAL, named rewrite
//! rules and derivations, and the reference interpreter that gives every formula its
//! meaning.

#![warn(missing_docs)]

pub mod field;

pub use field::{
    AnyField, Field, FieldError, FieldSpec, Fp32, Fp64, Sign, Srgfn, SrgfnElem, SrgfnParams,
};
pub mod derive;
pub mod formula;
pub mod interp;
pub mod rules;
