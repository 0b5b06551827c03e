//! The body of [`CrtPass::Explicit`](super::CrtPass::Explicit): a product's coefficients
//! modulo m from their residues by the explicit Chinese remainder theorem (Montgomery and
//! Silverman, 1990; Bernstein, "Multidigit modular multiplication with the explicit
//! Chinese remainder theorem", 1995), without the integers.
//!
//! With P = p_1⋯p_s, P_i = P/p_i and y_i = x_i·P_i^−1 mod p_i, an integer x in [0, P) is
//! x = Σ y_i·P_i − k·P with k = ⌊Σ y_i/p_i⌋, an integer below s. Modulo m that is
//! S = Σ y_i·(P_i mod m) + k·(−P mod m): s + 1 products of a word by m's words, where
//! Garner's digits cost s²/2 products of words. S is below s·(max p + 1)·m, so
//! [`CrtPass::Reduce`](super::CrtPass::Reduce) finishes it.
//!
//! The quotient k comes from a fixed-point sum with 32 fractional bits: each y_i/p_i as
//! ⌊(y_i·2^a_i)·G_i/2^64⌋ with G_i = ⌊2^(96 − a_i)/p_i⌋ (a_i = 32 for p_i < 2^32, 0
//! otherwise, so that both factors are words), which is below the true 2^32·y_i/p_i by
//! less than 2. The sum is then 2^32·(k + x/P) less at most 2s, and when x < P/2, adding
//! 2^30 (more than 2s, and 2^32·x/P + 2^30 < 2^32) and shifting by 32 gives k exactly.
//! The callers choose the primes so that x < P/2.

use super::garner::{columns, mul_add, mulhi, prime_row, redc_once, u64_, var, zero_acc};
use super::MAX_PRIMES;
use crate::cuda::{BinOp, ForLoop, Stmt, Type};

/// Fractional bits of the sum that gives k.
const FRACTION_BITS: u64 = 32;

/// y_i into `v[i]` and its quotient's term into `frac`, for every prime.
fn digits() -> Stmt {
    let mut term = prime_row();
    term.push(Stmt::const_(
        Type::U64,
        "x",
        var("src").at(var("i") * var("src_dist") + var("j")),
    ));
    // y_i = x_i·(P_i^−1·R)·R^−1: one Montgomery product (x_i, P_i^−1·R < p).
    term.extend(zero_acc("b"));
    term.push(mul_add("b", var("x"), var("c").at(u64_(2))));
    term.push(Stmt::let_(Type::U64, "y", u64_(0)));
    term.extend(redc_once("b", "y"));
    term.extend([
        Stmt::assign(var("v").at(var("i")), var("y")),
        Stmt::assign_op(
            var("frac"),
            BinOp::Add,
            mulhi(var("y") << var("c").at(u64_(4)), var("c").at(u64_(3))),
        ),
    ]);
    Stmt::For(ForLoop::range("i", Type::SizeT, u64_(0), var("primes")).body(term))
}

pub(super) fn explicit_body() -> Vec<Stmt> {
    let per_coefficient = vec![
        Stmt::array(Type::U64, "v", MAX_PRIMES + 1),
        Stmt::let_(Type::U64, "frac", u64_(0)),
        digits(),
        Stmt::comment("k = the integer part of the sum (x < P/2: 2^30 covers its error)"),
        Stmt::assign(
            var("v").at(var("primes")),
            (var("frac") + u64_(1 << (FRACTION_BITS - 2))) >> u64_(FRACTION_BITS),
        ),
        columns(false, var("primes") + u64_(1)),
    ];
    vec![Stmt::grid_stride_loop("j", var("src_len"), per_coefficient)]
}
