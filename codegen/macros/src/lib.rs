//! # fermat-macros
//!
//! The `fft!` proc-macro, re-exported as `fermat::fft!`: a transform written once in a
//! user's crate becomes a type whose kernels were designed, derived, lowered and printed
//! as CUDA while the crate compiled.
//!
//! The same type is defined and run, as a test too, in `runtime/examples/01-fft-macro.rs`;
//! `fermat`'s `embedded` module documentation holds a doctest of the macro (this crate
//! cannot run one: the expansion names the `fermat` crate).
//!
//! ```ignore
//! fermat::fft! {
//!     /// The 4096-point FFT over P3 = (2^63 + 2^34)^8 + 1.
//!     pub struct P3x4096;
//!     field = P3, n = 4096, radix = 16, strategy = prop3
//! }
//!
//! let plan = P3x4096::new(fermat::Backend::Auto)?;
//! let mut x = vec![[0u64; 8]; 4096];
//! x[1][0] = 1;
//! plan.forward(&mut x)?;
//! # Ok::<(), fermat::Error>(())
//! ```
//!
//! The syntax, the type it makes, its errors and its cost are documented on [`fft!`](fft)
//! itself, so that they travel with the macro wherever it is re-exported.

#![warn(missing_docs)]

mod args;
mod expand;

use proc_macro::TokenStream;

/// Generates a typed FFT plan whose kernels are designed and printed at compile time.
///
/// ```ignore
/// fermat::fft! {
///     /// The 4096-point FFT over P3 = (2^63 + 2^34)^8 + 1.
///     pub struct P3x4096;
///     field = P3, n = 4096, radix = 16, strategy = prop3
/// }
///
/// let plan = P3x4096::new(fermat::Backend::Auto)?;
/// let mut x = vec![[0u64; 8]; 4096];
/// x[1][0] = 1;
/// plan.forward(&mut x)?;
/// ```
///
/// (The `fermat` crate runs this example: section 6 of its documentation.)
///
/// # Syntax
///
/// Attributes (doc comments, `#[allow(…)]`), then `VIS struct NAME;`, then
/// comma-separated `key = value` arguments in any order, each at most once:
///
/// | argument | value | default |
/// |---|---|---|
/// | `field` (required) | a catalogue name (`P1`..`P6`, `goldilocks`, `babybear`), a decimal word prime (`469762049`), or a string `"srgfn:w,u,sign,k"` | — |
/// | `n` (required) | the transform size: a power of two up to 2^(2-adicity of p) | — |
/// | `radix` | the radix K: a power of two ≥ 2, for an SRGFN at most 2k | 2k for SRGFNs, 16 for word primes |
/// | `strategy` | `ct`, `radix2`, `stockham` or `prop3` | `ct` |
/// | `max_local_bits` | log2 of the largest piece a kernel keeps on chip, 1..=20 | what fits 48 KiB of shared memory, at most 12 |
/// | `input`, `output` | `natural` or `bitreversed` | `natural` |
/// | `root` | a primitive n-th root of unity, decimal (a string for big fields) | the canonical ω_n |
/// | `inverse` | `true` or `false` (a bare `inverse` is `true`): whether the type has the inverse transform and its kernels | `true` |
/// | `batch` | the number of transforms every call takes (checked) | any positive number |
///
/// # The type
///
/// For `struct P;` over a field with host elements `T` (`u32` for primes below 2^32,
/// `u64` for other word primes, `[u64; k]` — base-r digits, least significant first —
/// for SRGFNs) and field type `F` (`fermat::dsl::Fp32`, `Fp64`, `Srgfn<k>`):
///
/// - constants `EMBEDDED: &fermat::Embedded` (everything below, and the kernels' launches
///   and the plans' fingerprint), `CUDA_SOURCE`, `FORMULA`, `DERIVATION`, `COMMAND`, `N`,
///   `FIELD`, `RADIX`, `STRATEGY`, `BATCH`;
/// - `P::new(backend) -> Result<P, fermat::Error>`, which lowers the embedded formula,
///   checks it against the embedded kernels and, on a GPU, compiles the embedded source;
/// - `forward(&mut [T])`, `inverse(&mut [T])` on host slices, `forward_device`,
///   `inverse_device`, `to_device`, `from_device`, `alloc_device`, `synchronize` on device
///   buffers (`fermat::DeviceVec<F>`);
/// - `cost()`, `running()`, `field()`, `plan()` (the underlying `fermat::FftPlan<F>`), and
///   `Debug`.
///
/// With the canonical root, natural orders and both directions, `CUDA_SOURCE` is exactly
/// the file `fermat gen --field F --n N --radix K --strategy S --max-local-bits L` writes
/// (`COMMAND` holds that line).
///
/// # Errors
///
/// Bad arguments are compile errors at the argument at fault, saying what is allowed: an
/// unknown field, argument or strategy; `n` not a power of two or beyond the field's
/// 2-adicity; a radix that is not a power of two or (SRGFNs) exceeds 2k; a root that is
/// not a primitive n-th root; a duplicate or missing argument.
///
/// # Cost
///
/// The macro writes no files, runs no build script and uses no network. Expanding a
/// P3 transform of 16^4 points takes a fraction of a second even with the macro
/// unoptimised (the default for proc-macros in dev builds; bench/RESULTS.md has the
/// measurement). The expansion refers to the `fermat` crate by its name: depend on it as
/// `fermat`.
#[proc_macro]
pub fn fft(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as args::Input);
    expand::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
