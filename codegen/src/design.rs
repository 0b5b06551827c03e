//! From a field and a size to a factorisation and its kernels: the defaults of
//! `fermat::FftPlan`, of `fermat gen` and of the `fft!` macro, in one place.
//!
//! [`design`] chooses the radix, the strategy and the piece size and derives `DFT(n)`
//! ([`fermat_dsl::derive`](mod@fermat_dsl::derive)); [`Design::lower`] turns the factorisation into kernel plans;
//! [`generate`] prints both directions into one CUDA file. [`transform`] does all three
//! for a field named at run time (what `fft!` runs while a user's crate compiles), and
//! [`fingerprint`] identifies the plans a file was generated from, so that a file made
//! ahead of time can be checked against the plans a program lowers for itself.

use crate::contract::Launch;
use crate::cost::{Cost, FieldShape};
use crate::error::CodegenError;
use crate::exec::ExecError;
use crate::header::Header;
use crate::kernel::{self, EmitOptions, Emitted, FusedProduct};
use crate::plan::{Direction, Io, Order, Plan, PlanError, PlanOptions};
use crate::prelude::{self, PreludeOptions};
use crate::unit;
use fermat_dsl::derive::{derive, Derivation, DeriveError, Options, Rewriter, Strategy};
use fermat_dsl::field::Roots;
use fermat_dsl::field::{check_order, AnyField, Field, FieldError};
use fermat_dsl::formula::Formula;
use fermat_dsl::rules::{self, Params};
use fermat_dsl::with_field;
use num_bigint::BigUint;
use thiserror::Error;

/// The version of this crate: part of every [`fingerprint`], since the printer of one
/// version need not print a plan as another does.
pub const CODEGEN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The choices [`design`] leaves open; `None` takes fermat's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DesignOptions {
    /// The derivation strategy (default `ct`, recursive Cooley–Tukey).
    pub strategy: Option<Strategy>,
    /// The radix K (default [`default_radix`]).
    pub radix: Option<u64>,
    /// log2 of the largest piece a kernel exchanges on chip (default
    /// [`default_local_bits`]); pieces of the lowest index bits may be larger
    /// ([`default_contiguous_bits`]) for an SRGFN, and for a word prime where this is left
    /// to the default.
    pub max_local_bits: Option<u32>,
}

/// Why a transform could not be designed or generated.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DesignError {
    /// The field refused the size, a value or a root.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// The strategy could not derive the transform.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// The factorisation could not be lowered into kernels.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// CUDA source could not be printed.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The roots of unity of the plan could not be made.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The radix is not a power of two of at least 2.
    #[error("radix {radix} must be a power of two ≥ 2")]
    RadixNotPowerOfTwo {
        /// The refused radix.
        radix: u64,
    },
    /// An SRGFN radix beyond 2k: its base case would need full multiplications.
    #[error("radix {radix} is too large for {field}: an SRGFN radix must divide 2k = {max}, so that the base case uses only shifts")]
    RadixTooLarge {
        /// The refused radix.
        radix: u64,
        /// The field's name.
        field: String,
        /// 2k, the largest radix allowed.
        max: u64,
    },
}

/// A chosen factorisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Design {
    /// The strategy.
    pub strategy: Strategy,
    /// The radix K.
    pub radix: u64,
    /// The derived formula.
    pub formula: Formula,
    /// log2 of the largest piece.
    pub max_local_bits: u32,
    /// log2 of the largest piece made of the lowest index bits ([`default_contiguous_bits`]).
    pub max_contiguous_bits: u32,
    /// The same DFT derived with the radix's leftover factor split off first, where n is
    /// not a power of the radix (word primes, `ct`): the forward transform of a product,
    /// which reads natural order and writes bit-reversed, then ends in the low bits of
    /// whole radix stages, one run for one pass (2^21 points: 9 + 12 bits instead of
    /// 8 + 8 + 5). The inverse keeps [`formula`](Self::formula), whose leftover, last,
    /// joins its first run instead (12 + 9).
    pub leftover_first: Option<Formula>,
}

impl Design {
    /// Lowers the formula into the kernel plan of one direction, reading and writing whole
    /// vectors.
    pub fn lower(
        &self,
        direction: Direction,
        input_order: Order,
        output_order: Order,
    ) -> Result<Plan, PlanError> {
        self.lower_io(direction, input_order, output_order, Io::default())
    }

    /// Lowers the formula into the kernel plan of one direction with the given I/O (see
    /// [`Io`]).
    pub fn lower_io(
        &self,
        direction: Direction,
        input_order: Order,
        output_order: Order,
        io: Io,
    ) -> Result<Plan, PlanError> {
        self.lower_formula(&self.formula, direction, (input_order, output_order), io)
    }

    fn lower_formula(
        &self,
        formula: &Formula,
        direction: Direction,
        (input_order, output_order): (Order, Order),
        io: Io,
    ) -> Result<Plan, PlanError> {
        Plan::lower(
            formula,
            PlanOptions {
                max_local_bits: self.max_local_bits,
                max_contiguous_bits: self.max_contiguous_bits,
                input_order,
                output_order,
                direction,
                io,
            },
        )
    }

    /// The two plans of a cyclic product: the forward transform reads a short polynomial
    /// (natural order in, bit-reversed out), the inverse multiplies by the other factor's
    /// transform as it reads and writes a short product (bit-reversed in, natural out).
    ///
    /// ```
    /// use fermat_codegen::design::{design, DesignOptions};
    /// use fermat_dsl::field::{AnyField, FieldSpec};
    ///
    /// let any: AnyField = "babybear".parse::<FieldSpec>()?.build()?;
    /// let (forward, inverse) = design(&any, 256, &DesignOptions::default())?.convolution_plans()?;
    /// assert!(forward.io().short_input && inverse.io().pointwise && inverse.io().short_output);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn convolution_plans(&self) -> Result<(Plan, Plan), PlanError> {
        let orders = (Order::Natural, Order::BitReversed);
        let mut forward = self.lower_io(Direction::Forward, orders.0, orders.1, Io::FACTOR)?;
        if let Some(formula) = &self.leftover_first {
            let other = self.lower_formula(formula, Direction::Forward, orders, Io::FACTOR)?;
            if other.kernels.len() < forward.kernels.len() {
                forward = other;
            }
        }
        Ok((
            forward,
            self.lower_io(
                Direction::Inverse,
                Order::BitReversed,
                Order::Natural,
                Io::PRODUCT,
            )?,
        ))
    }
}

/// The default radix: 2k for an SRGFN (the base case DFT(2k) is taken at r, all shifts),
/// 16 for word primes.
pub fn default_radix(field: &AnyField) -> u64 {
    field.srgfn_params().map_or(16, |p| 2 * p.k)
}

/// The size of a thread's codelet for SRGFNs: 4 elements up to k = 8, 2 beyond (an
/// element takes k 64-bit registers); word primes keep the whole base case.
pub fn leaf_radix(field: &AnyField) -> Option<u64> {
    field.srgfn_params().map(|p| if p.k <= 8 { 4 } else { 2 })
}

/// The largest piece that fits 48 KiB of shared memory, at most 2^12, together with
/// enough neighbouring pieces that a block's tile spans whole 32-byte memory sectors in
/// every pass (8 pieces of 4-byte elements, 4 of 8-byte ones): a pass whose warps read
/// 8 bytes per sector moves four times the bytes it uses, and measured slower than one
/// more pass that reads whole sectors (bench/RESULTS.md).
///
/// A transform of n ≤ 2^12 points whose elements fit that shared memory whole runs in one
/// pass (its tile is contiguous, so whole sectors come for free): then the piece is all
/// of it.
///
/// SRGFN transforms of more than one pass take pieces of at most [`SRGFN_PIECE_BYTES`]
/// (a block then holds several small pieces instead of one large one).
pub fn default_local_bits(field: &AnyField, n: u64) -> u32 {
    let bytes = FieldShape::of(field).element_bytes;
    let fit = (48 * 1024 / bytes).ilog2().min(12);
    let log_n = n.max(1).ilog2();
    if log_n <= fit {
        return fit;
    }
    let sector_pieces = (32 / bytes).max(1).ilog2();
    let bits = fit.min((48 * 1024 / bytes).ilog2() - sector_pieces);
    if field.srgfn_params().is_some() {
        bits.min((SRGFN_PIECE_BYTES / bytes).max(2).ilog2())
    } else {
        bits
    }
}

/// log2 of the largest piece of consecutive elements a kernel may keep on chip
/// ([`PlanOptions::max_contiguous_bits`]): for an SRGFN, the most elements a tile holds in
/// the shared memory kernels take by default ([`EmitOptions::shared_limit`], 48 KiB); for a
/// word prime, the elements of [`WORD_CONTIGUOUS_BYTES`]. Where DFT stages touch only low
/// index bits on both sides, they then join one kernel where that saves a pass: P3 2^20
/// with bit-reversed output in three passes (6 + 6 + 8 bits) instead of four
/// (6 + 6 + 6 + 2), with the same tiles of 512 elements; a product's transforms of 2^20
/// words in two (8 + 12 bits forward, 12 + 8 inverse) instead of three (8 + 8 + 4).
pub fn default_contiguous_bits(field: &AnyField, max_local_bits: u32) -> u32 {
    let bytes = match field.srgfn_params() {
        Some(_) => EmitOptions::default().shared_limit,
        None => WORD_CONTIGUOUS_BYTES,
    };
    (bytes / FieldShape::of(field).element_bytes)
        .ilog2()
        .max(max_local_bits)
}

/// The largest piece of consecutive elements of a word prime's transform, in bytes. On
/// an H200, pieces of 2^12 babybear elements took three transforms of 2^20 from 0.051
/// to 0.046 ms and the power-series inverse mod x^(2^20) from 0.49 to 0.44 ms; pieces
/// of 2^13 (32 KiB), which make a 2^21-point product's transforms two passes each,
/// took that product from 0.085 to 0.090 ms (bench/RESULTS.md, "Transforms of 2^19 to
/// 2^22 points").
pub const WORD_CONTIGUOUS_BYTES: u64 = 16 * 1024;

/// DFT(n) by Cooley–Tukey with the leftover factor DFT(2^(log n mod log K)) split off
/// first, the rest by radix K ([`Design::leftover_first`]); `None` where n is a power of K.
fn leftover_first(n: u64, radix: u64) -> Result<Option<Formula>, DesignError> {
    let leftover = n.ilog2() % radix.ilog2();
    if leftover == 0 || n <= radix {
        return Ok(None);
    }
    let cooley_tukey = rules::find("cooley_tukey").expect("the registry has cooley_tukey");
    let mut r = Rewriter::new(Formula::dft(n).expect("n ≥ 1"));
    // The right factor of a split is taken first: DFT(2^leftover) of the top index bits.
    r.apply_first(cooley_tukey, &Params::radix(1 << leftover));
    r.apply_everywhere(cooley_tukey, &Params::radix(radix))?;
    r.normalise();
    Ok(Some(r.finish().final_formula()))
}

/// The largest piece of an SRGFN transform of several passes, in bytes. On an H200,
/// pieces of 4 KiB against the 16–32 KiB before took P2 2^24 from 4.56 to 3.84 ms, P3 2^20
/// from 0.53 to 0.43 ms, P3 16^4 from 0.048 to 0.046 ms and P4 2^20 from 1.52 to 1.14 ms;
/// half as large was no faster for P2 and P3 and slower for P4 (bench/RESULTS.md, tuning
/// round 5). The extra pass costs memory traffic, which these arithmetic-bound transforms
/// have to spare.
pub const SRGFN_PIECE_BYTES: u64 = 4096;

/// Checks a radix for `field`: a power of two ≥ 2, and for an SRGFN at most 2k (so that
/// the base case DFT(K) is taken at a power of r and needs shifts only).
pub fn check_radix(field: &AnyField, radix: u64) -> Result<(), DesignError> {
    if radix < 2 || !radix.is_power_of_two() {
        return Err(DesignError::RadixNotPowerOfTwo { radix });
    }
    if let Some(p) = field.srgfn_params() {
        if radix > 2 * p.k {
            return Err(DesignError::RadixTooLarge {
                radix,
                field: field.name(),
                max: 2 * p.k,
            });
        }
    }
    Ok(())
}

/// Chooses and derives the factorisation of `DFT(n)`.
pub fn design(field: &AnyField, n: u64, options: &DesignOptions) -> Result<Design, DesignError> {
    derive_design(field, n, options).map(|(design, _)| design)
}

/// [`design`], with the derivation that led to the formula: the strategy's steps from
/// `DFT(n)`, then (SRGFNs) the Cooley–Tukey splits of each base case into codelets.
pub fn derive_design(
    field: &AnyField,
    n: u64,
    options: &DesignOptions,
) -> Result<(Design, Derivation), DesignError> {
    check_order(n, field.two_adicity())?;
    let max_local_bits = options
        .max_local_bits
        .unwrap_or_else(|| default_local_bits(field, n));
    let radix = options.radix.unwrap_or_else(|| default_radix(field));
    check_radix(field, radix)?;
    let radix = radix.min(n.max(2)).min(1 << max_local_bits);
    let strategy = options.strategy.unwrap_or(Strategy::Ct);
    let mut derivation = if n == 1 {
        Derivation::new(Formula::dft(1).expect("DFT(1) is well formed"))
    } else {
        derive(
            &Formula::dft(n).expect("n ≥ 1"),
            strategy,
            &Options::radix(radix),
        )?
    };
    let mut formula = derivation.final_formula();
    if let Some(leaf) = leaf_radix(field).filter(|&l| l < radix) {
        // Split each base case DFT(K) by Cooley–Tukey into DFT(leaf)s: the twiddles inside
        // stay powers of r (shifts) and a thread's codelet holds `leaf` elements instead
        // of K, which keeps an SRGFN kernel within the register file.
        let mut r = Rewriter::new(formula);
        r.apply_everywhere(
            rules::find("cooley_tukey").expect("the registry has cooley_tukey"),
            &Params::radix(leaf),
        )?;
        let split = r.finish();
        formula = split.final_formula();
        // The splits start where the strategy ended, so they continue its derivation.
        derivation.steps.extend(split.steps);
    }
    Ok((
        Design {
            strategy,
            radix,
            formula,
            max_local_bits,
            max_contiguous_bits: match (field.srgfn_params(), options.max_local_bits) {
                // The pieces a caller chose for a word prime bound its runs too.
                (None, Some(bits)) => bits,
                _ => default_contiguous_bits(field, max_local_bits),
            },
            leftover_first: match (strategy, leaf_radix(field)) {
                (Strategy::Ct, None) => leftover_first(n, radix)?,
                _ => None,
            },
        },
        derivation,
    ))
}

/// The generated kernels of a transform in both directions, in one CUDA file.
pub struct Generated {
    /// The CUDA source.
    pub source: String,
    /// The forward kernels (`fwd_k*`).
    pub forward: Emitted,
    /// The inverse kernels (`inv_k*`).
    pub inverse: Emitted,
    /// The fused product kernel (`mul`), where the plans are a convolution's of one pass
    /// each ([`kernel::emit_product`]).
    pub product: Option<FusedProduct>,
}

/// The `fermat gen` command line that makes the same file.
pub fn gen_command(field: &AnyField, n: u64, design: &Design) -> String {
    format!(
        "fermat gen --field {} --n {n} --radix {} --strategy {} --max-local-bits {}",
        field.name(),
        design.radix,
        design.strategy,
        design.max_local_bits
    )
}

/// Generates the CUDA file of a transform: header, field prelude, forward and inverse
/// kernels.
pub fn generate<F: Field>(
    field: &F,
    any: &AnyField,
    design: &Design,
    forward: &Plan,
    inverse: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
) -> Result<Generated, CodegenError> {
    let shape = FieldShape::of(any);
    let fwd = kernel::emit(field, &shape, forward, roots, options, "fwd")?;
    let inv = kernel::emit(field, &shape, inverse, roots, options, "inv")?;
    let product = kernel::emit_product(field, &shape, forward, inverse, roots, options, "mul")?;
    let command = gen_command(any, forward.n(), design);
    let source = render(
        any,
        design,
        &command,
        forward,
        &fwd,
        Some(&inv),
        product.as_ref(),
    )?;
    Ok(Generated {
        source,
        forward: fwd,
        inverse: inv,
        product,
    })
}

/// Lays out the file of emitted kernels: the header (made by `command`, with the
/// forward plan's counts), the field prelude, the forward kernels, the inverse ones, then
/// the fused product.
fn render(
    any: &AnyField,
    design: &Design,
    command: &str,
    forward: &Plan,
    fwd: &Emitted,
    inv: Option<&Emitted>,
    product: Option<&FusedProduct>,
) -> Result<String, CodegenError> {
    let shape = FieldShape::of(any);
    let cost = Cost::of(forward, shape);
    let n = forward.n();
    let header = Header::new(command, prelude::describe(any))
        .radix(design.radix)
        .size(n)
        .note(format!(
            "strategy {}: {}",
            design.strategy,
            design.formula.ascii()
        ))
        .count("kernels per direction", fwd.kernels.len() as u64)
        .count("global-memory passes", cost.passes() as u64)
        .count("bytes moved", cost.bytes())
        .count("full multiplications", cost.total(|k| k.full_muls))
        .count(
            "multiplications by powers of r (shifts)",
            cost.total(|k| k.shift_muls),
        )
        .count("additions and subtractions", cost.total(|k| k.additions));
    let both: Vec<&Emitted> = std::iter::once(fwd).chain(inv).collect();
    let kernels: Vec<_> = both
        .iter()
        .flat_map(|e| e.kernels.iter().cloned())
        .chain(product.map(|p| p.kernel.clone()))
        .collect();
    let tables: Vec<_> = both
        .iter()
        .flat_map(|e| e.tables.iter().cloned())
        .chain(product.into_iter().flat_map(|p| p.tables.iter().cloned()))
        .collect();
    unit::render_with(&header, any, prelude_options(any, n), &tables, &kernels)
}

/// Transforms up to 2^SMALL_BITS points take the prelude for small transforms (see
/// [`prelude_options`]).
const SMALL_BITS: u32 = 16;

/// The prelude a transform of n points over `field` is compiled with: SRGFNs whose rare
/// carries are a loop inlined into every sum (4 < k ≤ 8) make those carries calls in
/// transforms of at most 2^16 points ([`PreludeOptions::rare_carry_calls`]), whose few
/// warps gain more from shorter code than they lose to the call's registers.
pub fn prelude_options(field: &AnyField, n: u64) -> PreludeOptions {
    let small = n <= 1 << SMALL_BITS;
    PreludeOptions {
        rare_carry_calls: small && field.srgfn_params().is_some_and(|p| p.k > 4 && p.k <= 8),
    }
}

/// What a transform is generated for, beyond the field and the size.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TransformOptions {
    /// The factorisation's choices.
    pub design: DesignOptions,
    /// Order of the input.
    pub input_order: Order,
    /// Order of the output.
    pub output_order: Order,
    /// A primitive n-th root of unity to take the transform at instead of the canonical
    /// ω_n (checked); its rotations are baked into the kernels.
    pub root: Option<BigUint>,
    /// Whether the file holds no inverse kernels (forward only).
    pub forward_only: bool,
    /// How kernels are shaped for the device.
    pub emit: EmitOptions,
}

/// A transform designed, lowered and printed: what `fft!` embeds in a user's crate.
#[derive(Clone, Debug)]
pub struct Transform {
    /// The field's name (a catalogue name, a decimal prime or `srgfn:w,u,sign,k`).
    pub field: String,
    /// The transform size.
    pub n: u64,
    /// The factorisation.
    pub design: Design,
    /// How `DFT(n)` was derived into the factorisation.
    pub derivation: Derivation,
    /// The forward kernel plan.
    pub forward: Plan,
    /// The inverse kernel plan (lowered even for a forward-only file: it is part of the
    /// fingerprint, and the CPU runs it).
    pub inverse: Plan,
    /// The primitive 2^L-th root whose powers the kernels use, L = the largest order of
    /// the plans (decimal in [`fingerprint`]).
    pub table_root: BigUint,
    /// The CUDA file.
    pub source: String,
    /// The command line in the file's header.
    pub command: String,
    /// How to launch the forward kernels.
    pub forward_launches: Vec<Launch>,
    /// How to launch the inverse kernels; `None` for a forward-only file.
    pub inverse_launches: Option<Vec<Launch>>,
    /// Rows of the twiddle table the kernels read.
    pub table_rows: u64,
    /// The forward plan's cost.
    pub cost: Cost,
    /// [`fingerprint`] of the plans.
    pub fingerprint: u64,
}

/// Designs, lowers and prints the `n`-point transform over `field`.
///
/// With the canonical root and both directions the source is exactly what
/// `fermat gen --field F --n N` (with the same radix, strategy and piece size) writes;
/// with a root of the user's or forward kernels only, the header names the parameters
/// instead, since `fermat gen` has no such options.
pub fn transform(
    field: &AnyField,
    n: u64,
    options: &TransformOptions,
) -> Result<Transform, DesignError> {
    let (design, derivation) = derive_design(field, n, &options.design)?;
    let lower = |direction| design.lower(direction, options.input_order, options.output_order);
    let forward = lower(Direction::Forward)?;
    let inverse = lower(Direction::Inverse)?;
    with_field!(field, f => transform_with(f, field, n, options, design, derivation, forward, inverse))
}

#[allow(clippy::too_many_arguments)]
fn transform_with<F: Field>(
    field: &F,
    any: &AnyField,
    n: u64,
    options: &TransformOptions,
    design: Design,
    derivation: Derivation,
    forward: Plan,
    inverse: Plan,
) -> Result<Transform, DesignError> {
    let roots = match &options.root {
        None => Roots::canonical_lazy(field, forward.max_log_order(), forward.n())?,
        Some(root) => {
            let w = field.from_biguint(root)?;
            field.check_root(&w, n)?;
            let table_root = field.pow_u64(&w, n >> forward.max_log_order());
            Roots::lazy(field, forward.max_log_order(), forward.n(), table_root)?
        }
    };
    let table_root = field.to_biguint(&roots.power(field, 1));
    let shape = FieldShape::of(any);
    let fwd = kernel::emit(field, &shape, &forward, &roots, &options.emit, "fwd")?;
    let inv = if options.forward_only {
        None
    } else {
        Some(kernel::emit(
            field,
            &shape,
            &inverse,
            &roots,
            &options.emit,
            "inv",
        )?)
    };
    let mut command = gen_command(any, n, &design);
    let canonical_orders =
        options.input_order == Order::Natural && options.output_order == Order::Natural;
    if options.root.is_some()
        || options.forward_only
        || !canonical_orders
        || options.emit != EmitOptions::default()
    {
        // `fermat gen` cannot make this file: say what made it instead.
        command = format!(
            "fermat::fft! field = {}, n = {n}, radix = {}, strategy = {}, max_local_bits = {}, input = {}, output = {}, root = {}, inverse = {}",
            any.name(),
            design.radix,
            design.strategy,
            design.max_local_bits,
            order_name(options.input_order),
            order_name(options.output_order),
            table_root_note(options, &table_root),
            !options.forward_only
        );
    }
    let source = render(any, &design, &command, &forward, &fwd, inv.as_ref(), None)?;
    let fingerprint = fingerprint(
        &any.name(),
        n,
        &design,
        &forward,
        &inverse,
        &table_root,
        &options.emit,
    );
    Ok(Transform {
        field: any.name(),
        n,
        cost: Cost::of(&forward, shape),
        derivation,
        forward,
        inverse,
        table_root,
        source,
        command,
        forward_launches: fwd.launches,
        table_rows: fwd.layout.rows(),
        inverse_launches: inv.map(|e| e.launches),
        fingerprint,
        design,
    })
}

fn order_name(order: Order) -> &'static str {
    match order {
        Order::Natural => "natural",
        Order::BitReversed => "bitreversed",
    }
}

fn table_root_note(options: &TransformOptions, table_root: &BigUint) -> String {
    match &options.root {
        None => "canonical".to_string(),
        Some(root) => format!("{root} (table root {table_root})"),
    }
}

/// A 64-bit FNV-1a hash of everything the kernels of a file depend on: this crate's
/// version, the field, the size, the factorisation, both kernel plans, the root that
/// generates the twiddles and the emission options.
///
/// `fft!` stores it beside the CUDA source it embeds; a program that lowers the same
/// formula computes it again before it trusts that source with its plans.
pub fn fingerprint(
    field: &str,
    n: u64,
    design: &Design,
    forward: &Plan,
    inverse: &Plan,
    table_root: &BigUint,
    emit: &EmitOptions,
) -> u64 {
    let text = format!(
        "fermat-codegen {CODEGEN_VERSION}\nfield {field}\nn {n}\nstrategy {}\nradix {}\nmax_local_bits {}\nformula {}\nforward {forward:?}\ninverse {inverse:?}\nroot {table_root}\nemit {emit:?}",
        design.strategy,
        design.radix,
        design.max_local_bits,
        design.formula.ascii(),
    );
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::FieldSpec;

    fn field(spec: &str) -> AnyField {
        FieldSpec::parse(spec).unwrap().build().unwrap()
    }

    #[test]
    fn defaults_follow_the_field() {
        let p3 = field("P3");
        assert_eq!(default_radix(&p3), 16);
        assert_eq!(leaf_radix(&p3), Some(4));
        // Pieces of 4 KiB: 2^6 elements of 64 bytes (P3), 2^7 of 32 (P2), 2^5 of 128 (P4).
        assert_eq!(default_local_bits(&p3, 1 << 20), 6);
        assert_eq!(default_local_bits(&p3, 1 << 16), 6);
        assert_eq!(default_local_bits(&field("P2"), 1 << 24), 7);
        assert_eq!(default_local_bits(&field("P4"), 1 << 20), 5);
        // An SRGFN transform that fits shared memory whole stays one launch.
        assert_eq!(default_local_bits(&p3, 1 << 9), 9);
        assert_eq!(default_local_bits(&field("P2"), 1 << 10), 10);
        let bb = field("babybear");
        assert_eq!(default_radix(&bb), 16);
        assert_eq!(leaf_radix(&bb), None);
        // 2^10 elements and 8 pieces per tile: 32 KiB, whole sectors.
        assert_eq!(default_local_bits(&bb, 1 << 24), 10);
        assert_eq!(default_local_bits(&field("goldilocks"), 1 << 13), 10);
        // Small transforms stay one pass.
        assert_eq!(default_local_bits(&bb, 1 << 12), 12);
        assert_eq!(default_local_bits(&field("goldilocks"), 1 << 12), 12);
        // Runs of consecutive elements: 16 KiB for word primes, 48 KiB for SRGFNs.
        assert_eq!(default_contiguous_bits(&bb, 10), 12);
        assert_eq!(default_contiguous_bits(&field("goldilocks"), 10), 11);
        assert_eq!(default_contiguous_bits(&p3, 6), 9);
    }

    #[test]
    fn word_products_take_two_passes_a_transform_up_to_2_pow_22() {
        let passes = |spec: &str, log_n: u32| {
            let d = design(&field(spec), 1 << log_n, &DesignOptions::default()).unwrap();
            let (forward, inverse) = d.convolution_plans().unwrap();
            let bits = |p: &Plan| p.kernels.iter().map(|k| k.local_bits()).collect::<Vec<_>>();
            (bits(&forward), bits(&inverse))
        };
        assert_eq!(passes("babybear", 20), (vec![8, 12], vec![12, 8]));
        assert_eq!(passes("babybear", 19), (vec![8, 11], vec![12, 7]));
        // The forward from the formula with the leftover DFT(2) or DFT(4) first.
        assert_eq!(passes("babybear", 21), (vec![9, 12], vec![12, 9]));
        assert_eq!(passes("babybear", 22), (vec![10, 12], vec![12, 10]));
        // A larger piece that saves no pass is not taken.
        assert_eq!(passes("babybear", 16), (vec![8, 8], vec![8, 8]));
        assert_eq!(passes("babybear", 23), (vec![8, 8, 7], vec![8, 8, 7]));
        assert_eq!(passes("goldilocks", 19), (vec![8, 11], vec![8, 8, 3]));
    }

    #[test]
    fn small_p3_transforms_call_their_rare_carries() {
        let calls = |spec: &str, n: u64| prelude_options(&field(spec), n).rare_carry_calls;
        assert!(calls("P3", 1 << 16));
        assert!(calls("P3", 256));
        assert!(!calls("P3", 1 << 20), "large grids keep their registers");
        // P1 and P2 carry with unrolled increments, P4 and beyond add by calls already.
        for spec in ["P1", "P2", "P4", "P5", "babybear"] {
            assert!(!calls(spec, 4096), "{spec}");
        }
        let source = |n| {
            transform(&field("P3"), n, &TransformOptions::default())
                .unwrap()
                .source
        };
        assert!(source(4096).contains("FE_CALL_FN fe_t fe_aux_carry_round"));
        assert!(source(1 << 17).contains("FE_FN fe_t fe_aux_carry_round"));
    }

    #[test]
    fn refuses_bad_radices_naming_the_limit() {
        let p3 = field("P3");
        let err = design(
            &p3,
            256,
            &DesignOptions {
                radix: Some(32),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(
            err,
            DesignError::RadixTooLarge {
                radix: 32,
                field: "P3".into(),
                max: 16
            }
        );
        assert!(err.to_string().contains("2k = 16"), "{err}");
        let err = design(
            &p3,
            256,
            &DesignOptions {
                radix: Some(12),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(err, DesignError::RadixNotPowerOfTwo { radix: 12 });
        assert!(matches!(
            design(&p3, 3, &DesignOptions::default()),
            Err(DesignError::Field(FieldError::SizeNotPowerOfTwo { n: 3 }))
        ));
    }

    #[test]
    fn the_derivation_ends_in_the_designed_formula() {
        let p3 = field("P3");
        let (d, derivation) = derive_design(
            &p3,
            256,
            &DesignOptions {
                strategy: Some(Strategy::Prop3),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(derivation.start, Formula::dft(256).unwrap());
        assert_eq!(derivation.steps[0].rule, "prop3");
        assert!(
            derivation.steps.iter().any(|s| s.rule == "cooley_tukey"),
            "the codelet splits are part of the derivation"
        );
        derivation.replay().unwrap();
        assert_eq!(derivation.final_formula(), d.formula);
    }

    #[test]
    fn transform_matches_generate_for_canonical_roots() {
        let any = field("469762049");
        let t = transform(&any, 64, &TransformOptions::default()).unwrap();
        let AnyField::Fp32(f) = &any else {
            unreachable!("469762049 < 2^32")
        };
        let roots = Roots::canonical_lazy(f, t.forward.max_log_order(), t.forward.n()).unwrap();
        let g = generate(
            f,
            &any,
            &t.design,
            &t.forward,
            &t.inverse,
            &roots,
            &EmitOptions::default(),
        )
        .unwrap();
        assert_eq!(t.source, g.source);
        assert_eq!(t.forward_launches, g.forward.launches);
        assert_eq!(t.inverse_launches.as_ref(), Some(&g.inverse.launches));
        assert!(t.source.contains(&t.command));
        assert!(t.command.starts_with("fermat gen --field 469762049 --n 64"));
    }

    #[test]
    fn forward_only_files_and_user_roots_say_what_made_them() {
        let any = field("469762049");
        let canonical = transform(&any, 16, &TransformOptions::default()).unwrap();
        let forward_only = transform(
            &any,
            16,
            &TransformOptions {
                forward_only: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(forward_only.inverse_launches.is_none());
        assert!(!forward_only.source.contains("inv_k0"));
        assert!(forward_only.source.contains("inverse = false"));
        assert_eq!(
            forward_only.fingerprint, canonical.fingerprint,
            "the same plans and roots"
        );
        // Another primitive 16th root: ω^3.
        let AnyField::Fp32(f) = &any else {
            unreachable!()
        };
        let w3 = f.pow_u64(&f.root_of_unity(16).unwrap(), 3);
        let other = transform(
            &any,
            16,
            &TransformOptions {
                root: Some(f.to_biguint(&w3)),
                ..Default::default()
            },
        )
        .unwrap();
        assert_ne!(other.fingerprint, canonical.fingerprint);
        assert!(other.command.contains("root = "), "{}", other.command);
        let bad = transform(
            &any,
            16,
            &TransformOptions {
                root: Some(BigUint::from(1u32)),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(
            bad,
            DesignError::Field(FieldError::NotPrimitiveRoot { n: 16, .. })
        ));
    }

    #[test]
    fn fingerprints_see_every_input() {
        let any = field("469762049");
        let t = transform(&any, 64, &TransformOptions::default()).unwrap();
        let base = |emit: &EmitOptions, n: u64, root: &BigUint| {
            fingerprint(&t.field, n, &t.design, &t.forward, &t.inverse, root, emit)
        };
        let e = EmitOptions::default();
        assert_eq!(base(&e, 64, &t.table_root), t.fingerprint);
        assert_ne!(base(&e, 32, &t.table_root), t.fingerprint);
        assert_ne!(base(&e, 64, &BigUint::from(2u32)), t.fingerprint);
        let wide = EmitOptions {
            max_threads: 512,
            ..e
        };
        assert_ne!(base(&wide, 64, &t.table_root), t.fingerprint);
    }
}
