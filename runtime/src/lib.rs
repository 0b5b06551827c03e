//! # fermat
//!
//! Exact fast Fourier transforms over finite fields — word-size NTT primes and the big
//! generalized Fermat primes p = r^k + 1 — compiled into specialised CUDA kernels, with a
//! CPU backend that runs the very same kernel plans, and the polynomial arithmetic built
//! on them. Everything below runs without a GPU: [`Backend::Auto`] takes GPU 0 when there
//! is one and says why not when there is none.
//!
//! ## 1. Choose a field
//!
//! A field is named the same way everywhere (here, the `fermat` command and the
//! [`fft!`] macro): a catalogue name (`P1`..`P6`, `goldilocks`, `babybear`), a decimal word
//! prime (`469762049`) or `srgfn:w,u,sign,k` for p = (2^w ± 2^u)^k + 1.
//! [`FieldSpec::parse`] reads the name and [`FieldSpec::build`] checks the mathematics;
//! the [`AnyField`] it gives holds the typed field, whose elements are `u32` or `u64` for
//! word primes and `[u64; k]` — base-r digits, least significant first — for SRGFNs (the
//! [`HostField::Host`] type). [`PrimeField`] and [`Element`] are the same field and its
//! elements without the types, with operators and `Display`.
//!
//! ```
//! use fermat::{AnyField, Field, FieldSpec, PrimeField};
//!
//! let AnyField::Fp32(babybear) = FieldSpec::parse("babybear")?.build()? else { unreachable!() };
//! assert_eq!(babybear.two_adicity(), 27); // transforms of up to 2^27 points
//! let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
//! assert_eq!(p3.modulus().bits(), 505);
//!
//! let f = PrimeField::new("469762049")?;
//! let x = f.element(3u32)?;
//! assert_eq!((&x * &x).to_string(), "9");
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## 2. Plan a transform
//!
//! An [`FftPlan`] is designed once — derived, lowered into kernel plans, compiled for the
//! GPU — and run many times, from any thread. [`FftOptions`] leaves everything open by
//! default: the canonical root, natural order, the default factorisation, the best
//! backend. Sizes are powers of two up to 2^(2-adicity), checked against the memory
//! available before anything is allocated ([`memory`]).
//!
//! ```
//! use fermat::dsl::Fp32;
//! use fermat::{Backend, FftOptions, FftPlan};
//!
//! let f = Fp32::new(2013265921)?;
//! let plan = FftPlan::new(&f, 1024, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
//! let x: Vec<u32> = (0..1024).collect();
//! let mut y = x.clone();
//! plan.forward(&mut y)?;          // y_i = Σ_j ω^(i·j) x_j, natural order
//! plan.inverse(&mut y)?;          // at ω^(−1), scaled by 1/n
//! assert_eq!(x, y);
//! println!("{}", plan.running()); // CPU (… threads)
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## 3. Batch
//!
//! A call transforms every run of n elements of its slice: a batch is vectors one after
//! another, and one call runs them all (on a GPU, in the same launches). A slice that is
//! not a positive multiple of n is an [`Error::Length`].
//!
//! ```
//! use fermat::dsl::Fp32;
//! use fermat::{Backend, Error, FftOptions, FftPlan};
//!
//! let f = Fp32::new(469762049)?;
//! let plan = FftPlan::new(&f, 16, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
//! let mut batch = vec![1u32; 3 * 16]; // three vectors of 16 ones
//! plan.forward(&mut batch)?;
//! for y in batch.chunks(16) {
//!     assert_eq!(y[0], 16);           // the sum of each vector …
//!     assert!(y[1..].iter().all(|&v| v == 0)); // … and nothing else
//! }
//! let err = plan.forward(&mut vec![0u32; 20]).unwrap_err();
//! assert!(matches!(err, Error::Length { len: 20, n: 16, .. }));
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## 4. Multiply polynomials
//!
//! A [`poly::PolyRing`] multiplies, divides and takes gcds of [`poly::Poly`]s (coefficients
//! lowest degree first) with the field's transforms, keeping the plans of every size it
//! has used; [`poly::PolyRing::mul_batch`] multiplies many pairs in one batch.
//!
//! ```
//! use fermat::dsl::{Field, Fp32};
//! use fermat::poly::{Poly, PolyRing};
//! use fermat::Backend;
//!
//! let f = Fp32::new(469762049)?;
//! let ring = PolyRing::new(&f, Backend::Cpu)?;
//! let a = Poly::new(&f, (1..=1000).map(|i| f.from_u64(i)).collect());
//! let b = Poly::new(&f, (1..=700).map(|i| f.from_u64(3 * i)).collect());
//! let c = ring.mul(&a, &b)?;
//! assert_eq!(c.len(), 1699);
//! let x = f.from_u64(12345);
//! assert_eq!(c.eval(&x), f.mul(&a.eval(&x), &b.eval(&x)));
//! let (q, r) = ring.divrem(&c, &b)?;
//! assert!(q == a && r.is_zero());
//! let products = ring.mul_batch(&[a.clone(), b.clone()], &[b.clone(), a.clone()])?;
//! assert_eq!(products[0], products[1]);
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## 5. Read a cost report
//!
//! Every plan states its cost before it runs: the passes over global memory (each kernel
//! is one), the bytes they move and the field multiplications, and the time one read and
//! one write of the data take at a given bandwidth — the floor a transform is measured
//! against (`fermat bench`).
//!
//! ```
//! use fermat::{AnyField, Backend, FftOptions, FftPlan, FieldSpec};
//!
//! let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
//! let plan = FftPlan::new(&p3, 1 << 16, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
//! let cost = plan.cost()?;
//! assert_eq!(cost.passes(), 3);
//! print!("{cost}"); // one line per kernel: pieces, bytes, multiplications, shifts, additions
//! let floor_ms = cost.floor_seconds(3000.0) * 1e3; // at 3 TB/s
//! assert!(floor_ms > 0.0 && cost.bytes() == 3 * 2 * 64 << 16);
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## 6. Generate the kernels at compile time: `fft!`
//!
//! The [`fft!`] macro designs, derives, lowers and prints a transform while the crate that
//! uses it compiles, and makes it a type: no code generation at run time, and the CUDA
//! source is a constant of the type (checked against the plans it is used with).
//!
//! ```
//! fermat::fft! {
//!     /// The 256-point DFT over P3.
//!     pub struct P3x256;
//!     field = P3, n = 256, radix = 16
//! }
//!
//! let plan = P3x256::new(fermat::Backend::Auto)?; // the GPU if there is one
//! let mut x = vec![[0u64; 8]; 256];
//! x[0][0] = 1;                                    // the constant polynomial 1 …
//! plan.forward(&mut x)?;
//! assert!(x.iter().all(|y| y[0] == 1));           // … is 1 at every root
//! assert!(P3x256::CUDA_SOURCE.contains("fwd_k0"));
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! ## More
//!
//! - Errors are typed ([`Error`]): each names the refused value and what was allowed.
//! - Vectors in files, as `fermat fft` reads and writes them (JSON, reference vectors,
//!   raw binary): [`io`]; the shipped reference DFTs: [`vectors`].
//! - On the GPU, data can stay on the device: [`FftPlan::to_device`],
//!   [`FftPlan::run_device`], [`poly::DevicePoly`].
//! - The formula language, rewrite rules and fields are `fermat::dsl`, the crate [`fermat_dsl`];
//!   the code generator is `fermat::codegen`, the crate [`fermat_codegen`].
//! - How it is built: `docs/ARCHITECTURE.md` in the repository.

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
pub mod io;
pub mod memory;
pub mod poly;
pub mod split;
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
/// Section 6 of the [crate documentation](crate) has an example of this macro that runs.
///
#[doc(inline)]
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
