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

/// One rule application: the rule, where, and the rewritten node before and after.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let d = derive(&Formula::Dft(64), Strategy::Ct, &Options::radix(4))?;
/// // The second split is of DFT(16): factor 0 of the tensor product that is factor 0.
/// let step = &d.steps[1];
/// assert_eq!((step.rule, step.position.as_slice()), ("cooley_tukey", &[0, 0][..]));
/// assert_eq!(step.before, Formula::Dft(16));
/// assert_eq!(step.after.size(), 16);
/// # Ok::<(), fermat_dsl::derive::DeriveError>(())
/// ```
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
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let d = derive(&Formula::Dft(16), Strategy::Ct, &Options::radix(4))?;
/// assert_eq!(d.start, Formula::Dft(16));
/// assert_eq!(d.steps.len(), 1);
/// assert_eq!(
///     d.final_formula().ascii(),
///     "DFT(4) (x) I(4) * D(4,4) * I(4) (x) DFT(4) * L(16,4)"
/// );
/// # Ok::<(), fermat_dsl::derive::DeriveError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// The formula the derivation starts from.
    pub start: Formula,
    /// The rule applications, first to last.
    pub steps: Vec<Step>,
}

/// Why a derivation could not be made or replayed.
///
/// ```
/// use fermat_dsl::derive::{derive, DeriveError, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let err = derive(&Formula::Dft(12), Strategy::Ct, &Options::radix(4)).unwrap_err();
/// assert_eq!(err, DeriveError::SizeNotPowerOfTwo { n: 12 });
/// let err = derive(&Formula::Dft(16), Strategy::Ct, &Options::radix(3)).unwrap_err();
/// assert_eq!(err, DeriveError::RadixNotPowerOfTwo { k: 3 });
/// assert!(err.to_string().contains("must be a power of two"));
/// ```
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
///
/// ```
/// use fermat_dsl::derive::show_position;
///
/// assert_eq!(show_position(&[]), "root");
/// assert_eq!(show_position(&[0, 2, 1]), "[0, 2, 1]");
/// ```
pub fn show_position(position: &[usize]) -> String {
    if position.is_empty() {
        "root".to_string()
    } else {
        let parts: Vec<String> = position.iter().map(usize::to_string).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// The children of a node: the factors of ⊗ and ·, the blocks of ⊕; none for a leaf.
///
/// ```
/// use fermat_dsl::derive::children;
/// use fermat_dsl::formula::Formula;
///
/// let f = Formula::parse("DFT(2) (x) I(4) * L(8,2)")?;
/// let kids = children(&f);
/// assert_eq!(kids.len(), 2);
/// assert_eq!(kids[1], Formula::Stride { n: 8, m: 2 });
/// assert!(children(&kids[1]).is_empty());
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
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
///
/// ```
/// use fermat_dsl::derive::subterm;
/// use fermat_dsl::formula::Formula;
///
/// let f = Formula::parse("(DFT(2) (x) I(4)) * L(8,2)")?;
/// assert_eq!(subterm(&f, &[]), Some(&f));
/// assert_eq!(subterm(&f, &[0, 1]), Some(&Formula::Identity(4)));
/// assert_eq!(subterm(&f, &[1, 0]), None); // L(8,2) is a leaf
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
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
///
/// ```
/// use fermat_dsl::derive::positions;
/// use fermat_dsl::formula::Formula;
///
/// let f = Formula::parse("(DFT(2) (x) I(4)) * L(8,2)")?;
/// let want: [&[usize]; 5] = [&[], &[0], &[0, 0], &[0, 1], &[1]];
/// assert_eq!(positions(&f), want);
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
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
    /// A derivation of no steps, to which steps are then added by hand (a [`Rewriter`]
    /// builds one rule by rule).
    ///
    /// ```
    /// use fermat_dsl::derive::Derivation;
    /// use fermat_dsl::formula::Formula;
    ///
    /// let d = Derivation::new(Formula::Dft(8));
    /// assert!(d.steps.is_empty());
    /// assert_eq!(d.final_formula(), Formula::Dft(8));
    /// assert_eq!(d.replay(), Ok(vec![]));
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let mut d = derive(&Formula::Dft(16), Strategy::Ct, &Options::radix(4))?;
    /// assert_eq!(d.final_formula(), d.steps[0].after); // one step, at the root
    /// // A step that no longer fits its start is where the replay stops.
    /// d.steps[0].before = Formula::Dft(8);
    /// assert_eq!(d.final_formula(), Formula::Dft(16));
    /// # Ok::<(), fermat_dsl::derive::DeriveError>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::{DeriveError, Rewriter};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::Params;
    ///
    /// let mut r = Rewriter::new(Formula::Dft(64));
    /// r.apply_named("cooley_tukey", &Params::radix(4), &[])?;
    /// r.apply_named("cooley_tukey", &Params::radix(4), &[0, 0])?;
    /// let mut d = r.finish();
    /// let wholes = d.replay()?;
    /// assert_eq!(wholes.len(), 2);
    /// assert_eq!(wholes[1], d.final_formula());
    /// d.steps[1].position = vec![1]; // D(16,4) there, not DFT(16)
    /// assert!(matches!(d.replay(), Err(DeriveError::ReplayMismatch { step: 2, .. })));
    /// # Ok::<(), DeriveError>(())
    /// ```
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
/// assert_eq!((r.steps().len(), r.steps()[0].rule), (1, "cooley_tukey"));
/// let d = r.finish();
/// assert_eq!((d.start, d.steps.len()), (Formula::Dft(64), 1));
/// ```
#[derive(Clone, Debug)]
pub struct Rewriter {
    derivation: Derivation,
    current: Formula,
}

impl Rewriter {
    /// A rewriter starting from `start` ([`Rewriter`] has an example).
    pub fn new(start: Formula) -> Rewriter {
        Rewriter {
            current: start.clone(),
            derivation: Derivation::new(start),
        }
    }

    /// The formula after the steps so far ([`Rewriter`] has an example).
    pub fn current(&self) -> &Formula {
        &self.current
    }

    /// The steps so far ([`Rewriter`] has an example).
    pub fn steps(&self) -> &[Step] {
        &self.derivation.steps
    }

    /// Applies `rule` to the node at `position`. A refused application leaves no step.
    ///
    /// ```
    /// use fermat_dsl::derive::{DeriveError, Rewriter};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::{self, Params};
    ///
    /// let ct = rules::find("cooley_tukey").unwrap();
    /// let mut r = Rewriter::new(Formula::Dft(64));
    /// r.apply_at(ct, &Params::radix(4), &[])?;
    /// r.apply_at(ct, &Params::radix(4), &[0, 0])?; // the DFT(16) in DFT(16) ⊗ I(4)
    /// assert_eq!(r.steps()[1].before, Formula::Dft(16));
    /// let no_node = r.apply_at(ct, &Params::radix(4), &[7]);
    /// assert!(matches!(no_node, Err(DeriveError::NoSuchPosition { .. })));
    /// let twiddles = r.apply_at(ct, &Params::radix(4), &[1]); // D(16,4) is no DFT
    /// assert!(matches!(twiddles, Err(DeriveError::RuleDoesNotApply { .. })));
    /// assert_eq!(r.steps().len(), 2);
    /// # Ok::<(), DeriveError>(())
    /// ```
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

    /// Applies the rule called `name` at `position`: rules named on a command line.
    ///
    /// ```
    /// use fermat_dsl::derive::{DeriveError, Rewriter};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::Params;
    ///
    /// let mut r = Rewriter::new(Formula::Dft(16));
    /// r.apply_named("stockham", &Params::NONE, &[])?;
    /// assert_eq!(r.steps()[0].rule, "stockham");
    /// let err = r.apply_named("fft", &Params::NONE, &[]).unwrap_err();
    /// assert_eq!(err, DeriveError::UnknownRule { name: "fft".to_string() });
    /// # Ok::<(), DeriveError>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::Rewriter;
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::{self, Params};
    ///
    /// let base = rules::find("base_case_dft2k").unwrap();
    /// let mut r = Rewriter::new(Formula::parse("DFT(4) (x) I(4)")?);
    /// assert!(r.apply_first(base, &Params::NONE));
    /// assert_eq!(r.steps()[0].position, [0]); // the DFT(4)
    /// assert!(!r.apply_first(base, &Params::NONE)); // only DFT(2)s are left
    /// # Ok::<(), fermat_dsl::formula::ParseError>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::{DeriveError, Rewriter};
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::{self, Params};
    ///
    /// let ct = rules::find("cooley_tukey").unwrap();
    /// let mut r = Rewriter::new(Formula::Dft(64));
    /// // DFT(64) = 16 · 4, then DFT(16) = 4 · 4; DFT(4) does not split with K = 4.
    /// assert_eq!(r.apply_everywhere(ct, &Params::radix(4))?, 2);
    /// let commute = rules::find("tensor_commute").unwrap();
    /// assert_eq!(
    ///     r.apply_everywhere(commute, &Params::NONE),
    ///     Err(DeriveError::WouldNotTerminate { rule: "tensor_commute" })
    /// );
    /// # Ok::<(), DeriveError>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::Rewriter;
    /// use fermat_dsl::formula::Formula;
    ///
    /// let mut r = Rewriter::new(Formula::parse("I(1) (x) DFT(2) * I(2)")?);
    /// assert_eq!(r.normalise(), 2);
    /// assert_eq!(*r.current(), Formula::Dft(2));
    /// let rules: Vec<&str> = r.steps().iter().map(|s| s.rule).collect();
    /// assert_eq!(rules, ["tensor_unit", "compose_identity"]);
    /// # Ok::<(), fermat_dsl::formula::ParseError>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_dsl::derive::{derive, Options, Rewriter, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let sub = derive(&Formula::Dft(8), Strategy::Ct, &Options::radix(2))?;
    /// let mut r = Rewriter::new(Formula::parse("DFT(8) (x) I(2)")?);
    /// r.embed(&sub, &[0])?;
    /// assert_eq!(r.steps().len(), sub.steps.len());
    /// assert_eq!(r.steps()[1].position, [0, 0, 0]); // the sub-derivation's [0, 0], under [0]
    /// let whole = Formula::tensor(vec![sub.final_formula(), Formula::Identity(2)])?;
    /// assert_eq!(*r.current(), whole);
    /// assert!(r.embed(&sub, &[1]).is_err()); // I(2) is not DFT(8)
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    /// The derivation made ([`Rewriter`] has an example).
    pub fn finish(self) -> Derivation {
        self.derivation
    }
}

#[cfg(test)]
mod tests;
