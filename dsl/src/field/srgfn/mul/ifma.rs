//! Algorithm 3 in AVX-512 IFMA lanes, one lane per coefficient, for the catalogue primes
//! with 8 and 16 digits (P3, P4).
//!
//! `vpmadd52luq`/`vpmadd52huq` multiply the low 52 bits of eight pairs of words and add the
//! low or high 52 bits of the 104-bit products to eight accumulators. Lane i holds the
//! coefficient u_i of f_x·f_y mod T^k + 1, so step 1 of Algorithm 3 is k broadcasts of
//! x_j against y rotated by j places, and steps 2–4 (the base-r digits and their carries)
//! run on all k coefficients at once; there is no serial carry chain anywhere.
//!
//! # Step 1: the negacyclic product in 52-bit limbs
//!
//! A digit (< 2^64) is split as x = x_0 + 2^52·x_1 with x_1 < 2^12, so
//! x·y = x_0 y_0 + 2^52 (x_0 y_1 + x_1 y_0) + 2^104 x_1 y_1: seven IFMA instructions per j
//! and block of eight lanes, the high half of x_1 y_1 (< 2^24) being zero. The
//! accumulators hold nonnegative sums, so the wrapped terms of lane i (j > i, where
//! T^k ≡ −1 asks for −x_j·y_{k+i−j}) use M − y_{k+i−j} with M = r − 1 instead:
//! x_j(M − y) = −x_j y + M x_j.
//! The surplus Σ_i r^i Σ_{j>i} M·x_j telescopes for M = r − 1 to x(r) − Σ_j x_j, so
//! U_i = V_i − x_i + [i = 0]·Σ_j x_j (V_i the lane sums) satisfies Σ U_i r^i ≡ x·y (mod p),
//! with U_i ∈ [−r, k·r²]. (This needs y_j ≤ M, i.e. y ≠ p − 1: that case goes to the exact
//! path.)
//!
//! # Steps 2–4: digits without a division
//!
//! With d = w − 52 and U = L_0 + 2^52 L_1 + 2^104 L_2 (the limb sums, not normalised):
//!
//! 1. h = α + 2^(52−d) L_2 with α = ⌊L_1 / 2^d⌋, so that U = 2^w·h + a exactly, with
//!    a = L_0 + 2^52 (L_1 mod 2^d) small.
//! 2. q = h − T, T = −Σ_{j=1..t} (−σ)^j ⌊h / 2^(j(w−u))⌋: the series of §3.1's repeated
//!    division (as in the scalar path), so |U/r − q| is small: a few units and the
//!    truncated tail of the series, as [`Plan::new`] bounds it.
//! 3. s = U − q·r = a − σ·2^u·q + 2^w·T (from 2^w = r − σ2^u): exact, and |s| small.
//! 4. v_i = s_i + q_{i−1} (and −q_{k−1} into lane 0, r^k ≡ −1), then one round of
//!    equation (6): g = ⌊v / 2^w⌋, l = v mod 2^w, digit z_i = l − σ2^u g_i + g_{i−1}.
//!
//! Values beyond 64 bits are kept as two limbs lo + 2^52·hi (hi a signed word). Every
//! step is an identity between integers, so the result is right whenever each digit lands
//! in [0, r), which one comparison per lane checks (step S1 for all digits at once); it
//! fails with probability about 2^−20 per lane or less for random operands, and then (and
//! for the structured operands that sit on a carry boundary) the exact scalar path runs
//! instead.
//! [`Plan::new`] bounds every intermediate value for the given radix and refuses radixes
//! where the bounds do not hold.
//!
//! P2 (k = 4) stays on the scalar path: in half-filled registers this code measured
//! 21.9 ns per product against the scalar 20.4 ns (bench/RESULTS.md).

use super::{Shape, Srgfn};
use core::arch::x86_64::*;

/// 2^52 − 1, the limb mask.
const M52: u64 = (1 << 52) - 1;

/// The constants of the vector path for one radix, with the bounds checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    /// r = 2^w + σ2^u.
    r: u64,
    /// The leading exponent, 52 < w ≤ 64.
    w: u32,
    /// The trailing exponent, 1 ≤ u < 52.
    u: u32,
    /// σ = −1.
    minus: bool,
    /// Series terms beyond the first (step 2).
    terms: u32,
}

/// The number of bits of x (0 for 0).
const fn bits(x: u128) -> u32 {
    128 - x.leading_zeros()
}

impl Plan {
    /// The plan for a radix and k digits, or `None` where the vector path does not apply:
    /// k ∉ {8, 16}, w ∉ (52, 64], u ∉ [1, 52), or a bound below fails.
    pub(super) const fn new(shape: Shape, k: usize) -> Option<Plan> {
        let (r, w, u) = (shape.r, shape.w, shape.u);
        if !(k == 8 || k == 16) || w <= 52 || w > 64 || u == 0 || u >= 52 {
            return None;
        }
        let g = w - u;
        let k = k as u128;
        // IFMA accumulators: k products of each limb pair, below k·2^52 ≤ 2^56 per
        // accumulator, and L_1 (three of them) below 2^58: no lane overflows.
        // |U| ≤ k·r² and |a| < (k + 2)·2^52 + 2^w with w > 52, so
        // |h| = |U − a|/2^w ≤ k·(r² >> w) + k + (k + 2)/2 + 1.
        let h_max = k * ((r as u128 * r as u128) >> w) + 2 * k + 3;
        let h_bits = bits(h_max);
        // ⌊h / 2^g⌋ as (h_lo >> g) + (h_hi << (52 − g)) must fit a signed word.
        if h_bits + 1 > 62 + g {
            return None;
        }
        // As in `Shape::new`: enough terms that the series tail, times 2^u, stays below
        // 2^(w−16) (the final check then rarely fails), or until the tail vanishes.
        let mut terms = 0;
        loop {
            let tail_bits = (h_bits + 1).saturating_sub((terms + 1) * g);
            if tail_bits + u + 16 <= w || tail_bits == 0 {
                break;
            }
            terms += 1;
            if (terms + 1) * g > 115 {
                return None;
            }
        }
        // |U/r − q| < E: the tail 2·h_max·2^−(t+1)g, two units per truncated term
        // (floors of two limbs), and |a|/r.
        let tail = (2 * h_max) >> ((terms + 1) * g);
        let a_max = (k + 2) * (1 << 52) + (1 << w);
        let e = tail + 1 + 2 * terms as u128 + a_max / r as u128 + 1;
        // |v| ≤ E·r + |q|, |q| ≤ h_max + |T|, |T| ≤ 2·h_max/2^g + 2t.
        let t_max = ((2 * h_max) >> g) + 2 * terms as u128;
        if bits(t_max) > 61 {
            return None;
        }
        let v_max = e * r as u128 + h_max + t_max;
        if bits(v_max) > 112 {
            return None;
        }
        // |g| ≤ G, and the digit l − σ2^u g + g' lies in (−D, 2^w + D): it is checked as a
        // wrapped word, which needs (−D, 2^w + D) ⊂ (r − 2^64, 2^64) (the scalar path's
        // `Shape::narrow`).
        let g_max = (v_max >> w) + 1;
        let d = g_max * ((1 << u) + 1);
        if (1u128 << w) + d > 1 << 64 || d > (1 << 64) - r as u128 {
            return None;
        }
        Some(Plan {
            r,
            w,
            u,
            minus: shape.minus,
            terms,
        })
    }
}

/// The plan of the catalogue prime with K digits, a compile-time constant.
pub(super) struct Catalogue<const K: usize>;

impl<const K: usize> Catalogue<K> {
    /// `None` where there is no catalogue prime with K digits or its radix does not fit.
    pub(super) const PLAN: Option<Plan> = match Shape::catalogue(K) {
        Some(shape) => Plan::new(shape, K),
        None => None,
    };
}

/// Whether this CPU runs AVX-512F and AVX-512 IFMA (detected once, then a cached flag).
#[inline]
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}

/// x·y for the catalogue prime with K digits (a field with a [`Catalogue`] plan); the
/// exact scalar path takes the products whose digits miss [0, r), and y = p − 1.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512 IFMA ([`available`]).
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn mul_catalogue<const K: usize>(
    f: &Srgfn<K>,
    x: &[u64; K],
    y: &[u64; K],
) -> [u64; K] {
    let mut z = [0; K];
    if try_mul(x, y, &mut z) {
        z
    } else {
        f.mul_exact(x, y)
    }
}

/// Writes x·y for the catalogue prime with K digits to `out`, or returns false (`out`
/// then unspecified) when a digit missed [0, r), when y = p − 1, or when the catalogue
/// has no plan for K.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512 IFMA ([`available`]).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) unsafe fn try_mul<const K: usize>(
    x: &[u64; K],
    y: &[u64; K],
    out: &mut [u64; K],
) -> bool {
    match Catalogue::<K>::PLAN {
        Some(plan) if K == 8 => mul::<K, 1>(x, y, plan, out),
        Some(plan) if K == 16 => mul::<K, 2>(x, y, plan, out),
        _ => false,
    }
}

/// x in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

// Shifts by a plan constant (the compiler turns them into immediate shifts), and the
// lane-wise arithmetic, as short names for the formulas of the module documentation.
#[inline]
#[target_feature(enable = "avx512f")]
fn srl(a: __m512i, n: u32) -> __m512i {
    _mm512_srlv_epi64(a, splat(n as u64))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn sra(a: __m512i, n: u32) -> __m512i {
    _mm512_srav_epi64(a, splat(n.min(63) as u64))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn sll(a: __m512i, n: u32) -> __m512i {
    _mm512_sllv_epi64(a, splat(n as u64))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add(a: __m512i, b: __m512i) -> __m512i {
    _mm512_add_epi64(a, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn sub(a: __m512i, b: __m512i) -> __m512i {
    _mm512_sub_epi64(a, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn and(a: __m512i, b: __m512i) -> __m512i {
    _mm512_and_si512(a, b)
}

/// Lane i of the result is lane i − 1 of `v` (across the B registers), and lane 0 is the
/// last lane of `neg`: the carry out of the top coefficient comes back negated (r^k ≡ −1).
#[inline]
#[target_feature(enable = "avx512f")]
fn carry_in<const B: usize>(v: &[__m512i; B], neg: &[__m512i; B]) -> [__m512i; B] {
    core::array::from_fn(|b| {
        let below = if b == 0 { neg[B - 1] } else { v[b - 1] };
        _mm512_alignr_epi64::<7>(v[b], below)
    })
}

/// The kernel: K = 8·B digits in B registers (module documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul<const K: usize, const B: usize>(
    x: &[u64; K],
    y: &[u64; K],
    plan: Plan,
    out: &mut [u64; K],
) -> bool {
    debug_assert!(B * 8 == K && B <= 2);
    let r = plan.r;
    if y[K - 1] == r {
        return false;
    }
    let load = |a: &[u64; K], b: usize| {
        // SAFETY: block b < B = K/8 reads words 8b..8b+8 of the K-word array.
        unsafe { _mm512_loadu_si512(a.as_ptr().add(8 * b).cast()) }
    };
    let xv: [__m512i; B] = core::array::from_fn(|b| load(x, b));
    let yv: [__m512i; B] = core::array::from_fn(|b| load(y, b));
    let x1v: [__m512i; B] = core::array::from_fn(|b| srl(xv[b], 52));
    let acc = products::<K, B>(x, &x1v, &yv, r);
    let (s, q) = divide::<B>(&acc, &xv, &x1v, &plan);
    carry::<K, B>(&s, &q, &plan, out)
}

/// Limb pair of a vector of signed values: v = lo + 2^52·hi.
type Limbs<const B: usize> = ([__m512i; B], [__m512i; B]);

/// The negacyclic product U = x·y mod (T^K + 1), as seven accumulators of 52-bit limb
/// products per block of eight coefficients (module documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn products<const K: usize, const B: usize>(
    x: &[u64; K],
    x1v: &[__m512i; B],
    yv: &[__m512i; B],
    r: u64,
) -> [[__m512i; 7]; B] {
    let zero = _mm512_setzero_si512();
    // The lanes [M − y, y] (2B registers): full words, whose low 52 bits the IFMA reads
    // as the first limb, and their high limbs. y rotated by j with the wrapped lanes
    // twisted is eight consecutive lanes of them.
    let mut t0 = [zero; 4];
    let mut t1 = [zero; 4];
    for b in 0..B {
        t0[b] = sub(splat(r - 1), yv[b]);
        t0[B + b] = yv[b];
        t1[b] = srl(t0[b], 52);
        t1[B + b] = srl(yv[b], 52);
    }
    // The high limbs of x, for the broadcasts below.
    let mut x1 = [0u64; K];
    for (b, limbs) in x1v.iter().enumerate() {
        // SAFETY: block b < K/8 writes words 8b..8b+8 of the K-word array.
        unsafe { _mm512_storeu_si512(x1.as_mut_ptr().add(8 * b).cast(), *limbs) };
    }
    // Keeps the array in memory, so that the broadcasts are loads, not shuffles.
    core::hint::black_box(&mut x1);
    // Σ_j x_j enters lane 0 through the initial accumulators, in limbs (scalar code: the
    // scalar units are otherwise idle).
    let sum = x.iter().map(|&d| d as u128).sum::<u128>();
    let mut acc = [[zero; 7]; B];
    acc[0][0] = _mm512_zextsi128_si512(_mm_cvtsi64_si128((sum as u64 & M52) as i64));
    acc[0][1] = _mm512_zextsi128_si512(_mm_cvtsi64_si128((sum >> 52) as i64));
    // Lanes base .. base + 8 of [M − y, y] are y rotated by j = K + 8b − base with the
    // wrapped lanes twisted, as block b needs it: one rotation serves every block.
    macro_rules! step {
        ($($base:literal)*) => {$(
            if $base <= 16 * B - 8 {
                let (c, o) = ($base / 8, $base % 8);
                let (y0, y1) = if o == 0 {
                    (t0[c], t1[c])
                } else {
                    (
                        _mm512_alignr_epi64::<{ $base % 8 }>(t0[c + 1], t0[c]),
                        _mm512_alignr_epi64::<{ $base % 8 }>(t1[c + 1], t1[c]),
                    )
                };
                for b in 0..B {
                    let j = (K + 8 * b).wrapping_sub($base);
                    if j < K {
                        // Loads; the IFMA reads the low 52 bits of x_j (its first limb).
                        // SAFETY: j < K.
                        let (x0j, x1j) = unsafe { (*x.get_unchecked(j), *x1.get_unchecked(j)) };
                        let (bx0, bx1) = (splat(x0j), splat(x1j));
                        let a = &mut acc[b];
                        a[0] = _mm512_madd52lo_epu64(a[0], bx0, y0);
                        a[1] = _mm512_madd52hi_epu64(a[1], bx0, y0);
                        a[2] = _mm512_madd52lo_epu64(a[2], bx0, y1);
                        a[3] = _mm512_madd52lo_epu64(a[3], bx1, y0);
                        a[4] = _mm512_madd52hi_epu64(a[4], bx0, y1);
                        a[5] = _mm512_madd52hi_epu64(a[5], bx1, y0);
                        a[6] = _mm512_madd52lo_epu64(a[6], bx1, y1);
                    }
                }
            }
        )*};
    }
    step!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
    acc
}

/// The division of each coefficient of U (less step 1's correction) by r, by the series
/// of the module documentation: the remainders s and the quotients q, in limbs.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn divide<const B: usize>(
    acc: &[[__m512i; 7]; B],
    xv: &[__m512i; B],
    x1v: &[__m512i; B],
    plan: &Plan,
) -> (Limbs<B>, Limbs<B>) {
    let zero = _mm512_setzero_si512();
    let m52 = splat(M52);
    let (w, u) = (plan.w, plan.u);
    let d = w - 52;
    let gap = w - u;
    let m_d = splat((1 << d) - 1);
    let mut q_lo = [zero; B];
    let mut q_hi = [zero; B];
    let mut s_lo = [zero; B];
    let mut s_hi = [zero; B];
    for b in 0..B {
        let a = &acc[b];
        // U − the correction of step 1, as limb sums L_0, L_1, L_2.
        let l0 = sub(a[0], and(xv[b], m52));
        let l1 = add(add(a[1], a[2]), sub(a[3], x1v[b]));
        let l2 = add(a[4], add(a[5], a[6]));
        // U = 2^w·h + a with h = ⌊L_1 / 2^d⌋ + 2^(52−d) L_2 (two limbs) and
        // a = L_0 + 2^52 (L_1 mod 2^d).
        let h_lo = add(sra(l1, d), sll(and(l2, m_d), 52 - d));
        let h_hi = sra(l2, d);
        let a_hi = and(l1, m_d);
        // T = h − q, the series beyond its first term; each term ⌊h / 2^s⌋ from the two
        // limbs (exact for s < 52, within one unit otherwise).
        let mut t = zero;
        for j in 1..=plan.terms {
            let s = j * gap;
            let term = if s < 52 {
                add(sra(h_lo, s), sll(h_hi, 52 - s))
            } else {
                add(sra(h_lo, s), sra(h_hi, s - 52))
            };
            t = if !plan.minus && j % 2 == 1 {
                add(t, term)
            } else {
                sub(t, term)
            };
        }
        // s = a − σ2^u q + 2^w T, q = h − T with its low limb not normalised: 2^u times it
        // splits exactly into the low 52 bits of the wrapped shift and an arithmetic shift.
        let ql = sub(h_lo, t);
        let uq_lo = and(sll(ql, u), m52);
        let uq_hi = add(sra(ql, 52 - u), sll(h_hi, u));
        let (sl, sh) = if plan.minus {
            (add(l0, uq_lo), add(a_hi, uq_hi))
        } else {
            (sub(l0, uq_lo), sub(a_hi, uq_hi))
        };
        s_lo[b] = sl;
        s_hi[b] = add(sh, sll(t, d));
        q_lo[b] = ql;
        q_hi[b] = h_hi;
    }
    ((s_lo, s_hi), (q_lo, q_hi))
}

/// The carries v_i = s_i + q_(i−1) (−q_(k−1) into lane 0) and their final fold into
/// digits, written to `out`; whether every digit came out below r.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn carry<const K: usize, const B: usize>(
    (s_lo, s_hi): &Limbs<B>,
    (q_lo, q_hi): &Limbs<B>,
    plan: &Plan,
    out: &mut [u64; K],
) -> bool {
    let zero = _mm512_setzero_si512();
    let (w, u, r) = (plan.w, plan.u, plan.r);
    let d = w - 52;
    // v_i = s_i + q_{i−1}, −q_{k−1} into lane 0.
    let neg_lo: [__m512i; B] = core::array::from_fn(|b| sub(zero, q_lo[b]));
    let neg_hi: [__m512i; B] = core::array::from_fn(|b| sub(zero, q_hi[b]));
    let in_lo = carry_in(q_lo, &neg_lo);
    let in_hi = carry_in(q_hi, &neg_hi);
    let mut g = [zero; B];
    let mut l = [zero; B];
    for b in 0..B {
        let lo = add(s_lo[b], in_lo[b]);
        let hi = add(s_hi[b], in_hi[b]);
        // v = lo + 2^52 hi: g = ⌊v / 2^w⌋ from the normalised high limb, and l = v mod 2^w
        // from the wrapped sum of the limbs, which has the same low 64 bits.
        g[b] = sra(add(hi, sra(lo, 52)), d);
        let low = add(lo, sll(hi, 52));
        l[b] = if w == 64 {
            low
        } else {
            and(low, splat((1 << w) - 1))
        };
    }
    let neg_g: [__m512i; B] = core::array::from_fn(|b| sub(zero, g[b]));
    let g_in = carry_in(&g, &neg_g);
    let mut in_range = true;
    for b in 0..B {
        // z = l − σ2^u g_i + g_{i−1}, whose true value lies in (r − 2^64, 2^64) (the plan's
        // bound): below r as a wrapped word exactly when it is a digit.
        let e = if plan.minus {
            add(sll(g[b], u), g_in[b])
        } else {
            sub(g_in[b], sll(g[b], u))
        };
        let z = add(l[b], e);
        in_range &= _mm512_cmplt_epu64_mask(z, splat(r)) == 0xff;
        // SAFETY: block b < K/8 writes words 8b..8b+8 of `out`.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(8 * b).cast(), z) };
    }
    in_range
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_plans() {
        // P3: one series term (as on the scalar path); P4: two.
        let p3 = Catalogue::<8>::PLAN.expect("P3 has a plan");
        assert_eq!((p3.w, p3.u, p3.minus, p3.terms), (63, 34, false, 1));
        let p4 = Catalogue::<16>::PLAN.expect("P4 has a plan");
        assert_eq!((p4.w, p4.u, p4.minus, p4.terms), (62, 36, false, 2));
        // P1 and P2 (too few lanes), P5 and P6 (too many registers) stay scalar.
        assert_eq!(Catalogue::<2>::PLAN, None);
        assert_eq!(Catalogue::<4>::PLAN, None);
        assert_eq!(Catalogue::<32>::PLAN, None);
        assert_eq!(Catalogue::<64>::PLAN, None);
    }

    #[test]
    fn radixes_outside_the_bounds_are_refused() {
        let plan = |w, u, minus, k| Plan::new(Shape::new(w, u, minus, k), k);
        assert!(plan(63, 34, false, 8).is_some());
        // P2's radix: its digits pass the wrapped-word check's range (scalar `narrow`).
        assert!(plan(64, 50, true, 8).is_none());
        // The two-limb split needs 52 < w, and u < 52.
        assert!(plan(52, 20, false, 8).is_none());
        assert!(plan(63, 52, false, 8).is_none());
        // A gap of 4 bits: ⌊h / 2^(w−u)⌋ would not fit a word.
        assert!(plan(63, 59, false, 8).is_none());
        // Lane counts other than 8 and 16.
        assert!(plan(63, 34, false, 4).is_none());
        assert!(plan(63, 34, false, 32).is_none());
    }
}
