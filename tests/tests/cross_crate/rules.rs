//! Every rewrite rule is an identity: both sides give the same operator, checked with the
//! reference interpreter over a word prime (469762049 = 7·2^26 + 1) and an SRGFN (P2, and
//! P3/P4 for the base cases of their K), on generated instances of every size the
//! generators reach (proptest, fixed seeds).
//!
//! One helper, [`verify_rule`], does every comparison: dense matrices for small sizes,
//! seeded random vectors for large ones.

use fermat_dsl::derive::{positions, subterm};
use fermat_dsl::formula::Formula;
use fermat_dsl::interp::{self, Interpreter};
use fermat_dsl::rules::{self, Params, Rule, RuleKind};
use fermat_dsl::{AnyField, Field, Fp32};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cell::Cell;

/// Sizes up to this are compared as dense matrices; larger ones on random vectors.
const DENSE_UP_TO: u64 = 32;
/// Random vectors per comparison above [`DENSE_UP_TO`].
const VECTORS: usize = 2;
/// Generated instances per rule.
const CASES: u32 = 24;

/// Checks that `rule` applies to `lhs` and that its right-hand side is the same operator
/// over `field`: same size, and equal dense matrices (small sizes) or equal images of
/// [`VECTORS`] random vectors drawn from `seed` (large sizes); and that a normalising
/// rule lowers the size measure.
fn verify_rule<F: Field>(
    field: &F,
    rule: &Rule,
    params: &Params,
    lhs: &Formula,
    seed: u64,
) -> Result<(), String> {
    let name = rule.name;
    if !rule.applies(lhs, params) {
        return Err(format!("{name} does not apply to {lhs} with {params:?}"));
    }
    let rhs = rule
        .apply(lhs, params)
        .ok_or_else(|| format!("{name} applies to {lhs} but produces nothing"))?;
    if rule.kind == RuleKind::Normalising && rules::measure(&rhs) >= rules::measure(lhs) {
        return Err(format!(
            "{name} is normalising but does not lower the measure: {lhs} -> {rhs}"
        ));
    }
    let size = lhs.size();
    if rhs.checked_size() != Ok(size) {
        return Err(format!(
            "{name}: {lhs} has size {size} but {rhs} has {:?}",
            rhs.checked_size()
        ));
    }
    let err = |e: interp::InterpError| format!("{name}: {lhs} = {rhs}: {e}");
    if size <= DENSE_UP_TO {
        let a = interp::dense_matrix(field, lhs).map_err(err)?;
        let b = interp::dense_matrix(field, &rhs).map_err(err)?;
        if a != b {
            return Err(format!(
                "{name}: the dense matrices of {lhs} and {rhs} differ over {}",
                field.name()
            ));
        }
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut it = Interpreter::new(field);
        for v in 0..VECTORS {
            let x: Vec<F::Elem> = (0..size).map(|_| field.random(&mut rng)).collect();
            let a = it.apply(lhs, &x).map_err(err)?;
            let b = it.apply(&rhs, &x).map_err(err)?;
            if a != b {
                return Err(format!(
                    "{name}: {lhs} and {rhs} differ on random vector {v} (seed {seed}) over {}",
                    field.name()
                ));
            }
        }
    }
    Ok(())
}

fn word() -> Fp32 {
    Fp32::new(469_762_049).expect("469762049 is prime")
}

fn srgfn(name: &str) -> AnyField {
    AnyField::from_spec(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn p2() -> fermat_dsl::Srgfn<4> {
    match srgfn("P2") {
        AnyField::Srgfn4(f) => f,
        other => panic!("P2 built as {other:?}"),
    }
}

fn runner() -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases: CASES,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}

fn i(n: u64) -> Formula {
    Formula::Identity(n)
}

fn pow(e: u32) -> u64 {
    1u64 << e
}

/// Random operators of size 2^log_n whose every leaf has a power-of-two size (so that
/// every field with enough 2-adicity evaluates them), nested up to `depth`.
fn operand(log_n: u32, depth: u32) -> BoxedStrategy<Formula> {
    let n = pow(log_n);
    let leaf = prop_oneof![
        Just(Formula::Dft(n)),
        Just(i(n)),
        (0..=log_n).prop_map(move |j| Formula::Stride { n, m: pow(j) }),
        (0..=log_n).prop_map(move |j| Formula::Twiddle {
            m: pow(j),
            n: n / pow(j)
        }),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let tensor = (0..=log_n).prop_flat_map(move |a| {
        (operand(a, depth - 1), operand(log_n - a, depth - 1))
            .prop_map(|(x, y)| Formula::Tensor(vec![x, y]))
    });
    let compose = (operand(log_n, depth - 1), operand(log_n, depth - 1))
        .prop_map(|(x, y)| Formula::Compose(vec![x, y]));
    prop_oneof![3 => leaf, 1 => tensor, 1 => compose].boxed()
}

/// `parts` with an optional operand of size 2^log_n on either side, as a composition
/// (or the single part alone when nothing is added and there is one part).
fn in_composition(log_n: u32, parts: Vec<Formula>) -> BoxedStrategy<Formula> {
    (
        prop::option::of(operand(log_n, 1)),
        prop::option::of(operand(log_n, 1)),
    )
        .prop_map(move |(before, after)| {
            let mut fs: Vec<Formula> = before.into_iter().collect();
            fs.extend(parts.iter().cloned());
            fs.extend(after);
            if fs.len() == 1 {
                fs.pop().expect("one factor")
            } else {
                Formula::Compose(fs)
            }
        })
        .boxed()
}

/// Instances of the rule called `name`: parameters and a formula it applies to.
fn instances(name: &str) -> BoxedStrategy<(Params, Formula)> {
    transform_instances(name)
        .or_else(|| identity_instances(name))
        .unwrap_or_else(|| panic!("no instance generator for rule {name}: add one"))
}

/// Parameter-free instances of a rule.
fn none(s: BoxedStrategy<Formula>) -> BoxedStrategy<(Params, Formula)> {
    s.prop_map(|f| (Params::NONE, f)).boxed()
}

/// Instances of the rules that factor a transform or spread it over devices.
fn transform_instances(name: &str) -> Option<BoxedStrategy<(Params, Formula)>> {
    Some(match name {
        "cooley_tukey" | "radix2_unroll" => (2u32..=9)
            .prop_flat_map(|a| (Just(a), 1..a))
            .prop_map(|(a, b)| (Params::radix(pow(b)), Formula::Dft(pow(a))))
            .boxed(),
        "stockham" | "base_case_dft2k" => {
            none((2u32..=9).prop_map(|k| Formula::Dft(pow(k))).boxed())
        }
        "prop3" => (1u32..=5, 2u32..=5)
            .prop_filter("N ≤ 2^9", |(b, e)| b * e <= 9)
            .prop_map(|(b, e)| (Params::radix(pow(b)), Formula::Dft(pow(b * e))))
            .boxed(),
        "prop2" => none(
            (0u32..=3, 1u32..=4, 0u32..=3, any::<bool>(), any::<bool>())
                .prop_map(|(a, k, b, literal_round, literal_twiddle)| {
                    let (a, k, b) = (pow(a), pow(k), pow(b));
                    let round = if literal_round || (a > 1 && b > 1) {
                        Formula::Tensor(vec![i(a), Formula::Dft(k), i(b)])
                    } else if a > 1 {
                        Formula::Tensor(vec![i(a), Formula::Dft(k)])
                    } else if b > 1 {
                        Formula::Tensor(vec![Formula::Dft(k), i(b)])
                    } else {
                        Formula::Dft(k)
                    };
                    let d = Formula::Twiddle { m: k, n: b };
                    let twiddle = if literal_twiddle || a > 1 {
                        Formula::Tensor(vec![i(a), d])
                    } else {
                        d
                    };
                    Formula::Compose(vec![round, twiddle])
                })
                .boxed(),
        ),
        "tensor_commute" => none(
            (0u32..=4, 0u32..=4, prop::option::of(0u32..=2))
                .prop_flat_map(|(a, b, c)| {
                    let mut parts = vec![operand(a, 1), operand(b, 1)];
                    parts.extend(c.map(|c| operand(c, 1)));
                    parts.prop_map(Formula::Tensor)
                })
                .boxed(),
        ),
        "device_commute" => (1u32..=3, 0u32..=3)
            .prop_flat_map(|(g, extra)| {
                operand(g, 1).prop_map(move |a| {
                    (
                        Params::devices(pow(g)),
                        Formula::Tensor(vec![a, i(pow(g + extra))]),
                    )
                })
            })
            .boxed(),
        "device_fold" => (1u32..=3, 0u32..=3)
            .prop_map(|(g, extra)| (Params::devices(pow(g)), Formula::Dft(pow(2 * g + extra))))
            .boxed(),
        "device_stride" => (1u32..=3, 0u32..=3)
            .prop_map(|(g, extra)| {
                let (g_, m) = (pow(g), pow(g + extra));
                (Params::devices(g_), Formula::Stride { n: g_ * m, m: g_ })
            })
            .boxed(),
        _ => return None,
    })
}

/// Instances of the algebraic identities: commuting, flattening, units and inverses.
fn identity_instances(name: &str) -> Option<BoxedStrategy<(Params, Formula)>> {
    Some(match name {
        "mixed_product" => none(
            (0u32..=3, 0u32..=3)
                .prop_flat_map(|(a, b)| {
                    (operand(a, 1), operand(b, 1), operand(a, 1), operand(b, 1)).prop_flat_map(
                        move |(x, y, z, w)| {
                            in_composition(
                                a + b,
                                vec![Formula::Tensor(vec![x, y]), Formula::Tensor(vec![z, w])],
                            )
                        },
                    )
                })
                .boxed(),
        ),
        "flatten" => none(
            (0u32..=5, 0..3usize)
                .prop_flat_map(|(n, kind)| {
                    (operand(n, 1), operand(n, 1), operand(n, 1)).prop_map(move |(x, y, z)| {
                        match kind {
                            0 => Formula::Compose(vec![x, Formula::Compose(vec![y, z])]),
                            1 => Formula::Tensor(vec![Formula::Tensor(vec![x, y]), z]),
                            _ => Formula::DirectSum(vec![x, Formula::DirectSum(vec![y, z])]),
                        }
                    })
                })
                .boxed(),
        ),
        "dft_trivial" => none(Just(Formula::Dft(1)).boxed()),
        "stride_trivial" => none(
            (0u32..=10, any::<bool>())
                .prop_map(|(n, full)| Formula::Stride {
                    n: pow(n),
                    m: if full { pow(n) } else { 1 },
                })
                .boxed(),
        ),
        "twiddle_trivial" => none(
            (0u32..=10, any::<bool>())
                .prop_map(|(n, rows)| {
                    let (m, n) = if rows { (1, pow(n)) } else { (pow(n), 1) };
                    Formula::Twiddle { m, n }
                })
                .boxed(),
        ),
        "tensor_unit" => none(
            (0u32..=5, 0u32..=4, 0..3usize)
                .prop_flat_map(|(a, b, at)| {
                    (operand(a, 1), operand(b, 1)).prop_map(move |(x, y)| {
                        let mut fs = vec![x, y];
                        fs.insert(at, i(1));
                        Formula::Tensor(fs)
                    })
                })
                .boxed(),
        ),
        "tensor_identity_merge" => none(
            (0u32..=3, 0u32..=3, 0u32..=3)
                .prop_flat_map(|(a, b, c)| {
                    prop::option::of(operand(c, 1)).prop_map(move |x| {
                        let mut fs = vec![i(pow(a)), i(pow(b))];
                        fs.extend(x);
                        Formula::Tensor(fs)
                    })
                })
                .boxed(),
        ),
        "direct_sum_identity_merge" => none(
            (0u32..=4, 0u32..=4, 0u32..=4)
                .prop_flat_map(|(a, b, c)| {
                    prop::option::of(operand(c, 1)).prop_map(move |x| {
                        let mut fs: Vec<Formula> = x.into_iter().collect();
                        fs.extend([i(pow(a)), i(pow(b))]);
                        Formula::DirectSum(fs)
                    })
                })
                .boxed(),
        ),
        "compose_identity" => none(
            (0u32..=6)
                .prop_flat_map(|n| {
                    operand(n, 1).prop_flat_map(move |x| in_composition(n, vec![x, i(pow(n))]))
                })
                .boxed(),
        ),
        "stride_inverse" => none(
            (1u32..=8)
                .prop_flat_map(|n| (Just(n), 0..=n))
                .prop_flat_map(|(n, m)| {
                    let (n_, m_) = (pow(n), pow(m));
                    in_composition(
                        n,
                        vec![
                            Formula::Stride { n: n_, m: m_ },
                            Formula::Stride { n: n_, m: n_ / m_ },
                        ],
                    )
                })
                .boxed(),
        ),
        _ => return None,
    })
}

#[test]
fn every_rule_holds_over_a_word_prime_and_an_srgfn() {
    let (w, p2) = (word(), p2());
    for rule in rules::registry() {
        let seed = Cell::new(0u64);
        runner()
            .run(&instances(rule.name), |(params, f)| {
                seed.set(seed.get() + 1);
                let seed = seed.get();
                verify_rule(&w, rule, &params, &f, seed).map_err(TestCaseError::fail)?;
                verify_rule(&p2, rule, &params, &f, seed).map_err(TestCaseError::fail)?;
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", rule.name));
    }
}

/// The breakdown rules at the sizes the SRGFNs use them: K = 2k, where every twiddle of
/// the base case is a power of r.
#[test]
fn breakdown_rules_hold_at_the_srgfn_base_sizes() {
    let find = |n| rules::find(n).unwrap();
    for (name, k) in [("P3", 16u64), ("P4", 32)] {
        let field = srgfn(name);
        fermat_dsl::with_field!(&field, f => {
            verify_rule(f, find("base_case_dft2k"), &Params::NONE, &Formula::Dft(k), 1).unwrap();
            verify_rule(f, find("base_case_dft2k"), &Params::NONE, &Formula::Dft(k / 2), 2).unwrap();
            verify_rule(f, find("prop2"), &Params::NONE, &rules::prop3::u(k, 2, 0), 3).unwrap();
            verify_rule(f, find("prop2"), &Params::NONE, &rules::prop3::u(k, 2, 1), 4).unwrap();
            if k == 16 {
                // DFT(K^2) by its defining sum: affordable for P3, slow for P4.
                verify_rule(f, find("prop3"), &Params::radix(k), &Formula::Dft(k * k), 5).unwrap();
                verify_rule(f, find("cooley_tukey"), &Params::radix(k), &Formula::Dft(k * k), 6)
                    .unwrap();
            }
        });
    }
}

#[test]
fn rules_hold_wherever_they_apply_in_random_formulas() {
    let (w, p2) = (word(), p2());
    let applied = Cell::new(0usize);
    runner()
        .run(&(0u32..=6).prop_flat_map(|n| operand(n, 3)), |f| {
            for p in positions(&f) {
                let node = subterm(&f, &p).expect("positions lead to nodes");
                for rule in rules::registry() {
                    for params in [Params::NONE, Params::radix(2), Params::radix(4)] {
                        if rule.applies(node, &params) {
                            applied.set(applied.get() + 1);
                            let seed = applied.get() as u64;
                            verify_rule(&w, rule, &params, node, seed)
                                .map_err(TestCaseError::fail)?;
                            verify_rule(&p2, rule, &params, node, seed)
                                .map_err(TestCaseError::fail)?;
                        }
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    let applied = applied.get();
    assert!(
        applied > 20,
        "only {applied} rule applications were exercised"
    );
}

#[test]
fn verify_rule_catches_a_false_identity() {
    // A rule whose right-hand side forgets the twiddles: not an identity.
    let ct = rules::find("cooley_tukey").unwrap();
    let lhs = Formula::Dft(16);
    let rhs = ct.apply(&lhs, &Params::radix(4)).unwrap();
    let Formula::Compose(mut fs) = rhs else {
        panic!("cooley_tukey gives a composition")
    };
    fs[1] = i(16);
    let wrong = Formula::Compose(fs);
    let w = word();
    let a = interp::dense_matrix(&w, &lhs).unwrap();
    let b = interp::dense_matrix(&w, &wrong).unwrap();
    assert_ne!(a, b, "dropping D(4,4) must change DFT(16)");
    let err = verify_rule(&w, ct, &Params::radix(64), &lhs, 0).unwrap_err();
    assert!(err.contains("does not apply"), "{err}");
}
