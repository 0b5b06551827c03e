//! The base-case expansion of DFT(2k) into DFT(2)s (Mohajerani's thesis, §6: DFT16).
//!
//! Over an SRGFN with K = 2k, ω_K = r, so every twiddle inside DFT(K), and inside the
//! DFT(K/2), DFT(K/4), … it recurses into (taken at ω_{K/2} = r^2, …), is a power of r:
//! a digit shift, never a full multiplication.

use super::{compose, d, dft, i, l, log_exact, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// DFT(n) = L(n,2) · (I(n/2) ⊗ DFT(2)) · L(n,n/2) · D(2,n/2) · (I(2) ⊗ DFT(n/2)) · L(n,2).
pub(super) const BASE_CASE_DFT2K: Rule = Rule {
    name: "base_case_dft2k",
    source: "thesis §6 DFT16",
    identity: "DFT(n) = L(n,2) · (I(n/2) ⊗ DFT(2)) · L(n,n/2) · D(2,n/2) · (I(2) ⊗ DFT(n/2)) \
               · L(n,2)",
    condition: "DFT(n) with n a power of two, n ≥ 4",
    parameter: None,
    kind: RuleKind::Breakdown,
    applies: power_of_two_at_least_4,
    apply,
};

/// The named condition: `f` is DFT(n) with n = 2^j ≥ 4.
fn power_of_two_at_least_4(f: &Formula, _: &Params) -> bool {
    half(f).is_some()
}

fn half(f: &Formula) -> Option<u64> {
    let Formula::Dft(n) = f else { return None };
    log_exact(*n, 2).filter(|&j| j >= 2).map(|_| n / 2)
}

fn apply(f: &Formula, _: &Params) -> Option<Formula> {
    let h = half(f)?;
    let n = 2 * h;
    Some(compose(vec![
        l(n, 2),
        tensor(vec![i(h), dft(2)]),
        l(n, h),
        d(2, h),
        tensor(vec![i(2), dft(h)]),
        l(n, 2),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dft16_is_the_thesis_formula() {
        let out = BASE_CASE_DFT2K
            .apply(&Formula::Dft(16), &Params::NONE)
            .unwrap();
        let want = compose(vec![
            l(16, 2),
            tensor(vec![i(8), dft(2)]),
            l(16, 8),
            d(2, 8),
            tensor(vec![i(2), dft(8)]),
            l(16, 2),
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn stops_at_dft2() {
        let a = |n| BASE_CASE_DFT2K.applies(&Formula::Dft(n), &Params::NONE);
        assert!(a(4) && a(8) && a(1 << 30));
        assert!(!a(2) && !a(1) && !a(6) && !a(12));
    }
}
