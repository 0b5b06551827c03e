//! Checking a derivation step by step with the reference interpreter.

use super::{show_position, Derivation, DeriveError};
use crate::field::Field;
use crate::formula::Formula;
use crate::interp::{dft_entry, InterpError, Interpreter};
use rand::Rng;
use thiserror::Error;

/// The largest `DFT(n)` that a step's `before` may be and still be evaluated in full:
/// the interpreter sums it by definition, O(n²). A larger bare `DFT(n)` is compared with
/// the step's `after` at [`SAMPLED_OUTPUTS`] random outputs, each by the defining sum in
/// O(n).
pub const FULL_DFT_MAX: u64 = 1024;

/// How many outputs are compared for a `DFT(n)` larger than [`FULL_DFT_MAX`].
pub const SAMPLED_OUTPUTS: usize = 48;

/// The largest formula size a check evaluates (its vectors are held in memory).
pub const CHECK_MAX_SIZE: u64 = 1 << 22;

/// The outcome of one step's check.
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
    /// How many outputs were compared: all `size` of them, or [`SAMPLED_OUTPUTS`] for a
    /// large `DFT(n)`.
    pub compared: u64,
    /// Whether `before` and `after` gave the same outputs.
    pub agrees: bool,
}

/// The per-step outcomes of [`Derivation::check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The field the check computed in.
    pub field: String,
    /// One entry per step, in order.
    pub steps: Vec<StepCheck>,
}

impl CheckReport {
    /// Whether every step agreed.
    pub fn all_agree(&self) -> bool {
        self.steps.iter().all(|s| s.agrees)
    }

    /// The steps that did not agree.
    pub fn failures(&self) -> impl Iterator<Item = &StepCheck> {
        self.steps.iter().filter(|s| !s.agrees)
    }
}

/// Why a derivation could not be checked (as opposed to a step that disagrees, which the
/// [`CheckReport`] records).
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
        /// The step's number, from 1.
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
        /// The step's number, from 1.
        step: usize,
        /// The step's rule.
        rule: &'static str,
        /// The size.
        size: u64,
        /// The largest size a check handles, [`CHECK_MAX_SIZE`].
        max: u64,
    },
}

impl Derivation {
    /// Checks every step: replays the derivation (each step's `before` must be what the
    /// formula holds at its position), then applies each step's `before` and `after` to one
    /// random vector over `field` and compares. Equal subterms make equal wholes, so a
    /// report in which every step agrees vouches for the final formula.
    ///
    /// A step whose `before` is a bare `DFT(n)` with n > [`FULL_DFT_MAX`] is compared at
    /// [`SAMPLED_OUTPUTS`] random outputs (the defining sum, O(n) each) instead of in full.
    pub fn check<F: Field, R: Rng + ?Sized>(
        &self,
        field: &F,
        rng: &mut R,
    ) -> Result<CheckReport, CheckError> {
        self.replay()?;
        let mut interp = Interpreter::new(field);
        let mut steps = Vec::with_capacity(self.steps.len());
        for (i, step) in self.steps.iter().enumerate() {
            let size = step.before.size();
            if size > CHECK_MAX_SIZE {
                return Err(CheckError::TooLarge {
                    step: i + 1,
                    rule: step.rule,
                    size,
                    max: CHECK_MAX_SIZE,
                });
            }
            let fail = |source| CheckError::Interp {
                step: i + 1,
                rule: step.rule,
                position: show_position(&step.position),
                source: Box::new(source),
            };
            let x: Vec<F::Elem> = (0..size).map(|_| field.random(rng)).collect();
            let after = interp.apply(&step.after, &x).map_err(fail)?;
            let (compared, agrees) = match step.before {
                Formula::Dft(n) if n > FULL_DFT_MAX => {
                    let omega = interp.root(n).map_err(|source| {
                        fail(InterpError::NoRoot {
                            op: step.before.to_string(),
                            n,
                            field: field.name(),
                            source,
                        })
                    })?;
                    let agrees = (0..SAMPLED_OUTPUTS).all(|_| {
                        let out = rng.gen_range(0..after.len());
                        dft_entry(field, &x, &omega, out) == after[out]
                    });
                    (SAMPLED_OUTPUTS as u64, agrees)
                }
                _ => {
                    let before = interp.apply(&step.before, &x).map_err(fail)?;
                    (size, before == after)
                }
            };
            steps.push(StepCheck {
                step: i + 1,
                rule: step.rule,
                position: step.position.clone(),
                size,
                compared,
                agrees,
            });
        }
        Ok(CheckReport {
            field: field.name(),
            steps,
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
        }
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
