//! The two ends of the multi-modular (CRT) route on the GPU, printed through the typed
//! CUDA AST: projection of big integers onto NTT primes, Garner's mixed-radix
//! recombination of their residues (§7 of the 2017 big-prime FFT paper, "the CRT
//! alternative"; Knuth, TAOCP vol. 2, §4.3.2, for Garner's algorithm), and the reduction
//! of a product's coefficients modulo any m ≥ 2.
//!
//! The primes are below 2^62 and the arithmetic is Montgomery's with R = 2^64, whatever
//! the width of the residues' words: [`ResidueWord`] picks 32-bit words for primes below
//! 2^32, the GPU's native product, or 64-bit ones. Integers are held word-major: 64-bit
//! word w of integer j at `ints[w·src_stride + j]`, so that consecutive threads read
//! consecutive addresses.
//!
//! - [`CrtPass::Project`]: thread j computes x_j mod p_i for each prime in turn as a dot
//!   product of x_j's words with the weights 2^(64w)·R^2 mod p_i, accumulated in 192
//!   bits, then two rounds of Montgomery reduction: one multiplication per word and one
//!   reduction per residue. A signed projection reads a sign word per integer and negates.
//! - [`CrtPass::Recombine`]: thread j computes the mixed-radix digits v_i of its
//!   coefficient from its residues (each digit a 192-bit dot product with the weights
//!   p_1⋯p_(k−1)·R^2 mod p_i, one reduction, one product with (p_1⋯p_(i−1))^−1), then the
//!   words of x = Σ v_k·B_k by product scanning, one output word at a time, with the bases'
//!   words broadcast to every thread. The bases are B_k = p_1⋯p_(k−1), which gives x; or
//!   B_k = p_1⋯p_(k−1) mod m, which gives a small multiple of m plus x mod m. A signed
//!   recombination compares the digits with those of ⌊P/2⌋ and writes P − x with a sign
//!   word for the upper half.
//! - [`CrtPass::Explicit`]: thread j computes a small multiple of m plus x mod m by the
//!   explicit CRT ([`modular_tables`]): s products y_i = x_i·(P/p_i)^−1 mod p_i, a
//!   fixed-point sum for the quotient k = ⌊Σ y_i/p_i⌋, and Σ y_i·(P/p_i mod m) + k·(−P
//!   mod m) by product scanning — s + 1 products of a word by m's words where Garner's
//!   digits take s²/2.
//! - [`CrtPass::ExplicitNarrow`] and [`CrtPass::ProjectNarrow`]: the same for primes of
//!   31 bits in 32-bit products, the first with Montgomery's reduction modulo an odd m on
//!   the way ([`narrow_tables`]): residues in [0, m) in one kernel; the second from
//!   digits of 29 bits, one multiply-add each. Both also compile in a [`NarrowShape`]
//!   ([`CrtPass::shaped_kernel`], [`shaped_source`]): their loops' bounds fixed, unrolled.
//! - [`CrtPass::Reduce`]: integers below 2^72·m taken modulo m in place, by Barrett's
//!   method with a 72-bit quotient.
//!
//! ```
//! use fermat_codegen::crt::CrtPass;
//! let k = CrtPass::Recombine { signed: true }.kernel();
//! assert!(k.to_string().contains("fe_mulhi64"));
//! ```

mod explicit;
mod garner;
mod narrow;
mod reduce;
mod tables;

pub use narrow::{
    project_digits, NarrowShape, DIGIT_BITS, NARROW_DIGITS, NARROW_PROJECT_HEAD,
    PROJECT_DIGIT_BITS, SHAPED_WORDS,
};
pub use tables::{
    modular_tables, narrow_reduces, narrow_tables, project_constants, project_constants_narrow,
    recombine_tables, ModularTables, NarrowTables, RecombineTables, REDUCE_HEAD,
    REDUCE_QUOTIENT_BITS,
};

use crate::contract::Arg;
use crate::cuda::Kernel;
use crate::error::CodegenError;
use narrow::Bounds;

/// A kernel of the CRT route.
///
/// ```
/// use fermat_codegen::crt::CrtPass;
///
/// // A product's coefficients modulo m: project both operands' integers onto the primes,
/// // multiply there, then take the residues back modulo m.
/// let route = [CrtPass::Project { signed: false }, CrtPass::Explicit, CrtPass::Reduce];
/// let names: Vec<&str> = route.iter().map(|p| p.name()).collect();
/// assert_eq!(names, ["crt_project", "crt_explicit", "crt_reduce"]);
/// assert!(route.iter().all(|p| p.kernel().check().is_ok()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrtPass {
    /// Residues of integers modulo each of `primes` primes: `dst[i·dst_dist + j] = x_j mod
    /// p_i` for j < `dst_len` (zero from `src_len` on); `signed` reads `signs[j]` (nonzero:
    /// negative).
    Project {
        /// Whether the integers carry sign words.
        signed: bool,
    },
    /// [`CrtPass::Project`] for primes below 2^31 in 32-bit products, with the constants
    /// of [`project_constants_narrow`].
    ProjectNarrow {
        /// Whether the integers carry sign words.
        signed: bool,
    },
    /// Integers from their residues (`src[i·src_dist + j]` modulo p_i): words of
    /// x_j at `ints_out[w·dst_stride + j]`, x_j in [0, P) — or, `signed`, its magnitude
    /// in (−P/2, P/2] with `signs[j]` set for the negative ones.
    Recombine {
        /// Whether the result is signed.
        signed: bool,
    },
    /// `ints_out[w·dst_stride + j]` for w < `words`, an integer S_j below
    /// 2^(bits(m) − 1 + 72), replaced by S_j mod m in its first `mwords` words.
    Reduce,
    /// From the residues of integers x_j in [0, P/2) (`src[i·src_dist + j]` modulo p_i),
    /// words of S_j ≡ x_j (mod m), below s·(max p + 1)·m, at `ints_out[w·dst_stride +
    /// j]`: the explicit CRT with the tables of [`modular_tables`].
    Explicit,
    /// From the residues modulo primes of 31 bits of integers x_j in [0, P/2), the words
    /// of x_j mod m (m odd) at `ints_out[w·dst_stride + j]` for w < `mwords`: the explicit
    /// CRT in 32-bit products and Montgomery's reduction, with the tables of
    /// [`narrow_tables`].
    ExplicitNarrow,
}

/// The arguments of [`CrtPass::Project`], in order.
///
/// ```
/// use fermat_codegen::crt::{CrtPass, PROJECT_ARGS};
///
/// let names: Vec<&str> = PROJECT_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names[..5], ["ints", "src_len", "src_stride", "words", "signs"]);
/// assert_eq!(names[5..], ["consts", "row", "primes", "dst", "dst_len", "dst_dist"]);
/// // The narrow projection takes the same arguments.
/// assert_eq!(CrtPass::ProjectNarrow { signed: true }.args(), &PROJECT_ARGS);
/// ```
pub const PROJECT_ARGS: [Arg; 11] = [
    Arg::Integers,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Words,
    Arg::Signs,
    Arg::Constants,
    Arg::Row,
    Arg::Primes,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationDistance,
];

/// The arguments of [`CrtPass::Recombine`], in order.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::crt::RECOMBINE_ARGS;
///
/// // Residues in, integers out, with Garner's constants and the bases between.
/// assert_eq!(RECOMBINE_ARGS[0], Arg::Source);
/// assert_eq!(RECOMBINE_ARGS[4..7], [Arg::Constants, Arg::Row, Arg::Bases]);
/// assert_eq!(RECOMBINE_ARGS[9].name(), "ints_out");
/// ```
pub const RECOMBINE_ARGS: [Arg; 11] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceDistance,
    Arg::Primes,
    Arg::Constants,
    Arg::Row,
    Arg::Bases,
    Arg::Words,
    Arg::Signs,
    Arg::IntegerDestination,
    Arg::DestinationStride,
];

/// The arguments of [`CrtPass::Explicit`], in order: those of [`CrtPass::Recombine`]
/// without the signs, the sums S being non-negative.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::crt::{EXPLICIT_ARGS, RECOMBINE_ARGS};
///
/// let unsigned: Vec<Arg> = RECOMBINE_ARGS.into_iter().filter(|&a| a != Arg::Signs).collect();
/// assert_eq!(EXPLICIT_ARGS.to_vec(), unsigned);
/// ```
pub const EXPLICIT_ARGS: [Arg; 10] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceDistance,
    Arg::Primes,
    Arg::Constants,
    Arg::Row,
    Arg::Bases,
    Arg::Words,
    Arg::IntegerDestination,
    Arg::DestinationStride,
];

/// The arguments of [`CrtPass::ExplicitNarrow`], in order: those of
/// [`CrtPass::Explicit`], then the words of the results.
///
/// ```
/// use fermat_codegen::contract::Arg;
/// use fermat_codegen::crt::{CrtPass, EXPLICIT_ARGS, NARROW_ARGS};
///
/// assert_eq!(NARROW_ARGS[..10], EXPLICIT_ARGS);
/// assert_eq!(NARROW_ARGS[10], Arg::ModulusWords);
/// let text = CrtPass::ExplicitNarrow.kernel().to_string();
/// assert!(text.contains("size_t dst_stride, size_t mwords)"));
/// ```
pub const NARROW_ARGS: [Arg; 11] = Arg::list(&EXPLICIT_ARGS, &[Arg::ModulusWords]);

/// The arguments of [`CrtPass::Reduce`], in order: the sums it reduces in place, and the
/// constants of [`ModularTables::reduce`].
///
/// ```
/// use fermat_codegen::crt::REDUCE_ARGS;
///
/// let names: Vec<&str> = REDUCE_ARGS.iter().map(|a| a.name()).collect();
/// assert_eq!(names, ["ints_out", "dst_len", "dst_stride", "words", "consts", "mwords"]);
/// ```
pub const REDUCE_ARGS: [Arg; 6] = [
    Arg::IntegerDestination,
    Arg::DestinationLength,
    Arg::DestinationStride,
    Arg::Words,
    Arg::Constants,
    Arg::ModulusWords,
];

/// The most primes [`CrtPass::Recombine`] takes: its digits live in a per-thread array.
///
/// ```
/// use fermat_codegen::crt::{CrtPass, NarrowShape, MAX_PRIMES};
///
/// let text = CrtPass::Recombine { signed: false }.kernel().to_string();
/// assert!(text.contains("uint64_t v[128];"));
/// // A shaped kernel takes fewer.
/// let shape = |primes| NarrowShape { primes, words: 4, mwords: 0 };
/// let project = CrtPass::ProjectNarrow { signed: false };
/// assert!(project.shaped_kernel(shape(MAX_PRIMES - 1)).is_ok());
/// assert!(project.shaped_kernel(shape(MAX_PRIMES)).is_err());
/// ```
pub const MAX_PRIMES: u64 = 128;

/// Threads per block of the kernels.
///
/// ```
/// use fermat_codegen::crt::{CrtPass, THREADS};
///
/// assert_eq!(THREADS, 256);
/// for pass in CrtPass::ALL {
///     let text = pass.kernel().to_string();
///     assert!(text.contains(&format!("__launch_bounds__(256) {}(", pass.name())));
/// }
/// ```
pub const THREADS: u32 = 256;

/// Blocks per multiprocessor a shaped [`CrtPass::ExplicitNarrow`] keeps its registers
/// for.
const EXPLICIT_BLOCKS: u32 = 4;

/// Words of a row of the constants of [`CrtPass::Project`] before the weights: p and
/// −p^−1 mod 2^64.
///
/// ```
/// use fermat_codegen::crt::{project_constants, PROJECT_HEAD};
///
/// let p = 2013265921u64;
/// let c = project_constants(&[p, 469762049], 3);
/// // Two rows of the head and a weight per word of the integers.
/// assert_eq!(c.len(), 2 * (PROJECT_HEAD as usize + 3));
/// assert_eq!(c[1].wrapping_mul(p), u64::MAX); // −p^−1·p ≡ −1 (mod 2^64)
/// ```
pub const PROJECT_HEAD: u64 = 2;

/// Words of a row of the constants of [`CrtPass::Recombine`] before the Garner weights:
/// p, −p^−1 mod 2^64, (p_1⋯p_(i−1))^−1·R mod p, and digit i of ⌊P/2⌋.
///
/// ```
/// use fermat_codegen::crt::{recombine_tables, RECOMBINE_HEAD};
///
/// let t = recombine_tables(&[2013265921, 469762049, 167772161]);
/// assert_eq!(t.row, RECOMBINE_HEAD as usize + 3); // and a Garner weight per prime
/// assert_eq!(t.constants.len(), 3 * t.row);
/// ```
pub const RECOMBINE_HEAD: u64 = 4;

/// Words of a row of the constants of [`CrtPass::Explicit`]: p, −p^−1 mod 2^64,
/// (P/p)^−1·R mod p, and the quotient's G = ⌊2^(96 − a)/p⌋ and shift a.
///
/// ```
/// use fermat_codegen::crt::{modular_tables, EXPLICIT_HEAD};
/// use num_bigint::BigUint;
///
/// let primes = [2013265921u64, 469762049, 167772161];
/// let t = modular_tables(&primes, &BigUint::from(1_000_003u32)).unwrap();
/// assert_eq!(t.constants.len(), primes.len() * EXPLICIT_HEAD as usize);
/// // The last prime's row ends with G = ⌊2^64/p⌋ and a = 32: p is below 2^32.
/// assert_eq!(t.constants[13..], [u64::MAX / 167772161, 32]);
/// ```
pub const EXPLICIT_HEAD: u64 = 5;

/// Words of a row of the constants of [`CrtPass::ExplicitNarrow`]: p, −p^−1 mod 2^32,
/// (P/p)^−1·2^32 mod p and ⌊2^62/p⌋.
///
/// ```
/// use fermat_codegen::crt::{narrow_tables, NARROW_HEAD};
/// use num_bigint::BigUint;
///
/// let (p, q) = (2013265921u64, 2130706433u64);
/// let t = narrow_tables(&[p, q], &BigUint::from(1001u32)).unwrap();
/// assert_eq!(t.constants.len(), 2 * NARROW_HEAD as usize);
/// assert_eq!((t.constants[4], t.constants[7]), (q, (1 << 62) / q)); // q's row
/// ```
pub const NARROW_HEAD: u64 = 4;

/// The words the residues are held in (`fe_word_t` of the file's prelude).
///
/// ```
/// use fermat_codegen::crt::ResidueWord;
/// assert_eq!(ResidueWord::for_primes(&[2013265921]), ResidueWord::U32);
/// assert_eq!(ResidueWord::for_primes(&[2013265921, 1 << 40 | 1]), ResidueWord::U64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResidueWord {
    /// 32-bit words, for primes below 2^32.
    U32,
    /// 64-bit words.
    U64,
}

impl ResidueWord {
    /// The narrowest words that hold residues of every prime.
    ///
    /// ```
    /// use fermat_codegen::crt::ResidueWord;
    ///
    /// // The primes next to 2^32: 2^32 − 5 and 2^32 + 15.
    /// assert_eq!(ResidueWord::for_primes(&[469762049, 4294967291]), ResidueWord::U32);
    /// assert_eq!(ResidueWord::for_primes(&[469762049, 4294967311]), ResidueWord::U64);
    /// ```
    pub fn for_primes(primes: &[u64]) -> ResidueWord {
        if primes.iter().all(|&p| p <= 1 << 32) {
            ResidueWord::U32
        } else {
            ResidueWord::U64
        }
    }

    /// The catalogue field whose prelude gives `fe_word_t` these words.
    fn prelude_field(self) -> &'static str {
        match self {
            ResidueWord::U32 => "babybear",
            ResidueWord::U64 => "goldilocks",
        }
    }
}

impl CrtPass {
    /// Every kernel: those of the file [`source`] prints.
    ///
    /// ```
    /// use fermat_codegen::crt::{source, CrtPass, ResidueWord};
    ///
    /// let src = source(ResidueWord::U32)?;
    /// for pass in CrtPass::ALL {
    ///     assert!(src.contains(&format!(" {}(", pass.name())), "{}", pass.name());
    /// }
    /// assert_eq!(CrtPass::ALL.len(), 9); // six kernels, three of them signed or not
    /// # Ok::<(), fermat_codegen::CodegenError>(())
    /// ```
    pub const ALL: [CrtPass; 9] = [
        CrtPass::Project { signed: false },
        CrtPass::Project { signed: true },
        CrtPass::ProjectNarrow { signed: false },
        CrtPass::ProjectNarrow { signed: true },
        CrtPass::Recombine { signed: false },
        CrtPass::Recombine { signed: true },
        CrtPass::Reduce,
        CrtPass::Explicit,
        CrtPass::ExplicitNarrow,
    ];

    /// The kernel's name, by which the runtime finds it in the compiled module.
    ///
    /// ```
    /// use fermat_codegen::crt::CrtPass;
    ///
    /// assert_eq!(CrtPass::Recombine { signed: true }.name(), "crt_recombine_signed");
    /// assert_eq!(CrtPass::Recombine { signed: false }.name(), "crt_recombine");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CrtPass::Project { signed: false } => "crt_project",
            CrtPass::Project { signed: true } => "crt_project_signed",
            CrtPass::ProjectNarrow { signed: false } => "crt_project_narrow",
            CrtPass::ProjectNarrow { signed: true } => "crt_project_narrow_signed",
            CrtPass::Recombine { signed: false } => "crt_recombine",
            CrtPass::Recombine { signed: true } => "crt_recombine_signed",
            CrtPass::Reduce => "crt_reduce",
            CrtPass::Explicit => "crt_explicit",
            CrtPass::ExplicitNarrow => "crt_explicit_narrow",
        }
    }

    /// The kernel's arguments, in order: the kernel's parameters, one each.
    ///
    /// ```
    /// use fermat_codegen::crt::{CrtPass, REDUCE_ARGS};
    ///
    /// assert_eq!(CrtPass::Reduce.args(), &REDUCE_ARGS);
    /// let k = CrtPass::Reduce.kernel();
    /// let params: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
    /// assert_eq!(params, ["ints_out", "dst_len", "dst_stride", "words", "consts", "mwords"]);
    /// ```
    pub fn args(self) -> &'static [Arg] {
        match self {
            CrtPass::Project { .. } | CrtPass::ProjectNarrow { .. } => &PROJECT_ARGS,
            CrtPass::Recombine { .. } => &RECOMBINE_ARGS,
            CrtPass::Reduce => &REDUCE_ARGS,
            CrtPass::Explicit => &EXPLICIT_ARGS,
            CrtPass::ExplicitNarrow => &NARROW_ARGS,
        }
    }

    /// The kernel, its loops bounded by its arguments at run time, so that one kernel
    /// serves every number of primes and words (see [`CrtPass::shaped_kernel`] for fixed
    /// ones).
    ///
    /// ```
    /// use fermat_codegen::crt::CrtPass;
    ///
    /// let text = CrtPass::Project { signed: true }.kernel().to_string();
    /// assert!(text.contains("crt_project_signed(const uint64_t* __restrict__ ints,"));
    /// assert!(text.contains("signs"));
    /// ```
    pub fn kernel(self) -> Kernel {
        let params = self.args().iter().map(|a| a.param()).collect();
        let (body, doc) = match self {
            CrtPass::Project { signed } => (
                garner::project_body(signed),
                "dst[i][j] = x_j mod p_i: a dot product of x_j's words with 2^(64w) R^2 mod p_i, two Montgomery rounds",
            ),
            CrtPass::ProjectNarrow { signed } => (
                narrow::project_narrow_body(signed, &Bounds(None)),
                "dst[i][j] = x_j mod p_i for p_i < 2^31: x_j's 29-bit digits by 2^(29k) 2^32 mod p_i summed in 64 bits, folded, one Montgomery step",
            ),
            CrtPass::Recombine { signed } => (
                garner::recombine_body(signed),
                "x_j from its residues: Garner's mixed-radix digits, then x_j's words by product scanning",
            ),
            CrtPass::Reduce => (
                reduce::reduce_body(),
                "S_j mod m in place: Barrett's method with a 72-bit quotient, then at most two subtractions",
            ),
            CrtPass::Explicit => (
                explicit::explicit_body(),
                "S_j = x_j mod m plus a small multiple of m by the explicit CRT: sum y_i (P/p_i mod m) + k (-P mod m)",
            ),
            CrtPass::ExplicitNarrow => (
                narrow::explicit_narrow_body(&Bounds(None)),
                "x_j mod m (m odd) from residues modulo 31-bit primes: the explicit CRT in 32-bit products, Montgomery's reduction by 2^52",
            ),
        };
        Kernel::new(self.name(), params, body)
            .doc(doc)
            .launch_bounds(THREADS)
    }

    /// The name of the kernel of this pass in `shape`: the pass's name, then the primes
    /// and words (and for the explicit CRT the words of the results), as in
    /// `crt_project_narrow_18x4`.
    ///
    /// ```
    /// use fermat_codegen::crt::{CrtPass, NarrowShape};
    ///
    /// let shape = NarrowShape { primes: 18, words: 10, mwords: 4 };
    /// assert_eq!(CrtPass::ExplicitNarrow.shaped_name(shape), "crt_explicit_narrow_18x10x4");
    /// let signed = CrtPass::ProjectNarrow { signed: true };
    /// assert_eq!(signed.shaped_name(shape), "crt_project_narrow_signed_18x10");
    /// ```
    pub fn shaped_name(self, shape: NarrowShape) -> String {
        match self {
            CrtPass::ExplicitNarrow => format!(
                "{}_{}x{}x{}",
                self.name(),
                shape.primes,
                shape.words,
                shape.mwords
            ),
            _ => format!("{}_{}x{}", self.name(), shape.primes, shape.words),
        }
    }

    /// The kernel of a narrow pass with its loop bounds fixed at `shape`, arguments as
    /// [`CrtPass::kernel`]'s (the bounds' arguments then ignored): for
    /// [`CrtPass::ProjectNarrow`] and [`CrtPass::ExplicitNarrow`] only, and a shape
    /// within their registers.
    ///
    /// ```
    /// use fermat_codegen::crt::{CrtPass, NarrowShape};
    ///
    /// let shape = NarrowShape { primes: 18, words: 4, mwords: 0 };
    /// let k = CrtPass::ProjectNarrow { signed: false }.shaped_kernel(shape)?;
    /// assert!(k.to_string().contains("crt_project_narrow_18x4"));
    /// assert!(CrtPass::Reduce.shaped_kernel(shape).is_err());
    /// # Ok::<(), fermat_codegen::CodegenError>(())
    /// ```
    pub fn shaped_kernel(self, shape: NarrowShape) -> Result<Kernel, CodegenError> {
        let refuse =
            |(what, value, allowed): (&'static str, u64, String)| CodegenError::KernelShape {
                kernel: self.name(),
                what,
                value,
                allowed,
            };
        let explicit = match self {
            CrtPass::ProjectNarrow { .. } => false,
            CrtPass::ExplicitNarrow => true,
            _ => {
                return Err(refuse((
                    "primes",
                    shape.primes,
                    "shapes only for crt_project_narrow, crt_project_narrow_signed and crt_explicit_narrow".into(),
                )))
            }
        };
        if let Some(refusal) = narrow::shape_refusal(explicit, &shape) {
            return Err(refuse(refusal));
        }
        let bounds = Bounds(Some(shape));
        let body = match self {
            CrtPass::ProjectNarrow { signed } => narrow::project_narrow_body(signed, &bounds),
            _ => narrow::explicit_narrow_body(&bounds),
        };
        let params = self.args().iter().map(|a| a.param()).collect();
        let k = Kernel::new(self.shaped_name(shape), params, body).doc(format!(
            "{} with its bounds fixed: {} primes, {} words",
            self.name(),
            shape.primes,
            shape.words
        ));
        // The explicit CRT waits on its loads: at four blocks a multiprocessor (64
        // registers) it ran BN254's in 224 µs against 265 µs at three (73) on an H200.
        Ok(if explicit {
            k.launch_bounds_min(THREADS, EXPLICIT_BLOCKS)
        } else {
            k.launch_bounds(THREADS)
        })
    }
}

/// The CUDA file of the CRT route's kernels with residues in `word`s. They read their
/// moduli from the constants table, so one file serves every prime set of that width; it
/// carries a word prime's prelude for `fe_word_t` and `fe_mulhi64`.
///
/// ```
/// use fermat_codegen::crt::{source, ResidueWord};
///
/// let src = source(ResidueWord::U64)?;
/// assert!(src.starts_with("// Generated by"));
/// assert!(src.contains("// Device prelude for goldilocks"));
/// assert!(src.contains("crt_explicit_narrow(") && src.contains("crt_reduce("));
/// # Ok::<(), fermat_codegen::CodegenError>(())
/// ```
pub fn source(word: ResidueWord) -> Result<String, crate::error::CodegenError> {
    let field = fermat_dsl::field::FieldSpec::parse(word.prelude_field())
        .and_then(|s| s.build())
        .expect("the prelude's field is in the catalogue");
    let words = match word {
        ResidueWord::U32 => "NTT primes below 2^32 with residues in 32-bit words (the prelude is babybear's, for its words)",
        ResidueWord::U64 => "NTT primes below 2^62 with residues in 64-bit words (the prelude is goldilocks', for its words)",
    };
    let header = crate::header::Header::new(
        "fermat::crt (the projection, recombination and reduction of the CRT route)",
        words,
    )
    .note("crt_project, crt_project_signed: residues of integers modulo each prime, one thread per integer")
    .note("crt_project_narrow, crt_project_narrow_signed: the same for primes below 2^31 in 32-bit products")
    .note("crt_recombine, crt_recombine_signed: Garner's mixed-radix recombination, one thread per integer")
    .note("crt_reduce: integers modulo m in place, one thread per integer")
    .note("crt_explicit: residues modulo m by the explicit CRT, one thread per integer")
    .note("crt_explicit_narrow: the same from 31-bit primes, reduced modulo an odd m, one thread per integer");
    let kernels: Vec<Kernel> = CrtPass::ALL.iter().map(|p| p.kernel()).collect();
    crate::unit::render(&header, &field, &[], &kernels)
}

/// The CUDA file of one narrow kernel in `shape` ([`CrtPass::shaped_kernel`]), compiled
/// for the shapes a run meets.
///
/// ```
/// use fermat_codegen::crt::{shaped_source, CrtPass, NarrowShape};
///
/// let shape = NarrowShape { primes: 5, words: 1, mwords: 0 };
/// let src = shaped_source(CrtPass::ProjectNarrow { signed: true }, shape)?;
/// assert!(src.starts_with("// Generated by") && src.contains("crt_project_narrow_signed_5x1"));
/// # Ok::<(), fermat_codegen::CodegenError>(())
/// ```
pub fn shaped_source(pass: CrtPass, shape: NarrowShape) -> Result<String, CodegenError> {
    let kernel = pass.shaped_kernel(shape)?;
    let field = fermat_dsl::field::FieldSpec::parse(ResidueWord::U32.prelude_field())
        .and_then(|s| s.build())
        .expect("the prelude's field is in the catalogue");
    let header = crate::header::Header::new(
        "fermat::crt (a narrow kernel of the CRT route in a fixed shape)",
        "NTT primes of 31 bits with residues in 32-bit words (the prelude is babybear's, for its words)",
    )
    .note(format!(
        "{}: {} primes, {} words, loops unrolled",
        pass.shaped_name(shape),
        shape.primes,
        shape.words
    ));
    crate::unit::render(&header, &field, &[], &[kernel])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_beyond_the_registers_are_typed_errors() {
        let shape = |primes, words, mwords| NarrowShape {
            primes,
            words,
            mwords,
        };
        let project = CrtPass::ProjectNarrow { signed: false };
        let cases = [
            (project, shape(0, 4, 0), "primes", 0),
            (project, shape(MAX_PRIMES, 4, 0), "primes", MAX_PRIMES),
            (
                project,
                shape(18, SHAPED_WORDS + 1, 0),
                "words",
                SHAPED_WORDS + 1,
            ),
            (
                CrtPass::ExplicitNarrow,
                shape(18, NARROW_DIGITS + 1, 4),
                "words",
                13,
            ),
            (CrtPass::ExplicitNarrow, shape(18, 10, 0), "mwords", 0),
            (CrtPass::ExplicitNarrow, shape(18, 10, 6), "mwords", 6),
            (
                CrtPass::Recombine { signed: false },
                shape(18, 4, 0),
                "primes",
                18,
            ),
        ];
        for (pass, s, what, value) in cases {
            match pass.shaped_kernel(s) {
                Err(CodegenError::KernelShape {
                    kernel,
                    what: w,
                    value: v,
                    allowed,
                }) => {
                    assert_eq!((kernel, w, v), (pass.name(), what, value), "{s:?}");
                    assert!(!allowed.is_empty());
                }
                other => panic!("{pass:?} in {s:?}: {other:?}"),
            }
        }
        assert!(CrtPass::ExplicitNarrow
            .shaped_kernel(shape(127, 12, 5))
            .is_ok());
    }

    #[test]
    fn every_kernel_renders_and_passes_the_name_check() {
        for pass in CrtPass::ALL {
            let k = pass.kernel();
            k.check().unwrap();
            assert!(k.to_string().contains(pass.name()));
        }
        for word in [ResidueWord::U32, ResidueWord::U64] {
            let src = source(word).unwrap();
            assert!(src.starts_with("// Generated by"));
            assert!(src.contains("crt_recombine_signed") && src.contains("crt_reduce"));
            assert!(src.contains("crt_explicit"));
        }
    }
}
