//! Plan → CUDA kernels: each [`KernelPlan`] becomes one `__global__` function built with
//! the typed AST of [`crate::cuda`].
//!
//! A thread block owns a *tile*: 2^pb pieces, picked by the piece-index bits that are
//! lowest among the source's or the destination's address bits, so that both the gather
//! and the scatter of a warp touch whole memory sectors. The block gathers its tile into
//! shared memory (padded or XOR-swizzled against bank conflicts; each
//! thread's addresses are a base plus compile-time offsets), runs the plan's steps on
//! it — every DFT step is one round of codelets, one group per thread, with a barrier
//! between rounds; twiddle steps are fused into the loads of the next round, or applied to
//! the last round's outputs in registers — and scatters it. Twiddles with
//! exponents known at compile time become digit shifts (`fe_mul_rpow<i>`, SRGFNs) or
//! Montgomery constants (word primes); the others read a small table of powers of the
//! largest root ω = ω_{2^L}, followed by n^(−1) (see [`TableLayout`] and
//! [`twiddle_table`]); word-prime codelets after a kernel's first round read their inputs'
//! twiddles from a small `__device__` table of the kernel's own instead
//! ([`Emitted::tables`]).
//!
//! Kernel arguments, in order: `src`, `dst`, `tw` (the table). A launch covers
//! `gridDim.y` transforms of the same size stored one after another (batches).

use crate::cost::FieldShape;
use crate::cuda::{fe, Expr, Kernel, Param, SharedArray, Stmt, Table, Type};
use crate::error::CodegenError;
use crate::exec::{Roots, Shift};
use crate::plan::{BitField, BitSource, Buffer, Codelet, Direction, KernelPlan, Op, Plan, Step};
use crate::prelude::GOLDILOCKS;
use fermat_dsl::field::Field;
use num_bigint::BigUint;
use serde::Serialize;

/// How kernels are shaped for the device.
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

/// How to launch one kernel: the manifest entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// The kernel's name.
    pub kernel: String,
    /// Blocks along x (one per tile); y counts the transforms of a batch.
    pub blocks: u64,
    /// Threads per block.
    pub threads: u32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u64,
    /// Pieces per tile.
    pub pieces_per_block: u64,
    /// The buffer read (`input`, `output` or `scratch`).
    pub src: &'static str,
    /// The buffer written.
    pub dst: &'static str,
    /// The hand-off counters this kernel's blocks count up, per transform of a batch: the
    /// next kernel's blocks wait on them (`flags`, see [`KERNEL_ARGS`]).
    pub signals: u64,
}

/// The kernels of a plan and how to launch them.
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

/// The arguments every kernel takes, in order: the buffer read, the buffer written, the
/// twiddle table, the hand-off counters between the passes of a plan (`u32`: per transform
/// of a batch, as many as the launches' `signals` summed; zero before the first call) and
/// the call's epoch (1 for the first call after the counters were zeroed, one more for each
/// call after it, all with the same batch): a pass waits until each counter it reads
/// reaches epoch × its writers. Epoch 0 leaves the counters alone: each pass then waits
/// for the whole pass before it (programmatic dependent launch, or plain stream order).
pub const KERNEL_ARGS: [&str; 5] = ["src", "dst", "tw", "flags", "epoch"];

fn buffer_name(b: Buffer) -> &'static str {
    match b {
        Buffer::Input => "input",
        Buffer::Output => "output",
        Buffer::Scratch => "scratch",
    }
}

/// A multiplication by a constant root power, as the device does it.
enum Constant {
    /// `fe_mul_rpow<i>`.
    Shift(u32),
    /// `fe_mul_mont(v, literal)`: a word prime constant in Montgomery form.
    Literal(u64),
    /// `fe_mul_shoup(v, w, ⌊w·2^32/p⌋)`: a constant w of a 32-bit word prime below 2^31,
    /// by Shoup's method (one high and two low products, no 64-bit product).
    Shoup(u32, u32),
    /// ω^e (ω = ω_{2^L}) for an exponent e < 2^L, read through the [`TableLayout`].
    Row(u64),
}

struct Emitter<'a, F: Field> {
    field: &'a F,
    shape: &'a FieldShape,
    roots: &'a Roots<F>,
    inverse: bool,
    log_table: u32,
    layout: TableLayout,
    n: u64,
}

/// How a twiddle ω^e (ω = ω_{2^L}, e < 2^L) is read from the table.
///
/// A table of all 2^L powers would be as large as the data and read at scattered rows, so
/// a pass with twiddles would move about twice the bytes of one without. Instead e is
/// split as e = e_lo + 2^h·e_hi: rows 0..2^h hold ω^(e_lo), and ω^(2^h·e_hi) comes from a
/// second table of 2^(L−h) rows (word primes: one extra Montgomery product, and both
/// tables stay in the L1 and L2 caches) or, for an SRGFN, is a power of r: with
/// h = L − log2 g, ω^(2^h) = ω_g = r^amount, so ω^(2^h·e_hi) costs a digit shift.
///
/// That shift, after a full product, is a tenth of an SRGFN twist's instructions. Twiddles
/// of a small order 2^o ≤ 2^C (those of every pass but the first) are all powers of
/// ω_{2^C}, so an SRGFN table also holds the 2^C powers of ω_{2^C} whole (the *coarse*
/// rows), as many as fit [`EmitOptions::table_bytes`]; they are read without a shift. When
/// all 2^L powers fit, the table is whole (h = L) and no twiddle needs a shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableLayout {
    /// L: the table serves powers of ω_{2^L}.
    pub log_order: u32,
    /// h: rows 0..2^h hold ω^i.
    pub lo_bits: u32,
    /// How ω^(2^h·e_hi) is applied.
    pub high: High,
    /// C: after the high table, 2^C rows hold the powers of ω_{2^C} (0: no such rows).
    pub coarse_bits: u32,
}

/// The high part of a twiddle exponent (see [`TableLayout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum High {
    /// h = L: the table holds every power.
    None,
    /// Rows 2^h..2^h + 2^(L−h) hold ω^(2^h·j).
    Table,
    /// ω^(2^h·j) = r^(amount·j mod 2k): a shift.
    Shift(Shift),
}

/// Word-prime tables up to 2^SPLIT_BITS rows are kept whole: they fit the caches, and the
/// split would cost a multiplication for nothing.
const SPLIT_BITS: u32 = 12;

impl TableLayout {
    /// The layout the kernels of a plan with these roots read, for SRGFN tables whose rows
    /// read without a shift may take `table_bytes` (see [`EmitOptions::table_bytes`]).
    pub fn of<F: Field>(shape: &FieldShape, roots: &Roots<F>, table_bytes: u64) -> TableLayout {
        let l = roots.log_order();
        // The most powers of ω_{2^C} that fit the budget: C = ⌊log2(bytes / row)⌋.
        let fit = (table_bytes / shape.element_bytes.max(1)).max(1).ilog2();
        let (lo_bits, high, coarse_bits) = match (shape.shift_order, roots.shift()) {
            (Some(_), Some(_)) if l <= fit => (l, High::None, 0),
            (Some(_), Some(shift)) if shift.log_g < l => {
                // Coarse rows only pay for orders above g, whose twiddles are shifts.
                let coarse = if fit > shift.log_g { fit } else { 0 };
                (l - shift.log_g, High::Shift(shift), coarse)
            }
            (None, _) if l > SPLIT_BITS => (l.div_ceil(2), High::Table, 0),
            _ => (l, High::None, 0),
        };
        TableLayout {
            log_order: l,
            lo_bits,
            high,
            coarse_bits,
        }
    }

    /// Rows of the high table (0 unless it is [`High::Table`]).
    fn high_rows(&self) -> u64 {
        match self.high {
            High::Table => 1 << (self.log_order - self.lo_bits),
            _ => 0,
        }
    }

    /// Rows of the coarse table.
    fn coarse_rows(&self) -> u64 {
        if self.coarse_bits == 0 {
            0
        } else {
            1 << self.coarse_bits
        }
    }

    /// The row of ω_{2^C}^0 (the first coarse row).
    fn coarse_base(&self) -> u64 {
        (1u64 << self.lo_bits) + self.high_rows()
    }

    /// Whether every twiddle of order 2^log_order has a coarse row.
    fn coarse_covers(&self, log_order: u32) -> bool {
        self.coarse_bits > 0 && log_order <= self.coarse_bits
    }

    /// The coarse row that holds ω^e, if there is one (e a multiple of 2^(L−C)).
    fn coarse_row(&self, e: u64) -> Option<u64> {
        let stride = self.log_order - self.coarse_bits;
        (self.coarse_bits > 0 && e.trailing_zeros() >= stride)
            .then(|| self.coarse_base() + (e >> stride))
    }

    /// Rows in all: the tables and n^(−1).
    pub fn rows(&self) -> u64 {
        self.coarse_base() + self.coarse_rows() + 1
    }

    /// What the rows hold, in words (for manifests).
    pub fn describe(&self) -> String {
        let h = self.lo_bits;
        let mut parts = vec![format!("rows 0..2^{h}: root^i")];
        if self.high_rows() > 0 {
            parts.push(format!(
                "the next 2^{}: root^(2^{h}*j)",
                self.log_order - self.lo_bits
            ));
        }
        if self.coarse_rows() > 0 {
            parts.push(format!(
                "the next 2^{}: root^(2^{}*m)",
                self.coarse_bits,
                self.log_order - self.coarse_bits
            ));
        }
        if let High::Shift(s) = self.high {
            parts.push(format!(
                "root^(2^{h}) = r^{} (a digit shift, not stored)",
                s.amount
            ));
        }
        parts.push("the last row: n^-1".into());
        parts.join("; ")
    }

    /// The exponents of ω whose powers the rows hold, in order (n^(−1) excluded).
    pub fn exponents(&self) -> impl Iterator<Item = u64> + '_ {
        let lo = 0..1u64 << self.lo_bits;
        let hi = (0..self.high_rows()).map(move |j| j << self.lo_bits);
        let stride = self.log_order - self.coarse_bits;
        let coarse = (0..self.coarse_rows()).map(move |m| m << stride);
        lo.chain(hi).chain(coarse)
    }
}

/// The twiddle table of a plan in device words: the rows of `layout` (powers of ω in the
/// field's table form: w·R mod p for word primes, the digits for SRGFNs, row by row), then
/// n^(−1). Inverse plans read it at negated exponents, so one table serves both
/// directions.
pub fn twiddle_table<F: Field>(
    field: &F,
    shape: &FieldShape,
    roots: &Roots<F>,
    layout: &TableLayout,
) -> Vec<u64> {
    let omega = roots.power(field, 1);
    let mut values = Vec::with_capacity(layout.rows() as usize);
    // Each part is the powers of one step: ω, ω^(2^h) and ω^(2^(L−C)).
    let mut push_powers = |step: &F::Elem, count: u64| {
        let mut acc = field.one();
        for _ in 0..count {
            values.push(acc);
            acc = field.mul(&acc, step);
        }
    };
    push_powers(&omega, 1 << layout.lo_bits);
    let pow2 = |bits: u32| (0..bits).fold(omega, |w, _| field.mul(&w, &w));
    push_powers(&pow2(layout.lo_bits), layout.high_rows());
    push_powers(
        &pow2(layout.log_order - layout.coarse_bits),
        layout.coarse_rows(),
    );
    values.push(*roots.n_inv());
    match shape.shift_order {
        None => values.iter().map(|v| montgomery(field, shape, v)).collect(),
        Some(order) => {
            let k = (order / 2) as usize;
            values.iter().flat_map(|v| digits(field, v, k)).collect()
        }
    }
}

/// w·R mod p for a word prime (R = 2^32 or 2^64): the form `fe_mul_mont` multiplies by.
fn montgomery<F: Field>(field: &F, shape: &FieldShape, v: &F::Elem) -> u64 {
    let bits = 8 * shape.element_bytes as usize;
    let value = (field.to_biguint(v) << bits) % field.modulus();
    u64::try_from(value).expect("a residue of a word prime fits a word")
}

/// The base-r digits of an SRGFN element (least significant first), with p − 1 as
/// digit r on top.
fn digits<F: Field>(field: &F, v: &F::Elem, k: usize) -> Vec<u64> {
    let p = field.modulus();
    let x = field.to_biguint(v);
    let r_k = &p - 1u32;
    if x == r_k {
        let mut d = vec![0; k];
        // r = (p − 1)^(1/k): the top digit of p − 1 is r itself.
        d[k - 1] = nth_root(&r_k, k as u32);
        return d;
    }
    let r = BigUint::from(nth_root(&r_k, k as u32));
    let mut rest = x;
    (0..k)
        .map(|_| {
            let d = u64::try_from(&rest % &r).expect("a digit is below r < 2^64");
            rest /= &r;
            d
        })
        .collect()
}

fn nth_root(x: &BigUint, k: u32) -> u64 {
    u64::try_from(x.nth_root(k)).expect("r fits 64 bits")
}

/// Emits the kernels of `plan` over `field`, whose rotations use `roots` (compile-time
/// rotations are baked in, so kernels are specific to the roots' family and direction).
///
/// Kernels are named `{prefix}_k{i}` in launch order.
pub fn emit<F: Field>(
    field: &F,
    shape: &FieldShape,
    plan: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
    prefix: &str,
) -> Result<Emitted, CodegenError> {
    let log_table = plan.max_log_order();
    let layout = TableLayout::of(shape, roots, options.table_bytes);
    let em = Emitter {
        field,
        shape,
        roots,
        inverse: plan.options.direction == Direction::Inverse,
        log_table,
        layout,
        n: plan.n(),
    };
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

/// One bit of a hand-off group (see [`Handoff`]): the writer's block-index bit and the
/// reader's bits that name the same group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GroupBit {
    /// The writer's block-index bit.
    writer: u32,
    /// The reader's block-index bit that reads the same address bit.
    raw: u32,
    /// The reader's block-index bit that writes the address bit the writer read it from
    /// (equal to `raw` when the reader does not write the writer's source).
    war: u32,
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
struct Handoff {
    /// Group bit t, least significant first.
    bits: Vec<GroupBit>,
    /// Writer blocks per group.
    writers: u64,
}

impl Handoff {
    /// The hand-off from writer `w` (tile `wt`) to reader `r` (tile `rt`), which reads the
    /// buffer `w` writes.
    fn between(w: &KernelPlan, wt: &Tile, r: &KernelPlan, rt: &Tile) -> Handoff {
        let overwrites = r.dst_buffer == w.src_buffer;
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
    fn groups(&self) -> u64 {
        1 << self.bits.len()
    }

    /// The group, from the block-index bits that `side` picks.
    fn group(&self, side: impl Fn(&GroupBit) -> u32) -> Expr {
        let bits: Vec<Bit> = self.bits.iter().map(|b| Bit::Of("blk", side(b))).collect();
        let (c, e) = assemble(&bits, Type::SizeT);
        or_constant(c, e, &Type::SizeT)
    }
}

/// A kernel's part in the hand-offs of its plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Handoffs {
    /// The hand-off from the kernel before, and the first counter of its groups (per
    /// transform of a batch).
    wait: Option<(Handoff, u64)>,
    /// The hand-off to the kernel after, and the first counter of its groups.
    signal: Option<(Handoff, u64)>,
    /// Block-index bit l is bit `dispatch[l]` of `blockIdx.x`.
    dispatch: Vec<u32>,
    /// The counters of all the plan's hand-offs, per transform of a batch.
    total: u64,
}

impl Handoffs {
    /// The hand-offs of a plan's kernels (`tiles`: theirs); none unless `hand_off`, and
    /// then the blocks start in index order.
    fn of(plan: &Plan, tiles: &[Tile], hand_off: bool) -> Vec<Handoffs> {
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
    fn dispatch_order(&self, bits: u32) -> Vec<u32> {
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

/// One bit of a value: a known constant, or bit `bit` of a run-time variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bit {
    Known(u64),
    Of(&'static str, u32),
}

/// `Σ bit_i << i` as an expression, merging runs of consecutive bits of one variable into
/// one shift and mask; `None` when every bit is known (the value is `constant`).
fn assemble(bits: &[Bit], ty: Type) -> (u64, Option<Expr>) {
    let mut constant = 0u64;
    let mut terms: Vec<Expr> = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        match bits[i] {
            Bit::Known(b) => {
                constant |= b << i;
                i += 1;
            }
            Bit::Of(var, from) => {
                let mut len = 1;
                while i + len < bits.len() && bits[i + len] == Bit::Of(var, from + len as u32) {
                    len += 1;
                }
                let mask = if len >= 64 {
                    u64::MAX
                } else {
                    (1u64 << len) - 1
                };
                let v = Expr::var(var).cast(ty.clone());
                let shifted = if from > 0 {
                    v >> lit(&ty, from as u64)
                } else {
                    v
                };
                let masked = shifted & lit(&ty, mask);
                let placed = if i > 0 {
                    masked << lit(&ty, i as u64)
                } else {
                    masked
                };
                terms.push(placed);
                i += len;
            }
        }
    }
    let expr = terms.into_iter().reduce(|a, b| a | b);
    (constant, expr)
}

fn lit(ty: &Type, v: u64) -> Expr {
    match ty {
        Type::U32 => Expr::u32(v as u32),
        _ => Expr::u64(v),
    }
}

fn or_constant(constant: u64, expr: Option<Expr>, ty: &Type) -> Expr {
    match (constant, expr) {
        (c, None) => lit(ty, c),
        (0, Some(e)) => e,
        (c, Some(e)) => e | lit(ty, c),
    }
}

/// 32-bit registers of one multiprocessor (every architecture since sm_50).
const REGISTER_FILE: u32 = 65_536;
/// Resident blocks of one multiprocessor at most (sm_90).
const MAX_BLOCKS_PER_SM: u32 = 32;

/// Registers per thread that the kernels of an SRGFN of at most SMALL_K digits are held
/// to. ptxas gives P2's kernels 72 registers by itself, which leaves room for 3 blocks of
/// 256 threads per multiprocessor; held to 64 (4 blocks, 32 warps) they spill 8 bytes and
/// the 2^24-point transform ran 7% faster on an H200 (bench/RESULTS.md): with 6 warps per
/// scheduler these kernels issued an instruction every 2.2 cycles, waiting on shared memory,
/// barriers and dependent carries, and more warps hide more of that. Larger elements need
/// their registers: P3's multiplication alone takes 64, and P4 held to 128 ran slower.
const SMALL_SRGFN_REGISTERS: u32 = 64;
/// The most digits an SRGFN may have for [`SMALL_SRGFN_REGISTERS`] to apply.
const SMALL_K: u64 = 4;

/// Registers per thread that the kernels of an SRGFN of k digits are held to, if any:
/// [`SMALL_SRGFN_REGISTERS`] up to [`SMALL_K`] digits, 168 from 9 to 16 (P4: 3 blocks of
/// 128 threads). Registers are allocated eight per thread at a time, so a P4 kernel that
/// ptxas leaves at 170 registers fits only 2 blocks: held to 168 without spilling, P4 2^20
/// ran in 1.07 ms against 1.12 (bench/RESULTS.md, tuning round 8). A P4 kernel that also
/// scales by 1/n is left alone: ptxas gives it 155 registers by itself, but under the bound
/// it spilled 120 bytes and ran 12% slower. Other sizes are left to ptxas.
fn srgfn_register_cap(k: u64, scaled: bool) -> Option<u32> {
    match k {
        0..=SMALL_K => Some(SMALL_SRGFN_REGISTERS),
        9..=16 if !scaled => Some(168),
        _ => None,
    }
}

/// The resident blocks of `threads` threads to ask for so that ptxas keeps each thread to
/// `regs` registers.
fn blocks_for_registers(threads: u32, regs: u32) -> u32 {
    (REGISTER_FILE / (threads * regs)).clamp(1, MAX_BLOCKS_PER_SM)
}

/// Registers per thread that goldilocks' kernels are held to: 4 blocks of 256 threads.
/// ptxas leaves its first passes at 68–70 registers (3 blocks); held to 64 they do not
/// spill, and goldilocks 2^24 ran 1.7% faster on an H200 (bench/RESULTS.md, tuning round
/// 9). Other 64-bit primes take Montgomery's REDC on 64-bit products, need 92–96
/// registers in their first passes, and spilled under the same bound.
const GOLDILOCKS_REGISTERS: u32 = 64;

/// Tiles grow to 2^MIN_TILE_BITS elements where shared memory allows: 256 threads with
/// a radix-16 codelet each.
const MIN_TILE_BITS: u32 = 12;

/// The tile of a kernel: which physical bits a block owns.
struct Tile {
    /// log2 of the piece size.
    s: u32,
    /// Pieces per tile, log2.
    pb: u32,
    /// The tile's physical bits, ascending; tile-index bit of each.
    bits: Vec<(u32, u32)>,
    /// Physical bits of the block index, ascending.
    block_bits: Vec<u32>,
    /// Where each piece-index bit comes from: a tile bit (`i`) or a block bit (`blk`).
    piece_src: Vec<Bit>,
    /// Where tile elements live in shared memory.
    swizzle: Swizzle,
    /// Threads per block.
    threads: u32,
}

impl Tile {
    fn new(
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
        let mut pb = 0;
        while (pb as usize) < wanted.len()
            && (low(wanted[pb as usize]) < options.coalesce_bits || s + pb < MIN_TILE_BITS)
            && bytes(pb + 1) <= options.shared_limit
            && s + pb < 20
        {
            pb += 1;
        }
        let chosen = &wanted[..pb as usize];
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
        Ok(Tile {
            s,
            pb,
            bits,
            block_bits,
            piece_src,
            swizzle: Swizzle::none(),
            threads: 1,
        })
    }

    /// The tile index of element q when q's bits go to the tile bits of `order`.
    fn index_of(order: &[(u32, u32)], q: u64) -> u64 {
        order
            .iter()
            .enumerate()
            .fold(0, |acc, (u, &(_, ti))| acc | (((q >> u) & 1) << ti))
    }

    /// The tile indices of the first warp's accesses in every phase of a kernel: each of
    /// the gather's stores and the scatter's loads (element q = tq + r·threads, [`Visit`]),
    /// each codelet load and store of every round (`rounds`: the DFT bits and the order in
    /// which the group index fills the other bits).
    fn warp_accesses(
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
            let base = |g: u64| -> u64 {
                free.iter()
                    .enumerate()
                    .fold(0, |acc, (u, &c)| acc | (((g >> u) & 1) << c))
            };
            for v in 0..1u64 << locals.len() {
                let off = locals
                    .iter()
                    .enumerate()
                    .fold(0, |acc, (i, &c)| acc | (((v >> i) & 1) << c));
                // Loads and stores of a codelet touch the same set of offsets.
                let idx: Vec<u64> = (0..groups).map(|g| base(g) | off).collect();
                accesses.push(idx.clone());
                accesses.push(idx);
            }
        }
        accesses
    }

    fn size(&self) -> u64 {
        1 << (self.s + self.pb)
    }

    /// Element slots the tile spans in shared memory (more than its size when padded).
    fn words(&self) -> u64 {
        self.swizzle.span(self.size())
    }

    /// The source of piece-index bit c.
    fn piece_bit(&self, c: u32) -> Bit {
        self.piece_src[c as usize].clone()
    }
}

/// The steps of one round of a kernel: the DFT along tile bits `locals`, the rotations
/// fused into its loads (`pre`) and those applied to its outputs (`post`).
struct RoundSteps<'k> {
    locals: &'k [u32],
    pre: Vec<&'k Step>,
    post: Vec<&'k Step>,
}

/// How the threads of a block take the codelets of one round.
struct RoundLayout {
    /// The tile bits outside the codelet's, in the order the group index fills them: group
    /// bit u is thread bit u below the round's thread count, a loop counter's bit above.
    free: Vec<u32>,
    /// The rotations specialised on warp-uniform bits, if any.
    uniform: Option<Uniform>,
}

/// Rotations of a round whose exponents depend, at run time, only on bits that are the same
/// across a warp: SRGFN shifts by powers of r — the inner twiddles of a DFT(2k) split into
/// codelets, whose exponent bits the round gives to the warp index, or shifts set by the
/// block index. Each value of those bits can get a case of a `switch` with its shifts at
/// compile time (a negacyclic rotation and one subtraction, `fe_mul_rpow<i>`) instead of
/// a run-time shift through a barrel shifter (`fe_mul_rpow_rt`) on every element; the
/// branch is uniform, so no warp diverges.
struct Uniform {
    /// The run-time bits the cases are taken on, lowest first (`base` or `blk` bits).
    bits: Vec<Bit>,
    /// Whether the rotations of the loads depend on them only.
    pre: bool,
    /// Whether the rotations of the outputs depend on them only.
    post: bool,
}

/// The most compile-time shifts the cases of one `switch` may hold together ([`Uniform`]).
/// Each is straight-line code over k digits, and the SRGFN passes are sensitive to the
/// instruction cache: on an H200 the switches took P2 2^24 from 3.82 to 3.72 ms (three
/// shifts each) and P4 2^20 from 1.13 to 1.11 ms (one or two), but P3 2^20 from 0.428 to
/// 0.440 ms (nine), which keeps its run-time shifts (bench/RESULTS.md, tuning round 7).
const MAX_SPECIALISED_SHIFTS: usize = 8;

/// The most run-time bits a codelet's own twiddle table is indexed by
/// ([`Emitter::codelet_table`]): 2^5 entries for each of up to 16 elements, at most 2 KiB
/// of 32-bit words or 4 KiB of 64-bit ones in L1.
const CODELET_TABLE_BITS: u32 = 5;

/// The exponents of a codelet's rotations, split as [`Emitter::codelet_exponents`] says.
struct CodeletExponents {
    /// The run-time terms of E_0: (coefficient, value), coefficients scaled to ω_{2^L}.
    e0: Vec<(u64, Expr)>,
    /// The run-time terms of each K_l, the same way.
    k: Vec<Vec<(u64, Expr)>>,
    /// The run-time bits the K_l depend on, each with its weight in every K_l.
    k_bits: Vec<(Bit, Vec<u64>)>,
    /// Per element v: Q(v) plus the compile-time parts of E_0 and of the K_l (mod 2^L, not
    /// yet negated for inverse plans).
    q: Vec<u64>,
}

/// The loads' twiddles of a codelet read from a table ([`Emitter::codelet_table`]).
struct CodeletTable {
    /// The loads' rotations.
    shared: Shared,
    /// The run-time terms of E_0, for the outputs' twiddles to take.
    moved: Vec<(u64, Expr)>,
    /// The table, unless every row is a constant.
    table: Option<Table>,
}

/// The rotations of a codelet's elements, worked out for the whole codelet at once: per
/// element, a run-time factor and a compile-time exponent (already negated for inverse
/// plans).
struct Shared {
    /// Run-time twiddles in Montgomery form.
    factors: Vec<Option<Expr>>,
    consts: Vec<u64>,
}

/// Lanes of a warp, log2.
const WARP_BITS: u32 = 5;

/// The run-time bit that a rotation exponent's source bit is in a round along `locals`:
/// a tile bit of the group's `base`, a block bit or a constant; `None` for the codelet's
/// own bits, which every element knows at compile time.
fn round_bit(tile: &Tile, locals: &[u32], src: BitSource) -> Option<Bit> {
    match src {
        BitSource::Local(c) if locals.contains(&c) => None,
        BitSource::Local(c) => Some(Bit::Of("base", c)),
        BitSource::Piece(c) => Some(match tile.piece_bit(c) {
            Bit::Of("i", t) => Bit::Of("base", t),
            other => other,
        }),
    }
}

/// The part of `bits` that comes from the variables `vars` (every other bit zero), as an
/// expression of type `ty`. Parts from disjoint sets of variables have disjoint bits, so
/// their sum is the whole: an address becomes a per-thread base plus constants once the
/// unrolled counters are known.
fn part(bits: &[Bit], vars: &[&str], ty: &Type) -> Expr {
    let kept: Vec<Bit> = bits
        .iter()
        .map(|b| match b {
            Bit::Of(v, _) if vars.contains(v) => b.clone(),
            _ => Bit::Known(0),
        })
        .collect();
    let (c, e) = assemble(&kept, ty.clone());
    or_constant(c, e, ty)
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
struct Visit {
    t: u32,
    lv: u32,
    lo: u32,
}

impl Visit {
    /// Where bit u of q comes from.
    fn bit(&self, u: u32) -> Bit {
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
/// and where each physical bit of the tile's elements goes in its address.
struct Ptr<'a> {
    base: &'static str,
    written: bool,
    dest: &'a [u32],
}

/// A loop nest over a tile built by [`Emitter::tile_visit`]: statements per thread, per
/// outer iteration, and at the head of the unrolled body (defining `i`, the element's tile
/// index), the element's shared-memory slot, and per pointer (pointer, offset).
struct Nest {
    threads: u32,
    visit: Visit,
    thread: Vec<Stmt>,
    outer: Vec<Stmt>,
    head: Vec<Stmt>,
    slot: Expr,
    global: Vec<(Expr, Expr)>,
}

impl Nest {
    /// The loops around `body`, inside a [`thread_loop`].
    fn wrap(self, body: Vec<Stmt>) -> Stmt {
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
fn thread_loop(threads: u32, body: Vec<Stmt>) -> Stmt {
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

/// Where tile element i lives in shared memory: either i with its bank bits (the low
/// `mask` bits) XORed with the bits above them shifted down, `i ^ (((i >> a) ^ (i >> b)) &
/// mask)`, or i padded, `i + (i >> a) + (i >> b)` (one spare word after every 2^a).
///
/// Rounds read the tile at power-of-two strides, and gathers and scatters at digit-reversed
/// indices; laid out plainly, 16 threads of a warp hit one bank in the worst rounds. Both
/// maps are one-to-one and split over disjoint bit fields — the XOR map is linear over
/// GF(2), the padding additive — so an access `base | offset` becomes `swz(base) ^
/// swz(offset)` or `pad(base) + pad(offset)`: with the offset known at compile time, one XOR
/// per access, or nothing at all (the addition folds into the load's immediate offset). The
/// map is chosen per kernel by counting the shared-memory wavefronts of the first warp's
/// accesses in every phase of the kernel, an XOR counting as one more
/// ([`Swizzle::choose`]); the other warps' accesses differ from those by a constant,
/// which either map turns into a constant XOR or offset of the words, so they conflict
/// alike.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Swizzle {
    shifts: Vec<u32>,
    mask: u64,
    /// Padding (additive) rather than XOR.
    pad: bool,
}

/// Banks of shared memory, 4 bytes wide.
const BANKS: u64 = 32;

impl Swizzle {
    fn none() -> Swizzle {
        Swizzle {
            shifts: Vec::new(),
            mask: 0,
            pad: true,
        }
    }

    fn apply(&self, i: u64) -> u64 {
        if self.pad {
            return self.shifts.iter().fold(i, |acc, &a| acc + (i >> a));
        }
        let fold = self.shifts.iter().fold(0, |acc, &a| acc ^ (i >> a));
        i ^ (fold & self.mask)
    }

    /// Words of shared memory a tile of `size` elements spans.
    fn span(&self, size: u64) -> u64 {
        // A padding grows with i; an XOR map permutes the tile.
        if self.pad {
            self.apply(size - 1) + 1
        } else {
            size
        }
    }

    fn expr(&self, i: Expr) -> Expr {
        let parts = self.shifts.iter().map(|&a| i.clone() >> Expr::u32(a));
        if self.pad {
            return parts.fold(i.clone(), |acc, x| acc + x);
        }
        let Some(fold) = parts.reduce(|x, y| x ^ y) else {
            return i;
        };
        i ^ (fold & Expr::u32(self.mask as u32))
    }

    /// `swz(a | b)` from `swz(a)` (an expression) and `swz(b)` for disjoint a and b.
    fn join(&self, a: Expr, b: Expr) -> Expr {
        if self.pad {
            a + b
        } else {
            a ^ b
        }
    }

    /// Shared-memory wavefronts of one warp access to the tile indices `idx` (one per
    /// lane), for elements of `word_bytes`-byte words: 8-byte words go half a warp at a
    /// time, each word over two banks.
    fn wavefronts(&self, idx: &[u64], word_bytes: u64) -> u64 {
        // Lanes served per wavefront, and as many bank slots (one word each).
        let slots = BANKS * 4 / word_bytes;
        idx.chunks(slots as usize)
            .map(|part| {
                let mut words: Vec<u64> = part.iter().map(|&i| self.apply(i)).collect();
                words.sort_unstable();
                words.dedup();
                let mut per_slot = vec![0u64; slots as usize];
                for w in words {
                    per_slot[(w % slots) as usize] += 1;
                }
                per_slot.into_iter().max().unwrap_or(0)
            })
            .sum()
    }

    /// The shifts of the maps [`choose`](Self::choose) considers for a tile of 2^bits
    /// elements: one or two, from 1 up.
    fn shift_sets(bits: u32) -> Vec<Vec<u32>> {
        (1..bits)
            .flat_map(|a| (a..bits).map(move |b| if a == b { vec![a] } else { vec![a, b] }))
            .collect()
    }

    /// The map with the fewest wavefronts over `accesses` (each the tile indices of one
    /// warp access, made once per each of an element's `digits` words), an XOR map paying
    /// one more per access for its instruction (once per element: the digits sit at fixed
    /// offsets from it), among the plain layout and XOR maps and paddings of one or two
    /// shifts, for a tile of 2^bits elements spanning at most `max_words` words and at most
    /// an eighth more than its size.
    fn choose(
        accesses: &[Vec<u64>],
        bits: u32,
        word_bytes: u64,
        digits: u64,
        max_words: u64,
    ) -> Swizzle {
        let mask_bits = (BANKS * 4 / word_bytes).trailing_zeros();
        let cost = |s: &Swizzle| -> u64 {
            let xor = if s.pad { 0 } else { accesses.len() as u64 };
            digits
                * accesses
                    .iter()
                    .map(|a| s.wavefronts(a, word_bytes))
                    .sum::<u64>()
                + xor
        };
        let mut best = Swizzle::none();
        let mut best_cost = cost(&best);
        if bits <= mask_bits {
            return best;
        }
        let mask = (1u64 << mask_bits) - 1;
        // Shifts below the bank bits count too: a round whose lanes span tile bits 0, 1, 4
        // and 5 needs bits 4 and 5 folded onto bits 2 and 3. Either map stays a bijection
        // (an XOR map is unipotent triangular over GF(2), a padding increasing).
        for pad in [true, false] {
            for shifts in Swizzle::shift_sets(bits) {
                let candidate = Swizzle { shifts, mask, pad };
                // A padding that grows the tile by more than an eighth would cost resident
                // blocks where shared memory bounds them.
                let span = candidate.span(1 << bits);
                if span > max_words || span > (1 << bits) + (1 << bits) / 8 {
                    continue;
                }
                let c = cost(&candidate);
                if c < best_cost {
                    best = candidate;
                    best_cost = c;
                }
            }
        }
        best
    }
}

impl<F: Field> Emitter<'_, F> {
    /// The registers per thread a kernel is held to, if any ([`srgfn_register_cap`],
    /// [`GOLDILOCKS_REGISTERS`]).
    fn register_cap(&self, k: &KernelPlan) -> Option<u32> {
        let scaled = k.steps.iter().any(|s| matches!(s, Step::Scale));
        match self.shape.shift_order {
            Some(order) => srgfn_register_cap(order / 2, scaled),
            None => {
                (self.field.modulus() == BigUint::from(GOLDILOCKS)).then_some(GOLDILOCKS_REGISTERS)
            }
        }
    }

    fn word_bits(&self) -> u32 {
        if self.shape.element_bytes == 4 {
            32
        } else {
            64
        }
    }

    /// The device form of a multiplication by ω_{2^log_order}^e, e known at compile time
    /// (already negated for inverse plans).
    fn constant(&self, log_order: u32, e: u64) -> Option<Constant> {
        let order = 1u64 << log_order;
        let e = e % order;
        if e == 0 {
            return None;
        }
        if let (Some(_), Some(shift)) = (self.shape.shift_order, self.roots.shift()) {
            if log_order <= shift.log_g {
                let steps = e << (shift.log_g - log_order);
                let amount = (steps * shift.amount) % shift.order;
                return (amount != 0).then_some(Constant::Shift(amount as u32));
            }
        }
        let row = e << (self.log_table - log_order);
        if self.shape.shift_order.is_none() {
            let v = self.roots.power(self.field, row);
            let p = self.field.modulus();
            if self.shape.element_bytes == 4 && p.bits() <= 31 {
                let w = self.field.to_biguint(&v);
                let quotient = (&w << 32u32) / &p;
                let w = u32::try_from(w).expect("a residue of a 31-bit prime fits 32 bits");
                let quotient = u32::try_from(quotient).expect("w < p, so w·2^32/p < 2^32");
                return Some(Constant::Shoup(w, quotient));
            }
            Some(Constant::Literal(montgomery(self.field, self.shape, &v)))
        } else {
            Some(Constant::Row(row))
        }
    }

    fn apply_constant(&self, value: Expr, c: Constant) -> Expr {
        match c {
            Constant::Shift(i) => fe::mul_rpow(value, i),
            Constant::Shoup(w, quotient) => {
                Expr::call("fe_mul_shoup", [value, Expr::u32(w), Expr::u32(quotient)])
            }
            Constant::Literal(w) => fe::mul_mont(
                value,
                if self.word_bits() == 32 {
                    Expr::u32(w as u32)
                } else {
                    Expr::u64(w)
                },
            ),
            Constant::Row(e) => {
                if let Some(row) = self.layout.coarse_row(e) {
                    return fe::mul_mont(value, self.table_load(Expr::u64(row)));
                }
                let lo = e & ((1u64 << self.layout.lo_bits) - 1);
                let hi = e >> self.layout.lo_bits;
                let value = if lo == 0 {
                    value
                } else {
                    fe::mul_mont(value, self.table_load(Expr::u64(lo)))
                };
                match self.layout.high {
                    _ if hi == 0 => value,
                    High::None => unreachable!("a whole table leaves no high part"),
                    High::Table => fe::mul_mont(
                        value,
                        self.table_load(Expr::u64((1 << self.layout.lo_bits) + hi)),
                    ),
                    High::Shift(s) => match (hi * s.amount) % s.order {
                        0 => value,
                        i => fe::mul_rpow(value, i as u32),
                    },
                }
            }
        }
    }

    fn table_load(&self, row: Expr) -> Expr {
        fe::load_row(Expr::var("tw"), row)
    }

    /// ω^e in table form (word primes), for a run-time exponent e < 2^L.
    fn table_value(&self, e: Expr, ty: &Type) -> Expr {
        let h = self.layout.lo_bits;
        match self.layout.high {
            High::None => self.table_load(e.cast(Type::SizeT)),
            High::Table => {
                let lo = (e.clone() & lit(ty, (1u64 << h) - 1)).cast(Type::SizeT);
                let hi = ((e >> lit(ty, h as u64)) + lit(ty, 1u64 << h)).cast(Type::SizeT);
                fe::mul_mont(self.table_load(lo), self.table_load(hi))
            }
            High::Shift(_) => unreachable!("SRGFN twiddles take the shift for the high part"),
        }
    }

    /// The exponents of the rotations `pending` of a codelet along tile bits `locals` (word
    /// primes): for element v,
    ///
    ///   e(v) = Σ_steps 2^(L−lo)·(x_r + Σ_l a_l v_l)(y_r + Σ_l c_l v_l)
    ///        = E_0 + Σ_l v_l·K_l + Q(v),
    ///
    /// x_r, y_r the run-time parts of the index fields, a_l and c_l the weights of the
    /// codelet's own bits v_l in them: E_0 = Σ x_r·y_r and K_l = Σ (a_l·y_r + c_l·x_r) are
    /// known at run time, Q(v) = Σ (Σ a_l v_l)(Σ c_l v_l) at compile time. `None` for
    /// SRGFNs and for tables beyond 32-bit exponents.
    fn codelet_exponents(
        &self,
        pending: &[&Step],
        locals: &[u32],
        runtime_bit: &dyn Fn(BitSource) -> Bit,
    ) -> Option<CodeletExponents> {
        if self.shape.shift_order.is_some() || self.log_table > 32 {
            return None;
        }
        let ty = Type::U32;
        let l_bits = self.log_table;
        let mask = (1u64 << l_bits) - 1;
        let b = locals.len();
        let m = 1usize << b;
        let mut ex = CodeletExponents {
            e0: Vec::new(),
            k: vec![Vec::new(); b],
            k_bits: Vec::new(),
            q: vec![0u64; m],
        };
        let mut e0_const = 0u64;
        let mut k_const = vec![0u64; b];
        for step in pending {
            let Step::Twiddle { log_order, x, y } = step else {
                continue;
            };
            let scale = 1u64 << (l_bits - log_order);
            // The run-time bits, their value (c + e) and the codelet-bit weights of a field.
            let split = |f: &BitField| -> (Vec<Bit>, u64, Option<Expr>, Vec<u64>) {
                let mut weights = vec![0u64; b];
                let bits: Vec<Bit> = f
                    .bits
                    .iter()
                    .enumerate()
                    .map(|(t, &src)| match src {
                        BitSource::Local(c) if locals.contains(&c) => {
                            let l = locals.iter().position(|&x| x == c).unwrap_or(0);
                            weights[l] |= 1 << t;
                            Bit::Known(0)
                        }
                        other => runtime_bit(other),
                    })
                    .collect();
                let (c, e) = assemble(&bits, ty.clone());
                (bits, c, e, weights)
            };
            let (xbits, cx, xe, a) = split(x);
            let (ybits, cy, ye, c) = split(y);
            let term = |coef: u64, e: &Option<Expr>| -> Option<(u64, Expr)> {
                let coef = coef.wrapping_mul(scale) & mask;
                match (coef, e) {
                    (0, _) | (_, None) => None,
                    (c, Some(e)) => Some((c, e.clone())),
                }
            };
            // x_r·y_r.
            e0_const = e0_const.wrapping_add(cx.wrapping_mul(cy).wrapping_mul(scale));
            ex.e0.extend(term(cx, &ye));
            ex.e0.extend(term(cy, &xe));
            if let (Some(xe), Some(ye)) = (&xe, &ye) {
                ex.e0.extend(term(1, &Some(xe.clone() * ye.clone())));
            }
            for l in 0..b {
                k_const[l] = k_const[l].wrapping_add(
                    a[l].wrapping_mul(cy)
                        .wrapping_add(c[l].wrapping_mul(cx))
                        .wrapping_mul(scale),
                );
                ex.k[l].extend(term(a[l], &ye));
                ex.k[l].extend(term(c[l], &xe));
            }
            // The same run-time parts of the K_l, bit by bit: a bit at place t of x weighs
            // c_l·2^t in K_l, one of y a_l·2^t.
            for (bits, weights) in [(&xbits, &c), (&ybits, &a)] {
                for (t, bit) in bits.iter().enumerate() {
                    if !matches!(bit, Bit::Of(..)) {
                        continue;
                    }
                    let at = match ex.k_bits.iter().position(|(known, _)| known == bit) {
                        Some(at) => at,
                        None => {
                            ex.k_bits.push((bit.clone(), vec![0; b]));
                            ex.k_bits.len() - 1
                        }
                    };
                    for (l, &w) in weights.iter().enumerate() {
                        let add = w.wrapping_mul(1 << t).wrapping_mul(scale);
                        let slot = &mut ex.k_bits[at].1[l];
                        *slot = slot.wrapping_add(add) & mask;
                    }
                }
            }
            for (v, qv) in ex.q.iter_mut().enumerate() {
                let sum = |w: &[u64]| -> u64 {
                    (0..b).filter(|&l| (v >> l) & 1 == 1).map(|l| w[l]).sum()
                };
                *qv = qv.wrapping_add(sum(&a).wrapping_mul(sum(&c)).wrapping_mul(scale));
            }
        }
        ex.k_bits.retain(|(_, w)| w.iter().any(|&w| w != 0));
        for (v, qv) in ex.q.iter_mut().enumerate() {
            let from_k: u64 = (0..b)
                .filter(|&l| (v >> l) & 1 == 1)
                .fold(0u64, |acc, l| acc.wrapping_add(k_const[l]));
            *qv = qv.wrapping_add(e0_const).wrapping_add(from_k) & mask;
        }
        Some(ex)
    }

    /// The twiddles of a whole codelet at once (word primes), from the exponents of
    /// [`Self::codelet_exponents`] with `moved` added to E_0: ω^e(v) is ω^E_0 times the
    /// product of the ω^K_l over the set bits of v — one product each from a smaller
    /// subset — times a constant: 1 + log2 m table reads per codelet instead of m, at the
    /// cost of m − 1 extra Montgomery products (cheap next to scattered reads).
    ///
    /// Returns, per element, the run-time twiddle and the compile-time exponent (already
    /// negated for inverse plans); `None` when nothing depends on the run time.
    fn codelet_twiddles(
        &self,
        ex: CodeletExponents,
        moved: &[(u64, Expr)],
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Option<Shared> {
        let CodeletExponents { mut e0, k, q, .. } = ex;
        e0.extend(moved.iter().cloned());
        if e0.is_empty() && k.iter().all(Vec::is_empty) {
            return None;
        }
        let ty = Type::U32;
        let mask = (1u64 << self.log_table) - 1;
        let b = k.len();
        let m = q.len();
        let id = *tmp;
        *tmp += 1;
        // A run-time power ω^(Σ terms) as a named twiddle.
        let power = |name: String, terms: &[(u64, Expr)], out: &mut Vec<Stmt>| -> Option<Expr> {
            let mut e = terms
                .iter()
                .map(|(c, e)| match c {
                    1 => e.clone(),
                    c => e.clone() * lit(&ty, *c),
                })
                .reduce(|x, y| x + y)?;
            if self.inverse {
                e = lit(&ty, 0) - e;
            }
            let ename = format!("{name}e");
            out.push(Stmt::const_(ty.clone(), ename.clone(), e & lit(&ty, mask)));
            out.push(Stmt::const_(
                Type::Fe,
                name.clone(),
                self.table_value(Expr::var(ename), &ty),
            ));
            Some(Expr::var(name))
        };
        let t0 = power(format!("w{id}"), &e0, out);
        let mut gens: Vec<Option<Expr>> = Vec::with_capacity(b);
        for l in 0..b {
            let name = format!("g{id}_{l}");
            // Codelet bits usually weigh 1, 2, 4, …: then ω^(K_l) = (ω^(K_(l−1)))^2, a
            // squaring instead of table reads.
            let doubles = l > 0
                && !k[l].is_empty()
                && k[l].len() == k[l - 1].len()
                && k[l]
                    .iter()
                    .zip(&k[l - 1])
                    .all(|((c, e), (c0, e0))| e == e0 && *c == c0.wrapping_mul(2) & mask);
            let g = match &gens.last() {
                Some(Some(prev)) if doubles => {
                    out.push(Stmt::const_(
                        Type::Fe,
                        name.clone(),
                        fe::mul_mont(prev.clone(), prev.clone()),
                    ));
                    Some(Expr::var(name))
                }
                _ => power(name, &k[l], out),
            };
            gens.push(g);
        }
        let mut w: Vec<Option<Expr>> = vec![t0];
        for v in 1..m {
            let top = usize::BITS - 1 - v.leading_zeros();
            let rest = v & !(1 << top);
            let value = match (&w[rest], &gens[top as usize]) {
                (x, None) => x.clone(),
                (None, g) => g.clone(),
                (Some(x), Some(g)) => {
                    let name = format!("w{id}_{v}");
                    out.push(Stmt::const_(
                        Type::Fe,
                        name.clone(),
                        fe::mul_mont(x.clone(), g.clone()),
                    ));
                    Some(Expr::var(name))
                }
            };
            w.push(value);
        }
        Some(Shared {
            factors: w,
            consts: q
                .iter()
                .map(|&e| self.direction_exponent(e, self.log_table))
                .collect(),
        })
    }

    /// The twiddles of a codelet's loads read whole from a table of the kernel's own
    /// (word primes), where that is cheaper than deriving them: ω^e(v) = ω^E_0 ·
    /// ω^(Σ_l v_l·K_l + Q(v)), and when the K_l depend on at most [`CODELET_TABLE_BITS`]
    /// run-time bits s (the codelet's other tile bits, typically: the output index of the
    /// round before), the second factor is an entry T[v][s] computed at compile time. The
    /// first is the same for every element of the codelet, so it commutes with the DFT and
    /// is `moved` to the outputs, where the next twist multiplies them anyway (its twiddles
    /// take one more product). A codelet of 16 thus spends 15 reads of one L1 wavefront
    /// each instead of about 20 Montgomery products on its input twiddles — products on the
    /// integer multiplier, whose pipe bounds the word-prime passes (ncu: 64% busy, "math
    /// pipe throttle" the first stall). On an H200, babybear 2^24 went from 0.152 to
    /// 0.143 ms and goldilocks 2^24 from 0.388 to 0.359 (bench/RESULTS.md, tuning round 9).
    ///
    /// Entries are in Montgomery form: Shoup pairs (w and ⌊w·2^32/p⌋) would save a product
    /// per twiddle but hold twice the registers, and the kernels then fit fewer blocks.
    /// `None` where the derivation stays: too many run-time bits, or an E_0 that depends on
    /// the run time without output twiddles to take it.
    fn codelet_table(
        &self,
        ex: &CodeletExponents,
        outputs_twisted: bool,
        name: &str,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Option<CodeletTable> {
        let s_bits = ex.k_bits.len() as u32;
        if s_bits > CODELET_TABLE_BITS
            || (ex.k_bits.is_empty() && ex.e0.is_empty())
            || (!ex.e0.is_empty() && !outputs_twisted)
        {
            return None;
        }
        let mask = (1u64 << self.log_table) - 1;
        let m = ex.q.len();
        // The run-time part of element v's exponent for run-time bits s.
        let varying = |v: usize, s: u64| -> u64 {
            ex.k_bits
                .iter()
                .enumerate()
                .filter(|&(i, _)| (s >> i) & 1 == 1)
                .flat_map(|(_, (_, w))| {
                    w.iter()
                        .enumerate()
                        .filter(move |&(l, _)| (v >> l) & 1 == 1)
                })
                .fold(0u64, |acc, (_, &w)| acc.wrapping_add(w))
                & mask
        };
        let id = *tmp;
        *tmp += 1;
        let table_name = format!("{name}_t{id}");
        let index = format!("t{id}s");
        let (_, s_expr) = assemble(
            &ex.k_bits.iter().map(|(b, _)| b.clone()).collect::<Vec<_>>(),
            Type::U32,
        );
        let mut words = Vec::new();
        let mut factors = Vec::with_capacity(m);
        let mut consts = Vec::with_capacity(m);
        for v in 0..m {
            let row: Vec<u64> = (0..1u64 << s_bits)
                .map(|s| {
                    self.direction_exponent(ex.q[v].wrapping_add(varying(v, s)), self.log_table)
                })
                .collect();
            if row.iter().all(|&e| e == row[0]) {
                factors.push(None);
                consts.push(row[0]);
                continue;
            }
            let at = Expr::u32(words.len() as u32) + Expr::var(&index);
            factors.push(Some(Expr::var(&table_name).at(at)));
            consts.push(0);
            words
                .extend(row.iter().map(|&e| {
                    montgomery(self.field, self.shape, &self.roots.power(self.field, e))
                }));
        }
        // Without rows, only E_0 depended on the run time: the loads take constants alone.
        let table = (!words.is_empty()).then(|| {
            let s_expr = s_expr.expect("table rows vary with run-time bits");
            out.push(Stmt::const_(Type::U32, index, s_expr));
            Table::device(table_name, words)
        });
        Some(CodeletTable {
            shared: Shared { factors, consts },
            moved: ex.e0.clone(),
            table,
        })
    }

    /// `value · ω^e` for the run-time exponent held by variable `e` (already reduced mod
    /// 2^L), through the table layout.
    fn table_mul(&self, value: Expr, e: &str, ty: &Type, out: &mut Vec<Stmt>) -> Expr {
        let h = self.layout.lo_bits;
        let shift_name = format!("{e}s");
        let e = Expr::var(e);
        match self.layout.high {
            High::None | High::Table => {
                let row = self.table_value(e.clone(), ty);
                self.twist(value, e, row, ty)
            }
            High::Shift(s) => {
                let lo = e.clone() & lit(ty, (1u64 << h) - 1);
                out.push(Stmt::const_(
                    Type::Int,
                    shift_name.clone(),
                    (((e >> lit(ty, h as u64)) * lit(ty, s.amount)) & lit(ty, s.order - 1))
                        .cast(Type::Int),
                ));
                let row = self.table_load(lo.clone().cast(Type::SizeT));
                Expr::call(
                    "fe_mul_rpow_rt",
                    [self.twist(value, lo, row, ty), Expr::var(shift_name)],
                )
            }
        }
    }

    /// `value · row`, the full multiplication of a twist by the table row of run-time
    /// exponent `e`, skipped where e = 0 for SRGFNs of at most [`SMALL_K`] digits. Exponents
    /// that are products of index fields vanish on whole warps where a factor's bits are the
    /// warp's (the round layout gives them to the warp index for the shifts' sake); the
    /// branch then spares the warp a multiplication. On an H200 P2 2^24 went from 3.70 to
    /// 3.61 ms; P3 2^20 went from 0.401 to 0.405 ms and P4 2^20 from 1.064 to 1.100 ms, whose
    /// longer multiplications pay more for the branch around their call (bench/RESULTS.md,
    /// tuning round 9).
    fn twist(&self, value: Expr, e: Expr, row: Expr, ty: &Type) -> Expr {
        match self.shape.shift_order {
            Some(order) if order / 2 <= SMALL_K => Expr::select(
                e.equals(lit(ty, 0)),
                value.clone(),
                fe::mul_mont(value, row),
            ),
            _ => fe::mul_mont(value, row),
        }
    }

    fn direction_exponent(&self, e: u64, log_order: u32) -> u64 {
        let order = 1u64 << log_order;
        if self.inverse {
            (order - e % order) % order
        } else {
            e % order
        }
    }

    /// `v · ω_{2^log_order}^(x·y)` for bit fields whose bits come from `bit_of`.
    fn twiddle(
        &self,
        value: Expr,
        (log_order, x, y): (u32, &BitField, &BitField),
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        // Exponents are only needed mod 2^L: 32-bit arithmetic wraps harmlessly below 2^32
        // and costs a fraction of the 64-bit multiplications on the device.
        let ty = if self.log_table <= 32 {
            Type::U32
        } else {
            Type::U64
        };
        let field = |f: &BitField| {
            let bits: Vec<Bit> = f.bits.iter().map(|&b| bit_of(b)).collect();
            assemble(&bits, ty.clone())
        };
        let ((cx, ex), (cy, ey)) = (field(x), field(y));
        if (cx == 0 && ex.is_none()) || (cy == 0 && ey.is_none()) {
            return value;
        }
        if ex.is_none() && ey.is_none() {
            let e = self.direction_exponent(cx.wrapping_mul(cy), log_order);
            return match self.constant(log_order, e) {
                Some(c) => self.apply_constant(value, c),
                None => value,
            };
        }
        let xe = or_constant(cx, ex, &ty);
        let ye = or_constant(cy, ey, &ty);
        let mask = (1u64 << log_order) - 1;
        let mut e = xe * ye;
        if self.inverse {
            e = lit(&ty, 0) - e;
        }
        let name = format!("e{tmp}");
        *tmp += 1;
        if let (Some(_), Some(shift)) = (self.shape.shift_order, self.roots.shift()) {
            if log_order <= shift.log_g {
                // A power of r: ω_{2^lo}^e = r^(e · 2^(log_g − lo) · amount).
                let steps = (e & lit(&ty, mask)) << lit(&ty, (shift.log_g - log_order) as u64);
                out.push(Stmt::const_(
                    Type::Int,
                    name.clone(),
                    ((steps * lit(&ty, shift.amount)) & lit(&ty, shift.order - 1)).cast(Type::Int),
                ));
                return Expr::call("fe_mul_rpow_rt", [value, Expr::var(name)]);
            }
        }
        if self.layout.coarse_covers(log_order) {
            // A power of ω_{2^C}: its own row, no shift.
            let stride = self.layout.coarse_bits - log_order;
            out.push(Stmt::const_(
                ty.clone(),
                name.clone(),
                (e & lit(&ty, mask)) << lit(&ty, stride as u64),
            ));
            let row = Expr::var(&name).cast(Type::SizeT) + Expr::u64(self.layout.coarse_base());
            return self.twist(value, Expr::var(&name), self.table_load(row), &ty);
        }
        out.push(Stmt::const_(
            ty.clone(),
            name.clone(),
            (e & lit(&ty, mask)) << lit(&ty, (self.log_table - log_order) as u64),
        ));
        self.table_mul(value, &name, &ty, out)
    }

    fn scale(&self, value: Expr) -> Expr {
        fe::mul_mont(value, self.table_load(Expr::u64(self.layout.rows() - 1)))
    }

    /// The rounds of kernel `k`, each DFT step with the rotations before it (fused into its
    /// loads) and, for the last, those after it (applied to its outputs while they are
    /// still in registers, where a codelet's twiddles share their table reads); and the
    /// rotations of a kernel without DFT steps, applied on the way through.
    fn rounds(k: &KernelPlan) -> (Vec<RoundSteps<'_>>, Vec<&Step>) {
        let last_round = k.steps.iter().rposition(|s| matches!(s, Step::Dft { .. }));
        let mut rounds = Vec::new();
        let mut pending = Vec::new();
        for (at, step) in k.steps.iter().enumerate() {
            match step {
                Step::Twiddle { .. } | Step::Scale => {
                    if last_round.is_none_or(|last| at < last) {
                        pending.push(step);
                    }
                }
                Step::Dft { locals } => {
                    let post = if Some(at) == last_round {
                        k.steps[at + 1..].iter().collect()
                    } else {
                        Vec::new()
                    };
                    rounds.push(RoundSteps {
                        locals,
                        pre: std::mem::take(&mut pending),
                        post,
                    });
                }
            }
        }
        (rounds, pending)
    }

    /// How the threads of a block take the codelets of `round` (see [`Uniform`]): the group
    /// index fills the tile bits outside the codelet lowest first, except that bits on which
    /// the round's shifts depend go last — to the warp index and the loop counter, where
    /// they are the same across a warp — when they fit there: the loads' and the outputs'
    /// shifts together where both fit, else whichever does. That order alone, without the
    /// switch, took P3 2^20 from 0.434 to 0.428 ms and P4 2^20 from 1.142 to 1.129 ms on an
    /// H200 (bench/RESULTS.md, tuning round 7): the layout chosen for it left P3's passes
    /// with fewer shared-memory bank conflicts.
    fn round_layout(&self, round: &RoundSteps, tile: &Tile) -> RoundLayout {
        let bits = tile.s + tile.pb;
        let ascending: Vec<u32> = (0..bits).filter(|c| !round.locals.contains(c)).collect();
        let plain = RoundLayout {
            free: ascending.clone(),
            uniform: None,
        };
        let Some(shift) = self.shape.shift_order.and(self.roots.shift()) else {
            return plain;
        };
        let groups = tile.size() >> round.locals.len();
        // Group bits from this one up are the same across a warp.
        let uniform_from = (tile.threads as u64)
            .min(groups)
            .trailing_zeros()
            .min(WARP_BITS);
        // The run-time bits of a list of rotations that are all shifts, if any (the 1/n
        // scale is a full product, which every case would repeat).
        let deps = |steps: &[&Step]| -> Option<Vec<Bit>> {
            let mut deps: Vec<Bit> = Vec::new();
            for step in steps {
                let Step::Twiddle { log_order, x, y } = step else {
                    return None;
                };
                if *log_order > shift.log_g {
                    return None;
                }
                for &src in x.bits.iter().chain(&y.bits) {
                    if let Some(b @ Bit::Of(..)) = round_bit(tile, round.locals, src) {
                        if !deps.contains(&b) {
                            deps.push(b);
                        }
                    }
                }
            }
            (!deps.is_empty()).then_some(deps)
        };
        let (pre, post) = (deps(&round.pre), deps(&round.post));
        for (want_pre, want_post) in [(true, true), (true, false), (false, true)] {
            let wanted = [(want_pre, &pre), (want_post, &post)];
            if wanted.iter().any(|(want, d)| *want && d.is_none()) {
                continue;
            }
            let mut on: Vec<Bit> = Vec::new();
            for (_, d) in wanted.iter().filter(|(want, _)| *want) {
                for b in d.iter().flatten() {
                    if !on.contains(b) {
                        on.push(b.clone());
                    }
                }
            }
            let moved: Vec<u32> = ascending
                .iter()
                .copied()
                .filter(|&c| on.contains(&Bit::Of("base", c)))
                .collect();
            if moved.len() as u32 + uniform_from > ascending.len() as u32 {
                continue;
            }
            let mut free: Vec<u32> = ascending
                .iter()
                .copied()
                .filter(|c| !moved.contains(c))
                .collect();
            free.extend(moved);
            return RoundLayout {
                free,
                uniform: Some(Uniform {
                    bits: on,
                    pre: want_pre,
                    post: want_post,
                }),
            };
        }
        plain
    }

    /// A `switch` over the values of `uniform`'s bits (held in `on`) whose case applies
    /// `steps` to the registers `regs` — element v in register `x{r}` for each (v, r) — with
    /// those bits known, so that every exponent is a compile-time constant; `None` when the
    /// cases would hold more than [`MAX_SPECIALISED_SHIFTS`] rotations.
    #[allow(clippy::too_many_arguments)]
    fn specialised(
        &self,
        uniform: &Uniform,
        on: &str,
        steps: &[&Step],
        regs: &[(u64, u32)],
        bit_of: &dyn Fn(u64, BitSource) -> Bit,
        tmp: &mut u32,
    ) -> Option<Stmt> {
        let mut rotations = 0;
        let cases = (0..1u64 << uniform.bits.len())
            .map(|case| {
                let mut out = Vec::new();
                for &(v, r) in regs {
                    let known = |src: BitSource| {
                        let b = bit_of(v, src);
                        match uniform.bits.iter().position(|u| *u == b) {
                            Some(i) => Bit::Known((case >> i) & 1),
                            None => b,
                        }
                    };
                    let x = Expr::var(format!("x{r}"));
                    let value = self.fused(x.clone(), steps, &known, &mut out, tmp);
                    if value != x {
                        rotations += 1;
                        out.push(Stmt::assign(x, value));
                    }
                }
                out
            })
            .collect();
        (rotations <= MAX_SPECIALISED_SHIFTS).then(|| Stmt::Switch {
            on: Expr::var(on),
            cases,
        })
    }

    fn kernel(
        &self,
        k: &KernelPlan,
        mut tile: Tile,
        name: &str,
        options: &EmitOptions,
        handoffs: &Handoffs,
        tables: &mut Vec<Table>,
    ) -> Result<(Kernel, Launch), CodegenError> {
        let word_bytes = self.word_bits() as u64 / 8;
        let size = tile.size();
        let n = self.n;
        let groups_max = k
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Dft { locals } => Some(size >> locals.len()),
                _ => None,
            })
            .max()
            .unwrap_or(size);
        let threads = groups_max.clamp(1, options.max_threads as u64) as u32;
        tile.threads = threads;
        let (rounds, unfused) = Self::rounds(k);
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
        let tile = tile;
        let blocks = 1u64 << (k.log_n - tile.s - tile.pb);

        let identity = handoffs
            .dispatch
            .iter()
            .enumerate()
            .all(|(l, &d)| d == l as u32);
        let blk = if identity {
            Expr::block_idx().cast(Type::SizeT)
        } else {
            let bits: Vec<Bit> = handoffs
                .dispatch
                .iter()
                .map(|&d| Bit::Of("bid", d))
                .collect();
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
        body.extend([
            Stmt::const_(Type::SizeT, "blk", blk),
            Stmt::const_(
                Type::SizeT,
                "batch",
                Expr::Builtin(crate::cuda::Builtin::BlockIdx, crate::cuda::Dim::Y)
                    .cast(Type::SizeT)
                    * Expr::u64(n)
                    * Expr::var("FE_WORDS").cast(Type::SizeT),
            ),
            Stmt::let_(
                Type::const_ptr(Type::Word),
                "in",
                Expr::var("src") + Expr::var("batch"),
            ),
            Stmt::let_(
                Type::ptr(Type::Word),
                "out",
                Expr::var("dst") + Expr::var("batch"),
            ),
        ]);
        // The counters of a hand-off's groups for this transform of the batch.
        let counters = |base: u64| {
            Expr::var("flags")
                + (Expr::Builtin(crate::cuda::Builtin::BlockIdx, crate::cuda::Dim::Y)
                    .cast(Type::SizeT)
                    * Expr::u64(handoffs.total)
                    + Expr::u64(base))
        };
        match &handoffs.wait {
            // The first pass of a call is launched after the whole of the previous call.
            None => body.extend([
                Stmt::Expr(Expr::call("fe_grid_wait", [])),
                Stmt::Expr(Expr::call("fe_grid_release", [])),
            ]),
            // Launched right after the previous pass, this grid may start while that one
            // drains: it lets the next pass launch, then waits for the groups of the
            // previous pass that write what it reads and read what it overwrites (epoch
            // 0: for the whole previous pass).
            Some((h, base)) => {
                body.push(Stmt::Expr(Expr::call("fe_grid_release", [])));
                let mut groups = vec![Stmt::const_(Type::ptr(Type::U32), "waits", counters(*base))];
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
                body.push(Stmt::if_else(
                    Expr::var("epoch").equals(Expr::u32(0)),
                    vec![Stmt::Expr(Expr::call("fe_grid_wait", []))],
                    groups,
                ));
            }
        }
        let mut tmp = 0u32;

        // Bit sources while a whole tile index `i` is known at run time.
        let tile_bit = |src: BitSource| match src {
            BitSource::Local(c) => Bit::Of("i", c),
            BitSource::Piece(c) => tile.piece_bit(c),
        };
        let no_rounds = rounds.is_empty();
        if no_rounds {
            // No DFT round: the tile goes straight from global memory to global memory.
            body.extend(self.store_phase(k, &tile, &unfused, &mut tmp, &tile_bit, false));
        } else {
            body.extend(self.load_phase(k, &tile, &[], &mut tmp));
            for (round, layout) in rounds.iter().zip(&layouts) {
                body.extend(self.round(round, layout, &tile, (name, tables), &mut tmp));
            }
            body.extend(self.store_phase(k, &tile, &[], &mut tmp, &tile_bit, true));
        }
        if let Some((h, base)) = &handoffs.signal {
            let group = h.group(|b| b.writer);
            body.push(Stmt::if_(
                Expr::var("epoch").not_equals(Expr::u32(0)),
                vec![Stmt::Expr(Expr::call(
                    "fe_tile_signal",
                    [counters(*base) + group],
                ))],
            ));
        }
        if handoffs.wait.is_some() {
            // A pass that waited on groups ends only after the whole previous pass: so the
            // last pass ends after every pass of the plan, as work later on the stream
            // expects.
            body.push(Stmt::Expr(Expr::call("fe_grid_wait", [])));
        }

        let shared_words = tile.words() * (self.shape.element_bytes / word_bytes);
        let mut kernel = Kernel::new(
            name,
            vec![
                Param::new("src", Type::const_ptr(Type::Word)),
                Param::new("dst", Type::ptr(Type::Word)),
                Param::new("tw", Type::const_ptr(Type::Word)),
                Param::new("flags", Type::ptr(Type::U32)),
                Param::new("epoch", Type::U32),
            ],
            body,
        )
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
        if !no_rounds {
            kernel = kernel.shared(SharedArray::new(Type::Word, "tile", shared_words));
        }
        let launch = Launch {
            kernel: name.to_string(),
            blocks,
            threads,
            shared_bytes: if no_rounds {
                0
            } else {
                tile.words() * self.shape.element_bytes
            },
            pieces_per_block: 1 << tile.pb,
            src: buffer_name(k.src_buffer),
            dst: buffer_name(k.dst_buffer),
            signals: handoffs.signal.as_ref().map_or(0, |(h, _)| h.groups()),
        };
        Ok((kernel, launch))
    }

    /// Address bits of the tile's element visited as `bits_of(u)` for each bit u of q (q's
    /// bits in the order of `order`), and the block index: the physical address, with each
    /// physical bit sent to `dest[bit]`.
    fn address_bits(
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
    fn tile_index_bits(&self, tile: &Tile, order: &[(u32, u32)], visit: &Visit) -> Vec<Bit> {
        let mut bits = vec![Bit::Known(0); (tile.s + tile.pb) as usize];
        for (u, &(_, ti)) in order.iter().enumerate() {
            bits[ti as usize] = visit.bit(u as u32);
        }
        bits
    }

    /// A loop nest visiting every element of the tile, in the order `order`, with
    /// pointers into global memory at the addresses `ptrs` gives (base pointer, whether it
    /// is written, where each physical bit goes). See [`Visit`].
    fn tile_visit(&self, tile: &Tile, order: &[(u32, u32)], ptrs: &[Ptr<'_>]) -> Nest {
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
        let ptr_ty = |p: &Ptr| {
            if p.written {
                Type::ptr(Type::Word)
            } else {
                Type::const_ptr(Type::Word)
            }
        };

        let mut thread = vec![Stmt::const_(
            Type::U32,
            "it",
            part(&index, &["tq"], &Type::U32),
        )];
        thread.push(Stmt::const_(Type::U32, "st", swz.expr(Expr::var("it"))));
        for (p, bits) in ptrs.iter().zip(&addrs) {
            thread.push(Stmt::let_(
                ptr_ty(p),
                format!("{}_t", p.base),
                Expr::var(p.base) + part(bits, &["tq", "blk"], &aty).cast(Type::SizeT),
            ));
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
                outer.push(Stmt::let_(
                    ptr_ty(p),
                    format!("{}_o", p.base),
                    Expr::var(format!("{}_t", p.base))
                        + part(bits, &["uo"], &aty).cast(Type::SizeT),
                ));
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
                (
                    Expr::var(format!("{}_{at}", p.base)),
                    part(bits, &["ul"], &aty).cast(Type::SizeT),
                )
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

    fn fused(
        &self,
        mut value: Expr,
        pending: &[&Step],
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        for step in pending {
            value = match step {
                Step::Twiddle { log_order, x, y } => {
                    self.twiddle(value, (*log_order, x, y), bit_of, out, tmp)
                }
                Step::Scale => self.scale(value),
                Step::Dft { .. } => unreachable!("only twiddles are fused"),
            };
        }
        value
    }

    fn load_phase(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        pending: &[&Step],
        tmp: &mut u32,
    ) -> Vec<Stmt> {
        let identity: Vec<u32> = (0..k.log_n).collect();
        let nest = self.tile_visit(
            tile,
            &tile.bits,
            &[Ptr {
                base: "in",
                written: false,
                dest: &identity,
            }],
        );
        let bit_of = |src: BitSource| match src {
            BitSource::Local(c) => Bit::Of("i", c),
            BitSource::Piece(c) => tile.piece_bit(c),
        };
        let mut inner = nest.head.clone();
        let (ptr, off) = nest.global[0].clone();
        let loaded = fe::load(ptr, off, Expr::u64(self.n));
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

    fn store_order(&self, k: &KernelPlan, tile: &Tile) -> Vec<(u32, u32)> {
        // Visit the tile in the order of the destination addresses, so that stores of
        // consecutive threads are adjacent where the scatter map allows.
        let mut order = tile.bits.clone();
        order.sort_by_key(|&(phys, _)| k.dest[phys as usize]);
        order
    }

    /// The last phase: each element, with the pending twiddles applied, goes to its scatter
    /// address. It comes from the tile, or — in a kernel without DFT rounds — straight from
    /// global memory.
    #[allow(clippy::too_many_arguments)]
    fn store_phase(
        &self,
        k: &KernelPlan,
        tile: &Tile,
        pending: &[&Step],
        tmp: &mut u32,
        bit_of: &dyn Fn(BitSource) -> Bit,
        from_tile: bool,
    ) -> Vec<Stmt> {
        let order = self.store_order(k, tile);
        let identity: Vec<u32> = (0..k.log_n).collect();
        let mut ptrs = vec![Ptr {
            base: "out",
            written: true,
            dest: &k.dest,
        }];
        if !from_tile {
            ptrs.push(Ptr {
                base: "in",
                written: false,
                dest: &identity,
            });
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
            fe::load(ptr, off, Expr::u64(self.n))
        };
        let v = self.fused(loaded, pending, bit_of, &mut inner, tmp);
        let (ptr, off) = nest.global[0].clone();
        inner.push(fe::store(ptr, off, Expr::u64(self.n), v));
        vec![
            Stmt::comment(if from_tile {
                "scatter the tile"
            } else {
                "permute and scale"
            }),
            nest.wrap(inner),
        ]
    }

    /// The rotations `steps` applied to element v of a codelet: through the codelet's
    /// shared twiddles where [`Self::codelet_table`] or [`Self::codelet_twiddles`] found
    /// them, else one by one.
    #[allow(clippy::too_many_arguments)]
    fn rotate(
        &self,
        value: Expr,
        v: u64,
        steps: &[&Step],
        shared: &Option<Shared>,
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        let Some(shared) = shared else {
            return self.fused(value, steps, bit_of, out, tmp);
        };
        let mut value = value;
        if let Some(t) = &shared.factors[v as usize] {
            value = fe::mul_mont(value, t.clone());
        }
        if let Some(c) = self.constant(self.log_table, shared.consts[v as usize]) {
            value = self.apply_constant(value, c);
        }
        for step in steps {
            if let Step::Scale = step {
                value = self.scale(value);
            }
        }
        value
    }

    /// Whether a multiplication is the next thing done to `value`'s register at each point:
    /// a product of a word prime below R/2 takes any operand below R, so the butterfly
    /// feeding it may leave its sum or difference unreduced in [0, 2p) (one instruction
    /// instead of two). Per op of `codelet`: whether the sum and the difference of that
    /// butterfly go straight into a product — a rotation by a non-trivial constant, or the
    /// output twiddles `post` (through the codelet's shared twiddles `shared`).
    fn lazy_outputs(
        &self,
        codelet: &Codelet,
        post: &[&Step],
        shared: &Option<Shared>,
    ) -> Vec<(bool, bool)> {
        let p = self.field.modulus();
        let half = self.shape.shift_order.is_none() && p.bits() < u64::from(self.word_bits());
        if !half {
            return vec![(false, false); codelet.ops.len()];
        }
        let scaled = post.iter().any(|s| matches!(s, Step::Scale));
        // A constant rotation is a product unless it is a digit shift (SRGFNs, excluded
        // above) or trivial.
        let multiplies = |c: Option<Constant>| c.is_some_and(|c| !matches!(c, Constant::Shift(_)));
        // Output v starts with a product when its rotation has a run-time twiddle, a
        // multiplying constant, or the 1/n scale.
        let output_multiplied = |v: usize| -> bool {
            match shared {
                Some(s) => {
                    s.factors[v].is_some()
                        || multiplies(self.constant(self.log_table, s.consts[v]))
                        || scaled
                }
                None => post.len() == 1 && scaled,
            }
        };
        let multiplied_next = |from: usize, reg: u32| -> bool {
            for op in &codelet.ops[from..] {
                match *op {
                    Op::Butterfly { a, b } if a == reg || b == reg => return false,
                    Op::Rotate {
                        reg: r,
                        log_order,
                        exp,
                    } if r == reg => {
                        let c = self.constant(log_order, self.direction_exponent(exp, log_order));
                        // A trivial rotation emits nothing: look further.
                        if c.is_some() {
                            return multiplies(c);
                        }
                    }
                    _ => {}
                }
            }
            codelet
                .out
                .iter()
                .position(|&r| r == reg)
                .is_some_and(output_multiplied)
        };
        codelet
            .ops
            .iter()
            .enumerate()
            .map(|(at, op)| match *op {
                Op::Butterfly { a, b } => (multiplied_next(at + 1, a), multiplied_next(at + 1, b)),
                Op::Rotate { .. } => (false, false),
            })
            .collect()
    }

    /// One round: every thread runs the codelet of its groups of the DFT along
    /// `steps.locals`, with the rotations `steps.pre` applied to its inputs and `steps.post`
    /// to its outputs, the groups taken as `layout` says.
    fn round(
        &self,
        steps: &RoundSteps,
        layout: &RoundLayout,
        tile: &Tile,
        (name, tables): (&str, &mut Vec<Table>),
        tmp: &mut u32,
    ) -> Vec<Stmt> {
        let (locals, pre, post) = (steps.locals, &steps.pre[..], &steps.post[..]);
        let b = locals.len() as u32;
        let m = 1u64 << b;
        let size = tile.size();
        let words = tile.words();
        let groups = size >> b;
        // Group g = tq | gj·2^t: thread tq runs groups/threads codelets (more threads than
        // groups leave some idle).
        let threads = (tile.threads as u64).min(groups);
        let t = threads.trailing_zeros();
        let group_bit = |u: u32| {
            if u < t {
                Bit::Of("tq", u)
            } else {
                Bit::Of("gj", u - t)
            }
        };
        // The group index deposits into the tile-index bits that are not DFT bits.
        let free = &layout.free;
        let mut base_bits = vec![Bit::Known(0); (tile.s + tile.pb) as usize];
        for (u, &c) in free.iter().enumerate() {
            base_bits[c as usize] = group_bit(u as u32);
        }
        let swz = &tile.swizzle;
        let thread = vec![
            Stmt::const_(Type::U32, "bt", part(&base_bits, &["tq"], &Type::U32)),
            Stmt::const_(Type::U32, "sbt", swz.expr(Expr::var("bt"))),
        ];
        let own = part(&base_bits, &["gj"], &Type::U32);
        let mut inner = vec![
            Stmt::const_(Type::U32, "base", Expr::var("bt") + own.clone()),
            Stmt::const_(
                Type::U32,
                "sbase",
                swz.join(Expr::var("sbt"), swz.expr(own)),
            ),
        ];
        let offset = |v: u64| -> u64 {
            locals
                .iter()
                .enumerate()
                .fold(0, |acc, (i, &c)| acc | (((v >> i) & 1) << c))
        };
        // base and offset have disjoint bits: swz(base | offset) = join(swz(base), swz(offset)).
        let slot = |v: u64| -> Expr {
            swz.join(Expr::var("sbase"), Expr::u32(swz.apply(offset(v)) as u32))
        };
        // Bits of a tile index outside the codelet's own: from `base` (the group) or the
        // block index.
        let runtime_bit =
            |src: BitSource| round_bit(tile, &[], src).expect("no bit is the codelet's");
        // Bits of element v's tile index: the codelet's bits are those of v.
        let bit_of = |v: u64| {
            move |src: BitSource| {
                round_bit(tile, locals, src).unwrap_or_else(|| {
                    let BitSource::Local(c) = src else {
                        unreachable!("only local bits are the codelet's")
                    };
                    let i = locals.iter().position(|&l| l == c).expect("a codelet bit");
                    Bit::Known((v >> i) & 1)
                })
            }
        };
        let codelet = Codelet::radix2(b);
        // The shifts of the loads and of the outputs, specialised where `layout` made their
        // bits uniform and the cases stay small.
        let on = format!("u{tmp}");
        let (pre_switch, post_switch) = match layout.uniform.as_ref() {
            Some(u) => {
                let elem_bit = |v: u64, src: BitSource| bit_of(v)(src);
                let ins: Vec<(u64, u32)> = (0..m).map(|v| (v, v as u32)).collect();
                let outs: Vec<(u64, u32)> = (0..m).zip(codelet.out.iter().copied()).collect();
                let pre_switch = u
                    .pre
                    .then(|| self.specialised(u, &on, pre, &ins, &elem_bit, tmp))
                    .flatten();
                let post_switch = u
                    .post
                    .then(|| self.specialised(u, &on, post, &outs, &elem_bit, tmp))
                    .flatten();
                if pre_switch.is_some() || post_switch.is_some() {
                    *tmp += 1;
                    let (_, value) = assemble(&u.bits, Type::U32);
                    let value = value.expect("a round is specialised on run-time bits");
                    inner.push(Stmt::const_(Type::U32, on.clone(), value));
                }
                (pre_switch, post_switch)
            }
            None => (None, None),
        };
        let (spec_pre, spec_post) = (pre_switch.is_some(), post_switch.is_some());
        // The loads' twiddles from a table of the kernel's own where it serves, their
        // common factor then moved to the outputs; else derived per codelet.
        let outputs_twisted = !spec_post && post.iter().any(|s| matches!(s, Step::Twiddle { .. }));
        let mut moved = Vec::new();
        let shared_pre = if spec_pre {
            None
        } else {
            self.codelet_exponents(pre, locals, &runtime_bit)
                .and_then(|ex| {
                    match self.codelet_table(&ex, outputs_twisted, name, &mut inner, tmp) {
                        Some(t) => {
                            moved = t.moved;
                            tables.extend(t.table);
                            Some(t.shared)
                        }
                        None => self.codelet_twiddles(ex, &[], &mut inner, tmp),
                    }
                })
        };
        for v in 0..m {
            let idx = slot(v);
            let loaded = fe::load(Expr::var("tile"), idx, Expr::u64(words));
            let value = if spec_pre {
                loaded
            } else {
                self.rotate(loaded, v, pre, &shared_pre, &bit_of(v), &mut inner, tmp)
            };
            inner.push(Stmt::let_(Type::Fe, format!("x{v}"), value));
        }
        inner.extend(pre_switch);
        let mut post_twiddles = Vec::new();
        let shared_post = if spec_post {
            None
        } else {
            self.codelet_exponents(post, locals, &runtime_bit)
                .and_then(|ex| self.codelet_twiddles(ex, &moved, &mut post_twiddles, tmp))
        };
        let lazy = self.lazy_outputs(&codelet, post, &shared_post);
        for (at, op) in codelet.ops.iter().enumerate() {
            match *op {
                Op::Butterfly { a, b } => {
                    let (xa, xb) = (Expr::var(format!("x{a}")), Expr::var(format!("x{b}")));
                    let add = if lazy[at].0 { "fe_add_lazy" } else { "fe_add" };
                    let sub = if lazy[at].1 { "fe_sub_lazy" } else { "fe_sub" };
                    inner.push(Stmt::Block(vec![
                        Stmt::const_(Type::Fe, "t", xa.clone()),
                        Stmt::assign(xa, Expr::call(add, [Expr::var("t"), xb.clone()])),
                        Stmt::assign(xb.clone(), Expr::call(sub, [Expr::var("t"), xb])),
                    ]));
                }
                Op::Rotate {
                    reg,
                    log_order,
                    exp,
                } => {
                    let e = self.direction_exponent(exp, log_order);
                    if let Some(c) = self.constant(log_order, e) {
                        let x = Expr::var(format!("x{reg}"));
                        inner.push(Stmt::assign(x.clone(), self.apply_constant(x, c)));
                    }
                }
            }
        }
        inner.extend(post_twiddles);
        inner.extend(post_switch);
        for (v, &r) in codelet.out.iter().enumerate() {
            let v = v as u64;
            let value = Expr::var(format!("x{r}"));
            let value = if spec_post {
                value
            } else {
                self.rotate(value, v, post, &shared_post, &bit_of(v), &mut inner, tmp)
            };
            inner.push(fe::store(
                Expr::var("tile"),
                slot(v),
                Expr::u64(words),
                value,
            ));
        }
        let per_thread = groups / threads;
        let mut body = thread;
        if per_thread == 1 {
            body.push(Stmt::const_(Type::U32, "gj", Expr::u32(0)));
            body.extend(inner);
        } else {
            let mut lp = crate::cuda::ForLoop::range(
                "gj",
                Type::U32,
                Expr::u32(0),
                Expr::u32(per_thread as u32),
            )
            .body(inner);
            // A thread's codelets are independent: unrolled, one's loads and products fill
            // the other's latencies. Measured worth it for 32-bit words only (larger
            // elements fill the registers with one codelet).
            if self.shape.element_bytes == 4 {
                lp = lp.unrolled();
            }
            body.push(Stmt::For(lp));
        }
        vec![
            Stmt::comment(format!("DFT({m}) along tile bits {locals:?}")),
            thread_loop(threads as u32, body),
            Stmt::sync(),
        ]
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

    #[test]
    fn xor_swizzles_are_bijections() {
        // Every map `choose` may pick for a tile of 2^12 elements.
        for shifts in Swizzle::shift_sets(12) {
            let s = Swizzle {
                shifts,
                mask: 31,
                pad: false,
            };
            let mut seen: Vec<u64> = (0..1 << 12).map(|i| s.apply(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..1 << 12).collect::<Vec<_>>(), "{s:?}");
            assert_eq!(s.span(1 << 12), 1 << 12);
        }
    }

    #[test]
    fn paddings_are_one_to_one_within_their_span() {
        for shifts in Swizzle::shift_sets(12) {
            let s = Swizzle {
                shifts,
                mask: 31,
                pad: true,
            };
            let mut seen: Vec<u64> = (0..1 << 12).map(|i| s.apply(i)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 1 << 12, "{s:?}");
            assert!(seen.iter().all(|&w| w < s.span(1 << 12)));
        }
    }

    proptest::proptest! {
        /// The kernels address `base | offset` as the join of the two parts' maps.
        #[test]
        fn maps_split_over_disjoint_bits(
            a in 1u32..12,
            b in 1u32..12,
            pad: bool,
            mask_bits in 4u32..=5,
            i in 0u64..1 << 12,
            split in 0u64..1 << 12,
        ) {
            // 8-byte words fold onto 16 bank slots, 4-byte words onto 32.
            let s = Swizzle {
                shifts: if a == b { vec![a] } else { vec![a.min(b), a.max(b)] },
                mask: (1 << mask_bits) - 1,
                pad,
            };
            let (x, y) = (i & split, i & !split);
            let joined = if pad { s.apply(x) + s.apply(y) } else { s.apply(x) ^ s.apply(y) };
            proptest::prop_assert_eq!(s.apply(i), joined);
        }
    }

    #[test]
    fn the_chosen_layout_removes_strided_conflicts() {
        // A warp reading 4-byte words at stride 16 (a radix-16 round along the low bits):
        // 16 lanes per bank laid out plainly.
        let strided: Vec<u64> = (0..32).map(|g| g * 16).collect();
        assert_eq!(Swizzle::none().wavefronts(&strided, 4), 16);
        // With consecutive words read too, the chosen map keeps both conflict-free.
        let unit: Vec<u64> = (0..32).collect();
        let both = [strided.clone(), unit.clone()];
        let s = Swizzle::choose(&both, 12, 4, 1, 1 << 13);
        assert_eq!(s.wavefronts(&strided, 4), 1);
        assert_eq!(s.wavefronts(&unit, 4), 1);
        // 8-byte words: 16 lanes per wavefront at best.
        assert_eq!(Swizzle::none().wavefronts(&unit, 8), 2);
        let s8 = Swizzle::choose(std::slice::from_ref(&strided), 12, 8, 1, 1 << 13);
        assert_eq!(s8.wavefronts(&strided, 8), 2);
        // Without room for padding the XOR map is the one left.
        let tight = Swizzle::choose(std::slice::from_ref(&strided), 12, 4, 1, 1 << 12);
        assert!(!tight.pad);
        assert_eq!(tight.wavefronts(&strided, 4), 1);
    }

    #[test]
    fn shifts_below_the_bank_bits_fold_middle_bits() {
        // A radix-4 round along tile bits 2 and 3 of 8-byte digits: the lanes span tile
        // bits 0, 1, 4, 5 and 6, and a half warp covers bits 0, 1, 4 and 5. Only a map
        // that folds bits 4 and 5 onto bits 2 and 3 (a shift by 2, below the 4 bank bits
        // of 8-byte words) serves each half warp in one wavefront.
        let round: Vec<u64> = (0..32u64).map(|l| (l & 3) | (l >> 2) << 4).collect();
        let accesses = [round.clone()];
        let s = Swizzle::choose(&accesses, 9, 8, 8, 768);
        assert_eq!(s.wavefronts(&round, 8), 2);
        assert!(s.shifts.iter().any(|&a| a < 4), "{s:?}");
        // The map is one-to-one on the tile.
        let mut words: Vec<u64> = (0..512).map(|i| s.apply(i)).collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 512);
    }

    #[test]
    fn small_srgfn_kernels_are_held_to_their_register_budget() {
        use crate::design::{transform, TransformOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let build =
            |name: &str| -> AnyField { name.parse::<FieldSpec>().unwrap().build().unwrap() };
        // (field, n, registers per thread the kernels are held to, if any).
        let cases = [
            ("P1", 1u64 << 12, Some(SMALL_SRGFN_REGISTERS)),
            ("P2", 1 << 15, Some(SMALL_SRGFN_REGISTERS)),
            ("P2", 1 << 9, Some(SMALL_SRGFN_REGISTERS)),
            ("P3", 1 << 12, None),
            ("P5", 1 << 12, None),
            ("babybear", 1 << 16, None),
        ];
        // 256 threads held to 64 registers: 4 blocks fill the register file.
        assert_eq!(blocks_for_registers(256, SMALL_SRGFN_REGISTERS), 4);
        for (name, n, cap) in cases {
            let t = transform(&build(name), n, &TransformOptions::default()).unwrap();
            let launches = t
                .forward_launches
                .iter()
                .chain(t.inverse_launches.iter().flatten());
            for l in launches {
                let bounds = match cap {
                    Some(regs) => {
                        let blocks = blocks_for_registers(l.threads, regs);
                        // The blocks asked for leave each thread at least `regs` registers.
                        assert!(REGISTER_FILE / (blocks * l.threads) >= regs, "{name} {l:?}");
                        format!("__launch_bounds__({}, {blocks}) {}(", l.threads, l.kernel)
                    }
                    None => format!("__launch_bounds__({}) {}(", l.threads, l.kernel),
                };
                assert!(t.source.contains(&bounds), "{name} at {n}: no `{bounds}`");
            }
        }
        // P4: held to 168 registers (3 blocks of 128 threads), except the kernel that
        // scales by 1/n.
        let t = transform(&build("P4"), 1 << 20, &TransformOptions::default()).unwrap();
        let inverse = t.inverse_launches.unwrap();
        let (last, rest) = inverse.split_last().unwrap();
        for l in t.forward_launches.iter().chain(rest) {
            let blocks = blocks_for_registers(l.threads, 168);
            let bounds = format!("__launch_bounds__({}, {blocks}) {}(", l.threads, l.kernel);
            assert!(t.source.contains(&bounds), "no `{bounds}`");
        }
        let plain = format!("__launch_bounds__({}) {}(", last.threads, last.kernel);
        assert!(t.source.contains(&plain), "no `{plain}`");
    }

    #[test]
    fn srgfn_tables_hold_whole_shifted_and_coarse_rows() {
        use crate::exec::tests::cooley_tukey;
        use crate::plan::{Plan, PlanOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let any: AnyField = "P2".parse::<FieldSpec>().unwrap().build().unwrap();
        let AnyField::Srgfn4(field) = &any else {
            unreachable!("P2 has four digits")
        };
        // 512 = 8^3: L = 9, g = 2k = 8; rows of 32 bytes.
        let plan = Plan::lower(&cooley_tukey(512, 8), PlanOptions::default()).unwrap();
        let roots = Roots::canonical(field, &plan).unwrap();
        let shape = FieldShape::of(&any);
        let shift = roots.shift().unwrap();
        for (bytes, lo_bits, high, coarse_bits) in [
            (EmitOptions::default().table_bytes, 9, High::None, 0),
            (32 << 9, 9, High::None, 0),
            (32 << 8, 6, High::Shift(shift), 8),
            (32 << 5, 6, High::Shift(shift), 5),
            // Coarse rows of order g or less would hold only shifts.
            (32 << 3, 6, High::Shift(shift), 0),
        ] {
            let layout = TableLayout::of(&shape, &roots, bytes);
            assert_eq!(
                (layout.lo_bits, layout.high, layout.coarse_bits),
                (lo_bits, high, coarse_bits),
                "{bytes} bytes"
            );
            let table = twiddle_table(field, &shape, &roots, &layout);
            assert_eq!(table.len() as u64, 4 * layout.rows());
            let exponents: Vec<u64> = layout.exponents().collect();
            assert_eq!(exponents.len() as u64 + 1, layout.rows());
            for (row, &e) in exponents.iter().enumerate() {
                let want = digits(field, &roots.power(field, e), 4);
                assert_eq!(
                    table[4 * row..4 * row + 4],
                    want[..],
                    "row {row} holds ω^{e}"
                );
            }
            let last = 4 * exponents.len();
            assert_eq!(table[last..], digits(field, roots.n_inv(), 4)[..]);
            // Every exponent that is a multiple of 2^(L−C) has its coarse row.
            for e in (0..1u64 << 9).step_by(1 << (9 - coarse_bits.max(1))) {
                let row = layout.coarse_row(e);
                assert_eq!(row.is_some(), coarse_bits > 0, "ω^{e}");
                if let Some(row) = row {
                    assert_eq!(exponents[row as usize], e);
                }
            }
        }
    }

    #[test]
    fn split_tables_hold_the_powers_the_kernels_read() {
        use crate::exec::tests::cooley_tukey;
        use crate::plan::{Plan, PlanOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let any: AnyField = "babybear".parse::<FieldSpec>().unwrap().build().unwrap();
        let AnyField::Fp32(field) = &any else {
            unreachable!("babybear is a 32-bit word prime")
        };
        let plan = Plan::lower(&cooley_tukey(1 << 14, 16), PlanOptions::default()).unwrap();
        let roots = Roots::canonical(field, &plan).unwrap();
        let shape = FieldShape::of(&any);
        let layout = TableLayout::of(&shape, &roots, EmitOptions::default().table_bytes);
        assert_eq!((layout.lo_bits, layout.high), (7, High::Table));
        let table = twiddle_table(field, &shape, &roots, &layout);
        assert_eq!(table.len() as u64, layout.rows());
        for (row, e) in layout.exponents().enumerate() {
            let want = montgomery(field, &shape, &roots.power(field, e));
            assert_eq!(table[row], want, "row {row} holds ω^{e}");
        }
    }
}
