//! Where a plan runs, and how it is made.

use fermat_codegen::plan::Order;
use fermat_dsl::derive::Strategy;
use num_bigint::BigUint;

/// Where a plan runs.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::{Backend, FftOptions, FftPlan, Running};
///
/// let f = Fp32::new(469762049)?;
/// let auto = FftPlan::new(&f, 64, FftOptions::default())?; // Backend::Auto
/// match auto.running() {
///     Running::Gpu(device) => println!("on {device}"),
///     Running::Cpu { reason } => println!("on the CPU: {reason:?}"),
/// }
/// let cpu = FftPlan::new(&f, 64, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
/// assert_eq!(cpu.running(), &Running::Cpu { reason: None });
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// The GPU with ordinal 0 if one works, else the CPU (the plan says which, and why).
    #[default]
    Auto,
    /// The CPU, on all cores.
    Cpu,
    /// The GPU with this ordinal; an error if it cannot be used.
    Gpu(usize),
}

/// Choices a plan leaves open; `Default` gives the natural-order canonical DFT on the best
/// backend with fermat's default factorisation.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::{Backend, FftOptions, FftPlan, Order, Strategy};
///
/// let f = Fp32::new(2013265921)?;
/// let options = FftOptions {
///     backend: Backend::Cpu,
///     strategy: Some(Strategy::Stockham),
///     radix: Some(4),
///     output_order: Order::BitReversed, // no permutation on the last pass
///     root: Some(f.p().wrapping_sub(1).into()), // ω_2 = −1: a user's root is checked
///     ..Default::default()
/// };
/// let plan = FftPlan::new(&f, 2, options)?;
/// let mut x = vec![3u32, 1];
/// plan.forward(&mut x)?;
/// assert_eq!(x, vec![4, 2]); // (3 + 1, 3 − 1)
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FftOptions {
    /// Where to run.
    pub backend: Backend,
    /// The derivation strategy (default `ct`, recursive Cooley–Tukey).
    pub strategy: Option<Strategy>,
    /// The radix K (default 2k for SRGFNs, so that every base-case twiddle is a shift;
    /// 16 for word primes).
    pub radix: Option<u64>,
    /// Order of the input.
    pub input_order: Order,
    /// Order of the output.
    pub output_order: Order,
    /// A primitive n-th root of unity to use instead of the canonical ω_n (checked).
    pub root: Option<BigUint>,
    /// log2 of the largest piece a kernel exchanges on chip (default: what fits 48 KiB
    /// of shared memory).
    pub max_local_bits: Option<u32>,
}

/// Which backend a plan runs on; `Display` says it in words, with the reason a GPU was
/// not used.
///
/// ```
/// use fermat::{Backend, FftOptions, FftPlan, Running};
///
/// let f = fermat::dsl::Fp64::new(0xffff_ffff_0000_0001)?; // Goldilocks
/// let plan = FftPlan::new(&f, 1 << 12, FftOptions { backend: Backend::Auto, ..Default::default() })?;
/// match plan.running() {
///     Running::Gpu(device) => println!("on {device}"),
///     Running::Cpu { reason } => println!("on the CPU: {}", reason.as_deref().unwrap_or("asked for")),
/// }
/// println!("{}", plan.running()); // "CPU (2 threads; no GPU: no CUDA driver: …)"
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Running {
    /// On the CPU; `reason` says why when the GPU was not used under [`Backend::Auto`].
    Cpu {
        /// Why not on a GPU, if a GPU was wanted.
        reason: Option<String>,
    },
    /// On this GPU.
    Gpu(String),
}

impl std::fmt::Display for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Running::Cpu { reason: None } => {
                write!(f, "CPU ({} threads)", rayon::current_num_threads())
            }
            Running::Cpu { reason: Some(r) } => write!(
                f,
                "CPU ({} threads; no GPU: {r})",
                rayon::current_num_threads()
            ),
            Running::Gpu(d) => write!(f, "GPU {d}"),
        }
    }
}
