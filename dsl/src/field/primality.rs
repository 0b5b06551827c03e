//! Primality tests: deterministic Miller–Rabin for machine words, probabilistic
//! Miller–Rabin with reproducible bases for big integers (SRGFN candidates).
//!
//! Both start with trial division by the primes below [`TRIAL_LIMIT`]: most composites
//! have a small factor, and a remainder is far cheaper than a modular exponentiation.

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, ToPrimitive};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Miller–Rabin rounds used to accept an SRGFN as prime.
///
/// A composite passes one round with a random base with probability at most 1/4
/// (Rabin's bound), so it passes all rounds with probability at most 4^−24 = 2^−48.
///
/// ```
/// use fermat_dsl::field::primality::{is_probable_prime, SRGFN_MR_ROUNDS};
/// use fermat_dsl::field::CATALOGUE_SRGFNS;
///
/// let p1 = CATALOGUE_SRGFNS[0].1.modulus()?;
/// assert!(is_probable_prime(&p1, SRGFN_MR_ROUNDS));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub const SRGFN_MR_ROUNDS: u32 = 24;

/// Trial division uses every prime below this bound.
///
/// ```
/// use fermat_dsl::field::primality::{miller_rabin_witness_u64, TRIAL_LIMIT};
///
/// let n = 4093 * 4099; // 4093 < TRIAL_LIMIT: found by trial division
/// assert_eq!(miller_rabin_witness_u64(n), Some(4093));
/// assert!(4093 < TRIAL_LIMIT && 4099 > TRIAL_LIMIT);
/// ```
pub const TRIAL_LIMIT: u32 = 4096;

/// The number of primes below [`TRIAL_LIMIT`].
const SMALL_PRIME_COUNT: usize = 564;

/// The primes below [`TRIAL_LIMIT`], ascending (sieve of Eratosthenes at compile time).
///
/// ```
/// use fermat_dsl::field::primality::{is_prime_u64, SMALL_PRIMES};
///
/// assert_eq!(SMALL_PRIMES[..5], [2, 3, 5, 7, 11]);
/// assert_eq!(SMALL_PRIMES.len(), (2..4096u64).filter(|&n| is_prime_u64(n)).count());
/// ```
pub const SMALL_PRIMES: [u32; SMALL_PRIME_COUNT] = small_primes();

const fn small_primes() -> [u32; SMALL_PRIME_COUNT] {
    let limit = TRIAL_LIMIT as usize;
    let mut composite = [false; TRIAL_LIMIT as usize];
    let mut out = [0u32; SMALL_PRIME_COUNT];
    let mut count = 0;
    let mut i = 2;
    while i < limit {
        if !composite[i] {
            out[count] = i as u32;
            count += 1;
            let mut j = i * i;
            while j < limit {
                composite[j] = true;
                j += i;
            }
        }
        i += 1;
    }
    // A wrong count fails compilation rather than leaving zeros in the table.
    assert!(count == SMALL_PRIME_COUNT);
    out
}

/// The odd small primes grouped so that each group's product fits a u64: a big integer is
/// reduced once per group (one pass over its digits), then by each prime of the group in
/// machine arithmetic. Each entry is (product, index of the group's first prime, count).
const GROUP_COUNT: usize = count_groups();

const fn count_groups() -> usize {
    let mut groups = 0;
    let mut i = 1;
    while i < SMALL_PRIME_COUNT {
        let mut prod = 1u64;
        while i < SMALL_PRIME_COUNT {
            match prod.checked_mul(SMALL_PRIMES[i] as u64) {
                Some(next) => prod = next,
                None => break,
            }
            i += 1;
        }
        groups += 1;
    }
    groups
}

const PRIME_GROUPS: [(u64, usize, usize); GROUP_COUNT] = prime_groups();

const fn prime_groups() -> [(u64, usize, usize); GROUP_COUNT] {
    let mut out = [(0u64, 0usize, 0usize); GROUP_COUNT];
    let mut g = 0;
    let mut i = 1;
    while i < SMALL_PRIME_COUNT {
        let start = i;
        let mut prod = 1u64;
        while i < SMALL_PRIME_COUNT {
            match prod.checked_mul(SMALL_PRIMES[i] as u64) {
                Some(next) => prod = next,
                None => break,
            }
            i += 1;
        }
        out[g] = (prod, start, i - start);
        g += 1;
    }
    out
}

/// The Miller–Rabin bases that decide primality for every n < 2^64 (the first twelve
/// primes; Sorenson and Webster 2015 show they suffice below 3.3·10^24).
const U64_BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];

/// Decides whether `n` is prime, exactly, for every u64.
///
/// Trial division by small primes, then strong-probable-prime tests to the bases of
/// the first twelve primes (2, 3, …, 37), which no composite below 2^64 passes.
///
/// ```
/// use fermat_dsl::field::primality::is_prime_u64;
///
/// assert!(is_prime_u64(0xffff_ffff_0000_0001)); // goldilocks
/// assert!(!is_prime_u64(3_215_031_751)); // a strong pseudoprime to bases 2, 3, 5 and 7
/// assert!(!is_prime_u64(1) && is_prime_u64(2));
/// ```
pub fn is_prime_u64(n: u64) -> bool {
    miller_rabin_witness_u64(n).is_none()
}

/// A proof that `n` is not prime, or `None` if `n` is prime.
///
/// The witness is either a prime factor of `n` below [`TRIAL_LIMIT`] (found by trial
/// division; such a factor is also a Miller–Rabin witness, as it shares a factor with `n`)
/// or a Miller–Rabin base `a` for which `n` is not a strong probable prime. For `n < 2`,
/// which is neither prime nor composite, the witness is `n` itself.
///
/// ```
/// use fermat_dsl::field::primality::miller_rabin_witness_u64;
///
/// assert_eq!(miller_rabin_witness_u64(561), Some(3)); // Carmichael: a small factor
/// assert_eq!(miller_rabin_witness_u64(2013265921), None); // babybear
/// assert_eq!(miller_rabin_witness_u64(1), Some(1));
/// ```
pub fn miller_rabin_witness_u64(n: u64) -> Option<u64> {
    if n < 2 {
        return Some(n);
    }
    for &q in SMALL_PRIMES.iter() {
        let q = u64::from(q);
        if q * q > n {
            return None;
        }
        if n.is_multiple_of(q) {
            return Some(q);
        }
    }
    // Here n > TRIAL_LIMIT^2 > 37, so every base is a unit below n.
    let (d, s) = odd_part(n - 1);
    U64_BASES
        .iter()
        .copied()
        .find(|&a| !strong_probable_prime_u64(n, a, d, s))
}

/// n − 1 = d · 2^s with d odd.
fn odd_part(m: u64) -> (u64, u32) {
    let s = m.trailing_zeros();
    (m >> s, s)
}

/// a·b mod n, through 128 bits.
///
/// ```
/// use fermat_dsl::field::primality::mul_mod;
/// assert_eq!(mul_mod(u64::MAX, u64::MAX, 1_000_000_007), 114_944_269);
/// ```
#[inline]
pub fn mul_mod(a: u64, b: u64, n: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(n)) as u64
}

/// a^e mod n, by squaring (1 % n for e = 0, so 0 modulo 1).
///
/// ```
/// use fermat_dsl::field::primality::pow_mod;
/// assert_eq!(pow_mod(3, 16, 17), 1); // Fermat
/// assert_eq!(pow_mod(5, 0, 1), 0);
/// ```
pub fn pow_mod(mut a: u64, mut e: u64, n: u64) -> u64 {
    let mut acc = 1 % n;
    while e > 0 {
        if e & 1 == 1 {
            acc = mul_mod(acc, a, n);
        }
        a = mul_mod(a, a, n);
        e >>= 1;
    }
    acc
}

/// The strong probable-prime test to base `a` (Miller–Rabin), with n − 1 = d · 2^s.
fn strong_probable_prime_u64(n: u64, a: u64, d: u64, s: u32) -> bool {
    let mut x = pow_mod(a, d, n);
    if x == 1 || x == n - 1 {
        return true;
    }
    for _ in 1..s {
        x = mul_mod(x, x, n);
        if x == n - 1 {
            return true;
        }
    }
    false
}

/// The smallest prime below [`TRIAL_LIMIT`] dividing `n`, if any (excluding `n` itself).
fn small_factor(n: &BigUint) -> Option<u32> {
    let digits = n.to_u64_digits();
    let low = digits.first().copied().unwrap_or(0);
    if low & 1 == 0 {
        return (n != &BigUint::from(2u32)).then_some(2);
    }
    for &(prod, start, len) in PRIME_GROUPS.iter() {
        // Horner's rule on the base-2^64 digits, reduced mod the group's product.
        let m = u128::from(prod);
        let r = digits
            .iter()
            .rev()
            .fold(0u128, |r, &d| ((r << 64) | u128::from(d)) % m) as u64;
        for &q in &SMALL_PRIMES[start..start + len] {
            if r.is_multiple_of(u64::from(q)) && n != &BigUint::from(q) {
                return Some(q);
            }
        }
    }
    None
}

/// A reproducible seed from all of `n`'s digits, so that the same candidate always meets
/// the same bases (results can be re-checked) while different candidates meet different
/// ones.
fn seed_of(n: &BigUint) -> u64 {
    n.iter_u64_digits().fold(0x9E37_79B9_7F4A_7C15, |h, d| {
        (h ^ d).wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(31)
    })
}

/// The strong probable-prime test to base `a` for a big odd `n`, with n − 1 = d · 2^s.
fn strong_probable_prime(
    n: &BigUint,
    n_minus_1: &BigUint,
    a: &BigUint,
    d: &BigUint,
    s: u64,
) -> bool {
    let mut x = a.modpow(d, n);
    if x.is_one() || &x == n_minus_1 {
        return true;
    }
    for _ in 1..s {
        x = &x * &x % n;
        if &x == n_minus_1 {
            return true;
        }
        if x.is_one() {
            // 1 reached without passing through −1: a non-trivial square root of 1.
            return false;
        }
    }
    false
}

/// Probabilistic primality test for big integers (SRGFN candidates of hundreds or
/// thousands of bits).
///
/// `Ok(())` if `n` has no prime factor below [`TRIAL_LIMIT`] and passes `rounds`
/// Miller–Rabin rounds; a composite passes with probability at most 4^−rounds. The bases
/// are drawn from a ChaCha8 generator seeded from `n`, so the answer for a given `n` is
/// reproducible. Numbers below 2^64 are decided exactly by [`miller_rabin_witness_u64`],
/// whatever `rounds` is.
///
/// `Err(Some(a))` names a base `a` proving `n` composite; `Err(None)` means `n < 2`, `n`
/// even (and not 2) or `n` with a small prime factor.
///
/// ```
/// use fermat_dsl::field::primality::probable_prime;
/// use num_bigint::BigUint;
///
/// let m127 = (BigUint::from(1u32) << 127u32) - 1u32; // a Mersenne prime
/// assert_eq!(probable_prime(&m127, 16), Ok(()));
/// // F7 = 2^128 + 1 = 59649589127497217 · 5704689200685129054721: no small factor,
/// // so a Miller–Rabin base proves it composite.
/// let f7 = (BigUint::from(1u32) << 128u32) + 1u32;
/// assert!(matches!(probable_prime(&f7, 16), Err(Some(_))));
/// assert_eq!(probable_prime(&(&m127 * 3u32), 16), Err(None)); // a small factor
/// ```
pub fn probable_prime(n: &BigUint, rounds: u32) -> Result<(), Option<BigUint>> {
    if let Some(small) = n.to_u64() {
        return match miller_rabin_witness_u64(small) {
            None => Ok(()),
            // n < 2, or a small factor (a base would never divide n: trial division came first).
            Some(w) if w < 2 || small % w == 0 => Err(None),
            Some(w) => Err(Some(BigUint::from(w))),
        };
    }
    if small_factor(n).is_some() {
        return Err(None);
    }
    let n_minus_1 = n - 1u32;
    let s = n_minus_1.trailing_zeros().unwrap_or(0);
    let d = &n_minus_1 >> s;
    let two = BigUint::from(2u32);
    let mut rng = ChaCha8Rng::seed_from_u64(seed_of(n));
    for _ in 0..rounds {
        let a = rng.gen_biguint_range(&two, &n_minus_1);
        if !strong_probable_prime(n, &n_minus_1, &a, &d, s) {
            return Err(Some(a));
        }
    }
    Ok(())
}

/// Whether `n` passes [`probable_prime`] with `rounds` Miller–Rabin rounds (see
/// [`SRGFN_MR_ROUNDS`] for an example).
pub fn is_probable_prime(n: &BigUint, rounds: u32) -> bool {
    probable_prime(n, rounds).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::Zero;

    fn big(text: &str) -> BigUint {
        text.parse().unwrap()
    }

    fn pow2(e: u32) -> BigUint {
        BigUint::one() << e
    }

    /// Primes below `limit` by a plain sieve, the oracle for small n.
    fn sieve(limit: usize) -> Vec<bool> {
        let mut prime = vec![true; limit];
        prime[0] = false;
        prime[1] = false;
        let mut i = 2;
        while i * i < limit {
            if prime[i] {
                for j in (i * i..limit).step_by(i) {
                    prime[j] = false;
                }
            }
            i += 1;
        }
        prime
    }

    #[test]
    fn small_prime_table_is_the_primes_below_the_limit() {
        let oracle = sieve(TRIAL_LIMIT as usize);
        let expected: Vec<u32> = (0..TRIAL_LIMIT).filter(|&i| oracle[i as usize]).collect();
        assert_eq!(SMALL_PRIMES.to_vec(), expected);
        let grouped: usize = PRIME_GROUPS.iter().map(|g| g.2).sum();
        assert_eq!(
            grouped,
            SMALL_PRIME_COUNT - 1,
            "every odd small prime is in one group"
        );
        for &(prod, start, len) in PRIME_GROUPS.iter() {
            let p: u128 = SMALL_PRIMES[start..start + len]
                .iter()
                .map(|&q| u128::from(q))
                .product();
            assert_eq!(u128::from(prod), p);
        }
    }

    #[test]
    fn agrees_with_a_sieve_below_two_hundred_thousand() {
        let oracle = sieve(200_000);
        for (n, &expected) in oracle.iter().enumerate() {
            assert_eq!(is_prime_u64(n as u64), expected, "n = {n}");
            let big_n = BigUint::from(n);
            assert_eq!(is_probable_prime(&big_n, 2), expected, "n = {n} (BigUint)");
        }
    }

    #[test]
    fn refuses_carmichael_numbers() {
        let carmichael = [
            561u64,
            1105,
            1729,
            2465,
            2821,
            6601,
            8911,
            41041,
            825_265,
            321_197_185,
            // Carmichael and a strong pseudoprime to the first nine prime bases.
            3_825_123_056_546_413_051,
        ];
        for n in carmichael {
            assert!(!is_prime_u64(n), "{n}");
            assert!(miller_rabin_witness_u64(n).is_some(), "{n}");
        }
    }

    #[test]
    fn refuses_strong_pseudoprimes_to_the_small_bases() {
        // (n, number of leading prime bases n fools).
        let cases = [
            (2047u64, 1),
            (1_373_653, 2),
            (25_326_001, 3),
            (3_215_031_751, 4),
            (2_152_302_898_747, 5),
            (3_474_749_660_383, 6),
            (341_550_071_728_321, 8),
            (3_825_123_056_546_413_051, 9),
        ];
        for (n, fooled) in cases {
            let (d, s) = odd_part(n - 1);
            for &a in &U64_BASES[..fooled] {
                assert!(
                    strong_probable_prime_u64(n, a, d, s),
                    "{n} should be a strong pseudoprime to base {a}"
                );
            }
            let w = miller_rabin_witness_u64(n).expect("composite");
            assert!(!strong_probable_prime_u64(n, w, d, s) || n % w == 0);
            assert!(!U64_BASES[..fooled].contains(&w), "{n}: witness {w}");
        }
        // Strong pseudoprime to all bases up to 37; above 2^64, so tested with random bases.
        let n = big("318665857834031151167461");
        assert!(probable_prime(&n, 8).unwrap_err().is_some());
    }

    #[test]
    fn refuses_squares_and_products_of_primes() {
        let primes = [4_294_967_291u64, 4_294_967_279, 65_521, 4099, 4093];
        for &a in &primes {
            for &b in &primes {
                if let Some(n) = a.checked_mul(b) {
                    assert!(!is_prime_u64(n), "{a}·{b}");
                }
                let n = BigUint::from(a) * b * 18_446_744_073_709_551_557u64;
                assert!(!is_probable_prime(&n, 4), "{a}·{b}·(2^64−59)");
            }
        }
        assert_eq!(miller_rabin_witness_u64(4093 * 4093), Some(4093));
        assert!(!is_probable_prime(&(pow2(61) - 1u32).pow(2), 4));
    }

    #[test]
    fn accepts_word_primes_and_refuses_their_neighbours() {
        let primes = [
            2u64,
            3,
            65_537,
            469_762_049,
            2_013_265_921,
            2_147_483_647,
            4_179_340_454_199_820_289,
            0xFFFF_FFFF_0000_0001,
            (1 << 61) - 1,
            u64::MAX - 58,
        ];
        for p in primes {
            assert!(is_prime_u64(p), "{p}");
            assert_eq!(miller_rabin_witness_u64(p), None);
            assert_eq!(probable_prime(&BigUint::from(p), 0), Ok(()));
        }
        assert_eq!(
            miller_rabin_witness_u64(4_179_340_454_199_820_287),
            Some(3),
            "a catalogue prime minus two has the factor 3"
        );
        for n in [u64::MAX, u64::MAX - 2, u64::MAX - 60, 0xFFFF_FFFF_0000_0003] {
            assert!(!is_prime_u64(n), "{n}");
        }
        assert_eq!(miller_rabin_witness_u64(0), Some(0));
        assert_eq!(miller_rabin_witness_u64(1), Some(1));
        assert_eq!(miller_rabin_witness_u64(1 << 40), Some(2));
    }

    #[test]
    fn big_witnesses_are_real() {
        // 2^67 − 1 = 193707721 · 761838257287 and F7 = 2^128 + 1 have no small factor.
        for n in [pow2(67) - 1u32, pow2(128) + 1u32] {
            let w = probable_prime(&n, 4)
                .unwrap_err()
                .expect("a Miller–Rabin base");
            let n1 = &n - 1u32;
            let s = n1.trailing_zeros().unwrap();
            assert!(!strong_probable_prime(&n, &n1, &w, &(&n1 >> s), s));
            assert_eq!(probable_prime(&n, 4), Err(Some(w)), "reproducible");
        }
        // F5 = 641 · 6700417 fits a u64; the exact test names the base.
        let f5 = BigUint::from(4_294_967_297u64);
        assert!(probable_prime(&f5, 4).is_err());
        let m127 = pow2(127) - 1u32;
        for q in [3u32, 5, 7, 1021, 4091, 4093] {
            assert_eq!(
                probable_prime(&(&m127 * q), 4),
                Err(None),
                "(2^127 − 1) · {q}"
            );
        }
        assert_eq!(probable_prime(&pow2(300), 4), Err(None));
        assert_eq!(probable_prime(&BigUint::zero(), 4), Err(None));
        assert_eq!(probable_prime(&BigUint::one(), 4), Err(None));
    }

    #[test]
    fn accepts_mersenne_fermat_and_catalogue_primes() {
        for e in [61, 89, 107, 127, 521] {
            assert!(
                is_probable_prime(&(pow2(e) - 1u32), SRGFN_MR_ROUNDS),
                "2^{e} − 1"
            );
        }
        for e in [67, 101, 257] {
            assert!(
                !is_probable_prime(&(pow2(e) - 1u32), SRGFN_MR_ROUNDS),
                "2^{e} − 1"
            );
        }
        assert!(is_probable_prime(&BigUint::from(65_537u32), 1), "F4");
        // P1 = (2^63 + 2^53)^2 + 1, P2 = (2^64 − 2^50)^4 + 1, P3 = (2^63 + 2^34)^8 + 1.
        let p1 = (pow2(63) + pow2(53)).pow(2) + 1u32;
        let p2 = (pow2(64) - pow2(50)).pow(4) + 1u32;
        let p3 = (pow2(63) + pow2(34)).pow(8) + 1u32;
        for (name, p) in [("P1", &p1), ("P2", &p2), ("P3", &p3)] {
            assert_eq!(probable_prime(p, SRGFN_MR_ROUNDS), Ok(()), "{name}");
            let near = p + 2u32;
            assert!(!is_probable_prime(&near, SRGFN_MR_ROUNDS), "{name} + 2");
            let near = p - 2u32;
            assert!(!is_probable_prime(&near, SRGFN_MR_ROUNDS), "{name} − 2");
        }
        // A neighbouring SRGFN shape that is composite: (2^63 + 2^53)^2 − 1 factors.
        assert!(!is_probable_prime(
            &((pow2(63) + pow2(53)).pow(2) - 1u32),
            4
        ));
    }
}
