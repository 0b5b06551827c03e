//! The expression printer keeps the AST's meaning: seeded random expression trees over
//! `uint64_t` are printed, compiled as C++ and evaluated, and must give what the trees give
//! when evaluated directly in Rust — so every parenthesis the printer leaves out is one C
//! does not need.
//!
//! Needs a C++ compiler (`$CXX`, else `c++`): skipped with a message when there is none,
//! except under `CI=true`.

use fermat_codegen::cuda::{BinOp, Expr, Lit, Type, UnOp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::process::{Command, Stdio};

const VARS: [&str; 3] = ["a", "b", "c"];
const EXPRESSIONS: usize = 1500;
const INPUTS: [[u64; 3]; 4] = [
    [0, 1, 2],
    [7, 0xFFFF_FFFF_FFFF_FFFF, 3],
    [0x1234_5678_9ABC_DEF0, 0x0F0F, 0x8000_0000_0000_0000],
    [5, 5, 0],
];

/// A random expression of depth at most `depth`, using only operations whose C meaning on
/// `uint64_t` is defined for every input (shift amounts are literals below 64; no
/// division).
fn random_expr(rng: &mut ChaCha8Rng, depth: u32) -> Expr {
    if depth == 0 || rng.gen_ratio(1, 4) {
        return match rng.gen_range(0..3) {
            0 => Expr::var(VARS[rng.gen_range(0..3)]),
            1 => Expr::u64(rng.gen_range(0..20)),
            _ => Expr::u64(rng.gen()),
        };
    }
    let sub = |rng: &mut ChaCha8Rng| random_expr(rng, depth - 1);
    match rng.gen_range(0..24) {
        0 => -sub(rng),
        1 => !sub(rng),
        // C types comparisons and logic as bool/int; the cast keeps every value uint64_t
        // so that the Rust evaluation below is C's.
        2 => sub(rng).logical_not().cast(Type::U64),
        3 => sub(rng).cast(Type::U64),
        4 => Expr::select(sub(rng), sub(rng), sub(rng)),
        5 | 6 => {
            let op = if rng.gen() { BinOp::Shl } else { BinOp::Shr };
            sub(rng).binary(op, Expr::u64(rng.gen_range(0..64)))
        }
        _ => {
            const OPS: [BinOp; 14] = [
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::BitAnd,
                BinOp::BitOr,
                BinOp::BitXor,
                BinOp::Lt,
                BinOp::Le,
                BinOp::Gt,
                BinOp::Ge,
                BinOp::Eq,
                BinOp::Ne,
                BinOp::And,
                BinOp::Or,
            ];
            let op = OPS[rng.gen_range(0..OPS.len())];
            let e = sub(rng).binary(op, sub(rng));
            if matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
            ) {
                e
            } else {
                e.cast(Type::U64)
            }
        }
    }
}

/// C's value of `e` on `uint64_t` operands (comparisons and logic give 0 or 1).
fn eval(e: &Expr, env: &[u64; 3]) -> u64 {
    match e {
        Expr::Var(n) => env[VARS.iter().position(|v| v == n).unwrap()],
        Expr::Lit(Lit::U64(v)) => *v,
        Expr::Unary(op, x) => {
            let x = eval(x, env);
            match op {
                UnOp::Neg => x.wrapping_neg(),
                UnOp::BitNot => !x,
                UnOp::Not => u64::from(x == 0),
            }
        }
        Expr::Cast(Type::U64, x) => eval(x, env),
        Expr::Select(c, a, b) => {
            if eval(c, env) != 0 {
                eval(a, env)
            } else {
                eval(b, env)
            }
        }
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval(a, env), eval(b, env));
            match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Shl => a << b,
                BinOp::Shr => a >> b,
                BinOp::BitAnd => a & b,
                BinOp::BitOr => a | b,
                BinOp::BitXor => a ^ b,
                BinOp::Lt => u64::from(a < b),
                BinOp::Le => u64::from(a <= b),
                BinOp::Gt => u64::from(a > b),
                BinOp::Ge => u64::from(a >= b),
                BinOp::Eq => u64::from(a == b),
                BinOp::Ne => u64::from(a != b),
                BinOp::And => u64::from(a != 0 && b != 0),
                BinOp::Or => u64::from(a != 0 || b != 0),
                BinOp::Div | BinOp::Rem => unreachable!("not generated"),
            }
        }
        other => unreachable!("not generated: {other:?}"),
    }
}

#[test]
fn printed_expressions_mean_what_the_tree_means() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let have = Command::new(&cxx)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "no C++ compiler '{cxx}' in CI"
        );
        eprintln!("skipping the printer evaluation check: no C++ compiler '{cxx}'");
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let exprs: Vec<Expr> = (0..EXPRESSIONS).map(|_| random_expr(&mut rng, 6)).collect();
    let mut body = String::new();
    for e in &exprs {
        body.push_str(&format!(
            "    std::printf(\"%llu\\n\", (unsigned long long)({e}));\n"
        ));
    }
    let src = format!(
        "#include <cstdio>\n#include <cstdint>\n#include <cstdlib>\n\
         int main(int, char** argv) {{\n\
         \x20   const uint64_t a = std::strtoull(argv[1], 0, 10), b = std::strtoull(argv[2], 0, 10), \
         c = std::strtoull(argv[3], 0, 10);\n\
         \x20   (void)a; (void)b; (void)c;\n{body}    return 0;\n}}\n"
    );
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("print_eval");
    std::fs::create_dir_all(&dir).unwrap();
    let (cpp, exe) = (dir.join("eval.cpp"), dir.join("eval"));
    std::fs::write(&cpp, &src).unwrap();
    let out = Command::new(&cxx)
        .args(["-std=c++17", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(&cpp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the printed expressions do not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for env in INPUTS {
        let out = Command::new(&exe)
            .args(env.iter().map(u64::to_string))
            .output()
            .unwrap();
        assert!(out.status.success());
        let values: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        assert_eq!(values.len(), exprs.len());
        for (e, got) in exprs.iter().zip(values) {
            assert_eq!(got, eval(e, &env), "{e} at (a, b, c) = {env:?}");
        }
    }
}
