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
//! | `fe_load_row(table, row)` | row `row` of a table of constants: `table[row]` for word primes, digit c at `table[row*k + c]` for SRGFNs (row-major) |
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
use num_traits::{One, Signed, ToPrimitive, Zero};
use tera::{Context, Tera};

const COMMON: &str = include_str!("../templates/common.cu.tera");
const WORD: &str = include_str!("../templates/word.cu.tera");
const SRGFN: &str = include_str!("../templates/srgfn.cu.tera");

/// Choices in a prelude that depend on the kernels it serves.
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
pub fn render(field: &AnyField) -> Result<String, CodegenError> {
    render_with(field, PreludeOptions::default())
}

/// The device prelude of `field`: the portable definitions followed by the field's own
/// block.
pub fn render_with(field: &AnyField, options: PreludeOptions) -> Result<String, CodegenError> {
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
            let mut ctx = srgfn_context(&field.name(), params)?;
            ctx.insert("rare_calls", &options.rare_carry_calls);
            ("srgfn.cu.tera", ctx)
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

/// 2^64 − 2^32 + 1: its prelude reduces through 2^64 ≡ 2^32 − 1 in 32-bit carry chains
/// instead of Montgomery's REDC.
pub(crate) const GOLDILOCKS: u64 = 0xffff_ffff_0000_0001;

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

    /// The largest |⌊y₀ / 2^w⌋| for digit 0 less the final carry (|y₀| ≤ the fold's
    /// bound), where the multiplication's fast path takes that estimate as the fold's
    /// quotient: y₀ = a·r + t with t = (y₀ mod 2^w) ∓ a·2^u, and where 0 ≤ t < r the
    /// exact division is not needed. `None` where the device cannot run that path (r's low
    /// limb must be 0, u ≥ 32, so that t's low limb is y₀'s; a must fit one signed limb and
    /// 2^(w−32) + a·2^(u−32) 63 bits) or where it would miss too often: t leaves [0, r)
    /// for about a fraction a·2^u/2^w of the values, and a lane that misses takes its whole
    /// warp through the exact division, so the bound a_max·2^u/2^w must stay within
    /// 2^−[`FOLD_MISS_BITS`] (P5's r = 2^62 + 2^56 with k = 32 carries up to a = 34 and
    /// misses about half the time).
    pub fn fold_estimate(&self, params: SrgfnParams) -> Option<u32> {
        if params.u < 32 {
            return None;
        }
        let a_max = ((&self.fold_div.bound >> params.w) + 1u32).to_u32()?;
        let th_max =
            (BigUint::from(a_max) << (params.u - 32)) + (BigUint::one() << (params.w - 32));
        let misses = BigUint::from(a_max) << (params.u + FOLD_MISS_BITS);
        (a_max < 1 << 31 && th_max.bits() < 63 && misses <= BigUint::one() << params.w)
            .then_some(a_max)
    }
}

/// The fold's estimate ([`MulBounds::fold_estimate`]) may miss for at most one value in
/// 2^7: a warp of 32 lanes then takes the exact division a quarter of the time at most.
pub const FOLD_MISS_BITS: u32 = 7;

/// The most fraction bits a [`DivPlan`] keeps.
const MAX_FRAC: u32 = 8;

/// How the device divides a signed integer z (|z| ≤ `bound`, held in 32-bit limbs) by
/// r = 2^w ± 2^u (2017 paper, §3.1), without the paper's loop of sparse steps, where the
/// exact division by r's odd part ([`OddDiv`], in `odd`) does not apply.
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
    /// The exact division by r's odd part that the device runs instead of the series,
    /// where r's shape allows it ([`OddDiv`]).
    pub odd: Option<OddDiv>,
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
                let quotient_limbs = limbs_for(&q_min, &q_max);
                return Ok(DivPlan {
                    bound: bound.clone(),
                    z_limbs,
                    frac,
                    shifts,
                    subtract,
                    term_limbs,
                    bias,
                    sum_limbs: limbs_for(&g_min, &g_max),
                    quotient_limbs,
                    odd: OddDiv::new(params, bound, quotient_limbs),
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

/// An exact division of z (|z| ≤ `bound`) by r = 2^U·m, m odd, in a few multiplications
/// instead of [`DivPlan`]'s series of shifts: the digit's low U bits are z's, and the rest is
/// the division of V = ⌊z / 2^U⌋ by the small odd m.
///
/// 1. V's residue: limb j of V weighs 2^(32j) ≡ c_j (mod m), so S = OFF + Σ_j c_j·v_j ≡ V
///    (the top limb signed, OFF a multiple of m that keeps S ≥ 0), and with 2^F ≡ 1
///    (mod m), t = (S mod 2^F) + ⌊S / 2^F⌋ ≡ V too, below 2^31.
/// 2. s = t mod m = t − ⌊t·M / 2^(32+E)⌋·m with the reciprocal M = ⌈2^(32+E) / m⌉, exact
///    for every t up to `t_max` (Granlund–Montgomery: t_max·(M·m − 2^(32+E)) < 2^(32+E)).
/// 3. V − s is a multiple of m, so the quotient ⌊z / r⌋ = (V − s)/m is (V − s)·m^−1
///    modulo 2^(32·`quotient_limbs`), and the digit is s·2^U + (z mod 2^U). Where V has as
///    many limbs as the quotient ([`QuotientTop`]), only the low limbs come from that
///    product: the top one is V's top limb divided by m, one multiply-high.
///
/// The device's instructions: a funnel shift and a multiply-add per limb of V, a
/// multiply-high and a multiply-add for s, and a low product of the quotient's limbs: no
/// comparison and no correction, where the series needs a shift and an addition per limb
/// of each of its terms and a final comparison with r.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddDiv {
    /// r = 2^U·m.
    pub u: u32,
    /// The odd part m of r.
    pub m: u32,
    /// c_j = 2^(32j) mod m, one per 32-bit limb of V = ⌊z / 2^U⌋.
    pub weights: Vec<u32>,
    /// The multiple of m added to S: a multiple of 2^32 too where the bounds allow, so that
    /// on the device it is the high word of limb 0's term rather than an addition.
    pub offset: u64,
    /// The fold: 2^F ≡ 1 (mod m), F ≤ 32.
    pub fold: u32,
    /// The largest t.
    pub t_max: u64,
    /// The reciprocal M = ⌈2^(32+E) / m⌉.
    pub reciprocal: u32,
    /// Its shift E: 2^E ≤ m < 2^(E+1).
    pub shift: u32,
    /// m^−1 modulo 2^32 per limb of the quotient that the low product computes, least
    /// significant limb first: all of them, or all but the top one where `top` is set.
    pub inverse: Vec<u32>,
    /// The quotient's top limb from V's, where V has as many limbs as the quotient.
    pub top: Option<QuotientTop>,
}

/// The top limb of the quotient q = (V − s)/m of [`OddDiv`] from x, V's top limb (signed,
/// V and q having L limbs): with T = 2^(32(L−1)), ⌊q/T⌋ = ⌊V/(m·T)⌋ = ⌊x/m⌋, since
/// V = m·q + s with 0 ≤ s < m. The device computes ⌊x/m⌋ = ⌊(x + B·m)·M / 2^32⌋ − B with
/// a bias B that makes x + B·m non-negative and M = ⌈2^32 / m⌉, exact wherever
/// (x + B·m)·(M·m − 2^32) < 2^32 (Granlund–Montgomery, checked over x's whole range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotientTop {
    /// The bias B.
    pub bias: u32,
    /// The reciprocal M.
    pub reciprocal: u32,
}

impl QuotientTop {
    /// The top limb for x in [x_min, x_max], or `None` where one multiply-high is not exact.
    fn new(m: u32, x_min: &BigInt, x_max: &BigInt) -> Option<QuotientTop> {
        let mb = BigInt::from(m);
        let bias = if x_min.is_negative() {
            (-x_min).div_ceil(&mb)
        } else {
            BigInt::zero()
        };
        // The device adds the bias in one limb.
        let y_max = (x_max + &bias * &mb).to_u64().filter(|&y| y < 1 << 32)?;
        Some(QuotientTop {
            bias: bias.to_u32().expect("below 2^32 / m"),
            reciprocal: exact_reciprocal(m, 0, y_max)?,
        })
    }

    /// ⌊x/m⌋ as the device computes it.
    fn divide(&self, m: u32, x: i32) -> i64 {
        let y = (i64::from(x) + i64::from(self.bias) * i64::from(m)) as u64;
        divide_by_reciprocal(y, self.reciprocal, 0) as i64 - i64::from(self.bias)
    }
}

/// M = ⌈2^(32+E) / m⌉ for the shift E, where ⌊y·M / 2^(32+E)⌋ = ⌊y/m⌋ for every
/// 0 ≤ y ≤ `y_max` (Granlund–Montgomery: y_max·(M·m − 2^(32+E)) < 2^(32+E)) and M fits a limb.
fn exact_reciprocal(m: u32, shift: u32, y_max: u64) -> Option<u32> {
    let two = 1u128 << (32 + shift);
    let reciprocal = two.div_ceil(u128::from(m));
    let excess = reciprocal * u128::from(m) - two;
    (reciprocal < 1 << 32 && u128::from(y_max) * excess < two).then_some(reciprocal as u32)
}

/// ⌊y·M / 2^(32+E)⌋ for y below 2^32, as the device's multiply-high and shift compute it.
fn divide_by_reciprocal(y: u64, reciprocal: u32, shift: u32) -> u64 {
    (y * u64::from(reciprocal)) >> (32 + shift)
}

impl OddDiv {
    /// The division for |z| ≤ `bound` with a quotient of `quotient_limbs` limbs, or `None`
    /// where r's shape does not allow it: U < 32 (the digit's low bits would not be z's
    /// whole limb 0), 2 of multiplicative order above 32 modulo m (no fold within a limb),
    /// or S or t beyond the bounds of steps 1 and 2.
    pub fn new(params: SrgfnParams, bound: &BigUint, quotient_limbs: u32) -> Option<OddDiv> {
        let r = params.radix().ok()?;
        let u = r.trailing_zeros();
        let m = r >> u;
        if u < 32 || m < 3 {
            return None;
        }
        let m = u32::try_from(m).ok()?;
        let zb = BigInt::from(bound.clone());
        let v_max = &zb >> u as usize;
        let v_min = (-zb).div_floor(&(BigInt::one() << u));
        let v_limbs = limbs_for(&v_min, &v_max);
        let weights: Vec<u32> = (0..v_limbs)
            .map(|j| BigUint::from(2u32).modpow(&BigUint::from(32 * j), &BigUint::from(m)))
            .map(|c| c.to_u32().expect("below m"))
            .collect();
        // The top limb of V, signed, is ⌊V / 2^(32(L−1))⌋.
        let top = BigInt::one() << (32 * (v_limbs - 1));
        let (x_min, x_max) = (v_min.div_floor(&top), v_max.div_floor(&top));
        let c_top = BigInt::from(*weights.last().expect("a limb"));
        let (top_min, top_max) = (&x_min * &c_top, &x_max * &c_top);
        let low_max: BigInt = weights[..weights.len() - 1]
            .iter()
            .map(|&c| BigInt::from(c) * BigInt::from(u32::MAX))
            .sum();
        let mb = BigInt::from(m);
        let order = (1..=32u32).find(|&e| (1u64 << e) % u64::from(m) == 1)?;
        // S's offset: the least multiple of m·2^32 (a constant high word on the device)
        // that keeps S ≥ 0 where the later bounds hold with it, else the least multiple of m.
        let need = if top_min.is_negative() {
            -top_min
        } else {
            BigInt::zero()
        };
        let coarse = &mb << 32;
        let offsets = [need.div_ceil(&coarse) * &coarse, need.div_ceil(&mb) * &mb];
        let (offset, fold, t_max, shift, reciprocal) = offsets.iter().find_map(|offset| {
            let s_max = (offset + &low_max + &top_max).to_u64()?;
            let (fold, t_max) = (1..=32 / order)
                .map(|i| {
                    let f = i * order;
                    (f, ((1u64 << f) - 1).min(s_max) + (s_max >> f))
                })
                .min_by_key(|&(_, t)| t)?;
            if t_max >= 1 << 31 {
                return None;
            }
            let shift = 31 - m.leading_zeros();
            let reciprocal = exact_reciprocal(m, shift, t_max)?;
            Some((offset.to_u64()?, fold, t_max, shift, reciprocal))
        })?;
        let top = if quotient_limbs >= 2 && v_limbs == quotient_limbs {
            QuotientTop::new(m, &x_min, &x_max)
        } else {
            None
        };
        let low_limbs = quotient_limbs - u32::from(top.is_some());
        let modulus = BigInt::one() << (32 * low_limbs);
        let inverse = BigInt::from(m).modinv(&modulus)?;
        let inverse = (0..low_limbs)
            .map(|j| ((&inverse >> (32 * j) as usize) & BigInt::from(u32::MAX)).to_u32())
            .collect::<Option<Vec<u32>>>()?;
        Some(OddDiv {
            u,
            m,
            weights,
            offset,
            fold,
            t_max,
            reciprocal,
            shift,
            inverse,
            top,
        })
    }

    /// The quotient and the digit the device computes for z, step by step as its limb
    /// arithmetic does (for tests): ⌊z / r⌋ and z mod r wherever z is within the bound.
    pub fn divide(&self, z: &BigInt) -> (BigInt, BigInt) {
        let v = z.div_floor(&(BigInt::one() << self.u));
        let limb = |x: &BigInt, j: u32| -> u64 {
            ((x >> (32 * j) as usize) & BigInt::from(u32::MAX))
                .to_u64()
                .expect("a limb")
        };
        let top = self.weights.len() as u32 - 1;
        let mut s = i128::from(self.offset);
        for (j, &c) in self.weights.iter().enumerate() {
            let j = j as u32;
            let x = if j == top {
                i128::from(limb(&v, j) as u32 as i32)
            } else {
                i128::from(limb(&v, j))
            };
            s += x * i128::from(c);
        }
        let s = u64::try_from(s).expect("S in [0, 2^64)");
        let t = (s & ((1u64 << self.fold) - 1)) + (s >> self.fold);
        let q_t = divide_by_reciprocal(t, self.reciprocal, self.shift);
        let rem = t - q_t * u64::from(self.m);
        let low_bits = 32 * self.inverse.len();
        let modulus = BigInt::one() << low_bits;
        let inverse = self
            .inverse
            .iter()
            .rev()
            .fold(BigInt::zero(), |acc, &l| (acc << 32) + l);
        let low = ((&v - rem) * inverse).mod_floor(&modulus);
        let q = match &self.top {
            Some(t) => {
                let x = limb(&v, top) as u32 as i32;
                (BigInt::from(t.divide(self.m, x)) << low_bits) + low
            }
            None if low >= &modulus >> 1 => low - &modulus,
            None => low,
        };
        let digit = (BigInt::from(rem) << self.u) + z.mod_floor(&(BigInt::one() << self.u));
        (q, digit)
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

/// The most digits one inline-PTX carry chain covers: longer chains are split into asm
/// statements of this many digits, which pass the carry on in a register (the condition
/// code does not survive from one asm statement to the next).
pub const CHAIN_DIGITS: u64 = 16;

/// A source operand of one instruction of a [`DigitChain`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainArg {
    /// A 32-bit register of the chain.
    Reg(&'static str),
    /// A 32-bit constant.
    Imm(u32),
}

/// One step of a [`DigitChain`]: a PTX instruction on 32-bit registers, or the moves
/// between the chain's registers and its C++ operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainLine {
    /// `mnemonic dst, args…`: one of `add.u32`, `add.cc.u32`, `addc.u32`, `addc.cc.u32`,
    /// `sub.cc.u32`, `subc.u32`, `subc.cc.u32`, `mad.lo.u32`, `xor.b32`.
    Op {
        /// The PTX mnemonic.
        mnemonic: &'static str,
        /// The register written.
        dst: &'static str,
        /// The sources (three for `mad.lo.u32`, else two).
        args: Vec<ChainArg>,
    },
    /// The halves of 64-bit input operand `input` into registers `lo` and `hi`.
    Split {
        /// The low half.
        lo: &'static str,
        /// The high half.
        hi: &'static str,
        /// The input operand.
        input: usize,
    },
    /// 32-bit input operand `input` into register `reg`.
    Load {
        /// The register written.
        reg: &'static str,
        /// The input operand.
        input: usize,
    },
    /// Registers `lo` and `hi` as 64-bit output operand `output`.
    Join {
        /// The output operand.
        output: usize,
        /// The low half.
        lo: &'static str,
        /// The high half.
        hi: &'static str,
    },
    /// Register `reg` as 32-bit output operand `output`.
    Store {
        /// The output operand.
        output: usize,
        /// The register read.
        reg: &'static str,
    },
}

/// One carry chain of the SRGFN addition or subtraction (2017 paper, Algorithm 2) on the
/// 32-bit halves of the digits, for radices r = 2^w ± 2^u with u ≥ 32, whose low half is 0.
///
/// The same list of steps is printed twice: as inline PTX for the device (one asm statement,
/// so that the condition code carries from digit to digit) and as portable C++ for the host,
/// one call of an emulation of each instruction (`fe_ptx_*` in the prelude) per step, so
/// that the host tests run exactly the device's instruction sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigitChain {
    /// Output operands: (constraint letter `l` or `r`, C++ lvalue).
    pub outputs: Vec<(char, String)>,
    /// Input operands: (constraint letter `l` or `r`, C++ expression).
    pub inputs: Vec<(char, String)>,
    /// The steps.
    pub lines: Vec<ChainLine>,
}

impl DigitChain {
    fn new() -> DigitChain {
        DigitChain {
            outputs: Vec::new(),
            inputs: Vec::new(),
            lines: Vec::new(),
        }
    }

    fn input(&mut self, kind: char, expr: String) -> usize {
        self.inputs.push((kind, expr));
        self.inputs.len() - 1
    }

    fn output(&mut self, kind: char, lvalue: String) -> usize {
        self.outputs.push((kind, lvalue));
        self.outputs.len() - 1
    }

    fn op(&mut self, mnemonic: &'static str, dst: &'static str, args: &[ChainArg]) {
        self.lines.push(ChainLine::Op {
            mnemonic,
            dst,
            args: args.to_vec(),
        });
    }

    /// The registers the chain uses, in order of first appearance.
    pub fn registers(&self) -> Vec<&'static str> {
        let mut regs: Vec<&'static str> = Vec::new();
        let mut note = |r: &'static str| {
            if !regs.contains(&r) {
                regs.push(r);
            }
        };
        for line in &self.lines {
            match line {
                ChainLine::Op { dst, args, .. } => {
                    for a in args {
                        if let ChainArg::Reg(r) = a {
                            note(r);
                        }
                    }
                    note(dst);
                }
                ChainLine::Split { lo, hi, .. } | ChainLine::Join { lo, hi, .. } => {
                    note(lo);
                    note(hi);
                }
                ChainLine::Load { reg, .. } | ChainLine::Store { reg, .. } => note(reg),
            }
        }
        regs
    }

    /// Why the chain is not well formed: a carry read before any instruction of the chain
    /// wrote one (the condition code is undefined when an asm statement starts), a register
    /// read before it is written, or an unknown mnemonic.
    pub fn check(&self) -> Result<(), String> {
        let mut carry = false;
        let mut written: Vec<&'static str> = Vec::new();
        for (n, line) in self.lines.iter().enumerate() {
            let read = |r: &&'static str, written: &Vec<&'static str>| {
                if written.contains(r) {
                    Ok(())
                } else {
                    Err(format!("step {n} reads register {r} before it is written"))
                }
            };
            match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => {
                    let (reads_cf, writes_cf, arity) = match *mnemonic {
                        "add.u32" => (false, false, 2),
                        "add.cc.u32" | "sub.cc.u32" => (false, true, 2),
                        "addc.u32" | "subc.u32" => (true, false, 2),
                        "addc.cc.u32" | "subc.cc.u32" => (true, true, 2),
                        "mad.lo.u32" => (false, false, 3),
                        "xor.b32" => (false, false, 2),
                        m => return Err(format!("step {n}: unknown mnemonic {m}")),
                    };
                    if args.len() != arity {
                        return Err(format!("step {n}: {mnemonic} takes {arity} sources"));
                    }
                    if reads_cf && !carry {
                        return Err(format!(
                            "step {n}: {mnemonic} reads the carry before the chain sets it"
                        ));
                    }
                    carry |= writes_cf;
                    for a in args {
                        if let ChainArg::Reg(r) = a {
                            read(r, &written)?;
                        }
                    }
                    written.push(dst);
                }
                ChainLine::Split { lo, hi, .. } => {
                    written.push(lo);
                    written.push(hi);
                }
                ChainLine::Load { reg, .. } => written.push(reg),
                ChainLine::Join { lo, hi, .. } => {
                    read(lo, &written)?;
                    read(hi, &written)?;
                }
                ChainLine::Store { reg, .. } => read(reg, &written)?,
            }
        }
        Ok(())
    }

    /// The chain as one asm statement (lines of C++ source, indented by `indent`).
    pub fn asm(&self, indent: &str) -> String {
        let n_out = self.outputs.len();
        let arg = |a: &ChainArg| match a {
            ChainArg::Reg(r) => r.to_string(),
            ChainArg::Imm(v) => format!("{v:#x}"),
        };
        let mut text = format!(
            "{indent}asm(\"{{\\n\\t.reg .u32 {};\\n\\t\"\n",
            self.registers().join(", ")
        );
        for line in &self.lines {
            let ptx = match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => format!(
                    "{mnemonic} {dst}, {};",
                    args.iter().map(arg).collect::<Vec<_>>().join(", ")
                ),
                ChainLine::Split { lo, hi, input } => {
                    format!("mov.b64 {{{lo}, {hi}}}, %{};", n_out + input)
                }
                ChainLine::Load { reg, input } => format!("mov.u32 {reg}, %{};", n_out + input),
                ChainLine::Join { output, lo, hi } => format!("mov.b64 %{output}, {{{lo}, {hi}}};"),
                ChainLine::Store { output, reg } => format!("mov.u32 %{output}, {reg};"),
            };
            text.push_str(&format!("{indent}    \"{ptx}\\n\\t\"\n"));
        }
        let operands = |ops: &[(char, String)], prefix: &str| {
            ops.iter()
                .map(|(kind, e)| format!("\"{prefix}{kind}\"({e})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "{indent}    \"}}\"\n{indent}    : {}\n{indent}    : {});\n",
            operands(&self.outputs, "=&"),
            operands(&self.inputs, "")
        ));
        text
    }

    /// The chain as portable C++ (lines indented by `indent`, in a block of their own):
    /// the same steps, each instruction by its emulation `fe_ptx_<mnemonic>` with the carry
    /// flag in `cf`.
    pub fn portable(&self, indent: &str) -> String {
        // Registers get a prefix, so that none hides a C++ operand of the same name.
        let reg = |r: &str| format!("v_{r}");
        let arg = |a: &ChainArg| match a {
            ChainArg::Reg(r) => reg(r),
            ChainArg::Imm(v) => format!("{v:#x}u"),
        };
        let regs: Vec<String> = self.registers().iter().map(|r| reg(r)).collect();
        let mut text = format!(
            "{indent}{{\n{indent}    uint32_t {}, cf = 0;\n",
            regs.join(", ")
        );
        for line in &self.lines {
            let cpp = match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => format!(
                    "{} = fe_ptx_{}({}, cf);",
                    reg(dst),
                    mnemonic.replace('.', "_"),
                    args.iter().map(arg).collect::<Vec<_>>().join(", ")
                ),
                ChainLine::Split { lo, hi, input } => {
                    let e = &self.inputs[*input].1;
                    format!(
                        "{} = (uint32_t)({e}); {} = (uint32_t)(({e}) >> 32);",
                        reg(lo),
                        reg(hi)
                    )
                }
                ChainLine::Load { reg: r, input } => {
                    format!("{} = {};", reg(r), self.inputs[*input].1)
                }
                ChainLine::Join { output, lo, hi } => format!(
                    "{} = (uint64_t){} | ((uint64_t){} << 32);",
                    self.outputs[*output].1,
                    reg(lo),
                    reg(hi)
                ),
                ChainLine::Store { output, reg: r } => {
                    format!("{} = {};", self.outputs[*output].1, reg(r))
                }
            };
            text.push_str(&format!("{indent}    {cpp}\n"));
        }
        text.push_str(&format!("{indent}    (void)cf;\n{indent}}}\n"));
        text
    }
}

/// The high half of r and 2^32 minus it, for a radix whose low half is 0.
fn radix_halves(params: SrgfnParams) -> Result<(u32, u32), String> {
    let r = params.radix().map_err(|e| e.to_string())?;
    if r as u32 != 0 {
        return Err(format!(
            "r = {r} has a nonzero low half: the 32-bit digit chains need u ≥ 32"
        ));
    }
    let rh = (r >> 32) as u32;
    Ok((rh, rh.wrapping_neg()))
}

/// The chains of x − y over the k digits (in asm statements of at most [`CHAIN_DIGITS`]
/// digits), which leave z and the mask `m` of the borrow out of the top digit (all ones or 0).
///
/// Digit i: the 64-bit difference x_i − y_i − b with the borrow b from below, as two
/// subtractions of 32-bit halves with borrow; the borrow out is the digit's base-r borrow
/// (x_i, y_i ≤ r), read back as the mask m by a `subc.cc` of 0 − 0 (which leaves the
/// borrow in place for the next digit); r is added back where it borrowed by
/// hi += m·(2^32 − r_hi), r's low half being 0.
pub fn sub_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, String> {
    use ChainArg::{Imm, Reg};
    let (_, nr) = radix_halves(params)?;
    let k = params.k;
    let mut chains = Vec::new();
    for first in (0..k).step_by(CHAIN_DIGITS as usize) {
        let mut c = DigitChain::new();
        if first > 0 {
            // The borrow of the previous statement: 0 - m borrows exactly when m != 0.
            let m_in = c.input('r', "m".into());
            c.lines.push(ChainLine::Load {
                reg: "m",
                input: m_in,
            });
            c.op("sub.cc.u32", "m", &[Imm(0), Reg("m")]);
        }
        for i in first..(first + CHAIN_DIGITS).min(k) {
            let x = c.input('l', format!("x.d[{i}]"));
            let y = c.input('l', format!("y.d[{i}]"));
            let z = c.output('l', format!("z.d[{i}]"));
            c.lines.push(ChainLine::Split {
                lo: "al",
                hi: "ah",
                input: x,
            });
            c.lines.push(ChainLine::Split {
                lo: "bl",
                hi: "bh",
                input: y,
            });
            let lo_op = if i == 0 { "sub.cc.u32" } else { "subc.cc.u32" };
            c.op(lo_op, "zl", &[Reg("al"), Reg("bl")]);
            c.op("subc.cc.u32", "zh", &[Reg("ah"), Reg("bh")]);
            c.op("subc.cc.u32", "m", &[Imm(0), Imm(0)]);
            c.op("mad.lo.u32", "zh", &[Reg("m"), Imm(nr), Reg("zh")]);
            c.lines.push(ChainLine::Join {
                output: z,
                lo: "zl",
                hi: "zh",
            });
        }
        let m_out = c.output('r', "m".into());
        c.lines.push(ChainLine::Store {
            output: m_out,
            reg: "m",
        });
        c.check()?;
        chains.push(c);
    }
    Ok(chains)
}

/// The chains of Σ ±x_i r^i over the k digits, the sign of digit i given by the mask
/// `s[i]` (all ones: negative), which leave z and the mask `m` of the borrow out of the top
/// digit, as [`sub_chains`] does for x − y.
///
/// Digit i is the subtraction (x_i ⊕ s_i) − s_i − b: for s_i = 0 that is x_i − 0 − b, and
/// for s_i all ones (¬x_i) − (2^32 − 1) − b on each half, which is 0 − x_i − b with the
/// same borrow, half by half. A run-time shift (whose digits change sign where they wrap
/// around) thus costs one chain.
pub fn signed_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, String> {
    use ChainArg::{Imm, Reg};
    let (_, nr) = radix_halves(params)?;
    let k = params.k;
    let mut chains = Vec::new();
    for first in (0..k).step_by(CHAIN_DIGITS as usize) {
        let mut c = DigitChain::new();
        if first > 0 {
            let m_in = c.input('r', "m".into());
            c.lines.push(ChainLine::Load {
                reg: "m",
                input: m_in,
            });
            c.op("sub.cc.u32", "m", &[Imm(0), Reg("m")]);
        }
        for i in first..(first + CHAIN_DIGITS).min(k) {
            let x = c.input('l', format!("x.d[{i}]"));
            let sign = c.input('r', format!("s[{i}]"));
            let z = c.output('l', format!("z.d[{i}]"));
            c.lines.push(ChainLine::Split {
                lo: "al",
                hi: "ah",
                input: x,
            });
            c.lines.push(ChainLine::Load {
                reg: "s",
                input: sign,
            });
            c.op("xor.b32", "al", &[Reg("al"), Reg("s")]);
            c.op("xor.b32", "ah", &[Reg("ah"), Reg("s")]);
            let lo_op = if i == 0 { "sub.cc.u32" } else { "subc.cc.u32" };
            c.op(lo_op, "zl", &[Reg("al"), Reg("s")]);
            c.op("subc.cc.u32", "zh", &[Reg("ah"), Reg("s")]);
            c.op("subc.cc.u32", "m", &[Imm(0), Imm(0)]);
            c.op("mad.lo.u32", "zh", &[Reg("m"), Imm(nr), Reg("zh")]);
            c.lines.push(ChainLine::Join {
                output: z,
                lo: "zl",
                hi: "zh",
            });
        }
        let m_out = c.output('r', "m".into());
        c.lines.push(ChainLine::Store {
            output: m_out,
            reg: "m",
        });
        c.check()?;
        chains.push(c);
    }
    Ok(chains)
}

/// The chains of x + y over the k digits for canonical operands, which leave z and the
/// carry `c` (0 or 1) out of the top digit.
///
/// Digit i < k − 1 (below r, as only a top digit may be r): the low halves add with the
/// carry from below; the high half a_hi + 2^32 − r_hi stays below 2^32, and adding b_hi and
/// the low carry to it carries out exactly when the digit sum reaches r: the carry into
/// digit i + 1. `addc.cc` of 0xffffffff + 0 reads it back as g = carry − 1 (0 or all ones)
/// and leaves it in place; hi += g·(2^32 − r_hi) takes the bias back where the sum stayed
/// below r. The top digit may be r (p − 1): its high halves add with a carry out (which
/// only r ≥ 2^63 can produce) and the sum is compared with r_hi apart.
pub fn add_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, String> {
    use ChainArg::{Imm, Reg};
    let (_, nr) = radix_halves(params)?;
    let wide = params.radix().map_err(|e| e.to_string())? >= 1u64 << 63;
    let k = params.k;
    let mut chains = Vec::new();
    for first in (0..k).step_by(CHAIN_DIGITS as usize) {
        let mut c = DigitChain::new();
        if first > 0 {
            // The carry c of the previous statement: c + 0xffffffff carries exactly when
            // c = 1.
            let c_in = c.input('r', "c".into());
            c.lines.push(ChainLine::Load {
                reg: "g",
                input: c_in,
            });
            c.op("add.cc.u32", "g", &[Reg("g"), Imm(u32::MAX)]);
        }
        let last = (first + CHAIN_DIGITS).min(k);
        for i in first..last {
            let x = c.input('l', format!("x.d[{i}]"));
            let y = c.input('l', format!("y.d[{i}]"));
            let z = c.output('l', format!("z.d[{i}]"));
            c.lines.push(ChainLine::Split {
                lo: "al",
                hi: "ah",
                input: x,
            });
            c.lines.push(ChainLine::Split {
                lo: "bl",
                hi: "bh",
                input: y,
            });
            let lo_op = if i == 0 { "add.cc.u32" } else { "addc.cc.u32" };
            if i + 1 < k {
                c.op("add.u32", "ah", &[Reg("ah"), Imm(nr)]);
                c.op(lo_op, "zl", &[Reg("al"), Reg("bl")]);
                c.op("addc.cc.u32", "zh", &[Reg("ah"), Reg("bh")]);
                c.op("addc.cc.u32", "g", &[Imm(u32::MAX), Imm(0)]);
                c.op("mad.lo.u32", "zh", &[Reg("g"), Imm(nr), Reg("zh")]);
            } else {
                c.op(lo_op, "zl", &[Reg("al"), Reg("bl")]);
                if wide {
                    // a_hi + b_hi + carry may reach 2^32 (then it exceeds r_hi).
                    c.op("addc.cc.u32", "zh", &[Reg("ah"), Reg("bh")]);
                    c.op("addc.u32", "o", &[Imm(0), Imm(0)]);
                } else {
                    c.op("addc.u32", "zh", &[Reg("ah"), Reg("bh")]);
                    c.op("add.u32", "o", &[Imm(0), Imm(0)]);
                }
                // The sum reaches r_hi exactly when adding 2^32 - r_hi carries (or o = 1).
                c.op("add.cc.u32", "g", &[Reg("zh"), Imm(nr)]);
                c.op("addc.u32", "g", &[Reg("o"), Imm(0)]);
                c.op("mad.lo.u32", "zh", &[Reg("g"), Imm(nr), Reg("zh")]);
            }
            c.lines.push(ChainLine::Join {
                output: z,
                lo: "zl",
                hi: "zh",
            });
        }
        if last < k {
            c.op("addc.u32", "g", &[Imm(0), Imm(0)]);
        }
        let c_out = c.output('r', "c".into());
        c.lines.push(ChainLine::Store {
            output: c_out,
            reg: "g",
        });
        c.check()?;
        chains.push(c);
    }
    Ok(chains)
}

/// The device and host bodies of a list of chains, for the template.
fn chains_text(chains: &[DigitChain]) -> (String, String) {
    let asm = chains.iter().map(|c| c.asm("    ")).collect::<String>();
    let portable = chains
        .iter()
        .map(|c| c.portable("    "))
        .collect::<String>();
    (asm, portable)
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
    // r's low half is 0 (u >= 32): addition and subtraction run as 32-bit carry chains.
    let split = r as u32 == 0;
    ctx.insert("split", &split);
    if split {
        let (rh, nr) = radix_halves(params).map_err(refuse)?;
        ctx.insert("r_hi", &format!("{rh:#x}"));
        ctx.insert("r_nr", &format!("{nr:#x}"));
        let (asm, portable) = chains_text(&add_chains(params).map_err(refuse)?);
        ctx.insert("add_asm", &asm);
        ctx.insert("add_portable", &portable);
        let (asm, portable) = chains_text(&sub_chains(params).map_err(refuse)?);
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
        let (asm, portable) = chains_text(&signed_chains(params).map_err(refuse)?);
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

    #[test]
    fn odd_divisions_are_exact_where_r_allows_them() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Which catalogue fields take the odd division: 2 has order 20, 14, 12 and 23
        // modulo the odd parts 2^10 + 1, 2^14 - 1, 2^6 + 1 and 2^23 - 1 of P1, P2, P5 and
        // P6; modulo those of P3 and P4 (2^29 + 1, 2^26 + 1) its order exceeds a limb.
        let takes = |p: SrgfnParams| MulBounds::new(p).unwrap().coef_div.odd.is_some();
        let catalogue: Vec<(&str, bool)> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(name, p)| (*name, takes(*p)))
            .collect();
        assert_eq!(
            catalogue,
            [
                ("P1", true),
                ("P2", true),
                ("P3", false),
                ("P4", false),
                ("P5", true),
                ("P6", true)
            ]
        );
        let p2 = MulBounds::new(params(64, 50, Sign::Minus, 4)).unwrap();
        let odd = p2.coef_div.odd.as_ref().unwrap();
        // S's offset is m·2^32 (a constant high word), which the fold by 2^28 absorbs; the
        // quotient's top limb comes from V's.
        assert_eq!((odd.m, odd.fold, odd.weights.len()), (16383, 28, 3));
        assert_eq!(odd.offset, 16383 << 32);
        assert_eq!(odd.inverse.len(), 2);
        assert!(odd.top.is_some());
        assert!(p2.fold_div.odd.as_ref().unwrap().top.is_none());
        assert!(takes(params(62, 40, Sign::Minus, 4)));
        // u < 32: the digit's low bits would not be a whole limb of z.
        assert!(!takes(params(62, 21, Sign::Plus, 4)));
        let mut checked = 0;
        for (_, p) in fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .chain(&[("", params(62, 40, Sign::Minus, 4))])
        {
            let b = MulBounds::new(*p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            for plan in [&b.coef_div, &b.fold_div] {
                let Some(odd) = &plan.odd else { continue };
                let bound = BigInt::from(plan.bound.clone());
                for z in division_inputs(&bound, &r, &mut rng) {
                    let (q, digit) = odd.divide(&z);
                    assert_eq!(q, z.div_floor(&r), "{p}: z = {z}");
                    assert_eq!(digit, z.mod_floor(&r), "{p}: z = {z}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 3000, "{checked}");
    }

    #[test]
    fn fold_estimates_are_exact_where_the_multiplication_takes_them() {
        use num_bigint::RandBigInt;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let takes = |p: SrgfnParams| MulBounds::new(p).unwrap().fold_estimate(p).is_some();
        let catalogue: Vec<(&str, bool)> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(name, p)| (*name, takes(*p)))
            .collect();
        assert_eq!(
            catalogue,
            [
                ("P1", true),
                ("P2", true),
                ("P3", true),
                ("P4", true),
                ("P5", false),
                ("P6", true)
            ]
        );
        for (name, p) in fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .chain(&[("", params(62, 40, Sign::Minus, 4))])
            .filter(|(_, p)| takes(*p))
        {
            let b = MulBounds::new(*p).unwrap();
            let a_max = b.fold_estimate(*p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            let bound = BigInt::from(b.fold_div.bound.clone());
            let two_w = BigInt::one() << p.w;
            let two_u = BigInt::one() << p.u;
            let mut taken = 0;
            let mut random = division_inputs(&bound, &r, &mut rng);
            let edges = random.len();
            random.extend((0..2000).map(|_| rng.gen_bigint_range(&-bound.clone(), &(&bound + 1))));
            for (i, y) in random.iter().enumerate() {
                // The device's steps: a from y's bits from w up, t from a and y mod 2^w.
                let a = y.div_floor(&two_w);
                assert!(a.abs() <= BigInt::from(a_max), "{name}: y = {y}");
                let t = match p.sign {
                    Sign::Minus => y.mod_floor(&two_w) + &a * &two_u,
                    Sign::Plus => y.mod_floor(&two_w) - &a * &two_u,
                };
                if !t.is_negative() && t < r {
                    assert_eq!(t, y.mod_floor(&r), "{name}: y = {y}");
                    assert_eq!(a, y.div_floor(&r), "{name}: y = {y}");
                    taken += usize::from(i >= edges);
                }
            }
            // Random values almost never need the exact division.
            assert!(taken >= 1990, "{name}: {taken} of 2000");
        }
        // r's low limb must be 0 for t's low limb to be y's.
        let p = params(62, 21, Sign::Plus, 4);
        assert_eq!(MulBounds::new(p).unwrap().fold_estimate(p), None);
    }

    #[test]
    fn quotient_tops_are_exact_over_their_whole_range() {
        let mut checked = 0;
        for (name, p) in fermat_dsl::field::CATALOGUE_SRGFNS {
            let b = MulBounds::new(p).unwrap();
            for plan in [&b.coef_div, &b.fold_div] {
                let Some(odd) = &plan.odd else { continue };
                let Some(top) = &odd.top else { continue };
                // V's top limb, as OddDiv::new bounds it.
                let zb = BigInt::from(plan.bound.clone());
                let t = BigInt::one() << (odd.u + 32 * (odd.weights.len() as u32 - 1));
                let (lo, hi) = ((-&zb).div_floor(&t), zb.div_floor(&t));
                let (lo, hi) = (lo.to_i32().unwrap(), hi.to_i32().unwrap());
                assert!(hi - lo < 1 << 20, "{name}: {lo}..{hi}");
                for x in lo..=hi {
                    let want = i64::from(x).div_euclid(i64::from(odd.m));
                    assert_eq!(top.divide(odd.m, x), want, "{name}: x = {x}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        // Past its bound the multiply-high is no longer exact: the bound is what keeps it so.
        let m = 16383u32;
        let top = QuotientTop::new(m, &-BigInt::from(5 * m), &BigInt::from(1 << 17)).unwrap();
        let y = (1u64 << 32) / u64::from(m) * u64::from(m) - 1;
        let wrong = divide_by_reciprocal(y, top.reciprocal, 0) != y / u64::from(m);
        assert!(wrong, "y = {y}");
        assert!(QuotientTop::new(m, &BigInt::zero(), &BigInt::from(y)).is_none());
    }

    proptest::proptest! {
        #[test]
        fn p2_odd_division_is_exact_for_any_coefficient(bytes in proptest::collection::vec(proptest::num::u8::ANY, 1..17), neg: bool) {
            let p = params(64, 50, Sign::Minus, 4);
            let d = MulBounds::new(p).unwrap().coef_div;
            let r = BigInt::from(p.radix().unwrap());
            let z = BigInt::from_bytes_le(if neg { num_bigint::Sign::Minus } else { num_bigint::Sign::Plus }, &bytes);
            let z = z % BigInt::from(d.bound.clone());
            let (q, digit) = d.odd.as_ref().unwrap().divide(&z);
            proptest::prop_assert_eq!(q, z.div_floor(&r));
            proptest::prop_assert_eq!(digit, z.mod_floor(&r));
        }

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

    /// Runs a chain on 64-bit input operands as PTX defines its instructions (the carry
    /// flag a borrow after `sub.cc`/`subc`), returning the output operands.
    fn run_chain(c: &DigitChain, inputs: &[u64]) -> Vec<u64> {
        use std::collections::HashMap;
        let mut regs: HashMap<&str, u32> = HashMap::new();
        let mut out = vec![0u64; c.outputs.len()];
        let mut cf = 0u64;
        for line in &c.lines {
            match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => {
                    let v: Vec<u64> = args
                        .iter()
                        .map(|a| match a {
                            ChainArg::Reg(r) => u64::from(regs[r]),
                            ChainArg::Imm(x) => u64::from(*x),
                        })
                        .collect();
                    let (d, new_cf) = match *mnemonic {
                        "add.u32" => (v[0] + v[1], cf),
                        "add.cc.u32" => (v[0] + v[1], (v[0] + v[1]) >> 32),
                        "addc.u32" => (v[0] + v[1] + cf, cf),
                        "addc.cc.u32" => (v[0] + v[1] + cf, (v[0] + v[1] + cf) >> 32),
                        "sub.cc.u32" => (v[0].wrapping_sub(v[1]), u64::from(v[0] < v[1])),
                        "subc.u32" => (v[0].wrapping_sub(v[1] + cf), cf),
                        "subc.cc.u32" => {
                            (v[0].wrapping_sub(v[1] + cf), u64::from(v[0] < v[1] + cf))
                        }
                        "mad.lo.u32" => (v[0] * v[1] + v[2], cf),
                        "xor.b32" => (v[0] ^ v[1], cf),
                        m => panic!("unknown mnemonic {m}"),
                    };
                    regs.insert(dst, d as u32);
                    cf = new_cf;
                }
                ChainLine::Split { lo, hi, input } => {
                    regs.insert(lo, inputs[*input] as u32);
                    regs.insert(hi, (inputs[*input] >> 32) as u32);
                }
                ChainLine::Load { reg, input } => {
                    regs.insert(reg, inputs[*input] as u32);
                }
                ChainLine::Join { output, lo, hi } => {
                    out[*output] = u64::from(regs[lo]) | (u64::from(regs[hi]) << 32);
                }
                ChainLine::Store { output, reg } => out[*output] = u64::from(regs[reg]),
            }
        }
        out
    }

    /// Runs the chains of one operation over k digits: `x`, `y` per digit (y: the sign
    /// masks for signed chains), the carry variable passed from chain to chain.
    fn run_chains(chains: &[DigitChain], x: &[u64], y: &[u64]) -> (Vec<u64>, u64) {
        let mut z = vec![0u64; x.len()];
        let mut carry = 0u64;
        for c in chains {
            let inputs: Vec<u64> = c
                .inputs
                .iter()
                .map(|(_, e)| {
                    let index = |e: &str| {
                        e[e.find('[').unwrap() + 1..e.len() - 1]
                            .parse::<usize>()
                            .unwrap()
                    };
                    if e.starts_with("x.d[") {
                        x[index(e)]
                    } else if e.starts_with("y.d[") || e.starts_with("s[") {
                        y[index(e)]
                    } else {
                        carry
                    }
                })
                .collect();
            let outs = run_chain(c, &inputs);
            for ((_, lvalue), v) in c.outputs.iter().zip(outs) {
                match lvalue.strip_prefix("z.d[") {
                    Some(rest) => z[rest.trim_end_matches(']').parse::<usize>().unwrap()] = v,
                    None => carry = v,
                }
            }
        }
        (z, carry)
    }

    /// Σ d_i r^i.
    fn value(d: &[u64], r: u64) -> BigInt {
        d.iter()
            .rev()
            .fold(BigInt::zero(), |acc, &x| acc * BigInt::from(r) + x)
    }

    #[test]
    fn digit_chains_compute_algorithm_2() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut fields: Vec<SrgfnParams> = fermat_dsl::field::CATALOGUE_SRGFNS
            .iter()
            .map(|(_, p)| *p)
            .collect();
        // r = 2^64 - 2^32, the largest radix with a zero low half.
        fields.push(params(64, 32, Sign::Minus, 4));
        for p in fields {
            let r = p.radix().unwrap();
            let k = p.k as usize;
            let (add, sub, signed) = (
                add_chains(p).unwrap(),
                sub_chains(p).unwrap(),
                signed_chains(p).unwrap(),
            );
            let rk = BigInt::from(r).pow(k as u32);
            let digit = |rng: &mut rand_chacha::ChaCha8Rng| match rng.gen_range(0..4) {
                0 => 0,
                1 => r - 1,
                2 => r / 2 + rng.gen_range(0..2),
                _ => rng.gen_range(0..r),
            };
            for trial in 0..300 {
                let mut x: Vec<u64> = (0..k).map(|_| digit(&mut rng)).collect();
                let mut y: Vec<u64> = (0..k).map(|_| digit(&mut rng)).collect();
                // p - 1 as either operand now and then.
                if trial % 7 == 0 {
                    x = vec![0; k];
                    x[k - 1] = r;
                }
                if trial % 11 == 0 {
                    y = vec![0; k];
                    y[k - 1] = r;
                }
                let (vx, vy) = (value(&x, r), value(&y, r));
                let (z, c) = run_chains(&add, &x, &y);
                assert!(c <= 1, "{p}: carry {c}");
                assert_eq!(
                    value(&z, r) + BigInt::from(c) * &rk,
                    &vx + &vy,
                    "{p}: {x:?} + {y:?}"
                );
                let special = z[k - 1] == r && z[..k - 1].iter().all(|&d| d == 0);
                assert!(special || z.iter().all(|&d| d < r), "{p}: sum digits {z:?}");
                let (z, m) = run_chains(&sub, &x, &y);
                assert!(m == 0 || m == u64::from(u32::MAX), "{p}: mask {m}");
                let b = BigInt::from(m & 1);
                assert_eq!(value(&z, r) - b * &rk, &vx - &vy, "{p}: {x:?} - {y:?}");
                let special = z[k - 1] == r && z[..k - 1].iter().all(|&d| d == 0);
                assert!(
                    special || z.iter().all(|&d| d < r),
                    "{p}: difference digits {z:?}"
                );
                // Signs at random: Σ ±x_i r^i.
                let s: Vec<u64> = (0..k)
                    .map(|_| if rng.gen() { u64::from(u32::MAX) } else { 0 })
                    .collect();
                let expect: BigInt = (0..k)
                    .map(|i| {
                        let t = BigInt::from(x[i]) * BigInt::from(r).pow(i as u32);
                        if s[i] != 0 {
                            -t
                        } else {
                            t
                        }
                    })
                    .sum();
                let (z, m) = run_chains(&signed, &x, &s);
                let b = BigInt::from(m & 1);
                assert_eq!(value(&z, r) - b * &rk, expect, "{p}: signed {x:?} {s:?}");
            }
        }
    }

    #[test]
    fn digit_chains_are_checked() {
        let mut c = DigitChain::new();
        let x = c.input('l', "x.d[0]".into());
        c.lines.push(ChainLine::Split {
            lo: "al",
            hi: "ah",
            input: x,
        });
        c.op(
            "addc.cc.u32",
            "zl",
            &[ChainArg::Reg("al"), ChainArg::Reg("ah")],
        );
        let err = c.check().unwrap_err();
        assert!(
            err.contains("reads the carry before the chain sets it"),
            "{err}"
        );
        c.lines.pop();
        c.op(
            "add.cc.u32",
            "zl",
            &[ChainArg::Reg("al"), ChainArg::Reg("bl")],
        );
        let err = c.check().unwrap_err();
        assert!(
            err.contains("reads register bl before it is written"),
            "{err}"
        );
        c.lines.pop();
        c.op(
            "mul.lo.u32",
            "zl",
            &[ChainArg::Reg("al"), ChainArg::Reg("ah")],
        );
        assert!(c
            .check()
            .unwrap_err()
            .contains("unknown mnemonic mul.lo.u32"));
        // Radices with a nonzero low half have no chains.
        let err = add_chains(params(62, 21, Sign::Plus, 4)).unwrap_err();
        assert!(
            err.contains("u ≥ 32") && err.contains(&(((1u64 << 62) + (1 << 21)).to_string())),
            "{err}"
        );
    }

    #[test]
    fn long_chains_pass_the_carry_between_statements() {
        // P6 (k = 64): four asm statements of 16 digits each, the later ones taking the
        // carry of the one before.
        let p = params(63, 40, Sign::Minus, 64);
        let chains = sub_chains(p).unwrap();
        assert_eq!(chains.len(), 4);
        assert_eq!(chains[0].inputs.len(), 32);
        assert_eq!(chains[1].inputs.len(), 33);
        assert!(chains[1].asm("").contains("sub.cc.u32 m, 0x0, m;"));
        assert!(chains[1]
            .portable("")
            .contains("v_m = fe_ptx_sub_cc_u32(0x0u, v_m, cf);"));
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
