//! # fermat-macros
//!
//! The `fft!` proc-macro, re-exported as `fermat::fft!`.
