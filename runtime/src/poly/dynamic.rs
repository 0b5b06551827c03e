//! Polynomials over a field chosen at run time: [`Polynomial`], one variant of
//! [`Poly<F>`] per [`AnyField`](crate::AnyField) variant, with [`Element`]s as
//! coefficients and points.

use super::host::Poly;
use super::schoolbook::schoolbook_mul;
use crate::element::{Element, FieldVariant, PrimeField};
use crate::error::Error;
use fermat_dsl::field::{Fp32, Fp64, Srgfn};
use fermat_dsl::with_field;
use num_bigint::BigUint;
use rand::Rng;
use std::borrow::Cow;
use std::fmt;

/// A polynomial over a [`PrimeField`]: the typed [`Poly<F>`] of the field's variant.
///
/// Coefficients are lowest degree first and normalised (no trailing zeros). Operations
/// on two polynomials or on an [`Element`] check that the fields agree
/// ([`Error::FieldMismatch`]). [`Polynomial::from`] a [`Poly<F>`] and
/// [`Polynomial::try_into_typed`] move between the two APIs without copying.
///
/// ```
/// use fermat::poly::Polynomial;
/// use fermat::PrimeField;
///
/// let f = PrimeField::p3();
/// let a = Polynomial::from_decimals(&f, &["1", "1"])?; // x + 1
/// let b = Polynomial::from_decimals(&f, &["3", "0", "1"])?; // x² + 3
/// let c = a.schoolbook_mul(&b)?;
/// assert_eq!(c.to_string(), "x^3 + x^2 + 3*x + 3");
/// let two = f.element(2u8)?;
/// assert_eq!(c.eval(&two)?, a.eval(&two)? * b.eval(&two)?);
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum Polynomial {
    Fp32(Poly<Fp32>),
    Fp64(Poly<Fp64>),
    Srgfn1(Poly<Srgfn<1>>),
    Srgfn2(Poly<Srgfn<2>>),
    Srgfn4(Poly<Srgfn<4>>),
    Srgfn8(Poly<Srgfn<8>>),
    Srgfn16(Poly<Srgfn<16>>),
    Srgfn32(Poly<Srgfn<32>>),
    Srgfn64(Poly<Srgfn<64>>),
}

/// Runs a generic expression on the typed polynomial inside a [`Polynomial`].
macro_rules! with_poly {
    ($poly:expr, $p:ident => $body:expr) => {
        match $poly {
            Polynomial::Fp32($p) => $body,
            Polynomial::Fp64($p) => $body,
            Polynomial::Srgfn1($p) => $body,
            Polynomial::Srgfn2($p) => $body,
            Polynomial::Srgfn4($p) => $body,
            Polynomial::Srgfn8($p) => $body,
            Polynomial::Srgfn16($p) => $body,
            Polynomial::Srgfn32($p) => $body,
            Polynomial::Srgfn64($p) => $body,
        }
    };
}

impl<F: FieldVariant> From<Poly<F>> for Polynomial {
    /// The typed polynomial, as a [`Polynomial`] (no copy).
    fn from(p: Poly<F>) -> Polynomial {
        F::wrap_poly(p)
    }
}

/// `other` as a polynomial over the field of `p`.
///
/// Errors: [`Error::FieldMismatch`] when the moduli differ.
fn aligned<'a, F: FieldVariant>(
    p: &Poly<F>,
    other: &'a Polynomial,
) -> Result<Cow<'a, Poly<F>>, Error> {
    if let Some(q) = F::as_poly(other) {
        return Ok(Cow::Borrowed(q));
    }
    let field = other.field();
    if field.modulus() != p.field().modulus() {
        return Err(Error::FieldMismatch {
            left: p.field().name(),
            right: field.name(),
        });
    }
    // The same modulus spelled as another variant (srgfn:31,27,-,1 is BabyBear).
    Ok(Cow::Owned(Poly::from_biguints(
        p.field(),
        &other.to_biguints(),
    )?))
}

/// The coefficient `c` of `_p` as an element of `field`.
fn element<F: FieldVariant>(field: &PrimeField, _p: &Poly<F>, c: F::Elem) -> Element {
    Element::from_parts(field.clone(), F::wrap(c))
}

/// Constructors.
impl Polynomial {
    /// The zero polynomial.
    ///
    /// ```
    /// let zero = fermat::poly::Polynomial::zero(&fermat::PrimeField::p2());
    /// assert!(zero.is_zero());
    /// assert_eq!(zero.to_string(), "0");
    /// ```
    pub fn zero(field: &PrimeField) -> Polynomial {
        with_field!(field.any(), f => Poly::zero(f).into())
    }

    /// The constant polynomial 1.
    ///
    /// ```
    /// let one = fermat::poly::Polynomial::one(&fermat::PrimeField::p2());
    /// assert_eq!(one.degree(), Some(0));
    /// ```
    pub fn one(field: &PrimeField) -> Polynomial {
        with_field!(field.any(), f => Poly::one(f).into())
    }

    /// The polynomial x.
    ///
    /// ```
    /// let x = fermat::poly::Polynomial::x(&fermat::PrimeField::babybear());
    /// assert_eq!(x.to_string(), "x");
    /// ```
    pub fn x(field: &PrimeField) -> Polynomial {
        with_field!(field.any(), f => Poly::x(f).into())
    }

    /// The polynomial Σ `coeffs[i]`·x^i over `field`.
    ///
    /// Errors: [`Error::FieldMismatch`] when a coefficient belongs to another field.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    /// use fermat::PrimeField;
    ///
    /// let f = PrimeField::goldilocks();
    /// let p = Polynomial::new(&f, &[f.one(), f.zero(), f.element(5u8)?])?;
    /// assert_eq!(p.to_string(), "5*x^2 + 1");
    /// assert!(Polynomial::new(&f, &[PrimeField::babybear().one()]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(field: &PrimeField, coeffs: &[Element]) -> Result<Polynomial, Error> {
        with_field!(field.any(), f => {
            let coeffs = coeffs
                .iter()
                .map(|c| c.value_in(field, f))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Poly::new(f, coeffs).into())
        })
    }

    /// The polynomial with the given canonical coefficients, lowest degree first.
    ///
    /// Errors: [`PolyIoError::OutOfRange`](super::PolyIoError::OutOfRange) (in
    /// [`Error::PolyIo`]), naming the first value not below p and its index.
    ///
    /// ```
    /// use fermat::num_bigint::BigUint;
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// let p = Polynomial::from_biguints(&f, &[BigUint::from(4u8), f.modulus() - 1u8])?;
    /// assert_eq!(p.to_biguints()[1], f.modulus() - 1u8);
    /// assert!(Polynomial::from_biguints(&f, &[f.modulus()]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_biguints(field: &PrimeField, values: &[BigUint]) -> Result<Polynomial, Error> {
        with_field!(field.any(), f => Ok(Poly::from_biguints(f, values)?.into()))
    }

    /// The polynomial whose coefficients are written in decimal, lowest degree first.
    ///
    /// Errors ([`Error::PolyIo`]): a coefficient that is not a non-negative decimal, or
    /// not below p, named with its index.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::babybear();
    /// assert_eq!(Polynomial::from_decimals(&f, &["7", "0", "0"])?.len(), 1);
    /// assert!(Polynomial::from_decimals(&f, &["7", "2013265921"]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_decimals<S: AsRef<str>>(
        field: &PrimeField,
        values: &[S],
    ) -> Result<Polynomial, Error> {
        with_field!(field.any(), f => Ok(Poly::from_decimals(f, values)?.into()))
    }

    /// A random polynomial with exactly `len` coefficients, the last one nonzero.
    ///
    /// ```
    /// use rand::SeedableRng;
    ///
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    /// let p = fermat::poly::Polynomial::random(&fermat::PrimeField::p4(), 6, &mut rng);
    /// assert_eq!(p.degree(), Some(5));
    /// ```
    pub fn random<R: Rng + ?Sized>(field: &PrimeField, len: usize, rng: &mut R) -> Polynomial {
        with_field!(field.any(), f => Poly::random(f, len, rng).into())
    }
}

/// The typed polynomial inside, and the coefficients.
impl Polynomial {
    /// The typed polynomial, if the field is of type `F`.
    ///
    /// ```
    /// use fermat::dsl::{Fp32, Fp64};
    /// use fermat::poly::Polynomial;
    ///
    /// let p = Polynomial::x(&fermat::PrimeField::babybear());
    /// assert!(p.as_typed::<Fp32>().is_some());
    /// assert!(p.as_typed::<Fp64>().is_none());
    /// ```
    pub fn as_typed<F: FieldVariant>(&self) -> Option<&Poly<F>> {
        F::as_poly(self)
    }

    /// The typed polynomial (no copy).
    ///
    /// Errors: [`Error::FieldMismatch`] when the field is not of type `F`.
    ///
    /// ```
    /// use fermat::dsl::{Fp64, Srgfn};
    /// use fermat::poly::{Poly, Polynomial};
    ///
    /// let p = Polynomial::x(&fermat::PrimeField::p3());
    /// let typed: Poly<Srgfn<8>> = p.clone().try_into_typed()?;
    /// assert_eq!(Polynomial::from(typed), p);
    /// assert!(p.try_into_typed::<Fp64>().is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn try_into_typed<F: FieldVariant>(self) -> Result<Poly<F>, Error> {
        if F::as_poly(&self).is_none() {
            let name = std::any::type_name::<F>();
            return Err(Error::FieldMismatch {
                left: self.field().name(),
                right: format!(
                    "the field type {}",
                    name.rsplit("::").next().unwrap_or(name)
                ),
            });
        }
        Ok(F::unwrap_poly(self).expect("the variant was just checked"))
    }

    /// The field of the coefficients.
    ///
    /// ```
    /// let f = fermat::PrimeField::p2();
    /// assert_eq!(fermat::poly::Polynomial::x(&f).field(), f);
    /// ```
    pub fn field(&self) -> PrimeField {
        with_poly!(self, p => PrimeField::from_field(p.field().clone()))
    }

    /// The coefficients, lowest degree first, without trailing zeros.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p2();
    /// let p = Polynomial::from_decimals(&f, &["0", "9"])?;
    /// assert_eq!(p.coeffs(), [f.zero(), f.element(9u8)?]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn coeffs(&self) -> Vec<Element> {
        let field = self.field();
        with_poly!(self, p => p.coeffs().iter().map(|&c| element(&field, p, c)).collect())
    }

    /// The coefficient of x^i (zero beyond the degree).
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p2();
    /// let p = Polynomial::from_decimals(&f, &["0", "9"])?;
    /// assert_eq!(p.coeff(1).to_string(), "9");
    /// assert!(p.coeff(5).is_zero());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn coeff(&self, i: usize) -> Element {
        let field = self.field();
        with_poly!(self, p => element(&field, p, p.coeff(i)))
    }

    /// The leading coefficient, `None` for the zero polynomial.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// assert_eq!(Polynomial::x(&f).leading(), Some(f.one()));
    /// assert_eq!(Polynomial::zero(&f).leading(), None);
    /// ```
    pub fn leading(&self) -> Option<Element> {
        let field = self.field();
        with_poly!(self, p => p.leading().map(|c| element(&field, p, c)))
    }

    /// The canonical values of the coefficients, lowest degree first.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// assert_eq!(Polynomial::x(&f).to_biguints(), [0u8.into(), 1u8.into()]);
    /// ```
    pub fn to_biguints(&self) -> Vec<BigUint> {
        with_poly!(self, p => p.to_biguints())
    }

    /// The number of coefficients: the degree plus one, 0 for the zero polynomial.
    ///
    /// ```
    /// assert_eq!(fermat::poly::Polynomial::x(&fermat::PrimeField::p1()).len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        with_poly!(self, p => p.len())
    }

    /// Whether this is the zero polynomial.
    ///
    /// ```
    /// assert!(!fermat::poly::Polynomial::x(&fermat::PrimeField::p1()).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        with_poly!(self, p => p.is_zero())
    }

    /// Whether there are no coefficients: the same as [`Polynomial::is_zero`].
    ///
    /// ```
    /// assert!(fermat::poly::Polynomial::zero(&fermat::PrimeField::p1()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.is_zero()
    }

    /// The degree, `None` for the zero polynomial.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// assert_eq!(Polynomial::one(&f).degree(), Some(0));
    /// assert_eq!(Polynomial::zero(&f).degree(), None);
    /// ```
    pub fn degree(&self) -> Option<usize> {
        with_poly!(self, p => p.degree())
    }
}

/// Arithmetic.
impl Polynomial {
    /// The value at `x`, by Horner's rule.
    ///
    /// Errors: [`Error::FieldMismatch`] when `x` belongs to another field.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::goldilocks();
    /// let p = Polynomial::from_decimals(&f, &["1", "2", "3"])?;
    /// assert_eq!(p.eval(&f.element(10u8)?)?.to_string(), "321");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn eval(&self, x: &Element) -> Result<Element, Error> {
        let field = self.field();
        with_poly!(self, p => Ok(element(&field, p, p.eval(&x.value_in(&field, p.field())?))))
    }

    /// self + other.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p2();
    /// let x = Polynomial::x(&f);
    /// assert_eq!(x.add(&Polynomial::one(&f))?.to_string(), "x + 1");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn add(&self, other: &Polynomial) -> Result<Polynomial, Error> {
        with_poly!(self, p => Ok(p.add(&*aligned(p, other)?)?.into()))
    }

    /// self − other.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p2();
    /// let x = Polynomial::x(&f);
    /// assert!(x.sub(&x)?.is_zero());
    /// assert!(x.sub(&Polynomial::x(&fermat::PrimeField::p3())).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn sub(&self, other: &Polynomial) -> Result<Polynomial, Error> {
        with_poly!(self, p => Ok(p.sub(&*aligned(p, other)?)?.into()))
    }

    /// −self.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::new("7")?;
    /// assert_eq!(Polynomial::x(&f).neg().to_string(), "6*x");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn neg(&self) -> Polynomial {
        with_poly!(self, p => p.neg().into())
    }

    /// c · self.
    ///
    /// Errors: [`Error::FieldMismatch`] when `c` belongs to another field.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::new("7")?;
    /// let p = Polynomial::from_decimals(&f, &["1", "2"])?;
    /// assert_eq!(p.scale(&f.element(4u8)?)?.to_string(), "x + 4");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn scale(&self, c: &Element) -> Result<Polynomial, Error> {
        let field = self.field();
        with_poly!(self, p => Ok(p.scale(&c.value_in(&field, p.field())?).into()))
    }

    /// The product self · other by the schoolbook method
    /// ([`schoolbook_mul`](super::schoolbook_mul)).
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// let x = Polynomial::x(&f);
    /// assert_eq!(x.schoolbook_mul(&x)?.to_string(), "x^2");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn schoolbook_mul(&self, other: &Polynomial) -> Result<Polynomial, Error> {
        with_poly!(self, p => Ok(schoolbook_mul(p, &*aligned(p, other)?)?.into()))
    }

    /// The polynomial mod x^n.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// let p = Polynomial::from_decimals(&f, &["1", "2", "3"])?;
    /// assert_eq!(p.truncate(2).to_string(), "2*x + 1");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn truncate(&self, n: usize) -> Polynomial {
        with_poly!(self, p => p.truncate(n).into())
    }

    /// The polynomial times x^n.
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// assert_eq!(Polynomial::one(&f).shift(3).to_string(), "x^3");
    /// ```
    pub fn shift(&self, n: usize) -> Polynomial {
        with_poly!(self, p => p.shift(n).into())
    }

    /// The reversal x^d·p(1/x), d the degree ([`Poly::reverse`]).
    ///
    /// ```
    /// use fermat::poly::Polynomial;
    ///
    /// let f = fermat::PrimeField::p1();
    /// let p = Polynomial::from_decimals(&f, &["1", "2", "3"])?;
    /// assert_eq!(p.reverse().to_string(), "x^2 + 2*x + 3");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn reverse(&self) -> Polynomial {
        with_poly!(self, p => p.reverse().into())
    }
}

impl PartialEq for Polynomial {
    /// Polynomials are equal when their fields have the same modulus and their
    /// coefficients are equal.
    fn eq(&self, other: &Polynomial) -> bool {
        with_poly!(self, p => aligned(p, other).is_ok_and(|q| *p == *q))
    }
}

impl Eq for Polynomial {}

impl fmt::Display for Polynomial {
    /// As [`Poly`] prints: highest degree first, `3*x^2 + x + 1`, zero as `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_poly!(self, p => fmt::Display::fmt(p, f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::Field;

    #[test]
    fn typed_and_dynamic_polynomials_convert_both_ways() {
        let f = Fp32::new(469762049).unwrap();
        let typed = Poly::from_u64s(&f, &[1, 2, 3]);
        let dynamic = Polynomial::from(typed.clone());
        assert!(matches!(dynamic, Polynomial::Fp32(_)));
        assert_eq!(dynamic.field(), PrimeField::new("469762049").unwrap());
        assert_eq!(dynamic.clone().try_into_typed::<Fp32>().unwrap(), typed);
        let Err(Error::FieldMismatch { left, right }) = dynamic.try_into_typed::<Srgfn<8>>() else {
            panic!("a 32-bit field is not an SRGFN")
        };
        assert_eq!(
            (left.as_str(), right.as_str()),
            ("469762049", "the field type Srgfn<8>")
        );
    }

    #[test]
    fn one_modulus_in_two_representations_is_one_field() {
        let word = PrimeField::babybear();
        let digits = PrimeField::new("srgfn:31,27,-,1").unwrap();
        let a = Polynomial::from_decimals(&word, &["1", "2"]).unwrap();
        let b = Polynomial::from_decimals(&digits, &["1", "2"]).unwrap();
        assert!(matches!(b, Polynomial::Srgfn1(_)));
        assert_eq!(a, b);
        assert_eq!(a.sub(&b).unwrap(), Polynomial::zero(&word));
        assert_eq!(
            b.eval(&word.element(3u8).unwrap()).unwrap().to_string(),
            "7"
        );
        assert_eq!(a.schoolbook_mul(&b).unwrap().to_string(), "4*x^2 + 4*x + 1");
    }

    #[test]
    fn elements_of_other_fields_are_refused() {
        let p = Polynomial::x(&PrimeField::p2());
        let other = PrimeField::p3().one();
        assert!(matches!(p.eval(&other), Err(Error::FieldMismatch { .. })));
        assert!(matches!(p.scale(&other), Err(Error::FieldMismatch { .. })));
        assert_ne!(p, Polynomial::x(&PrimeField::p3()));
    }

    #[test]
    fn coefficients_are_elements_of_the_field() {
        let f = PrimeField::p3();
        let p = Polynomial::from_decimals(&f, &["5", "0", "7"]).unwrap();
        let coeffs = p.coeffs();
        assert_eq!(coeffs.len(), 3);
        assert!(coeffs.iter().all(|c| c.field() == &f));
        assert_eq!(Polynomial::new(&f, &coeffs).unwrap(), p);
        let typed = f.typed::<Srgfn<8>>().unwrap();
        assert_eq!(
            p.leading().unwrap().to_biguint(),
            typed.to_biguint(&typed.from_u64(7))
        );
    }
}
