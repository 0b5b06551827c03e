//! Lowering: a checked formula becomes the tree [`run`](super::run::run) executes, with
//! sizes resolved, identities dropped and root tables looked up.

use super::{InterpError, Interpreter};
use crate::field::Field;
use crate::formula::{Formula, FormulaError};

impl<F: Field> Interpreter<F> {
    /// Lowers a (checked, size-consistent) formula to the executable tree, returning it
    /// with the number of scratch elements its execution needs.
    pub(super) fn compile(&mut self, formula: &Formula) -> Result<(Node, usize), InterpError> {
        Ok(match *formula {
            Formula::Identity(_) | Formula::Dft(1) => (Node::Identity, 0),
            Formula::Dft(n) => {
                let table = self.table(n, || formula.to_string())?;
                if n == 2 {
                    (Node::Dft2, 0)
                } else {
                    let n = n as usize;
                    (Node::Dft { n, table }, n)
                }
            }
            Formula::Stride { n, m } if m == 1 || m == n => (Node::Identity, 0),
            Formula::Stride { n, m } => {
                let (n, m) = (n as usize, m as usize);
                (Node::Stride { n, m }, n)
            }
            Formula::Twiddle { m, n } if m == 1 || n == 1 => (Node::Identity, 0),
            Formula::Twiddle { m, n } => {
                let table = self.table(m * n, || formula.to_string())?;
                let n = n as usize;
                (Node::Twiddle { n, table }, 0)
            }
            Formula::Tensor(ref fs) => self.compile_tensor(fs)?,
            Formula::Compose(ref fs) => self.compile_compose(fs)?,
            Formula::DirectSum(ref fs) => self.compile_direct_sum(fs)?,
        })
    }

    /// Lowers `fs[0] ⊗ fs[1] ⊗ …` to its non-identity factors, each with the size of the
    /// identity to its right.
    fn compile_tensor(&mut self, fs: &[Formula]) -> Result<(Node, usize), InterpError> {
        let sizes = fs
            .iter()
            .map(|f| f.checked_size().map(|s| s as usize))
            .collect::<Result<Vec<_>, _>>()?;
        let mut factors = Vec::new();
        let mut need = 0;
        // Factors act on disjoint index digits, so they commute: applying them
        // right to left matches the reading (A ⊗ I)(I ⊗ B).
        for (i, f) in fs.iter().enumerate().rev() {
            let (node, inner) = self.compile(f)?;
            if matches!(node, Node::Identity) {
                continue;
            }
            let right: usize = sizes[i + 1..].iter().product();
            let gathers = right > 1 && !node.applies_strided();
            need = need.max(inner + if gathers { sizes[i] } else { 0 });
            factors.push(Factor {
                node,
                size: sizes[i],
                right,
            });
        }
        let total: usize = sizes.iter().product();
        Ok(match factors.pop() {
            None => (Node::Identity, 0),
            // The other factors are all I(1): the product is this factor alone.
            Some(only) if factors.is_empty() && only.size == total => (only.node, need),
            Some(last) => {
                factors.push(last);
                (Node::Tensor(factors), need)
            }
        })
    }

    /// Lowers `fs[0] · fs[1] · …` to its non-identity factors, rightmost first.
    fn compile_compose(&mut self, fs: &[Formula]) -> Result<(Node, usize), InterpError> {
        let mut nodes = Vec::new();
        let mut need = 0;
        for f in fs.iter().rev() {
            let (node, inner) = self.compile(f)?;
            if !matches!(node, Node::Identity) {
                need = need.max(inner);
                nodes.push(node);
            }
        }
        Ok(match nodes.len() {
            0 => (Node::Identity, 0),
            1 => (nodes.pop().unwrap_or(Node::Identity), need),
            _ => (Node::Compose(nodes), need),
        })
    }

    /// Lowers `fs[0] ⊕ fs[1] ⊕ …` to its blocks with their sizes.
    fn compile_direct_sum(&mut self, fs: &[Formula]) -> Result<(Node, usize), InterpError> {
        let mut blocks = Vec::new();
        let mut need = 0;
        let mut all_identity = true;
        for f in fs {
            let size = f.checked_size()? as usize;
            let (node, inner) = self.compile(f)?;
            all_identity &= matches!(node, Node::Identity);
            need = need.max(inner);
            blocks.push((size, node));
        }
        Ok(if all_identity {
            (Node::Identity, 0)
        } else {
            (Node::DirectSum(blocks), need)
        })
    }
}

/// Refuses n-ary nodes with fewer than two factors, which only a formula built without the
/// checked constructors can have ([`Formula::checked_size`] does not look at arity).
pub(super) fn check_arity(formula: &Formula) -> Result<(), FormulaError> {
    let (fs, op) = match formula {
        Formula::Tensor(fs) => (fs, "⊗"),
        Formula::Compose(fs) => (fs, "·"),
        Formula::DirectSum(fs) => (fs, "⊕"),
        _ => return Ok(()),
    };
    if fs.len() < 2 {
        return Err(FormulaError::TooFewFactors { op });
    }
    fs.iter().try_for_each(check_arity)
}

/// A formula lowered for execution: sizes resolved, identities dropped, roots looked up.
#[derive(Debug)]
pub(super) enum Node {
    Identity,
    /// `DFT(2)`: the butterfly (x0 + x1, x0 − x1), since ω_2 = −1 in every odd field.
    Dft2,
    Dft {
        n: usize,
        table: usize,
    },
    Stride {
        n: usize,
        m: usize,
    },
    /// `D(m, n)`: rows of `n`; the number of rows is implied by the slice length.
    Twiddle {
        n: usize,
        table: usize,
    },
    /// Non-identity factors, in application order.
    Tensor(Vec<Factor>),
    /// Non-identity factors, in application order (rightmost first).
    Compose(Vec<Node>),
    /// (size, block) left to right.
    DirectSum(Vec<(usize, Node)>),
}

/// One factor of a tensor product, applied as `I(left) ⊗ node ⊗ I(right)`.
#[derive(Debug)]
pub(super) struct Factor {
    pub(super) node: Node,
    pub(super) size: usize,
    pub(super) right: usize,
}

#[cfg(test)]
mod tests {
    use crate::formula::{Formula, FormulaError};
    use crate::interp::tests::{dft, field, id, t};
    use crate::interp::{apply, InterpError};

    #[test]
    fn refuses_malformed_formulas() {
        let f = field();
        let bad = Formula::Compose(vec![dft(2), dft(4)]);
        let err = apply(&f, &bad, &[0; 2]).unwrap_err();
        assert!(
            matches!(
                err,
                InterpError::Malformed(FormulaError::ComposeSizes { .. })
            ),
            "{err:?}"
        );
        let err = apply(&f, &Formula::Stride { n: 6, m: 4 }, &[0; 6]).unwrap_err();
        assert!(
            matches!(
                err,
                InterpError::Malformed(FormulaError::StrideDoesNotDivide { n: 6, m: 4 })
            ),
            "{err:?}"
        );
        for bad in [
            Formula::Tensor(vec![]),
            Formula::DirectSum(vec![dft(1)]),
            t(vec![id(1), Formula::Compose(vec![id(1)])]),
        ] {
            let err = apply(&f, &bad, &[0]).unwrap_err();
            assert!(
                matches!(
                    err,
                    InterpError::Malformed(FormulaError::TooFewFactors { .. })
                ),
                "{bad:?}: {err:?}"
            );
        }
    }
}
