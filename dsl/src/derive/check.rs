//! Checking a derivation step by step with the reference interpreter.
//!
//! The interpreter sums each `DFT(m)` leaf by definition, so evaluating a formula costs
//! about `size × Σ m` field multiplications over its DFT leaves ([`work`]). Steps whose
//! sides are affordable are evaluated in full; a bare `DFT(n)` that is too large is
//! compared at sampled outputs instead; a step with large DFT leaves inside (a
//! Cooley–Tukey step on a large DFT leaves DFT(N/K)) is skipped, and then covered by the
//! end-to-end comparison of the start with the final formula.

use super::{show_position, Derivation, DeriveError};
use crate::field::Field;
use crate::formula::Formula;
use crate::interp::{dft_entry, InterpError, Interpreter};
use rand::Rng;
use thiserror::Error;

/// The largest `DFT(n)` that is evaluated in full when it is a whole side of a
/// comparison; a larger one is compared at [`SAMPLED_OUTPUTS`] random outputs, each by
/// the defining sum in O(n).
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, FULL_DFT_MAX};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let d = derive(&Formula::Dft(FULL_DFT_MAX), Strategy::Ct, &Options::radix(32))?;
/// let report = d.check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7))?;
/// assert_eq!(report.steps[0].compared, 1024); // DFT(1024): every output
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const FULL_DFT_MAX: u64 = 1024;

/// How many outputs are compared for a `DFT(n)` larger than [`FULL_DFT_MAX`].
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, SAMPLED_OUTPUTS};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let d = derive(&Formula::Dft(2048), Strategy::Ct, &Options::radix(32))?;
/// let report = d.check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7))?;
/// assert_eq!(report.steps[0].size, 2048);
/// assert_eq!(report.steps[0].compared, SAMPLED_OUTPUTS as u64); // 48 of 2048 outputs
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const SAMPLED_OUTPUTS: usize = 48;

/// The most [`work`] a check spends on evaluating one formula.
///
/// ```
/// use fermat_dsl::derive::{work, WORK_MAX};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(2^14) by its defining sum: 2^28 multiplications, over the limit …
/// assert!(work(&Formula::Dft(1 << 14)) > WORK_MAX);
/// // … and its Cooley–Tukey form, DFT(128)s on 2^14 elements, well under it.
/// let ct = "DFT(128) (x) I(128) * D(128,128) * I(128) (x) DFT(128) * L(16384,128)";
/// let ct = Formula::parse(ct)?;
/// assert_eq!(work(&ct), (128 + 128) << 14);
/// assert!(work(&ct) <= WORK_MAX);
/// # Ok::<(), fermat_dsl::formula::ParseError>(())
/// ```
pub const WORK_MAX: u64 = 1 << 26;

/// The largest formula size a check evaluates (its vectors are held in memory).
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, CheckError, CHECK_MAX_SIZE};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let d = derive(&Formula::Dft(1 << 23), Strategy::Ct, &Options::radix(1 << 20))?;
/// let err = d.check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7)).unwrap_err();
/// let max = CHECK_MAX_SIZE;
/// assert_eq!(err, CheckError::TooLarge { step: 1, rule: "cooley_tukey", size: 1 << 23, max });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const CHECK_MAX_SIZE: u64 = 1 << 22;

/// An estimate of the field multiplications the interpreter spends on `f`: each `DFT(m)`
/// leaf costs m per element of the vectors it transforms, at most `f.size()` of them.
///
/// ```
/// use fermat_dsl::derive::work;
/// use fermat_dsl::formula::Formula;
///
/// // Each of the 32 elements goes through a DFT(8) and a DFT(4).
/// let f = Formula::parse("DFT(8) (x) I(4) * D(8,4) * I(8) (x) DFT(4)")?;
/// assert_eq!(work(&f), (8 + 4) * 32);
/// assert_eq!(work(&Formula::stride(1 << 20, 2)?), 0); // permutations multiply nothing
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn work(f: &Formula) -> u64 {
    fn leaf_sum(f: &Formula) -> u64 {
        match f {
            Formula::Dft(m) => *m,
            Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => fs
                .iter()
                .fold(0u64, |acc, g| acc.saturating_add(leaf_sum(g))),
            _ => 0,
        }
    }
    leaf_sum(f).saturating_mul(f.size())
}

/// The outcome of one comparison.
///
/// ```
/// use fermat_dsl::derive::{Rewriter, Verdict};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::rules::Params;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let mut r = Rewriter::new(Formula::Dft(1 << 14));
/// r.apply_named("cooley_tukey", &Params::radix(2), &[])?; // leaves DFT(8192): too costly
/// r.apply_named("cooley_tukey", &Params::radix(128), &[0, 0])?; // DFT(8192) = 64 · 128
/// let report = r.finish().check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7))?;
/// let verdicts: Vec<Verdict> = report.steps.iter().map(|s| s.verdict).collect();
/// assert_eq!(verdicts, [Verdict::Skipped, Verdict::Agree]);
/// assert_eq!(report.whole.verdict, Verdict::Agree); // covers the skipped step
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Both sides gave the same outputs.
    Agree,
    /// They did not.
    Disagree,
    /// Evaluating a side would cost more than [`WORK_MAX`]; the end-to-end comparison
    /// covers the step.
    Skipped,
}

/// The outcome of one step's check.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, Verdict};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let d = derive(&Formula::Dft(64), Strategy::Ct, &Options::radix(8))?;
/// let report = d.check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7))?;
/// let first = &report.steps[0];
/// assert_eq!((first.step, first.rule, first.size), (1, "cooley_tukey", 64));
/// assert!(first.position.is_empty()); // the root
/// assert_eq!((first.compared, first.verdict), (64, Verdict::Agree));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepCheck {
    /// The step's number, from 1.
    pub step: usize,
    /// The step's rule.
    pub rule: &'static str,
    /// The step's position.
    pub position: Vec<usize>,
    /// The size of the rewritten node.
    pub size: u64,
    /// How many outputs were compared: all `size` of them, [`SAMPLED_OUTPUTS`] for a
    /// large `DFT(n)`, 0 when skipped.
    pub compared: u64,
    /// The outcome.
    pub verdict: Verdict,
}

/// The end-to-end comparison of the start formula with the final one.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, Verdict, WholeCheck};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let d = derive(&Formula::Dft(64), Strategy::Stockham, &Options::default())?;
/// let report = d.check(&Fp32::new(469_762_049)?, &mut ChaCha8Rng::seed_from_u64(7))?;
/// let all = WholeCheck { size: 64, compared: 64, verdict: Verdict::Agree };
/// assert_eq!(report.whole, all);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeCheck {
    /// The size of the formulas.
    pub size: u64,
    /// How many outputs were compared (0 when skipped).
    pub compared: u64,
    /// The outcome.
    pub verdict: Verdict,
}

/// The outcomes of [`Derivation::check`]: per step, and end to end.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, Verdict};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// let mut d = derive(&Formula::Dft(64), Strategy::Ct, &Options::radix(8))?;
/// let (field, mut rng) = (Fp32::new(469_762_049)?, ChaCha8Rng::seed_from_u64(7));
/// assert!(d.check(&field, &mut rng)?.all_agree());
/// // Step 1 with I(64) for its twiddles D(8,8): it still replays, but no longer agrees.
/// let Formula::Compose(factors) = &mut d.steps[0].after else { unreachable!() };
/// factors[1] = Formula::Identity(64);
/// let report = d.check(&field, &mut rng)?;
/// assert!(!report.all_agree());
/// assert_eq!(report.failures().map(|s| s.step).collect::<Vec<_>>(), [1]);
/// assert_eq!(report.whole.verdict, Verdict::Disagree);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The field the check computed in.
    pub field: String,
    /// One entry per step, in order.
    pub steps: Vec<StepCheck>,
    /// The start against the final formula.
    pub whole: WholeCheck,
}

impl CheckReport {
    /// Whether no comparison disagreed (skipped steps are covered by the end-to-end
    /// comparison, which [`Derivation::check`] makes sure was not skipped then;
    /// [`CheckReport`] has an example).
    pub fn all_agree(&self) -> bool {
        self.whole.verdict != Verdict::Disagree
            && self.steps.iter().all(|s| s.verdict != Verdict::Disagree)
    }

    /// The steps that disagreed ([`CheckReport`] has an example).
    pub fn failures(&self) -> impl Iterator<Item = &StepCheck> {
        self.steps.iter().filter(|s| s.verdict == Verdict::Disagree)
    }
}

/// Why a derivation could not be checked (as opposed to a step that disagrees, which the
/// [`CheckReport`] records).
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy, CheckError};
/// use fermat_dsl::field::Fp32;
/// use fermat_dsl::formula::Formula;
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
///
/// // 7 − 1 = 2 · 3: no 4th root of unity, so the DFT(4) of the step cannot be evaluated.
/// let d = derive(&Formula::Dft(4), Strategy::Stockham, &Options::default())?;
/// let err = d.check(&Fp32::new(7)?, &mut ChaCha8Rng::seed_from_u64(7)).unwrap_err();
/// assert!(matches!(err, CheckError::Interp { step: 1, rule: "stockham", .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The steps do not fit the formula they are applied to.
    #[error(transparent)]
    Replay(#[from] DeriveError),
    /// The interpreter could not evaluate a step (typically: the field lacks the roots of
    /// unity of the step's size).
    #[error("step {step} ({rule} at {position}) cannot be evaluated: {source}")]
    Interp {
        /// The step's number, from 1 (0 for the end-to-end comparison).
        step: usize,
        /// The step's rule.
        rule: &'static str,
        /// The position, printed.
        position: String,
        /// The interpreter's error.
        #[source]
        source: Box<InterpError>,
    },
    /// A step too large to hold its vectors in memory.
    #[error("step {step} ({rule}) has size {size}; checks handle sizes up to {max}")]
    TooLarge {
        /// The step's number, from 1 (0 for the end-to-end comparison).
        step: usize,
        /// The step's rule.
        rule: &'static str,
        /// The size.
        size: u64,
        /// The largest size a check handles, [`CHECK_MAX_SIZE`].
        max: u64,
    },
    /// A step too costly to evaluate whose end-to-end comparison is too costly as well.
    #[error(
        "step {step} ({rule}) has DFT leaves too large to evaluate, and so has the final \
         formula ({final_work} multiplications, more than {max}): derive further (e.g. a \
         smaller radix or --expand-base) to check it"
    )]
    TooCostly {
        /// The first skipped step, from 1.
        step: usize,
        /// Its rule.
        rule: &'static str,
        /// The [`work`] of the final formula.
        final_work: u64,
        /// [`WORK_MAX`].
        max: u64,
    },
}

/// Compares `before` and `after` on one random vector: full outputs when both are
/// affordable, sampled outputs when `before` is a large bare DFT, skipped otherwise.
/// `Err` carries the interpreter's error.
fn compare<F: Field, R: Rng + ?Sized>(
    interp: &mut Interpreter<F>,
    before: &Formula,
    after: &Formula,
    rng: &mut R,
) -> Result<(u64, Verdict), InterpError> {
    let size = before.size();
    let sampled = matches!(before, Formula::Dft(n) if *n > FULL_DFT_MAX);
    if work(after) > WORK_MAX || (!sampled && work(before) > WORK_MAX) {
        return Ok((0, Verdict::Skipped));
    }
    let field = interp.field().clone();
    let x: Vec<F::Elem> = (0..size).map(|_| field.random(rng)).collect();
    let y = interp.apply(after, &x)?;
    let verdict = |same: bool| {
        if same {
            Verdict::Agree
        } else {
            Verdict::Disagree
        }
    };
    if let (true, &Formula::Dft(n)) = (sampled, before) {
        let omega = interp.root(n).map_err(|source| InterpError::NoRoot {
            op: before.to_string(),
            n,
            field: field.name(),
            source,
        })?;
        let same = (0..SAMPLED_OUTPUTS).all(|_| {
            let out = rng.gen_range(0..y.len());
            dft_entry(&field, &x, &omega, out) == y[out]
        });
        return Ok((SAMPLED_OUTPUTS as u64, verdict(same)));
    }
    let z = interp.apply(before, &x)?;
    Ok((size, verdict(z == y)))
}

impl Derivation {
    /// Checks every step: replays the derivation (each step's `before` must be what the
    /// formula holds at its position), then applies each step's `before` and `after` to a
    /// random vector over `field` and compares, and likewise the start and the final
    /// formula. Equal subterms make equal wholes, so a report in which every step agrees
    /// vouches for the final formula.
    ///
    /// A bare `DFT(n)` with n > [`FULL_DFT_MAX`] is compared at [`SAMPLED_OUTPUTS`] random
    /// outputs (the defining sum, O(n) each). A step with a side costing more than
    /// [`WORK_MAX`] is skipped; the end-to-end comparison then must succeed in its place
    /// (else [`CheckError::TooCostly`]).
    ///
    /// ```
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::field::Fp32;
    /// use fermat_dsl::formula::Formula;
    /// use rand::SeedableRng;
    /// use rand_chacha::ChaCha8Rng;
    ///
    /// let d = derive(&Formula::Dft(64), Strategy::Stockham, &Options::default())?;
    /// let field = Fp32::new(469_762_049)?;
    /// let report = d.check(&field, &mut ChaCha8Rng::seed_from_u64(1))?;
    /// assert!(report.all_agree());
    /// assert_eq!(report.steps.len(), d.steps.len());
    /// assert_eq!(report.field, "469762049");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check<F: Field, R: Rng + ?Sized>(
        &self,
        field: &F,
        rng: &mut R,
    ) -> Result<CheckReport, CheckError> {
        self.replay()?;
        let mut interp = Interpreter::new(field);
        let mut steps = Vec::with_capacity(self.steps.len());
        let pairs = self
            .steps
            .iter()
            .map(|s| (s.rule, show_position(&s.position), &s.before, &s.after));
        let fin = self.final_formula();
        let whole = ("end to end", "root".to_string(), &self.start, &fin);
        let mut whole_check = None;
        for (i, (rule, position, before, after)) in pairs.chain([whole]).enumerate() {
            let step = if i < self.steps.len() { i + 1 } else { 0 };
            let size = before.size();
            if size > CHECK_MAX_SIZE {
                return Err(CheckError::TooLarge {
                    step,
                    rule,
                    size,
                    max: CHECK_MAX_SIZE,
                });
            }
            let (compared, verdict) =
                compare(&mut interp, before, after, rng).map_err(|source| CheckError::Interp {
                    step,
                    rule,
                    position: position.clone(),
                    source: Box::new(source),
                })?;
            if step == 0 {
                whole_check = Some(WholeCheck {
                    size,
                    compared,
                    verdict,
                });
            } else {
                steps.push(StepCheck {
                    step,
                    rule,
                    position: self.steps[i].position.clone(),
                    size,
                    compared,
                    verdict,
                });
            }
        }
        let whole = whole_check.expect("the end-to-end comparison is the last one");
        if whole.verdict == Verdict::Skipped {
            if let Some(first) = steps.iter().find(|s| s.verdict == Verdict::Skipped) {
                return Err(CheckError::TooCostly {
                    step: first.step,
                    rule: first.rule,
                    final_work: work(&fin),
                    max: WORK_MAX,
                });
            }
        }
        Ok(CheckReport {
            field: field.name(),
            steps,
            whole,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::{derive, Options, Rewriter, Strategy};
    use crate::field::Fp32;
    use crate::rules::{self, Params};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn field() -> Fp32 {
        Fp32::new(469_762_049).unwrap()
    }

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(7)
    }

    #[test]
    fn every_strategy_checks_out_step_by_step() {
        for s in Strategy::ALL {
            let opts = Options {
                expand_base: true,
                ..Options::radix(4)
            };
            let d = derive(&Formula::Dft(64), s, &opts).unwrap();
            let report = d.check(&field(), &mut rng()).unwrap();
            assert_eq!(report.steps.len(), d.steps.len());
            assert!(report.all_agree(), "{s}: {report:?}");
            assert!(report.steps.iter().all(|c| c.compared == c.size));
            assert_eq!(report.whole.verdict, Verdict::Agree);
        }
    }

    #[test]
    fn costly_steps_are_skipped_and_covered_end_to_end() {
        let d = derive(&Formula::Dft(1 << 16), Strategy::Ct, &Options::radix(2)).unwrap();
        let report = d.check(&field(), &mut rng()).unwrap();
        let skipped = report
            .steps
            .iter()
            .filter(|c| c.verdict == Verdict::Skipped)
            .count();
        assert!(skipped > 0 && skipped < d.steps.len(), "{report:?}");
        assert_eq!(report.whole.verdict, Verdict::Agree);
        assert_eq!(report.whole.compared, SAMPLED_OUTPUTS as u64);
        assert!(report.all_agree());

        let d = derive(
            &Formula::Dft(1 << 14),
            Strategy::Radix2,
            &Options::radix(1 << 13),
        )
        .unwrap();
        let err = d.check(&field(), &mut rng()).unwrap_err();
        assert!(
            matches!(
                err,
                CheckError::TooCostly {
                    step: 1,
                    rule: "radix2_unroll",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn work_counts_dft_leaves_per_element() {
        let f = Formula::compose(vec![
            Formula::tensor(vec![Formula::Dft(8), Formula::Identity(4)]).unwrap(),
            Formula::Twiddle { m: 8, n: 4 },
            Formula::tensor(vec![Formula::Identity(8), Formula::Dft(4)]).unwrap(),
        ])
        .unwrap();
        assert_eq!(work(&f), (8 + 4) * 32);
        assert_eq!(work(&Formula::Stride { n: 1 << 20, m: 2 }), 0);
        assert_eq!(work(&Formula::Dft(1 << 40)), u64::MAX, "saturates");
    }

    #[test]
    fn a_wrong_step_is_reported_where_it_is() {
        let mut d = derive(&Formula::Dft(64), Strategy::Ct, &Options::radix(8)).unwrap();
        // Same size, other twiddles: still replays, no longer equal.
        let Formula::Compose(fs) = &mut d.steps[0].after else {
            panic!("cooley_tukey gives a composition")
        };
        fs[1] = Formula::Identity(64);
        let report = d.check(&field(), &mut rng()).unwrap();
        let failed: Vec<usize> = report.failures().map(|c| c.step).collect();
        assert_eq!(failed, vec![1]);
        assert!(!report.all_agree());
    }

    #[test]
    fn large_dfts_are_compared_at_sampled_outputs() {
        let d = derive(&Formula::Dft(4096), Strategy::Prop3, &Options::radix(16)).unwrap();
        let report = d.check(&field(), &mut rng()).unwrap();
        assert!(report.all_agree());
        assert_eq!(report.steps[0].compared, SAMPLED_OUTPUTS as u64);
        assert_eq!(report.steps[0].size, 4096);

        let mut r = Rewriter::new(Formula::Dft(4096));
        let ct = rules::find("cooley_tukey").unwrap();
        r.apply_at(ct, &Params::radix(16), &[]).unwrap();
        let mut wrong = r.finish();
        let Formula::Compose(fs) = &mut wrong.steps[0].after else {
            panic!("cooley_tukey gives a composition")
        };
        fs[3] = Formula::Stride { n: 4096, m: 16 };
        let report = wrong.check(&field(), &mut rng()).unwrap();
        assert!(
            !report.all_agree(),
            "the sampled check misses a wrong permutation"
        );
    }

    #[test]
    fn unevaluable_steps_are_errors() {
        // 2-adicity 1: no fourth root of unity.
        let small = Fp32::new(7).unwrap();
        let d = derive(&Formula::Dft(4), Strategy::Stockham, &Options::default()).unwrap();
        let err = d.check(&small, &mut rng()).unwrap_err();
        assert!(matches!(err, CheckError::Interp { step: 1, .. }), "{err}");
        assert!(
            err.to_string().contains("step 1 (stockham at root)"),
            "{err}"
        );

        let d = derive(
            &Formula::Dft(1 << 23),
            Strategy::Ct,
            &Options::radix(1 << 20),
        )
        .unwrap();
        let err = d.check(&field(), &mut rng()).unwrap_err();
        assert_eq!(
            err,
            CheckError::TooLarge {
                step: 1,
                rule: "cooley_tukey",
                size: 1 << 23,
                max: CHECK_MAX_SIZE
            }
        );

        let mut d = derive(&Formula::Dft(16), Strategy::Ct, &Options::radix(4)).unwrap();
        d.steps[0].position = vec![5];
        let err = d.check(&field(), &mut rng()).unwrap_err();
        assert!(matches!(err, CheckError::Replay(_)), "{err}");
    }
}
