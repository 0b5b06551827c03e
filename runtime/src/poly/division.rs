//! Division with remainder, exact division and the power-series inverse in a
//! [`PolyRing`], for host polynomials.
//!
//! Short quotients are long divisions ([`divrem_basecase`]); long ones are Newton
//! divisions: with n = len a, m = len b and k = n − m + 1 quotient coefficients, the
//! reversals satisfy rev(q) = rev(a)·rev(b)⁻¹ mod x^k (von zur Gathen and Gerhard,
//! Modern Computer Algebra, Algorithm 9.5), so one power-series inverse and two middle
//! products give q and r = a − q·b mod x^(m−1). The inverse doubles its precision by
//! g ← g − g·(f·g − 1) (Algorithm 9.3), where the low half of f·g − 1 is known to be zero:
//! only its coefficients [ℓ, 2ℓ) are computed, a middle product.
//!
//! On a GPU backend the operands go to the device and [`divrem_device`] runs there.
//!
//! [`divrem_device`]: PolyRing::divrem_device

use super::basecase::{divrem_basecase, inv_series_coeffs};
use super::host::Poly;
use super::product::Algorithm;
use super::ring::PolyRing;
use super::route::{fold, Shape};
use crate::cpu::on_the_pool;
use crate::error::Error;
use crate::host::HostField;

/// The coefficients of a power-series inverse the recurrence gives before Newton steps
/// take over: n²/2 products, cheaper than the first doublings' products and launches.
pub(super) fn series_base<F: HostField>(field: &F) -> usize {
    // A 256-bit SRGFN product costs some 30 word products.
    if field.words() == 1 {
        64
    } else {
        16
    }
}

/// The precisions of Newton's iteration towards n from at most `base` coefficients,
/// ascending: powers of two up to P, the largest below n, then n.
///
/// Every step but the last doubles 2^i to 2^(i+1): both of its middle products are cyclic
/// products of 2^(i+1) points, and the second reuses the first one's transform of g. A
/// chain of ⌈n/2^i⌉ instead, for n just above a power of two (2^19 + 1), would make every
/// step's operands one coefficient longer than a power of two and its first product twice
/// as large. The last step, from P to n ≤ 2P, takes products of at most 2P points, or
/// plain ones when n − P is small (see `narrow_window`).
pub(super) fn newton_precisions(n: usize, base: usize) -> Vec<usize> {
    let base = base.max(1);
    if n <= base {
        return vec![n];
    }
    let below = 1usize << (n - 1).ilog2();
    let mut chain = vec![below.max(1)];
    while let Some(&last) = chain.last().filter(|&&l| l > base) {
        chain.push(last / 2);
    }
    chain.reverse();
    chain.push(n);
    chain
}

impl<F: HostField> PolyRing<F> {
    /// The quotient and remainder of a by b: a = q·b + r with deg r < deg b.
    ///
    /// Errors: [`Error::ZeroDivisor`] when b is zero, [`Error::FieldMismatch`] when an
    /// operand is over another field, and the errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[5, 0, 0, 1]); // x³ + 5
    /// let b = Poly::from_u64s(&f, &[1, 1]); // x + 1
    /// let (q, r) = ring.divrem(&a, &b)?;
    /// assert_eq!(q, Poly::from_u64s(&f, &[1, 469762048, 1])); // x² − x + 1
    /// assert_eq!(r, Poly::from_u64s(&f, &[4]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn divrem(&self, a: &Poly<F>, b: &Poly<F>) -> Result<(Poly<F>, Poly<F>), Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        if b.is_zero() {
            return Err(Error::ZeroDivisor {
                field: self.field.name(),
            });
        }
        let (n, m) = (a.len(), b.len());
        if n < m {
            return Ok((Poly::zero(&self.field), a.clone()));
        }
        if let Some(host) = self.host_for(n)? {
            return host.divrem(a, b);
        }
        if self.device.is_some() {
            let (q, r) = self.divrem_device(&self.to_device(a)?, &self.to_device(b)?)?;
            return Ok((self.from_device(&q)?, self.from_device(&r)?));
        }
        let k = n - m + 1;
        if k.min(m) <= self.crossover().long_division_limit() {
            return divrem_basecase(a, b);
        }
        on_the_pool(|| {
            let g = self.inv_series(&reversal(b, m, k.min(m)), k)?;
            let q = reversal(&self.mul_middle(&reversal(a, n, k), &g, 0, k)?, k, k);
            let r = self.remainder(a, b, &q)?;
            Ok((q, r))
        })
    }

    /// r = a − q·b, of degree below m − 1 = deg b: it equals (a − q·b) mod (x^N − 1) for
    /// any N ≥ m − 1, so one cyclic product of N = 2^⌈log₂(m − 1)⌉ points of the operands
    /// folded mod x^N − 1 gives it, half the points of the product q·b.
    fn remainder(&self, a: &Poly<F>, b: &Poly<F>, q: &Poly<F>) -> Result<Poly<F>, Error> {
        let m = b.len();
        let plan = self.product_plan(q.len(), m)?;
        if matches!(
            plan.algorithm,
            Algorithm::Zero | Algorithm::Schoolbook | Algorithm::Plain
        ) || m < 3
        {
            return a.truncate(m - 1).sub(&self.mul_middle(q, b, 0, m - 1)?);
        }
        let n = (m - 1).next_power_of_two();
        let (fq, fb) = (
            fold(&self.field, q.coeffs(), n),
            fold(&self.field, b.coeffs(), n),
        );
        let mut qb = Vec::new();
        self.product_into((&fq, Some(&fb)), Shape::Cyclic { n }, &mut qb)?;
        let af = fold(&self.field, a.coeffs(), n);
        let zero = self.field.zero();
        let r = (0..m - 1)
            .map(|t| {
                let (at, qbt) = (af.get(t).unwrap_or(&zero), qb.get(t).unwrap_or(&zero));
                self.field.sub(at, qbt)
            })
            .collect();
        Ok(Poly::new(&self.field, r))
    }

    /// The quotient of a by b, rounded towards zero: q of [`divrem`](Self::divrem).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 1]); // (x + 1)²
    /// assert_eq!(ring.div(&a, &Poly::from_u64s(&f, &[0, 1]))?, Poly::from_u64s(&f, &[2, 1]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn div(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        Ok(self.divrem(a, b)?.0)
    }

    /// The remainder of a by b: r of [`divrem`](Self::divrem), a mod b.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[3, 0, 1]); // x² + 3
    /// let x_minus_2 = Poly::from_u64s(&f, &[469762047, 1]);
    /// assert_eq!(ring.rem(&a, &x_minus_2)?, Poly::from_u64s(&f, &[7])); // a(2)
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn rem(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        Ok(self.divrem(a, b)?.1)
    }

    /// The quotient a / b of a division known to be exact.
    ///
    /// Errors: [`Error::InexactDivision`] when b does not divide a, and those of
    /// [`divrem`](Self::divrem).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 1]); // (x + 1)²
    /// let b = Poly::from_u64s(&f, &[1, 1]);
    /// assert_eq!(ring.div_exact(&a, &b)?, b);
    /// let err = ring.div_exact(&a, &Poly::x(&f)).unwrap_err();
    /// assert!(matches!(err, Error::InexactDivision { remainder_degree: 0, .. }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn div_exact(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        let (q, r) = self.divrem(a, b)?;
        match r.degree() {
            None => Ok(q),
            Some(remainder_degree) => Err(Error::InexactDivision {
                remainder_degree,
                divisor_degree: b.len() - 1,
            }),
        }
    }

    /// The inverse of the power series f mod x^n: g of degree below n with
    /// f·g ≡ 1 (mod x^n), by Newton iteration on the ring's products.
    ///
    /// Errors: [`Error::SeriesNotInvertible`] when f(0) = 0, [`Error::FieldMismatch`], and
    /// the errors of the products.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let s = Poly::from_u64s(&f, &[1, 469762048]); // 1 − x
    /// let g = ring.inv_series(&s, 1000)?; // 1 + x + … + x^999
    /// assert!(g.coeffs().iter().all(|c| *c == f.one()) && g.len() == 1000);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn inv_series(&self, f: &Poly<F>, n: usize) -> Result<Poly<F>, Error> {
        self.check_field(f)?;
        // The last step's products are as long as one of n by n: refuse what they cannot do.
        self.product_plan(n, n)?;
        if f.coeff(0) == self.field.zero() {
            return Err(Error::SeriesNotInvertible {
                field: self.field.name(),
            });
        }
        if let Some(host) = self.host_for(n)? {
            return host.inv_series(f, n);
        }
        if self.device.is_some() && n > 0 {
            let g = self.inv_series_device(&self.to_device(f)?, n)?;
            return self.from_device(&g);
        }
        let precisions = newton_precisions(n, series_base(&self.field));
        let mut g = inv_series_coeffs(&self.field, f.coeffs(), precisions[0])?;
        on_the_pool(|| {
            for step in precisions.windows(2) {
                let (have, next) = (step[0], step[1]);
                let current = Poly::new(&self.field, g.clone());
                // e = coefficients [have, next) of f·g; the lower ones are those of 1.
                let e = self.mul_middle(&f.truncate(next), &current, have, next - have)?;
                let h = self.mul_middle(&current.truncate(next - have), &e, 0, next - have)?;
                g.extend((0..next - have).map(|t| self.field.neg(&h.coeff(t))));
            }
            Ok(Poly::new(&self.field, g))
        })
    }
}

/// The first `len` coefficients of x^(about − 1)·p(1/x): coefficient t is
/// p_(about − 1 − t), zero past `about`.
fn reversal<F: HostField>(p: &Poly<F>, about: usize, len: usize) -> Poly<F> {
    let coeffs = (0..len)
        .map(|t| {
            about
                .checked_sub(1 + t)
                .map_or(p.field().zero(), |i| p.coeff(i))
        })
        .collect();
    Poly::new(p.field(), coeffs)
}

#[cfg(test)]
mod tests {
    use super::newton_precisions;

    #[test]
    fn newton_steps_double_powers_of_two_then_reach_n() {
        assert_eq!(
            newton_precisions(5001, 64),
            [64, 128, 256, 512, 1024, 2048, 4096, 5001]
        );
        assert_eq!(
            newton_precisions((1 << 19) + 1, 64)[11..],
            [1 << 17, 1 << 18, 1 << 19, (1 << 19) + 1]
        );
        assert_eq!(newton_precisions(1 << 10, 64), [64, 128, 256, 512, 1024]);
        assert_eq!(newton_precisions(65, 64), [64, 65]);
        assert_eq!(newton_precisions(64, 64), [64]);
        assert_eq!(newton_precisions(1, 64), [1]);
        assert_eq!(newton_precisions(0, 64), [0]);
        for n in 1..300 {
            let p = newton_precisions(n, 16);
            assert!(p[0] <= 16 && *p.last().unwrap() == n);
            assert!(
                p.windows(2).all(|w| w[0] < w[1] && w[1] <= 2 * w[0]),
                "{n}: {p:?}"
            );
        }
    }
}
