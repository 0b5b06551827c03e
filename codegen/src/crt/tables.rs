//! The constants the CRT kernels read: per-prime Montgomery constants and weights,
//! Garner's tables, and the modulus of a reduction.

use super::{PROJECT_HEAD, RECOMBINE_HEAD};
use fermat_dsl::field::primality::{mul_mod, pow_mod};

/// −p^−1 mod 2^64, for odd p.
fn neg_inverse(p: u64) -> u64 {
    // p is its own inverse mod 8; each Newton step doubles the correct bits.
    let mut inv = p;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// The constants of [`CrtPass::Project`](super::CrtPass::Project) for integers of
/// `words` 64-bit words: a row of [`PROJECT_HEAD`] + `words` per prime (p, −p^−1 mod
/// 2^64, then R^(w+2) mod p, the weight of word w with the R^2 that the two reductions
/// remove).
///
/// ```
/// let c = fermat_codegen::crt::project_constants(&[2013265921], 3);
/// assert_eq!(c.len(), 5);
/// assert_eq!(c[0], 2013265921);
/// ```
pub fn project_constants(primes: &[u64], words: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(primes.len() * (PROJECT_HEAD as usize + words));
    for &p in primes {
        let r = ((1u128 << 64) % u128::from(p)) as u64;
        out.extend([p, neg_inverse(p)]);
        out.extend((0..words as u64).map(|w| pow_mod(r, w + 2, p)));
    }
    out
}

/// The tables of [`CrtPass::Recombine`](super::CrtPass::Recombine) for `primes`
/// (distinct, odd, below 2^62).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecombineTables {
    /// A row of [`RECOMBINE_HEAD`] + s words per prime i: p_i, −p_i^−1 mod 2^64,
    /// (p_1⋯p_(i−1))^−1·R mod p_i, digit i of ⌊P/2⌋ in the mixed radix of the primes, then
    /// the Garner weights p_1⋯p_(k−1)·R^2 mod p_i for k < i.
    pub constants: Vec<u64>,
    /// Words per row of `constants`.
    pub row: usize,
    /// s + 1 rows of `words` words: p_1⋯p_(k−1) for k = 1..s, then P.
    pub bases: Vec<u64>,
    /// 64-bit words of the integers: enough for P − 1.
    pub words: usize,
}

/// The tables of [`CrtPass::Recombine`](super::CrtPass::Recombine).
///
/// ```
/// let t = fermat_codegen::crt::recombine_tables(&[2013265921, 469762049]);
/// assert_eq!(t.words, 1);
/// assert_eq!(t.bases, vec![1, 2013265921, 2013265921 * 469762049]);
/// ```
pub fn recombine_tables(primes: &[u64]) -> RecombineTables {
    use num_bigint::BigUint;
    let s = primes.len();
    let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
    let words = (product.bits().div_ceil(64) as usize).max(1);
    let row = RECOMBINE_HEAD as usize + s;
    let mut constants = vec![0u64; s * row];
    let mut half = &product >> 1u32;
    for (i, &p) in primes.iter().enumerate() {
        let r = ((1u128 << 64) % u128::from(p)) as u64;
        let r2 = mul_mod(r, r, p);
        let c = &mut constants[i * row..(i + 1) * row];
        let mut prefix = 1 % p;
        for (k, &q) in primes[..i].iter().enumerate() {
            c[RECOMBINE_HEAD as usize + k] = mul_mod(prefix, r2, p);
            prefix = mul_mod(prefix, q % p, p);
        }
        c[0] = p;
        c[1] = neg_inverse(p);
        c[2] = mul_mod(pow_mod(prefix, p - 2, p), r, p);
        let digit = &half % p;
        c[3] = digit.iter_u64_digits().next().unwrap_or(0);
        half /= p;
    }
    let mut bases = vec![0u64; (s + 1) * words];
    let mut base = BigUint::from(1u32);
    for k in 0..=s {
        for (slot, d) in bases[k * words..(k + 1) * words]
            .iter_mut()
            .zip(base.iter_u64_digits())
        {
            *slot = d;
        }
        if k < s {
            base *= primes[k];
        }
    }
    RecombineTables {
        constants,
        row,
        bases,
        words,
    }
}

/// The tables that turn Garner's recombination into a product's residues modulo m:
/// with the bases p_1⋯p_(k−1) mod m in place of p_1⋯p_(k−1), [`CrtPass::Recombine`]
/// (unsigned) writes S = Σ_k v_k·(p_1⋯p_(k−1) mod m), congruent to the integer modulo m
/// and below s·max p·m, and [`CrtPass::Reduce`] takes S to [0, m).
///
/// [`CrtPass::Recombine`]: super::CrtPass::Recombine
/// [`CrtPass::Reduce`]: super::CrtPass::Reduce
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModularTables {
    /// s + 1 rows of `words` words: p_1⋯p_(k−1) mod m for k = 1..s, then a row of zeros
    /// (the place of P, which only a signed recombination reads).
    pub bases: Vec<u64>,
    /// 64-bit words of the sums S.
    pub words: usize,
    /// The constants of [`CrtPass::Reduce`](super::CrtPass::Reduce): t = bits(m) − 1,
    /// μ = ⌊2^(t + 72)/m⌋ in two words, two zero words, then m in `mwords` words.
    pub reduce: Vec<u64>,
    /// 64-bit words of the reduction's remainders, enough for 3m.
    pub mwords: usize,
}

/// Words of [`ModularTables::reduce`] before m: t, μ's two words, and two zeros that stand
/// for m's words −2 and −1 in the reduction's product scanning.
pub const REDUCE_HEAD: u64 = 5;

/// Bits of the quotient estimate of [`CrtPass::Reduce`](super::CrtPass::Reduce): S < 2^(t + 72).
pub const REDUCE_QUOTIENT_BITS: u32 = 72;

/// The tables of a product's residues modulo `m` by the CRT route over `primes` (distinct,
/// odd, below 2^62): `None` for m < 2, no primes, or more of them than the reduction's
/// quotient estimate covers (S must stay below 2^(bits(m) − 1 + 72)).
///
/// ```
/// use fermat_codegen::crt::modular_tables;
/// use num_bigint::BigUint;
///
/// let t = modular_tables(&[2013265921, 469762049], &BigUint::from(1000u32)).unwrap();
/// // Bases 1 and 2013265921 mod 1000, then the zero row; S < 2 · 2^31 · 1000.
/// assert_eq!((t.bases.clone(), t.words, t.mwords), (vec![1, 921, 0], 1, 1));
/// // t = 9, μ = ⌊2^81/1000⌋ in two words, two zeros, then m.
/// let mu = (BigUint::from(1u32) << 81u32) / 1000u32;
/// assert_eq!(t.reduce, [&[9][..], &mu.to_u64_digits(), &[0, 0, 1000]].concat());
/// assert!(modular_tables(&[2013265921], &BigUint::from(1u32)).is_none());
/// ```
pub fn modular_tables(primes: &[u64], m: &num_bigint::BigUint) -> Option<ModularTables> {
    use num_bigint::BigUint;
    let s = primes.len();
    let largest = *primes.iter().max()?;
    if m < &BigUint::from(2u32) {
        return None;
    }
    let bound = m * largest * s;
    let t = m.bits() - 1;
    if bound.bits() > t + u64::from(REDUCE_QUOTIENT_BITS) {
        return None;
    }
    let words = (bound.bits().div_ceil(64) as usize).max(1);
    let mut bases = vec![0u64; (s + 1) * words];
    let mut base = BigUint::from(1u32);
    for (k, &p) in primes.iter().enumerate() {
        let row = &mut bases[k * words..(k + 1) * words];
        for (slot, d) in row.iter_mut().zip((&base % m).iter_u64_digits()) {
            *slot = d;
        }
        base *= p;
    }
    let mwords = (m.bits() + 2).div_ceil(64) as usize;
    let mu = (BigUint::from(1u32) << (t + u64::from(REDUCE_QUOTIENT_BITS))) / m;
    let digits = |x: &BigUint, n: usize| {
        let mut out: Vec<u64> = x.iter_u64_digits().collect();
        out.resize(n, 0);
        out
    };
    let mut reduce = vec![t];
    reduce.extend(digits(&mu, 2));
    reduce.extend([0, 0]);
    reduce.extend(digits(m, mwords));
    Some(ModularTables {
        bases,
        words,
        reduce,
        mwords,
    })
}
