//! The reference interpreter: the meaning of every [`Formula`], applied to vectors.
//!
//! It follows the formula's structure and never builds a dense matrix: the work is
//! proportional to the formula's operation count.
//!
//! - `DFT(n)` leaves are evaluated by the defining sum y_i = Σ_j ω_n^(i·j) x_j (O(n²), fine
//!   for the small leaves a derivation leaves behind), with a cached table of ω_n^k;
//! - `D(m, n)` multiplies by ω_{mn}^(a·b) from the same kind of table (O(mn));
//! - `L(mn, m)` is a permutation through one scratch copy;
//! - `A ⊗ B ⊗ …` applies each factor as `I(left) ⊗ A_i ⊗ I(right)`; with `right = 1` that is
//!   `left` contiguous block applications, otherwise each strided column is gathered into
//!   a scratch buffer, transformed and scattered back (the factorisation
//!   `A ⊗ B = (A ⊗ I)(I ⊗ B)` of the 2017 paper, (15));
//! - `A · B · …` applies its factors right to left, in place;
//! - `A ⊕ B ⊕ …` applies each block to its own slice.
//!
//! Operators that equal the identity whatever the root (`I(n)`, `DFT(1)`, `L(n, 1)`,
//! `L(n, n)`, `D(1, n)`, `D(m, 1)`) need no root of unity and cost nothing.

mod dense;
mod dft;
mod lower;
mod run;
#[cfg(test)]
pub(crate) mod tests;

pub use dense::dense_matrix;
pub use dft::{dft_at, dft_entry};

use crate::field::{Field, FieldError};
use crate::formula::{Formula, FormulaError};
use lower::check_arity;
use run::run;
use std::collections::HashMap;
use thiserror::Error;

/// The largest size [`dense_matrix`] accepts: its result has size² entries.
///
/// ```
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::{dense_matrix, InterpError, DENSE_MAX_SIZE};
///
/// let f = Fp32::new(17)?;
/// let err = dense_matrix(&f, &Formula::identity(DENSE_MAX_SIZE + 1)?).unwrap_err();
/// assert_eq!(err, InterpError::TooLargeForDense { size: 1025, max: DENSE_MAX_SIZE });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const DENSE_MAX_SIZE: u64 = 1024;

/// Why a formula could not be applied.
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::{apply, InterpError};
///
/// let f = Fp32::new(17)?; // 16 = 2^4: roots of unity of order up to 16
/// let x = vec![f.one(); 32];
/// let err = apply(&f, &Formula::Dft(4), &x).unwrap_err();
/// assert_eq!(err, InterpError::LengthMismatch { size: 4, len: 32 });
/// let err = apply(&f, &Formula::Dft(32), &x).unwrap_err();
/// assert!(matches!(err, InterpError::NoRoot { n: 32, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum InterpError {
    /// The input vector's length is not the formula's size.
    #[error("the input has {len} elements but the formula acts on vectors of size {size}")]
    LengthMismatch {
        /// The formula's size.
        size: u64,
        /// The input's length.
        len: usize,
    },
    /// A `DFT(n)` or `D(m, n)` needs a root of unity the field does not have.
    #[error(
        "{op} needs a primitive root of unity of order {n}, which {field} does not provide: {source}"
    )]
    NoRoot {
        /// The operator, printed.
        op: String,
        /// The order of the root it needs.
        n: u64,
        /// The field's name.
        field: String,
        /// Why the field refused.
        #[source]
        source: FieldError,
    },
    /// The formula is malformed (built without the checked constructors).
    #[error(transparent)]
    Malformed(#[from] FormulaError),
    /// [`dense_matrix`] refuses sizes whose matrix would not fit comfortably in memory.
    #[error("dense_matrix handles sizes up to {max}; this formula has size {size}")]
    TooLargeForDense {
        /// The formula's size.
        size: u64,
        /// The largest size allowed, [`DENSE_MAX_SIZE`].
        max: u64,
    },
}

/// Applies formulas over one field, caching the roots of unity ω_n and the power tables
/// ω_n^0, …, ω_n^(n−1) per size so that repeated applications share them.
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::Interpreter;
///
/// let f = Fp32::new(17)?;
/// let mut interp = Interpreter::new(&f);
/// assert_eq!(interp.field().p(), 17);
/// let w = interp.root(4)?; // ω_4 = 3^((17 − 1)/4) = 13, and ω_4² = −1
/// assert_eq!((w, f.mul(&w, &w)), (f.from_u64(13), f.neg(&f.one())));
/// let x: Vec<_> = [1, 2, 3, 4].map(|v| f.from_u64(v)).into();
/// let ct = Formula::parse("DFT(2) (x) I(2) * D(2,2) * I(2) (x) DFT(2) * L(4,2)")?;
/// assert_eq!(interp.apply(&ct, &x)?, interp.apply(&Formula::Dft(4), &x)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Interpreter<F: Field> {
    field: F,
    roots: HashMap<u64, F::Elem>,
    table_index: HashMap<u64, usize>,
    tables: Vec<Vec<F::Elem>>,
}

impl<F: Field> Interpreter<F> {
    /// An interpreter over `field`, with empty caches ([`Interpreter`] has an example).
    pub fn new(field: &F) -> Self {
        Interpreter {
            field: field.clone(),
            roots: HashMap::new(),
            table_index: HashMap::new(),
            tables: Vec::new(),
        }
    }

    /// The field it computes in ([`Interpreter`] has an example).
    pub fn field(&self) -> &F {
        &self.field
    }

    /// The canonical primitive n-th root of unity ω_n of the field (cached; [`Interpreter`]
    /// has an example).
    pub fn root(&mut self, n: u64) -> Result<F::Elem, FieldError> {
        if let Some(w) = self.roots.get(&n) {
            return Ok(*w);
        }
        let w = self.field.root_of_unity(n)?;
        self.roots.insert(n, w);
        Ok(w)
    }

    /// `formula · x`, in a new vector.
    ///
    /// ```
    /// use fermat_dsl::field::{Field, Fp32};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::interp::Interpreter;
    ///
    /// let f = Fp32::new(17)?;
    /// let mut interp = Interpreter::new(&f);
    /// // L(4, 2) reads with stride 2: x0, x2, x1, x3.
    /// let y = interp.apply(&Formula::stride(4, 2)?, &[10, 11, 12, 13].map(|v| f.from_u64(v)))?;
    /// assert_eq!(y, [10, 12, 11, 13].map(|v| f.from_u64(v)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply(&mut self, formula: &Formula, x: &[F::Elem]) -> Result<Vec<F::Elem>, InterpError> {
        let mut y = x.to_vec();
        self.apply_in_place(formula, &mut y)?;
        Ok(y)
    }

    /// Replaces `x` by `formula · x`, without allocating the output. On error `x` is left
    /// unchanged.
    ///
    /// ```
    /// use fermat_dsl::field::{Field, Fp32};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::interp::Interpreter;
    ///
    /// let f = Fp32::new(17)?;
    /// let mut interp = Interpreter::new(&f);
    /// let mut x = [1, 2, 3, 4].map(|v| f.from_u64(v));
    /// // D(2, 2) scales x[a·2 + b] by ω_4^(a·b): only x3, by ω_4 = 13 (4·13 = 52 = 1 mod 17).
    /// interp.apply_in_place(&Formula::twiddle(2, 2)?, &mut x)?;
    /// assert_eq!(x, [1, 2, 3, 1].map(|v| f.from_u64(v)));
    /// assert!(interp.apply_in_place(&Formula::Dft(2), &mut x).is_err());
    /// assert_eq!(x, [1, 2, 3, 1].map(|v| f.from_u64(v)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply_in_place(
        &mut self,
        formula: &Formula,
        x: &mut [F::Elem],
    ) -> Result<(), InterpError> {
        let size = formula.checked_size()?;
        check_arity(formula)?;
        if usize::try_from(size).ok() != Some(x.len()) {
            return Err(InterpError::LengthMismatch { size, len: x.len() });
        }
        // Every size inside the formula is at most its total size, which equals x.len():
        // the casts to usize in `compile` are therefore exact.
        let (node, need) = self.compile(formula)?;
        let mut scratch = vec![self.field.zero(); need];
        run(&self.field, &self.tables, &node, x, &mut scratch);
        Ok(())
    }

    /// The index of the table ω_n^0, …, ω_n^(n−1) in `self.tables`, built on first use.
    fn table(&mut self, n: u64, op: impl FnOnce() -> String) -> Result<usize, InterpError> {
        if let Some(&i) = self.table_index.get(&n) {
            return Ok(i);
        }
        let w = self.root(n).map_err(|source| InterpError::NoRoot {
            op: op(),
            n,
            field: self.field.name(),
            source,
        })?;
        let f = &self.field;
        let mut t = Vec::with_capacity(n as usize);
        let mut acc = f.one();
        for _ in 0..n {
            t.push(acc);
            acc = f.mul(&acc, &w);
        }
        self.tables.push(t);
        self.table_index.insert(n, self.tables.len() - 1);
        Ok(self.tables.len() - 1)
    }
}

/// `formula · x` over `field` (a one-shot [`Interpreter`]; keep an interpreter to reuse
/// its roots across calls).
///
/// ```
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::apply;
///
/// let f = Fp32::new(17)?;
/// let x = [1, 2, 3, 4].map(|v| f.from_u64(v));
/// // y_i = Σ_j 13^(i·j) x_j, by hand: 10, 1 − 3 + (2 − 4)·13 = 6, 1 − 2 + 3 − 4 = 15, 7.
/// let y = apply(&f, &Formula::Dft(4), &x)?;
/// assert_eq!(y, [10, 6, 15, 7].map(|v| f.from_u64(v)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apply<F: Field>(
    field: &F,
    formula: &Formula,
    x: &[F::Elem],
) -> Result<Vec<F::Elem>, InterpError> {
    Interpreter::new(field).apply(formula, x)
}
