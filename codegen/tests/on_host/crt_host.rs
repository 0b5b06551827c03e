//! The CRT route's kernels, compiled as plain C++ from the file the GPU runs
//! (`fermat_codegen::crt::source`) and run on the CPU one thread at a time: projection
//! gives each integer's residues, recombination gives the integers back, and the explicit
//! CRT with the reduction gives them modulo m, against num-bigint, for random and edge
//! values, signed and unsigned, for prime sets of 32-bit and 64-bit residues.

use crate::host;

use fermat_codegen::crt::{
    modular_tables, narrow_tables, project_constants, project_constants_narrow, project_digits,
    recombine_tables, source, CrtPass, NarrowShape, NarrowTables, ResidueWord, DIGIT_BITS,
    EXPLICIT_HEAD, NARROW_DIGITS, NARROW_HEAD, NARROW_PROJECT_HEAD, PROJECT_HEAD,
};
use fermat_dsl::field::primality::is_prime_u64;
use host::{build_harness, compiler, parse_words, run_harness};
use num_bigint::{BigInt, BigUint, RandBigInt, Sign};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use std::fmt::Write;

const HARNESS: &str = r#"
#include "kernels.cu"
// The projections and the narrow explicit CRT by name, those in fixed shapes among them.
static const struct { const char* name; decltype(&crt_project) f; } PROJECTIONS[] = {
    {"crt_project", crt_project}, {"crt_project_signed", crt_project_signed},
    {"crt_project_narrow", crt_project_narrow}, {"crt_project_narrow_signed", crt_project_narrow_signed},
    SHAPED_PROJECTIONS
};
static const struct { const char* name; decltype(&crt_explicit_narrow) f; } NARROW[] = {
    {"crt_explicit_narrow", crt_explicit_narrow}, SHAPED_EXPLICIT
};
static bool read(std::vector<uint64_t>& v) {
    size_t n; if (scanf("%zu", &n) != 1) return false;
    v.resize(n ? n : 1);
    for (size_t i = 0; i < n; i++) { unsigned long long x; if (scanf("%llu", &x) != 1) return false; v[i] = x; }
    return true;
}
int main() {
    // src, consts, bases, signs (as words), then the sizes.
    std::vector<uint64_t> src, consts, bases, sign_words;
    if (!read(src) || !read(consts) || !read(bases) || !read(sign_words)) return 2;
    char name[64]; unsigned gy; size_t a[8];
    if (scanf("%63s %u", name, &gy) != 2) return 3;
    for (auto& v : a) if (scanf("%zu", &v) != 1) return 3;
    // src_len, src_stride/src_dist, words, row/mwords, primes, dst_len, dst_stride/dst_dist,
    // words written. Residues are in the prelude's words, integers in 64-bit ones.
    std::vector<uint32_t> signs(sign_words.begin(), sign_words.end());
    signs.resize(a[0] + 1);
    std::vector<fe_word_t> residues(src.begin(), src.end());
    std::vector<fe_word_t> res_out(a[7] ? a[7] : 1, (fe_word_t)0x5a5a5a5a5a5a5a5aull);
    std::vector<uint64_t> ints_out(a[7] ? a[7] : 1, 0x5a5a5a5a5a5a5a5aull);
    bool writes_residues = false;
    gridDim = {1, gy, 1};
    for (unsigned y = 0; y < gy; y++) {
        blockIdx = {0, y, 0};
        auto project = PROJECTIONS[0].f;
        auto narrow = NARROW[0].f;
        bool is_project = false, is_narrow = false;
        for (auto& k : PROJECTIONS) if (!strcmp(name, k.name)) { project = k.f; is_project = true; }
        for (auto& k : NARROW) if (!strcmp(name, k.name)) { narrow = k.f; is_narrow = true; }
        if (is_project) {
            writes_residues = true;
            project(src.data(), a[0], a[1], a[2], signs.data(), consts.data(), a[3], a[4], res_out.data(), a[5], a[6]);
        } else if (is_narrow)
            narrow(residues.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], ints_out.data(), a[6], a[5]);
        else if (!strcmp(name, "crt_recombine"))
            crt_recombine(residues.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], signs.data(), ints_out.data(), a[6]);
        else if (!strcmp(name, "crt_recombine_signed"))
            crt_recombine_signed(residues.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], signs.data(), ints_out.data(), a[6]);
        else if (!strcmp(name, "crt_explicit"))
            crt_explicit(residues.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], ints_out.data(), a[6]);
        else if (!strcmp(name, "crt_reduce")) {
            ints_out = src;
            crt_reduce(ints_out.data(), a[5], a[6], a[2], consts.data(), a[3]);
        } else return 4;
    }
    if (writes_residues) for (auto w : res_out) printf("%llu\n", (unsigned long long)w);
    else for (auto w : ints_out) printf("%llu\n", (unsigned long long)w);
    for (size_t j = 0; j < a[0]; j++) printf("%u\n", signs[j]);
    return 0;
}
"#;

fn list(out: &mut String, v: &[u64]) {
    write!(out, "{} ", v.len()).unwrap();
    for w in v {
        write!(out, "{w} ").unwrap();
    }
    out.push('\n');
}

/// The largest `count` primes below 2^bits with 2^adicity | p − 1.
fn primes(count: usize, adicity: u32, bits: u32) -> Vec<u64> {
    let top = ((1u64 << bits) - 1) >> adicity;
    (1..=top)
        .rev()
        .map(|c| (c << adicity) + 1)
        .filter(|&p| is_prime_u64(p))
        .take(count)
        .collect()
}

/// Integers word-major: word w of x_j at w·n + j.
fn word_major(x: &[BigInt], words: usize) -> Vec<u64> {
    let n = x.len();
    let mut out = vec![0u64; words * n];
    for (j, v) in x.iter().enumerate() {
        for (w, d) in v.magnitude().iter_u64_digits().enumerate() {
            out[w * n + j] = d;
        }
    }
    out
}

/// The harness over the kernels with residues in `word`s, built in a directory of the
/// test's own (`test`), since the tests run at once.
fn harness(cxx: &str, word: ResidueWord, test: &str) -> std::path::PathBuf {
    shaped_harness(cxx, word, test, &[])
}

/// [`harness`] with the narrow kernels of `shaped` (pass, shape) too, by their names.
fn shaped_harness(
    cxx: &str,
    word: ResidueWord,
    test: &str,
    shaped: &[(CrtPass, NarrowShape)],
) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("crt_host_{test}_{word:?}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut kernels = source(word).unwrap();
    let (mut projections, mut explicit) = (String::new(), String::new());
    for &(pass, shape) in shaped {
        kernels.push_str(&pass.shaped_kernel(shape).unwrap().to_string());
        let name = pass.shaped_name(shape);
        let list = match pass {
            CrtPass::ExplicitNarrow => &mut explicit,
            _ => &mut projections,
        };
        write!(list, "{{\"{name}\", {name}}}, ").unwrap();
    }
    std::fs::write(dir.join("kernels.cu"), kernels).unwrap();
    let harness = HARNESS
        .replace("SHAPED_PROJECTIONS", &projections)
        .replace("SHAPED_EXPLICIT", &explicit);
    build_harness(cxx, &dir, &harness, &[], "the CRT kernels")
}

/// Prime sets of both widths: (residue words, primes).
fn prime_sets() -> Vec<(ResidueWord, Vec<u64>)> {
    let mut sets: Vec<(ResidueWord, Vec<u64>)> = [(1, 20), (3, 20), (9, 24), (17, 30)]
        .iter()
        .map(|&(count, adicity)| (ResidueWord::U64, primes(count, adicity, 62)))
        .collect();
    sets.extend(
        [(1, 21), (5, 21), (18, 21)]
            .iter()
            .map(|&(count, adicity)| (ResidueWord::U32, primes(count, adicity, 31))),
    );
    sets
}

#[test]
fn projection_and_recombination_give_the_integers_back() {
    let Some(cxx) = compiler() else {
        return;
    };
    // The narrow projections in the shape of each set of 31-bit primes: the integers'
    // words are those of P − 1 (unsigned) or of P/2 (signed).
    let shaped: Vec<(CrtPass, NarrowShape)> = prime_sets()
        .into_iter()
        .filter(|(word, _)| *word == ResidueWord::U32)
        .flat_map(|(_, ps)| {
            let bits = ps.iter().fold(BigUint::one(), |a, &p| a * p).bits();
            [false, true].map(|signed| {
                let shape = NarrowShape {
                    primes: ps.len() as u64,
                    words: (bits - u64::from(signed)).div_ceil(64),
                    mwords: 0,
                };
                (CrtPass::ProjectNarrow { signed }, shape)
            })
        })
        .collect();
    let exes = [ResidueWord::U32, ResidueWord::U64]
        .map(|w| (w, shaped_harness(&cxx, w, "garner", &shaped)));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for (word, ps) in prime_sets() {
        let exe = &exes.iter().find(|(w, _)| *w == word).unwrap().1;
        let count = ps.len();
        let product: BigUint = ps.iter().fold(BigUint::one(), |a, &p| a * p);
        for signed in [false, true] {
            let x = edge_and_random_integers(&mut rng, &product, signed);
            let n = x.len();
            let words = x
                .iter()
                .map(|v| v.bits().div_ceil(64))
                .max()
                .unwrap()
                .max(1) as usize;
            let signs: Vec<u64> = x
                .iter()
                .map(|v| u64::from(v.sign() == Sign::Minus))
                .collect();
            let dst_len = n + 3; // padding past the integers is zero
            let consts = project_constants(&ps, words);
            let row = PROJECT_HEAD as usize + words;
            let mut input = String::new();
            list(&mut input, &word_major(&x, words));
            list(&mut input, &consts);
            list(&mut input, &[]);
            list(&mut input, &signs);
            let name = CrtPass::Project { signed }.name();
            writeln!(
                input,
                "{name} 1 {n} {n} {words} {row} {count} {dst_len} {dst_len} {}",
                count * dst_len
            )
            .unwrap();
            let out = parse_words(&run_harness(exe, &input, name));
            let residues = &out[..count * dst_len];
            for (i, &p) in ps.iter().enumerate() {
                let q = BigInt::from(p);
                for j in 0..dst_len {
                    let want = x.get(j).map_or(BigInt::zero(), |v| ((v % &q) + &q) % &q);
                    assert_eq!(
                        BigInt::from(residues[i * dst_len + j]),
                        want,
                        "{name}: x_{j} mod {p}"
                    );
                }
            }
            // The same residues by the projection in 32-bit products.
            if word == ResidueWord::U32 {
                let projection = Projection {
                    ps: &ps,
                    x: &x,
                    signs: &signs,
                    words,
                    dst_len,
                    signed,
                };
                check_narrow_projections(exe, &shaped, &projection, residues);
            }
            // Back again, from residue rows dst_len apart.
            let t = recombine_tables(&ps);
            let mut input = String::new();
            list(&mut input, residues);
            list(&mut input, &t.constants);
            list(&mut input, &t.bases);
            list(&mut input, &vec![7; n]); // stale signs are overwritten or ignored
            let name = CrtPass::Recombine { signed }.name();
            writeln!(
                input,
                "{name} 1 {n} {dst_len} {} {} {count} 0 {n} {}",
                t.words,
                t.row,
                t.words * n
            )
            .unwrap();
            let out = parse_words(&run_harness(exe, &input, name));
            for (j, v) in x.iter().enumerate() {
                let mut m = BigUint::zero();
                for w in (0..t.words).rev() {
                    m = (m << 64u32) + out[w * n + j];
                }
                let negative = signed && out[t.words * n + j] != 0;
                let sign = if negative { Sign::Minus } else { Sign::Plus };
                let got = BigInt::from_biguint(sign, m);
                assert_eq!(&got, v, "{name}: x_{j} over {count} primes");
            }
        }
    }
}

/// Edge values and randoms of many sizes, within the range of a set of primes of
/// `product`: [0, P) unsigned, (−P/2, P/2] signed.
fn edge_and_random_integers(
    rng: &mut rand_chacha::ChaCha8Rng,
    product: &BigUint,
    signed: bool,
) -> Vec<BigInt> {
    let half = BigInt::from(product >> 1u32);
    let p_int = BigInt::from(product.clone());
    let mut x: Vec<BigInt> = vec![BigInt::zero(), BigInt::one()];
    if signed {
        x.extend([-BigInt::one(), half, -(&p_int - 1u32) / 2u32]);
    } else {
        x.push(&p_int - 1u32);
    }
    for bits in [3, 63, 64, 65, 200, product.bits() - 2] {
        if bits + 1 < product.bits() {
            let m = rng.gen_biguint(bits);
            let negative = signed && rng.gen_bool(0.5);
            let sign = if negative { Sign::Minus } else { Sign::Plus };
            x.push(BigInt::from_biguint(sign, m));
        }
    }
    x
}

/// A projection's integers and the layout of its residues.
struct Projection<'a> {
    ps: &'a [u64],
    x: &'a [BigInt],
    signs: &'a [u64],
    words: usize,
    dst_len: usize,
    signed: bool,
}

/// The narrow projections (32-bit products) of `projection`, by the general kernel and by
/// the kernel of the set's shape, give the `residues` of the wide one.
fn check_narrow_projections(
    exe: &std::path::Path,
    shaped: &[(CrtPass, NarrowShape)],
    projection: &Projection,
    residues: &[u64],
) {
    let Projection {
        ps,
        x,
        signs,
        words,
        dst_len,
        signed,
    } = *projection;
    let (n, count) = (x.len(), ps.len());
    let consts = project_constants_narrow(ps, words);
    let row = (NARROW_PROJECT_HEAD + project_digits(words as u64)) as usize;
    let mut input = String::new();
    list(&mut input, &word_major(x, words));
    list(&mut input, &consts);
    list(&mut input, &[]);
    list(&mut input, signs);
    let name = CrtPass::ProjectNarrow { signed }.name();
    writeln!(
        input,
        "{name} 1 {n} {n} {words} {row} {count} {dst_len} {dst_len} {}",
        count * dst_len
    )
    .unwrap();
    let narrow = parse_words(&run_harness(exe, &input, name));
    assert_eq!(
        &narrow[..count * dst_len],
        residues,
        "{name} over {count} primes"
    );
    // And by the kernel of the set's shape, the bounds' arguments ignored.
    let shape = NarrowShape {
        primes: count as u64,
        words: words as u64,
        mwords: 0,
    };
    let pass = CrtPass::ProjectNarrow { signed };
    assert!(shaped.contains(&(pass, shape)), "{shape:?}");
    let shaped_input = input.replacen(
        &format!("{name} 1 {n} {n} {words} {row} {count}"),
        &format!("{} 1 {n} {n} 0 {row} 0", pass.shaped_name(shape)),
        1,
    );
    let out = parse_words(&run_harness(exe, &shaped_input, name));
    assert_eq!(&out[..count * dst_len], residues, "{shape:?}");
}

/// Integers from `words` word-major rows of n.
fn from_word_major(out: &[u64], words: usize, n: usize) -> Vec<BigUint> {
    (0..n)
        .map(|j| {
            (0..words)
                .rev()
                .fold(BigUint::zero(), |m, w| (m << 64u32) + out[w * n + j])
        })
        .collect()
}

/// Runs the reduction of `s` (integers of `words` words) modulo the tables' m.
fn reduce(
    exe: &std::path::Path,
    s: &[BigUint],
    words: usize,
    reduce: &[u64],
    mwords: usize,
) -> Vec<BigUint> {
    let n = s.len();
    let x: Vec<BigInt> = s.iter().cloned().map(BigInt::from).collect();
    let mut input = String::new();
    list(&mut input, &word_major(&x, words));
    list(&mut input, reduce);
    list(&mut input, &[]);
    list(&mut input, &[]);
    writeln!(
        input,
        "crt_reduce 1 0 0 {words} {mwords} 0 {n} {n} {}",
        words * n
    )
    .unwrap();
    let out = parse_words(&run_harness(exe, &input, "crt_reduce"));
    from_word_major(&out, mwords, n)
}

/// Moduli of every kind: tiny, even, powers of two, one word and just past it, BN254's r,
/// 2^255 − 19, and a random 700-bit one.
fn moduli(rng: &mut impl Rng) -> Vec<BigUint> {
    let one = BigUint::one();
    let mut ms: Vec<BigUint> = [2u64, 3, 1000, 1 << 40, u64::MAX]
        .iter()
        .map(|&m| BigUint::from(m))
        .collect();
    ms.push(&one << 64u32);
    ms.push((&one << 64u32) + 1u32);
    ms.push(&one << 128u32);
    ms.push(
        "21888242871839275222246405745257275088548364400416034343698204186575808495617"
            .parse()
            .unwrap(),
    );
    ms.push((&one << 255u32) - 19u32);
    ms.push(rng.gen_biguint(700) | (&one << 699u32));
    ms
}

#[test]
fn the_reduction_takes_integers_modulo_m() {
    let Some(cxx) = compiler() else {
        return;
    };
    let exe = harness(&cxx, ResidueWord::U64, "reduce");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    for (_, ps) in prime_sets() {
        for m in moduli(&mut rng) {
            let t = modular_tables(&ps, &m).unwrap();
            // The largest sum the explicit CRT can give, and the edges around m.
            let top = &m * (*ps.iter().max().unwrap() + 1) * ps.len() - 1u32;
            let mut s = vec![
                BigUint::zero(),
                &m - 1u32,
                m.clone(),
                &m * 2u32,
                &m * 3u32 - 1u32,
            ];
            s.push(top.clone());
            s.extend((0..20).map(|_| rng.gen_biguint_below(&top)));
            let got = reduce(&exe, &s, t.words, &t.reduce, t.mwords);
            for (x, r) in s.iter().zip(&got) {
                assert_eq!(r, &(x % &m), "{x} mod {m} over {} primes", ps.len());
            }
        }
    }
}

#[test]
fn the_explicit_crt_and_the_reduction_give_residues_modulo_m() {
    let Some(cxx) = compiler() else {
        return;
    };
    let exes = [ResidueWord::U32, ResidueWord::U64].map(|w| (w, harness(&cxx, w, "modular")));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
    for (word, ps) in prime_sets() {
        let exe = &exes.iter().find(|(w, _)| *w == word).unwrap().1;
        let (x, residues) = below_half(&ps, &mut rng);
        let n = x.len();
        for m in moduli(&mut rng) {
            let t = modular_tables(&ps, &m).unwrap();
            let mut input = String::new();
            list(&mut input, &residues);
            list(&mut input, &t.constants);
            list(&mut input, &t.bases);
            list(&mut input, &vec![0; n]);
            let name = CrtPass::Explicit.name();
            writeln!(
                input,
                "{name} 1 {n} {n} {} {EXPLICIT_HEAD} {} 0 {n} {}",
                t.words,
                ps.len(),
                t.words * n
            )
            .unwrap();
            let out = parse_words(&run_harness(exe, &input, name));
            let sums = from_word_major(&out, t.words, n);
            let bound = &m * (*ps.iter().max().unwrap() + 1) * ps.len();
            for (j, v) in x.iter().enumerate() {
                assert!(
                    sums[j] < bound,
                    "S_{j} = {} over {} primes",
                    sums[j],
                    ps.len()
                );
                assert_eq!(
                    &sums[j] % &m,
                    v % &m,
                    "x_{j} mod {m} over {} primes",
                    ps.len()
                );
            }
            let got = reduce(&exes[1].1, &sums, t.words, &t.reduce, t.mwords);
            for (j, v) in x.iter().enumerate() {
                assert_eq!(got[j], v % &m, "x_{j} mod {m} over {} primes", ps.len());
            }
        }
    }
}

#[test]
fn the_narrow_explicit_crt_gives_residues_modulo_an_odd_m() {
    let Some(cxx) = compiler() else {
        return;
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    // (primes, integers, their residues, m, the tables) for every modulus with tables.
    let mut cases = Vec::new();
    for (word, ps) in prime_sets() {
        if word != ResidueWord::U32 {
            continue;
        }
        let (x, residues) = below_half(&ps, &mut rng);
        let mut ms = moduli(&mut rng);
        // Odd moduli at the edges of a digit and of a word.
        ms.extend([(1u64 << 26) - 1, (1 << 26) + 1, (1 << 52) - 1, u64::MAX].map(BigUint::from));
        for m in ms {
            match narrow_tables(&ps, &m) {
                Some(t) => cases.push((ps.clone(), x.clone(), residues.clone(), m, t)),
                None => {
                    let wide = m.bits() > DIGIT_BITS * NARROW_DIGITS;
                    assert!(
                        !m.bit(0) || m < BigUint::from(3u32) || wide,
                        "no tables for {m}"
                    );
                }
            }
        }
    }
    let shape = |ps: &[u64], t: &NarrowTables| NarrowShape {
        primes: ps.len() as u64,
        words: t.digits as u64,
        mwords: t.mwords as u64,
    };
    let mut shaped: Vec<(CrtPass, NarrowShape)> = cases
        .iter()
        .map(|(ps, _, _, _, t)| (CrtPass::ExplicitNarrow, shape(ps, t)))
        .collect();
    shaped.sort_by_key(|(_, s)| (s.primes, s.words, s.mwords));
    shaped.dedup();
    let exe = shaped_harness(&cxx, ResidueWord::U32, "narrow", &shaped);
    for (ps, x, residues, m, t) in &cases {
        let n = x.len();
        let mut input = String::new();
        list(&mut input, residues);
        list(&mut input, &t.constants);
        list(&mut input, &t.bases);
        list(&mut input, &vec![0; n]);
        // The run-time kernel, then the one of this shape with the bounds' arguments 0.
        let pass = CrtPass::ExplicitNarrow;
        let (run_time, fixed) = (
            format!("{} 1 {n} {n} {}", pass.name(), t.digits),
            format!("{} 1 {n} {n} 0", pass.shaped_name(shape(ps, t))),
        );
        for (name, (s, mwords)) in [(run_time, (ps.len(), t.mwords)), (fixed, (0, 0))] {
            let mut input = input.clone();
            writeln!(
                input,
                "{name} {NARROW_HEAD} {s} {mwords} {n} {}",
                t.mwords * n
            )
            .unwrap();
            let out = parse_words(&run_harness(&exe, &input, &name));
            let got = from_word_major(&out, t.mwords, n);
            for (j, v) in x.iter().enumerate() {
                assert_eq!(
                    got[j],
                    v % m,
                    "{name}: x_{j} mod {m} over {} primes",
                    ps.len()
                );
            }
        }
    }
    assert!(cases.len() >= 15, "{} moduli", cases.len());
}

/// Integers in the explicit CRT's domain [0, P/2) for the primes `ps`: its edges, the
/// values whose y_i are all zero but one, and random ones; and their residue rows.
fn below_half(ps: &[u64], rng: &mut rand_chacha::ChaCha8Rng) -> (Vec<BigUint>, Vec<u64>) {
    let product: BigUint = ps.iter().fold(BigUint::one(), |a, &p| a * p);
    let half = &product >> 1u32;
    let mut x = vec![
        BigUint::zero(),
        BigUint::one(),
        &half - 1u32,
        half.clone() - 2u32,
    ];
    x.extend(ps.iter().map(|&p| &product / p).filter(|v| v < &half));
    x.extend((0..30).map(|_| rng.gen_biguint_below(&half)));
    let residues = ps
        .iter()
        .flat_map(|&p| {
            x.iter()
                .map(move |v| (v % p).iter_u64_digits().next().unwrap_or(0))
        })
        .collect();
    (x, residues)
}

/// The narrow projection at its sums' bounds: integers of all-ones words (every digit
/// 2^29 − 1) and random ones, of 1 to 16 words, over the largest 31-bit primes, by the
/// run-time kernel and by the kernel of each shape.
#[test]
fn the_narrow_projection_sums_all_ones_digits_exactly() {
    let Some(cxx) = compiler() else {
        return;
    };
    let ps = primes(18, 1, 31);
    let all_words = [1u64, 2, 4, 9, 16];
    let shaped: Vec<(CrtPass, NarrowShape)> = all_words
        .iter()
        .map(|&words| {
            let shape = NarrowShape {
                primes: ps.len() as u64,
                words,
                mwords: 0,
            };
            (CrtPass::ProjectNarrow { signed: false }, shape)
        })
        .collect();
    let exe = shaped_harness(&cxx, ResidueWord::U32, "all_ones", &shaped);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    for (pass, shape) in shaped {
        let words = shape.words as usize;
        let ones = (BigUint::one() << (64 * words)) - 1u32;
        let x: Vec<BigInt> = [
            ones.clone(),
            ones >> 1u32,
            rng.gen_biguint(64 * words as u64),
        ]
        .into_iter()
        .map(BigInt::from)
        .collect();
        let n = x.len();
        let row = (NARROW_PROJECT_HEAD + project_digits(shape.words)) as usize;
        let mut input = String::new();
        list(&mut input, &word_major(&x, words));
        list(&mut input, &project_constants_narrow(&ps, words));
        list(&mut input, &[]);
        list(&mut input, &vec![0; n]);
        let s = ps.len();
        for name in [pass.name().to_string(), pass.shaped_name(shape)] {
            let mut input = input.clone();
            writeln!(
                input,
                "{name} 1 {n} {n} {words} {row} {s} {n} {n} {}",
                s * n
            )
            .unwrap();
            let out = parse_words(&run_harness(&exe, &input, &name));
            for (i, &p) in ps.iter().enumerate() {
                for (j, v) in x.iter().enumerate() {
                    let want = v.magnitude() % p;
                    assert_eq!(BigUint::from(out[i * n + j]), want, "{name}: x_{j} mod {p}");
                }
            }
        }
    }
}
