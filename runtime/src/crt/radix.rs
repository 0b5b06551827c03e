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
use super::modular::ModPolyRing;
use super::primes::PrimeSet;
use super::residues::project_in_base;
use super::rings::Form;
use crate::poly::Shape;
use crate::Error;
use fermat_codegen::crt::modular_tables;

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
/// Σ_j x_j·r^j whose digits x_j (below 2^64) are `x`'s.
pub(crate) fn project_digits(set: &PrimeSet, r: u64, x: Digits<'_>) -> Vec<Vec<u64>> {
    project_in_base(set, (x.digits, x.k), |p| r % p, |_| false)
}

impl ModPolyRing {
    /// The coefficients `shape` names of the product a·b (`b`: None for a²) modulo
    /// m = r^k + 1 of coefficients given in base r, on the host: the explicit CRT's column
    /// sums, k a coefficient, go to `finish` a chunk at a time, and what it makes of them
    /// comes back in order, `shape.len(len a + len b − 1)` of them. `None` where the ring
    /// runs on a GPU, whose kernels take integers, or where the explicit CRT has no tables
    /// for the primes.
    ///
    /// The caller promises m = r^k + 1 and digits that spell values below m, and gives
    /// the field's digits of a value below m in 64-bit limbs (`digits_of`: the explicit
    /// CRT's bases written as the field writes its elements).
    pub(crate) fn mul_in_radix<E: Send>(
        &self,
        (r, digits_of): (u64, impl Fn(&[u64]) -> Result<Vec<u64>, Error>),
        a: Digits<'_>,
        b: Option<Digits<'_>>,
        shape: Shape,
        finish: impl Fn(&[[u64; 3]]) -> Result<Vec<E>, Error> + Sync,
    ) -> Result<Option<Vec<E>>, Error> {
        if self.on_gpu() || a.k == 0 || b.is_some_and(|b| b.k != a.k) {
            return Ok(None);
        }
        let len_b = b.map_or(a.len(), |b| b.len());
        if a.len() == 0 || len_b == 0 {
            return Ok(Some(finish(&vec![[0; 3]; shape.len(0) * a.k])?));
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
        let residues = self
            .integers()
            .residue_products(&plan, operands, shape, form)?;
        // The bases in digits, digit by digit: column j holds digit j of every base.
        let words = tables.words;
        let bases = tables
            .bases
            .chunks_exact(words)
            .map(&digits_of)
            .collect::<Result<Vec<_>, _>>()?;
        let columns: Vec<u64> = (0..a.k)
            .flat_map(|j| bases.iter().map(move |digits| digits[j]))
            .collect();
        let c = explicit_radix(
            &tables,
            &columns,
            (&residues[..], form.radix_bits(set.width())),
            finish,
        );
        self.integers().recycle(&plan, residues);
        c.map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::Backend;
    use fermat_dsl::field::{AnyField, Field, FieldSpec};
    use num_bigint::{BigUint, RandBigInt};
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
            let base_digits = |limbs: &[u64]| Ok(p3.from_limbs(limbs)?.digits().to_vec());
            for square in [false, true] {
                let (y, b_digits) = if square { (&a, None) } else { (&b, Some(&db)) };
                let got = ring
                    .mul_in_radix(
                        (r, base_digits),
                        Digits { digits: &da, k: 8 },
                        b_digits.map(|d| Digits { digits: d, k: 8 }),
                        Shape::Whole,
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
