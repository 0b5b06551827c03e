//! The constants the CRT kernels read: per-prime Montgomery constants and weights,
//! Garner's tables, and the modulus of a reduction.

use super::{
    project_digits, DIGIT_BITS, EXPLICIT_HEAD, MAX_PRIMES, NARROW_DIGITS, NARROW_HEAD,
    NARROW_PROJECT_HEAD, PROJECT_DIGIT_BITS, PROJECT_HEAD, RECOMBINE_HEAD,
};
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

/// The constants of [`CrtPass::ProjectNarrow`](super::CrtPass::ProjectNarrow) for
/// integers of `words` 64-bit words and primes below 2^31: a row of
/// [`NARROW_PROJECT_HEAD`] + [`project_digits`]`(words)` per prime (p, −p^−1 mod 2^32,
/// 2^32 mod p, then 2^(29k)·2^32 mod p, the weight of digit k with the 2^32 that the
/// kernel's Montgomery step removes).
///
/// ```
/// let p = 2013265921u64;
/// let c = fermat_codegen::crt::project_constants_narrow(&[p], 1);
/// let r = (1u128 << 32) % p as u128;
/// let w = |k: u32| ((1u128 << (29 * k)) % p as u128 * r % p as u128) as u64;
/// assert_eq!(c, [p, 2013265919, r as u64, w(0), w(1), w(2)]);
/// ```
pub fn project_constants_narrow(primes: &[u64], words: usize) -> Vec<u64> {
    let digits = project_digits(words as u64);
    let mut out = Vec::with_capacity(primes.len() * (NARROW_PROJECT_HEAD + digits) as usize);
    for &p in primes {
        let r = (1 << 32) % p;
        out.extend([p, u64::from(neg_inverse(p) as u32), r]);
        let digit = pow_mod(2, PROJECT_DIGIT_BITS, p);
        out.extend((0..digits).map(|k| mul_mod(pow_mod(digit, k, p), r, p)));
    }
    out
}

/// The tables of [`CrtPass::Recombine`](super::CrtPass::Recombine) for `primes`
/// (distinct, odd, below 2^62).
///
/// ```
/// use fermat_codegen::crt::recombine_tables;
///
/// let (p, q) = (2013265921u64, 469762049u64);
/// let t = recombine_tables(&[p, q]);
/// assert_eq!(t.row, 6);
/// // q's row: q, then its Garner weight of p_1⋯p_0 = 1, R^2 mod q, after the head.
/// let r = ((1u128 << 64) % q as u128) as u64;
/// let r2 = ((r as u128 * r as u128) % q as u128) as u64;
/// assert_eq!((t.constants[6], t.constants[10]), (q, r2));
/// // ⌊P/2⌋ = d_0 + d_1·p in the primes' mixed radix.
/// let half = p * q / 2;
/// assert_eq!((t.constants[3], t.constants[9]), (half % p, half / p));
/// ```
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

/// The tables of a product's residues modulo m by the explicit CRT: with them
/// [`CrtPass::Explicit`] writes S = Σ y_i·(P/p_i mod m) + k·(−P mod m), congruent to the
/// integer modulo m and below s·(max p + 1)·m, and [`CrtPass::Reduce`] takes S to [0, m).
///
/// [`CrtPass::Explicit`]: super::CrtPass::Explicit
/// [`CrtPass::Reduce`]: super::CrtPass::Reduce
///
/// ```
/// use fermat_codegen::crt::{modular_tables, EXPLICIT_HEAD, REDUCE_HEAD};
/// use num_bigint::BigUint;
///
/// let m = (BigUint::from(1u32) << 255u32) - 19u32;
/// let t = modular_tables(&[2013265921, 469762049, 167772161], &m).unwrap();
/// // S < 3·(max p + 1)·m (288 bits) needs five words, and so do remainders below 3m (257).
/// assert_eq!((t.words, t.mwords), (5, 5));
/// assert_eq!((t.constants.len(), t.bases.len()), (3 * EXPLICIT_HEAD as usize, 4 * 5));
/// assert_eq!((t.reduce.len(), t.reduce[0]), (REDUCE_HEAD as usize + 5, 254));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModularTables {
    /// A row of [`EXPLICIT_HEAD`] words per prime i: p_i, −p_i^−1 mod 2^64,
    /// (P/p_i)^−1·R mod p_i, G_i = ⌊2^(96 − a_i)/p_i⌋ and a_i (32 below 2^32, else 0).
    pub constants: Vec<u64>,
    /// s + 1 rows of `words` words: P/p_i mod m for each prime, then −P mod m.
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
///
/// ```
/// use fermat_codegen::crt::{modular_tables, REDUCE_HEAD};
/// use num_bigint::BigUint;
///
/// let t = modular_tables(&[2013265921], &BigUint::from(1001u32)).unwrap();
/// let head = REDUCE_HEAD as usize;
/// assert_eq!((&t.reduce[3..head], &t.reduce[head..]), (&[0, 0][..], &[1001][..]));
/// ```
pub const REDUCE_HEAD: u64 = 5;

/// Bits of the quotient estimate of [`CrtPass::Reduce`](super::CrtPass::Reduce): S < 2^(t + 72).
///
/// ```
/// use fermat_codegen::crt::{modular_tables, REDUCE_QUOTIENT_BITS};
/// use num_bigint::BigUint;
///
/// // m = 2^61 − 1, t = 60: μ = ⌊2^(t + 72)/m⌋, which the table holds in two words.
/// let m = BigUint::from((1u64 << 61) - 1);
/// let t = modular_tables(&[2013265921], &m).unwrap();
/// let mu = (BigUint::from(1u32) << (60 + REDUCE_QUOTIENT_BITS)) / &m;
/// assert_eq!(mu.to_u64_digits(), &t.reduce[1..3]);
/// ```
pub const REDUCE_QUOTIENT_BITS: u32 = 72;

/// The tables of a product's residues modulo `m` by the CRT route over `primes` (distinct,
/// odd, below 2^62), for integers below P/2: `None` for m < 2, no primes, or more of them
/// than the reduction's quotient estimate covers (S must stay below 2^(bits(m) − 1 + 72)).
///
/// ```
/// use fermat_codegen::crt::modular_tables;
/// use num_bigint::BigUint;
///
/// let (p, q) = (2013265921u64, 469762049u64);
/// let t = modular_tables(&[p, q], &BigUint::from(1000u32)).unwrap();
/// // P/p = q and P/q = p modulo 1000, then −P mod 1000; S < 2 · (2^31 + 1) · 1000.
/// assert_eq!((t.bases.clone(), t.words, t.mwords), (vec![49, 921, 1000 - p * q % 1000], 1, 1));
/// // p's row: p, −p^−1 mod 2^64, q^−1·2^64 mod p, ⌊2^64/p⌋ and its shift 32.
/// assert_eq!((t.constants[0], t.constants[3], t.constants[4]), (p, u64::MAX / p, 32));
/// // t = 9, μ = ⌊2^81/1000⌋ in two words, two zeros, then m.
/// let mu = (BigUint::from(1u32) << 81u32) / 1000u32;
/// assert_eq!(t.reduce, [&[9][..], &mu.to_u64_digits(), &[0, 0, 1000]].concat());
/// assert!(modular_tables(&[p], &BigUint::from(1u32)).is_none());
/// ```
pub fn modular_tables(primes: &[u64], m: &num_bigint::BigUint) -> Option<ModularTables> {
    use num_bigint::BigUint;
    let s = primes.len();
    let largest = *primes.iter().max()?;
    if m < &BigUint::from(2u32) {
        return None;
    }
    let bound = m * (largest + 1) * s;
    let t = m.bits() - 1;
    if bound.bits() > t + u64::from(REDUCE_QUOTIENT_BITS) {
        return None;
    }
    let words = (bound.bits().div_ceil(64) as usize).max(1);
    let digits = |x: &BigUint, n: usize| {
        let mut out: Vec<u64> = x.iter_u64_digits().collect();
        out.resize(n, 0);
        out
    };
    let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
    let mut constants = Vec::with_capacity(s * EXPLICIT_HEAD as usize);
    let mut bases = Vec::with_capacity((s + 1) * words);
    for &p in primes {
        let cofactor = &product / p;
        let r = ((1u128 << 64) % u128::from(p)) as u64;
        let c = (&cofactor % p).iter_u64_digits().next().unwrap_or(0);
        let shift = if p < 1 << 32 { 32 } else { 0 };
        let g = ((1u128 << (96 - shift)) / u128::from(p)) as u64;
        constants.extend([
            p,
            neg_inverse(p),
            mul_mod(pow_mod(c, p - 2, p), r, p),
            g,
            shift,
        ]);
        bases.extend(digits(&(&cofactor % m), words));
    }
    bases.extend(digits(&((m - &product % m) % m), words));
    let mwords = (m.bits() + 2).div_ceil(64) as usize;
    let mu = (BigUint::from(1u32) << (t + u64::from(REDUCE_QUOTIENT_BITS))) / m;
    let mut reduce = vec![t];
    reduce.extend(digits(&mu, 2));
    reduce.extend([0, 0]);
    reduce.extend(digits(m, mwords));
    Some(ModularTables {
        constants,
        bases,
        words,
        reduce,
        mwords,
    })
}

/// The tables of [`CrtPass::ExplicitNarrow`](super::CrtPass::ExplicitNarrow) for residues
/// modulo an odd m over primes below 2^32, for integers below P/2.
///
/// ```
/// use fermat_codegen::crt::{narrow_tables, NARROW_HEAD};
/// use num_bigint::BigUint;
///
/// // m = 2^61 − 1: three digits of 26 bits, one word (2m < 2^64).
/// let m = BigUint::from((1u64 << 61) - 1);
/// let t = narrow_tables(&[2013265921, 2130706433], &m).unwrap();
/// assert_eq!((t.digits, t.mwords, t.constants.len()), (3, 1, 2 * NARROW_HEAD as usize));
/// // −m^−1 mod 2^26, three rows of three digits, m in digits, m in words.
/// assert_eq!(t.bases.len(), 1 + 3 * 3 + 3 + 1);
/// assert_eq!(t.bases[10..], [(1 << 26) - 1, (1 << 26) - 1, (1 << 9) - 1, (1 << 61) - 1]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NarrowTables {
    /// A row of [`NARROW_HEAD`] words per prime i: p_i, −p_i^−1 mod 2^32,
    /// (P/p_i)^−1·2^32 mod p_i and ⌊2^62/p_i⌋.
    pub constants: Vec<u64>,
    /// −m^−1 mod 2^26; s + 1 rows of `digits` digits of 26 bits: P/p_i·2^52 mod m for each
    /// prime, then −P·2^52 mod m; m in `digits` digits; m in `mwords` words.
    pub bases: Vec<u64>,
    /// Digits of 26 bits of m.
    pub digits: usize,
    /// 64-bit words of the results, enough for 2m.
    pub mwords: usize,
}

/// Whether [`CrtPass::ExplicitNarrow`](super::CrtPass::ExplicitNarrow) reduces modulo
/// `m`: m odd, at least 3, and of at most [`NARROW_DIGITS`] digits of 26 bits.
///
/// ```
/// use fermat_codegen::crt::narrow_reduces;
/// use num_bigint::BigUint;
///
/// assert!(narrow_reduces(&((BigUint::from(1u32) << 255u32) - 19u32)));
/// assert!(!narrow_reduces(&BigUint::from(1000u32))); // even
/// assert!(!narrow_reduces(&((BigUint::from(1u32) << 400u32) + 1u32))); // wide
/// ```
pub fn narrow_reduces(m: &num_bigint::BigUint) -> bool {
    m.bit(0) && m.bits() >= 2 && m.bits() <= DIGIT_BITS * NARROW_DIGITS
}

/// The tables of residues modulo `m` by [`CrtPass::ExplicitNarrow`] over `primes`
/// (distinct, odd): `None` for an even m or m < 3, m of more than [`NARROW_DIGITS`]
/// digits of 26 bits, no primes, a prime not between 2^30 and 2^31, or more than 127 of
/// them (a column of the sums would outgrow 64 bits).
///
/// [`CrtPass::ExplicitNarrow`]: super::CrtPass::ExplicitNarrow
///
/// ```
/// use fermat_codegen::crt::narrow_tables;
/// use num_bigint::BigUint;
///
/// let (p, q) = (2013265921u64, 2130706433u64); // 15·2^27 + 1 and 127·2^24 + 1
/// let t = narrow_tables(&[p, q], &BigUint::from(1001u32)).unwrap();
/// assert_eq!((t.digits, t.mwords), (1, 1));
/// assert_eq!(t.bases[0] * 1001 % (1 << 26), (1 << 26) - 1); // −m^−1 mod 2^26
/// assert_eq!(&t.bases[4..], &[1001, 1001]); // m as a digit, then as a word
/// assert!(narrow_tables(&[p, q], &BigUint::from(1000u32)).is_none()); // even m
/// assert!(narrow_tables(&[p, 469762049], &BigUint::from(1001u32)).is_none()); // below 2^30
/// ```
pub fn narrow_tables(primes: &[u64], m: &num_bigint::BigUint) -> Option<NarrowTables> {
    use num_bigint::BigUint;
    let s = primes.len();
    if s == 0 || s as u64 >= MAX_PRIMES || !narrow_reduces(m) {
        return None;
    }
    if primes.iter().any(|&p| !(1 << 30..1 << 31).contains(&p)) {
        return None;
    }
    let digits = m.bits().div_ceil(DIGIT_BITS) as usize;
    let mwords = (m.bits() + 2).div_ceil(64) as usize;
    let in_digits = |x: &BigUint| -> Vec<u64> {
        let mask = BigUint::from((1u64 << DIGIT_BITS) - 1);
        (0..digits as u64)
            .map(|d| {
                ((x >> (d * DIGIT_BITS)) & &mask)
                    .iter_u64_digits()
                    .next()
                    .unwrap_or(0)
            })
            .collect()
    };
    let radix = BigUint::from(1u32) << DIGIT_BITS;
    // −m^−1 mod 2^26, m odd: the units modulo 2^26 have exponent 2^24, so m^−1 = m^(2^24 − 1).
    let inverse = m.modpow(&((BigUint::from(1u32) << (DIGIT_BITS - 2)) - 1u32), &radix);
    let m_prime = (&radix - inverse) % &radix;
    let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
    let montgomery = BigUint::from(1u32) << (2 * DIGIT_BITS);
    let mut constants = Vec::with_capacity(s * NARROW_HEAD as usize);
    let mut bases = vec![m_prime.iter_u64_digits().next().unwrap_or(0)];
    for &p in primes {
        let cofactor = &product / p;
        let c = (&cofactor % p).iter_u64_digits().next().unwrap_or(0);
        let neg_inv = (neg_inverse(p) as u32) as u64;
        constants.extend([
            p,
            neg_inv,
            mul_mod(pow_mod(c, p - 2, p), (1 << 32) % p, p),
            (1 << 62) / p,
        ]);
        bases.extend(in_digits(&(&cofactor * &montgomery % m)));
    }
    bases.extend(in_digits(&((m - &product * &montgomery % m) % m)));
    bases.extend(in_digits(m));
    let mut words: Vec<u64> = m.iter_u64_digits().collect();
    words.resize(mwords, 0);
    bases.extend(words);
    Some(NarrowTables {
        constants,
        bases,
        digits,
        mwords,
    })
}
