//! Tensor-product formulas: the operators of the papers with exact meanings (0-based,
//! applied to column vectors; docs/ARCHITECTURE.md, "Formulas").
//!
//! - `DFT(n)`: y_i = Σ_j ω_n^(i·j) x_j, at the field's canonical root ω_n.
//! - `I(n)`: the identity.
//! - `L(mn, m)`: y[j·n + i] = x[i·m + j] for 0 ≤ i < n, 0 ≤ j < m (reads with stride m).
//! - `D(m, n)`: y[a·n + b] = ω_{mn}^(a·b) · x[a·n + b].
//! - `A ⊗ B`, `A · B` (A after B), `A ⊕ B`.
//!
//! Formulas are built through checked constructors ([`Formula::tensor`],
//! [`Formula::compose`], …) so that every formula has consistent sizes.

use thiserror::Error;

#[cfg(any(test, feature = "proptest"))]
pub mod arbitrary;
pub mod parse;
pub mod print;

pub use parse::{ParseError, ParseErrorKind};

/// A formula: a linear operator on vectors of [`Formula::size`] field elements.
///
/// The checked constructors build it node by node; [`Formula::parse`] reads the same
/// tree from either notation the printer writes.
///
/// ```
/// use fermat_dsl::formula::Formula;
///
/// // Cooley–Tukey for DFT(4): (DFT(2) ⊗ I(2)) · D(2,2) · (I(2) ⊗ DFT(2)) · L(4,2).
/// let ct = Formula::compose(vec![
///     Formula::tensor(vec![Formula::dft(2)?, Formula::identity(2)?])?,
///     Formula::twiddle(2, 2)?,
///     Formula::tensor(vec![Formula::identity(2)?, Formula::dft(2)?])?,
///     Formula::stride(4, 2)?,
/// ])?;
/// assert_eq!(ct.size(), 4);
/// assert_eq!(ct.to_string(), "DFT_2 ⊗ I_2 · D_{2,2} · I_2 ⊗ DFT_2 · L^{4}_{2}");
/// assert_eq!(Formula::parse(&ct.ascii())?, ct);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `DFT(n)` at the canonical root ω_n.
    Dft(u64),
    /// `I(n)`.
    Identity(u64),
    /// `L(n, m)`: the stride permutation of size `n` reading with stride `m` (m | n).
    Stride {
        /// The size.
        n: u64,
        /// The stride.
        m: u64,
    },
    /// `D(m, n)`: the twiddle diagonal of size m·n.
    Twiddle {
        /// Rows.
        m: u64,
        /// Columns.
        n: u64,
    },
    /// `A ⊗ B ⊗ …`, two or more factors, left to right.
    Tensor(Vec<Formula>),
    /// `A · B · …`, two or more factors; the rightmost is applied first.
    Compose(Vec<Formula>),
    /// `A ⊕ B ⊕ …`, two or more blocks along the diagonal.
    DirectSum(Vec<Formula>),
}

/// Why a formula is malformed: what the checked constructors and
/// [`Formula::checked_size`] refuse, with the offending operator in the message.
///
/// ```
/// use fermat_dsl::formula::{Formula, FormulaError};
///
/// let err = Formula::stride(8, 3).unwrap_err();
/// assert_eq!(err, FormulaError::StrideDoesNotDivide { n: 8, m: 3 });
/// assert_eq!(err.to_string(), "L(8, 3) needs the stride 3 to divide the size 8");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FormulaError {
    /// An operator of size zero.
    #[error("{op} has size 0; sizes must be at least 1")]
    ZeroSize {
        /// The operator as written.
        op: String,
    },
    /// `L(n, m)` needs m | n.
    #[error("L({n}, {m}) needs the stride {m} to divide the size {n}")]
    StrideDoesNotDivide {
        /// The size.
        n: u64,
        /// The stride.
        m: u64,
    },
    /// A composition of operators of different sizes.
    #[error(
        "cannot compose {left} (size {left_size}) with {right} (size {right_size}): sizes differ"
    )]
    ComposeSizes {
        /// The left factor, printed.
        left: String,
        /// Its size.
        left_size: u64,
        /// The right factor, printed.
        right: String,
        /// Its size.
        right_size: u64,
    },
    /// A product of sizes that overflows 64 bits.
    #[error("the size of {what} overflows 64 bits")]
    Overflow {
        /// What overflowed.
        what: String,
    },
    /// An n-ary operator with fewer than two factors.
    #[error("{op} needs at least two factors")]
    TooFewFactors {
        /// The operator's name.
        op: &'static str,
    },
}

impl Formula {
    /// `DFT(n)`, checked: n ≥ 1.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// assert_eq!(Formula::dft(8)?, Formula::Dft(8));
    /// assert!(matches!(Formula::dft(0), Err(FormulaError::ZeroSize { .. })));
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn dft(n: u64) -> Result<Formula, FormulaError> {
        nonzero("DFT", n)?;
        Ok(Formula::Dft(n))
    }

    /// `I(n)`, checked: n ≥ 1.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// let i = Formula::identity(4)?;
    /// assert_eq!((i.size(), i.to_string()), (4, "I_4".to_string()));
    /// assert!(Formula::identity(0).is_err());
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn identity(n: u64) -> Result<Formula, FormulaError> {
        nonzero("I", n)?;
        Ok(Formula::Identity(n))
    }

    /// `L(n, m)`, checked: m | n.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// assert_eq!(Formula::stride(8, 2)?.ascii(), "L(8,2)");
    /// assert_eq!(
    ///     Formula::stride(8, 3),
    ///     Err(FormulaError::StrideDoesNotDivide { n: 8, m: 3 })
    /// );
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn stride(n: u64, m: u64) -> Result<Formula, FormulaError> {
        if n == 0 || m == 0 {
            return Err(FormulaError::ZeroSize {
                op: format!("L({n}, {m})"),
            });
        }
        if !n.is_multiple_of(m) {
            return Err(FormulaError::StrideDoesNotDivide { n, m });
        }
        Ok(Formula::Stride { n, m })
    }

    /// `D(m, n)`, checked: m, n ≥ 1 and m·n fits 64 bits.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// assert_eq!(Formula::twiddle(2, 4)?.size(), 8);
    /// assert!(matches!(Formula::twiddle(1 << 32, 1 << 32), Err(FormulaError::Overflow { .. })));
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn twiddle(m: u64, n: u64) -> Result<Formula, FormulaError> {
        if m == 0 || n == 0 {
            return Err(FormulaError::ZeroSize {
                op: format!("D({m}, {n})"),
            });
        }
        m.checked_mul(n).ok_or_else(|| FormulaError::Overflow {
            what: format!("D({m}, {n})"),
        })?;
        Ok(Formula::Twiddle { m, n })
    }

    /// `A ⊗ B ⊗ …`, checked (the size is the product of the factors' sizes).
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// let t = Formula::tensor(vec![Formula::dft(2)?, Formula::identity(4)?])?;
    /// assert_eq!(t.size(), 8);
    /// assert_eq!(
    ///     Formula::tensor(vec![Formula::dft(2)?]),
    ///     Err(FormulaError::TooFewFactors { op: "⊗" })
    /// );
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn tensor(factors: Vec<Formula>) -> Result<Formula, FormulaError> {
        if factors.len() < 2 {
            return Err(FormulaError::TooFewFactors { op: "⊗" });
        }
        let f = Formula::Tensor(factors);
        f.checked_size()?;
        Ok(f)
    }

    /// `A · B · …`, checked: all factors have the same size.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// let f = Formula::compose(vec![Formula::dft(4)?, Formula::stride(4, 2)?])?;
    /// assert_eq!(f.ascii(), "DFT(4) * L(4,2)");
    /// let err = Formula::compose(vec![Formula::dft(4)?, Formula::identity(8)?]).unwrap_err();
    /// assert!(matches!(err, FormulaError::ComposeSizes { left_size: 4, right_size: 8, .. }));
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn compose(factors: Vec<Formula>) -> Result<Formula, FormulaError> {
        if factors.len() < 2 {
            return Err(FormulaError::TooFewFactors { op: "·" });
        }
        let f = Formula::Compose(factors);
        f.checked_size()?;
        Ok(f)
    }

    /// `A ⊕ B ⊕ …`, checked (the size is the sum of the blocks' sizes).
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// let s = Formula::direct_sum(vec![Formula::dft(2)?, Formula::identity(3)?])?;
    /// assert_eq!((s.size(), s.ascii()), (5, "DFT(2) (+) I(3)".to_string()));
    /// # Ok::<(), FormulaError>(())
    /// ```
    pub fn direct_sum(blocks: Vec<Formula>) -> Result<Formula, FormulaError> {
        if blocks.len() < 2 {
            return Err(FormulaError::TooFewFactors { op: "⊕" });
        }
        let f = Formula::DirectSum(blocks);
        f.checked_size()?;
        Ok(f)
    }

    /// The size of the vectors the formula acts on.
    ///
    /// ```
    /// use fermat_dsl::formula::Formula;
    ///
    /// // ⊗ multiplies sizes, ⊕ adds them: 2·4 + 3.
    /// assert_eq!(Formula::parse("DFT(2) (x) I(4) (+) I(3)")?.size(), 11);
    /// # Ok::<(), fermat_dsl::formula::ParseError>(())
    /// ```
    ///
    /// # Panics
    /// Only on a formula built without the checked constructors whose sizes are
    /// inconsistent; use [`Formula::checked_size`] for such values.
    pub fn size(&self) -> u64 {
        self.checked_size()
            .unwrap_or_else(|e| panic!("malformed formula: {e}"))
    }

    /// The size, or why the formula is malformed: the check for trees built directly
    /// from the variants rather than through the checked constructors.
    ///
    /// ```
    /// use fermat_dsl::formula::{Formula, FormulaError};
    ///
    /// let ok = Formula::Tensor(vec![Formula::Dft(2), Formula::Identity(4)]);
    /// assert_eq!(ok.checked_size(), Ok(8));
    /// let bad = Formula::Compose(vec![Formula::Dft(4), Formula::Identity(8)]);
    /// assert!(matches!(bad.checked_size(), Err(FormulaError::ComposeSizes { .. })));
    /// ```
    pub fn checked_size(&self) -> Result<u64, FormulaError> {
        match self {
            Formula::Dft(n) => nonzero("DFT", *n).map(|_| *n),
            Formula::Identity(n) => nonzero("I", *n).map(|_| *n),
            Formula::Stride { n, m } => Formula::stride(*n, *m).map(|_| *n),
            Formula::Twiddle { m, n } => Formula::twiddle(*m, *n).map(|_| m * n),
            Formula::Tensor(fs) => fs.iter().try_fold(1u64, |acc, f| {
                let s = f.checked_size()?;
                acc.checked_mul(s).ok_or_else(|| FormulaError::Overflow {
                    what: "a tensor product".into(),
                })
            }),
            Formula::DirectSum(fs) => fs.iter().try_fold(0u64, |acc, f| {
                let s = f.checked_size()?;
                acc.checked_add(s).ok_or_else(|| FormulaError::Overflow {
                    what: "a direct sum".into(),
                })
            }),
            Formula::Compose(fs) => {
                let first = fs.first().ok_or(FormulaError::TooFewFactors { op: "·" })?;
                let size = first.checked_size()?;
                for pair in fs.windows(2) {
                    let (l, r) = (pair[0].checked_size()?, pair[1].checked_size()?);
                    if l != r {
                        return Err(FormulaError::ComposeSizes {
                            left: pair[0].to_string(),
                            left_size: l,
                            right: pair[1].to_string(),
                            right_size: r,
                        });
                    }
                }
                Ok(size)
            }
        }
    }
}

fn nonzero(op: &str, n: u64) -> Result<(), FormulaError> {
    if n == 0 {
        Err(FormulaError::ZeroSize {
            op: format!("{op}(0)"),
        })
    } else {
        Ok(())
    }
}
