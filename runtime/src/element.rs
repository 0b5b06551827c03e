//! Prime fields and their elements without knowing the representation: [`PrimeField`]
//! names a field chosen at run time, [`Element`] is a value of one.
//!
//! The arithmetic is the field's own (Montgomery residues for word primes, base-r digits
//! for SRGFNs): an [`Element`] holds the typed element of its field's variant, so that no
//! operation goes through big integers. Big integers appear only at the boundary
//! ([`PrimeField::element`], [`Element::to_biguint`], the decimal text).
//!
//! ```
//! use fermat::{Element, PrimeField};
//!
//! let p3 = PrimeField::p3();
//! let a = p3.element(12345u32)?;
//! let b = p3.parse_element("678")?;
//! assert_eq!((&a * &b).to_string(), (12345u64 * 678).to_string());
//! assert_eq!(&a / &a, p3.one());
//! # Ok::<(), fermat::Error>(())
//! ```

use crate::error::Error;
use crate::host::HostField;
use crate::poly::{Poly, Polynomial};
use fermat_dsl::field::{
    AnyField, Field, FieldSpec, Fp32, Fp32Elem, Fp64, Fp64Elem, Srgfn, SrgfnElem,
};
use fermat_dsl::with_field;
use num_bigint::BigUint;
use rand::Rng;
use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

/// The pieces of [`FieldVariant`] that name the crate's internal representations.
pub(crate) mod sealed {
    use super::*;

    /// An element of one of the [`AnyField`] variants: the variant's own element type.
    ///
    /// Elements are values that arithmetic makes by the million: boxing the wide SRGFN
    /// variants would allocate for each one.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[allow(missing_docs, clippy::large_enum_variant)]
    pub enum Repr {
        Fp32(Fp32Elem),
        Fp64(Fp64Elem),
        Srgfn1(SrgfnElem<1>),
        Srgfn2(SrgfnElem<2>),
        Srgfn4(SrgfnElem<4>),
        Srgfn8(SrgfnElem<8>),
        Srgfn16(SrgfnElem<16>),
        Srgfn32(SrgfnElem<32>),
        Srgfn64(SrgfnElem<64>),
    }

    /// Conversions between a field type's values and the run-time enums.
    pub trait Sealed: Field {
        /// The element as a [`Repr`].
        fn wrap(e: Self::Elem) -> Repr;
        /// The element, if `r` is of this field type.
        fn unwrap(r: &Repr) -> Option<Self::Elem>;
        /// The polynomial as a [`Polynomial`].
        fn wrap_poly(p: Poly<Self>) -> Polynomial;
        /// The polynomial, if `p` is over this field type.
        fn unwrap_poly(p: Polynomial) -> Option<Poly<Self>>;
        /// The polynomial, if `p` is over this field type.
        fn as_poly(p: &Polynomial) -> Option<&Poly<Self>>;
    }
}

use sealed::Repr;

/// A field type that is one variant of [`AnyField`]: [`Fp32`], [`Fp64`] and
/// [`Srgfn<K>`] for K = 1, 2, 4, …, 64. It links the typed API ([`Poly<F>`]) and the
/// dynamic one ([`PrimeField`], [`Element`], [`Polynomial`]).
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::element::FieldVariant;
/// use fermat::PrimeField;
///
/// let babybear = PrimeField::babybear();
/// let field: &Fp32 = Fp32::from_any(babybear.any()).expect("babybear is a 32-bit prime");
/// assert_eq!(field.p(), 2013265921);
/// ```
pub trait FieldVariant: HostField + sealed::Sealed {
    /// The field as an [`AnyField`].
    fn into_any(self) -> AnyField;
    /// The field inside `any`, if it is of this type.
    fn from_any(any: &AnyField) -> Option<&Self>;
}

macro_rules! field_variants {
    ($($ty:ty => $variant:ident),* $(,)?) => {$(
        impl sealed::Sealed for $ty {
            fn wrap(e: Self::Elem) -> Repr {
                Repr::$variant(e)
            }
            fn unwrap(r: &Repr) -> Option<Self::Elem> {
                match r {
                    Repr::$variant(e) => Some(*e),
                    _ => None,
                }
            }
            fn wrap_poly(p: Poly<Self>) -> Polynomial {
                Polynomial::$variant(p)
            }
            fn unwrap_poly(p: Polynomial) -> Option<Poly<Self>> {
                match p {
                    Polynomial::$variant(p) => Some(p),
                    _ => None,
                }
            }
            fn as_poly(p: &Polynomial) -> Option<&Poly<Self>> {
                match p {
                    Polynomial::$variant(p) => Some(p),
                    _ => None,
                }
            }
        }

        impl FieldVariant for $ty {
            fn into_any(self) -> AnyField {
                AnyField::$variant(self)
            }
            fn from_any(any: &AnyField) -> Option<&Self> {
                match any {
                    AnyField::$variant(f) => Some(f),
                    _ => None,
                }
            }
        }
    )*};
}

field_variants!(
    Fp32 => Fp32,
    Fp64 => Fp64,
    Srgfn<1> => Srgfn1,
    Srgfn<2> => Srgfn2,
    Srgfn<4> => Srgfn4,
    Srgfn<8> => Srgfn8,
    Srgfn<16> => Srgfn16,
    Srgfn<32> => Srgfn32,
    Srgfn<64> => Srgfn64,
);

struct Inner {
    any: AnyField,
    modulus: BigUint,
}

/// A prime field chosen at run time: a cheap-to-clone handle on an [`AnyField`].
///
/// Two handles are equal when their moduli are. The catalogue fields have infallible
/// constructors ([`PrimeField::p3`], [`PrimeField::goldilocks`], …) that share one handle
/// per field; any other field is read from its specification.
///
/// ```
/// use fermat::PrimeField;
///
/// let p3 = PrimeField::new("srgfn:63,34,+,8")?;
/// assert_eq!(p3, PrimeField::p3());
/// assert_eq!(p3.to_string(), "P3");
/// let f: PrimeField = "469762049".parse()?;
/// assert_eq!(f.modulus(), 469762049u32.into());
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone)]
pub struct PrimeField(Arc<Inner>);

/// Sets up a generic call on the concrete field of a [`PrimeField`].
macro_rules! on_field {
    ($field:expr, $f:ident => $body:expr) => {
        with_field!(&$field.0.any, $f => $body)
    };
}

/// A catalogue field, built once per process.
fn catalogue(index: usize, name: &str) -> PrimeField {
    static FIELDS: [OnceLock<PrimeField>; 8] = [const { OnceLock::new() }; 8];
    FIELDS[index]
        .get_or_init(|| PrimeField::new(name).expect("the catalogue fields are prime"))
        .clone()
}

/// The named constructors of the catalogue fields, each with its example.
macro_rules! catalogue_fields {
    ($($(#[$doc:meta])* $method:ident => $index:literal, $name:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// ```
        #[doc = concat!("let f = fermat::PrimeField::", stringify!($method), "();")]
        #[doc = concat!("assert_eq!(f, fermat::PrimeField::new(\"", $name, "\")?);")]
        #[doc = concat!("assert_eq!(f.to_string(), \"", $name, "\");")]
        /// # Ok::<(), fermat::Error>(())
        /// ```
        pub fn $method() -> PrimeField {
            catalogue($index, $name)
        }
    )*};
}

impl PrimeField {
    /// The field named by `spec`: a catalogue name (`P1`..`P6`, `goldilocks`,
    /// `babybear`, `p469762049`), a decimal word prime (`469762049`) or
    /// `srgfn:w,u,sign,k`.
    ///
    /// Errors: [`Error::Field`] when the spec cannot be read or names no prime field.
    ///
    /// ```
    /// use fermat::PrimeField;
    ///
    /// assert_eq!(PrimeField::new("babybear")?.modulus(), 2013265921u32.into());
    /// assert!(PrimeField::new("469762051").is_err()); // not prime
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(spec: &str) -> Result<PrimeField, Error> {
        Ok(PrimeField::from(AnyField::from_spec(spec)?))
    }

    /// The handle of a field built with the typed API.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::PrimeField;
    ///
    /// let f = PrimeField::from_field(Fp32::new(469762049)?);
    /// assert_eq!(f.name(), "469762049");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_field<F: FieldVariant>(field: F) -> PrimeField {
        PrimeField::from(field.into_any())
    }

    catalogue_fields! {
        /// P1 = (2^63 + 2^53)^2 + 1 (2017 paper, Table 1).
        p1 => 0, "P1";
        /// P2 = (2^64 − 2^50)^4 + 1.
        p2 => 1, "P2";
        /// P3 = (2^63 + 2^34)^8 + 1.
        p3 => 2, "P3";
        /// P4 = (2^62 + 2^36)^16 + 1.
        p4 => 3, "P4";
        /// P5 = (2^62 + 2^56)^32 + 1.
        p5 => 4, "P5";
        /// P6 = (2^63 − 2^40)^64 + 1.
        p6 => 5, "P6";
        /// BabyBear, p = 15·2^27 + 1.
        babybear => 6, "babybear";
        /// Goldilocks, p = 2^64 − 2^32 + 1.
        goldilocks => 7, "goldilocks";
    }

    /// The field's name: the catalogue name where there is one, else its specification.
    ///
    /// ```
    /// assert_eq!(fermat::PrimeField::new("srgfn:62,36,+,16")?.name(), "P4");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn name(&self) -> String {
        self.0.any.name()
    }

    /// The modulus p.
    ///
    /// ```
    /// assert_eq!(fermat::PrimeField::new("7")?.modulus(), 7u32.into());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn modulus(&self) -> BigUint {
        self.0.modulus.clone()
    }

    /// The field's specification, which [`PrimeField::new`] reads back to this field.
    ///
    /// ```
    /// assert_eq!(fermat::PrimeField::p3().spec().to_string(), "P3");
    /// ```
    pub fn spec(&self) -> FieldSpec {
        on_field!(self, f => f.spec())
    }

    /// The field itself, for the typed API.
    ///
    /// ```
    /// use fermat::AnyField;
    ///
    /// assert!(matches!(fermat::PrimeField::p3().any(), AnyField::Srgfn8(_)));
    /// ```
    pub fn any(&self) -> &AnyField {
        &self.0.any
    }

    /// The typed field inside, if it is of type `F`.
    ///
    /// ```
    /// use fermat::dsl::{Fp64, Srgfn};
    ///
    /// let p3 = fermat::PrimeField::p3();
    /// assert!(p3.typed::<Srgfn<8>>().is_some());
    /// assert!(p3.typed::<Fp64>().is_none());
    /// ```
    pub fn typed<F: FieldVariant>(&self) -> Option<&F> {
        F::from_any(&self.0.any)
    }

    /// The element with canonical value `value`.
    ///
    /// Errors: [`Error::Field`] (`FieldError::OutOfRange`, naming the value and p) when
    /// `value ≥ p`.
    ///
    /// ```
    /// let f = fermat::PrimeField::babybear();
    /// assert_eq!(f.element(5u8)?.to_string(), "5");
    /// assert!(f.element(2013265921u32).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn element(&self, value: impl Into<BigUint>) -> Result<Element, Error> {
        let value = value.into();
        let repr = on_field!(self, f => wrap_value(f, &value)?);
        Ok(Element::from_parts(self.clone(), repr))
    }

    /// The element written in decimal in `text` (surrounding whitespace is ignored).
    ///
    /// Errors: [`Error::ParseElement`] when `text` is not a non-negative decimal integer,
    /// [`Error::Field`] (`FieldError::OutOfRange`) when it is not below p.
    ///
    /// ```
    /// let f = fermat::PrimeField::goldilocks();
    /// assert_eq!(f.parse_element(" 42 ")?, f.element(42u8)?);
    /// assert!(matches!(f.parse_element("-1"), Err(fermat::Error::ParseElement { .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn parse_element(&self, text: &str) -> Result<Element, Error> {
        let digits = text.trim();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::ParseElement {
                text: text.to_string(),
                field: self.name(),
                why: "expected a non-negative decimal integer below p",
            });
        }
        let value: BigUint = digits.parse().expect("ASCII digits are a decimal integer");
        self.element(value)
    }

    /// The additive identity.
    ///
    /// ```
    /// assert!(fermat::PrimeField::p2().zero().is_zero());
    /// ```
    pub fn zero(&self) -> Element {
        Element::from_parts(self.clone(), on_field!(self, f => wrap(f, f.zero())))
    }

    /// The multiplicative identity.
    ///
    /// ```
    /// assert_eq!(fermat::PrimeField::p2().one().to_string(), "1");
    /// ```
    pub fn one(&self) -> Element {
        Element::from_parts(self.clone(), on_field!(self, f => wrap(f, f.one())))
    }

    /// A uniformly random element.
    ///
    /// ```
    /// use rand::SeedableRng;
    ///
    /// let f = fermat::PrimeField::p1();
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    /// assert!(f.random(&mut rng).to_biguint() < f.modulus());
    /// ```
    pub fn random<R: Rng + ?Sized>(&self, rng: &mut R) -> Element {
        Element::from_parts(self.clone(), on_field!(self, f => wrap(f, f.random(rng))))
    }
}

fn wrap<F: FieldVariant>(_field: &F, e: F::Elem) -> Repr {
    F::wrap(e)
}

fn wrap_value<F: FieldVariant>(field: &F, value: &BigUint) -> Result<Repr, Error> {
    Ok(F::wrap(field.from_biguint(value)?))
}

impl From<AnyField> for PrimeField {
    /// The handle of a field chosen at run time.
    fn from(any: AnyField) -> PrimeField {
        let modulus = any.modulus();
        PrimeField(Arc::new(Inner { any, modulus }))
    }
}

impl FromStr for PrimeField {
    type Err = Error;
    /// [`PrimeField::new`].
    fn from_str(spec: &str) -> Result<PrimeField, Error> {
        PrimeField::new(spec)
    }
}

impl PartialEq for PrimeField {
    /// Fields are equal when their moduli are.
    fn eq(&self, other: &PrimeField) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.modulus == other.0.modulus
    }
}

impl Eq for PrimeField {}

impl Hash for PrimeField {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.modulus.hash(state);
    }
}

impl fmt::Display for PrimeField {
    /// The field's name ([`PrimeField::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for PrimeField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrimeField({})", self.name())
    }
}

/// An element of a [`PrimeField`], holding its field.
///
/// Arithmetic is exact and runs in the field's own representation. The checked forms
/// ([`Element::try_add`], [`Element::try_sub`], [`Element::try_mul`],
/// [`Element::checked_div`], [`Element::inv`]) return typed errors; the operators
/// `+ - * /` and their `*Assign` forms take owned or borrowed operands.
///
/// # Panics
///
/// The operators panic when the two operands belong to different fields, and `/` when
/// the divisor is zero: use the checked forms for operands that may not match.
///
/// ```
/// let f = fermat::PrimeField::new("469762049")?;
/// let a = f.element(3u8)?;
/// let b = f.element(469762048u32)?; // −1
/// assert_eq!(&a + &b, f.element(2u8)?);
/// assert_eq!(-&a * b, a);
/// assert_eq!(a.pow(469762048), f.one()); // Fermat's little theorem
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone)]
pub struct Element {
    field: PrimeField,
    value: Repr,
}

/// The three operations that take two elements of one field.
#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
}

fn apply<F: FieldVariant>(field: &F, op: Op, a: &Repr, b: &Repr) -> Option<Repr> {
    let (a, b) = (F::unwrap(a)?, F::unwrap(b)?);
    Some(F::wrap(match op {
        Op::Add => field.add(&a, &b),
        Op::Sub => field.sub(&a, &b),
        Op::Mul => field.mul(&a, &b),
    }))
}

fn typed<F: FieldVariant>(_field: &F, value: &Repr) -> F::Elem {
    F::unwrap(value).expect("an element's value is of its field's type")
}

impl Element {
    pub(crate) fn from_parts(field: PrimeField, value: Repr) -> Element {
        Element { field, value }
    }

    /// The element as an element of `field`, given as the typed field of `target`.
    ///
    /// Errors: [`Error::FieldMismatch`] when the element's field is not `target`.
    pub(crate) fn value_in<F: FieldVariant>(
        &self,
        target: &PrimeField,
        field: &F,
    ) -> Result<F::Elem, Error> {
        if self.field != *target {
            return Err(Error::FieldMismatch {
                left: target.name(),
                right: self.field.name(),
            });
        }
        match F::unwrap(&self.value) {
            Some(e) => Ok(e),
            // The same modulus spelled as another variant (srgfn:31,27,-,1 is BabyBear).
            None => Ok(field.from_biguint(&self.to_biguint())?),
        }
    }

    /// The field of the element.
    ///
    /// ```
    /// let f = fermat::PrimeField::p4();
    /// assert_eq!(f.one().field(), &f);
    /// ```
    pub fn field(&self) -> &PrimeField {
        &self.field
    }

    /// The canonical value, in [0, p).
    ///
    /// ```
    /// let f = fermat::PrimeField::p2();
    /// assert_eq!((-f.one()).to_biguint(), f.modulus() - 1u32);
    /// ```
    pub fn to_biguint(&self) -> BigUint {
        on_field!(self.field, f => f.to_biguint(&typed(f, &self.value)))
    }

    /// Whether this is zero.
    ///
    /// ```
    /// let f = fermat::PrimeField::p1();
    /// assert!((f.one() - f.one()).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        on_field!(self.field, f => typed(f, &self.value) == f.zero())
    }

    fn check_field(&self, rhs: &Element) -> Result<(), Error> {
        if self.field == rhs.field {
            Ok(())
        } else {
            Err(Error::FieldMismatch {
                left: self.field.name(),
                right: rhs.field.name(),
            })
        }
    }

    fn combine(&self, rhs: &Element, op: Op) -> Result<Element, Error> {
        self.check_field(rhs)?;
        let value = match on_field!(self.field, f => apply(f, op, &self.value, &rhs.value)) {
            Some(value) => value,
            None => {
                let rhs = self.field.element(rhs.to_biguint())?;
                on_field!(self.field, f => apply(f, op, &self.value, &rhs.value))
                    .expect("both values are now of the field's type")
            }
        };
        Ok(Element::from_parts(self.field.clone(), value))
    }

    /// self + rhs.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// use fermat::{Error, PrimeField};
    ///
    /// let a = PrimeField::p1().one();
    /// assert_eq!(a.try_add(&a)?.to_string(), "2");
    /// let b = PrimeField::p2().one();
    /// assert!(matches!(a.try_add(&b), Err(Error::FieldMismatch { .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn try_add(&self, rhs: &Element) -> Result<Element, Error> {
        self.combine(rhs, Op::Add)
    }

    /// self − rhs.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// let f = fermat::PrimeField::babybear();
    /// assert_eq!(f.zero().try_sub(&f.one())?.to_string(), "2013265920");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn try_sub(&self, rhs: &Element) -> Result<Element, Error> {
        self.combine(rhs, Op::Sub)
    }

    /// self · rhs.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ.
    ///
    /// ```
    /// let f = fermat::PrimeField::goldilocks();
    /// let a = f.element(1u64 << 32)?;
    /// assert_eq!(a.try_mul(&a)?.to_string(), "4294967295"); // 2^64 ≡ 2^32 − 1
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn try_mul(&self, rhs: &Element) -> Result<Element, Error> {
        self.combine(rhs, Op::Mul)
    }

    /// self / rhs.
    ///
    /// Errors: [`Error::FieldMismatch`] when the fields differ, [`Error::DivisionByZero`]
    /// when `rhs` is zero.
    ///
    /// ```
    /// use fermat::Error;
    ///
    /// let f = fermat::PrimeField::p3();
    /// let six = f.element(6u8)?;
    /// assert_eq!(six.checked_div(&f.element(3u8)?)?.to_string(), "2");
    /// assert!(matches!(six.checked_div(&f.zero()), Err(Error::DivisionByZero { .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn checked_div(&self, rhs: &Element) -> Result<Element, Error> {
        self.check_field(rhs)?;
        self.try_mul(&rhs.inv()?)
    }

    /// The multiplicative inverse.
    ///
    /// Errors: [`Error::DivisionByZero`] for zero.
    ///
    /// ```
    /// let f = fermat::PrimeField::p2();
    /// let a = f.element(12345u32)?;
    /// assert_eq!(&a * a.inv()?, f.one());
    /// assert!(f.zero().inv().is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn inv(&self) -> Result<Element, Error> {
        if self.is_zero() {
            return Err(Error::DivisionByZero {
                field: self.field.name(),
            });
        }
        let value = on_field!(self.field, f => wrap(f, f.inv(&typed(f, &self.value))?));
        Ok(Element::from_parts(self.field.clone(), value))
    }

    /// self^e (0^0 = 1).
    ///
    /// ```
    /// let f = fermat::PrimeField::new("469762049")?;
    /// assert_eq!(f.element(3u8)?.pow(4).to_string(), "81");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn pow(&self, e: u64) -> Element {
        let value = on_field!(self.field, f => wrap(f, f.pow_u64(&typed(f, &self.value), e)));
        Element::from_parts(self.field.clone(), value)
    }

    /// −self, the form the `Neg` operator calls.
    fn negated(&self) -> Element {
        let value = on_field!(self.field, f => wrap(f, f.neg(&typed(f, &self.value))));
        Element::from_parts(self.field.clone(), value)
    }
}

impl PartialEq for Element {
    /// Elements are equal when their fields and their canonical values are.
    fn eq(&self, other: &Element) -> bool {
        self.field == other.field
            && (self.value == other.value
                || (std::mem::discriminant(&self.value) != std::mem::discriminant(&other.value)
                    && self.to_biguint() == other.to_biguint()))
    }
}

impl Eq for Element {}

impl Hash for Element {
    /// Hashes the canonical value, as equality compares it.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.to_biguint().hash(state);
    }
}

impl fmt::Display for Element {
    /// The canonical value in decimal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_biguint(), f)
    }
}

impl fmt::Debug for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (in {})", self.to_biguint(), self.field.name())
    }
}

fn or_panic(result: Result<Element, Error>) -> Element {
    result.unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! operator {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident, $checked:ident) => {
        #[doc = concat!("[`Element::", stringify!($checked), "`], on owned or borrowed operands.")]
        ///
        /// # Panics
        ///
        /// When the fields differ (and for `/`, when the divisor is zero).
        impl<R: Borrow<Element>> $Op<R> for &Element {
            type Output = Element;
            fn $op(self, rhs: R) -> Element {
                or_panic(self.$checked(rhs.borrow()))
            }
        }

        #[doc = concat!("[`Element::", stringify!($checked), "`], on owned or borrowed operands.")]
        ///
        /// # Panics
        ///
        /// When the fields differ (and for `/`, when the divisor is zero).
        impl<R: Borrow<Element>> $Op<R> for Element {
            type Output = Element;
            fn $op(self, rhs: R) -> Element {
                or_panic(self.$checked(rhs.borrow()))
            }
        }

        #[doc = concat!("[`Element::", stringify!($checked), "`] in place.")]
        ///
        /// # Panics
        ///
        /// When the fields differ (and for `/`, when the divisor is zero).
        impl<R: Borrow<Element>> $OpAssign<R> for Element {
            fn $op_assign(&mut self, rhs: R) {
                *self = or_panic(self.$checked(rhs.borrow()));
            }
        }
    };
}

operator!(Add, add, AddAssign, add_assign, try_add);
operator!(Sub, sub, SubAssign, sub_assign, try_sub);
operator!(Mul, mul, MulAssign, mul_assign, try_mul);
operator!(Div, div, DivAssign, div_assign, checked_div);

impl Neg for &Element {
    type Output = Element;
    fn neg(self) -> Element {
        self.negated()
    }
}

impl Neg for Element {
    type Output = Element;
    fn neg(self) -> Element {
        self.negated()
    }
}

#[cfg(test)]
mod tests;
