//! Word-size prime fields: [`Fp32`] for odd primes p < 2^32, [`Fp64`] for odd primes
//! p < 2^64 (the NTT primes of the catalogue, Goldilocks included).
//!
//! Elements are kept in Montgomery form a·R mod p, with R = 2^32 ([`Fp32`]) or R = 2^64
//! ([`Fp64`]): a product then costs two widening multiplications and no division
//! (Montgomery 1985, REDC). The canonical integer appears only at the API boundary
//! ([`Fp64::elem`], [`Fp64::value`], [`Field::from_biguint`], [`Field::to_biguint`]).
//!
//! REDC is the "subtractive" variant: with p' = p^(−1) mod R and m = (t mod R)·p' mod R,
//! t and m·p agree in their low word, so (t − m·p)/R is the difference of the high words,
//! in (−p, p); one conditional addition of p makes it canonical. Nothing overflows even for
//! p close to R (Goldilocks), and no intermediate needs more than a double word.
//! [`Fp64::montgomery_neg_p_inv`] gives −p^(−1) mod R for code generators that use the
//! additive variant.

use super::primality::miller_rabin_witness_u64;
use super::{check_order, Field, FieldError};
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use rand::Rng;

macro_rules! word_field {
    (
        $(#[$field_doc:meta])*
        field $Field:ident,
        $(#[$elem_doc:meta])*
        elem $Elem:ident,
        word $W:ty,
        double $D:ty,
        signed $S:ty,
        bits $BITS:literal $(,)?
    ) => {
        $(#[$elem_doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        #[repr(transparent)]
        pub struct $Elem($W);

        $(#[$field_doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $Field {
            /// The modulus.
            p: $W,
            /// p^(−1) mod R.
            p_inv: $W,
            /// R mod p: the Montgomery form of 1.
            r: $W,
            /// R^2 mod p: multiplying by it (with REDC) enters Montgomery form.
            r2: $W,
            /// The largest s with 2^s | p − 1.
            two_adicity: u32,
            /// The smallest quadratic non-residue α ≥ 2 (canonical value).
            non_residue: $W,
            /// The catalogue name, if any.
            name: Option<&'static str>,
        }

        impl $Field {
            /// Builds the field of integers modulo the odd prime `p`.
            ///
            /// Errors: [`FieldError::NotOdd`] if `p` is even or below 3,
            /// [`FieldError::NotPrime`] (with a Miller–Rabin witness) if `p` is composite.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?; // 7·2^26 + 1\nassert_eq!((f.p(), f.two_adicity()), (469762049, 26));\nassert!(", stringify!($Field), "::new(469762047).is_err()); // 3 · 156587349\nassert!(", stringify!($Field), "::new(2).is_err()); // even\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            pub fn new(p: $W) -> Result<Self, FieldError> {
                if p < 3 || p % 2 == 0 {
                    return Err(FieldError::NotOdd { p: BigUint::from(p) });
                }
                if let Some(witness) = miller_rabin_witness_u64(u64::from(p)) {
                    return Err(FieldError::NotPrime {
                        p: BigUint::from(p),
                        witness: Some(BigUint::from(witness)),
                    });
                }
                // Newton's iteration x ← x·(2 − p·x) doubles the number of correct low
                // bits; x = p is right mod 8 (odd squares are 1 mod 8): 3 → 6 → … → 96.
                let mut p_inv = p;
                for _ in 0..5 {
                    p_inv = p_inv.wrapping_mul((2 as $W).wrapping_sub(p.wrapping_mul(p_inv)));
                }
                debug_assert_eq!(p.wrapping_mul(p_inv), 1);
                // R mod p = ((R − 1) mod p + 1) mod p, without a word wider than R.
                let r = (<$W>::MAX % p + 1) % p;
                let r2 = ((<$D>::from(r) * <$D>::from(r)) % <$D>::from(p)) as $W;
                let mut field = $Field {
                    p,
                    p_inv,
                    r,
                    r2,
                    two_adicity: (p - 1).trailing_zeros(),
                    non_residue: 0,
                    name: None,
                };
                field.non_residue = field.find_non_residue();
                Ok(field)
            }

            /// Sets the catalogue name reported by [`Field::name`] (`None`: the decimal p).
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(2013265921)?;\nassert_eq!(f.name(), \"2013265921\");\nassert_eq!(f.with_name(Some(\"babybear\")).name(), \"babybear\");\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            pub fn with_name(mut self, name: Option<&'static str>) -> Self {
                self.name = name;
                self
            }

            /// The modulus p ([`new`](Self::new) has an example).
            #[inline]
            pub fn p(&self) -> $W {
                self.p
            }

            /// The largest s with 2^s | p − 1 ([`new`](Self::new) has an example).
            #[inline]
            pub fn two_adicity(&self) -> u32 {
                self.two_adicity
            }

            /// R mod p, the Montgomery form of 1.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?;\nassert_eq!(f.to_montgomery_raw(f.one()), f.montgomery_r());\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            #[inline]
            pub fn montgomery_r(&self) -> $W {
                self.r
            }

            /// R^2 mod p: REDC(x · R^2) = x·R mod p puts `x` into Montgomery form.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?;\nlet r2 = f.from_montgomery_raw(f.montgomery_r2())?; // residue R^2: the element R\nassert_eq!(f.value(r2), f.montgomery_r());\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            #[inline]
            pub fn montgomery_r2(&self) -> $W {
                self.r2
            }

            /// −p^(−1) mod R, the constant of the additive REDC: m = t·(−p^(−1)) mod R,
            /// (t + m·p)/R.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?;\nassert_eq!(f.p().wrapping_mul(f.montgomery_neg_p_inv()).wrapping_neg(), 1);\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            #[inline]
            pub fn montgomery_neg_p_inv(&self) -> $W {
                self.p_inv.wrapping_neg()
            }

            /// The element with canonical value `x`; [`FieldError::OutOfRange`] if `x ≥ p`.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?;\nlet minus_one = f.elem(469762048)?;\nassert_eq!(f.value(f.mul(&minus_one, &minus_one)), 1);\nassert!(f.elem(469762049).is_err());\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            #[inline]
            pub fn elem(&self, x: $W) -> Result<$Elem, FieldError> {
                if x >= self.p {
                    return Err(FieldError::OutOfRange {
                        value: BigUint::from(x),
                        p: BigUint::from(self.p),
                    });
                }
                Ok(self.to_montgomery(x))
            }

            /// The canonical value of `a`, in `[0, p)` ([`elem`](Self::elem) has an example).
            #[inline]
            pub fn value(&self, a: $Elem) -> $W {
                self.redc(<$D>::from(a.0))
            }

            /// The Montgomery residue a·R mod p held by `a`: the word stored in device
            /// buffers and passed to generated kernels.
            ///
            #[doc = concat!("```\nuse fermat_dsl::field::{Field, ", stringify!($Field), "};\n\nlet f = ", stringify!($Field), "::new(469762049)?;\nlet a = f.elem(12345)?;\nlet raw = f.to_montgomery_raw(a); // what a device buffer holds\nassert_eq!(f.from_montgomery_raw(raw)?, a);\n# Ok::<(), fermat_dsl::field::FieldError>(())\n```")]
            #[inline]
            pub fn to_montgomery_raw(&self, a: $Elem) -> $W {
                a.0
            }

            /// The element whose Montgomery residue is `raw` (data read back from a
            /// device); [`FieldError::OutOfRange`] if `raw ≥ p`
            /// ([`to_montgomery_raw`](Self::to_montgomery_raw) has an example).
            #[inline]
            pub fn from_montgomery_raw(&self, raw: $W) -> Result<$Elem, FieldError> {
                if raw >= self.p {
                    return Err(FieldError::OutOfRange {
                        value: BigUint::from(raw),
                        p: BigUint::from(self.p),
                    });
                }
                Ok($Elem(raw))
            }

            /// x·R mod p for x < p.
            #[inline]
            fn to_montgomery(&self, x: $W) -> $Elem {
                $Elem(self.redc(<$D>::from(x) * <$D>::from(self.r2)))
            }

            /// x^(−1) mod p for 0 < x < p. Remainders r_i ≡ s_i·x (mod p) with cofactors of
            /// alternating sign, |s_(i+1)| = |s_(i−1)| + q_i·|s_i| ≤ p, so every q_i·s_i fits
            /// the signed double word.
            fn inverse_of_value(&self, x: $W) -> $W {
                let (mut r0, mut r1) = (self.p, x);
                let (mut s0, mut s1): ($S, $S) = (0, 1);
                while r1 != 0 {
                    let q = r0 / r1;
                    (r0, r1) = (r1, r0 - q * r1);
                    (s0, s1) = (s1, s0 - <$S>::from(q) * s1);
                }
                debug_assert_eq!(r0, 1, "p is prime and 0 < x < p");
                if s0 < 0 {
                    (s0 + <$S>::from(self.p)) as $W
                } else {
                    s0 as $W
                }
            }

            /// REDC: t·R^(−1) mod p, canonical, for t < p·R.
            #[inline(always)]
            fn redc(&self, t: $D) -> $W {
                let m = (t as $W).wrapping_mul(self.p_inv);
                let mp = <$D>::from(m) * <$D>::from(self.p);
                // t ≡ m·p (mod R): the low words cancel exactly, only the high words remain.
                let (diff, borrow) = ((t >> $BITS) as $W).overflowing_sub((mp >> $BITS) as $W);
                if borrow {
                    diff.wrapping_add(self.p)
                } else {
                    diff
                }
            }

            /// α = the smallest integer ≥ 2 with α^((p−1)/2) = −1 (Euler's criterion).
            fn find_non_residue(&self) -> $W {
                let half = u64::from((self.p - 1) / 2);
                let minus_one = self.neg(&self.one());
                (2..self.p)
                    .find(|&a| self.pow_u64(&self.to_montgomery(a), half) == minus_one)
                    .expect("an odd prime has quadratic non-residues below it")
            }
        }

        impl Field for $Field {
            type Elem = $Elem;

            fn name(&self) -> String {
                match self.name {
                    Some(name) => name.to_string(),
                    None => self.p.to_string(),
                }
            }

            fn modulus(&self) -> BigUint {
                BigUint::from(self.p)
            }

            #[inline]
            fn two_adicity(&self) -> u32 {
                self.two_adicity
            }

            #[inline]
            fn zero(&self) -> $Elem {
                $Elem(0)
            }

            #[inline]
            fn one(&self) -> $Elem {
                $Elem(self.r)
            }

            #[inline]
            fn add(&self, a: &$Elem, b: &$Elem) -> $Elem {
                // The carry matters when p > R/2 (Goldilocks): a + b may exceed R.
                let (sum, carry) = a.0.overflowing_add(b.0);
                if carry || sum >= self.p {
                    $Elem(sum.wrapping_sub(self.p))
                } else {
                    $Elem(sum)
                }
            }

            #[inline]
            fn sub(&self, a: &$Elem, b: &$Elem) -> $Elem {
                let (diff, borrow) = a.0.overflowing_sub(b.0);
                if borrow {
                    $Elem(diff.wrapping_add(self.p))
                } else {
                    $Elem(diff)
                }
            }

            #[inline]
            fn neg(&self, a: &$Elem) -> $Elem {
                if a.0 == 0 {
                    *a
                } else {
                    $Elem(self.p - a.0)
                }
            }

            #[inline]
            fn mul(&self, a: &$Elem, b: &$Elem) -> $Elem {
                $Elem(self.redc(<$D>::from(a.0) * <$D>::from(b.0)))
            }

            fn from_biguint(&self, x: &BigUint) -> Result<$Elem, FieldError> {
                match x.to_u64().and_then(|x| <$W>::try_from(x).ok()) {
                    Some(x) if x < self.p => Ok(self.to_montgomery(x)),
                    _ => Err(FieldError::OutOfRange {
                        value: x.clone(),
                        p: BigUint::from(self.p),
                    }),
                }
            }

            fn to_biguint(&self, a: &$Elem) -> BigUint {
                BigUint::from(self.value(*a))
            }

            #[inline]
            fn from_u64(&self, x: u64) -> $Elem {
                self.to_montgomery((x % u64::from(self.p)) as $W)
            }

            fn random<G: Rng + ?Sized>(&self, rng: &mut G) -> $Elem {
                self.to_montgomery(rng.gen_range(0..self.p))
            }

            #[inline]
            fn pow_u64(&self, a: &$Elem, mut e: u64) -> $Elem {
                let mut base = *a;
                let mut acc = self.one();
                while e > 0 {
                    if e & 1 == 1 {
                        acc = self.mul(&acc, &base);
                    }
                    base = self.mul(&base, &base);
                    e >>= 1;
                }
                acc
            }

            fn pow(&self, a: &$Elem, e: &BigUint) -> $Elem {
                // a^(p−1) = 1 for a ≠ 0, so only e mod (p − 1) matters, except that
                // 0^e is 1 for e = 0 and 0 otherwise.
                if a.0 == 0 {
                    return if e.bits() == 0 { self.one() } else { *a };
                }
                let order = u64::from(self.p - 1);
                self.pow_u64(a, (e % order).to_u64().expect("a residue mod p − 1 fits a u64"))
            }

            /// The inverse of a's value by the extended Euclidean algorithm, back in
            /// Montgomery form: about 0.84·ln p steps of a division each, where Fermat's
            /// a^(p−2) is a chain of 1.5·log2 p dependent products: 67 against 127 ns for
            /// 469762049 and 138 against 266 for Goldilocks on one core (bench/RESULTS.md,
            /// "CPU round 1"), and Euclid's algorithms take one a step. Skipping the
            /// division for the many quotients of 1 or 2 cost more in mispredicted
            /// branches than it saved (94 ns).
            fn inv(&self, a: &$Elem) -> Result<$Elem, FieldError> {
                if a.0 == 0 {
                    return Err(FieldError::NotInvertible);
                }
                Ok(self.to_montgomery(self.inverse_of_value(self.value(*a))))
            }

            fn non_residue(&self) -> $Elem {
                self.to_montgomery(self.non_residue)
            }

            /// ω_n = α^((p−1)/n), as the trait's default, with a machine-word exponent.
            fn root_of_unity(&self, n: u64) -> Result<$Elem, FieldError> {
                check_order(n, self.two_adicity)?;
                Ok(self.pow_u64(&self.non_residue(), u64::from(self.p - 1) / n))
            }
        }
    };
}

word_field! {
    /// The prime field Z/pZ for an odd prime p < 2^32, in Montgomery form with R = 2^32.
    ///
    /// Catalogue members: 469762049 = 7·2^26 + 1 and 2013265921 = 15·2^27 + 1
    /// (`babybear`).
    ///
    /// ```
    /// use fermat_dsl::field::{Field, Fp32};
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let (a, b) = (f.elem(1 << 30)?, f.elem(3)?);
    /// assert_eq!(f.value(f.mul(&a, &b)), (3u64 << 30) as u32 - 2013265921); // reduced
    /// let w = f.root_of_unity(1 << 27)?; // p − 1 = 15·2^27
    /// assert_eq!(f.pow_u64(&w, 1 << 26), f.neg(&f.one()));
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    field Fp32,
    /// An element of an [`Fp32`] field: its Montgomery residue a·2^32 mod p.
    ///
    /// `repr(transparent)`, so a slice of elements is a slice of residues for device
    /// transfers; see [`Fp32::to_montgomery_raw`], which has an example.
    elem Fp32Elem,
    word u32,
    double u64,
    signed i64,
    bits 32,
}

word_field! {
    /// The prime field Z/pZ for an odd prime p < 2^64, in Montgomery form with R = 2^64.
    ///
    /// Catalogue members: 4179340454199820289 = 29·2^57 + 1 and 2^64 − 2^32 + 1
    /// (`goldilocks`); primes below 2^32 are accepted too.
    ///
    /// ```
    /// use fermat_dsl::field::{Field, Fp64};
    ///
    /// let g = Fp64::new(0xffff_ffff_0000_0001)?; // goldilocks
    /// assert_eq!(g.montgomery_r(), 0xffff_ffff); // 2^64 mod p = 2^32 − 1
    /// let x = g.elem(1 << 32)?;
    /// assert_eq!(g.value(g.mul(&x, &x)), 0xffff_ffff); // 2^64 ≡ 2^32 − 1
    /// let inv = g.inv(&x)?;
    /// assert_eq!(g.mul(&x, &inv), g.one());
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    field Fp64,
    /// An element of an [`Fp64`] field: its Montgomery residue a·2^64 mod p.
    ///
    /// `repr(transparent)`, so a slice of elements is a slice of residues for device
    /// transfers; see [`Fp64::to_montgomery_raw`], which has an example.
    elem Fp64Elem,
    word u64,
    double u128,
    signed i128,
    bits 64,
}

#[cfg(test)]
mod tests;
