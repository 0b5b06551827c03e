//! Fused products: where both transforms of a cyclic product are one pass each, one
//! kernel computes a whole product per block — the forward transforms of both factors, the
//! pointwise product and the inverse — with the transforms in shared memory between its
//! phases. A batch of small products then reads its factors and writes its products once,
//! instead of writing and reading two transforms and their product through global memory
//! in three launches (bench/RESULTS.md, "Fused products").

use super::occupancy::blocks_for_registers;
use super::pass::{part, Pointwise, Scatter};
use super::table::montgomery;
use super::tile::Tile;
use super::{EmitOptions, Emitter, MidLayout};
use crate::contract::{Hop, Launch, FUSED_PRODUCT_ARGS};
use crate::cost::FieldShape;
use crate::cuda::{Expr, Kernel, SharedArray, Stmt, Table, Type};
use crate::error::CodegenError;
use crate::plan::{Io, KernelPlan, Plan, Step};
use fermat_dsl::field::{Field, Roots};
use num_bigint::BigUint;
use std::borrow::Cow;

/// The fused product kernel and how to launch it ([`emit_product`] has an example).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedProduct {
    /// The kernel: block (0, t) computes product t of a batch.
    pub kernel: Kernel,
    /// Its launch: one block per product, [`FUSED_PRODUCT_ARGS`] bound.
    pub launch: Launch,
    /// Constant tables its rounds read (file scope, before it).
    pub tables: Vec<Table>,
}

/// The fused product kernel `name` of the cyclic convolution whose forward plan reads a
/// short factor and whose inverse plan multiplies pointwise and writes a short product
/// ([`Design::convolution_plans`](crate::design::Design::convolution_plans)), or `None`
/// where it cannot be fused: a
/// plan of more than one pass, tiles of different thread counts, or a block's shared
/// memory — the tile and one transform of n elements — beyond `options.shared_limit`.
///
/// Product t reads its first factor at `src + t·src_dist` (`src_len` elements, none beyond
/// `src_limit`, digits `src_stride` words apart), its second at `fac + t·fac_dist` with the
/// `fac_` extents, and writes the first `dst_len` coefficients of the product at
/// `dst + t·dst_dist`. Its phases:
/// 1. the forward transform of the first factor, scattered into the shared vector `mid`;
/// 2. the forward transform of the second, each element multiplying `mid`'s in place;
/// 3. the inverse transform of `mid` into the product.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::design::{design, DesignOptions};
/// use fermat_codegen::kernel::{emit_product, EmitOptions};
/// use fermat_dsl::field::{AnyField, FieldSpec, Roots};
/// use fermat_dsl::with_field;
///
/// let any: AnyField = "babybear".parse::<FieldSpec>()?.build()?;
/// let (fwd, inv) = design(&any, 256, &DesignOptions::default())?.convolution_plans()?;
/// let fused = with_field!(&any, f => {
///     let roots = Roots::canonical(f, fwd.max_log_order(), 256)?;
///     emit_product(f, &FieldShape::of(&any), &fwd, &inv, &roots, &EmitOptions::default(), "mul")?
/// });
/// let fused = fused.expect("a transform of 256 points is one pass");
/// assert_eq!((fused.launch.blocks, fused.kernel.name.as_str()), (1, "mul"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit_product<F: Field>(
    field: &F,
    shape: &FieldShape,
    forward: &Plan,
    inverse: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
    name: &str,
) -> Result<Option<FusedProduct>, CodegenError> {
    // The inverse reads the product of the transforms from `mid`: phase 2 multiplied it,
    // and for a word prime scaled it by 1/n too.
    let (inverse, scales) = InverseScales::unscaled(field, shape, roots, inverse);
    let ([fk], [ik]) = (forward.kernels.as_slice(), inverse.kernels.as_slice()) else {
        return Ok(None);
    };
    if fk.io != Io::FACTOR || ik.io != Io::PRODUCT {
        return Ok(None);
    }
    let ik = KernelPlan {
        io: Io {
            pointwise: false,
            ..ik.io
        },
        ..ik.clone()
    };
    // As many threads as the widest codelet's round has codelets: every thread then works
    // in every round, and no warp of the block only waits at its barriers.
    let options = &EmitOptions {
        max_threads: options.max_threads.min(
            1 << fk
                .log_n
                .saturating_sub(widest_round(fk).max(widest_round(&ik))),
        ),
        ..*options
    };
    let tile = |k| Tile::new(k, shape, options);
    // `mid` in the layout of the inverse's tile, where that tile is the whole transform:
    // the forward transforms write it there and the inverse's first round reads it
    // without a gather (bench/RESULTS.md, "Batch round 5").
    let plain = || Emitter::new(field, shape, &inverse, roots, options, &FUSED_PRODUCT_ARGS);
    let mid_tile = plain().arranged(&ik, tile(&ik)?, options);
    let (writes, reads) = match mid_tile.is_whole(&ik) {
        true => (
            MidLayout::Writes(mid_tile.swizzle.clone(), mid_tile.words()),
            MidLayout::Reads,
        ),
        false => (MidLayout::Plain, MidLayout::Plain),
    };
    let fwd = Emitter {
        mid: writes,
        ..Emitter::new(field, shape, forward, roots, options, &FUSED_PRODUCT_ARGS)
    };
    let phases = |inv: &Emitter<'_, F>, pointwise| -> Result<_, CodegenError> {
        Ok(Passes::of(
            [
                (&fwd, fk, "fwd", Scatter::Store, tile(fk)?),
                (&fwd, fk, "fwd", Scatter::MultiplyInto(pointwise), tile(fk)?),
                (inv, &ik, "inv", Scatter::Store, tile(&ik)?),
            ],
            name,
            options,
        ))
    };
    let inverse_emitter = || Emitter {
        mid: reads.clone(),
        ..plain()
    };
    let passes = match &scales {
        None => phases(&inverse_emitter(), Pointwise::Exact)?,
        Some(s) => {
            // R/n on the inverse's whole-table round, whose every input takes a twiddle
            // from the table, and a pointwise product of one reduction: one Montgomery
            // product an element fewer than R²/n in the pointwise product's second.
            let inv = Emitter {
                whole_factor: Some(s.by_r),
                ..inverse_emitter()
            };
            let folded = phases(&inv, Pointwise::Reduced)?;
            match inv.whole_factor_taken.get() {
                true => folded,
                false => phases(&inverse_emitter(), InverseScales::pointwise(Some(s)))?,
            }
        }
    };
    let Some(Passes {
        bodies: phases,
        tiles,
        tables,
    }) = passes
    else {
        return Ok(None);
    };
    // The inverse arranged its tile as `mid` was laid out for it.
    if let MidLayout::Writes(slots, _) = &fwd.mid {
        debug_assert_eq!(slots, &tiles[2].swizzle, "mid in the inverse tile's layout");
    }
    let threads = tiles[0].threads;
    let element_words = shape.element_bytes / (fwd.word_bits() as u64 / 8);
    let tile_words = tiles.iter().map(Tile::words).max().unwrap_or(0) * element_words;
    let mid_words = match &fwd.mid {
        MidLayout::Writes(_, words) => words * element_words,
        _ => forward.n() * element_words,
    };
    let shared_bytes = (tile_words + mid_words) * (fwd.word_bits() as u64 / 8);
    let one_block = tiles.iter().all(|t| t.s + t.pb == fk.log_n);
    if !one_block
        || tiles.iter().any(|t| t.threads != threads)
        || shared_bytes > options.shared_limit
    {
        return Ok(None);
    }

    let params = FUSED_PRODUCT_ARGS.iter().map(|a| a.param()).collect();
    let mut kernel = Kernel::new(name, params, fused_body(phases))
        .doc(format!(
            "cyclic products of {} points, one per block, fused",
            forward.n()
        ))
        .shared(SharedArray::new(Type::Word, "tile", tile_words))
        .shared(SharedArray::new(Type::Word, "mid", mid_words));
    kernel = match fwd.register_cap(fk) {
        Some(regs) => kernel.launch_bounds_min(threads, blocks_for_registers(threads, regs)),
        None => kernel.launch_bounds(threads),
    };
    let launch = Launch {
        kernel: name.to_string().into(),
        blocks: 1,
        threads,
        shared_bytes,
        pieces_per_block: 1,
        hop: Hop::InputToOutput,
        signals: 0,
        args: &FUSED_PRODUCT_ARGS,
    };
    Ok(Some(FusedProduct {
        kernel,
        launch,
        tables,
    }))
}

/// The most elements a codelet of plan kernel `k` takes, as bits.
fn widest_round(k: &KernelPlan) -> u32 {
    k.steps
        .iter()
        .filter_map(|s| match s {
            Step::Dft { locals } => Some(locals.len() as u32),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Plan kernel `k` without its scaling by 1/n, which a product takes elsewhere.
fn without_scaling(k: &KernelPlan) -> KernelPlan {
    KernelPlan {
        steps: k
            .steps
            .iter()
            .filter(|s| **s != Step::Scale)
            .cloned()
            .collect(),
        ..k.clone()
    }
}

/// The two ways a word prime's product scales by 1/n without a step of its own (SRGFNs,
/// whose products take no reduction by R, have neither): a fused product's whole table,
/// or any product's pointwise multiplication.
pub(super) struct InverseScales<F: Field> {
    /// R/n mod p (R = 2^32 or 2^64), for the entries of the inverse's whole twiddle table:
    /// after a pointwise REDC(a·b) = a·b/R, that round's products bring a·b/n.
    pub(super) by_r: F::Elem,
    /// The table-form word t = R²/n mod p of the pointwise product's second reduction:
    /// REDC(REDC(a·b)·t) = a·b/n. t is the table form of the n^(−1) the scaling would
    /// read, times R once more.
    pub(super) table_word: u64,
}

impl<F: Field> InverseScales<F> {
    /// The scales of the word prime's product `inverse`, a plan that multiplies pointwise
    /// and scales by 1/n; `None` for SRGFNs and for other plans.
    fn of(field: &F, shape: &FieldShape, roots: &Roots<F>, inverse: &Plan) -> Option<Self> {
        let pointwise = inverse.kernels.iter().any(|k| k.io.pointwise);
        let scaled = inverse
            .kernels
            .iter()
            .any(|k| k.steps.contains(&Step::Scale));
        if shape.shift_order.is_some() || !pointwise || !scaled {
            return None;
        }
        let p = field.modulus();
        let r = (BigUint::from(1u8) << (8 * shape.element_bytes)) % &p;
        let by_r = field.mul(roots.n_inv(), &field.from_biguint(&r).ok()?);
        let n_inverse = BigUint::from(montgomery(field, shape, roots.n_inv()));
        let table_word = u64::try_from((n_inverse << (8 * shape.element_bytes)) % p).ok()?;
        Some(InverseScales { by_r, table_word })
    }

    /// The product `inverse` as a word prime's kernels run it — its scaling steps dropped,
    /// with the scales that take 1/n instead — or, for SRGFNs and other plans, `inverse`
    /// itself and `None`.
    pub(super) fn unscaled<'p>(
        field: &F,
        shape: &FieldShape,
        roots: &Roots<F>,
        inverse: &'p Plan,
    ) -> (Cow<'p, Plan>, Option<Self>) {
        match Self::of(field, shape, roots, inverse) {
            Some(scales) => {
                let plan = Plan {
                    kernels: inverse.kernels.iter().map(without_scaling).collect(),
                    ..inverse.clone()
                };
                (Cow::Owned(plan), Some(scales))
            }
            None => (Cow::Borrowed(inverse), None),
        }
    }

    /// The pointwise product of a product whose inverse [`unscaled`](Self::unscaled) gave
    /// `scales`: for a word prime REDC(REDC(a·b)·R²/n), which takes the whole 1/n; a·b
    /// otherwise.
    pub(super) fn pointwise(scales: Option<&Self>) -> Pointwise {
        scales.map_or(Pointwise::Exact, |s| Pointwise::Scaled(s.table_word))
    }
}

/// A pass of a product kernel's phase: its emitter, plan kernel, direction (which names
/// its codelet tables), scatter and tile.
pub(super) type Phase<'e, 'a, F> = (
    &'e Emitter<'a, F>,
    &'e KernelPlan,
    &'static str,
    Scatter,
    Tile,
);

/// The passes of a product kernel's phases, one after another in one block.
pub(super) struct Passes {
    /// The statements of each phase.
    pub(super) bodies: Vec<Vec<Stmt>>,
    /// Each phase's tile, its threads and swizzle arranged.
    pub(super) tiles: Vec<Tile>,
    /// The codelet tables the phases read, each once (both forward phases read the
    /// same).
    pub(super) tables: Vec<Table>,
}

impl Passes {
    /// The passes of `phases` in a kernel named `name`, or `None` where one of them keeps
    /// no tile (a pass without DFT rounds).
    pub(super) fn of<F: Field, const P: usize>(
        phases: [Phase<'_, '_, F>; P],
        name: &str,
        options: &EmitOptions,
    ) -> Option<Passes> {
        let mut out = Passes {
            bodies: Vec::new(),
            tiles: Vec::new(),
            tables: Vec::new(),
        };
        for (em, k, direction, scatter, tile) in phases {
            let mut own = Vec::new();
            let table_name = format!("{name}_{direction}");
            let pass = em.pass_body(k, tile, (&table_name, &mut own), options, scatter);
            if !pass.uses_tile {
                return None;
            }
            for table in own {
                if !out.tables.contains(&table) {
                    out.tables.push(table);
                }
            }
            out.bodies.push(pass.body);
            out.tiles.push(pass.tile);
        }
        Some(out)
    }
}

/// The fused kernel's body from the statements of its three `phases`: each in a block of
/// its own that binds the names a pass reads (`in`, `in_len`, `src_stride`, `out`,
/// `out_len`) to its vectors, with a barrier between phases.
fn fused_body(phases: Vec<Vec<Stmt>>) -> Vec<Stmt> {
    let word = || Type::ptr(Type::Word);
    let factor = |source: &str, stride: Option<&str>| {
        let (base, len) = part(source);
        let mut set_up = vec![
            Stmt::let_(Type::const_ptr(Type::Word), "in", Expr::var(source) + base),
            Stmt::const_(Type::SizeT, "in_len", len),
        ];
        // The forward pass reads the stride of its source as `src_stride`.
        if let Some(stride) = stride {
            set_up.push(Stmt::const_(Type::SizeT, "src_stride", Expr::var(stride)));
        }
        set_up.push(Stmt::let_(word(), "out", Expr::var("mid")));
        set_up
    };
    let (out_base, out_len) = part("dst");
    let set_ups = [
        factor("src", None),
        factor("fac", Some("fac_stride")),
        vec![
            Stmt::let_(Type::const_ptr(Type::Word), "in", Expr::var("mid")),
            Stmt::let_(word(), "out", Expr::var("dst") + out_base),
            Stmt::const_(Type::SizeT, "out_len", out_len),
        ],
    ];
    let labels = [
        "the first factor's transform into mid",
        "the second factor's transform, multiplied into mid",
        "the inverse transform of mid into the product",
    ];
    let phases = set_ups.into_iter().zip(phases).zip(labels);
    phased_body(
        Vec::new(),
        phases.map(|((set_up, phase), label)| (set_up, phase, label)),
    )
}

/// A product kernel's body: `prologue`, then each phase — its set-up (binding the names
/// its pass reads), its statements and its label — in a block of its own, with a barrier
/// between phases, after which the tile is gathered again and what the phase before wrote
/// is read.
pub(super) fn phased_body(
    prologue: Vec<Stmt>,
    phases: impl IntoIterator<Item = (Vec<Stmt>, Vec<Stmt>, &'static str)>,
) -> Vec<Stmt> {
    // Launched, like a plan's first pass, while the kernel before it may still drain: wait
    // for that grid before reading, and let the next launch start.
    let mut body = vec![
        Stmt::Expr(Expr::call("fe_grid_wait", [])),
        Stmt::Expr(Expr::call("fe_grid_release", [])),
    ];
    body.extend(prologue);
    for (i, (set_up, phase, label)) in phases.into_iter().enumerate() {
        if i > 0 {
            body.push(Stmt::sync());
        }
        body.push(Stmt::comment(label));
        body.push(Stmt::Block(set_up.into_iter().chain(phase).collect()));
    }
    body
}
