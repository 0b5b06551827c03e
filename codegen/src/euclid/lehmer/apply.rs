//! The apply pass of a Lehmer round ([`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply)).

use super::{max, pair_len, pairs, state, status_running, LehmerState};
use crate::cuda::{fe, Expr, Stmt, Type};
use crate::euclid::{shared_ptr, var};

/// The body of [`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply): tiles of `blockDim.x`
/// output coefficients, each thread one coefficient of both new polynomials,
/// Σ_j M\[r\]\[j\]·U\[t − j\] + M\[r + 1\]\[j\]·V\[t − j\] over the tile's window of U and V in
/// shared memory.
pub(crate) fn apply_body() -> Vec<Stmt> {
    let st = |i: usize| state(Expr::u64(i as u64));
    let cof = || var("half") + Expr::u64(1);
    let shared = |name: &str, at: Expr| Stmt::let_(shared_ptr(), name, at);
    let row = |name: &str, r: u64, len: &str| {
        Stmt::store(
            var(name),
            var("j"),
            Expr::select(
                var("j").lt(var(len)),
                fe::load(var("mat") + Expr::u64(r) * cof(), var("j"), var("mstride")),
                fe::zero(),
            ),
        )
    };
    let stage = |to: &str, from: &str, len: &str| {
        Stmt::store(
            var(to),
            var("i"),
            Expr::select(
                var("e")
                    .ge(var("K") - Expr::u64(1))
                    .and_also((var("e") - (var("K") - Expr::u64(1))).lt(var(len))),
                fe::load(
                    var(from),
                    var("e") - (var("K") - Expr::u64(1)),
                    var("vstride"),
                ),
                fe::zero(),
            ),
        )
    };
    let term = |acc: &str, x: &str, y: &str| {
        Stmt::assign(
            var(acc),
            fe::add(
                var(acc),
                fe::add(
                    fe::mul_mont(var("a"), var(x).at(var("j"))),
                    fe::mul_mont(var("b"), var(y).at(var("j"))),
                ),
            ),
        )
    };
    let tile = crate::cuda::ForLoop {
        ty: Type::SizeT,
        var: "t0".into(),
        start: Expr::block_idx().cast(Type::SizeT) * Expr::block_dim().cast(Type::SizeT),
        cond: var("t0").lt(var("n1")),
        step: Expr::grid_dim().cast(Type::SizeT) * Expr::block_dim().cast(Type::SizeT),
        unroll: None,
        body: vec![
            Stmt::comment("the previous tile's window is read (and, the first time, M is staged)"),
            Stmt::SyncThreads,
            Stmt::block_stride_loop(
                "i",
                Type::SizeT,
                Expr::block_dim().cast(Type::SizeT) + var("K") - Expr::u64(1),
                vec![
                    Stmt::const_(Type::SizeT, "e", var("t0") + var("i")),
                    stage("su", "U", "nu"),
                    stage("sv", "V", "nv"),
                ],
            ),
            Stmt::SyncThreads,
            Stmt::const_(
                Type::SizeT,
                "t",
                var("t0") + Expr::thread_idx().cast(Type::SizeT),
            ),
            Stmt::if_(
                var("t").lt(var("n1")),
                vec![
                    Stmt::let_(Type::Fe, "x", fe::zero()),
                    Stmt::let_(Type::Fe, "y", fe::zero()),
                    Stmt::For(
                        crate::cuda::ForLoop::range("j", Type::SizeT, Expr::u64(0), var("K")).body(
                            vec![
                                Stmt::const_(
                                    Type::SizeT,
                                    "w",
                                    Expr::thread_idx().cast(Type::SizeT) + var("K")
                                        - Expr::u64(1)
                                        - var("j"),
                                ),
                                Stmt::const_(Type::Fe, "a", var("su").at(var("w"))),
                                Stmt::const_(Type::Fe, "b", var("sv").at(var("w"))),
                                term("x", "ma", "mb"),
                                term("y", "mc", "md"),
                            ],
                        ),
                    ),
                    fe::store(var("U1"), var("t"), var("vstride"), var("x")),
                    Stmt::if_(
                        (var("t") + Expr::u64(1)).lt(var("n1")),
                        vec![fe::store(var("V1"), var("t"), var("vstride"), var("y"))],
                    ),
                ],
            ),
        ],
    };
    [
        vec![status_running()],
        pairs(true),
        vec![
            Stmt::const_(Type::SizeT, "nu", pair_len("s", false)),
            Stmt::const_(Type::SizeT, "nv", pair_len("s", true)),
            Stmt::const_(Type::SizeT, "n1", pair_len("s1", false)),
            Stmt::const_(Type::SizeT, "la", st(LehmerState::cofactor(0))),
            Stmt::const_(Type::SizeT, "lb", st(LehmerState::cofactor(1))),
            Stmt::const_(Type::SizeT, "lc", st(LehmerState::cofactor(2))),
            Stmt::const_(Type::SizeT, "ld", st(LehmerState::cofactor(3))),
            Stmt::const_(
                Type::SizeT,
                "K",
                max(max(var("la"), var("lb")), max(var("lc"), var("ld"))),
            ),
            shared("ma", var("smem")),
            shared("mb", var("ma") + cof()),
            shared("mc", var("mb") + cof()),
            shared("md", var("mc") + cof()),
            shared("su", var("md") + cof()),
            shared(
                "sv",
                var("su") + Expr::block_dim().cast(Type::SizeT) + var("half"),
            ),
            Stmt::block_stride_loop(
                "j",
                Type::SizeT,
                var("K"),
                vec![
                    row("ma", 0, "la"),
                    row("mb", 1, "lb"),
                    row("mc", 2, "lc"),
                    row("md", 3, "ld"),
                ],
            ),
            Stmt::For(tile),
        ],
    ]
    .concat()
}
