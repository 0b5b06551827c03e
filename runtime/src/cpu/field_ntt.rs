//! Cyclic products of a few thousand points over any field on one core: an NTT on a
//! table of twiddles, for the SRGFNs' short products (a half-gcd's matrices, a division's
//! Newton steps), where running the plan's kernels pays their index maps and per-pass
//! setup on every call (bench/RESULTS.md, "CPU round 6").
//!
//! The forward transform is decimation in frequency (natural order in, bit-reversed
//! out), the inverse decimation in time (bit-reversed in, natural out), so no
//! permutation runs between them. A twiddle ω_n^t that is a power of r (n/2k divides t,
//! ω_n^(n/2k) = r for the canonical roots) multiplies as a digit shift. The transforms
//! run in stages of radix 2k (2017 paper, §3: a DFT of K = 2k points is additions and
//! shifts only): a stage splits each block of L = K·m points into m DFTs of K points
//! and multiplies their outputs by the diagonal ω_L^(j·t) before the next stage splits
//! each of its K rows — one diagonal of products every log K levels, where radix 2 has
//! products at almost every level (bench/RESULTS.md, "CPU round 7").

use fermat_dsl::field::{Field, FieldError};

/// The largest transform the table serves: beyond it the plans' kernels run, on all cores.
pub(crate) const FIELD_NTT_MAX: u64 = 1 << 12;

/// The smallest transforms whose two forward transforms of a product run side by side.
const PARALLEL_FROM: usize = 1 << 8;

/// One twiddle: a digit shift by r^i, or a product.
#[derive(Clone, Debug)]
enum Twiddle<E> {
    Shift(u64),
    Mul(E),
}

/// The transforms of n points over one field, their twiddles tabulated once.
#[derive(Clone, Debug)]
pub(crate) struct FieldNtt<F: Field> {
    n: usize,
    /// The stages' radix: 2k for an SRGFN (ω_2k = r), 2 for a field without shifts.
    radix: usize,
    /// ω^t for t < n, ω = ω_n canonical.
    forward: Vec<Twiddle<F::Elem>>,
    /// ω^(−t) for t < n.
    inverse: Vec<Twiddle<F::Elem>>,
    n_inv: F::Elem,
}

impl<F: Field> FieldNtt<F> {
    /// The transforms of n points (a power of two, at least 2), ω_n the field's canonical
    /// root.
    pub(crate) fn new(field: &F, n: u64) -> Result<Self, FieldError> {
        let omega = field.root_of_unity(n)?;
        let twiddles = |root: &F::Elem, shift_sign: i64| {
            let mut power = field.one();
            (0..n)
                .map(|t| {
                    let twiddle = shift_of(field, n, t, shift_sign)
                        .filter(|&i| field.mul_shift(&field.one(), i) == power)
                        .map_or_else(|| Twiddle::Mul(power), Twiddle::Shift);
                    power = field.mul(&power, root);
                    twiddle
                })
                .collect()
        };
        let radix = field.shift_root_order().unwrap_or(2).max(2);
        Ok(FieldNtt {
            n: n as usize,
            radix: radix as usize,
            forward: twiddles(&omega, 1),
            inverse: twiddles(&field.inv(&omega)?, -1),
            n_inv: field.inv(&field.from_u64(n))?,
        })
    }

    /// The first `out.len()` (at most n) coefficients of the cyclic product of a and b (a
    /// with itself for `None`), each of at most n coefficients.
    pub(crate) fn cyclic(
        &self,
        field: &F,
        a: &[F::Elem],
        b: Option<&[F::Elem]>,
        out: &mut [F::Elem],
    ) {
        let (ta, mut tb) = match b {
            // Two transforms of a few hundred points and more are worth a second core.
            Some(b) if self.n >= PARALLEL_FROM => {
                rayon::join(|| self.forward(field, a), || self.forward(field, b))
            }
            Some(b) => (self.forward(field, a), self.forward(field, b)),
            None => {
                let ta = self.forward(field, a);
                (ta.clone(), ta)
            }
        };
        for (y, x) in tb.iter_mut().zip(&ta) {
            *y = field.mul(y, x);
        }
        self.inverse(field, &mut tb, out);
    }

    /// The transform of x (at most n coefficients, zeros past them), in bit-reversed
    /// order: pointwise products and sums of such spectra are those of the cyclic
    /// products and their sums.
    pub(crate) fn forward(&self, field: &F, x: &[F::Elem]) -> Vec<F::Elem> {
        let mut t = x.to_vec();
        t.resize(self.n, field.zero());
        let mut row = Vec::with_capacity(self.radix);
        for (len, radix) in self.stages() {
            self.stage(field, &mut t, (len, radix), &mut row, true);
        }
        t
    }

    /// The first `out.len()` (at most n) coefficients whose [`forward`](Self::forward)
    /// transform is `spectrum` (overwritten).
    pub(crate) fn inverse(&self, field: &F, spectrum: &mut [F::Elem], out: &mut [F::Elem]) {
        let mut row = Vec::with_capacity(self.radix);
        for (len, radix) in self.stages().into_iter().rev() {
            self.stage(field, spectrum, (len, radix), &mut row, false);
        }
        for (o, y) in out.iter_mut().zip(spectrum.iter()) {
            *o = field.mul(y, &self.n_inv);
        }
    }

    /// The forward's stages, first to last: blocks of `len` points split `radix` ways.
    fn stages(&self) -> Vec<(usize, usize)> {
        let mut stages = Vec::new();
        let mut len = self.n;
        while len > 1 {
            let radix = len.min(self.radix);
            stages.push((len, radix));
            len /= radix;
        }
        stages
    }

    /// One stage on blocks of L = `len` = K·m points, K = `radix`. Forward (`dif`): for
    /// each j < m, the DFT of the K points j, j + m, … (bit-reversed out), its output t
    /// multiplied by ω_L^(j·rev(t)) and stored at t·m + j. Block row t is then the
    /// transform's sub-problem for the frequencies ≡ rev(t) mod K, which the next stage
    /// splits in turn; the last stage (m = 1) leaves the bit-reversed order. Inverse: the
    /// same undone, times K — the diagonal's inverse, then the inverse DFT of each column
    /// (bit-reversed in, natural out).
    fn stage(
        &self,
        field: &F,
        x: &mut [F::Elem],
        (len, radix): (usize, usize),
        row: &mut Vec<F::Elem>,
        dif: bool,
    ) {
        let twiddles = if dif { &self.forward } else { &self.inverse };
        let m = len / radix;
        for block in x.chunks_exact_mut(len) {
            if m == 1 {
                self.butterflies(field, block, twiddles, dif);
                continue;
            }
            for j in 0..m {
                let diagonal = |t: usize, y: &F::Elem| {
                    let e = self.diagonal(len, radix, j, t);
                    times(field, y, &twiddles[e], e)
                };
                row.clear();
                row.extend((0..radix).map(|t| match dif {
                    true => block[t * m + j],
                    false => diagonal(t, &block[t * m + j]),
                }));
                self.butterflies(field, row, twiddles, dif);
                for (t, y) in row.iter().enumerate() {
                    block[t * m + j] = if dif { diagonal(t, y) } else { *y };
                }
            }
        }
    }

    /// The exponent of ω_n in the diagonal entry ω_L^(j·rev(t)) of a stage on blocks of
    /// L points (rev: t's bits reversed among log K); below n, as j < L/K.
    fn diagonal(&self, len: usize, radix: usize, j: usize, t: usize) -> usize {
        let rev = t.reverse_bits() >> (usize::BITS - radix.trailing_zeros());
        j * rev * (self.n / len)
    }

    /// The radix-2 butterflies of a DFT of `x.len()` points (a power of two dividing n),
    /// in place: decimation in frequency (`dif`, bit-reversed out) or the inverse's
    /// decimation in time (bit-reversed in), with `twiddles`' powers of ω_n.
    fn butterflies(&self, field: &F, x: &mut [F::Elem], twiddles: &[Twiddle<F::Elem>], dif: bool) {
        let len = x.len();
        let mut half = if dif { len / 2 } else { 1 };
        while half >= 1 && half < len {
            // The butterflies of span 2·half take ω_(2·half)^j = ω_n^(j·n/(2·half)).
            let stride = self.n / (2 * half);
            for block in x.chunks_exact_mut(2 * half) {
                let (lo, hi) = block.split_at_mut(half);
                for (j, (u, v)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    let w = &twiddles[j * stride];
                    if dif {
                        let difference = field.sub(u, v);
                        *u = field.add(u, v);
                        *v = times(field, &difference, w, j);
                    } else {
                        let t = times(field, v, w, j);
                        *v = field.sub(u, &t);
                        *u = field.add(u, &t);
                    }
                }
            }
            half = if dif { half / 2 } else { half * 2 };
        }
    }
}

/// x·w, where w is twiddle j (j = 0: one).
fn times<F: Field>(field: &F, x: &F::Elem, w: &Twiddle<F::Elem>, j: usize) -> F::Elem {
    match w {
        _ if j == 0 => *x,
        Twiddle::Shift(i) => field.mul_shift(x, *i),
        Twiddle::Mul(w) => field.mul(x, w),
    }
}

/// i with ω_n^(±t) = r^i when the field's small roots are shifts and n/2k divides t
/// (ω_n^(n/2k) = r, r of order 2k); `None` otherwise.
fn shift_of<F: Field>(field: &F, n: u64, t: u64, sign: i64) -> Option<u64> {
    let order = field.shift_root_order()?;
    // ω_n^t = ω_(2k)^(t·2k/n) = r^(t·2k/n) when n divides t·2k.
    (t * order).is_multiple_of(n).then(|| {
        let i = (t * order / n) % order;
        if sign < 0 {
            (order - i) % order
        } else {
            i
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::{AnyField, FieldSpec};
    use fermat_dsl::with_field;
    use rand::SeedableRng;

    /// Cyclic products against the schoolbook product folded mod x^n − 1, over SRGFNs
    /// (twiddles shifts and products) and a word prime (products only).
    #[test]
    fn cyclic_products_are_folded_schoolbook_products() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for spec in ["P1", "P3", "P4", "469762049"] {
            let any: AnyField = FieldSpec::parse(spec).unwrap().build().unwrap();
            with_field!(&any, f => {
                for n in [2u64, 4, 8, 16, 32, 64, 128, 256, 512, 1024] {
                    let ntt = FieldNtt::new(f, n).unwrap();
                    let n = n as usize;
                    let a: Vec<_> = (0..n).map(|_| f.random(&mut rng)).collect();
                    let b: Vec<_> = (0..n - n / 3).map(|_| f.random(&mut rng)).collect();
                    let mut want = vec![f.zero(); n];
                    for (i, x) in a.iter().enumerate() {
                        for (j, y) in b.iter().enumerate() {
                            let w = &mut want[(i + j) % n];
                            *w = f.add(w, &f.mul(x, y));
                        }
                    }
                    let mut got = vec![f.zero(); n];
                    ntt.cyclic(f, &a, Some(&b), &mut got);
                    assert!(got == want, "{spec}: {n} points");
                    let mut square = vec![f.zero(); n / 2];
                    ntt.cyclic(f, &a, None, &mut square);
                    let mut want = vec![f.zero(); n];
                    for (i, x) in a.iter().enumerate() {
                        for (j, y) in a.iter().enumerate() {
                            let w = &mut want[(i + j) % n];
                            *w = f.add(w, &f.mul(x, y));
                        }
                    }
                    assert!(square[..] == want[..n / 2], "{spec}: the square of {n} points");
                }
            });
        }
    }
}
