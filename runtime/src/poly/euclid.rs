//! The Euclidean algorithm on the host: the monic gcd, the extended gcd with FLINT's
//! conventions and cofactor bounds, and the resultant. Quadratic and exact, they are the
//! references the faster GCDs are tested against.

use super::basecase::long_division;
use super::host::{check_same_field, Poly};
use super::schoolbook::sub_product;
use crate::error::Error;
use fermat_dsl::field::Field;

/// (g, s, t) of an extended gcd: s·a + t·b = g ([`xgcd_euclid`] has an example).
pub type Bezout<F> = (Poly<F>, Poly<F>, Poly<F>);

/// p divided by its leading coefficient (zero stays zero), and that coefficient's inverse.
fn monic<F: Field>(p: &Poly<F>) -> Result<(Poly<F>, F::Elem), Error> {
    let f = p.field();
    match p.leading() {
        None => Ok((p.clone(), f.zero())),
        Some(lead) => {
            let inv = f.inv(&lead)?;
            Ok((p.scale(&inv), inv))
        }
    }
}

/// The monic greatest common divisor of a and b, by Euclid's algorithm; gcd(0, 0) = 0.
///
/// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{gcd_euclid, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[2, 6, 4]); // 2(x + 1)(2x + 1)
/// let b = Poly::from_u64s(&f, &[3, 3]); // 3(x + 1)
/// assert_eq!(gcd_euclid(&a, &b)?, Poly::from_u64s(&f, &[1, 1]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn gcd_euclid<F: Field>(a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
    check_same_field(a.field(), b.field())?;
    let f = a.field();
    let (mut r0, mut r1) = (a.coeffs().to_vec(), b.coeffs().to_vec());
    let mut q = Vec::new();
    while !r1.is_empty() {
        // (r0, r1) ← (r1, r0 mod r1), in place.
        long_division(f, &mut r0, &r1, &mut q)?;
        std::mem::swap(&mut r0, &mut r1);
    }
    Ok(monic(&Poly::new(f, r0))?.0)
}

/// The extended gcd (g, s, t): s·a + t·b = g, g the monic gcd, with FLINT's bounds
/// len s ≤ max(len b − len g, 1) and len t ≤ max(len a − len g, 1) and its conventions:
/// b ≠ 0 dividing a (a = 0 included) gives (s, t) = (0, 1/lc b), b = 0 ≠ a gives
/// (1/lc a, 0), and xgcd(0, 0) = (0, 0, 0).
///
/// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{schoolbook_mul, xgcd_euclid, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[1, 0, 1]); // x² + 1
/// let b = Poly::from_u64s(&f, &[0, 1]); // x
/// let (g, s, t) = xgcd_euclid(&a, &b)?;
/// assert_eq!(g, Poly::one(&f));
/// let bezout = schoolbook_mul(&s, &a)?.add(&schoolbook_mul(&t, &b)?)?;
/// assert_eq!(bezout, g);
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn xgcd_euclid<F: Field>(a: &Poly<F>, b: &Poly<F>) -> Result<Bezout<F>, Error> {
    check_same_field(a.field(), b.field())?;
    let f = a.field();
    let (mut r0, mut r1) = (a.coeffs().to_vec(), b.coeffs().to_vec());
    let (mut s0, mut s1) = (vec![f.one()], Vec::new());
    let (mut t0, mut t1) = (Vec::new(), vec![f.one()]);
    let mut q = Vec::new();
    while !r1.is_empty() {
        // (r0, r1) ← (r1, r0 − q·r1) and the cofactors alike, in place.
        long_division(f, &mut r0, &r1, &mut q)?;
        sub_product(f, &mut s0, &q, &s1);
        sub_product(f, &mut t0, &q, &t1);
        std::mem::swap(&mut r0, &mut r1);
        std::mem::swap(&mut s0, &mut s1);
        std::mem::swap(&mut t0, &mut t1);
    }
    let (g, inv) = monic(&Poly::new(f, r0))?;
    Ok((
        g,
        Poly::new(f, s0).scale(&inv),
        Poly::new(f, t0).scale(&inv),
    ))
}

/// The resultant res(a, b): the determinant of the Sylvester matrix, by the Euclidean
/// recurrence res(a, b) = (−1)^(deg a·deg b)·lc(b)^(deg a − deg r)·res(b, r) for
/// r = a mod b, with res(a, c) = c^(deg a) for a constant c. Zero when either is zero or
/// their gcd is not constant; res(c₁, c₂) = 1 for nonzero constants.
///
/// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
///
/// ```
/// use fermat::dsl::{Field, Fp32};
/// use fermat::poly::{resultant_euclid, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[469762047, 1]); // x − 2
/// let b = Poly::from_u64s(&f, &[1, 0, 1]); // x² + 1
/// assert_eq!(resultant_euclid(&a, &b)?, f.from_u64(5)); // b(2)
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn resultant_euclid<F: Field>(a: &Poly<F>, b: &Poly<F>) -> Result<F::Elem, Error> {
    check_same_field(a.field(), b.field())?;
    let f = a.field();
    if a.is_zero() || b.is_zero() {
        return Ok(f.zero());
    }
    let (mut a, mut b) = (a.coeffs().to_vec(), b.coeffs().to_vec());
    let (mut q, mut acc) = (Vec::new(), f.one());
    loop {
        let (da, db) = (a.len() - 1, b.len() - 1);
        if db == 0 {
            return Ok(f.mul(&acc, &f.pow_u64(&b[0], da as u64)));
        }
        if da == 0 {
            return Ok(f.mul(&acc, &f.pow_u64(&a[0], db as u64)));
        }
        // (a, b) ← (b, a mod b), in place.
        long_division(f, &mut a, &b, &mut q)?;
        if a.is_empty() {
            return Ok(f.zero());
        }
        let dr = a.len() - 1;
        acc = f.mul(&acc, &f.pow_u64(&b[db], (da - dr) as u64));
        if da * db % 2 == 1 {
            acc = f.neg(&acc);
        }
        std::mem::swap(&mut a, &mut b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::schoolbook_mul;
    use fermat_dsl::field::Fp32;

    #[test]
    fn edge_conventions_follow_flint() {
        let f = Fp32::new(469762049).unwrap();
        let zero = Poly::zero(&f);
        let b = Poly::from_u64s(&f, &[4, 2]); // 2(x + 2)
        let half = f.inv(&f.from_u64(2)).unwrap();
        assert_eq!(
            xgcd_euclid(&zero, &zero).unwrap(),
            (zero.clone(), zero.clone(), zero.clone())
        );
        let monic_b = Poly::from_u64s(&f, &[2, 1]);
        let want = (monic_b.clone(), zero.clone(), Poly::constant(&f, half));
        assert_eq!(xgcd_euclid(&zero, &b).unwrap(), want);
        let a = schoolbook_mul(&b, &Poly::from_u64s(&f, &[7, 0, 1])).unwrap();
        assert_eq!(xgcd_euclid(&a, &b).unwrap(), want, "b divides a");
        assert_eq!(xgcd_euclid(&b, &b).unwrap(), want, "a = b");
        let got = xgcd_euclid(&b, &zero).unwrap();
        assert_eq!(got, (monic_b, Poly::constant(&f, half), zero.clone()));
        assert!(gcd_euclid(&zero, &zero).unwrap().is_zero());
        assert_eq!(resultant_euclid(&zero, &b).unwrap(), f.zero());
        let (c1, c2) = (Poly::from_u64s(&f, &[3]), Poly::from_u64s(&f, &[5]));
        assert_eq!(resultant_euclid(&c1, &c2).unwrap(), f.one());
        // res(c, b) = c^(deg b), res(b, c) = c^(deg b).
        let b2 = Poly::from_u64s(&f, &[1, 2, 3]);
        assert_eq!(resultant_euclid(&c1, &b2).unwrap(), f.from_u64(9));
        assert_eq!(resultant_euclid(&b2, &c1).unwrap(), f.from_u64(9));
    }

    #[test]
    fn resultants_of_linear_factors_are_evaluations() {
        let f = Fp32::new(469762049).unwrap();
        // res(x − r, b) = b(r), and res(b, x − r) = (−1)^(deg b)·b(r).
        let b = Poly::from_u64s(&f, &[5, 1, 0, 7]);
        let r = f.from_u64(11);
        let linear = Poly::new(&f, vec![f.neg(&r), f.one()]);
        assert_eq!(resultant_euclid(&linear, &b).unwrap(), b.eval(&r));
        assert_eq!(resultant_euclid(&b, &linear).unwrap(), f.neg(&b.eval(&r)));
    }
}
