//! The CRT route's kernels, compiled as plain C++ from the file the GPU runs
//! (`fermat_codegen::crt::source`) and run on the CPU one thread at a time: projection
//! gives each integer's residues and recombination gives the integers back, against
//! num-bigint, for random and edge values, signed and unsigned, for several prime sets.

mod host;

use fermat_codegen::crt::{project_constants, recombine_tables, CrtPass, PROJECT_HEAD};
use fermat_dsl::field::primality::is_prime_u64;
use host::{build_harness, compiler, parse_words, run_harness};
use num_bigint::{BigInt, BigUint, RandBigInt, Sign};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use std::fmt::Write;

const HARNESS: &str = r#"
#include "kernels.cu"
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
    char name[32]; unsigned gy; size_t a[8];
    if (scanf("%31s %u", name, &gy) != 2) return 3;
    for (auto& v : a) if (scanf("%zu", &v) != 1) return 3;
    // src_len, src_stride/src_dist, words, row, primes, dst_len, dst_stride/dst_dist, dst words
    std::vector<uint32_t> signs(sign_words.begin(), sign_words.end());
    signs.resize(a[0] + 1);
    std::vector<uint64_t> dst(a[7] ? a[7] : 1, 0x5a5a5a5a5a5a5a5aull);
    gridDim = {1, gy, 1};
    for (unsigned y = 0; y < gy; y++) {
        blockIdx = {0, y, 0};
        if (!strcmp(name, "crt_project"))
            crt_project(src.data(), a[0], a[1], a[2], signs.data(), consts.data(), a[3], dst.data(), a[5], a[6]);
        else if (!strcmp(name, "crt_project_signed"))
            crt_project_signed(src.data(), a[0], a[1], a[2], signs.data(), consts.data(), a[3], dst.data(), a[5], a[6]);
        else if (!strcmp(name, "crt_recombine"))
            crt_recombine(src.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], signs.data(), dst.data(), a[6]);
        else if (!strcmp(name, "crt_recombine_signed"))
            crt_recombine_signed(src.data(), a[0], a[1], a[4], consts.data(), a[3], bases.data(), a[2], signs.data(), dst.data(), a[6]);
        else return 4;
    }
    for (auto w : dst) printf("%llu\n", (unsigned long long)w);
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

/// The largest `count` primes below 2^62 with 2^adicity | p − 1.
fn primes(count: usize, adicity: u32) -> Vec<u64> {
    let top = ((1u64 << 62) - 1) >> adicity;
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

#[test]
fn projection_and_recombination_give_the_integers_back() {
    let Some(cxx) = compiler() else {
        return;
    };
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("crt_host");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("kernels.cu"),
        fermat_codegen::crt::source().unwrap(),
    )
    .unwrap();
    let exe = build_harness(&cxx, &dir, HARNESS, &[], "the CRT kernels");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for (count, adicity) in [(1, 20), (3, 20), (9, 24), (17, 30)] {
        let ps = primes(count, adicity);
        let product: BigUint = ps.iter().fold(BigUint::one(), |a, &p| a * p);
        let half = BigInt::from(&product >> 1u32);
        let p_int = BigInt::from(product.clone());
        for signed in [false, true] {
            // Edge values and randoms of many sizes, within the range of the set.
            let mut x: Vec<BigInt> = vec![BigInt::zero(), BigInt::one()];
            if signed {
                x.extend([-BigInt::one(), half.clone(), -(&p_int - 1u32) / 2u32]);
            } else {
                x.push(&p_int - 1u32);
            }
            for bits in [3, 63, 64, 65, 200, product.bits() - 2] {
                if bits + 1 < product.bits() {
                    let m = rng.gen_biguint(bits);
                    let negative = signed && rng.gen_bool(0.5);
                    x.push(BigInt::from_biguint(
                        if negative { Sign::Minus } else { Sign::Plus },
                        m,
                    ));
                }
            }
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
                "{name} {count} {n} {n} {words} {row} {count} {dst_len} {dst_len} {}",
                count * dst_len
            )
            .unwrap();
            let out = parse_words(&run_harness(&exe, &input, name));
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
            let out = parse_words(&run_harness(&exe, &input, name));
            for (j, v) in x.iter().enumerate() {
                let mut m = BigUint::zero();
                for w in (0..t.words).rev() {
                    m = (m << 64u32) + out[w * n + j];
                }
                let negative = signed && out[t.words * n + j] != 0;
                let got = BigInt::from_biguint(if negative { Sign::Minus } else { Sign::Plus }, m);
                assert_eq!(&got, v, "{name}: x_{j} over {count} primes");
            }
        }
    }
}
