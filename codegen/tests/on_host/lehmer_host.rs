//! Lehmer's rounds (`euclid_window`, `euclid_apply`), compiled as plain C++ from the file
//! the GPU runs (`fermat_codegen::poly::source`) and run on the CPU round by round, the
//! apply pass over a grid of three blocks: each pair ends, or stalls, as
//! `euclid::lehmer_rounds` says, element for element — for a word prime of each width
//! and an SRGFN.
//!
//! The apply pass carries a's cofactors (its grid's second row of blocks), which end as
//! `euclid::lehmer_rounds_carrying` says, and the window keeps a trail of its divisions,
//! which is `euclid::lehmer_rounds_logging`'s. The work and cofactor buffers hold junk past
//! each polynomial and in the pair not yet written, the matrix and the destination start
//! poisoned.

use crate::host;

use fermat_codegen::euclid::{
    lehmer_rounds_carrying, lehmer_rounds_logging, LehmerEnd, LehmerState, LehmerStatus, LehmerStep,
};
use fermat_codegen::poly;
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::with_field;
use host::{build_harness, compiler, elements, parse_words, run_harness, words};
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};

const HARNESS: &str = r#"
#include "kernels.cu"
int main() {
    size_t cap, half, k, rounds, lu, lv, trail;
    if (scanf("%zu %zu %zu %zu %zu %zu %zu", &cap, &half, &k, &rounds, &lu, &lv, &trail) != 7) return 2;
    std::vector<fe_word_t> work(4 * cap * k), mat(4 * (half + 1) * k, (fe_word_t)0x5a5a5a5a5a5a5a5aull),
        dst(cap * k, (fe_word_t)0x5a5a5a5a5a5a5a5aull);
    std::vector<fe_word_t> cofs(4 * cap * k), leads(cap * k, (fe_word_t)0x5a5a5a5a5a5a5a5aull);
    std::vector<uint64_t> steps(cap, 0x5a5a5a5a5a5a5a5aull);
    for (auto& w : work) { unsigned long long x; if (scanf("%llu", &x) != 1) return 2; w = (fe_word_t)x; }
    for (auto& w : cofs) { unsigned long long x; if (scanf("%llu", &x) != 1) return 2; w = (fe_word_t)x; }
    std::vector<uint64_t> state(STATE_WORDS, 0);
    state[3] = lu;
    state[4] = lv;
    state[STATE_SU] = 1;
    for (size_t r = 0; r < rounds && state[0] == 0; r++) {
        gridDim = {1, 1, 1};
        blockIdx = {0, 0, 0};
        if (trail) {
            euclid_window_trail(work.data(), cap, mat.data(), half, r, state.data(), dst.data(), cap,
                                leads.data(), steps.data());
        } else {
            euclid_window(work.data(), cap, mat.data(), half, r, state.data(), dst.data(), cap);
        }
        gridDim = {3, 2, 1};
        for (unsigned y = 0; y < 2; y++) {
            for (unsigned b = 0; b < 3; b++) {
                blockIdx = {b, y, 0};
                euclid_apply(work.data(), cap, mat.data(), half, r, state.data(), cofs.data());
            }
        }
    }
    for (auto s : state) printf("%llu\n", (unsigned long long)s);
    for (auto w : work) printf("%llu\n", (unsigned long long)w);
    for (auto w : dst) printf("%llu\n", (unsigned long long)w);
    for (auto w : cofs) printf("%llu\n", (unsigned long long)w);
    for (auto w : leads) printf("%llu\n", (unsigned long long)w);
    for (auto w : steps) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

fn random<F: Field>(field: &F, rng: &mut rand::rngs::StdRng, len: usize) -> Vec<F::Elem> {
    (0..len)
        .map(|i| {
            let x = field.from_u64(rng.gen());
            if i + 1 == len && x == field.zero() {
                field.one()
            } else {
                x
            }
        })
        .collect()
}

fn mul<F: Field>(field: &F, a: &[F::Elem], b: &[F::Elem]) -> Vec<F::Elem> {
    let mut c = vec![field.zero(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            c[i + j] = field.add(&c[i + j], &field.mul(x, y));
        }
    }
    c
}

/// Runs the rounds on (a, b) with windows of 2·`half` + 1 and checks the end against the
/// mirror's, with the window that keeps a trail or the gcd's, which keeps none.
fn check_pair<F: Field>(
    any: &AnyField,
    field: &F,
    exe: &Path,
    (a, b): (&[F::Elem], &[F::Elem]),
    half: usize,
    trail: bool,
    rng: &mut rand::rngs::StdRng,
) -> (LehmerStatus, usize) {
    let k = any.srgfn_params().map_or(1, |p| p.k as usize);
    let cap = a.len().max(b.len()).max(1) + 3;
    let mut all: Vec<F::Elem> = Vec::with_capacity(4 * cap);
    for p in [a, b, &[], &[]] {
        all.extend_from_slice(p);
        all.extend((p.len()..cap).map(|_| field.from_u64(rng.gen())));
    }
    // a's cofactors: 1 and 0, junk past them.
    let mut cofs: Vec<F::Elem> = Vec::with_capacity(4 * cap);
    for p in [&[field.one()][..], &[], &[], &[]] {
        cofs.extend_from_slice(p);
        cofs.extend((p.len()..cap).map(|_| field.from_u64(rng.gen())));
    }
    let rounds = 4 * cap / half + 8;
    let mut text = format!(
        "{cap} {half} {k} {rounds} {} {} {}\n",
        a.len(),
        b.len(),
        u8::from(trail)
    );
    for w in words(field, &all, 4 * cap, k)
        .into_iter()
        .chain(words(field, &cofs, 4 * cap, k))
    {
        text.push_str(&format!("{w} "));
    }
    let out = parse_words(&run_harness(exe, &text, "the Lehmer rounds"));
    let (state, rest) = out.split_at(LehmerState::WORDS);
    let (work, rest) = rest.split_at(4 * cap * k);
    let (dst, rest) = rest.split_at(cap * k);
    let (cofs, rest) = rest.split_at(4 * cap * k);
    let (leads, steps) = rest.split_at(cap * k);
    let status = LehmerStatus::of_word(state[LehmerState::STATUS]);
    let what = format!(
        "{}: ({}, {}), half {half}, trail {trail}",
        any.name(),
        a.len(),
        b.len()
    );
    let (end, carried) = lehmer_rounds_carrying(field, a, b, half);
    // The trail: one entry per division, as the mirror logs them, and nothing past; none
    // from the gcd's window.
    let (_, mut want) = lehmer_rounds_logging(field, a, b, half);
    if !trail {
        want.clear();
    }
    let logged = state[LehmerState::STEPS] as usize;
    let lead = elements(field, leads, logged, cap, k);
    let got: Vec<_> = (0..logged)
        .map(|j| LehmerStep::of_word(lead[j], steps[j]))
        .collect();
    assert_eq!(got, want, "{what}: the trail");
    assert!(
        steps[logged..].iter().all(|&w| w == 0x5a5a5a5a5a5a5a5a),
        "{what}: logged past the trail"
    );
    // Vector j of a buffer of four: digit c of coefficient i at c·4·cap + j·cap + i.
    let vector = |buffer: &[u64], j: usize, len: usize| {
        let digits: Vec<u64> = (0..k)
            .flat_map(|c| buffer[c * 4 * cap + j * cap..][..cap].iter().copied())
            .collect();
        elements(field, &digits, len, cap, k)
    };
    let set = state[LehmerState::ROUND] as usize % 2;
    assert_eq!(state[LehmerState::ROUND], carried.round as u64, "{what}");
    for (j, want) in carried.cofactors.iter().enumerate() {
        let word = [LehmerState::len_su(set), LehmerState::len_sv(set)][j];
        let len = state[word] as usize;
        assert!(
            want.len() <= len && len <= cap,
            "{what}: cofactor {j} of length {len}"
        );
        let got = vector(cofs, 2 * set + j, len);
        assert_eq!(&got[..want.len()], &want[..], "{what}: cofactor {j}");
        assert!(
            got[want.len()..].iter().all(|y| *y == field.zero()),
            "{what}: cofactor {j}'s top"
        );
    }
    match end {
        LehmerEnd::Done(g) => {
            assert_eq!(status, Some(LehmerStatus::Done), "{what}");
            assert_eq!(state[LehmerState::RESULT_LEN], g.len() as u64, "{what}");
            assert_eq!(elements(field, dst, g.len(), cap, k), g, "{what}");
            let poisoned =
                (g.len()..cap).all(|i| (0..k).all(|c| dst[c * cap + i] as u32 == 0x5a5a5a5a));
            assert!(poisoned, "{what}: written past the result");
        }
        LehmerEnd::Stalled { round, pair } => {
            assert_eq!(status, Some(LehmerStatus::Stalled), "{what}");
            assert_eq!(state[LehmerState::ROUND], round as u64, "{what}");
            let set = round % 2;
            let lens = [
                state[LehmerState::len_u(set)],
                state[LehmerState::len_v(set)],
            ];
            assert_eq!(lens, [pair[0].len() as u64, pair[1].len() as u64], "{what}");
            for (j, p) in pair.iter().enumerate() {
                assert_eq!(&vector(work, 2 * set + j, p.len()), p, "{what}: vector {j}");
            }
        }
    }
    (status.unwrap(), state[LehmerState::ROUND] as usize)
}

fn check<F: Field>(any: &AnyField, field: &F) {
    let Some(cxx) = compiler() else {
        return;
    };
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("lehmer_host_{}", any.name()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), poly::source(any).unwrap()).unwrap();
    let harness = HARNESS
        .replace("STATE_WORDS", &LehmerState::WORDS.to_string())
        .replace("STATE_SU", &LehmerState::len_su(0).to_string());
    let exe = build_harness(&cxx, &dir, &harness, &[], "the Lehmer rounds");
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    // Common factors of random pairs, windows from 3 to 33 coefficients: many rounds,
    // the last one whole; the longer operand first and second.
    for (lg, lu, lv, half) in [
        (3, 90, 87, 4),
        (1, 70, 70, 1),
        (10, 120, 119, 16),
        (5, 40, 42, 3),
        (2, 64, 60, 8),
    ] {
        let g = random(field, &mut rng, lg);
        let a = mul(field, &g, &random(field, &mut rng, lu));
        let b = mul(field, &g, &random(field, &mut rng, lv));
        let (end, round) = check_pair(any, field, &exe, (&a, &b), half, true, &mut rng);
        assert_eq!(
            check_pair(any, field, &exe, (&a, &b), half, false, &mut rng),
            (end, round)
        );
        let what = format!("{}: ({lg}, {lu}, {lv}), half {half}", any.name());
        assert_eq!(end, LehmerStatus::Done, "{what}");
        // A normal sequence loses half its degree per round until the window holds it.
        assert_eq!(
            round,
            (lg + lu.max(lv) - 2)
                .saturating_sub(2 * half)
                .div_ceil(half),
            "{what}"
        );
    }
    // Zeros at the top, a zero operand, a constant, a gap that stalls the first round and
    // one that stalls a later round.
    let e = |v: &[u64]| v.iter().map(|&x| field.from_u64(x)).collect::<Vec<_>>();
    let mut long = random(field, &mut rng, 50);
    long.extend(e(&[0, 0]));
    // A remainder sequence built backwards, r_(i−1) = q_i·r_i + r_(i+1): twenty
    // quotients of degree 1, one of degree 25, ten of degree 1.
    let (mut late, mut late_b) = (random(field, &mut rng, 3), Vec::new());
    for d in [[1; 10].as_slice(), &[25], &[1; 20]].concat() {
        let mut next = mul(field, &random(field, &mut rng, d + 1), &late);
        for (i, y) in late_b.iter().enumerate() {
            next[i] = field.add(&next[i], y);
        }
        (late, late_b) = (next, late);
    }
    let stalled = LehmerStatus::Stalled;
    for (a, b, half, end) in [
        (
            long.clone(),
            random(field, &mut rng, 47),
            4,
            LehmerStatus::Done,
        ),
        (long.clone(), Vec::new(), 4, LehmerStatus::Done),
        (e(&[7]), long.clone(), 4, LehmerStatus::Done),
        (
            random(field, &mut rng, 60),
            random(field, &mut rng, 3),
            5,
            stalled,
        ),
        (late.clone(), late_b.clone(), 6, stalled),
        // Windows wider than the sub-window: its steps from the top of the window, and
        // the quotient of degree 25 taken by the whole window's eliminations.
        (late, late_b, 40, LehmerStatus::Done),
    ] {
        for trail in [true, false] {
            assert_eq!(
                check_pair(any, field, &exe, (&a, &b), half, trail, &mut rng).0,
                end
            );
        }
    }
}

#[test]
fn the_rounds_end_as_the_mirror_says() {
    for spec in ["babybear", "goldilocks", "469762049", "P2"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(&any, f));
    }
}
