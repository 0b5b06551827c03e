//! The passes of FFT-based polynomial products besides their transforms, one thread per
//! output coefficient, printed through the typed CUDA AST and run on the CPU exactly as
//! the kernels run.
//!
//! **Products without a power-of-two cliff.** A product c = a·b of length ℓ with
//! N < ℓ ≤ N + m (N, m powers of two, m < N) is recovered from two cyclic products: c mod
//! (x^N − 1), of N points, and c mod (x^m − γ_c) with γ_c = θ^m for θ = ω_{2N}, of m
//! points, after the twist x = θ·y turns it into a cyclic product of the twisted inputs.
//! x^N − 1 ≡ θ^N − 1 = −2 modulo x^m − γ_c, so with R₁ = c mod (x^N − 1) and
//! R₂ = c mod (x^m − γ_c), c = R₁ + (x^N − 1)·Q for the Q of degree below m with
//! Q = (R₂ − (R₁ mod (x^m − γ_c)))·(θ^N − 1)^(−1): a Chinese remainder step of O(ℓ)
//! work. The cost is that of a product of N points plus one of m points, instead of one of
//! 2N: the time grows with the length, not with the next power of two.
//!
//! - [`ProductPass::Fold`] reduces and twists an input: out_i = θ^i·Σ_t γ_c^t·in_(i + t·m).
//! - [`ProductPass::Recombine`] turns R₁ (in place, the product's first N coefficients)
//!   and the twisted R₂ into c.
//! - [`ProductPass::OverlapAdd`] sums the block products of an unbalanced product,
//!   c_t = Σ_b r_(b, t − b·s) for the blocks of s coefficients of the longer operand.
//!
//! Every pass reads its constants from a table of rows in the field's table form (the
//! runtime fills it, [`ProductPass::table`]): the kernels are the same for every size, so
//! one file per field holds them all.
//!
//! ```
//! use fermat_codegen::poly::ProductPass;
//! let k = ProductPass::Fold.kernel();
//! assert!(k.to_string().contains("fe_load_row(tw, m + t)"));
//! ```

use crate::contract::Arg;
use crate::cost::FieldShape;
use crate::cuda::{fe, Expr, ForLoop, Kernel, Stmt, Type};
use crate::error::CodegenError;
use crate::euclid::EuclidPass;
use crate::header::Header;
use crate::plain::{PlainPass, Tile};
use crate::split::SplitPass;
use crate::unit;
use fermat_dsl::field::{geometric, AnyField, Field};

/// A pass of a product besides its transforms.
///
/// ```
/// use fermat_codegen::poly::{ProductPass, THREADS};
/// use fermat_dsl::field::{Field, Fp32};
///
/// // Every pass prints with its launch bound; only the overlap-add has no table.
/// let f = Fp32::new(17)?;
/// let theta = f.root_of_unity(8)?;
/// for pass in ProductPass::ALL {
///     let bound = format!("__launch_bounds__({THREADS}) {}(", pass.name());
///     assert!(pass.kernel().to_string().contains(&bound), "{bound}");
///     let rows = pass.table(&f, &theta, 2, 2).len();
///     assert_eq!(rows, if pass == ProductPass::OverlapAdd { 0 } else { 4 });
/// }
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProductPass {
    /// out_i = θ^i · Σ_(t < terms) γ_c^t · in_(i + t·m) for i < m (in_e = 0 for e at or
    /// beyond `src_len`): an input of the product reduced modulo x^m − γ_c and twisted by
    /// θ, the input of the cyclic product of m points. Table: θ^i (rows i < m), then γ_c^t
    /// (rows m + t).
    Fold,
    /// For i < m, with N = terms·m: q_i = θ^(−i)·(θ^N − 1)^(−1)·r_i − Σ_(t < terms)
    /// (θ^N − 1)^(−1)·γ_c^t·c_(i + t·m), then c_i ← c_i − q_i and c_(N + i) ← q_i where
    /// N + i < `dst_len`; r is the cyclic product of the twisted inputs (m points), c holds
    /// R₁ in its first N coefficients. Table: θ^(−i)·(θ^N − 1)^(−1) (rows i < m), then
    /// (θ^N − 1)^(−1)·γ_c^t (rows m + t).
    Recombine,
    /// c_t = Σ_b r_(b·m + t − b·s) over the blocks b < terms with 0 ≤ t − b·s < m, for
    /// t < `dst_len`: the products of m points of the blocks of s = `block` coefficients of
    /// the longer operand with the shorter one, laid out one after another in r, added
    /// where they overlap. No table.
    OverlapAdd,
}

/// The arguments of [`ProductPass::Fold`], in order.
///
/// ```
/// use fermat_codegen::poly::{ProductPass, FOLD_ARGS};
///
/// let names: Vec<&str> = FOLD_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["src", "dst", "tw", "src_len", "src_stride", "m", "terms"]);
/// assert_eq!(ProductPass::Fold.args(), &FOLD_ARGS);
/// ```
pub const FOLD_ARGS: [Arg; 7] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Size,
    Arg::Terms,
];

/// The arguments of [`ProductPass::Recombine`], in order: the twisted product in, the
/// product's coefficients updated in place.
///
/// ```
/// use fermat_codegen::poly::RECOMBINE_ARGS;
///
/// let names: Vec<&str> = RECOMBINE_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["src", "dst", "tw", "dst_len", "dst_stride", "m", "terms"]);
/// ```
pub const RECOMBINE_ARGS: [Arg; 7] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::Size,
    Arg::Terms,
];

/// The arguments of [`ProductPass::OverlapAdd`], in order: no table, and the blocks'
/// shift.
///
/// ```
/// use fermat_codegen::poly::OVERLAP_ADD_ARGS;
///
/// let names: Vec<&str> = OVERLAP_ADD_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names[..5], ["src", "dst", "src_stride", "dst_len", "dst_stride"]);
/// assert_eq!(names[5..], ["m", "terms", "block"]);
/// ```
pub const OVERLAP_ADD_ARGS: [Arg; 8] = [
    Arg::Source,
    Arg::Destination,
    Arg::SourceStride,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::Size,
    Arg::Terms,
    Arg::Block,
];

/// Threads per block of the passes (and of the split passes, which share their launches).
///
/// ```
/// use fermat_codegen::poly::{ProductPass, THREADS};
///
/// assert_eq!(THREADS, fermat_codegen::split::THREADS);
/// let text = ProductPass::Recombine.kernel().to_string();
/// assert!(text.contains("__launch_bounds__(256) product_recombine("));
/// ```
pub const THREADS: u32 = 256;

fn var(name: &str) -> Expr {
    Expr::var(name)
}

/// `fe_mul_mont(value, row of tw)`.
fn times_row(value: Expr, row: Expr) -> Expr {
    fe::mul_mont(value, fe::load_row(var("tw"), row))
}

impl ProductPass {
    /// Every pass.
    ///
    /// ```
    /// use fermat_codegen::poly::ProductPass;
    ///
    /// let names: Vec<&str> = ProductPass::ALL.iter().map(|p| p.name()).collect();
    /// assert_eq!(names, ["product_fold", "product_recombine", "product_overlap_add"]);
    /// ```
    pub const ALL: [ProductPass; 3] = [
        ProductPass::Fold,
        ProductPass::Recombine,
        ProductPass::OverlapAdd,
    ];

    /// The kernel's name, by which the runtime finds it in the compiled module.
    ///
    /// ```
    /// use fermat_codegen::poly::ProductPass;
    ///
    /// assert_eq!(ProductPass::OverlapAdd.name(), "product_overlap_add");
    /// assert_eq!(ProductPass::OverlapAdd.kernel().name, "product_overlap_add");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ProductPass::Fold => "product_fold",
            ProductPass::Recombine => "product_recombine",
            ProductPass::OverlapAdd => "product_overlap_add",
        }
    }

    /// The kernel's arguments, in order: the kernel's parameters, one each.
    ///
    /// ```
    /// use fermat_codegen::poly::{ProductPass, OVERLAP_ADD_ARGS};
    ///
    /// assert_eq!(ProductPass::OverlapAdd.args(), &OVERLAP_ADD_ARGS);
    /// let k = ProductPass::OverlapAdd.kernel();
    /// let params: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
    /// assert_eq!(params, OVERLAP_ADD_ARGS.map(|a| a.name()));
    /// ```
    pub fn args(self) -> &'static [Arg] {
        match self {
            ProductPass::Fold => &FOLD_ARGS,
            ProductPass::Recombine => &RECOMBINE_ARGS,
            ProductPass::OverlapAdd => &OVERLAP_ADD_ARGS,
        }
    }

    /// The kernel: a grid-stride loop over the output coefficients (launch any grid of
    /// [`THREADS`]-thread blocks).
    ///
    /// ```
    /// use fermat_codegen::poly::ProductPass;
    ///
    /// let k = ProductPass::Recombine.kernel();
    /// k.check()?;
    /// // R₁'s coefficient i less q_i, and q_i above N where the product reaches.
    /// let text = k.to_string();
    /// assert!(text.contains("const size_t high = terms * m + i;"));
    /// assert!(text.contains("if (high < dst_len)"));
    /// # Ok::<(), fermat_codegen::CodegenError>(())
    /// ```
    pub fn kernel(self) -> Kernel {
        let body = match self {
            ProductPass::Fold => fold_body(),
            ProductPass::Recombine => recombine_body(),
            ProductPass::OverlapAdd => overlap_add_body(),
        };
        let params = self.args().iter().map(|a| a.param()).collect();
        Kernel::new(self.name(), params, body)
            .doc(self.summary())
            .launch_bounds(THREADS)
    }

    fn summary(self) -> &'static str {
        match self {
            ProductPass::Fold => "out[i] = theta^i * sum_t c^t * in[i + t*m]: reduce mod x^m - c and twist",
            ProductPass::Recombine => {
                "c from c mod (x^N - 1) and the twisted c mod (x^m - c'): the Chinese remainder step"
            }
            ProductPass::OverlapAdd => "c[t] = sum_b r[b*m + t - b*s]: the block products added",
        }
    }

    /// The rows of the pass's table, as field elements (the runtime writes them in the
    /// table form of [`crate::kernel::table_form`]): for a product of N + m points twisted
    /// by θ = `theta` (a primitive 2N-th root of unity), m = `m`, N = terms·m.
    ///
    /// ```
    /// use fermat_codegen::poly::ProductPass;
    /// use fermat_dsl::field::{Field, Fp32};
    ///
    /// let f = Fp32::new(17)?;
    /// let theta = f.root_of_unity(8)?; // N = 4 = 2·2
    /// let t = |i: u64| f.pow_u64(&theta, i);
    /// // θ^i, then γ_c^t = θ^(m·t).
    /// assert_eq!(ProductPass::Fold.table(&f, &theta, 2, 2), [t(0), t(1), t(0), t(2)]);
    /// // (θ^N − 1)^−1 = (−2)^−1 = 8 times θ^−i, then times γ_c^t.
    /// let rows = ProductPass::Recombine.table(&f, &theta, 2, 2);
    /// let eight = |x| f.mul(&f.from_u64(8), &x);
    /// assert_eq!(rows, [eight(t(0)), eight(t(7)), eight(t(0)), eight(t(2))]);
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn table<F: Field>(self, field: &F, theta: &F::Elem, m: u64, terms: u64) -> Vec<F::Elem> {
        let powers =
            |step: &F::Elem, count: u64, scale: &F::Elem| geometric(field, scale, step, count);
        let c = field.pow_u64(theta, m);
        match self {
            ProductPass::Fold => {
                let mut rows = powers(theta, m, &field.one());
                rows.extend(powers(&c, terms, &field.one()));
                rows
            }
            ProductPass::Recombine => {
                // θ^N − 1 = −2 for a primitive 2N-th root θ: invertible in every odd field.
                let gamma = field.sub(&field.pow_u64(theta, m * terms), &field.one());
                let gamma_inv = field
                    .inv(&gamma)
                    .expect("θ^N − 1 = −2 is invertible in a field of odd characteristic");
                let theta_inv = field.inv(theta).expect("a root of unity is invertible");
                let mut rows = powers(&theta_inv, m, &gamma_inv);
                rows.extend(powers(&c, terms, &gamma_inv));
                rows
            }
            ProductPass::OverlapAdd => Vec::new(),
        }
    }
}

/// The CUDA file of the passes for `field`: header, prelude, the three passes of FFT-based
/// products, the kernels of plain products ([`crate::plain`]), the on-chip Euclidean
/// algorithm ([`crate::euclid`]) and the passes of transforms split over devices
/// ([`crate::split`]).
///
/// ```
/// use fermat_dsl::field::AnyField;
///
/// let src = fermat_codegen::poly::source(&AnyField::from_spec("babybear")?)?;
/// assert!(src.contains("// Device prelude for babybear"));
/// for name in ["product_fold(", "plain_series(", "euclid_window_trail(", "split_transpose("] {
///     assert!(src.contains(name), "{name}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn source(field: &AnyField) -> Result<String, CodegenError> {
    let header = Header::new(
        "fermat::poly::PolyRing (the passes of FFT-based products)",
        crate::prelude::describe(field),
    )
    .note("fold, recombine, overlap_add: one thread per output coefficient, any size")
    .note("plain_product, plain_reduce: plain products and middle products, tiles of outputs")
    .note("plain_reverse, plain_difference: the reversals and differences of division")
    .note("euclid_gcd: a whole remainder sequence per block, in shared memory")
    .note("split_forward, split_inverse, split_product, split_transpose: transforms split over devices");
    let tile = Tile::for_element_bytes(FieldShape::of(field).element_bytes);
    let kernels: Vec<Kernel> = ProductPass::ALL
        .iter()
        .map(|p| p.kernel())
        .chain(PlainPass::ALL.iter().map(|p| p.kernel(tile)))
        .chain(EuclidPass::ALL.iter().map(|p| p.kernel()))
        .chain(SplitPass::ALL.iter().map(|p| p.kernel()))
        .collect();
    unit::render(&header, field, &[], &kernels)
}

fn fold_body() -> Vec<Stmt> {
    let term = Stmt::if_(
        var("e").lt(var("src_len")),
        vec![Stmt::assign(
            var("acc"),
            fe::add(
                var("acc"),
                times_row(
                    fe::load(var("src"), var("e"), var("src_stride")),
                    var("m") + var("t"),
                ),
            ),
        )],
    );
    let terms = ForLoop::range("t", Type::SizeT, Expr::u64(0), var("terms")).body(vec![
        Stmt::const_(Type::SizeT, "e", var("i") + var("t") * var("m")),
        term,
    ]);
    vec![Stmt::grid_stride_loop(
        "i",
        var("m"),
        vec![
            Stmt::let_(Type::Fe, "acc", fe::zero()),
            Stmt::For(terms),
            fe::store(
                var("dst"),
                var("i"),
                var("m"),
                times_row(var("acc"), var("i")),
            ),
        ],
    )]
}

fn recombine_body() -> Vec<Stmt> {
    let c_at = |index: Expr| fe::load(var("dst"), index, var("dst_stride"));
    let terms =
        ForLoop::range("t", Type::SizeT, Expr::u64(0), var("terms")).body(vec![Stmt::assign(
            var("s"),
            fe::add(
                var("s"),
                times_row(c_at(var("i") + var("t") * var("m")), var("m") + var("t")),
            ),
        )]);
    vec![Stmt::grid_stride_loop(
        "i",
        var("m"),
        vec![
            Stmt::let_(Type::Fe, "s", fe::zero()),
            Stmt::For(terms),
            Stmt::const_(
                Type::Fe,
                "q",
                fe::sub(
                    times_row(fe::load(var("src"), var("i"), var("m")), var("i")),
                    var("s"),
                ),
            ),
            fe::store(
                var("dst"),
                var("i"),
                var("dst_stride"),
                fe::sub(c_at(var("i")), var("q")),
            ),
            Stmt::const_(Type::SizeT, "high", var("terms") * var("m") + var("i")),
            Stmt::if_(
                var("high").lt(var("dst_len")),
                vec![fe::store(
                    var("dst"),
                    var("high"),
                    var("dst_stride"),
                    var("q"),
                )],
            ),
        ],
    )]
}

fn overlap_add_body() -> Vec<Stmt> {
    // Blocks b with 0 ≤ t − b·s < m: from ⌈(t + 1 − m)/s⌉ (0 for t < m) to ⌊t/s⌋.
    let first = Expr::select(
        var("t").lt(var("m")),
        Expr::u64(0),
        (var("t") + Expr::u64(1) - var("m") + var("block") - Expr::u64(1)) / var("block"),
    );
    let last = var("t") / var("block") + Expr::u64(1);
    let end = Expr::select(last.clone().lt(var("terms")), last, var("terms"));
    let blocks =
        ForLoop::range("b", Type::SizeT, var("first"), var("end")).body(vec![Stmt::assign(
            var("acc"),
            fe::add(
                var("acc"),
                fe::load(
                    var("src"),
                    var("b") * var("m") + var("t") - var("b") * var("block"),
                    var("src_stride"),
                ),
            ),
        )]);
    vec![Stmt::grid_stride_loop(
        "t",
        var("dst_len"),
        vec![
            Stmt::let_(Type::Fe, "acc", fe::zero()),
            Stmt::const_(Type::SizeT, "first", first),
            Stmt::const_(Type::SizeT, "end", end),
            Stmt::For(blocks),
            fe::store(var("dst"), var("t"), var("dst_stride"), var("acc")),
        ],
    )]
}

/// The CPU's run of [`ProductPass::Fold`]: `out` (m elements) from `input` (its length is
/// `src_len`), with the rows of [`ProductPass::table`].
///
/// The kernel sums per output; the CPU sums row by row (out += row t · table[m + t]), the
/// same sums in another order, so that the inner loop streams over whole rows.
///
/// ```
/// use fermat_codegen::poly::{fold, ProductPass};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// let theta = f.root_of_unity(8)?;
/// let table = ProductPass::Fold.table(&f, &theta, 2, 2);
/// let mut out = e(&[0, 0]);
/// fold(&f, &table, &e(&[1, 2, 3, 4]), &mut out);
/// // 1 + 2x + 3x² + 4x³ mod x² − γ (γ = θ²): (1 + 3γ) + (2 + 4γ)·x, then x → θ·x.
/// let gamma = f.mul(&theta, &theta);
/// let low = f.add(&e(&[1])[0], &f.mul(&gamma, &e(&[3])[0]));
/// let high = f.mul(&theta, &f.add(&e(&[2])[0], &f.mul(&gamma, &e(&[4])[0])));
/// assert_eq!(out, [low, high]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn fold<F: Field>(field: &F, table: &[F::Elem], input: &[F::Elem], out: &mut [F::Elem]) {
    let m = out.len();
    let terms = table.len() - m;
    out.fill(field.zero());
    for (row, c) in input.chunks(m.max(1)).zip(&table[m..m + terms]) {
        for (o, x) in out.iter_mut().zip(row) {
            *o = field.add(o, &field.mul(x, c));
        }
    }
    for (o, w) in out.iter_mut().zip(&table[..m]) {
        *o = field.mul(o, w);
    }
}

/// The CPU's run of [`ProductPass::Recombine`]: `c` (the product's coefficients, R₁ in
/// the first N = terms·m) from the twisted cyclic product `r` (m elements).
///
/// As in [`fold`], the sums s_i = Σ_t c[i + t·m]·table[m + t] are taken row by row; they
/// read only the first terms·m coefficients, which the update below writes after.
///
/// ```
/// use fermat_codegen::poly::{fold, recombine, ProductPass};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// let theta = f.root_of_unity(8)?; // θ = ω_2N, N = 4
/// // (1 + x + x²)² has 5 coefficients: N = 4 of them mod x^4 − 1, m = 1 mod x − θ.
/// let a = e(&[1, 1, 1]);
/// let mut twisted = e(&[0]);
/// fold(&f, &ProductPass::Fold.table(&f, &theta, 1, 3), &a, &mut twisted); // a(θ)
/// let r = [f.mul(&twisted[0], &twisted[0])];
/// let mut c = e(&[2, 2, 3, 2, 0]); // the cyclic product of 4 points, then room
/// recombine(&f, &ProductPass::Recombine.table(&f, &theta, 1, 4), &r, &mut c);
/// assert_eq!(c, e(&[1, 2, 3, 2, 1]));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn recombine<F: Field>(field: &F, table: &[F::Elem], r: &[F::Elem], c: &mut [F::Elem]) {
    let m = r.len();
    let terms = table.len() - m;
    let mut s = vec![field.zero(); m];
    for (row, w) in c[..terms * m].chunks(m.max(1)).zip(&table[m..]) {
        for (si, x) in s.iter_mut().zip(row) {
            *si = field.add(si, &field.mul(x, w));
        }
    }
    for i in 0..m {
        let q = field.sub(&field.mul(&r[i], &table[i]), &s[i]);
        c[i] = field.sub(&c[i], &q);
        if let Some(high) = c.get_mut(terms * m + i) {
            *high = q;
        }
    }
}

/// The CPU's run of [`ProductPass::OverlapAdd`]: `c` from the `terms` block products of m
/// elements each in `r`, block b shifted by b·`block`.
///
/// Output t is the sum of r[b·m + t − b·block] over the blocks with b·block ≤ t <
/// b·block + m; the CPU adds block after block into place.
///
/// ```
/// use fermat_codegen::poly::overlap_add;
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // (1 + x + x² + x³)(1 + x) from blocks of two: (1 + x)² twice, in products of m = 4.
/// let r = e(&[1, 2, 1, 0, 1, 2, 1, 0]);
/// let mut c = e(&[0; 5]);
/// overlap_add(&f, &r, 4, 2, &mut c);
/// assert_eq!(c, e(&[1, 2, 2, 2, 1]));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn overlap_add<F: Field>(field: &F, r: &[F::Elem], m: usize, block: usize, c: &mut [F::Elem]) {
    let terms = r.len() / m;
    c.fill(field.zero());
    for (b, product) in r.chunks(m).take(terms).enumerate() {
        let Some(window) = c.get_mut(b * block..) else {
            break;
        };
        for (out, x) in window.iter_mut().zip(product) {
            *out = field.add(out, x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::Fp32;

    fn schoolbook(f: &Fp32, a: &[u64], b: &[u64]) -> Vec<<Fp32 as Field>::Elem> {
        let mut c = vec![f.zero(); a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                c[i + j] = f.add(&c[i + j], &f.mul(&f.from_u64(*x), &f.from_u64(*y)));
            }
        }
        c
    }

    /// The cyclic product of n points, by definition.
    fn cyclic(
        f: &Fp32,
        a: &[<Fp32 as Field>::Elem],
        b: &[<Fp32 as Field>::Elem],
        n: usize,
    ) -> Vec<<Fp32 as Field>::Elem> {
        let mut c = vec![f.zero(); n];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                c[(i + j) % n] = f.add(&c[(i + j) % n], &f.mul(x, y));
            }
        }
        c
    }

    #[test]
    fn two_cyclic_products_recombine_into_the_whole() {
        let f = Fp32::new(469762049).unwrap();
        for (la, lb, n, m) in [
            (33, 33, 64, 1),
            (40, 41, 64, 16),
            (48, 49, 64, 32),
            (10, 60, 64, 8),
        ] {
            let a: Vec<u64> = (0..la as u64).map(|i| i * i + 3).collect();
            let b: Vec<u64> = (0..lb as u64).map(|i| 7 * i + 1).collect();
            let want = schoolbook(&f, &a, &b);
            let lc = want.len();
            assert!(lc > n && lc <= n + m);
            let ae: Vec<_> = a.iter().map(|&x| f.from_u64(x)).collect();
            let be: Vec<_> = b.iter().map(|&x| f.from_u64(x)).collect();
            let theta = f.root_of_unity(2 * n as u64).unwrap();
            let terms = (lc as u64).div_ceil(m as u64);
            let fold_table = ProductPass::Fold.table(&f, &theta, m as u64, terms);
            let (mut fa, mut fb) = (vec![f.zero(); m], vec![f.zero(); m]);
            fold(&f, &fold_table, &ae, &mut fa);
            fold(&f, &fold_table, &be, &mut fb);
            let r = cyclic(&f, &fa, &fb, m);
            let mut c = cyclic(&f, &ae, &be, n);
            c.resize(lc, f.zero());
            let table = ProductPass::Recombine.table(&f, &theta, m as u64, n as u64 / m as u64);
            recombine(&f, &table, &r, &mut c);
            assert!(c == want, "{la} × {lb} from {n} + {m} points");
        }
    }

    #[test]
    fn block_products_overlap_add_into_the_whole() {
        let f = Fp32::new(469762049).unwrap();
        let (la, lb, m) = (50usize, 5usize, 16usize);
        let block = m - lb + 1;
        let a: Vec<u64> = (0..la as u64).map(|i| i * 31 + 2).collect();
        let b: Vec<u64> = (0..lb as u64).map(|i| i + 9).collect();
        let want = schoolbook(&f, &a, &b);
        let mut r = Vec::new();
        for chunk in a.chunks(block) {
            let mut p = schoolbook(&f, chunk, &b);
            p.resize(m, f.zero());
            r.extend(p);
        }
        let mut c = vec![f.zero(); want.len()];
        overlap_add(&f, &r, m, block, &mut c);
        assert!(c == want);
    }

    #[test]
    fn kernels_take_their_arguments() {
        for pass in ProductPass::ALL {
            crate::contract::assert_takes(&pass.kernel(), pass.args());
        }
    }
}
