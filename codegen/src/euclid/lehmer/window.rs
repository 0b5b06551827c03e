//! The window of a Lehmer round ([`EuclidPass::Window`](crate::euclid::EuclidPass::Window)).

use super::rows::{row_loop, row_loop_lanes, row_warps, Row};
use super::warp::{warp_round, warp_steps_apply};
use super::{
    begin_round, max, normalise_global, pair_len, pairs, set_status, state_word, swap, work_ptr,
};
use super::{LehmerState, LehmerStatus};
use crate::cuda::{fe, BinOp, Expr, Stmt, Type};
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

/// Where the window keeps a trail ([`EuclidPass::TrailWindow`]): thread 0 logs the
/// division just ended as entry `logged` ([`LehmerStep`](crate::euclid::LehmerStep)), its
/// divisor's leading coefficient `lead` (table form), of length `len` in the window, and
/// `elims` eliminations; every thread counts the entries alike and starts the next
/// division's count at zero. Nothing otherwise.
///
/// [`EuclidPass::TrailWindow`]: crate::euclid::EuclidPass::TrailWindow
fn log_division(trail: bool, lead: Expr, len: Expr, elims: Expr) -> Vec<Stmt> {
    if !trail {
        return Vec::new();
    }
    let degree = var("m") + len.cast(Type::SizeT) - Expr::u64(1);
    vec![
        Stmt::if_(
            Expr::thread_idx().equals(Expr::u32(0)),
            vec![
                fe::store(
                    var("leads"),
                    var("logged"),
                    var("cap"),
                    fe::mul_mont(lead, fe::one()),
                ),
                Stmt::assign(
                    var("steps").at(var("logged")),
                    (degree << Expr::u64(32)) | elims.cast(Type::U64),
                ),
            ],
        ),
        Stmt::assign_op(var("logged"), BinOp::Add, Expr::u64(1)),
        Stmt::assign(var("elims"), Expr::u32(0)),
    ]
}

/// `stmts` where the window keeps a trail, else nothing.
fn on_trail(trail: bool, stmts: Vec<Stmt>) -> Vec<Stmt> {
    if trail {
        stmts
    } else {
        Vec::new()
    }
}

/// One step of the window: u ← c0·u − c1·x^k·v − c2·v, one elimination (c0 = α = lc v,
/// c1 = β = lc u, c2 = 0) or, where the sequence is normal, two in one pass (k = 1,
/// c0 = α², c1 = αβ, c2 = β₁, the top of u after the first; see
/// [`EuclidPass::Gcd`](crate::euclid::EuclidPass::Gcd)), the cofactors following when the
/// window is not the whole pair. The window's values are kept in the multiplication's
/// table form (x·R for word primes), so that each product is one reduction and the step's
/// scalars need no conversion; the new u goes to a spare array, so that one barrier a
/// step keeps every read of the old one before any write. Where two normal steps follow
/// one another, one pass takes both ([`double_step`]).
fn window_step(trail: bool) -> Vec<Stmt> {
    [step_scalars(), double_step_scalars()]
        .concat()
        .into_iter()
        .chain([Stmt::if_else(
            var("fused"),
            double_step(trail),
            single_step(trail),
        )])
        .collect()
}

/// The step's scalars from the tops of u and v, without a branch where an element is a
/// word: every top a step may read is loaded first, at an index inside the window (in the
/// loop lv ≥ 2 and lu ≥ lv; an index below zero is taken at zero, its value unused), and
/// each product is computed whatever the case and selected after ([`eager`]), so that the
/// compiler interleaves the products' chains. Under the conditions that used them they
/// were six basic blocks, each product after the one before; without, the window took
/// 6 % less on an H200 (bench/RESULTS.md, "GCD round 9").
fn step_scalars() -> Vec<Stmt> {
    let mm = |a: &str, b: &str| fe::mul_mont(var(a), var(b));
    let fe_const = |name: &str, value: Expr| Stmt::const_(Type::Fe, name, value);
    let lv_minus = |d: u32| {
        Expr::select(
            var("lv").ge(Expr::u32(d)),
            var("lv") - Expr::u32(d),
            Expr::u32(0),
        )
    };
    let top = |name: &str, p: &str, at: Expr| fe_const(name, var(p).at(at));
    let (beta1_any, beta1) = eager(
        "beta1",
        fe::mul_sub_mont(
            var("alpha"),
            var("u").at(var("lu") - Expr::u32(2)),
            var("beta"),
            var("v").at(var("lv") - Expr::u32(2)),
        ),
    );
    let (alpha2_any, alpha2) = eager("alpha2", mm("alpha", "alpha"));
    let (alpha_beta_any, alpha_beta) = eager("alpha_beta", mm("alpha", "beta"));
    vec![
        Stmt::const_(Type::U32, "k", var("lu") - var("lv")),
        top("alpha", "v", var("lv") - Expr::u32(1)),
        top("beta", "u", var("lu") - Expr::u32(1)),
        top("u_2", "u", var("lv") - Expr::u32(2)),
        top("u_3", "u", lv_minus(3)),
        top("v_2", "v", var("lv") - Expr::u32(2)),
        top("v_3", "v", lv_minus(3)),
        top("v_4", "v", lv_minus(4)),
        beta1_any,
        alpha2_any,
        alpha_beta_any,
        fe_const(
            "beta1",
            Expr::select(var("k").equals(Expr::u32(1)), beta1, fe::zero()),
        ),
        Stmt::const_(
            Type::Bool,
            "two",
            fe::eq(var("beta1"), fe::zero()).logical_not(),
        ),
        fe_const("c0", Expr::select(var("two"), alpha2, var("alpha"))),
        fe_const("c1", Expr::select(var("two"), alpha_beta, var("beta"))),
        fe_const("c2", var("beta1")),
    ]
}

/// The scalar `name` = `value`, as a statement and the expression that reads it: where an
/// element is a word, `const fe_t name_any = value;` computed whatever the case, and read
/// where it is used; for SRGFNs, whose products are hundreds of instructions, the
/// statement is a zero the compiler drops and `value` is computed where it is used, as
/// the single steps always did.
fn eager(name: &str, value: Expr) -> (Stmt, Expr) {
    let any = format!("{name}_any");
    let srgfn = || var("FE_IS_SRGFN");
    (
        Stmt::const_(
            Type::Fe,
            any.clone(),
            Expr::select(srgfn(), fe::zero(), value.clone()),
        ),
        Expr::select(srgfn(), value, var(&any)),
    )
}

/// The step of [`window_step`] alone: u ← c0·u − c1·x^k·v − c2·v, its new length found
/// and the pair put in order.
fn single_step(trail: bool) -> Vec<Stmt> {
    let one = || Expr::u32(1);
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
        Stmt::const_(
            Type::U32,
            "nlu",
            var("lu") - Expr::select(var("two"), Expr::u32(2), one()),
        ),
        Stmt::const_(Type::U32, "nla", grow("la", "lc")),
        Stmt::const_(Type::U32, "nlb", grow("lb", "ld")),
        row_loop(
            Row::Remainders,
            var("nlu"),
            vec![combination("w", "u", "lu", "v", "lv")],
        ),
        row_loop(
            Row::CofactorsA,
            var("nla"),
            vec![combination("wa", "ua", "la", "va", "lc")],
        ),
        row_loop(
            Row::CofactorsB,
            var("nlb"),
            vec![combination("wb", "ub", "lb", "vb", "ld")],
        ),
        Stmt::SyncThreads,
        Stmt::assign(var("lu"), var("nlu")),
        Stmt::assign(var("la"), var("nla")),
        Stmt::assign(var("lb"), var("nlb")),
    ]
    .into_iter()
    .chain(on_trail(
        trail,
        vec![Stmt::assign_op(
            var("elims"),
            BinOp::Add,
            Expr::select(var("two"), Expr::u32(2), one()),
        )],
    ))
    .chain(swap(shared_ptr(), "u", "w"))
    .chain(swap(shared_ptr(), "ua", "wa"))
    .chain(swap(shared_ptr(), "ub", "wb"))
    .chain([
        normalise("u", "lu"),
        Stmt::if_(
            var("lu").lt(var("lv")),
            [
                log_division(trail, var("alpha"), var("lv"), var("elims")),
                order,
            ]
            .concat(),
        ),
    ])
    .collect()
}

/// c0·p\[j\] − c1·q\[j − 1\] − c2·q\[j\], p of length `lp` and q of `lq` read as zero
/// outside them: coefficient j of what a normal step (k = 1, two eliminations) makes of
/// a remainder or a cofactor, with the scalars `c` (c0, c1, c2).
fn normal(c: [&str; 3], (p, lp): (&str, Expr), (q, lq): (&str, Expr), j: Expr) -> Expr {
    let read = |cond: Expr, x: Expr| Expr::select(cond, x, fe::zero());
    let below = j.clone() - Expr::u32(1);
    fe::mul_sub2_mont(
        read(j.clone().lt(lp), var(p).at(j.clone())),
        var(c[0]),
        read(
            j.clone()
                .ge(Expr::u32(1))
                .and_also(below.clone().lt(lq.clone())),
            var(q).at(below),
        ),
        var(c[1]),
        read(j.clone().lt(lq), var(q).at(j)),
        var(c[2]),
    )
}

/// Whether two normal steps follow, and the second one's scalars: r1 = c0·u − c1·x·v −
/// c2·v keeps degree deg v − 1 (its top, t0 = r1\[lv − 2\], is not zero) and the next step
/// may be taken (lv − 1 > limit), and that step, of v by r1, is again two eliminations
/// (d2 = β₁ = t0·v\[lv − 2\] − lc(v)·r1\[lv − 3\] ≠ 0), with d0 = t0², d1 = t0·lc(v). Every
/// thread computes r1's two top coefficients itself from the tops of u and v. Only for
/// elements of one 32-bit word (see [`window_takes_double_steps`]): on an H200 the double
/// pass made the 10^4 gcd over 469762049 19% faster, goldilocks' 13% and P3's 35% slower
/// (bench/RESULTS.md, "GCD round 6").
///
/// [`window_takes_double_steps`]: crate::euclid::window_takes_double_steps
fn double_step_scalars() -> Vec<Stmt> {
    let mm = |a: &str, b: &str| fe::mul_mont(var(a), var(b));
    let fe_const = |name: &str, value: Expr| Stmt::const_(Type::Fe, name, value);
    let when_chained = |x: &str| Expr::select(var("chain"), var(x), fe::zero());
    // Computed whatever the case for one-word elements only: elsewhere `chain` is false, and
    // a product an SRGFN's inline assembly makes is not dropped for being unused (P3's
    // window took twice its time; bench/RESULTS.md, "GCD round 9").
    let word_only = |name: &str, value: Expr| {
        let one_word = var("FE_WORD_BITS").equals(Expr::int(32));
        fe_const(name, Expr::select(one_word, value, fe::zero()))
    };
    // normal(lv − j) from the tops: c0·u[j] − c1·v[j − 1] − c2·v[j], v[j − 1] read as zero
    // below the vector.
    let normal_top = |u_j: &str, (v_j1, has_j1): (&str, u32), v_j: &str| {
        fe::mul_sub2_mont(
            var(u_j),
            var("c0"),
            Expr::select(var("lv").ge(Expr::u32(has_j1)), var(v_j1), fe::zero()),
            var("c1"),
            var(v_j),
            var("c2"),
        )
    };
    vec![
        Stmt::comment("two steps a pass where a product is a few instructions (one 32-bit word):"),
        Stmt::comment("for wider elements the arithmetic, not the chain of one step, bounds the"),
        Stmt::comment("window, and lane 0's r1[i - 1] again costs more than a barrier (chain is"),
        Stmt::comment("then false at compile time, and the products only it selects are dropped)"),
        Stmt::const_(
            Type::Bool,
            "chain",
            var("FE_WORD_BITS")
                .equals(Expr::int(32))
                .and_also(var("two"))
                .and_also((var("lv") - Expr::u32(1)).gt(var("limit"))),
        ),
        word_only("t0_any", normal_top("u_2", ("v_3", 3), "v_2")),
        word_only("t1_any", normal_top("u_3", ("v_4", 4), "v_3")),
        fe_const("t0", when_chained("t0_any")),
        fe_const("t1", when_chained("t1_any")),
        word_only(
            "d2_any",
            fe::mul_sub_mont(var("t0_any"), var("v_2"), var("alpha"), var("t1_any")),
        ),
        word_only("d0_any", mm("t0_any", "t0_any")),
        word_only("d1_any", mm("t0_any", "alpha")),
        fe_const("d2", when_chained("d2_any")),
        fe_const("d0", when_chained("d0_any")),
        fe_const("d1", when_chained("d1_any")),
        Stmt::const_(
            Type::Bool,
            "fused",
            var("chain")
                .and_also(fe::eq(var("t0"), fe::zero()).logical_not())
                .and_also(fe::eq(var("d2"), fe::zero()).logical_not()),
        ),
    ]
}

/// Two normal steps in one pass, one barrier: r1 = c0·u − c1·x·v − c2·v and r2 =
/// d0·v − d1·x·r1 − d2·r1, each thread computing coefficient i of r1 and taking i − 1,
/// which its coefficient i of r2 also needs, from the lane below (each warp's lane 0
/// computes the coefficient below the warp's 31: [`row_loop_lanes`]), and the cofactors
/// alike; the pair becomes (r1, r2).
/// The values are those of two steps of [`single_step`], so the round's results are the
/// same, for half its barriers and chains of dependent instructions.
fn double_step(trail: bool) -> Vec<Stmt> {
    let c = ["c0", "c1", "c2"];
    let i = || var("i");
    let len = |name: &str, value: Expr| Stmt::const_(Type::U32, name, value);
    // The row (p, q) of lengths (lp, lq) becomes (r1, r2), written into (w, x) for
    // i < n1 and i < n2.
    let rows = |row: Row, [p, lp, q, lq]: [&str; 4], [w, x, n1, n2]: [&str; 4]| {
        let r1 = |j: Expr| normal(c, (p, var(lp)), (q, var(lq)), j);
        // Coefficient i − 1 of r1 is the lane below's (every lane computes its r, zero past
        // the row and below it); a thread without a warp of its own computes it again.
        let stores = |n: &str| var("lane0").logical_not().and_also(i().lt(var(n)));
        let body = vec![
            Stmt::const_(Type::Fe, "r", r1(i())),
            Stmt::const_(Type::Fe, "below", fe::lane_below(var("r"))),
            Stmt::const_(
                Type::Fe,
                "r_",
                Expr::select(var("split"), var("below"), r1(i() - Expr::u32(1))),
            ),
            Stmt::if_(stores(n1), vec![Stmt::store(var(w), i(), var("r"))]),
            Stmt::if_(
                stores(n2),
                vec![Stmt::store(
                    var(x),
                    i(),
                    fe::mul_sub2_mont(
                        Expr::select(i().lt(var(lq)), var(q).at(i()), fe::zero()),
                        var("d0"),
                        var("r_"),
                        var("d1"),
                        var("r"),
                        var("d2"),
                    ),
                )],
            ),
        ];
        row_loop_lanes(row, max(var(n1), var(n2)), body)
    };
    let rotate = |[p, q, w, x]: [&str; 4]| {
        let t = format!("{p}_{w}");
        vec![
            Stmt::let_(shared_ptr(), t.clone(), var(p)),
            Stmt::assign(var(p), var(w)),
            Stmt::assign(var(w), var(&t)),
            Stmt::assign(var(&t), var(q)),
            Stmt::assign(var(q), var(x)),
            Stmt::assign(var(x), var(&t)),
        ]
    };
    [
        // Both divisions end in the pass: v's after its eliminations so far and two, then
        // r1's (of lc t0) after two.
        log_division(trail, var("alpha"), var("lv"), var("elims") + Expr::u32(2)),
        log_division(trail, var("t0"), var("lv") - Expr::u32(1), Expr::u32(2)),
        vec![
            len("n1", var("lv") - Expr::u32(1)),
            len("n2", var("lv") - Expr::u32(2)),
            len("na1", max(var("la"), var("lc") + Expr::u32(1))),
            len("nb1", max(var("lb"), var("ld") + Expr::u32(1))),
            len("na2", max(var("lc"), var("na1") + Expr::u32(1))),
            len("nb2", max(var("ld"), var("nb1") + Expr::u32(1))),
            rows(
                Row::Remainders,
                ["u", "lu", "v", "lv"],
                ["w", "x", "n1", "n2"],
            ),
            rows(
                Row::CofactorsA,
                ["ua", "la", "va", "lc"],
                ["wa", "xa", "na1", "na2"],
            ),
            rows(
                Row::CofactorsB,
                ["ub", "lb", "vb", "ld"],
                ["wb", "xb", "nb1", "nb2"],
            ),
            Stmt::SyncThreads,
            Stmt::assign(var("lu"), var("n1")),
            Stmt::assign(var("lv"), var("n2")),
            Stmt::assign(var("la"), var("na1")),
            Stmt::assign(var("lb"), var("nb1")),
            Stmt::assign(var("lc"), var("na2")),
            Stmt::assign(var("ld"), var("nb2")),
        ],
        rotate(["u", "v", "w", "x"]),
        rotate(["ua", "va", "wa", "xa"]),
        rotate(["ub", "vb", "wb", "xb"]),
        vec![normalise("v", "lv")],
    ]
    .concat()
}

/// The body of [`EuclidPass::Window`](crate::euclid::EuclidPass::Window), or of
/// [`EuclidPass::TrailWindow`](crate::euclid::EuclidPass::TrailWindow) where it keeps a
/// `trail`.
pub(crate) fn window_body(trail: bool) -> Vec<Stmt> {
    [
        begin_round(),
        pairs("work", false),
        vec![
            Stmt::let_(Type::SizeT, "nu", pair_len("s", false)),
            Stmt::let_(Type::SizeT, "nv", pair_len("s", true)),
        ],
        on_trail(
            trail,
            vec![Stmt::let_(
                Type::SizeT,
                "logged",
                state_word(LehmerState::STEPS),
            )],
        ),
        take_window(),
        on_trail(
            trail,
            vec![
                Stmt::comment(
                    "the current division's eliminations: a division never spans two rounds",
                ),
                Stmt::let_(Type::U32, "elims", Expr::u32(0)),
            ],
        ),
        vec![
            Stmt::let_(Type::U32, "la", Expr::u32(1)),
            Stmt::let_(Type::U32, "lb", Expr::u32(1)),
            Stmt::let_(Type::U32, "lc", Expr::u32(1)),
            Stmt::let_(Type::U32, "ld", Expr::u32(1)),
        ],
        row_warps(),
        vec![
            Stmt::comment("a step divides by v only while deg v >= deg u - half (Lemma 11.3)"),
            Stmt::const_(
                Type::U32,
                "limit",
                Expr::select(var("full"), Expr::u32(1), var("half").cast(Type::U32)),
            ),
            Stmt::SyncThreads,
            Stmt::While {
                cond: var("lv").gt(var("limit")),
                body: if trail {
                    window_step(trail)
                } else {
                    vec![Stmt::if_else(
                        warp_steps_apply(),
                        warp_round(),
                        window_step(trail),
                    )]
                },
            },
        ],
        end_round(trail),
    ]
    .concat()
}

/// The window of the round: the pair's lengths normalised and put in order (u the
/// longer), the round ended where the sequence has (v constant or zero) or where the first
/// quotient is beyond the window (deg u − deg v > half), and otherwise the top 2·half + 1
/// coefficients of u and v from position `m` loaded ([`load_window`]).
fn take_window() -> Vec<Stmt> {
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
    [
        vec![
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
                Stmt::comment(
                    "the sequence has ended: u is the last remainder, or a constant divides both",
                ),
                Stmt::if_(
                    var("nv").equals(Expr::u64(1)),
                    vec![
                        Stmt::assign(var("U"), var("V")),
                        Stmt::assign(var("nu"), Expr::u64(1)),
                    ],
                ),
                copy_result("U", "nu"),
                set_status(
                    LehmerStatus::Done,
                    vec![Stmt::assign(state_word(LehmerState::RESULT_LEN), var("nu"))],
                ),
                Stmt::Return,
            ],
            ),
            Stmt::const_(Type::SizeT, "top", var("nu") - Expr::u64(1)),
            Stmt::const_(
                Type::Bool,
                "full",
                var("top").le(Expr::u64(2) * var("half")),
            ),
            Stmt::const_(
                Type::SizeT,
                "m",
                Expr::select(
                    var("full"),
                    Expr::u64(0),
                    var("top") - Expr::u64(2) * var("half"),
                ),
            ),
            Stmt::if_(
                var("full")
                    .logical_not()
                    .and_also((var("nv") - Expr::u64(1) + var("half")).lt(var("top"))),
                vec![
                    Stmt::comment(
                        "the first quotient has degree above half: the window cannot take it",
                    ),
                    set_status(LehmerStatus::Stalled, vec![]),
                    Stmt::Return,
                ],
            ),
        ],
        load_window(),
    ]
    .concat()
}

/// Where the window's rows end in shared memory ([`load_window`]'s layout: four rows of
/// 2·half + 1 remainders, eight of half + 1 cofactors): the warp's matrix N lies there.
pub(super) fn rows_end() -> Expr {
    var("smem")
        + Expr::u64(4) * (Expr::u64(2) * var("half") + Expr::u64(1))
        + Expr::u64(8) * (var("half") + Expr::u64(1))
}

/// The window's rows in shared memory: the top coefficients of u and v from position `m`,
/// in table form, and their cofactors of the pair as stored.
fn load_window() -> Vec<Stmt> {
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
    vec![
        shared("u", var("smem")),
        shared("v", var("u") + window.clone()),
        shared("w", var("v") + window.clone()),
        shared("x", var("w") + window.clone()),
        shared("ua", var("x") + window),
        shared("ub", var("ua") + cof.clone()),
        shared("va", var("ub") + cof.clone()),
        shared("vb", var("va") + cof.clone()),
        shared("wa", var("vb") + cof.clone()),
        shared("wb", var("wa") + cof.clone()),
        shared("xa", var("wb") + cof.clone()),
        shared("xb", var("xa") + cof),
        Stmt::let_(Type::U32, "lu", (var("nu") - var("m")).cast(Type::U32)),
        Stmt::let_(Type::U32, "lv", (var("nv") - var("m")).cast(Type::U32)),
        block_stride(
            var("lu"),
            vec![Stmt::store(
                var("u"),
                var("i"),
                fe::to_mont(fe::load(
                    var("U"),
                    var("m") + var("i").cast(Type::SizeT),
                    var("vstride"),
                )),
            )],
        ),
        block_stride(
            var("lv"),
            vec![Stmt::store(
                var("v"),
                var("i"),
                fe::to_mont(fe::load(
                    var("V"),
                    var("m") + var("i").cast(Type::SizeT),
                    var("vstride"),
                )),
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
    ]
}

/// The round's end after its steps: where the window was the whole pair, the last nonzero
/// remainder as the result; otherwise M, the cofactors, for the apply pass and the next
/// pair's lengths.
fn end_round(trail: bool) -> Vec<Stmt> {
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
    vec![
        Stmt::if_(
            var("full"),
            vec![
                Stmt::if_(
                    var("lv").equals(Expr::u32(1)),
                    vec![
                        Stmt::assign(var("u"), var("v")),
                        Stmt::assign(var("lu"), Expr::u32(1)),
                    ],
                ),
                store_result("u", var("lu")),
                set_status(
                    LehmerStatus::Done,
                    [
                        vec![Stmt::assign(
                            state_word(LehmerState::RESULT_LEN),
                            var("lu").cast(Type::U64),
                        )],
                        on_trail(
                            trail,
                            vec![Stmt::assign(state_word(LehmerState::STEPS), var("logged"))],
                        ),
                    ]
                    .concat(),
                ),
                Stmt::Return,
            ],
        ),
        Stmt::comment(
            "(r_i, r_(i+1)) = M·(U, V): the next pair's lengths and M for the apply pass",
        ),
        mat_row(0, "ua", "la"),
        mat_row(1, "ub", "lb"),
        mat_row(2, "va", "lc"),
        mat_row(3, "vb", "ld"),
        Stmt::if_(
            Expr::thread_idx().equals(Expr::u32(0)),
            [
                vec![
                    Stmt::assign(
                        pair_len("s1", false),
                        var("m") + var("lu").cast(Type::SizeT),
                    ),
                    Stmt::assign(
                        pair_len("s1", true),
                        var("m") + var("lu").cast(Type::SizeT) - Expr::u64(1),
                    ),
                    Stmt::assign(
                        state_word(LehmerState::cofactor(0)),
                        var("la").cast(Type::U64),
                    ),
                    Stmt::assign(
                        state_word(LehmerState::cofactor(1)),
                        var("lb").cast(Type::U64),
                    ),
                    Stmt::assign(
                        state_word(LehmerState::cofactor(2)),
                        var("lc").cast(Type::U64),
                    ),
                    Stmt::assign(
                        state_word(LehmerState::cofactor(3)),
                        var("ld").cast(Type::U64),
                    ),
                ],
                on_trail(
                    trail,
                    vec![Stmt::assign(state_word(LehmerState::STEPS), var("logged"))],
                ),
            ]
            .concat(),
        ),
    ]
}
