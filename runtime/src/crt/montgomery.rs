//! Montgomery arithmetic modulo one prime below 2^62, on 64-bit words: the host's
//! projections and recombinations, where a word prime's field type is not at hand.

/// Arithmetic modulo an odd p < 2^62 with R = 2^64: x is kept as x·R mod p where marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mont {
    p: u64,
    /// −p^−1 mod 2^64.
    neg_p_inv: u64,
    /// R^2 mod p.
    r2: u64,
}

impl Mont {
    /// The arithmetic of the odd p < 2^62.
    pub fn new(p: u64) -> Mont {
        debug_assert!(p % 2 == 1 && p < 1 << 62);
        // Newton's iteration for p^−1 mod 2^64: p is its own inverse mod 8, and each step
        // doubles the correct low bits (3 → 6 → 12 → 24 → 48 → 96).
        let mut inv = p;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
        }
        let r = (u128::from(u64::MAX) % u128::from(p) + 1) % u128::from(p);
        let r2 = (r * r % u128::from(p)) as u64;
        Mont {
            p,
            neg_p_inv: inv.wrapping_neg(),
            r2,
        }
    }

    /// The modulus.
    pub fn p(&self) -> u64 {
        self.p
    }

    /// t·R^−1 mod p for t < p·2^64.
    #[inline]
    fn redc(&self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.neg_p_inv);
        let u = ((t + u128::from(m) * u128::from(self.p)) >> 64) as u64;
        if u >= self.p {
            u - self.p
        } else {
            u
        }
    }

    /// t·R^−2 mod p for a sum t = hi·2^128 + lo of products below 2^64·p, hi < 2^62:
    /// two rounds of Montgomery's reduction, so that a dot product pays one
    /// multiplication per term and the reduction once.
    #[inline]
    pub fn redc2(&self, acc: Wide) -> u64 {
        let m = (acc.lo as u64).wrapping_mul(self.neg_p_inv);
        let (x, carry) = acc.lo.overflowing_add(u128::from(m) * u128::from(self.p));
        // (t + m·p)/2^64 < t/2^64 + p: far below p·2^64 for the second round.
        let t = (x >> 64) + (u128::from(acc.hi) << 64) + (u128::from(carry) << 64);
        self.redc(t)
    }

    /// a·b·R^−1 mod p, for any 64-bit a and b < p: with b = c·R mod p, the plain a·c.
    #[inline]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.redc(u128::from(a) * u128::from(b))
    }

    /// x·R mod p (Montgomery form), for x < p.
    pub fn scaled(&self, x: u64) -> u64 {
        self.mul(x, self.r2)
    }

    /// R mod p: one, in Montgomery form.
    pub fn one(&self) -> u64 {
        self.scaled(1)
    }

    /// (a − b) mod p for a, b < p.
    #[inline]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            a - b
        } else {
            a + self.p - b
        }
    }

    /// The inverse of a nonzero x·R (Montgomery form in and out), by Fermat's little theorem.
    pub fn inv(&self, x: u64) -> u64 {
        let mut e = self.p - 2;
        let mut base = x;
        let mut acc = self.one();
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        acc
    }
}

/// A sum of 128-bit products, in 192 bits: the accumulator of [`Mont::redc2`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Wide {
    lo: u128,
    hi: u64,
}

impl Wide {
    /// Σ a_j·b_j over the shorter of the two, for words a_j and weights b_j below 2^62:
    /// four products of a word by such a weight add up below 2^128, so the sum is taken
    /// four products at a time in 128 bits and the carry out of them once.
    #[inline(always)]
    pub fn dot(a: &[u64], b: &[u64]) -> Wide {
        debug_assert!(b.iter().all(|&w| w < 1 << 62));
        let n = a.len().min(b.len());
        let product = |(&x, &w): (&u64, &u64)| u128::from(x) * u128::from(w);
        let (mut quads_a, mut quads_b) = (a[..n].chunks_exact(4), b[..n].chunks_exact(4));
        let mut acc = Wide::default();
        for (qa, qb) in (&mut quads_a).zip(&mut quads_b) {
            acc = acc.plus(qa.iter().zip(qb).map(product).sum());
        }
        let rest = quads_a.remainder().iter().zip(quads_b.remainder());
        acc.plus(rest.map(product).sum())
    }

    /// self + x.
    #[inline]
    pub fn plus(self, x: u128) -> Wide {
        let (lo, carry) = self.lo.overflowing_add(x);
        Wide {
            lo,
            hi: self.hi + u64::from(carry),
        }
    }

    /// The sum's three words, least significant first.
    #[inline]
    pub fn words(self) -> [u64; 3] {
        [self.lo as u64, (self.lo >> 64) as u64, self.hi]
    }

    /// The low word and the rest shifted down a word: a column's word of a sum and its
    /// carry into the next column.
    #[inline]
    pub fn word_and_carry(self) -> (u64, u128) {
        (self.lo as u64, self.lo >> 64 | u128::from(self.hi) << 64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_inverses_agree_with_u128_arithmetic() {
        for p in [3u64, 2013265921, 4611686018326724609] {
            let m = Mont::new(p);
            for (a, b) in [
                (1u64, 1u64),
                (p - 1, p - 1),
                (12345, p / 3),
                (u64::MAX, p - 2),
            ] {
                let want = (u128::from(a) * u128::from(b % p) % u128::from(p)) as u64;
                assert_eq!(m.mul(a, m.scaled(b % p)), want, "p = {p}");
            }
            // Σ a_j·b_j·R^−2 by the wide accumulator, against u128 arithmetic.
            let terms = [
                (u64::MAX, p - 1),
                (u64::MAX - 5, p - 2),
                (3, 5),
                (1 << 63, p / 2),
            ];
            let (a, b): (Vec<u64>, Vec<u64>) = terms.iter().copied().unzip();
            let acc = Wide::dot(&a, &b);
            let want = terms.iter().fold(0u128, |s, &(a, b)| {
                (s + u128::from(a) % u128::from(p) * u128::from(b) % u128::from(p)) % u128::from(p)
            });
            let r_inv2 = m.mul(m.mul(1, 1), 1); // R^−2 mod p
            let got = m.redc2(acc);
            assert_eq!(
                u128::from(got),
                want * u128::from(r_inv2) % u128::from(p),
                "p = {p}"
            );
            let x = m.scaled(7 % p);
            if 7 % p != 0 {
                assert_eq!(m.mul(m.inv(x), x), m.one());
            }
        }
    }
}
