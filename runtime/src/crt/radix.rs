//! The CRT route in a field's own digits: products modulo p = r^k + 1 whose operands
//! and result stay in base r, as an SRGFN keeps its elements (2017 paper, §3.1).
//!
//! The route through integers converts each coefficient to binary limbs (k² products of
//! words by r, Horner's rule), projects the limbs, and after the explicit CRT reduces its
//! sum modulo p (Barrett) and converts the remainder back to digits (k divisions of a
//! k-limb integer by r). In base r none of the three is needed: the projection weighs
//! digit j by r^j mod p_i instead of 2^(64j), the explicit CRT's bases P_i mod p and
//! −P mod p are written in digits, so its column sums are the digits of S not yet
//! carried, and the field carries them, folding the carry out of the top digit back as
//! r^k ≡ −1 ([`Field::from_radix_sums`](fermat_dsl::field::Field::from_radix_sums)).

use super::explicit::explicit_radix;
use super::integer::Form;
use super::modular::ModPolyRing;
use super::montgomery::Wide;
use super::primes::PrimeSet;
use crate::Error;
use fermat_codegen::crt::modular_tables;
use num_bigint::BigUint;
use rayon::prelude::*;

/// Operands of a product in base r: k digits a coefficient, least significant first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Digits<'a> {
    /// The coefficients' digits, k after k.
    pub digits: &'a [u64],
    /// Digits a coefficient.
    pub k: usize,
}

impl Digits<'_> {
    fn len(&self) -> usize {
        self.digits.len() / self.k
    }
}

/// Residues modulo each prime of `set` (one vector per prime, canonical) of the integers
/// Σ_j x_j·r^j whose digits x_j (below 2^64) are `x`'s: one dot product of a
/// coefficient's digits with the weights r^j·R² mod p_i, reduced once.
pub(crate) fn project_digits(set: &PrimeSet, r: u64, x: Digits<'_>) -> Vec<Vec<u64>> {
    (0..set.len())
        .into_par_iter()
        .map(|i| {
            let m = set.mont(i);
            let step = m.scaled(r % m.p()); // r·R mod p: a Montgomery product multiplies by r
            let mut weights = Vec::with_capacity(x.k);
            let mut w = m.scaled(m.one()); // R² mod p
            for _ in 0..x.k {
                weights.push(w);
                w = m.mul(w, step);
            }
            x.digits
                .chunks_exact(x.k)
                .map(|digits| m.redc2(Wide::dot(digits, &weights)))
                .collect()
        })
        .collect()
}

/// The digits in base r of `x` < r^k + 1: k − 1 digits below r and the top one, which is
/// r for x = r^k.
fn digits_of(x: &BigUint, r: u64, k: usize) -> Vec<u64> {
    let mut x = x.clone();
    let mut digits: Vec<u64> = (1..k)
        .map(|_| {
            let d = (&x % r).iter_u64_digits().next().unwrap_or(0);
            x /= r;
            d
        })
        .collect();
    digits.push(x.iter_u64_digits().next().unwrap_or(0));
    digits
}

impl ModPolyRing {
    /// The product a·b (`b`: None for a²) modulo m = r^k + 1 of coefficients given in base
    /// r, on the host: the explicit CRT's column sums, k a coefficient, go to `finish` a
    /// chunk at a time, and what it makes of them comes back in order, len a + len b − 1
    /// of them. `None` where the ring runs on a GPU, whose kernels take integers, or where
    /// the explicit CRT has no tables for the primes.
    ///
    /// The caller promises m = r^k + 1 and digits that spell values below m.
    pub(crate) fn mul_in_radix<E: Send>(
        &self,
        r: u64,
        a: Digits<'_>,
        b: Option<Digits<'_>>,
        finish: impl Fn(&[[u64; 3]]) -> Result<Vec<E>, Error> + Sync,
    ) -> Result<Option<Vec<E>>, Error> {
        if self.on_gpu() || a.k == 0 || b.is_some_and(|b| b.k != a.k) {
            return Ok(None);
        }
        let len_b = b.map_or(a.len(), |b| b.len());
        if a.len() == 0 || len_b == 0 {
            return Ok(Some(Vec::new()));
        }
        let plan = self.plan(a.len(), len_b)?;
        let Some(tables) = modular_tables(plan.primes.primes(), self.modulus()) else {
            return Ok(None);
        };
        let set = &plan.primes;
        let ra = project_digits(set, r, a);
        let rb = b.map(|b| project_digits(set, r, b));
        let operands = (&ra[..], rb.as_deref().unwrap_or(&ra));
        let form = Form::Montgomery;
        let residues = self.integers().residue_products(&plan, operands, form)?;
        // The bases in digits, digit by digit: column j holds digit j of every base.
        let words = tables.words;
        let bases: Vec<Vec<u64>> = tables
            .bases
            .chunks_exact(words)
            .map(|base| digits_of(&fermat_dsl::field::biguint_of_limbs(base), r, a.k))
            .collect();
        let columns: Vec<u64> = (0..a.k)
            .flat_map(|j| bases.iter().map(move |digits| digits[j]))
            .collect();
        let residues = (&residues[..], form.radix_bits(set.width()));
        explicit_radix(&tables, &columns, residues, finish).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::Backend;
    use fermat_dsl::field::{AnyField, Field, FieldSpec};
    use num_bigint::RandBigInt;
    use rand::SeedableRng;

    #[test]
    fn digits_project_to_the_residues_of_their_integers() {
        let ring = crate::crt::IntPolyRing::new(Backend::Cpu).unwrap();
        let plan = ring.plan(100, 100, 600, 600).unwrap();
        let set = &plan.primes;
        let r = (1u64 << 63) + (1 << 34);
        let values: Vec<[u64; 8]> =
            vec![[0; 8], [u64::MAX; 8], [r - 1; 8], [1, 2, 3, 4, 5, 6, 7, r]];
        let digits: Vec<u64> = values.concat();
        let got = project_digits(
            set,
            r,
            Digits {
                digits: &digits,
                k: 8,
            },
        );
        for (i, &p) in set.primes().iter().enumerate() {
            for (j, v) in values.iter().enumerate() {
                let x = v
                    .iter()
                    .rev()
                    .fold(BigUint::default(), |acc, &d| acc * r + d);
                assert_eq!(BigUint::from(got[i][j]), x % p, "prime {p}, value {j}");
            }
        }
    }

    #[test]
    fn products_in_digits_are_the_products_of_their_elements() {
        let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
            unreachable!()
        };
        let r = p3.params().radix().unwrap();
        let m = p3.modulus();
        let ring = ModPolyRing::new(&m, Backend::Cpu).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let minus_one = &m - 1u32;
        for (la, lb) in [(1, 1), (3, 1), (40, 33), (200, 7)] {
            // Random coefficients, with p − 1 (top digit r) and 0 among them.
            let mut a: Vec<BigUint> = (0..la).map(|_| rng.gen_biguint_below(&m)).collect();
            let b: Vec<BigUint> = (0..lb).map(|_| rng.gen_biguint_below(&m)).collect();
            a[0] = minus_one.clone();
            if la > 2 {
                a[1] = BigUint::default();
            }
            let elements = |x: &[BigUint]| -> Vec<u64> {
                x.iter()
                    .flat_map(|v| *p3.from_biguint(v).unwrap().digits())
                    .collect()
            };
            let (da, db) = (elements(&a), elements(&b));
            let finish = |sums: &[[u64; 3]]| Ok(p3.from_radix_sums(sums)?);
            for square in [false, true] {
                let (y, b_digits) = if square { (&a, None) } else { (&b, Some(&db)) };
                let got = ring
                    .mul_in_radix(
                        r,
                        Digits { digits: &da, k: 8 },
                        b_digits.map(|d| Digits { digits: d, k: 8 }),
                        finish,
                    )
                    .unwrap()
                    .expect("a CPU ring takes the digits");
                let want = ring.mul(&a, y).unwrap();
                let got: Vec<BigUint> = got.iter().map(|e| p3.to_biguint(e)).collect();
                let len = got
                    .iter()
                    .rposition(|v| v != &BigUint::default())
                    .map_or(0, |i| i + 1);
                assert_eq!(got.len(), la + y.len() - 1, "{la} × {}", y.len());
                assert_eq!(got[..len], want[..], "{la} × {}, square: {square}", y.len());
            }
        }
    }
}
