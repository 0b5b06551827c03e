//! Products in (Z/mZ)\[x\] for any modulus m ≥ 2, prime or not: the product over Z of the
//! canonical representatives, by the CRT route, reduced modulo m (FLINT's
//! `fmpz_mod_poly_mul`).

use super::integer::{CrtPlan, IntPolyRing};
use super::residues::{biguint_of_words, Integers};
use crate::fft::Backend;
use crate::Error;
use num_bigint::BigUint;
use num_traits::Zero;
use rayon::prelude::*;

/// Products of polynomials over Z/mZ: coefficients are residues in [0, m).
///
/// ```
/// use fermat::crt::ModPolyRing;
/// use fermat::num_bigint::BigUint;
/// use fermat::Backend;
///
/// // BN254's scalar field, which is no generalized Fermat prime.
/// let m: BigUint =
///     "21888242871839275222246405745257275088548364400416034343698204186575808495617".parse()?;
/// let ring = ModPolyRing::new(&m, Backend::Auto)?;
/// let a = vec![&m - 1u32, BigUint::from(1u32)];            // x − 1
/// let c = ring.mul(&a, &a)?;                                 // x² − 2x + 1
/// assert_eq!(c, vec![BigUint::from(1u32), &m - 2u32, BigUint::from(1u32)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ModPolyRing {
    modulus: BigUint,
    integers: IntPolyRing,
}

impl ModPolyRing {
    /// The ring (Z/mZ)\[x\] on `backend`.
    ///
    /// Errors: [`Error::Modulus`] for m < 2; the backend's errors as for
    /// [`IntPolyRing::new`].
    ///
    /// ```
    /// use fermat::crt::ModPolyRing;
    /// use fermat::num_bigint::BigUint;
    ///
    /// let ring = ModPolyRing::new(&BigUint::from(1000u32), fermat::Backend::Cpu)?; // composite m
    /// assert_eq!(ring.modulus(), &BigUint::from(1000u32));
    /// let err = ModPolyRing::new(&BigUint::from(1u32), fermat::Backend::Cpu).unwrap_err();
    /// assert!(matches!(err, fermat::Error::Modulus { .. }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(m: &BigUint, backend: Backend) -> Result<ModPolyRing, Error> {
        if m < &BigUint::from(2u32) {
            return Err(Error::Modulus { m: m.clone() });
        }
        Ok(ModPolyRing {
            modulus: m.clone(),
            integers: IntPolyRing::new(backend)?,
        })
    }

    /// The modulus m ([`new`](Self::new) has an example).
    pub fn modulus(&self) -> &BigUint {
        &self.modulus
    }

    /// The ring over Z the products run in ([`plan`](Self::plan) has an example).
    pub fn integers(&self) -> &IntPolyRing {
        &self.integers
    }

    /// The plan of a product of `len_a` by `len_b` coefficients.
    ///
    /// ```
    /// use fermat::crt::{ModPolyRing, Width};
    /// use fermat::num_bigint::BigUint;
    ///
    /// let m = (BigUint::from(1u32) << 255u32) - 19u32;
    /// let ring = ModPolyRing::new(&m, fermat::Backend::Cpu)?;
    /// let plan = ring.plan(1 << 12, 1 << 12)?;
    /// // Coefficients below 4096 · m^2 < 2^522: nine 62-bit primes.
    /// assert_eq!((plan.bits, plan.primes.len()), (522, 9));
    /// assert_eq!(ring.integers().width(), Width::Bits62);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn plan(&self, len_a: usize, len_b: usize) -> Result<CrtPlan, Error> {
        let bits = self.modulus.bits();
        let mut plan = self.integers.plan(len_a, len_b, bits, bits)?;
        plan.bits -= 1; // representatives are nonnegative: no sign bit
        Ok(plan)
    }

    /// The product a·b mod m, normalised: no trailing zeros (with a composite m, the
    /// leading coefficients can multiply to zero).
    ///
    /// Errors: [`Error::Residue`] naming the operand, the index and the value of a
    /// coefficient that is not below m; the errors of [`IntPolyRing::mul_integers`].
    pub fn mul(&self, a: &[BigUint], b: &[BigUint]) -> Result<Vec<BigUint>, Error> {
        for (operand, x) in [("a", a), ("b", b)] {
            if let Some((index, v)) = x.iter().enumerate().find(|(_, v)| *v >= &self.modulus) {
                return Err(Error::Residue {
                    operand,
                    index,
                    value: v.clone(),
                    m: self.modulus.clone(),
                });
            }
        }
        let (a, b) = (trim(a), trim(b));
        if a.is_empty() || b.is_empty() {
            return Ok(Vec::new());
        }
        let c = self.integers.mul_integers(
            &Integers::from_biguints(a),
            &Integers::from_biguints(b),
            false,
        )?;
        let mut out: Vec<BigUint> = (0..c.len())
            .into_par_iter()
            .map(|i| biguint_of_words(c.magnitude(i)) % &self.modulus)
            .collect();
        while out.last().is_some_and(Zero::is_zero) {
            out.pop();
        }
        Ok(out)
    }
}

/// `x` without its trailing zeros.
fn trim(x: &[BigUint]) -> &[BigUint] {
    let n = x.iter().rposition(|c| !c.is_zero()).map_or(0, |i| i + 1);
    &x[..n]
}
