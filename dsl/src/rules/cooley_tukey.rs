//! The Cooley–Tukey factorisation (2017, (9)).

use super::{compose, d, dft, i, l, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// DFT(J·K) = (DFT(J) ⊗ I(K)) · D(J,K) · (I(J) ⊗ DFT(K)) · L(J·K, J), with K the radix.
pub(super) const COOLEY_TUKEY: Rule = Rule {
    name: "cooley_tukey",
    source: "2017 (9)",
    identity: "DFT(J·K) = (DFT(J) ⊗ I(K)) · D(J,K) · (I(J) ⊗ DFT(K)) · L(J·K, J)",
    condition: "DFT(N) with the radix K dividing N and 2 ≤ K < N (J = N/K)",
    parameter: Some("K, the radix"),
    kind: RuleKind::Breakdown,
    applies: radix_splits_dft,
    apply,
};

/// The named condition: `f` is DFT(N) and N = J·K with J, K ≥ 2 for the radix K.
fn radix_splits_dft(f: &Formula, p: &Params) -> bool {
    split(f, p).is_some()
}

fn split(f: &Formula, p: &Params) -> Option<(u64, u64)> {
    let (Formula::Dft(n), Some(k)) = (f, p.radix) else {
        return None;
    };
    (k >= 2 && k < *n && n % k == 0).then(|| (n / k, k))
}

fn apply(f: &Formula, p: &Params) -> Option<Formula> {
    let (j, k) = split(f, p)?;
    Some(compose(vec![
        tensor(vec![dft(j), i(k)]),
        d(j, k),
        tensor(vec![i(j), dft(k)]),
        l(j * k, j),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_off_the_radix_on_the_right() {
        let out = COOLEY_TUKEY
            .apply(&Formula::Dft(64), &Params::radix(16))
            .unwrap();
        let want = Formula::compose(vec![
            Formula::tensor(vec![Formula::Dft(4), Formula::Identity(16)]).unwrap(),
            Formula::Twiddle { m: 4, n: 16 },
            Formula::tensor(vec![Formula::Identity(4), Formula::Dft(16)]).unwrap(),
            Formula::Stride { n: 64, m: 4 },
        ])
        .unwrap();
        assert_eq!(out, want);
    }

    #[test]
    fn needs_a_proper_divisor_and_a_radix() {
        let ct = |n, p: Params| COOLEY_TUKEY.applies(&Formula::Dft(n), &p);
        assert!(ct(64, Params::radix(2)));
        assert!(ct(48, Params::radix(3)), "the identity holds for any split");
        assert!(!ct(16, Params::radix(16)), "K = N leaves nothing to split");
        assert!(!ct(8, Params::radix(16)));
        assert!(!ct(24, Params::radix(16)));
        assert!(!ct(64, Params::radix(1)));
        assert!(!ct(64, Params::NONE));
        assert!(!COOLEY_TUKEY.applies(&Formula::Identity(64), &Params::radix(2)));
    }
}
