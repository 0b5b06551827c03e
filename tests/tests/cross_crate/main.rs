//! The cross-crate tests, one binary: the formula language, its rules and derivations,
//! the reference interpreter and the CPU executor against the reference vectors, and the
//! published crates' packaging. Each module names the part it checks.

mod derivations;
mod interp;
mod packaging;
mod parse;
mod plans;
mod rules;
mod srgfn_vectors;
mod word_fields;
