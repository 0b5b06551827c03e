//! The printer: formulas in the papers' notation (Unicode) or in plain ASCII.
//!
//! | operator        | Unicode (`{}`)   | ASCII (`{:#}`, [`Formula::ascii`]) |
//! |-----------------|------------------|------------------------------------|
//! | DFT             | `DFT_16`         | `DFT(16)`                          |
//! | identity        | `I_8`            | `I(8)`                             |
//! | stride          | `L^{256}_{16}`   | `L(256,16)`                        |
//! | twiddle         | `D_{2,8}`        | `D(2,8)`                           |
//! | tensor product  | `A ⊗ B`          | `A (x) B`                          |
//! | composition     | `A · B`          | `A * B`                            |
//! | direct sum      | `A ⊕ B`          | `A (+) B`                          |
//!
//! Parentheses are minimal under the precedence ⊗ > · > ⊕, except that an n-ary node
//! directly inside a node of the same operator is parenthesised: `Compose([Compose([a, b]),
//! c])` prints `(a · b) · c` while `Compose([a, b, c])` prints `a · b · c`. Hence printing
//! and then parsing ([`Formula::parse`]) gives back the same tree, in either notation.
//!
//! An n-ary node with fewer than two factors (only possible without the checked
//! constructors) prints in a prefix form such as `⊗(DFT_2)` that the parser refuses, so a
//! malformed tree never reads back as a different well-formed one.

use super::Formula;
use std::fmt;

/// How tightly an operator binds: higher binds tighter.
fn precedence(f: &Formula) -> u8 {
    match f {
        Formula::DirectSum(_) => 1,
        Formula::Compose(_) => 2,
        Formula::Tensor(_) => 3,
        _ => 4,
    }
}

impl Formula {
    /// The formula in ASCII notation (`DFT(4) * L(4,2)`), the same as `format!("{:#}", f)`:
    /// for terminals and files that should not depend on Unicode.
    ///
    /// ```
    /// use fermat_dsl::formula::Formula;
    ///
    /// let f = Formula::parse("DFT_2 ⊗ I_2 · L^{4}_{2}")?;
    /// assert_eq!(f.ascii(), "DFT(2) (x) I(2) * L(4,2)");
    /// assert_eq!(format!("{f:#}"), f.ascii());
    /// assert_eq!(Formula::parse(&f.ascii())?, f);
    /// # Ok::<(), fermat_dsl::formula::ParseError>(())
    /// ```
    pub fn ascii(&self) -> String {
        format!("{self:#}")
    }
}

impl fmt::Display for Formula {
    /// The papers' notation in Unicode (`DFT_4 · L^{4}_{2}`); with the alternate flag
    /// (`{:#}`), ASCII (`DFT(4) * L(4,2)`). See the [module documentation](self).
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_formula(self, out, out.alternate())
    }
}

fn write_formula(f: &Formula, out: &mut fmt::Formatter<'_>, ascii: bool) -> fmt::Result {
    match (f, ascii) {
        (Formula::Dft(n), false) => write!(out, "DFT_{n}"),
        (Formula::Dft(n), true) => write!(out, "DFT({n})"),
        (Formula::Identity(n), false) => write!(out, "I_{n}"),
        (Formula::Identity(n), true) => write!(out, "I({n})"),
        (Formula::Stride { n, m }, false) => write!(out, "L^{{{n}}}_{{{m}}}"),
        (Formula::Stride { n, m }, true) => write!(out, "L({n},{m})"),
        (Formula::Twiddle { m, n }, false) => write!(out, "D_{{{m},{n}}}"),
        (Formula::Twiddle { m, n }, true) => write!(out, "D({m},{n})"),
        (Formula::Tensor(fs), _) => write_nary(f, fs, if ascii { "(x)" } else { "⊗" }, out, ascii),
        (Formula::Compose(fs), _) => write_nary(f, fs, if ascii { "*" } else { "·" }, out, ascii),
        (Formula::DirectSum(fs), _) => {
            write_nary(f, fs, if ascii { "(+)" } else { "⊕" }, out, ascii)
        }
    }
}

fn write_nary(
    node: &Formula,
    factors: &[Formula],
    op: &str,
    out: &mut fmt::Formatter<'_>,
    ascii: bool,
) -> fmt::Result {
    if factors.len() < 2 {
        out.write_str(op)?;
        out.write_str("(")?;
        if let Some(only) = factors.first() {
            write_formula(only, out, ascii)?;
        }
        return out.write_str(")");
    }
    let outer = precedence(node);
    for (i, factor) in factors.iter().enumerate() {
        if i > 0 {
            write!(out, " {op} ")?;
        }
        // Same or looser binding needs parentheses: looser for the meaning, same to keep
        // the nesting of the tree.
        if precedence(factor) <= outer {
            out.write_str("(")?;
            write_formula(factor, out, ascii)?;
            out.write_str(")")?;
        } else {
            write_formula(factor, out, ascii)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dft(n: u64) -> Formula {
        Formula::dft(n).unwrap()
    }
    fn id(n: u64) -> Formula {
        Formula::identity(n).unwrap()
    }

    fn worked_check() -> Formula {
        Formula::compose(vec![
            Formula::tensor(vec![dft(2), id(2)]).unwrap(),
            Formula::twiddle(2, 2).unwrap(),
            Formula::tensor(vec![id(2), dft(2)]).unwrap(),
            Formula::stride(4, 2).unwrap(),
        ])
        .unwrap()
    }

    #[test]
    fn prints_leaves_in_both_notations() {
        let cases = [
            (dft(16), "DFT_16", "DFT(16)"),
            (id(8), "I_8", "I(8)"),
            (
                Formula::stride(256, 16).unwrap(),
                "L^{256}_{16}",
                "L(256,16)",
            ),
            (Formula::twiddle(2, 8).unwrap(), "D_{2,8}", "D(2,8)"),
        ];
        for (f, unicode, ascii) in cases {
            assert_eq!(f.to_string(), unicode);
            assert_eq!(f.ascii(), ascii);
            assert_eq!(format!("{f:#}"), ascii);
        }
    }

    #[test]
    fn prints_the_worked_check_with_minimal_parentheses() {
        let f = worked_check();
        assert_eq!(
            f.to_string(),
            "DFT_2 ⊗ I_2 · D_{2,2} · I_2 ⊗ DFT_2 · L^{4}_{2}"
        );
        assert_eq!(
            f.ascii(),
            "DFT(2) (x) I(2) * D(2,2) * I(2) (x) DFT(2) * L(4,2)"
        );
    }

    #[test]
    fn parenthesises_looser_operators_and_nested_same_operators() {
        let (a, b, c) = (dft(2), id(2), Formula::stride(2, 2).unwrap());
        let ab = Formula::compose(vec![a.clone(), b.clone()]).unwrap();
        let left_nested = Formula::compose(vec![ab.clone(), c.clone()]).unwrap();
        assert_eq!(left_nested.to_string(), "(DFT_2 · I_2) · L^{2}_{2}");
        let flat = Formula::compose(vec![a.clone(), b.clone(), c.clone()]).unwrap();
        assert_eq!(flat.to_string(), "DFT_2 · I_2 · L^{2}_{2}");
        let tensor_of_compose = Formula::tensor(vec![ab.clone(), c.clone()]).unwrap();
        assert_eq!(tensor_of_compose.to_string(), "(DFT_2 · I_2) ⊗ L^{2}_{2}");
        let sum = Formula::direct_sum(vec![ab.clone(), tensor_of_compose.clone()]).unwrap();
        assert_eq!(sum.to_string(), "DFT_2 · I_2 ⊕ (DFT_2 · I_2) ⊗ L^{2}_{2}");
        let tensor_of_sum = Formula::tensor(vec![sum, a]).unwrap();
        assert_eq!(
            tensor_of_sum.ascii(),
            "(DFT(2) * I(2) (+) (DFT(2) * I(2)) (x) L(2,2)) (x) DFT(2)"
        );
    }

    #[test]
    fn malformed_nary_nodes_print_in_a_form_the_parser_refuses() {
        assert_eq!(Formula::Tensor(vec![]).to_string(), "⊗()");
        assert_eq!(Formula::Compose(vec![dft(2)]).ascii(), "*(DFT(2))");
        for bad in [Formula::Tensor(vec![]), Formula::Compose(vec![dft(2)])] {
            assert!(Formula::parse(&bad.to_string()).is_err(), "{bad:?}");
            assert!(Formula::parse(&bad.ascii()).is_err(), "{bad:?}");
        }
    }
}
