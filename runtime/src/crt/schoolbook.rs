//! Short products of huge coefficients without the route: the sums of products of big
//! integers. The route's recombination costs about s²/2 word products a coefficient for
//! s primes, and s grows with the coefficients' bits, so that three coefficients of
//! 10^6 bits by three took 12 s on the host (32,787 primes) where their nine products
//! of big integers take 57 ms. [`schoolbook_is_cheaper`] weighs the two.

use num_bigint::{BigInt, BigUint};
use rayon::prelude::*;

/// What a product of big integers costs beyond its word products, in word products: its
/// allocation and the sum it joins, which dominate at one or two words (so that products
/// of 64-bit coefficients keep the route from a few coefficients on).
const BIG_PRODUCT_OVERHEAD: f64 = 50.0;

/// Whether the la·lb products of big integers cost fewer word products than the route on
/// the host by s = `primes` primes for operands of `len_a` and `len_b` coefficients of at
/// most `bits` bits. The schoolbook's products of w-word integers cost w² word products up
/// to 32 words and √32·w^1.5 above (num-bigint's Karatsuba and Toom-3, continuous at 32),
/// and [`BIG_PRODUCT_OVERHEAD`] more each; the route's, per coefficient of the product,
/// Garner's s²/2, per operand coefficient the projection's s·w, and s transforms of the
/// product's N points at 3·N·log2 N each.
pub(super) fn schoolbook_is_cheaper(
    (len_a, len_b): (usize, usize),
    bits: u64,
    primes: u64,
) -> bool {
    if len_a == 0 || len_b == 0 {
        return false;
    }
    let (la, lb) = (len_a as f64, len_b as f64);
    let words = (bits as f64 / 64.0).ceil().max(1.0);
    let product = |w: f64| match w <= 32.0 {
        true => w * w,
        false => 32f64.sqrt() * w.powf(1.5),
    };
    let schoolbook = la * lb * (product(words) + BIG_PRODUCT_OVERHEAD);
    let s = primes as f64;
    let len = la + lb - 1.0;
    let points = len.max(2.0).log2().ceil().exp2();
    let route = len * s * s / 2.0 + (la + lb) * s * words + s * 3.0 * points * points.log2();
    schoolbook < route
}

/// The product a·b of polynomials over Z by sums of products of big integers, len a +
/// len b − 1 coefficients (none for an empty operand), the coefficients of the product
/// in parallel.
pub(super) fn schoolbook_integers(a: &[BigInt], b: &[BigInt]) -> Vec<BigInt> {
    schoolbook(a, b, |sum| sum)
}

/// The product a·b mod m of polynomials over Z/mZ by sums of products of big integers,
/// each coefficient reduced once.
pub(super) fn schoolbook_modular(a: &[BigUint], b: &[BigUint], m: &BigUint) -> Vec<BigUint> {
    schoolbook(a, b, |sum| sum % m)
}

/// Coefficient k of a·b is Σ_(i + j = k) a_i·b_j, finished by `finish`.
fn schoolbook<T, F>(a: &[T], b: &[T], finish: F) -> Vec<T>
where
    T: Default + Send + Sync + for<'x> std::ops::AddAssign<&'x T>,
    for<'x> &'x T: std::ops::Mul<&'x T, Output = T>,
    F: Fn(T) -> T + Sync,
{
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    (0..a.len() + b.len() - 1)
        .into_par_iter()
        .map(|k| {
            let low = k.saturating_sub(b.len() - 1);
            let high = k.min(a.len() - 1);
            let mut sum = T::default();
            for i in low..=high {
                sum += &(&a[i] * &b[k - i]);
            }
            finish(sum)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schoolbook_products_are_the_sums_of_products() {
        let a: Vec<BigInt> = [3, -1, 4].map(BigInt::from).to_vec();
        let b: Vec<BigInt> = [2, 7].map(BigInt::from).to_vec();
        // (3 − x + 4x²)(2 + 7x) = 6 + 19x + x² + 28x³
        let want: Vec<BigInt> = [6, 19, 1, 28].map(BigInt::from).to_vec();
        assert_eq!(schoolbook_integers(&a, &b), want);
        assert_eq!(schoolbook_integers(&b, &a), want);
        assert!(schoolbook_integers(&a, &[]).is_empty());
        let m = BigUint::from(5u32);
        let (ua, ub) = (
            [3u32, 4, 4].map(BigUint::from),
            [2u32, 2].map(BigUint::from),
        );
        // (3 + 4x + 4x²)(2 + 2x) = 6 + 14x + 16x² + 8x³ ≡ 1 + 4x + x² + 3x³ (mod 5)
        let want: Vec<BigUint> = [1u32, 4, 1, 3].map(BigUint::from).to_vec();
        assert_eq!(schoolbook_modular(&ua, &ub, &m), want);
    }

    #[test]
    fn the_schoolbook_takes_short_products_of_huge_coefficients_only() {
        let ring = crate::crt::IntPolyRing::new(crate::Backend::Cpu).unwrap();
        let cheaper = |la: usize, lb: usize, bits: u64| ring.takes_schoolbook(la, lb, bits, bits);
        assert!(cheaper(3, 3, 1_000_000));
        assert!(cheaper(3, 3, 100_000_000));
        assert!(cheaper(1, 100, 100_000));
        assert!(cheaper(4, 4, 4000));
        assert!(!cheaper(1000, 1000, 1000));
        assert!(!cheaper(1 << 16, 1 << 16, 1000));
        assert!(!cheaper(1 << 20, 1 << 20, 64));
        assert!(!cheaper(100, 100, 64));
        assert!(!schoolbook_is_cheaper((0, 3), 1_000_000, 40_000));
        // The estimate of s, bits/61, is the plan's within one prime.
        let plan = ring.plan(3, 3, 100_000, 100_000).unwrap();
        let estimate = plan.bits.div_ceil(61) as i64;
        assert!((plan.primes.len() as i64 - estimate).abs() <= 1, "{plan}");
    }
}
