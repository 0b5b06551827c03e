//! The apply pass of a Lehmer round ([`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply)).

use super::{begin_round, max, pair_len, pairs, set_word, state_word, work_ptr, LehmerState};
use crate::cuda::{fe, Builtin, Dim, Expr, Stmt, Type};
use crate::euclid::{shared_ptr, var};

/// The body of [`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply): tiles of `blockDim.x`
/// output coefficients, each thread one coefficient of both new polynomials,
/// Σ_j M\[r\]\[j\]·U\[t − j\] + M\[r + 1\]\[j\]·V\[t − j\] over the tile's window of U and V in
/// shared memory; the blocks of y = 1, where the grid has them, alike over the pair of a's
/// cofactors in `cofs`.
pub(crate) fn apply_body() -> Vec<Stmt> {
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
    [
        begin_round(),
        vec![
            Stmt::const_(
                Type::Bool,
                "carried",
                Expr::Builtin(Builtin::BlockIdx, Dim::Y).equals(Expr::u32(1)),
            ),
            Stmt::let_(
                work_ptr(),
                "base",
                Expr::select(var("carried"), var("cofs"), var("work")),
            ),
        ],
        pairs("base", true),
        lengths(),
        vec![
            Stmt::comment("a block past the new pair's tiles has nothing to stage or sum"),
            Stmt::if_(
                (Expr::block_idx().cast(Type::SizeT) * Expr::block_dim().cast(Type::SizeT))
                    .ge(var("n1")),
                vec![Stmt::Return],
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
            tiles(),
        ],
    ]
    .concat()
}

/// The lengths a round reads and writes: the matrix's entries (`la` … `ld`, the longest
/// `K`), the pair's (`nu`, `nv`) and the new pair's (`n1u`, `n1v`, the longer `n1`).
fn lengths() -> Vec<Stmt> {
    // Where the rounds carry a's cofactors, the blocks of y = 1 multiply M into them:
    // lengths from the state, the products' bounds cut at `cap`, which a's cofactors never
    // outgrow (deg s_i < max(len a, len b), von zur Gathen–Gerhard Lemma 3.10).
    let carried = |word: fn(usize) -> usize, remainders: Expr| {
        Expr::select(var("carried"), set_word("s", word), remainders)
    };
    let product_len = |l: &str, n: &str| {
        Expr::select(
            var(n).equals(Expr::u64(0)),
            Expr::u64(0),
            var(l) + var(n) - Expr::u64(1),
        )
    };
    let cut = |l: Expr| Expr::select(l.clone().lt(var("cap")), l, var("cap"));
    let next_len = |name: &str, x: &str, y: &str, remainders: fn(usize) -> usize| {
        Stmt::const_(
            Type::SizeT,
            name,
            Expr::select(
                var("carried"),
                cut(max(product_len(x, "nu"), product_len(y, "nv"))),
                set_word("s1", remainders),
            ),
        )
    };
    vec![
        Stmt::const_(Type::SizeT, "la", state_word(LehmerState::cofactor(0))),
        Stmt::const_(Type::SizeT, "lb", state_word(LehmerState::cofactor(1))),
        Stmt::const_(Type::SizeT, "lc", state_word(LehmerState::cofactor(2))),
        Stmt::const_(Type::SizeT, "ld", state_word(LehmerState::cofactor(3))),
        Stmt::const_(
            Type::SizeT,
            "nu",
            carried(LehmerState::len_su, pair_len("s", false)),
        ),
        Stmt::const_(
            Type::SizeT,
            "nv",
            carried(LehmerState::len_sv, pair_len("s", true)),
        ),
        next_len("n1u", "la", "lb", LehmerState::len_u),
        next_len("n1v", "lc", "ld", LehmerState::len_v),
        Stmt::const_(Type::SizeT, "n1", max(var("n1u"), var("n1v"))),
        Stmt::if_(
            var("carried")
                .and_also(Expr::block_idx().equals(Expr::u32(0)))
                .and_also(Expr::thread_idx().equals(Expr::u32(0))),
            vec![
                Stmt::assign(set_word("s1", LehmerState::len_su), var("n1u")),
                Stmt::assign(set_word("s1", LehmerState::len_sv), var("n1v")),
            ],
        ),
        Stmt::const_(
            Type::SizeT,
            "K",
            max(max(var("la"), var("lb")), max(var("lc"), var("ld"))),
        ),
    ]
}

/// The loop over tiles of `blockDim.x` outputs: each tile stages its window of U and V
/// (`blockDim.x + K − 1` coefficients of each) in shared memory, and each thread sums the
/// K terms of its coefficient of both new polynomials.
fn tiles() -> Stmt {
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
    // M's entries are in table form, so each term is one `fe_dot_add`: for 32-bit primes
    // a widening product and two additions, the sum reduced once at the end — a quarter of
    // the instructions of the REDC and the modular sum each term took before.
    let term = |acc: &str, x: &str, y: &str| {
        Stmt::assign(
            var(acc),
            fe::dot_add(
                fe::dot_add(var(acc), var("a"), var(x).at(var("j"))),
                var("b"),
                var(y).at(var("j")),
            ),
        )
    };
    Stmt::For(crate::cuda::ForLoop {
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
                    Stmt::let_(Type::FeDot, "x", fe::dot_zero()),
                    Stmt::let_(Type::FeDot, "y", fe::dot_zero()),
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
                    Stmt::if_(
                        var("t").lt(var("n1u")),
                        vec![fe::store(
                            var("U1"),
                            var("t"),
                            var("vstride"),
                            fe::dot_value(var("x")),
                        )],
                    ),
                    Stmt::if_(
                        var("t").lt(var("n1v")),
                        vec![fe::store(
                            var("V1"),
                            var("t"),
                            var("vstride"),
                            fe::dot_value(var("y")),
                        )],
                    ),
                ],
            ),
        ],
    })
}
