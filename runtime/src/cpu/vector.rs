//! Elementwise arithmetic on vectors of a word prime's Montgomery residues: the pointwise
//! products of the CPU's cyclic products and the multiply-subtract acc ← acc − c·x of
//! Euclid's steps and the base-case divisions (FLINT's `_nmod_vec_scalar_addmul_nmod`,
//! negated). AVX-512 for primes below 2^31 where the CPU has it — 16 Montgomery products
//! an instruction sequence, where the field's scalar product is one — and the field's own
//! arithmetic everywhere else.

use super::scalar::Mont;
use fermat_dsl::field::{Field, Fp32, Fp32Elem};
use std::any::{Any, TypeId};

/// The AVX-512 Montgomery lanes of one prime p < 2^31: (p, p^(−1) mod 2^32).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes32 {
    mont: (u32, u32),
}

impl Lanes32 {
    /// The lanes of p, where p < 2^31 and the CPU has AVX-512 F and DQ.
    pub(crate) fn new(p: u32) -> Option<Lanes32> {
        #[cfg(target_arch = "x86_64")]
        if p < 1 << 31 && p % 2 == 1 && super::avx512::detected() {
            return Some(Lanes32 {
                mont: (p, Mont::<u32>::new(p).p_inv),
            });
        }
        let _ = p;
        None
    }

    /// x ← x·y, or x·x without y (Montgomery products of canonical residues, canonical),
    /// over the shorter length.
    pub(crate) fn mul_pointwise(&self, x: &mut [u32], y: Option<&[u32]>) {
        // SAFETY: built only where AVX-512 F and DQ were detected.
        #[cfg(target_arch = "x86_64")]
        let done = unsafe { super::avx512::m32::mul_pointwise(self.mont, x, y) };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        let m = self.scalar();
        match y {
            Some(y) => {
                for (u, v) in x[done..].iter_mut().zip(&y[done..]) {
                    *u = m.mul(*u, *v);
                }
            }
            None => x[done..].iter_mut().for_each(|u| *u = m.mul(*u, *u)),
        }
    }

    /// acc ← acc − c·x (Montgomery residues, canonical), over the shorter length.
    pub(crate) fn submul(&self, acc: &mut [u32], c: u32, x: &[u32]) {
        // SAFETY: built only where AVX-512 F and DQ were detected.
        #[cfg(target_arch = "x86_64")]
        let done = unsafe { super::avx512::m32::submul(self.mont, acc, c, x) };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        let m = self.scalar();
        for (a, v) in acc[done..].iter_mut().zip(&x[done..]) {
            *a = m.sub(*a, m.mul(c, *v));
        }
    }

    fn scalar(&self) -> Mont<u32> {
        Mont {
            p: self.mont.0,
            p_inv: self.mont.1,
        }
    }
}

/// The residues of a slice of `E`, where `E` is [`Fp32Elem`] (`repr(transparent)` over
/// its Montgomery residue).
fn residues_mut<E: 'static>(x: &mut [E]) -> Option<&mut [u32]> {
    (TypeId::of::<E>() == TypeId::of::<Fp32Elem>()).then(|| {
        // SAFETY: E is Fp32Elem, a repr(transparent) u32; the callers write canonical
        // residues only, which are elements.
        unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<u32>(), x.len()) }
    })
}

/// [`residues_mut`] for shared slices.
fn residues<E: 'static>(x: &[E]) -> Option<&[u32]> {
    (TypeId::of::<E>() == TypeId::of::<Fp32Elem>()).then(|| {
        // SAFETY: as in residues_mut.
        unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<u32>(), x.len()) }
    })
}

/// acc ← acc − c·x elementwise over the shorter of `acc` and `x`, for one field: on
/// AVX-512 lanes for an [`Fp32`] below 2^31, by the field's arithmetic otherwise. Made
/// once for a loop of them (a division, a product by a short quotient): what the CPU has
/// is looked up once.
pub(crate) struct SubMul<'f, F: Field> {
    field: &'f F,
    lanes: Option<Lanes32>,
}

impl<'f, F: Field> SubMul<'f, F> {
    /// The multiply-subtract of `field`.
    pub(crate) fn new(field: &'f F) -> Self {
        let lanes = (field as &dyn Any)
            .downcast_ref::<Fp32>()
            .and_then(|f| Lanes32::new(f.p()));
        SubMul { field, lanes }
    }

    /// acc ← acc − c·x.
    pub(crate) fn apply(&self, acc: &mut [F::Elem], c: &F::Elem, x: &[F::Elem]) {
        if let Some(lanes) = self.lanes {
            let c = residues(std::slice::from_ref(c)).map(|c| c[0]);
            if let (Some(acc), Some(c), Some(x)) = (residues_mut(acc), c, residues(x)) {
                return lanes.submul(acc, c, x);
            }
        }
        let f = self.field;
        for (a, xj) in acc.iter_mut().zip(x) {
            *a = f.sub(a, &f.mul(c, xj));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::Fp64;
    use rand::SeedableRng;

    /// acc − c·x by the field's own arithmetic.
    fn by_field<F: Field>(f: &F, acc: &[F::Elem], c: &F::Elem, x: &[F::Elem]) -> Vec<F::Elem> {
        acc.iter()
            .zip(x)
            .map(|(a, v)| f.sub(a, &f.mul(c, v)))
            .collect()
    }

    #[test]
    fn submul_is_the_fields_arithmetic_at_every_length() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // Below 2^31 (the lanes where the CPU has them), above it, and a 64-bit field.
        for p in [469_762_049u32, 2_013_265_921, 3_221_225_473] {
            let f = Fp32::new(p).unwrap();
            for len in [0, 1, 15, 16, 17, 33, 100] {
                let x: Vec<_> = (0..len).map(|_| f.random(&mut rng)).collect();
                let mut acc: Vec<_> = (0..len).map(|_| f.random(&mut rng)).collect();
                let c = f.random(&mut rng);
                let want = by_field(&f, &acc, &c, &x);
                SubMul::new(&f).apply(&mut acc, &c, &x);
                assert_eq!(acc, want, "p = {p}, len {len}");
            }
            // The extremes: p − 1 times p − 1, from 0.
            let top = f.from_u64(u64::from(p) - 1);
            let mut acc = vec![f.zero(); 40];
            SubMul::new(&f).apply(&mut acc, &top, &[top; 40]);
            assert_eq!(acc, by_field(&f, &[f.zero(); 40], &top, &[top; 40]));
        }
        let f = Fp64::new(0xFFFF_FFFF_0000_0001).unwrap();
        let x: Vec<_> = (0..20).map(|_| f.random(&mut rng)).collect();
        let mut acc: Vec<_> = (0..20).map(|_| f.random(&mut rng)).collect();
        let c = f.random(&mut rng);
        let want = by_field(&f, &acc, &c, &x);
        SubMul::new(&f).apply(&mut acc, &c, &x);
        assert_eq!(acc, want);
    }

    #[test]
    fn pointwise_products_are_montgomery_products() {
        let Some(lanes) = Lanes32::new(469_762_049) else {
            println!("skipped: no AVX-512 on this CPU");
            return;
        };
        let m = Mont::<u32>::new(469_762_049);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        for len in [0, 5, 16, 31, 64] {
            let x: Vec<u32> = (0..len)
                .map(|_| rand::Rng::gen_range(&mut rng, 0..m.p))
                .collect();
            let y: Vec<u32> = (0..len)
                .map(|_| rand::Rng::gen_range(&mut rng, 0..m.p))
                .collect();
            let want: Vec<u32> = x.iter().zip(&y).map(|(u, v)| m.mul(*u, *v)).collect();
            let mut got = x.clone();
            lanes.mul_pointwise(&mut got, Some(&y));
            assert_eq!(got, want, "len {len}");
            let squares: Vec<u32> = x.iter().map(|u| m.mul(*u, *u)).collect();
            let mut got = x.clone();
            lanes.mul_pointwise(&mut got, None);
            assert_eq!(got, squares, "squares, len {len}");
        }
    }
}
