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

    /// Divides `L` integers by d in place, limb i of integer e at `limbs[i][e]` (least
    /// significant first), and returns their remainders. Each dividend is read shifted
    /// left by the divisor's leading zeros, which leaves the quotient as it is and shifts
    /// the remainder, undone at the end. The lanes run the same steps interleaved, so
    /// that `L` chains of dependent multiplications overlap where one alone waits on each
    /// step's latency.
    pub fn div_rem_lanes<const L: usize>(&self, limbs: &mut [[u64; L]]) -> [u64; L] {
        let s = self.shift;
        let Some(&top) = limbs.last() else {
            return [0; L];
        };
        // The bits shifted out of the top limb start the remainder (below 2^s ≤ d·2^s).
        let mut rem = top.map(|t| if s == 0 { 0 } else { t >> (64 - s) });
        let mut len = limbs.len();
        if top.iter().all(|&t| t < self.normalized >> s) {
            // A top limb below d in every lane: its quotient limb is 0 and the shifted
            // limb is the remainder, one division fewer (the column sums' small top limbs).
            let below = if len == 1 || s == 0 {
                [0; L]
            } else {
                limbs[len - 2].map(|l| l >> (64 - s))
            };
            rem = std::array::from_fn(|lane| {
                if s == 0 {
                    top[lane]
                } else {
                    top[lane] << s | below[lane]
                }
            });
            limbs[len - 1] = [0; L];
            len -= 1;
        }
        for i in (0..len).rev() {
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
    use crate::field::biguint_of_limbs as big;
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};

    #[test]
    fn quotients_and_remainders_are_big_integers_in_every_lane() {
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
            for len in 0..10 {
                // Lane 0 all ones, lane 1 below d in its top limb, lane 2 random.
                let mut lanes: Vec<[u64; 3]> = (0..len)
                    .map(|i| {
                        [
                            u64::MAX,
                            if i + 1 == len { d - 1 } else { rng.gen() },
                            rng.gen(),
                        ]
                    })
                    .collect();
                if len % 2 == 1 {
                    // Every lane's top limb below d: the division that skips it.
                    if let Some(top) = lanes.last_mut() {
                        *top = [d - 1, 0, rng.gen::<u64>() % d];
                    }
                }
                let mut quotients = lanes.clone();
                let rems = reciprocal.div_rem_lanes(&mut quotients);
                for lane in 0..3 {
                    let x = big(&lanes.iter().map(|l| l[lane]).collect::<Vec<_>>());
                    let q = big(&quotients.iter().map(|l| l[lane]).collect::<Vec<_>>());
                    assert_eq!(
                        (q, BigUint::from(rems[lane])),
                        (&x / d, &x % d),
                        "{x} / {d}"
                    );
                }
            }
        }
    }
}
