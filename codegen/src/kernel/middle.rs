//! The middle of a product whose transforms are two passes each: one kernel runs the last
//! forward pass of both factors, their pointwise product and the first inverse pass, block
//! by block. The forward's last pass writes each block's tile to one contiguous run of the
//! spectrum (its bit-reversal permutes digits within the run), which is exactly a tile of
//! the inverse's first pass: so the block that computes a run of both spectra multiplies
//! them and runs the inverse's first pass on the product itself, with nothing between the
//! three but its own stores (bench/RESULTS.md, "Products in four launches").
//!
//! A product then takes four launches instead of six — the first forward pass of each
//! factor, the middle, the last inverse pass — and moves four vectors of n fewer through
//! global memory: the two spectra are never written, nor read back by the inverse.

use super::bits::{assemble, or_constant, Bit};
use super::occupancy::blocks_for_registers;
use super::pass::Scatter;
use super::product::{phased_body, InverseScales, Passes};
use super::tile::Tile;
use super::{EmitOptions, Emitted, Emitter};
use crate::contract::{Hop, Launch, POLY_TRANSFORM_ARGS};
use crate::cost::FieldShape;
use crate::cuda::{Expr, Kernel, SharedArray, Stmt, Table, Type};
use crate::error::CodegenError;
use crate::plan::{Io, KernelPlan, Plan};
use fermat_dsl::field::{Field, Roots};

/// The kernels of a product by its middle, and how to launch them ([`emit_middle`] and
/// [`MiddleProduct::head`] have examples).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MiddleProduct {
    /// The middle kernel: block b of transform t runs the forward's last pass on tile b of
    /// both factors' half-transformed vectors, multiplies the spectra, and runs the
    /// inverse's first pass on the run of the product it wrote.
    pub kernel: Kernel,
    /// Its launch: from the input (the first factor's half transform; the operand, the
    /// second's) into the scratch buffer.
    pub launch: Launch,
    /// Constant tables the middle kernel's rounds read (file scope, before it).
    pub tables: Vec<Table>,
}

/// The middle kernel `name` of the cyclic convolution whose forward plan reads a short
/// factor and whose inverse plan multiplies pointwise and writes a short product
/// ([`Design::convolution_plans`](crate::design::Design::convolution_plans)), or `None`
/// where there is none: plans of other than two passes, or a forward tile whose run of
/// the spectrum no inverse tile within `options.shared_limit` covers.
///
/// Its launches bind the arguments of [`POLY_TRANSFORM_ARGS`]: transform t reads its
/// first factor's half transform at `src + t·n`, its second's at `op + op_dist·t·n`, and
/// writes the inverse's first pass at `dst + t·n`. Its phases:
/// 1. the forward's last pass on the first factor, into `dst`;
/// 2. the same on the second, each element multiplying `dst`'s in place;
/// 3. the inverse's first pass on the block's run of `dst`, in place.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::design::{design, DesignOptions};
/// use fermat_codegen::kernel::{emit_middle, EmitOptions};
/// use fermat_dsl::field::{AnyField, FieldSpec, Roots};
/// use fermat_dsl::with_field;
///
/// let any: AnyField = "babybear".parse::<FieldSpec>()?.build()?;
/// let n = 1 << 20;
/// let (fwd, inv) = design(&any, n, &DesignOptions::default())?.convolution_plans()?;
/// let middle = with_field!(&any, f => {
///     let roots = Roots::canonical(f, fwd.max_log_order(), n)?;
///     emit_middle(f, &FieldShape::of(&any), &fwd, &inv, &roots, &EmitOptions::default(), "mid")?
/// });
/// let middle = middle.expect("both transforms of 2^20 points are two passes");
/// assert_eq!(middle.launch.blocks << 12, n); // a run of 2^12 elements a block
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit_middle<F: Field>(
    field: &F,
    shape: &FieldShape,
    forward: &Plan,
    inverse: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
    name: &str,
) -> Result<Option<MiddleProduct>, CodegenError> {
    // Phase 2 multiplies the spectra — for a word prime by 1/n too, so that neither of
    // the inverse's passes scales (its last is the plan's, `emit`ted the same way): the
    // inverse's pass reads their product.
    let (inverse, scales) = InverseScales::unscaled(field, shape, roots, inverse);
    let ([_, fk], [ik, _]) = (forward.kernels.as_slice(), inverse.kernels.as_slice()) else {
        return Ok(None);
    };
    if forward.io() != Io::FACTOR || inverse.io() != Io::PRODUCT || !ik.io.pointwise {
        return Ok(None);
    }
    let ik = KernelPlan {
        io: Io::default(),
        ..ik.clone()
    };
    let fwd = Emitter::new(field, shape, forward, roots, options, &POLY_TRANSFORM_ARGS);
    let inv = Emitter {
        restrict: false,
        ..Emitter::new(field, shape, &inverse, roots, options, &POLY_TRANSFORM_ARGS)
    };
    let pointwise = InverseScales::pointwise(scales.as_ref());
    let Some((forward_tile, inverse_tile)) = tiles_of_one_run(fk, &ik, shape, options)? else {
        return Ok(None);
    };
    let Some(Passes {
        bodies: phases,
        tiles,
        tables,
    }) = Passes::of(
        [
            (&fwd, fk, "fwd", Scatter::Store, forward_tile.clone()),
            (
                &fwd,
                fk,
                "fwd",
                Scatter::MultiplyInto(pointwise),
                forward_tile,
            ),
            (&inv, &ik, "inv", Scatter::Store, inverse_tile),
        ],
        name,
        options,
    )
    else {
        return Ok(None);
    };
    // Each phase's threads loop over its own count: the block has the most of them.
    let threads = tiles.iter().map(|t| t.threads).max().unwrap_or(1);
    let Some(inverse_block) = run_of_spectrum(fk, &tiles[0], &tiles[2]) else {
        return Ok(None);
    };
    let element_words = shape.element_bytes / (fwd.word_bits() as u64 / 8);
    let tile_words = tiles.iter().map(Tile::words).max().unwrap_or(0) * element_words;
    let shared_bytes = tile_words * (fwd.word_bits() as u64 / 8);
    if shared_bytes > options.shared_limit {
        return Ok(None);
    }
    let params = POLY_TRANSFORM_ARGS.iter().map(|a| a.param()).collect();
    let mut kernel = Kernel::new(
        name,
        params,
        middle_body(phases, forward.n(), inverse_block),
    )
    .doc(format!(
        "the middle of cyclic products of {} points: the forward's last pass of both \
             factors, their product, the inverse's first pass",
        forward.n()
    ))
    .shared(SharedArray::new(Type::Word, "tile", tile_words));
    kernel = match fwd.register_cap(fk) {
        Some(regs) => kernel.launch_bounds_min(threads, blocks_for_registers(threads, regs)),
        None => kernel.launch_bounds(threads),
    };
    let launch = Launch {
        kernel: name.to_string().into(),
        blocks: 1 << tiles[0].block_bits.len(),
        threads,
        shared_bytes,
        pieces_per_block: 1 << tiles[0].pb,
        hop: Hop::InputToScratch,
        signals: 0,
        args: &POLY_TRANSFORM_ARGS,
    };
    Ok(Some(MiddleProduct {
        kernel,
        launch,
        tables,
    }))
}

impl MiddleProduct {
    /// The first forward pass alone, from a factor into the output: the first of the
    /// `forward` plan's kernels ([`emit`](super::emit)ted), launched as a plan of its own;
    /// `None` where it has none.
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    /// use fermat_codegen::cost::FieldShape;
    /// use fermat_codegen::design::{design, DesignOptions};
    /// use fermat_codegen::kernel::{emit, emit_middle, EmitOptions, MiddleProduct};
    /// use fermat_dsl::field::{AnyField, FieldSpec, Roots};
    /// use fermat_dsl::with_field;
    ///
    /// let any: AnyField = "babybear".parse::<FieldSpec>()?.build()?;
    /// let n = 1 << 14;
    /// let (fwd, inv) = design(&any, n, &DesignOptions::default())?.convolution_plans()?;
    /// let shape = FieldShape::of(&any);
    /// let opts = EmitOptions::default();
    /// let (forward, inverse, middle) = with_field!(&any, f => {
    ///     let roots = Roots::canonical(f, fwd.max_log_order(), n)?;
    ///     (
    ///         emit(f, &shape, &fwd, &roots, &opts, "fwd")?,
    ///         emit(f, &shape, &inv, &roots, &opts, "inv")?,
    ///         emit_middle(f, &shape, &fwd, &inv, &roots, &opts, "mid")?.expect("two passes"),
    ///     )
    /// });
    /// let head = MiddleProduct::head(&forward).expect("a first pass");
    /// assert_eq!((head.kernel.as_ref(), head.hop), ("fwd_k0", Hop::InputToOutput));
    /// let tail = middle.tail(&inverse).expect("a last pass");
    /// let names: Vec<&str> = tail.iter().map(|l| l.kernel.as_ref()).collect();
    /// assert_eq!(names, ["mid", "inv_k1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn head(forward: &Emitted) -> Option<Launch> {
        Some(alone(forward.launches.first()?, Hop::InputToOutput))
    }

    /// The middle kernel, then the last of the `inverse` plan's two kernels, from the
    /// scratch buffer into the (short) output; `None` where the plan has not two ([`head`]
    /// has an example).
    ///
    /// [`head`]: MiddleProduct::head
    pub fn tail(&self, inverse: &Emitted) -> Option<Vec<Launch>> {
        let [_, last] = inverse.launches.as_slice() else {
            return None;
        };
        Some(vec![self.launch.clone(), alone(last, Hop::ScratchToOutput)])
    }
}

/// `launch` as the one pass of a plan of its own, with `hop`: without hand-off counters.
fn alone(launch: &Launch, hop: Hop) -> Launch {
    Launch {
        hop,
        signals: 0,
        ..launch.clone()
    }
}

/// The tiles of the forward's last pass `fk` and of the inverse's first `ik` (its
/// pointwise product dropped) such that each inverse tile is the run of the spectrum that
/// one forward tile writes: the forward's own tile where the addresses its scatter moves
/// that tile's bits to cover the inverse's pieces, else the forward's pieces with the
/// bits those need; the inverse's, the pieces and the rest of that image. `None` where no
/// such tiles fit the options' shared memory.
fn tiles_of_one_run(
    fk: &KernelPlan,
    ik: &KernelPlan,
    shape: &FieldShape,
    options: &EmitOptions,
) -> Result<Option<(Tile, Tile)>, CodegenError> {
    // Where the forward's scatter moves a tile's bits, in the order of the tile's index.
    let image = |tile: &Tile| -> Vec<u32> {
        let mut bits: Vec<(u32, u32)> = tile
            .bits
            .iter()
            .map(|&(q, t)| (t, fk.dest[q as usize]))
            .collect();
        bits.sort_unstable();
        bits.into_iter().map(|(_, q)| q).collect()
    };
    let mut forward = Tile::new(fk, shape, options)?;
    if !ik.active.iter().all(|q| image(&forward).contains(q)) {
        let needed: Vec<u32> = (0..fk.log_n)
            .filter(|q| !fk.active.contains(q) && ik.active.contains(&fk.dest[*q as usize]))
            .collect();
        let Some(tile) = Tile::with_piece_bits(fk, shape, options, &needed) else {
            return Ok(None);
        };
        forward = tile;
    }
    let pieces: Vec<u32> = image(&forward)
        .into_iter()
        .filter(|q| !ik.active.contains(q))
        .collect();
    Ok(Tile::with_piece_bits(ik, shape, options, &pieces).map(|inverse| (forward, inverse)))
}

/// The inverse tile that forward tile `blk` writes, bit by bit: bit l of the inverse's
/// block index is the forward block bit whose address bit the forward's scatter moves to
/// the inverse's block address bit l — or `None` where some inverse tile gathers from
/// more than one forward tile.
fn run_of_spectrum(fk: &KernelPlan, forward: &Tile, inverse: &Tile) -> Option<Vec<Bit>> {
    if forward.block_bits.len() != inverse.block_bits.len() {
        return None;
    }
    inverse
        .block_bits
        .iter()
        .map(|&q| {
            let writer = forward
                .block_bits
                .iter()
                .position(|&w| fk.dest[w as usize] == q)?;
            Some(Bit::Of("bid", writer as u32))
        })
        .collect()
}

/// The middle kernel's body from the statements of its three `phases` over transforms of
/// `n` points: each in a block of its own that binds the names a pass reads (`blk`, `in`,
/// `out`) — the third's `blk` the inverse tile `inverse_block` that the forward tile
/// `bid` wrote — with a barrier between phases.
fn middle_body(phases: Vec<Vec<Stmt>>, n: u64, inverse_block: Vec<Bit>) -> Vec<Stmt> {
    let vector = |base: &str, offset: Expr| Expr::var(base) + offset;
    let batch = Expr::var("batch");
    let (c, e) = assemble(&inverse_block, Type::SizeT);
    let set_ups = [
        (Expr::var("bid"), vector("src", batch.clone())),
        (
            Expr::var("bid"),
            vector("op", Expr::var("op_dist") * batch.clone()),
        ),
        (
            or_constant(c, e, &Type::SizeT),
            vector("dst", batch.clone()),
        ),
    ];
    let labels = [
        "the first factor's last forward pass into dst",
        "the second factor's, multiplied into dst",
        "the inverse's first pass on this block's run of dst",
    ];
    let prologue = vec![
        Stmt::const_(Type::SizeT, "bid", Expr::block_idx().cast(Type::SizeT)),
        Stmt::const_(
            Type::SizeT,
            "batch",
            super::handoff::transform_index()
                * Expr::u64(n)
                * Expr::var("FE_WORDS").cast(Type::SizeT),
        ),
    ];
    let phases = set_ups.into_iter().zip(phases).zip(labels).enumerate();
    let phases = phases.map(|(i, (((blk, input), phase), label))| {
        // The third phase reads back what the first two wrote: its vectors are not
        // restricted (see `Ptr::restrict`).
        let restrict = i < 2;
        let pointer = |is_const| Type::Ptr {
            to: Box::new(Type::Word),
            is_const,
            restrict,
        };
        let set_up = vec![
            Stmt::const_(Type::SizeT, "blk", blk),
            Stmt::let_(pointer(true), "in", input),
            Stmt::let_(pointer(false), "out", vector("dst", batch.clone())),
        ];
        (set_up, phase, label)
    });
    phased_body(prologue, phases)
}
