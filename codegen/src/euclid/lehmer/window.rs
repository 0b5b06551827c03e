//! The window of a Lehmer round ([`EuclidPass::Window`](crate::euclid::EuclidPass::Window)).

use super::{
    max, normalise_global, pair_len, pairs, set_status, state, status_running, swap, work_ptr,
};
use super::{LehmerState, LehmerStatus};
use crate::cuda::{fe, Expr, Stmt, Type};
use crate::euclid::{block_stride, normalise, shared_ptr, var};

/// `y = c0·p[i] − c1·q[i − k] − c2·q[i]` for a remainder or a cofactor p of length `lp`
/// against q of length `lq` (c2 only in a double step), into `out[i]`.
fn combination(out: &str, p: &str, lp: &str, q: &str, lq: &str) -> Stmt {
    let i = || var("i");
    let mm = |x: Expr, t: &str| fe::mul_mont(x, var(t));
    Stmt::Block(vec![
        Stmt::let_(
            Type::Fe,
            "y",
            Expr::select(i().lt(var(lp)), mm(var(p).at(i()), "c0"), fe::zero()),
        ),
        Stmt::if_(
            i().ge(var("k")).and_also((i() - var("k")).lt(var(lq))),
            vec![Stmt::assign(
                var("y"),
                fe::sub(var("y"), mm(var(q).at(i() - var("k")), "c1")),
            )],
        ),
        Stmt::if_(
            var("two").and_also(i().lt(var(lq))),
            vec![Stmt::assign(
                var("y"),
                fe::sub(var("y"), mm(var(q).at(i()), "c2")),
            )],
        ),
        Stmt::store(var(out), i(), var("y")),
    ])
}

/// One step of the window: u ← c0·u − c1·x^k·v − c2·v, one elimination (c0 = α = lc v,
/// c1 = β = lc u, c2 = 0) or, where the sequence is normal, two in one pass (k = 1,
/// c0 = α², c1 = αβ, c2 = β₁, the top of u after the first; see
/// [`EuclidPass::Gcd`](crate::euclid::EuclidPass::Gcd)), the cofactors following when the
/// window is not the whole pair. The window's values are kept in the multiplication's
/// table form (x·R for word primes), so that each product is one reduction and the step's
/// scalars need no conversion; the new u goes to a spare array, so that one barrier a
/// step keeps every read of the old one before any write.
fn window_step() -> Vec<Stmt> {
    let one = || Expr::u32(1);
    let at = |p: &str, i: Expr| var(p).at(i);
    let mm = |a: Expr, b: Expr| fe::mul_mont(a, b);
    let grow = |l: &str, m: &str| max(var(l), var(m) + var("k"));
    let order = [
        swap(shared_ptr(), "u", "v"),
        swap(Type::U32, "lu", "lv"),
        swap(shared_ptr(), "ua", "va"),
        swap(shared_ptr(), "ub", "vb"),
        swap(Type::U32, "la", "lc"),
        swap(Type::U32, "lb", "ld"),
    ]
    .concat();
    vec![
        Stmt::const_(Type::U32, "k", var("lu") - var("lv")),
        Stmt::const_(Type::Fe, "alpha", at("v", var("lv") - one())),
        Stmt::const_(Type::Fe, "beta", at("u", var("lu") - one())),
        Stmt::const_(
            Type::Fe,
            "beta1",
            Expr::select(
                var("k").equals(one()),
                fe::sub(
                    mm(var("alpha"), at("u", var("lu") - Expr::u32(2))),
                    mm(var("beta"), at("v", var("lv") - Expr::u32(2))),
                ),
                fe::zero(),
            ),
        ),
        Stmt::const_(
            Type::Bool,
            "two",
            fe::eq(var("beta1"), fe::zero()).logical_not(),
        ),
        Stmt::const_(
            Type::Fe,
            "c0",
            Expr::select(var("two"), mm(var("alpha"), var("alpha")), var("alpha")),
        ),
        Stmt::const_(
            Type::Fe,
            "c1",
            Expr::select(var("two"), mm(var("alpha"), var("beta")), var("beta")),
        ),
        Stmt::const_(Type::Fe, "c2", var("beta1")),
        Stmt::const_(
            Type::U32,
            "nlu",
            var("lu") - Expr::select(var("two"), Expr::u32(2), one()),
        ),
        Stmt::const_(Type::U32, "nla", grow("la", "lc")),
        Stmt::const_(Type::U32, "nlb", grow("lb", "ld")),
        Stmt::const_(
            Type::U32,
            "span",
            Expr::select(
                var("full"),
                var("nlu"),
                max(var("nlu"), max(var("nla"), var("nlb"))),
            ),
        ),
        block_stride(
            var("span"),
            vec![
                Stmt::if_(
                    var("i").lt(var("nlu")),
                    vec![combination("w", "u", "lu", "v", "lv")],
                ),
                Stmt::if_(
                    var("full").logical_not(),
                    vec![
                        Stmt::if_(
                            var("i").lt(var("nla")),
                            vec![combination("wa", "ua", "la", "va", "lc")],
                        ),
                        Stmt::if_(
                            var("i").lt(var("nlb")),
                            vec![combination("wb", "ub", "lb", "vb", "ld")],
                        ),
                    ],
                ),
            ],
        ),
        Stmt::SyncThreads,
        Stmt::assign(var("lu"), var("nlu")),
        Stmt::assign(var("la"), var("nla")),
        Stmt::assign(var("lb"), var("nlb")),
    ]
    .into_iter()
    .chain(swap(shared_ptr(), "u", "w"))
    .chain(swap(shared_ptr(), "ua", "wa"))
    .chain(swap(shared_ptr(), "ub", "wb"))
    .chain([
        normalise("u", "lu"),
        Stmt::if_(var("lu").lt(var("lv")), order),
    ])
    .collect()
}

/// The body of [`EuclidPass::Window`](crate::euclid::EuclidPass::Window).
pub(crate) fn window_body() -> Vec<Stmt> {
    let st = |i: usize| state(Expr::u64(i as u64));
    // The window's values are in table form: a product by 1 takes them back.
    let store_result = |src: &str, len: Expr| {
        block_stride(
            len,
            vec![fe::store(
                var("dst"),
                var("i"),
                var("dst_stride"),
                fe::mul_mont(var(src).at(var("i")), fe::one()),
            )],
        )
    };
    let copy_result = |src: &str, len: &str| {
        Stmt::block_stride_loop(
            "i",
            Type::SizeT,
            var(len),
            vec![fe::store(
                var("dst"),
                var("i"),
                var("dst_stride"),
                fe::load(var(src), var("i"), var("vstride")),
            )],
        )
    };
    let mat_row = |row: u64, src: &str, len: &str| {
        block_stride(
            var(len),
            vec![fe::store(
                var("mat") + Expr::u64(row) * (var("half") + Expr::u64(1)),
                var("i"),
                var("mstride"),
                var(src).at(var("i")),
            )],
        )
    };
    let first = |name: &str, when_swapped: Expr, otherwise: Expr| {
        Stmt::store(
            var(name),
            Expr::u32(0),
            Expr::select(var("swapped"), when_swapped, otherwise),
        )
    };
    let window = Expr::u64(2) * var("half") + Expr::u64(1);
    let cof = var("half") + Expr::u64(1);
    let shared = |name: &str, at: Expr| Stmt::let_(shared_ptr(), name, at);
    [
        vec![status_running()],
        pairs(false),
        vec![
            Stmt::let_(Type::SizeT, "nu", pair_len("s", false)),
            Stmt::let_(Type::SizeT, "nv", pair_len("s", true)),
            Stmt::comment("every thread has read the state before thread 0 writes it"),
            Stmt::SyncThreads,
            normalise_global("U", "nu"),
            normalise_global("V", "nv"),
            Stmt::if_(
                Expr::thread_idx().equals(Expr::u32(0)),
                vec![
                    Stmt::assign(pair_len("s", false), var("nu")),
                    Stmt::assign(pair_len("s", true), var("nv")),
                ],
            ),
            Stmt::const_(Type::Bool, "swapped", var("nu").lt(var("nv"))),
            Stmt::if_(
                var("swapped"),
                [swap(work_ptr(), "U", "V"), swap(Type::SizeT, "nu", "nv")].concat(),
            ),
            Stmt::if_(
                var("nv").le(Expr::u64(1)),
                vec![
                    Stmt::comment("the sequence has ended: u is the last remainder, or a constant divides both"),
                    Stmt::if_(
                        var("nv").equals(Expr::u64(1)),
                        vec![Stmt::assign(var("U"), var("V")), Stmt::assign(var("nu"), Expr::u64(1))],
                    ),
                    copy_result("U", "nu"),
                    set_status(
                        LehmerStatus::Done,
                        vec![Stmt::assign(st(LehmerState::RESULT_LEN), var("nu"))],
                    ),
                    Stmt::Return,
                ],
            ),
            Stmt::const_(Type::SizeT, "top", var("nu") - Expr::u64(1)),
            Stmt::const_(Type::Bool, "full", var("top").le(Expr::u64(2) * var("half"))),
            Stmt::const_(
                Type::SizeT,
                "m",
                Expr::select(var("full"), Expr::u64(0), var("top") - Expr::u64(2) * var("half")),
            ),
            Stmt::if_(
                var("full").logical_not().and_also((var("nv") - Expr::u64(1) + var("half")).lt(var("top"))),
                vec![
                    Stmt::comment("the first quotient has degree above half: the window cannot take it"),
                    set_status(LehmerStatus::Stalled, vec![]),
                    Stmt::Return,
                ],
            ),
            shared("u", var("smem")),
            shared("v", var("u") + window.clone()),
            shared("w", var("v") + window.clone()),
            shared("ua", var("w") + window),
            shared("ub", var("ua") + cof.clone()),
            shared("va", var("ub") + cof.clone()),
            shared("vb", var("va") + cof.clone()),
            shared("wa", var("vb") + cof.clone()),
            shared("wb", var("wa") + cof),
            Stmt::let_(Type::U32, "lu", (var("nu") - var("m")).cast(Type::U32)),
            Stmt::let_(Type::U32, "lv", (var("nv") - var("m")).cast(Type::U32)),
            block_stride(
                var("lu"),
                vec![Stmt::store(
                    var("u"),
                    var("i"),
                    fe::to_mont(fe::load(var("U"), var("m") + var("i").cast(Type::SizeT), var("vstride"))),
                )],
            ),
            block_stride(
                var("lv"),
                vec![Stmt::store(
                    var("v"),
                    var("i"),
                    fe::to_mont(fe::load(var("V"), var("m") + var("i").cast(Type::SizeT), var("vstride"))),
                )],
            ),
            Stmt::comment("u = ua·U + ub·V and v = va·U + vb·V, U and V the pair as stored"),
            Stmt::if_(
                Expr::thread_idx().equals(Expr::u32(0)),
                vec![
                    Stmt::const_(Type::Fe, "one", fe::to_mont(fe::one())),
                    first("ua", fe::zero(), var("one")),
                    first("ub", var("one"), fe::zero()),
                    first("va", var("one"), fe::zero()),
                    first("vb", fe::zero(), var("one")),
                ],
            ),
            Stmt::let_(Type::U32, "la", Expr::u32(1)),
            Stmt::let_(Type::U32, "lb", Expr::u32(1)),
            Stmt::let_(Type::U32, "lc", Expr::u32(1)),
            Stmt::let_(Type::U32, "ld", Expr::u32(1)),
            Stmt::comment("a step divides by v only while deg v >= deg u - half (Lemma 11.3)"),
            Stmt::const_(
                Type::U32,
                "limit",
                Expr::select(var("full"), Expr::u32(1), var("half").cast(Type::U32)),
            ),
            Stmt::SyncThreads,
            Stmt::While {
                cond: var("lv").gt(var("limit")),
                body: window_step(),
            },
            Stmt::if_(
                var("full"),
                vec![
                    Stmt::if_(
                        var("lv").equals(Expr::u32(1)),
                        vec![Stmt::assign(var("u"), var("v")), Stmt::assign(var("lu"), Expr::u32(1))],
                    ),
                    store_result("u", var("lu")),
                    set_status(
                        LehmerStatus::Done,
                        vec![Stmt::assign(st(LehmerState::RESULT_LEN), var("lu").cast(Type::U64))],
                    ),
                    Stmt::Return,
                ],
            ),
            Stmt::comment("(r_i, r_(i+1)) = M·(U, V): the next pair's lengths and M for the apply pass"),
            mat_row(0, "ua", "la"),
            mat_row(1, "ub", "lb"),
            mat_row(2, "va", "lc"),
            mat_row(3, "vb", "ld"),
            Stmt::if_(
                Expr::thread_idx().equals(Expr::u32(0)),
                vec![
                    Stmt::assign(pair_len("s1", false), var("m") + var("lu").cast(Type::SizeT)),
                    Stmt::assign(
                        pair_len("s1", true),
                        var("m") + var("lu").cast(Type::SizeT) - Expr::u64(1),
                    ),
                    Stmt::assign(st(LehmerState::cofactor(0)), var("la").cast(Type::U64)),
                    Stmt::assign(st(LehmerState::cofactor(1)), var("lb").cast(Type::U64)),
                    Stmt::assign(st(LehmerState::cofactor(2)), var("lc").cast(Type::U64)),
                    Stmt::assign(st(LehmerState::cofactor(3)), var("ld").cast(Type::U64)),
                ],
            ),
        ],
    ]
    .concat()
}
