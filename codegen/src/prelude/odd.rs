//! The exact division by r = 2^U·m with m odd that replaces the series of shifts where
//! r's shape allows it.

use fermat_dsl::field::SrgfnParams;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// An exact division of z (|z| ≤ `bound`) by r = 2^U·m, m odd, in a few multiplications
/// instead of [`DivPlan`](super::DivPlan)'s series of shifts: the digit's low U bits are
/// z's, and the rest is the division of V = ⌊z / 2^U⌋ by the small odd m.
///
/// 1. V's residue: limb j of V weighs 2^(32j) ≡ c_j (mod m), so S = OFF + Σ_j c_j·v_j ≡ V
///    (the top limb signed, OFF a multiple of m that keeps S ≥ 0), and with 2^F ≡ 1
///    (mod m), t = (S mod 2^F) + ⌊S / 2^F⌋ ≡ V too, below 2^31.
/// 2. s = t mod m = t − ⌊t·M / 2^(32+E)⌋·m with the reciprocal M = ⌈2^(32+E) / m⌉, exact
///    for every t up to `t_max` (Granlund–Montgomery: t_max·(M·m − 2^(32+E)) < 2^(32+E)).
/// 3. V − s is a multiple of m, so the quotient ⌊z / r⌋ = (V − s)/m is (V − s)·m^−1
///    modulo 2^(32·`quotient_limbs`), and the digit is s·2^U + (z mod 2^U). Where V has as
///    many limbs as the quotient ([`QuotientTop`]), only the low limbs come from that
///    product: the top one is V's top limb divided by m, one multiply-high.
///
/// The device's instructions: a funnel shift and a multiply-add per limb of V, a
/// multiply-high and a multiply-add for s, and a low product of the quotient's limbs: no
/// comparison and no correction, where the series needs a shift and an addition per limb
/// of each of its terms and a final comparison with r.
///
/// ```
/// use fermat_codegen::prelude::MulBounds;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P2: r = 2^64 − 2^50 = 2^50·(2^14 − 1), and 2^14 ≡ 1 modulo m.
/// let p2 = SrgfnParams { w: 64, u: 50, sign: Sign::Minus, k: 4 };
/// let odd = MulBounds::new(p2)?.coef_div.odd.unwrap();
/// assert_eq!((odd.u, odd.m, odd.fold % 14), (50, 16383, 0));
/// let c_1 = (1u64 << 32) % 16383;
/// assert_eq!(odd.weights[..2], [1, c_1 as u32]);
/// assert_eq!(odd.inverse[0].wrapping_mul(16383), 1); // m^−1 mod 2^32
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddDiv {
    /// r = 2^U·m.
    pub u: u32,
    /// The odd part m of r.
    pub m: u32,
    /// c_j = 2^(32j) mod m, one per 32-bit limb of V = ⌊z / 2^U⌋.
    pub weights: Vec<u32>,
    /// The multiple of m added to S: a multiple of 2^32 too where the bounds allow, so that
    /// on the device it is the high word of limb 0's term rather than an addition.
    pub offset: u64,
    /// The fold: 2^F ≡ 1 (mod m), F ≤ 32.
    pub fold: u32,
    /// The largest t.
    pub t_max: u64,
    /// The reciprocal M = ⌈2^(32+E) / m⌉.
    pub reciprocal: u32,
    /// Its shift E: 2^E ≤ m < 2^(E+1).
    pub shift: u32,
    /// m^−1 modulo 2^32 per limb of the quotient that the low product computes, least
    /// significant limb first: all of them, or all but the top one where `top` is set.
    pub inverse: Vec<u32>,
    /// The quotient's top limb from V's, where V has as many limbs as the quotient.
    pub top: Option<QuotientTop>,
}

/// The top limb of the quotient q = (V − s)/m of [`OddDiv`] from x, V's top limb (signed,
/// V and q having L limbs): with T = 2^(32(L−1)), ⌊q/T⌋ = ⌊V/(m·T)⌋ = ⌊x/m⌋, since
/// V = m·q + s with 0 ≤ s < m. The device computes ⌊x/m⌋ = ⌊(x + B·m)·M / 2^32⌋ − B with
/// a bias B that makes x + B·m non-negative and M = ⌈2^32 / m⌉, exact wherever
/// (x + B·m)·(M·m − 2^32) < 2^32 (Granlund–Montgomery, checked over x's whole range).
///
/// ```
/// use fermat_codegen::prelude::MulBounds;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P2's coefficients: V and the quotient have three limbs each, V's top one signed.
/// let p2 = SrgfnParams { w: 64, u: 50, sign: Sign::Minus, k: 4 };
/// let b = MulBounds::new(p2)?;
/// let top = b.coef_div.odd.unwrap().top.unwrap();
/// assert_eq!(u64::from(top.reciprocal), (1u64 << 32).div_ceil(16383));
/// assert!(top.bias > 0);
/// // The fold's quotient is one limb: no top of its own.
/// assert!(b.fold_div.odd.unwrap().top.is_none());
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotientTop {
    /// The bias B.
    pub bias: u32,
    /// The reciprocal M.
    pub reciprocal: u32,
}

impl QuotientTop {
    /// The top limb for x in [x_min, x_max], or `None` where one multiply-high is not exact.
    fn new(m: u32, x_min: &BigInt, x_max: &BigInt) -> Option<QuotientTop> {
        let mb = BigInt::from(m);
        let bias = if x_min.is_negative() {
            (-x_min).div_ceil(&mb)
        } else {
            BigInt::zero()
        };
        // The device adds the bias in one limb.
        let y_max = (x_max + &bias * &mb).to_u64().filter(|&y| y < 1 << 32)?;
        Some(QuotientTop {
            bias: bias.to_u32().expect("below 2^32 / m"),
            reciprocal: exact_reciprocal(m, 0, y_max)?,
        })
    }

    /// ⌊x/m⌋ as the device computes it.
    fn divide(&self, m: u32, x: i32) -> i64 {
        let y = (i64::from(x) + i64::from(self.bias) * i64::from(m)) as u64;
        divide_by_reciprocal(y, self.reciprocal, 0) as i64 - i64::from(self.bias)
    }
}

/// M = ⌈2^(32+E) / m⌉ for the shift E, where ⌊y·M / 2^(32+E)⌋ = ⌊y/m⌋ for every
/// 0 ≤ y ≤ `y_max` (Granlund–Montgomery: y_max·(M·m − 2^(32+E)) < 2^(32+E)) and M fits a limb.
fn exact_reciprocal(m: u32, shift: u32, y_max: u64) -> Option<u32> {
    let two = 1u128 << (32 + shift);
    let reciprocal = two.div_ceil(u128::from(m));
    let excess = reciprocal * u128::from(m) - two;
    (reciprocal < 1 << 32 && u128::from(y_max) * excess < two).then_some(reciprocal as u32)
}

/// ⌊y·M / 2^(32+E)⌋ for y below 2^32, as the device's multiply-high and shift compute it.
fn divide_by_reciprocal(y: u64, reciprocal: u32, shift: u32) -> u64 {
    (y * u64::from(reciprocal)) >> (32 + shift)
}

impl OddDiv {
    /// The division for |z| ≤ `bound` with a quotient of `quotient_limbs` limbs, or `None`
    /// where r's shape does not allow it: U < 32 (the digit's low bits would not be z's
    /// whole limb 0), 2 of multiplicative order above 32 modulo m (no fold within a limb),
    /// or S or t beyond the bounds of steps 1 and 2.
    ///
    /// ```
    /// use fermat_codegen::prelude::OddDiv;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    /// use num_bigint::BigUint;
    ///
    /// let bound = BigUint::from(1u32) << 120u32;
    /// // P1: r = 2^53·(2^10 + 1), and 2^20 ≡ 1 modulo 2^10 + 1.
    /// let p1 = SrgfnParams { w: 63, u: 53, sign: Sign::Plus, k: 2 };
    /// assert_eq!(OddDiv::new(p1, &bound, 3).map(|d| d.m), Some(1025));
    /// // P3: r = 2^34·(2^29 + 1), where 2 has order 58, above a limb.
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// assert_eq!(OddDiv::new(p3, &bound, 3), None);
    /// ```
    pub fn new(params: SrgfnParams, bound: &BigUint, quotient_limbs: u32) -> Option<OddDiv> {
        let r = params.radix().ok()?;
        let u = r.trailing_zeros();
        let m = r >> u;
        if u < 32 || m < 3 {
            return None;
        }
        let m = u32::try_from(m).ok()?;
        let zb = BigInt::from(bound.clone());
        let v_max = &zb >> u as usize;
        let v_min = (-zb).div_floor(&(BigInt::one() << u));
        let v_limbs = limbs_for(&v_min, &v_max);
        let weights: Vec<u32> = (0..v_limbs)
            .map(|j| BigUint::from(2u32).modpow(&BigUint::from(32 * j), &BigUint::from(m)))
            .map(|c| c.to_u32().expect("below m"))
            .collect();
        // The top limb of V, signed, is ⌊V / 2^(32(L−1))⌋.
        let top = BigInt::one() << (32 * (v_limbs - 1));
        let (x_min, x_max) = (v_min.div_floor(&top), v_max.div_floor(&top));
        let c_top = BigInt::from(*weights.last().expect("a limb"));
        let (top_min, top_max) = (&x_min * &c_top, &x_max * &c_top);
        let low_max: BigInt = weights[..weights.len() - 1]
            .iter()
            .map(|&c| BigInt::from(c) * BigInt::from(u32::MAX))
            .sum();
        let mb = BigInt::from(m);
        let order = (1..=32u32).find(|&e| (1u64 << e) % u64::from(m) == 1)?;
        // S's offset: the least multiple of m·2^32 (a constant high word on the device)
        // that keeps S ≥ 0 where the later bounds hold with it, else the least multiple of m.
        let need = if top_min.is_negative() {
            -top_min
        } else {
            BigInt::zero()
        };
        let coarse = &mb << 32;
        let offsets = [need.div_ceil(&coarse) * &coarse, need.div_ceil(&mb) * &mb];
        let (offset, fold, t_max, shift, reciprocal) = offsets.iter().find_map(|offset| {
            let s_max = (offset + &low_max + &top_max).to_u64()?;
            let (fold, t_max) = (1..=32 / order)
                .map(|i| {
                    let f = i * order;
                    (f, ((1u64 << f) - 1).min(s_max) + (s_max >> f))
                })
                .min_by_key(|&(_, t)| t)?;
            if t_max >= 1 << 31 {
                return None;
            }
            let shift = 31 - m.leading_zeros();
            let reciprocal = exact_reciprocal(m, shift, t_max)?;
            Some((offset.to_u64()?, fold, t_max, shift, reciprocal))
        })?;
        let top = if quotient_limbs >= 2 && v_limbs == quotient_limbs {
            QuotientTop::new(m, &x_min, &x_max)
        } else {
            None
        };
        let low_limbs = quotient_limbs - u32::from(top.is_some());
        let modulus = BigInt::one() << (32 * low_limbs);
        let inverse = BigInt::from(m).modinv(&modulus)?;
        let inverse = (0..low_limbs)
            .map(|j| ((&inverse >> (32 * j) as usize) & BigInt::from(u32::MAX)).to_u32())
            .collect::<Option<Vec<u32>>>()?;
        Some(OddDiv {
            u,
            m,
            weights,
            offset,
            fold,
            t_max,
            reciprocal,
            shift,
            inverse,
            top,
        })
    }

    /// The quotient and the digit the device computes for z, step by step as its limb
    /// arithmetic does (for tests): ⌊z / r⌋ and z mod r wherever z is within the bound.
    ///
    /// ```
    /// use fermat_codegen::prelude::MulBounds;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    /// use num_bigint::BigInt;
    /// use num_integer::Integer;
    ///
    /// let p2 = SrgfnParams { w: 64, u: 50, sign: Sign::Minus, k: 4 };
    /// let odd = MulBounds::new(p2)?.coef_div.odd.unwrap();
    /// let r = BigInt::from(p2.radix()?);
    /// for z in [BigInt::from(-7), BigInt::from(987654321) << 96u32, -(&r * &r * 3u32 + 5u32)] {
    ///     assert_eq!(odd.divide(&z), z.div_mod_floor(&r), "{z}");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn divide(&self, z: &BigInt) -> (BigInt, BigInt) {
        let v = z.div_floor(&(BigInt::one() << self.u));
        let limb = |x: &BigInt, j: u32| -> u64 {
            ((x >> (32 * j) as usize) & BigInt::from(u32::MAX))
                .to_u64()
                .expect("a limb")
        };
        let top = self.weights.len() as u32 - 1;
        let mut s = i128::from(self.offset);
        for (j, &c) in self.weights.iter().enumerate() {
            let j = j as u32;
            let x = if j == top {
                i128::from(limb(&v, j) as u32 as i32)
            } else {
                i128::from(limb(&v, j))
            };
            s += x * i128::from(c);
        }
        let s = u64::try_from(s).expect("S in [0, 2^64)");
        let t = (s & ((1u64 << self.fold) - 1)) + (s >> self.fold);
        let q_t = divide_by_reciprocal(t, self.reciprocal, self.shift);
        let rem = t - q_t * u64::from(self.m);
        let low_bits = 32 * self.inverse.len();
        let modulus = BigInt::one() << low_bits;
        let inverse = self
            .inverse
            .iter()
            .rev()
            .fold(BigInt::zero(), |acc, &l| (acc << 32) + l);
        let low = ((&v - rem) * inverse).mod_floor(&modulus);
        let q = match &self.top {
            Some(t) => {
                let x = limb(&v, top) as u32 as i32;
                (BigInt::from(t.divide(self.m, x)) << low_bits) + low
            }
            None if low >= &modulus >> 1 => low - &modulus,
            None => low,
        };
        let digit = (BigInt::from(rem) << self.u) + z.mod_floor(&(BigInt::one() << self.u));
        (q, digit)
    }
}

/// The 32-bit limbs that every integer of [lo, hi] needs in two's complement.
pub(super) fn limbs_for(lo: &BigInt, hi: &BigInt) -> u32 {
    let mut n = 1u32;
    loop {
        let half: BigInt = BigInt::one() << (32 * n - 1);
        if *lo >= -half.clone() && *hi < half {
            return n;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::testing::{division_inputs, params};
    use crate::prelude::MulBounds;
    use fermat_dsl::field::Sign;

    #[test]
    fn odd_divisions_are_exact_where_r_allows_them() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Which catalogue fields take the odd division: 2 has order 20, 14, 12 and 23
        // modulo the odd parts 2^10 + 1, 2^14 - 1, 2^6 + 1 and 2^23 - 1 of P1, P2, P5 and
        // P6; modulo those of P3 and P4 (2^29 + 1, 2^26 + 1) its order exceeds a limb.
        let takes = |p: SrgfnParams| MulBounds::new(p).unwrap().coef_div.odd.is_some();
        let catalogue: Vec<(&str, bool)> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(name, p)| (*name, takes(*p)))
            .collect();
        assert_eq!(
            catalogue,
            [
                ("P1", true),
                ("P2", true),
                ("P3", false),
                ("P4", false),
                ("P5", true),
                ("P6", true)
            ]
        );
        let p2 = MulBounds::new(params(64, 50, Sign::Minus, 4)).unwrap();
        let odd = p2.coef_div.odd.as_ref().unwrap();
        // S's offset is m·2^32 (a constant high word), which the fold by 2^28 absorbs; the
        // quotient's top limb comes from V's.
        assert_eq!((odd.m, odd.fold, odd.weights.len()), (16383, 28, 3));
        assert_eq!(odd.offset, 16383 << 32);
        assert_eq!(odd.inverse.len(), 2);
        assert!(odd.top.is_some());
        assert!(p2.fold_div.odd.as_ref().unwrap().top.is_none());
        assert!(takes(params(62, 40, Sign::Minus, 4)));
        // u < 32: the digit's low bits would not be a whole limb of z.
        assert!(!takes(params(62, 21, Sign::Plus, 4)));
        let mut checked = 0;
        for (_, p) in fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .chain(&[("", params(62, 40, Sign::Minus, 4))])
        {
            let b = MulBounds::new(*p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            for plan in [&b.coef_div, &b.fold_div] {
                let Some(odd) = &plan.odd else { continue };
                let bound = BigInt::from(plan.bound.clone());
                for z in division_inputs(&bound, &r, &mut rng) {
                    let (q, digit) = odd.divide(&z);
                    assert_eq!(q, z.div_floor(&r), "{p}: z = {z}");
                    assert_eq!(digit, z.mod_floor(&r), "{p}: z = {z}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 3000, "{checked}");
    }

    #[test]
    fn quotient_tops_are_exact_over_their_whole_range() {
        let mut checked = 0;
        for (name, p) in fermat_dsl::field::CATALOGUE_SRGFNS {
            let b = MulBounds::new(p).unwrap();
            for plan in [&b.coef_div, &b.fold_div] {
                let Some(odd) = &plan.odd else { continue };
                let Some(top) = &odd.top else { continue };
                // V's top limb, as OddDiv::new bounds it.
                let zb = BigInt::from(plan.bound.clone());
                let t = BigInt::one() << (odd.u + 32 * (odd.weights.len() as u32 - 1));
                let (lo, hi) = ((-&zb).div_floor(&t), zb.div_floor(&t));
                let (lo, hi) = (lo.to_i32().unwrap(), hi.to_i32().unwrap());
                assert!(hi - lo < 1 << 20, "{name}: {lo}..{hi}");
                for x in lo..=hi {
                    let want = i64::from(x).div_euclid(i64::from(odd.m));
                    assert_eq!(top.divide(odd.m, x), want, "{name}: x = {x}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        // Past its bound the multiply-high is no longer exact: the bound is what keeps it so.
        let m = 16383u32;
        let top = QuotientTop::new(m, &-BigInt::from(5 * m), &BigInt::from(1 << 17)).unwrap();
        let y = (1u64 << 32) / u64::from(m) * u64::from(m) - 1;
        let wrong = divide_by_reciprocal(y, top.reciprocal, 0) != y / u64::from(m);
        assert!(wrong, "y = {y}");
        assert!(QuotientTop::new(m, &BigInt::zero(), &BigInt::from(y)).is_none());
    }

    proptest::proptest! {
        #[test]
        fn p2_odd_division_is_exact_for_any_coefficient(bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..17), neg: bool) {
            let p = params(64, 50, Sign::Minus, 4);
            let d = MulBounds::new(p).unwrap().coef_div;
            let r = BigInt::from(p.radix().unwrap());
            let z = BigInt::from_bytes_le(if neg { num_bigint::Sign::Minus } else { num_bigint::Sign::Plus }, &bytes);
            let z = z % BigInt::from(d.bound.clone());
            let (q, digit) = d.odd.as_ref().unwrap().divide(&z);
            proptest::prop_assert_eq!(q, z.div_floor(&r));
            proptest::prop_assert_eq!(digit, z.mod_floor(&r));
        }
    }
}
