//! Derivations: the sequence of rule applications that turns `DFT(N)` into a
//! factorisation, as a first-class value.
//!
//! A [`Derivation`] is its start formula and its [`Step`]s. A step names the rule, the
//! position of the rewritten node (the path of child indices from the root: factor `i` of
//! a ⊗, · or ⊕ is child `i`), and that node before and after the rewrite. Steps hold the
//! rewritten subterm rather than the whole formula: it is what changed, it stays short to
//! print, and checking a step needs only the subterm (equal subterms make equal wholes).
//! [`Derivation::replay`] rebuilds the whole formula after each step.
//!
//! Derivations come from the named strategies of [`derive()`] (`ct`, `radix2`, `stockham`,
//! `prop3`) or are built by hand with a [`Rewriter`]; [`Derivation::check`] evaluates every
//! step with the reference interpreter.

mod check;
mod devices;
mod print;
mod strategy;

pub use check::{
    work, CheckError, CheckReport, StepCheck, Verdict, WholeCheck, CHECK_MAX_SIZE, FULL_DFT_MAX,
    SAMPLED_OUTPUTS, WORK_MAX,
};
pub use devices::{derive_devices, DeviceSplit, DeviceStage, Distribution};
pub use print::Rendered;
pub use strategy::{derive, Options, Strategy};

use crate::formula::Formula;
use crate::rules::{self, Params, Rule, RuleKind};
use thiserror::Error;

/// One rule application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The rule's name (see [`rules::find`]).
    pub rule: &'static str,
    /// The path of child indices from the root to the rewritten node; empty for the root.
    pub position: Vec<usize>,
    /// The rewritten node before the step.
    pub before: Formula,
    /// The node after the step.
    pub after: Formula,
}

/// A start formula and the steps applied to it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// The formula the derivation starts from.
    pub start: Formula,
    /// The rule applications, first to last.
    pub steps: Vec<Step>,
}

/// Why a derivation could not be made or replayed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DeriveError {
    /// The strategies start from a single `DFT(N)`.
    #[error("the strategies derive DFT(N); got {formula}")]
    NotADft {
        /// The formula given, printed.
        formula: String,
    },
    /// N is not a power of two.
    #[error(
        "DFT({n}): N must be a power of two (the fields' roots of unity ω_N exist for powers of two only)"
    )]
    SizeNotPowerOfTwo {
        /// The size.
        n: u64,
    },
    /// The radix is not a power of two of at least 2.
    #[error("the radix K = {k} must be a power of two, at least 2 (2, 4, 8, 16, …)")]
    RadixNotPowerOfTwo {
        /// The radix.
        k: u64,
    },
    /// `prop3` needs N = K^e.
    #[error("prop3 needs N = K^e (e ≥ 1): {n} is not a power of K = {k}; {hint}")]
    NotAPowerOfRadix {
        /// The size.
        n: u64,
        /// The radix.
        k: u64,
        /// The powers of K nearest to N.
        hint: String,
    },
    /// An option that only one strategy reads was given to another.
    #[error("the {option} option applies to the {wants} strategy only, not to {strategy}")]
    OptionNotForStrategy {
        /// The option.
        option: &'static str,
        /// The strategy that reads it.
        wants: &'static str,
        /// The strategy it was given to.
        strategy: &'static str,
    },
    /// A device count that is not a power of two of at least 2.
    #[error("G = {devices} devices: a split needs a power of two of at least 2 (2, 4, 8, …)")]
    DevicesNotPowerOfTwo {
        /// The device count.
        devices: u64,
    },
    /// Fewer points than G² for G devices.
    #[error("DFT({n}) on {devices} devices: a split needs N ≥ G² = {min} points")]
    TooFewPointsForDevices {
        /// The size.
        n: u64,
        /// The device count.
        devices: u64,
        /// G².
        min: u64,
    },
    /// A distribution named on the side it cannot be.
    #[error("the {side} of a split cannot be {distribution}; it can be {allowed}")]
    DistributionNotAllowed {
        /// `input` or `output`.
        side: &'static str,
        /// The distribution given.
        distribution: &'static str,
        /// The distributions that side takes.
        allowed: &'static str,
    },
    /// Distributions each allowed on its side, but not together.
    #[error("a split cannot take a {input} input to a {output} output: {reason}")]
    DistributionsNotJoined {
        /// The input's distribution.
        input: &'static str,
        /// The output's distribution.
        output: &'static str,
        /// What the output needs.
        reason: &'static str,
    },
    /// A distribution name that does not exist.
    #[error("unknown distribution '{name}'; the distributions are cyclic, blocks, transposed")]
    UnknownDistribution {
        /// The name given.
        name: String,
    },
    /// A strategy name that does not exist.
    #[error("unknown strategy '{name}'; the strategies are ct, radix2, stockham, prop3")]
    UnknownStrategy {
        /// The name given.
        name: String,
    },
    /// A rule name that does not exist.
    #[error("unknown rule '{name}'; `fermat derive --rules` lists them")]
    UnknownRule {
        /// The name given.
        name: String,
    },
    /// A position that does not lead to a node.
    #[error("position {position} does not exist in {formula}")]
    NoSuchPosition {
        /// The position, printed.
        position: String,
        /// The formula, printed.
        formula: String,
    },
    /// A rule applied where its condition does not hold.
    #[error("{rule} does not apply to {subterm} at {position}: it needs {condition}")]
    RuleDoesNotApply {
        /// The rule's name.
        rule: &'static str,
        /// The position, printed.
        position: String,
        /// The node there, printed.
        subterm: String,
        /// The rule's condition.
        condition: &'static str,
    },
    /// A search move was asked to run to a fixpoint.
    #[error("{rule} is a search move and may apply forever; apply it at chosen positions")]
    WouldNotTerminate {
        /// The rule's name.
        rule: &'static str,
    },
    /// A step of a derivation does not match the formula it is replayed on.
    #[error("step {step} ({rule} at {position}) expects {expected} but finds {found}")]
    ReplayMismatch {
        /// The step's number, from 1.
        step: usize,
        /// The step's rule.
        rule: &'static str,
        /// The position, printed.
        position: String,
        /// The step's `before`, printed.
        expected: String,
        /// What the formula holds there, printed (or "nothing").
        found: String,
    },
}

/// A position as `fermat derive` prints it: `root`, or the child indices `[0, 2, 1]`.
pub fn show_position(position: &[usize]) -> String {
    if position.is_empty() {
        "root".to_string()
    } else {
        let parts: Vec<String> = position.iter().map(usize::to_string).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// The children of a node: the factors of ⊗ and ·, the blocks of ⊕; none for a leaf.
pub fn children(f: &Formula) -> &[Formula] {
    match f {
        Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => fs,
        _ => &[],
    }
}

fn children_mut(f: &mut Formula) -> &mut [Formula] {
    match f {
        Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => fs,
        _ => &mut [],
    }
}

/// The node at `position`, if the path leads to one.
pub fn subterm<'a>(f: &'a Formula, position: &[usize]) -> Option<&'a Formula> {
    position
        .iter()
        .try_fold(f, |node, &c| children(node).get(c))
}

fn subterm_mut<'a>(f: &'a mut Formula, position: &[usize]) -> Option<&'a mut Formula> {
    position
        .iter()
        .try_fold(f, |node, &c| children_mut(node).get_mut(c))
}

/// Every position of `f`, in pre-order (a node before its children, children left to
/// right).
pub fn positions(f: &Formula) -> Vec<Vec<usize>> {
    fn walk(f: &Formula, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(path.clone());
        for (c, g) in children(f).iter().enumerate() {
            path.push(c);
            walk(g, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(f, &mut Vec::new(), &mut out);
    out
}

/// The first position, in post-order (children before their node), whose node satisfies
/// `pred`.
fn first_post_order(f: &Formula, pred: &mut impl FnMut(&Formula) -> bool) -> Option<Vec<usize>> {
    fn walk(f: &Formula, path: &mut Vec<usize>, pred: &mut impl FnMut(&Formula) -> bool) -> bool {
        for (c, g) in children(f).iter().enumerate() {
            path.push(c);
            if walk(g, path, pred) {
                return true;
            }
            path.pop();
        }
        pred(f)
    }
    let mut path = Vec::new();
    walk(f, &mut path, pred).then_some(path)
}

/// The first position, in pre-order, whose node satisfies `pred`.
fn first_pre_order(f: &Formula, pred: &mut impl FnMut(&Formula) -> bool) -> Option<Vec<usize>> {
    fn walk(f: &Formula, path: &mut Vec<usize>, pred: &mut impl FnMut(&Formula) -> bool) -> bool {
        if pred(f) {
            return true;
        }
        for (c, g) in children(f).iter().enumerate() {
            path.push(c);
            if walk(g, path, pred) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut path = Vec::new();
    walk(f, &mut path, pred).then_some(path)
}

impl Derivation {
    /// A derivation of no steps.
    pub fn new(start: Formula) -> Derivation {
        Derivation {
            start,
            steps: Vec::new(),
        }
    }

    /// The formula after the last step.
    ///
    /// For a derivation whose steps do not fit its start (edited by hand), this is the
    /// formula as far as the steps could be replayed; [`Derivation::replay`] says where
    /// they stop fitting.
    pub fn final_formula(&self) -> Formula {
        let mut f = self.start.clone();
        for step in &self.steps {
            match subterm_mut(&mut f, &step.position) {
                Some(node) if *node == step.before => *node = step.after.clone(),
                _ => break,
            }
        }
        f
    }

    /// The whole formula after each step (one entry per step), checking that each step's
    /// `before` is what the formula holds at its position.
    pub fn replay(&self) -> Result<Vec<Formula>, DeriveError> {
        let mut f = self.start.clone();
        let mut out = Vec::with_capacity(self.steps.len());
        for (n, step) in self.steps.iter().enumerate() {
            let node = subterm_mut(&mut f, &step.position);
            match node {
                Some(node) if *node == step.before => *node = step.after.clone(),
                other => {
                    return Err(DeriveError::ReplayMismatch {
                        step: n + 1,
                        rule: step.rule,
                        position: show_position(&step.position),
                        expected: step.before.to_string(),
                        found: other.map_or_else(|| "nothing".to_string(), |g| g.to_string()),
                    })
                }
            }
            out.push(f.clone());
        }
        Ok(out)
    }

    /// The derivation as `fermat derive` prints it (see [`Rendered`]).
    pub fn render(&self, ascii: bool) -> Rendered<'_> {
        Rendered {
            derivation: self,
            ascii,
        }
    }
}

/// Builds a derivation rule by rule, keeping the current formula.
///
/// ```
/// use fermat_dsl::derive::Rewriter;
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::rules::{self, Params};
///
/// let mut r = Rewriter::new(Formula::Dft(64));
/// r.apply_at(rules::find("cooley_tukey").unwrap(), &Params::radix(8), &[]).unwrap();
/// assert_eq!(r.current().ascii(), "DFT(8) (x) I(8) * D(8,8) * I(8) (x) DFT(8) * L(64,8)");
/// ```
#[derive(Clone, Debug)]
pub struct Rewriter {
    derivation: Derivation,
    current: Formula,
}

impl Rewriter {
    /// A rewriter starting from `start`.
    pub fn new(start: Formula) -> Rewriter {
        Rewriter {
            current: start.clone(),
            derivation: Derivation::new(start),
        }
    }

    /// The formula after the steps so far.
    pub fn current(&self) -> &Formula {
        &self.current
    }

    /// The steps so far.
    pub fn steps(&self) -> &[Step] {
        &self.derivation.steps
    }

    /// Applies `rule` to the node at `position`.
    pub fn apply_at(
        &mut self,
        rule: &'static Rule,
        params: &Params,
        position: &[usize],
    ) -> Result<(), DeriveError> {
        let formula = &self.current;
        let node = subterm(formula, position).ok_or_else(|| DeriveError::NoSuchPosition {
            position: show_position(position),
            formula: formula.to_string(),
        })?;
        let after = rule
            .apply(node, params)
            .ok_or_else(|| DeriveError::RuleDoesNotApply {
                rule: rule.name,
                position: show_position(position),
                subterm: node.to_string(),
                condition: rule.condition,
            })?;
        self.record(rule, position.to_vec(), after);
        Ok(())
    }

    /// Applies the rule called `name` at `position`.
    pub fn apply_named(
        &mut self,
        name: &str,
        params: &Params,
        position: &[usize],
    ) -> Result<(), DeriveError> {
        let rule = rules::find(name).ok_or_else(|| DeriveError::UnknownRule {
            name: name.to_string(),
        })?;
        self.apply_at(rule, params, position)
    }

    /// Applies `rule` at the first position (pre-order) where it applies; whether it did.
    pub fn apply_first(&mut self, rule: &'static Rule, params: &Params) -> bool {
        let Some(position) = first_pre_order(&self.current, &mut |g| rule.applies(g, params))
        else {
            return false;
        };
        let node = subterm(&self.current, &position).expect("the search found this node");
        let after = rule.apply(node, params).expect("apply agrees with applies");
        self.record(rule, position, after);
        true
    }

    /// Applies `rule` at the first position (pre-order) where it applies, again and
    /// again until it applies nowhere; the number of steps.
    ///
    /// Breakdown rules terminate (each replaces a DFT(n) by strictly smaller DFTs) and so
    /// do normalising ones (each lowers [`rules::measure`]); search moves are refused.
    pub fn apply_everywhere(
        &mut self,
        rule: &'static Rule,
        params: &Params,
    ) -> Result<usize, DeriveError> {
        if rule.kind == RuleKind::Search {
            return Err(DeriveError::WouldNotTerminate { rule: rule.name });
        }
        let mut count = 0;
        while self.apply_first(rule, params) {
            count += 1;
        }
        Ok(count)
    }

    /// Applies the normalising rules until none applies: each time at the first position
    /// in post-order (innermost first) where one applies, the first such rule in
    /// registry order. The number of steps.
    pub fn normalise(&mut self) -> usize {
        let mut count = 0;
        loop {
            let mut found: Option<&'static Rule> = None;
            let position = first_post_order(&self.current, &mut |g| {
                found = rules::normalising().find(|r| r.applies(g, &Params::NONE));
                found.is_some()
            });
            let (Some(position), Some(rule)) = (position, found) else {
                return count;
            };
            let node = subterm(&self.current, &position).expect("the search found this node");
            let after = rule
                .apply(node, &Params::NONE)
                .expect("apply agrees with applies");
            self.record(rule, position, after);
            count += 1;
        }
    }

    fn record(&mut self, rule: &'static Rule, position: Vec<usize>, after: Formula) {
        let node = subterm_mut(&mut self.current, &position).expect("the position exists");
        let before = std::mem::replace(node, after.clone());
        self.derivation.steps.push(Step {
            rule: rule.name,
            position,
            before,
            after,
        });
    }

    /// Replays the steps of `sub` on the node at `position`, which must be `sub`'s start:
    /// a factor derived on its own, kept step by step inside the whole.
    pub fn embed(&mut self, sub: &Derivation, position: &[usize]) -> Result<(), DeriveError> {
        for (n, step) in sub.steps.iter().enumerate() {
            let mut at = position.to_vec();
            at.extend(&step.position);
            let found = subterm(&self.current, &at).cloned();
            if found.as_ref() != Some(&step.before) {
                return Err(DeriveError::ReplayMismatch {
                    step: n + 1,
                    rule: step.rule,
                    position: show_position(&at),
                    expected: step.before.to_string(),
                    found: found.map_or_else(|| "nothing".to_string(), |g| g.to_string()),
                });
            }
            *subterm_mut(&mut self.current, &at).expect("found above") = step.after.clone();
            self.derivation.steps.push(Step {
                position: at,
                ..step.clone()
            });
        }
        Ok(())
    }

    /// The derivation made.
    pub fn finish(self) -> Derivation {
        self.derivation
    }
}

#[cfg(test)]
mod tests {
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
}
