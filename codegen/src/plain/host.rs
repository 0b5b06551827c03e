//! The plain kernels' arithmetic run on the CPU in Rust, step for step: the references the
//! kernels are checked against.

#[cfg(doc)]
use super::PlainPass;
use super::Tile;
use fermat_dsl::field::Field;

/// The power-series inverse of f mod x^n, extended from the coefficients `g` holds (from
/// 1/f_0 when it holds none, as a kernel of [`Tile::inverts`] does) as
/// [`PlainPass::Series`] extends it: the CPU's run of the kernel.
///
/// ```
/// use fermat_codegen::plain::plain_series;
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(469762049)?;
/// let one_minus_x = [f.one(), f.neg(&f.one())];
/// let mut g = vec![f.one()]; // 1/f_0
/// plain_series(&f, &one_minus_x, &mut g, 5); // 1/(1 − x) = 1 + x + x² + …
/// assert!(g.len() == 5 && g.iter().all(|c| *c == f.one()));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn plain_series<F: Field>(field: &F, f: &[F::Elem], g: &mut Vec<F::Elem>, n: usize) {
    let coeff = |j: usize| f.get(j).cloned().unwrap_or_else(|| field.zero());
    g.truncate(n);
    if g.is_empty() && n > 0 {
        // From nothing, as a kernel of [`Tile::inverts`] starts: 1/f_0, and 0 for 0.
        g.push(field.inv(&coeff(0)).unwrap_or_else(|_| field.zero()));
    }
    while g.len() < n {
        let have = g.len();
        let step = have.min(n - have);
        let e: Vec<F::Elem> = (0..step)
            .map(|t| {
                (0..have).fold(field.zero(), |acc, i| {
                    field.add(&acc, &field.mul(&g[i], &coeff(have + t - i)))
                })
            })
            .collect();
        for t in 0..step {
            let h = (0..=t).fold(field.zero(), |acc, i| {
                field.add(&acc, &field.mul(&g[i], &e[t - i]))
            });
            g.push(field.neg(&h));
        }
    }
}

/// The outputs lo..lo + `out.len()` of a·b by the kernels' decomposition into tiles of
/// `tile.outputs` outputs and chunks of `chunk` terms, each chunk's partial sums added in
/// order as [`PlainPass::Reduce`] adds them: the CPU's run of the kernels, for one product.
///
/// ```
/// use fermat_codegen::plain::{plain_mul, Tile};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // Tiles of two outputs, chunks of one term: (1 + x)(1 + 2x + x²) = 1 + 3x + 3x² + x³.
/// let tile = Tile { outputs: 2, chunk: 1, series: 16, inverts: true };
/// let (a, b) = (e(&[1, 1]), e(&[1, 2, 1]));
/// let mut out = e(&[0; 4]);
/// plain_mul(&f, &a, &b, 0, tile, 1, &mut out);
/// assert_eq!(out, e(&[1, 3, 3, 1]));
/// // The middle product: coefficients 1 and 2 only.
/// let mut middle = e(&[0; 2]);
/// plain_mul(&f, &a, &b, 1, tile, 1, &mut middle);
/// assert_eq!(middle, e(&[3, 3]));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn plain_mul<F: Field>(
    field: &F,
    a: &[F::Elem],
    b: &[F::Elem],
    lo: usize,
    tile: Tile,
    chunk: usize,
    out: &mut [F::Elem],
) {
    let chunks = a.len().div_ceil(chunk).max(1);
    let outputs = tile.outputs as usize;
    let mut rows = vec![vec![field.zero(); out.len()]; chunks];
    for (u, row) in rows.iter_mut().enumerate() {
        let i0 = u * chunk;
        for (x, tile_out) in row.chunks_mut(outputs).enumerate() {
            for (s, o) in tile_out.iter_mut().enumerate() {
                let t = lo + x * outputs + s;
                let mut acc = field.zero();
                for (i, ai) in a.iter().enumerate().skip(i0).take(chunk) {
                    if let Some(bj) = t.checked_sub(i).and_then(|j| b.get(j)) {
                        acc = field.add(&acc, &field.mul(bj, ai));
                    }
                }
                *o = acc;
            }
        }
    }
    for (t, o) in out.iter_mut().enumerate() {
        *o = rows
            .iter()
            .fold(field.zero(), |acc, r| field.add(&acc, &r[t]));
    }
}
