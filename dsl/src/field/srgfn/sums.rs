//! Column sums back to digits: the element Σ_j s_j·r^j mod p of sums s_j of products of
//! digits by word-sized factors — what the explicit CRT in base r leaves, its columns not
//! yet carried — by one carry sweep of divisions by r's reciprocal and one fold of the
//! carry out of digit k − 1, since r^k ≡ −1 (mod p).
//!
//! Converting the same value from an integer's limbs costs k divisions of a shrinking
//! k-limb integer by r (§3.1); the sweep divides each column once, two limbs and a small
//! top one.

use super::{Srgfn, SrgfnElem};
use num_bigint::BigUint;

/// Elements converted side by side, so that their chains of dependent divisions overlap.
const LANES: usize = 4;

impl<const K: usize> Srgfn<K> {
    /// [`Field::from_radix_sums`](crate::field::Field::from_radix_sums) for an SRGFN.
    pub(super) fn elements_of_sums(&self, sums: &[[u64; 3]]) -> Vec<SrgfnElem<K>> {
        let mut out = Vec::with_capacity(sums.len().div_ceil(K));
        let mut groups = sums.chunks_exact(LANES * K);
        for lanes in &mut groups {
            let lanes: [&[[u64; 3]]; LANES] =
                std::array::from_fn(|lane| &lanes[lane * K..(lane + 1) * K]);
            out.extend(self.sums_in_lanes(lanes));
        }
        for group in groups.remainder().chunks(K) {
            out.extend(self.sums_in_lanes([group]));
        }
        out
    }

    /// The elements of `L` groups of at most k sums. The sweep's carries stay below 2^128
    /// and its last one below r^k where every sum is below r·2^127 and r^k ≥ 2^128 (P2 to
    /// P6's columns are below 2^135); other groups take the big integers.
    fn sums_in_lanes<const L: usize>(&self, groups: [&[[u64; 3]]; L]) -> [SrgfnElem<K>; L] {
        let r_bits = 64 - self.radix.r.leading_zeros();
        // r ≥ 2^(r_bits − 1): a top word below 2^(r_bits − 2) keeps a sum below r·2^127.
        let sweeps = K as u32 * (r_bits - 1) >= 128
            && groups
                .iter()
                .all(|g| g.iter().all(|s| s[2] >> (r_bits - 2) == 0));
        if !sweeps {
            return groups.map(|g| self.element_of_sums(g));
        }
        // Digit j is (s_j + c) mod r, and the carry c = ⌊(s_j + c)/r⌋ < 2^128 goes on:
        // s_j + c < r·2^127 + 2^128 ≤ r·2^128.
        let mut carry = [[0u64; L]; 2];
        let mut digits = [[0u64; K]; L];
        for j in 0..K {
            let mut t = [[0u64; L]; 3];
            for (lane, group) in groups.iter().enumerate() {
                let s = group.get(j).copied().unwrap_or([0; 3]);
                let c = u128::from(carry[0][lane]) | u128::from(carry[1][lane]) << 64;
                let (low, over) = (u128::from(s[0]) | u128::from(s[1]) << 64).overflowing_add(c);
                t[0][lane] = low as u64;
                t[1][lane] = (low >> 64) as u64;
                t[2][lane] = s[2] + u64::from(over);
            }
            let remainders = self.reciprocal.div_rem_lanes(&mut t);
            for (d, rem) in digits.iter_mut().zip(remainders) {
                d[j] = rem;
            }
            debug_assert_eq!(t[2], [0; L], "the carry fits two words");
            carry = [t[0], t[1]];
        }
        // Σ s_j·r^j = D + c·r^k ≡ D − c, with c < 2^128 ≤ r^k < p: c's own k digits.
        let carries: [[u64; 2]; L] = std::array::from_fn(|lane| [carry[0][lane], carry[1][lane]]);
        let owed = self.digits_of_lanes::<L>(std::array::from_fn(|lane| &carries[lane][..]));
        std::array::from_fn(|lane| match &owed[lane] {
            Ok(e) => self.difference(digits[lane], e),
            Err(_) => self.element_of_sums(groups[lane]), // not reached: c < p
        })
    }

    /// D − E mod p for digit vectors D, E < r^k (every digit below r).
    fn difference(&self, mut d: [u64; K], e: &[u64; K]) -> SrgfnElem<K> {
        let r = self.radix.r;
        let mut borrow = false;
        for (x, &y) in d.iter_mut().zip(e) {
            let (v, b1) = x.overflowing_sub(y);
            let (v, b2) = v.overflowing_sub(u64::from(borrow));
            borrow = b1 || b2;
            *x = if borrow { v.wrapping_add(r) } else { v };
        }
        if !borrow {
            return SrgfnElem(d);
        }
        // The digits spell D − E + r^k; adding 1 makes D − E + p ∈ [1, p), and a carry
        // out of the top digit leaves r^k = p − 1 itself.
        for x in d.iter_mut() {
            *x += 1;
            if *x < r {
                return SrgfnElem(d);
            }
            *x = 0;
        }
        SrgfnElem(self.minus_one_digits())
    }

    /// Σ s_j·r^j mod p through a big integer, for sums beyond the sweep's bounds.
    fn element_of_sums(&self, sums: &[[u64; 3]]) -> SrgfnElem<K> {
        let r = BigUint::from(self.radix.r);
        let value = sums.iter().rev().fold(BigUint::default(), |acc, s| {
            acc * &r + crate::field::biguint_of_limbs(s)
        });
        let digits = self
            .digits_of(&(value % &self.p))
            .expect("a value reduced mod p has k digits");
        SrgfnElem(digits)
    }
}

#[cfg(test)]
mod tests {
    use crate::field::{biguint_of_limbs, AnyField, Field, FieldSpec};
    use num_bigint::BigUint;
    use proptest::prelude::*;

    /// Σ s_j·r^j mod p by big integers.
    fn want<F: Field>(field: &F, r: u64, sums: &[[u64; 3]]) -> F::Elem {
        let r = BigUint::from(r);
        let v = sums
            .iter()
            .rev()
            .fold(BigUint::default(), |acc, s| acc * &r + biguint_of_limbs(s));
        field.from_biguint(&(v % field.modulus())).unwrap()
    }

    fn check(spec: &str, sums: &[[u64; 3]]) {
        let field = FieldSpec::parse(spec).unwrap().build().unwrap();
        let r = field.srgfn_params().unwrap().radix().unwrap();
        macro_rules! run {
            ($f:expr, $k:expr) => {{
                let got = $f.from_radix_sums(sums).unwrap();
                let want: Vec<_> = sums.chunks($k).map(|g| want($f, r, g)).collect();
                assert_eq!(got, want, "{spec}: {sums:?}");
            }};
        }
        match &field {
            AnyField::Srgfn1(f) => run!(f, 1),
            AnyField::Srgfn2(f) => run!(f, 2),
            AnyField::Srgfn4(f) => run!(f, 4),
            AnyField::Srgfn8(f) => run!(f, 8),
            AnyField::Srgfn16(f) => run!(f, 16),
            AnyField::Srgfn32(f) => run!(f, 32),
            AnyField::Srgfn64(f) => run!(f, 64),
            _ => panic!("{spec} is not an SRGFN"),
        }
    }

    #[test]
    fn edge_sums_reduce_like_big_integers() {
        let r3 = (1u64 << 63) + (1 << 34); // P3's radix
        let edges = [
            [0, 0, 0],
            [r3 - 1, 0, 0],
            [r3, 0, 0],
            [u64::MAX, u64::MAX, 0],
            [u64::MAX, u64::MAX, (1 << 62) - 1], // the sweep's largest
            [0, 0, 1 << 62],                     // the big integers' smallest
            [u64::MAX; 3],
        ];
        for spec in ["P2", "P3", "P4"] {
            for (i, &e) in edges.iter().enumerate() {
                // The edge in every column, in the top column alone, and beside zeros:
                // the carries, the fold, and the wrap to p − 1 and past it.
                check(spec, &[e; 40]);
                let mut top = vec![[0; 3]; 16];
                top[7] = e;
                top[15] = edges[(i + 3) % edges.len()];
                check(spec, &top);
            }
            check(spec, &[[1, 0, 0]; 3]); // a short group
            check(spec, &[]);
        }
        // p − 1 = r^8 from the top digit, and past it by a low digit: a carry out of the top.
        for low in [0, 1, u64::MAX] {
            let mut sums = [[0; 3]; 8];
            sums[0] = [low, 0, 0];
            sums[7] = [r3, 0, 0];
            check("P3", &sums);
        }
    }

    proptest! {
        #[test]
        fn random_sums_reduce_like_big_integers(
            words in prop::collection::vec(any::<[u64; 3]>(), 0..70),
            top_bits in 0u32..64,
        ) {
            // Top words of every size: the sweep's sums and those beyond it.
            let sums: Vec<[u64; 3]> =
                words.iter().map(|w| [w[0], w[1], w[2] >> (63 - top_bits.min(63))]).collect();
            for spec in ["P1", "P2", "P3", "P5"] {
                check(spec, &sums);
            }
        }
    }
}
