//! Euclidean division by the sparse radix r = 2^w ± 2^u (2017 paper, §3.1).
//!
//! With z = 2^w·z_high + z_low, equation (6) reads
//! z = r·z_high + (z_low ∓ 2^u·z_high): one shift, one mask and one shifted subtraction give
//! a quotient q = z_high and a remainder s that is about 2^(u−w) times smaller than z. The
//! paper finishes with three cases: (S1) 0 ≤ s < r, done; (S2) s ≥ r, divide s again;
//! (S3) s < 0, (q, s) ← (q − 1, s + r) and repeat (q − 1 is what keeps z = q·r + s; the
//! paper's text says q + 1).
//!
//! Two forms live here:
//! - [`Radix::div_rem`] follows S1–S3 literally, for any signed 128-bit z; it is the
//!   reference form and the fallback of the fast paths.
//! - [`Radix::estimate_wide`] unrolls the S2 rounds into the series
//!   z/r = (z/2^w)·Σ_j (∓2^(u−w))^j: shifts and additions only, no multiplication and no
//!   128-bit division, and an exact identity z = q·r + s with a small remainder, which
//!   [`Radix::finish`] brings into [0, r) with the single corrections of S2 and S3.

/// A signed 192-bit integer `hi·2^128 + lo` (two's complement).
///
/// It holds one coefficient of the negacyclic product of Algorithm 3: a signed sum of up
/// to k products below r^2, whose magnitude exceeds 2^128 (about (−2^128, 2^129) for P3,
/// k·r^2 < 2^134 in general; the paper's 0 ≤ u_i ≤ k·r^2 forgets the sign).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wide {
    /// The low 128 bits.
    pub lo: u128,
    /// The high 64 bits, with the sign.
    pub hi: i64,
}

impl Wide {
    /// Zero.
    pub const ZERO: Wide = Wide { lo: 0, hi: 0 };

    /// floor(self / 2^s) for 1 ≤ s ≤ 64, as an i128: exact whenever the quotient fits.
    #[inline(always)]
    pub fn shr(self, s: u32) -> i128 {
        debug_assert!((1..=64).contains(&s));
        ((self.hi as i128) << (128 - s)) | (self.lo >> s) as i128
    }

    /// The value as a big integer (tests and cold paths).
    #[cfg(test)]
    pub fn to_bigint(self) -> num_bigint::BigInt {
        (num_bigint::BigInt::from(self.hi) << 128) + num_bigint::BigInt::from(self.lo)
    }
}

/// The radix r = 2^w + σ·2^u (σ = ±1, u < w ≤ 64) in the sparse form the division uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Radix {
    /// r itself.
    pub r: u64,
    /// The exponent of the leading power of two.
    pub w: u32,
    /// The exponent of the trailing power of two.
    pub u: u32,
    /// σ = −1, i.e. r = 2^w − 2^u.
    pub minus: bool,
    /// w − u: each round of (6) shrinks |z| by about this many bits.
    pub gap: u32,
    /// 2^w − 1 (all ones for w = 64).
    pub mask: u64,
}

/// Which steps of the paper's division ran (for tests: every case must be reachable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    /// Rounds of equation (6): the first one and each S2 "divide s by r again".
    pub rounds: u32,
    /// S2 steps where s ∈ [r, 2r): one subtraction of r (for r = 2^w − 2^u and
    /// s ∈ [r, 2^w), equation (6) would make no progress).
    pub s2_subtractions: u32,
    /// S3 steps: (q, s) ← (q − 1, s + r).
    pub s3: u32,
}

impl Radix {
    /// The sparse form of r = 2^w ± 2^u; the caller has checked u < w ≤ 64 and r < 2^64.
    pub fn new(r: u64, w: u32, u: u32, minus: bool) -> Self {
        debug_assert!(u < w && w <= 64);
        Radix {
            r,
            w,
            u,
            minus,
            gap: w - u,
            mask: if w == 64 { u64::MAX } else { (1u64 << w) - 1 },
        }
    }

    /// q·r modulo 2^128, from the sparse form: (q << w) ± (q << u).
    ///
    /// Callers use it where the true value of z − q·r is known to be small, so that the
    /// wrapped difference is exact.
    #[inline(always)]
    pub fn times(&self, q: i128) -> i128 {
        let a = q.wrapping_shl(self.w);
        let b = q.wrapping_shl(self.u);
        if self.minus {
            a.wrapping_sub(b)
        } else {
            a.wrapping_add(b)
        }
    }

    /// One round of equation (6) on an i128: z = r·h + s with h = floor(z / 2^w) and
    /// s = (z mod 2^w) − σ·2^u·h.
    #[inline(always)]
    fn round(&self, z: i128) -> (i128, i128) {
        let h = z >> self.w;
        let low = (z as u64 & self.mask) as i128;
        let shifted = h << self.u;
        let s = if self.minus {
            low + shifted
        } else {
            low - shifted
        };
        (h, s)
    }

    /// The Euclidean division z = q·r + s, 0 ≤ s < r, by equation (6) and steps S1–S3
    /// of §3.1, for any z with |z| < 2^126 (every caller's values are far smaller).
    pub fn div_rem(&self, z: i128) -> (i128, u64) {
        self.div_rem_traced(z).0
    }

    /// [`Radix::div_rem`], also reporting which steps ran.
    pub fn div_rem_traced(&self, z: i128) -> ((i128, u64), Trace) {
        debug_assert!(z.unsigned_abs() < 1 << 126);
        let r = self.r as i128;
        let mut trace = Trace {
            rounds: 1,
            ..Trace::default()
        };
        let (mut q, mut s) = self.round(z);
        loop {
            if (0..r).contains(&s) {
                // S1.
                return ((q, s as u64), trace);
            }
            if s < 0 && s >= -r {
                // S3.
                q -= 1;
                s += r;
                trace.s3 += 1;
            } else if s >= r && s < 2 * r {
                // S2 with quotient 1.
                q += 1;
                s -= r;
                trace.s2_subtractions += 1;
            } else {
                // S2 (and its mirror image for s < −r): equation (6) on s.
                let (h, rest) = self.round(s);
                q += h;
                s = rest;
                trace.rounds += 1;
            }
        }
    }

    /// The number of series terms [`Radix::estimate`] needs beyond the first when
    /// |z / 2^w| ≤ `h_max`: enough that 2^((terms+1)·(w−u)) > h_max.
    pub fn terms_for(&self, h_max_bits: u64) -> u32 {
        (h_max_bits.div_ceil(self.gap as u64).max(1) - 1) as u32
    }

    /// The series estimate of z/r from h = floor(z / 2^w):
    /// q = Σ_{j=0}^{terms} (−σ)^j·floor(h / 2^(j(w−u))), the S2 rounds of (6) unrolled.
    #[inline(always)]
    fn series(&self, h: i128, terms: u32) -> i128 {
        let mut q = h;
        let mut t = h;
        for j in 0..terms {
            t >>= self.gap;
            if self.minus || j % 2 == 1 {
                q += t;
            } else {
                q -= t;
            }
        }
        q
    }

    /// z = q·r + s exactly, with |s| < (terms + 5)·r when |z / 2^w| < 2^((terms+1)(w−u)).
    ///
    /// The error of the truncated series is below terms + 5 (one unit per floor, two for
    /// the tail and the fraction z mod 2^w), so the remainder is small and the wrapped
    /// 128-bit difference z − q·r is exact. (The multiplication uses the 192-bit form,
    /// [`Radix::estimate_wide`]; this one serves the tests of the series.)
    #[cfg(test)]
    pub fn estimate(&self, z: i128, terms: u32) -> (i128, i128) {
        let q = self.series(z >> self.w, terms);
        (q, z.wrapping_sub(self.times(q)))
    }

    /// The series estimate for a 192-bit coefficient of Algorithm 3 (|z| < k·r^2):
    /// z = q·r + s exactly, with |s| < (terms + 5)·r when |z / 2^w| < 2^((terms+1)(w−u)).
    ///
    /// The error of the truncated series is below terms + 5 (one unit per floor, two for
    /// the tail and the fraction z mod 2^w), so the remainder is small and the wrapped
    /// 128-bit difference z − q·r is exact.
    #[inline(always)]
    pub fn estimate_wide(&self, z: Wide, terms: u32) -> (i128, i128) {
        let q = self.series(z.shr(self.w), terms);
        // z ≡ lo (mod 2^128) and the true remainder is small: the wrapped difference is it.
        (q, (z.lo as i128).wrapping_sub(self.times(q)))
    }

    /// Brings z = q·r + s into Euclidean form: one S3 step (s < 0) and one S2 subtraction
    /// (s ≥ r), branch-free; [`Radix::div_rem`] takes over in the cold case where the
    /// remainder was further out than one r.
    #[inline(always)]
    pub fn finish(&self, q: i128, s: i128) -> (i128, u64) {
        let r = self.r as i128;
        let neg = s >> 127; // −1 when s < 0 (S3)
        let s = s + (r & neg);
        let q = q + neg;
        let ge = ((r - 1 - s) >> 127) & 1; // 1 when s ≥ r (S2)
        let s = s - (r & -ge);
        let q = q + ge;
        if (0..r).contains(&s) {
            (q, s as u64)
        } else {
            let (q2, s2) = self.div_rem(s);
            (q + q2, s2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use num_integer::Integer;
    use proptest::prelude::*;

    /// P3's radix (σ = +), P2's (σ = −, w = 64), P5's (gap 6) and two tiny ones.
    fn radixes() -> Vec<Radix> {
        let mk = |w: u32, u: u32, minus: bool| {
            let r = if minus {
                ((1u128 << w) - (1u128 << u)) as u64
            } else {
                ((1u128 << w) + (1u128 << u)) as u64
            };
            Radix::new(r, w, u, minus)
        };
        vec![
            mk(63, 34, false),
            mk(64, 50, true),
            mk(62, 56, false),
            mk(63, 40, true),
            mk(3, 1, false),
            mk(4, 2, true),
            mk(5, 4, true),
        ]
    }

    fn check(rad: &Radix, z: i128) -> Trace {
        let ((q, s), trace) = rad.div_rem_traced(z);
        let r = rad.r as i128;
        assert_eq!(
            (q, s as i128),
            (z.div_euclid(r), z.rem_euclid(r)),
            "z = {z}, r = {r}"
        );
        trace
    }

    #[test]
    fn s1_when_equation_6_lands_in_range() {
        for rad in radixes() {
            let r = rad.r as i128;
            // σ = +: z = 3r + 5 has z_high = 3 and z_low − 3·2^u = 5; σ = −: z = 3·2^w + 5
            // has s = 5 + 3·2^u < r (when the gap leaves room).
            if rad.gap > 3 {
                let z = if rad.minus {
                    3 * (1i128 << rad.w) + 5
                } else {
                    3 * r + 5
                };
                let t = check(&rad, z);
                assert_eq!(
                    t,
                    Trace {
                        rounds: 1,
                        ..Trace::default()
                    },
                    "r = {r}"
                );
            }
            let t = check(&rad, 5.min(r - 1));
            assert_eq!(t.rounds, 1);
            assert_eq!((t.s2_subtractions, t.s3), (0, 0));
        }
    }

    #[test]
    fn s3_when_the_shifted_subtraction_goes_negative() {
        for rad in radixes() {
            let r = rad.r as i128;
            // σ = +: z = 2^w gives s = −2^u; σ = −: a negative z = −2^w gives s = −2^u too.
            let z = if rad.minus {
                -(1i128 << rad.w)
            } else {
                1i128 << rad.w
            };
            let t = check(&rad, z);
            assert!(t.s3 >= 1, "r = {r}: {t:?}");
        }
    }

    #[test]
    fn s2_rounds_and_subtractions() {
        for rad in radixes() {
            let r = rad.r as i128;
            let t = check(&rad, 1i128 << 120);
            assert!(t.rounds >= 2, "r = {r}: {t:?}");
            let t = check(&rad, -(1i128 << 120) + 12345);
            assert!(t.rounds >= 2, "r = {r}: {t:?}");
        }
        // σ = −: s ∈ [r, 2^w) has z_high = 0, so S2 must subtract r directly.
        let p2 = radixes()[1];
        let t = check(&p2, p2.r as i128 + 7);
        assert_eq!(t.s2_subtractions, 1, "{t:?}");
        let tiny = radixes()[5]; // r = 12 = 2^4 − 2^2
        let t = check(&tiny, 14);
        assert_eq!(t.s2_subtractions, 1, "{t:?}");
    }

    #[test]
    fn tiny_radixes_exhaustively() {
        for rad in radixes().into_iter().filter(|r| r.w <= 5) {
            for z in -5000i128..5000 {
                check(&rad, z);
                let (q, s) = rad.estimate(z, rad.terms_for(20));
                assert_eq!(q * rad.r as i128 + s, z);
                let (q, s) = rad.finish(q, s);
                assert_eq!(
                    (q, s as i128),
                    (z.div_euclid(rad.r as i128), z.rem_euclid(rad.r as i128))
                );
            }
        }
    }

    #[test]
    fn wide_shift_is_floor_division() {
        let cases = [
            BigInt::from(1) << 133,
            BigInt::from(17) - (BigInt::from(1) << 133),
            BigInt::from(-1),
            BigInt::from(u128::MAX),
            -BigInt::from(u128::MAX) - 5,
        ];
        for z in cases {
            let (hi, lo) = {
                let m = BigInt::from(1) << 128;
                let (h, l) = z.div_mod_floor(&m);
                (i64::try_from(h).unwrap(), u128::try_from(l).unwrap())
            };
            let wide = Wide { lo, hi };
            assert_eq!(wide.to_bigint(), z);
            for s in [1, 34, 62, 63, 64] {
                let expect = z.div_floor(&(BigInt::from(1) << s));
                if expect.bits() > 126 {
                    continue; // beyond the i128 result the callers rely on
                }
                assert_eq!(BigInt::from(wide.shr(s)), expect, "z = {z}, s = {s}");
            }
        }
    }

    proptest! {
        #[test]
        fn div_rem_is_euclidean(z in -(1i128 << 125)..(1i128 << 125), which in 0usize..7) {
            check(&radixes()[which], z);
        }

        #[test]
        fn estimate_then_finish_is_euclidean(z in -(1i128 << 100)..(1i128 << 100), which in 0usize..7) {
            let rad = radixes()[which];
            let bits = 101u64.saturating_sub(rad.w as u64) + 1;
            let terms = rad.terms_for(bits);
            let (q, s) = rad.estimate(z, terms);
            prop_assert_eq!(q.wrapping_mul(rad.r as i128).wrapping_add(s), z);
            prop_assert!(s.unsigned_abs() < (terms as u128 + 5) * rad.r as u128);
            let (q, s) = rad.finish(q, s);
            let r = rad.r as i128;
            prop_assert_eq!((q, s as i128), (z.div_euclid(r), z.rem_euclid(r)));
        }

        #[test]
        fn wide_estimate_is_exact(hi in -(1i64 << 5)..(1i64 << 5), lo: u128, which in 0usize..4) {
            let rad = radixes()[which];
            let z = Wide { lo, hi };
            let terms = rad.terms_for(134 - rad.w as u64 + 1);
            let (q, s) = rad.estimate_wide(z, terms);
            let back = BigInt::from(q) * BigInt::from(rad.r) + BigInt::from(s);
            prop_assert_eq!(back, z.to_bigint());
            prop_assert!(s.unsigned_abs() < (terms as u128 + 5) * rad.r as u128);
        }
    }
}
