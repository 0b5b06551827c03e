//! Field preludes: one block of device code per field, rendered from the tera templates in
//! `codegen/templates/` with the field's constants baked in.
//!
//! Every prelude offers the same device API, so that kernel bodies (see [`crate::cuda::fe`])
//! are field-agnostic:
//!
//! | name | meaning |
//! |---|---|
//! | `fe_t` | an element in registers: `uint32_t` / `uint64_t` for word primes, `struct { uint64_t d[FE_K]; }` for SRGFNs |
//! | `fe_word_t` | a memory word: `uint32_t` for primes below 2^32, else `uint64_t`; data pointers are `fe_word_t*` |
//! | `FE_WORDS`, `FE_WORD_BITS`, `FE_IS_SRGFN` | memory words per element (1 or k) and their bits (32 or 64); whether `fe_mul_rpow` exists |
//! | `fe_load(base, idx, n)`, `fe_store(base, idx, n, v)` | element idx of a vector of n: `base[idx]` for word primes, digit c at `base[c*n + idx]` for SRGFNs (digit-major) |
//! | `fe_load_row(table, row)` | row `row` of a table of constants: `table[row]` for word primes, digit c at `table[row*k + c]` for SRGFNs (row-major) |
//! | `fe_add`, `fe_sub`, `fe_neg` | exact, canonical in and out (SRGFN: Algorithm 2 of the 2017 paper, with the z_k = 2 case) |
//! | `fe_mul(a, b)` | a·b, canonical operands (word: two REDCs; SRGFN: Algorithm 3) |
//! | `fe_mul_mont(a, t)` | a·w for a constant in table form t (word: t = w·R mod p, one REDC; SRGFN: t = w) |
//! | `fe_mul_sub_mont(a, t, b, s)` | a·w − b·v for t, s the table forms of w, v (word primes below 2^31: one REDC of the unreduced sum) |
//! | `fe_mul_sub2_mont(a, t, b, s, c, u)` | a·w − b·v − c·x likewise, three products and one REDC below 2^31 |
//! | `fe_to_mont(a)` | the table form of a |
//! | `fe_mul_rpow<i>(a)` | SRGFN only: a·r^i, i in [0, 2k) at compile time (§3.4: a negacyclic shift and one subtraction) |
//! | `fe_zero()`, `fe_one()`, `fe_eq(a, b)` | constants and equality |
//! | `fe_dot_t`, `fe_dot_zero()`, `fe_dot_add(s, a, t)`, `fe_dot_value(s)` | a sum of products a·w (t = w in table form): exact 96-bit sums reduced once for 32-bit primes, a modular sum a term otherwise |
//! | `fe_lane_below(v)` | the v of lane − 1 of the warp (lane 0 and the host: its own), among the lanes running |
//! | `fe_lane_at(v, lane)`, `fe_lane_up(v, k)` | the v of lane `lane`, of lane − k (below k: its own), the whole warp calling |
//! | `fe_warp_t` | 32 elements across a warp, the coefficients of a polynomial of degree below 32: slot s in lane s on the device, all 32 in the host's one thread |
//! | `fe_warp_constant(c)`, `fe_warp_load(row, from, len)`, `fe_warp_store(row, x, len)` | a constant; `row[from + i]` below `len` (zero above); the first `len` coefficients to `row` |
//! | `fe_warp_at(x, i)`, `fe_warp_up(x, k)`, `fe_warp_len(x)`, `fe_warp_mul_sub2(a, t, b, s, c, u)` | coefficient i in every lane; x·x^k cut to 32; the degree + 1; `fe_mul_sub2_mont` coefficient by coefficient |
//!
//! The preludes compile both as CUDA (`__device__ __forceinline__` functions) and as plain
//! C++17 (host `static inline` functions, `unsigned __int128` for the high product words), so
//! that `tests/on_host/prelude_host.rs` runs the device arithmetic on the CPU against the Rust
//! fields. Helpers named `fe_aux_*` are internal. The SRGFN multiplication's multi-word carry
//! chains are inline PTX (`add.cc`, `mad.lo.cc`, …) on the device with portable C++ beside
//! them for the host; `tests/on_host/prelude_host.rs` can export its drivers to run the device path
//! on a GPU against the host's checked output.

mod bounds;
mod chain;
mod error;
mod odd;
mod srgfn;
#[cfg(test)]
mod testing;

pub use bounds::{DivPlan, MulBounds, FOLD_MISS_BITS};
pub use chain::{
    add_chains, signed_chains, sub_chains, ChainArg, ChainLine, DigitChain, CHAIN_DIGITS,
};
pub use error::PreludeError;
pub use odd::{OddDiv, QuotientTop};
pub use srgfn::MAX_UNROLLED_MUL_K;

use crate::error::CodegenError;
use fermat_dsl::field::{AnyField, SrgfnParams};
use tera::{Context, Tera};

const COMMON: &str = include_str!("../../templates/common.cu.tera");
const WORD: &str = include_str!("../../templates/word.cu.tera");
const SRGFN: &str = include_str!("../../templates/srgfn.cu.tera");
const WARP: &str = include_str!("../../templates/warp.cu.tera");

/// Choices in a prelude that depend on the kernels it serves.
///
/// ```
/// use fermat_codegen::prelude::{render, render_with, PreludeOptions};
/// use fermat_dsl::field::AnyField;
///
/// let calls = PreludeOptions { rare_carry_calls: true };
/// assert_ne!(calls, PreludeOptions::default()); // inline carries by default
/// // A word prime has no SRGFN carries: the option leaves its prelude alone.
/// let babybear = AnyField::from_spec("babybear")?;
/// assert_eq!(render_with(&babybear, calls)?, render(&babybear)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PreludeOptions {
    /// The carries of an SRGFN sum or difference that run past digit 0 (a loop over the
    /// digits, taken with probability about 1/r; k > 4) as a call instead of inline code at
    /// every `fe_add`/`fe_sub` (k ≤ 8: those are inline). A P3 kernel is then 9% shorter
    /// but needs a few more registers: P3 16^4 ran 6% faster on an H200, P3 2^20 4%
    /// slower, P2 2^24 and P4 2^20 slower still (bench/RESULTS.md, tuning round 4).
    pub rare_carry_calls: bool,
}

/// The device prelude of `field` with the default [`PreludeOptions`].
///
/// ```
/// use fermat_codegen::prelude::render;
/// use fermat_dsl::field::AnyField;
///
/// let text = render(&AnyField::from_spec("babybear")?)?;
/// assert!(text.starts_with("// Device prelude for babybear: p = 2013265921 (31 bits).\n"));
/// assert!(text.contains("fe_warp_t"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render(field: &AnyField) -> Result<String, CodegenError> {
    render_with(field, PreludeOptions::default())
}

/// The device prelude of `field`: the portable definitions, the field's own block, and
/// the vectors of 32 elements across a warp (`fe_warp_*`, in terms of the field's).
///
/// ```
/// use fermat_codegen::prelude::{render, render_with, PreludeOptions};
/// use fermat_dsl::field::AnyField;
///
/// // P3's rare carries: one call for every fe_add and fe_sub instead of inline code.
/// let p3 = AnyField::from_spec("P3")?;
/// let call = "FE_CALL_FN fe_t fe_aux_carry_round(";
/// let calls = render_with(&p3, PreludeOptions { rare_carry_calls: true })?;
/// assert!(calls.contains(call) && !render(&p3)?.contains(call));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_with(field: &AnyField, options: PreludeOptions) -> Result<String, CodegenError> {
    let (name, text, ctx) =
        field_template(field, options).map_err(|source| CodegenError::Prelude {
            field: field.name(),
            source,
        })?;
    let mut tera = Tera::default();
    for (template, text) in [("common.cu.tera", COMMON), (name, text)] {
        tera.add_raw_template(template, text)
            .map_err(|e| CodegenError::template(template, &e))?;
    }
    let common = tera
        .render("common.cu.tera", &Context::new())
        .map_err(|e| CodegenError::template("common.cu.tera", &e))?;
    let own = tera
        .render(name, &ctx)
        .map_err(|e| CodegenError::template(name, &e))?;
    Ok(format!(
        "// Device prelude for {}.\n{common}\n{own}\n{WARP}",
        describe(field)
    ))
}

/// The name, text and context of the template of `field`'s own block, or why the device
/// arithmetic does not cover the field.
fn field_template(
    field: &AnyField,
    options: PreludeOptions,
) -> Result<(&'static str, &'static str, Context), PreludeError> {
    match field.srgfn_params() {
        None => {
            let bits = if matches!(field, AnyField::Fp32(_)) {
                32
            } else {
                64
            };
            let p = field.modulus();
            let p = u64::try_from(&p).map_err(|_| PreludeError::WordWidth { p, bits: 64 })?;
            Ok(("word.cu.tera", WORD, word_context(&field.name(), p, bits)?))
        }
        Some(params) => {
            let mut ctx = srgfn::srgfn_context(&field.name(), params)?;
            ctx.insert("rare_calls", &options.rare_carry_calls);
            Ok(("srgfn.cu.tera", SRGFN, ctx))
        }
    }
}

/// One line naming the field and its modulus, e.g.
/// `P3: p = (2^63 + 2^34)^8 + 1 (505 bits)` or `goldilocks: p = 18446744069414584321 (64 bits)`
/// (for headers and comments).
///
/// ```
/// use fermat_codegen::prelude::describe;
/// use fermat_dsl::field::AnyField;
///
/// let goldilocks = AnyField::from_spec("goldilocks")?;
/// assert_eq!(describe(&goldilocks), "goldilocks: p = 18446744069414584321 (64 bits)");
/// let p3 = AnyField::from_spec("P3")?;
/// assert_eq!(describe(&p3), "P3: p = (2^63 + 2^34)^8 + 1 (505 bits)");
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn describe(field: &AnyField) -> String {
    let p = field.modulus();
    match field.srgfn_params() {
        Some(SrgfnParams { w, u, sign, k }) => format!(
            "{}: p = (2^{w} {} 2^{u})^{k} + 1 ({} bits)",
            field.name(),
            sign.as_char(),
            p.bits()
        ),
        None => format!("{}: p = {p} ({} bits)", field.name(), p.bits()),
    }
}

/// 2^64 − 2^32 + 1: its prelude reduces through 2^64 ≡ 2^32 − 1 in 32-bit carry chains
/// instead of Montgomery's REDC.
pub(crate) const GOLDILOCKS: u64 = 0xffff_ffff_0000_0001;

/// The template context of a word prime p held in `bits`-bit words.
fn word_context(name: &str, p: u64, bits: u32) -> Result<Context, PreludeError> {
    if p < 3 || p.is_multiple_of(2) {
        return Err(PreludeError::EvenModulus { p });
    }
    if bits == 32 && p > u64::from(u32::MAX) {
        return Err(PreludeError::WordWidth { p: p.into(), bits });
    }
    let (pinv, r2) = montgomery(p, bits);
    let mut ctx = Context::new();
    ctx.insert("name", name);
    ctx.insert("p", &p.to_string());
    ctx.insert("bits", &(64 - p.leading_zeros()));
    ctx.insert("word_bits", &bits);
    ctx.insert("suffix", if bits == 32 { "u" } else { "ull" });
    ctx.insert("pinv", &pinv.to_string());
    ctx.insert("r2", &r2.to_string());
    ctx.insert("goldilocks", &(p == GOLDILOCKS));
    Ok(ctx)
}

/// p^{-1} mod R and R^2 mod p for R = 2^bits (p odd).
///
/// The device REDC subtracts m·p with m = T·p^{-1} (not −p^{-1}), so that no intermediate
/// exceeds two words even for p > R/2.
fn montgomery(p: u64, bits: u32) -> (u64, u64) {
    // Newton's iteration doubles the correct low bits each time: p·p ≡ 1 (mod 8) to start.
    let mut inv = p;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
    }
    let r_mod_p = ((1u128 << bits) % u128::from(p)) as u64;
    let r2 = ((u128::from(r_mod_p) * u128::from(r_mod_p)) % u128::from(p)) as u64;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (inv & mask, r2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    #[test]
    fn montgomery_constants_satisfy_their_definitions() {
        for (p, bits) in [
            (469_762_049u64, 32),
            (2_013_265_921, 32),
            (4_179_340_454_199_820_289, 64),
            (0xFFFF_FFFF_0000_0001, 64),
            (3, 32),
        ] {
            let (pinv, r2) = montgomery(p, bits);
            let r = 1u128 << bits;
            assert_eq!((u128::from(p) * u128::from(pinv)) % r, 1, "p^-1 for {p}");
            let expect = BigUint::from(2u32).pow(2 * bits) % BigUint::from(p);
            assert_eq!(BigUint::from(r2), expect, "R^2 for {p}");
        }
    }

    #[test]
    fn refuses_even_or_tiny_word_moduli() {
        for p in [0u64, 1, 2, 4_294_967_296] {
            let err = word_context("x", p, 32).unwrap_err();
            assert_eq!(err, PreludeError::EvenModulus { p });
            assert!(err.to_string().contains(&p.to_string()), "{err}");
        }
        let p = 4_294_967_297;
        let err = word_context("x", p, 32).unwrap_err();
        assert_eq!(
            err,
            PreludeError::WordWidth {
                p: p.into(),
                bits: 32
            }
        );
        assert!(word_context("x", 4_294_967_291, 32).is_ok());
    }

    #[test]
    fn prelude_errors_name_the_field() {
        // p = 2^16 + 1 with r = 2: carries of k·r^2 do not fold with one correction per digit.
        let field = AnyField::from_spec("srgfn:2,1,-,16").unwrap();
        let err = render(&field).unwrap_err();
        assert!(
            matches!(
                err,
                CodegenError::Prelude {
                    field: ref name,
                    source: PreludeError::FinalCarry { r: 2, k: 16, .. },
                } if *name == field.name()
            ),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("r = 2 is too small for k = 16"),
            "{err}"
        );
        assert!(std::error::Error::source(&err).is_some());
    }
}
