use super::*;
use crate::formula::arbitrary::any_formula;
use proptest::prelude::*;

fn ct() -> &'static Rule {
    rules::find("cooley_tukey").unwrap()
}

#[test]
fn positions_are_paths_of_child_indices() {
    let f: Formula = "(DFT(2) ⊗ I(4)) · L(8,2)".parse().unwrap();
    assert_eq!(
        positions(&f),
        vec![vec![], vec![0], vec![0, 0], vec![0, 1], vec![1]]
    );
    assert_eq!(subterm(&f, &[0, 1]), Some(&Formula::Identity(4)));
    assert_eq!(subterm(&f, &[1, 0]), None);
    assert_eq!(subterm(&f, &[2]), None);
    assert_eq!(show_position(&[]), "root");
    assert_eq!(show_position(&[0, 2]), "[0, 2]");
}

#[test]
fn rewriter_records_subterms_and_replays() {
    let mut r = Rewriter::new(Formula::Dft(64));
    r.apply_at(ct(), &Params::radix(4), &[]).unwrap();
    r.apply_at(ct(), &Params::radix(4), &[0, 0]).unwrap();
    let d = r.clone().finish();
    assert_eq!(d.steps[1].position, vec![0, 0]);
    assert_eq!(d.steps[1].before, Formula::Dft(16));
    assert_eq!(d.final_formula(), *r.current());
    let wholes = d.replay().unwrap();
    assert_eq!(wholes.len(), 2);
    assert_eq!(wholes[1], *r.current());
}

#[test]
fn rewriter_refuses_bad_positions_and_conditions() {
    let mut r = Rewriter::new(Formula::Dft(64));
    let err = r.apply_at(ct(), &Params::radix(4), &[3]).unwrap_err();
    assert!(
        err.to_string().contains("position [3] does not exist"),
        "{err}"
    );
    let err = r.apply_at(ct(), &Params::radix(64), &[]).unwrap_err();
    assert!(err.to_string().contains("2 ≤ K < N"), "{err}");
    let err = r.apply_named("no_rule", &Params::NONE, &[]).unwrap_err();
    assert!(err.to_string().contains("unknown rule 'no_rule'"), "{err}");
    let commute = rules::find("tensor_commute").unwrap();
    assert_eq!(
        r.apply_everywhere(commute, &Params::NONE),
        Err(DeriveError::WouldNotTerminate {
            rule: "tensor_commute"
        })
    );
    assert!(r.steps().is_empty(), "failed applications leave no step");
}

#[test]
fn replay_reports_a_step_that_does_not_fit() {
    let mut r = Rewriter::new(Formula::Dft(64));
    r.apply_at(ct(), &Params::radix(4), &[]).unwrap();
    let mut d = r.finish();
    d.steps[0].before = Formula::Dft(32);
    let err = d.replay().unwrap_err();
    assert!(
        err.to_string()
            .contains("step 1 (cooley_tukey at root) expects DFT_32 but finds DFT_64"),
        "{err}"
    );
    assert_eq!(d.final_formula(), Formula::Dft(64));
}

proptest! {
    /// Habit 7: the normalising set terminates because every one of its steps lowers
    /// the measure; the result is a fixpoint with the same size.
    #[test]
    fn normalising_steps_strictly_decrease_the_measure(f in any_formula()) {
        let mut r = Rewriter::new(f.clone());
        r.normalise();
        let d = r.finish();
        for step in &d.steps {
            let rule = rules::find(step.rule).unwrap();
            prop_assert_eq!(rule.kind, RuleKind::Normalising);
            prop_assert!(
                rules::measure(&step.after) < rules::measure(&step.before),
                "{} at {}: {} -> {}", step.rule, show_position(&step.position), step.before, step.after
            );
        }
        let wholes = d.replay().unwrap();
        let mut last = rules::measure(&f);
        for g in &wholes {
            prop_assert!(rules::measure(g) < last);
            last = rules::measure(g);
            prop_assert_eq!(g.checked_size(), Ok(f.size()));
        }
        let fin = d.final_formula();
        for p in positions(&fin) {
            let node = subterm(&fin, &p).unwrap();
            for rule in rules::normalising() {
                prop_assert!(!rule.applies(node, &Params::NONE), "{} still applies to {}", rule.name, node);
            }
        }
    }

    /// `apply` is `Some` exactly where `applies` holds, for every rule.
    #[test]
    fn apply_agrees_with_applies(f in any_formula(), k in 1u64..=8) {
        for p in positions(&f) {
            let node = subterm(&f, &p).unwrap();
            for rule in rules::registry() {
                for params in [Params::NONE, Params::radix(k)] {
                    let out = rule.apply(node, &params);
                    prop_assert_eq!(out.is_some(), rule.applies(node, &params), "{} on {}", rule.name, node);
                    if let Some(g) = out {
                        prop_assert_eq!(g.checked_size(), Ok(node.size()), "{} on {}", rule.name, node);
                    }
                }
            }
        }
    }
}
