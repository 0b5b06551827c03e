//! Sets of NTT primes for the multi-modular (CRT) route: primes p = c·2^t + 1 of one word
//! width, as large as the width allows, with 2^t at least the product's transform length.

use super::montgomery::Mont;
use crate::Error;
use fermat_dsl::field::primality::is_prime_u64;
use num_bigint::BigUint;
use num_traits::One;

/// The width of the primes of a CRT route: what the residues' arithmetic runs on.
///
/// The CPU multiplies 64-bit words natively, so 62-bit primes carry the most bits per
/// multiplication there; the GPU's native product is 32-bit, so 31-bit primes suit it.
///
/// ```
/// use fermat::crt::Width;
/// assert_eq!(Width::Bits62.bits(), 62);
/// assert_eq!(Width::Bits31.bits(), 31);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// Primes below 2^31, for 32-bit Montgomery arithmetic.
    Bits31,
    /// Primes below 2^62, for 64-bit Montgomery arithmetic.
    Bits62,
}

impl Width {
    /// The primes are below 2^bits ([`Width`] has an example).
    pub fn bits(self) -> u32 {
        match self {
            Width::Bits31 => 31,
            Width::Bits62 => 62,
        }
    }
}

/// A set of NTT primes p_1 > p_2 > … > p_s, each ≡ 1 (mod 2^t), and the constants of
/// Garner's mixed-radix recombination (Knuth, TAOCP vol. 2, §4.3.2): the inverses
/// (p_1⋯p_(i−1))^−1 mod p_i and the products p_1⋯p_(j−1) mod p_i.
///
/// ```
/// use fermat::crt::{PrimeSet, Width};
///
/// // Enough 62-bit primes for a product of 2^16 coefficients whose values stay below 2^300.
/// let set = PrimeSet::for_bits(Width::Bits62, 17, 301)?;
/// assert!(set.len() >= 5);
/// assert!(set.product().bits() > 301);
/// assert!(set.primes().iter().all(|p| (p - 1) % (1 << 17) == 0));
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimeSet {
    width: Width,
    adicity: u32,
    primes: Vec<u64>,
    product: BigUint,
    /// mont[i]: the Montgomery arithmetic of p_i.
    mont: Vec<Mont>,
    /// inverse[i] = (p_1⋯p_(i−1))^−1 mod p_i, in p_i's Montgomery form.
    inverse: Vec<u64>,
    /// partial[i][j] = p_1⋯p_(j−1)·R^2 mod p_i for j < i: the weights of a dot product that
    /// [`Mont::redc2`] reduces.
    partial: Vec<Vec<u64>>,
}

impl PrimeSet {
    /// The fewest primes of `width` with 2^`adicity` | p − 1 whose product exceeds
    /// 2^`bits`: the largest such primes, in decreasing order.
    ///
    /// Errors: [`Error::CrtPrimes`] when fewer such primes exist than the bound needs
    /// (the word's range holds only so many multiples of 2^adicity).
    ///
    /// ```
    /// use fermat::crt::{PrimeSet, Width};
    /// use fermat::num_bigint::BigUint;
    /// use fermat::Error;
    ///
    /// // Each 31-bit prime adds at least 30 bits: three for a product above 2^60.
    /// let set = PrimeSet::for_bits(Width::Bits31, 24, 60)?;
    /// assert_eq!(set.primes(), [2130706433, 2113929217, 2013265921]);
    /// assert_eq!((set.width(), set.adicity()), (Width::Bits31, 24));
    /// assert_eq!((set.len(), set.is_empty()), (3, false));
    /// let product = BigUint::from(2130706433u64) * 2113929217u64 * 2013265921u64;
    /// assert_eq!(set.product(), &product);
    /// // Below 2^31, too few primes are ≡ 1 mod 2^27 for 10,000 bits.
    /// let err = PrimeSet::for_bits(Width::Bits31, 27, 10_000).unwrap_err();
    /// assert!(matches!(err, Error::CrtPrimes { .. }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn for_bits(width: Width, adicity: u32, bits: u64) -> Result<PrimeSet, Error> {
        let exhausted = |found: usize| Error::CrtPrimes {
            width: width.bits(),
            adicity,
            bits,
            found,
        };
        if adicity + 1 >= width.bits() {
            return Err(exhausted(0));
        }
        let mut primes = Vec::new();
        let mut have = 0u64;
        let top = ((1u64 << width.bits()) - 1) >> adicity;
        for c in (1..=top).rev() {
            if have > bits {
                break;
            }
            let p = (c << adicity) + 1;
            if is_prime_u64(p) {
                primes.push(p);
                // ⌊log2 p⌋ undercounts the bits a prime adds, so the bound is safe.
                have += u64::from(63 - p.leading_zeros());
            }
        }
        if have <= bits {
            return Err(exhausted(primes.len()));
        }
        Ok(PrimeSet::new(width, adicity, primes))
    }

    /// The set of the given primes (odd, distinct, below 2^62, each ≡ 1 mod 2^adicity).
    fn new(width: Width, adicity: u32, primes: Vec<u64>) -> PrimeSet {
        let mont: Vec<Mont> = primes.iter().map(|&p| Mont::new(p)).collect();
        let mut inverse = Vec::with_capacity(primes.len());
        let mut partial = Vec::with_capacity(primes.len());
        for (i, m) in mont.iter().enumerate() {
            let mut row = Vec::with_capacity(i);
            let mut prod = m.one();
            for &p in &primes[..i] {
                row.push(m.scaled(prod));
                prod = m.mul(prod, m.scaled(p % m.p()));
            }
            inverse.push(m.inv(prod));
            partial.push(row);
        }
        let product = primes
            .iter()
            .fold(BigUint::one(), |acc, &p| acc * BigUint::from(p));
        PrimeSet {
            width,
            adicity,
            primes,
            product,
            mont,
            inverse,
            partial,
        }
    }

    /// The primes' width ([`for_bits`](Self::for_bits) has an example).
    pub fn width(&self) -> Width {
        self.width
    }

    /// Every prime is ≡ 1 modulo 2^adicity: transforms of up to 2^adicity points
    /// ([`for_bits`](Self::for_bits) has an example).
    pub fn adicity(&self) -> u32 {
        self.adicity
    }

    /// The primes, largest first ([`for_bits`](Self::for_bits) has an example).
    pub fn primes(&self) -> &[u64] {
        &self.primes
    }

    /// How many primes ([`for_bits`](Self::for_bits) has an example).
    pub fn len(&self) -> usize {
        self.primes.len()
    }

    /// Whether the set is empty: never, for a set built by [`for_bits`](Self::for_bits)
    /// (which has an example).
    pub fn is_empty(&self) -> bool {
        self.primes.is_empty()
    }

    /// P = p_1⋯p_s: residues determine integers in [0, P), or in (−P/2, P/2) signed
    /// ([`for_bits`](Self::for_bits) has an example).
    pub fn product(&self) -> &BigUint {
        &self.product
    }

    pub(crate) fn mont(&self, i: usize) -> &Mont {
        &self.mont[i]
    }

    pub(crate) fn inverse(&self, i: usize) -> u64 {
        self.inverse[i]
    }

    pub(crate) fn partial(&self, i: usize) -> &[u64] {
        &self.partial[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_are_the_largest_of_their_form() {
        let set = PrimeSet::for_bits(Width::Bits31, 24, 100).unwrap();
        // The NTT primes below 2^31 with 2^24 | p − 1, largest first.
        assert_eq!(&set.primes()[..3], &[2130706433, 2113929217, 2013265921]);
        assert!(set.product().bits() > 100);
    }

    #[test]
    fn exhausted_forms_are_typed_errors() {
        let e = PrimeSet::for_bits(Width::Bits31, 27, 10_000).unwrap_err();
        assert!(
            matches!(e, Error::CrtPrimes { found, .. } if found < 10),
            "{e}"
        );
        assert!(e.to_string().contains("2^27"), "{e}");
        assert!(PrimeSet::for_bits(Width::Bits31, 30, 10).is_err());
    }
}
