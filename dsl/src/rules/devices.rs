//! The identities that split a transform over G devices, each holding a contiguous block
//! of N/G elements.
//!
//! On G devices a factor `I(G) ⊗ A` is local: device d applies A to its own block. The one
//! non-local factor needed is the all-to-all exchange
//!
//! E(G, N) = L(G², G) ⊗ I(N/G²),
//!
//! which splits every block into G chunks of N/G² elements and sends chunk c of device d
//! to slot d of device c (it swaps the two top base-G digits of the index, so E · E = I).
//! Both rules below are SPIRAL's commutation theorem, A ⊗ I(n) = L(mn, m) · (I(n) ⊗ A) ·
//! L(mn, n) (2017, (14)), taken on the top two base-G digits only, so that everything
//! between two exchanges stays local.

use super::{compose, i, l, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// A ⊗ I(M) = E · (I(G) ⊗ A ⊗ I(M/G)) · E, for A of order G.
pub(super) const DEVICE_COMMUTE: Rule = Rule {
    name: "device_commute",
    source: "2017 (14) on the top two base-G digits",
    identity: "A ⊗ I(M) = E · (I(G) ⊗ A ⊗ I(M/G)) · E with E = L(G^2, G) ⊗ I(M/G), A of order G",
    condition: "A ⊗ I(M) with A of order G (the number of devices) and G dividing M",
    parameter: Some("G, the number of devices"),
    kind: RuleKind::Search,
    applies: commutes_over_devices,
    apply: commute_over_devices,
};

/// L(G·M, G) = E · (I(G) ⊗ L(M, G)).
pub(super) const DEVICE_STRIDE: Rule = Rule {
    name: "device_stride",
    source: "2017 (14) on the top two base-G digits",
    identity: "L(G·M, G) = E · (I(G) ⊗ L(M, G)) with E = L(G^2, G) ⊗ I(M/G)",
    condition: "L(G·M, G) with G (the number of devices) dividing M",
    parameter: Some("G, the number of devices"),
    kind: RuleKind::Search,
    applies: strides_over_devices,
    apply: stride_over_devices,
};

/// The all-to-all exchange E(G, N) = L(G², G) ⊗ I(N/G²) of N elements over G devices.
///
/// ```
/// use fermat_dsl::rules::exchange;
/// assert_eq!(exchange(2, 16).ascii(), "L(4,2) (x) I(4)");
/// ```
pub fn exchange(g: u64, n: u64) -> Formula {
    tensor(vec![l(g * g, g), i(n / (g * g))])
}

/// G, if it is at least 2.
fn devices(p: &Params) -> Option<u64> {
    p.devices.filter(|&g| g >= 2)
}

/// (A, M) for `f` = A ⊗ I(M) with A of order G and G | M.
fn split(f: &Formula, p: &Params) -> Option<(Formula, u64)> {
    let g = devices(p)?;
    let Formula::Tensor(fs) = f else { return None };
    let [a, Formula::Identity(m)] = fs.as_slice() else {
        return None;
    };
    (a.size() == g && m % g == 0).then(|| (a.clone(), *m))
}

fn commutes_over_devices(f: &Formula, p: &Params) -> bool {
    split(f, p).is_some()
}

fn commute_over_devices(f: &Formula, p: &Params) -> Option<Formula> {
    let (a, m) = split(f, p)?;
    let g = a.size();
    let e = exchange(g, g * m);
    Some(compose(vec![e.clone(), tensor(vec![i(g), a, i(m / g)]), e]))
}

/// M for `f` = L(G·M, G) with G | M.
fn stride_size(f: &Formula, p: &Params) -> Option<u64> {
    let g = devices(p)?;
    let &Formula::Stride { n, m } = f else {
        return None;
    };
    (m == g && n % (g * g) == 0).then_some(n / g)
}

fn strides_over_devices(f: &Formula, p: &Params) -> bool {
    stride_size(f, p).is_some()
}

fn stride_over_devices(f: &Formula, p: &Params) -> Option<Formula> {
    let m = stride_size(f, p)?;
    let g = p.devices?;
    Some(compose(vec![
        exchange(g, g * m),
        tensor(vec![i(g), l(m, g)]),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Fp32;
    use crate::interp::dense_matrix;

    /// Whether `a` and `b` are the same matrix over 469762049.
    fn same_matrix(a: &Formula, b: &Formula) -> bool {
        let f = Fp32::new(469762049).unwrap();
        dense_matrix(&f, a).unwrap() == dense_matrix(&f, b).unwrap()
    }

    #[test]
    fn both_identities_hold() {
        for (g, m) in [(2, 2), (2, 8), (4, 4), (4, 16), (8, 8)] {
            let p = Params::devices(g);
            let lhs = tensor(vec![Formula::Dft(g), i(m)]);
            let rhs = DEVICE_COMMUTE.apply(&lhs, &p).unwrap();
            assert_eq!(rhs.checked_size().unwrap(), g * m);
            assert!(same_matrix(&lhs, &rhs), "commute G = {g}, M = {m}");
            let lhs = l(g * m, g);
            let rhs = DEVICE_STRIDE.apply(&lhs, &p).unwrap();
            assert!(same_matrix(&lhs, &rhs), "stride G = {g}, M = {m}");
        }
    }

    #[test]
    fn the_exchange_is_an_involution() {
        let e = exchange(4, 64);
        assert!(same_matrix(&compose(vec![e.clone(), e]), &i(64)));
    }

    #[test]
    fn conditions_name_the_device_count() {
        let p = Params::devices(4);
        let ok = tensor(vec![Formula::Dft(4), i(8)]);
        assert!(DEVICE_COMMUTE.applies(&ok, &p));
        assert!(
            !DEVICE_COMMUTE.applies(&ok, &Params::devices(2)),
            "A of order G"
        );
        assert!(!DEVICE_COMMUTE.applies(&ok, &Params::NONE));
        assert!(!DEVICE_COMMUTE.applies(&tensor(vec![Formula::Dft(4), i(2)]), &p));
        assert!(DEVICE_STRIDE.applies(&l(64, 4), &p));
        assert!(!DEVICE_STRIDE.applies(&l(64, 8), &p));
        assert!(!DEVICE_STRIDE.applies(&l(8, 4), &p), "G² must divide N");
        assert!(!DEVICE_STRIDE.applies(&l(64, 4), &Params::devices(1)));
    }
}
