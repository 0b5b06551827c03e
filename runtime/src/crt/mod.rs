//! The multi-modular route: polynomials with big coefficients multiplied through many
//! word-prime products and the Chinese Remainder Theorem.
//!
//! A product whose coefficients need B bits runs modulo s NTT primes p_1, …, p_s whose
//! product exceeds 2^B ([`PrimeSet`]): each operand is *projected* onto the primes (one
//! residue vector per prime, [`project`]), the s products run as word-prime products of
//! [`PolyRing`](crate::poly::PolyRing), and Garner's mixed-radix algorithm *recombines*
//! the residues into the exact coefficients ([`recombine`]). This is §7 of the 2017
//! big-prime FFT paper ("the CRT alternative") and what FLINT's `fmpz_poly_mul` and
//! `fmpz_mod_poly_mul` do on the CPU.
//!
//! [`IntPolyRing`] multiplies in Z\[x\], [`ModPolyRing`] in (Z/mZ)\[x\] for any m ≥ 2.
//!
//! ```
//! use fermat::crt::IntPolyRing;
//! use fermat::num_bigint::BigInt;
//! use fermat::Backend;
//!
//! let ring = IntPolyRing::new(Backend::Auto)?;
//! let a: Vec<BigInt> = (1..=1000).map(|i| BigInt::from(i) << 300u32).collect();
//! let b: Vec<BigInt> = (1..=1000).map(|i| -BigInt::from(i)).collect();
//! let c = ring.mul(&a, &b)?;
//! assert_eq!(c[0], -(BigInt::from(1) << 300u32));
//! assert_eq!(c.len(), 1999);
//! # Ok::<(), fermat::Error>(())
//! ```

mod device;
mod dft;
mod explicit;
mod graph;
mod integer;
mod lanes;
mod modular;
mod montgomery;
mod primes;
mod radix;
mod residues;
mod rings;
mod schoolbook;

pub use device::DeviceIntegers;
pub use dft::CrtDft;
pub use integer::{CrtPlan, IntPolyRing};
pub use modular::ModPolyRing;
pub use primes::{PrimeSet, Width};
pub(crate) use radix::Digits;
pub use residues::{project, recombine, Integers};
pub use rings::CrtField;
