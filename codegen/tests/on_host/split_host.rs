//! The passes of transforms split over devices — the twiddled DFT(G), its inverse alone and
//! with a pointwise product, the local transpose — compiled as plain C++ from the file the
//! GPU runs (`fermat_codegen::poly::source`) and run on the CPU, one thread of one block:
//! they give what the CPU's runs of the same passes give (`split::{forward, inverse,
//! transpose}`), for a word prime of each width and an SRGFN, on every device of a split,
//! with the tables of both kinds of split ([`SplitPass::table`], [`CyclicPass::table`]) and
//! both layouts of a device's data (one vector of M elements, or G vectors of s elements).
//! Outputs start poisoned.

use crate::host;

use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::poly;
use fermat_codegen::split::{self, CyclicPass, SplitPass};
use fermat_dsl::field::{AnyField, Field, FieldSpec};
use fermat_dsl::with_field;
use host::{build_harness, compiler, elements, parse_words, run_harness, words};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

const HARNESS: &str = r#"
#include <cstdlib>
#include "kernels.cu"
static std::vector<fe_word_t> read_buffer() {
    size_t words;
    if (scanf("%zu", &words) != 1) exit(2);
    std::vector<fe_word_t> b(words ? words : 1);
    for (size_t i = 0; i < words; i++) {
        unsigned long long x; if (scanf("%llu", &x) != 1) exit(2); b[i] = (fe_word_t)x;
    }
    return b;
}
int main() {
    char name[32]; size_t stride, dist, m, terms, block;
    if (scanf("%31s %zu %zu %zu %zu %zu", name, &stride, &dist, &m, &terms, &block) != 6) return 3;
    std::vector<fe_word_t> src = read_buffer(), op = read_buffer(), tw = read_buffer(),
        dst = read_buffer();
    if (!strcmp(name, "split_forward"))
        split_forward(src.data(), dst.data(), tw.data(), stride, stride, dist, dist, m, terms,
            block);
    else if (!strcmp(name, "split_inverse"))
        split_inverse(src.data(), dst.data(), tw.data(), stride, stride, dist, dist, m, terms,
            block);
    else if (!strcmp(name, "split_fold"))
        split_fold(src.data(), dst.data(), tw.data(), stride, stride, dist, dist, m, terms,
            block);
    else if (!strcmp(name, "split_product"))
        split_product(src.data(), op.data(), dst.data(), tw.data(), stride, stride, dist, dist,
            m, terms, block);
    else if (!strcmp(name, "split_transpose"))
        split_transpose(src.data(), dst.data(), stride, stride, m, terms);
    else return 4;
    for (auto w : dst) printf("%llu\n", (unsigned long long)w);
    return 0;
}
"#;

/// Words that no element has in any layout (all ones), so that a missed output shows.
const POISON: u64 = u64::MAX;

fn line(words: &[u64]) -> String {
    let mut text = format!("{}\n", words.len());
    for w in words {
        text.push_str(&format!("{w} "));
    }
    text.push('\n');
    text
}

fn check<F: Field>(any: &AnyField, field: &F) {
    let Some(cxx) = compiler() else {
        return;
    };
    let name = any.name().replace([':', ','], "_");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("split_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cu"), poly::source(any).unwrap()).unwrap();
    let exe = build_harness(&cxx, &dir, HARNESS, &[], "the split passes");
    let k = any.srgfn_params().map_or(1, |p| p.k as usize);
    let shape = FieldShape::of(any);
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for (n, g) in [(64u64, 2u64), (256, 4), (512, 8)] {
        let m = (n / g) as usize;
        let (gu, s) = (g as usize, m / g as usize);
        let omega = field.root_of_unity(n).unwrap();
        let x: Vec<F::Elem> = (0..m).map(|_| field.from_u64(rng.gen())).collect();
        let y: Vec<F::Elem> = (0..m).map(|_| field.from_u64(rng.gen())).collect();
        // One vector of M elements (digit rows M words apart, butterfly rows s elements
        // apart), or G vectors of s elements (digit rows s words apart, rows k·s apart).
        let layouts = [(m, s, 1), (s, k * s, gu)];
        let run = |pass: SplitPass,
                   (table, block): (&[F::Elem], u64),
                   (size, terms): (usize, usize),
                   (stride, dist, vectors): (usize, usize, usize)|
         -> Vec<F::Elem> {
            let pack = |v: &[F::Elem]| -> Vec<u64> {
                v.chunks(m / vectors)
                    .flat_map(|part| words(field, part, m / vectors, k))
                    .collect()
            };
            let mut input = format!("{} {stride} {dist} {size} {terms} {block}\n", pass.name());
            input += &line(&pack(&x));
            input += &line(&pack(&y));
            input += &line(&table_form(field, &shape, table));
            input += &line(&vec![POISON; m * k]);
            let out = parse_words(&run_harness(&exe, &input, pass.name()));
            out.chunks(m * k / vectors)
                .flat_map(|part| elements(field, part, m / vectors, m / vectors, k))
                .collect()
        };
        // Both layouts of the twiddles: two short tables, and one row per column.
        for (c, block) in (0..g).flat_map(|c| [(c, split::low_rows(s as u64)), (c, s as u64)]) {
            let what = format!(
                "{} N = {n}, G = {g}, device {c}, {block} low rows",
                any.name()
            );
            let shape = (gu, block as usize);
            let mut want = vec![field.zero(); m];
            let t = (n, g, c);
            let forward = SplitPass::Forward.table(field, &omega, t, block);
            let inverse = SplitPass::Inverse.table(field, &omega, t, block);
            let butterfly = CyclicPass::Butterfly.table(field, &omega, t, block);
            let unbutterfly = CyclicPass::Unbutterfly.table(field, &omega, t, block);
            let fold = CyclicPass::Fold.table(field, &omega, t, block);
            for layout in layouts {
                let what = format!("{what}, rows {} apart", layout.1);
                for table in [&forward, &butterfly] {
                    split::forward(field, shape, table, &x, &mut want);
                    let got = run(SplitPass::Forward, (table, block), (s, gu), layout);
                    assert!(got == want, "forward, {what}");
                }
                for table in [&inverse, &unbutterfly] {
                    split::inverse(field, shape, table, &x, None, &mut want);
                    let got = run(SplitPass::Inverse, (table, block), (s, gu), layout);
                    assert!(got == want, "inverse, {what}");
                    split::inverse(field, shape, table, &x, Some(&y), &mut want);
                    let got = run(SplitPass::Product, (table, block), (s, gu), layout);
                    assert!(got == want, "product, {what}");
                }
                split::inverse(field, shape, &fold, &x, None, &mut want);
                let got = run(SplitPass::Fold, (&fold, block), (s, gu), layout);
                assert!(got == want, "fold, {what}");
            }
        }
        let whole = layouts[0];
        let mut want = vec![field.zero(); m];
        split::transpose(&x, g as usize, &mut want);
        let got = run(SplitPass::Transpose, (&[], 1), (s, g as usize), whole);
        assert!(got == want, "{} transpose N = {n}, G = {g}", any.name());
        split::transpose(&x, s, &mut want);
        let got = run(SplitPass::Transpose, (&[], 1), (g as usize, s), whole);
        assert!(
            got == want,
            "{} transpose back N = {n}, G = {g}",
            any.name()
        );
    }
}

#[test]
fn split_passes_match_their_cpu_runs() {
    for spec in ["469762049", "goldilocks", "P3"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(&any, f));
    }
}
