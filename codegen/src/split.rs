//! The passes of a transform split over G devices besides its local transforms
//! (`fermat_dsl::derive::derive_devices`), printed through the typed CUDA AST and run on
//! the CPU exactly as the kernels run.
//!
//! After the exchange, device c holds, for each j < s = M/G (M = N/G), the G elements
//! x_g = (DFT(M) of block g)[c·s + j] at g·s + j. The split's last stages,
//! (I(G) ⊗ DFT(G) ⊗ I(s)) after the twiddles D(G, M), give on that device
//!
//! y_k = Σ_g ω_N^(g·(c·s + j)) · ω_G^(g·k) · x_g = Σ_g (w·ω_G^k)^g · x_g, w = ω_N^(c·s + j),
//!
//! the polynomial Σ_g x_g·z^g evaluated at z = w·ω_G^k: [`SplitPass::Forward`] runs it by
//! Horner's rule, the twiddles folded in (the twiddle diagonal commutes with the exchange
//! once its index is the one the data has after it). [`SplitPass::Inverse`] undoes it:
//! x_g = G^(−1)·w^(−g)·Σ_k (ω_G^(−g))^k·y_k. [`SplitPass::Product`] is the inverse of a
//! product of two split transforms, the pointwise product read on the way in.
//! [`SplitPass::Transpose`] is the local stride permutation L(M, G) of a blocks input (and
//! L(M, M/G) of a blocks output of the inverse, with its two sizes swapped).
//!
//! The s twiddles w are read from a table of s rows where it is small ([`table_block`]),
//! or else from two short tables, w = ω_N^j_lo · ω_N^(c·s + T·j_hi) for j = j_lo + T·j_hi,
//! T = [`low_rows`]\(s) ≈ √s: a table of all s rows would be as large as a quarter of the
//! data at G = 2 (P6 at N = 2^27: 16 GiB per device and direction). For a big prime a
//! multiplication costs far more than the pass's memory traffic, so the passes count
//! them: with G = 2 they run the radix-2 butterfly, one multiplication per column
//! (twiddled DFT(2), and the fold), instead of Horner's rule over ω_G's powers.

use crate::contract::Arg;
use crate::cuda::{fe, Expr, ForLoop, Kernel, Stmt, Type};
use fermat_dsl::field::geometric;
use fermat_dsl::field::Field;

/// A pass of a split transform besides its local transforms.
///
/// The butterfly passes read row t of their G × s matrix at t·`src_dist` and write row k
/// at k·`dst_dist` (elements): s where the device holds one vector of M = G·s elements,
/// k·s where it holds G vectors of s elements one after another, an SRGFN's k digit rows
/// of s words each (what the G sub-transforms of a [`CyclicPass`] split read and write).
/// Below, `src[t·s + j]` stands for element j of row t.
///
/// ```
/// use fermat_codegen::split::{SplitPass, THREADS};
///
/// // Each pass is one kernel of its own name, launched in blocks of THREADS.
/// for pass in SplitPass::ALL {
///     let bound = format!("__launch_bounds__({THREADS}) {}(", pass.name());
///     assert!(pass.kernel().to_string().contains(&bound), "{bound}");
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitPass {
    /// dst[k·s + j] = Σ_(g < G) (w_j·tw_(H + k))^g · src[g·s + j] for j < s = `m`,
    /// k < G = `terms`, with w_j = tw_(j mod T)·tw_(T + ⌊j/T⌋), T = `block` =
    /// [`low_rows`]\(s) and H = T + s/T. Table: ω_N^i (rows i < T), ω_N^(c·s + T·i) (rows
    /// T + i, i < s/T), then ω_G^k (rows H + k).
    Forward,
    /// dst[g·s + j] = tw_(H + G)·w_j^g · Σ_(k < G) tw_(H + g)^k · src[k·s + j], w_j as in
    /// [`SplitPass::Forward`]. Table: ω_N^(−i) (rows i < T), ω_N^(−(c·s + T·i)) (rows T +
    /// i), ω_G^(−g) (rows H + g), then G^(−1) (row H + G).
    Inverse,
    /// [`SplitPass::Inverse`] of `src[i]·op[i]`: the inverse of a product of two forward
    /// split transforms.
    Product,
    /// [`SplitPass::Inverse`] without its scale and with ω_G^(+g): dst[g·s + j] = w_j^g ·
    /// Σ_(k < G) tw_(H + g)^k · src[k·s + j], the fold of a cyclic output
    /// ([`CyclicPass::Fold`]). Table: as [`SplitPass::Inverse`]'s without its last row.
    Fold,
    /// dst[j·s + i] = src[i·G + j] for i < s = `m`, j < G = `terms`: L(s·G, G).
    Transpose,
}

/// The arguments of [`SplitPass::Forward`] and [`SplitPass::Inverse`], in order.
///
/// ```
/// use fermat_codegen::split::{SplitPass, SPLIT_ARGS};
///
/// let names: Vec<&str> = SPLIT_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names[..5], ["src", "dst", "tw", "src_stride", "dst_stride"]);
/// assert_eq!(names[5..], ["src_dist", "dst_dist", "m", "terms", "block"]);
/// assert_eq!(SplitPass::Fold.args(), &SPLIT_ARGS); // the fold too
/// ```
pub const SPLIT_ARGS: [Arg; 10] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceStride,
    Arg::DestinationStride,
    Arg::SourceDistance,
    Arg::DestinationDistance,
    Arg::Size,
    Arg::Terms,
    Arg::Block,
];

/// The arguments of [`SplitPass::Product`], in order: [`SPLIT_ARGS`] with the other
/// factor's transform after the source.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::split::{SPLIT_ARGS, SPLIT_PRODUCT_ARGS};
///
/// assert_eq!(SPLIT_PRODUCT_ARGS[..2], [Arg::Source, Arg::Operand]);
/// assert_eq!(SPLIT_PRODUCT_ARGS[2..], SPLIT_ARGS[1..]);
/// ```
pub const SPLIT_PRODUCT_ARGS: [Arg; 11] = [
    Arg::Source,
    Arg::Operand,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceStride,
    Arg::DestinationStride,
    Arg::SourceDistance,
    Arg::DestinationDistance,
    Arg::Size,
    Arg::Terms,
    Arg::Block,
];

/// The arguments of [`SplitPass::Transpose`], in order: no table.
///
/// ```
/// use fermat_codegen::split::{SplitPass, TRANSPOSE_ARGS};
///
/// let names: Vec<&str> = TRANSPOSE_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["src", "dst", "src_stride", "dst_stride", "m", "terms"]);
/// assert_eq!(SplitPass::Transpose.args(), &TRANSPOSE_ARGS);
/// ```
pub const TRANSPOSE_ARGS: [Arg; 6] = [
    Arg::Source,
    Arg::Destination,
    Arg::SourceStride,
    Arg::DestinationStride,
    Arg::Size,
    Arg::Terms,
];

/// Threads per block of the passes: those of the product passes, whose launches they share.
pub use crate::poly::THREADS;

fn var(name: &str) -> Expr {
    Expr::var(name)
}

fn row(index: Expr) -> Expr {
    fe::load_row(var("tw"), index)
}

/// T, the rows of the low table of a pass over s = `m` columns: the least power of two
/// whose square is at least s, so that both tables have at most about √s rows.
///
/// ```
/// use fermat_codegen::split::low_rows;
/// assert_eq!(low_rows(1 << 25), 1 << 13);
/// assert_eq!(low_rows(1 << 24), 1 << 12);
/// assert_eq!(low_rows(1), 1);
/// ```
pub fn low_rows(m: u64) -> u64 {
    1 << m.max(1).next_power_of_two().ilog2().div_ceil(2)
}

/// The most bytes a table of one row per column may take ([`table_block`]).
///
/// ```
/// use fermat_codegen::split::{low_rows, table_block, FULL_TABLE_BYTES};
///
/// // Elements of 64 bytes: 2^22 columns fill 256 MiB, twice as many take two short tables.
/// let s = FULL_TABLE_BYTES / 64;
/// assert_eq!((s, table_block(s, 64)), (1 << 22, 1 << 22));
/// assert_eq!(table_block(2 * s, 64), low_rows(2 * s));
/// ```
pub const FULL_TABLE_BYTES: u64 = 256 << 20;

/// T, the rows of the low table of a pass over s columns of elements of `element_bytes`:
/// s itself (one row per column, w_j read rather than multiplied) while those rows take
/// at most [`FULL_TABLE_BYTES`], else [`low_rows`]\(s).
///
/// ```
/// use fermat_codegen::split::table_block;
/// assert_eq!(table_block(1 << 20, 32), 1 << 20); // P3 at N = 2^22 on two devices
/// assert_eq!(table_block(1 << 25, 512), 1 << 13); // P6 at N = 2^27: 16 GiB otherwise
/// ```
pub fn table_block(s: u64, element_bytes: u64) -> u64 {
    if s.saturating_mul(element_bytes) <= FULL_TABLE_BYTES {
        s.max(1)
    } else {
        low_rows(s)
    }
}

/// Where the rows of ω_G's powers start, after the low and the high table.
fn coarse_start() -> Expr {
    var("block") + var("m") / var("block")
}

/// `w`, the twiddle of column j in table form: its row of a full table, or the product of
/// its low and its high row.
fn twiddle_of_column() -> Stmt {
    // Products of table rows stay in table form.
    Stmt::const_(
        Type::Fe,
        "w",
        Expr::select(
            var("block").ge(var("m")),
            row(var("j")),
            fe::mul_mont(
                row(var("j") % var("block")),
                row(var("block") + var("j") / var("block")),
            ),
        ),
    )
}

impl SplitPass {
    /// Every pass.
    ///
    /// ```
    /// use fermat_codegen::split::SplitPass;
    ///
    /// let names: Vec<&str> = SplitPass::ALL.iter().map(|p| p.name()).collect();
    /// assert_eq!(names[..3], ["split_forward", "split_inverse", "split_product"]);
    /// assert_eq!(names[3..], ["split_fold", "split_transpose"]);
    /// ```
    pub const ALL: [SplitPass; 5] = [
        SplitPass::Forward,
        SplitPass::Inverse,
        SplitPass::Product,
        SplitPass::Fold,
        SplitPass::Transpose,
    ];

    /// The kernel's name, by which the runtime finds it in the compiled module.
    ///
    /// ```
    /// use fermat_codegen::split::SplitPass;
    ///
    /// assert_eq!(SplitPass::Product.name(), "split_product");
    /// assert_eq!(SplitPass::Product.kernel().name, "split_product");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            SplitPass::Forward => "split_forward",
            SplitPass::Inverse => "split_inverse",
            SplitPass::Product => "split_product",
            SplitPass::Fold => "split_fold",
            SplitPass::Transpose => "split_transpose",
        }
    }

    /// The kernel's arguments, in order: the kernel's parameters, one each.
    ///
    /// ```
    /// use fermat_codegen::split::{SplitPass, SPLIT_PRODUCT_ARGS};
    ///
    /// assert_eq!(SplitPass::Product.args(), &SPLIT_PRODUCT_ARGS);
    /// let k = SplitPass::Product.kernel();
    /// let params: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
    /// assert_eq!(params[..4], ["src", "op", "dst", "tw"]);
    /// ```
    pub fn args(self) -> &'static [Arg] {
        match self {
            SplitPass::Forward | SplitPass::Inverse | SplitPass::Fold => &SPLIT_ARGS,
            SplitPass::Product => &SPLIT_PRODUCT_ARGS,
            SplitPass::Transpose => &TRANSPOSE_ARGS,
        }
    }

    /// The kernel: a grid-stride loop over j < s (launch any grid of [`THREADS`]-thread
    /// blocks).
    ///
    /// ```
    /// use fermat_codegen::split::SplitPass;
    ///
    /// let k = SplitPass::Transpose.kernel();
    /// k.check()?;
    /// let text = k.to_string();
    /// assert!(text.contains("split_transpose(const fe_word_t* __restrict__ src, fe_word_t*"));
    /// assert!(!text.contains("tw")); // a permutation needs no twiddles
    /// # Ok::<(), fermat_codegen::CodegenError>(())
    /// ```
    pub fn kernel(self) -> Kernel {
        let body = match self {
            SplitPass::Forward => forward_body(),
            SplitPass::Inverse => inverse_body(false, true),
            SplitPass::Product => inverse_body(true, true),
            SplitPass::Fold => inverse_body(false, false),
            SplitPass::Transpose => transpose_body(),
        };
        let params = self.args().iter().map(|a| a.param()).collect();
        Kernel::new(self.name(), params, body)
            .doc(self.summary())
            .launch_bounds(THREADS)
    }

    fn summary(self) -> &'static str {
        match self {
            SplitPass::Forward => {
                "y[k*s + j] = sum_g (w_j * w_G^k)^g * x[g*s + j]: twiddles and DFT(G) after an exchange"
            }
            SplitPass::Inverse => {
                "x[g*s + j] = G^-1 * w_j^-g * sum_k w_G^(-g*k) * y[k*s + j]: the forward undone"
            }
            SplitPass::Product => "split_inverse of the pointwise product src * op",
            SplitPass::Fold => {
                "x[g*s + j] = w_j^g * sum_k w_G^(g*k) * y[k*s + j]: the radix-G fold of a cyclic output"
            }
            SplitPass::Transpose => "dst[j*s + i] = src[i*G + j]: the stride permutation L(s*G, G)",
        }
    }

    /// The rows of the pass's table on device `c` of G, for N points with ω_N = `omega`,
    /// its low table of `block` rows ([`table_block`]; the runtime writes them in the
    /// table form of [`crate::kernel::table_form`]); empty for [`SplitPass::Transpose`],
    /// and for [`SplitPass::Fold`], which only a cyclic output runs
    /// ([`CyclicPass::table`]). About `block` + s/`block` + G rows, s = N/G².
    ///
    /// ```
    /// use fermat_codegen::split::SplitPass;
    /// use fermat_dsl::field::{Field, Fp32};
    ///
    /// let f = Fp32::new(17)?;
    /// let omega = f.root_of_unity(16)?;
    /// let w = |i: u64| f.pow_u64(&omega, i);
    /// // N = 16 on device 1 of G = 2: s = 4, two low rows, two high rows from ω^(c·s) = ω^4.
    /// let forward = SplitPass::Forward.table(&f, &omega, (16, 2, 1), 2);
    /// assert_eq!(forward, [w(0), w(1), w(4), w(6), w(0), w(8)]); // then ω_G^0, ω_G^1
    /// // The inverse's rows are the inverses, and end with the scale G^−1.
    /// let inverse = SplitPass::Inverse.table(&f, &omega, (16, 2, 1), 2);
    /// assert_eq!((inverse[1], inverse[6]), (w(15), f.from_u64(9))); // 2·9 ≡ 1
    /// assert!(SplitPass::Transpose.table(&f, &omega, (16, 2, 1), 2).is_empty());
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn table<F: Field>(
        self,
        field: &F,
        omega: &F::Elem,
        (n, g, c): (u64, u64, u64),
        block: u64,
    ) -> Vec<F::Elem> {
        let s = n / g / g;
        let inverse = |x: &F::Elem| field.inv(x).expect("a root of unity is invertible");
        let omega_g = field.pow_u64(omega, n / g);
        match self {
            SplitPass::Forward => rows(
                field,
                (omega, &field.pow_u64(omega, c * s)),
                (&omega_g, g),
                None,
                (s, block),
            ),
            SplitPass::Inverse | SplitPass::Product => {
                let back = inverse(omega);
                rows(
                    field,
                    (&back, &field.pow_u64(&back, c * s)),
                    (&inverse(&omega_g), g),
                    Some(inverse(&field.from_u64(g))),
                    (s, block),
                )
            }
            SplitPass::Transpose | SplitPass::Fold => Vec::new(),
        }
    }
}

/// The passes of a split whose output is cyclic like its input (`Distribution::Cyclic` on
/// both sides): each device folds its M = G·s points into G rows by a radix-G decimation
/// in frequency, transforms the rows one by one (row e being Y[G·j + e] of its DFT(M)),
/// sends row e to device e while it transforms the next, and device e combines the G rows
/// it received by the twiddled DFT(G), leaving X[G·(j + h·s) + e] at h·s + j. The four
/// passes run the kernels of [`SplitPass`] with their own tables.
///
/// ```
/// use fermat_codegen::split::{CyclicPass, SplitPass};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let omega = f.root_of_unity(16)?;
/// // The butterfly undone takes back the fold's G too: its table ends with G^−2 = 1/4
/// // after a full table's s + 1 rows and ω_G's G.
/// let table = CyclicPass::Unbutterfly.table(&f, &omega, (16, 2, 0), 4);
/// assert_eq!((table.len(), table[7]), (4 + 1 + 2 + 1, f.from_u64(13))); // 4·13 ≡ 1
/// assert_eq!(CyclicPass::Unbutterfly.kernel_pass(), SplitPass::Inverse);
/// assert_eq!(CyclicPass::Product.kernel_pass(), SplitPass::Product);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CyclicPass {
    /// f_e\[j\] = ω_M^(e·j) · Σ_(t < G) ω_G^(e·t) · y\[t·s + j\]: D(G, s) · (DFT(G) ⊗ I(s)),
    /// by [`SplitPass::Fold`]'s kernel with w_j = ω_M^j.
    Fold,
    /// [`CyclicPass::Fold`] undone but for its factor G^(−1) (which
    /// [`CyclicPass::Unbutterfly`] applies), by [`SplitPass::Forward`]'s kernel.
    Unfold,
    /// On device e, from row d = Y_d[G·j + e] of every device d: X[G·(j + h·s) + e] =
    /// Σ_d (w_j·ω_G^h)^d · row_d\[j\] with w_j = ω_N^(G·j + e), by [`SplitPass::Forward`]'s
    /// kernel.
    Butterfly,
    /// [`CyclicPass::Butterfly`] undone, scaled by G^(−2) (the fold's G^(−1) with its own),
    /// by [`SplitPass::Inverse`]'s kernel.
    Unbutterfly,
    /// [`CyclicPass::Unbutterfly`] of the pointwise product of two forward transforms, by
    /// [`SplitPass::Product`]'s kernel.
    Product,
}

impl CyclicPass {
    /// The kernel that runs the pass.
    ///
    /// ```
    /// use fermat_codegen::split::{CyclicPass, SplitPass};
    /// assert_eq!(CyclicPass::Fold.kernel_pass(), SplitPass::Fold);
    /// assert_eq!(CyclicPass::Butterfly.kernel_pass(), SplitPass::Forward);
    /// ```
    pub fn kernel_pass(self) -> SplitPass {
        match self {
            CyclicPass::Fold => SplitPass::Fold,
            CyclicPass::Unbutterfly => SplitPass::Inverse,
            CyclicPass::Unfold | CyclicPass::Butterfly => SplitPass::Forward,
            CyclicPass::Product => SplitPass::Product,
        }
    }

    /// The rows of the pass's table on device `c` of G, for N points with ω_N = `omega`,
    /// laid out as [`SplitPass::table`]'s with a low table of `block` rows.
    ///
    /// ```
    /// use fermat_codegen::split::CyclicPass;
    /// use fermat_dsl::field::{Field, Fp32};
    /// let f = Fp32::new(469762049)?;
    /// let omega = f.root_of_unity(64)?;
    /// // s = 16: 4 low rows, 4 high rows and 2 of ω_G (the fold has no scale).
    /// assert_eq!(CyclicPass::Fold.table(&f, &omega, (64, 2, 1), 4).len(), 10);
    /// // A full table: row j is w_j = ω_N^(2·j + 1) on device 1.
    /// let full = CyclicPass::Butterfly.table(&f, &omega, (64, 2, 1), 16);
    /// assert_eq!(full[3], f.pow_u64(&omega, 7));
    /// assert_eq!(full.len(), 16 + 1 + 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn table<F: Field>(
        self,
        field: &F,
        omega: &F::Elem,
        (n, g, c): (u64, u64, u64),
        block: u64,
    ) -> Vec<F::Elem> {
        let s = n / g / g;
        let inverse = |x: &F::Elem| field.inv(x).expect("a root of unity is invertible");
        let omega_m = field.pow_u64(omega, g);
        let omega_g = field.pow_u64(omega, n / g);
        let one = field.one();
        match self {
            CyclicPass::Fold => rows(field, (&omega_m, &one), (&omega_g, g), None, (s, block)),
            CyclicPass::Unfold => rows(
                field,
                (&inverse(&omega_m), &one),
                (&inverse(&omega_g), g),
                None,
                (s, block),
            ),
            CyclicPass::Butterfly => rows(
                field,
                (&omega_m, &field.pow_u64(omega, c)),
                (&omega_g, g),
                None,
                (s, block),
            ),
            CyclicPass::Unbutterfly | CyclicPass::Product => rows(
                field,
                (&inverse(&omega_m), &inverse(&field.pow_u64(omega, c))),
                (&inverse(&omega_g), g),
                Some(inverse(&field.from_u64(g * g))),
                (s, block),
            ),
        }
    }
}

/// A table of a pass over s columns with a low table of T rows: `high`·`low`^i (rows i <
/// s) where T ≥ s, else `low`^i (rows i < T) and `high`·`low`^(T·i) (rows T + i, i < s/T);
/// then `coarse`^k (rows H + k, k < G) and `scale` if any.
fn rows<F: Field>(
    field: &F,
    (low, high): (&F::Elem, &F::Elem),
    (coarse, g): (&F::Elem, u64),
    scale: Option<F::Elem>,
    (s, t): (u64, u64),
) -> Vec<F::Elem> {
    let mut rows = if t >= s {
        let mut full = geometric(field, high, low, s);
        // The high table's one row, read by no column.
        full.push(field.one());
        full
    } else {
        let mut two = geometric(field, &field.one(), low, t);
        two.extend(geometric(
            field,
            high,
            &field.pow_u64(low, t),
            s.div_ceil(t),
        ));
        two
    };
    rows.extend(geometric(field, &field.one(), coarse, g));
    rows.extend(scale);
    rows
}

/// w_j of a table of [`SplitPass::table`] over s columns.
fn column_twiddle<F: Field>(
    field: &F,
    table: &[F::Elem],
    (s, t): (usize, usize),
    j: usize,
) -> F::Elem {
    if t >= s {
        table[j]
    } else {
        field.mul(&table[j % t], &table[t + j / t])
    }
}

/// Where ω_G's rows start in a table of [`SplitPass::table`] over s columns with a low
/// table of t rows.
fn coarse_row((s, t): (usize, usize)) -> usize {
    t + s.div_ceil(t)
}

/// Σ_(t < G) z^t · x_t by Horner's rule, x_t = `term(t)`, into `acc`.
fn horner(z: Expr, term: impl Fn(Expr) -> Expr) -> Vec<Stmt> {
    let top = var("terms") - Expr::u64(1);
    vec![
        Stmt::let_(Type::Fe, "acc", term(top.clone())),
        Stmt::For(
            ForLoop::range("t", Type::SizeT, Expr::u64(1), var("terms")).body(vec![Stmt::assign(
                var("acc"),
                fe::add(fe::mul_mont(var("acc"), z), term(top - var("t"))),
            )]),
        ),
    ]
}

/// Whether the pass runs over G = 2 rows, where ω_2 = −1 and the butterfly needs one
/// multiplication per column.
fn two_rows() -> Expr {
    var("terms").equals(Expr::u64(2))
}

fn forward_body() -> Vec<Stmt> {
    let x = |t: Expr| {
        fe::load(
            var("src"),
            t * var("src_dist") + var("j"),
            var("src_stride"),
        )
    };
    let store = |k: Expr, v: Expr| {
        fe::store(
            var("dst"),
            k * var("dst_dist") + var("j"),
            var("dst_stride"),
            v,
        )
    };
    // y_k = x_0 ± w·x_1.
    let radix_two = vec![
        Stmt::const_(Type::Fe, "u", x(Expr::u64(0))),
        Stmt::const_(Type::Fe, "t", fe::mul_mont(x(Expr::u64(1)), var("w"))),
        store(Expr::u64(0), fe::add(var("u"), var("t"))),
        store(Expr::u64(1), fe::sub(var("u"), var("t"))),
    ];
    let mut per_output = vec![Stmt::const_(
        Type::Fe,
        "z",
        fe::mul_mont(var("w"), row(coarse_start() + var("k"))),
    )];
    per_output.extend(horner(var("z"), x));
    per_output.push(store(var("k"), var("acc")));
    let horner_rule = vec![Stmt::For(
        ForLoop::range("k", Type::SizeT, Expr::u64(0), var("terms")).body(per_output),
    )];
    vec![Stmt::grid_stride_loop(
        "j",
        var("m"),
        vec![
            twiddle_of_column(),
            Stmt::if_else(two_rows(), radix_two, horner_rule),
        ],
    )]
}

/// The inverse butterflies (with `product`, of src·op), scaled by the table's last row
/// where `scaled`.
fn inverse_body(product: bool, scaled: bool) -> Vec<Stmt> {
    let y = move |t: Expr| {
        let at = t * var("src_dist") + var("j");
        let v = fe::load(var("src"), at.clone(), var("src_stride"));
        if product {
            fe::mul(v, fe::load(var("op"), at, var("src_stride")))
        } else {
            v
        }
    };
    let store = |g: Expr, v: Expr| {
        fe::store(
            var("dst"),
            g * var("dst_dist") + var("j"),
            var("dst_stride"),
            v,
        )
    };
    let scale = || row(coarse_start() + var("terms"));
    // x_0 = f·(y_0 + y_1), x_1 = f·w·(y_0 − y_1).
    let (first, second) = if scaled {
        (
            fe::mul_mont(fe::add(var("a"), var("b")), var("f")),
            fe::mul_mont(
                fe::sub(var("a"), var("b")),
                fe::mul_mont(var("f"), var("w")),
            ),
        )
    } else {
        (
            fe::add(var("a"), var("b")),
            fe::mul_mont(fe::sub(var("a"), var("b")), var("w")),
        )
    };
    let mut radix_two = vec![
        Stmt::const_(Type::Fe, "a", y(Expr::u64(0))),
        Stmt::const_(Type::Fe, "b", y(Expr::u64(1))),
    ];
    if scaled {
        radix_two.push(Stmt::const_(Type::Fe, "f", scale()));
    }
    radix_two.extend([store(Expr::u64(0), first), store(Expr::u64(1), second)]);
    let mut per_output = horner(row(coarse_start() + var("g")), y);
    per_output.extend([
        store(var("g"), fe::mul_mont(var("acc"), var("f"))),
        Stmt::assign(var("f"), fe::mul_mont(var("f"), var("w"))),
    ]);
    // f = scale·w^g; unscaled, it starts at row 0, w_0 = 1 in table form (a fold's
    // twiddles are ω_M^j from j = 0).
    let horner_rule = vec![
        Stmt::let_(
            Type::Fe,
            "f",
            if scaled { scale() } else { row(Expr::u64(0)) },
        ),
        Stmt::For(ForLoop::range("g", Type::SizeT, Expr::u64(0), var("terms")).body(per_output)),
    ];
    vec![Stmt::grid_stride_loop(
        "j",
        var("m"),
        vec![
            twiddle_of_column(),
            Stmt::if_else(two_rows(), radix_two, horner_rule),
        ],
    )]
}

fn transpose_body() -> Vec<Stmt> {
    vec![Stmt::grid_stride_loop(
        "o",
        var("m") * var("terms"),
        vec![
            Stmt::const_(Type::SizeT, "i", var("o") % var("m")),
            Stmt::const_(Type::SizeT, "j", var("o") / var("m")),
            fe::store(
                var("dst"),
                var("o"),
                var("dst_stride"),
                fe::load(
                    var("src"),
                    var("i") * var("terms") + var("j"),
                    var("src_stride"),
                ),
            ),
        ],
    )]
}

/// The CPU's run of [`SplitPass::Forward`] on one device of `g`: `dst` from `src` (G·s
/// elements each) with the rows of [`SplitPass::table`] (its low table of `block` rows),
/// by Horner's rule whatever G.
///
/// ```
/// use fermat_codegen::split::{forward, SplitPass};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let omega = f.root_of_unity(16)?;
/// // Device 1 of G = 2 for N = 16: s = 4 columns, two low rows.
/// let table = SplitPass::Forward.table(&f, &omega, (16, 2, 1), 2);
/// let x: Vec<_> = (1..=8).map(|v| f.from_u64(v)).collect();
/// let mut y = vec![f.zero(); 8];
/// forward(&f, (2, 2), &table, &x, &mut y);
/// // G = 2: y_j = x_j + w_j·x_(s+j) and y_(s+j) = x_j − w_j·x_(s+j), w_j = ω^(c·s + j).
/// let w = f.pow_u64(&omega, 4 + 1);
/// assert_eq!((y[1], y[5]), (f.add(&x[1], &f.mul(&w, &x[5])), f.sub(&x[1], &f.mul(&w, &x[5]))));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn forward<F: Field>(
    field: &F,
    (g, block): (usize, usize),
    table: &[F::Elem],
    src: &[F::Elem],
    dst: &mut [F::Elem],
) {
    let s = src.len() / g;
    let coarse = coarse_row((s, block));
    for j in 0..s {
        let w = column_twiddle(field, table, (s, block), j);
        for k in 0..g {
            let z = field.mul(&w, &table[coarse + k]);
            let acc = horner_cpu(field, &z, g, |t| src[t * s + j]);
            dst[k * s + j] = acc;
        }
    }
}

/// The CPU's run of [`SplitPass::Inverse`] (with `op`, of [`SplitPass::Product`]; with a
/// table without the scale row, of [`SplitPass::Fold`]) on one device of `g`.
///
/// ```
/// use fermat_codegen::split::{forward, inverse, SplitPass};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let omega = f.root_of_unity(16)?;
/// let table = |pass: SplitPass| pass.table(&f, &omega, (16, 2, 1), 2);
/// let x: Vec<_> = (1..=8).map(|v| f.from_u64(v)).collect();
/// let (mut y, mut back) = (vec![f.zero(); 8], vec![f.zero(); 8]);
/// forward(&f, (2, 2), &table(SplitPass::Forward), &x, &mut y);
/// inverse(&f, (2, 2), &table(SplitPass::Inverse), &y, None, &mut back);
/// assert_eq!(back, x);
/// // With an operand: the inverse of the pointwise product, here by 3 throughout.
/// let threes = vec![f.from_u64(3); 8];
/// inverse(&f, (2, 2), &table(SplitPass::Product), &y, Some(&threes), &mut back);
/// assert_eq!(back, x.iter().map(|v| f.mul(v, &threes[0])).collect::<Vec<_>>());
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn inverse<F: Field>(
    field: &F,
    (g, block): (usize, usize),
    table: &[F::Elem],
    src: &[F::Elem],
    op: Option<&[F::Elem]>,
    dst: &mut [F::Elem],
) {
    let s = src.len() / g;
    let y = |i: usize| match op {
        Some(op) => field.mul(&src[i], &op[i]),
        None => src[i],
    };
    let coarse = coarse_row((s, block));
    let scale = table
        .get(coarse + g)
        .copied()
        .unwrap_or_else(|| field.one());
    for j in 0..s {
        let w = column_twiddle(field, table, (s, block), j);
        let mut f = scale;
        for gi in 0..g {
            let acc = horner_cpu(field, &table[coarse + gi], g, |t| y(t * s + j));
            dst[gi * s + j] = field.mul(&acc, &f);
            f = field.mul(&f, &w);
        }
    }
}

/// The CPU's run of [`SplitPass::Transpose`]: dst[j·s + i] = src[i·G + j], s = len/G.
///
/// ```
/// use fermat_codegen::split::transpose;
///
/// let mut dst = [0; 6];
/// transpose(&[0, 1, 2, 3, 4, 5], 2, &mut dst); // 3 × 2 read by columns
/// assert_eq!(dst, [0, 2, 4, 1, 3, 5]);
/// transpose(&[0, 1, 2, 3, 4, 5], 3, &mut dst);
/// assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
/// ```
pub fn transpose<T: Copy>(src: &[T], g: usize, dst: &mut [T]) {
    let s = src.len() / g;
    for (o, d) in dst.iter_mut().enumerate() {
        *d = src[(o % s) * g + o / s];
    }
}

fn horner_cpu<F: Field>(field: &F, z: &F::Elem, g: usize, x: impl Fn(usize) -> F::Elem) -> F::Elem {
    let mut acc = x(g - 1);
    for t in 1..g {
        acc = field.add(&field.mul(&acc, z), &x(g - 1 - t));
    }
    acc
}

#[cfg(test)]
mod tests;
