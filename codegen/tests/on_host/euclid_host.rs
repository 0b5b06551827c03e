//! The on-chip Euclidean algorithm (`euclid_gcd`), compiled as plain C++ from the file the
//! GPU runs (`fermat_codegen::poly::source`) and run on the CPU block by block, one thread
//! per block: each pair of a batch gives what `euclid::euclid_gcd` gives, element for
//! element, and that is the common factor the pair was built with, up to a constant — for a
//! word prime of each width and an SRGFN.
//!
//! Operands sit in batch buffers at distances of their own with unread elements between
//! them, some with zeros at the top; outputs start poisoned.

use crate::host;

use fermat_codegen::euclid::euclid_gcd;
use fermat_codegen::poly;
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::with_field;
use host::{build_harness, compiler, elements, parse_words, run_harness, words};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

const HARNESS: &str = r#"
#include "kernels.cu"
static bool read_words(std::vector<fe_word_t>& v) {
    for (auto& w : v) { unsigned long long x; if (scanf("%llu", &x) != 1) return false; w = (fe_word_t)x; }
    return true;
}
int main() {
    size_t pairs, la, sa, da, lb, sb, db, sd, dd, wa, wb, wd;
    if (scanf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu", &pairs, &la, &sa, &da, &lb,
              &sb, &db, &sd, &dd, &wa, &wb, &wd) != 12) return 2;
    std::vector<fe_word_t> a(wa), b(wb), d(wd, (fe_word_t)0x5a5a5a5a5a5a5a5aull);
    if (!read_words(a) || !read_words(b)) return 2;
    std::vector<uint64_t> lens(pairs, 12345);
    gridDim = {(unsigned)pairs, 1, 1};
    for (unsigned x = 0; x < pairs; x++) {
        blockIdx = {x, 0, 0};
        euclid_gcd(a.data(), la, sa, da, b.data(), lb, sb, db, d.data(), sd, dd, lens.data());
    }
    for (auto l : lens) printf("%llu\n", (unsigned long long)l);
    for (auto w : d) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

/// A batch of pairs of equal lengths: the operands as laid out in one buffer each, `gap`
/// random elements between consecutive ones.
struct Batch<F: Field> {
    a: Vec<Vec<F::Elem>>,
    b: Vec<Vec<F::Elem>>,
    gap: usize,
}

/// Runs the kernel on `batch` and returns, per pair, the remainder it wrote.
fn run<F: Field>(
    any: &AnyField,
    field: &F,
    batch: &Batch<F>,
    rng: &mut rand::rngs::StdRng,
) -> Option<Vec<Vec<F::Elem>>> {
    let cxx = compiler()?;
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("euclid_host_{}", any.name()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), poly::source(any).unwrap()).unwrap();
    let exe = build_harness(&cxx, &dir, HARNESS, &[], "the Euclidean kernel");
    let k = any.srgfn_params().map_or(1, |p| p.k as usize);
    let pairs = batch.a.len();
    let (la, lb) = (batch.a[0].len(), batch.b[0].len());
    let (da, db, dd) = (la + batch.gap, lb + batch.gap, la.max(lb) + batch.gap);
    let lay = |ps: &[Vec<F::Elem>], dist: usize, rng: &mut rand::rngs::StdRng| {
        let mut all = Vec::new();
        for p in ps {
            all.extend_from_slice(p);
            all.extend((0..dist - p.len()).map(|_| field.from_u64(rng.gen())));
        }
        words(field, &all, all.len(), k)
    };
    let (wa, wb) = (lay(&batch.a, da, rng), lay(&batch.b, db, rng));
    let (sa, sb, sd) = (pairs * da, pairs * db, pairs * dd);
    let mut text = format!(
        "{pairs} {la} {sa} {da} {lb} {sb} {db} {sd} {dd} {} {} {}\n",
        wa.len(),
        wb.len(),
        sd * k
    );
    for w in wa.iter().chain(&wb) {
        text.push_str(&format!("{w} "));
    }
    std::fs::write(dir.join("input.txt"), &text).unwrap();
    let out = parse_words(&run_harness(&exe, &text, "the Euclidean kernel"));
    let (lens, d) = out.split_at(pairs);
    // Pair x's coefficient i, digit c, is word c·sd + x·dd + i; the rest stays poisoned.
    let pair = |x: usize, len: usize| {
        let digits: Vec<u64> = (0..k)
            .flat_map(|c| d[c * sd + x * dd..][..len].iter().copied())
            .collect();
        elements(field, &digits, len, len, k)
    };
    Some(
        lens.iter()
            .enumerate()
            .map(|(x, &len)| pair(x, len as usize))
            .collect(),
    )
}

fn random<F: Field>(field: &F, rng: &mut rand::rngs::StdRng, len: usize) -> Vec<F::Elem> {
    (0..len).map(|_| field.from_u64(rng.gen())).collect()
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

/// g·lc(h) = h·lc(g): equal up to a nonzero constant.
fn proportional<F: Field>(field: &F, g: &[F::Elem], h: &[F::Elem]) -> bool {
    let (Some(lg), Some(lh)) = (g.last(), h.last()) else {
        return g.is_empty() && h.is_empty();
    };
    g.len() == h.len()
        && g.iter()
            .zip(h)
            .all(|(x, y)| field.mul(x, lh) == field.mul(y, lg))
}

fn check<F: Field>(any: &AnyField, field: &F) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(25);
    let one = vec![field.one()];
    // Pairs g·u, g·v (u, v random, coprime almost surely) of lengths lg + lu − 1 and
    // lg + lv − 1, in batches of three.
    for (lg, lu, lv, gap) in [
        (1, 40, 30, 3),
        (5, 60, 61, 0),
        (20, 33, 1, 7),
        (9, 9, 9, 1),
        (1, 2, 200, 5),
    ] {
        let gs: Vec<_> = (0..3).map(|_| random(field, &mut rng, lg)).collect();
        let a: Vec<_> = gs
            .iter()
            .map(|g| mul(field, g, &random(field, &mut rng, lu)))
            .collect();
        let b: Vec<_> = gs
            .iter()
            .map(|g| mul(field, g, &random(field, &mut rng, lv)))
            .collect();
        let batch = Batch { a, b, gap };
        let Some(got) = run(any, field, &batch, &mut rng) else {
            return;
        };
        for (x, g) in got.iter().enumerate() {
            let want = euclid_gcd(field, &batch.a[x], &batch.b[x]);
            assert!(
                g == &want,
                "{}: pair {x} of ({lg}, {lu}, {lv}): not the mirror's",
                any.name()
            );
            let common = if lg == 1 { &one } else { &gs[x] };
            assert!(
                proportional(field, g, common),
                "{}: pair {x} of ({lg}, {lu}, {lv}): not the common factor",
                any.name()
            );
        }
    }
    // Zeros at the top, a degree gap, a zero operand, two zeros, a constant operand.
    let e = |v: &[u64]| v.iter().map(|&x| field.from_u64(x)).collect::<Vec<_>>();
    let batch = Batch {
        a: vec![
            e(&[1, 0, 0, 0, 0, 0, 0, 0, 1]),
            e(&[0, 0, 0, 0, 0, 0, 0, 0, 0]),
            e(&[0, 0, 0, 0, 0, 0, 0, 0, 0]),
            e(&[3, 1, 4, 1, 5, 0, 0, 0, 0]),
        ],
        b: vec![
            e(&[0, 0, 0, 0, 0, 3]),
            e(&[2, 7, 1, 0, 0, 0]),
            e(&[0; 6]),
            e(&[9, 0, 0, 0, 0, 0]),
        ],
        gap: 2,
    };
    let Some(got) = run(any, field, &batch, &mut rng) else {
        return;
    };
    for (x, g) in got.iter().enumerate() {
        assert!(
            g == &euclid_gcd(field, &batch.a[x], &batch.b[x]),
            "{}: edge pair {x}",
            any.name()
        );
    }
    assert_eq!(
        got.iter().map(Vec::len).collect::<Vec<_>>(),
        [1, 3, 0, 1],
        "{}",
        any.name()
    );
}

#[test]
fn the_kernel_gives_the_common_factor_of_each_pair() {
    for spec in ["babybear", "goldilocks", "469762049", "P2"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(&any, f));
    }
}
