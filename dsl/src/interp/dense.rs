//! Dense matrices of formulas, for exact comparisons at small sizes.

use super::{InterpError, Interpreter, DENSE_MAX_SIZE};
use crate::field::Field;
use crate::formula::Formula;

/// The dense matrix of `formula`, as rows: entry `[i][j]` is output `i` of the formula
/// applied to the unit vector e_j. Meant for small sizes (up to [`DENSE_MAX_SIZE`]),
/// e.g. to compare both sides of a rewrite rule exactly.
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::dense_matrix;
///
/// let f = Fp32::new(17)?;
/// let m = dense_matrix(&f, &Formula::Dft(2))?; // [[1, 1], [1, −1]]
/// assert_eq!(m, [[f.one(), f.one()], [f.one(), f.neg(&f.one())]]);
/// // Both sides of Cooley–Tukey for DFT(8) are the same matrix.
/// let ct = Formula::parse("DFT(4) (x) I(2) * D(4,2) * I(4) (x) DFT(2) * L(8,4)")?;
/// assert_eq!(dense_matrix(&f, &ct)?, dense_matrix(&f, &Formula::Dft(8))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dense_matrix<F: Field>(
    field: &F,
    formula: &Formula,
) -> Result<Vec<Vec<F::Elem>>, InterpError> {
    let size = formula.checked_size()?;
    if size > DENSE_MAX_SIZE {
        return Err(InterpError::TooLargeForDense {
            size,
            max: DENSE_MAX_SIZE,
        });
    }
    let n = size as usize;
    let mut interp = Interpreter::new(field);
    let mut rows = vec![vec![field.zero(); n]; n];
    let mut e = vec![field.zero(); n];
    for j in 0..n {
        e.fill(field.zero());
        e[j] = field.one();
        interp.apply_in_place(formula, &mut e)?;
        for (row, v) in rows.iter_mut().zip(&e) {
            row[j] = *v;
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::tests::{field, id};

    #[test]
    fn dense_matrix_refuses_large_sizes() {
        let f = field();
        let err = dense_matrix(&f, &id(DENSE_MAX_SIZE + 1)).unwrap_err();
        assert_eq!(
            err,
            InterpError::TooLargeForDense {
                size: DENSE_MAX_SIZE + 1,
                max: DENSE_MAX_SIZE
            }
        );
    }
}
