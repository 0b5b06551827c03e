//! The Stockham FFT (2010, (12)).

use super::{compose, d, dft, i, l, log_exact, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// DFT(2^k) = ∏_{i=0}^{k−1} (DFT(2) ⊗ I(2^(k−1))) · (D(2, 2^(k−i−1)) ⊗ I(2^i))
///            · (L(2^(k−i), 2) ⊗ I(2^i)), the factor i = 0 leftmost.
pub(super) const STOCKHAM: Rule = Rule {
    name: "stockham",
    source: "2010 (12)",
    identity: "DFT(2^k) = ∏_{i=0..k−1} (DFT(2) ⊗ I(2^(k−1))) · (D(2, 2^(k−i−1)) ⊗ I(2^i)) \
               · (L(2^(k−i), 2) ⊗ I(2^i)), the factor i = 0 leftmost",
    condition: "DFT(2^k) with k ≥ 2",
    parameter: None,
    kind: RuleKind::Breakdown,
    applies: power_of_two_at_least_4,
    apply,
};

/// The named condition: `f` is DFT(2^k) with k ≥ 2 (DFT(2) is its own Stockham form).
fn power_of_two_at_least_4(f: &Formula, _: &Params) -> bool {
    exponent(f).is_some()
}

fn exponent(f: &Formula) -> Option<u32> {
    let Formula::Dft(n) = f else { return None };
    log_exact(*n, 2).filter(|&k| k >= 2)
}

fn apply(f: &Formula, _: &Params) -> Option<Formula> {
    let k = exponent(f)?;
    let pow = |e: u32| 1u64 << e;
    let mut factors = Vec::with_capacity(3 * k as usize);
    for s in 0..k {
        factors.push(tensor(vec![dft(2), i(pow(k - 1))]));
        factors.push(tensor(vec![d(2, pow(k - s - 1)), i(pow(s))]));
        factors.push(tensor(vec![l(pow(k - s), 2), i(pow(s))]));
    }
    Some(compose(factors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dft4_has_two_stages_of_three_factors() {
        let out = STOCKHAM.apply(&Formula::Dft(4), &Params::NONE).unwrap();
        let want = compose(vec![
            tensor(vec![dft(2), i(2)]),
            tensor(vec![d(2, 2), i(1)]),
            tensor(vec![l(4, 2), i(1)]),
            tensor(vec![dft(2), i(2)]),
            tensor(vec![d(2, 1), i(2)]),
            tensor(vec![l(2, 2), i(2)]),
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn needs_a_power_of_two_of_at_least_four() {
        let a = |n| STOCKHAM.applies(&Formula::Dft(n), &Params::NONE);
        assert!(a(4) && a(1 << 20));
        assert!(!a(2) && !a(1) && !a(12));
        assert!(!STOCKHAM.applies(&Formula::Identity(4), &Params::NONE));
    }
}
