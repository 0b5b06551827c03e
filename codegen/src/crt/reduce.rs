//! The body of [`CrtPass::Reduce`](super::CrtPass::Reduce): integers S below
//! 2^(t + 72), t = bits(m) − 1, taken to S mod m in place by Barrett's method with a
//! quotient of 72 bits (Menezes, van Oorschot and Vanstone, *Handbook of Applied
//! Cryptography*, Algorithm 14.42, with the base 2 and a short quotient).
//!
//! With q₁ = ⌊S/2^t⌋ < 2^72 and μ = ⌊2^(t+72)/m⌋, the estimate q̂ = ⌊q₁·μ/2^72⌋ satisfies
//! q − 2 ≤ q̂ ≤ q for q = ⌊S/m⌋: q₁·μ/2^72 > q₁·2^t/m − 1, and S/m < q₁·2^t/m + 1 since
//! m ≥ 2^t. So S − q̂·m < 3m, which `mwords` words hold, and at most two subtractions of m
//! finish.

use super::garner::{carry, mulhi, u64_, var};
use super::tables::REDUCE_HEAD;
use crate::cuda::{BinOp, Expr, ForLoop, Stmt, Type};

/// Word `w` of integer j (zero from `words` on).
fn word_or_zero(w: Expr) -> Expr {
    Expr::select(
        w.clone().lt(var("words")),
        var("ints_out").at(w * var("dst_stride") + var("j")),
        u64_(0),
    )
}

/// Bits `sh..sh + 64` of the 128-bit (hi, lo), for sh < 64.
fn funnel(lo: Expr, hi: Expr, sh: Expr) -> Expr {
    Expr::select(
        sh.clone().equals(u64_(0)),
        lo.clone(),
        (lo >> sh.clone()) | (hi << (u64_(64) - sh)),
    )
}

/// acc += x for the 192-bit accumulator (acc0, acc1, acc2).
fn add(acc: &str, x: Expr) -> Stmt {
    let (a0, a1, a2) = (
        var(&format!("{acc}0")),
        var(&format!("{acc}1")),
        var(&format!("{acc}2")),
    );
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "x", x),
        Stmt::assign_op(a0.clone(), BinOp::Add, var("x")),
        Stmt::const_(Type::U64, "cy", carry(a0.lt(var("x")))),
        Stmt::assign_op(a1.clone(), BinOp::Add, var("cy")),
        Stmt::assign_op(a2, BinOp::Add, carry(a1.lt(var("cy")))),
    ])
}

/// Shifts the accumulator down a word: the next column starts from the carry.
fn shift(acc: &str) -> Vec<Stmt> {
    let a = |k: u32| var(&format!("{acc}{k}"));
    vec![
        Stmt::assign(a(0), a(1)),
        Stmt::assign(a(1), a(2)),
        Stmt::assign(a(2), u64_(0)),
    ]
}

fn declare(acc: &str) -> Vec<Stmt> {
    (0..3)
        .map(|k| Stmt::let_(Type::U64, format!("{acc}{k}"), u64_(0)))
        .collect()
}

/// Word w of m (m's words −2 and −1 are the table's zeros).
fn modulus(offset: Expr) -> Expr {
    var("c").at(offset)
}

/// q̂ = ⌊q₁·μ/2^72⌋ in (q0, q1): q₁ from S's words around bit t, then the 144-bit product.
fn quotient() -> Vec<Stmt> {
    let w0 = var("t") >> u64_(6);
    let mut out = vec![
        Stmt::const_(Type::U64, "t", var("c").at(u64_(0))),
        Stmt::const_(Type::U64, "sh", var("t") & u64_(63)),
        Stmt::const_(Type::U64, "x0", word_or_zero(w0.clone())),
        Stmt::const_(Type::U64, "x1", word_or_zero(w0.clone() + u64_(1))),
        Stmt::const_(Type::U64, "x2", word_or_zero(w0 + u64_(2))),
        Stmt::const_(Type::U64, "h0", funnel(var("x0"), var("x1"), var("sh"))),
        Stmt::const_(Type::U64, "h1", funnel(var("x1"), var("x2"), var("sh"))),
        Stmt::const_(Type::U64, "mu0", var("c").at(u64_(1))),
        Stmt::const_(Type::U64, "mu1", var("c").at(u64_(2))),
    ];
    // The product h·μ by columns; word 0, lo(h0·μ0), is dropped and carries nothing.
    out.extend(declare("p"));
    out.extend([
        add("p", mulhi(var("h0"), var("mu0"))),
        add("p", var("h0") * var("mu1")),
        add("p", var("h1") * var("mu0")),
        Stmt::const_(Type::U64, "t1", var("p0")),
    ]);
    out.extend(shift("p"));
    out.extend([
        add("p", mulhi(var("h0"), var("mu1"))),
        add("p", mulhi(var("h1"), var("mu0"))),
        add("p", var("h1") * var("mu1")),
        Stmt::const_(Type::U64, "t2", var("p0")),
        Stmt::const_(Type::U64, "t3", var("p1") + mulhi(var("h1"), var("mu1"))),
        // q̂ = ⌊(t3, t2, t1, t0)/2^72⌋.
        Stmt::const_(
            Type::U64,
            "q0",
            (var("t1") >> u64_(8)) | (var("t2") << u64_(56)),
        ),
        Stmt::const_(
            Type::U64,
            "q1",
            (var("t2") >> u64_(8)) | (var("t3") << u64_(56)),
        ),
    ]);
    out
}

/// r = S − q̂·m in the low `mwords` words, in place: q̂·m by product scanning, column w
/// summing lo(q0·m_w), hi(q0·m_(w−1)), lo(q1·m_(w−1)) and hi(q1·m_(w−2)).
fn remainder() -> Vec<Stmt> {
    let at = |k: u64| modulus(u64_(REDUCE_HEAD - k) + var("w"));
    let column = vec![
        add("a", var("q0") * at(0)),
        add("a", mulhi(var("q0"), at(1))),
        add("a", var("q1") * at(1)),
        add("a", mulhi(var("q1"), at(2))),
        Stmt::const_(Type::SizeT, "i", var("w") * var("dst_stride") + var("j")),
        Stmt::const_(Type::U64, "s", var("ints_out").at(var("i"))),
        Stmt::const_(Type::U64, "d", var("s") - var("a0")),
        Stmt::const_(Type::Bool, "b1", var("s").lt(var("a0"))),
        Stmt::assign(var("ints_out").at(var("i")), var("d") - var("borrow")),
        Stmt::assign(
            var("borrow"),
            carry(var("b1").or_else(var("d").lt(var("borrow")))),
        ),
    ];
    let mut out = declare("a");
    out.push(Stmt::let_(Type::U64, "borrow", u64_(0)));
    let mut body = column;
    body.extend(shift("a"));
    out.push(Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("mwords")).body(body),
    ));
    out
}

/// One pass of r − m over `mwords` words, word w of m at `m_word(w)`: with `write`,
/// stores the difference; either way leaves the final borrow in `borrow`.
pub(super) fn subtract_pass(write: bool, m_word: &dyn Fn(Expr) -> Expr, mwords: Expr) -> Stmt {
    let mut body = vec![
        Stmt::const_(Type::SizeT, "i", var("w") * var("dst_stride") + var("j")),
        Stmt::const_(Type::U64, "r", var("ints_out").at(var("i"))),
        Stmt::const_(Type::U64, "mw", m_word(var("w"))),
        Stmt::const_(Type::U64, "d", var("r") - var("mw")),
        Stmt::const_(Type::Bool, "b1", var("r").lt(var("mw"))),
    ];
    if write {
        body.push(Stmt::assign(
            var("ints_out").at(var("i")),
            var("d") - var("borrow"),
        ));
    }
    body.push(Stmt::assign(
        var("borrow"),
        carry(var("b1").or_else(var("d").lt(var("borrow")))),
    ));
    Stmt::Block(vec![
        Stmt::assign(var("borrow"), u64_(0)),
        Stmt::For(ForLoop::range("w", Type::SizeT, u64_(0), mwords).body(body)),
    ])
}

pub(super) fn reduce_body() -> Vec<Stmt> {
    let mut per_integer = quotient();
    per_integer.extend(remainder());
    // r < 3m: at most two subtractions, each when r ≥ m (no borrow out of r − m).
    let m_word = |w: Expr| modulus(u64_(REDUCE_HEAD) + w);
    let conditional = vec![
        subtract_pass(false, &m_word, var("mwords")),
        Stmt::if_(
            var("borrow").equals(u64_(0)),
            vec![subtract_pass(true, &m_word, var("mwords"))],
        ),
    ];
    per_integer.push(Stmt::Block(conditional.clone()));
    per_integer.push(Stmt::Block(conditional));
    vec![
        Stmt::let_(Type::const_ptr(Type::U64), "c", var("consts")),
        Stmt::grid_stride_loop("j", var("dst_len"), per_integer),
    ]
}
