//! The kernel contract: which buffers a generated kernel reads and writes, which arguments
//! it takes and how it is launched — one description from which the CUDA parameter list,
//! the manifest's entries and a runtime's launch arguments all follow.
//!
//! A plan's passes move data between three buffers of a call: the caller's input, the
//! caller's output, and a scratch buffer of the same size. Every pass is out of place, so a
//! pass is one of the [`Hop`]s, and a runtime resolves it to its source and destination
//! with [`Hop::select`] (device pointers) or [`Buffers::pass`] (host slices): no pairing of
//! buffers is left to a string or an unreachable branch. The input is never written,
//! except by plans whose last pass writes only part of a short output (polynomial
//! products, [`Hop::of_pass`] with `clobber_input`): their passes before the last
//! alternate between the scratch buffer and the input, which the caller gives up.
//!
//! ```
//! use fermat_codegen::contract::{Arg, Buffer, Hop, TRANSFORM_ARGS};
//!
//! let hop = Hop::InputToScratch;
//! assert_eq!((hop.src(), hop.dst()), (Buffer::Input, Buffer::Scratch));
//! assert_eq!(hop.select("in", "out", "tmp"), ("in", "tmp"));
//! let names: Vec<&str> = TRANSFORM_ARGS.iter().map(|a| a.name()).collect();
//! assert_eq!(names, ["src", "dst", "tw", "flags", "epoch"]);
//! assert_eq!(Arg::Source.ty().to_string(), "const fe_word_t* __restrict__");
//! ```

use crate::cuda::{Param, Type};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// A buffer of one call of a plan.
///
/// ```
/// use fermat_codegen::contract::{Buffer, Hop};
///
/// // The buffers the three passes of a plan read and write: the input is only read.
/// let hops = (0..3).map(|i| Hop::of_pass(i, 3, false));
/// let pairs: Vec<_> = hops.map(|h| (h.src(), h.dst())).collect();
/// let (input, output, scratch) = (Buffer::Input, Buffer::Output, Buffer::Scratch);
/// assert_eq!(pairs, [(input, output), (output, scratch), (scratch, output)]);
/// assert_eq!(serde_json::to_string(&Buffer::Scratch)?, "\"scratch\""); // in manifests
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    /// The caller's input (never written).
    Input,
    /// The caller's output.
    Output,
    /// A buffer of the output's size, for plans of two or more passes.
    Scratch,
}

/// The buffer one pass reads and the buffer it writes: the pairs a lowering makes. No
/// pass reads the buffer it writes, and only plans that clobber their input write it
/// ([`Hop::ScratchToInput`]).
///
/// ```
/// use fermat_codegen::contract::Hop;
///
/// // Four passes: each reads what the one before wrote, and the last writes the output.
/// let hops: Vec<Hop> = (0..4).map(|i| Hop::of_pass(i, 4, false)).collect();
/// assert_eq!(
///     hops,
///     [Hop::InputToScratch, Hop::ScratchToOutput, Hop::OutputToScratch, Hop::ScratchToOutput]
/// );
/// assert!(hops.windows(2).all(|w| w[1].src() == w[0].dst()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hop {
    /// Input → output: the one pass of a single-pass plan, or the first of an odd count.
    InputToOutput,
    /// Input → scratch: the first pass of an even count.
    InputToScratch,
    /// Output → scratch.
    OutputToScratch,
    /// Scratch → output.
    ScratchToOutput,
    /// Scratch → input: the passes between the first and the last of a plan that clobbers
    /// its input, so that only the last one writes the (short) output.
    ScratchToInput,
}

impl Hop {
    /// The hop of pass `i` of `count`: every pass is out of place and the last one writes
    /// the output. The passes alternate between the output and the scratch buffer, or,
    /// where the plan may `clobber_input`, between the scratch buffer and the input, so that
    /// the output is written once, by the last pass.
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    /// assert_eq!(Hop::of_pass(0, 1, false), Hop::InputToOutput);
    /// assert_eq!(Hop::of_pass(1, 3, false), Hop::OutputToScratch);
    /// assert_eq!(Hop::of_pass(1, 3, true), Hop::ScratchToInput);
    /// ```
    pub fn of_pass(i: usize, count: usize, clobber_input: bool) -> Hop {
        let last = i + 1 == count;
        // Counting back from the last pass, which writes the output.
        let writes_scratch = !(count - 1 - i).is_multiple_of(2);
        match (i, last, clobber_input) {
            (0, true, _) => Hop::InputToOutput,
            (_, true, true) => {
                if i.is_multiple_of(2) {
                    Hop::InputToOutput
                } else {
                    Hop::ScratchToOutput
                }
            }
            (0, false, true) => Hop::InputToScratch,
            (_, false, true) => {
                if i.is_multiple_of(2) {
                    Hop::InputToScratch
                } else {
                    Hop::ScratchToInput
                }
            }
            (0, _, false) if writes_scratch => Hop::InputToScratch,
            (0, _, false) => Hop::InputToOutput,
            (_, _, false) if writes_scratch => Hop::OutputToScratch,
            (_, _, false) => Hop::ScratchToOutput,
        }
    }

    /// The buffer read.
    ///
    /// ```
    /// use fermat_codegen::contract::{Buffer, Hop};
    ///
    /// assert_eq!(Hop::OutputToScratch.src(), Buffer::Output);
    /// assert_eq!(Hop::ScratchToInput.src(), Buffer::Scratch);
    /// assert_eq!(Hop::ScratchToInput.dst(), Buffer::Input); // only where the input is given up
    /// ```
    pub fn src(self) -> Buffer {
        match self {
            Hop::InputToOutput | Hop::InputToScratch => Buffer::Input,
            Hop::OutputToScratch => Buffer::Output,
            Hop::ScratchToOutput | Hop::ScratchToInput => Buffer::Scratch,
        }
    }

    /// The buffer written ([`Hop::src`] has an example).
    pub fn dst(self) -> Buffer {
        match self {
            Hop::InputToOutput | Hop::ScratchToOutput => Buffer::Output,
            Hop::InputToScratch | Hop::OutputToScratch => Buffer::Scratch,
            Hop::ScratchToInput => Buffer::Input,
        }
    }

    /// Whether the pass touches the scratch buffer.
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    ///
    /// assert!(!Hop::InputToOutput.uses_scratch()); // a plan of one pass needs none
    /// assert!(Hop::OutputToScratch.uses_scratch() && Hop::ScratchToInput.uses_scratch());
    /// ```
    pub fn uses_scratch(self) -> bool {
        self.src() == Buffer::Scratch || self.dst() == Buffer::Scratch
    }

    /// (source, destination) among the three buffers' handles (device pointers, names, …).
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    ///
    /// let (input, output, scratch) = (0x1000u64, 0x2000, 0x3000); // device addresses
    /// assert_eq!(Hop::OutputToScratch.select(input, output, scratch), (0x2000, 0x3000));
    /// assert_eq!(Hop::ScratchToInput.select(input, output, scratch), (0x3000, 0x1000));
    /// ```
    pub fn select<T: Copy>(self, input: T, output: T, scratch: T) -> (T, T) {
        match self {
            Hop::InputToOutput => (input, output),
            Hop::InputToScratch => (input, scratch),
            Hop::OutputToScratch => (output, scratch),
            Hop::ScratchToOutput => (scratch, output),
            Hop::ScratchToInput => (scratch, input),
        }
    }
}

/// In manifests a hop is its two buffers, `"src"` and `"dst"`.
impl Serialize for Hop {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Hop", 2)?;
        s.serialize_field("src", &self.src())?;
        s.serialize_field("dst", &self.dst())?;
        s.end()
    }
}

/// The host buffers of one call of a plan: what [`Hop`]s resolve to on the CPU.
///
/// ```
/// use fermat_codegen::contract::{Buffers, Hop, Input};
///
/// let input = [1, 2];
/// let (mut output, mut scratch) = ([0; 2], [0; 2]);
/// let mut buffers = Buffers::new(Input::shared(&input), &mut output, &mut scratch);
/// let (src, dst) = buffers.pass(Hop::InputToScratch);
/// dst.copy_from_slice(src);
/// let (src, dst) = buffers.pass(Hop::ScratchToOutput);
/// dst.copy_from_slice(src);
/// assert_eq!(output, [1, 2]);
/// ```
#[derive(Debug)]
pub struct Buffers<'a, T: Clone> {
    input: Input<'a, T>,
    output: &'a mut [T],
    scratch: &'a mut [T],
}

/// The input of a call on the host: the caller's, read only or given up to a plan that
/// clobbers its input ([`Hop::ScratchToInput`]).
///
/// ```
/// use fermat_codegen::contract::{Buffers, Hop, Input};
///
/// let (mut input, mut output, mut scratch) = ([1, 2], [0; 2], [7, 8]);
/// let mut shared = Buffers::new(Input::shared(&input), &mut output, &mut scratch);
/// shared.pass(Hop::ScratchToInput).1[0] = 9; // writes a copy
/// assert_eq!(input, [1, 2]);
/// let mut clobbered = Buffers::new(Input::Clobbered(&mut input), &mut output, &mut scratch);
/// let (src, dst) = clobbered.pass(Hop::ScratchToInput);
/// dst.copy_from_slice(src); // writes the caller's input
/// assert_eq!(input, [7, 8]);
/// ```
#[derive(Debug)]
pub enum Input<'a, T: Clone> {
    /// Read only: a plan that writes its input works on a copy of it.
    Shared(Cow<'a, [T]>),
    /// Given up: a plan that clobbers its input writes it.
    Clobbered(&'a mut [T]),
}

impl<'a, T: Clone> Input<'a, T> {
    /// The input, read only ([`Input`] has an example).
    pub fn shared(input: &'a [T]) -> Self {
        Input::Shared(Cow::Borrowed(input))
    }

    fn get(&self) -> &[T] {
        match self {
            Input::Shared(read) => read,
            Input::Clobbered(written) => written,
        }
    }

    /// The input to write: a shared input is copied first.
    fn get_mut(&mut self) -> &mut [T] {
        match self {
            Input::Shared(read) => read.to_mut(),
            Input::Clobbered(written) => written,
        }
    }
}

impl<'a, T: Clone> Buffers<'a, T> {
    /// The buffers of a call: the scratch buffer is empty for plans that need none
    /// ([`Buffers`] has an example).
    pub fn new(input: Input<'a, T>, output: &'a mut [T], scratch: &'a mut [T]) -> Self {
        Buffers {
            input,
            output,
            scratch,
        }
    }

    /// The source and the destination of a pass.
    ///
    /// ```
    /// use fermat_codegen::contract::{Buffers, Hop, Input};
    ///
    /// // Three passes that each add one to what the pass before wrote.
    /// let (input, mut output, mut scratch) = ([10, 20], [0; 2], [0; 2]);
    /// let mut buffers = Buffers::new(Input::shared(&input), &mut output, &mut scratch);
    /// for i in 0..3 {
    ///     let (src, dst) = buffers.pass(Hop::of_pass(i, 3, false));
    ///     dst.iter_mut().zip(src).for_each(|(d, s)| *d = s + 1);
    /// }
    /// assert_eq!((input, output), ([10, 20], [13, 23]));
    /// ```
    pub fn pass(&mut self, hop: Hop) -> (&[T], &mut [T]) {
        match hop {
            Hop::InputToOutput => (self.input.get(), &mut *self.output),
            Hop::InputToScratch => (self.input.get(), &mut *self.scratch),
            Hop::OutputToScratch => (&*self.output, &mut *self.scratch),
            Hop::ScratchToOutput => (&*self.scratch, &mut *self.output),
            Hop::ScratchToInput => (&*self.scratch, self.input.get_mut()),
        }
    }
}

/// What one argument of a generated kernel carries.
///
/// Each argument is a parameter of the kernel, by its name and CUDA type, and a value a
/// runtime binds at launch.
///
/// ```
/// use fermat_codegen::contract::Arg;
///
/// let params: Vec<String> = [Arg::Destination, Arg::Epoch, Arg::SourceLength]
///     .map(|a| format!("{} {}", a.ty(), a.name()))
///     .into();
/// assert_eq!(params, ["fe_word_t* __restrict__ dst", "uint32_t epoch", "size_t src_len"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    /// The vector the pass reads (`const fe_word_t* src`): its [`Hop`]'s source.
    Source,
    /// The vector the pass writes (`fe_word_t* dst`): its hop's destination.
    Destination,
    /// The twiddle table (`const fe_word_t* tw`; see `kernel::TableLayout`).
    Twiddles,
    /// The hand-off counters between the passes of a plan (`uint32_t* flags`): per
    /// transform of a batch, as many as the launches' `signals` summed; zero before the
    /// first call.
    Counters,
    /// The call's epoch (`uint32_t epoch`): 1 for the first call after the counters were
    /// zeroed, one more for each call after it, all with the same batch. A pass waits
    /// until each counter it reads reaches epoch × its writers; epoch 0 leaves the
    /// counters alone, and each pass then waits for the whole pass before it.
    Epoch,
    /// The operand of a pointwise product (`const fe_word_t* op`): transforms of n
    /// elements laid out as the plan's own vectors, read by the first pass of a plan that
    /// multiplies, at the addresses it reads its source.
    Operand,
    /// Transforms between the operands of consecutive transforms of a batch (`size_t
    /// op_dist`): 0 when one operand serves the whole batch, 1 when each has its own.
    OperandDistance,
    /// Elements of each short source (`size_t src_len`): transform b of a batch reads
    /// element i of its source where i < src_len and b·src_dist + i < src_limit, and takes
    /// the others of its n elements as zero.
    SourceLength,
    /// Elements of the source vector in all (`size_t src_limit`; see
    /// [`SourceLength`](Arg::SourceLength)).
    SourceLimit,
    /// Elements between the sources of consecutive transforms of a batch (`size_t
    /// src_dist`), within one source vector.
    SourceDistance,
    /// Words between the digits of one element of the source vector (`size_t src_stride`):
    /// its capacity, in elements (SRGFN digit c of element e is word c·src_stride + e).
    SourceStride,
    /// Elements of each short destination (`size_t dst_len`): transform b of a batch
    /// writes element i where i < dst_len and b·dst_dist + i < dst_limit.
    DestinationLength,
    /// Elements of the destination vector in all (`size_t dst_limit`).
    DestinationLimit,
    /// Elements between the destinations of consecutive transforms of a batch (`size_t
    /// dst_dist`).
    DestinationDistance,
    /// Words between the digits of one element of the destination vector (`size_t
    /// dst_stride`).
    DestinationStride,
    /// The size m of the vectors a pass of a product works on (`size_t m`; see
    /// [`crate::poly::ProductPass`]).
    Size,
    /// The number of terms a pass of a product sums, or of blocks (`size_t terms`).
    Terms,
    /// Coefficients per block of the longer operand of an unbalanced product, terms per
    /// block of a plain product, or the rows of a split pass's low twiddle table (`size_t
    /// block`; see [`crate::split::low_rows`]).
    Block,
    /// The second factor of a plain product (`const fe_word_t* fac`; see
    /// [`crate::plain::PlainPass`]).
    Factor,
    /// Coefficients of the second factor (`size_t fac_len`).
    FactorLength,
    /// Words between the digits of one element of the second factor (`size_t fac_stride`).
    FactorStride,
    /// Elements between the second factors of consecutive products of a batch (`size_t
    /// fac_dist`).
    FactorDistance,
    /// Elements of the vector that holds the second factors (`size_t fac_limit`; see
    /// [`FUSED_PRODUCT_ARGS`]).
    FactorLimit,
    /// The first coefficient of the product a plain product writes (`size_t lo`): 0 for
    /// the product, more for a middle product.
    Low,
    /// 64-bit words per integer of the CRT route's kernels (`size_t words`; see
    /// [`crate::crt::CrtPass`]).
    Words,
    /// One sign word per integer (`uint32_t* signs`): nonzero for a negative one.
    Signs,
    /// The per-prime constants of the CRT route (`const uint64_t* consts`), a row each.
    Constants,
    /// Words per row of the constants (`size_t row`).
    Row,
    /// The number of primes (`size_t primes`).
    Primes,
    /// The mixed-radix bases p_1⋯p_(k−1) and their product P (`const uint64_t* bases`),
    /// `words` words each.
    Bases,
    /// One length per polynomial a kernel writes whose length the data decide (`uint64_t*
    /// lens`; see [`crate::euclid::EuclidPass`]).
    Lengths,
    /// Big integers a CRT kernel reads (`const uint64_t* ints`), word-major: word w of
    /// integer j at `ints[w·src_stride + j]`.
    Integers,
    /// Big integers a CRT kernel writes (`uint64_t* ints_out`), word-major with
    /// `dst_stride`; the reduction modulo m reads them too, in place.
    IntegerDestination,
    /// 64-bit words of the modulus m of a reduction (`size_t mwords`; see
    /// [`crate::crt::CrtPass::Reduce`]).
    ModulusWords,
    /// The two pairs of remainders of the Lehmer rounds (`fe_word_t* work`): four vectors
    /// of `cap` coefficients, digit-major with stride 4·`cap` (see
    /// [`crate::euclid::EuclidPass::Window`]).
    Work,
    /// Coefficients per vector of the work buffer (`size_t cap`).
    WorkCapacity,
    /// The cofactor matrix of a Lehmer round (`fe_word_t* mat`): four vectors of `half` + 1
    /// coefficients in table form, digit-major with stride 4·(`half` + 1).
    Matrix,
    /// The degree a Lehmer round reduces its pair by (`size_t half`): it reads the top
    /// 2·`half` + 1 coefficients.
    Half,
    /// The index of a Lehmer round (`size_t round`): its parity names the pair it reads.
    Round,
    /// The state of the Lehmer rounds (`uint64_t* state`; see
    /// [`crate::euclid::LehmerState`]).
    State,
    /// The two pairs of a's cofactors the Lehmer rounds carry (`fe_word_t* cofs`), laid
    /// out as [`Arg::Work`]; read only by the blocks of y = 1, which a grid has only where
    /// the rounds carry them (see [`crate::euclid::EuclidPass::Apply`]).
    Cofactors,
    /// The leading coefficients of the divisors of a remainder sequence, one per division
    /// in the order the Lehmer rounds take them (`fe_word_t* leads`, digit-major with
    /// stride `cap`, in normal form; see [`crate::euclid::EuclidPass::TrailWindow`]).
    Leads,
    /// The degree of each division's divisor and the eliminations it took, one word per
    /// division beside [`Arg::Leads`] (`uint64_t* steps`; see
    /// [`crate::euclid::LehmerStep::word`]).
    Steps,
}

impl Arg {
    /// The argument list `head` then `tail`, in a `const`: a kernel whose arguments are
    /// another's and a few more (`N` is their count).
    ///
    /// ```
    /// use fermat_codegen::contract::Arg;
    /// const BOTH: [Arg; 3] = Arg::list(&[Arg::Source, Arg::Destination], &[Arg::Epoch]);
    /// assert_eq!(BOTH, [Arg::Source, Arg::Destination, Arg::Epoch]);
    /// ```
    pub const fn list<const N: usize>(head: &[Arg], tail: &[Arg]) -> [Arg; N] {
        assert!(head.len() + tail.len() == N, "N is the arguments' count");
        let mut args = [Arg::Source; N];
        let mut i = 0;
        while i < N {
            args[i] = if i < head.len() {
                head[i]
            } else {
                tail[i - head.len()]
            };
            i += 1;
        }
        args
    }

    /// The parameter's name in the kernel ([`Arg`] has an example).
    pub fn name(self) -> &'static str {
        match self {
            Arg::Source => "src",
            Arg::Destination => "dst",
            Arg::Twiddles => "tw",
            Arg::Counters => "flags",
            Arg::Epoch => "epoch",
            Arg::Operand => "op",
            Arg::OperandDistance => "op_dist",
            Arg::SourceLength => "src_len",
            Arg::SourceLimit => "src_limit",
            Arg::SourceDistance => "src_dist",
            Arg::SourceStride => "src_stride",
            Arg::DestinationLength => "dst_len",
            Arg::DestinationLimit => "dst_limit",
            Arg::DestinationDistance => "dst_dist",
            Arg::DestinationStride => "dst_stride",
            Arg::Size => "m",
            Arg::Terms => "terms",
            Arg::Block => "block",
            Arg::Factor => "fac",
            Arg::FactorLength => "fac_len",
            Arg::FactorStride => "fac_stride",
            Arg::FactorDistance => "fac_dist",
            Arg::FactorLimit => "fac_limit",
            Arg::Low => "lo",
            Arg::Words => "words",
            Arg::Signs => "signs",
            Arg::Constants => "consts",
            Arg::Row => "row",
            Arg::Primes => "primes",
            Arg::Bases => "bases",
            Arg::Lengths => "lens",
            Arg::Integers => "ints",
            Arg::IntegerDestination => "ints_out",
            Arg::ModulusWords => "mwords",
            Arg::Work => "work",
            Arg::WorkCapacity => "cap",
            Arg::Matrix => "mat",
            Arg::Half => "half",
            Arg::Round => "round",
            Arg::State => "state",
            Arg::Cofactors => "cofs",
            Arg::Leads => "leads",
            Arg::Steps => "steps",
        }
    }

    /// The parameter's CUDA type ([`Arg`] has an example).
    pub fn ty(self) -> Type {
        match self {
            Arg::Source | Arg::Twiddles | Arg::Operand | Arg::Factor => Type::const_ptr(Type::Word),
            Arg::Destination | Arg::Work | Arg::Matrix | Arg::Cofactors | Arg::Leads => {
                Type::ptr(Type::Word)
            }
            Arg::Counters | Arg::Signs => Type::ptr(Type::U32),
            Arg::Constants | Arg::Bases | Arg::Integers => Type::const_ptr(Type::U64),
            Arg::Lengths | Arg::IntegerDestination | Arg::State | Arg::Steps => {
                Type::ptr(Type::U64)
            }
            Arg::Epoch => Type::U32,
            Arg::OperandDistance
            | Arg::SourceLength
            | Arg::SourceLimit
            | Arg::SourceDistance
            | Arg::SourceStride
            | Arg::DestinationLength
            | Arg::DestinationLimit
            | Arg::DestinationDistance
            | Arg::DestinationStride
            | Arg::Size
            | Arg::Terms
            | Arg::Block
            | Arg::FactorLength
            | Arg::FactorStride
            | Arg::FactorDistance
            | Arg::FactorLimit
            | Arg::Low
            | Arg::Words
            | Arg::Row
            | Arg::Primes
            | Arg::ModulusWords
            | Arg::WorkCapacity
            | Arg::Half
            | Arg::Round => Type::SizeT,
        }
    }

    /// The kernel parameter.
    ///
    /// ```
    /// use fermat_codegen::contract::Arg;
    /// use fermat_codegen::cuda::{Param, Type};
    ///
    /// assert_eq!(Arg::Counters.param(), Param::new("flags", Type::ptr(Type::U32)));
    /// assert_eq!(Arg::Twiddles.param().ty.to_string(), "const fe_word_t* __restrict__");
    /// ```
    pub fn param(self) -> Param {
        Param::new(self.name(), self.ty())
    }
}

/// The arguments of every transform kernel, in order.
///
/// ```
/// use fermat_codegen::contract::TRANSFORM_ARGS;
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let plan = Plan::lower(&Formula::dft(64)?, PlanOptions::default())?; // whole vectors
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let e = emit(&f, &shape, &plan, &roots, &EmitOptions::default(), "fwd")?;
/// assert_eq!(e.launches[0].args, TRANSFORM_ARGS);
/// let cuda = e.kernels[0].to_string();
/// assert!(TRANSFORM_ARGS.iter().all(|a| cuda.contains(&format!("{} {}", a.ty(), a.name()))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const TRANSFORM_ARGS: [Arg; 5] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::Counters,
    Arg::Epoch,
];

/// The arguments of every kernel of a transform whose passes read or write polynomials
/// (short vectors with a stride) or multiply by an operand, in order.
///
/// They begin with [`TRANSFORM_ARGS`], so a runtime binds those the same way for every
/// transform.
///
/// ```
/// use fermat_codegen::contract::{Arg, POLY_TRANSFORM_ARGS, TRANSFORM_ARGS};
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Io, Plan, PlanOptions};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// assert!(POLY_TRANSFORM_ARGS.starts_with(&TRANSFORM_ARGS));
/// let f = Fp32::new(2013265921)?;
/// let options = PlanOptions { io: Io::FACTOR, ..PlanOptions::default() }; // a short input
/// let plan = Plan::lower(&Formula::dft(64)?, options)?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let e = emit(&f, &shape, &plan, &roots, &EmitOptions::default(), "fwd")?;
/// assert_eq!(e.launches[0].args, POLY_TRANSFORM_ARGS);
/// assert!(e.launches[0].args.contains(&Arg::SourceLength));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const POLY_TRANSFORM_ARGS: [Arg; 15] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::Counters,
    Arg::Epoch,
    Arg::Operand,
    Arg::OperandDistance,
    Arg::SourceLength,
    Arg::SourceLimit,
    Arg::SourceDistance,
    Arg::SourceStride,
    Arg::DestinationLength,
    Arg::DestinationLimit,
    Arg::DestinationDistance,
    Arg::DestinationStride,
];

/// The arguments of a fused product kernel (see [`crate::kernel::emit_product`]), in order:
/// the first factors and their extents, the second factors and theirs, the products and
/// theirs, and the twiddles.
pub const FUSED_PRODUCT_ARGS: [Arg; 16] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::SourceLength,
    Arg::SourceLimit,
    Arg::SourceDistance,
    Arg::SourceStride,
    Arg::Factor,
    Arg::FactorLength,
    Arg::FactorLimit,
    Arg::FactorDistance,
    Arg::FactorStride,
    Arg::DestinationLength,
    Arg::DestinationLimit,
    Arg::DestinationDistance,
    Arg::DestinationStride,
];

/// How to launch one kernel: the manifest entry, and what a runtime needs to bind its
/// arguments. Constant launches (kernels generated ahead of time) borrow their name.
///
/// ```
/// use fermat_codegen::contract::{Hop, TRANSFORM_ARGS};
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{emit, EmitOptions};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(2^16) over babybear in two passes of pieces of 2^8 elements.
/// let f = Fp32::new(2013265921)?;
/// let formula = derive(&Formula::dft(1 << 16)?, Strategy::Ct, &Options::radix(16))?;
/// let options = PlanOptions { max_local_bits: 8, ..PlanOptions::default() };
/// let plan = Plan::lower(&formula.final_formula(), options)?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let launches = emit(&f, &shape, &plan, &roots, &EmitOptions::default(), "fwd")?.launches;
/// let first = &launches[0];
/// assert_eq!((first.kernel.as_ref(), first.hop), ("fwd_k0", Hop::InputToScratch));
/// assert_eq!(first.args, TRANSFORM_ARGS);
/// assert_eq!(first.blocks * first.pieces_per_block << 8, 1 << 16); // the tiles cover it
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// The kernel's name.
    pub kernel: Cow<'static, str>,
    /// Blocks along x (one per tile); y counts the transforms of a batch.
    pub blocks: u64,
    /// Threads per block.
    pub threads: u32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u64,
    /// Pieces per tile.
    pub pieces_per_block: u64,
    /// The buffers read and written.
    #[serde(flatten)]
    pub hop: Hop,
    /// The hand-off counters this kernel's blocks count up, per transform of a batch: the
    /// next kernel's blocks wait on them ([`Arg::Counters`]).
    pub signals: u64,
    /// The kernel's arguments, in order.
    #[serde(skip)]
    pub args: &'static [Arg],
}

/// Asserts that `kernel` checks out and names every argument of `args` (the passes'
/// tests).
#[cfg(test)]
pub(crate) fn assert_takes(kernel: &crate::cuda::Kernel, args: &[Arg]) {
    kernel.check().unwrap();
    let text = kernel.to_string();
    for a in args {
        assert!(
            text.contains(a.name()),
            "{} takes {}",
            kernel.name,
            a.name()
        );
    }
}

#[cfg(test)]
mod tests;
