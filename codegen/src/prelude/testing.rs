//! Helpers of the prelude's unit tests.

use fermat_dsl::field::{Sign, SrgfnParams};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// The SRGFN parameters r = 2^w ± 2^u with k digits.
pub(super) fn params(w: u32, u: u32, sign: Sign, k: u64) -> SrgfnParams {
    SrgfnParams { w, u, sign, k }
}

/// Integers of [-bound, bound] that stress a division: the ends, 0 and -1, multiples of
/// r and their neighbours, and seeded random values.
pub(super) fn division_inputs(bound: &BigInt, r: &BigInt, rng: &mut impl rand::Rng) -> Vec<BigInt> {
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
