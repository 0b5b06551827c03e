//! Plan → CUDA kernels: each [`KernelPlan`](crate::plan::KernelPlan) becomes one `__global__` function built with
//! the typed AST of [`crate::cuda`].
//!
//! A thread block owns a *tile*: 2^pb pieces, picked by the piece-index bits that are
//! lowest among the source's or the destination's address bits, so that both the gather
//! and the scatter of a warp touch whole memory sectors. The block gathers its tile into
//! shared memory (padded or XOR-swizzled against bank conflicts; each
//! thread's addresses are a base plus compile-time offsets), runs the plan's steps on
//! it — every DFT step is one round of codelets, one group per thread, with a barrier
//! between rounds; twiddle steps are fused into the loads of the next round, or applied to
//! the last round's outputs in registers — and scatters it. Where the tile is the whole
//! transform, each tile index the element's address, the first round reads the source
//! itself, coalesced, instead of a gathered tile. Twiddles with
//! exponents known at compile time become digit shifts (`fe_mul_rpow<i>`, SRGFNs) or
//! Montgomery constants (word primes); the others read a small table of powers of the
//! largest root ω = ω_{2^L}, followed by n^(−1) (see [`TableLayout`] and
//! [`twiddle_table`]); word-prime codelets after a kernel's first round read their inputs'
//! twiddles from a small `__device__` table of the kernel's own instead
//! ([`Emitted::tables`]).
//!
//! Every kernel takes the arguments of [`TRANSFORM_ARGS`] and is launched as its
//! [`Launch`] says (the contract of [`crate::contract`]). A launch covers `gridDim.y`
//! transforms of the same size stored one after another (batches).

mod bits;
mod codelet;
mod handoff;
mod middle;
mod occupancy;
mod pass;
mod product;
mod round;
mod swizzle;
mod table;
mod tile;
mod twiddle;

pub use middle::{emit_middle, MiddleProduct};
pub use product::{emit_product, FusedProduct};
pub use table::{table_form, twiddle_table, High, TableLayout};

use handoff::Handoffs;
use pass::Pointwise;
use product::InverseScales;
use tile::Tile;

use crate::contract::{Arg, Launch, POLY_TRANSFORM_ARGS, TRANSFORM_ARGS};
use crate::cost::FieldShape;
use crate::cuda::{Kernel, Table};
use crate::error::CodegenError;
use crate::plan::{Direction, Plan};
use fermat_dsl::field::Field;
use fermat_dsl::field::Roots;
use serde::Serialize;
use std::cell::Cell;

/// How kernels are shaped for the device.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// // DFT(1024) by radix 16, in one pass of one block.
/// let formula = derive(&Formula::dft(1024)?, Strategy::Ct, &Options::radix(16))?;
/// let plan = Plan::lower(&formula.final_formula(), PlanOptions::default())?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let threads = |options| {
///     emit(&f, &shape, &plan, &roots, &options, "fwd").map(|e| e.launches[0].threads)
/// };
/// assert_eq!(EmitOptions::default().max_threads, 256);
/// assert_eq!(threads(EmitOptions::default())?, 256);
/// assert_eq!(threads(EmitOptions { max_threads: 64, ..EmitOptions::default() })?, 64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct EmitOptions {
    /// The most threads in a block.
    pub max_threads: u32,
    /// The shared memory a block may use, in bytes (48 KiB without opting in).
    pub shared_limit: u64,
    /// Tiles cover the source and destination address bits below this one where shared
    /// memory allows, so that a warp's loads and stores hit consecutive words.
    pub coalesce_bits: u32,
    /// The bytes of SRGFN twiddle rows read without a shift (see [`TableLayout::of`]).
    pub table_bytes: u64,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            max_threads: 256,
            shared_limit: 48 * 1024,
            coalesce_bits: 5,
            // Rows of 2^18 powers for P2 (8 MiB), a sixth of L2: with them P2 2^24 ran
            // 2% faster on an H200 than with 4 MiB (bench/RESULTS.md).
            table_bytes: 8 << 20,
        }
    }
}

/// The kernels of a plan and how to launch them.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let formula = derive(&Formula::dft(1 << 16)?, Strategy::Ct, &Options::radix(16))?;
/// let options = PlanOptions { max_local_bits: 8, ..PlanOptions::default() };
/// let plan = Plan::lower(&formula.final_formula(), options)?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let e = emit(&f, &shape, &plan, &roots, &EmitOptions::default(), "fwd")?;
/// assert_eq!((e.kernels.len(), e.launches.len()), (2, 2)); // a kernel and a launch a pass
/// assert!(e.kernels.iter().zip(&e.launches).all(|(k, l)| k.name == l.kernel));
/// assert_eq!(e.layout.rows(), 256 + 256 + 1); // ω^i and ω^(256·j) for i, j < 256, then 1/n
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// The kernels, in launch order.
    pub kernels: Vec<Kernel>,
    /// One launch per kernel.
    pub launches: Vec<Launch>,
    /// Constant tables the kernels read (file scope, before them).
    pub tables: Vec<Table>,
    /// The rows of the twiddle table `tw` ([`TableLayout::rows`] counts them).
    pub layout: TableLayout,
}

struct Emitter<'a, F: Field> {
    field: &'a F,
    shape: &'a FieldShape,
    roots: &'a Roots<F>,
    inverse: bool,
    log_table: u32,
    layout: TableLayout,
    n: u64,
    /// The kernels' arguments: [`TRANSFORM_ARGS`] for whole vectors,
    /// [`POLY_TRANSFORM_ARGS`] for plans of any other [`Io`](crate::plan::Io).
    args: &'static [Arg],
    /// Whether a pass's source and destination pointers are `__restrict__`: all but the
    /// middle kernel's inverse pass, which reads back what its forward passes wrote
    /// ([`emit_middle`]).
    restrict: bool,
    /// A factor c for every input of the first round that reads a whole twiddle table
    /// ([`Emitter::whole_table`]): its entries become ω^e·c, so that the round scales the
    /// transform by c for nothing. Set where a fused product folds its inverse's 1/n there
    /// ([`emit_product`]); `whole_factor_taken` records that a round took it.
    whole_factor: Option<F::Elem>,
    whole_factor_taken: Cell<bool>,
    /// How a pass that multiplies pointwise as it reads ([`Io::pointwise`]) multiplies.
    ///
    /// [`Io::pointwise`]: crate::plan::Io::pointwise
    pointwise: Pointwise,
    /// Where a pass's vectors are a fused product's `mid`, laid out as the tile of the
    /// pass that reads it ([`emit_product`]).
    mid: MidLayout,
}

/// How a fused product's forward passes write the shared vector `mid` and its inverse pass
/// reads it: in the layout of the inverse's tile, so that the inverse's first round reads
/// it as it would read its tile, without a gather ([`emit_product`]).
#[derive(Clone, Debug, Default)]
enum MidLayout {
    /// The pass's vectors are plain vectors of n elements (every other kernel).
    #[default]
    Plain,
    /// The pass writes `mid` at slot `swizzle(i)` of element i, digits `words` apart.
    Writes(swizzle::Swizzle, u64),
    /// The pass reads `mid` as its own tile.
    Reads,
}

impl<'a, F: Field> Emitter<'a, F> {
    /// The emitter of `plan`'s kernels, which take `args`.
    fn new(
        field: &'a F,
        shape: &'a FieldShape,
        plan: &Plan,
        roots: &'a Roots<F>,
        options: &EmitOptions,
        args: &'static [Arg],
    ) -> Self {
        Emitter {
            field,
            shape,
            roots,
            inverse: plan.options.direction == Direction::Inverse,
            log_table: plan.max_log_order(),
            layout: TableLayout::of(shape, roots, options.table_bytes),
            n: plan.n(),
            args,
            restrict: true,
            whole_factor: None,
            whole_factor_taken: Cell::new(false),
            pointwise: Pointwise::Exact,
            mid: MidLayout::Plain,
        }
    }
}

/// Emits the kernels of `plan` over `field`, whose rotations use `roots` (compile-time
/// rotations are baked in, so kernels are specific to the roots' family and direction).
///
/// Kernels are named `{prefix}_k{i}` in launch order.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Direction, Plan, PlanOptions};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?; // babybear
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let inverse = PlanOptions { direction: Direction::Inverse, ..PlanOptions::default() };
/// let plan = Plan::lower(&Formula::dft(256)?, inverse)?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let e = emit(&f, &shape, &plan, &roots, &EmitOptions::default(), "inv")?;
/// let cuda = e.kernels[0].to_string();
/// assert!(cuda.contains("extern \"C\" __global__ void") && cuda.contains("inv_k0("));
/// assert_eq!(e.launches[0].kernel, "inv_k0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit<F: Field>(
    field: &F,
    shape: &FieldShape,
    plan: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
    prefix: &str,
) -> Result<Emitted, CodegenError> {
    let args: &'static [Arg] = if plan.io().is_whole() {
        &TRANSFORM_ARGS
    } else {
        &POLY_TRANSFORM_ARGS
    };
    // A word prime's product inverse takes its 1/n in the pointwise product, whose second
    // reduction multiplies by R²/n where `fe_mul` multiplies by R²: its passes then scale
    // nothing, one Montgomery product an element fewer (bench/RESULTS.md, batch round 4).
    let (unscaled, scales) = InverseScales::unscaled(field, shape, roots, plan);
    let plan = &*unscaled;
    let em = Emitter {
        pointwise: InverseScales::pointwise(scales.as_ref()),
        ..Emitter::new(field, shape, plan, roots, options, args)
    };
    let layout = em.layout;
    let mut kernels = Vec::new();
    let mut launches = Vec::new();
    let mut tables = Vec::new();
    let tiles: Vec<Tile> = plan
        .kernels
        .iter()
        .map(|k| Tile::new(k, shape, options))
        .collect::<Result<_, _>>()?;
    // Word-prime passes are short per block: the hand-offs' fences and registers (their
    // kernels are held to 64) cost about what the drained tails give back, so they keep
    // whole-pass waits (bench/RESULTS.md, tuning round 10).
    let handoffs = Handoffs::of(plan, &tiles, shape.shift_order.is_some());
    for (i, ((k, tile), h)) in plan.kernels.iter().zip(tiles).zip(&handoffs).enumerate() {
        let name = format!("{prefix}_k{i}");
        let (kernel, launch) = em.kernel(k, tile, &name, options, h, &mut tables)?;
        kernels.push(kernel);
        launches.push(launch);
    }
    Ok(Emitted {
        kernels,
        launches,
        tables,
        layout,
    })
}
