//! Finite fields: word-size NTT primes and sparse-radix generalized Fermat primes.
//!
//! Every field implements [`Field`]: exact arithmetic on an opaque element type, conversion
//! to and from [`BigUint`] at the boundary, and the canonical family of roots of unity
//! (`DFT_n` is taken at ω_n, with ω_n = ω_{2n}^2; docs/ARCHITECTURE.md, "Roots of unity").
//!
//! - [`Fp32`], [`Fp64`]: any prime p < 2^32 or p < 2^64 (Montgomery form inside, canonical
//!   integers outside).
//! - [`Srgfn`]: p = r^k + 1 with r = 2^w ± 2^u, digits in base r (2017 paper, §3).
//! - [`FieldSpec`] / [`AnyField`]: the one parser for field names used by every command.

mod error;
mod inverse;
pub mod primality;
mod roots;
mod spec;
pub mod srgfn;
pub mod word;

pub use error::FieldError;
pub use roots::{geometric, geometric_into, Roots, Shift};
pub use spec::{
    AnyField, FieldSpec, Sign, SrgfnParams, CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES, MAX_K,
};
pub use srgfn::{Srgfn, SrgfnElem};
pub use word::{Fp32, Fp32Elem, Fp64, Fp64Elem};

use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::Rng;
use std::fmt::Debug;

/// A finite field with exact arithmetic.
///
/// Elements are opaque values of [`Field::Elem`]; they are only meaningful together with
/// the field that made them. Conversions ([`Field::from_biguint`], [`Field::to_biguint`])
/// go through canonical integers in `[0, p)`.
///
/// ```
/// use fermat_dsl::field::{Field, Fp64};
///
/// /// Horner's rule in any field: c_0 + c_1·x + … at `x`.
/// fn eval<F: Field>(f: &F, c: &[F::Elem], x: &F::Elem) -> F::Elem {
///     c.iter().rev().fold(f.zero(), |acc, ci| f.add(&f.mul(&acc, x), ci))
/// }
///
/// let f = Fp64::new(0xffff_ffff_0000_0001)?; // goldilocks
/// let c: Vec<_> = [1, 2, 3].iter().map(|&v| f.from_u64(v)).collect();
/// let y = eval(&f, &c, &f.from_u64(10));
/// assert_eq!(f.to_biguint(&y), 321u32.into());
/// assert_eq!(f.to_biguint(&f.neg(&f.one())), f.modulus() - 1u32);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub trait Field: Clone + Debug + Send + Sync + 'static {
    /// The element type (a Montgomery residue, a digit array, …).
    type Elem: Copy + Eq + Debug + Send + Sync + 'static;

    /// A short name: the catalogue name where there is one, else the modulus.
    fn name(&self) -> String;
    /// The modulus p.
    fn modulus(&self) -> BigUint;
    /// The largest s with 2^s | p − 1: DFTs of every power-of-two size up to 2^s exist.
    fn two_adicity(&self) -> u32;

    /// The additive identity.
    fn zero(&self) -> Self::Elem;
    /// The multiplicative identity.
    fn one(&self) -> Self::Elem;
    /// a + b.
    fn add(&self, a: &Self::Elem, b: &Self::Elem) -> Self::Elem;
    /// a − b.
    fn sub(&self, a: &Self::Elem, b: &Self::Elem) -> Self::Elem;
    /// −a.
    fn neg(&self, a: &Self::Elem) -> Self::Elem;
    /// a · b.
    fn mul(&self, a: &Self::Elem, b: &Self::Elem) -> Self::Elem;

    /// The element with canonical value `x`; an error if `x ≥ p`.
    // The field is the context of the conversion, as in `field.from_u64(3)`.
    #[allow(clippy::wrong_self_convention)]
    fn from_biguint(&self, x: &BigUint) -> Result<Self::Elem, FieldError>;
    /// The canonical value of `a`, in `[0, p)`.
    fn to_biguint(&self, a: &Self::Elem) -> BigUint;

    /// The canonical value of `a` in 64-bit limbs, least significant first, written to
    /// `out` (zeros above the value); [`FieldError::LimbsTooShort`] if `out` has fewer
    /// limbs than p.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let x = p3.from_u64(7);
    /// let mut limbs = [1u64; 9];
    /// p3.to_limbs(&x, &mut limbs)?;
    /// assert_eq!(limbs, [7, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// assert!(p3.to_limbs(&x, &mut limbs[..7]).is_err()); // p has 8 limbs
    /// assert_eq!(p3.from_limbs(&limbs)?, x);
    /// let p = p3.modulus().to_u64_digits();
    /// assert!(p3.from_limbs(&p).is_err()); // p itself is out of range
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn to_limbs(&self, a: &Self::Elem, out: &mut [u64]) -> Result<(), FieldError> {
        check_limbs(&self.modulus(), out.len())?;
        let value = self.to_biguint(a);
        out.fill(0);
        for (limb, digit) in out.iter_mut().zip(value.iter_u64_digits()) {
            *limb = digit;
        }
        Ok(())
    }

    /// The element whose canonical value is the integer of 64-bit `limbs`, least
    /// significant first; an error naming the value if it is not below p.
    #[allow(clippy::wrong_self_convention)]
    fn from_limbs(&self, limbs: &[u64]) -> Result<Self::Elem, FieldError> {
        self.from_biguint(&biguint_of_limbs(limbs))
    }

    /// [`from_limbs`](Field::from_limbs) for several values, in order; a field may
    /// interleave their conversions. The first value out of range is the error.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let values: Vec<[u64; 8]> = (0..6).map(|i| [i, 0, 0, 0, 0, 0, 0, i]).collect();
    /// let slices: Vec<&[u64]> = values.iter().map(|v| &v[..]).collect();
    /// let elements = p3.from_limbs_many(&slices)?;
    /// for (e, v) in elements.iter().zip(&values) {
    ///     assert_eq!(*e, p3.from_limbs(v)?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::wrong_self_convention)]
    fn from_limbs_many(&self, values: &[&[u64]]) -> Result<Vec<Self::Elem>, FieldError> {
        values.iter().map(|v| self.from_limbs(v)).collect()
    }

    /// x mod p.
    #[allow(clippy::wrong_self_convention)]
    fn from_u64(&self, x: u64) -> Self::Elem {
        let p = self.modulus();
        let x = BigUint::from(x) % &p;
        self.from_biguint(&x)
            .expect("a value reduced mod p is in range")
    }

    /// A uniformly random element.
    fn random<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::Elem {
        use num_bigint::RandBigInt;
        let x = rng.gen_biguint_below(&self.modulus());
        self.from_biguint(&x).expect("a value below p is in range")
    }

    /// a^e, by square-and-multiply.
    fn pow(&self, a: &Self::Elem, e: &BigUint) -> Self::Elem {
        let mut acc = self.one();
        for i in (0..e.bits()).rev() {
            acc = self.mul(&acc, &acc);
            if e.bit(i) {
                acc = self.mul(&acc, a);
            }
        }
        acc
    }

    /// a^e for a machine-word exponent.
    fn pow_u64(&self, a: &Self::Elem, e: u64) -> Self::Elem {
        let mut acc = self.one();
        for i in (0..64 - e.leading_zeros()).rev() {
            acc = self.mul(&acc, &acc);
            if (e >> i) & 1 == 1 {
                acc = self.mul(&acc, a);
            }
        }
        acc
    }

    /// a^(−1), by Fermat's little theorem; zero has no inverse.
    fn inv(&self, a: &Self::Elem) -> Result<Self::Elem, FieldError> {
        if *a == self.zero() {
            return Err(FieldError::NotInvertible);
        }
        let p = self.modulus();
        Ok(self.pow(a, &(p - 2u32)))
    }

    /// The smallest integer α ≥ 2 that is a quadratic non-residue mod p (Euler's
    /// criterion): the generator of the canonical roots of unity.
    fn non_residue(&self) -> Self::Elem {
        let p = self.modulus();
        let half = (&p - 1u32) >> 1;
        let minus_one = self.neg(&self.one());
        let mut a = 2u64;
        loop {
            let alpha = self.from_u64(a);
            if self.pow(&alpha, &half) == minus_one {
                return alpha;
            }
            a += 1;
        }
    }

    /// The canonical primitive n-th root of unity ω_n, for n a power of two
    /// with n ≤ 2^[`two_adicity`](Field::two_adicity).
    ///
    /// The default is g_n = α^((p−1)/n) with α = [`non_residue`](Field::non_residue);
    /// SRGFNs override it with Algorithm 1 of the 2017 paper so that ω_n^(n/2k) = r.
    fn root_of_unity(&self, n: u64) -> Result<Self::Elem, FieldError> {
        let p = self.modulus();
        check_order(n, self.two_adicity())?;
        let e = (&p - 1u32) / n;
        Ok(self.pow(&self.non_residue(), &e))
    }

    /// The base-r digits of `a` (least significant first, p − 1 as `[0, …, 0, r]`) where
    /// the field stores its elements so, as an SRGFN p = r^k + 1 does: read as they are,
    /// without a conversion through an integer. Word primes have none.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let x = p3.from_u64(5);
    /// assert_eq!(p3.radix_digits(&x).unwrap()[..2], [5, 0]);
    /// let f = fermat_dsl::field::Fp32::new(469762049)?;
    /// assert!(f.radix_digits(&f.one()).is_none());
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    fn radix_digits<'a>(&self, a: &'a Self::Elem) -> Option<&'a [u64]> {
        let _ = a;
        None
    }

    /// The base-r digits of every element of `xs`, k after k, borrowed as they are stored
    /// — what [`radix_digits`](Field::radix_digits) reads one element at a time, with no
    /// copy of a polynomial's coefficients. Word primes have none.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let xs = [p3.from_u64(5), p3.from_u64(7)];
    /// let digits = p3.radix_digits_many(&xs).unwrap();
    /// assert_eq!((digits.len(), digits[0], digits[8]), (16, 5, 7));
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    fn radix_digits_many<'a>(&self, xs: &'a [Self::Elem]) -> Option<&'a [u64]> {
        let _ = xs;
        None
    }

    /// The elements Σ_j s_j·r^j mod p, one for each k consecutive sums s_j of `sums` (the
    /// last group may be shorter: its missing sums are 0), r and k those of
    /// [`radix_digits`](Field::radix_digits), each sum three 64-bit words, least
    /// significant first. Sums of products of digits by word-sized factors, such as the
    /// explicit CRT's columns in base r, come back into the field so without an integer
    /// between. Fields without radix digits refuse with [`FieldError::NoRadixDigits`].
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field, FieldSpec};
    /// use num_bigint::BigUint;
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let r = BigUint::from(p3.params().radix()?);
    /// // 7 + (2^64 + 3)·r, and a second element of one sum.
    /// let x = p3.from_radix_sums(&[[7, 0, 0], [3, 1, 0], [0; 3], [0; 3], [0; 3], [0; 3], [0; 3], [0; 3], [9, 0, 0]])?;
    /// let want = BigUint::from(7u32) + ((BigUint::from(1u32) << 64u32) + 3u32) * &r;
    /// assert_eq!(x, [p3.from_biguint(&want)?, p3.from_u64(9)]);
    /// let f = fermat_dsl::field::Fp32::new(469762049)?;
    /// assert!(f.from_radix_sums(&[[1, 0, 0]]).is_err());
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    #[allow(clippy::wrong_self_convention)]
    fn from_radix_sums(&self, sums: &[[u64; 3]]) -> Result<Vec<Self::Elem>, FieldError> {
        let _ = sums;
        Err(FieldError::NoRadixDigits { field: self.name() })
    }

    /// The order 2k of the root of unity whose powers multiply by digit shifts, if the
    /// field has one: for an SRGFN, r = ω_{2k} (2017 paper, §3.4). Word primes have none.
    fn shift_root_order(&self) -> Option<u64> {
        None
    }

    /// a · ω_{s}^i where s = [`shift_root_order`](Field::shift_root_order): a digit shift
    /// for SRGFNs. The default multiplies by the power of the canonical root in full.
    fn mul_shift(&self, a: &Self::Elem, i: u64) -> Self::Elem {
        let s = self.shift_root_order().unwrap_or(1);
        let w = self
            .root_of_unity(s)
            .expect("shift_root_order is a size the field has a root for");
        self.mul(a, &self.pow_u64(&w, i % s))
    }

    /// Checks that `w` is a primitive n-th root of unity (n a power of two).
    fn check_root(&self, w: &Self::Elem, n: u64) -> Result<(), FieldError> {
        check_order(n, self.two_adicity())?;
        let one = self.one();
        let order_ok = self.pow_u64(w, n) == one && (n == 1 || self.pow_u64(w, n / 2) != one);
        if order_ok {
            Ok(())
        } else {
            Err(FieldError::NotPrimitiveRoot {
                root: self.to_biguint(w),
                n,
            })
        }
    }
}

/// Checks that `n` is a power of two with `n ≤ 2^two_adicity`: the transform sizes a field
/// with that 2-adicity admits.
///
/// ```
/// use fermat_dsl::field::{check_order, FieldError};
///
/// assert!(check_order(1 << 26, 26).is_ok());
/// assert_eq!(check_order(1 << 27, 26), Err(FieldError::SizeBeyondTwoAdicity { n: 1 << 27, two_adicity: 26 }));
/// assert_eq!(check_order(12, 26), Err(FieldError::SizeNotPowerOfTwo { n: 12 }));
/// ```
pub fn check_order(n: u64, two_adicity: u32) -> Result<(), FieldError> {
    if n == 0 || !n.is_power_of_two() {
        return Err(FieldError::SizeNotPowerOfTwo { n });
    }
    if n.trailing_zeros() > two_adicity {
        return Err(FieldError::SizeBeyondTwoAdicity { n, two_adicity });
    }
    Ok(())
}

/// The 2-adicity of p: the largest s with 2^s | p − 1.
///
/// ```
/// use fermat_dsl::field::two_adicity_of;
///
/// assert_eq!(two_adicity_of(&469762049u32.into()), 26); // 7·2^26 + 1
/// assert_eq!(two_adicity_of(&1u32.into()), 0);
/// ```
pub fn two_adicity_of(p: &BigUint) -> u32 {
    let pm1 = p - BigUint::one();
    if pm1.is_zero() {
        0
    } else {
        pm1.trailing_zeros().unwrap_or(0) as u32
    }
}

/// An error unless `len` limbs hold p.
pub(crate) fn check_limbs(p: &BigUint, len: usize) -> Result<(), FieldError> {
    let need = p.bits().div_ceil(64) as usize;
    if len < need {
        return Err(FieldError::LimbsTooShort { len, need });
    }
    Ok(())
}

/// The integer of 64-bit `limbs`, least significant first.
///
/// ```
/// use fermat_dsl::field::biguint_of_limbs;
///
/// assert_eq!(biguint_of_limbs(&[5, 1]), (num_bigint::BigUint::from(1u32) << 64u32) + 5u32);
/// ```
pub fn biguint_of_limbs(limbs: &[u64]) -> BigUint {
    BigUint::new(
        limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect(),
    )
}
