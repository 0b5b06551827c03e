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
//! | `FE_WORDS`, `FE_IS_SRGFN` | memory words per element (1 or k); whether `fe_mul_rpow` exists |
//! | `fe_load(base, idx, n)`, `fe_store(base, idx, n, v)` | element idx of a vector of n: `base[idx]` for word primes, digit c at `base[c*n + idx]` for SRGFNs (digit-major) |
//! | `fe_add`, `fe_sub`, `fe_neg` | exact, canonical in and out (SRGFN: Algorithm 2 of the 2017 paper, with the z_k = 2 case) |
//! | `fe_mul(a, b)` | a·b, canonical operands (word: two REDCs; SRGFN: Algorithm 3) |
//! | `fe_mul_mont(a, t)` | a·w for a constant in table form t (word: t = w·R mod p, one REDC; SRGFN: t = w) |
//! | `fe_to_mont(a)` | the table form of a |
//! | `fe_mul_rpow<i>(a)` | SRGFN only: a·r^i, i in [0, 2k) at compile time (§3.4: a negacyclic shift and one subtraction) |
//! | `fe_zero()`, `fe_one()`, `fe_eq(a, b)` | constants and equality |
//!
//! The preludes compile both as CUDA (`__device__ __forceinline__` functions) and as plain
//! C++17 (host `static inline` functions, `unsigned __int128` for the high product words), so
//! that `tests/prelude_host.rs` runs the device arithmetic on the CPU against the Rust
//! fields. Helpers named `fe_aux_*` are internal. The SRGFN multiplication's multi-word carry
//! chains are inline PTX (`add.cc`, `mad.lo.cc`, …) on the device with portable C++ beside
//! them for the host; `tests/prelude_host.rs` can export its drivers to run the device path
//! on a GPU against the host's checked output.

use crate::error::CodegenError;
use fermat_dsl::field::{AnyField, Sign, SrgfnParams};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use tera::{Context, Tera};

const COMMON: &str = include_str!("../templates/common.cu.tera");
const WORD: &str = include_str!("../templates/word.cu.tera");
const SRGFN: &str = include_str!("../templates/srgfn.cu.tera");

/// The device prelude of `field`: the portable definitions followed by the field's own
/// block.
pub fn render(field: &AnyField) -> Result<String, CodegenError> {
    let (name, ctx) = match field {
        AnyField::Fp32(_) | AnyField::Fp64(_) => {
            let bits = if matches!(field, AnyField::Fp32(_)) {
                32
            } else {
                64
            };
            let p = word_modulus(field)?;
            ("word.cu.tera", word_context(&field.name(), p, bits)?)
        }
        _ => {
            let params = field.srgfn_params().ok_or_else(|| {
                unsupported(field, "a field is either a word prime or an SRGFN".into())
            })?;
            ("srgfn.cu.tera", srgfn_context(&field.name(), params)?)
        }
    };
    let mut tera = Tera::default();
    for (template, text) in [
        ("common.cu.tera", COMMON),
        (name, if name == "word.cu.tera" { WORD } else { SRGFN }),
    ] {
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
        "// Device prelude for {}.\n{common}\n{own}",
        describe(field)
    ))
}

/// One line naming the field and its modulus, e.g.
/// `P3: p = (2^63 + 2^34)^8 + 1 (505 bits)` or `goldilocks: p = 18446744069414584321 (64 bits)`
/// (for headers and comments).
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

fn unsupported(field: &AnyField, why: String) -> CodegenError {
    CodegenError::UnsupportedField {
        field: field.name(),
        why,
    }
}

fn word_modulus(field: &AnyField) -> Result<u64, CodegenError> {
    let p = field.modulus();
    u64::try_from(&p).map_err(|_| unsupported(field, format!("word prime p = {p} exceeds 64 bits")))
}

/// The template context of a word prime p held in `bits`-bit words.
fn word_context(name: &str, p: u64, bits: u32) -> Result<Context, CodegenError> {
    let refuse = |why: String| CodegenError::UnsupportedField {
        field: name.to_string(),
        why,
    };
    if p < 3 || p.is_multiple_of(2) {
        return Err(refuse(format!(
            "Montgomery arithmetic needs an odd modulus ≥ 3; got p = {p}"
        )));
    }
    if bits == 32 && p > u64::from(u32::MAX) {
        return Err(refuse(format!("p = {p} does not fit a 32-bit word")));
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

/// The bounds behind the SRGFN multiplication (2017 paper, Algorithm 3 and §3.1), computed
/// exactly for one field, and the divisions by r that the device runs within them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulBounds {
    /// The largest |u_i + carry|: one negacyclic coefficient (|u_i| ≤ k·r²) plus the carry
    /// from the digit below.
    pub coef: BigUint,
    /// The largest |carry| out of a digit (the fixed point of c = ⌊(k·r² + c)/r⌋ + 1).
    pub carry: BigUint,
    /// The division of a coefficient plus carry (five 32-bit limbs, |z| ≤ `coef`).
    pub coef_div: DivPlan,
    /// The division of digit 0 less the final carry (three limbs, |z| < `carry` + r).
    pub fold_div: DivPlan,
}

impl MulBounds {
    /// The bounds for p = r^k + 1 with r = 2^w ± 2^u, or why the device multiplication
    /// does not cover it.
    pub fn new(params: SrgfnParams) -> Result<MulBounds, String> {
        let r_word = params.radix().map_err(|e| e.to_string())?;
        let k = params.k;
        if k < 2 {
            return Err(format!(
                "k = {k}: an SRGFN with one digit is a word prime (r + 1 = {}); name it as a decimal word prime",
                u128::from(r_word) + 1
            ));
        }
        let r = BigInt::from(r_word);
        let u_max = BigInt::from(k) * &r * &r;
        let mut carry = BigInt::zero();
        loop {
            let next = (&u_max + &carry).div_floor(&r) + 1;
            if next <= carry {
                break;
            }
            carry = next;
        }
        let coef = &u_max + &carry;
        // The final carry c = c1·r + c0 is subtracted from digits 0 and 1 with one
        // correction per digit, which needs |c1| + 1 ≤ r.
        let c1 = carry.div_floor(&r) + 1;
        if &c1 + 1 > r {
            return Err(format!(
                "radix r = {r} is too small for k = {k}: the device multiplication needs \
                 ⌊c/r⌋ + 2 ≤ r for carries |c| ≤ {carry}"
            ));
        }
        // The device accumulates a coefficient modulo 2^160 and reads bit 159 as its sign.
        if coef.bits() > 158 {
            return Err(format!(
                "product coefficients up to {coef} exceed the device's 160-bit accumulators"
            ));
        }
        let coef = coef.magnitude().clone();
        let carry = carry.magnitude().clone();
        let coef_div = DivPlan::new(params, &coef, 5)?;
        let fold_div = DivPlan::new(params, &(&carry + r.magnitude()), 3)?;
        // Digit 1 takes the quotient of digit 0 less the carry as one signed limb.
        if fold_div.quotient_limbs > 1 {
            return Err(format!(
                "radix r = {r} is too small for k = {k}: carries up to {carry} leave more than \
                 32 bits after one division by r"
            ));
        }
        Ok(MulBounds {
            coef,
            carry,
            coef_div,
            fold_div,
        })
    }
}

/// The most fraction bits a [`DivPlan`] keeps.
const MAX_FRAC: u32 = 8;

/// How the device divides a signed integer z (|z| ≤ `bound`, held in 32-bit limbs) by
/// r = 2^w ± 2^u (2017 paper, §3.1), without the paper's loop of sparse steps.
///
/// With d = w − u and ε = 2^−d, 1/r = 2^−w / (1 ± ε) = 2^−w Σ_m (∓ε)^m, so the quotient is
/// estimated from shifts of z alone: g = Σ_{m ≤ M} σ_m ⌊z / 2^(w − F + m·d)⌋ − B with
/// σ_m = (∓1)^m, and q̃ = ⌊g / 2^F⌋. Each floor costs less than one unit of 2^−F in g,
/// and the series' tail at most `⌈tail⌉` units, so z·2^F/r − g lies in [0, 2^F) once the
/// bias B covers the negative terms and the tail: then q̃ is the quotient ⌊z/r⌋ or one
/// less, and one comparison of s = z − q̃·r (computed modulo 2^64 or 2^96, since
/// 0 ≤ s < 2r) with r finishes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivPlan {
    /// The bound on |z|.
    pub bound: BigUint,
    /// The 32-bit limbs holding z (two's complement).
    pub z_limbs: u32,
    /// The fraction bits F of g.
    pub frac: u32,
    /// The shifts w − F + m·d of the terms, m = 0..=M.
    pub shifts: Vec<u32>,
    /// Whether term m is subtracted (σ_m = −1).
    pub subtract: Vec<bool>,
    /// The limbs each term needs (above them it is the sign of z).
    pub term_limbs: Vec<u32>,
    /// The bias B.
    pub bias: u32,
    /// The limbs of g.
    pub sum_limbs: u32,
    /// The limbs of the quotient estimate q̃.
    pub quotient_limbs: u32,
}

impl DivPlan {
    /// The plan with the fewest terms, then the fewest fraction bits, for |z| ≤ `bound`
    /// held in `z_limbs` limbs.
    pub fn new(params: SrgfnParams, bound: &BigUint, z_limbs: u32) -> Result<DivPlan, String> {
        let r = BigInt::from(params.radix().map_err(|e| e.to_string())?);
        let zb = BigInt::from(bound.clone());
        if limbs_for(&-zb.clone(), &zb) > z_limbs {
            return Err(format!(
                "values up to {bound} do not fit {z_limbs} 32-bit limbs"
            ));
        }
        let d = params.w - params.u;
        let minus = params.sign == Sign::Minus;
        // z·2^F/r stays below 2^(bits(z) − w + F + 1): enough terms bring the tail below 1.
        for terms in 1..=64u32 {
            for frac in 1..=MAX_FRAC.min(params.w) {
                let a = params.w - frac;
                let subtract: Vec<bool> = (0..terms).map(|m| !minus && m % 2 == 1).collect();
                let n_neg = subtract.iter().filter(|&&s| s).count() as u32;
                let n_pos = terms - n_neg;
                // |tail| ≤ (|z|/2^a)·ε^terms/(1 − ε) = |z|·2^d / (2^(a + d·terms)·(2^d − 1)).
                let num = &zb << d;
                let den = (BigInt::one() << (a + d * terms)) * ((BigInt::one() << d) - 1);
                let tail = -(-num).div_floor(&den);
                let Some(tail) = tail.to_u32() else { continue };
                let bias = n_neg + tail;
                if u64::from(n_pos) + u64::from(tail) + u64::from(bias) > 1u64 << frac {
                    continue;
                }
                let shifts: Vec<u32> = (0..terms).map(|m| a + m * d).collect();
                let term_limbs = shifts
                    .iter()
                    .map(|&s| {
                        let t = zb.clone() >> s;
                        limbs_for(&(-zb.clone()).div_floor(&(BigInt::one() << s)), &t)
                    })
                    .collect();
                // z·2^F/r − g ∈ [0, 2^F): g ∈ (−|z|·2^F/r − 2^F, |z|·2^F/r].
                let g_max = (&zb << frac).div_floor(&r) + 1;
                let g_min = -(&g_max) - (BigInt::one() << frac);
                let q_max = zb.div_floor(&r);
                let q_min = (-zb.clone()).div_floor(&r) - 1;
                return Ok(DivPlan {
                    bound: bound.clone(),
                    z_limbs,
                    frac,
                    shifts,
                    subtract,
                    term_limbs,
                    bias,
                    sum_limbs: limbs_for(&g_min, &g_max),
                    quotient_limbs: limbs_for(&q_min, &q_max),
                });
            }
        }
        Err(format!(
            "dividing by r = {r} needs more than 64 terms for values up to {bound}"
        ))
    }

    /// The device's estimate q̃ for z, in exact integers (for tests): the terms, the bias
    /// and the floor by 2^F exactly as the limb arithmetic computes them.
    pub fn estimate(&self, z: &BigInt) -> BigInt {
        let g = self.shifts.iter().zip(&self.subtract).fold(
            -BigInt::from(self.bias),
            |g, (&s, &sub)| {
                let t = z.div_floor(&(BigInt::one() << s));
                if sub {
                    g - t
                } else {
                    g + t
                }
            },
        );
        g.div_floor(&(BigInt::one() << self.frac))
    }
}

/// The 32-bit limbs that every integer of [lo, hi] needs in two's complement.
fn limbs_for(lo: &BigInt, hi: &BigInt) -> u32 {
    let mut n = 1u32;
    loop {
        let half: BigInt = BigInt::one() << (32 * n - 1);
        if *lo >= -half.clone() && *hi < half {
            return n;
        }
        n += 1;
    }
}

/// The largest k whose multiplication is fully unrolled: beyond it the k² products of
/// straight-line code take NVRTC tens of seconds and cannot live in registers anyway, so
/// the loop over product coefficients stays rolled.
pub const MAX_UNROLLED_MUL_K: u64 = 16;

/// The template context of an SRGFN.
fn srgfn_context(name: &str, params: SrgfnParams) -> Result<Context, CodegenError> {
    let refuse = |why: String| CodegenError::UnsupportedField {
        field: name.to_string(),
        why,
    };
    params.check_k().map_err(|e| refuse(e.to_string()))?;
    let r = params.radix().map_err(|e| refuse(e.to_string()))?;
    let bounds = MulBounds::new(params).map_err(refuse)?;
    let p = params.modulus().map_err(|e| refuse(e.to_string()))?;
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
    })
}

/// A bound as `2^b` with b its bit length (readable in a comment, and an upper bound).
fn bound_text(x: &BigUint) -> String {
    format!("2^{}", x.bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::Signed;

    fn params(w: u32, u: u32, sign: Sign, k: u64) -> SrgfnParams {
        SrgfnParams { w, u, sign, k }
    }

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
            assert!(matches!(err, CodegenError::UnsupportedField { .. }), "{p}");
            assert!(err.to_string().contains(&p.to_string()), "{err}");
        }
        assert!(word_context("x", 4_294_967_291, 32).is_ok());
    }

    #[test]
    fn division_plans_for_the_catalogue() {
        // (terms, fraction bits) of the coefficient division: each term shrinks the tail by
        // 2^(w - u), so P5 (w - u = 6) needs many, P3 and P4 three; digit 0 less the final
        // carry needs one or two.
        let cases = [
            (params(63, 53, Sign::Plus, 2), 7, 4),
            (params(64, 50, Sign::Minus, 4), 5, 3),
            (params(63, 34, Sign::Plus, 8), 3, 3),
            (params(62, 36, Sign::Plus, 16), 3, 3),
            (params(62, 56, Sign::Plus, 32), 12, 4),
            (params(63, 40, Sign::Minus, 64), 4, 3),
        ];
        for (p, terms, frac) in cases {
            let b = MulBounds::new(p).unwrap();
            assert_eq!(b.coef_div.shifts.len(), terms, "{p}");
            assert_eq!(b.coef_div.frac, frac, "{p}");
            // The quotient of a coefficient needs three limbs, digit 0 less the carry one.
            assert_eq!(b.coef_div.quotient_limbs, 3, "{p}");
            assert_eq!(b.fold_div.quotient_limbs, 1, "{p}");
            assert!(b.fold_div.shifts.len() <= 2, "{p}");
            // |u_i| < k r^2 < 2^(2w + log2 k + 1).
            assert!(b.coef.bits() <= u64::from(2 * p.w) + u64::from(p.k.trailing_zeros()) + 2);
        }
    }

    #[test]
    fn p3_coefficient_division_in_detail() {
        // 1/r = 2^-63 (1 - 2^-29 + 2^-58 - ...): three shifts of z by 60 + 29m bits, the
        // middle one subtracted; floors of +1, +1 and -1 units and a tail below one unit
        // fit 2^3 with the bias 2.
        let b = MulBounds::new(params(63, 34, Sign::Plus, 8)).unwrap();
        let d = &b.coef_div;
        assert_eq!(d.shifts, [60, 89, 118]);
        assert_eq!(d.subtract, [false, true, false]);
        assert_eq!(d.bias, 2);
        assert_eq!((d.z_limbs, d.sum_limbs), (5, 3));
        assert_eq!(d.term_limbs, [3, 2, 1]);
    }

    /// Integers of [-bound, bound] that stress a division: the ends, 0 and -1, multiples of
    /// r and their neighbours, and seeded random values.
    fn division_inputs(bound: &BigInt, r: &BigInt, rng: &mut impl rand::Rng) -> Vec<BigInt> {
        use num_bigint::RandBigInt;
        let mut zs = vec![
            bound.clone(),
            -bound.clone(),
            BigInt::zero(),
            -BigInt::one(),
        ];
        for _ in 0..100 {
            let q = rng.gen_bigint_range(&-(bound / r), &(bound / r + 1));
            for e in [-1, 0, 1] {
                zs.push(&q * r + e);
                zs.push(&q * r + r + e);
            }
            zs.push(rng.gen_bigint_range(&-bound.clone(), &(bound + 1)));
            // Values of few bits.
            let bits = rng.gen_range(1..bound.bits());
            zs.push(rng.gen_bigint(bits));
        }
        zs.retain(|z| z.abs() <= *bound);
        zs
    }

    #[test]
    fn division_estimates_the_quotient_or_one_less() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut fields: Vec<SrgfnParams> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(_, p)| *p)
            .collect();
        // Radices with u < 32 and a nearly full one.
        fields.extend([
            params(62, 21, Sign::Plus, 4),
            params(64, 2, Sign::Minus, 4),
            params(61, 9, Sign::Minus, 8),
        ]);
        for p in fields {
            let b = MulBounds::new(p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            for plan in [&b.coef_div, &b.fold_div] {
                let bound = BigInt::from(plan.bound.clone());
                let fits = |x: &BigInt, limbs: u32| {
                    let half: BigInt = BigInt::one() << (32 * limbs - 1);
                    *x >= -half.clone() && *x < half
                };
                for z in division_inputs(&bound, &r, &mut rng) {
                    assert!(fits(&z, plan.z_limbs), "{p}: z = {z}");
                    let q = plan.estimate(&z);
                    let exact = z.div_floor(&r);
                    assert!(
                        q == exact || q == &exact - 1,
                        "{p}: z = {z}: {q} for {exact}"
                    );
                    assert!(fits(&q, plan.quotient_limbs), "{p}: q = {q}");
                    for (&s, &l) in plan.shifts.iter().zip(&plan.term_limbs) {
                        let t = z.div_floor(&(BigInt::one() << s));
                        assert!(fits(&t, l), "{p}: z >> {s} = {t} exceeds {l} limbs");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn p3_estimate_holds_for_any_coefficient(bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..17), neg: bool) {
            let d = MulBounds::new(params(63, 34, Sign::Plus, 8)).unwrap().coef_div;
            let r = BigInt::from(params(63, 34, Sign::Plus, 8).radix().unwrap());
            let z = BigInt::from_bytes_le(if neg { num_bigint::Sign::Minus } else { num_bigint::Sign::Plus }, &bytes);
            let z = z % BigInt::from(d.bound.clone());
            let q = d.estimate(&z);
            let exact = z.div_floor(&r);
            proptest::prop_assert!(q == exact || q == exact - 1);
        }
    }

    #[test]
    fn division_plans_refuse_values_beyond_their_limbs() {
        let p = params(63, 34, Sign::Plus, 8);
        let big = BigUint::one() << 100u32;
        let err = DivPlan::new(p, &big, 3).unwrap_err();
        assert!(
            err.contains(&big.to_string()) && err.contains("3 32-bit limbs"),
            "{err}"
        );
        assert!(DivPlan::new(p, &big, 4).is_ok());
    }

    #[test]
    fn refuses_fields_the_multiplication_does_not_cover() {
        let err = MulBounds::new(params(4, 1, Sign::Plus, 1)).unwrap_err();
        assert!(err.contains("k = 1") && err.contains("19"), "{err}");
        // r = 2: carries of k·r^2 do not fold with one correction per digit.
        let err = MulBounds::new(params(2, 1, Sign::Minus, 16)).unwrap_err();
        assert!(err.contains("r = 2 is too small for k = 16"), "{err}");
        let err = srgfn_context("F", params(2, 1, Sign::Minus, 16)).unwrap_err();
        assert!(matches!(err, CodegenError::UnsupportedField { ref field, .. } if field == "F"));
        // Small but adequate radices are covered.
        assert!(MulBounds::new(params(4, 1, Sign::Plus, 2)).is_ok());
    }
}
