//! The explicit CRT's column sums in AVX-512 IFMA lanes, eight coefficients at once.
//!
//! Column d of coefficient c is S_cd = Σ_i y_ci·b_id over the s + 1 multipliers y_ci of
//! the coefficient and the words b_id of the column, all below 2^64. `vpmadd52luq` and
//! `vpmadd52huq` multiply the low 52 bits of eight pairs of words and add the low or the
//! high 52 bits of the 104-bit products to eight accumulators. With y = y_0 + 2^52·y_1
//! and b = b_0 + 2^52·b_1 (y_1, b_1 < 2^12),
//!
//! y·b = y_0 b_0 + 2^52 (y_0 b_1 + y_1 b_0) + 2^104 y_1 b_1,
//!
//! seven instructions a term for eight lanes (the high half of y_1 b_1 < 2^24 is zero),
//! where the scalar sum takes a 64 × 64-bit multiplication and three additions a term and
//! lane. Each of the seven halves has its own accumulator, so that no chain of dependent
//! instructions is longer than the terms; the accumulators of weight 2^52 and 2^104 then
//! hold at most three values below 2^52 a term, below 2^64 for up to [`MAX_TERMS`] terms,
//! and each lane's sum comes out as three words once a column.

/// Coefficients a pass sums: one a lane.
pub(super) const LANES: usize = 8;

/// The most terms a column may have: three halves below 2^52 a term stay below 2^64.
const MAX_TERMS: usize = 1 << 10;

/// 2^52 − 1, a limb's mask.
const M52: u64 = (1 << 52) - 1;

/// The columns' words split into 52-bit limbs, column after column, for a CPU with
/// AVX-512 IFMA.
pub(super) struct ColumnLanes {
    /// b_0 and b_1 of every word.
    limbs: Vec<[u64; 2]>,
    /// The terms of a column (s + 1).
    terms: usize,
}

/// The multipliers of [`LANES`] coefficients, term by term, split into 52-bit limbs.
pub(super) struct MultiplierLanes {
    low: Vec<[u64; LANES]>,
    high: Vec<[u64; LANES]>,
}

impl MultiplierLanes {
    /// Room for `terms` multipliers a lane, all zero.
    pub(super) fn new(terms: usize) -> MultiplierLanes {
        MultiplierLanes {
            low: vec![[0; LANES]; terms],
            high: vec![[0; LANES]; terms],
        }
    }

    /// Lane `lane` takes the multipliers `ys`.
    pub(super) fn set(&mut self, lane: usize, ys: &[u64]) {
        for ((low, high), &y) in self.low.iter_mut().zip(&mut self.high).zip(ys) {
            low[lane] = y & M52;
            high[lane] = y >> 52;
        }
    }
}

impl ColumnLanes {
    /// The lanes of `columns` (columns of `terms` words each), where the CPU has AVX-512 F
    /// and IFMA and a column has at most [`MAX_TERMS`] terms.
    pub(super) fn new(columns: &[u64], terms: usize) -> Option<ColumnLanes> {
        if !detected() || terms == 0 || terms > MAX_TERMS || !columns.len().is_multiple_of(terms) {
            return None;
        }
        let limbs = columns.iter().map(|&b| [b & M52, b >> 52]).collect();
        Some(ColumnLanes { limbs, terms })
    }

    /// Appends the column sums of the first `valid` lanes of `ys` to `out`, each lane's
    /// columns in order, as three words each (least significant first).
    pub(super) fn sums(&self, ys: &MultiplierLanes, valid: usize, out: &mut Vec<[u64; 3]>) {
        assert!(ys.low.len() == self.terms && valid <= LANES);
        let columns = self.limbs.len() / self.terms;
        let start = out.len();
        out.resize(start + valid * columns, [0; 3]);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `ColumnLanes` exists only where AVX-512 F and IFMA were detected, and
        // the multipliers have the columns' terms (asserted above).
        unsafe {
            ifma::sums(self, ys, valid, &mut out[start..]);
        }
    }
}

/// Whether the CPU has AVX-512 F and IFMA.
fn detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Σ = A_0 + 2^52·A_1 + 2^104·A_2 in three words, for A_i below 2^64 and a sum below
/// 2^192.
fn words_of_limb_sums([a0, a1, a2]: [u64; 3]) -> [u64; 3] {
    let low = u128::from(a0) + (u128::from(a1) << 52); // below 2^117
    let top = (u128::from(a2) & ((1 << 24) - 1)) << 104; // A_2's bits that fit 128
    let (low, carry) = low.overflowing_add(top);
    [
        low as u64,
        (low >> 64) as u64,
        (a2 >> 24) + u64::from(carry),
    ]
}

#[cfg(target_arch = "x86_64")]
mod ifma {
    use super::{words_of_limb_sums, ColumnLanes, MultiplierLanes, LANES};
    use core::arch::x86_64::*;

    /// `out[lane·columns + d]` = column d's sum of lane `lane`, for the first `valid` lanes.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sums(
        lanes: &ColumnLanes,
        ys: &MultiplierLanes,
        valid: usize,
        out: &mut [[u64; 3]],
    ) {
        let terms = lanes.terms;
        let columns = lanes.limbs.len() / terms;
        for (d, column) in lanes.limbs.chunks_exact(terms).enumerate() {
            // The seven halves' accumulators: y0·b0 low and high, y0·b1 low and high,
            // y1·b0 low and high, y1·b1 low.
            let mut acc = [_mm512_setzero_si512(); 7];
            for ((&[b0, b1], y0), y1) in column.iter().zip(&ys.low).zip(&ys.high) {
                let (b0, b1) = (_mm512_set1_epi64(b0 as i64), _mm512_set1_epi64(b1 as i64));
                // SAFETY: `[u64; 8]` is 64 bytes; the loads are unaligned.
                let (y0, y1) = unsafe {
                    (
                        _mm512_loadu_si512(y0.as_ptr().cast()),
                        _mm512_loadu_si512(y1.as_ptr().cast()),
                    )
                };
                acc[0] = _mm512_madd52lo_epu64(acc[0], y0, b0);
                acc[1] = _mm512_madd52hi_epu64(acc[1], y0, b0);
                acc[2] = _mm512_madd52lo_epu64(acc[2], y0, b1);
                acc[3] = _mm512_madd52hi_epu64(acc[3], y0, b1);
                acc[4] = _mm512_madd52lo_epu64(acc[4], y1, b0);
                acc[5] = _mm512_madd52hi_epu64(acc[5], y1, b0);
                acc[6] = _mm512_madd52lo_epu64(acc[6], y1, b1);
            }
            // A_0 = y0·b0's low halves; A_1 (weight 2^52) and A_2 (2^104) the rest.
            let a1 = _mm512_add_epi64(_mm512_add_epi64(acc[1], acc[2]), acc[4]);
            let a2 = _mm512_add_epi64(_mm512_add_epi64(acc[3], acc[5]), acc[6]);
            let mut limb_sums = [[0u64; LANES]; 3];
            for (sum, v) in limb_sums.iter_mut().zip([acc[0], a1, a2]) {
                // SAFETY: `[u64; 8]` is 64 bytes; the store is unaligned.
                unsafe { _mm512_storeu_si512(sum.as_mut_ptr().cast(), v) };
            }
            for lane in 0..valid {
                let [a0, a1, a2] = limb_sums.map(|s| s[lane]);
                out[lane * columns + d] = words_of_limb_sums([a0, a1, a2]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Σ b_i·y_i in three words, a term at a time.
    fn dot(column: &[u64], ys: &[u64]) -> [u64; 3] {
        let mut sum = [0u64; 3];
        for (&b, &y) in column.iter().zip(ys) {
            let p = u128::from(b) * u128::from(y);
            let (lo, c0) = sum[0].overflowing_add(p as u64);
            let (mid, c1) = sum[1].overflowing_add((p >> 64) as u64);
            let (mid, c2) = mid.overflowing_add(u64::from(c0));
            sum = [lo, mid, sum[2] + u64::from(c1) + u64::from(c2)];
        }
        sum
    }

    #[test]
    fn lane_sums_are_the_dot_products() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for (terms, columns) in [(1, 1), (3, 2), (18, 8), (34, 16), (129, 64), (MAX_TERMS, 2)] {
            let words: Vec<u64> = (0..terms * columns)
                .map(|i| if i % 5 == 0 { u64::MAX } else { rng.gen() })
                .collect();
            let Some(lanes) = ColumnLanes::new(&words, terms) else {
                eprintln!("skipped: no AVX-512 IFMA on this CPU");
                return;
            };
            // Multipliers at their bound, at zero and at random.
            let ys: Vec<Vec<u64>> = (0..LANES)
                .map(|lane| {
                    (0..terms)
                        .map(|i| match (lane + i) % 4 {
                            0 => u64::MAX,
                            1 => 0,
                            _ => rng.gen(),
                        })
                        .collect()
                })
                .collect();
            for valid in [LANES, 3] {
                let mut multipliers = MultiplierLanes::new(terms);
                for (lane, y) in ys.iter().enumerate() {
                    multipliers.set(lane, y);
                }
                let mut out = vec![[7, 7, 7]]; // what was there stays
                lanes.sums(&multipliers, valid, &mut out);
                let mut want = vec![[7, 7, 7]];
                for y in &ys[..valid] {
                    want.extend(words.chunks_exact(terms).map(|c| dot(c, y)));
                }
                assert_eq!(out, want, "{terms} terms, {columns} columns, {valid} lanes");
            }
        }
    }

    #[test]
    fn limb_sums_at_their_bounds_carry_into_three_words() {
        let max = u64::MAX;
        let want = |a: [u64; 3]| {
            let v = num_bigint::BigUint::from(a[0])
                + (num_bigint::BigUint::from(a[1]) << 52u32)
                + (num_bigint::BigUint::from(a[2]) << 104u32);
            let mut w = v.to_u64_digits();
            w.resize(3, 0);
            [w[0], w[1], w[2]]
        };
        for a in [
            [0, 0, 0],
            [max, max, max],
            [u64::MAX, u64::MAX, 1 << 40],
            [1, 0, 1 << 24],
        ] {
            assert_eq!(words_of_limb_sums(a), want(a), "{a:?}");
        }
    }
}
