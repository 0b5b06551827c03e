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
use num_traits::{One, Zero};
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
/// exactly for one field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulBounds {
    /// The largest |u_i + carry| divided by r: one negacyclic coefficient (|u_i| ≤ k·r²)
    /// plus the carry from the digit below.
    pub coef: BigUint,
    /// The largest |carry| out of a digit (the fixed point of c = ⌊(k·r² + c)/r⌋ + 1).
    pub carry: BigUint,
    /// Sparse division steps that bring |z| ≤ `coef` into [−r, 2r).
    pub steps_coef: u32,
    /// Sparse division steps that bring |z| ≤ `carry` into [−r, 2r).
    pub steps_carry: u32,
    /// The 64-bit words (two's complement) that z needs before each of the `steps_coef`
    /// steps and after the last: the device computes each step on that many words only.
    pub coef_words: Vec<u32>,
    /// The same for the `steps_carry` steps of the final carry.
    pub carry_words: Vec<u32>,
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
        let steps = |bound: &BigInt| div_steps(bound, &r, params);
        let coef_words = steps(&coef)?;
        let carry_words = steps(&carry)?;
        Ok(MulBounds {
            coef: coef.magnitude().clone(),
            carry: carry.magnitude().clone(),
            steps_coef: coef_words.len() as u32 - 1,
            steps_carry: carry_words.len() as u32 - 1,
            coef_words,
            carry_words,
        })
    }
}

/// The sparse division steps z → (z >> w, (z mod 2^w) ∓ 2^u·(z >> w)) after which every
/// |z| ≤ bound lies in [−r, 2r), by interval arithmetic on the steps as the device runs
/// them: the words z needs before each step and after the last (one entry per step, plus
/// one). The quotient, the sum of the z >> w plus the final correction, must fit two words.
fn div_steps(bound: &BigInt, r: &BigInt, params: SrgfnParams) -> Result<Vec<u32>, String> {
    let two_w = BigInt::one() << params.w;
    let two_u = BigInt::one() << params.u;
    let top = &two_w - 1;
    let (mut lo, mut hi) = (-bound.clone(), bound.clone());
    let (mut q_lo, mut q_hi) = (-BigInt::one(), BigInt::one());
    let mut words = Vec::new();
    // The device takes the word counts packed 2 bits each into 64 bits: 31 steps at most.
    for _ in 0..32 {
        let n = words_for(&lo, &hi);
        if n > 3 {
            return Err(format!(
                "intermediate values exceed 192 bits (bound {bound})"
            ));
        }
        words.push(n);
        if lo >= -r.clone() && hi < r * 2 {
            let limit: BigInt = BigInt::one() << 127_u32;
            if q_lo < -limit.clone() || q_hi >= limit {
                return Err(format!(
                    "the quotient of the sparse division exceeds 128 bits (bound {bound})"
                ));
            }
            return Ok(words);
        }
        let h_lo = lo.div_floor(&two_w);
        let h_hi = hi.div_floor(&two_w);
        q_lo += &h_lo;
        q_hi += &h_hi;
        (lo, hi) = match params.sign {
            Sign::Plus => (-(&two_u * &h_hi), &top - &two_u * &h_lo),
            Sign::Minus => (&two_u * &h_lo, &top + &two_u * &h_hi),
        };
    }
    Err(format!(
        "sparse division by r = {r} does not converge within 31 steps"
    ))
}

/// The 64-bit words that every integer of [lo, hi] needs in two's complement.
fn words_for(lo: &BigInt, hi: &BigInt) -> u32 {
    let mut n = 1u32;
    loop {
        let half: BigInt = BigInt::one() << (64 * n - 1);
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
    let w_mask = if params.w >= 64 {
        u64::MAX
    } else {
        (1u64 << params.w) - 1
    };
    ctx.insert("w_mask", &w_mask.to_string());
    ctx.insert("coef_bound", &bound_text(&bounds.coef));
    ctx.insert("carry_bound", &bound_text(&bounds.carry));
    ctx.insert("steps_coef", &bounds.steps_coef);
    ctx.insert("steps_carry", &bounds.steps_carry);
    ctx.insert("coef_words", &join(&bounds.coef_words));
    ctx.insert("carry_words", &join(&bounds.carry_words));
    ctx.insert("coef_words_packed", &pack(&bounds.coef_words));
    ctx.insert("carry_words_packed", &pack(&bounds.carry_words));
    let unroll_mul = params.k <= MAX_UNROLLED_MUL_K;
    ctx.insert("unroll_mul", &unroll_mul);
    ctx.insert(
        "mul_outer_pragma",
        if unroll_mul { "FE_UNROLL" } else { "FE_ROLLED" },
    );
    Ok(ctx)
}

/// Word counts (each 1 to 3) packed 2 bits each, the first lowest, as C hex.
fn pack(words: &[u32]) -> String {
    let packed = words
        .iter()
        .rev()
        .fold(0u64, |acc, &w| (acc << 2) | u64::from(w));
    format!("{packed:#x}")
}

/// Numbers as a list: `3, 2, 1`.
fn join(xs: &[u32]) -> String {
    xs.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
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
    fn division_steps_for_the_catalogue() {
        // Each step shrinks |z| by about 2^(w-u): P5 (w - u = 6) needs many, P3 few.
        let cases = [
            (params(63, 53, Sign::Plus, 2), 7),
            (params(64, 50, Sign::Minus, 4), 5),
            (params(63, 34, Sign::Plus, 8), 3),
            (params(62, 36, Sign::Plus, 16), 3),
            (params(62, 56, Sign::Plus, 32), 12),
            (params(63, 40, Sign::Minus, 64), 4),
        ];
        for (p, steps) in cases {
            let b = MulBounds::new(p).unwrap();
            assert_eq!(b.steps_coef, steps, "{p}");
            assert_eq!(b.steps_carry, 1, "{p}");
            // |u_i| < k r^2 < 2^(2w + log2 k + 1).
            assert!(b.coef.bits() <= u64::from(2 * p.w) + u64::from(p.k.trailing_zeros()) + 2);
        }
    }

    /// The device's division steps, in exact integers: (q, z) after `steps` rewrites
    /// z = 2^w h + l -> r h + (l ∓ 2^u h).
    fn run_steps(z: &BigInt, words: &[u32], p: SrgfnParams) -> (BigInt, BigInt) {
        let two_w = BigInt::one() << p.w;
        let two_u = BigInt::one() << p.u;
        let (mut q, mut z) = (BigInt::zero(), z.clone());
        for (t, &n) in words.iter().enumerate() {
            // The device keeps z in n words (two's complement) before step t.
            let half: BigInt = BigInt::one() << (64 * n - 1);
            assert!(
                z >= -half.clone() && z < half,
                "{p}: z = {z} exceeds {n} words"
            );
            if t + 1 == words.len() {
                break;
            }
            let (h, l) = z.div_mod_floor(&two_w);
            z = match p.sign {
                Sign::Plus => l - &two_u * &h,
                Sign::Minus => l + &two_u * &h,
            };
            q += h;
        }
        let limit: BigInt = BigInt::one() << 127u32;
        assert!(q.abs() < limit, "{p}: the quotient {q} exceeds two words");
        (q, z)
    }

    #[test]
    fn division_steps_reach_the_final_range_for_every_bound() {
        use num_bigint::RandBigInt;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (_, p) in fermat_dsl::field::CATALOGUE_SRGFNS {
            let b = MulBounds::new(p).unwrap();
            let r = BigInt::from(p.radix().unwrap());
            for (bound, words) in [(&b.coef, &b.coef_words), (&b.carry, &b.carry_words)] {
                let bound = BigInt::from(bound.clone());
                let mut zs = vec![
                    bound.clone(),
                    -bound.clone(),
                    BigInt::zero(),
                    -BigInt::one(),
                ];
                zs.extend((0..200).map(|_| rng.gen_bigint_range(&-bound.clone(), &(&bound + 1))));
                for z in zs {
                    let (q, s) = run_steps(&z, words, p);
                    assert_eq!(&q * &r + &s, z, "{p}: the steps keep z = q r + s");
                    assert!(s >= -r.clone() && s < &r * 2, "{p}: z = {z} ends at {s}");
                }
            }
        }
    }

    #[test]
    fn division_words_shrink_with_the_steps() {
        // P3: |u_i + c| < 2^130 takes three words; after one step two suffice, and the
        // final range [-r, 2r) with r > 2^63 needs two.
        let b = MulBounds::new(params(63, 34, Sign::Plus, 8)).unwrap();
        assert_eq!(b.coef_words, [3, 2, 2, 2]);
        assert_eq!(b.carry_words, [2, 2]);
        assert_eq!(pack(&b.coef_words), "0xab");
        // P4: r < 2^62, so the final z fits one word.
        let b = MulBounds::new(params(62, 36, Sign::Plus, 16)).unwrap();
        assert_eq!(b.coef_words.last(), Some(&1));
        assert_eq!(pack(&[1, 2, 3]), format!("{:#x}", 1 | (2 << 2) | (3 << 4)));
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
