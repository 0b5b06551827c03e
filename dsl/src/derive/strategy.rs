//! The named strategies: recipes of rule applications from `DFT(N)` to a factorisation,
//! each followed by the normalising rules.

use super::{Derivation, DeriveError, Rewriter};
use crate::formula::Formula;
use crate::rules::{self, Params, Rule};
use std::fmt;
use std::str::FromStr;

/// A named derivation strategy.
///
/// ```
/// use fermat_dsl::derive::Strategy;
///
/// let s: Strategy = "stockham".parse()?;
/// assert_eq!(s, Strategy::Stockham);
/// assert_eq!(s.to_string(), "stockham");
/// assert!("fast".parse::<Strategy>().is_err()); // the error lists the four names
/// # Ok::<(), fermat_dsl::derive::DeriveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `ct`: recursive Cooley–Tukey (2017, (9)) with radix K, DFT(N) →
    /// (DFT(N/K) ⊗ I(K)) · D · (I(N/K) ⊗ DFT(K)) · L, recursing into DFT(N/K) until only
    /// DFT(K)s and, where N is not a power of K, one smaller DFT remain.
    Ct,
    /// `radix2`: the radix-2 unrolling (2010, (10)) with the base case DFT(m), m = K.
    Radix2,
    /// `stockham`: the Stockham FFT (2010, (12)), down to DFT(2); K is not used.
    Stockham,
    /// `prop3`: DFT(K^e) = U_0 ⋯ U_(e−1) V_(e−1) ⋯ V_0 (2017, Proposition 3), optionally
    /// each U_i rewritten by Proposition 2.
    Prop3,
}

impl Strategy {
    /// Every strategy, in the order `fermat derive --help` lists them.
    ///
    /// ```
    /// use fermat_dsl::derive::Strategy;
    ///
    /// let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
    /// assert_eq!(names, ["ct", "radix2", "stockham", "prop3"]);
    /// ```
    pub const ALL: [Strategy; 4] = [
        Strategy::Ct,
        Strategy::Radix2,
        Strategy::Stockham,
        Strategy::Prop3,
    ];

    /// The name on the command line.
    ///
    /// ```
    /// use fermat_dsl::derive::Strategy;
    ///
    /// assert_eq!(Strategy::Prop3.name(), "prop3");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Ct => "ct",
            Strategy::Radix2 => "radix2",
            Strategy::Stockham => "stockham",
            Strategy::Prop3 => "prop3",
        }
    }

    fn uses_radix(self) -> bool {
        self != Strategy::Stockham
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = DeriveError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|st| st.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| DeriveError::UnknownStrategy {
                name: s.to_string(),
            })
    }
}

/// The choices a strategy leaves open.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// assert_eq!(Options::default(), Options::radix(16));
/// // expand_base breaks the DFT(4)s that Cooley–Tukey leaves into DFT(2)s.
/// let opts = Options { expand_base: true, ..Options::radix(4) };
/// let f = derive(&Formula::Dft(16), Strategy::Ct, &opts)?.final_formula();
/// assert!(f.ascii().contains("DFT(2)") && !f.ascii().contains("DFT(4)"));
/// // Proposition 2 belongs to prop3 alone.
/// let opts = Options { prop2: true, ..Options::radix(4) };
/// assert!(derive(&Formula::Dft(16), Strategy::Ct, &opts).is_err());
/// # Ok::<(), fermat_dsl::derive::DeriveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// The radix K (a power of two, at least 2): the right factor of every Cooley–Tukey
    /// split (`ct`), the base case DFT(K) (`radix2`), K in N = K^e (`prop3`).
    pub radix: u64,
    /// Expand every DFT(n), n ≥ 4, left by the strategy into DFT(2)s with the base-case
    /// rule (thesis, DFT16), recursively.
    pub expand_base: bool,
    /// `prop3` only: rewrite each U_i as V_i · (I(K^(e−1)) ⊗ DFT(K)) · W_i
    /// (Proposition 2), the form of the 2017 paper's GPU code.
    pub prop2: bool,
}

impl Default for Options {
    /// K = 16 (the base case of P3), no base-case expansion, no Proposition 2.
    fn default() -> Self {
        Options::radix(16)
    }
}

impl Options {
    /// The options with radix K and nothing else ([`Options`] has an example).
    pub fn radix(k: u64) -> Options {
        Options {
            radix: k,
            expand_base: false,
            prop2: false,
        }
    }
}

fn rule(name: &str) -> &'static Rule {
    rules::find(name).unwrap_or_else(|| panic!("the registry has no rule {name}"))
}

/// Derives `formula` (which must be `DFT(N)`, N a power of two) by `strategy`.
///
/// ```
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// let d = derive(&Formula::Dft(256), Strategy::Prop3, &Options::radix(16)).unwrap();
/// assert_eq!(d.steps[0].rule, "prop3");
/// assert_eq!(
///     d.final_formula().ascii(),
///     "DFT(16) (x) I(16) * D(16,16) * I(16) (x) DFT(16) * L(256,16)"
/// );
/// ```
pub fn derive(
    formula: &Formula,
    strategy: Strategy,
    options: &Options,
) -> Result<Derivation, DeriveError> {
    let n = check_input(formula, strategy, options)?;
    let k = options.radix;
    let radix = Params::radix(k);
    let mut r = Rewriter::new(formula.clone());
    match strategy {
        Strategy::Ct => {
            r.apply_everywhere(rule("cooley_tukey"), &radix)?;
        }
        Strategy::Radix2 => {
            r.apply_first(rule("radix2_unroll"), &radix);
        }
        Strategy::Stockham => {
            r.apply_first(rule("stockham"), &Params::NONE);
        }
        Strategy::Prop3 => {
            if r.apply_first(rule("prop3"), &radix) && options.prop2 {
                let e = n.ilog(k) as usize;
                for i in 0..e {
                    r.apply_at(rule("prop2"), &Params::NONE, &[i])?;
                }
            }
        }
    }
    r.normalise();
    if options.expand_base && r.apply_everywhere(rule("base_case_dft2k"), &Params::NONE)? > 0 {
        r.normalise();
    }
    Ok(r.finish())
}

/// Checks what `derive` is given; N on success.
fn check_input(
    formula: &Formula,
    strategy: Strategy,
    options: &Options,
) -> Result<u64, DeriveError> {
    let &Formula::Dft(n) = formula else {
        return Err(DeriveError::NotADft {
            formula: formula.to_string(),
        });
    };
    if !n.is_power_of_two() {
        return Err(DeriveError::SizeNotPowerOfTwo { n });
    }
    let k = options.radix;
    if strategy.uses_radix() && (k < 2 || !k.is_power_of_two()) {
        return Err(DeriveError::RadixNotPowerOfTwo { k });
    }
    if options.prop2 && strategy != Strategy::Prop3 {
        return Err(DeriveError::OptionNotForStrategy {
            option: "prop2",
            wants: "prop3",
            strategy: strategy.name(),
        });
    }
    if strategy == Strategy::Prop3 {
        // The smallest power K^e ≥ N (e ≥ 1), or the largest one if K^(e+1) overflows.
        let mut power = k;
        while power < n {
            match power.checked_mul(k) {
                Some(next) => power = next,
                None => break,
            }
        }
        if power != n {
            let hint = if n < k {
                format!("the smallest is K = {k} itself")
            } else if power > n {
                format!("the nearest are {} and {power}", power / k)
            } else {
                format!("the nearest is {power}; the next one exceeds 2^64")
            };
            return Err(DeriveError::NotAPowerOfRadix { n, k, hint });
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::subterm;

    fn dft_sizes(f: &Formula) -> Vec<u64> {
        let mut out = Vec::new();
        fn walk(f: &Formula, out: &mut Vec<u64>) {
            if let Formula::Dft(n) = f {
                out.push(*n);
            }
            for g in super::super::children(f) {
                walk(g, out);
            }
        }
        walk(f, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn strategies_parse_by_name() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>(), Ok(s));
            assert_eq!(s.to_string(), s.name());
        }
        assert_eq!("PROP3".parse::<Strategy>(), Ok(Strategy::Prop3));
        let err = "fft".parse::<Strategy>().unwrap_err().to_string();
        assert!(
            err.contains("unknown strategy 'fft'") && err.contains("ct, radix2, stockham, prop3")
        );
    }

    #[test]
    fn every_strategy_leaves_only_its_base_cases() {
        let cases = [
            (Strategy::Ct, 4096, 16, vec![16]),
            (Strategy::Ct, 2048, 16, vec![8, 16]),
            (Strategy::Radix2, 4096, 16, vec![2, 16]),
            (Strategy::Stockham, 4096, 16, vec![2]),
            (Strategy::Prop3, 4096, 16, vec![16]),
            (Strategy::Prop3, 1 << 20, 2, vec![2]),
        ];
        for (s, n, k, want) in cases {
            let d = derive(&Formula::Dft(n), s, &Options::radix(k)).unwrap();
            assert_eq!(dft_sizes(&d.final_formula()), want, "{s} N = {n} K = {k}");
            let expanded = Options {
                expand_base: true,
                ..Options::radix(k)
            };
            let d = derive(&Formula::Dft(n), s, &expanded).unwrap();
            assert_eq!(
                dft_sizes(&d.final_formula()),
                vec![2],
                "{s} N = {n} K = {k} expanded"
            );
        }
    }

    #[test]
    fn ct_recurses_on_the_left_factor() {
        let d = derive(&Formula::Dft(4096), Strategy::Ct, &Options::radix(16)).unwrap();
        let breakdowns: Vec<_> = d
            .steps
            .iter()
            .filter(|s| s.rule == "cooley_tukey")
            .map(|s| (s.position.clone(), s.before.clone()))
            .collect();
        assert_eq!(
            breakdowns,
            vec![
                (vec![], Formula::Dft(4096)),
                (vec![0, 0], Formula::Dft(256))
            ]
        );
    }

    #[test]
    fn prop2_option_rewrites_every_round() {
        let opts = Options {
            prop2: true,
            ..Options::radix(8)
        };
        let d = derive(&Formula::Dft(512), Strategy::Prop3, &opts).unwrap();
        let rounds: Vec<_> = d
            .steps
            .iter()
            .filter(|s| s.rule == "prop2")
            .map(|s| s.position.clone())
            .collect();
        assert_eq!(rounds, vec![vec![0], vec![1], vec![2]]);
        let fin = d.final_formula();
        let batches = super::super::positions(&fin)
            .into_iter()
            .filter(|p| {
                subterm(&fin, p)
                    == Some(&Formula::Tensor(vec![
                        Formula::Identity(64),
                        Formula::Dft(8),
                    ]))
            })
            .count();
        assert_eq!(batches, 3, "{fin}");
    }

    #[test]
    fn small_sizes_are_their_own_base_case() {
        for s in [Strategy::Ct, Strategy::Radix2] {
            let d = derive(&Formula::Dft(8), s, &Options::radix(16)).unwrap();
            assert!(d.steps.is_empty(), "{s}");
            assert_eq!(d.final_formula(), Formula::Dft(8));
        }
        let d = derive(&Formula::Dft(1), Strategy::Stockham, &Options::default()).unwrap();
        assert_eq!(d.final_formula(), Formula::Identity(1));
        let d = derive(&Formula::Dft(16), Strategy::Prop3, &Options::radix(16)).unwrap();
        assert_eq!(d.final_formula(), Formula::Dft(16));
    }

    #[test]
    fn bad_input_is_named() {
        let err = |f: Formula, s, o: Options| derive(&f, s, &o).unwrap_err().to_string();
        let e = err(Formula::Identity(8), Strategy::Ct, Options::default());
        assert!(e.contains("derive DFT(N); got I_8"), "{e}");
        let e = err(Formula::Dft(24), Strategy::Ct, Options::default());
        assert!(e.contains("DFT(24): N must be a power of two"), "{e}");
        let e = err(Formula::Dft(64), Strategy::Ct, Options::radix(6));
        assert!(e.contains("K = 6 must be a power of two"), "{e}");
        let e = err(Formula::Dft(64), Strategy::Radix2, Options::radix(1));
        assert!(
            e.contains("K = 1 must be a power of two, at least 2"),
            "{e}"
        );
        let e = err(Formula::Dft(2048), Strategy::Prop3, Options::radix(16));
        assert!(
            e.contains("2048 is not a power of K = 16") && e.contains("nearest are 256 and 4096"),
            "{e}"
        );
        let e = err(Formula::Dft(8), Strategy::Prop3, Options::radix(16));
        assert!(e.contains("the smallest is K = 16"), "{e}");
        let e = err(
            Formula::Dft(64),
            Strategy::Ct,
            Options {
                prop2: true,
                ..Options::radix(4)
            },
        );
        assert!(
            e.contains("prop2 option applies to the prop3 strategy only, not to ct"),
            "{e}"
        );
        assert!(derive(&Formula::Dft(64), Strategy::Stockham, &Options::radix(6)).is_ok());
    }
}
