//! The template context of an SRGFN: its constants, the bounds of its multiplication and
//! the division plans and carry chains that the template prints.

use super::bounds::{DivPlan, MulBounds};
use super::chain::{
    add_chains, chains_text, radix_halves, signed_chains, sub_chains, CHAIN_DIGITS,
};
use super::error::PreludeError;
use fermat_dsl::field::{Sign, SrgfnParams};
use num_bigint::BigUint;
use tera::Context;

/// The largest k whose multiplication is fully unrolled: beyond it the k² products of
/// straight-line code take NVRTC tens of seconds and cannot live in registers anyway, so
/// the loop over product coefficients stays rolled.
///
/// ```
/// use fermat_codegen::prelude::{render, MAX_UNROLLED_MUL_K};
/// use fermat_dsl::field::AnyField;
///
/// assert_eq!(MAX_UNROLLED_MUL_K, 16);
/// let p4 = render(&AnyField::from_spec("P4")?)?; // k = 16
/// assert!(p4.contains("Fully unrolled: k^2 = 256 products"));
/// let p5 = render(&AnyField::from_spec("P5")?)?; // k = 32
/// assert!(p5.contains("The coefficient loop stays rolled for k = 32"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_UNROLLED_MUL_K: u64 = 16;

/// The template context of an SRGFN.
pub(super) fn srgfn_context(name: &str, params: SrgfnParams) -> Result<Context, PreludeError> {
    params.check_k()?;
    let r = params.radix()?;
    let bounds = MulBounds::new(params)?;
    let p = params.modulus()?;
    let mut ctx = Context::new();
    ctx.insert("name", name);
    ctx.insert("r", &r.to_string());
    ctx.insert("w", &params.w);
    ctx.insert("u", &params.u);
    ctx.insert("sign", &params.sign.as_char().to_string());
    ctx.insert("plus", &(params.sign == Sign::Plus));
    ctx.insert(
        "opposite",
        match params.sign {
            Sign::Plus => "-",
            Sign::Minus => "+",
        },
    );
    ctx.insert("k", &params.k);
    // r >= 2^63: a digit sum a + b may overflow 64 bits.
    ctx.insert("wide_r", &(r >= 1u64 << 63));
    // r = 2^64 - 1: a digit plus a borrow may overflow 64 bits.
    ctx.insert("full_r", &(r == u64::MAX));
    ctx.insert("bits", &p.bits());
    ctx.insert("coef_bound", &bound_text(&bounds.coef));
    ctx.insert("carry_bound", &bound_text(&bounds.carry));
    let (coef_div, fold_div) = (plan_view(&bounds.coef_div), plan_view(&bounds.fold_div));
    ctx.insert("coef_div", &coef_div);
    ctx.insert("fold_div", &fold_div);
    ctx.insert(
        "divs",
        &serde_json::json!([
            {"name": "fe_aux_divr_coef", "what": "A coefficient plus the carry from below", "plan": coef_div},
            {"name": "fe_aux_divr_fold", "what": "Digit 0 less the final carry", "plan": fold_div},
        ]),
    );
    // 0 <= s < 2r: s needs three limbs where 2r exceeds 2^64.
    ctx.insert("rem_limbs", &(if r >= 1u64 << 63 { 3 } else { 2 }));
    // r's low half is 0 (u >= 32): addition and subtraction run as 32-bit carry chains.
    let split = r as u32 == 0;
    ctx.insert("split", &split);
    if split {
        let (rh, nr) = radix_halves(params)?;
        ctx.insert("r_hi", &format!("{rh:#x}"));
        ctx.insert("r_nr", &format!("{nr:#x}"));
        let (asm, portable) = chains_text(&add_chains(params)?);
        ctx.insert("add_asm", &asm);
        ctx.insert("add_portable", &portable);
        let (asm, portable) = chains_text(&sub_chains(params)?);
        ctx.insert("sub_asm", &asm);
        ctx.insert("sub_portable", &portable);
    }
    // u >= 32 (split) wherever the estimate applies: its fast path reads FE_R_HI.
    let fold_estimate = bounds.fold_estimate(params);
    ctx.insert("fold_fast", &fold_estimate.is_some());
    if let Some(a_max) = fold_estimate {
        ctx.insert("fold_a_max", &a_max);
        ctx.insert("fold_low", &format!("{:#x}", (1u64 << (params.w - 32)) - 1));
    }
    // The run-time shift as one signed chain, for fields whose chain is one asm statement:
    // split over several (k = 32, 64) it disagreed with the compile-time shift on the
    // device, though its host twin agreed; those fields rotate and subtract instead.
    let signed_chain = split && params.k <= CHAIN_DIGITS;
    ctx.insert("signed_chain", &signed_chain);
    if signed_chain {
        let (asm, portable) = chains_text(&signed_chains(params)?);
        ctx.insert("signed_asm", &asm);
        ctx.insert("signed_portable", &portable);
    }
    let unroll_mul = params.k <= MAX_UNROLLED_MUL_K;
    ctx.insert("unroll_mul", &unroll_mul);
    ctx.insert(
        "mul_outer_pragma",
        if unroll_mul { "FE_UNROLL" } else { "FE_ROLLED" },
    );
    Ok(ctx)
}

/// A division plan as the template reads it.
fn plan_view(plan: &DivPlan) -> serde_json::Value {
    let terms: Vec<serde_json::Value> = (0..plan.shifts.len())
        .map(|m| {
            serde_json::json!({
                "shift": plan.shifts[m],
                "limbs": plan.term_limbs[m].min(plan.sum_limbs),
                "sub": plan.subtract[m],
            })
        })
        .collect();
    serde_json::json!({
        "bound": bound_text(&plan.bound),
        "z_limbs": plan.z_limbs,
        "frac": plan.frac,
        "bias": plan.bias,
        "sum_limbs": plan.sum_limbs,
        "quotient_limbs": plan.quotient_limbs,
        "terms": terms,
        "odd": plan.odd.as_ref().map(|o| {
            let list = |v: &[u32]| v.iter().map(|x| format!("{x}u")).collect::<Vec<_>>().join(", ");
            serde_json::json!({
                "u": o.u,
                "m": o.m,
                "v_limbs": o.weights.len(),
                "weights": list(&o.weights),
                "offset": o.offset,
                "fold": o.fold,
                "t_max": o.t_max,
                "reciprocal": o.reciprocal,
                "shift": o.shift,
                "inverse": list(&o.inverse),
                "low_limbs": o.inverse.len(),
                "top": o.top.as_ref().map(|t| serde_json::json!({
                    "bias": t.bias,
                    "reciprocal": t.reciprocal,
                })),
            })
        }),
    })
}

/// A bound as `2^b` with b its bit length (readable in a comment, and an upper bound).
fn bound_text(x: &BigUint) -> String {
    format!("2^{}", x.bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::testing::params;

    #[test]
    fn contexts_refuse_fields_the_device_does_not_cover() {
        // r = 2: carries of k·r^2 do not fold with one correction per digit.
        let err = srgfn_context("F", params(2, 1, Sign::Minus, 16)).unwrap_err();
        assert!(
            matches!(err, PreludeError::FinalCarry { r: 2, k: 16, .. }),
            "{err}"
        );
        let err = srgfn_context("F", params(63, 34, Sign::Plus, 3)).unwrap_err();
        assert!(matches!(err, PreludeError::Params { .. }), "{err}");
        assert!(srgfn_context("F", params(63, 34, Sign::Plus, 8)).is_ok());
    }
}
