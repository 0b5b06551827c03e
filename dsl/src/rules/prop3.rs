//! The blocked FFT of the 2017 paper: the operators U_i, V_i, W_i of Notation 3 (13),
//! Proposition 2 (16) and Proposition 3 (17), for N = K^e.
//!
//! Proposition 3 makes DFT(K^e) e rounds of K^(e−1) independent DFT(K)s with twiddles
//! and permutations between them; Proposition 2 turns each round into a contiguous batch
//! I(K^(e−1)) ⊗ DFT(K) framed by permutations, the form the GPU code runs.

use super::{compose, d, dft, i, identity_frame, l, log_exact, tensor, Params, Rule, RuleKind};
use crate::formula::Formula;

/// U_i = (I(K^i) ⊗ DFT(K) ⊗ I(K^(e−i−1))) · (I(K^i) ⊗ D(K, K^(e−i−1))) (2017, (13)),
/// written out literally (with I(1) factors where i = 0 or i = e − 1).
///
/// ```
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::dense_matrix;
/// use fermat_dsl::rules::prop3::{u, v};
///
/// assert_eq!(u(4, 2, 0).to_string(), "I_1 ⊗ DFT_4 ⊗ I_4 · I_1 ⊗ D_{4,4}");
/// // Proposition 3 for K = 4, e = 2: DFT(16) = U_0 · U_1 · V_1 · V_0.
/// let prop3 = Formula::compose(vec![u(4, 2, 0), u(4, 2, 1), v(4, 2, 1), v(4, 2, 0)])?;
/// let f = Fp32::new(17)?;
/// assert_eq!(dense_matrix(&f, &prop3)?, dense_matrix(&f, &Formula::Dft(16))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn u(k: u64, e: u32, i_: u32) -> Formula {
    let (a, b) = (k.pow(i_), k.pow(e - i_ - 1));
    compose(vec![
        tensor(vec![i(a), dft(k), i(b)]),
        tensor(vec![i(a), d(k, b)]),
    ])
}

/// V_i = I(K^i) ⊗ L(K^(e−i), K) (2017, (13)).
///
/// ```
/// use fermat_dsl::rules::prop3::v;
///
/// assert_eq!(v(2, 3, 1).ascii(), "I(2) (x) L(4,2)");
/// assert_eq!(v(2, 3, 0).ascii(), "I(1) (x) L(8,2)");
/// ```
pub fn v(k: u64, e: u32, i_: u32) -> Formula {
    tensor(vec![i(k.pow(i_)), l(k.pow(e - i_), k)])
}

/// W_i = I(K^i) ⊗ (L(K^(e−i), K^(e−i−1)) · D(K, K^(e−i−1))) (2017, (13)).
///
/// ```
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::interp::dense_matrix;
/// use fermat_dsl::rules::prop3::{u, v, w};
///
/// assert_eq!(w(2, 3, 1).ascii(), "I(2) (x) (L(4,2) * D(2,2))");
/// // Proposition 2 for K = 2, e = 3, i = 1: U_1 = V_1 · (I(4) ⊗ DFT(2)) · W_1.
/// let batch = Formula::tensor(vec![Formula::identity(4)?, Formula::dft(2)?])?;
/// let prop2 = Formula::compose(vec![v(2, 3, 1), batch, w(2, 3, 1)])?;
/// let f = Fp32::new(17)?;
/// assert_eq!(dense_matrix(&f, &prop2)?, dense_matrix(&f, &u(2, 3, 1))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn w(k: u64, e: u32, i_: u32) -> Formula {
    let b = k.pow(e - i_ - 1);
    tensor(vec![i(k.pow(i_)), compose(vec![l(k * b, b), d(k, b)])])
}

/// DFT(K^e) = U_0 · U_1 ⋯ U_(e−1) · V_(e−1) ⋯ V_1 · V_0, each U_i a composition of its own.
pub(super) const PROP3: Rule = Rule {
    name: "prop3",
    source: "2017 Prop. 3 (17)",
    identity: "DFT(K^e) = U_0 · U_1 ⋯ U_(e−1) · V_(e−1) ⋯ V_1 · V_0, where \
               U_i = (I(K^i) ⊗ DFT(K) ⊗ I(K^(e−i−1))) · (I(K^i) ⊗ D(K, K^(e−i−1))) and \
               V_i = I(K^i) ⊗ L(K^(e−i), K)",
    condition: "DFT(N) with N = K^e, e ≥ 2, for the radix K ≥ 2",
    parameter: Some("K, the radix"),
    kind: RuleKind::Breakdown,
    applies: power_of_radix,
    apply: apply_prop3,
};

/// U_i = V_i · (I(K^(e−1)) ⊗ DFT(K)) · W_i, for any frame I(a) ⊗ … ⊗ I(b).
pub(super) const PROP2: Rule = Rule {
    name: "prop2",
    source: "2017 Prop. 2 (16)",
    identity: "U_i = V_i · (I(K^(e−1)) ⊗ DFT(K)) · W_i, where \
               U_i = (I(K^i) ⊗ DFT(K) ⊗ I(K^(e−i−1))) · (I(K^i) ⊗ D(K, K^(e−i−1))), \
               V_i = I(K^i) ⊗ L(K^(e−i), K), \
               W_i = I(K^i) ⊗ (L(K^(e−i), K^(e−i−1)) · D(K, K^(e−i−1)))",
    condition: "a composition (I(a) ⊗ DFT(K) ⊗ I(b)) · (I(a) ⊗ D(K, b)), K ≥ 2 (a = K^i, \
                b = K^(e−i−1) in the paper; the identity holds for any a, b ≥ 1)",
    parameter: None,
    kind: RuleKind::Search,
    applies: is_u,
    apply: apply_prop2,
};

/// The named condition of `prop3`: `f` is DFT(K^e) with e ≥ 2.
fn power_of_radix(f: &Formula, p: &Params) -> bool {
    radix_exponent(f, p).is_some()
}

fn radix_exponent(f: &Formula, p: &Params) -> Option<(u64, u32)> {
    let (Formula::Dft(n), Some(k)) = (f, p.radix) else {
        return None;
    };
    log_exact(*n, k).filter(|&e| e >= 2).map(|e| (k, e))
}

fn apply_prop3(f: &Formula, p: &Params) -> Option<Formula> {
    let (k, e) = radix_exponent(f, p)?;
    let us = (0..e).map(|s| u(k, e, s));
    let vs = (0..e).rev().map(|s| v(k, e, s));
    Some(compose(us.chain(vs).collect()))
}

/// The named condition of `prop2`: `f` is a U_i, i.e. (I(a) ⊗ DFT(K) ⊗ I(b)) ·
/// (I(a) ⊗ D(K, b)) with K ≥ 2, identity factors of size 1 written or not.
fn is_u(f: &Formula, _: &Params) -> bool {
    u_shape(f).is_some()
}

/// (a, K, b) of a U_i.
fn u_shape(f: &Formula) -> Option<(u64, u64, u64)> {
    let Formula::Compose(fs) = f else { return None };
    let [round, twiddle] = fs.as_slice() else {
        return None;
    };
    let (a, core, b) = identity_frame(round);
    let [Formula::Dft(k)] = core else { return None };
    let (a2, core2, b2) = identity_frame(twiddle);
    let [Formula::Twiddle { m, n }] = core2 else {
        return None;
    };
    (*k >= 2 && a2 == a && b2 == 1 && m == k && *n == b).then_some((a, *k, b))
}

fn apply_prop2(f: &Formula, _: &Params) -> Option<Formula> {
    let (a, k, b) = u_shape(f)?;
    Some(compose(vec![
        tensor(vec![i(a), l(k * b, k)]),
        tensor(vec![i(a * b), dft(k)]),
        tensor(vec![i(a), compose(vec![l(k * b, b), d(k, b)])]),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prop3_lists_the_us_then_the_vs_in_reverse() {
        let out = PROP3
            .apply(&Formula::Dft(4096), &Params::radix(16))
            .unwrap();
        let want = compose(vec![
            u(16, 3, 0),
            u(16, 3, 1),
            u(16, 3, 2),
            v(16, 3, 2),
            v(16, 3, 1),
            v(16, 3, 0),
        ]);
        assert_eq!(out, want);
        assert_eq!(out.checked_size(), Ok(4096));
        assert_eq!(
            u(16, 3, 1),
            compose(vec![
                tensor(vec![i(16), dft(16), i(16)]),
                tensor(vec![i(16), d(16, 16)]),
            ])
        );
        assert_eq!(v(16, 3, 2), tensor(vec![i(256), l(16, 16)]));
        assert_eq!(
            w(16, 3, 0),
            tensor(vec![i(1), compose(vec![l(4096, 256), d(16, 256)])])
        );
    }

    #[test]
    fn prop3_needs_an_exact_power() {
        let a = |n, k| PROP3.applies(&Formula::Dft(n), &Params::radix(k));
        assert!(a(256, 16) && a(8, 2) && a(1 << 20, 32));
        assert!(!a(16, 16), "e = 1 is the base case itself");
        assert!(!a(2048, 16));
        assert!(!a(256, 1));
        assert!(!PROP3.applies(&Formula::Dft(256), &Params::NONE));
    }

    #[test]
    fn prop2_rewrites_every_u_of_prop3() {
        for e in 1..=4 {
            for s in 0..e {
                let out = PROP2.apply(&u(8, e, s), &Params::NONE).unwrap();
                let want = compose(vec![
                    v(8, e, s),
                    tensor(vec![i(8u64.pow(e - 1)), dft(8)]),
                    w(8, e, s),
                ]);
                assert_eq!(out, want, "U_{s} for e = {e}");
            }
        }
    }

    #[test]
    fn prop2_sees_through_simplified_frames() {
        let simplified = compose(vec![tensor(vec![dft(4), i(16)]), d(4, 16)]);
        assert!(PROP2.applies(&simplified, &Params::NONE));
        let wrong_twiddle = compose(vec![tensor(vec![dft(4), i(16)]), d(16, 4)]);
        assert!(!PROP2.applies(&wrong_twiddle, &Params::NONE));
        let wrong_frame = compose(vec![
            tensor(vec![i(2), dft(4), i(8)]),
            tensor(vec![i(4), d(4, 4)]),
        ]);
        assert!(!PROP2.applies(&wrong_frame, &Params::NONE));
        let three = compose(vec![tensor(vec![dft(4), i(4)]), d(4, 4), i(16)]);
        assert!(!PROP2.applies(&three, &Params::NONE));
    }
}
