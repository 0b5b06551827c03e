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
use crate::sigma::stages;
use fermat_dsl::formula::{Formula, FormulaError};
use thiserror::Error;

mod lower;
mod program;

use lower::Lowering;
pub use program::{BitField, BitSource, Codelet, Op, Step};

/// Why a formula could not be lowered into a plan.
///
/// ```
/// use fermat_codegen::plan::{Plan, PlanError, PlanOptions};
/// use fermat_dsl::formula::Formula;
///
/// let pieces = |max_local_bits| PlanOptions { max_local_bits, ..PlanOptions::default() };
/// let err = Plan::lower(&Formula::dft(12)?, pieces(12)).unwrap_err();
/// assert!(matches!(err, PlanError::NotPowerOfTwo { size: 12, .. }));
/// let err = Plan::lower(&Formula::dft(16)?, pieces(2)).unwrap_err();
/// assert_eq!(err, PlanError::LeafTooLarge { bits: 4, max_local_bits: 2 });
/// let err = Plan::lower(&Formula::dft(16)?, pieces(0)).unwrap_err();
/// assert_eq!(err, PlanError::PieceSize { max_local_bits: 0 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use fermat_codegen::exec::execute;
/// use fermat_codegen::plan::{Order, Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(469762049)?;
/// let x: Vec<_> = (1..=16).map(|v| f.from_u64(v)).collect();
/// let plan = |output_order| {
///     let options = PlanOptions { output_order, ..PlanOptions::default() };
///     Plan::lower(&Formula::Dft(16), options)
/// };
/// let (mut natural, mut reversed) = (vec![f.zero(); 16], vec![f.zero(); 16]);
/// execute(&f, &plan(Order::Natural)?, &x, &mut natural)?;
/// execute(&f, &plan(Order::BitReversed)?, &x, &mut reversed)?;
/// for i in 0..16usize {
///     assert_eq!(reversed[i.reverse_bits() >> (usize::BITS - 4)], natural[i]);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// `x[i]` at address i.
    #[default]
    Natural,
    /// `x[i]` at address bitrev(i).
    BitReversed,
}

/// Forward DFT at ω, or inverse (at ω^(−1), scaled by 1/n).
///
/// ```
/// use fermat_codegen::exec::execute;
/// use fermat_codegen::plan::{Direction, Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(469762049)?;
/// let x: Vec<_> = (1..=16).map(|v| f.from_u64(v)).collect();
/// let plan = |direction| {
///     let options = PlanOptions { direction, ..PlanOptions::default() };
///     Plan::lower(&Formula::Dft(16), options)
/// };
/// let (mut y, mut back) = (vec![f.zero(); 16], vec![f.zero(); 16]);
/// execute(&f, &plan(Direction::Forward)?, &x, &mut y)?;
/// execute(&f, &plan(Direction::Inverse)?, &y, &mut back)?;
/// assert_eq!(back, x); // the inverse carries the 1/n
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// y = DFT_n(ω) x.
    #[default]
    Forward,
    /// y = (1/n) DFT_n(ω^(−1)) x.
    Inverse,
}

/// Options of the lowering.
///
/// Smaller pieces make more passes; a run of consecutive elements may exceed the piece
/// where that saves one.
///
/// ```
/// use fermat_codegen::plan::{Order, Plan, PlanError, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(2^10) by radix 4: five DFT(4) stages, the high index bits first.
/// let f = derive(&Formula::dft(1 << 10)?, Strategy::Ct, &Options::radix(4))?.final_formula();
/// let options = |max_contiguous_bits| PlanOptions {
///     max_local_bits: 4,
///     max_contiguous_bits,
///     output_order: Order::BitReversed,
///     ..PlanOptions::default()
/// };
/// let pieces = |bits| -> Result<Vec<u32>, PlanError> {
///     Ok(Plan::lower(&f, options(bits))?.kernels.iter().map(|k| k.local_bits()).collect())
/// };
/// assert_eq!(pieces(0)?, [4, 4, 2]);
/// assert_eq!(pieces(6)?, [4, 6]); // bits 0..6 are a run of 64 consecutive elements
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
/// ```
/// use fermat_codegen::plan::{Io, Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// assert!(Io::default().is_whole() && !Io::PRODUCT.is_whole());
/// // A product's I/O on a transform of 2^12 points in two passes.
/// let f = derive(&Formula::dft(1 << 12)?, Strategy::Ct, &Options::radix(16))?.final_formula();
/// let options = PlanOptions { max_local_bits: 8, io: Io::PRODUCT, ..PlanOptions::default() };
/// let plan = Plan::lower(&f, options)?;
/// assert_eq!(plan.io(), Io::PRODUCT);
/// let (first, last) = (plan.kernels[0].io, plan.kernels[1].io);
/// assert!(first.pointwise && !first.short_output); // the first pass multiplies as it reads
/// assert!(last.short_output && !last.pointwise); // the last writes a short product
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// The forward transform of a cyclic product: it reads a short factor
    /// ([`execute_io`](crate::exec::execute_io) has an example).
    pub const FACTOR: Io = Io {
        short_input: true,
        pointwise: false,
        short_output: false,
    };

    /// The inverse transform of a cyclic product: it multiplies by the other factor's
    /// transform as it reads and writes a short product ([`Io`] has an example).
    pub const PRODUCT: Io = Io {
        short_input: false,
        pointwise: true,
        short_output: true,
    };

    /// Whether every pass reads and writes whole vectors of n elements ([`Io`] has an
    /// example).
    pub fn is_whole(&self) -> bool {
        *self == Io::default()
    }
}

/// One kernel: a loop over `2^(log_n − active.len())` independent pieces.
///
/// ```
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(64) by radix 4 in pieces of 4: three kernels of 16 pieces.
/// let f = derive(&Formula::dft(64)?, Strategy::Ct, &Options::radix(4))?.final_formula();
/// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 2, ..PlanOptions::default() })?;
/// let shape = |i: usize| (plan.kernels[i].local_bits(), plan.kernels[i].pieces());
/// assert_eq!([shape(0), shape(1), shape(2)], [(2, 16); 3]);
/// // Only the last kernel moves elements: it folds in the digit reversal.
/// let in_place: Vec<bool> = plan.kernels.iter().map(|k| k.in_place_order()).collect();
/// assert_eq!(in_place, [true, true, false]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// log2 of the piece size ([`KernelPlan`] has an example).
    pub fn local_bits(&self) -> u32 {
        self.active.len() as u32
    }

    /// The number of pieces ([`KernelPlan`] has an example).
    pub fn pieces(&self) -> u64 {
        1 << (self.log_n - self.local_bits())
    }

    /// The physical address of local element `j` of piece `p`.
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    /// use fermat_codegen::plan::{Io, KernelPlan};
    ///
    /// // 64 points in pieces of 4 at address bits 1 and 4; the piece index fills the rest.
    /// let k = KernelPlan {
    ///     name: "k".into(),
    ///     log_n: 6,
    ///     active: vec![1, 4],
    ///     steps: vec![],
    ///     dest: (0..6).collect(),
    ///     hop: Hop::InputToOutput,
    ///     io: Io::default(),
    /// };
    /// assert_eq!([k.gather(0, 1), k.gather(0, 2), k.gather(0, 3)], [2, 16, 18]);
    /// assert_eq!([k.gather(1, 0), k.gather(2, 0), k.gather(4, 0), k.gather(8, 0)], [1, 4, 8, 32]);
    /// ```
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
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    /// use fermat_codegen::plan::{Io, KernelPlan};
    ///
    /// // Pieces of 4 at address bits 0 and 1 of 16, written bit-reversed.
    /// let k = KernelPlan {
    ///     name: "k".into(),
    ///     log_n: 4,
    ///     active: vec![0, 1],
    ///     steps: vec![],
    ///     dest: vec![3, 2, 1, 0],
    ///     hop: Hop::InputToOutput,
    ///     io: Io::default(),
    /// };
    /// assert_eq!((k.gather(0, 1), k.scatter(0, 1)), (0b0001, 0b1000));
    /// assert_eq!((k.gather(1, 2), k.scatter(1, 2)), (0b0110, 0b0110));
    /// assert_eq!((k.gather(3, 1), k.scatter(3, 1)), (0b1101, 0b1011));
    /// ```
    pub fn scatter(&self, p: u64, j: u64) -> u64 {
        let a = self.gather(p, j);
        self.dest
            .iter()
            .enumerate()
            .fold(0, |acc, (q, &d)| acc | (((a >> q) & 1) << d))
    }

    /// Whether the scatter map equals the gather map ([`KernelPlan`] has an example).
    pub fn in_place_order(&self) -> bool {
        self.dest.iter().enumerate().all(|(q, &d)| q as u32 == d)
    }
}

/// A lowered transform: the kernels in launch order.
///
/// ```
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(2^12) by radix 16 in pieces of 2^8: two passes, through the scratch buffer.
/// let f = derive(&Formula::dft(1 << 12)?, Strategy::Ct, &Options::radix(16))?.final_formula();
/// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 8, ..PlanOptions::default() })?;
/// assert_eq!((plan.n(), plan.kernels.len()), (4096, 2));
/// assert_eq!(plan.max_log_order(), 12); // the outer twiddles are powers of ω_4096
/// assert!(plan.needs_scratch() && plan.io().is_whole());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// The transform size ([`Plan`] has an example).
    pub fn n(&self) -> u64 {
        1 << self.log_n
    }

    /// The largest root order (log2) any rotation uses: the twiddle table's size
    /// ([`Plan`] has an example).
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

    /// Whether any kernel needs the scratch buffer ([`Plan`] has an example).
    pub fn needs_scratch(&self) -> bool {
        self.kernels.iter().any(|k| k.hop.uses_scratch())
    }

    /// Runs the plan's passes in order on host buffers: `pass(kernel, src, dst)` for each
    /// kernel with the buffers its [`Hop`] names, and a scratch buffer of n copies of
    /// `fill` where the plan needs one. The one dispatch of passes to buffers that the CPU
    /// executor and the CPU backend share.
    ///
    /// ```
    /// use fermat_codegen::contract::{Hop, Input};
    /// use fermat_codegen::plan::{Plan, PlanOptions};
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let f = derive(&Formula::dft(64)?, Strategy::Ct, &Options::radix(4))?.final_formula();
    /// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 2, ..PlanOptions::default() })?;
    /// let (input, mut output, mut hops) = (vec![0u32; 64], vec![0u32; 64], Vec::new());
    /// plan.run_passes(Input::shared(&input), &mut output, 0, |kernel, src, dst| {
    ///     hops.push(kernel.hop);
    ///     dst.iter_mut().zip(src).for_each(|(d, s)| *d = s + 1);
    /// });
    /// assert_eq!(hops, [Hop::InputToOutput, Hop::OutputToScratch, Hop::ScratchToOutput]);
    /// assert!(output.iter().all(|&v| v == 3)); // each pass read what the one before wrote
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    /// The plan's I/O: how its first pass reads and its last pass writes ([`Io`] has an
    /// example).
    pub fn io(&self) -> Io {
        self.options.io
    }

    /// Checks that every kernel's gather and scatter maps are bijections of the n
    /// addresses: its active bits distinct, ascending and below log2 n, and its `dest` a
    /// permutation of the address bits. Backends that write the pieces of a pass in
    /// parallel rely on it (no address is written twice, none is left unwritten).
    ///
    /// ```
    /// use fermat_codegen::plan::{Plan, PlanError, PlanOptions};
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let f = derive(&Formula::dft(64)?, Strategy::Ct, &Options::radix(4))?.final_formula();
    /// let options = PlanOptions { max_local_bits: 2, ..PlanOptions::default() };
    /// let mut plan = Plan::lower(&f, options)?;
    /// assert_eq!(plan.check_maps(), Ok(()));
    /// // Two address bits scattered to one: half the addresses would be written twice.
    /// plan.kernels[1].dest[0] = plan.kernels[1].dest[1];
    /// assert!(matches!(plan.check_maps(), Err(PlanError::NotBijective { kernel: 1, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```
    /// use fermat_codegen::plan::{Plan, PlanOptions};
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::formula::Formula;
    ///
    /// // DFT(2^12) by radix 16: three DFT(16) stages of four index bits each.
    /// let f = derive(&Formula::dft(1 << 12)?, Strategy::Ct, &Options::radix(16))?.final_formula();
    /// let passes = |max_local_bits| {
    ///     Plan::lower(&f, PlanOptions { max_local_bits, ..PlanOptions::default() })
    ///         .map(|plan| plan.kernels.len())
    /// };
    /// assert_eq!((passes(12)?, passes(8)?, passes(4)?), (1, 2, 3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
///
/// It dereferences to the [`Plan`], so that its fields and methods are the plan's.
///
/// ```
/// use fermat_codegen::plan::{CheckedPlan, Plan, PlanOptions};
/// use fermat_dsl::formula::Formula;
///
/// let checked = CheckedPlan::new(Plan::lower(&Formula::dft(16)?, PlanOptions::default())?)?;
/// assert_eq!((checked.n(), checked.kernels.len()), (16, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckedPlan(Plan);

impl CheckedPlan {
    /// The plan, checked.
    ///
    /// ```
    /// use fermat_codegen::plan::{CheckedPlan, Plan, PlanError, PlanOptions};
    /// use fermat_dsl::formula::Formula;
    ///
    /// let mut plan = Plan::lower(&Formula::dft(16)?, PlanOptions::default())?;
    /// assert!(CheckedPlan::new(plan.clone()).is_ok());
    /// plan.kernels[0].active = vec![0, 0, 1, 2]; // a piece that reads one element twice
    /// assert!(matches!(CheckedPlan::new(plan), Err(PlanError::NotBijective { kernel: 0, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

#[cfg(test)]
mod tests;
