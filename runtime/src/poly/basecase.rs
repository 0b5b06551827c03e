//! Division with remainder and the power-series inverse by their quadratic recurrences:
//! exact and simple, they are what the Newton iterations start from and the references
//! those are tested against.

use super::host::{check_same_field, normalise, Poly};
use crate::cpu::SubMul;
use crate::error::Error;
use fermat_dsl::field::Field;

/// The quotient and remainder of a by b by long division: a = q·b + r with deg r < deg b,
/// in (len a − len b + 1)·(len b − 1) products.
///
/// Errors: [`Error::ZeroDivisor`] when b is zero, [`Error::FieldMismatch`] when the
/// fields' moduli differ.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{divrem_basecase, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let a = Poly::from_u64s(&f, &[5, 0, 0, 1]); // x³ + 5
/// let b = Poly::from_u64s(&f, &[469762048, 1]); // x − 1
/// let (q, r) = divrem_basecase(&a, &b)?;
/// assert_eq!(q, Poly::from_u64s(&f, &[1, 1, 1]));
/// assert_eq!(r, Poly::from_u64s(&f, &[6]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn divrem_basecase<F: Field>(a: &Poly<F>, b: &Poly<F>) -> Result<(Poly<F>, Poly<F>), Error> {
    check_same_field(a.field(), b.field())?;
    let f = a.field();
    let (mut r, mut q) = (a.coeffs().to_vec(), Vec::new());
    long_division(f, &mut r, b.coeffs(), &mut q)?;
    Ok((Poly::new(f, q), Poly::new(f, r)))
}

/// Long division in place: `r` becomes r mod d, normalised, and `q` (whatever it held)
/// r div d, for d nonzero and normalised, in (len r − len d + 1)·(len d − 1) products —
/// the step of Euclid's algorithms, without a polynomial allocated.
pub(super) fn long_division<F: Field>(
    f: &F,
    r: &mut Vec<F::Elem>,
    d: &[F::Elem],
    q: &mut Vec<F::Elem>,
) -> Result<(), Error> {
    let m = d.len();
    let lead = d
        .last()
        .ok_or_else(|| Error::ZeroDivisor { field: f.name() })?;
    q.clear();
    if r.len() < m {
        return Ok(());
    }
    let lead_inv = f.inv(lead)?;
    let zero = f.zero();
    let submul = SubMul::new(f);
    q.resize(r.len() - m + 1, zero);
    // The top coefficient of the working remainder fixes each quotient coefficient,
    // highest first; subtracting q_i·x^i·d clears it.
    for i in (0..q.len()).rev() {
        let c = f.mul(&r[i + m - 1], &lead_inv);
        if c != zero {
            submul.apply(&mut r[i..i + m - 1], &c, &d[..m - 1]);
        }
        q[i] = c;
    }
    r.truncate(m - 1);
    normalise(f, r);
    Ok(())
}

/// The inverse of the power series f mod x^n: the g of degree below n with
/// f·g ≡ 1 (mod x^n), by the recurrence g_t = −g_0·Σ_(1 ≤ j ≤ t) f_j·g_(t−j), in about
/// n²/2 products.
///
/// Errors: [`Error::SeriesNotInvertible`] when f(0) = 0 (f = 0 included).
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{inv_series_basecase, Poly};
///
/// let f = Fp32::new(469762049)?;
/// let one_minus_x = Poly::from_u64s(&f, &[1, 469762048]);
/// // 1/(1 − x) = 1 + x + x² + …
/// assert_eq!(inv_series_basecase(&one_minus_x, 4)?, Poly::from_u64s(&f, &[1, 1, 1, 1]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn inv_series_basecase<F: Field>(f: &Poly<F>, n: usize) -> Result<Poly<F>, Error> {
    let field = f.field();
    let g = inv_series_coeffs(field, f.coeffs(), n)?;
    Ok(Poly::new(field, g))
}

/// [`inv_series_basecase`] on coefficient slices: all n coefficients of the inverse.
pub(super) fn inv_series_coeffs<F: Field>(
    field: &F,
    f: &[F::Elem],
    n: usize,
) -> Result<Vec<F::Elem>, Error> {
    let f0 = f.first().copied().unwrap_or(field.zero());
    if f0 == field.zero() {
        return Err(Error::SeriesNotInvertible {
            field: field.name(),
        });
    }
    let g0 = field.inv(&f0)?;
    let mut g: Vec<F::Elem> = Vec::with_capacity(n);
    for t in 0..n {
        if t == 0 {
            g.push(g0);
            continue;
        }
        let sum = (1..=t.min(f.len() - 1)).fold(field.zero(), |acc, j| {
            field.add(&acc, &field.mul(&f[j], &g[t - j]))
        });
        g.push(field.neg(&field.mul(&g0, &sum)));
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::schoolbook_mul;
    use fermat_dsl::field::Fp32;
    use rand::SeedableRng;

    #[test]
    fn long_division_recovers_its_operands() {
        let f = Fp32::new(469762049).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (la, lb) in [(0, 1), (1, 1), (5, 1), (3, 7), (20, 7), (64, 63)] {
            let a = Poly::random(&f, la, &mut rng);
            let b = Poly::random(&f, lb, &mut rng);
            let (q, r) = divrem_basecase(&a, &b).unwrap();
            assert!(r.len() < b.len(), "{la} / {lb}");
            let back = schoolbook_mul(&q, &b).unwrap().add(&r).unwrap();
            assert_eq!(back, a, "{la} / {lb}");
        }
    }

    #[test]
    fn zero_divisors_and_constant_terms_are_refused() {
        let f = Fp32::new(469762049).unwrap();
        let a = Poly::from_u64s(&f, &[1, 2]);
        assert!(matches!(
            divrem_basecase(&a, &Poly::zero(&f)),
            Err(Error::ZeroDivisor { .. })
        ));
        assert!(matches!(
            inv_series_basecase(&Poly::x(&f), 3),
            Err(Error::SeriesNotInvertible { .. })
        ));
        assert!(inv_series_basecase(&a, 0).unwrap().is_zero());
    }

    #[test]
    fn series_inverses_are_inverses() {
        let f = Fp32::new(469762049).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        for (len, n) in [(1, 1), (1, 9), (5, 3), (5, 40), (40, 5)] {
            let mut s = Poly::random(&f, len, &mut rng);
            if s.coeff(0) == f.zero() {
                s = s.add(&Poly::one(&f)).unwrap();
            }
            let g = inv_series_basecase(&s, n).unwrap();
            assert!(g.len() <= n);
            let one = schoolbook_mul(&s, &g).unwrap().truncate(n);
            assert_eq!(one, Poly::one(&f), "{len} mod x^{n}");
        }
    }
}
