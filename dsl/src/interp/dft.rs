//! The DFT by its defining sum: the oracle for transforms of any size.

use crate::field::Field;

/// The DFT of `x` at `omega` by the defining sum: y_i = Σ_j omega^(i·j) x_j, O(n²).
///
/// `omega` may be any element (it need not be a primitive root): this is the plain
/// definition, the oracle the interpreter and the generated code are checked against.
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::interp::dft_at;
///
/// let f = Fp32::new(17)?;
/// let x = [1, 2, 3, 4].map(|v| f.from_u64(v));
/// // At ω = 13, a 4th root of unity mod 17: the DFT.
/// assert_eq!(dft_at(&f, &x, &f.from_u64(13)), [10, 6, 15, 7].map(|v| f.from_u64(v)));
/// // At ω = 1 every output is the plain sum.
/// assert_eq!(dft_at(&f, &x, &f.one()), [10; 4].map(|v| f.from_u64(v)));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn dft_at<F: Field>(field: &F, x: &[F::Elem], omega: &F::Elem) -> Vec<F::Elem> {
    let mut w_i = field.one();
    (0..x.len())
        .map(|_| {
            let y = horner(field, x, &w_i);
            w_i = field.mul(&w_i, omega);
            y
        })
        .collect()
}

/// Output `i` of the DFT of `x` at `omega`: Σ_j omega^(i·j) x_j, in O(n + log i) —
/// the check of single entries of large transforms.
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::interp::{dft_at, dft_entry};
///
/// let f = Fp32::new(17)?;
/// let (x, w) = ([1, 2, 3, 4].map(|v| f.from_u64(v)), f.from_u64(13));
/// assert_eq!(dft_entry(&f, &x, &w, 2), f.from_u64(15)); // 1 − 2 + 3 − 4 mod 17
/// assert_eq!(dft_entry(&f, &x, &w, 3), dft_at(&f, &x, &w)[3]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn dft_entry<F: Field>(field: &F, x: &[F::Elem], omega: &F::Elem, i: usize) -> F::Elem {
    let w_i = field.pow_u64(omega, i as u64);
    horner(field, x, &w_i)
}

/// Σ_j w^j x_j by Horner's rule.
fn horner<F: Field>(field: &F, x: &[F::Elem], w: &F::Elem) -> F::Elem {
    x.iter()
        .rev()
        .fold(field.zero(), |acc, xj| field.add(&field.mul(&acc, w), xj))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::tests::field;

    #[test]
    fn dft_at_accepts_any_omega() {
        // ω = 3 is not a root of unity of small order: the sum must still be the plain one.
        let f = field();
        let x = vec![5, 7, 11];
        let y = dft_at(&f, &x, &3);
        assert_eq!(y[0], 23);
        assert_eq!(y[1], 5 + 7 * 3 + 11 * 9);
        assert_eq!(y[2], 5 + 7 * 9 + 11 * 81);
        assert_eq!(dft_entry(&f, &x, &3, 2), y[2]);
    }
}
