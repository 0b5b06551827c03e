//! From a design to CUDA: the file of both directions' kernels, the transform of a field
//! named at run time, and the fingerprint of the plans a file was made from.

use super::{derive_design, Design, DesignError, DesignOptions, CODEGEN_VERSION};
use crate::contract::Launch;
use crate::cost::{Cost, FieldShape};
use crate::error::CodegenError;
use crate::header::Header;
use crate::kernel::{self, EmitOptions, Emitted, FusedProduct, MiddleProduct};
use crate::plan::{Direction, Order, Plan};
use crate::prelude::{self, PreludeOptions};
use crate::unit;
use fermat_dsl::derive::Derivation;
use fermat_dsl::field::Roots;
use fermat_dsl::field::{AnyField, Field};
use fermat_dsl::with_field;
use num_bigint::BigUint;

/// The generated kernels of a transform in both directions, in one CUDA file:
/// [`generate`] has an example.
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
    /// The middle kernel (`mid`), where the plans are a convolution's of two passes each
    /// whose passes wait for whole passes ([`kernel::emit_middle`]).
    pub middle: Option<MiddleProduct>,
}

/// The `fermat gen` command line that makes the same file.
///
/// ```
/// use fermat_codegen::design::{design, gen_command, DesignOptions};
/// use fermat_dsl::field::AnyField;
///
/// let f = AnyField::from_spec("babybear")?;
/// let d = design(&f, 1024, &DesignOptions::default())?;
/// assert_eq!(
///     gen_command(&f, 1024, &d),
///     "fermat gen --field babybear --n 1024 --radix 16 --strategy ct --max-local-bits 12"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use fermat_codegen::design::{design, generate, DesignOptions};
/// use fermat_codegen::kernel::EmitOptions;
/// use fermat_codegen::plan::{Direction, Order};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
///
/// let f = Fp32::new(2013265921)?;
/// let any = AnyField::Fp32(f.clone());
/// let d = design(&any, 1024, &DesignOptions::default())?;
/// let forward = d.lower(Direction::Forward, Order::Natural, Order::Natural)?;
/// let inverse = d.lower(Direction::Inverse, Order::Natural, Order::Natural)?;
/// let log_order = forward.max_log_order().max(inverse.max_log_order());
/// let roots = Roots::canonical(&f, log_order, 1024)?;
/// let g = generate(&f, &any, &d, &forward, &inverse, &roots, &EmitOptions::default())?;
/// assert!(g.source.contains("fwd_k0") && g.source.contains("inv_k0"));
/// assert_eq!(g.forward.launches.len(), forward.kernels.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    // The middle's launches wait for whole passes: where a transform's passes hand off
    // group by group (SRGFNs), its six launches measured faster (bench/RESULTS.md,
    // "Products in four launches"), so the file has no middle for a runtime to compile.
    let middle = match fwd.launches.iter().any(|l| l.signals > 0) {
        true => None,
        false => kernel::emit_middle(field, &shape, forward, inverse, roots, options, "mid")?,
    };
    let command = gen_command(any, forward.n(), design);
    let products = Products {
        fused: product.as_ref(),
        middle: middle.as_ref(),
    };
    let source = render(any, design, &command, forward, &fwd, Some(&inv), products)?;
    Ok(Generated {
        source,
        forward: fwd,
        inverse: inv,
        product,
        middle,
    })
}

/// The product kernels of a convolution's file, where its plans have them.
#[derive(Clone, Copy, Default)]
struct Products<'a> {
    fused: Option<&'a FusedProduct>,
    middle: Option<&'a MiddleProduct>,
}

/// Lays out the file of emitted kernels: the header (made by `command`, with the
/// forward plan's counts), the field prelude, the forward kernels, the inverse ones, then
/// the fused product or the middle one.
fn render(
    any: &AnyField,
    design: &Design,
    command: &str,
    forward: &Plan,
    fwd: &Emitted,
    inv: Option<&Emitted>,
    products: Products<'_>,
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
        .chain(products.fused.map(|p| p.kernel.clone()))
        .chain(products.middle.map(|p| p.kernel.clone()))
        .collect();
    let tables: Vec<_> = both
        .iter()
        .flat_map(|e| e.tables.iter().cloned())
        .chain(
            products
                .fused
                .into_iter()
                .flat_map(|p| p.tables.iter().cloned()),
        )
        .chain(
            products
                .middle
                .into_iter()
                .flat_map(|p| p.tables.iter().cloned()),
        )
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
///
/// ```
/// use fermat_codegen::design::prelude_options;
/// use fermat_dsl::field::AnyField;
///
/// let p3 = AnyField::from_spec("P3")?; // k = 8
/// assert!(prelude_options(&p3, 1 << 12).rare_carry_calls);
/// assert!(!prelude_options(&p3, 1 << 20).rare_carry_calls); // beyond 2^16 points
/// assert!(!prelude_options(&AnyField::from_spec("P1")?, 1 << 12).rare_carry_calls); // k = 2
/// assert!(!prelude_options(&AnyField::from_spec("babybear")?, 1 << 12).rare_carry_calls);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn prelude_options(field: &AnyField, n: u64) -> PreludeOptions {
    let small = n <= 1 << SMALL_BITS;
    PreludeOptions {
        rare_carry_calls: small && field.srgfn_params().is_some_and(|p| p.k > 4 && p.k <= 8),
    }
}

/// What a transform is generated for, beyond the field and the size.
///
/// ```
/// use fermat_codegen::design::{transform, TransformOptions};
/// use fermat_codegen::plan::Order;
/// use fermat_dsl::field::AnyField;
///
/// let options = TransformOptions {
///     output_order: Order::BitReversed,
///     forward_only: true,
///     ..TransformOptions::default()
/// };
/// let t = transform(&AnyField::from_spec("goldilocks")?, 4096, &options)?;
/// assert!(t.inverse_launches.is_none() && !t.source.contains("inv_k0"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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

/// A transform designed, lowered and printed: what `fft!` embeds in a user's crate;
/// [`transform`] has an example.
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
///
/// ```
/// use fermat_codegen::design::{transform, TransformOptions};
/// use fermat_dsl::field::AnyField;
///
/// let t = transform(&AnyField::from_spec("P3")?, 4096, &TransformOptions::default())?;
/// assert_eq!((t.field.as_str(), t.n), ("P3", 4096));
/// assert!(t.source.contains(&t.command)); // the header says how to make the file again
/// assert_eq!(t.forward_launches.len(), t.forward.kernels.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    let source = render(
        any,
        &design,
        &command,
        &forward,
        &fwd,
        inv.as_ref(),
        Products::default(),
    )?;
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
///
/// ```
/// use fermat_codegen::design::{fingerprint, transform, TransformOptions};
/// use fermat_dsl::field::AnyField;
///
/// let options = TransformOptions::default();
/// let t = transform(&AnyField::from_spec("babybear")?, 1024, &options)?;
/// let again = |inverse: &_| {
///     fingerprint(&t.field, t.n, &t.design, &t.forward, inverse, &t.table_root, &options.emit)
/// };
/// assert_eq!(again(&t.inverse), t.fingerprint);
/// assert_ne!(again(&t.forward), t.fingerprint); // another plan, another fingerprint
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    use crate::design::field;
    use fermat_dsl::field::FieldError;

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
    fn convolutions_of_two_passes_have_a_middle_unless_their_passes_hand_off() {
        let middle = |spec: &str, n: u64| {
            let any = field(spec);
            let d = crate::design::design(&any, n, &Default::default()).unwrap();
            let (forward, inverse) = d.convolution_plans().unwrap();
            with_field!(&any, f => {
                let roots = Roots::canonical_lazy(f, forward.max_log_order(), n).unwrap();
                let g = generate(f, &any, &d, &forward, &inverse, &roots, &EmitOptions::default());
                let g = g.unwrap();
                let hands_off = g.forward.launches.iter().any(|l| l.signals > 0);
                (g.middle.is_some(), g.source.contains(" mid("), hands_off)
            })
        };
        assert_eq!(middle("babybear", 1 << 16), (true, true, false));
        assert_eq!(
            middle("babybear", 1 << 10),
            (false, false, false),
            "one pass"
        );
        assert_eq!(middle("P3", 1 << 12), (false, false, true), "P3 hands off");
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
