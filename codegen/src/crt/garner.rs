//! The bodies of the projection and of Garner's recombination, and the 192-bit
//! accumulator arithmetic they share with the reduction modulo m.

use super::{MAX_PRIMES, PROJECT_HEAD, RECOMBINE_HEAD};
use crate::cuda::{BinOp, Expr, ForLoop, Stmt, Type};

pub(super) fn var(name: &str) -> Expr {
    Expr::var(name)
}

pub(super) fn u64_(v: u64) -> Expr {
    Expr::u64(v)
}

pub(super) fn mulhi(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_mulhi64", [a, b])
}

/// `(uint64_t)(cond)`.
pub(super) fn carry(cond: Expr) -> Expr {
    cond.cast(Type::U64)
}

/// acc += a·b for the 192-bit accumulator (acc0, acc1, acc2), in a scope of its own.
pub(super) fn mul_add(acc: &str, a: Expr, b: Expr) -> Stmt {
    let (a0, a1, a2) = (
        var(&format!("{acc}0")),
        var(&format!("{acc}1")),
        var(&format!("{acc}2")),
    );
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "lo", a.clone() * b.clone()),
        Stmt::let_(Type::U64, "hi", mulhi(a, b)),
        Stmt::assign_op(a0.clone(), BinOp::Add, var("lo")),
        Stmt::assign_op(var("hi"), BinOp::Add, carry(a0.lt(var("lo")))),
        Stmt::assign_op(a1.clone(), BinOp::Add, var("hi")),
        Stmt::assign_op(a2, BinOp::Add, carry(a1.lt(var("hi")))),
    ])
}

/// Declares the accumulator `acc` = 0.
pub(super) fn zero_acc(acc: &str) -> Vec<Stmt> {
    (0..3)
        .map(|k| Stmt::let_(Type::U64, format!("{acc}{k}"), u64_(0)))
        .collect()
}

/// `out` = acc·R^−2 mod p: two rounds of Montgomery's reduction of the 192-bit `acc`
/// (below p·2^128, its top word below p), with p and −p^−1 in `p` and `np`.
pub(super) fn redc2(acc: &str, out: &str) -> Vec<Stmt> {
    let (a0, a1, a2) = (
        var(&format!("{acc}0")),
        var(&format!("{acc}1")),
        var(&format!("{acc}2")),
    );
    let add = BinOp::Add;
    vec![Stmt::Block(vec![
        // Round 1: acc + m·p ≡ 0 mod 2^64; the low word drops.
        Stmt::const_(Type::U64, "m", a0.clone() * var("np")),
        Stmt::const_(Type::U64, "lo", var("m") * var("p")),
        Stmt::let_(Type::U64, "hi", mulhi(var("m"), var("p"))),
        Stmt::assign_op(a0.clone(), add, var("lo")),
        Stmt::assign_op(var("hi"), add, carry(a0.lt(var("lo")))),
        Stmt::assign_op(a1.clone(), add, var("hi")),
        Stmt::assign_op(a2.clone(), add, carry(a1.clone().lt(var("hi")))),
        // Round 2 on (acc2, acc1) < p·2^64.
        Stmt::const_(Type::U64, "m2", a1.clone() * var("np")),
        Stmt::const_(Type::U64, "lo2", var("m2") * var("p")),
        Stmt::let_(Type::U64, "hi2", mulhi(var("m2"), var("p"))),
        Stmt::assign_op(a1.clone(), add, var("lo2")),
        Stmt::assign_op(var("hi2"), add, carry(a1.lt(var("lo2")))),
        Stmt::assign(var(out), a2 + var("hi2")),
        Stmt::if_(
            var(out).ge(var("p")),
            vec![Stmt::assign_op(var(out), BinOp::Sub, var("p"))],
        ),
    ])]
}

/// Row i of the constants (`c`), and its prime p and −p^−1 mod 2^64.
pub(super) fn prime_row() -> Vec<Stmt> {
    vec![
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "c",
            var("consts") + var("i") * var("row"),
        ),
        Stmt::const_(Type::U64, "p", var("c").at(u64_(0))),
        Stmt::const_(Type::U64, "np", var("c").at(u64_(1))),
    ]
}

/// One thread per integer, its residues modulo every prime in turn: the integer's words
/// come from DRAM once and from L1 for the primes after the first (a grid row per prime
/// read each operand once per prime).
pub(super) fn project_body(signed: bool) -> Vec<Stmt> {
    let mut residue = zero_acc("a");
    residue.push(Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("words")).body(vec![mul_add(
            "a",
            var("ints").at(var("w") * var("src_stride") + var("j")),
            var("c").at(u64_(PROJECT_HEAD) + var("w")),
        )]),
    ));
    residue.extend(redc2("a", "r"));
    let primes = ForLoop::range("i", Type::SizeT, u64_(0), var("primes"));
    projection(
        signed,
        (Vec::new(), primes),
        prime_row(),
        Type::U64,
        residue,
    )
}

/// The loops of a projection around one residue: for each integer j, `loads` (its sign
/// read once when `signed`), then for each prime i of the loop `primes`, `row` (row i's
/// constants, p among them), r = 0 of `r_type`, `residue` (r = |x_j| mod p) where j <
/// `src_len`, r negated for a negative x_j, and dst\[i\]\[j\] = r.
pub(super) fn projection(
    signed: bool,
    (loads, primes): (Vec<Stmt>, ForLoop),
    row: Vec<Stmt>,
    r_type: Type,
    mut residue: Vec<Stmt>,
) -> Vec<Stmt> {
    let zero = match r_type {
        Type::U32 => Expr::u32(0),
        _ => u64_(0),
    };
    if signed {
        residue.push(Stmt::if_(
            var("negative").and_also(var("r").not_equals(zero.clone())),
            vec![Stmt::assign(var("r"), var("p") - var("r"))],
        ));
    }
    let mut per_prime = row;
    per_prime.extend([
        Stmt::let_(r_type, "r", zero),
        Stmt::if_(var("j").lt(var("src_len")), residue),
        Stmt::assign(
            var("dst").at(var("i") * var("dst_dist") + var("j")),
            var("r").cast(Type::Word),
        ),
    ]);
    let mut per_integer = loads;
    if signed {
        per_integer.push(Stmt::const_(
            Type::Bool,
            "negative",
            var("j")
                .lt(var("src_len"))
                .and_also(var("signs").at(var("j")).not_equals(Expr::u32(0))),
        ));
    }
    per_integer.push(Stmt::For(primes.body(per_prime)));
    vec![Stmt::grid_stride_loop("j", var("dst_len"), per_integer)]
}

/// The mixed-radix digits v[i] of coefficient j.
fn digits() -> Stmt {
    let mut digit = prime_row();
    digit.extend(zero_acc("a"));
    digit.push(Stmt::For(
        ForLoop::range("k", Type::SizeT, u64_(0), var("i")).body(vec![mul_add(
            "a",
            var("v").at(var("k")),
            var("c").at(u64_(RECOMBINE_HEAD) + var("k")),
        )]),
    ));
    digit.push(Stmt::let_(Type::U64, "sum", u64_(0)));
    digit.extend(redc2("a", "sum"));
    digit.extend([
        Stmt::const_(
            Type::U64,
            "x",
            var("src").at(var("i") * var("src_dist") + var("j")),
        ),
        Stmt::const_(
            Type::U64,
            "t",
            Expr::select(
                var("x").ge(var("sum")),
                var("x") - var("sum"),
                var("x") + var("p") - var("sum"),
            ),
        ),
    ]);
    // v_i = t·inv·R^−1: one Montgomery product (t, inv < p).
    digit.extend(zero_acc("b"));
    digit.push(mul_add("b", var("t"), var("c").at(u64_(2))));
    digit.push(Stmt::let_(Type::U64, "d", u64_(0)));
    digit.extend(redc_once("b", "d"));
    digit.push(Stmt::assign(var("v").at(var("i")), var("d")));
    Stmt::For(ForLoop::range("i", Type::SizeT, u64_(0), var("primes")).body(digit))
}

/// `out` = (acc1, acc0)·R^−1 mod p: one round of Montgomery's reduction of a product of
/// two residues.
pub(super) fn redc_once(acc: &str, out: &str) -> Vec<Stmt> {
    let (a0, a1) = (var(&format!("{acc}0")), var(&format!("{acc}1")));
    vec![Stmt::Block(vec![
        Stmt::const_(Type::U64, "m", a0.clone() * var("np")),
        Stmt::const_(Type::U64, "lo", var("m") * var("p")),
        Stmt::const_(Type::U64, "hi", mulhi(var("m"), var("p"))),
        Stmt::const_(Type::U64, "s", a0 + var("lo")),
        Stmt::assign(var(out), a1 + var("hi") + carry(var("s").lt(var("lo")))),
        Stmt::if_(
            var(out).ge(var("p")),
            vec![Stmt::assign_op(var(out), BinOp::Sub, var("p"))],
        ),
    ])]
}

/// Whether the digits exceed those of ⌊P/2⌋ (digit i in row i of the constants),
/// compared from the top digit down.
fn upper_half() -> Vec<Stmt> {
    vec![
        Stmt::let_(Type::Bool, "neg", Expr::bool(false)),
        Stmt::let_(Type::Bool, "decided", Expr::bool(false)),
        Stmt::For(
            ForLoop::range("k", Type::SizeT, u64_(0), var("primes")).body(vec![
                Stmt::const_(Type::SizeT, "i", var("primes") - u64_(1) - var("k")),
                Stmt::const_(
                    Type::U64,
                    "h",
                    var("consts").at(var("i") * var("row") + u64_(3)),
                ),
                Stmt::if_(
                    var("decided")
                        .logical_not()
                        .and_also(var("v").at(var("i")).not_equals(var("h"))),
                    vec![
                        Stmt::assign(var("neg"), var("v").at(var("i")).gt(var("h"))),
                        Stmt::assign(var("decided"), Expr::bool(true)),
                    ],
                ),
            ]),
        ),
    ]
}

/// The words of x = Σ_k v_k·B_k over the first `terms` digits and rows of `bases` (for
/// Garner's digits B_k = p_1⋯p_(k−1)), one column at a time: column w sums lo(v_k·B_k[w])
/// and hi(v_k·B_k[w − 1]) over k, plus the carry.
pub(super) fn columns(signed: bool, terms: Expr) -> Stmt {
    let add = BinOp::Add;
    let mut column = vec![
        Stmt::For(ForLoop::range("k", Type::SizeT, u64_(0), terms).body(vec![
            Stmt::const_(Type::U64, "vk", var("v").at(var("k"))),
            Stmt::const_(
                Type::U64,
                "bw",
                var("bases").at(var("k") * var("words") + var("w")),
            ),
            Stmt::const_(Type::U64, "lo", var("vk") * var("bw")),
            Stmt::assign_op(var("a0"), add, var("lo")),
            Stmt::const_(Type::U64, "c0", carry(var("a0").lt(var("lo")))),
            Stmt::assign_op(var("a1"), add, var("c0")),
            Stmt::assign_op(var("a2"), add, carry(var("a1").lt(var("c0")))),
            Stmt::if_(
                var("w").gt(u64_(0)),
                vec![
                    Stmt::const_(
                        Type::U64,
                        "hi",
                        mulhi(
                            var("vk"),
                            var("bases").at(var("k") * var("words") + var("w") - u64_(1)),
                        ),
                    ),
                    Stmt::assign_op(var("a0"), add, var("hi")),
                    Stmt::const_(Type::U64, "c1", carry(var("a0").lt(var("hi")))),
                    Stmt::assign_op(var("a1"), add, var("c1")),
                    Stmt::assign_op(var("a2"), add, carry(var("a1").lt(var("c1")))),
                ],
            ),
        ])),
        Stmt::let_(Type::U64, "out", var("a0")),
    ];
    if signed {
        // P − x, word by word, for the upper half.
        column.push(Stmt::if_(
            var("neg"),
            vec![
                Stmt::const_(
                    Type::U64,
                    "pw",
                    var("bases").at(var("primes") * var("words") + var("w")),
                ),
                Stmt::const_(Type::U64, "t", var("pw") - var("a0")),
                Stmt::const_(Type::Bool, "b1", var("pw").lt(var("a0"))),
                Stmt::assign(var("out"), var("t") - var("borrow")),
                Stmt::assign(
                    var("borrow"),
                    carry(var("b1").or_else(var("t").lt(var("borrow")))),
                ),
            ],
        ));
    }
    column.extend([
        Stmt::assign(
            var("ints_out").at(var("w") * var("dst_stride") + var("j")),
            var("out"),
        ),
        // The next column starts from this one's carry.
        Stmt::assign(var("a0"), var("a1")),
        Stmt::assign(var("a1"), var("a2")),
        Stmt::assign(var("a2"), u64_(0)),
    ]);
    let mut body = zero_acc("a");
    body.push(Stmt::let_(Type::U64, "borrow", u64_(0)));
    body.push(Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("words")).body(column),
    ));
    Stmt::Block(body)
}

pub(super) fn recombine_body(signed: bool) -> Vec<Stmt> {
    let mut per_coefficient = vec![Stmt::array(Type::U64, "v", MAX_PRIMES), digits()];
    if signed {
        per_coefficient.extend(upper_half());
        per_coefficient.push(Stmt::assign(
            var("signs").at(var("j")),
            var("neg").cast(Type::U32),
        ));
    }
    per_coefficient.push(columns(signed, var("primes")));
    vec![Stmt::grid_stride_loop("j", var("src_len"), per_coefficient)]
}
