//! The passes of transforms split over devices — the twiddled DFT(G), its inverse alone and
//! with a pointwise product, the local transpose — compiled as plain C++ from the file the
//! GPU runs (`fermat_codegen::poly::source`) and run on the CPU, one thread of one block:
//! they give what the CPU's runs of the same passes give (`split::{forward, inverse,
//! transpose}`), for a word prime of each width and an SRGFN, on every device of a split.
//! Outputs start poisoned.

mod host;

use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::poly;
use fermat_codegen::split::{self, SplitPass};
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
    char name[32]; size_t stride, m, terms, block;
    if (scanf("%31s %zu %zu %zu %zu", name, &stride, &m, &terms, &block) != 5) return 3;
    std::vector<fe_word_t> src = read_buffer(), op = read_buffer(), tw = read_buffer(),
        dst = read_buffer();
    if (!strcmp(name, "split_forward"))
        split_forward(src.data(), dst.data(), tw.data(), stride, stride, m, terms, block);
    else if (!strcmp(name, "split_inverse"))
        split_inverse(src.data(), dst.data(), tw.data(), stride, stride, m, terms, block);
    else if (!strcmp(name, "split_product"))
        split_product(src.data(), op.data(), dst.data(), tw.data(), stride, stride, m, terms, block);
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
        let s = m / g as usize;
        let omega = field.root_of_unity(n).unwrap();
        let x: Vec<F::Elem> = (0..m).map(|_| field.from_u64(rng.gen())).collect();
        let y: Vec<F::Elem> = (0..m).map(|_| field.from_u64(rng.gen())).collect();
        let run = |pass: SplitPass, c: u64, (size, terms): (usize, usize)| -> Vec<F::Elem> {
            let table = pass.table(field, &omega, n, g, c);
            // The low table's rows as the runtime passes them.
            let block = split::low_rows(size as u64);
            let mut input = format!("{} {m} {size} {terms} {block}\n", pass.name());
            input += &line(&words(field, &x, m, k));
            input += &line(&words(field, &y, m, k));
            input += &line(&table_form(field, &shape, &table));
            input += &line(&vec![POISON; m * k]);
            let out = parse_words(&run_harness(&exe, &input, pass.name()));
            elements(field, &out, m, m, k)
        };
        for c in 0..g {
            let what = format!("{} N = {n}, G = {g}, device {c}", any.name());
            let gu = g as usize;
            let mut want = vec![field.zero(); m];
            let forward = SplitPass::Forward.table(field, &omega, n, g, c);
            split::forward(field, gu, &forward, &x, &mut want);
            assert!(
                run(SplitPass::Forward, c, (s, gu)) == want,
                "forward, {what}"
            );
            let inverse = SplitPass::Inverse.table(field, &omega, n, g, c);
            split::inverse(field, gu, &inverse, &x, None, &mut want);
            assert!(
                run(SplitPass::Inverse, c, (s, gu)) == want,
                "inverse, {what}"
            );
            split::inverse(field, gu, &inverse, &x, Some(&y), &mut want);
            assert!(
                run(SplitPass::Product, c, (s, gu)) == want,
                "product, {what}"
            );
        }
        let mut want = vec![field.zero(); m];
        split::transpose(&x, g as usize, &mut want);
        let got = run(SplitPass::Transpose, 0, (s, g as usize));
        assert!(got == want, "{} transpose N = {n}, G = {g}", any.name());
        split::transpose(&x, s, &mut want);
        let got = run(SplitPass::Transpose, 0, (g as usize, s));
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
