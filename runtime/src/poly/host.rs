//! Polynomials on the host.

use crate::error::Error;
use fermat_dsl::field::Field;
use num_bigint::BigUint;
use rand::Rng;
use std::fmt;

/// A polynomial over `F` on the host: coefficients lowest degree first, normalised (no
/// trailing zeros; the zero polynomial has no coefficients).
///
/// ```
/// use fermat::dsl::{Field, Fp32};
/// use fermat::poly::Poly;
///
/// let f = Fp32::new(469762049)?;
/// let p = Poly::new(&f, vec![f.from_u64(1), f.from_u64(2), f.zero()]);
/// assert_eq!(p.len(), 2); // 1 + 2x: the trailing zero is dropped
/// assert_eq!(p.degree(), Some(1));
/// assert!(Poly::new(&f, vec![f.zero()]).is_zero());
/// # Ok::<(), fermat::dsl::FieldError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Poly<F: Field> {
    field: F,
    coeffs: Vec<F::Elem>,
}

impl<F: Field> Poly<F> {
    /// The polynomial Σ `coeffs[i]`·x^i (trailing zeros dropped).
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(17)?;
    /// let p = Poly::new(&f, vec![f.from_u64(1), f.from_u64(2), f.zero()]); // 1 + 2x
    /// assert_eq!((p.len(), p.degree()), (2, Some(1)));
    /// assert_eq!(p.coeffs(), &[f.from_u64(1), f.from_u64(2)]);
    /// assert!(Poly::zero(&f).is_zero() && Poly::zero(&f).degree().is_none());
    /// assert_eq!(p.field().p(), 17);
    /// assert_eq!(p.into_coeffs().len(), 2);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(field: &F, mut coeffs: Vec<F::Elem>) -> Self {
        normalise(field, &mut coeffs);
        Poly {
            field: field.clone(),
            coeffs,
        }
    }

    /// The zero polynomial (see [`new`](Self::new)).
    pub fn zero(field: &F) -> Self {
        Poly {
            field: field.clone(),
            coeffs: Vec::new(),
        }
    }

    /// The field of the coefficients (see [`new`](Self::new)).
    pub fn field(&self) -> &F {
        &self.field
    }

    /// The coefficients, lowest degree first, without trailing zeros (see
    /// [`new`](Self::new)).
    pub fn coeffs(&self) -> &[F::Elem] {
        &self.coeffs
    }

    /// The coefficients, lowest degree first, without trailing zeros (see
    /// [`new`](Self::new)).
    pub fn into_coeffs(self) -> Vec<F::Elem> {
        self.coeffs
    }

    /// The number of coefficients: the degree plus one, 0 for the zero polynomial (see
    /// [`new`](Self::new)).
    pub fn len(&self) -> usize {
        self.coeffs.len()
    }

    /// Whether this is the zero polynomial (see [`new`](Self::new)).
    pub fn is_zero(&self) -> bool {
        self.coeffs.is_empty()
    }

    /// The degree, `None` for the zero polynomial (see [`new`](Self::new)).
    pub fn degree(&self) -> Option<usize> {
        self.coeffs.len().checked_sub(1)
    }
}

/// Polynomials are equal when their fields have the same modulus and their coefficients
/// are equal.
impl<F: Field> PartialEq for Poly<F> {
    fn eq(&self, other: &Self) -> bool {
        self.coeffs == other.coeffs && self.field.modulus() == other.field.modulus()
    }
}

impl<F: Field> Eq for Poly<F> {}

/// Drops the zero coefficients at the top of `coeffs` (lowest degree first), so that the
/// last one left is the leading coefficient: the form every [`Poly`] keeps.
pub(super) fn normalise<F: Field>(field: &F, coeffs: &mut Vec<F::Elem>) {
    let zero = field.zero();
    while coeffs.last() == Some(&zero) {
        coeffs.pop();
    }
}

/// Checks that two fields are one: their moduli agree.
///
/// Errors: [`Error::FieldMismatch`], naming both fields.
pub(crate) fn check_same_field<F: Field>(left: &F, right: &F) -> Result<(), Error> {
    if left.modulus() == right.modulus() {
        Ok(())
    } else {
        Err(Error::FieldMismatch {
            left: left.name(),
            right: right.name(),
        })
    }
}

/// Constructors.
impl<F: Field> Poly<F> {
    /// The constant polynomial `c` (the zero polynomial when `c` is zero).
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::constant(&f, f.from_u64(7)).degree(), Some(0));
    /// assert!(Poly::constant(&f, f.zero()).is_zero());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn constant(field: &F, c: F::Elem) -> Self {
        Poly::new(field, vec![c])
    }

    /// The constant polynomial 1.
    ///
    /// ```
    /// use fermat::dsl::Fp64;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp64::new(0xFFFF_FFFF_0000_0001)?;
    /// assert_eq!(Poly::one(&f).to_string(), "1");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn one(field: &F) -> Self {
        Poly::constant(field, field.one())
    }

    /// The polynomial x.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::x(&f).to_string(), "x");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn x(field: &F) -> Self {
        Poly::monomial(field, field.one(), 1)
    }

    /// The monomial c·x^n (the zero polynomial when `c` is zero).
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::monomial(&f, f.from_u64(3), 4).to_string(), "3*x^4");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn monomial(field: &F, c: F::Elem, n: usize) -> Self {
        Poly::constant(field, c).shift(n)
    }

    /// The polynomial Σ (`values[i]` mod p)·x^i.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[1, 469762050, 0]);
    /// assert_eq!(p.to_string(), "x + 1");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_u64s(field: &F, values: &[u64]) -> Self {
        Poly::new(field, values.iter().map(|&v| field.from_u64(v)).collect())
    }

    /// A random polynomial with exactly `len` coefficients: uniform coefficients, the
    /// last one nonzero (so the degree is `len − 1`; the zero polynomial for `len = 0`).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    /// use rand::SeedableRng;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    /// assert_eq!(Poly::random(&f, 10, &mut rng).len(), 10);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn random<R: Rng + ?Sized>(field: &F, len: usize, rng: &mut R) -> Self {
        let zero = field.zero();
        let mut coeffs: Vec<F::Elem> = (0..len).map(|_| field.random(rng)).collect();
        if let Some(last) = coeffs.last_mut() {
            while *last == zero {
                *last = field.random(rng);
            }
        }
        Poly::new(field, coeffs)
    }
}

/// Coefficients, evaluation and the operations that move coefficients.
impl<F: Field> Poly<F> {
    /// Whether there are no coefficients: the same as [`Poly::is_zero`].
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// assert!(Poly::zero(&Fp32::new(7)?).is_empty());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.is_zero()
    }

    /// The coefficient of x^i (zero beyond the degree).
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[5, 6]);
    /// assert_eq!(p.coeff(1), f.from_u64(6));
    /// assert_eq!(p.coeff(9), f.zero());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn coeff(&self, i: usize) -> F::Elem {
        self.coeffs
            .get(i)
            .copied()
            .unwrap_or_else(|| self.field.zero())
    }

    /// The leading coefficient, `None` for the zero polynomial.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_u64s(&f, &[5, 6]).leading(), Some(f.from_u64(6)));
    /// assert_eq!(Poly::zero(&f).leading(), None);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn leading(&self) -> Option<F::Elem> {
        self.coeffs.last().copied()
    }

    /// The canonical values of the coefficients, lowest degree first.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let values = Poly::from_u64s(&f, &[5, 6]).to_biguints();
    /// assert_eq!(values, [5u32.into(), 6u32.into()]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_biguints(&self) -> Vec<BigUint> {
        self.coeffs
            .iter()
            .map(|c| self.field.to_biguint(c))
            .collect()
    }

    /// The value at `x`, by Horner's rule.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[1, 2, 3]); // 3x² + 2x + 1
    /// assert_eq!(p.eval(&f.from_u64(10)), f.from_u64(321));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn eval(&self, x: &F::Elem) -> F::Elem {
        let f = &self.field;
        self.coeffs
            .iter()
            .rev()
            .fold(f.zero(), |acc, c| f.add(&f.mul(&acc, x), c))
    }

    /// The polynomial mod x^n: the coefficients of degree below `n`.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[1, 0, 3, 4]);
    /// assert_eq!(p.truncate(3), Poly::from_u64s(&f, &[1, 0, 3]));
    /// assert_eq!(p.truncate(2), Poly::one(&f)); // normalised
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn truncate(&self, n: usize) -> Self {
        let n = n.min(self.len());
        Poly::new(&self.field, self.coeffs[..n].to_vec())
    }

    /// The polynomial times x^n.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_u64s(&f, &[1, 2]).shift(2).to_string(), "2*x^3 + x^2");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn shift(&self, n: usize) -> Self {
        if self.is_zero() {
            return self.clone();
        }
        let mut coeffs = vec![self.field.zero(); n];
        coeffs.extend_from_slice(&self.coeffs);
        Poly::new(&self.field, coeffs)
    }

    /// The reversal x^d·p(1/x) for d the degree: the coefficients in the opposite order
    /// (zero stays zero; the low zero coefficients of p are dropped, as leading zeros).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[0, 1, 2]);
    /// assert_eq!(p.reverse(), Poly::from_u64s(&f, &[2, 1]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn reverse(&self) -> Self {
        Poly::new(&self.field, self.coeffs.iter().rev().copied().collect())
    }
}

/// The additive group and the scalar multiplication.
impl<F: Field> Poly<F> {
    /// op coefficient by coefficient, the shorter operand padded with zeros: the common
    /// part in one loop without a bound to check (which the compiler vectorises), then
    /// the longer operand's top.
    fn zip_with(&self, other: &Self, op: impl Fn(&F, &F::Elem, &F::Elem) -> F::Elem) -> Self {
        let (f, zero) = (&self.field, self.field.zero());
        let (a, b) = (&self.coeffs, &other.coeffs);
        let common = a.len().min(b.len());
        let mut coeffs = Vec::with_capacity(a.len().max(b.len()));
        coeffs.extend(
            a[..common]
                .iter()
                .zip(&b[..common])
                .map(|(x, y)| op(f, x, y)),
        );
        coeffs.extend(a[common..].iter().map(|x| op(f, x, &zero)));
        coeffs.extend(b[common..].iter().map(|y| op(f, &zero, y)));
        Poly::new(f, coeffs)
    }

    /// self + other.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 3]);
    /// let b = Poly::from_u64s(&f, &[1, 1, 469762046]);
    /// assert_eq!(a.add(&b)?, Poly::from_u64s(&f, &[2, 3]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn add(&self, other: &Self) -> Result<Self, Error> {
        check_same_field(&self.field, &other.field)?;
        Ok(self.zip_with(other, |f, a, b| f.add(a, b)))
    }

    /// self − other.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 3]);
    /// assert!(a.sub(&a)?.is_zero());
    /// assert!(a.sub(&Poly::zero(&Fp32::new(7)?)).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn sub(&self, other: &Self) -> Result<Self, Error> {
        check_same_field(&self.field, &other.field)?;
        Ok(self.zip_with(other, |f, a, b| f.sub(a, b)))
    }

    /// −self.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert_eq!(Poly::from_u64s(&f, &[1]).neg().to_string(), "469762048");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn neg(&self) -> Self {
        let f = &self.field;
        Poly::new(f, self.coeffs.iter().map(|c| f.neg(c)).collect())
    }

    /// c · self.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::Poly;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let p = Poly::from_u64s(&f, &[1, 2]);
    /// assert_eq!(p.scale(&f.from_u64(3)), Poly::from_u64s(&f, &[3, 6]));
    /// assert!(p.scale(&f.zero()).is_zero());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn scale(&self, c: &F::Elem) -> Self {
        let f = &self.field;
        Poly::new(f, self.coeffs.iter().map(|a| f.mul(a, c)).collect())
    }
}

/// Highest degree first, as FLINT prints: `3*x^2 + x + 1`. Zero terms are left out, a
/// coefficient 1 is not written before a power of x, coefficients are canonical values
/// in [0, p), and the zero polynomial is `0`.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::Poly;
///
/// let f = Fp32::new(469762049)?;
/// assert_eq!(Poly::from_u64s(&f, &[1, 1, 0, 3]).to_string(), "3*x^3 + x + 1");
/// assert_eq!(Poly::zero(&f).to_string(), "0");
/// # Ok::<(), fermat::Error>(())
/// ```
impl<F: Field> fmt::Display for Poly<F> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return out.write_str("0");
        }
        let (zero, one) = (self.field.zero(), self.field.one());
        let mut first = true;
        for (i, c) in self.coeffs.iter().enumerate().rev() {
            if *c == zero {
                continue;
            }
            if !first {
                out.write_str(" + ")?;
            }
            first = false;
            if i == 0 || *c != one {
                write!(out, "{}", self.field.to_biguint(c))?;
            }
            match i {
                0 => {}
                1 if *c == one => out.write_str("x")?,
                1 => out.write_str("*x")?,
                _ if *c == one => write!(out, "x^{i}")?,
                _ => write!(out, "*x^{i}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::{Fp32, Fp64};
    use fermat_dsl::FieldSpec;
    use rand::SeedableRng;

    fn f() -> Fp32 {
        Fp32::new(469762049).unwrap()
    }

    #[test]
    fn random_polynomials_have_exactly_the_length_asked() {
        let f = Fp32::new(3).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        for len in 0..50 {
            assert_eq!(Poly::random(&f, len, &mut rng).len(), len);
        }
    }

    #[test]
    fn display_follows_flint() {
        let f = f();
        let p = Poly::from_u64s(&f, &[0, 5, 1, 0, 1]);
        assert_eq!(p.to_string(), "x^4 + x^2 + 5*x");
        assert_eq!(Poly::from_u64s(&f, &[7]).to_string(), "7");
        assert_eq!(Poly::from_u64s(&f, &[1]).to_string(), "1");
    }

    #[test]
    fn evaluation_horner_matches_the_sum_of_powers() {
        let p3 = FieldSpec::parse("P3").unwrap().build().unwrap();
        let fermat_dsl::AnyField::Srgfn8(f) = p3 else {
            panic!("P3 has k = 8")
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let p = Poly::random(&f, 13, &mut rng);
        let x = f.random(&mut rng);
        let direct = p.coeffs().iter().enumerate().fold(f.zero(), |acc, (i, c)| {
            f.add(&acc, &f.mul(c, &f.pow_u64(&x, i as u64)))
        });
        assert_eq!(p.eval(&x), direct);
    }

    #[test]
    fn shifts_truncations_and_reversals() {
        let f = f();
        let p = Poly::from_u64s(&f, &[1, 2, 3]);
        assert_eq!(p.shift(2).truncate(2), Poly::zero(&f));
        assert_eq!(p.shift(2).truncate(4), Poly::from_u64s(&f, &[0, 0, 1, 2]));
        assert_eq!(p.shift(3).reverse(), p.reverse());
        assert_eq!(p.reverse().reverse(), p);
        assert!(Poly::zero(&f).shift(5).is_zero());
        assert_eq!(p.truncate(100), p);
    }

    #[test]
    fn mismatched_fields_are_refused() {
        let a = Poly::one(&Fp64::new(0xFFFF_FFFF_0000_0001).unwrap());
        let b = Poly::one(&Fp64::new(4179340454199820289).unwrap());
        let Err(Error::FieldMismatch { left, right }) = a.add(&b) else {
            panic!("different moduli must be refused")
        };
        assert_eq!(
            (left.as_str(), right.as_str()),
            ("18446744069414584321", "4179340454199820289")
        );
    }
}
