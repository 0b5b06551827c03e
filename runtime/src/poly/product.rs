//! How a product of two polynomials is computed: the choice of algorithm and transform
//! sizes for two lengths ([`ProductPlan`]), and its run on the CPU.
//!
//! - Balanced operands: the product of length ℓ takes one cyclic product of the next
//!   power of two P ≥ ℓ where ℓ is P or close to it, else one of N = P/2 points and one of
//!   the power of two m ≥ ℓ − N, recombined exactly (`fermat_codegen::poly`): the time
//!   follows ℓ, with no jump at powers of two.
//! - Unbalanced operands (the longer at least four times the shorter): the longer one is
//!   cut into blocks that each make, with the shorter, a cyclic product without wrap, all
//!   in one batch, and the block products are added where they overlap.
//! - Tiny products on the CPU: the schoolbook product.

use super::convolution::Convolution;
use super::host::Poly;
use super::schoolbook::schoolbook_mul;
use crate::error::Error;
use crate::host::HostField;
use fermat_codegen::poly::{fold, overlap_add, recombine, ProductPass};

/// How a product is computed: the choice a [`ProductPlan`] makes.
///
/// ```
/// use fermat::poly::{Algorithm, Crossover, ProductPlan};
///
/// let cpu = |a, b| ProductPlan::new(a, b, 27, false).map(|p| p.algorithm);
/// assert_eq!(cpu(0, 100)?, Algorithm::Zero);
/// assert_eq!(cpu(8, 8)?, Algorithm::Schoolbook);
/// assert_eq!(cpu(1000, 1000)?, Algorithm::Cyclic { n: 2048 });
/// // 2^16 × 2^6: blocks of the longer operand, each with the shorter, in one batch.
/// assert!(matches!(cpu(1 << 16, 64)?, Algorithm::Blocks { count, .. } if count > 1));
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// One operand is zero: so is the product.
    Zero,
    /// The schoolbook product (small products on the CPU).
    Schoolbook,
    /// The plain product on the GPU (small or very unbalanced products): tiles of outputs
    /// by chunks of terms, the partial sums added ([`fermat_codegen::plain`]).
    Plain,
    /// One cyclic product of `n` points (three transforms, two for a square).
    Cyclic {
        /// Points of the transforms.
        n: u64,
    },
    /// A cyclic product of `n` points and one of `m` points, recombined: for lengths a
    /// little above a power of two.
    Split {
        /// Points of the larger product.
        n: u64,
        /// Points of the smaller one.
        m: u64,
    },
    /// Blocks of `block` coefficients of the longer operand, each multiplied by the
    /// shorter one in a cyclic product of `n` points, `count` of them in one batch.
    Blocks {
        /// Points of each product.
        n: u64,
        /// Coefficients of the longer operand per block.
        block: u64,
        /// The number of blocks.
        count: u64,
    },
}

/// A product of two lengths, planned: what [`PolyRing::mul`](super::PolyRing::mul) does
/// for them.
///
/// ```
/// use fermat::poly::{Algorithm, ProductPlan};
///
/// // 2^16 + 1 coefficients times as many: 2^17 + 1 coefficients, from cyclic products of
/// // 2^17 points and of 2^12 points, not one of 2^18 points.
/// let plan = ProductPlan::new(65537, 65537, 26, true)?;
/// assert_eq!(plan.algorithm, Algorithm::Split { n: 1 << 17, m: 1 << 12 });
/// assert_eq!(plan.len(), 131073);
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProductPlan {
    /// Coefficients of the first operand.
    pub len_a: usize,
    /// Coefficients of the second operand.
    pub len_b: usize,
    /// The algorithm and its sizes.
    pub algorithm: Algorithm,
}

/// Where products stop being plain (schoolbook on the CPU, [`Algorithm::Plain`] on the GPU)
/// and become FFT-based: a product whose shorter operand has s coefficients and whose
/// longer one has about 2^r·s is plain when s ≤ `max_short[min(r, 7)]`. `fermat tune`
/// measures it per field and device; [`Crossover::cpu`] and [`Crossover::gpu`] are the
/// defaults without a table.
///
/// ```
/// use fermat::poly::Crossover;
///
/// let c = Crossover::gpu();
/// assert!(c.is_plain(64, 64));
/// assert!(!c.is_plain(1 << 16, 1 << 16));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Crossover {
    /// The longest shorter operand of a plain product, by ⌊log2(long/short)⌋ (7: 128 or
    /// more times longer).
    pub max_short: [usize; RATIOS],
    /// Products over an SRGFN whose result has at least this many coefficients go by the
    /// CRT route ([`crate::crt`]: word-prime products of the coefficients as integers,
    /// reduced), where `fermat tune` measured it faster; `None`: never.
    #[serde(default)]
    pub crt_from: Option<usize>,
    /// On a GPU, products and divisions of host polynomials whose result has fewer
    /// coefficients than this run on the host: below it the device's round trip (the
    /// uploads, the launches, the download and its wait) costs more than the host's own
    /// product. `None`: all of them on the device, as in tables stored before it
    /// existed. Unused on the CPU.
    #[serde(default)]
    pub host_below: Option<usize>,
    /// The degree below which the half-gcd (of `gcd` on the CPU, of `xgcd` and
    /// `resultant` for shorter operands on a GPU) takes Euclid's steps one by one, as
    /// `fermat tune` measured it; `None`: [`HGCD_BASE`], as in tables stored before it
    /// existed. Read through [`Crossover::half_gcd_base`].
    #[serde(default)]
    pub hgcd_base: Option<usize>,
    /// Divisions on the CPU whose quotient or divisor has at most this many coefficients
    /// are long divisions (k·m products), longer ones Newton's (three products), as
    /// `fermat tune --cpu` measured it; `None`: [`LONG_DIVISION`]. Read through
    /// [`Crossover::long_division_limit`].
    #[serde(default)]
    pub long_division: Option<usize>,
}

/// The GPU's default [`Crossover::host_below`] for word primes. On an H200 and its host's
/// CPU, `fermat tune --gpu` found babybear's products of host polynomials faster on the
/// device from 2^14 coefficients, and P3's at every length: SRGFNs default to `None`
/// (bench/RESULTS.md, "GCD round 4").
///
/// ```
/// use fermat::poly::{Crossover, GPU_HOST_BELOW};
///
/// assert_eq!(Crossover::gpu().host_below, Some(GPU_HOST_BELOW));
/// ```
pub const GPU_HOST_BELOW: usize = 1 << 14;

/// The CPU's default [`Crossover::crt_from`]: products over SRGFNs of at least this many
/// coefficients go by the CRT route. On one core of an EPYC, with the route in the
/// fields' digits and the fields' short transforms on a table, products of 1024 × 512
/// took 0.32 / 0.61 / 1.44 ms by the CRT route and 0.46 / 0.72 / 1.59 ms by the field's
/// own transforms for P2 / P3 / P4; of 512 × 256, 0.19 / 0.34 / 0.80 against
/// 0.21 / 0.32 / 0.67 (bench/RESULTS.md, "CPU round 6").
///
/// ```
/// use fermat::poly::{Crossover, CPU_CRT_FROM};
///
/// assert_eq!(Crossover::cpu().crt_from, Some(CPU_CRT_FROM));
/// ```
pub const CPU_CRT_FROM: usize = 1 << 10;

/// The half-gcd's default base case: below this degree Euclid's steps one by one, each a
/// division with a quotient of one or two coefficients, cost less than the products of a
/// recursion (one core of an EPYC; `fermat tune` measures it per field and device).
/// [`Crossover::half_gcd_base`] has an example.
pub const HGCD_BASE: usize = 128;

/// The CPU's default [`Crossover::long_division`]: quotients or divisors of at most this
/// many coefficients are long divisions, whose k·m products then cost less than the three
/// products of a Newton division. [`Crossover::long_division_limit`] has an example.
pub const LONG_DIVISION: usize = 32;

/// The smallest base case [`Crossover::half_gcd_base`] gives, whatever a table says: a
/// base of 0 would recurse forever on a constant, and below a few coefficients a
/// recursion's products never beat Euclid's steps. [`Crossover::half_gcd_base`] has an
/// example.
pub const HGCD_MIN_BASE: usize = 4;

/// The length ratios a [`Crossover`] tells apart: 1, 2, 4, …, 128 and more.
///
/// ```
/// use fermat::poly::{Crossover, RATIOS};
///
/// assert_eq!(Crossover::ratio(1000, 1000), 0);
/// assert_eq!(Crossover::ratio(1 << 20, 64), RATIOS - 1); // 2^14: "128 and more"
/// ```
pub const RATIOS: usize = 8;

impl Crossover {
    /// The CPU's default: the schoolbook product while it takes at most about 2^10
    /// coefficient products, or a factor has at most 8 coefficients.
    ///
    /// ```
    /// use fermat::poly::{Crossover, CPU_CRT_FROM};
    ///
    /// let c = Crossover::cpu();
    /// assert!(c.is_plain(32, 32) && !c.is_plain(33, 33));
    /// assert!(c.is_plain(8, 1 << 20)); // a factor of at most 8 coefficients
    /// assert_eq!(c.crt_from, Some(CPU_CRT_FROM));
    /// ```
    pub fn cpu() -> Crossover {
        Crossover {
            max_short: [32, 22, 16, 11, 8, 8, 8, 8],
            crt_from: Some(CPU_CRT_FROM),
            host_below: None,
            hgcd_base: None,
            long_division: None,
        }
    }

    /// The GPU's default, from an H200 (bench/RESULTS.md, "Plain products"): plain up to
    /// 2^10 × 2^10 (0.009 ms), and only for short factors of very unbalanced products
    /// (plain 2^20 × 2^6 took 0.138 ms against 0.028 for the FFT's blocks).
    ///
    /// ```
    /// use fermat::poly::Crossover;
    ///
    /// let c = Crossover::gpu();
    /// assert!(c.is_plain(1024, 1024) && !c.is_plain(1025, 1025));
    /// assert!(c.is_plain(16, 1 << 20) && !c.is_plain(64, 1 << 20)); // unbalanced: short only
    /// assert_eq!(c.crt_from, None);
    /// ```
    pub fn gpu() -> Crossover {
        Crossover {
            max_short: [1024, 512, 256, 256, 128, 64, 32, 16],
            crt_from: None,
            host_below: Some(GPU_HOST_BELOW),
            hgcd_base: None,
            long_division: None,
        }
    }

    /// Plain at every size (and never the CRT route).
    ///
    /// ```
    /// use fermat::poly::Crossover;
    ///
    /// assert!(Crossover::always().is_plain(1 << 20, 1 << 20));
    /// assert!(!Crossover::never().is_plain(1, 1));
    /// ```
    pub const fn always() -> Crossover {
        Crossover {
            max_short: [usize::MAX; RATIOS],
            crt_from: None,
            host_below: None,
            hgcd_base: None,
            long_division: None,
        }
    }

    /// Never plain: the field's FFT-based products at every size (never the CRT route; see
    /// [`always`](Self::always)).
    ///
    /// ```
    /// use fermat::poly::Crossover;
    ///
    /// let c = Crossover::never();
    /// assert!(!c.is_plain(1, 1) && !c.is_plain(1 << 20, 2));
    /// assert_eq!(c.crt_from, None);
    /// ```
    pub const fn never() -> Crossover {
        Crossover {
            max_short: [0; RATIOS],
            crt_from: None,
            host_below: None,
            hgcd_base: None,
            long_division: None,
        }
    }

    /// The ratio class of a product: ⌊log2(long/short)⌋, at most `RATIOS − 1`.
    ///
    /// ```
    /// use fermat::poly::Crossover;
    ///
    /// assert_eq!(Crossover::ratio(1000, 1000), 0);
    /// assert_eq!(Crossover::ratio(64, 1 << 10), 4);
    /// assert_eq!(Crossover::ratio(1 << 20, 2), 7); // 128 or more times longer
    /// ```
    pub fn ratio(len_a: usize, len_b: usize) -> usize {
        let (short, long) = (len_a.min(len_b).max(1), len_a.max(len_b).max(1));
        ((long / short).ilog2() as usize).min(RATIOS - 1)
    }

    /// This crossover with products of at least `len` coefficients over SRGFNs by the CRT
    /// route (`None`: never).
    ///
    /// ```
    /// use fermat::poly::Crossover;
    ///
    /// let c = Crossover::never().with_crt_from(Some(1 << 12));
    /// assert_eq!(c.crt_from, Some(4096));
    /// ```
    pub const fn with_crt_from(mut self, len: Option<usize>) -> Crossover {
        self.crt_from = len;
        self
    }

    /// The degree below which the half-gcd takes Euclid's steps one by one:
    /// [`Crossover::hgcd_base`], else [`HGCD_BASE`], and never below [`HGCD_MIN_BASE`].
    ///
    /// ```
    /// use fermat::poly::{Crossover, HGCD_BASE, HGCD_MIN_BASE};
    ///
    /// assert_eq!(Crossover::cpu().half_gcd_base(), HGCD_BASE);
    /// let tuned = Crossover { hgcd_base: Some(256), ..Crossover::cpu() };
    /// assert_eq!(tuned.half_gcd_base(), 256);
    /// let corrupt = Crossover { hgcd_base: Some(0), ..Crossover::cpu() };
    /// assert_eq!(corrupt.half_gcd_base(), HGCD_MIN_BASE);
    /// ```
    pub fn half_gcd_base(&self) -> usize {
        self.hgcd_base.unwrap_or(HGCD_BASE).max(HGCD_MIN_BASE)
    }

    /// The longest quotient or divisor of a long division on the CPU:
    /// [`Crossover::long_division`], else [`LONG_DIVISION`], and at least 1 (a constant
    /// divisor or a quotient of one coefficient is always a long division).
    ///
    /// ```
    /// use fermat::poly::{Crossover, LONG_DIVISION};
    ///
    /// assert_eq!(Crossover::cpu().long_division_limit(), LONG_DIVISION);
    /// let tuned = Crossover { long_division: Some(64), ..Crossover::cpu() };
    /// assert_eq!(tuned.long_division_limit(), 64);
    /// ```
    pub fn long_division_limit(&self) -> usize {
        self.long_division.unwrap_or(LONG_DIVISION).max(1)
    }

    /// Whether the product of operands of `len_a` and `len_b` coefficients is plain: the
    /// shorter has at most as many as this crossover allows at their
    /// [`ratio`](Self::ratio) (see [`cpu`](Self::cpu) and [`gpu`](Self::gpu)).
    pub fn is_plain(&self, len_a: usize, len_b: usize) -> bool {
        len_a.min(len_b) <= self.max_short[Crossover::ratio(len_a, len_b)]
    }
}
/// Products of at most this many coefficients take one cyclic product of the next power
/// of two (a split saves little there).
const SPLIT_MIN: u64 = 64;
/// The most terms the passes of a split product sum per coefficient (n/m): a smaller
/// product of at least n/32 points costs a few percent of the larger one, and keeps the
/// passes' threads many and their loops short (with m = 2 a product of 2^21 + 1
/// coefficients spent 188 ms in two threads' loops of 2^20 terms, on an H200).
const SPLIT_TERMS: u64 = 32;
/// The smallest cyclic product of the blocks of an unbalanced product: blocks of a few
/// thousand coefficients keep each block's transform in one pass and the batch short.
const BLOCK_POINTS: u64 = 1 << 12;
/// The most blocks of one batch (a launch's grid rows).
const MAX_BLOCKS: u64 = 65_535;

impl ProductPlan {
    /// Plans the product of operands of `len_a` and `len_b` coefficients over a field of
    /// 2-adicity `two_adicity`, for the GPU (`gpu`) or the CPU, with its default
    /// [`Crossover`].
    ///
    /// Errors: [`Error::ProductTooLong`] when the product needs a transform longer than
    /// the 2-adicity allows.
    ///
    /// ```
    /// use fermat::poly::{Algorithm, ProductPlan};
    ///
    /// let plan = ProductPlan::new(4096, 4097, 26, false)?;
    /// assert_eq!((plan.len(), plan.is_empty()), (8192, false));
    /// assert_eq!(plan.algorithm, Algorithm::Cyclic { n: 8192 }); // one cyclic product
    /// assert!(ProductPlan::new(0, 5, 26, false)?.is_empty()); // a zero operand
    /// assert!(ProductPlan::new(1 << 20, 1 << 20, 20, false).is_err()); // 2^21 points
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(len_a: usize, len_b: usize, two_adicity: u32, gpu: bool) -> Result<Self, Error> {
        let crossover = if gpu {
            Crossover::gpu()
        } else {
            Crossover::cpu()
        };
        Self::with_crossover(len_a, len_b, two_adicity, gpu, &crossover)
    }

    /// [`new`](Self::new) with plain products where `crossover` says.
    ///
    /// ```
    /// use fermat::poly::{Algorithm, Crossover, ProductPlan};
    ///
    /// let plain = ProductPlan::with_crossover(100, 100, 26, true, &Crossover::gpu())?;
    /// assert_eq!(plain.algorithm, Algorithm::Plain);
    /// let fft = ProductPlan::with_crossover(100, 100, 26, true, &Crossover::never())?;
    /// assert_eq!(fft.algorithm, Algorithm::Cyclic { n: 256 });
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn with_crossover(
        len_a: usize,
        len_b: usize,
        two_adicity: u32,
        gpu: bool,
        crossover: &Crossover,
    ) -> Result<Self, Error> {
        let algorithm = algorithm(len_a, len_b, two_adicity, gpu, crossover)?;
        Ok(ProductPlan {
            len_a,
            len_b,
            algorithm,
        })
    }

    /// Coefficients of the product (0 when an operand is zero; see [`new`](Self::new)).
    pub fn len(&self) -> usize {
        if self.len_a == 0 || self.len_b == 0 {
            0
        } else {
            self.len_a + self.len_b - 1
        }
    }

    /// Whether the product is zero (see [`new`](Self::new)).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sizes of the cyclic products, largest first.
    ///
    /// ```
    /// use fermat::poly::ProductPlan;
    ///
    /// assert_eq!(ProductPlan::new(65537, 65537, 26, true)?.transform_sizes(), [1 << 17, 1 << 12]);
    /// assert!(ProductPlan::new(4, 4, 26, false)?.transform_sizes().is_empty()); // schoolbook
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn transform_sizes(&self) -> Vec<u64> {
        match self.algorithm {
            Algorithm::Zero | Algorithm::Schoolbook | Algorithm::Plain => Vec::new(),
            Algorithm::Cyclic { n } | Algorithm::Blocks { n, .. } => vec![n],
            Algorithm::Split { n, m } => vec![n, m],
        }
    }
}

impl std::fmt::Display for ProductPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let points = |n: u64| format!("2^{}", n.trailing_zeros());
        match self.algorithm {
            Algorithm::Zero => write!(f, "zero (an operand is zero)"),
            Algorithm::Schoolbook => write!(f, "schoolbook"),
            Algorithm::Plain => write!(f, "plain (tiles of outputs on the GPU)"),
            Algorithm::Cyclic { n } => write!(f, "FFT, one cyclic product of {}", points(n)),
            Algorithm::Split { n, m } => write!(
                f,
                "FFT, cyclic products of {} and {} points, recombined",
                points(n),
                points(m)
            ),
            Algorithm::Blocks { n, block, count } => write!(
                f,
                "FFT, {count} blocks of {block} coefficients, cyclic products of {} points in one batch",
                points(n)
            ),
        }
    }
}

fn algorithm(
    len_a: usize,
    len_b: usize,
    two_adicity: u32,
    gpu: bool,
    crossover: &Crossover,
) -> Result<Algorithm, Error> {
    if len_a == 0 || len_b == 0 {
        return Ok(Algorithm::Zero);
    }
    let (short, long) = (len_a.min(len_b) as u64, len_a.max(len_b) as u64);
    let len = short + long - 1;
    if crossover.is_plain(len_a, len_b) {
        return Ok(if gpu {
            Algorithm::Plain
        } else {
            Algorithm::Schoolbook
        });
    }
    let max_log = two_adicity.min(62);
    let too_long = || Error::ProductTooLong {
        len_a,
        len_b,
        len,
        max: 1 << max_log,
    };
    let fits = |n: u64| n.trailing_zeros() <= max_log;
    let whole = len.next_power_of_two().max(2);
    if !fits(whole) {
        return Err(too_long());
    }
    if long >= 4 * short {
        let mut n = (2 * short).next_power_of_two().max(BLOCK_POINTS).min(whole);
        loop {
            let block = n - short + 1;
            let count = long.div_ceil(block);
            if count == 1 {
                break;
            }
            if count <= MAX_BLOCKS && fits(n) {
                return Ok(Algorithm::Blocks { n, block, count });
            }
            n *= 2;
        }
    }
    if whole == len || len <= SPLIT_MIN {
        return Ok(Algorithm::Cyclic { n: whole });
    }
    let n = whole / 2;
    // The recombination sums n/m terms per coefficient of the smaller product, each in a
    // thread of its own: at most SPLIT_TERMS of them keep every thread's share short.
    let m = (len - n).next_power_of_two().max(n / SPLIT_TERMS).max(2);
    // The twist is a primitive 2n-th root of unity (2n = whole points exist); the larger
    // cyclic product takes each operand whole.
    if m < n && long <= n {
        Ok(Algorithm::Split { n, m })
    } else {
        Ok(Algorithm::Cyclic { n: whole })
    }
}

/// The cyclic products a plan runs on the CPU, by size.
pub(crate) trait Cyclic<F: HostField> {
    /// The cyclic product of `n` points.
    fn convolution(&self, n: u64) -> Result<std::sync::Arc<Convolution<F>>, Error>;

    /// The fold and recombination tables of a split product of n + m points.
    fn split_tables(&self, n: u64, m: u64) -> Result<std::sync::Arc<SplitTables<F>>, Error>;
}

impl<F: HostField> super::PolyRing<F> {
    /// Builds (on a GPU: compiles) the transforms and passes a product of `len_a` by
    /// `len_b` coefficients runs, ahead of it, so that the rings of many primes compile
    /// in parallel (NVRTC runs on the host) rather than one by one in their first
    /// products.
    pub(crate) fn prepare(&self, len_a: usize, len_b: usize) -> Result<(), Error> {
        let plan = self.product_plan(len_a, len_b)?;
        for n in plan.transform_sizes() {
            self.convolution(n)?;
        }
        if self.device().is_ok() && !plan.is_empty() {
            self.passes()?;
        }
        Ok(())
    }
}

/// The fold and recombination tables of a split product, kept by the ring: computing them
/// takes a root of unity and a pass over the powers, more than the passes themselves.
pub(crate) struct SplitTables<F: HostField> {
    pub(crate) fold: Vec<F::Elem>,
    pub(crate) recombine: Vec<F::Elem>,
}

impl<F: HostField> SplitTables<F> {
    /// The tables for a split product of n + m points over `field`.
    pub(crate) fn new(field: &F, n: u64, m: u64) -> Result<Self, Error> {
        let theta = field.root_of_unity(2 * n)?;
        let terms = n / m;
        Ok(SplitTables {
            fold: ProductPass::Fold.table(field, &theta, m, terms),
            recombine: ProductPass::Recombine.table(field, &theta, m, terms),
        })
    }
}

/// Runs `plan` on the CPU: the product of `a` and `b` (`b = None`: of `a` with itself).
pub(crate) fn mul_host<F: HostField>(
    field: &F,
    plan: &ProductPlan,
    convolutions: &impl Cyclic<F>,
    a: &[F::Elem],
    b: Option<&[F::Elem]>,
) -> Result<Vec<F::Elem>, Error> {
    let mut c = Vec::new();
    mul_host_into(field, plan, convolutions, (a, b), &mut c)?;
    Ok(c)
}

/// [`mul_host`] into `c`, whose allocation is reused: a caller that keeps its vector
/// between products touches no fresh page (bench/RESULTS.md, "CPU round 4").
pub(crate) fn mul_host_into<F: HostField>(
    field: &F,
    plan: &ProductPlan,
    convolutions: &impl Cyclic<F>,
    (a, b): (&[F::Elem], Option<&[F::Elem]>),
    c: &mut Vec<F::Elem>,
) -> Result<(), Error> {
    let other = b.unwrap_or(a);
    let len = plan.len();
    c.clear();
    match plan.algorithm {
        Algorithm::Zero => Ok(()),
        Algorithm::Schoolbook | Algorithm::Plain => {
            let poly = |x: &[F::Elem]| Poly::new(field, x.to_vec());
            *c = schoolbook_mul(&poly(a), &poly(other))?.into_coeffs();
            Ok(())
        }
        Algorithm::Cyclic { n } => {
            c.resize(len, field.zero());
            convolutions.convolution(n)?.cyclic_host(field, a, b, c)
        }
        Algorithm::Split { n, m } => {
            c.resize(len, field.zero());
            convolutions
                .convolution(n)?
                .cyclic_host(field, a, b, &mut c[..n as usize])?;
            let tables = convolutions.split_tables(n, m)?;
            let folded = |x: &[F::Elem]| {
                let mut out = vec![field.zero(); m as usize];
                fold(field, &tables.fold, x, &mut out);
                out
            };
            let fa = folded(a);
            let fb = b.map(folded);
            let mut r = vec![field.zero(); m as usize];
            convolutions
                .convolution(m)?
                .cyclic_host(field, &fa, fb.as_deref(), &mut r)?;
            recombine(field, &tables.recombine, &r, c);
            Ok(())
        }
        Algorithm::Blocks { n, block, count } => {
            let (long, short) = if a.len() >= other.len() {
                (a, other)
            } else {
                (other, a)
            };
            let conv = convolutions.convolution(n)?;
            let n = n as usize;
            let mut r = vec![field.zero(); count as usize * n];
            for (chunk, out) in long.chunks(block as usize).zip(r.chunks_mut(n)) {
                conv.cyclic_host(field, chunk, Some(short), out)?;
            }
            c.resize(len, field.zero());
            overlap_add(field, &r, n, block as usize, c);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(a: usize, b: usize) -> Algorithm {
        ProductPlan::new(a, b, 26, true).unwrap().algorithm
    }

    #[test]
    fn lengths_just_above_powers_of_two_split() {
        assert_eq!(plan(1 << 16, 1 << 16), Algorithm::Cyclic { n: 1 << 17 });
        assert_eq!(
            plan((1 << 16) + 1, (1 << 16) + 1),
            Algorithm::Split {
                n: 1 << 17,
                m: 1 << 12
            }
        );
        // 1.25·2^16: 2.5·2^16 − 1 coefficients, 2^17 + 2^15 points.
        assert_eq!(
            plan(5 << 14, 5 << 14),
            Algorithm::Split {
                n: 1 << 17,
                m: 1 << 15
            }
        );
        // 1.5·2^16: 2^17 + 2^16 points.
        assert_eq!(
            plan(3 << 15, 3 << 15),
            Algorithm::Split {
                n: 1 << 17,
                m: 1 << 16
            }
        );
        // Close to the next power of two: one product of it.
        assert_eq!(plan(127 << 10, 127 << 10), Algorithm::Cyclic { n: 1 << 18 });
        // Short products are plain on the GPU; without plain ones, small powers of two.
        assert_eq!(plan(20, 20), Algorithm::Plain);
        let fft = ProductPlan::with_crossover(20, 20, 26, true, &Crossover::never()).unwrap();
        assert_eq!(fft.algorithm, Algorithm::Cyclic { n: 64 });
    }

    #[test]
    fn unbalanced_operands_take_blocks_and_small_ones_the_schoolbook() {
        let Algorithm::Blocks { n, block, count } = plan(1 << 20, 64) else {
            panic!("{:?}", plan(1 << 20, 64))
        };
        assert_eq!((n, block), (4096, 4096 - 63));
        assert_eq!(count, (1u64 << 20).div_ceil(block));
        assert_eq!(plan(0, 5), Algorithm::Zero);
        assert_eq!(
            ProductPlan::new(5, 1000, 26, false).unwrap().algorithm,
            Algorithm::Schoolbook
        );
    }

    #[test]
    fn products_beyond_the_two_adicity_are_typed_errors() {
        // 2^13 + 2^13 − 1 coefficients need 2^14 points; a 2-adicity of 13 has 2^13.
        let err = ProductPlan::new(1 << 13, 1 << 13, 13, true).unwrap_err();
        assert!(
            matches!(
                err,
                Error::ProductTooLong {
                    len: 16383,
                    max: 8192,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("8192"), "{err}");
        // At the limit itself, the split's twist (a primitive 2^14-th root) exists.
        assert_eq!(
            ProductPlan::new(4097, 4097, 14, true).unwrap().algorithm,
            Algorithm::Split {
                n: 1 << 13,
                m: 1 << 8
            }
        );
    }
}
