//! The schoolbook product: c_k = Σ_{i+j=k} a_i·b_j, in O(len(a)·len(b)) field
//! operations. Exact and simple, it is the reference every faster product is tested
//! against.

use super::host::{check_same_field, normalise, Poly};
use crate::cpu::SubMul;
use crate::error::Error;
use fermat_dsl::field::Field;

/// The product a·b.
///
/// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{schoolbook_mul, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[1, 1]); // x + 1
/// let b = Poly::from_u64s(&f, &[469762048, 1]); // x − 1
/// assert_eq!(schoolbook_mul(&a, &b)?, Poly::from_u64s(&f, &[469762048, 0, 1]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn schoolbook_mul<F: Field>(a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
    let len = (a.len() + b.len()).saturating_sub(1);
    schoolbook_mul_middle(a, b, 0, len)
}

/// The coefficients `lo..hi` of a·b, as the polynomial Σ_{k ∈ lo..hi} c_k·x^(k − lo):
/// that is (a·b div x^lo) mod x^(hi − lo), computed without the other coefficients. With
/// len(a) = m + n − 1 and len(b) = n, the range `n − 1..m + n − 1` is the middle product
/// of Hanrot, Quercia and Zimmermann. An empty range (`hi ≤ lo`) gives zero.
///
/// Errors: [`Error::FieldMismatch`] when the fields' moduli differ.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{schoolbook_mul, schoolbook_mul_middle, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[1, 2, 3, 4]);
/// let b = Poly::from_u64s(&f, &[5, 6]);
/// let full = schoolbook_mul(&a, &b)?; // 5 + 16x + 27x² + 38x³ + 24x⁴
/// assert_eq!(schoolbook_mul_middle(&a, &b, 1, 4)?, Poly::from_u64s(&f, &[16, 27, 38]));
/// assert_eq!(schoolbook_mul_middle(&a, &b, 0, 9)?, full);
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn schoolbook_mul_middle<F: Field>(
    a: &Poly<F>,
    b: &Poly<F>,
    lo: usize,
    hi: usize,
) -> Result<Poly<F>, Error> {
    check_same_field(a.field(), b.field())?;
    let f = a.field();
    let (x, y) = (a.coeffs(), b.coeffs());
    if x.is_empty() || y.is_empty() {
        return Ok(Poly::zero(f));
    }
    let hi = hi.min(x.len() + y.len() - 1);
    let coeffs = (lo..hi)
        .map(|k| {
            // i ranges over the a_i with a partner b_{k−i}: k − i < len(b), i < len(a).
            let first = (k + 1).saturating_sub(y.len());
            let last = k.min(x.len() - 1);
            (first..=last).fold(f.zero(), |acc, i| f.add(&acc, &f.mul(&x[i], &y[k - i])))
        })
        .collect();
    Ok(Poly::new(f, coeffs))
}

/// `acc` ← acc − q·p in place, normalised: the schoolbook product of a short quotient
/// by a cofactor, as Euclid's steps update their cofactors, without a polynomial
/// allocated (the vectors are normalised coefficients, lowest degree first).
pub(super) fn sub_product<F: Field>(f: &F, acc: &mut Vec<F::Elem>, q: &[F::Elem], p: &[F::Elem]) {
    let zero = f.zero();
    if !q.is_empty() && !p.is_empty() {
        let len = q.len() + p.len() - 1;
        if acc.len() < len {
            acc.resize(len, zero);
        }
        let submul = SubMul::new(f);
        for (i, qi) in q.iter().enumerate() {
            if *qi == zero {
                continue;
            }
            submul.apply(&mut acc[i..i + p.len()], qi, p);
        }
    }
    normalise(f, acc);
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::{Fp32, Fp64};
    use rand::SeedableRng;

    #[test]
    fn products_with_zero_and_one() {
        let f = Fp64::new(0xFFFF_FFFF_0000_0001).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let a = Poly::random(&f, 17, &mut rng);
        assert!(schoolbook_mul(&a, &Poly::zero(&f)).unwrap().is_zero());
        assert!(schoolbook_mul(&Poly::zero(&f), &a).unwrap().is_zero());
        assert_eq!(schoolbook_mul(&a, &Poly::one(&f)).unwrap(), a);
        assert_eq!(
            schoolbook_mul(&a, &Poly::x(&f)).unwrap(),
            a.shift(1),
            "times x is a shift"
        );
    }

    #[test]
    fn middle_products_are_slices_of_the_full_product() {
        let f = Fp32::new(469762049).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let a = Poly::random(&f, 9, &mut rng);
        let b = Poly::random(&f, 5, &mut rng);
        let full = schoolbook_mul(&a, &b).unwrap();
        for lo in 0..15 {
            for hi in 0..15 {
                let slice = if lo < hi {
                    Poly::new(&f, full.coeffs()[lo.min(13)..hi.min(13)].to_vec())
                } else {
                    Poly::zero(&f)
                };
                assert_eq!(
                    schoolbook_mul_middle(&a, &b, lo, hi).unwrap(),
                    slice,
                    "{lo}..{hi}"
                );
            }
        }
    }

    #[test]
    fn products_subtract_in_place() {
        let f = Fp32::new(469762049).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (q, p) = (Poly::random(&f, 2, &mut rng), Poly::random(&f, 7, &mut rng));
        let qp = schoolbook_mul(&q, &p).unwrap();
        for acc in [
            Poly::zero(&f),
            Poly::random(&f, 3, &mut rng),
            Poly::random(&f, 12, &mut rng),
            qp.clone(),                                     // cancels to zero
            qp.add(&Poly::from_u64s(&f, &[4, 5])).unwrap(), // cancels to its bottom
        ] {
            let mut v = acc.coeffs().to_vec();
            sub_product(&f, &mut v, q.coeffs(), p.coeffs());
            assert_eq!(v, acc.sub(&qp).unwrap().coeffs(), "{acc}");
        }
        let mut v = vec![f.one()];
        sub_product(&f, &mut v, &[], p.coeffs());
        assert_eq!(v, vec![f.one()], "an empty quotient subtracts nothing");
    }

    #[test]
    fn mismatched_fields_are_refused() {
        let a = Poly::one(&Fp32::new(469762049).unwrap());
        let b = Poly::one(&Fp32::new(2013265921).unwrap());
        assert!(matches!(
            schoolbook_mul(&a, &b),
            Err(Error::FieldMismatch { .. })
        ));
    }
}
