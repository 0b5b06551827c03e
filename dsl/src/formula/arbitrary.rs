//! Proptest strategies for random well-formed formulas: sizes are consistent by
//! construction, so every generated value passes the checked constructors.
//!
//! Available to fermat-dsl's own tests and, with the `proptest` feature, to other crates
//! (rule tests, code generation tests).
//!
//! The trees mix flat n-ary nodes (`A · B · C`) with nested ones of the same operator
//! (`(A · B) · C`), so that printers and parsers are exercised on both.

use super::Formula;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;

/// Formulas of size `n` and nesting depth at most `depth`, with any sizes in the leaves
/// (`DFT(6)` included: some leaves may need roots of unity a field lacks).
pub fn formula_of_size(n: u64, depth: u32) -> BoxedStrategy<Formula> {
    of_size(n, depth, false)
}

/// Formulas of size `n` (a power of two) and nesting depth at most `depth` whose every
/// operator has a power-of-two size, so that every field with enough 2-adicity can
/// interpret them.
pub fn pow2_formula_of_size(n: u64, depth: u32) -> BoxedStrategy<Formula> {
    debug_assert!(n.is_power_of_two(), "pow2_formula_of_size({n})");
    of_size(n, depth, true)
}

/// Formulas of any size from 1 to 48, nesting depth at most 3.
pub fn any_formula() -> BoxedStrategy<Formula> {
    (1u64..=48).prop_flat_map(|n| formula_of_size(n, 3)).boxed()
}

/// The divisors of `n` (ascending).
fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= n {
        if n.is_multiple_of(d) {
            small.push(d);
            if d * d != n {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

fn leaf(n: u64) -> BoxedStrategy<Formula> {
    let divs = divisors(n);
    prop_oneof![
        Just(Formula::Dft(n)),
        Just(Formula::Identity(n)),
        select(divs.clone()).prop_map(move |m| Formula::Stride { n, m }),
        select(divs).prop_map(move |m| Formula::Twiddle { m, n: n / m }),
    ]
    .boxed()
}

fn of_size(n: u64, depth: u32, pow2: bool) -> BoxedStrategy<Formula> {
    if depth == 0 {
        return leaf(n);
    }
    let sub = move |k: u64| of_size(k, depth - 1, pow2);
    let mut options: Vec<(u32, BoxedStrategy<Formula>)> = vec![(3, leaf(n))];
    options.push((
        2,
        prop::collection::vec(sub(n), 2..=3)
            .prop_map(|fs| Formula::compose(fs).expect("factors of equal size"))
            .boxed(),
    ));
    let divs = divisors(n);
    options.push((
        2,
        (select(divs), any::<bool>())
            .prop_flat_map(move |(a, three)| {
                let rest = n / a;
                let factors = if three {
                    select(divisors(rest))
                        .prop_flat_map(move |b| vec![sub(a), sub(b), sub(rest / b)])
                        .boxed()
                } else {
                    vec![sub(a), sub(rest)].boxed()
                };
                factors.prop_map(|fs| Formula::tensor(fs).expect("sizes multiply to n"))
            })
            .boxed(),
    ));
    let sums = if pow2 {
        match n {
            0..=1 => None,
            2..=3 => Some(Just(vec![n / 2, n / 2]).boxed()),
            _ => {
                Some(prop_oneof![Just(vec![n / 2, n / 2]), Just(vec![n / 2, n / 4, n / 4])].boxed())
            }
        }
    } else if n >= 2 {
        Some(
            (1..n, any::<bool>())
                .prop_flat_map(move |(a, three)| {
                    let rest = n - a;
                    if three && rest >= 2 {
                        (1..rest).prop_map(move |b| vec![a, b, rest - b]).boxed()
                    } else {
                        Just(vec![a, rest]).boxed()
                    }
                })
                .boxed(),
        )
    } else {
        None
    };
    if let Some(sums) = sums {
        options.push((
            1,
            sums.prop_flat_map(move |sizes| sizes.into_iter().map(sub).collect::<Vec<_>>())
                .prop_map(|fs| Formula::direct_sum(fs).expect("blocks are well formed"))
                .boxed(),
        ));
    }
    Union::new_weighted(options).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_are_complete_and_sorted() {
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(divisors(7), vec![1, 7]);
    }

    proptest! {
        #[test]
        fn generated_formulas_have_the_requested_size(
            (n, f) in (1u64..=40).prop_flat_map(|n| (Just(n), formula_of_size(n, 3)))
        ) {
            prop_assert_eq!(f.checked_size(), Ok(n));
        }

        #[test]
        fn pow2_formulas_have_only_power_of_two_operators(
            (n, f) in (0u32..=6).prop_flat_map(|e| (Just(1u64 << e), pow2_formula_of_size(1 << e, 3)))
        ) {
            prop_assert_eq!(f.checked_size(), Ok(n));
            fn all_pow2(f: &Formula) -> bool {
                match f {
                    Formula::Dft(n) | Formula::Identity(n) | Formula::Stride { n, .. } => n.is_power_of_two(),
                    Formula::Twiddle { m, n } => (m * n).is_power_of_two(),
                    Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => fs.iter().all(all_pow2),
                }
            }
            prop_assert!(all_pow2(&f), "{:?}", f);
        }
    }
}
