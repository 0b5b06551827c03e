//! The window's steps a warp at a time: Lehmer's idea once more, inside the window.
//!
//! A step of the window ([`super::window`]) spreads its rows over the block and ends in a
//! barrier, and every thread computes the step's scalars from the rows' tops: on an H200
//! some 800 cycles a division at half 64 (bench/RESULTS.md, "GCD round 11"). The
//! quotients of the window's own sequence depend only on its top coefficients too
//! (von zur Gathen and Gerhard, Lemma 11.3), so one warp takes them from the top 32 of u
//! and v, a coefficient a lane in registers ([`fe_warp_t`](crate::prelude)): a step is
//! shuffles for the tops, a shift by a shuffle, one `fe_mul_sub2_mont` a lane (a normal
//! division's two eliminations at once, as the window's double step) for u and one for
//! its row of N, and a ballot for the new degree, with no barrier — about 500 cycles a
//! division, the chain of a lone warp.
//! The warp multiplies the steps into a 2×2 matrix N of polynomials of degree at most
//! [`WARP_HALF`]; then the block multiplies N into the window's rows — the remainders and
//! the cofactors of the round's matrix — as the apply pass multiplies M into the whole
//! pair, and the window goes on from there. The rows hold what the steps one by one would
//! have left in them, value for value: the same eliminations u ← lc(v)·u − lc(u)·x^k·v,
//! composed.
//!
//! The warp takes the steps the window would while the divisor keeps degree ≥ deg u −
//! [`WARP_HALF`] (with 32 coefficients of u, the quotients of degrees summing to at most
//! 15 are exact) and the window's own limit allows; a first quotient of degree above
//! [`WARP_HALF`] is taken by the window's own step.

use super::max;
use super::rows::{row_loop, Row};
use super::window::rows_end;
use crate::cuda::{fe, Expr, ForLoop, Stmt, Type};
use crate::euclid::{normalise, shared_ptr, var};

/// The degree a warp's steps may take off u: 32 coefficients of u and v determine the
/// quotients whose degrees sum to 15 or less.
///
/// ```
/// use fermat_codegen::euclid::WARP_HALF;
///
/// // A window of half h reads the top 2h + 1 coefficients: 31 for the warp, a lane each.
/// assert_eq!(2 * WARP_HALF + 1, 31);
/// ```
pub const WARP_HALF: u32 = 15;

/// The length of N's entries in shared memory: degree [`WARP_HALF`] at most.
///
/// ```
/// use fermat_codegen::euclid::{EuclidPass, WARP_MATRIX_LEN};
///
/// // The window for 32-bit elements keeps N's four entries beside its rows; the trail
/// // window, whose steps the block takes, does not.
/// let (window, trail) = (EuclidPass::Window, EuclidPass::TrailWindow);
/// let extra = window.shared_bytes((64, 0), 4) - trail.shared_bytes((64, 0), 4);
/// assert_eq!((WARP_MATRIX_LEN, extra), (16, 4 * WARP_MATRIX_LEN * 4));
/// assert_eq!(window.shared_bytes((64, 0), 8), trail.shared_bytes((64, 0), 8));
/// ```
pub const WARP_MATRIX_LEN: u64 = WARP_HALF as u64 + 1;

/// The statically sized shared array the warp hands its lengths to the block in.
pub(crate) const WARP_LENS: &str = "warp_lens";

/// Whether the window takes its steps a warp at a time here: where the first quotient's
/// degree, deg u − deg v, is at most [`WARP_HALF`], for elements of one 32-bit word (the
/// kernel's test of the prelude's `FE_WORD_BITS`). Over goldilocks, whose products are
/// two 64-bit REDCs, the warp's chain made the 10^4 gcd 12 % slower than the block's
/// steps (bench/RESULTS.md, "GCD round 11").
pub(super) fn warp_steps_apply() -> Expr {
    var("FE_WORD_BITS")
        .equals(Expr::int(32))
        .and_also((var("lu") - var("lv")).le(Expr::u32(WARP_HALF)))
}

/// A round of the warp's steps and the block's product by N (the module's doc).
pub(super) fn warp_round() -> Vec<Stmt> {
    let u32_ = |name: &str, value: Expr| Stmt::const_(Type::U32, name, value);
    let above = |l: &str, d: u32| {
        Expr::select(var(l).gt(Expr::u32(d)), var(l) - Expr::u32(d), Expr::u32(0))
    };
    // From the shared base and the half at each round, not from a pointer kept across
    // the window's loop: ptxas then folds the offsets into the loads and the window takes
    // 76 registers instead of 64 and 5 % less time (bench/RESULTS.md, "GCD round 16").
    let matrix = |j: u64| rows_end() + Expr::u64(j * WARP_MATRIX_LEN);
    let lens = |i: u64| var(WARP_LENS).at(Expr::u64(i));
    [
        vec![
            Stmt::comment("a warp's window: u's top 32 coefficients, from position warp_from"),
            u32_("warp_from", above("lu", 32)),
            u32_("warp_limit", max(var("limit"), above("lu", WARP_HALF + 1))),
            Stmt::let_(shared_ptr(), "n00", matrix(0)),
            Stmt::let_(shared_ptr(), "n01", matrix(1)),
            Stmt::let_(shared_ptr(), "n10", matrix(2)),
            Stmt::let_(shared_ptr(), "n11", matrix(3)),
            Stmt::if_(Expr::thread_idx().lt(Expr::u32(32)), warp_steps()),
            Stmt::SyncThreads,
            u32_("nlu", lens(0)),
            u32_("nla", lens(1)),
            u32_("nlb", lens(2)),
            u32_("nlc", lens(3)),
            u32_("nld", lens(4)),
            Stmt::comment("N's entries have degree deg u - deg u' at most"),
            u32_("kn", var("lu") - var("nlu") + Expr::u32(1)),
            product_row(
                Row::Remainders,
                [("u", "lu"), ("v", "lv")],
                [("w", "nlu"), ("x", "nlu")],
            ),
            product_row(
                Row::CofactorsA,
                [("ua", "la"), ("va", "lc")],
                [("wa", "nla"), ("xa", "nlc")],
            ),
            product_row(
                Row::CofactorsB,
                [("ub", "lb"), ("vb", "ld")],
                [("wb", "nlb"), ("xb", "nld")],
            ),
            Stmt::SyncThreads,
            Stmt::assign(var("lu"), var("nlu")),
            Stmt::assign(var("lv"), var("nlu")),
            Stmt::assign(var("la"), var("nla")),
            Stmt::assign(var("lb"), var("nlb")),
            Stmt::assign(var("lc"), var("nlc")),
            Stmt::assign(var("ld"), var("nld")),
        ],
        [
            ("u", "w"),
            ("v", "x"),
            ("ua", "wa"),
            ("va", "xa"),
            ("ub", "wb"),
            ("vb", "xb"),
        ]
        .into_iter()
        .flat_map(|(a, b)| super::swap(shared_ptr(), a, b))
        .collect(),
        vec![
            Stmt::comment("v's top may lie below the warp's window: the block finds it"),
            normalise("v", "lv"),
        ],
    ]
    .concat()
}

/// Warp 0's steps: the pair's top 32 coefficients from `warp_from` and N = 1 in registers,
/// the steps u ← α·u − β·x^k·v (α = lc v, β = lc u, k = deg u − deg v) on both while
/// lv > `warp_limit`, the pair put in order after each; then N to shared memory, and u's
/// length and the bounds on the cofactors' (as the window's steps keep them) to the block.
/// Each row of N is one vector, its two entries (of degree ≤ [`WARP_HALF`]) in the lower
/// and the upper 16 coefficients: a shift by k ≤ 15 of a row moves nothing across, since
/// x^k times an entry keeps degree ≤ 15, so one product a step updates the row.
fn warp_steps() -> Vec<Stmt> {
    let warp = |name: &str, value: Expr| Stmt::let_(Type::FeWarp, name, value);
    let u32_ = |name: &str, value: Expr| Stmt::let_(Type::U32, name, value);
    // row ← c0·row − c1·x^k·below − c2·below
    let step = |row: &str, below: &str| {
        Stmt::assign(
            var(row),
            fe::warp_mul_sub2(
                var(row),
                var("c0"),
                fe::warp_up(var(below), var("k")),
                var("c1"),
                var(below),
                var("c2"),
            ),
        )
    };
    let order = [
        ("su", "sv", Type::FeWarp),
        ("mu", "mv", Type::FeWarp),
        ("pu", "pv", Type::U32),
        ("qa", "qc", Type::U32),
        ("qb", "qd", Type::U32),
    ]
    .into_iter()
    .flat_map(|(a, b, ty)| super::swap(ty, a, b))
    .collect();
    // n01 follows n00 in shared memory, and n11 n10.
    let store = |row: &str, m: &str| {
        fe::warp_store(var(row), var(m), Expr::u32(2 * WARP_MATRIX_LEN as u32))
    };
    let lens = |i: u64, value: &str| Stmt::store(var(WARP_LENS), Expr::u64(i), var(value));
    vec![
        Stmt::const_(Type::Fe, "unit", fe::to_mont(fe::one())),
        warp("su", fe::warp_load(var("u"), var("warp_from"), var("lu"))),
        warp("sv", fe::warp_load(var("v"), var("warp_from"), var("lv"))),
        Stmt::comment("N's rows, each entry in a half of the warp: (n00 | n01) and (n10 | n11)"),
        warp("mu", fe::warp_constant(var("unit"))),
        warp(
            "mv",
            fe::warp_up(
                fe::warp_constant(var("unit")),
                Expr::u32(WARP_MATRIX_LEN as u32),
            ),
        ),
        u32_("pu", var("lu")),
        u32_("pv", var("lv")),
        u32_("qa", var("la")),
        u32_("qb", var("lb")),
        u32_("qc", var("lc")),
        u32_("qd", var("ld")),
        Stmt::While {
            cond: var("pv").gt(var("warp_limit")),
            body: [
                vec![Stmt::const_(Type::U32, "k", var("pu") - var("pv"))],
                step_coefficients(),
                vec![
                    step("su", "sv"),
                    step("mu", "mv"),
                    Stmt::assign(var("qa"), max(var("qa"), var("qc") + var("k"))),
                    Stmt::assign(var("qb"), max(var("qb"), var("qd") + var("k"))),
                    Stmt::assign(var("pu"), var("warp_from") + fe::warp_len(var("su"))),
                    Stmt::if_(var("pu").lt(var("pv")), order),
                ],
            ]
            .concat(),
        },
        store("n00", "mu"),
        store("n10", "mv"),
        Stmt::if_(
            Expr::thread_idx().equals(Expr::u32(0)),
            vec![
                lens(0, "pu"),
                lens(1, "qa"),
                lens(2, "qb"),
                lens(3, "qc"),
                lens(4, "qd"),
            ],
        ),
    ]
}

/// The coefficients of warp 0's step on the pair's tops `su` and `sv` (lengths `pu`, `pv`,
/// `k` = pu − pv): c0·u − c1·x^k·v − c2·v, a normal division's two eliminations in one step
/// where the first leaves u's top nonzero and k = 1, one elimination otherwise.
fn step_coefficients() -> Vec<Stmt> {
    let top = |p: &str, len: &str, d: u32| {
        fe::warp_at(var(p), var(len) - Expr::u32(d) - var("warp_from"))
    };
    // The coefficient of a double step where `two` holds, of a single one otherwise.
    let coefficient = |name: &str, double, single| {
        Stmt::const_(Type::Fe, name, Expr::select(var("two"), double, single))
    };
    vec![
        Stmt::const_(Type::Fe, "alpha", top("sv", "pv", 1)),
        Stmt::const_(Type::Fe, "beta", top("su", "pu", 1)),
        Stmt::comment("a normal division's two eliminations in one step where the first"),
        Stmt::comment("leaves u's top, beta1 = alpha u[pu - 2] - beta v[pv - 2], nonzero:"),
        Stmt::comment(
            "u <- alpha^2 u - alpha beta x v - beta1 v (pv - 2 lies in the warp's window)",
        ),
        Stmt::const_(
            Type::Fe,
            "beta1",
            fe::mul_sub_mont(
                top("su", "pu", 2),
                var("alpha"),
                top("sv", "pv", 2),
                var("beta"),
            ),
        ),
        Stmt::const_(
            Type::Bool,
            "two",
            var("k")
                .equals(Expr::u32(1))
                .and_also(fe::eq(var("beta1"), fe::zero()).logical_not()),
        ),
        coefficient("c0", fe::mul_mont(var("alpha"), var("alpha")), var("alpha")),
        coefficient("c1", fe::mul_mont(var("alpha"), var("beta")), var("beta")),
        coefficient("c2", var("beta1"), fe::zero()),
    ]
}

/// The block's product of N and one of the window's rows, (p, q) → (n00·p + n01·q,
/// n10·p + n11·q), p and q of lengths `lp` and `lq`, the new pair's first `n1` and `n2`
/// coefficients into `w` and `x`: each a sum of at most 2·`kn` products, reduced once.
fn product_row(
    row: Row,
    [(p, lp), (q, lq)]: [(&str, &str); 2],
    [(w, n1), (x, n2)]: [(&str, &str); 2],
) -> Stmt {
    let read =
        |r: &str, len: &str| Expr::select(var("t").lt(var(len)), var(r).at(var("t")), fe::zero());
    let term = |acc: &str, m0: &str, m1: &str| {
        Stmt::assign(
            var(acc),
            fe::dot_add(
                fe::dot_add(var(acc), var("a"), var(m0).at(var("j"))),
                var("b"),
                var(m1).at(var("j")),
            ),
        )
    };
    let terms = super::min(var("kn"), var("i") + Expr::u32(1));
    row_loop(
        row,
        max(var(n1), var(n2)),
        vec![
            Stmt::let_(Type::FeDot, "y0", fe::dot_zero()),
            Stmt::let_(Type::FeDot, "y1", fe::dot_zero()),
            Stmt::For(
                ForLoop::range("j", Type::U32, Expr::u32(0), terms).body(vec![
                    Stmt::const_(Type::U32, "t", var("i") - var("j")),
                    Stmt::const_(Type::Fe, "a", read(p, lp)),
                    Stmt::const_(Type::Fe, "b", read(q, lq)),
                    term("y0", "n00", "n01"),
                    term("y1", "n10", "n11"),
                ]),
            ),
            Stmt::if_(
                var("i").lt(var(n1)),
                vec![Stmt::store(var(w), var("i"), fe::dot_value(var("y0")))],
            ),
            Stmt::if_(
                var("i").lt(var(n2)),
                vec![Stmt::store(var(x), var("i"), fe::dot_value(var("y1")))],
            ),
        ],
    )
}
