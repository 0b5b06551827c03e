//! The digit representation (2017 paper, §3.1): checks and conversions at the API boundary.

use super::{Srgfn, SrgfnElem};
use crate::field::{biguint_of_limbs, Field, FieldError};
use num_bigint::BigUint;

impl<const K: usize> Srgfn<K> {
    /// The element with the given digits (least significant first), checked against §3.1:
    /// exactly k digits, each below r, except that `[0, …, 0, r]` spells p − 1.
    ///
    /// A wrong length, a digit ≥ r, a digit r anywhere but the top, or a top digit r over
    /// nonzero lower digits is a [`FieldError::InvalidDigits`] naming the offending digit.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldError};
    ///
    /// let AnyField::Srgfn2(p1) = AnyField::from_spec("P1")? else { unreachable!() };
    /// let x = p1.from_digits(&[7, 1])?; // 7 + r
    /// assert_eq!(p1.to_biguint(&x), (p1.r() as u128 + 7).into());
    /// assert!(matches!(p1.from_digits(&[p1.r(), 0]), Err(FieldError::InvalidDigits { .. })));
    /// assert!(p1.from_digits(&[1]).is_err()); // k = 2 digits
    /// # Ok::<(), FieldError>(())
    /// ```
    pub fn from_digits(&self, digits: &[u64]) -> Result<SrgfnElem<K>, FieldError> {
        let r = self.radix.r;
        let bad = |index: usize, value: u64, why: &'static str| FieldError::InvalidDigits {
            index,
            value,
            r,
            k: K,
            why,
        };
        if digits.len() < K {
            return Err(bad(
                digits.len(),
                0,
                "too few digits: an element has exactly k",
            ));
        }
        if digits.len() > K {
            return Err(bad(
                K,
                digits[K],
                "too many digits: an element has exactly k",
            ));
        }
        for (index, &value) in digits.iter().enumerate() {
            if value > r || (value == r && index + 1 < K) {
                return Err(bad(
                    index,
                    value,
                    if value == r {
                        "only the top digit may equal r (the element p − 1)"
                    } else {
                        "digits must be below r"
                    },
                ));
            }
        }
        if digits[K - 1] == r {
            if let Some(index) = digits[..K - 1].iter().position(|&d| d != 0) {
                return Err(bad(
                    index,
                    digits[index],
                    "a top digit r (the element p − 1) needs every lower digit 0",
                ));
            }
        }
        let mut d = [0; K];
        d.copy_from_slice(digits);
        Ok(SrgfnElem(d))
    }

    /// The digits of p − 1 = r^k: `[0, …, 0, r]`.
    pub(super) fn minus_one_digits(&self) -> [u64; K] {
        let mut d = [0; K];
        d[K - 1] = self.radix.r;
        d
    }

    /// The digits of x ∈ [0, p) (§3.1: repeated Euclidean division by r).
    pub(super) fn digits_of(&self, x: &BigUint) -> Result<[u64; K], FieldError> {
        self.digits_of_limbs(&x.to_u64_digits())
    }

    /// The digits of the integer of 64-bit `limbs`, least significant first, if it is
    /// below p (§3.1: repeated Euclidean division by r).
    pub(super) fn digits_of_limbs(&self, limbs: &[u64]) -> Result<[u64; K], FieldError> {
        let [digits] = self.digits_of_lanes([limbs]);
        digits
    }

    /// [`digits_of_limbs`](Self::digits_of_limbs) for `L` values at once, on k limbs in
    /// place: each division by r is one two-by-one-word division a limb by r's reciprocal,
    /// done in lanes ([`Reciprocal::div_rem_lanes`]) so that the values' chains of
    /// dependent steps overlap, and the limbs shrink as the digits come off (no big
    /// integer allocated).
    ///
    /// [`Reciprocal::div_rem_lanes`]: super::reciprocal::Reciprocal::div_rem_lanes
    pub(super) fn digits_of_lanes<const L: usize>(
        &self,
        values: [&[u64]; L],
    ) -> [Result<[u64; K], FieldError>; L] {
        // p − 1 = r^k < 2^(64k): a value below p has at most k limbs; a longer one is out
        // of range, and its lane divides zeros.
        let lens = values.map(|v| v.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1));
        let mut rest = [[0u64; L]; K];
        for (lane, (value, &len)) in values.iter().zip(&lens).enumerate() {
            if len <= K {
                for (limb, &x) in rest.iter_mut().zip(&value[..len]) {
                    limb[lane] = x;
                }
            }
        }
        let mut len = lens.into_iter().filter(|&l| l <= K).max().unwrap_or(0);
        let mut digits = [[0u64; K]; L];
        for t in 0..K {
            let remainders = self.reciprocal.div_rem_lanes(&mut rest[..len]);
            for (d, r) in digits.iter_mut().zip(remainders) {
                d[t] = r;
            }
            while len > 0 && rest[len - 1] == [0; L] {
                len -= 1;
            }
        }
        // What is left is ⌊x/r^k⌋: 0 below r^k, 1 for r^k = p − 1 itself (digits all 0,
        // spelled [0, …, 0, r]) and for the values from p up.
        std::array::from_fn(|lane| {
            let mut left = rest[..len].iter().map(|limb| limb[lane]);
            match left.rposition(|l| l != 0) {
                _ if lens[lane] > K => Err(self.out_of_range(values[lane])),
                None => Ok(digits[lane]),
                Some(0) if rest[0][lane] == 1 && digits[lane].iter().all(|&x| x == 0) => {
                    Ok(self.minus_one_digits())
                }
                Some(_) => Err(self.out_of_range(values[lane])),
            }
        })
    }

    fn out_of_range(&self, limbs: &[u64]) -> FieldError {
        FieldError::OutOfRange {
            value: biguint_of_limbs(limbs),
            p: self.p.clone(),
        }
    }

    /// Σ x_i·r^i, as a big integer.
    pub(super) fn value_of(&self, d: &[u64; K]) -> BigUint {
        let mut limbs = [0u64; K];
        self.write_value(d, &mut limbs);
        biguint_of_limbs(&limbs)
    }

    /// Σ x_i·r^i in 64-bit limbs, least significant first, by Horner's rule: the value is
    /// below p, so the limbs of p (at most k: p − 1 = r^k < 2^(64k)) hold every partial
    /// sum, and `out` holds them.
    pub(super) fn write_value(&self, d: &[u64; K], out: &mut [u64]) {
        let r = u128::from(self.radix.r);
        out.fill(0);
        for &digit in d.iter().rev() {
            let mut carry = u128::from(digit);
            for limb in out.iter_mut() {
                let t = u128::from(*limb) * r + carry;
                *limb = t as u64;
                carry = t >> 64;
            }
            debug_assert_eq!(carry, 0, "the value fits p's limbs");
        }
    }

    /// x mod p for a machine word, without big integers.
    pub(super) fn digits_of_u64(&self, x: u64) -> SrgfnElem<K> {
        let r = self.radix.r;
        let mut d = [0; K];
        if x < r {
            d[0] = x;
            return SrgfnElem(d);
        }
        let mut rest = x;
        for digit in d.iter_mut() {
            *digit = rest % r;
            rest /= r;
        }
        if rest == 0 {
            return SrgfnElem(d);
        }
        // Only for tiny radixes: x = z + rest·r^k ≡ z − rest (r^k ≡ −1), and rest < x.
        let high = self.digits_of_u64(rest);
        self.sub(&SrgfnElem(d), &high)
    }
}

#[cfg(test)]
mod tests {
    use crate::field::{biguint_of_limbs, Field, FieldError, FieldSpec};
    use num_bigint::{BigUint, RandBigInt};
    use rand::SeedableRng;

    fn p3() -> super::Srgfn<8> {
        match FieldSpec::parse("P3").unwrap().build().unwrap() {
            crate::AnyField::Srgfn8(f) => f,
            other => panic!("P3 built as {other:?}"),
        }
    }

    #[test]
    fn invalid_digit_vectors_name_the_digit() {
        let f = p3();
        let r = f.r();
        let mut top = vec![0u64; 8];
        top[7] = r;
        let mut top_and_low = top.clone();
        top_and_low[3] = 9;
        let mut r_in_middle = vec![0u64; 8];
        r_in_middle[2] = r;
        let mut too_big = vec![1u64; 8];
        too_big[5] = r + 1;
        let cases: [(&[u64], usize, u64, &str); 6] = [
            (&[1, 2, 3], 3, 0, "too few"),
            (&[0; 9], 8, 0, "too many"),
            (&too_big, 5, r + 1, "below r"),
            (&r_in_middle, 2, r, "only the top digit"),
            (&top_and_low, 3, 9, "every lower digit 0"),
            (&[u64::MAX; 8], 0, u64::MAX, "below r"),
        ];
        for (digits, index, value, needle) in cases {
            let err = f.from_digits(digits).unwrap_err();
            match &err {
                FieldError::InvalidDigits {
                    index: i,
                    value: v,
                    r: rr,
                    k: 8,
                    ..
                } => assert_eq!((*i, *v, *rr), (index, value, r), "{digits:?}"),
                other => panic!("{digits:?}: {other:?}"),
            }
            let text = err.to_string();
            assert!(
                text.contains(needle) && text.contains(&value.to_string()),
                "{text}"
            );
        }
        let minus_one = f.from_digits(&top).unwrap();
        assert_eq!(f.to_biguint(&minus_one), f.modulus() - 1u32);
    }

    #[test]
    fn from_biguint_refuses_p_and_above() {
        let f = p3();
        for x in [f.modulus(), f.modulus() + 1u32, f.modulus() << 3] {
            let err = f.from_biguint(&x).unwrap_err();
            assert_eq!(
                err,
                FieldError::OutOfRange {
                    value: x.clone(),
                    p: f.modulus()
                }
            );
            assert!(err.to_string().contains(&x.to_string()));
        }
    }

    #[test]
    fn from_u64_matches_big_integers() {
        let f = p3();
        for x in [0, 1, f.r() - 1, f.r(), f.r() + 1, u64::MAX] {
            let expect = f.from_biguint(&BigUint::from(x)).unwrap();
            assert_eq!(f.from_u64(x), expect, "x = {x}");
        }
    }

    #[test]
    fn limbs_round_trip_and_refuse_p_and_above() {
        let f = p3();
        let p = f.modulus();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut values = vec![
            BigUint::from(0u32),
            BigUint::from(1u32),
            &p - 1u32,
            &p - 2u32,
            BigUint::from(f.r()).pow(7),
        ];
        values.extend((0..200).map(|_| rng.gen_biguint_below(&p)));
        for x in values.iter() {
            let e = f.from_biguint(x).unwrap();
            // Longer than p's limbs, and dirty: the value overwrites every limb.
            let mut limbs = [u64::MAX; 10];
            f.to_limbs(&e, &mut limbs).unwrap();
            assert_eq!(&biguint_of_limbs(&limbs), x);
            assert_eq!(f.from_limbs(&limbs), Ok(e), "x = {x}");
            assert_eq!(f.from_limbs(&x.to_u64_digits()), Ok(e), "x = {x}");
        }
        let short = f.to_limbs(&f.one(), &mut [0u64; 7]);
        assert_eq!(short, Err(FieldError::LimbsTooShort { len: 7, need: 8 }));
        let limbs: Vec<Vec<u64>> = values.iter().map(|x| x.to_u64_digits()).collect();
        let slices: Vec<&[u64]> = limbs.iter().map(Vec::as_slice).collect();
        let one_by_one: Vec<_> = slices.iter().map(|v| f.from_limbs(v).unwrap()).collect();
        assert_eq!(f.from_limbs_many(&slices), Ok(one_by_one));
        let one = BigUint::from(1u32);
        // Lanes of four, and one by one, agree on every value of range and out of it.
        let mixed = [
            &p - 1u32,
            p.clone(),
            BigUint::from(0u32),
            &p + 1u32,
            &p - 2u32,
            &one << 512u32,
            BigUint::from(f.r()),
            &p * 2u32,
        ];
        let limbs: Vec<Vec<u64>> = mixed.iter().map(|x| x.to_u64_digits()).collect();
        for quad in limbs.windows(4) {
            let got = f.digits_of_lanes([&quad[0][..], &quad[1], &quad[2], &quad[3]]);
            for (lane, value) in quad.iter().enumerate() {
                assert_eq!(got[lane], f.digits_of_limbs(value), "{value:?}");
            }
        }
        for x in [
            p.clone(),
            &p + 1u32,
            &p * 2u32,
            &one << 512u32,
            (&one << 640u32) - 1u32,
        ] {
            assert_eq!(
                f.from_limbs(&x.to_u64_digits()),
                Err(FieldError::OutOfRange {
                    value: x.clone(),
                    p: p.clone()
                })
            );
        }
    }
}
