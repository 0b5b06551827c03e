//! Tiles: the pieces a block owns, and the loop nests that visit them.

use super::bits::{deposit, part, Bit};
use super::swizzle::Swizzle;
use super::{EmitOptions, Emitter};
use crate::cost::FieldShape;
use crate::cuda::{Expr, Stmt, Type};
use crate::error::CodegenError;
use crate::plan::KernelPlan;
use fermat_dsl::field::Field;

/// Tiles grow to 2^MIN_TILE_BITS elements where shared memory allows: 256 threads with
/// a radix-16 codelet each.
pub(super) const MIN_TILE_BITS: u32 = 12;

/// Word-prime transforms of at most 2^SMALL_TRANSFORM_BITS points grow their tiles less:
/// from a pass's pieces only until they span one 32-byte sector and hold
/// 2^(log n − [`SMALL_TRANSFORM_TILES`]) elements, at least 2^[`SMALL_TILE_BITS`] (where
/// other transforms grow to 128-byte lines and 2^12 elements). Their tiles of 2^12–2^13
/// elements left 1–32 blocks a pass, a few multiprocessors of an H200 each waiting on
/// its own chain of loads and barriers. With smaller ones the power-series inverse mod
/// x^(2^20), whose Newton steps run transforms of 2^13 to 2^17 points, took 0.46 → 0.41
/// ms; at 2^18 points (256 blocks already) smaller tiles lost (bench/RESULTS.md, "Small
/// transforms in small tiles").
pub(super) const SMALL_TRANSFORM_BITS: u32 = 17;

/// A small word-prime transform's tiles grow to 2^(log n − SMALL_TRANSFORM_TILES)
/// elements, at least 2^[`SMALL_TILE_BITS`]: 2^10 up to 2^16 points, 2^11 at 2^17.
pub(super) const SMALL_TRANSFORM_TILES: u32 = 6;

/// log2 of the size a small word-prime transform's tiles grow to at least: 64 threads
/// with a radix-16 codelet each (2^9 and 2^8 measured slower).
pub(super) const SMALL_TILE_BITS: u32 = 10;

/// The index bits a tile covers below which its pieces coalesce, and the size it grows
/// to: the options' bits and 2^[`MIN_TILE_BITS`] for SRGFNs and for large transforms;
/// for a word prime's transform of at most 2^[`SMALL_TRANSFORM_BITS`] points, one 32-byte
/// sector (the grain of both L2 and DRAM) and 2^(log n − [`SMALL_TRANSFORM_TILES`])
/// elements, at least 2^[`SMALL_TILE_BITS`], so that its passes spread over more
/// multiprocessors.
fn tile_goal(k: &KernelPlan, shape: &FieldShape, options: &EmitOptions) -> (u32, u32) {
    let word_prime = shape.shift_order.is_none();
    if word_prime && k.log_n <= SMALL_TRANSFORM_BITS {
        let sector_bits = (32 / shape.element_bytes).max(1).ilog2();
        let tile_bits = k.log_n.saturating_sub(SMALL_TRANSFORM_TILES);
        (
            sector_bits.min(options.coalesce_bits),
            tile_bits.clamp(SMALL_TILE_BITS, MIN_TILE_BITS),
        )
    } else {
        (options.coalesce_bits, MIN_TILE_BITS)
    }
}

/// The tile of a kernel: which physical bits a block owns.
#[derive(Clone)]
pub(super) struct Tile {
    /// log2 of the piece size.
    pub(super) s: u32,
    /// Pieces per tile, log2.
    pub(super) pb: u32,
    /// The tile's physical bits, ascending; tile-index bit of each.
    pub(super) bits: Vec<(u32, u32)>,
    /// Physical bits of the block index, ascending.
    pub(super) block_bits: Vec<u32>,
    /// Where each piece-index bit comes from: a tile bit (`i`) or a block bit (`blk`).
    pub(super) piece_src: Vec<Bit>,
    /// Where tile elements live in shared memory.
    pub(super) swizzle: Swizzle,
    /// Threads per block.
    pub(super) threads: u32,
}

impl Tile {
    pub(super) fn new(
        k: &KernelPlan,
        shape: &FieldShape,
        options: &EmitOptions,
    ) -> Result<Tile, CodegenError> {
        let s = k.local_bits();
        let piece_phys: Vec<u32> = (0..k.log_n).filter(|q| !k.active.contains(q)).collect();
        let bytes = |pb: u32| (1u64 << (s + pb)) * shape.element_bytes;
        if bytes(0) > options.shared_limit {
            return Err(CodegenError::UnsupportedField {
                field: shape.name.clone(),
                why: format!(
                    "a piece of 2^{s} elements needs {} bytes of shared memory, over the {}-byte limit; lower the plan's piece size",
                    bytes(0),
                    options.shared_limit
                ),
            });
        }
        // Piece bits worth having in the tile: those among the lowest physical bits of the
        // source (coalesced gathers) or of the destination (coalesced scatters), lowest
        // first; then more, until every thread of a block has codelets to run — as many as
        // shared memory holds.
        let low = |c: usize| piece_phys[c].min(k.dest[piece_phys[c] as usize]);
        let mut wanted: Vec<usize> = (0..piece_phys.len()).collect();
        wanted.sort_by_key(|&c| low(c));
        let (coalesce_bits, min_tile_bits) = tile_goal(k, shape, options);
        let mut pb = 0;
        while (pb as usize) < wanted.len()
            && (low(wanted[pb as usize]) < coalesce_bits || s + pb < min_tile_bits)
            && bytes(pb + 1) <= options.shared_limit
            && s + pb < 20
        {
            pb += 1;
        }
        Ok(Tile::of_pieces(k, &piece_phys, &wanted[..pb as usize]))
    }

    /// The tile of kernel `k` whose piece bits are the physical bits `bits` (the others
    /// the block's), or `None` where one of them is a bit of the pieces or the tile would
    /// pass `options.shared_limit`: the middle kernel's inverse tile, which must be the
    /// run of the spectrum its forward tile wrote.
    pub(super) fn with_piece_bits(
        k: &KernelPlan,
        shape: &FieldShape,
        options: &EmitOptions,
        bits: &[u32],
    ) -> Option<Tile> {
        let piece_phys: Vec<u32> = (0..k.log_n).filter(|q| !k.active.contains(q)).collect();
        let chosen: Vec<usize> = bits
            .iter()
            .map(|b| piece_phys.iter().position(|q| q == b))
            .collect::<Option<_>>()?;
        let bytes = (1u64 << (k.local_bits() as usize + chosen.len())) * shape.element_bytes;
        (bytes <= options.shared_limit).then(|| Tile::of_pieces(k, &piece_phys, &chosen))
    }

    /// The tile of kernel `k` whose pieces' bits `chosen` (indices into `piece_phys`, the
    /// physical bits outside the pieces) are its own, the others the block's.
    fn of_pieces(k: &KernelPlan, piece_phys: &[u32], chosen: &[usize]) -> Tile {
        let s = k.local_bits();
        let pb = chosen.len() as u32;
        let mut piece_src = vec![Bit::Known(0); piece_phys.len()];
        let mut block_bits = Vec::new();
        for (c, &q) in piece_phys.iter().enumerate() {
            piece_src[c] = match chosen.iter().position(|&x| x == c) {
                Some(l) => Bit::Of("i", s + l as u32),
                None => {
                    block_bits.push(q);
                    Bit::Of("blk", block_bits.len() as u32 - 1)
                }
            };
        }
        let mut bits: Vec<(u32, u32)> = k
            .active
            .iter()
            .enumerate()
            .map(|(c, &q)| (q, c as u32))
            .chain(
                chosen
                    .iter()
                    .enumerate()
                    .map(|(l, &c)| (piece_phys[c], s + l as u32)),
            )
            .collect();
        bits.sort_unstable();
        Tile {
            s,
            pb,
            bits,
            block_bits,
            piece_src,
            swizzle: Swizzle::none(),
            threads: 1,
        }
    }

    /// The tile index of element q when q's bits go to the tile bits of `order`.
    pub(super) fn index_of(order: &[(u32, u32)], q: u64) -> u64 {
        order
            .iter()
            .enumerate()
            .fold(0, |acc, (u, &(_, ti))| acc | (((q >> u) & 1) << ti))
    }

    /// The tile indices of the first warp's accesses in every phase of a kernel: each of
    /// the gather's stores and the scatter's loads (element q = tq + r·threads, [`Visit`]),
    /// each codelet load and store of every round (`rounds`: the DFT bits and the order in
    /// which the group index fills the other bits).
    pub(super) fn warp_accesses(
        &self,
        rounds: &[(&[u32], &[u32])],
        store_order: &[(u32, u32)],
    ) -> Vec<Vec<u64>> {
        let threads = u64::from(self.threads).min(self.size());
        let lanes = 32.min(threads);
        let mut accesses = Vec::new();
        for order in [&self.bits[..], store_order] {
            for r in 0..self.size() / threads {
                let q = |l: u64| l + r * threads;
                accesses.push((0..lanes).map(|l| Tile::index_of(order, q(l))).collect());
            }
        }
        for &(locals, free) in rounds {
            let groups = 32.min(1u64 << free.len());
            for v in 0..1u64 << locals.len() {
                let off = deposit(v, locals);
                // Loads and stores of a codelet touch the same set of offsets.
                let idx: Vec<u64> = (0..groups).map(|g| deposit(g, free) | off).collect();
                accesses.push(idx.clone());
                accesses.push(idx);
            }
        }
        accesses
    }

    /// Whether the tile is kernel `k`'s whole transform, in one block, each tile index
    /// the element's address in the source.
    pub(super) fn is_whole(&self, k: &KernelPlan) -> bool {
        self.block_bits.is_empty()
            && self.s + self.pb == k.log_n
            && self.bits.iter().all(|&(phys, ti)| phys == ti)
    }

    pub(super) fn size(&self) -> u64 {
        1 << (self.s + self.pb)
    }

    /// Element slots the tile spans in shared memory (more than its size when padded).
    pub(super) fn words(&self) -> u64 {
        self.swizzle.span(self.size())
    }

    /// The source of piece-index bit c.
    pub(super) fn piece_bit(&self, c: u32) -> Bit {
        self.piece_src[c as usize].clone()
    }
}

/// How a thread walks its share of a tile: element q = tq | ul·2^t | uo·2^(t+lv), for
/// thread tq < 2^t, an unrolled counter ul < 2^lv and an outer counter uo < 2^lo.
///
/// The tile index and the global addresses of q are bit relabellings of q, so each is the
/// sum of a thread part, an outer part and an unrolled part: the unrolled part is a
/// compile-time constant in every copy of the loop body, where it folds into the load's or
/// store's immediate offset (with a padded tile layout) instead of costing a dozen shifts
/// and masks per element.
#[derive(Clone, Copy, Debug)]
pub(super) struct Visit {
    pub(super) t: u32,
    pub(super) lv: u32,
    pub(super) lo: u32,
}

impl Visit {
    /// Where bit u of q comes from.
    pub(super) fn bit(&self, u: u32) -> Bit {
        if u < self.t {
            Bit::Of("tq", u)
        } else if u < self.t + self.lv {
            Bit::Of("ul", u - self.t)
        } else {
            Bit::Of("uo", u - self.t - self.lv)
        }
    }
}

/// A global-memory pointer a tile loop walks: its base variable, whether it is written,
/// whether it is `__restrict__`, and where each physical bit of the tile's elements goes
/// in its address.
pub(super) struct Ptr<'a> {
    pub(super) base: &'static str,
    pub(super) written: bool,
    /// No other pointer of the kernel reaches what this one does. A read-only restricted
    /// pointer's loads may take the read-only data path, which need not see the kernel's
    /// own stores: a phase that reads what an earlier one wrote is not restricted.
    pub(super) restrict: bool,
    pub(super) dest: &'a [u32],
    /// Where the pointer is a shared vector laid out as a tile: the map from an element's
    /// address to its slot (a fused product's `mid`, [`super::MidLayout`]).
    pub(super) slots: Option<&'a Swizzle>,
}

/// A loop nest over a tile built by [`Emitter::tile_visit`]: statements per thread, per
/// outer iteration, and at the head of the unrolled body (defining `i`, the element's tile
/// index), the element's shared-memory slot, and per pointer (pointer, offset).
pub(super) struct Nest {
    pub(super) threads: u32,
    pub(super) visit: Visit,
    pub(super) thread: Vec<Stmt>,
    pub(super) outer: Vec<Stmt>,
    pub(super) head: Vec<Stmt>,
    pub(super) slot: Expr,
    pub(super) global: Vec<(Expr, Expr)>,
}

impl Nest {
    /// The loops around `body`, inside a [`thread_loop`].
    pub(super) fn wrap(self, body: Vec<Stmt>) -> Stmt {
        let count = |bits: u32| Expr::u32(1 << bits);
        let mut inner =
            crate::cuda::ForLoop::range("ul", Type::U32, Expr::u32(0), count(self.visit.lv))
                .body(body);
        if self.visit.lv > 0 {
            inner = inner.unrolled();
        }
        let mut level = vec![Stmt::For(inner)];
        if self.visit.lo > 0 {
            let mut outer = self.outer;
            outer.extend(level);
            let lp =
                crate::cuda::ForLoop::range("uo", Type::U32, Expr::u32(0), count(self.visit.lo))
                    .unroll_by(1)
                    .body(outer);
            level = vec![Stmt::For(lp)];
        }
        let mut thread = self.thread;
        thread.extend(level);
        thread_loop(self.threads, thread)
    }
}

/// `for (tq = threadIdx.x; tq < threads; tq += blockDim.x) body`: on the device, with
/// `threads` threads per block, each thread runs `body` once as thread `tq`; the host tests
/// run a block with one thread, which then runs them all.
pub(super) fn thread_loop(threads: u32, body: Vec<Stmt>) -> Stmt {
    Stmt::For(
        crate::cuda::ForLoop {
            ty: Type::U32,
            var: "tq".into(),
            start: Expr::thread_idx(),
            cond: Expr::var("tq").lt(Expr::u32(threads)),
            step: Expr::block_dim(),
            unroll: None,
            body: Vec::new(),
        }
        .body(body),
    )
}

impl<F: Field> Emitter<'_, F> {
    /// Address bits of the tile's element visited as `bits_of(u)` for each bit u of q (q's
    /// bits in the order of `order`), and the block index: the physical address, with each
    /// physical bit sent to `dest[bit]`.
    pub(super) fn address_bits(
        &self,
        tile: &Tile,
        order: &[(u32, u32)],
        dest: &[u32],
        visit: &Visit,
    ) -> Vec<Bit> {
        let mut bits = vec![Bit::Known(0); dest.len()];
        for (u, &(phys, _)) in order.iter().enumerate() {
            bits[dest[phys as usize] as usize] = visit.bit(u as u32);
        }
        for (c, &phys) in tile.block_bits.iter().enumerate() {
            bits[dest[phys as usize] as usize] = Bit::Of("blk", c as u32);
        }
        bits
    }

    /// Tile-index bits of the element visited as `visit` says, for q's bits in the order
    /// of `order`.
    pub(super) fn tile_index_bits(
        &self,
        tile: &Tile,
        order: &[(u32, u32)],
        visit: &Visit,
    ) -> Vec<Bit> {
        let mut bits = vec![Bit::Known(0); (tile.s + tile.pb) as usize];
        for (u, &(_, ti)) in order.iter().enumerate() {
            bits[ti as usize] = visit.bit(u as u32);
        }
        bits
    }

    /// A loop nest visiting every element of the tile, in the order `order`, with
    /// pointers into global memory at the addresses `ptrs` gives (base pointer, whether it
    /// is written, where each physical bit goes). See [`Visit`].
    pub(super) fn tile_visit(&self, tile: &Tile, order: &[(u32, u32)], ptrs: &[Ptr<'_>]) -> Nest {
        let size = tile.size();
        let t = tile.threads.trailing_zeros();
        let per_thread = (size / tile.threads as u64).max(1);
        // Every element a thread loads is in flight at once up to 128 bytes of registers
        // per thread (at least 8 elements): a gather is bound by memory latency.
        let cap = (128 / self.shape.element_bytes).clamp(8, 32);
        let lv = per_thread.min(cap).trailing_zeros();
        let lo = per_thread.trailing_zeros() - lv;
        let visit = Visit { t, lv, lo };
        // Addresses below 2^32 elements are put together in 32-bit arithmetic, half the
        // instructions of 64-bit bit operations on the device.
        let aty = if self.n.trailing_zeros() <= 32 {
            Type::U32
        } else {
            Type::SizeT
        };
        let index = self.tile_index_bits(tile, order, &visit);
        let addrs: Vec<Vec<Bit>> = ptrs
            .iter()
            .map(|p| self.address_bits(tile, order, p.dest, &visit))
            .collect();
        let swz = &tile.swizzle;
        let ptr_ty = |p: &Ptr| Type::Ptr {
            to: Box::new(Type::Word),
            is_const: !p.written,
            restrict: p.restrict,
        };

        let mut thread = vec![Stmt::const_(
            Type::U32,
            "it",
            part(&index, &["tq"], &Type::U32),
        )];
        thread.push(Stmt::const_(Type::U32, "st", swz.expr(Expr::var("it"))));
        for (p, bits) in ptrs.iter().zip(&addrs) {
            let name = format!("{}_t", p.base);
            thread.push(match p.slots {
                // A slot of the shared vector rather than a pointer: the parts of a slot
                // join as the tile's do.
                Some(slots) => {
                    Stmt::const_(Type::U32, name, slots.expr(part(bits, &["tq"], &Type::U32)))
                }
                None => Stmt::let_(
                    ptr_ty(p),
                    name,
                    Expr::var(p.base) + part(bits, &["tq", "blk"], &aty).cast(Type::SizeT),
                ),
            });
        }
        let (mut outer, mut at) = (Vec::new(), "t");
        if lo > 0 {
            outer.push(Stmt::const_(
                Type::U32,
                "io",
                Expr::var("it") + part(&index, &["uo"], &Type::U32),
            ));
            outer.push(Stmt::const_(
                Type::U32,
                "so",
                swz.join(Expr::var("st"), swz.expr(part(&index, &["uo"], &Type::U32))),
            ));
            for (p, bits) in ptrs.iter().zip(&addrs) {
                let (name, thread) = (format!("{}_o", p.base), Expr::var(format!("{}_t", p.base)));
                outer.push(match p.slots {
                    Some(slots) => Stmt::const_(
                        Type::U32,
                        name,
                        slots.join(thread, slots.expr(part(bits, &["uo"], &Type::U32))),
                    ),
                    None => Stmt::let_(
                        ptr_ty(p),
                        name,
                        thread + part(bits, &["uo"], &aty).cast(Type::SizeT),
                    ),
                });
            }
            at = "o";
        }
        let inner_index = part(&index, &["ul"], &Type::U32);
        let head = vec![Stmt::const_(
            Type::U32,
            "i",
            Expr::var(format!("i{at}")) + inner_index.clone(),
        )];
        let slot = swz.join(Expr::var(format!("s{at}")), swz.expr(inner_index));
        let global = ptrs
            .iter()
            .zip(&addrs)
            .map(|(p, bits)| {
                let own = Expr::var(format!("{}_{at}", p.base));
                match p.slots {
                    Some(slots) => (
                        Expr::var(p.base),
                        slots
                            .join(own, slots.expr(part(bits, &["ul"], &Type::U32)))
                            .cast(Type::SizeT),
                    ),
                    None => (own, part(bits, &["ul"], &aty).cast(Type::SizeT)),
                }
            })
            .collect();
        Nest {
            threads: tile.threads,
            visit,
            thread,
            outer,
            head,
            slot,
            global,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{transform, TransformOptions};
    use fermat_dsl::field::{AnyField, FieldSpec};

    /// Each pass's (tile, piece) elements of `field`'s 2^log_n-point transform, both
    /// directions.
    fn tiles(field: &str, log_n: u32) -> Vec<(u64, u64)> {
        let field: AnyField = field.parse::<FieldSpec>().unwrap().build().unwrap();
        let n = 1u64 << log_n;
        let t = transform(&field, n, &TransformOptions::default()).unwrap();
        let launches = t
            .forward_launches
            .iter()
            .chain(t.inverse_launches.iter().flatten());
        launches
            .map(|l| (n / l.blocks, n / l.blocks / l.pieces_per_block))
            .collect()
    }

    #[test]
    fn small_word_prime_transforms_grow_their_tiles_to_a_sector_and_a_sixty_fourth() {
        for (field, sector) in [("babybear", 8), ("goldilocks", 4)] {
            for log_n in 13..=SMALL_TRANSFORM_BITS {
                let goal = 1u64 << (log_n - SMALL_TRANSFORM_TILES).max(SMALL_TILE_BITS);
                for (tile, piece) in tiles(field, log_n) {
                    // Grown no further than the goal or one sector of pieces, whichever
                    // is more: the old tiles of 2^12 and 128-byte lines were larger.
                    assert!(
                        tile <= goal.max(piece * sector),
                        "{field} 2^{log_n}: a tile of {tile} from pieces of {piece}"
                    );
                    assert!(tile >= goal.min(1 << log_n), "{field} 2^{log_n}: {tile}");
                }
            }
            // From 2^18 points the tiles hold 2^12 elements or more again.
            for (tile, _) in tiles(field, SMALL_TRANSFORM_BITS + 1) {
                assert!(tile >= 1 << MIN_TILE_BITS, "{field} 2^18: {tile}");
            }
        }
    }

    #[test]
    fn srgfn_and_large_transforms_keep_lines_and_tiles_of_2_to_the_12() {
        let options = EmitOptions::default();
        let large = (options.coalesce_bits, MIN_TILE_BITS);
        for (name, log_n) in [("P3", 12), ("P3", 16), ("P2", 16), ("babybear", 18)] {
            let field: AnyField = name.parse::<FieldSpec>().unwrap().build().unwrap();
            let t = transform(&field, 1 << log_n, &TransformOptions::default()).unwrap();
            for k in &t.forward.kernels {
                let goal = tile_goal(k, &FieldShape::of(&field), &options);
                assert_eq!(goal, large, "{name} 2^{log_n}");
            }
        }
        let babybear: AnyField = "babybear".parse::<FieldSpec>().unwrap().build().unwrap();
        let t = transform(&babybear, 1 << 16, &TransformOptions::default()).unwrap();
        let goal = tile_goal(&t.forward.kernels[0], &FieldShape::of(&babybear), &options);
        assert_eq!(
            goal,
            (3, SMALL_TILE_BITS),
            "babybear 2^16: a sector of 8 words"
        );
    }
}
