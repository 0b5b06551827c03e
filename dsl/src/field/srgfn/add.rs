//! Addition (2017 paper, Algorithm 2), subtraction, and multiplication by r^i (§3.4).

use super::{Srgfn, SrgfnElem};

impl<const K: usize> Srgfn<K> {
    /// Algorithm 2: z_i = x_i + y_i with carries, then the carry z_k folded back as
    /// r^k ≡ −1.
    ///
    /// Digits are at most r, so x_i + y_i + carry < 2r + 1 and each Euclidean division of
    /// step 3 is one comparison with r, made as x_i + carry against r − y_i so that no
    /// sum passes 2^64 (P2 has r > 2^63). The value is z' − z_k with z' = Σ_{i<k} z_i r^i:
    /// z_k = 0 is done (step 4), z_k = 1 subtracts one with borrows (step 6), becoming
    /// p − 1 when z' = 0 (step 5), and z_k = 2 arises only for (p − 1) + (p − 1) = p − 2
    /// (a case the paper's Algorithm 2 misses).
    #[inline]
    pub(super) fn add_digits(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        let r = self.radix.r;
        if x[K - 1] == r && y[K - 1] == r {
            return [r - 1; K];
        }
        let mut z = [0; K];
        let mut carry = 0u64;
        for i in 0..K {
            // x_i + y_i + carry ≥ r exactly when x_i + carry ≥ r − y_i: one comparison,
            // and no sum that could pass 2^64 (x_i + carry ≤ r + 1 < 2^64).
            let xc = x[i] + carry;
            let (wrapped, below) = xc.overflowing_sub(r - y[i]);
            z[i] = if below { xc + y[i] } else { wrapped };
            carry = !below as u64;
        }
        self.decrement_if(z, carry == 1)
    }

    /// x − y, the analogue of Algorithm 2: borrows by comparison, and a final borrow means
    /// the value is z' − r^k ≡ z' + 1.
    ///
    /// With valid inputs every digit difference is at least −r (a digit y_i = r only occurs
    /// in p − 1, whose lower digits are 0 and so never borrow), and a top digit r in the
    /// result only occurs as p − 1 itself.
    #[inline]
    pub(super) fn sub_digits(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        let r = self.radix.r;
        let mut z = [0; K];
        let mut borrow = 0u64;
        for i in 0..K {
            // y_i + borrow ≤ r + 1 < 2^64: one subtraction decides the borrow.
            let (t, below) = x[i].overflowing_sub(y[i] + borrow);
            z[i] = if below { t.wrapping_add(r) } else { t };
            borrow = below as u64;
        }
        self.increment_if(z, borrow == 1)
    }

    /// z' − 1 mod p when `one` is set, for digits z' below r: borrows turn zeros into
    /// r − 1, and 0 − 1 is p − 1 = `[0, …, 0, r]` (Algorithm 2, steps 5 and 6).
    #[inline(always)]
    fn decrement_if(&self, mut z: [u64; K], one: bool) -> [u64; K] {
        let r = self.radix.r;
        let mut borrow = one;
        for d in z.iter_mut() {
            let zero = *d == 0;
            *d = if borrow && zero {
                r - 1
            } else {
                d.wrapping_sub(borrow as u64)
            };
            borrow &= zero;
        }
        if borrow {
            return self.minus_one_digits();
        }
        z
    }

    /// z' + 1 when `one` is set, for z' < r^k with digits below r: carries turn r − 1 into
    /// 0, and the top digit absorbs the last carry, reaching r exactly when z' + 1 = r^k
    /// (the representation of p − 1).
    #[inline(always)]
    fn increment_if(&self, mut z: [u64; K], one: bool) -> [u64; K] {
        let r = self.radix.r;
        let mut carry = one;
        for d in z[..K - 1].iter_mut() {
            let t = *d + carry as u64;
            carry = t == r;
            *d = if carry { 0 } else { t };
        }
        z[K - 1] += carry as u64;
        z
    }

    /// The canonical digits of z' + δ mod p, for digits z' below r and any small δ:
    /// carries ripple from digit 0 and a carry c out of the top comes back as −c (r^k ≡ −1)
    /// until none is left; the value r^k = p − 1 gets its special representation.
    pub(super) fn settle(&self, mut z: [u64; K], mut delta: i128) -> [u64; K] {
        while delta != 0 {
            let mut carry = delta;
            for d in z.iter_mut() {
                if carry == 0 {
                    break;
                }
                let (q, s) = self.radix.div_rem(*d as i128 + carry);
                *d = s;
                carry = q;
            }
            // Now the value is z' + carry·r^k. With carry = 1 and z' = 0 it is r^k itself.
            if carry == 1 && z.iter().all(|&d| d == 0) {
                return self.minus_one_digits();
            }
            delta = -carry;
        }
        z
    }

    /// a·r^i, as a negacyclic digit shift (§3.4), with i taken mod 2k (r has order 2k).
    ///
    /// For i = j or i = k + j with 0 ≤ j < k, a·r^j = A − B where A holds the digits that
    /// stay (a_0..a_{k−1−j} moved up by j places) and B those that wrap around (r^k ≡ −1);
    /// r^k = −1 makes a·r^(k+j) = B − A. Either way one subtraction, no multiplication.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field};
    ///
    /// let AnyField::Srgfn8(p3) = AnyField::from_spec("P3")? else { unreachable!() };
    /// let a = p3.from_u64(12345);
    /// let r = p3.from_digits(&[0, 1, 0, 0, 0, 0, 0, 0])?;
    /// assert_eq!(p3.mul_r_pow(&a, 3), p3.mul(&a, &p3.pow_u64(&r, 3)));
    /// assert_eq!(p3.mul_r_pow(&a, 8), p3.neg(&a)); // r^k = −1
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn mul_r_pow(&self, a: &SrgfnElem<K>, i: u32) -> SrgfnElem<K> {
        let k = K as u32;
        let i = i % (2 * k);
        let j = (i % k) as usize;
        let negate = i >= k;
        let x = &a.0;
        if x[K - 1] == self.radix.r {
            // a = −1: the result is ∓r^j, whose digits the shift would not keep canonical.
            let mut e = [0; K];
            e[j] = 1;
            return SrgfnElem(if negate {
                e
            } else {
                self.sub_digits(&[0; K], &e)
            });
        }
        let mut stay = [0; K];
        let mut wrap = [0; K];
        for h in 0..K {
            if h >= j {
                stay[h] = x[h - j];
            } else {
                wrap[h] = x[h + K - j];
            }
        }
        SrgfnElem(if negate {
            self.sub_digits(&wrap, &stay)
        } else {
            self.sub_digits(&stay, &wrap)
        })
    }
}
