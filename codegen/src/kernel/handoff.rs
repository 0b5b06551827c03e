//! Hand-offs between the passes of a plan: which groups of blocks of one pass a block of
//! the next waits for, and the order in which blocks start.

use super::bits::{assemble, or_constant, Bit};
use super::tile::Tile;
use crate::cuda::{Builtin, Dim, Expr, Stmt, Type};
use crate::plan::{KernelPlan, Plan};

/// One bit of a hand-off group (see [`Handoff`]): the writer's block-index bit and the
/// reader's bits that name the same group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupBit {
    /// The writer's block-index bit.
    pub(super) writer: u32,
    /// The reader's block-index bit that reads the same address bit.
    pub(super) raw: u32,
    /// The reader's block-index bit that writes the address bit the writer read it from
    /// (equal to `raw` when the reader does not write the writer's source).
    pub(super) war: u32,
}

/// How a kernel's blocks wait for those of the kernel before it, group by group instead of
/// the whole grid, so that a pass starts on the tiles whose sources are ready while the
/// pass before it drains.
///
/// A block owns the addresses whose block bits it fixes: the writer's block b writes the
/// addresses with its bits at `dest[block_bits]`, the reader's block b' reads those with its
/// bits at `block_bits`. A writer bit is a group bit when the reader fixes the same address
/// bit (then every writer of b'’s tile agrees with b' there) and, where the reader writes
/// the buffer the writer reads (write after read), the reader's block also fixes the address
/// bit the writer read it from. A reader waits for the group named by its `raw` bits (the
/// writers of what it reads) and the one named by its `war` bits (the writers still reading
/// what it overwrites); every other writer bit is free within a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Handoff {
    /// Group bit t, least significant first.
    pub(super) bits: Vec<GroupBit>,
    /// Writer blocks per group.
    pub(super) writers: u64,
}

impl Handoff {
    /// The hand-off from writer `w` (tile `wt`) to reader `r` (tile `rt`), which reads the
    /// buffer `w` writes.
    pub(super) fn between(w: &KernelPlan, wt: &Tile, r: &KernelPlan, rt: &Tile) -> Handoff {
        let overwrites = r.hop.dst() == w.hop.src();
        let mut bits = Vec::new();
        for (l, &q) in wt.block_bits.iter().enumerate() {
            let reads = |&x: &u32| x == w.dest[q as usize];
            let Some(raw) = rt.block_bits.iter().position(reads) else {
                continue;
            };
            let war = if overwrites {
                match rt.block_bits.iter().position(|&x| r.dest[x as usize] == q) {
                    Some(war) => war,
                    None => continue,
                }
            } else {
                raw
            };
            bits.push(GroupBit {
                writer: l as u32,
                raw: raw as u32,
                war: war as u32,
            });
        }
        let writers = 1u64 << (wt.block_bits.len() - bits.len());
        Handoff { bits, writers }
    }

    /// Groups per transform.
    pub(super) fn groups(&self) -> u64 {
        1 << self.bits.len()
    }

    /// The group, from the block-index bits that `side` picks.
    pub(super) fn group(&self, side: impl Fn(&GroupBit) -> u32) -> Expr {
        let bits: Vec<Bit> = self.bits.iter().map(|b| Bit::Of("blk", side(b))).collect();
        let (c, e) = assemble(&bits, Type::SizeT);
        or_constant(c, e, &Type::SizeT)
    }
}

/// A kernel's part in the hand-offs of its plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Handoffs {
    /// The hand-off from the kernel before, and the first counter of its groups (per
    /// transform of a batch).
    pub(super) wait: Option<(Handoff, u64)>,
    /// The hand-off to the kernel after, and the first counter of its groups.
    pub(super) signal: Option<(Handoff, u64)>,
    /// Block-index bit l is bit `dispatch[l]` of `blockIdx.x`.
    pub(super) dispatch: Vec<u32>,
    /// The counters of all the plan's hand-offs, per transform of a batch.
    pub(super) total: u64,
}

impl Handoffs {
    /// The hand-offs of a plan's kernels (`tiles`: theirs); none unless `hand_off`, and
    /// then the blocks start in index order.
    pub(super) fn of(plan: &Plan, tiles: &[Tile], hand_off: bool) -> Vec<Handoffs> {
        let ks = &plan.kernels;
        let mut out: Vec<Handoffs> = vec![Handoffs::default(); ks.len()];
        let mut base = 0;
        for i in (1..ks.len()).filter(|_| hand_off) {
            let h = Handoff::between(&ks[i - 1], &tiles[i - 1], &ks[i], &tiles[i]);
            let groups = h.groups();
            out[i - 1].signal = Some((h.clone(), base));
            out[i].wait = Some((h, base));
            base += groups;
        }
        for (h, t) in out.iter_mut().zip(tiles) {
            h.dispatch = h.dispatch_order(t.block_bits.len() as u32);
            h.total = base;
        }
        out
    }

    /// The order in which blocks start (the hardware starts them in `blockIdx.x` order),
    /// most significant bit first: the top bit of the group the block waits for, so that
    /// the first blocks need only the groups that the kernel before completed first; then
    /// the bits of the group it signals, so that its groups complete one after another and
    /// the next kernel can start on them while this one drains; then the rest of its wait
    /// group, then the other bits, high to low (neighbouring blocks keep neighbouring
    /// addresses).
    pub(super) fn dispatch_order(&self, bits: u32) -> Vec<u32> {
        let mut order: Vec<u32> = Vec::new();
        let push = |b: u32, order: &mut Vec<u32>| {
            if !order.contains(&b) {
                order.push(b);
            }
        };
        let waits: Vec<u32> = self
            .wait
            .iter()
            .flat_map(|(h, _)| h.bits.iter().rev().map(|b| b.raw))
            .collect();
        if let Some(&top) = waits.first() {
            push(top, &mut order);
        }
        if let Some((h, _)) = &self.signal {
            for b in h.bits.iter().rev() {
                push(b.writer, &mut order);
            }
        }
        for &b in &waits {
            push(b, &mut order);
        }
        for b in (0..bits).rev() {
            push(b, &mut order);
        }
        let mut dispatch = vec![0; bits as usize];
        for (rank, &b) in order.iter().enumerate() {
            dispatch[b as usize] = bits - 1 - rank as u32;
        }
        dispatch
    }
}

/// `blockIdx.y` as a `size_t`: the transform of a batch a block works on.
pub(super) fn transform_index() -> Expr {
    Expr::Builtin(Builtin::BlockIdx, Dim::Y).cast(Type::SizeT)
}

impl Handoffs {
    /// The start of a kernel's body: its block index `blk` in the dispatch order.
    pub(super) fn block_index(&self) -> Vec<Stmt> {
        let identity = self
            .dispatch
            .iter()
            .enumerate()
            .all(|(l, &d)| d == l as u32);
        let blk = if identity {
            Expr::block_idx().cast(Type::SizeT)
        } else {
            let bits: Vec<Bit> = self.dispatch.iter().map(|&d| Bit::Of("bid", d)).collect();
            let (c, e) = assemble(&bits, Type::SizeT);
            // The order only serves the hand-offs (epoch 0 waits for whole passes).
            Expr::select(
                Expr::var("epoch").equals(Expr::u32(0)),
                Expr::var("bid"),
                or_constant(c, e, &Type::SizeT),
            )
        };
        let mut body = Vec::new();
        if !identity {
            body.push(Stmt::const_(
                Type::SizeT,
                "bid",
                Expr::block_idx().cast(Type::SizeT),
            ));
        }
        body.push(Stmt::const_(Type::SizeT, "blk", blk));
        body
    }

    /// The counters of a hand-off's groups, from `base`, for this block's transform.
    fn counters(&self, base: u64) -> Expr {
        Expr::var("flags") + (transform_index() * Expr::u64(self.total) + Expr::u64(base))
    }

    /// How a kernel waits for the pass before it.
    pub(super) fn wait(&self) -> Vec<Stmt> {
        let Some((h, base)) = &self.wait else {
            // The first pass of a call reads nothing before the grid before it on the
            // stream, whatever it is, has ended; it may be launched to start while that
            // grid drains.
            return vec![
                Stmt::Expr(Expr::call("fe_grid_wait", [])),
                Stmt::Expr(Expr::call("fe_grid_release", [])),
            ];
        };
        // Launched right after the previous pass, this grid may start while that one
        // drains: it lets the next pass launch, then waits for the groups of the previous
        // pass that write what it reads and read what it overwrites (epoch 0: for the whole
        // previous pass).
        let mut groups = vec![Stmt::const_(
            Type::ptr(Type::U32),
            "waits",
            self.counters(*base),
        )];
        let target = Expr::var("epoch") * Expr::u32(h.writers as u32);
        let raw = h.group(|b| b.raw);
        let war = h.group(|b| b.war);
        let same = h.bits.iter().all(|b| b.raw == b.war);
        groups.push(Stmt::Expr(Expr::call(
            "fe_tile_wait",
            [Expr::var("waits") + raw, target.clone()],
        )));
        if !same {
            groups.push(Stmt::Expr(Expr::call(
                "fe_tile_wait",
                [Expr::var("waits") + war, target],
            )));
        }
        vec![
            Stmt::Expr(Expr::call("fe_grid_release", [])),
            Stmt::if_else(
                Expr::var("epoch").equals(Expr::u32(0)),
                vec![Stmt::Expr(Expr::call("fe_grid_wait", []))],
                groups,
            ),
        ]
    }

    /// The end of a kernel's body: its signal to the pass after it, and, where it waited on
    /// groups, its wait for the whole pass before.
    pub(super) fn epilogue(&self) -> Vec<Stmt> {
        let mut body = Vec::new();
        if let Some((h, base)) = &self.signal {
            let group = h.group(|b| b.writer);
            body.push(Stmt::if_(
                Expr::var("epoch").not_equals(Expr::u32(0)),
                vec![Stmt::Expr(Expr::call(
                    "fe_tile_signal",
                    [self.counters(*base) + group],
                ))],
            ));
        }
        if self.wait.is_some() {
            // A pass that waited on groups ends only after the whole previous pass: so the
            // last pass ends after every pass of the plan, as work later on the stream
            // expects.
            body.push(Stmt::Expr(Expr::call("fe_grid_wait", [])));
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_start_with_their_wait_group_top_then_their_signal_group() {
        let bit = |writer, raw| GroupBit {
            writer,
            raw,
            war: raw,
        };
        let wait = Handoff {
            bits: vec![bit(4, 0), bit(5, 1), bit(6, 2)],
            writers: 8,
        };
        let signal = Handoff {
            bits: vec![bit(5, 0), bit(6, 0)],
            writers: 64,
        };
        let h = Handoffs {
            wait: Some((wait, 0)),
            signal: Some((signal, 8)),
            dispatch: Vec::new(),
            total: 12,
        };
        let d = h.dispatch_order(8);
        // Most significant first: 2 (the wait group's top), 6 and 5 (the signal group),
        // 1 and 0 (the rest of the wait group), then 7, 4, 3.
        assert_eq!(d, vec![3, 4, 7, 0, 1, 5, 6, 2]);
        let mut sorted = d.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<u32>>());
        assert_eq!(Handoffs::default().dispatch_order(3), vec![0, 1, 2]);
    }
}
