//! Rewrite rules: named identities between formulas, SPIRAL's breakdown rules in the
//! spirit of egg's rewrites.
//!
//! A [`Rule`] is a value: a snake_case name, the paper's equation number, the identity as
//! text (what `fermat derive --rules` prints), a named condition ([`Rule::applies`]) and a
//! producer ([`Rule::apply`]). Each rule rewrites the one node it is given; derivations
//! ([`crate::derive`]) choose the positions. [`registry`] lists them all.
//!
//! Rules are grouped by [`RuleKind`]:
//! - breakdown rules turn a `DFT(n)` into a factorisation (Cooley–Tukey, the 2010 unrolled
//!   and Stockham forms, Proposition 3, the base case, the fold over devices);
//! - search moves are identities that neither simplify nor break down (commutation, the
//!   mixed product, Proposition 2): they are applied deliberately, never to a fixpoint;
//! - normalising rules simplify; each strictly decreases [`measure`], so applying them
//!   until none applies terminates.
//!
//! Rules produce the right-hand side exactly as the paper writes it, `I(1)` factors and
//! trivial twiddles included; the normalising rules then remove them as visible steps.

mod base_case;
mod cooley_tukey;
mod devices;
pub mod prop3;
mod radix2;
mod simplify;
mod stockham;
mod tensor;

pub use devices::exchange;
pub use simplify::measure;

use crate::formula::Formula;
use std::fmt;

/// Parameters of a rule application: the choices a rule cannot read off the formula.
///
/// ```
/// use fermat_dsl::formula::Formula;
/// use fermat_dsl::rules::{self, Params};
///
/// assert_eq!(Params::radix(4), Params { radix: Some(4), devices: None });
/// assert_eq!(Params::devices(2), Params { radix: None, devices: Some(2) });
/// assert_eq!(Params::default(), Params::NONE);
/// // Cooley–Tukey cannot choose the split of 16 by itself.
/// let ct = rules::find("cooley_tukey").unwrap();
/// assert!(ct.applies(&Formula::Dft(16), &Params::radix(4)));
/// assert!(!ct.applies(&Formula::Dft(16), &Params::NONE));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Params {
    /// The radix K: the right factor of the split N = J·K (`cooley_tukey`), the base case
    /// DFT(m) with m = K (`radix2_unroll`), or K in N = K^e (`prop3`).
    pub radix: Option<u64>,
    /// The number of devices G a transform is split over (`device_commute`,
    /// `device_stride`, `device_fold`).
    pub devices: Option<u64>,
}

impl Params {
    /// No parameters ([`Params`] has an example).
    pub const NONE: Params = Params {
        radix: None,
        devices: None,
    };

    /// The parameters of a rule that needs the radix K ([`Params`] has an example).
    pub fn radix(k: u64) -> Params {
        Params {
            radix: Some(k),
            devices: None,
        }
    }

    /// The parameters of a rule that splits a transform over G devices ([`Params`] has an
    /// example).
    pub fn devices(g: u64) -> Params {
        Params {
            radix: None,
            devices: Some(g),
        }
    }
}

/// What a rule is for: it decides how a derivation may use the rule.
///
/// ```
/// use fermat_dsl::rules::{self, RuleKind};
///
/// assert_eq!(rules::find("prop3").unwrap().kind, RuleKind::Breakdown);
/// assert_eq!(rules::find("tensor_commute").unwrap().kind, RuleKind::Search);
/// assert_eq!(RuleKind::Normalising.name(), "normalising");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// Rewrites a `DFT(n)` into a factorisation.
    Breakdown,
    /// An identity used as a deliberate move; never applied to a fixpoint (it may loop).
    Search,
    /// A simplification: strictly decreases [`measure`].
    Normalising,
}

impl RuleKind {
    /// A one-word name, as `fermat derive --rules` prints it ([`RuleKind`] has an example).
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::Breakdown => "breakdown",
            RuleKind::Search => "search",
            RuleKind::Normalising => "normalising",
        }
    }
}

/// A named rewrite rule.
///
/// `applies` is the rule's named condition and `apply` its right-hand side;
/// `apply(f, p)` is `Some` exactly when `applies(f, p)` holds.
///
/// ```
/// use fermat_dsl::rules::{self, RuleKind};
///
/// let ct = rules::find("cooley_tukey").unwrap();
/// assert_eq!((ct.source, ct.kind), ("2017 (9)", RuleKind::Breakdown));
/// assert_eq!(ct.parameter, Some("K, the radix"));
/// assert!(ct.identity.starts_with("DFT(J·K) = (DFT(J) ⊗ I(K))"));
/// ```
#[derive(Clone, Copy)]
pub struct Rule {
    /// The name, snake_case (`cooley_tukey`, `prop3`, …).
    pub name: &'static str,
    /// Where the identity comes from: "2017 (9)", "2010 (12)", "thesis §6 DFT16", or the
    /// operator definition it follows from.
    pub source: &'static str,
    /// The identity, in Unicode notation (left-hand side = right-hand side).
    pub identity: &'static str,
    /// The condition under which the rule applies, in words.
    pub condition: &'static str,
    /// The parameter the rule reads from [`Params`], if any.
    pub parameter: Option<&'static str>,
    /// Breakdown, search move or normalising.
    pub kind: RuleKind,
    applies: fn(&Formula, &Params) -> bool,
    apply: fn(&Formula, &Params) -> Option<Formula>,
}

impl Rule {
    /// Whether the rule rewrites `f` (as the root of the rewrite) with parameters `p`.
    ///
    /// ```
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::rules::{self, Params};
    ///
    /// let ct = rules::find("cooley_tukey").unwrap();
    /// assert!(ct.applies(&Formula::Dft(48), &Params::radix(3))); // 48 = 16 · 3
    /// assert!(!ct.applies(&Formula::Dft(16), &Params::radix(16))); // K = N: nothing to split
    /// assert!(!ct.applies(&Formula::Identity(16), &Params::radix(4)));
    /// ```
    pub fn applies(&self, f: &Formula, p: &Params) -> bool {
        (self.applies)(f, p)
    }

    /// The right-hand side for `f`, or `None` where the rule does not apply.
    ///
    /// ```
    /// use fermat_dsl::field::Fp32;
    /// use fermat_dsl::formula::Formula;
    /// use fermat_dsl::interp::dense_matrix;
    /// use fermat_dsl::rules::{self, Params};
    ///
    /// let ct = rules::find("cooley_tukey").unwrap();
    /// let rhs = ct.apply(&Formula::Dft(8), &Params::radix(2)).unwrap();
    /// assert_eq!(rhs.ascii(), "DFT(4) (x) I(2) * D(4,2) * I(4) (x) DFT(2) * L(8,4)");
    /// let f = Fp32::new(17)?; // both sides are the same matrix
    /// assert_eq!(dense_matrix(&f, &rhs)?, dense_matrix(&f, &Formula::Dft(8))?);
    /// assert_eq!(ct.apply(&Formula::Dft(8), &Params::NONE), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply(&self, f: &Formula, p: &Params) -> Option<Formula> {
        (self.apply)(f, p)
    }
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("name", &self.name)
            .field("source", &self.source)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Rule {}

static REGISTRY: [Rule; 20] = [
    cooley_tukey::COOLEY_TUKEY,
    radix2::RADIX2_UNROLL,
    stockham::STOCKHAM,
    prop3::PROP3,
    base_case::BASE_CASE_DFT2K,
    devices::DEVICE_FOLD,
    prop3::PROP2,
    tensor::TENSOR_COMMUTE,
    tensor::MIXED_PRODUCT,
    devices::DEVICE_COMMUTE,
    devices::DEVICE_STRIDE,
    simplify::FLATTEN,
    simplify::DFT_TRIVIAL,
    simplify::STRIDE_TRIVIAL,
    simplify::TWIDDLE_TRIVIAL,
    simplify::TENSOR_UNIT,
    simplify::TENSOR_IDENTITY_MERGE,
    simplify::DIRECT_SUM_IDENTITY_MERGE,
    simplify::COMPOSE_IDENTITY,
    simplify::STRIDE_INVERSE,
];

/// Every rule: breakdown rules first, then search moves, then the normalising set.
///
/// ```
/// use fermat_dsl::rules::{self, RuleKind};
///
/// let all = rules::registry();
/// assert_eq!((all.len(), all[0].name), (20, "cooley_tukey"));
/// let order = [RuleKind::Breakdown, RuleKind::Search, RuleKind::Normalising];
/// let rank = |k: RuleKind| order.iter().position(|&o| o == k);
/// assert!(all.windows(2).all(|w| rank(w[0].kind) <= rank(w[1].kind)));
/// ```
pub fn registry() -> &'static [Rule] {
    &REGISTRY
}

/// The rule called `name`, if there is one.
///
/// ```
/// use fermat_dsl::rules;
///
/// assert_eq!(rules::find("stockham").map(|r| r.source), Some("2010 (12)"));
/// assert!(rules::find("split_radix").is_none());
/// ```
pub fn find(name: &str) -> Option<&'static Rule> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// The normalising rules, in the order a normalisation tries them.
///
/// ```
/// use fermat_dsl::rules::{self, RuleKind};
///
/// let names: Vec<&str> = rules::normalising().map(|r| r.name).collect();
/// assert_eq!((names.len(), names[0]), (9, "flatten"));
/// assert!(names.contains(&"dft_trivial") && !names.contains(&"tensor_commute"));
/// assert!(rules::normalising().all(|r| r.kind == RuleKind::Normalising));
/// ```
pub fn normalising() -> impl Iterator<Item = &'static Rule> {
    REGISTRY.iter().filter(|r| r.kind == RuleKind::Normalising)
}

/// Rewrites the Unicode notation of identities and conditions into ASCII, as
/// `fermat derive --rules --ascii` prints them (`⊗` → `(x)`, `·` → `*`, `⊕` → `(+)`, …).
///
/// ```
/// use fermat_dsl::rules;
///
/// let ct = rules::find("cooley_tukey").unwrap();
/// assert!(rules::ascii(ct.identity).starts_with("DFT(J*K) = (DFT(J) (x) I(K)) * D(J,K)"));
/// assert_eq!(rules::ascii("ω^(N−1), k ≥ 2"), "w^(N-1), k >= 2");
/// ```
pub fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '⊗' => out.push_str("(x)"),
            '·' => out.push('*'),
            '⊕' => out.push_str("(+)"),
            '→' => out.push_str("->"),
            '⋯' | '…' => out.push_str("..."),
            '−' => out.push('-'),
            '≤' => out.push_str("<="),
            '≥' => out.push_str(">="),
            '≠' => out.push_str("!="),
            '∏' => out.push_str("prod"),
            'ω' => out.push('w'),
            'Δ' => out.push_str("Delta"),
            'ℓ' => out.push('l'),
            '§' => out.push_str("sec. "),
            c => out.push(c),
        }
    }
    out
}

// Builders for rule outputs. They skip the checked constructors because every rule
// produces sizes that are consistent by construction (the rules' tests verify it with
// `checked_size`); going through `Result` here would turn a bug into "does not apply".

fn i(n: u64) -> Formula {
    Formula::Identity(n)
}

fn dft(n: u64) -> Formula {
    Formula::Dft(n)
}

fn l(n: u64, m: u64) -> Formula {
    Formula::Stride { n, m }
}

fn d(m: u64, n: u64) -> Formula {
    Formula::Twiddle { m, n }
}

fn tensor(factors: Vec<Formula>) -> Formula {
    debug_assert!(factors.len() >= 2, "a tensor product needs two factors");
    Formula::Tensor(factors)
}

fn compose(factors: Vec<Formula>) -> Formula {
    debug_assert!(factors.len() >= 2, "a composition needs two factors");
    Formula::Compose(factors)
}

/// Δ(i, j, h) = I(i) ⊗ DFT(j) ⊗ I(h) (2010, (9)), written out literally.
fn delta(i_: u64, j: u64, h: u64) -> Formula {
    tensor(vec![i(i_), dft(j), i(h)])
}

/// The exponent e with n = k^e, if there is one (k ≥ 2, n ≥ 1).
fn log_exact(n: u64, k: u64) -> Option<u32> {
    if k < 2 || n == 0 {
        return None;
    }
    let (mut m, mut e) = (n, 0u32);
    while m % k == 0 {
        m /= k;
        e += 1;
    }
    (m == 1).then_some(e)
}

/// Views `f` as I(a) ⊗ core ⊗ I(b): the product of the leading and trailing identity
/// factors of a tensor product, and the factors between them. A formula that is not a
/// tensor product is its own core with a = b = 1.
fn identity_frame(f: &Formula) -> (u64, &[Formula], u64) {
    let Formula::Tensor(fs) = f else {
        return (1, std::slice::from_ref(f), 1);
    };
    let lead = fs
        .iter()
        .take_while(|g| matches!(g, Formula::Identity(_)))
        .count();
    let trail = fs[lead..]
        .iter()
        .rev()
        .take_while(|g| matches!(g, Formula::Identity(_)))
        .count();
    let product = |gs: &[Formula]| gs.iter().map(Formula::size).product::<u64>();
    let core = &fs[lead..fs.len() - trail];
    (product(&fs[..lead]), core, product(&fs[fs.len() - trail..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn registry_names_are_unique_snake_case_and_findable() {
        let mut seen = HashSet::new();
        for r in registry() {
            assert!(seen.insert(r.name), "duplicate rule {}", r.name);
            assert!(
                r.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{} is not snake_case",
                r.name
            );
            assert!(!r.identity.is_empty() && !r.source.is_empty() && !r.condition.is_empty());
            assert_eq!(find(r.name), Some(r));
        }
        assert_eq!(find("no_such_rule"), None);
        for name in [
            "cooley_tukey",
            "radix2_unroll",
            "stockham",
            "tensor_commute",
            "mixed_product",
            "prop2",
            "prop3",
            "base_case_dft2k",
            "tensor_identity_merge",
            "compose_identity",
            "stride_trivial",
            "tensor_unit",
            "flatten",
            "device_commute",
            "device_stride",
            "device_fold",
        ] {
            assert!(find(name).is_some(), "{name} is missing from the registry");
        }
    }

    #[test]
    fn only_simplifications_are_normalising() {
        let names: Vec<_> = normalising().map(|r| r.name).collect();
        assert!(names.contains(&"flatten") && names.contains(&"compose_identity"));
        for search_or_breakdown in ["tensor_commute", "mixed_product", "prop2", "cooley_tukey"] {
            assert!(
                !names.contains(&search_or_breakdown),
                "{search_or_breakdown}"
            );
        }
    }

    #[test]
    fn ascii_rewrites_every_operator() {
        assert_eq!(
            ascii("(DFT(2) ⊗ I(2)) · D(2,2) ⊕ I(1) → A ⋯ B"),
            "(DFT(2) (x) I(2)) * D(2,2) (+) I(1) -> A ... B"
        );
        for r in registry() {
            assert!(
                ascii(r.identity).is_ascii(),
                "{}: {}",
                r.name,
                ascii(r.identity)
            );
            assert!(
                ascii(r.condition).is_ascii(),
                "{}: {}",
                r.name,
                ascii(r.condition)
            );
            assert!(
                ascii(r.source).is_ascii(),
                "{}: {}",
                r.name,
                ascii(r.source)
            );
        }
    }

    #[test]
    fn log_exact_finds_exact_powers_only() {
        assert_eq!(log_exact(4096, 16), Some(3));
        assert_eq!(log_exact(1, 16), Some(0));
        assert_eq!(log_exact(2048, 16), None);
        assert_eq!(log_exact(48, 4), None);
        assert_eq!(log_exact(8, 1), None);
    }

    #[test]
    fn identity_frame_collects_outer_identities() {
        let f = tensor(vec![i(2), i(3), dft(4), i(1), d(2, 2), i(5)]);
        let (a, core, b) = identity_frame(&f);
        assert_eq!((a, b), (6, 5));
        assert_eq!(core, &[dft(4), i(1), d(2, 2)]);
        let g = dft(8);
        assert_eq!(identity_frame(&g), (1, std::slice::from_ref(&g), 1));
    }
}
