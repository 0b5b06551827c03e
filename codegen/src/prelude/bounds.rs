//! The bounds of the SRGFN multiplication and the divisions by r that run within them.

use super::error::PreludeError;
use super::odd::{limbs_for, OddDiv};
use fermat_dsl::field::{Sign, SrgfnParams};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// The most bits of a product coefficient's magnitude in the device's 160-bit accumulators.
const MAX_COEF_BITS: u64 = 158;

/// The bounds behind the SRGFN multiplication (2017 paper, Algorithm 3 and §3.1), computed
/// exactly for one field, and the divisions by r that the device runs within them.
///
/// ```
/// use fermat_codegen::prelude::MulBounds;
/// use fermat_dsl::field::{Sign, SrgfnParams};
/// use num_bigint::BigUint;
///
/// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
/// let b = MulBounds::new(p3)?;
/// // The carry c = k·r + ⌊c/r⌋ + 1 with ⌊c/r⌋ = k: c = k·r + k + 1.
/// let (r, k) = (BigUint::from(p3.radix()?), 8u32);
/// assert_eq!(b.carry, &r * k + k + 1u32);
/// assert_eq!(b.coef, &r * &r * k + &b.carry);
/// assert_eq!((b.coef_div.z_limbs, b.fold_div.z_limbs), (5, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulBounds {
    /// The largest |u_i + carry|: one negacyclic coefficient (|u_i| ≤ k·r²) plus the carry
    /// from the digit below.
    pub coef: BigUint,
    /// The largest |carry| out of a digit (the fixed point of c = ⌊(k·r² + c)/r⌋ + 1).
    pub carry: BigUint,
    /// The division of a coefficient plus carry (five 32-bit limbs, |z| ≤ `coef`).
    pub coef_div: DivPlan,
    /// The division of digit 0 less the final carry (three limbs, |z| < `carry` + r).
    pub fold_div: DivPlan,
}

impl MulBounds {
    /// The bounds for p = r^k + 1 with r = 2^w ± 2^u, or why the device multiplication
    /// does not cover it.
    ///
    /// ```
    /// use fermat_codegen::prelude::{MulBounds, PreludeError};
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// // Digit 1 takes the fold's quotient as one signed limb.
    /// assert_eq!(MulBounds::new(p3)?.fold_div.quotient_limbs, 1);
    /// // r = 2^4 + 2 with one digit is the word prime 19.
    /// let one_digit = SrgfnParams { w: 4, u: 1, sign: Sign::Plus, k: 1 };
    /// assert_eq!(MulBounds::new(one_digit), Err(PreludeError::OneDigit { k: 1, word: 19 }));
    /// # Ok::<(), PreludeError>(())
    /// ```
    pub fn new(params: SrgfnParams) -> Result<MulBounds, PreludeError> {
        let r_word = params.radix()?;
        let k = params.k;
        if k < 2 {
            return Err(PreludeError::OneDigit {
                k,
                word: u128::from(r_word) + 1,
            });
        }
        let r = BigInt::from(r_word);
        let u_max = BigInt::from(k) * &r * &r;
        let mut carry = BigInt::zero();
        loop {
            let next = (&u_max + &carry).div_floor(&r) + 1;
            if next <= carry {
                break;
            }
            carry = next;
        }
        let coef = &u_max + &carry;
        // The final carry c = c1·r + c0 is subtracted from digits 0 and 1 with one
        // correction per digit, which needs |c1| + 1 ≤ r.
        let c1 = carry.div_floor(&r) + 1;
        if &c1 + 1 > r {
            return Err(PreludeError::FinalCarry {
                r: r_word,
                k,
                carry: carry.magnitude().clone(),
            });
        }
        // The device accumulates a coefficient modulo 2^160 and reads bit 159 as its sign.
        if coef.bits() > MAX_COEF_BITS {
            return Err(PreludeError::CoefficientWidth {
                coef: coef.magnitude().clone(),
                max_bits: MAX_COEF_BITS,
            });
        }
        let coef = coef.magnitude().clone();
        let carry = carry.magnitude().clone();
        let coef_div = DivPlan::new(params, &coef, 5)?;
        let fold_div = DivPlan::new(params, &(&carry + r.magnitude()), 3)?;
        // Digit 1 takes the quotient of digit 0 less the carry as one signed limb.
        if fold_div.quotient_limbs > 1 {
            return Err(PreludeError::FoldQuotient {
                r: r_word,
                k,
                carry,
                limbs: fold_div.quotient_limbs,
            });
        }
        Ok(MulBounds {
            coef,
            carry,
            coef_div,
            fold_div,
        })
    }

    /// The largest |⌊y₀ / 2^w⌋| for digit 0 less the final carry (|y₀| ≤ the fold's
    /// bound), where the multiplication's fast path takes that estimate as the fold's
    /// quotient: y₀ = a·r + t with t = (y₀ mod 2^w) ∓ a·2^u, and where 0 ≤ t < r the
    /// exact division is not needed. `None` where the device cannot run that path (r's low
    /// limb must be 0, u ≥ 32, so that t's low limb is y₀'s; a must fit one signed limb and
    /// 2^(w−32) + a·2^(u−32) 63 bits) or where it would miss too often: t leaves [0, r)
    /// for about a fraction a·2^u/2^w of the values, and a lane that misses takes its whole
    /// warp through the exact division, so the bound a_max·2^u/2^w must stay within
    /// 2^−[`FOLD_MISS_BITS`] (P5's r = 2^62 + 2^56 with k = 32 carries up to a = 34 and
    /// misses about half the time).
    ///
    /// ```
    /// use fermat_codegen::prelude::MulBounds;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// // P3: |y₀| < (k + 1)·r + k + 1, so |a| ≤ k + 2 = 10.
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// assert_eq!(MulBounds::new(p3)?.fold_estimate(p3), Some(10));
    /// // u < 32: t's low limb would not be y₀'s.
    /// let low = SrgfnParams { w: 62, u: 21, sign: Sign::Plus, k: 4 };
    /// assert_eq!(MulBounds::new(low)?.fold_estimate(low), None);
    /// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
    /// ```
    pub fn fold_estimate(&self, params: SrgfnParams) -> Option<u32> {
        if params.u < 32 {
            return None;
        }
        let a_max = ((&self.fold_div.bound >> params.w) + 1u32).to_u32()?;
        let th_max =
            (BigUint::from(a_max) << (params.u - 32)) + (BigUint::one() << (params.w - 32));
        let misses = BigUint::from(a_max) << (params.u + FOLD_MISS_BITS);
        (a_max < 1 << 31 && th_max.bits() < 63 && misses <= BigUint::one() << params.w)
            .then_some(a_max)
    }
}

/// The fold's estimate ([`MulBounds::fold_estimate`]) may miss for at most one value in
/// 2^7: a warp of 32 lanes then takes the exact division a quarter of the time at most.
///
/// ```
/// use fermat_codegen::prelude::{MulBounds, FOLD_MISS_BITS};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P3 misses for a fraction 10·2^34/2^63 of the values, far below 2^−7.
/// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
/// let a_max = MulBounds::new(p3)?.fold_estimate(p3).unwrap();
/// assert!(u64::from(a_max) << (p3.u + FOLD_MISS_BITS) <= 1 << p3.w);
/// // P5, r = 2^62 + 2^56: 2^u/2^w alone is 2^−6.
/// let p5 = SrgfnParams { w: 62, u: 56, sign: Sign::Plus, k: 32 };
/// assert_eq!(MulBounds::new(p5)?.fold_estimate(p5), None);
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
pub const FOLD_MISS_BITS: u32 = 7;

/// The most fraction bits a [`DivPlan`] keeps.
const MAX_FRAC: u32 = 8;

/// The most terms a [`DivPlan`] sums.
const MAX_TERMS: u32 = 64;

/// How the device divides a signed integer z (|z| ≤ `bound`, held in 32-bit limbs) by
/// r = 2^w ± 2^u (2017 paper, §3.1), without the paper's loop of sparse steps, where the
/// exact division by r's odd part ([`OddDiv`], in `odd`) does not apply.
///
/// With d = w − u and ε = 2^−d, 1/r = 2^−w / (1 ± ε) = 2^−w Σ_m (∓ε)^m, so the quotient is
/// estimated from shifts of z alone: g = Σ_{m ≤ M} σ_m ⌊z / 2^(w − F + m·d)⌋ − B with
/// σ_m = (∓1)^m, and q̃ = ⌊g / 2^F⌋. Each floor costs less than one unit of 2^−F in g,
/// and the series' tail at most `⌈tail⌉` units, so z·2^F/r − g lies in [0, 2^F) once the
/// bias B covers the negative terms and the tail: then q̃ is the quotient ⌊z/r⌋ or one
/// less, and one comparison of s = z − q̃·r (computed modulo 2^64 or 2^96, since
/// 0 ≤ s < 2r) with r finishes.
///
/// ```
/// use fermat_codegen::prelude::MulBounds;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P3: 1/r = 2^−63·(1 − 2^−29 + 2^−58 − …), d = w − u = 29, three terms with F = 3.
/// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
/// let plan = MulBounds::new(p3)?.coef_div;
/// assert_eq!((plan.frac, plan.shifts.clone()), (3, vec![63 - 3, 63 - 3 + 29, 63 - 3 + 58]));
/// assert_eq!((plan.subtract, plan.bias), (vec![false, true, false], 2));
/// assert!(plan.odd.is_none()); // 2 has order 58 modulo r's odd part 2^29 + 1
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivPlan {
    /// The bound on |z|.
    pub bound: BigUint,
    /// The 32-bit limbs holding z (two's complement).
    pub z_limbs: u32,
    /// The fraction bits F of g.
    pub frac: u32,
    /// The shifts w − F + m·d of the terms, m = 0..=M.
    pub shifts: Vec<u32>,
    /// Whether term m is subtracted (σ_m = −1).
    pub subtract: Vec<bool>,
    /// The limbs each term needs (above them it is the sign of z).
    pub term_limbs: Vec<u32>,
    /// The bias B.
    pub bias: u32,
    /// The limbs of g.
    pub sum_limbs: u32,
    /// The limbs of the quotient estimate q̃.
    pub quotient_limbs: u32,
    /// The exact division by r's odd part that the device runs instead of the series,
    /// where r's shape allows it ([`OddDiv`]).
    pub odd: Option<OddDiv>,
}

impl DivPlan {
    /// The plan with the fewest terms, then the fewest fraction bits, for |z| ≤ `bound`
    /// held in `z_limbs` limbs.
    ///
    /// ```
    /// use fermat_codegen::prelude::{DivPlan, PreludeError};
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    /// use num_bigint::BigUint;
    ///
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// // |z| ≤ 2^100 needs four limbs of two's complement.
    /// let bound = BigUint::from(1u32) << 100u32;
    /// let err = PreludeError::DivisionLimbs { bound: bound.clone(), limbs: 3 };
    /// assert_eq!(DivPlan::new(p3, &bound, 3), Err(err));
    /// // The quotient then fits 38 bits and a sign: two limbs.
    /// assert_eq!(DivPlan::new(p3, &bound, 4)?.quotient_limbs, 2);
    /// # Ok::<(), PreludeError>(())
    /// ```
    pub fn new(
        params: SrgfnParams,
        bound: &BigUint,
        z_limbs: u32,
    ) -> Result<DivPlan, PreludeError> {
        let r_word = params.radix()?;
        let r = BigInt::from(r_word);
        let zb = BigInt::from(bound.clone());
        if limbs_for(&-zb.clone(), &zb) > z_limbs {
            return Err(PreludeError::DivisionLimbs {
                bound: bound.clone(),
                limbs: z_limbs,
            });
        }
        let d = params.w - params.u;
        let minus = params.sign == Sign::Minus;
        // z·2^F/r stays below 2^(bits(z) − w + F + 1): enough terms bring the tail below 1.
        for terms in 1..=MAX_TERMS {
            for frac in 1..=MAX_FRAC.min(params.w) {
                let a = params.w - frac;
                let subtract: Vec<bool> = (0..terms).map(|m| !minus && m % 2 == 1).collect();
                let n_neg = subtract.iter().filter(|&&s| s).count() as u32;
                let n_pos = terms - n_neg;
                // |tail| ≤ (|z|/2^a)·ε^terms/(1 − ε) = |z|·2^d / (2^(a + d·terms)·(2^d − 1)).
                let num = &zb << d;
                let den = (BigInt::one() << (a + d * terms)) * ((BigInt::one() << d) - 1);
                let tail = -(-num).div_floor(&den);
                let Some(tail) = tail.to_u32() else { continue };
                let bias = n_neg + tail;
                if u64::from(n_pos) + u64::from(tail) + u64::from(bias) > 1u64 << frac {
                    continue;
                }
                let shifts: Vec<u32> = (0..terms).map(|m| a + m * d).collect();
                let term_limbs = shifts
                    .iter()
                    .map(|&s| {
                        let t = zb.clone() >> s;
                        limbs_for(&(-zb.clone()).div_floor(&(BigInt::one() << s)), &t)
                    })
                    .collect();
                // z·2^F/r − g ∈ [0, 2^F): g ∈ (−|z|·2^F/r − 2^F, |z|·2^F/r].
                let g_max = (&zb << frac).div_floor(&r) + 1;
                let g_min = -(&g_max) - (BigInt::one() << frac);
                let q_max = zb.div_floor(&r);
                let q_min = (-zb.clone()).div_floor(&r) - 1;
                let quotient_limbs = limbs_for(&q_min, &q_max);
                return Ok(DivPlan {
                    bound: bound.clone(),
                    z_limbs,
                    frac,
                    shifts,
                    subtract,
                    term_limbs,
                    bias,
                    sum_limbs: limbs_for(&g_min, &g_max),
                    quotient_limbs,
                    odd: OddDiv::new(params, bound, quotient_limbs),
                });
            }
        }
        Err(PreludeError::DivisionTerms {
            r: r_word,
            bound: bound.clone(),
            max_terms: MAX_TERMS,
        })
    }

    /// The device's estimate q̃ for z, in exact integers (for tests): the terms, the bias
    /// and the floor by 2^F exactly as the limb arithmetic computes them.
    ///
    /// ```
    /// use fermat_codegen::prelude::MulBounds;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    /// use num_bigint::BigInt;
    /// use num_integer::Integer;
    ///
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// let (plan, r) = (MulBounds::new(p3)?.coef_div, BigInt::from(p3.radix()?));
    /// for z in [BigInt::from(-1), BigInt::from(123456789) << 90u32, -(&r * &r * 5u32)] {
    ///     let (q, exact) = (plan.estimate(&z), z.div_floor(&r));
    ///     assert!(q == exact || q == exact - 1u32, "{z}");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimate(&self, z: &BigInt) -> BigInt {
        let g = self.shifts.iter().zip(&self.subtract).fold(
            -BigInt::from(self.bias),
            |g, (&s, &sub)| {
                let t = z.div_floor(&(BigInt::one() << s));
                if sub {
                    g - t
                } else {
                    g + t
                }
            },
        );
        g.div_floor(&(BigInt::one() << self.frac))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::testing::{division_inputs, params};
    use num_traits::Signed;

    #[test]
    fn division_plans_for_the_catalogue() {
        // (terms, fraction bits) of the coefficient division: each term shrinks the tail by
        // 2^(w - u), so P5 (w - u = 6) needs many, P3 and P4 three; digit 0 less the final
        // carry needs one or two.
        let cases = [
            (params(63, 53, Sign::Plus, 2), 7, 4),
            (params(64, 50, Sign::Minus, 4), 5, 3),
            (params(63, 34, Sign::Plus, 8), 3, 3),
            (params(62, 36, Sign::Plus, 16), 3, 3),
            (params(62, 56, Sign::Plus, 32), 12, 4),
            (params(63, 40, Sign::Minus, 64), 4, 3),
        ];
        for (p, terms, frac) in cases {
            let b = MulBounds::new(p).unwrap();
            assert_eq!(b.coef_div.shifts.len(), terms, "{p}");
            assert_eq!(b.coef_div.frac, frac, "{p}");
            // The quotient of a coefficient needs three limbs, digit 0 less the carry one.
            assert_eq!(b.coef_div.quotient_limbs, 3, "{p}");
            assert_eq!(b.fold_div.quotient_limbs, 1, "{p}");
            assert!(b.fold_div.shifts.len() <= 2, "{p}");
            // |u_i| < k r^2 < 2^(2w + log2 k + 1).
            assert!(b.coef.bits() <= u64::from(2 * p.w) + u64::from(p.k.trailing_zeros()) + 2);
        }
    }

    #[test]
    fn p3_coefficient_division_in_detail() {
        // 1/r = 2^-63 (1 - 2^-29 + 2^-58 - ...): three shifts of z by 60 + 29m bits, the
        // middle one subtracted; floors of +1, +1 and -1 units and a tail below one unit
        // fit 2^3 with the bias 2.
        let b = MulBounds::new(params(63, 34, Sign::Plus, 8)).unwrap();
        let d = &b.coef_div;
        assert_eq!(d.shifts, [60, 89, 118]);
        assert_eq!(d.subtract, [false, true, false]);
        assert_eq!(d.bias, 2);
        assert_eq!((d.z_limbs, d.sum_limbs), (5, 3));
        assert_eq!(d.term_limbs, [3, 2, 1]);
    }

    #[test]
    fn division_estimates_the_quotient_or_one_less() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut fields: Vec<SrgfnParams> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(_, p)| *p)
            .collect();
        // Radices with u < 32 and a nearly full one.
        fields.extend([
            params(62, 21, Sign::Plus, 4),
            params(64, 2, Sign::Minus, 4),
            params(61, 9, Sign::Minus, 8),
        ]);
        for p in fields {
            let b = MulBounds::new(p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            for plan in [&b.coef_div, &b.fold_div] {
                let bound = BigInt::from(plan.bound.clone());
                let fits = |x: &BigInt, limbs: u32| {
                    let half: BigInt = BigInt::one() << (32 * limbs - 1);
                    *x >= -half.clone() && *x < half
                };
                for z in division_inputs(&bound, &r, &mut rng) {
                    assert!(fits(&z, plan.z_limbs), "{p}: z = {z}");
                    let q = plan.estimate(&z);
                    let exact = z.div_floor(&r);
                    assert!(
                        q == exact || q == &exact - 1,
                        "{p}: z = {z}: {q} for {exact}"
                    );
                    assert!(fits(&q, plan.quotient_limbs), "{p}: q = {q}");
                    for (&s, &l) in plan.shifts.iter().zip(&plan.term_limbs) {
                        let t = z.div_floor(&(BigInt::one() << s));
                        assert!(fits(&t, l), "{p}: z >> {s} = {t} exceeds {l} limbs");
                    }
                }
            }
        }
    }

    #[test]
    fn fold_estimates_are_exact_where_the_multiplication_takes_them() {
        use num_bigint::RandBigInt;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let takes = |p: SrgfnParams| MulBounds::new(p).unwrap().fold_estimate(p).is_some();
        let catalogue: Vec<(&str, bool)> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(name, p)| (*name, takes(*p)))
            .collect();
        assert_eq!(
            catalogue,
            [
                ("P1", true),
                ("P2", true),
                ("P3", true),
                ("P4", true),
                ("P5", false),
                ("P6", true)
            ]
        );
        for (name, p) in fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .chain(&[("", params(62, 40, Sign::Minus, 4))])
            .filter(|(_, p)| takes(*p))
        {
            let b = MulBounds::new(*p).unwrap();
            let a_max = b.fold_estimate(*p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            let bound = BigInt::from(b.fold_div.bound.clone());
            let two_w = BigInt::one() << p.w;
            let two_u = BigInt::one() << p.u;
            let mut taken = 0;
            let mut random = division_inputs(&bound, &r, &mut rng);
            let edges = random.len();
            random.extend((0..2000).map(|_| rng.gen_bigint_range(&-bound.clone(), &(&bound + 1))));
            for (i, y) in random.iter().enumerate() {
                // The device's steps: a from y's bits from w up, t from a and y mod 2^w.
                let a = y.div_floor(&two_w);
                assert!(a.abs() <= BigInt::from(a_max), "{name}: y = {y}");
                let t = match p.sign {
                    Sign::Minus => y.mod_floor(&two_w) + &a * &two_u,
                    Sign::Plus => y.mod_floor(&two_w) - &a * &two_u,
                };
                if !t.is_negative() && t < r {
                    assert_eq!(t, y.mod_floor(&r), "{name}: y = {y}");
                    assert_eq!(a, y.div_floor(&r), "{name}: y = {y}");
                    taken += usize::from(i >= edges);
                }
            }
            // Random values almost never need the exact division.
            assert!(taken >= 1990, "{name}: {taken} of 2000");
        }
        // r's low limb must be 0 for t's low limb to be y's.
        let p = params(62, 21, Sign::Plus, 4);
        assert_eq!(MulBounds::new(p).unwrap().fold_estimate(p), None);
    }

    proptest::proptest! {
        #[test]
        fn p3_estimate_holds_for_any_coefficient(bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..17), neg: bool) {
            let d = MulBounds::new(params(63, 34, Sign::Plus, 8)).unwrap().coef_div;
            let r = BigInt::from(params(63, 34, Sign::Plus, 8).radix().unwrap());
            let z = BigInt::from_bytes_le(if neg { num_bigint::Sign::Minus } else { num_bigint::Sign::Plus }, &bytes);
            let z = z % BigInt::from(d.bound.clone());
            let q = d.estimate(&z);
            let exact = z.div_floor(&r);
            proptest::prop_assert!(q == exact || q == exact - 1);
        }
    }

    #[test]
    fn division_plans_refuse_values_beyond_their_limbs() {
        let p = params(63, 34, Sign::Plus, 8);
        let big = BigUint::one() << 100u32;
        let err = DivPlan::new(p, &big, 3).unwrap_err();
        assert_eq!(
            err,
            PreludeError::DivisionLimbs {
                bound: big.clone(),
                limbs: 3
            }
        );
        assert!(
            err.to_string().contains(&big.to_string())
                && err.to_string().contains("3 32-bit limbs"),
            "{err}"
        );
        assert!(DivPlan::new(p, &big, 4).is_ok());
    }

    #[test]
    fn refuses_fields_the_multiplication_does_not_cover() {
        let err = MulBounds::new(params(4, 1, Sign::Plus, 1)).unwrap_err();
        assert_eq!(err, PreludeError::OneDigit { k: 1, word: 19 });
        assert!(err.to_string().contains("k = 1"), "{err}");
        // r = 2: carries of k·r^2 do not fold with one correction per digit.
        let err = MulBounds::new(params(2, 1, Sign::Minus, 16)).unwrap_err();
        assert!(
            matches!(err, PreludeError::FinalCarry { r: 2, k: 16, .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("r = 2 is too small for k = 16"),
            "{err}"
        );
        // Parameters that are no SRGFN at all.
        let err = MulBounds::new(params(4, 4, Sign::Plus, 2)).unwrap_err();
        assert!(matches!(err, PreludeError::Params { .. }), "{err}");
        // Small but adequate radices are covered.
        assert!(MulBounds::new(params(4, 1, Sign::Plus, 2)).is_ok());
    }
}
