//! The one error type of the `fermat` library.

use crate::embedded::EmbeddedError;
use fermat_codegen::design::DesignError;
use fermat_codegen::{CodegenError, ExecError, PlanError};
use fermat_dsl::derive::DeriveError;
use fermat_dsl::FieldError;
use num_bigint::BigUint;
use thiserror::Error;

/// Everything that can go wrong when planning or running a transform.
///
/// Every variant names the value that was refused and what would have been allowed; the
/// causes of errors from other layers (the driver, NVRTC, the field) are kept as
/// [`std::error::Error::source`]s.
///
/// ```
/// use fermat::{Error, FftOptions, FftPlan, FieldError};
///
/// let f = fermat::dsl::Fp32::new(469762049)?; // 2-adicity 26
/// match FftPlan::new(&f, 1 << 27, FftOptions::default()) {
///     Err(Error::Field(FieldError::SizeBeyondTwoAdicity { n, two_adicity })) => {
///         assert_eq!((n, two_adicity), (1 << 27, 26));
///     }
///     other => panic!("{:?}", other.map(|p| p.n())),
/// }
/// let err = FftPlan::new(&f, 48, FftOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "n = 48 is not a power of two; transform sizes are 1, 2, 4, 8, …");
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A field could not be built, or a value or root was refused.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// The transform could not be derived.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// The derivation could not be lowered into kernels.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// CUDA source could not be generated.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The CPU executor refused its buffers.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The factorisation's choices were refused (a radix, say).
    #[error(transparent)]
    Design(DesignError),
    /// A GPU could not be used.
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    /// A transform generated ahead of time cannot be used.
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    /// A buffer does not hold a whole number of transforms.
    #[error("{what} has {len} elements: it must hold a positive multiple of n = {n} (one transform per n elements)")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The transform size.
        n: u64,
    },
    /// More memory than the machine has available (checked before allocating).
    #[error("{what} needs {}; {}", crate::memory::human(*bytes), match available {
        Some(a) => format!("{} of memory are available", crate::memory::human(u128::from(*a))),
        None => "more than the address space holds".to_string(),
    })]
    Memory {
        /// What the memory was for.
        what: String,
        /// The bytes asked for.
        bytes: u128,
        /// The bytes available; `None` when the size exceeds the address space.
        available: Option<u64>,
    },
    /// A file of elements could not be read or written (boxed: it names a file and
    /// values, and errors travel by value).
    #[error(transparent)]
    Input(Box<crate::io::InputError>),
    /// A buffer does not hold the fixed number of transforms of its plan (a `fft!` type
    /// declared with `batch = …`).
    #[error("{what} has {len} elements: this plan transforms exactly {batch} vectors of n = {n} at a time ({total} elements)", total = *batch as u64 * n)]
    Batch {
        /// Which buffer.
        what: &'static str,
        /// Its length in elements.
        len: usize,
        /// The transform size.
        n: u64,
        /// The transforms per call.
        batch: usize,
    },
    /// Device buffers were asked of a plan that runs on the CPU.
    #[error("this plan runs on the CPU; device buffers need a GPU plan (Backend::Gpu, or Backend::Auto on a machine with a GPU)")]
    NotOnGpu,
    /// The input and the output of a device call hold different numbers of transforms.
    #[error("the input holds {input} transforms and the output {output}; they must match")]
    BatchMismatch {
        /// Transforms in the input.
        input: usize,
        /// Transforms in the output.
        output: usize,
    },
    /// The inverse of a transform whose embedded kernels are forward only, on the GPU.
    #[error("the embedded kernels of this {n}-point transform are forward only (fft! with inverse = false); build the type without it for inverse transforms on the GPU")]
    ForwardOnly {
        /// The transform size.
        n: u64,
    },
    /// Batches of factors of different sizes.
    #[error("the batches hold {a} and {b} polynomials; a batch of products pairs them one to one")]
    BatchOperands {
        /// Polynomials of the first batch.
        a: usize,
        /// Polynomials of the second.
        b: usize,
    },
    /// A batch layout that does not fit its buffer or its batch.
    #[error("{what}: {count} polynomials of {len} coefficients at stride {stride} and distance {dist}: {fault}")]
    BatchLayout {
        /// Which buffer.
        what: &'static str,
        /// Its layout's polynomials.
        count: usize,
        /// Its layout's coefficients per polynomial.
        len: usize,
        /// Its layout's stride.
        stride: usize,
        /// Its layout's distance.
        dist: usize,
        /// What is wrong.
        fault: crate::poly::LayoutFault,
    },
    /// A polynomial longer than the batch it is put in.
    #[error("polynomial {index} of the batch has {len} coefficients; the batch holds at most {max} per polynomial")]
    BatchLength {
        /// Its place in the batch.
        index: usize,
        /// Its coefficients.
        len: usize,
        /// The batch's length.
        max: usize,
    },
    /// A device polynomial too small for the result written into it.
    #[error(
        "the result has {len} coefficients; the device polynomial given holds room for {capacity}"
    )]
    Capacity {
        /// The polynomial's capacity.
        capacity: usize,
        /// The result's length.
        len: usize,
    },
    /// A product longer than the field's transforms reach.
    #[error("the product of {len_a} by {len_b} coefficients has {len}; the field's FFT products reach at most {max} coefficients (its 2-adicity)")]
    ProductTooLong {
        /// Coefficients of the first operand.
        len_a: usize,
        /// Coefficients of the second operand.
        len_b: usize,
        /// Coefficients of the product.
        len: u64,
        /// The most coefficients a product can have.
        max: u64,
    },
    /// Too few NTT primes of the CRT route's width for a product.
    #[error("the CRT route needs primes of {width} bits with 2^{adicity} | p − 1 whose product exceeds 2^{bits}, but there are only {found} such primes")]
    CrtPrimes {
        /// Bits of the primes.
        width: u32,
        /// The 2-adicity they need: the product's transform length is 2^adicity.
        adicity: u32,
        /// Bits the primes' product must exceed.
        bits: u64,
        /// How many such primes there are.
        found: usize,
    },
    /// More primes than the GPU's recombination takes (its digits live in registers).
    #[error("the GPU recombines residues modulo at most {max} primes; this set has {primes} (run the transform on the CPU, or take fewer bits)")]
    CrtGpuPrimes {
        /// The primes of the set.
        primes: usize,
        /// The most the recombination kernel takes.
        max: usize,
    },
    /// The input of a CRT transform does not fit its plan.
    #[error("the CRT transform takes {n} integers of at most {max_limbs} words (below 2^{}); the input has {len} integers of {limbs} words", 64 * max_limbs)]
    CrtInput {
        /// Integers in the input.
        len: usize,
        /// Words of the input's widest integer.
        limbs: usize,
        /// The transform's length.
        n: u64,
        /// Words per integer the plan takes.
        max_limbs: usize,
    },
    /// The output buffer of a CRT transform does not fit its plan.
    #[error("the CRT transform writes {n} integers of {want_limbs} words; the output buffer holds {len} integers of {limbs} words (make it with CrtDft::alloc_output)")]
    CrtOutput {
        /// Integers the buffer holds.
        len: usize,
        /// Words per integer of the buffer.
        limbs: usize,
        /// The transform's length.
        n: u64,
        /// Words per recombined integer.
        want_limbs: usize,
    },
    /// A modulus below 2.
    #[error("the modulus {m} is below 2: (Z/mZ)[x] needs m ≥ 2")]
    Modulus {
        /// The modulus.
        m: BigUint,
    },
    /// A coefficient of a (Z/mZ)\[x\] operand that is not a residue in [0, m).
    #[error("coefficient {index} of {operand} is {value}, not a residue modulo {m} (0 ≤ c < m)")]
    Residue {
        /// Which operand.
        operand: &'static str,
        /// The coefficient's index.
        index: usize,
        /// Its value.
        value: BigUint,
        /// The modulus.
        m: BigUint,
    },
    /// A device operand of a (Z/mZ)\[x\] product that carries signs.
    #[error("operand {operand} of a product modulo m carries signs; residues are nonnegative (upload them with ModPolyRing::upload)")]
    SignedResidues {
        /// Which operand.
        operand: &'static str,
    },
    /// The kernels read a twiddle table of another size than the plan's roots make.
    #[error("the kernels read a twiddle table of {rows} rows but the plan's roots make {made}")]
    TableMismatch {
        /// Rows the kernels read.
        rows: u64,
        /// Rows the roots make.
        made: u64,
    },
    /// Two operands belong to different fields (their moduli differ).
    #[error("the operands belong to different fields: {left} and {right}")]
    FieldMismatch {
        /// The name of the left operand's field.
        left: String,
        /// The name of the right operand's field.
        right: String,
    },
    /// A division by zero, or the inverse of zero.
    #[error("division by zero in {field}: zero has no multiplicative inverse")]
    DivisionByZero {
        /// The name of the field.
        field: String,
    },
    /// A division by the zero polynomial (`[]`, or a list of zeros).
    #[error(
        "division by the zero polynomial over {field}: the divisor must have a nonzero coefficient"
    )]
    ZeroDivisor {
        /// The name of the field.
        field: String,
    },
    /// An exact division whose remainder is not zero.
    #[error("the division is not exact: the remainder has degree {remainder_degree} (the divisor degree {divisor_degree}); an exact division needs a zero remainder")]
    InexactDivision {
        /// The degree of the remainder.
        remainder_degree: usize,
        /// The degree of the divisor.
        divisor_degree: usize,
    },
    /// The power-series inverse of a series whose constant term is zero.
    #[error("a power series has an inverse only when its constant term is nonzero; this one's is 0 (over {field})")]
    SeriesNotInvertible {
        /// The name of the field.
        field: String,
    },
    /// Text that does not spell an element of a field.
    #[error("cannot read '{text}' as an element of {field}: {why}")]
    ParseElement {
        /// The text given.
        text: String,
        /// The name of the field.
        field: String,
        /// What is allowed.
        why: &'static str,
    },
    /// A pair too long for the on-chip Euclid's one block.
    #[error("the on-chip Euclid holds pairs of at most {capacity} coefficients in all in one block's shared memory; this pair has {len} (gcd_device takes Lehmer's rounds for such pairs)")]
    EuclidCapacity {
        /// The pair's coefficients, both operands together.
        len: usize,
        /// The most the block holds.
        capacity: usize,
    },
    /// A window of the Lehmer rounds that is empty or outgrows one block's shared memory.
    #[error("a Lehmer round's half must lie in 1..={max} on this device (its window of 2·half + 1 coefficients and four cofactors of half + 1 in one block's shared memory); got {half}")]
    LehmerHalf {
        /// The half given.
        half: usize,
        /// The largest half the device holds.
        max: usize,
    },
    /// A split over devices names one GPU twice.
    #[error("GPU {ordinal} is named twice: a split needs distinct devices")]
    DeviceTwice {
        /// The ordinal named twice.
        ordinal: usize,
    },
    /// NCCL, the exchanges between GPUs, cannot be used.
    #[error("NCCL: {why}")]
    Nccl {
        /// What failed.
        why: String,
    },
    /// A vector given to a split transform is not of its size.
    #[error("{what} has {len} elements; the split transform takes at most and, for a transform, exactly n = {n}")]
    SplitLength {
        /// Which vector.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The transform size.
        n: u64,
    },
    /// A product on a split whose output is in blocks.
    #[error("a product over devices needs a transposed or cyclic output (the pointwise product is taken where the forward transforms leave it); this split's output is {output}")]
    SplitProduct {
        /// The output distribution.
        output: &'static str,
    },
    /// A polynomial could not be read (JSON, decimal coefficients).
    #[error(transparent)]
    PolyIo(#[from] crate::poly::PolyIoError),
}

impl From<DesignError> for Error {
    /// Each cause keeps its own variant; the design's own refusals (a radix) stay design
    /// errors.
    fn from(e: DesignError) -> Self {
        match e {
            DesignError::Field(e) => Error::Field(e),
            DesignError::Derive(e) => Error::Derive(e),
            DesignError::Plan(e) => Error::Plan(e),
            DesignError::Codegen(e) => Error::Codegen(e),
            DesignError::Exec(e) => Error::Exec(e),
            other => Error::Design(other),
        }
    }
}

impl From<crate::io::InputError> for Error {
    fn from(e: crate::io::InputError) -> Self {
        Error::Input(Box::new(e))
    }
}
