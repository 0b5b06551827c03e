//! The bodies of [`CrtPass::ExplicitNarrow`](super::CrtPass::ExplicitNarrow) and
//! [`CrtPass::ProjectNarrow`](super::CrtPass::ProjectNarrow): the two ends of the CRT
//! route for primes of 31 bits (2^30 < p < 2^31) in 32-bit products, one IMAD.WIDE.U32
//! each, where the kernels for any width multiply 64-bit words.
//!
//! The explicit CRT of [`CrtPass::Explicit`](super::CrtPass::Explicit), with Montgomery's
//! reduction modulo m (odd) on the way, so that no second kernel runs: y_i = x_i·P_i^−1
//! mod p_i is one 32-bit Montgomery product, and the quotient's terms ⌊y_i·⌊2^62/p_i⌋/2^30⌋
//! lie below 2^32·y_i/p_i by less than 3 (k is exact when x < P/2, as there). The sum
//! S = Σ y_i·C_i + k·D, with C_i = P_i·2^52 mod m and D = −P·2^52 mod m in digits of 26
//! bits, gathers in [`NARROW_DIGITS`] columns held in registers, prime by prime: each term
//! is a 32 × 32-bit product below 2^57, so that a column of up to 127 of them, the two
//! multiples of m and the carry fit 64 bits. The first two columns choose q_0 and q_1
//! below 2^26 with S + (q_0 + q_1·2^26)·m ≡ 0 (mod 2^52) (Montgomery, 1985), and the
//! columns above give r = (S + q·m)/2^52 ≡ x (mod m), below S/2^52 + m < 2m; one
//! conditional subtraction of m finishes it.
//!
//! The projection: x mod p as the sum over the 32-bit halves h of x's words of one
//! Montgomery product with 2^(32h)·2^32 mod p each.

use super::garner::{projection, u64_, var};
use super::reduce::subtract_pass;
use super::PROJECT_HEAD;
use crate::cuda::{BinOp, Expr, ForLoop, Stmt, Type};

/// Bits of a digit of the sums.
pub const DIGIT_BITS: u64 = 26;

/// The most digits of m the kernel's columns hold in registers: m below 2^312.
pub const NARROW_DIGITS: u64 = 12;

fn mask(x: Expr) -> Expr {
    x & u64_((1 << DIGIT_BITS) - 1)
}

/// `(uint64_t)x` for a 32-bit x: a factor of a 32 × 32-bit product (one IMAD.WIDE.U32).
fn wide(x: Expr) -> Expr {
    x.cast(Type::U64)
}

/// `(uint32_t)x`.
fn word32(x: Expr) -> Expr {
    x.cast(Type::U32)
}

/// `out` = a·b·2^−32 mod p for a, b < p < 2^31 (32-bit values), by one Montgomery
/// product with np = −p^−1 mod 2^32: two IMAD.WIDE.U32 and a conditional subtraction.
fn mont32(out: &str, a: Expr, b: Expr) -> Vec<Stmt> {
    vec![
        Stmt::let_(Type::U32, out, Expr::u32(0)),
        Stmt::Block(vec![
            Stmt::const_(Type::U64, "u", wide(a) * wide(b)),
            Stmt::const_(Type::U32, "q", word32(var("u")) * var("np")),
            Stmt::assign(
                var(out),
                word32((wide(var("q")) * wide(var("p")) + var("u")) >> u64_(32)),
            ),
            Stmt::if_(
                var(out).ge(var("p")),
                vec![Stmt::assign_op(var(out), BinOp::Sub, var("p"))],
            ),
        ]),
    ]
}

/// Row i's prime p and −p^−1 mod 2^32 as 32-bit values, and the row (`c`).
fn prime_row32() -> Vec<Stmt> {
    vec![
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "c",
            var("consts") + var("i") * var("row"),
        ),
        Stmt::const_(Type::U32, "p", word32(var("c").at(u64_(0)))),
        Stmt::const_(Type::U32, "np", word32(var("c").at(u64_(1)))),
    ]
}

/// For every prime: y_i, its quotient's term into `frac`, and y_i·C_i into the columns.
fn terms() -> Stmt {
    let c = |k: u64| var("c").at(u64_(k));
    let mut body = prime_row32();
    // y_i = x_i·(P_i^−1·2^32)·2^−32 mod p_i.
    body.extend(mont32(
        "y",
        word32(var("src").at(var("i") * var("src_dist") + var("j"))),
        word32(c(2)),
    ));
    body.extend([
        Stmt::assign_op(
            var("frac"),
            BinOp::Add,
            (wide(var("y")) * wide(word32(c(3)))) >> u64_(30),
        ),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "ci",
            var("bases") + u64_(1) + var("i") * var("words"),
        ),
        add_row("y", "ci"),
    ]);
    Stmt::For(ForLoop::range("i", Type::SizeT, u64_(0), var("primes")).body(body))
}

/// `col[w] += x·row[w]` for the digits w < `words`, the columns in registers.
fn add_row(x: &str, row: &str) -> Stmt {
    Stmt::unrolled(
        "w",
        NARROW_DIGITS,
        vec![Stmt::if_(
            var("w").lt(var("words")),
            vec![Stmt::assign_op(
                var("col").at(var("w")),
                BinOp::Add,
                wide(var(x)) * wide(word32(var(row).at(var("w")))),
            )],
        )],
    )
}

/// Appends the digit `d` to the words of the result, writing each word as it fills.
fn push(d: Expr) -> Stmt {
    let emit = vec![
        Stmt::if_(
            var("out_w").lt(var("mwords")),
            vec![Stmt::assign(
                var("ints_out").at(var("out_w") * var("dst_stride") + var("j")),
                var("pend"),
            )],
        ),
        Stmt::assign_op(var("out_w"), BinOp::Add, u64_(1)),
        // The digit's bits above the word (none when it ended exactly there).
        Stmt::assign(var("pend"), var("d") >> (u64_(64) - var("nb"))),
        Stmt::assign(var("nb"), var("nb") + u64_(DIGIT_BITS) - u64_(64)),
    ];
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "d", d),
        Stmt::assign_op(var("pend"), BinOp::BitOr, var("d") << var("nb")),
        Stmt::if_else(
            (var("nb") + u64_(DIGIT_BITS)).ge(u64_(64)),
            emit,
            vec![Stmt::assign_op(var("nb"), BinOp::Add, u64_(DIGIT_BITS))],
        ),
    ])
}

/// Column w of S + q·m (w < `words` + 2) with the carry from below: q_0 or q_1 where
/// w < 2, and above them the digit of r it gives.
fn column() -> Vec<Stmt> {
    let m = |k: Expr| wide(word32(var("mdig").at(k)));
    let add = |x: Expr| Stmt::assign_op(var("t"), BinOp::Add, x);
    let choose = |q: &str| {
        vec![
            Stmt::assign(var(q), mask(mask(var("t")) * var("mprime"))),
            add(var(q) * m(u64_(0))),
        ]
    };
    let w = || var("w");
    vec![
        Stmt::let_(
            Type::U64,
            "t",
            var("carry") + Expr::select(w().lt(var("words")), var("col").at(w()), u64_(0)),
        ),
        Stmt::if_(
            w().ge(Expr::int(1)).and_also(w().lt(var("words"))),
            vec![add(var("q0") * m(w()))],
        ),
        Stmt::if_(
            w().ge(Expr::int(2))
                .and_also((w() - Expr::int(1)).lt(var("words"))),
            vec![add(var("q1") * m(w() - Expr::int(1)))],
        ),
        Stmt::if_(w().equals(Expr::int(0)), choose("q0")),
        Stmt::if_(w().equals(Expr::int(1)), choose("q1")),
        Stmt::if_(w().ge(Expr::int(2)), vec![push(mask(var("t")))]),
        Stmt::assign(var("carry"), var("t") >> u64_(DIGIT_BITS)),
    ]
}

pub(super) fn explicit_narrow_body() -> Vec<Stmt> {
    let m_words = |w: Expr| var("bases").at(u64_(1) + (var("primes") + u64_(2)) * var("words") + w);
    let per_coefficient = vec![
        Stmt::array(Type::U64, "col", NARROW_DIGITS),
        Stmt::unrolled(
            "w",
            NARROW_DIGITS,
            vec![Stmt::assign(var("col").at(var("w")), u64_(0))],
        ),
        Stmt::let_(Type::U64, "frac", u64_(0)),
        terms(),
        Stmt::comment("k = the integer part of the sum (x < P/2: 2^30 covers its error)"),
        Stmt::const_(
            Type::U32,
            "k",
            word32((var("frac") + u64_(1 << 30)) >> u64_(32)),
        ),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "d_row",
            var("bases") + u64_(1) + var("primes") * var("words"),
        ),
        add_row("k", "d_row"),
        Stmt::let_(Type::U64, "carry", u64_(0)),
        Stmt::let_(Type::U64, "q0", u64_(0)),
        Stmt::let_(Type::U64, "q1", u64_(0)),
        Stmt::let_(Type::U64, "pend", u64_(0)),
        Stmt::let_(Type::U64, "nb", u64_(0)),
        Stmt::let_(Type::SizeT, "out_w", u64_(0)),
        Stmt::For(
            ForLoop::range(
                "w",
                Type::Int,
                Expr::int(0),
                Expr::int(NARROW_DIGITS as i64 + 2),
            )
            .unrolled()
            .body(vec![Stmt::if_(
                var("w").lt(var("words") + u64_(2)),
                column(),
            )]),
        ),
        push(var("carry")),
        Stmt::For(
            ForLoop::range("z", Type::SizeT, var("out_w"), var("mwords")).body(vec![
                Stmt::assign(
                    var("ints_out").at(var("z") * var("dst_stride") + var("j")),
                    var("pend"),
                ),
                Stmt::assign(var("pend"), u64_(0)),
            ]),
        ),
        Stmt::comment("r < 2m: one subtraction when r >= m (no borrow out of r - m)"),
        Stmt::let_(Type::U64, "borrow", u64_(0)),
        subtract_pass(false, &m_words),
        Stmt::if_(
            var("borrow").equals(u64_(0)),
            vec![subtract_pass(true, &m_words)],
        ),
    ];
    vec![
        Stmt::const_(Type::U64, "mprime", var("bases").at(u64_(0))),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "mdig",
            var("bases") + u64_(1) + (var("primes") + u64_(1)) * var("words"),
        ),
        Stmt::grid_stride_loop("j", var("src_len"), per_coefficient),
    ]
}

/// One thread per integer, its residues modulo every prime below 2^31 in turn, by 32-bit
/// Montgomery products of its words' halves (the loops of [`projection`]).
pub(super) fn project_narrow_body(signed: bool) -> Vec<Stmt> {
    let half = |w: Expr, shift: u64| {
        word32(var("ints").at(w * var("src_stride") + var("j")) >> u64_(shift))
    };
    // r += half·t·2^−32 mod p, for the half's weight t in the Montgomery form.
    let term = |h: Expr, t: Expr| {
        let mut block = mont32("d", h, word32(t));
        block.extend([
            Stmt::assign_op(var("r"), BinOp::Add, var("d")),
            Stmt::if_(
                var("r").ge(var("p")),
                vec![Stmt::assign_op(var("r"), BinOp::Sub, var("p"))],
            ),
        ]);
        Stmt::Block(block)
    };
    let weight = |k: Expr| var("c").at(u64_(PROJECT_HEAD) + k);
    let residue = vec![Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("words")).body(vec![
            term(half(var("w"), 0), weight(u64_(2) * var("w"))),
            term(half(var("w"), 32), weight(u64_(2) * var("w") + u64_(1))),
        ]),
    )];
    projection(signed, prime_row32(), Type::U32, residue)
}
