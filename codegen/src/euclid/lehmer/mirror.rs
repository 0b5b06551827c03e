//! The rounds in Rust ([`lehmer_rounds`]), and the tests of the rounds' algebra.

use super::LehmerStep;
use fermat_dsl::field::Field;

/// How [`lehmer_rounds`] ended.
///
/// ```
/// use fermat_codegen::euclid::{lehmer_rounds, LehmerEnd};
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // x^5 + 1 by x + 1: a first quotient of degree 4, above a window's half of 1.
/// let (a, b) = (e(&[1, 0, 0, 0, 0, 1]), e(&[1, 1]));
/// assert_eq!(lehmer_rounds(&f, &a, &b, 1), LehmerEnd::Stalled { round: 0, pair: [a, b] });
/// // A half of 4 covers it: x + 1 divides x^5 + 1, so the pair ends on x + 1 itself.
/// let LehmerEnd::Done(g) = lehmer_rounds(&f, &e(&[1, 0, 0, 0, 0, 1]), &e(&[1, 1]), 4) else {
///     panic!("the window holds the whole pair");
/// };
/// assert_eq!((g.len(), g[0] == g[1]), (2, true));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LehmerEnd<E> {
    /// The last nonzero remainder, not monic, as the window writes it (a nonzero constant
    /// for a coprime pair, empty when both are zero).
    Done(Vec<E>),
    /// Round `round` found a first quotient of degree above `half`: the pair, normalised,
    /// as stored (`pair[0]` the vector 2s, `pair[1]` the vector 2s + 1, s = round mod 2).
    Stalled {
        /// The round.
        round: usize,
        /// The pair.
        pair: [Vec<E>; 2],
    },
}

/// The rounds of [`EuclidPass::Window`](crate::euclid::EuclidPass::Window) and
/// [`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply) in Rust, from the pair (a, b), until the
/// sequence ends or stalls, and the pair of each round (`rounds`, for the harness).
///
/// ```
/// use fermat_codegen::euclid::{lehmer_rounds, LehmerEnd};
/// use fermat_dsl::field::{Field, Fp32};
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // (x + 1)(x + 2) and (x + 1)(x + 3): x + 1, up to a constant, from windows of 3.
/// let LehmerEnd::Done(g) = lehmer_rounds(&f, &e(&[2, 3, 1]), &e(&[3, 4, 1]), 1) else {
///     panic!("a normal sequence does not stall");
/// };
/// assert_eq!((g.len(), g[0] == g[1]), (2, true));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn lehmer_rounds<F: Field>(
    field: &F,
    a: &[F::Elem],
    b: &[F::Elem],
    half: usize,
) -> LehmerEnd<F::Elem> {
    rounds(field, a, b, half).end
}

/// Where Lehmer's rounds carrying a's cofactors ended or stalled
/// ([`lehmer_rounds_carrying`]).
///
/// ```
/// use fermat_codegen::euclid::lehmer_rounds_carrying;
/// use fermat_dsl::field::{Field, Fp32};
///
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // A first quotient of degree 4 stalls round 0, before any step: the pair is (a, b)
/// // itself, a = 1·a + 0·b and b = 0·a + 1·b, so a's cofactors are 1 and 0 (empty).
/// let (a, b) = (e(&[1, 0, 0, 0, 0, 1]), e(&[1, 1]));
/// let (_, carried) = lehmer_rounds_carrying(&f, &a, &b, 1);
/// assert_eq!((carried.round, carried.pair.clone()), (0, [a, b]));
/// assert_eq!(carried.cofactors, [e(&[1]), vec![]]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LehmerCarried<E> {
    /// The round that set the status.
    pub round: usize,
    /// The pair that round read, normalised, as stored (`pair[0]` the vector 2s, `pair[1]`
    /// the vector 2s + 1, s = round mod 2).
    pub pair: [Vec<E>; 2],
    /// a's cofactors of the pair, normalised: `pair[j]` = `cofactors[j]`·a + t_j·b.
    pub cofactors: [Vec<E>; 2],
}

/// [`lehmer_rounds`] carrying a's cofactors, as [`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply)
/// does on a grid of two rows: the end, and the pair of the round that ended or stalled
/// with its cofactors, from which the host finishes an extended gcd.
///
/// ```
/// use fermat_codegen::euclid::{lehmer_rounds_carrying, LehmerEnd};
/// use fermat_dsl::field::{Field, Fp32};
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// let (a, b) = (e(&[1, 2, 3, 4, 5, 6, 7]), e(&[3, 1, 4, 1, 5, 9]));
/// let (end, carried) = lehmer_rounds_carrying(&f, &a, &b, 1);
/// assert!(matches!(end, LehmerEnd::Done(_)));
/// assert!(carried.round > 0 && carried.cofactors.iter().all(|s| s.len() < a.len()));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn lehmer_rounds_carrying<F: Field>(
    field: &F,
    a: &[F::Elem],
    b: &[F::Elem],
    half: usize,
) -> (LehmerEnd<F::Elem>, LehmerCarried<F::Elem>) {
    let Rounds { end, carried, .. } = rounds(field, a, b, half);
    (end, carried)
}

/// [`lehmer_rounds`] keeping a trail, as
/// [`EuclidPass::TrailWindow`](crate::euclid::EuclidPass::TrailWindow) does: the end, and
/// every division the rounds took, in order.
///
/// ```
/// use fermat_codegen::euclid::{lehmer_rounds_logging, LehmerEnd};
/// use fermat_dsl::field::{Field, Fp32};
/// let f = Fp32::new(17)?;
/// let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
/// // x^2 + 1 by x: one division, its one elimination x^2 + 1 − x·x (the x term is 0), to 1.
/// let (end, trail) = lehmer_rounds_logging(&f, &e(&[1, 0, 1]), &e(&[0, 1]), 1);
/// assert_eq!(end, LehmerEnd::Done(e(&[1])));
/// assert_eq!((trail.len(), trail[0].degree, trail[0].eliminations), (1, 1, 1));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn lehmer_rounds_logging<F: Field>(
    field: &F,
    a: &[F::Elem],
    b: &[F::Elem],
    half: usize,
) -> (LehmerEnd<F::Elem>, Vec<LehmerStep<F::Elem>>) {
    let Rounds { end, trail, .. } = rounds(field, a, b, half);
    (end, trail)
}

/// What the rounds leave: the end, the pair at the end with a's cofactors, the trail.
struct Rounds<E> {
    end: LehmerEnd<E>,
    carried: LehmerCarried<E>,
    trail: Vec<LehmerStep<E>>,
}

/// The rounds, carrying a's cofactors (1 and 0 at the start) and keeping a trail.
fn rounds<F: Field>(field: &F, a: &[F::Elem], b: &[F::Elem], half: usize) -> Rounds<F::Elem> {
    let normal = |p: &[F::Elem]| {
        let mut len = p.len();
        while len > 0 && p[len - 1] == field.zero() {
            len -= 1;
        }
        p[..len].to_vec()
    };
    let mut pair = [a.to_vec(), b.to_vec()];
    let mut carried = [vec![field.one()], Vec::new()];
    let mut trail = Vec::new();
    let mut round = 0;
    loop {
        let stored = [normal(&pair[0]), normal(&pair[1])];
        let at = |end: LehmerEnd<F::Elem>, stored: &[Vec<F::Elem>; 2], trail| {
            let carried = LehmerCarried {
                round,
                pair: stored.clone(),
                cofactors: [normal(&carried[0]), normal(&carried[1])],
            };
            Rounds {
                end,
                carried,
                trail,
            }
        };
        let swapped = stored[0].len() < stored[1].len();
        let (big, small) = if swapped {
            (&stored[1], &stored[0])
        } else {
            (&stored[0], &stored[1])
        };
        if small.len() <= 1 {
            let g = if small.len() == 1 { small } else { big };
            return at(LehmerEnd::Done(g.clone()), &stored, trail);
        }
        let top = big.len() - 1;
        let full = top <= 2 * half;
        let m = if full { 0 } else { top - 2 * half };
        if !full && small.len() - 1 + half < top {
            let pair = stored.clone();
            return at(LehmerEnd::Stalled { round, pair }, &stored, trail);
        }
        let (z, o) = (field.zero(), field.one());
        let mut u = Window {
            rem: big[m..].to_vec(),
            cof: if swapped {
                [vec![z], vec![o]]
            } else {
                [vec![o], vec![z]]
            },
        };
        let mut v = Window {
            rem: small[m..].to_vec(),
            cof: if swapped {
                [vec![o], vec![z]]
            } else {
                [vec![z], vec![o]]
            },
        };
        let limit = if full { 1 } else { half };
        let mut eliminations = 0;
        while v.rem.len() > limit {
            eliminations += 1;
            let k = u.rem.len() - v.rem.len();
            let (alpha, beta) = (v.rem[v.rem.len() - 1], u.rem[u.rem.len() - 1]);
            u.rem.pop();
            for (i, y) in u.rem.iter_mut().enumerate() {
                *y = field.mul(y, &alpha);
                if i >= k {
                    *y = field.sub(y, &field.mul(&v.rem[i - k], &beta));
                }
            }
            if !full {
                for (c, d) in u.cof.iter_mut().zip(&v.cof) {
                    c.resize(c.len().max(d.len() + k), field.zero());
                    for (i, y) in c.iter_mut().enumerate() {
                        *y = field.mul(y, &alpha);
                        if i >= k && i - k < d.len() {
                            *y = field.sub(y, &field.mul(&d[i - k], &beta));
                        }
                    }
                }
            }
            u.rem = normal(&u.rem);
            if u.rem.len() < v.rem.len() {
                trail.push(LehmerStep {
                    lead: alpha,
                    degree: (m + v.rem.len() - 1) as u64,
                    eliminations,
                });
                eliminations = 0;
                std::mem::swap(&mut u, &mut v);
            }
        }
        if full {
            let g = if v.rem.len() == 1 { v.rem } else { u.rem };
            return at(LehmerEnd::Done(g), &stored, trail);
        }
        let n1 = m + u.rem.len();
        // The kernel computes coefficients below `len` only: Lemma 11.3 makes the rest 0.
        let combine = |cof: &[Vec<F::Elem>; 2], len: usize| {
            let mut out = combination(field, cof, &stored);
            debug_assert!(
                out.iter().skip(len).all(|y| *y == field.zero()),
                "a quotient outside the window"
            );
            out.resize(len, field.zero());
            out
        };
        pair = [combine(&u.cof, n1), combine(&v.cof, n1 - 1)];
        // The same matrix on a's cofactors: every pair stays (s·a + t·b, s′·a + t′·b).
        let carry = |cof: &[Vec<F::Elem>; 2]| normal(&combination(field, cof, &carried));
        carried = [carry(&u.cof), carry(&v.cof)];
        round += 1;
    }
}

/// Σ_j c_j·p_j, of the length of its longest product.
fn combination<F: Field>(field: &F, c: &[Vec<F::Elem>; 2], p: &[Vec<F::Elem>; 2]) -> Vec<F::Elem> {
    let len = c
        .iter()
        .zip(p)
        .map(|(x, y)| (x.len() + y.len()).saturating_sub(1))
        .max()
        .unwrap_or(0);
    let mut out = vec![field.zero(); len];
    for (c, p) in c.iter().zip(p) {
        for (j, x) in c.iter().enumerate() {
            for (t, y) in p.iter().enumerate() {
                out[t + j] = field.add(&out[t + j], &field.mul(x, y));
            }
        }
    }
    out
}

/// A remainder of a round's window and its cofactors: rem = cof\[0\]·U + cof\[1\]·V on
/// the window's coefficients.
struct Window<E> {
    rem: Vec<E>,
    cof: [Vec<E>; 2],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::euclid::{
        euclid_gcd, EuclidPass, APPLY_ARGS, TRAIL_WINDOW_ARGS, WARP_MATRIX_LEN, WINDOW_ARGS,
    };
    use fermat_dsl::field::Fp32;
    use proptest::prelude::*;

    type E = <Fp32 as Field>::Elem;

    fn field() -> Fp32 {
        Fp32::new(469762049).unwrap()
    }

    /// The gcd by the rounds, a stalled pair (u, v) going on as (v, u mod v), as the host
    /// does it.
    fn lehmer_gcd(f: &Fp32, a: &[E], b: &[E], half: usize) -> Vec<E> {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        loop {
            match lehmer_rounds(f, &a, &b, half) {
                LehmerEnd::Done(g) => return g,
                LehmerEnd::Stalled { pair, .. } => {
                    let [x, y] = pair;
                    let (u, v) = if x.len() >= y.len() { (x, y) } else { (y, x) };
                    let r = remainder(f, &u, &v);
                    (a, b) = (v, r);
                }
            }
        }
    }

    fn remainder(f: &Fp32, u: &[E], v: &[E]) -> Vec<E> {
        let mut r = u.to_vec();
        let inv = f.inv(v.last().unwrap()).unwrap();
        while r.len() >= v.len() {
            let c = f.mul(r.last().unwrap(), &inv);
            let k = r.len() - v.len();
            for (i, y) in v.iter().enumerate() {
                r[i + k] = f.sub(&r[i + k], &f.mul(&c, y));
            }
            while r.last().is_some_and(|y| *y == f.zero()) {
                r.pop();
            }
        }
        r
    }

    fn mul(f: &Fp32, a: &[E], b: &[E]) -> Vec<E> {
        if a.is_empty() || b.is_empty() {
            return Vec::new();
        }
        let mut c = vec![f.zero(); a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                c[i + j] = f.add(&c[i + j], &f.mul(x, y));
            }
        }
        c
    }

    fn add(f: &Fp32, a: &[E], b: &[E]) -> Vec<E> {
        let mut c = vec![f.zero(); a.len().max(b.len())];
        for (i, y) in c.iter_mut().enumerate() {
            let x = a.get(i).copied().unwrap_or(f.zero());
            *y = f.add(&x, &b.get(i).copied().unwrap_or(f.zero()));
        }
        c
    }

    fn proportional(f: &Fp32, g: &[E], h: &[E]) -> bool {
        match (g.last(), h.last()) {
            (Some(lg), Some(lh)) => {
                g.len() == h.len() && g.iter().zip(h).all(|(x, y)| f.mul(x, lh) == f.mul(y, lg))
            }
            _ => g.is_empty() && h.is_empty(),
        }
    }

    fn random(f: &Fp32, seed: &mut u64, len: usize) -> Vec<E> {
        (0..len)
            .map(|i| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // A nonzero top, so that the length is the degree plus one.
                let x = (*seed >> 33) % 469762049;
                f.from_u64(if i + 1 == len && x == 0 { 1 } else { x })
            })
            .collect()
    }

    /// A pair whose remainder sequence has the given quotient degrees and ends at g:
    /// built backwards, r_(i−1) = q_i·r_i + r_(i+1).
    fn sequence(f: &Fp32, seed: &mut u64, g: &[E], degrees: &[usize]) -> (Vec<E>, Vec<E>) {
        let (mut r0, mut r1) = (g.to_vec(), Vec::new());
        for &d in degrees.iter().rev() {
            let q = random(f, seed, d + 1);
            let next = add(f, &mul(f, &q, &r0), &r1);
            (r0, r1) = (next, r0);
        }
        (r0, r1)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random pairs with a common factor, of any shape: the rounds find what the
        /// on-chip Euclid finds, up to a constant, for windows from 3 coefficients up.
        #[test]
        fn rounds_find_euclids_gcd(
            (lg, la, lb) in (1usize..12, 1usize..90, 0usize..90),
            half in 1usize..20,
            seed in any::<u64>(),
        ) {
            let f = field();
            let mut seed = seed;
            let g = random(&f, &mut seed, lg);
            let a = mul(&f, &g, &random(&f, &mut seed, la));
            let b = mul(&f, &g, &random(&f, &mut seed, lb));
            let want = euclid_gcd(&f, &a, &b);
            prop_assert!(proportional(&f, &lehmer_gcd(&f, &a, &b, half), &want));
            prop_assert!(proportional(&f, &lehmer_gcd(&f, &b, &a, half), &want));
        }

        /// Sequences that are not normal: quotients of degree 0 to 40, some above the
        /// window's half (the host's division takes those), degree gaps in the middle.
        #[test]
        fn rounds_follow_sequences_that_are_not_normal(
            degrees in proptest::collection::vec(prop_oneof![3 => 1usize..3, 1 => 0usize..41], 1..25),
            lg in 1usize..6,
            half in 1usize..12,
            seed in any::<u64>(),
        ) {
            let f = field();
            let mut seed = seed;
            let g = random(&f, &mut seed, lg);
            let (a, b) = sequence(&f, &mut seed, &g, &degrees);
            let got = lehmer_gcd(&f, &a, &b, half);
            prop_assert!(proportional(&f, &got, &g), "{:?}", degrees);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The carried cofactors: each polynomial of the last pair is its cofactor times a
        /// plus a multiple of b, and the cofactors stay shorter than the longer operand.
        #[test]
        fn carried_cofactors_combine_the_pair_from_a(
            degrees in proptest::collection::vec(prop_oneof![3 => 1usize..3, 1 => 0usize..12], 1..25),
            lg in 1usize..6,
            half in 1usize..12,
            swap in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let f = field();
            let mut seed = seed;
            let g = random(&f, &mut seed, lg);
            let (a, b) = sequence(&f, &mut seed, &g, &degrees);
            let (a, b) = if swap { (b, a) } else { (a, b) };
            let (_, carried) = lehmer_rounds_carrying(&f, &a, &b, half);
            for (p, s) in carried.pair.iter().zip(&carried.cofactors) {
                prop_assert!(s.len() <= a.len().max(b.len()));
                let minus_sa: Vec<E> = mul(&f, s, &a).iter().map(|y| f.neg(y)).collect();
                let rest = add(&f, p, &minus_sa);
                prop_assert!(remainder(&f, &rest, &b).iter().all(|y| *y == f.zero()));
            }
        }
    }

    #[test]
    fn degenerate_pairs_end_at_once() {
        let f = field();
        let e = |v: &[u64]| v.iter().map(|&x| f.from_u64(x)).collect::<Vec<_>>();
        assert_eq!(lehmer_rounds(&f, &[], &[], 2), LehmerEnd::Done(vec![]));
        assert_eq!(
            lehmer_rounds(&f, &[], &e(&[0, 0]), 2),
            LehmerEnd::Done(vec![])
        );
        assert_eq!(
            lehmer_rounds(&f, &e(&[1, 2, 0]), &[], 2),
            LehmerEnd::Done(e(&[1, 2]))
        );
        assert_eq!(
            lehmer_rounds(&f, &e(&[5]), &e(&[1, 2, 3]), 2),
            LehmerEnd::Done(e(&[5]))
        );
        // x^20 + 1 and x: a first quotient of degree 19 > half stalls in round 0, the pair
        // as stored and normalised.
        let mut a = vec![f.zero(); 21];
        (a[0], a[20]) = (f.one(), f.one());
        let b = e(&[0, 1, 0]);
        let LehmerEnd::Stalled { round, pair } = lehmer_rounds(&f, &b, &a, 3) else {
            panic!("a first quotient of degree 19 stalls");
        };
        assert_eq!((round, pair), (0, [e(&[0, 1]), a.clone()]));
        assert_eq!(lehmer_gcd(&f, &a, &b, 3), e(&[1]));
    }

    #[test]
    fn the_kernels_read_their_contract() {
        for (pass, args) in [
            (EuclidPass::Window, &WINDOW_ARGS[..]),
            (EuclidPass::Apply, &APPLY_ARGS[..]),
            (EuclidPass::TrailWindow, &TRAIL_WINDOW_ARGS[..]),
        ] {
            let k = pass.kernel();
            k.check().unwrap();
            let text = k.to_string();
            for arg in args {
                assert!(text.contains(arg.name()), "{}", arg.name());
            }
        }
        assert_eq!(EuclidPass::Window.threads((255, 0)), 512);
        assert_eq!(EuclidPass::Window.threads((256, 0)), 512);
        // A warp for each of the window's three rows at least.
        assert_eq!(EuclidPass::Window.threads((1, 0)), 96);
        assert_eq!(EuclidPass::Window.threads((30, 0)), 64 + 32 + 32);
        assert_eq!(EuclidPass::Window.threads((31, 0)), 96 + 64 + 64);
        assert_eq!(EuclidPass::Window.threads((32, 0)), 96 + 64 + 64);
        // For 32-bit elements the window keeps its warp's matrix beside its rows; the
        // trail window, whose steps are the block's, does not.
        assert_eq!(
            EuclidPass::Window.shared_bytes((2, 0), 4),
            (4 * 5 + 8 * 3 + 4 * WARP_MATRIX_LEN) * 4
        );
        assert_eq!(
            EuclidPass::TrailWindow.shared_bytes((2, 0), 4),
            (4 * 5 + 8 * 3) * 4
        );
        assert_eq!(
            EuclidPass::Window.shared_bytes((2, 0), 8),
            (4 * 5 + 8 * 3) * 8
        );
        assert_eq!(
            EuclidPass::Apply.shared_bytes((2, 256), 8),
            (4 * 3 + 2 * 258) * 8
        );
    }
}
