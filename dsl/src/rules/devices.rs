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
//! `device_commute` and `device_stride` are SPIRAL's commutation theorem, A ⊗ I(n) =
//! L(mn, m) · (I(n) ⊗ A) · L(mn, n) (2017, (14)), taken on the top two base-G digits only,
//! so that everything between two exchanges stays local.
//!
//! `device_fold` breaks DFT(N), N = G·M, M = G·s, down for data that is cyclic on both
//! sides: Cooley–Tukey (2017, (9)) with the radix M, each block's DFT(M) by the transpose
//! of (9) with G rows (a radix-G decimation in frequency), and the G-point butterflies
//! moved past one exchange. Between its input and output distributions (the outer
//! L(N, G) and L(N, M)) every device folds its block into G rows of s points, transforms
//! each row on its own, exchanges row e with device e, twiddles and combines:
//!
//! DFT(N) = L(N, M) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G) · D(G, M) · L(N, M) · E ·
//! (I(G) ⊗ I(G) ⊗ DFT(s)) · (I(G) ⊗ D(G, s)) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G).
//!
//! L(N, G) · D(G, M) · L(N, M) is the twiddle D(G, M) read on the exchanged index: L(N, M)
//! rotates the digits (e, d, j) of an index e·M + d·s + j to (d, j, e), so device e
//! scales its element d·s + j by ω_N^(d·(G·j + e)).

use super::{compose, d, dft, i, l, tensor, Params, Rule, RuleKind};
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

/// DFT(N) = L(N, M) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G) · D(G, M) · L(N, M) · E ·
/// (I(G) ⊗ I(G) ⊗ DFT(s)) · (I(G) ⊗ D(G, s)) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G), for
/// N = G·M, M = G·s.
pub(super) const DEVICE_FOLD: Rule = Rule {
    name: "device_fold",
    source: "2017 (9) with the radix M, its transpose on each block, and (14)",
    identity: "DFT(N) = L(N, M) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G) · D(G, M) · L(N, M) · E · \
               (I(G) ⊗ I(G) ⊗ DFT(s)) · (I(G) ⊗ D(G, s)) · (I(G) ⊗ DFT(G) ⊗ I(s)) · L(N, G) \
               with N = G·M, M = G·s, E = L(G^2, G) ⊗ I(s)",
    condition: "DFT(N) with G^2 dividing N, G (the number of devices) at least 2",
    parameter: Some("G, the number of devices"),
    kind: RuleKind::Breakdown,
    applies: folds_over_devices,
    apply: fold_over_devices,
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

/// (G, s) for `f` = DFT(G²·s).
fn fold_sizes(f: &Formula, p: &Params) -> Option<(u64, u64)> {
    let g = devices(p)?;
    let &Formula::Dft(n) = f else { return None };
    let gg = g.checked_mul(g)?;
    (n % gg == 0).then_some((g, n / gg))
}

fn folds_over_devices(f: &Formula, p: &Params) -> bool {
    fold_sizes(f, p).is_some()
}

fn fold_over_devices(f: &Formula, p: &Params) -> Option<Formula> {
    let (g, s) = fold_sizes(f, p)?;
    let (m, n) = (g * s, g * g * s);
    // The G-point butterflies of the fold (first) and of the combination (last).
    let butterflies = || tensor(vec![i(g), dft(g), i(s)]);
    Some(compose(vec![
        l(n, m),
        butterflies(),
        l(n, g),
        d(g, m),
        l(n, m),
        exchange(g, n),
        tensor(vec![i(g), i(g), dft(s)]),
        tensor(vec![i(g), d(g, s)]),
        butterflies(),
        l(n, g),
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
    fn the_fold_is_the_dft() {
        for (g, n) in [
            (2, 4),
            (2, 8),
            (2, 32),
            (4, 16),
            (4, 64),
            (4, 256),
            (8, 64),
            (8, 128),
            (16, 256),
        ] {
            let lhs = Formula::Dft(n);
            let rhs = DEVICE_FOLD.apply(&lhs, &Params::devices(g)).unwrap();
            assert_eq!(rhs.checked_size().unwrap(), n);
            assert!(same_matrix(&lhs, &rhs), "fold G = {g}, N = {n}");
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
        assert!(DEVICE_FOLD.applies(&Formula::Dft(16), &p), "N = G²");
        assert!(DEVICE_FOLD.applies(&Formula::Dft(64), &p));
        assert!(
            !DEVICE_FOLD.applies(&Formula::Dft(8), &p),
            "G² must divide N"
        );
        assert!(!DEVICE_FOLD.applies(&Formula::Dft(16), &Params::devices(1)));
        assert!(!DEVICE_FOLD.applies(&Formula::Dft(16), &Params::NONE));
        assert!(!DEVICE_FOLD.applies(&i(16), &p), "a DFT only");
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
