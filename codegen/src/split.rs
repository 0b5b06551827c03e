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
//! The s twiddles w are read from two short tables, w = ω_N^j_lo · ω_N^(c·s + T·j_hi) for
//! j = j_lo + T·j_hi, T = [`low_rows`]\(s) ≈ √s: a table of all s rows would be as large
//! as a quarter of the data at G = 2 (P6 at N = 2^27: 16 GiB per device and direction),
//! while the pass multiplies by w at most G times per j anyway.

use crate::contract::Arg;
use crate::cuda::{fe, Expr, ForLoop, Kernel, Stmt, Type};
use fermat_dsl::field::geometric;
use fermat_dsl::field::Field;

/// A pass of a split transform besides its local transforms.
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
    /// dst[j·s + i] = src[i·G + j] for i < s = `m`, j < G = `terms`: L(s·G, G).
    Transpose,
}

/// The arguments of [`SplitPass::Forward`] and [`SplitPass::Inverse`], in order.
pub const SPLIT_ARGS: [Arg; 8] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceStride,
    Arg::DestinationStride,
    Arg::Size,
    Arg::Terms,
    Arg::Block,
];

/// The arguments of [`SplitPass::Product`], in order.
pub const SPLIT_PRODUCT_ARGS: [Arg; 9] = [
    Arg::Source,
    Arg::Operand,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceStride,
    Arg::DestinationStride,
    Arg::Size,
    Arg::Terms,
    Arg::Block,
];

/// The arguments of [`SplitPass::Transpose`], in order.
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

/// Where the rows of ω_G's powers start, after the low and the high table.
fn coarse_start() -> Expr {
    var("block") + var("m") / var("block")
}

/// `w`, the twiddle of column j in table form, from its low and its high row.
fn twiddle_of_column() -> Stmt {
    // Products of table rows stay in table form.
    Stmt::const_(
        Type::Fe,
        "w",
        fe::mul_mont(
            row(var("j") % var("block")),
            row(var("block") + var("j") / var("block")),
        ),
    )
}

impl SplitPass {
    /// Every pass.
    pub const ALL: [SplitPass; 4] = [
        SplitPass::Forward,
        SplitPass::Inverse,
        SplitPass::Product,
        SplitPass::Transpose,
    ];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            SplitPass::Forward => "split_forward",
            SplitPass::Inverse => "split_inverse",
            SplitPass::Product => "split_product",
            SplitPass::Transpose => "split_transpose",
        }
    }

    /// The kernel's arguments, in order.
    pub fn args(self) -> &'static [Arg] {
        match self {
            SplitPass::Forward | SplitPass::Inverse => &SPLIT_ARGS,
            SplitPass::Product => &SPLIT_PRODUCT_ARGS,
            SplitPass::Transpose => &TRANSPOSE_ARGS,
        }
    }

    /// The kernel: a grid-stride loop over j < s (launch any grid of [`THREADS`]-thread
    /// blocks).
    pub fn kernel(self) -> Kernel {
        let body = match self {
            SplitPass::Forward => forward_body(),
            SplitPass::Inverse => inverse_body(false),
            SplitPass::Product => inverse_body(true),
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
            SplitPass::Transpose => "dst[j*s + i] = src[i*G + j]: the stride permutation L(s*G, G)",
        }
    }

    /// The rows of the pass's table on device `c` of G, for N points with ω_N = `omega`
    /// (the runtime writes them in the table form of [`crate::kernel::table_form`]);
    /// empty for [`SplitPass::Transpose`]. About 2·√s + G rows, s = N/G².
    pub fn table<F: Field>(
        self,
        field: &F,
        omega: &F::Elem,
        n: u64,
        g: u64,
        c: u64,
    ) -> Vec<F::Elem> {
        let s = n / g / g;
        let t = low_rows(s);
        let inverse = |x: &F::Elem| field.inv(x).expect("a root of unity is invertible");
        let powers = |step: &F::Elem, start: &F::Elem, count| geometric(field, start, step, count);
        let (omega, omega_g) = match self {
            SplitPass::Forward => (*omega, field.pow_u64(omega, n / g)),
            SplitPass::Inverse | SplitPass::Product => {
                let back = inverse(omega);
                (back, field.pow_u64(&back, n / g))
            }
            SplitPass::Transpose => return Vec::new(),
        };
        let mut rows = powers(&omega, &field.one(), t);
        rows.extend(powers(
            &field.pow_u64(&omega, t),
            &field.pow_u64(&omega, c * s),
            s.div_ceil(t),
        ));
        rows.extend(powers(&omega_g, &field.one(), g));
        if self != SplitPass::Forward {
            rows.push(inverse(&field.from_u64(g)));
        }
        rows
    }
}

/// w_j of a table of [`SplitPass::table`] over s columns.
fn column_twiddle<F: Field>(field: &F, table: &[F::Elem], s: usize, j: usize) -> F::Elem {
    let t = low_rows(s as u64) as usize;
    field.mul(&table[j % t], &table[t + j / t])
}

/// Where ω_G's rows start in a table of [`SplitPass::table`] over s columns.
fn coarse_row(s: usize) -> usize {
    let t = low_rows(s as u64) as usize;
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

fn forward_body() -> Vec<Stmt> {
    let x = |t: Expr| fe::load(var("src"), t * var("m") + var("j"), var("src_stride"));
    let mut per_output = vec![Stmt::const_(
        Type::Fe,
        "z",
        fe::mul_mont(var("w"), row(coarse_start() + var("k"))),
    )];
    per_output.extend(horner(var("z"), x));
    per_output.push(fe::store(
        var("dst"),
        var("k") * var("m") + var("j"),
        var("dst_stride"),
        var("acc"),
    ));
    vec![Stmt::grid_stride_loop(
        "j",
        var("m"),
        vec![
            twiddle_of_column(),
            Stmt::For(
                ForLoop::range("k", Type::SizeT, Expr::u64(0), var("terms")).body(per_output),
            ),
        ],
    )]
}

fn inverse_body(product: bool) -> Vec<Stmt> {
    let y = move |t: Expr| {
        let at = t * var("m") + var("j");
        let v = fe::load(var("src"), at.clone(), var("src_stride"));
        if product {
            fe::mul(v, fe::load(var("op"), at, var("src_stride")))
        } else {
            v
        }
    };
    let mut per_output = horner(row(coarse_start() + var("g")), y);
    per_output.extend([
        fe::store(
            var("dst"),
            var("g") * var("m") + var("j"),
            var("dst_stride"),
            fe::mul_mont(var("acc"), var("f")),
        ),
        Stmt::assign(var("f"), fe::mul_mont(var("f"), var("w"))),
    ]);
    vec![Stmt::grid_stride_loop(
        "j",
        var("m"),
        vec![
            twiddle_of_column(),
            Stmt::let_(Type::Fe, "f", row(coarse_start() + var("terms"))),
            Stmt::For(
                ForLoop::range("g", Type::SizeT, Expr::u64(0), var("terms")).body(per_output),
            ),
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
/// elements each) with the rows of [`SplitPass::table`].
pub fn forward<F: Field>(
    field: &F,
    g: usize,
    table: &[F::Elem],
    src: &[F::Elem],
    dst: &mut [F::Elem],
) {
    let s = src.len() / g;
    let coarse = coarse_row(s);
    for j in 0..s {
        let w = column_twiddle(field, table, s, j);
        for k in 0..g {
            let z = field.mul(&w, &table[coarse + k]);
            let acc = horner_cpu(field, &z, g, |t| src[t * s + j]);
            dst[k * s + j] = acc;
        }
    }
}

/// The CPU's run of [`SplitPass::Inverse`] (with `op`, of [`SplitPass::Product`]) on one
/// device of `g`.
pub fn inverse<F: Field>(
    field: &F,
    g: usize,
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
    let coarse = coarse_row(s);
    for j in 0..s {
        let w = column_twiddle(field, table, s, j);
        let mut f = table[coarse + g];
        for gi in 0..g {
            let acc = horner_cpu(field, &table[coarse + gi], g, |t| y(t * s + j));
            dst[gi * s + j] = field.mul(&acc, &f);
            f = field.mul(&f, &w);
        }
    }
}

/// The CPU's run of [`SplitPass::Transpose`]: dst[j·s + i] = src[i·G + j], s = len/G.
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
mod tests {
    use super::*;
    use fermat_dsl::field::Fp32;
    use fermat_dsl::formula::Formula;
    use fermat_dsl::interp::Interpreter;

    /// The forward pass after an exchange is the split's last stages, (I(G) ⊗ DFT(G) ⊗
    /// I(s)) · D(G, M) taken on the exchanged index, and the inverse undoes it.
    #[test]
    fn the_passes_are_the_twiddled_dft_and_its_inverse() {
        let f = Fp32::new(469762049).unwrap();
        let mut interp = Interpreter::new(&f);
        let (n, g) = (256u64, 4u64);
        let (m, s) = (n / g, n / g / g);
        let omega = interp.root(n).unwrap();
        // The whole vector before the twiddles, in blocks.
        let x: Vec<_> = (0..n).map(|i| f.from_u64(i * 31 + 5)).collect();
        let twiddled: Vec<_> = (0..n)
            .map(|i| f.mul(&x[i as usize], &f.pow_u64(&omega, (i / m) * (i % m))))
            .collect();
        let dft_g = Formula::tensor(vec![Formula::Dft(g), Formula::Identity(m)]).unwrap();
        let want = interp.apply(&dft_g, &twiddled).unwrap();
        for c in 0..g {
            // Device c's slots after the exchange: chunk c of every block.
            let slots: Vec<_> = (0..g)
                .flat_map(|b| (0..s).map(move |j| b * m + c * s + j))
                .map(|i| x[i as usize])
                .collect();
            let mut y = vec![f.zero(); slots.len()];
            forward(
                &f,
                g as usize,
                &SplitPass::Forward.table(&f, &omega, n, g, c),
                &slots,
                &mut y,
            );
            for k in 0..g {
                for j in 0..s {
                    assert_eq!(y[(k * s + j) as usize], want[(k * m + c * s + j) as usize]);
                }
            }
            let mut back = vec![f.zero(); y.len()];
            let table = SplitPass::Inverse.table(&f, &omega, n, g, c);
            inverse(&f, g as usize, &table, &y, None, &mut back);
            assert_eq!(back, slots, "device {c}");
            let ones = vec![f.one(); y.len()];
            inverse(&f, g as usize, &table, &y, Some(&ones), &mut back);
            assert_eq!(back, slots, "device {c}, a product by ones");
        }
    }

    #[test]
    fn transposes_are_the_stride_permutations() {
        let f = Fp32::new(17).unwrap();
        let mut interp = Interpreter::new(&f);
        let x: Vec<_> = (0..32u64).map(|i| f.from_u64(i)).collect();
        for g in [2usize, 4, 8] {
            let mut y = vec![f.zero(); 32];
            transpose(&x, g, &mut y);
            let l = Formula::Stride { n: 32, m: g as u64 };
            assert_eq!(y, interp.apply(&l, &x).unwrap(), "G = {g}");
            let mut back = vec![f.zero(); 32];
            transpose(&y, 32 / g, &mut back);
            assert_eq!(back, x);
        }
    }

    #[test]
    fn kernels_take_their_arguments() {
        for pass in SplitPass::ALL {
            crate::contract::assert_takes(&pass.kernel(), pass.args());
        }
    }
}
