//! Which threads of a Lehmer round's window take which of its rows: the remainders, and
//! the cofactors of each vector of the pair.

use super::{max, min};
use crate::cuda::{Expr, ForLoop, Stmt, Type};
use crate::euclid::var;

/// The window's three rows: the remainders u and v, and the cofactors of U and of V in
/// them (`ua`, `va`; `ub`, `vb`).
#[derive(Clone, Copy)]
pub(super) enum Row {
    Remainders,
    CofactorsA,
    CofactorsB,
}

/// Which warps take which row ([`row_loop`]). A step's three rows are independent, and a
/// thread taking all three ran their products one after another: on an H200 a window of
/// 469762049 at half 64 (five warps, 1.25 a scheduler) issued one instruction a warp
/// every 5.6 cycles, bound by the latency of that chain (bench/RESULTS.md, "GCD round
/// 9"). Where the block has three warps or more, the rows take warps of their own in
/// proportion to their lengths (2·half + 1 and half + 1 twice, 31 coefficients a warp:
/// see [`row_loop_lanes`]), so that a warp's chain is one row and the schedulers hold
/// more warps; with fewer (the host runs one thread) every thread takes every row.
pub(super) fn row_warps() -> Vec<Stmt> {
    let u32_ = |name: &str, value: Expr| Stmt::const_(Type::U32, name, value);
    let half = || var("half").cast(Type::U32);
    vec![
        u32_("warps", Expr::block_dim() / Expr::u32(32)),
        Stmt::const_(Type::Bool, "split", var("warps").ge(Expr::u32(3))),
        // a row's need of warps at 31 coefficients each, as `EuclidPass::threads` counts
        u32_(
            "rem_need",
            (Expr::u32(2) * half() + Expr::u32(31)) / Expr::u32(31),
        ),
        u32_("cof_need", (half() + Expr::u32(31)) / Expr::u32(31)),
        u32_(
            "cof_share",
            var("warps") * var("cof_need") / (var("rem_need") + Expr::u32(2) * var("cof_need")),
        ),
        u32_(
            "cof_warps",
            max(Expr::u32(1), min(var("cof_need"), var("cof_share"))),
        ),
        u32_("rem_warps", var("warps") - Expr::u32(2) * var("cof_warps")),
        u32_("warp", Expr::thread_idx() / Expr::u32(32)),
        u32_(
            "row",
            Expr::select(
                var("warp").lt(var("rem_warps")),
                Expr::u32(Row::Remainders as u32),
                Expr::select(
                    var("warp").lt(var("rem_warps") + var("cof_warps")),
                    Expr::u32(Row::CofactorsA as u32),
                    Expr::u32(Row::CofactorsB as u32),
                ),
            ),
        ),
        u32_(
            "row_first",
            Expr::select(
                var("row").equals(Expr::u32(Row::Remainders as u32)),
                Expr::u32(0),
                var("rem_warps") + (var("row") - Expr::u32(1)) * var("cof_warps"),
            ),
        ),
        u32_(
            "row_at",
            Expr::select(
                var("split"),
                Expr::thread_idx() - Expr::u32(32) * var("row_first"),
                Expr::thread_idx(),
            ),
        ),
        u32_(
            "row_by",
            Expr::select(
                var("split"),
                Expr::u32(32)
                    * Expr::select(
                        var("row").equals(Expr::u32(Row::Remainders as u32)),
                        var("rem_warps"),
                        var("cof_warps"),
                    ),
                Expr::block_dim(),
            ),
        ),
    ]
}

/// `for (i = row_at; i < end; i += row_by) body` on the threads that take `row`
/// ([`row_warps`]), none when the window is the whole pair and `row` is a cofactor's.
/// A row's first warp starts at coefficient 0, so that coefficient i − 1 is the lane
/// below's, as [`double_step`](super::window) needs.
pub(super) fn row_loop(row: Row, end: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::if_(
        takes(row),
        vec![Stmt::For(ForLoop {
            ty: Type::U32,
            var: "i".into(),
            start: var("row_at"),
            cond: var("i").lt(end),
            step: var("row_by"),
            unroll: None,
            body,
        })],
    )
}

/// Whether this thread takes `row` ([`row_warps`]): the cofactors only where the window
/// is not the whole pair.
pub(super) fn takes(row: Row) -> Expr {
    let takes = var("split")
        .logical_not()
        .or_else(var("row").equals(Expr::u32(row as u32)));
    match row {
        Row::Remainders => takes,
        Row::CofactorsA | Row::CofactorsB => takes.and_also(var("full").logical_not()),
    }
}

/// [`row_loop`] for the passes that take a coefficient from the lane below: slot t of
/// the row's threads takes coefficient i = 31·⌊t/32⌋ + t mod 32 − 1 (`lane0`, t mod 32 =
/// 0, takes the coefficient below its warp's 31 for lane 1 and stores nothing), and a
/// warp's lanes run the loop alike, all of them, as the shuffle needs. Lane 0 recomputing
/// its r1\[i − 1\] instead held the warp while the other 31 lanes waited.
pub(super) fn row_loop_lanes(row: Row, end: Expr, body: Vec<Stmt>) -> Stmt {
    let t = || var("t");
    let chunk = || t() / Expr::u32(32);
    let slot = vec![
        Stmt::const_(Type::U32, "i", t() - chunk() - Expr::u32(1)),
        Stmt::const_(
            Type::Bool,
            "lane0",
            (t() & Expr::u32(31)).equals(Expr::u32(0)),
        ),
    ];
    Stmt::if_(
        takes(row),
        vec![Stmt::For(ForLoop {
            ty: Type::U32,
            var: "t".into(),
            start: var("row_at"),
            cond: (chunk() * Expr::u32(31)).lt(end),
            step: var("row_by"),
            unroll: None,
            body: [slot, body].concat(),
        })],
    )
}
