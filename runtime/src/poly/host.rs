//! Polynomials on the host.

use fermat_dsl::field::Field;

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
    /// The polynomial Σ coeffs[i]·x^i (trailing zeros dropped).
    pub fn new(field: &F, mut coeffs: Vec<F::Elem>) -> Self {
        let zero = field.zero();
        while coeffs.last() == Some(&zero) {
            coeffs.pop();
        }
        Poly {
            field: field.clone(),
            coeffs,
        }
    }

    /// The zero polynomial.
    pub fn zero(field: &F) -> Self {
        Poly {
            field: field.clone(),
            coeffs: Vec::new(),
        }
    }

    /// The field of the coefficients.
    pub fn field(&self) -> &F {
        &self.field
    }

    /// The coefficients, lowest degree first, without trailing zeros.
    pub fn coeffs(&self) -> &[F::Elem] {
        &self.coeffs
    }

    /// The coefficients, lowest degree first, without trailing zeros.
    pub fn into_coeffs(self) -> Vec<F::Elem> {
        self.coeffs
    }

    /// The number of coefficients: the degree plus one, 0 for the zero polynomial.
    pub fn len(&self) -> usize {
        self.coeffs.len()
    }

    /// Whether this is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.coeffs.is_empty()
    }

    /// The degree, `None` for the zero polynomial.
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
