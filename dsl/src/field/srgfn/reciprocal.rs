//! Division of many-limb integers by one fixed word through its reciprocal (Möller and
//! Granlund, "Improved division by invariant integers", IEEE Trans. Computers 60(2), 2011,
//! Algorithm 4): a two-by-one-word division costs two multiplications and a few
//! corrections, where the hardware's 128-by-64-bit division takes tens of cycles. The
//! digits of a value in base r (§3.1) are k such divisions of its limbs.

/// A divisor d ≥ 1 prepared for repeated division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reciprocal {
    /// d·2^shift: the divisor with its top bit set.
    normalized: u64,
    /// The leading zeros of d.
    shift: u32,
    /// v = ⌊(2^128 − 1)/normalized⌋ − 2^64, the paper's reciprocal.
    v: u64,
}

impl Reciprocal {
    /// The reciprocal of `d`, which must be nonzero.
    pub fn new(d: u64) -> Reciprocal {
        assert_ne!(d, 0, "division by zero");
        let shift = d.leading_zeros();
        let normalized = d << shift;
        // normalized ≥ 2^63, so the quotient is in [2^64, 2^65): v drops its top bit.
        let v = (u128::MAX / u128::from(normalized)) as u64;
        Reciprocal {
            normalized,
            shift,
            v,
        }
    }

    /// (⌊u/d'⌋, u mod d') for u = u1·2^64 + u0 with u1 < d' = the normalized divisor
    /// (Algorithm 4: the quotient fits a word).
    #[inline(always)]
    fn div_2by1(&self, u1: u64, u0: u64) -> (u64, u64) {
        let d = self.normalized;
        let q = (u128::from(self.v) * u128::from(u1))
            .wrapping_add(u128::from(u1) << 64 | u128::from(u0));
        let (mut q1, q0) = (((q >> 64) as u64).wrapping_add(1), q as u64);
        let mut r = u0.wrapping_sub(q1.wrapping_mul(d));
        if r > q0 {
            q1 = q1.wrapping_sub(1);
            r = r.wrapping_add(d);
        }
        if r >= d {
            q1 += 1;
            r -= d;
        }
        (q1, r)
    }

    /// Divides the integer of `limbs` (least significant first) by d in place and returns
    /// the remainder. The dividend is read shifted left by the divisor's leading zeros,
    /// which leaves the quotient as it is and shifts the remainder, undone at the end.
    pub fn div_rem_in_place(&self, limbs: &mut [u64]) -> u64 {
        let s = self.shift;
        let Some(&top) = limbs.last() else {
            return 0;
        };
        // The bits shifted out of the top limb start the remainder (below 2^s ≤ d·2^s).
        let mut rem = if s == 0 { 0 } else { top >> (64 - s) };
        for i in (0..limbs.len()).rev() {
            let u0 = match (s, i) {
                (0, _) => limbs[i],
                (_, 0) => limbs[i] << s,
                _ => limbs[i] << s | limbs[i - 1] >> (64 - s),
            };
            let (q, r) = self.div_2by1(rem, u0);
            limbs[i] = q;
            rem = r;
        }
        rem >> s
    }

    /// [`div_rem_in_place`](Self::div_rem_in_place) for `L` integers at once, limb i of
    /// integer e at `limbs[i][e]`: the same steps, interleaved, so that the `L` chains of
    /// dependent multiplications overlap where one alone waits on each step's latency.
    pub fn div_rem_lanes<const L: usize>(&self, limbs: &mut [[u64; L]]) -> [u64; L] {
        let s = self.shift;
        let Some(top) = limbs.last() else {
            return [0; L];
        };
        let mut rem = top.map(|t| if s == 0 { 0 } else { t >> (64 - s) });
        for i in (0..limbs.len()).rev() {
            let below = if i == 0 || s == 0 {
                [0; L]
            } else {
                limbs[i - 1].map(|l| l >> (64 - s))
            };
            for lane in 0..L {
                let u0 = if s == 0 {
                    limbs[i][lane]
                } else {
                    limbs[i][lane] << s | below[lane]
                };
                (limbs[i][lane], rem[lane]) = self.div_2by1(rem[lane], u0);
            }
        }
        rem.map(|r| r >> s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};

    #[test]
    fn quotients_and_remainders_are_big_integers() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let divisors = [
            1u64,
            2,
            3,
            (1 << 63) + (1 << 34), // P3's radix
            u64::MAX,
            u64::MAX - (1 << 32) + 1,
            (1 << 62) - (1 << 10),
            rng.gen(),
            rng.gen::<u64>() >> 40,
        ];
        for d in divisors {
            let reciprocal = Reciprocal::new(d);
            let mut dividends = vec![vec![], vec![0], vec![u64::MAX; 9], vec![d - 1]];
            dividends.extend((0..50).map(|i| (0..1 + i % 9).map(|_| rng.gen()).collect()));
            for limbs in dividends {
                let x = BigUint::new(
                    limbs
                        .iter()
                        .flat_map(|&l| [l as u32, (l >> 32) as u32])
                        .collect(),
                );
                let mut q = limbs.clone();
                let r = reciprocal.div_rem_in_place(&mut q);
                let q = BigUint::new(
                    q.iter()
                        .flat_map(|&l| [l as u32, (l >> 32) as u32])
                        .collect(),
                );
                assert_eq!((q, BigUint::from(r)), (&x / d, &x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn lanes_divide_as_one_integer_at_a_time() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for d in [
            1u64,
            7,
            (1 << 63) + (1 << 34),
            u64::MAX,
            rng.gen::<u64>() >> 17,
        ] {
            let reciprocal = Reciprocal::new(d);
            for len in 0..6 {
                let lanes: Vec<[u64; 3]> = (0..len).map(|_| rng.gen()).collect();
                let mut together = lanes.clone();
                let rems = reciprocal.div_rem_lanes(&mut together);
                for lane in 0..3 {
                    let mut alone: Vec<u64> = lanes.iter().map(|l| l[lane]).collect();
                    let rem = reciprocal.div_rem_in_place(&mut alone);
                    let quotient: Vec<u64> = together.iter().map(|l| l[lane]).collect();
                    assert_eq!((quotient, rems[lane]), (alone, rem), "d = {d}, len {len}");
                }
            }
        }
    }
}
