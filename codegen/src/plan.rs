//! Kernel plans: the small intermediate form between a derived formula and code.
//!
//! A [`Plan`] is an ordered list of [`KernelPlan`]s. Each kernel is a loop over
//! independent *pieces*; a piece gathers 2^s elements (its *local* index has s bits,
//! placed at the physical index bits [`KernelPlan::active`]), runs a straight-line
//! program of [`Op`]s on them (butterflies and multiplications by roots of unity), and
//! scatters them. Stride permutations never run as passes: the lowering tracks where each
//! logical index lives (a permutation of index bits) and folds the final relabelling into
//! the last kernel's scatter map. Consecutive stages share a kernel while the bits they
//! touch fit in one piece, so a transform makes as few passes over memory as the piece
//! size allows.
//!
//! The plan is pure data: the CPU executor ([`crate::exec`]) and the CUDA printer consume
//! the same value, so the CPU run in CI checks exactly what the GPU runs.

use crate::contract::{Buffers, Hop, Input};
use crate::sigma::{stages, Stage};
use fermat_dsl::formula::{Formula, FormulaError};
use thiserror::Error;

/// Why a formula could not be lowered into a plan.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The formula is malformed.
    #[error(transparent)]
    Formula(#[from] FormulaError),
    /// Code generation handles sizes that are powers of two only.
    #[error("size {size} of {formula} is not a power of two; kernels are generated for power-of-two sizes only")]
    NotPowerOfTwo {
        /// The refused size.
        size: u64,
        /// The (sub)formula.
        formula: String,
    },
    /// An operator the lowering does not handle.
    #[error("cannot lower {what} (in {formula})")]
    Unsupported {
        /// What is not supported.
        what: String,
        /// The (sub)formula.
        formula: String,
    },
    /// A DFT leaf larger than a piece.
    #[error("DFT(2^{bits}) does not fit a piece of 2^{max_local_bits} elements; derive the formula further or raise the piece size")]
    LeafTooLarge {
        /// log2 of the leaf's size.
        bits: u32,
        /// log2 of the largest piece.
        max_local_bits: u32,
    },
    /// The piece size is out of range.
    #[error("max_local_bits = {max_local_bits} must be in 1..=20")]
    PieceSize {
        /// The refused log2 of the piece size.
        max_local_bits: u32,
    },
    /// A kernel whose gather or scatter map is not a bijection of the addresses.
    #[error("kernel {kernel} of a plan of 2^{log_n} points does not visit every address once: active bits {active:?}, scatter bits {dest:?} (they must be distinct bits below {log_n}, the scatter bits a permutation)")]
    NotBijective {
        /// The kernel's index in the plan.
        kernel: usize,
        /// Its active bits.
        active: Vec<u32>,
        /// Its scatter map.
        dest: Vec<u32>,
        /// log2 of the plan's size.
        log_n: u32,
    },
}

/// Natural or bit-reversed order of a vector in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// `x[i]` at address i.
    #[default]
    Natural,
    /// `x[i]` at address bitrev(i).
    BitReversed,
}

/// Forward DFT at ω, or inverse (at ω^(−1), scaled by 1/n).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// y = DFT_n(ω) x.
    #[default]
    Forward,
    /// y = (1/n) DFT_n(ω^(−1)) x.
    Inverse,
}

/// Options of the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanOptions {
    /// log2 of the largest piece (elements one kernel exchanges on chip).
    pub max_local_bits: u32,
    /// log2 of the largest piece whose bits all lie below it, where it is read and where
    /// it is written: such a piece is a run of consecutive elements on both sides, which
    /// moves whole sectors without neighbouring pieces, so DFT stages may join it beyond
    /// `max_local_bits` up to this size and save a pass (no effect at or below
    /// `max_local_bits`).
    pub max_contiguous_bits: u32,
    /// Order of the input in memory.
    pub input_order: Order,
    /// Order of the output in memory.
    pub output_order: Order,
    /// Forward or inverse.
    pub direction: Direction,
    /// How the first pass reads and the last pass writes.
    pub io: Io,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            max_local_bits: 12,
            max_contiguous_bits: 0,
            input_order: Order::Natural,
            output_order: Order::Natural,
            direction: Direction::Forward,
            io: Io::default(),
        }
    }
}

/// How a plan's first pass reads and its last pass writes, beyond whole vectors of n
/// elements: what FFT-based products of polynomials fold into their transforms so that a
/// product moves no more memory than its transforms.
///
/// The default reads and writes whole vectors, and the kernels take [`TRANSFORM_ARGS`];
/// any other takes [`POLY_TRANSFORM_ARGS`].
///
/// [`TRANSFORM_ARGS`]: crate::contract::TRANSFORM_ARGS
/// [`POLY_TRANSFORM_ARGS`]: crate::contract::POLY_TRANSFORM_ARGS
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Io {
    /// The first pass reads a vector of `src_len ≤ n` elements whose digits lie
    /// `src_stride` words apart, and takes the others as zero: zero padding folded into
    /// the gather.
    pub short_input: bool,
    /// The first pass multiplies each element it reads by the operand's element at the
    /// same address: the pointwise product of two transforms folded into the inverse.
    pub pointwise: bool,
    /// The last pass writes only the first `dst_len ≤ n` elements, their digits
    /// `dst_stride` words apart; the passes before it alternate between the scratch buffer
    /// and the input, which the plan clobbers ([`Hop::ScratchToInput`]).
    pub short_output: bool,
}

impl Io {
    /// The forward transform of a cyclic product: it reads a short factor.
    pub const FACTOR: Io = Io {
        short_input: true,
        pointwise: false,
        short_output: false,
    };

    /// The inverse transform of a cyclic product: it multiplies by the other factor's
    /// transform as it reads and writes a short product.
    pub const PRODUCT: Io = Io {
        short_input: false,
        pointwise: true,
        short_output: true,
    };

    /// Whether every pass reads and writes whole vectors of n elements.
    pub fn is_whole(&self) -> bool {
        *self == Io::default()
    }
}

/// Where one bit of a twiddle exponent's factor comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitSource {
    /// Bit c of the element's local index within its piece.
    Local(u32),
    /// Bit c of the piece index.
    Piece(u32),
}

/// A value assembled from index bits: bit i is `bits[i]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BitField {
    /// The source of each bit, least significant first.
    pub bits: Vec<BitSource>,
}

impl BitField {
    /// The value for local element `j` of piece `p`.
    pub fn eval(&self, j: u64, p: u64) -> u64 {
        self.bits.iter().enumerate().fold(0, |acc, (i, src)| {
            let bit = match *src {
                BitSource::Local(c) => (j >> c) & 1,
                BitSource::Piece(c) => (p >> c) & 1,
            };
            acc | (bit << i)
        })
    }

    /// Whether the value depends on the piece index.
    pub fn uses_piece(&self) -> bool {
        self.bits.iter().any(|b| matches!(b, BitSource::Piece(_)))
    }
}

/// One step of a kernel's body, applied to the whole piece.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// DFT(2^b), b = `locals.len()`, along the local bits `locals` (bit i of the DFT's
    /// index is local bit `locals[i]`), for every value of the other local bits; each
    /// group runs the radix-2 [`Codelet`] of that size.
    Dft {
        /// The local bits the DFT runs along.
        locals: Vec<u32>,
    },
    /// Element j of piece p is multiplied by ω_{2^log_order}^(x·y) (by ω^(−1) in inverse
    /// plans): the twiddle diagonal D(m, n) of a formula, with x and y the bit fields of
    /// the formula's index mapped to where those bits live.
    Twiddle {
        /// log2 of the root's order, log2(mn).
        log_order: u32,
        /// The row index a.
        x: BitField,
        /// The column index b.
        y: BitField,
    },
    /// Every element is multiplied by n^(−1) (the inverse transform's scaling).
    Scale,
}

/// One instruction of a codelet, on the codelet's registers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// (a, b) ← (a + b, a − b): a DFT(2).
    Butterfly {
        /// First register.
        a: u32,
        /// Second register.
        b: u32,
    },
    /// reg ← reg · ω_{2^log_order}^exp: for an SRGFN with 2^log_order | 2k the root is a
    /// power of r and this is a digit shift.
    Rotate {
        /// The register.
        reg: u32,
        /// log2 of the root's order.
        log_order: u32,
        /// The exponent.
        exp: u64,
    },
}

/// The straight-line DFT(2^bits) on registers 0..2^bits, by the radix-2 base-case
/// expansion DFT(m) = (DFT(2) ⊗ I(m/2)) · D(2, m/2) · (I(2) ⊗ DFT(m/2)) · L(m, 2)
/// (thesis, DFT16): stride permutations are register relabellings and the twiddles are
/// powers of ω_m — digit shifts when m divides 2k for an SRGFN.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Codelet {
    /// log2 of the size.
    pub bits: u32,
    /// The instructions, in order.
    pub ops: Vec<Op>,
    /// Output position v is in register `out[v]`.
    pub out: Vec<u32>,
}

impl Codelet {
    /// The radix-2 codelet of size 2^bits.
    pub fn radix2(bits: u32) -> Codelet {
        let regs: Vec<u32> = (0..1u32 << bits).collect();
        let mut ops = Vec::new();
        let out = radix2(&regs, &mut ops);
        Codelet { bits, ops, out }
    }
}

fn radix2(regs: &[u32], ops: &mut Vec<Op>) -> Vec<u32> {
    let m = regs.len();
    if m == 1 {
        return regs.to_vec();
    }
    let half = m / 2;
    // L(m, 2): y[j·half + i] = x[2i + j].
    let evens: Vec<u32> = (0..half).map(|i| regs[2 * i]).collect();
    let odds: Vec<u32> = (0..half).map(|i| regs[2 * i + 1]).collect();
    let lo = radix2(&evens, ops);
    let hi = radix2(&odds, ops);
    let log_order = m.trailing_zeros();
    for (b, &reg) in hi.iter().enumerate().skip(1) {
        ops.push(Op::Rotate {
            reg,
            log_order,
            exp: b as u64,
        });
    }
    for (&a, &b) in lo.iter().zip(&hi) {
        ops.push(Op::Butterfly { a, b });
    }
    lo.into_iter().chain(hi).collect()
}

/// One kernel: a loop over `2^(log_n − active.len())` independent pieces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelPlan {
    /// A name for the generated function.
    pub name: String,
    /// log2 of the transform size.
    pub log_n: u32,
    /// Local bit c of a piece is physical index bit `active[c]` (ascending); the piece
    /// index fills the other bits in ascending order.
    pub active: Vec<u32>,
    /// The body, applied to each piece in order.
    pub steps: Vec<Step>,
    /// The scatter address of an element is `dest` applied to its gather address:
    /// physical bit q moves to bit `dest[q]` (the identity except where the plan's
    /// final relabelling is folded in).
    pub dest: Vec<u32>,
    /// The buffers read and written.
    pub hop: Hop,
    /// How this kernel reads and writes: the plan's [`Io`] where it is the first pass
    /// (`short_input`, `pointwise`) or the last (`short_output`), the default elsewhere.
    pub io: Io,
}

impl KernelPlan {
    /// log2 of the piece size.
    pub fn local_bits(&self) -> u32 {
        self.active.len() as u32
    }

    /// The number of pieces.
    pub fn pieces(&self) -> u64 {
        1 << (self.log_n - self.local_bits())
    }

    /// The physical address of local element `j` of piece `p`.
    pub fn gather(&self, p: u64, j: u64) -> u64 {
        let mut addr = 0u64;
        let mut piece_bit = 0;
        let mut local_bit = 0;
        for q in 0..self.log_n {
            let bit = if self.active.get(local_bit) == Some(&q) {
                local_bit += 1;
                (j >> (local_bit - 1)) & 1
            } else {
                piece_bit += 1;
                (p >> (piece_bit - 1)) & 1
            };
            addr |= bit << q;
        }
        addr
    }

    /// The address local element `j` of piece `p` is written to.
    pub fn scatter(&self, p: u64, j: u64) -> u64 {
        let a = self.gather(p, j);
        self.dest
            .iter()
            .enumerate()
            .fold(0, |acc, (q, &d)| acc | (((a >> q) & 1) << d))
    }

    /// Whether the scatter map equals the gather map.
    pub fn in_place_order(&self) -> bool {
        self.dest.iter().enumerate().all(|(q, &d)| q as u32 == d)
    }
}

/// A lowered transform: the kernels in launch order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// log2 of the size.
    pub log_n: u32,
    /// The options it was lowered with.
    pub options: PlanOptions,
    /// The kernels, in launch order.
    pub kernels: Vec<KernelPlan>,
}

impl Plan {
    /// The transform size.
    pub fn n(&self) -> u64 {
        1 << self.log_n
    }

    /// The largest root order (log2) any rotation uses: the twiddle table's size.
    pub fn max_log_order(&self) -> u32 {
        self.kernels
            .iter()
            .flat_map(|k| &k.steps)
            .map(|step| match step {
                Step::Twiddle { log_order, .. } => *log_order,
                Step::Dft { locals } => locals.len() as u32,
                Step::Scale => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether any kernel needs the scratch buffer.
    pub fn needs_scratch(&self) -> bool {
        self.kernels.iter().any(|k| k.hop.uses_scratch())
    }

    /// Runs the plan's passes in order on host buffers: `pass(kernel, src, dst)` for each
    /// kernel with the buffers its [`Hop`] names, and a scratch buffer of n copies of
    /// `fill` where the plan needs one. The one dispatch of passes to buffers that the CPU
    /// executor and the CPU backend share.
    pub fn run_passes<T: Clone>(
        &self,
        input: Input<'_, T>,
        output: &mut [T],
        fill: T,
        mut pass: impl FnMut(&KernelPlan, &[T], &mut [T]),
    ) {
        let mut scratch = if self.needs_scratch() {
            vec![fill; self.n() as usize]
        } else {
            Vec::new()
        };
        let mut buffers = Buffers::new(input, output, &mut scratch);
        for kernel in &self.kernels {
            let (src, dst) = buffers.pass(kernel.hop);
            pass(kernel, src, dst);
        }
    }

    /// The plan's I/O: how its first pass reads and its last pass writes.
    pub fn io(&self) -> Io {
        self.options.io
    }

    /// Checks that every kernel's gather and scatter maps are bijections of the n
    /// addresses: its active bits distinct, ascending and below log2 n, and its `dest` a
    /// permutation of the address bits. Backends that write the pieces of a pass in
    /// parallel rely on it (no address is written twice, none is left unwritten).
    pub fn check_maps(&self) -> Result<(), PlanError> {
        for (index, k) in self.kernels.iter().enumerate() {
            let ascending = k.active.windows(2).all(|w| w[0] < w[1]);
            let active_ok = ascending && k.active.iter().all(|&q| q < k.log_n);
            let mut seen = vec![false; k.log_n as usize];
            let dest_ok = k.dest.len() == k.log_n as usize
                && k.dest
                    .iter()
                    .all(|&d| (d < k.log_n) && !std::mem::replace(&mut seen[d as usize], true));
            if k.log_n != self.log_n || !active_ok || !dest_ok {
                return Err(PlanError::NotBijective {
                    kernel: index,
                    active: k.active.clone(),
                    dest: k.dest.clone(),
                    log_n: self.log_n,
                });
            }
        }
        Ok(())
    }

    /// Lowers a formula (whose DFT leaves fit a piece) into kernels.
    pub fn lower(formula: &Formula, options: PlanOptions) -> Result<Plan, PlanError> {
        if options.max_local_bits == 0 || options.max_local_bits > 20 {
            return Err(PlanError::PieceSize {
                max_local_bits: options.max_local_bits,
            });
        }
        let (t, stages) = stages(formula)?;
        Lowering::new(t, options).run(&stages)
    }
}

/// A plan whose gather and scatter maps were checked to be bijections ([`Plan::check_maps`]):
/// what backends that write the pieces of a pass in parallel take.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckedPlan(Plan);

impl CheckedPlan {
    /// The plan, checked.
    pub fn new(plan: Plan) -> Result<CheckedPlan, PlanError> {
        plan.check_maps()?;
        Ok(CheckedPlan(plan))
    }
}

impl std::ops::Deref for CheckedPlan {
    type Target = Plan;
    fn deref(&self) -> &Plan {
        &self.0
    }
}

/// Where each logical index bit lives physically: `f[q]` is the physical bit of logical
/// bit q.
type Layout = Vec<u32>;

struct Group {
    active: Vec<u32>,
    stages: Vec<(Stage, Layout)>,
}

struct Lowering {
    t: u32,
    options: PlanOptions,
}

impl Lowering {
    fn new(t: u32, options: PlanOptions) -> Self {
        Lowering { t, options }
    }

    fn initial_layout(&self, order: Order) -> Layout {
        match order {
            Order::Natural => (0..self.t).collect(),
            Order::BitReversed => (0..self.t).map(|q| self.t - 1 - q).collect(),
        }
    }

    /// The plan of `stages`, with pieces beyond `max_local_bits` only where they save a
    /// pass: a larger piece with as many passes holds fewer blocks a multiprocessor and
    /// measured no faster (bench/RESULTS.md, "Transforms of 2^19 to 2^22 points").
    fn run(&self, stages: &[Stage]) -> Result<Plan, PlanError> {
        let wide = self.run_grouped(stages)?;
        if self.options.max_contiguous_bits <= self.options.max_local_bits {
            return Ok(wide);
        }
        let strict = PlanOptions {
            max_contiguous_bits: 0,
            ..self.options
        };
        let strict = Lowering::new(self.t, strict).run_grouped(stages)?;
        Ok(if wide.kernels.len() < strict.kernels.len() {
            wide
        } else {
            strict
        })
    }

    fn run_grouped(&self, stages: &[Stage]) -> Result<Plan, PlanError> {
        let max = self.options.max_local_bits.min(self.t);
        let contiguous = self.options.max_contiguous_bits.min(self.t);
        let mut layout = self.initial_layout(self.options.input_order);
        let mut groups: Vec<Group> = vec![Group {
            active: Vec::new(),
            stages: Vec::new(),
        }];
        for stage in stages {
            match stage {
                Stage::Perm(perm) => {
                    // y[o] = x[σ(o)]: logical bit q of y is logical bit src[q] of x.
                    layout = perm.src.iter().map(|&s| layout[s as usize]).collect();
                }
                Stage::Twiddle { .. } => {
                    let g = groups.last_mut().expect("there is always a group");
                    g.stages.push((stage.clone(), layout.clone()));
                }
                Stage::Dft { lo, bits } => {
                    if *bits > max {
                        return Err(PlanError::LeafTooLarge {
                            bits: *bits,
                            max_local_bits: self.options.max_local_bits,
                        });
                    }
                    let touched: Vec<u32> = (*lo..lo + bits).map(|q| layout[q as usize]).collect();
                    let g = groups.last_mut().expect("there is always a group");
                    let mut union = g.active.clone();
                    union.extend(touched.iter().filter(|b| !g.active.contains(b)));
                    let fits = union.len() as u32 <= max || union.iter().all(|&q| q < contiguous);
                    if !fits && !g.active.is_empty() {
                        groups.push(Group {
                            active: touched,
                            stages: vec![(stage.clone(), layout.clone())],
                        });
                    } else {
                        g.active = union;
                        g.stages.push((stage.clone(), layout.clone()));
                    }
                }
            }
        }
        // Where logical output bit q must go: the final relabelling of the last kernel.
        let target = self.initial_layout(self.options.output_order);
        let count = groups.len();
        let mut kernels = Vec::with_capacity(count);
        for (i, mut g) in groups.into_iter().enumerate() {
            g.active.sort_unstable();
            let last = i + 1 == count;
            let dest: Vec<u32> = if last {
                // Physical bit layout[q] holds logical bit q, which belongs at target[q].
                let mut d = vec![0; self.t as usize];
                for q in 0..self.t as usize {
                    d[layout[q] as usize] = target[q];
                }
                d
            } else {
                (0..self.t).collect()
            };
            // A piece beyond max_local_bits must be consecutive where it is written too;
            // the last kernel's relabelling may scatter it (natural order after a
            // digit-reversing plan), and then the plan keeps to max_local_bits.
            if g.active.len() as u32 > max
                && g.active.iter().any(|&q| dest[q as usize] >= contiguous)
            {
                let strict = PlanOptions {
                    max_contiguous_bits: 0,
                    ..self.options
                };
                return Lowering::new(self.t, strict).run_grouped(stages);
            }
            let hop = Hop::of_pass(i, count, self.options.io.short_output);
            kernels.push(self.kernel(i, g, dest, hop, last));
        }
        Ok(Plan {
            log_n: self.t,
            options: self.options,
            kernels,
        })
    }

    fn kernel(
        &self,
        index: usize,
        group: Group,
        dest: Vec<u32>,
        hop: Hop,
        last: bool,
    ) -> KernelPlan {
        let local_of = |phys: u32| group.active.iter().position(|&a| a == phys);
        // Rank of a non-active physical bit among the piece bits.
        let piece_of = |phys: u32| (0..phys).filter(|q| !group.active.contains(q)).count() as u32;
        let source = |phys: u32| match local_of(phys) {
            Some(c) => BitSource::Local(c as u32),
            None => BitSource::Piece(piece_of(phys)),
        };
        let mut steps = Vec::new();
        for (stage, layout) in &group.stages {
            let field = |from: u32, width: u32| BitField {
                bits: (from..from + width)
                    .map(|q| source(layout[q as usize]))
                    .collect(),
            };
            steps.push(match *stage {
                Stage::Dft { lo, bits } => Step::Dft {
                    locals: (lo..lo + bits)
                        .map(|q| local_of(layout[q as usize]).expect("DFT bits are active") as u32)
                        .collect(),
                },
                Stage::Twiddle { lo, m_bits, n_bits } => Step::Twiddle {
                    log_order: m_bits + n_bits,
                    x: field(lo + n_bits, m_bits),
                    y: field(lo, n_bits),
                },
                Stage::Perm(_) => unreachable!("permutations are folded into layouts"),
            });
        }
        if last && self.options.direction == Direction::Inverse {
            steps.push(Step::Scale);
        }
        let io = self.options.io;
        let io = Io {
            short_input: index == 0 && io.short_input,
            pointwise: index == 0 && io.pointwise,
            short_output: last && io.short_output,
        };
        KernelPlan {
            name: format!("fermat_k{index}"),
            log_n: self.t,
            active: group.active,
            steps,
            dest,
            hop,
            io,
        }
    }
}

#[cfg(test)]
mod tests;
