//! The kernel contract: which buffers a generated kernel reads and writes, which arguments
//! it takes and how it is launched — one description from which the CUDA parameter list,
//! the manifest's entries and a runtime's launch arguments all follow.
//!
//! A plan's passes move data between three buffers of a call: the caller's input (never
//! written), the caller's output, and a scratch buffer of the same size. Every pass is out
//! of place, so a pass is one of four [`Hop`]s, and a runtime resolves it to its source and
//! destination with [`Hop::select`] (device pointers) or [`Buffers::pass`] (host slices):
//! no pairing of buffers is left to a string or an unreachable branch.
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

/// The buffer one pass reads and the buffer it writes: the four pairs a lowering makes.
/// The input is never written and no pass reads the buffer it writes.
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
}

impl Hop {
    /// The hop of pass `i` of `count`: every pass is out of place and the last one writes
    /// the output, so the passes alternate between the output and the scratch buffer.
    ///
    /// ```
    /// use fermat_codegen::contract::Hop;
    /// assert_eq!(Hop::of_pass(0, 1), Hop::InputToOutput);
    /// assert_eq!(Hop::of_pass(1, 3), Hop::OutputToScratch);
    /// ```
    pub fn of_pass(i: usize, count: usize) -> Hop {
        let writes_output = |k: usize| (count - 1 - k).is_multiple_of(2);
        match (i, writes_output(i)) {
            (0, true) => Hop::InputToOutput,
            (0, false) => Hop::InputToScratch,
            (_, true) => Hop::ScratchToOutput,
            (_, false) => Hop::OutputToScratch,
        }
    }

    /// The buffer read.
    pub fn src(self) -> Buffer {
        match self {
            Hop::InputToOutput | Hop::InputToScratch => Buffer::Input,
            Hop::OutputToScratch => Buffer::Output,
            Hop::ScratchToOutput => Buffer::Scratch,
        }
    }

    /// The buffer written.
    pub fn dst(self) -> Buffer {
        match self {
            Hop::InputToOutput | Hop::ScratchToOutput => Buffer::Output,
            Hop::InputToScratch | Hop::OutputToScratch => Buffer::Scratch,
        }
    }

    /// Whether the pass touches the scratch buffer.
    pub fn uses_scratch(self) -> bool {
        self.src() == Buffer::Scratch || self.dst() == Buffer::Scratch
    }

    /// (source, destination) among the three buffers' handles (device pointers, names, …).
    pub fn select<T: Copy>(self, input: T, output: T, scratch: T) -> (T, T) {
        match self {
            Hop::InputToOutput => (input, output),
            Hop::InputToScratch => (input, scratch),
            Hop::OutputToScratch => (output, scratch),
            Hop::ScratchToOutput => (scratch, output),
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
/// use fermat_codegen::contract::{Buffers, Hop};
///
/// let input = [1, 2];
/// let (mut output, mut scratch) = ([0; 2], [0; 2]);
/// let mut buffers = Buffers { input: &input, output: &mut output, scratch: &mut scratch };
/// let (src, dst) = buffers.pass(Hop::InputToScratch);
/// dst.copy_from_slice(src);
/// let (src, dst) = buffers.pass(Hop::ScratchToOutput);
/// dst.copy_from_slice(src);
/// assert_eq!(output, [1, 2]);
/// ```
#[derive(Debug)]
pub struct Buffers<'a, T> {
    /// The input.
    pub input: &'a [T],
    /// The output.
    pub output: &'a mut [T],
    /// The scratch buffer (empty for plans that need none).
    pub scratch: &'a mut [T],
}

impl<T> Buffers<'_, T> {
    /// The source and the destination of a pass.
    pub fn pass(&mut self, hop: Hop) -> (&[T], &mut [T]) {
        match hop {
            Hop::InputToOutput => (self.input, &mut *self.output),
            Hop::InputToScratch => (self.input, &mut *self.scratch),
            Hop::OutputToScratch => (&*self.output, &mut *self.scratch),
            Hop::ScratchToOutput => (&*self.scratch, &mut *self.output),
        }
    }
}

/// What one argument of a generated kernel carries.
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
}

impl Arg {
    /// The parameter's name in the kernel.
    pub fn name(self) -> &'static str {
        match self {
            Arg::Source => "src",
            Arg::Destination => "dst",
            Arg::Twiddles => "tw",
            Arg::Counters => "flags",
            Arg::Epoch => "epoch",
        }
    }

    /// The parameter's CUDA type.
    pub fn ty(self) -> Type {
        match self {
            Arg::Source | Arg::Twiddles => Type::const_ptr(Type::Word),
            Arg::Destination => Type::ptr(Type::Word),
            Arg::Counters => Type::ptr(Type::U32),
            Arg::Epoch => Type::U32,
        }
    }

    /// The kernel parameter.
    pub fn param(self) -> Param {
        Param::new(self.name(), self.ty())
    }
}

/// The arguments of every transform kernel, in order.
pub const TRANSFORM_ARGS: [Arg; 5] = [
    Arg::Source,
    Arg::Destination,
    Arg::Twiddles,
    Arg::Counters,
    Arg::Epoch,
];

/// How to launch one kernel: the manifest entry, and what a runtime needs to bind its
/// arguments. Constant launches (kernels generated ahead of time) borrow their name.
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

#[cfg(test)]
mod tests {
    use super::*;

    const HOPS: [Hop; 4] = [
        Hop::InputToOutput,
        Hop::InputToScratch,
        Hop::OutputToScratch,
        Hop::ScratchToOutput,
    ];

    #[test]
    fn passes_alternate_and_end_in_the_output() {
        assert_eq!(Hop::of_pass(0, 1), Hop::InputToOutput);
        assert_eq!(Hop::of_pass(0, 2), Hop::InputToScratch);
        assert_eq!(Hop::of_pass(1, 2), Hop::ScratchToOutput);
        assert_eq!(Hop::of_pass(0, 3), Hop::InputToOutput);
        assert_eq!(Hop::of_pass(1, 3), Hop::OutputToScratch);
        assert_eq!(Hop::of_pass(2, 3), Hop::ScratchToOutput);
        for count in 1..8 {
            for i in 1..count {
                assert_eq!(
                    Hop::of_pass(i, count).src(),
                    Hop::of_pass(i - 1, count).dst(),
                    "pass {i} of {count} reads what the pass before wrote"
                );
            }
        }
    }

    #[test]
    fn hops_never_write_the_input_nor_read_what_they_write() {
        for hop in HOPS {
            assert_ne!(hop.dst(), Buffer::Input, "{hop:?}");
            assert_ne!(hop.src(), hop.dst(), "{hop:?}");
            assert_eq!(
                hop.select(Buffer::Input, Buffer::Output, Buffer::Scratch),
                (hop.src(), hop.dst())
            );
        }
    }

    #[test]
    fn host_buffers_resolve_like_handles() {
        let input = [1u8];
        for hop in HOPS {
            let (mut output, mut scratch) = ([2u8], [3u8]);
            let mut b = Buffers {
                input: &input,
                output: &mut output,
                scratch: &mut scratch,
            };
            let (src, dst) = b.pass(hop);
            assert_eq!((src[0], dst[0]), hop.select(1, 2, 3), "{hop:?}");
        }
    }

    #[test]
    fn launches_serialize_their_hop_as_two_buffers() {
        let launch = Launch {
            kernel: Cow::Borrowed("fwd_k0"),
            blocks: 8,
            threads: 128,
            shared_bytes: 0,
            pieces_per_block: 1,
            hop: Hop::OutputToScratch,
            signals: 0,
            args: &TRANSFORM_ARGS,
        };
        let json = serde_json::to_string(&launch).unwrap();
        assert_eq!(
            json,
            r#"{"kernel":"fwd_k0","blocks":8,"threads":128,"shared_bytes":0,"pieces_per_block":1,"src":"output","dst":"scratch","signals":0}"#
        );
    }
}
