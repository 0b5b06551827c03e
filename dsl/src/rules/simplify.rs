//! The normalising rules: simplifications that follow from the operators' definitions.
//!
//! Each one strictly decreases [`measure`] (a weighted node count), so a normalisation
//! that applies them while any applies terminates. Commutation and the mixed product are
//! deliberately not here: they keep the measure or make it grow.

use super::{i, Params, Rule, RuleKind};
use crate::formula::Formula;

/// The size measure that normalisation decreases: the number of nodes, where an operator
/// leaf other than `I(n)` (`DFT`, `L`, `D`) weighs 2 and `I(n)` and every product node
/// (⊗, ·, ⊕) weigh 1.
///
/// Every normalising rule removes at least one node or turns a heavy leaf into `I(n)`, so
/// each of its steps lowers the measure by at least 1.
///
/// ```
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::rules::{self, Params};
///
/// let f = Formula::parse("I(1) (x) DFT(2)")?;
/// assert_eq!(rules::measure(&f), 1 + 1 + 2); // ⊗, I(1), DFT(2)
/// let g = rules::find("tensor_unit").unwrap().apply(&f, &Params::NONE).unwrap();
/// assert_eq!((rules::measure(&g), g), (2, Formula::Dft(2)));
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
pub fn measure(f: &Formula) -> u64 {
    match f {
        Formula::Identity(_) => 1,
        Formula::Dft(_) | Formula::Stride { .. } | Formula::Twiddle { .. } => 2,
        Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => {
            1 + fs.iter().map(measure).sum::<u64>()
        }
    }
}

/// A · (B · C) = A · B · C, and likewise for ⊗ and ⊕.
pub(super) const FLATTEN: Rule = Rule {
    name: "flatten",
    source: "associativity of ⊗, ·, ⊕",
    identity: "A · (B · C) = A · B · C, A ⊗ (B ⊗ C) = A ⊗ B ⊗ C, A ⊕ (B ⊕ C) = A ⊕ B ⊕ C",
    condition: "a product (⊗, · or ⊕) with a factor that is a product of the same kind \
                (all such factors are spliced in)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_nested_same_kind,
    apply: flatten,
};

/// DFT(1) = I(1).
pub(super) const DFT_TRIVIAL: Rule = Rule {
    name: "dft_trivial",
    source: "definition of DFT",
    identity: "DFT(1) = I(1)",
    condition: "DFT(1)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: is_dft1,
    apply: dft_trivial,
};

/// L(n,1) = L(n,n) = I(n).
pub(super) const STRIDE_TRIVIAL: Rule = Rule {
    name: "stride_trivial",
    source: "definition of L",
    identity: "L(n,1) = L(n,n) = I(n)",
    condition: "L(n,m) with m = 1 or m = n",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: is_trivial_stride,
    apply: stride_trivial,
};

/// D(1,n) = I(n), D(m,1) = I(m).
pub(super) const TWIDDLE_TRIVIAL: Rule = Rule {
    name: "twiddle_trivial",
    source: "definition of D",
    identity: "D(1,n) = I(n), D(m,1) = I(m)",
    condition: "D(m,n) with m = 1 or n = 1 (every exponent a·b is 0)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: is_trivial_twiddle,
    apply: twiddle_trivial,
};

/// I(1) ⊗ A = A = A ⊗ I(1).
pub(super) const TENSOR_UNIT: Rule = Rule {
    name: "tensor_unit",
    source: "definition of ⊗",
    identity: "I(1) ⊗ A = A = A ⊗ I(1)",
    condition: "a tensor product with a factor I(1) (all are removed)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_unit_factor,
    apply: tensor_unit,
};

/// I(a) ⊗ I(b) = I(ab).
pub(super) const TENSOR_IDENTITY_MERGE: Rule = Rule {
    name: "tensor_identity_merge",
    source: "definition of ⊗",
    identity: "I(a) ⊗ I(b) = I(ab)",
    condition: "a tensor product with two adjacent identity factors (every run is merged)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_adjacent_tensor_identities,
    apply: tensor_identity_merge,
};

/// I(a) ⊕ I(b) = I(a+b).
pub(super) const DIRECT_SUM_IDENTITY_MERGE: Rule = Rule {
    name: "direct_sum_identity_merge",
    source: "definition of ⊕",
    identity: "I(a) ⊕ I(b) = I(a+b)",
    condition: "a direct sum with two adjacent identity blocks (every run is merged)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_adjacent_sum_identities,
    apply: direct_sum_identity_merge,
};

/// A · I(n) = A = I(n) · A.
pub(super) const COMPOSE_IDENTITY: Rule = Rule {
    name: "compose_identity",
    source: "definition of ·",
    identity: "A · I(n) = A = I(n) · A",
    condition: "a composition with an identity factor (all are removed)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_identity_factor,
    apply: compose_identity,
};

/// L(n,m) · L(n,n/m) = I(n).
pub(super) const STRIDE_INVERSE: Rule = Rule {
    name: "stride_inverse",
    source: "definition of L",
    identity: "L(n,m) · L(n,n/m) = I(n)",
    condition: "a composition with adjacent factors L(n,m), L(n,n/m) (the first such pair)",
    parameter: None,
    kind: RuleKind::Normalising,
    applies: has_inverse_strides,
    apply: stride_inverse,
};

fn same_kind(parent: &Formula, child: &Formula) -> bool {
    matches!(
        (parent, child),
        (Formula::Tensor(_), Formula::Tensor(_))
            | (Formula::Compose(_), Formula::Compose(_))
            | (Formula::DirectSum(_), Formula::DirectSum(_))
    )
}

fn children(f: &Formula) -> &[Formula] {
    match f {
        Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => fs,
        _ => &[],
    }
}

/// The same kind of product as `like`, over `factors` (which has at least two).
fn rebuild(like: &Formula, factors: Vec<Formula>) -> Formula {
    match like {
        Formula::Tensor(_) => Formula::Tensor(factors),
        Formula::Compose(_) => Formula::Compose(factors),
        Formula::DirectSum(_) => Formula::DirectSum(factors),
        leaf => unreachable!("rebuild is only called on products, not on {leaf:?}"),
    }
}

/// The named condition of `flatten`.
fn has_nested_same_kind(f: &Formula, _: &Params) -> bool {
    children(f).iter().any(|c| same_kind(f, c))
}

fn flatten(f: &Formula, p: &Params) -> Option<Formula> {
    if !has_nested_same_kind(f, p) {
        return None;
    }
    fn splice(parent: &Formula, from: &[Formula], into: &mut Vec<Formula>) {
        for c in from {
            if same_kind(parent, c) {
                splice(parent, children(c), into);
            } else {
                into.push(c.clone());
            }
        }
    }
    let mut out = Vec::new();
    splice(f, children(f), &mut out);
    Some(rebuild(f, out))
}

/// The named condition of `dft_trivial`.
fn is_dft1(f: &Formula, _: &Params) -> bool {
    *f == Formula::Dft(1)
}

fn dft_trivial(f: &Formula, p: &Params) -> Option<Formula> {
    is_dft1(f, p).then(|| i(1))
}

/// The named condition of `stride_trivial`.
fn is_trivial_stride(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Stride { n, m } if *m == 1 || m == n)
}

fn stride_trivial(f: &Formula, p: &Params) -> Option<Formula> {
    is_trivial_stride(f, p).then(|| i(f.size()))
}

/// The named condition of `twiddle_trivial`.
fn is_trivial_twiddle(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Twiddle { m, n } if *m == 1 || *n == 1)
}

fn twiddle_trivial(f: &Formula, p: &Params) -> Option<Formula> {
    is_trivial_twiddle(f, p).then(|| i(f.size()))
}

/// The named condition of `tensor_unit`.
fn has_unit_factor(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Tensor(fs) if fs.contains(&Formula::Identity(1)))
}

fn tensor_unit(f: &Formula, p: &Params) -> Option<Formula> {
    if !has_unit_factor(f, p) {
        return None;
    }
    let kept: Vec<Formula> = children(f)
        .iter()
        .filter(|g| **g != Formula::Identity(1))
        .cloned()
        .collect();
    Some(collapse(f, kept, i(1)))
}

/// `like` rebuilt over `kept`, or its only factor, or `empty` if none is left.
fn collapse(like: &Formula, mut kept: Vec<Formula>, empty: Formula) -> Formula {
    match kept.len() {
        0 => empty,
        1 => kept.pop().expect("one factor is left"),
        _ => rebuild(like, kept),
    }
}

fn adjacent_identities(fs: &[Formula]) -> bool {
    fs.windows(2)
        .any(|w| matches!((&w[0], &w[1]), (Formula::Identity(_), Formula::Identity(_))))
}

/// Merges every run of adjacent identity factors with `merge` (product or sum of sizes).
fn merge_identity_runs(like: &Formula, merge: fn(u64, u64) -> u64) -> Formula {
    let mut out: Vec<Formula> = Vec::new();
    for g in children(like) {
        match (out.last_mut(), g) {
            (Some(Formula::Identity(a)), Formula::Identity(b)) => *a = merge(*a, *b),
            _ => out.push(g.clone()),
        }
    }
    collapse(like, out, i(1))
}

/// The named condition of `tensor_identity_merge`.
fn has_adjacent_tensor_identities(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Tensor(fs) if adjacent_identities(fs))
}

fn tensor_identity_merge(f: &Formula, p: &Params) -> Option<Formula> {
    // The product cannot overflow: it divides the size of the checked formula `f`.
    has_adjacent_tensor_identities(f, p).then(|| merge_identity_runs(f, |a, b| a * b))
}

/// The named condition of `direct_sum_identity_merge`.
fn has_adjacent_sum_identities(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::DirectSum(fs) if adjacent_identities(fs))
}

fn direct_sum_identity_merge(f: &Formula, p: &Params) -> Option<Formula> {
    has_adjacent_sum_identities(f, p).then(|| merge_identity_runs(f, |a, b| a + b))
}

/// The named condition of `compose_identity`.
fn has_identity_factor(f: &Formula, _: &Params) -> bool {
    matches!(f, Formula::Compose(fs) if fs.iter().any(|g| matches!(g, Formula::Identity(_))))
}

fn compose_identity(f: &Formula, p: &Params) -> Option<Formula> {
    if !has_identity_factor(f, p) {
        return None;
    }
    let kept: Vec<Formula> = children(f)
        .iter()
        .filter(|g| !matches!(g, Formula::Identity(_)))
        .cloned()
        .collect();
    Some(collapse(f, kept, i(f.size())))
}

/// The index of the first adjacent pair L(n,m) · L(n,n/m) of a composition.
fn inverse_strides(f: &Formula) -> Option<usize> {
    let Formula::Compose(fs) = f else { return None };
    fs.windows(2).position(|w| match (&w[0], &w[1]) {
        (Formula::Stride { n, m }, Formula::Stride { n: n2, m: m2 }) => n == n2 && m * m2 == *n,
        _ => false,
    })
}

/// The named condition of `stride_inverse`.
fn has_inverse_strides(f: &Formula, _: &Params) -> bool {
    inverse_strides(f).is_some()
}

fn stride_inverse(f: &Formula, _: &Params) -> Option<Formula> {
    let at = inverse_strides(f)?;
    let fs = children(f);
    let mut out = fs[..at].to_vec();
    out.push(i(f.size()));
    out.extend_from_slice(&fs[at + 2..]);
    Some(collapse(f, out, i(f.size())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{compose, d, dft, l, tensor};

    fn norm(rule: &Rule, f: &Formula) -> Option<Formula> {
        let out = rule.apply(f, &Params::NONE);
        assert_eq!(
            out.is_some(),
            rule.applies(f, &Params::NONE),
            "{}",
            rule.name
        );
        if let Some(g) = &out {
            assert!(measure(g) < measure(f), "{}: {f:?} -> {g:?}", rule.name);
            assert_eq!(g.checked_size(), Ok(f.size()), "{}", rule.name);
        }
        out
    }

    #[test]
    fn flatten_splices_nested_products_of_the_same_kind_only() {
        let f = compose(vec![
            dft(8),
            compose(vec![compose(vec![l(8, 2), i(8)]), d(2, 4)]),
            tensor(vec![i(2), tensor(vec![dft(2), i(2)])]),
        ]);
        let want = compose(vec![
            dft(8),
            l(8, 2),
            i(8),
            d(2, 4),
            tensor(vec![i(2), tensor(vec![dft(2), i(2)])]),
        ]);
        assert_eq!(norm(&FLATTEN, &f), Some(want));
        assert_eq!(norm(&FLATTEN, &tensor(vec![dft(2), i(2)])), None);
    }

    #[test]
    fn trivial_leaves_become_identities() {
        assert_eq!(norm(&DFT_TRIVIAL, &dft(1)), Some(i(1)));
        assert_eq!(norm(&DFT_TRIVIAL, &dft(2)), None);
        assert_eq!(norm(&STRIDE_TRIVIAL, &l(8, 1)), Some(i(8)));
        assert_eq!(norm(&STRIDE_TRIVIAL, &l(8, 8)), Some(i(8)));
        assert_eq!(norm(&STRIDE_TRIVIAL, &l(8, 2)), None);
        assert_eq!(norm(&TWIDDLE_TRIVIAL, &d(1, 8)), Some(i(8)));
        assert_eq!(norm(&TWIDDLE_TRIVIAL, &d(8, 1)), Some(i(8)));
        assert_eq!(norm(&TWIDDLE_TRIVIAL, &d(2, 4)), None);
    }

    #[test]
    fn tensor_unit_drops_every_i1() {
        let f = tensor(vec![i(1), dft(4), i(1), i(2)]);
        assert_eq!(norm(&TENSOR_UNIT, &f), Some(tensor(vec![dft(4), i(2)])));
        assert_eq!(
            norm(&TENSOR_UNIT, &tensor(vec![i(1), dft(4)])),
            Some(dft(4))
        );
        assert_eq!(norm(&TENSOR_UNIT, &tensor(vec![i(1), i(1)])), Some(i(1)));
        assert_eq!(norm(&TENSOR_UNIT, &tensor(vec![i(2), dft(4)])), None);
    }

    #[test]
    fn identity_runs_merge() {
        let f = tensor(vec![i(2), i(3), dft(4), i(5), i(7)]);
        assert_eq!(
            norm(&TENSOR_IDENTITY_MERGE, &f),
            Some(tensor(vec![i(6), dft(4), i(35)]))
        );
        assert_eq!(
            norm(&TENSOR_IDENTITY_MERGE, &tensor(vec![i(4), i(4)])),
            Some(i(16))
        );
        let s = Formula::DirectSum(vec![i(2), i(3), dft(4)]);
        assert_eq!(
            norm(&DIRECT_SUM_IDENTITY_MERGE, &s),
            Some(Formula::DirectSum(vec![i(5), dft(4)]))
        );
        assert_eq!(norm(&DIRECT_SUM_IDENTITY_MERGE, &f), None);
    }

    #[test]
    fn compose_identity_keeps_the_size() {
        let f = compose(vec![i(8), dft(8), i(8), l(8, 2)]);
        assert_eq!(
            norm(&COMPOSE_IDENTITY, &f),
            Some(compose(vec![dft(8), l(8, 2)]))
        );
        assert_eq!(
            norm(&COMPOSE_IDENTITY, &compose(vec![i(8), i(8)])),
            Some(i(8))
        );
        assert_eq!(
            norm(&COMPOSE_IDENTITY, &compose(vec![dft(8), i(8)])),
            Some(dft(8))
        );
    }

    #[test]
    fn inverse_strides_cancel() {
        let f = compose(vec![dft(8), l(8, 2), l(8, 4), d(2, 4)]);
        assert_eq!(
            norm(&STRIDE_INVERSE, &f),
            Some(compose(vec![dft(8), i(8), d(2, 4)]))
        );
        assert_eq!(
            norm(&STRIDE_INVERSE, &compose(vec![l(8, 2), l(8, 4)])),
            Some(i(8))
        );
        assert_eq!(
            norm(&STRIDE_INVERSE, &compose(vec![l(8, 2), l(8, 2)])),
            None
        );
    }

    #[test]
    fn measure_weighs_heavy_leaves_double() {
        assert_eq!(measure(&i(8)), 1);
        assert_eq!(measure(&dft(8)), 2);
        assert_eq!(
            measure(&compose(vec![dft(8), tensor(vec![i(2), l(4, 2)])])),
            1 + 2 + 1 + 1 + 2
        );
    }
}
