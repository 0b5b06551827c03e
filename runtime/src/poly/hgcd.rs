//! The half-gcd: the gcd in O(M(n) log n) by recursive halving (Thull and Yap; Yap,
//! Fundamental Problems of Algorithmic Algebra, Lecture VIII). hgcd(a, b) is the 2×2
//! polynomial matrix taking (a, b) to the pair of consecutive remainders of their
//! Euclidean sequence that straddles degree ⌈deg a / 2⌉; it is found from the top halves of
//! the coefficients alone, twice, with one division step between. Every matrix is a
//! product of the steps' [[0, 1], [1, −q]], of determinant ±1, so applying it keeps the
//! gcd whatever the degrees: the outer loop is right by construction and fast by them.

use super::euclid::{gcd_euclid, resultant_euclid, xgcd_euclid, Bezout};
use super::host::Poly;
use super::ring::PolyRing;
use super::schoolbook::schoolbook_mul;
use crate::error::Error;
use crate::host::HostField;

/// Below this degree the half-gcd takes Euclid's steps one by one: each costs a division
/// of a quotient of one or two coefficients, cheaper than the products of a recursion.
pub(super) const HGCD_BASE: usize = 128;

/// Quotients of at most this many coefficients multiply by the schoolbook product.
const SHORT_QUOTIENT: usize = 8;

/// A 2×2 matrix of polynomials, row-major.
#[derive(Clone, Debug)]
struct Matrix<F: HostField>([Poly<F>; 4]);

impl<F: HostField> Matrix<F> {
    fn identity(field: &F) -> Self {
        Matrix([
            Poly::one(field),
            Poly::zero(field),
            Poly::zero(field),
            Poly::one(field),
        ])
    }

    /// [[0, 1], [1, −q]]·self: the step (c, d) → (d, c − q·d) after self, two products.
    fn then_step(self, ring: &PolyRing<F>, q: &Poly<F>) -> Result<Self, Error> {
        let [a, b, c, d] = self.0;
        // A quotient of a step is almost always of one or two coefficients: its products
        // are shorter than any plan's.
        let times_q = |p: &Poly<F>| {
            if q.len() <= SHORT_QUOTIENT {
                schoolbook_mul(q, p)
            } else {
                ring.mul(q, p)
            }
        };
        let (qc, qd) = (times_q(&c)?, times_q(&d)?);
        Ok(Matrix([c.clone(), d.clone(), a.sub(&qc)?, b.sub(&qd)?]))
    }

    /// self·other.
    fn mul(&self, ring: &PolyRing<F>, other: &Self) -> Result<Self, Error> {
        let [a, b, c, d] = &self.0;
        let [e, f, g, h] = &other.0;
        let dot = |x: &Poly<F>, y: &Poly<F>, z: &Poly<F>, w: &Poly<F>| -> Result<Poly<F>, Error> {
            ring.mul(x, y)?.add(&ring.mul(z, w)?)
        };
        Ok(Matrix([
            dot(a, e, b, g)?,
            dot(a, f, b, h)?,
            dot(c, e, d, g)?,
            dot(c, f, d, h)?,
        ]))
    }

    /// self·(x, y).
    fn apply(
        &self,
        ring: &PolyRing<F>,
        x: &Poly<F>,
        y: &Poly<F>,
    ) -> Result<(Poly<F>, Poly<F>), Error> {
        let [a, b, c, d] = &self.0;
        Ok((
            ring.mul(a, x)?.add(&ring.mul(b, y)?)?,
            ring.mul(c, x)?.add(&ring.mul(d, y)?)?,
        ))
    }
}

/// p div x^k: the coefficients from k up.
fn high<F: HostField>(p: &Poly<F>, k: usize) -> Poly<F> {
    Poly::new(p.field(), p.coeffs().get(k..).unwrap_or(&[]).to_vec())
}

impl<F: HostField> PolyRing<F> {
    /// The monic greatest common divisor of a and b (gcd(0, 0) = 0): Euclid's algorithm
    /// on short operands, the half-gcd on long ones, its products on the ring's backend
    /// (on a GPU, each product and division is one call to the device, host polynomials
    /// in and out).
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &[1, 0, 1]))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &[2, 3]))?;
    /// assert_eq!(ring.gcd(&a, &b)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        let (mut a, mut b) = if a.len() >= b.len() {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        };
        while b.degree().is_some_and(|d| d >= HGCD_BASE) {
            let m = self.hgcd(&a, &b)?;
            (a, b) = m.apply(self, &a, &b)?;
            if !b.is_zero() {
                let (_, r) = self.divrem(&a, &b)?;
                (a, b) = (b, r);
            }
        }
        gcd_euclid(&a, &b)
    }

    /// The extended gcd (g, s, t), s·a + t·b = g, with FLINT's conventions and cofactor
    /// bounds: those of [`xgcd_euclid`], which it equals. Long operands take the
    /// half-gcd, its matrices multiplied into the cofactors of the remainders Euclid's
    /// algorithm finishes with: every matrix is a product of the sequence's own steps, so
    /// the cofactors are the sequence's, O(M(n) log n) instead of quadratic.
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[1, 0, 1]), Poly::from_u64s(&f, &[0, 1]));
    /// let (g, s, t) = ring.xgcd(&a, &b)?;
    /// assert_eq!(ring.mul(&s, &a)?.add(&ring.mul(&t, &b)?)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn xgcd(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Bezout<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        let swapped = a.len() < b.len();
        let (mut x, mut y) = if swapped {
            (b.clone(), a.clone())
        } else {
            (a.clone(), b.clone())
        };
        // (x, y) = total·(a, b) (or ·(b, a) when swapped), as in `gcd`'s loop.
        let mut total: Option<Matrix<F>> = None;
        while y.degree().is_some_and(|d| d >= HGCD_BASE) {
            let m = self.hgcd(&x, &y)?;
            (x, y) = m.apply(self, &x, &y)?;
            let mut step = match &total {
                Some(t) => m.mul(self, t)?,
                None => m,
            };
            if !y.is_zero() {
                let (q, r) = self.divrem(&x, &y)?;
                (x, y) = (y, r);
                step = step.then_step(self, &q)?;
            }
            total = Some(step);
        }
        let Some(total) = total else {
            return xgcd_euclid(a, b);
        };
        let (g, s, t) = xgcd_euclid(&x, &y)?;
        // g = s·x + t·y = (s·m00 + t·m10)·a' + (s·m01 + t·m11)·b'.
        let [m00, m01, m10, m11] = &total.0;
        let dot = |u: &Poly<F>, v: &Poly<F>| -> Result<Poly<F>, Error> {
            self.mul(&s, u)?.add(&self.mul(&t, v)?)
        };
        let (s, t) = (dot(m00, m10)?, dot(m01, m11)?);
        Ok(if swapped { (g, t, s) } else { (g, s, t) })
    }

    /// The resultant of a and b ([`resultant_euclid`], whose Euclidean algorithm it runs).
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[469762047, 1]), Poly::from_u64s(&f, &[1, 0, 1]));
    /// assert_eq!(ring.resultant(&a, &b)?, f.from_u64(5)); // b(2)
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn resultant(&self, a: &Poly<F>, b: &Poly<F>) -> Result<F::Elem, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        resultant_euclid(a, b)
    }

    /// The half-gcd matrix of (a, b), deg a > deg b: (c, d) = M·(a, b) are consecutive
    /// remainders with deg c ≥ ⌈deg a / 2⌉ > deg d.
    fn hgcd(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Matrix<F>, Error> {
        let n = a.len() - 1;
        let m = n.div_ceil(2);
        if b.degree().is_none_or(|d| d < m) {
            return Ok(Matrix::identity(&self.field));
        }
        if n < HGCD_BASE {
            return self.half_euclid(a, b, m);
        }
        // The top halves' matrix is the whole's for the first half of the sequence.
        let r = self.hgcd(&high(a, m), &high(b, m))?;
        let (c, d) = r.apply(self, a, b)?;
        if d.degree().is_none_or(|dd| dd < m) {
            return Ok(r);
        }
        let (q, e) = self.divrem(&c, &d)?;
        let qr = r.then_step(self, &q)?;
        if e.degree().is_none_or(|de| de < m) {
            return Ok(qr);
        }
        let l = d.len() - 1;
        let k = (2 * m).saturating_sub(l);
        let s = self.hgcd(&high(&d, k), &high(&e, k))?;
        s.mul(self, &qr)
    }

    /// Euclid's steps from (a, b) while the second remainder's degree is at least m, as one
    /// matrix.
    fn half_euclid(&self, a: &Poly<F>, b: &Poly<F>, m: usize) -> Result<Matrix<F>, Error> {
        let mut matrix = Matrix::identity(&self.field);
        let (mut c, mut d) = (a.clone(), b.clone());
        while d.degree().is_some_and(|dd| dd >= m) {
            let (q, e) = super::basecase::divrem_basecase(&c, &d)?;
            matrix = matrix.then_step(self, &q)?;
            (c, d) = (d, e);
        }
        Ok(matrix)
    }
}
