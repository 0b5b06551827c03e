//! The two classical tensor identities of the 2017 paper, Remark 1: commutation (14) and
//! the mixed product (15). Both are search moves: commutation can be applied forever, and
//! the mixed product neither shrinks nor breaks anything down.

use super::{compose, l, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// A ⊗ B = L(ab, a) · (B ⊗ A) · L(ab, b), for A of order a and B of order b.
pub(super) const TENSOR_COMMUTE: Rule = Rule {
    name: "tensor_commute",
    source: "2017 (14)",
    identity: "A ⊗ B = L(ab, a) · (B ⊗ A) · L(ab, b), A of order a, B of order b",
    condition: "a tensor product; A is its first factor and B the product of the others",
    parameter: None,
    kind: RuleKind::Search,
    applies: is_tensor,
    apply: commute,
};

/// (A ⊗ B) · (C ⊗ D) = (A · C) ⊗ (B · D), for A, C of order a and B, D of order b.
pub(super) const MIXED_PRODUCT: Rule = Rule {
    name: "mixed_product",
    source: "2017 (15)",
    identity: "(A ⊗ B) · (C ⊗ D) = (A · C) ⊗ (B · D), A and C of order a, B and D of order b",
    condition: "a composition with two adjacent tensor products of as many factors, of \
                equal orders factor by factor (the first such pair is rewritten)",
    parameter: None,
    kind: RuleKind::Search,
    applies: has_matching_tensors,
    apply: mixed_product,
};

/// The named condition of `tensor_commute`.
fn is_tensor(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Tensor(_))
}

fn commute(f: &Formula, _: &Params) -> Option<Formula> {
    let Formula::Tensor(fs) = f else { return None };
    let (first, rest) = fs.split_first()?;
    let a = first.size();
    let b: u64 = rest.iter().map(Formula::size).product();
    let mut swapped = rest.to_vec();
    swapped.push(first.clone());
    Some(compose(vec![l(a * b, a), tensor(swapped), l(a * b, b)]))
}

/// The named condition of `mixed_product`.
fn has_matching_tensors(f: &Formula, _: &Params) -> bool {
    matching_pair(f).is_some()
}

/// The index of the first factor of a composition that, with its right neighbour, forms
/// a pair of tensor products of matching shapes.
fn matching_pair(f: &Formula) -> Option<usize> {
    let Formula::Compose(fs) = f else { return None };
    fs.windows(2).position(|w| match (&w[0], &w[1]) {
        (Formula::Tensor(a), Formula::Tensor(c)) => {
            a.len() == c.len() && a.iter().zip(c).all(|(x, y)| x.size() == y.size())
        }
        _ => false,
    })
}

fn mixed_product(f: &Formula, _: &Params) -> Option<Formula> {
    let at = matching_pair(f)?;
    let Formula::Compose(fs) = f else { return None };
    let (Formula::Tensor(a), Formula::Tensor(c)) = (&fs[at], &fs[at + 1]) else {
        return None;
    };
    let merged = tensor(
        a.iter()
            .zip(c)
            .map(|(x, y)| compose(vec![x.clone(), y.clone()]))
            .collect(),
    );
    if fs.len() == 2 {
        return Some(merged);
    }
    let mut out = fs[..at].to_vec();
    out.push(merged);
    out.extend_from_slice(&fs[at + 2..]);
    Some(compose(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{d, dft, i};

    #[test]
    fn commutes_the_first_factor_past_the_rest() {
        let f = tensor(vec![dft(2), i(3), dft(4)]);
        let out = TENSOR_COMMUTE.apply(&f, &Params::NONE).unwrap();
        let want = compose(vec![
            l(24, 2),
            tensor(vec![i(3), dft(4), dft(2)]),
            l(24, 12),
        ]);
        assert_eq!(out, want);
        assert!(!TENSOR_COMMUTE.applies(&dft(4), &Params::NONE));
    }

    #[test]
    fn merges_the_first_matching_pair_only() {
        let f = compose(vec![
            dft(8),
            tensor(vec![dft(2), i(4)]),
            tensor(vec![d(1, 2), dft(4)]),
            tensor(vec![i(2), l(4, 2)]),
        ]);
        let out = MIXED_PRODUCT.apply(&f, &Params::NONE).unwrap();
        let want = compose(vec![
            dft(8),
            tensor(vec![
                compose(vec![dft(2), d(1, 2)]),
                compose(vec![i(4), dft(4)]),
            ]),
            tensor(vec![i(2), l(4, 2)]),
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn a_pair_of_two_factors_becomes_a_tensor() {
        let f = compose(vec![tensor(vec![dft(2), i(4)]), tensor(vec![i(2), dft(4)])]);
        let out = MIXED_PRODUCT.apply(&f, &Params::NONE).unwrap();
        assert!(matches!(out, Formula::Tensor(_)));
    }

    #[test]
    fn needs_equal_shapes() {
        let mismatched = compose(vec![tensor(vec![dft(2), i(4)]), tensor(vec![i(4), dft(2)])]);
        assert!(!MIXED_PRODUCT.applies(&mismatched, &Params::NONE));
        let lengths = compose(vec![
            tensor(vec![dft(2), i(2), i(2)]),
            tensor(vec![dft(2), i(4)]),
        ]);
        assert!(!MIXED_PRODUCT.applies(&lengths, &Params::NONE));
        assert!(!MIXED_PRODUCT.applies(&tensor(vec![dft(2), i(4)]), &Params::NONE));
    }
}
