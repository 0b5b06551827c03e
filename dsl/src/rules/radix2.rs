//! The radix-2 unrolling of Cooley–Tukey down to a base case DFT(m) (2010, (10)).

use super::{compose, d, delta, i, l, log_exact, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// DFT(2^k) = [∏_{i=1}^{k−ℓ} Δ(2^(i−1), 2, 2^(k−i)) · (I(2^(i−1)) ⊗ D(2, 2^(k−i)))]
///            · Δ(2^(k−ℓ), m, 1) · [∏_{i=k−ℓ}^{1} (I(2^(i−1)) ⊗ L(2^(k−i+1), 2))], m = 2^ℓ.
pub(super) const RADIX2_UNROLL: Rule = Rule {
    name: "radix2_unroll",
    source: "2010 (10)",
    identity: "DFT(2^k) = [∏_{i=1..k−ℓ} Δ(2^(i−1), 2, 2^(k−i)) · (I(2^(i−1)) ⊗ D(2, 2^(k−i)))] \
               · Δ(2^(k−ℓ), m, 1) · [∏_{i=k−ℓ..1} (I(2^(i−1)) ⊗ L(2^(k−i+1), 2))], \
               m = 2^ℓ, Δ(i, j, h) = I(i) ⊗ DFT(j) ⊗ I(h)",
    condition: "DFT(2^k) with the base case m = K = 2^ℓ, 1 ≤ ℓ < k",
    parameter: Some("K, the base case size m"),
    kind: RuleKind::Breakdown,
    applies: power_of_two_above_base,
    apply,
};

/// The named condition: `f` is DFT(2^k) and the radix is m = 2^ℓ with 1 ≤ ℓ < k.
fn power_of_two_above_base(f: &Formula, p: &Params) -> bool {
    exponents(f, p).is_some()
}

fn exponents(f: &Formula, p: &Params) -> Option<(u32, u32)> {
    let (Formula::Dft(n), Some(m)) = (f, p.radix) else {
        return None;
    };
    let k = log_exact(*n, 2)?;
    let ell = log_exact(m, 2)?;
    (1 <= ell && ell < k).then_some((k, ell))
}

fn apply(f: &Formula, p: &Params) -> Option<Formula> {
    let (k, ell) = exponents(f, p)?;
    let pow = |e: u32| 1u64 << e;
    let mut factors = Vec::with_capacity(3 * (k - ell) as usize + 1);
    for s in 1..=k - ell {
        factors.push(delta(pow(s - 1), 2, pow(k - s)));
        factors.push(tensor(vec![i(pow(s - 1)), d(2, pow(k - s))]));
    }
    factors.push(delta(pow(k - ell), pow(ell), 1));
    for s in (1..=k - ell).rev() {
        factors.push(tensor(vec![i(pow(s - 1)), l(pow(k - s + 1), 2)]));
    }
    Some(compose(factors))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dft;

    #[test]
    fn unrolls_dft8_down_to_dft2() {
        let out = RADIX2_UNROLL
            .apply(&Formula::Dft(8), &Params::radix(2))
            .unwrap();
        let want = compose(vec![
            delta(1, 2, 4),
            tensor(vec![i(1), d(2, 4)]),
            delta(2, 2, 2),
            tensor(vec![i(2), d(2, 2)]),
            delta(4, 2, 1),
            tensor(vec![i(2), l(4, 2)]),
            tensor(vec![i(1), l(8, 2)]),
        ]);
        assert_eq!(out, want);
        assert_eq!(out.checked_size(), Ok(8));
    }

    #[test]
    fn keeps_the_base_case_whole() {
        let out = RADIX2_UNROLL
            .apply(&Formula::Dft(64), &Params::radix(16))
            .unwrap();
        let Formula::Compose(fs) = &out else {
            panic!("not a composition: {out:?}")
        };
        assert_eq!(fs.len(), 3 * 2 + 1);
        assert_eq!(fs[4], tensor(vec![i(4), dft(16), i(1)]));
    }

    #[test]
    fn needs_powers_of_two_with_a_smaller_base() {
        let a = |n, m| RADIX2_UNROLL.applies(&Formula::Dft(n), &Params::radix(m));
        assert!(a(4, 2));
        assert!(!a(16, 16));
        assert!(!a(16, 32));
        assert!(!a(24, 2));
        assert!(!a(64, 8 * 3));
        assert!(!a(64, 1));
        assert!(!RADIX2_UNROLL.applies(&Formula::Dft(64), &Params::NONE));
    }
}
