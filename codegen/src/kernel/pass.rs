//! One kernel of a plan: its hand-off prologue and epilogue, the gather of its tile, its
//! rounds, and the scatter.

use super::bits::Bit;
use super::handoff::transform_index;
use super::handoff::Handoffs;
use super::occupancy::blocks_for_registers;
use super::round::{lane_bits, RoundLayout, RoundSteps};
use super::swizzle::Swizzle;
use super::tile::{Ptr, Tile};
use super::twiddle::Constant;
use super::{EmitOptions, Emitter, MidLayout};
use crate::contract::Launch;
use crate::cuda::{fe, Expr, Kernel, SharedArray, Stmt, Table, Type};
use crate::error::CodegenError;
use crate::plan::{BitSource, KernelPlan, Step};
use fermat_dsl::field::Field;

impl<F: Field> Emitter<'_, F> {
    /// The kernel of plan kernel `k` over `tile` (its pieces chosen by [`Tile::new`]) and
    /// its launch: the hand-off prologue, the gather, one round per DFT step, the scatter
    /// and the hand-off epilogue. Codelet tables the rounds read are added to `tables`.
    pub(super) fn kernel(
        &self,
        k: &KernelPlan,
        tile: Tile,
        name: &str,
        options: &EmitOptions,
        handoffs: &Handoffs,
        tables: &mut Vec<Table>,
    ) -> Result<(Kernel, Launch), CodegenError> {
        let mut body = handoffs.block_index();
        body.extend(self.vectors(k));
        body.extend(handoffs.wait());
        let pass = self.pass_body(k, tile, (name, tables), options, Scatter::Store);
        body.extend(pass.body);
        body.extend(handoffs.epilogue());
        Ok(self.declare(k, &pass.tile, name, handoffs, body, pass.uses_tile))
    }

    /// The work of plan kernel `k` on one block's tile, between the vectors' set-up and the
    /// hand-offs: the gather from `in`, one round per DFT step, and the scatter to `out`
    /// as `scatter` says. Codelet tables the rounds read are named after `name`.
    pub(super) fn pass_body(
        &self,
        k: &KernelPlan,
        tile: Tile,
        (name, tables): (&str, &mut Vec<Table>),
        options: &EmitOptions,
        scatter: Scatter,
    ) -> PassBody {
        let (mut rounds, unfused) = Self::rounds(k);
        let (tile, layouts) = self.arrange(k, tile, &rounds, options);
        if self.first_round_reads_source(k, &tile, &rounds, &layouts) {
            rounds[0].reads_source = true;
        }
        let mut body = Vec::new();
        let mut tmp = 0u32;
        // Bit sources while a whole tile index `i` is known at run time.
        let tile_bit = |src: BitSource| match src {
            BitSource::Local(c) => Bit::Of("i", c),
            BitSource::Piece(c) => tile.piece_bit(c),
        };
        let uses_tile = !rounds.is_empty();
        if uses_tile {
            if !rounds[0].reads_source {
                body.extend(self.load_phase(k, &tile, &[], &mut tmp));
            }
            for (round, layout) in rounds.iter().zip(&layouts) {
                body.extend(self.round(k, round, layout, &tile, (name, tables), &mut tmp));
            }
            body.extend(self.store_phase(k, &tile, &[], &mut tmp, &tile_bit, scatter));
        } else {
            // No DFT round: the tile goes straight from global memory to global memory.
            body.extend(self.store_phase(k, &tile, &unfused, &mut tmp, &tile_bit, Scatter::Direct));
        }
        PassBody {
            tile,
            body,
            uses_tile,
        }
    }

    /// Whether the first round of `rounds` reads the source itself rather than a gathered
    /// tile: where the tile is the whole transform in one block, each tile index the
    /// element's address ([`Tile::is_whole`]), the gather's only work is to hand the first
    /// round its inputs, and the round reads them as the gather would — coalesced where
    /// the lanes of a warp take the tile's lowest bits. That saves the tile a crossing of
    /// stores, loads and a barrier (bench/RESULTS.md, "Batch round 5"). A fused product's
    /// inverse reads `mid`, laid out as its tile ([`MidLayout::Reads`]), wherever its
    /// lanes fall; any other pass of a single round keeps its gather.
    fn first_round_reads_source(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        rounds: &[RoundSteps<'_>],
        layouts: &[RoundLayout],
    ) -> bool {
        let (Some(first), Some(layout)) = (rounds.first(), layouts.first()) else {
            return false;
        };
        if let MidLayout::Reads = self.mid {
            debug_assert!(tile.is_whole(k), "mid is laid out as a whole tile");
            return true;
        }
        let lanes = lane_bits(tile, first.locals);
        let coalesced = layout
            .free
            .iter()
            .take(lanes as usize)
            .copied()
            .eq(0..lanes);
        tile.is_whole(k) && rounds.len() > 1 && coalesced
    }

    /// `tile` as plan kernel `k`'s pass arranges it for its rounds ([`Self::arrange`]).
    pub(super) fn arranged(&self, k: &KernelPlan, tile: Tile, options: &EmitOptions) -> Tile {
        let (rounds, _) = Self::rounds(k);
        self.arrange(k, tile, &rounds, options).0
    }

    /// The threads of `tile` (one per codelet of its widest round, at most the options'
    /// limit), the layout of each of `rounds` and the tile's shared-memory map for them.
    fn arrange(
        &self,
        k: &KernelPlan,
        mut tile: Tile,
        rounds: &[RoundSteps<'_>],
        options: &EmitOptions,
    ) -> (Tile, Vec<RoundLayout>) {
        let word_bytes = self.word_bits() as u64 / 8;
        let size = tile.size();
        let groups_max = rounds
            .iter()
            .map(|r| size >> r.locals.len())
            .max()
            .unwrap_or(size);
        tile.threads = groups_max.clamp(1, options.max_threads as u64) as u32;
        let layouts: Vec<RoundLayout> =
            rounds.iter().map(|r| self.round_layout(r, &tile)).collect();
        let shapes: Vec<(&[u32], &[u32])> = rounds
            .iter()
            .zip(&layouts)
            .map(|(r, l)| (r.locals, l.free.as_slice()))
            .collect();
        tile.swizzle = Swizzle::choose(
            &tile.warp_accesses(&shapes, &self.store_order(k, &tile)),
            tile.s + tile.pb,
            word_bytes,
            self.shape.element_bytes / word_bytes,
            options.shared_limit / self.shape.element_bytes,
        );
        (tile, layouts)
    }

    /// The `__global__` function around `body` and its launch: the transform kernel's
    /// parameters, its launch bounds, and the tile in shared memory where it has rounds.
    fn declare(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        name: &str,
        handoffs: &Handoffs,
        body: Vec<Stmt>,
        uses_tile: bool,
    ) -> (Kernel, Launch) {
        let word_bytes = self.word_bits() as u64 / 8;
        let threads = tile.threads;
        let mut kernel = Kernel::new(name, self.args.iter().map(|a| a.param()).collect(), body)
            .doc(format!(
                "{} pieces of 2^{} elements ({} per block), {} steps",
                k.pieces(),
                tile.s,
                1u64 << tile.pb,
                k.steps.len()
            ));
        kernel = match self.register_cap(k) {
            Some(regs) => kernel.launch_bounds_min(threads, blocks_for_registers(threads, regs)),
            None => kernel.launch_bounds(threads),
        };
        let shared_bytes = if uses_tile {
            let words = tile.words() * (self.shape.element_bytes / word_bytes);
            kernel = kernel.shared(SharedArray::new(Type::Word, "tile", words));
            tile.words() * self.shape.element_bytes
        } else {
            0
        };
        let launch = Launch {
            kernel: name.to_string().into(),
            blocks: 1u64 << (k.log_n - tile.s - tile.pb),
            threads,
            shared_bytes,
            pieces_per_block: 1 << tile.pb,
            hop: k.hop,
            signals: handoffs.signal.as_ref().map_or(0, |(h, _)| h.groups()),
            args: self.args,
        };
        (kernel, launch)
    }

    /// Where this block's transform finds its vectors: `in` and `out` (a batch's
    /// transforms one after another, or parts of a vector of polynomials where the kernel
    /// reads a short input or writes a short output, with `in_len` and `out_len` elements
    /// to read and write), and `opb`, its operand, for a pointwise product.
    fn vectors(&self, k: &KernelPlan) -> Vec<Stmt> {
        let batch = Expr::var("batch");
        let mut out = vec![Stmt::const_(
            Type::SizeT,
            "batch",
            transform_index() * Expr::u64(self.n) * Expr::var("FE_WORDS").cast(Type::SizeT),
        )];
        let (in_base, out_base) = (
            if k.io.short_input {
                part("src").0
            } else {
                batch.clone()
            },
            if k.io.short_output {
                part("dst").0
            } else {
                batch
            },
        );
        out.push(Stmt::let_(
            Type::const_ptr(Type::Word),
            "in",
            Expr::var("src") + in_base,
        ));
        out.push(Stmt::let_(
            Type::ptr(Type::Word),
            "out",
            Expr::var("dst") + out_base,
        ));
        if k.io.short_input {
            out.push(Stmt::const_(Type::SizeT, "in_len", part("src").1));
        }
        if k.io.short_output {
            out.push(Stmt::const_(Type::SizeT, "out_len", part("dst").1));
        }
        if k.io.pointwise {
            out.push(Stmt::let_(
                Type::const_ptr(Type::Word),
                "opb",
                Expr::var("op") + Expr::var("op_dist") * Expr::var("batch"),
            ));
        }
        out
    }

    /// Element `off` of the source at `ptr`, as the kernel's first pass reads it: zero
    /// beyond a short source, times the operand's element for a pointwise product.
    pub(super) fn read_source(
        &self,
        k: &KernelPlan,
        ptr: Expr,
        off: Expr,
        op: Option<Expr>,
    ) -> Expr {
        let stride = if k.io.short_input {
            Expr::var("src_stride")
        } else {
            Expr::u64(self.n)
        };
        let mut value = fe::load(ptr.clone(), off.clone(), stride);
        if k.io.short_input {
            let index = offset_in(ptr, "in", off.clone());
            value = Expr::select(index.lt(Expr::var("in_len")), value, fe::zero());
        }
        if let Some(op) = op.filter(|_| k.io.pointwise) {
            value = self.multiply(self.pointwise, value, fe::load(op, off, Expr::u64(self.n)));
        }
        value
    }

    /// The operand a pointwise product's first pass multiplies its source by (`opb`).
    pub(super) fn operand(&self, k: &KernelPlan) -> Option<Expr> {
        k.io.pointwise.then(|| Expr::var("opb"))
    }

    /// The pointwise product a·b as `pointwise` says.
    pub(super) fn multiply(&self, pointwise: Pointwise, a: Expr, b: Expr) -> Expr {
        match pointwise {
            Pointwise::Exact => fe::mul(a, b),
            // REDC(REDC(a·b)·t) = a·b·t/R²: the scaling rides on the second reduction.
            Pointwise::Scaled(t) => self.apply_constant(fe::mul_mont(a, b), Constant::Literal(t)),
            Pointwise::Reduced => fe::mul_mont(a, b),
        }
    }

    /// Stores `value` as element `off` of the destination at `ptr` (only below a short
    /// destination's length), or, where `scatter` says so, multiplies the element there by
    /// it.
    fn write_destination(
        &self,
        k: &KernelPlan,
        (ptr, off): (Expr, Expr),
        value: Expr,
        scatter: Scatter,
    ) -> Stmt {
        // A whole vector's digits are n words apart, `mid`'s as its slots say.
        let stride = match &self.mid {
            MidLayout::Writes(_, words) => Expr::u64(*words),
            _ => Expr::u64(self.n),
        };
        if let Scatter::MultiplyInto(pointwise) = scatter {
            let other = fe::load(ptr.clone(), off.clone(), stride.clone());
            let product = self.multiply(pointwise, value, other);
            return fe::store(ptr, off, stride, product);
        }
        if !k.io.short_output {
            return fe::store(ptr, off, stride, value);
        }
        let index = offset_in(ptr.clone(), "out", off.clone());
        Stmt::if_(
            index.lt(Expr::var("out_len")),
            vec![fe::store(ptr, off, Expr::var("dst_stride"), value)],
        )
    }

    pub(super) fn load_phase(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        pending: &[&Step],
        tmp: &mut u32,
    ) -> Vec<Stmt> {
        let identity: Vec<u32> = (0..k.log_n).collect();
        let mut ptrs = vec![Ptr {
            base: "in",
            written: false,
            restrict: self.restrict,
            dest: &identity,
            slots: None,
        }];
        if k.io.pointwise {
            ptrs.push(Ptr {
                base: "opb",
                written: false,
                restrict: true,
                dest: &identity,
                slots: None,
            });
        }
        let nest = self.tile_visit(tile, &tile.bits, &ptrs);
        let bit_of = |src: BitSource| match src {
            BitSource::Local(c) => Bit::Of("i", c),
            BitSource::Piece(c) => tile.piece_bit(c),
        };
        let mut inner = nest.head.clone();
        let (ptr, off) = nest.global[0].clone();
        let op = nest.global.get(1).map(|(p, _)| p.clone());
        let loaded = self.read_source(k, ptr, off, op);
        let v = self.fused(loaded, pending, &bit_of, &mut inner, tmp);
        inner.push(fe::store(
            Expr::var("tile"),
            nest.slot.clone(),
            Expr::u64(tile.words()),
            v,
        ));
        vec![
            Stmt::comment("gather the tile"),
            nest.wrap(inner),
            Stmt::sync(),
        ]
    }

    pub(super) fn store_order(&self, k: &KernelPlan, tile: &Tile) -> Vec<(u32, u32)> {
        // Visit the tile in the order of the destination addresses, so that stores of
        // consecutive threads are adjacent where the scatter map allows.
        let mut order = tile.bits.clone();
        order.sort_by_key(|&(phys, _)| k.dest[phys as usize]);
        order
    }

    /// The last phase: each element, with the pending twiddles applied, goes to its scatter
    /// address. It comes from the tile, or — in a kernel without DFT rounds
    /// ([`Scatter::Direct`]) — straight from global memory.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_phase(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        pending: &[&Step],
        tmp: &mut u32,
        bit_of: &dyn Fn(BitSource) -> Bit,
        scatter: Scatter,
    ) -> Vec<Stmt> {
        let from_tile = scatter != Scatter::Direct;
        let order = self.store_order(k, tile);
        let identity: Vec<u32> = (0..k.log_n).collect();
        let mut ptrs = vec![Ptr {
            base: "out",
            written: true,
            restrict: self.restrict,
            dest: &k.dest,
            slots: match &self.mid {
                MidLayout::Writes(slots, _) => Some(slots),
                _ => None,
            },
        }];
        if !from_tile {
            ptrs.push(Ptr {
                base: "in",
                written: false,
                restrict: self.restrict,
                dest: &identity,
                slots: None,
            });
            if k.io.pointwise {
                ptrs.push(Ptr {
                    base: "opb",
                    written: false,
                    restrict: true,
                    dest: &identity,
                    slots: None,
                });
            }
        }
        let nest = self.tile_visit(tile, &order, &ptrs);
        let mut inner = nest.head.clone();
        let loaded = if from_tile {
            fe::load(
                Expr::var("tile"),
                nest.slot.clone(),
                Expr::u64(tile.words()),
            )
        } else {
            let (ptr, off) = nest.global[1].clone();
            let op = nest.global.get(2).map(|(p, _)| p.clone());
            self.read_source(k, ptr, off, op)
        };
        let v = self.fused(loaded, pending, bit_of, &mut inner, tmp);
        let (ptr, off) = nest.global[0].clone();
        inner.push(self.write_destination(k, (ptr, off), v, scatter));
        vec![
            Stmt::comment(if from_tile {
                "scatter the tile"
            } else {
                "permute and scale"
            }),
            nest.wrap(inner),
        ]
    }
}

/// Where this block's transform finds its part of a vector of polynomials whose arguments
/// are named `{prefix}_dist`, `{prefix}_limit` and `{prefix}_len`: the part's first element
/// and its length (none where the vector ends before it).
pub(super) fn part(prefix: &str) -> (Expr, Expr) {
    let v = |name: &str| Expr::var(format!("{prefix}_{name}"));
    let base = transform_index() * v("dist");
    let left = Expr::select(
        base.clone().lt(v("limit")),
        v("limit") - base.clone(),
        Expr::u64(0),
    );
    let len = Expr::select(v("len").lt(left.clone()), v("len"), left);
    (base, len)
}

/// The index in the vector `base` of element `off` at `ptr`, a pointer into it.
fn offset_in(ptr: Expr, base: &str, off: Expr) -> Expr {
    match ptr == Expr::var(base) {
        true => off,
        false => (ptr - Expr::var(base)).cast(Type::SizeT) + off,
    }
}

/// How a pass's last phase writes its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scatter {
    /// From the tile to the destination.
    Store,
    /// From the tile, multiplying the destination's element in place as `Pointwise`
    /// says: the second forward transform of a fused or middle product
    /// ([`super::product`], [`super::middle`]).
    MultiplyInto(Pointwise),
    /// From the source to the destination, without a tile: a pass without DFT rounds.
    Direct,
}

/// How a product multiplies its two transforms element by element — as the inverse's
/// first pass reads, or as a fused or middle kernel's second transform writes (word primes
/// reduce by R = 2^32 or 2^64 in every Montgomery product; SRGFNs take only `Exact`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pointwise {
    /// a·b (`fe_mul`).
    Exact,
    /// a·b·t/R² for the table-form word t, in the reduction that `fe_mul` spends on R²
    /// alone: t = R²/n takes the inverse's 1/n with it.
    Scaled(u64),
    /// a·b/R, one reduction: the inverse transform's rounds multiply by R/n.
    Reduced,
}

/// A pass's statements on one block's tile ([`Emitter::pass_body`]).
pub(super) struct PassBody {
    /// The tile, its threads and swizzle arranged for the rounds.
    pub(super) tile: Tile,
    pub(super) body: Vec<Stmt>,
    /// Whether the pass keeps its tile in shared memory (it has DFT rounds).
    pub(super) uses_tile: bool,
}
