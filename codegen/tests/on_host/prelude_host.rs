//! The device arithmetic of every catalogue field, compiled as plain C++ and run on the CPU
//! against the Rust fields of `fermat-dsl`.
//!
//! Each field's prelude is pasted into a small driver that reads digit-major operand
//! vectors (through `fe_load`, so the memory layout is checked too), applies `fe_add`,
//! `fe_sub`, `fe_mul`, `fe_neg`, `fe_mul_mont`, `fe_mul_sub_mont`, `fe_mul_sub2_mont`, `fe_to_mont`, `fe_mul_rpow<i>` and `fe_mul_rpow_rt` (SRGFNs) and
//! `fe_eq`, and writes the results back through `fe_store`. Operands: every pair of edge
//! cases (0, 1, 2, p−1, p−2, (p−1)/2, r, r−1, r^(k−1), r^k − r, all digits r−1, …) and
//! seeded random pairs. Every result must equal the Rust field's and, for SRGFNs, be the
//! unique digit representation (all digits below r, or the special form of p − 1).
//!
//! With `FERMAT_PRELUDE_DRIVERS=<dir>`, each field's driver, input and checked host output
//! are written to that directory; the driver also compiles as CUDA (`nvcc -x cu`) and then
//! runs the arithmetic in a kernel, so that on a GPU the device-only code (inline PTX) is
//! checked by comparing its output with the host's, word for word.
//!
//! Needs a C++ compiler (`$CXX`, else `c++`): skipped with a message when there is none,
//! except under `CI=true`, where that is a failure.

use crate::host;

use fermat_codegen::prelude::{self, PreludeOptions};
use fermat_dsl::field::{AnyField, Field};
use fermat_dsl::with_field;
use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, ToPrimitive, Zero};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIELDS: [&str; 13] = [
    "p469762049",
    "babybear",
    "p4179340454199820289",
    "goldilocks",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
    // Radices with u < 32, whose low limb is not 0 (the multiplication's general
    // remainder), one of them with w - u = 62 (a short quotient series).
    "srgfn:62,21,+,4",
    "srgfn:64,2,-,4",
    "srgfn:61,9,-,8",
];

/// Random pairs per field, on top of all pairs of edge cases.
const RANDOM_PAIRS: usize = 400;

/// What the driver needs to know about a field's layout.
struct Layout {
    /// Memory words per element.
    words: usize,
    /// r and k for SRGFNs.
    srgfn: Option<(u64, usize)>,
    /// The Montgomery radix of word primes (2^32 or 2^64); 1 for SRGFNs.
    mont_r: BigUint,
}

fn layout(field: &AnyField) -> Layout {
    match field.srgfn_params() {
        Some(params) => {
            let r = params.radix().unwrap();
            Layout {
                words: params.k as usize,
                srgfn: Some((r, params.k as usize)),
                mont_r: BigUint::one(),
            }
        }
        None => Layout {
            words: 1,
            srgfn: None,
            mont_r: BigUint::one()
                << if matches!(field, AnyField::Fp32(_)) {
                    32
                } else {
                    64
                },
        },
    }
}

/// The words of x: base-r digits (p − 1 as [0, …, 0, r]) or the single canonical word.
fn to_words(x: &BigUint, p: &BigUint, l: &Layout) -> Vec<u64> {
    match l.srgfn {
        None => vec![x.to_u64().unwrap()],
        Some((r, k)) => {
            if *x == p - 1u32 {
                let mut d = vec![0; k];
                d[k - 1] = r;
                return d;
            }
            let mut rest = x.clone();
            (0..k)
                .map(|_| {
                    let d = (&rest % r).to_u64().unwrap();
                    rest /= r;
                    d
                })
                .collect()
        }
    }
}

/// The value of device words, or why they are not the unique representation.
fn from_words(d: &[u64], p: &BigUint, l: &Layout) -> Result<BigUint, String> {
    match l.srgfn {
        None => {
            let x = BigUint::from(d[0]);
            if x >= *p {
                return Err(format!("word {x} is not below p"));
            }
            Ok(x)
        }
        Some((r, k)) => {
            let special = d[k - 1] == r && d[..k - 1].iter().all(|&x| x == 0);
            if !special && d.iter().any(|&x| x >= r) {
                return Err(format!("digits {d:?} are not all below r = {r}"));
            }
            Ok(d.iter().rev().fold(BigUint::zero(), |acc, &x| acc * r + x))
        }
    }
}

/// Edge cases for the field, all below p: every pair of them is checked.
fn edge_values(p: &BigUint, l: &Layout) -> Vec<BigUint> {
    let one = BigUint::one();
    let mut v = vec![
        BigUint::zero(),
        one.clone(),
        BigUint::from(2u32),
        p - 1u32,
        p - 2u32,
        (p - 1u32) >> 1,
    ];
    match l.srgfn {
        Some((r, k)) => {
            let r = BigUint::from(r);
            let rk1 = r.pow(k as u32 - 1);
            v.push(r.clone());
            v.push(&r - 1u32);
            v.push(rk1.clone());
            v.push(r.pow(k as u32) - &r);
            // Top digit r − 1, the rest 0; and every digit 1.
            v.push(&rk1 * (&r - 1u32));
            v.push((0..k as u32).map(|i| r.pow(i)).sum());
            // Carries and borrows that stop at digit j, or run through every digit: r^j,
            // p - r^j and r^j - 1 (digits below j all r - 1) for a few j.
            for j in [1, k as u32 / 2, k as u32 - 1] {
                let rj = r.pow(j);
                v.push(p - &rj);
                v.push(&rj - 1u32);
                v.push(rj);
            }
            // Every digit ⌊r/2⌋, and every digit r - ⌊r/2⌋: their digit sums are exactly r,
            // so that each digit's carry comes from the one below, and their differences
            // borrow (or not) at every digit.
            let half = &r / 2u32;
            let all = |d: &BigUint| (0..k as u32).map(|i| d * r.pow(i)).sum::<BigUint>();
            v.push(all(&half));
            v.push(all(&(&r - &half)));
            // Digit 0 at 1 or r - 1 with a large top digit: their sums carry out of the top
            // and leave digit 0 at 0, the case where subtracting that carry borrows.
            let top = &rk1 * (&r - 1u32);
            v.push(&top + 1u32);
            v.push(&top + &r - 1u32);
        }
        None => {
            v.push(p - 3u32);
            v.push(&l.mont_r % p);
        }
    }
    v.sort();
    v.dedup();
    v
}

/// The driver around a prelude: plain C++ for the host, and the same source compiled by
/// nvcc (`nvcc -x cu`) runs every operation in a kernel on a GPU instead and prints the same
/// words, which is how the device-only paths of the prelude (its inline PTX) are checked on
/// a GPU against this test's host run (see `FERMAT_PRELUDE_DRIVERS`).
fn driver(prelude: &str, l: &Layout) -> String {
    let rpow = match l.srgfn {
        Some((_, k)) => {
            let cases: String = (0..2 * k)
                .map(|i| format!("        case {i}: s = fe_mul_rpow<{i}>(x); break;\n"))
                .collect();
            format!(
                "    fe_t s = x;\n    switch (sh[i]) {{\n{cases}        default: return 2;\n    }}\n    // The run-time shift must agree with the compile-time one.\n    if (!fe_eq(fe_mul_rpow_rt(x, (int)sh[i]), s)) return 4;\n    fe_store(o.rpow, i, n, s);\n"
            )
        }
        None => String::new(),
    };
    include_str!("prelude_driver.cpp")
        .replace("@PRELUDE@", prelude)
        .replace("@RPOW@", &rpow)
}

/// Digit-major words of a vector of elements.
fn digit_major(values: &[BigUint], p: &BigUint, l: &Layout) -> Vec<u64> {
    let n = values.len();
    let mut out = vec![0u64; l.words * n];
    for (i, x) in values.iter().enumerate() {
        for (c, w) in to_words(x, p, l).into_iter().enumerate() {
            out[c * n + i] = w;
        }
    }
    out
}

/// Element i of digit-major words.
fn element(words: &[u64], i: usize, n: usize, l: &Layout) -> Vec<u64> {
    (0..l.words).map(|c| words[c * n + i]).collect()
}

/// The Rust field's results for each pair: sum, difference, product, −a, a·r^shift.
fn reference<F: Field>(
    f: &F,
    pairs: &[(BigUint, BigUint, u32)],
    r: Option<u64>,
) -> Vec<[BigUint; 5]> {
    let r = r.map(|r| f.from_biguint(&BigUint::from(r)).unwrap());
    pairs
        .iter()
        .map(|(a, b, s)| {
            let (x, y) = (f.from_biguint(a).unwrap(), f.from_biguint(b).unwrap());
            let rpow = match &r {
                Some(r) => f.to_biguint(&f.mul(&x, &f.pow_u64(r, u64::from(*s)))),
                None => BigUint::zero(),
            };
            [
                f.to_biguint(&f.add(&x, &y)),
                f.to_biguint(&f.sub(&x, &y)),
                f.to_biguint(&f.mul(&x, &y)),
                f.to_biguint(&f.neg(&x)),
                rpow,
            ]
        })
        .collect()
}

/// The Rust field's table form of a (a·R mod p), where it keeps one.
fn dsl_montgomery(field: &AnyField, a: &BigUint) -> Option<BigUint> {
    match field {
        AnyField::Fp32(f) => {
            let e = f.from_biguint(a).unwrap();
            Some(BigUint::from(f.to_montgomery_raw(e)))
        }
        AnyField::Fp64(f) => {
            let e = f.from_biguint(a).unwrap();
            Some(BigUint::from(f.to_montgomery_raw(e)))
        }
        _ => None,
    }
}

fn check_field(name: &str, options: PreludeOptions, cxx: &str, dir: &Path) {
    let field = AnyField::from_spec(name).unwrap();
    let p = field.modulus();
    let l = layout(&field);
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0000 + name.len() as u64);

    let edges = edge_values(&p, &l);
    let mut pairs = Vec::new();
    for a in &edges {
        for b in &edges {
            pairs.push((a.clone(), b.clone()));
        }
    }
    for _ in 0..RANDOM_PAIRS {
        pairs.push((rng.gen_biguint_below(&p), rng.gen_biguint_below(&p)));
    }
    let two_k = l.srgfn.map_or(1, |(_, k)| 2 * k as u32);
    let pairs: Vec<(BigUint, BigUint, u32)> = pairs
        .into_iter()
        .enumerate()
        .map(|(i, (a, b))| (a, b, i as u32 % two_k))
        .collect();
    let n = pairs.len();
    let a: Vec<BigUint> = pairs.iter().map(|t| t.0.clone()).collect();
    let b: Vec<BigUint> = pairs.iter().map(|t| t.1.clone()).collect();
    let bm: Vec<BigUint> = b.iter().map(|b| (b * &l.mont_r) % &p).collect();

    let src = driver(&prelude::render_with(&field, options).unwrap(), &l);
    let stem = if options.rare_carry_calls {
        format!("{name}_rare_calls")
    } else {
        name.to_string()
    };
    let exe = compile_driver(name, &src, cxx, &dir.join(&stem));
    let input = driver_input([&a, &b, &bm], &pairs, &p, &l);
    // Kept beside the driver, so that a failure can be replayed by hand.
    std::fs::write(dir.join(format!("{name}.in")), &input).unwrap();
    let text = host::run_harness(&exe, &input, &format!("{name}: the driver"));
    let buffers: std::collections::HashMap<&str, Vec<u64>> = text
        .lines()
        .map(|line| {
            let mut it = line.split_whitespace();
            let tag = it.next().unwrap();
            (tag, it.map(|w| w.parse().unwrap()).collect())
        })
        .collect();

    let expect = with_field!(&field, f => reference(f, &pairs, l.srgfn.map(|(r, _)| r)));
    let value = |tag: &str, i: usize| -> BigUint {
        let words = element(&buffers[tag], i, n, &l);
        from_words(&words, &p, &l).unwrap_or_else(|why| {
            panic!(
                "{name}: {tag}(a = {}, b = {}) gave a non-canonical result: {why}",
                pairs[i].0, pairs[i].1
            )
        })
    };
    for (i, (x, y, s)) in pairs.iter().enumerate() {
        let ctx = format!("{name}: a = {x}, b = {y}");
        let [sum, diff, prod, neg, rpow] = &expect[i];
        assert_eq!(&value("add", i), sum, "{ctx}: fe_add");
        assert_eq!(&value("sub", i), diff, "{ctx}: fe_sub");
        assert_eq!(&value("mul", i), prod, "{ctx}: fe_mul");
        assert_eq!(&value("neg", i), neg, "{ctx}: fe_neg");
        assert_eq!(&value("mont", i), prod, "{ctx}: fe_mul_mont(a, b·R mod p)");
        assert_eq!(
            value("mul_sub", i),
            (prod + &p - (y * y) % &p) % &p,
            "{ctx}: fe_mul_sub_mont(a, b·R, b, b·R) = a·b − b²"
        );
        assert_eq!(
            value("mul_sub2", i),
            (prod + &p * 2u32 - (y * y) % &p - (x * x) % &p) % &p,
            "{ctx}: fe_mul_sub2_mont(a, b·R, b, b·R, a, a·R) = a·b − b² − a²"
        );
        let to_mont = value("to_mont", i);
        assert_eq!(to_mont, (x * &l.mont_r) % &p, "{ctx}: fe_to_mont");
        if let Some(m) = dsl_montgomery(&field, x) {
            assert_eq!(
                to_mont, m,
                "{ctx}: the device's Montgomery form is the DSL's"
            );
        }
        if l.srgfn.is_some() {
            assert_eq!(&value("rpow", i), rpow, "{ctx}: fe_mul_rpow<{s}>");
        }
        assert_eq!(buffers["eq"][i], u64::from(x == y), "{ctx}: fe_eq");
        assert_eq!(buffers["eq_self"][i], 1, "{ctx}: fe_eq(a, a)");
    }
    let consts = &buffers["consts"];
    let zero = element(consts, 0, 2, &l);
    let one = element(consts, 1, 2, &l);
    assert_eq!(
        from_words(&zero, &p, &l).unwrap(),
        BigUint::zero(),
        "{name}: fe_zero"
    );
    assert_eq!(
        from_words(&one, &p, &l).unwrap(),
        BigUint::one(),
        "{name}: fe_one"
    );
    // With FERMAT_PRELUDE_DRIVERS set to a directory, the driver, its input and the host's
    // checked output go there: on a machine with a GPU, `nvcc -x cu` builds the same driver
    // for the device, whose output must be identical.
    if let Ok(out_dir) = std::env::var("FERMAT_PRELUDE_DRIVERS") {
        let out_dir = PathBuf::from(out_dir);
        std::fs::create_dir_all(&out_dir).unwrap();
        std::fs::write(out_dir.join(format!("{stem}.cpp")), &src).unwrap();
        std::fs::write(out_dir.join(format!("{stem}.in")), &input).unwrap();
        std::fs::write(out_dir.join(format!("{stem}.out")), &text).unwrap();
    }
}

/// The driver `src` built as C++ into the executable `exe` (its source beside it).
fn compile_driver(name: &str, src: &str, cxx: &str, exe: &Path) -> PathBuf {
    let cpp = exe.with_extension("cpp");
    std::fs::write(&cpp, src).unwrap();
    let out = Command::new(cxx)
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(exe)
        .arg(&cpp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: the prelude does not compile as C++ ({}):\n{}",
        cpp.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe.to_path_buf()
}

/// The driver's input: the count, the operand vectors digit-major, the shifts.
fn driver_input(
    operands: [&[BigUint]; 3],
    pairs: &[(BigUint, BigUint, u32)],
    p: &BigUint,
    l: &Layout,
) -> String {
    let mut input = format!("{}\n", pairs.len());
    for buf in operands {
        let words: Vec<String> = digit_major(buf, p, l).iter().map(u64::to_string).collect();
        input.push_str(&words.join(" "));
        input.push('\n');
    }
    let shifts: Vec<String> = pairs.iter().map(|t| t.2.to_string()).collect();
    input.push_str(&shifts.join(" "));
    input.push('\n');
    input
}

fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("prelude_host");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn device_arithmetic_matches_the_rust_fields() {
    let Some(cxx) = host::compiler() else {
        return;
    };
    let dir = scratch_dir();
    // Two fields at a time: compiling the large unrolled multiplications dominates.
    for chunk in FIELDS.chunks(2) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|name| {
                    let (cxx, dir) = (&cxx, &dir);
                    let options = PreludeOptions::default();
                    (name, s.spawn(move || check_field(name, options, cxx, dir)))
                })
                .collect();
            for (name, h) in handles {
                if let Err(e) = h.join() {
                    std::panic::resume_unwind(Box::new(format!(
                        "{name}: {}",
                        e.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default()
                    )));
                }
            }
        });
    }
}

#[test]
fn rare_carries_as_calls_match_the_rust_field() {
    // The prelude of small P3 transforms makes the carry loop of sums and differences a
    // call (design::prelude_options); the edge values run through it.
    let Some(cxx) = host::compiler() else {
        return;
    };
    let options = PreludeOptions {
        rare_carry_calls: true,
    };
    check_field("P3", options, &cxx, &scratch_dir());
}

#[test]
fn edge_cases_include_the_special_representation() {
    // p − 1 is written [0, …, 0, r]; a value written that way reads back as p − 1, and a
    // digit r anywhere else is refused.
    let field = AnyField::from_spec("P3").unwrap();
    let (p, l) = (field.modulus(), layout(&field));
    let r = l.srgfn.unwrap().0;
    let words = to_words(&(&p - 1u32), &p, &l);
    assert_eq!(words, [0, 0, 0, 0, 0, 0, 0, r]);
    assert_eq!(from_words(&words, &p, &l).unwrap(), &p - 1u32);
    assert!(from_words(&[r, 0, 0, 0, 0, 0, 0, 0], &p, &l).is_err());
    assert!(edge_values(&p, &l).contains(&(&p - 1u32)));
}
