//! From a field and a size to a factorisation and its kernels: the defaults of
//! [`FftPlan`](crate::FftPlan) and of `fermat gen`, in one place.

use crate::error::Error;
use crate::fft::FftOptions;
use crate::host::HostField;
use fermat_codegen::cost::{Cost, FieldShape};
use fermat_codegen::exec::Roots;
use fermat_codegen::header::Header;
use fermat_codegen::kernel::{self, EmitOptions, Emitted};
use fermat_codegen::plan::Plan;
use fermat_codegen::{prelude, unit};
use fermat_dsl::derive::{derive, Options, Rewriter, Strategy};
use fermat_dsl::field::{check_order, AnyField};
use fermat_dsl::formula::Formula;
use fermat_dsl::rules::{self, Params};

/// A chosen factorisation.
#[derive(Clone, Debug)]
pub struct Design {
    /// The strategy.
    pub strategy: Strategy,
    /// The radix K.
    pub radix: u64,
    /// The derived formula.
    pub formula: Formula,
    /// log2 of the largest piece.
    pub max_local_bits: u32,
}

/// The field as an [`AnyField`] (for code generation).
pub fn any_field<F: HostField>(field: &F) -> Result<AnyField, Error> {
    Ok(field.spec().build()?)
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

/// The largest piece whose elements fit 48 KiB of shared memory, at most 2^12.
pub fn default_local_bits(field: &AnyField) -> u32 {
    let bytes = FieldShape::of(field).element_bytes;
    ((48 * 1024 / bytes).ilog2()).min(12)
}

/// Chooses and derives the factorisation of `DFT(n)`.
pub fn design(field: &AnyField, n: u64, options: &FftOptions) -> Result<Design, Error> {
    check_order(n, field.two_adicity())?;
    let max_local_bits = options
        .max_local_bits
        .unwrap_or_else(|| default_local_bits(field));
    let radix = options.radix.unwrap_or_else(|| default_radix(field));
    if radix < 2 || !radix.is_power_of_two() {
        return Err(Error::Options(format!(
            "radix {radix} must be a power of two ≥ 2"
        )));
    }
    if let Some(p) = field.srgfn_params() {
        if radix > 2 * p.k {
            return Err(Error::Options(format!(
                "radix {radix} is too large for {}: an SRGFN radix must divide 2k = {}, so that the base case uses only shifts",
                field.name(),
                2 * p.k
            )));
        }
    }
    let radix = radix.min(n.max(2)).min(1 << max_local_bits);
    let strategy = options.strategy.unwrap_or(Strategy::Ct);
    let mut formula = if n == 1 {
        Formula::dft(1).expect("DFT(1) is well formed")
    } else {
        derive(
            &Formula::dft(n).expect("n ≥ 1"),
            strategy,
            &Options::radix(radix),
        )?
        .final_formula()
    };
    if let Some(leaf) = leaf_radix(field).filter(|&l| l < radix) {
        // Split each base case DFT(K) by Cooley–Tukey into DFT(leaf)s: the twiddles inside
        // stay powers of r (shifts) and a thread's codelet holds `leaf` elements instead
        // of K, which keeps an SRGFN kernel within the register file.
        let mut r = Rewriter::new(formula);
        r.apply_everywhere(
            rules::find("cooley_tukey").expect("the registry has cooley_tukey"),
            &Params::radix(leaf),
        )?;
        formula = r.finish().final_formula();
    }
    Ok(Design {
        strategy,
        radix,
        formula,
        max_local_bits,
    })
}

/// The generated kernels of a transform in both directions, in one CUDA file.
pub struct Generated {
    /// The CUDA source.
    pub source: String,
    /// The forward kernels (`fwd_k*`).
    pub forward: Emitted,
    /// The inverse kernels (`inv_k*`).
    pub inverse: Emitted,
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
pub fn generate<F: HostField>(
    field: &F,
    any: &AnyField,
    design: &Design,
    forward: &Plan,
    inverse: &Plan,
    roots: &Roots<F>,
    options: &EmitOptions,
) -> Result<Generated, Error> {
    let shape = FieldShape::of(any);
    let fwd = kernel::emit(field, &shape, forward, roots, options, "fwd")?;
    let inv = kernel::emit(field, &shape, inverse, roots, options, "inv")?;
    let cost = Cost::of(forward, shape.clone());
    let n = forward.n();
    let header = Header::new(gen_command(any, n, design), prelude::describe(any))
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
    let kernels: Vec<_> = fwd.kernels.iter().chain(&inv.kernels).cloned().collect();
    let source = unit::render(&header, any, &[], &kernels)?;
    Ok(Generated {
        source,
        forward: fwd,
        inverse: inv,
    })
}
