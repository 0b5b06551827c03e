//! Plain (schoolbook) products on the GPU: the parallelogram decomposition of Haque and
//! Moreno Maza's plain arithmetic (§3 of the paper: thread blocks over trapezoids of the
//! product's index space, partial sums reduced in parallel), printed through the typed
//! CUDA AST.
//!
//! The product's terms a_i·b_j form a parallelogram in the (t = i + j, i) plane. A block
//! takes a tile of `tile` consecutive outputs t and a chunk of at most `chunk` consecutive
//! i, stages a_i (in the field's table form, so that each term is one `fe_dot_add`: for
//! 32-bit primes an exact product added into 96 bits, reduced once per output) and the
//! b_(t−i) the tile needs in shared memory, and each thread sums the chunk's terms of its
//! output: the a_i are read by every thread at once (a broadcast), the b by
//! consecutive threads at consecutive addresses. Blocks whose tile and chunk meet no term
//! write zeros. With more than one chunk the blocks write partial sums, one row per
//! chunk, and [`PlainPass::Reduce`] adds the rows.
//!
//! Outputs start at coefficient `lo` of the product: `lo = 0` and ℓ = len a + len b − 1
//! outputs give the product, other windows the middle product (coefficients lo..lo + ℓ,
//! what Newton division needs). Products of a batch are grid rows: row y is chunk
//! y mod `terms` of product ⌊y / terms⌋, each product's vectors `dist` elements apart.
//!
//! Division builds on three more kernels: [`PlainPass::Reverse`] (the reversed polynomials
//! of Newton division), [`PlainPass::Difference`] (the remainder a − q·b, and the negated
//! correction of a Newton step of the power-series inverse) and [`PlainPass::Series`]
//! (the first steps of that inverse, in one block).
//!
//! Every per-thread loop steps by the block's size, so the kernels give the same result
//! with any number of threads — one thread per block included, which is how the host
//! harness runs them on the CPU (`codegen/tests/on_host/product_host.rs`). [`plain_mul`] runs the
//! same decomposition in Rust.
//!
//! ```
//! use fermat_codegen::plain::{PlainPass, Tile};
//! let tile = Tile::for_element_bytes(4);
//! assert_eq!((tile.outputs, tile.chunk), (256, 256));
//! let k = PlainPass::Product.kernel(tile);
//! assert!(k.to_string().contains("fe_dot_add"));
//! ```

mod host;

pub use host::{plain_mul, plain_series};

use crate::contract::Arg;
use crate::cuda::{fe, BinOp, Builtin, Dim, Expr, ForLoop, Kernel, SharedArray, Stmt, Type};

/// A kernel of plain products.
///
/// ```
/// use fermat_codegen::plain::{PlainPass, Tile};
///
/// // Every kernel checks, and prints with the launch bound it is launched with.
/// let tile = Tile::for_element_bytes(8);
/// for pass in PlainPass::ALL {
///     let k = pass.kernel(tile);
///     k.check()?;
///     let bound = format!("__launch_bounds__({}) {}(", pass.threads(tile), pass.name());
///     assert!(k.to_string().contains(&bound), "{bound}");
/// }
/// # Ok::<(), fermat_codegen::CodegenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlainPass {
    /// Row y of the grid, block x: outputs t ∈ [x·tile, (x + 1)·tile) ∩ [0, `dst_len`) of
    /// Σ_(i in chunk y mod terms) a_i·b_(lo + t − i), written to row y of `dst`.
    Product,
    /// c_t = Σ_(u < terms) rows_(q·terms + u, t) for t < `dst_len`, product q = grid row.
    Reduce,
    /// c_t = a_(len a − 1 − t) for t < `dst_len` (zero past len a): the first `dst_len`
    /// coefficients of the reversal x^(len a − 1)·a(1/x).
    Reverse,
    /// c_t = a_t − b_t for t < `dst_len`, each operand zero past its length: with an
    /// empty a, the negation of b; with an empty b, a copy of a.
    Difference,
    /// One block extends the power-series inverse g of f (`src`, zero past `src_len`)
    /// from its first `lo` coefficients, in `dst` (from none, 1/f_0 computed first, where
    /// the tile [`inverts`](Tile::inverts)), to `dst_len` ≤ [`Tile::series`]: the
    /// Newton steps from ℓ to ℓ′ = min(2ℓ, `dst_len`) with their middle products
    /// e = [f·g]_[ℓ, ℓ′) and g_[ℓ, ℓ′) = −(g·e mod x^(ℓ′ − ℓ)) computed plain, f, g and e
    /// in shared memory: one launch for steps that each took five (bench/RESULTS.md,
    /// "Division round 6").
    Series,
}

/// The arguments of [`PlainPass::Product`], in order: each operand's vector, length,
/// stride and distance between products, the destination's, then the window's first
/// output, the chunks per product and the terms per chunk.
///
/// ```
/// use fermat_codegen::plain::{PlainPass, PRODUCT_ARGS};
///
/// let names: Vec<&str> = PRODUCT_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names[..4], ["src", "src_len", "src_stride", "src_dist"]);
/// assert_eq!(names[8..12], ["dst", "dst_len", "dst_stride", "dst_dist"]);
/// assert_eq!(names[12..], ["lo", "terms", "block"]);
/// assert_eq!(PlainPass::Product.args(), &PRODUCT_ARGS);
/// ```
pub const PRODUCT_ARGS: [Arg; 15] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::SourceDistance,
    Arg::Factor,
    Arg::FactorLength,
    Arg::FactorStride,
    Arg::FactorDistance,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::DestinationDistance,
    Arg::Low,
    Arg::Terms,
    Arg::Block,
];

/// The arguments of [`PlainPass::Reduce`], in order.
///
/// ```
/// use fermat_codegen::plain::REDUCE_ARGS;
///
/// let names: Vec<&str> = REDUCE_ARGS.iter().map(|a| a.name()).collect();
/// let rows = ["src", "src_stride", "src_dist"];
/// assert_eq!(names, [&rows[..], &["dst", "dst_len", "dst_stride", "dst_dist", "terms"]].concat());
/// ```
pub const REDUCE_ARGS: [Arg; 8] = [
    Arg::Source,
    Arg::SourceStride,
    Arg::SourceDistance,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::DestinationDistance,
    Arg::Terms,
];

/// The arguments of [`PlainPass::Reverse`], in order.
///
/// ```
/// use fermat_codegen::plain::REVERSE_ARGS;
///
/// let names: Vec<&str> = REVERSE_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["src", "src_len", "src_stride", "dst", "dst_len", "dst_stride"]);
/// ```
pub const REVERSE_ARGS: [Arg; 6] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationStride,
];

/// The arguments of [`PlainPass::Difference`], in order: [`REVERSE_ARGS`] with the
/// second operand's vector, length and stride between the first's and the destination's.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::plain::{DIFFERENCE_ARGS, REVERSE_ARGS};
///
/// assert_eq!(DIFFERENCE_ARGS[..3], REVERSE_ARGS[..3]);
/// assert_eq!(DIFFERENCE_ARGS[3..6], [Arg::Factor, Arg::FactorLength, Arg::FactorStride]);
/// assert_eq!(DIFFERENCE_ARGS[6..], REVERSE_ARGS[3..]);
/// ```
pub const DIFFERENCE_ARGS: [Arg; 9] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Factor,
    Arg::FactorLength,
    Arg::FactorStride,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationStride,
];

/// The arguments of [`PlainPass::Series`], in order: [`REVERSE_ARGS`], then the
/// coefficients of the inverse `dst` already holds.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::plain::{REVERSE_ARGS, SERIES_ARGS};
///
/// assert_eq!(SERIES_ARGS[..6], REVERSE_ARGS);
/// assert_eq!(SERIES_ARGS[6], Arg::Low);
/// ```
pub const SERIES_ARGS: [Arg; 7] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::Low,
];

/// Threads per block of [`PlainPass::Reduce`] (and of the other elementwise kernels).
///
/// ```
/// use fermat_codegen::plain::{PlainPass, Tile, REDUCE_THREADS};
///
/// // Whatever the tile: one thread per output, in blocks of 256.
/// for tile in [Tile::for_element_bytes(4), Tile::for_element_bytes(64)] {
///     for pass in [PlainPass::Reduce, PlainPass::Reverse, PlainPass::Difference] {
///         assert_eq!(pass.threads(tile), REDUCE_THREADS);
///     }
/// }
/// ```
pub const REDUCE_THREADS: u32 = 256;

/// Threads that share each dot product of [`PlainPass::Series`], each summing every
/// `SERIES_PARTS`-th term; their sums meet in shared memory.
///
/// ```
/// use fermat_codegen::plain::{PlainPass, Tile, SERIES_PARTS};
///
/// // The last step's e has series/2 coefficients, each dot product SERIES_PARTS threads.
/// let tile = Tile::for_element_bytes(8);
/// assert_eq!(tile.series, 256);
/// assert_eq!(PlainPass::Series.threads(tile), 256 / 2 * SERIES_PARTS);
/// ```
pub const SERIES_PARTS: u32 = 4;

/// The shape of a block of [`PlainPass::Product`]: its outputs (also its threads) and the
/// most terms per output it sums (the chunk; a launch may use fewer, `block`).
///
/// ```
/// use fermat_codegen::plain::Tile;
///
/// // An SRGFN of 8 digits, 64 bytes an element: 128 × 128, (3·128 − 1)·64 bytes shared.
/// let p3 = Tile::for_element_bytes(64);
/// assert_eq!((p3.outputs, p3.chunk, p3.window()), (128, 128, 255));
/// // Its inverse needs 1/f_0 from the host, and takes 32 coefficients on chip.
/// assert_eq!((p3.series, p3.inverts), (32, false));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    /// Outputs per block, one per thread.
    pub outputs: u32,
    /// The most a_i per block.
    pub chunk: u32,
    /// The most coefficients of a power-series inverse [`PlainPass::Series`] computes: a
    /// power of two, 512 for 32-bit primes and fewer for wider elements, its f, g, half of
    /// it e and the [`SERIES_PARTS`] parts of e within `SHARED_BYTES`.
    pub series: u32,
    /// Whether [`PlainPass::Series`] may start from no coefficient at all, computing 1/f_0
    /// itself (a power by p − 2 in one thread): word primes, whose division then needs
    /// nothing from the host.
    pub inverts: bool,
}

/// Shared memory the staged a_i and b_j may take: within the 48 KB of a static
/// allocation, with room for a second block on every multiprocessor.
const SHARED_BYTES: u64 = 40 << 10;

impl Tile {
    /// The tile for elements of `bytes` bytes in registers: 256 × 256 for word primes,
    /// smaller squares for SRGFNs, so that the chunk of a and the tile's b
    /// (outputs + chunk − 1 elements) fit `SHARED_BYTES` (40 KiB).
    ///
    /// ```
    /// use fermat_codegen::plain::Tile;
    ///
    /// let t = |bytes| Tile::for_element_bytes(bytes);
    /// assert_eq!((t(4).outputs, t(4).series, t(4).inverts), (256, 512, true)); // babybear
    /// assert_eq!((t(8).outputs, t(8).series, t(8).inverts), (256, 256, true)); // goldilocks
    /// assert_eq!((t(32).outputs, t(32).series, t(32).inverts), (256, 64, false)); // P2
    /// ```
    pub fn for_element_bytes(bytes: u64) -> Tile {
        let mut side = 256u64;
        while side > 16 && (3 * side - 1) * bytes > SHARED_BYTES {
            side /= 2;
        }
        // One multiprocessor does all of the on-chip steps: a step from ℓ to 2ℓ takes
        // about 1.5·ℓ² products, as long on an H200 as the five launches of a step on
        // the whole device at ℓ ≈ 256 for a 32-bit prime (bench/RESULTS.md, "Division
        // round 6"); products of 32-bit words cost about (bytes/4)² of theirs.
        let words = (bytes / 4).max(1);
        let mut series = (512 / words.next_power_of_two()).max(16);
        while series > 16 && series_elements(series) * bytes > SHARED_BYTES {
            series /= 2;
        }
        Tile {
            outputs: side as u32,
            chunk: side as u32,
            series: series as u32,
            inverts: bytes <= 8,
        }
    }

    /// Elements of b a block stages: its outputs plus its chunk, less one.
    ///
    /// ```
    /// use fermat_codegen::plain::{PlainPass, Tile};
    ///
    /// let tile = Tile::for_element_bytes(4);
    /// assert_eq!(tile.window(), 511);
    /// assert!(PlainPass::Product.kernel(tile).to_string().contains("__shared__ fe_t sb[511];"));
    /// ```
    pub fn window(self) -> u64 {
        u64::from(self.outputs) + u64::from(self.chunk) - 1
    }
}

/// The elements [`PlainPass::Series`] keeps in shared memory for a `series` of that many
/// coefficients: f and g, e of half as many, and e's parts.
const fn series_elements(series: u64) -> u64 {
    (5 + SERIES_PARTS as u64) * series / 2
}

fn var(name: &str) -> Expr {
    Expr::var(name)
}

fn block_stride(v: &str, end: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::block_stride_loop(v, Type::SizeT, end, body)
}

fn row() -> Expr {
    Expr::Builtin(Builtin::BlockIdx, Dim::Y).cast(Type::SizeT)
}

impl PlainPass {
    /// Every kernel.
    ///
    /// ```
    /// use fermat_codegen::plain::PlainPass;
    ///
    /// let names: Vec<&str> = PlainPass::ALL.iter().map(|p| p.name()).collect();
    /// assert_eq!(names[..2], ["plain_product", "plain_reduce"]);
    /// assert_eq!(names[2..], ["plain_reverse", "plain_difference", "plain_series"]);
    /// ```
    pub const ALL: [PlainPass; 5] = [
        PlainPass::Product,
        PlainPass::Reduce,
        PlainPass::Reverse,
        PlainPass::Difference,
        PlainPass::Series,
    ];

    /// The kernel's name, by which the runtime finds it in the compiled module.
    ///
    /// ```
    /// use fermat_codegen::plain::{PlainPass, Tile};
    ///
    /// let tile = Tile::for_element_bytes(4);
    /// assert_eq!(PlainPass::Difference.name(), "plain_difference");
    /// assert_eq!(PlainPass::Difference.kernel(tile).name, "plain_difference");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PlainPass::Product => "plain_product",
            PlainPass::Reduce => "plain_reduce",
            PlainPass::Reverse => "plain_reverse",
            PlainPass::Difference => "plain_difference",
            PlainPass::Series => "plain_series",
        }
    }

    /// The kernel's arguments, in order: the kernel's parameters, one each.
    ///
    /// ```
    /// use fermat_codegen::plain::{PlainPass, Tile, SERIES_ARGS};
    ///
    /// assert_eq!(PlainPass::Series.args(), &SERIES_ARGS);
    /// let k = PlainPass::Series.kernel(Tile::for_element_bytes(4));
    /// let params: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
    /// assert_eq!(params, ["src", "src_len", "src_stride", "dst", "dst_len", "dst_stride", "lo"]);
    /// ```
    pub fn args(self) -> &'static [Arg] {
        match self {
            PlainPass::Product => &PRODUCT_ARGS,
            PlainPass::Reduce => &REDUCE_ARGS,
            PlainPass::Reverse => &REVERSE_ARGS,
            PlainPass::Difference => &DIFFERENCE_ARGS,
            PlainPass::Series => &SERIES_ARGS,
        }
    }

    /// Threads per block the kernel is launched with: a thread per output of a
    /// [`PlainPass::Product`] tile, [`SERIES_PARTS`] per coefficient of the series' last
    /// step, [`REDUCE_THREADS`] for the others.
    ///
    /// ```
    /// use fermat_codegen::plain::{PlainPass, Tile};
    ///
    /// let (word, p3) = (Tile::for_element_bytes(4), Tile::for_element_bytes(64));
    /// assert_eq!((PlainPass::Product.threads(word), PlainPass::Product.threads(p3)), (256, 128));
    /// // 512 coefficients: 256 of the last step's e, four threads each.
    /// assert_eq!(PlainPass::Series.threads(word), 1024);
    /// assert_eq!(PlainPass::Series.threads(p3), 64);
    /// ```
    pub fn threads(self, tile: Tile) -> u32 {
        match self {
            PlainPass::Product => tile.outputs,
            PlainPass::Reduce | PlainPass::Reverse | PlainPass::Difference => REDUCE_THREADS,
            // SERIES_PARTS threads per coefficient of the last step's e.
            PlainPass::Series => (tile.series / 2 * SERIES_PARTS).clamp(32, 1024),
        }
    }

    /// The kernel for blocks of `tile`: the tile fixes a product's shared arrays and
    /// launch bound, and the series' length.
    ///
    /// ```
    /// use fermat_codegen::plain::{PlainPass, Tile};
    ///
    /// let text = PlainPass::Product.kernel(Tile::for_element_bytes(64)).to_string();
    /// assert!(text.contains("__launch_bounds__(128) plain_product("));
    /// assert!(text.contains("__shared__ fe_t sa[128];"));
    /// assert!(text.contains("__shared__ fe_t sb[255];"));
    /// ```
    pub fn kernel(self, tile: Tile) -> Kernel {
        let params = self.args().iter().map(|a| a.param()).collect();
        match self {
            PlainPass::Product => Kernel::new(self.name(), params, product_body(tile))
                .doc("dst[row][t] = sum over a chunk of i of a[i] * b[lo + t - i]: plain products, a tile of outputs per block")
                .launch_bounds(tile.outputs)
                .shared(SharedArray::new(Type::Fe, "sa", u64::from(tile.chunk)))
                .shared(SharedArray::new(Type::Fe, "sb", tile.window())),
            PlainPass::Reduce => Kernel::new(self.name(), params, reduce_body())
                .doc("c[t] = sum_u rows[u][t]: the partial sums of plain products added")
                .launch_bounds(REDUCE_THREADS),
            PlainPass::Reverse => Kernel::new(self.name(), params, reverse_body())
                .doc("c[t] = a[len a - 1 - t]: the reversal of a polynomial, zero past its length")
                .launch_bounds(REDUCE_THREADS),
            PlainPass::Difference => Kernel::new(self.name(), params, difference_body())
                .doc("c[t] = a[t] - b[t], each operand zero past its length")
                .launch_bounds(REDUCE_THREADS),
            PlainPass::Series => {
                let len = u64::from(tile.series);
                Kernel::new(self.name(), params, series_body(tile.inverts))
                    .doc("g = 1/f mod x^dst_len from its first lo coefficients: Newton steps with plain middle products, in one block")
                    .launch_bounds(self.threads(tile))
                    .shared(SharedArray::new(Type::Fe, "sf", len))
                    .shared(SharedArray::new(Type::Fe, "sg", len))
                    .shared(SharedArray::new(Type::Fe, "se", len / 2))
                    .shared(SharedArray::new(
                        Type::Fe,
                        "sp",
                        len / 2 * u64::from(SERIES_PARTS),
                    ))
            }
        }
    }
}

fn product_body(tile: Tile) -> Vec<Stmt> {
    let outputs = Expr::u64(u64::from(tile.outputs));
    let t0 = var("t0");
    let i0 = var("i0");
    // b_(lo + t0 + v − i0 − (block − 1)) is staged at sb[v]; its index, offset by
    // i0 + block − 1 so that the arithmetic stays unsigned.
    let shift = var("i0") + var("block") - Expr::u64(1);
    let stage_a = block_stride(
        "u",
        var("block"),
        vec![
            Stmt::const_(Type::SizeT, "i", i0.clone() + var("u")),
            Stmt::assign(
                var("sa").at(var("u")),
                Expr::select(
                    var("i").lt(var("src_len")),
                    fe::to_mont(fe::load(var("a"), var("i"), var("src_stride"))),
                    fe::zero(),
                ),
            ),
        ],
    );
    let stage_b = block_stride(
        "v",
        outputs.clone() + var("block") - Expr::u64(1),
        vec![
            Stmt::const_(Type::SizeT, "e", var("lo") + t0.clone() + var("v")),
            Stmt::assign(
                var("sb").at(var("v")),
                Expr::select(
                    var("e")
                        .ge(var("shift"))
                        .and_also((var("e") - var("shift")).lt(var("fac_len"))),
                    fe::load(var("b"), var("e") - var("shift"), var("fac_stride")),
                    fe::zero(),
                ),
            ),
        ],
    );
    let terms = ForLoop::range("u", Type::SizeT, Expr::u64(0), var("block"))
        .unroll_by(8)
        .body(vec![Stmt::assign(
            var("acc"),
            fe::dot_add(
                var("acc"),
                var("sb").at(var("s") + var("block") - Expr::u64(1) - var("u")),
                var("sa").at(var("u")),
            ),
        )]);
    let sum = block_stride(
        "s",
        outputs.clone(),
        vec![Stmt::if_(
            (t0.clone() + var("s")).lt(var("dst_len")),
            vec![
                Stmt::let_(Type::FeDot, "acc", fe::dot_zero()),
                Stmt::For(terms),
                fe::store(
                    var("out"),
                    t0.clone() + var("s"),
                    var("dst_stride"),
                    fe::dot_value(var("acc")),
                ),
            ],
        )],
    );
    let zeros = block_stride(
        "s",
        outputs.clone(),
        vec![Stmt::if_(
            (t0.clone() + var("s")).lt(var("dst_len")),
            vec![fe::store(
                var("out"),
                t0.clone() + var("s"),
                var("dst_stride"),
                fe::zero(),
            )],
        )],
    );
    // The tile meets a term a_i·b_j (i in the chunk, i < len a, j < len b) only if its
    // last output reaches i0 and its first comes before i0 + block − 1 + len b.
    let meets = i0
        .clone()
        .lt(var("src_len"))
        .and_also((var("lo") + t0.clone() + outputs).gt(i0.clone()))
        .and_also((var("lo") + t0.clone()).lt(var("shift") + var("fac_len")));
    vec![
        Stmt::const_(Type::SizeT, "q", row() / var("terms")),
        Stmt::let_(
            Type::const_ptr(Type::Word),
            "a",
            var("src") + var("q") * var("src_dist"),
        ),
        Stmt::let_(
            Type::const_ptr(Type::Word),
            "b",
            var("fac") + var("q") * var("fac_dist"),
        ),
        Stmt::let_(
            Type::ptr(Type::Word),
            "out",
            var("dst") + row() * var("dst_dist"),
        ),
        Stmt::const_(
            Type::SizeT,
            "t0",
            Expr::block_idx().cast(Type::SizeT) * Expr::u64(u64::from(tile.outputs)),
        ),
        Stmt::const_(Type::SizeT, "i0", (row() % var("terms")) * var("block")),
        Stmt::const_(Type::SizeT, "shift", shift),
        Stmt::if_(meets.logical_not(), vec![zeros, Stmt::Return]),
        stage_a,
        stage_b,
        Stmt::sync(),
        sum,
    ]
}

fn reduce_body() -> Vec<Stmt> {
    let rows =
        ForLoop::range("u", Type::SizeT, Expr::u64(0), var("terms")).body(vec![Stmt::assign(
            var("acc"),
            fe::add(
                var("acc"),
                fe::load(
                    var("src") + (row() * var("terms") + var("u")) * var("src_dist"),
                    var("t"),
                    var("src_stride"),
                ),
            ),
        )]);
    vec![Stmt::grid_stride_loop(
        "t",
        var("dst_len"),
        vec![
            Stmt::let_(Type::Fe, "acc", fe::zero()),
            Stmt::For(rows),
            fe::store(
                var("dst") + row() * var("dst_dist"),
                var("t"),
                var("dst_stride"),
                var("acc"),
            ),
        ],
    )]
}

/// Element t of a vector of `len` elements at `base`, zero past its length.
fn load_or_zero(base: &str, len: &str, stride: &str, t: Expr) -> Expr {
    Expr::select(
        t.clone().lt(var(len)),
        fe::load(var(base), t, var(stride)),
        fe::zero(),
    )
}

fn reverse_body() -> Vec<Stmt> {
    // The select reads src only below its length, so the index never wraps.
    let mirrored = Expr::select(
        var("t").lt(var("src_len")),
        fe::load(
            var("src"),
            var("src_len") - Expr::u64(1) - var("t"),
            var("src_stride"),
        ),
        fe::zero(),
    );
    vec![Stmt::grid_stride_loop(
        "t",
        var("dst_len"),
        vec![fe::store(var("dst"), var("t"), var("dst_stride"), mirrored)],
    )]
}

fn difference_body() -> Vec<Stmt> {
    let difference = fe::sub(
        load_or_zero("src", "src_len", "src_stride", var("t")),
        load_or_zero("fac", "fac_len", "fac_stride", var("t")),
    );
    vec![Stmt::grid_stride_loop(
        "t",
        var("dst_len"),
        vec![fe::store(
            var("dst"),
            var("t"),
            var("dst_stride"),
            difference,
        )],
    )]
}

/// `acc` = Σ g_i·`t`\[at(i)\] over i < `end` with i ≡ `part` mod [`SERIES_PARTS`]: one
/// part of a dot product of the series kernel.
fn dot(end: Expr, t: &str, at: impl Fn(Expr) -> Expr) -> Vec<Stmt> {
    let terms = ForLoop {
        ty: Type::U32,
        var: "i".into(),
        start: var("part"),
        cond: var("i").lt(end),
        step: Expr::u32(SERIES_PARTS),
        unroll: None,
        body: vec![Stmt::assign(
            var("acc"),
            fe::dot_add(var("acc"), var("sg").at(var("i")), var(t).at(at(var("i")))),
        )],
    }
    .unroll_by(4);
    vec![
        Stmt::let_(Type::FeDot, "acc", fe::dot_zero()),
        Stmt::For(terms),
    ]
}

/// The parts of a dot product of the series kernel, [`SERIES_PARTS`] threads each, into
/// `sp`: thread slot u takes part u mod [`SERIES_PARTS`] of output t = u / [`SERIES_PARTS`].
fn dot_parts(end: Expr, t: &str, at: impl Fn(Expr) -> Expr) -> Stmt {
    let parts = || Expr::u32(SERIES_PARTS);
    let mut body = vec![
        Stmt::const_(Type::U32, "t", var("u") / parts()),
        Stmt::const_(Type::U32, "part", var("u") % parts()),
    ];
    body.extend(dot(end, t, at));
    body.push(Stmt::assign(
        var("sp").at(var("u")),
        fe::dot_value(var("acc")),
    ));
    block_stride32("u", var("step") * parts(), body)
}

/// The sum of output t's parts in `sp`.
fn parts_sum() -> Expr {
    (1..SERIES_PARTS).fold(
        var("sp").at(var("t") * Expr::u32(SERIES_PARTS)),
        |acc, p| {
            fe::add(
                acc,
                var("sp").at(var("t") * Expr::u32(SERIES_PARTS) + Expr::u32(p)),
            )
        },
    )
}

/// A loop of the block's threads over u < `end`, in 32-bit arithmetic (on-chip lengths).
fn block_stride32(v: &str, end: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::block_stride_loop(v, Type::U32, end, body)
}

fn series_body(inverts: bool) -> Vec<Stmt> {
    let rest = var("len") - var("have");
    let step = Expr::select(var("have").lt(rest.clone()), var("have"), rest);
    // Each output is a dot product of up to ℓ terms, split over SERIES_PARTS threads: the
    // one block holds that many times the warps, which issue its instructions (about 14 a
    // term before the exact sums of `fe_dot_add`) nearer the multiprocessor's rate
    // (bench/RESULTS.md, "Division round 9").
    let newton_step = vec![
        Stmt::const_(Type::U32, "step", step),
        // e_t = Σ_(i < ℓ) g_i·f_(ℓ + t − i): the lower coefficients of f·g are those of 1.
        dot_parts(var("have"), "sf", |i| var("have") + var("t") - i),
        Stmt::sync(),
        block_stride32(
            "t",
            var("step"),
            vec![Stmt::assign(
                var("se").at(var("t")),
                fe::to_mont(parts_sum()),
            )],
        ),
        Stmt::sync(),
        // −(g·e mod x^step)_t = −Σ_(i ≤ t) g_i·e_(t − i).
        dot_parts(var("t") + Expr::u32(1), "se", |i| var("t") - i),
        Stmt::sync(),
        block_stride32(
            "t",
            var("step"),
            vec![Stmt::assign(
                var("sg").at(var("have") + var("t")),
                fe::neg(parts_sum()),
            )],
        ),
        Stmt::sync(),
        Stmt::assign_op(var("have"), BinOp::Add, var("step")),
    ];
    let mut body = vec![
        // At most the tile's `series` coefficients: 32-bit indices.
        Stmt::const_(Type::U32, "len", var("dst_len").cast(Type::U32)),
        Stmt::const_(Type::U32, "low", var("lo").cast(Type::U32)),
        block_stride32(
            "t",
            var("len"),
            vec![Stmt::assign(
                var("sf").at(var("t")),
                Expr::select(
                    var("t").lt(var("src_len")),
                    fe::to_mont(fe::load(var("src"), var("t"), var("src_stride"))),
                    fe::zero(),
                ),
            )],
        ),
        block_stride32(
            "t",
            var("low"),
            vec![Stmt::assign(
                var("sg").at(var("t")),
                fe::load(var("dst"), var("t"), var("dst_stride")),
            )],
        ),
        Stmt::sync(),
        Stmt::let_(Type::U32, "have", var("low")),
    ];
    if inverts {
        // From nothing: g_0 = 1/f_0 by one thread, so that a division reads nothing back
        // to the host before its first launch.
        let f0 = Expr::select(
            Expr::u64(0).lt(var("src_len")),
            fe::load(var("src"), Expr::u64(0), var("src_stride")),
            fe::zero(),
        );
        body.push(Stmt::if_(
            var("have")
                .equals(Expr::u32(0))
                .and_also(Expr::u32(0).lt(var("len"))),
            vec![
                Stmt::if_(
                    Expr::thread_idx().equals(Expr::u32(0)),
                    vec![Stmt::assign(var("sg").at(Expr::u32(0)), fe::inv(f0))],
                ),
                Stmt::sync(),
                Stmt::assign(var("have"), Expr::u32(1)),
            ],
        ));
    }
    body.extend([
        // Without a first coefficient there is nothing to extend.
        Stmt::While {
            cond: var("have")
                .lt(var("len"))
                .and_also(Expr::u32(0).lt(var("have"))),
            body: newton_step,
        },
        block_stride32(
            "t",
            var("have") - var("low"),
            vec![fe::store(
                var("dst"),
                var("low") + var("t"),
                var("dst_stride"),
                var("sg").at(var("low") + var("t")),
            )],
        ),
    ]);
    body
}

#[cfg(test)]
mod tests;
