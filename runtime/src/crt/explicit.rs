//! The explicit CRT on the host: the residues of a product modulo m straight from its
//! residues modulo the primes, without the integers — what [`CrtPass::Explicit`] computes
//! on the device, from the same tables ([`modular_tables`]).
//!
//! With P = p_1⋯p_s, P_i = P/p_i and y_i = x_i·P_i^−1 mod p_i, an integer x in [0, P/2)
//! is Σ y_i·P_i − k·P with k = ⌊Σ y_i/p_i⌋ (Montgomery and Silverman 1990; Bernstein
//! 1995), so x ≡ S = Σ y_i·(P_i mod m) + k·(−P mod m) (mod m): s + 1 products of a word
//! by m's words a coefficient, where Garner's digits cost s²/2 modular products and the
//! integer's reduction modulo m a long division of s words by m's.
//!
//! [`CrtPass::Explicit`]: fermat_codegen::crt::CrtPass::Explicit
//! [`modular_tables`]: fermat_codegen::crt::modular_tables

use super::residues::biguint_of_words;
use fermat_codegen::crt::{ModularTables, EXPLICIT_HEAD};
use num_bigint::BigUint;
use rayon::prelude::*;

/// The residues modulo m of the integers whose residues modulo the tables' primes are
/// `residues` (one vector per prime, canonical), each below P/2: one per coefficient.
pub(super) fn explicit_mod(
    tables: &ModularTables,
    residues: &[Vec<u64>],
    m: &BigUint,
) -> Vec<BigUint> {
    let s = residues.len();
    let head = EXPLICIT_HEAD as usize;
    debug_assert_eq!(tables.constants.len(), s * head);
    let n = residues.first().map_or(0, Vec::len);
    let words = tables.words;
    let base = |i: usize| &tables.bases[i * words..(i + 1) * words];
    (0..n)
        .into_par_iter()
        .map_init(
            || vec![0u64; words + 1],
            |sum, j| {
                sum.fill(0);
                // 2^32 times the sum of the y_i/p_i, each term below the true value by
                // less than 2, so that k comes out exact with 2^30 added (x < P/2).
                let mut fraction = 0u64;
                for (i, row) in tables.constants.chunks_exact(head).enumerate() {
                    let [p, neg_inv, cofactor_inv, g, shift] = row else {
                        unreachable!("rows of EXPLICIT_HEAD words")
                    };
                    let y = redc(
                        u128::from(residues[i][j]) * u128::from(*cofactor_inv),
                        *p,
                        *neg_inv,
                    );
                    fraction += ((u128::from(y << shift) * u128::from(*g)) >> 64) as u64;
                    mul_add(sum, y, base(i));
                }
                let k = (fraction + (1 << 30)) >> 32;
                mul_add(sum, k, base(s));
                biguint_of_words(sum) % m
            },
        )
        .collect()
}

/// t·2^−64 mod p, canonical, for t < p·2^64 (Montgomery's reduction; `neg_inv` is
/// −p^−1 mod 2^64).
fn redc(t: u128, p: u64, neg_inv: u64) -> u64 {
    let q = (t as u64).wrapping_mul(neg_inv);
    // t + q·p < p·2^64 + 2^64·p < 2^128 for p < 2^63, and divisible by 2^64.
    let u = ((t + u128::from(q) * u128::from(p)) >> 64) as u64;
    if u >= p {
        u - p
    } else {
        u
    }
}

/// sum += y·x, x a number of `x.len()` words and `sum` one word longer at least.
fn mul_add(sum: &mut [u64], y: u64, x: &[u64]) {
    let mut carry = 0u128;
    for (s, &w) in sum.iter_mut().zip(x) {
        let t = u128::from(*s) + u128::from(y) * u128::from(w) + carry;
        *s = t as u64;
        carry = t >> 64;
    }
    for s in &mut sum[x.len()..] {
        let t = u128::from(*s) + carry;
        *s = t as u64;
        carry = t >> 64;
    }
    debug_assert_eq!(carry, 0, "the sum fits its words");
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_codegen::crt::modular_tables;
    use rand::{Rng, SeedableRng};

    #[test]
    fn explicit_residues_are_the_integers_residues() {
        // Primes of both of the tables' kinds: one of 62 bits, two below 2^32.
        let primes = [4_179_340_454_199_820_289u64, 2_013_265_921, 469_762_049];
        let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        for m in [
            "2",
            "1000",
            "4294967296",
            "21888242871839275222246405745257275088548364400416034343698204186575808495617",
        ] {
            let m: BigUint = m.parse().unwrap();
            let tables = modular_tables(&primes, &m).expect("tables for m ≥ 2");
            let half = &product >> 1u32;
            let mut xs = vec![BigUint::from(0u32), BigUint::from(1u32), &half - 1u32];
            xs.extend((0..50).map(|_| {
                let words: Vec<u32> = (0..8).map(|_| rng.gen()).collect();
                BigUint::new(words) % &half
            }));
            let residues: Vec<Vec<u64>> = primes
                .iter()
                .map(|&p| {
                    xs.iter()
                        .map(|x| (x % p).iter_u64_digits().next().unwrap_or(0))
                        .collect()
                })
                .collect();
            let got = explicit_mod(&tables, &residues, &m);
            let want: Vec<BigUint> = xs.iter().map(|x| x % &m).collect();
            assert_eq!(got, want, "m = {m}");
        }
    }
}
