//! Portable word-prime arithmetic and butterflies: Montgomery multiplication by twiddles in
//! Montgomery form (Montgomery 1985, REDC), canonical values throughout. It runs on every
//! target, handles every odd prime below 2^32 or 2^64, and is the reference the SIMD
//! butterflies are tested against.

use super::ntt::Butterflies;
pub(crate) use fermat_dsl::field::primality::pow_mod;
use std::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A machine word holding canonical residues of a word prime: `u32` or `u64` (sealed: the
/// [`WordNtt`](super::WordNtt) of each is written for it).
///
/// ```
/// use fermat::cpu::Word;
///
/// fn bits<W: Word>(x: W) -> (u32, u64) {
///     (W::BITS, x.to_u64())
/// }
/// assert_eq!(bits(7u32), (32, 7));
/// assert_eq!(u32::from_u64((1 << 32) + 5), 5); // the low bits
/// ```
pub trait Word:
    Copy + Default + Debug + PartialEq + PartialOrd + Send + Sync + 'static + sealed::Sealed
{
    /// Bits in the word (log2 of the Montgomery radix R).
    const BITS: u32;
    /// The word as a `u64`.
    fn to_u64(self) -> u64;
    /// The low bits of `x` as a word.
    fn from_u64(x: u64) -> Self;
}

impl Word for u32 {
    const BITS: u32 = 32;
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    fn from_u64(x: u64) -> Self {
        x as u32
    }
}

impl Word for u64 {
    const BITS: u32 = 64;
    fn to_u64(self) -> u64 {
        self
    }
    fn from_u64(x: u64) -> Self {
        x
    }
}

/// Montgomery arithmetic modulo an odd p < R = 2^BITS on canonical values: `mul(a, b')`
/// takes `b' = b·R mod p` and returns the canonical a·b mod p.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mont<W> {
    pub(crate) p: W,
    /// p^(−1) mod R.
    pub(crate) p_inv: W,
}

macro_rules! mont {
    ($w:ty, $d:ty, $bits:literal) => {
        impl Mont<$w> {
            pub(crate) fn new(p: $w) -> Self {
                debug_assert!(p % 2 == 1);
                // Newton's iteration doubles the correct low bits; p is its own inverse
                // mod 8, so 5 steps give 96 ≥ 64 bits.
                let mut p_inv = p;
                for _ in 0..5 {
                    p_inv = p_inv.wrapping_mul((2 as $w).wrapping_sub(p.wrapping_mul(p_inv)));
                }
                Mont { p, p_inv }
            }

            /// x·R mod p.
            pub(crate) fn enter(&self, x: $w) -> $w {
                ((<u128>::from(x) << $bits) % <u128>::from(self.p)) as $w
            }

            /// a + b for canonical a, b. The carry matters when p > R/2.
            #[inline(always)]
            pub(crate) fn add(&self, a: $w, b: $w) -> $w {
                // Branch-free: the outcome is data-dependent, a branch mispredicts half the
                // time.
                let (s, carry) = a.overflowing_add(b);
                let (t, borrow) = s.overflowing_sub(self.p);
                let keep_t = ((carry | !borrow) as $w).wrapping_neg();
                (t & keep_t) | (s & !keep_t)
            }

            /// a − b for canonical a, b.
            #[inline(always)]
            pub(crate) fn sub(&self, a: $w, b: $w) -> $w {
                let (d, borrow) = a.overflowing_sub(b);
                d.wrapping_add(self.p & (borrow as $w).wrapping_neg())
            }

            /// REDC(a·b') = a·b mod p, canonical, for a, b' < p (so a·b' < p·R).
            #[inline(always)]
            pub(crate) fn mul(&self, a: $w, b_mont: $w) -> $w {
                let t = <$d>::from(a) * <$d>::from(b_mont);
                let m = (t as $w).wrapping_mul(self.p_inv);
                let mp = <$d>::from(m) * <$d>::from(self.p);
                // t ≡ m·p (mod R): the low words cancel, (t − m·p)/R is the difference of
                // the high words, in (−p, p).
                let (d, borrow) = ((t >> $bits) as $w).overflowing_sub((mp >> $bits) as $w);
                d.wrapping_add(self.p & (borrow as $w).wrapping_neg())
            }
        }
    };
}

mont!(u32, u64, 32);
mont!(u64, u128, 64);

/// The arithmetic the scalar butterflies need, for both word sizes.
pub(crate) trait Arith: Clone + Send + Sync + 'static {
    type W: Word;
    fn add(&self, a: Self::W, b: Self::W) -> Self::W;
    fn sub(&self, a: Self::W, b: Self::W) -> Self::W;
    fn mul(&self, a: Self::W, b_mont: Self::W) -> Self::W;
    fn enter(&self, x: Self::W) -> Self::W;
    fn p(&self) -> Self::W;
}

macro_rules! arith {
    ($w:ty) => {
        impl Arith for Mont<$w> {
            type W = $w;
            #[inline(always)]
            fn add(&self, a: $w, b: $w) -> $w {
                Mont::<$w>::add(self, a, b)
            }
            #[inline(always)]
            fn sub(&self, a: $w, b: $w) -> $w {
                Mont::<$w>::sub(self, a, b)
            }
            #[inline(always)]
            fn mul(&self, a: $w, b: $w) -> $w {
                Mont::<$w>::mul(self, a, b)
            }
            fn enter(&self, x: $w) -> $w {
                Mont::<$w>::enter(self, x)
            }
            fn p(&self) -> $w {
                self.p
            }
        }
    };
}

arith!(u32);
arith!(u64);

/// The canonical twiddles of one direction: `tw[s + j] = ω_{2s}^j` for every layer stride
/// s = 2^i < n and j < s (ω_{2s} = ω_n^(n/2s)), n entries in all (`tw[0]` unused).
/// Layer s of the DIF and DIT butterflies reads `tw[s..2s]` contiguously.
pub(crate) fn twiddles<A: Arith>(a: &A, p: u64, omega: u64, n: usize) -> Vec<A::W> {
    let mut tw = vec![A::W::default(); n.max(2)];
    if n < 2 {
        return tw;
    }
    let half = n / 2;
    let step = a.enter(A::W::from_u64(omega));
    let mut acc = A::W::from_u64(1 % p);
    for j in 0..half {
        tw[half + j] = acc;
        acc = a.mul(acc, step);
    }
    // ω_{2s}^j = ω_{4s}^{2j}: each layer is every other entry of the one above.
    let mut s = half / 2;
    while s >= 1 {
        for j in 0..s {
            tw[s + j] = tw[2 * s + 2 * j];
        }
        s /= 2;
    }
    tw
}

/// Scalar butterflies over [`Mont`] arithmetic.
#[derive(Clone, Debug)]
pub(crate) struct Scalar<A: Arith> {
    pub(crate) arith: A,
    /// `tw[s + j] = ω_{2s}^j`, in Montgomery form.
    pub(crate) tw: Vec<A::W>,
    /// n^(−1) in Montgomery form (inverse transforms), or `None`.
    pub(crate) scale: Option<A::W>,
}

impl<A: Arith> Scalar<A> {
    /// The butterflies of the transform whose canonical twiddles are `canonical`.
    pub(crate) fn new(arith: A, canonical: &[A::W], scale: Option<A::W>) -> Self {
        let tw = canonical.iter().map(|&w| arith.enter(w)).collect();
        let scale = scale.map(|c| arith.enter(c));
        Scalar { arith, tw, scale }
    }

    #[inline(always)]
    fn dif(&self, x: &mut A::W, y: &mut A::W, w: A::W) {
        let (a, b) = (*x, *y);
        *x = self.arith.add(a, b);
        *y = self.arith.mul(self.arith.sub(a, b), w);
    }

    #[inline(always)]
    fn dit(&self, x: &mut A::W, y: &mut A::W, w: A::W) {
        let t = self.arith.mul(*y, w);
        let a = *x;
        *x = self.arith.add(a, t);
        *y = self.arith.sub(a, t);
    }
}

impl<A: Arith> Butterflies for Scalar<A> {
    type W = A::W;

    fn tail_bits(&self) -> u32 {
        1
    }

    fn dif2(&self, s: usize, j0: usize, a: &mut [A::W], b: &mut [A::W]) {
        let tw = &self.tw[s + j0..s + j0 + a.len()];
        for ((x, y), &w) in a.iter_mut().zip(b.iter_mut()).zip(tw) {
            self.dif(x, y, w);
        }
    }

    fn dit2(&self, s: usize, j0: usize, a: &mut [A::W], b: &mut [A::W], _last: bool) {
        let tw = &self.tw[s + j0..s + j0 + a.len()];
        for ((x, y), &w) in a.iter_mut().zip(b.iter_mut()).zip(tw) {
            self.dit(x, y, w);
        }
    }

    fn dif4(&self, s: usize, j0: usize, q: [&mut [A::W]; 4]) {
        let [q0, q1, q2, q3] = q;
        let g = q0.len();
        let h = s / 2;
        let (t0, t1, t2) = (
            &self.tw[s + j0..s + j0 + g],
            &self.tw[s + h + j0..s + h + j0 + g],
            &self.tw[h + j0..h + j0 + g],
        );
        for j in 0..g {
            self.dif(&mut q0[j], &mut q2[j], t0[j]);
            self.dif(&mut q1[j], &mut q3[j], t1[j]);
            self.dif(&mut q0[j], &mut q1[j], t2[j]);
            self.dif(&mut q2[j], &mut q3[j], t2[j]);
        }
    }

    fn dit4(&self, s: usize, j0: usize, q: [&mut [A::W]; 4], _last: bool) {
        let [q0, q1, q2, q3] = q;
        let g = q0.len();
        let h = s / 2;
        let (t0, t1, t2) = (
            &self.tw[s + j0..s + j0 + g],
            &self.tw[s + h + j0..s + h + j0 + g],
            &self.tw[h + j0..h + j0 + g],
        );
        for j in 0..g {
            self.dit(&mut q0[j], &mut q1[j], t2[j]);
            self.dit(&mut q2[j], &mut q3[j], t2[j]);
            self.dit(&mut q0[j], &mut q2[j], t0[j]);
            self.dit(&mut q1[j], &mut q3[j], t1[j]);
        }
    }

    fn tail_dif(&self, x: &mut [A::W]) {
        // Layer s = 1: ω_2^0 = 1, no multiplication.
        for pair in x.chunks_exact_mut(2) {
            let (a, b) = (pair[0], pair[1]);
            pair[0] = self.arith.add(a, b);
            pair[1] = self.arith.sub(a, b);
        }
    }

    fn tail_dit(&self, x: &mut [A::W]) {
        self.tail_dif(x);
    }

    fn any_out_of_range(&self, x: &[A::W]) -> bool {
        let p = self.arith.p();
        x.iter().any(|&v| v >= p)
    }

    fn kernels(&self) -> super::ntt::Kernels {
        super::ntt::Kernels::Portable
    }

    fn scale(&self, x: &mut [A::W]) {
        if let Some(c) = self.scale {
            for v in x {
                *v = self.arith.mul(*v, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::primality::mul_mod;
    use proptest::prelude::*;

    const P32: [u32; 4] = [469_762_049, 2_013_265_921, 4_294_967_291, 3];
    const P64: [u64; 4] = [
        4_179_340_454_199_820_289,
        0xFFFF_FFFF_0000_0001,
        u64::MAX - 58,
        2_013_265_921,
    ];

    proptest! {
        #[test]
        fn mont32_matches_u128(i in 0usize..4, a in any::<u32>(), b in any::<u32>()) {
            let p = P32[i];
            let m = Mont::<u32>::new(p);
            let (a, b) = (a % p, b % p);
            let (a64, b64, p64) = (u64::from(a), u64::from(b), u64::from(p));
            prop_assert_eq!(u64::from(m.add(a, b)), (a64 + b64) % p64);
            prop_assert_eq!(u64::from(m.sub(a, b)), (a64 + p64 - b64) % p64);
            prop_assert_eq!(u64::from(m.mul(a, m.enter(b))), mul_mod(a64, b64, p64));
        }

        #[test]
        fn mont64_matches_u128(i in 0usize..4, a in any::<u64>(), b in any::<u64>()) {
            let p = P64[i];
            let m = Mont::<u64>::new(p);
            let (a, b) = (a % p, b % p);
            let big = |x: u64| u128::from(x);
            prop_assert_eq!(big(m.add(a, b)), (big(a) + big(b)) % big(p));
            prop_assert_eq!(big(m.sub(a, b)), (big(a) + big(p) - big(b)) % big(p));
            prop_assert_eq!(m.mul(a, m.enter(b)), mul_mod(a, b, p));
        }
    }

    #[test]
    fn twiddle_layers_are_powers_of_their_roots() {
        let p = 2_013_265_921u64;
        let n = 64usize;
        // 31 generates the multiplicative group of babybear.
        let omega = pow_mod(31, (p - 1) / n as u64, p);
        let m = Mont::<u32>::new(p as u32);
        let tw = twiddles(&m, p, omega, n);
        let mut s = 1;
        while s < n {
            let root = pow_mod(omega, (n / (2 * s)) as u64, p);
            for j in 0..s {
                assert_eq!(
                    u64::from(tw[s + j]),
                    pow_mod(root, j as u64, p),
                    "s={s} j={j}"
                );
            }
            s *= 2;
        }
    }
}
