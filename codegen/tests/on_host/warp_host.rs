//! The prelude's vectors of 32 elements across a warp (`fe_warp_*`), compiled as plain C++
//! (all 32 coefficients in the host's one thread) and checked against polynomial
//! arithmetic in Rust: loads and stores, the product by x^k, the degree, one coefficient,
//! and the differences of products coefficient by coefficient — for a word prime and an
//! SRGFN (whose shuffles move an element digit by digit on the device).

use crate::host;

use fermat_codegen::prelude;
use fermat_dsl::field::{AnyField, FieldSpec};
use host::{build_harness, compiler, parse_words, run_harness};
use std::path::PathBuf;

/// Reads a row of 40 small integers, prints (one element a line, as integers below 2^64 for
/// word primes and as the first digit for these small values on SRGFNs): the load of
/// row[5..29) as stored back, its degree + 1, x^7 times it cut to 32, the degree + 1 of
/// that, its coefficient 30, 4·y − 2·x·x − x for y the load of row[0..32), the constant
/// 9, and what a store of three coefficients leaves in a poisoned row.
const HARNESS: &str = r#"
#include "prelude.cu"
static uint64_t first_digit(fe_t v) {
    fe_word_t w[FE_WORDS];
    fe_store(w, 0, 1, v);
    return (uint64_t)w[0];
}
static fe_t small(uint64_t v) {
    fe_t r = fe_zero();
    for (uint64_t i = 0; i < v; ++i) r = fe_add(r, fe_one());
    return r;
}
static void print(fe_warp_t x) {
    fe_t row[32];
    fe_warp_store(row, x, 32);
    for (int i = 0; i < 32; ++i) printf("%llu ", (unsigned long long)first_digit(row[i]));
    printf("\n");
}
int main() {
    fe_t row[40];
    for (int i = 0; i < 40; ++i) {
        unsigned long long v;
        if (scanf("%llu", &v) != 1) return 2;
        row[i] = small(v);
    }
    const fe_warp_t x = fe_warp_load(row, 5, 29);
    print(x);
    printf("%u\n", fe_warp_len(x));
    const fe_warp_t up = fe_warp_up(x, 7);
    print(up);
    printf("%u\n", fe_warp_len(up));
    printf("%llu\n", (unsigned long long)first_digit(fe_warp_at(up, 30)));
    const fe_warp_t y = fe_warp_load(row, 0, 40);
    const fe_t two = fe_to_mont(small(2)), one = fe_to_mont(fe_one());
    const fe_t four = fe_to_mont(small(4));
    print(fe_warp_mul_sub2(y, four, fe_warp_up(x, 1), two, x, one));
    print(fe_warp_constant(small(9)));
    fe_t poisoned[32];
    for (int i = 0; i < 32; ++i) poisoned[i] = small(77);
    fe_warp_store(poisoned, x, 3);
    printf("%llu %llu\n", (unsigned long long)first_digit(poisoned[2]), (unsigned long long)first_digit(poisoned[3]));
    return 0;
}
"#;

fn check(any: &AnyField) {
    let Some(cxx) = compiler() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("warp_host_{}", any.name()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prelude.cu"), prelude::render(any).unwrap()).unwrap();
    let exe = build_harness(&cxx, &dir, HARNESS, &[], "the warp vectors");
    // Small values, so that every result below is a small nonnegative integer in every
    // field (an SRGFN's first digit).
    let row: Vec<u64> = (0..40).map(|i| 40 + i).collect();
    let input: String = row.iter().map(|v| format!("{v} ")).collect();
    let out = parse_words(&run_harness(&exe, &input, "the warp vectors"));
    // x = row[5..29) then zeros; y = row[0..32).
    let x: Vec<u64> = (0..32)
        .map(|i| if i < 24 { row[5 + i] } else { 0 })
        .collect();
    let y: Vec<u64> = row[..32].to_vec();
    let up: Vec<u64> = (0..32).map(|i| if i >= 7 { x[i - 7] } else { 0 }).collect();
    let x_below = |i: usize| if i >= 1 { x[i - 1] } else { 0 };
    let diff2: Vec<u64> = (0..32).map(|i| 4 * y[i] - 2 * x_below(i) - x[i]).collect();
    let constant: Vec<u64> = (0..32).map(|i| if i == 0 { 9 } else { 0 }).collect();
    let mut want = x.clone();
    want.push(24);
    want.extend(&up);
    want.push(31);
    want.push(up[30]);
    want.extend(&diff2);
    want.extend(&constant);
    want.extend([x[2], 77]);
    assert_eq!(out, want, "{}", any.name());
}

#[test]
fn warp_vectors_are_polynomials_of_degree_below_32() {
    for spec in ["babybear", "goldilocks", "469762049", "P2"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        check(&any);
    }
}
