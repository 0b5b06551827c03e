//! Euclid's algorithm on chip: one thread block runs a whole remainder sequence, printed
//! through the typed CUDA AST.
//!
//! The plain-arithmetic paper's GPU Euclid (§5 of Haque and Moreno Maza) runs a few
//! division steps per kernel call and goes back to global memory between calls. Here the
//! two working polynomials stay in the block's shared memory for the whole sequence (a
//! pair of degree-10⁴ polynomials over a 32-bit prime is 80 KB of the 227 KB a Hopper
//! block may take), so a gcd is one launch, and a batch of gcds one launch with a block
//! per pair.
//!
//! A step cancels the top coefficient of the longer remainder u by the shorter v without
//! inverting anything: u ← lc(v)·u − lc(u)·x^k·v, k = deg u − deg v. Scaling by a nonzero
//! constant keeps the gcd, and an inverse per remainder would put a chain of dependent
//! multiplications (an exponentiation) on the critical path of every step. The block
//! then finds the new degree (a scan from the top that every thread runs alike, one read
//! in a normal sequence; degrees may drop by more than one), and swaps the roles of u and
//! v when u has become the shorter. Each step is two barriers and one pass over u; where
//! the sequence is normal (degrees dropping by one), one pass takes two steps. The
//! sequence ends when v is a constant: zero (the gcd is u, up to a constant) or not (the
//! gcd is 1). The kernel writes that last remainder as it is, not monic, and its length;
//! the caller scales it.
//!
//! [`euclid_gcd`] runs the same steps in Rust: the host harness
//! (`codegen/tests/on_host/euclid_host.rs`) checks the kernel against it element for element.
//!
//! ```
//! use fermat_codegen::euclid::EuclidPass;
//! let k = EuclidPass::Gcd.kernel();
//! assert!(k.to_string().contains("fe_t* smem = (fe_t*)fermat_dynamic_shared;"));
//! ```

mod lehmer;

pub use lehmer::{
    lehmer_rounds, lehmer_rounds_carrying, lehmer_rounds_logging, LehmerCarried, LehmerEnd,
    LehmerState, LehmerStatus, LehmerStep, WARP_HALF, WARP_MATRIX_LEN,
};

use crate::contract::Arg;
use crate::cuda::{fe, Builtin, Dim, Expr, Kernel, SharedArray, Stmt, Type};
use fermat_dsl::field::Field;

/// A kernel of the on-chip Euclidean algorithm.
///
/// ```
/// use fermat_codegen::euclid::EuclidPass;
///
/// // Every kernel prints under its own name, with the arguments of its contract.
/// for pass in EuclidPass::ALL {
///     let text = pass.kernel().to_string();
///     assert!(text.contains(&format!("{}(", pass.name())), "{}", pass.name());
///     assert!(pass.args().iter().all(|a| text.contains(a.name())));
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EuclidPass {
    /// Block x: the last nonzero remainder of the sequence of pair x (a = `src` + x·`src_dist`
    /// of `src_len` coefficients, b = `fac` + x·`fac_dist` of `fac_len`), not monic, written
    /// to `dst` + x·`dst_dist`, its length to `lens[x]`; 1 and a nonzero constant when the
    /// pair is coprime, 0 when both are zero. Top coefficients may be zero. Dynamic shared
    /// memory: `src_len` + `fac_len` elements.
    Gcd,
    /// One block: a Lehmer round's steps on the top 2·`half` + 1 coefficients of the pair
    /// `round` mod 2 of `work`, the cofactor matrix into `mat`, the next pair's lengths
    /// into `state` ([`LehmerState`]); a pair that fits the window runs to its end, its last
    /// remainder into `dst`. See [`lehmer`](self) and [`lehmer_rounds`]. Dynamic shared
    /// memory: [`EuclidPass::shared_bytes`].
    Window,
    /// [`EuclidPass::Window`] keeping a trail for the resultant: each division the window
    /// takes logged into `leads` and `steps` ([`LehmerStep`]; [`lehmer_rounds_logging`]),
    /// their count into `state` ([`LehmerState::STEPS`]). A kernel of its own, so that the
    /// gcd's window keeps its registers.
    TrailWindow,
    /// Any grid: the pair of round `round` + 1 = the window's matrix times the pair of
    /// round `round`, unless the rounds ended or stalled; a grid of two rows of blocks
    /// does the same to the pair of a's cofactors in `cofs` (y = 1), so that the pair of
    /// every round is (s·a + t·b, s′·a + t′·b) with s, s′ in `cofs`.
    Apply,
}

/// The arguments of [`EuclidPass::Window`], in order.
///
/// ```
/// use fermat_codegen::euclid::{EuclidPass, WINDOW_ARGS};
///
/// let names: Vec<&str> = WINDOW_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["work", "cap", "mat", "half", "round", "state", "dst", "dst_stride"]);
/// let text = EuclidPass::Window.kernel().to_string();
/// assert!(text.contains("euclid_window(fe_word_t* __restrict__ work, size_t cap,"));
/// ```
pub const WINDOW_ARGS: [Arg; 8] = [
    Arg::Work,
    Arg::WorkCapacity,
    Arg::Matrix,
    Arg::Half,
    Arg::Round,
    Arg::State,
    Arg::Destination,
    Arg::DestinationStride,
];

/// The arguments of [`EuclidPass::TrailWindow`], in order: [`WINDOW_ARGS`], then the
/// trail's [`Arg::Leads`] and [`Arg::Steps`].
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::euclid::{EuclidPass, TRAIL_WINDOW_ARGS, WINDOW_ARGS};
///
/// assert_eq!(TRAIL_WINDOW_ARGS[..8], WINDOW_ARGS);
/// assert_eq!(TRAIL_WINDOW_ARGS[8..], [Arg::Leads, Arg::Steps]);
/// assert_eq!(EuclidPass::TrailWindow.args(), &TRAIL_WINDOW_ARGS);
/// ```
pub const TRAIL_WINDOW_ARGS: [Arg; 10] = Arg::list(&WINDOW_ARGS, &[Arg::Leads, Arg::Steps]);

/// The arguments of [`EuclidPass::Apply`], in order: the window's first six (the pair,
/// the matrix and the state they share), then a's cofactors.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::euclid::{APPLY_ARGS, WINDOW_ARGS};
///
/// assert_eq!(APPLY_ARGS[..6], WINDOW_ARGS[..6]);
/// assert_eq!((APPLY_ARGS[6], APPLY_ARGS[6].name()), (Arg::Cofactors, "cofs"));
/// ```
pub const APPLY_ARGS: [Arg; 7] = [
    Arg::Work,
    Arg::WorkCapacity,
    Arg::Matrix,
    Arg::Half,
    Arg::Round,
    Arg::State,
    Arg::Cofactors,
];

/// Threads of a block of [`EuclidPass::Apply`]: the output coefficients of one tile. With
/// its sums reduced once, the pass is short enough that spreading a pair of 10^4 over
/// twice the multiprocessors pays: on an H200, 128 took 469762049's 10^4 gcd from 5.15 to
/// 5.05 ms and 2^16 from 34.5 to 34.3 against 256, and 64 was no faster (bench/RESULTS.md,
/// "GCD round 10").
///
/// ```
/// use fermat_codegen::euclid::{EuclidPass, APPLY_THREADS};
///
/// // Whatever the window's half: a tile of outputs per block.
/// assert_eq!(EuclidPass::Apply.threads((16, 0)), APPLY_THREADS);
/// assert_eq!(EuclidPass::Apply.threads((1024, 0)), 128);
/// let text = EuclidPass::Apply.kernel().to_string();
/// assert!(text.contains("__launch_bounds__(128) euclid_apply("));
/// ```
pub const APPLY_THREADS: u32 = 128;

/// Whether the window of a Lehmer round ([`EuclidPass::Window`]) takes two normal steps in
/// one pass for elements of `element_bytes`: where an element is one 32-bit word (the
/// kernel's test of the prelude's `FE_WORD_BITS`), whose products are a few instructions;
/// for wider elements the arithmetic, not the chain of one step, bounds the window
/// (bench/RESULTS.md, "GCD round 6"). The rounds' defaults follow it.
///
/// ```
/// use fermat_codegen::euclid::window_takes_double_steps;
/// assert!(window_takes_double_steps(4) && !window_takes_double_steps(8));
/// ```
pub const fn window_takes_double_steps(element_bytes: u64) -> bool {
    element_bytes == 4
}

/// The arguments of [`EuclidPass::Gcd`], in order: each operand's vector, length, stride
/// and distance between pairs, the destination's, and the lengths of the results.
///
/// ```
/// use fermat_codegen::euclid::GCD_ARGS;
///
/// let names: Vec<&str> = GCD_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names[..4], ["src", "src_len", "src_stride", "src_dist"]);
/// assert_eq!(names[4..8], ["fac", "fac_len", "fac_stride", "fac_dist"]);
/// assert_eq!(names[8..], ["dst", "dst_stride", "dst_dist", "lens"]);
/// ```
pub const GCD_ARGS: [Arg; 12] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::SourceDistance,
    Arg::Factor,
    Arg::FactorLength,
    Arg::FactorStride,
    Arg::FactorDistance,
    Arg::Destination,
    Arg::DestinationStride,
    Arg::DestinationDistance,
    Arg::Lengths,
];

/// The most threads a block of [`EuclidPass::Gcd`] may have (its launch bound); any
/// number up to it gives the same result.
///
/// ```
/// use fermat_codegen::euclid::{EuclidPass, GCD_MAX_THREADS};
///
/// // A warp per 256 coefficients of the longer operand, up to the bound.
/// assert_eq!(EuclidPass::Gcd.threads((300, 10)), 64);
/// assert_eq!(EuclidPass::Gcd.threads((10_000, 9_000)), GCD_MAX_THREADS);
/// assert!(EuclidPass::Gcd.kernel().to_string().contains("__launch_bounds__(1024) euclid_gcd("));
/// ```
pub const GCD_MAX_THREADS: u32 = 1024;

/// The launch bound of the Lehmer rounds' windows ([`EuclidPass::Window`],
/// [`EuclidPass::TrailWindow`]): a window of half 64 takes 352 threads, and wider windows
/// take more coefficients per thread (the gcd's default half 128 for primes below 2^32
/// would take 608 and shares 16 warps), so the bound is 512, not 1024, and the windows
/// get up to 128 registers instead of 64. Under 64, the trail window spilled
/// for primes below 2^32 (79 registers without) and the resultant's rounds ran 35 %
/// slower than the gcd's; the SRGFNs' windows spilled too (P3: 128 without;
/// bench/RESULTS.md, "GCD round 8").
///
/// ```
/// use fermat_codegen::euclid::{EuclidPass, WINDOW_MAX_THREADS};
///
/// assert_eq!(EuclidPass::Window.threads((128, 0)), WINDOW_MAX_THREADS); // 608 wanted
/// let text = EuclidPass::TrailWindow.kernel().to_string();
/// assert!(text.contains("__launch_bounds__(512) euclid_window_trail("));
/// ```
pub const WINDOW_MAX_THREADS: u32 = 512;

impl EuclidPass {
    /// Every kernel: those a CUDA file of the passes holds.
    ///
    /// ```
    /// use fermat_codegen::euclid::EuclidPass;
    ///
    /// let names: Vec<&str> = EuclidPass::ALL.iter().map(|p| p.name()).collect();
    /// assert_eq!(names, ["euclid_gcd", "euclid_window", "euclid_apply", "euclid_window_trail"]);
    /// ```
    pub const ALL: [EuclidPass; 4] = [
        EuclidPass::Gcd,
        EuclidPass::Window,
        EuclidPass::Apply,
        EuclidPass::TrailWindow,
    ];

    /// The kernel's name, by which the runtime finds it in the compiled module.
    ///
    /// ```
    /// use fermat_codegen::euclid::EuclidPass;
    ///
    /// assert_eq!(EuclidPass::TrailWindow.name(), "euclid_window_trail");
    /// assert_eq!(EuclidPass::TrailWindow.kernel().name, "euclid_window_trail");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            EuclidPass::Gcd => "euclid_gcd",
            EuclidPass::Window => "euclid_window",
            EuclidPass::TrailWindow => "euclid_window_trail",
            EuclidPass::Apply => "euclid_apply",
        }
    }

    /// The kernel's arguments, in order: the kernel's parameters, one each.
    ///
    /// ```
    /// use fermat_codegen::euclid::{EuclidPass, APPLY_ARGS};
    ///
    /// let pass = EuclidPass::Apply;
    /// assert_eq!(pass.args(), &APPLY_ARGS);
    /// let params: Vec<String> = pass.kernel().params.into_iter().map(|p| p.name).collect();
    /// assert_eq!(params, pass.args().iter().map(|a| a.name()).collect::<Vec<_>>());
    /// ```
    pub fn args(self) -> &'static [Arg] {
        match self {
            EuclidPass::Gcd => &GCD_ARGS,
            EuclidPass::Window => &WINDOW_ARGS,
            EuclidPass::TrailWindow => &TRAIL_WINDOW_ARGS,
            EuclidPass::Apply => &APPLY_ARGS,
        }
    }

    /// Dynamic shared memory of one block, in bytes, `element_bytes` per element: for
    /// [`EuclidPass::Gcd`] both operands of lengths `lens`; for the Lehmer rounds, with
    /// `lens` = (`half`, threads per block), the window's four remainders of 2·`half` + 1
    /// (u, v and the next two) and eight cofactors of `half` + 1 ([`EuclidPass::Window`],
    /// which for elements of one 32-bit word keeps the four entries of its warp's matrix
    /// beside them, [`WARP_MATRIX_LEN`] each), or
    /// the four cofactors and two tiles of threads + `half` ([`EuclidPass::Apply`]).
    ///
    /// ```
    /// use fermat_codegen::euclid::EuclidPass;
    ///
    /// // Two operands of 10^4 coefficients over a 32-bit prime: 80 KB.
    /// assert_eq!(EuclidPass::Gcd.shared_bytes((10_000, 10_000), 4), 80_000);
    /// // Half 64: 4 rows of 129 and 8 of 65, and for 32-bit elements the warp's matrix.
    /// assert_eq!(EuclidPass::TrailWindow.shared_bytes((64, 0), 4), (4 * 129 + 8 * 65) * 4);
    /// assert_eq!(EuclidPass::Window.shared_bytes((64, 0), 4), (4 * 129 + 8 * 65 + 64) * 4);
    /// assert_eq!(EuclidPass::Apply.shared_bytes((64, 128), 8), (4 * 65 + 2 * 192) * 8);
    /// ```
    pub fn shared_bytes(self, lens: (u64, u64), element_bytes: u64) -> u64 {
        let elements = match self {
            EuclidPass::Gcd => lens.0 + lens.1,
            EuclidPass::Window | EuclidPass::TrailWindow => {
                let warp_matrix = if self == EuclidPass::Window && element_bytes == 4 {
                    4 * WARP_MATRIX_LEN
                } else {
                    0
                };
                4 * (2 * lens.0 + 1) + 8 * (lens.0 + 1) + warp_matrix
            }
            EuclidPass::Apply => 4 * (lens.0 + 1) + 2 * (lens.1 + lens.0),
        };
        elements * element_bytes
    }

    /// Threads per block. [`EuclidPass::Gcd`], for operands of lengths `lens`: a warp per
    /// 256 coefficients of the longer (each thread takes eight per step), from one warp
    /// to [`GCD_MAX_THREADS`]. [`EuclidPass::Window`], with `lens.0` = `half`: warps of
    /// their own for each of the window's rows, a thread per coefficient — the remainders'
    /// 2·`half` + 1 and the two cofactors' `half` + 1 each, 31 a warp (one pass of a step
    /// is one coefficient of one row per thread, and each warp's lane 0 passes the one
    /// below its 31 to lane 1) —, up to [`WINDOW_MAX_THREADS`], and
    /// [`EuclidPass::TrailWindow`] alike. [`EuclidPass::Apply`]: [`APPLY_THREADS`].
    ///
    /// ```
    /// use fermat_codegen::euclid::EuclidPass;
    /// assert_eq!(EuclidPass::Window.threads((64, 0)), 352); // 5 + 3 + 3 warps
    /// assert_eq!(EuclidPass::TrailWindow.threads((16, 0)), 128); // 2 + 1 + 1
    /// assert_eq!(EuclidPass::Window.threads((1, 0)), 96);
    /// assert_eq!(EuclidPass::Window.threads((1024, 0)), 512);
    /// ```
    pub fn threads(self, lens: (u64, u64)) -> u32 {
        let (warps, most) = match self {
            EuclidPass::Gcd => (lens.0.max(lens.1).div_ceil(256), GCD_MAX_THREADS),
            EuclidPass::Window | EuclidPass::TrailWindow => (
                (2 * lens.0 + 1).div_ceil(31) + 2 * (lens.0 + 1).div_ceil(31),
                WINDOW_MAX_THREADS,
            ),
            EuclidPass::Apply => return APPLY_THREADS,
        };
        (warps.clamp(1, u64::from(most / 32)) * 32) as u32
    }

    /// The kernel, printed as CUDA C by its `Display`: every pass takes its operands'
    /// elements in dynamic shared memory, sized at launch by [`EuclidPass::shared_bytes`].
    ///
    /// ```
    /// use fermat_codegen::euclid::EuclidPass;
    ///
    /// let k = EuclidPass::Window.kernel();
    /// k.check()?;
    /// let text = k.to_string();
    /// assert!(text.contains("__global__ void __launch_bounds__(512) euclid_window("));
    /// assert!(text.contains("fe_t* smem = (fe_t*)fermat_dynamic_shared;"));
    /// # Ok::<(), fermat_codegen::CodegenError>(())
    /// ```
    pub fn kernel(self) -> Kernel {
        let params = self.args().iter().map(|a| a.param()).collect();
        match self {
            EuclidPass::Gcd => Kernel::new(self.name(), params, gcd_body())
                .doc("dst[x] = the last nonzero remainder of Euclid's sequence of (src[x], fac[x]), not monic; lens[x] its length")
                .doc("one block per pair, both polynomials in shared memory, u <- lc(v) u - lc(u) x^k v per step")
                .launch_bounds(GCD_MAX_THREADS)
                .dynamic_shared(Type::Fe, "smem"),
            EuclidPass::Window => Kernel::new(self.name(), params, lehmer::window_body(false))
                .doc("a Lehmer round: Euclid's steps on the top 2 half + 1 coefficients of the pair round % 2 of work,")
                .doc("while deg v >= deg u - half; their cofactor matrix into mat; a pair that fits runs to its end into dst;")
                .doc("for 32-bit elements warp 0 takes the steps on the window's top 32, the block their matrix")
                .launch_bounds(WINDOW_MAX_THREADS)
                .shared(SharedArray::new(Type::U32, lehmer::WARP_LENS, 8))
                .dynamic_shared(Type::Fe, "smem"),
            EuclidPass::TrailWindow => Kernel::new(self.name(), params, lehmer::window_body(true))
                .doc("euclid_window keeping a trail: each division's divisor (lc, degree, eliminations) into leads and steps,")
                .doc("their count into state")
                .launch_bounds(WINDOW_MAX_THREADS)
                .dynamic_shared(Type::Fe, "smem"),
            EuclidPass::Apply => Kernel::new(self.name(), params, lehmer::apply_body())
                .doc("the pair (round + 1) % 2 of work = mat times the pair round % 2, a tile of outputs per block;")
                .doc("blocks of y = 1 alike on a's cofactors in cofs")
                .launch_bounds(APPLY_THREADS)
                .dynamic_shared(Type::Fe, "smem"),
        }
    }
}

pub(super) fn var(name: &str) -> Expr {
    Expr::var(name)
}

/// The loops over coefficients: 32-bit indices (a pair's length is bounded by shared
/// memory), half the integer instructions of 64-bit ones in the loops that bound the kernel.
pub(super) fn block_stride(end: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::block_stride_loop("i", Type::U32, end, body)
}

/// A pointer into shared memory the kernel swaps (so not `__restrict__`).
pub(super) fn shared_ptr() -> Type {
    Type::Ptr {
        to: Box::new(Type::Fe),
        is_const: false,
        restrict: false,
    }
}

/// `while (len > 0 && p[len − 1] == 0) len -= 1;`: every thread reads the same words.
pub(super) fn normalise(p: &str, len: &str) -> Stmt {
    Stmt::While {
        cond: var(len)
            .gt(Expr::u64(0))
            .and_also(fe::eq(var(p).at(var(len) - Expr::u64(1)), fe::zero())),
        body: vec![Stmt::assign_op(
            var(len),
            crate::cuda::BinOp::Sub,
            Expr::u32(1),
        )],
    }
}

/// `if (lu < lv) swap (u, lu) and (v, lv)`: every thread alike.
fn order() -> Stmt {
    Stmt::if_(
        var("lu").lt(var("lv")),
        vec![
            Stmt::let_(shared_ptr(), "w", var("u")),
            Stmt::assign(var("u"), var("v")),
            Stmt::assign(var("v"), var("w")),
            Stmt::let_(Type::U32, "lw", var("lu")),
            Stmt::assign(var("lu"), var("lv")),
            Stmt::assign(var("lv"), var("lw")),
        ],
    )
}

/// The body of [`EuclidPass::Gcd`]: block x stages pair x in shared memory, takes Euclid's
/// steps ([`gcd_step`]) until v is a constant or zero, and writes the last nonzero
/// remainder and its length.
fn gcd_body() -> Vec<Stmt> {
    let pair = Expr::Builtin(Builtin::BlockIdx, Dim::X).cast(Type::SizeT);
    let stage = |to: &str, from: &str, len: &str, stride: &str| {
        block_stride(
            var(len),
            vec![Stmt::store(
                var(to),
                var("i"),
                fe::load(var(from), var("i"), var(stride)),
            )],
        )
    };
    vec![
        Stmt::const_(Type::SizeT, "x", pair),
        Stmt::let_(
            Type::const_ptr(Type::Word),
            "a",
            var("src") + var("x") * var("src_dist"),
        ),
        Stmt::let_(
            Type::const_ptr(Type::Word),
            "b",
            var("fac") + var("x") * var("fac_dist"),
        ),
        Stmt::let_(
            Type::ptr(Type::Word),
            "out",
            var("dst") + var("x") * var("dst_dist"),
        ),
        Stmt::let_(shared_ptr(), "u", var("smem")),
        Stmt::let_(shared_ptr(), "v", var("smem") + var("src_len")),
        stage("u", "a", "src_len", "src_stride"),
        stage("v", "b", "fac_len", "fac_stride"),
        Stmt::SyncThreads,
        Stmt::let_(Type::U32, "lu", var("src_len").cast(Type::U32)),
        Stmt::let_(Type::U32, "lv", var("fac_len").cast(Type::U32)),
        normalise("u", "lu"),
        normalise("v", "lv"),
        order(),
        Stmt::While {
            cond: var("lv").gt(Expr::u32(1)),
            body: gcd_step(),
        },
        Stmt::comment("lu >= lv and lv <= 1: a nonzero constant divides both, or u is the gcd"),
        Stmt::if_(
            var("lv").equals(Expr::u32(1)),
            vec![
                Stmt::assign(var("u"), var("v")),
                Stmt::assign(var("lu"), Expr::u32(1)),
            ],
        ),
        block_stride(
            var("lu"),
            vec![fe::store(
                var("out"),
                var("i"),
                var("dst_stride"),
                var("u").at(var("i")),
            )],
        ),
        Stmt::if_(
            Expr::thread_idx().equals(Expr::u32(0)),
            vec![Stmt::store(
                var("lens"),
                var("x"),
                var("lu").cast(Type::U64),
            )],
        ),
    ]
}

/// One pass of [`gcd_body`]'s loop: one elimination, or two where the sequence is
/// normal, then u normalised and the pair put in order.
fn gcd_step() -> Vec<Stmt> {
    let one = || Expr::u32(1);
    let at = |p: &str, i: Expr| var(p).at(i);
    // One step: u ← α·u − β·x^k·v below the top, which cancels (α = lc v, β = lc u).
    let single = vec![
        block_stride(
            var("lu") - one(),
            vec![
                Stmt::let_(Type::Fe, "y", fe::mul_mont(at("u", var("i")), var("ta"))),
                Stmt::if_(
                    var("i").ge(var("k")),
                    vec![Stmt::assign(
                        var("y"),
                        fe::sub(
                            var("y"),
                            fe::mul_mont(at("v", var("i") - var("k")), var("tb")),
                        ),
                    )],
                ),
                Stmt::store(var("u"), var("i"), var("y")),
            ],
        ),
        Stmt::SyncThreads,
        Stmt::assign_op(var("lu"), crate::cuda::BinOp::Sub, one()),
    ];
    // Two steps in one pass where the sequence is normal (k = 1 and the first step leaves
    // u of v's degree, its top β₁ = α·u_(n−1) − β·v_(n−2) ≠ 0): u ← α²·u − αβ·x·v − β₁·v,
    // the top two coefficients cancelling. The same values as the two steps, half the
    // passes, three products per coefficient instead of four.
    let double = vec![
        block_stride(
            var("lu") - Expr::u32(2),
            vec![
                Stmt::let_(
                    Type::Fe,
                    "y",
                    fe::sub(
                        fe::mul_mont(at("u", var("i")), var("t2")),
                        fe::mul_mont(at("v", var("i")), var("t1")),
                    ),
                ),
                Stmt::if_(
                    var("i").ge(one()),
                    vec![Stmt::assign(
                        var("y"),
                        fe::sub(
                            var("y"),
                            fe::mul_mont(at("v", var("i") - one()), var("tab")),
                        ),
                    )],
                ),
                Stmt::store(var("u"), var("i"), var("y")),
            ],
        ),
        Stmt::SyncThreads,
        Stmt::assign_op(var("lu"), crate::cuda::BinOp::Sub, Expr::u32(2)),
    ];
    vec![
        Stmt::const_(Type::U32, "k", var("lu") - var("lv")),
        Stmt::const_(Type::Fe, "alpha", at("v", var("lv") - one())),
        Stmt::const_(Type::Fe, "beta", at("u", var("lu") - one())),
        Stmt::const_(
            Type::Fe,
            "beta1",
            Expr::select(
                var("k").equals(one()),
                fe::sub(
                    fe::mul(var("alpha"), at("u", var("lu") - Expr::u32(2))),
                    fe::mul(var("beta"), at("v", var("lv") - Expr::u32(2))),
                ),
                fe::zero(),
            ),
        ),
        Stmt::comment("every thread has read the tops of u and v before they are overwritten"),
        Stmt::SyncThreads,
        Stmt::if_else(
            fe::eq(var("beta1"), fe::zero()),
            [
                vec![
                    Stmt::const_(Type::Fe, "ta", fe::to_mont(var("alpha"))),
                    Stmt::const_(Type::Fe, "tb", fe::to_mont(var("beta"))),
                ],
                single,
            ]
            .concat(),
            [
                vec![
                    Stmt::const_(
                        Type::Fe,
                        "t2",
                        fe::to_mont(fe::mul(var("alpha"), var("alpha"))),
                    ),
                    Stmt::const_(
                        Type::Fe,
                        "tab",
                        fe::to_mont(fe::mul(var("alpha"), var("beta"))),
                    ),
                    Stmt::const_(Type::Fe, "t1", fe::to_mont(var("beta1"))),
                ],
                double,
            ]
            .concat(),
        ),
        normalise("u", "lu"),
        order(),
    ]
}

/// The kernel's steps in Rust: the last nonzero remainder of the sequence of (a, b) as
/// [`EuclidPass::Gcd`] computes it (not monic; `[c]` for a nonzero constant c when the
/// pair is coprime, empty when both are zero).
///
/// ```
/// use fermat_codegen::euclid::euclid_gcd;
/// use fermat_dsl::field::{Field, Fp32};
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // (x + 1)(x + 2) and (x + 1)(x + 3): the gcd is x + 1, up to a constant.
/// let g = euclid_gcd(&f, &e(&[2, 3, 1]), &e(&[3, 4, 1]));
/// assert_eq!(g.len(), 2);
/// assert_eq!(g[0], g[1]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn euclid_gcd<F: Field>(field: &F, a: &[F::Elem], b: &[F::Elem]) -> Vec<F::Elem> {
    let normal = |p: &[F::Elem]| {
        let mut len = p.len();
        while len > 0 && p[len - 1] == field.zero() {
            len -= 1;
        }
        p[..len].to_vec()
    };
    let (mut u, mut v) = (normal(a), normal(b));
    if u.len() < v.len() {
        std::mem::swap(&mut u, &mut v);
    }
    while v.len() > 1 {
        let k = u.len() - v.len();
        let (alpha, beta) = (v[v.len() - 1], u[u.len() - 1]);
        u.pop();
        for (i, y) in u.iter_mut().enumerate() {
            *y = field.mul(y, &alpha);
            if i >= k {
                *y = field.sub(y, &field.mul(&v[i - k], &beta));
            }
        }
        u = normal(&u);
        if u.len() < v.len() {
            std::mem::swap(&mut u, &mut v);
        }
    }
    if v.len() == 1 {
        v
    } else {
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::Fp32;

    #[test]
    fn the_mirror_finds_common_factors_and_coprime_pairs() {
        let f = Fp32::new(469762049).unwrap();
        let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
        // x^8 + 1 and 3x^5: coprime, a degree gap of three.
        assert_eq!(
            euclid_gcd(
                &f,
                &e(&[1, 0, 0, 0, 0, 0, 0, 0, 1]),
                &e(&[0, 0, 0, 0, 0, 3])
            )
            .len(),
            1
        );
        // (x − 1)² and x² − 1: x − 1 up to a constant, zeros at the top ignored.
        let g = euclid_gcd(&f, &e(&[1, 469762047, 1, 0]), &e(&[469762048, 0, 1]));
        assert_eq!(g.len(), 2);
        assert_eq!(g[0], f.neg(&g[1]));
        assert!(euclid_gcd(&f, &[], &e(&[0, 0])).is_empty());
        assert_eq!(euclid_gcd(&f, &[], &e(&[0, 5])), e(&[0, 5]));
    }

    #[test]
    fn the_kernel_reads_its_contract() {
        let k = EuclidPass::Gcd.kernel();
        k.check().unwrap();
        let text = k.to_string();
        for arg in GCD_ARGS {
            assert!(text.contains(arg.name()), "{}", arg.name());
        }
        assert_eq!(EuclidPass::Gcd.threads((10_000, 9_000)), 1024);
        assert_eq!(EuclidPass::Gcd.threads((10, 9)), 32);
        assert_eq!(EuclidPass::Gcd.shared_bytes((3, 2), 8), 40);
    }
}
