//! The resultant of long polynomials on the device: Lehmer's rounds keep a trail of the
//! divisions their windows take ([`LehmerStep`]: each divisor's leading coefficient and
//! degree, and the eliminations the division took), and the host multiplies the factors
//! the trail gives after the rounds, O(n) products:
//!
//! res(r_(j−1), r_j) = (−1)^(n_(j−1)·n_j)·lc(r_j)^(n_(j−1) − n_(j+1) − e_j·n_j)·res(r_j, r_(j+1))
//!
//! for the window's sequence r_(j+1) = lc(r_j)^(e_j)·r_(j−1) − q_j·r_j (n_i = deg r_i),
//! from res(g, f) = lc(g)^(deg f)·∏_(g(ρ) = 0) f(ρ), and res(r, c) = c^(deg r) for the
//! nonzero constant that ends a sequence of coprime operands. A stalled round's division
//! on the device is a step of no eliminations, as in the resultant of the half-gcd
//! (`hgcd`).

use super::euclid::resultant_euclid;
use super::host::Poly;
use super::lehmer_device::Keeps;
use super::ring::PolyRing;
use crate::error::Error;
use crate::host::HostField;
use fermat_codegen::euclid::{LehmerState, LehmerStatus, LehmerStep};
use fermat_dsl::field::{Field, FieldError};

impl<F: HostField> PolyRing<F> {
    /// The resultant of a and b by Lehmer's rounds with windows of 2·`half` + 1
    /// coefficients on the device, keeping a trail of their divisions whose factors the
    /// host multiplies; a stalled round (a quotient of degree above `half`) takes its
    /// division on the device. FLINT's conventions, as [`Self::resultant`], which takes
    /// this route for long operands on a GPU with [`Self::trail_half`]: zero and constant
    /// operands are settled on the host at once.
    ///
    /// Errors: [`Error::LehmerHalf`] for a half of 0 or one whose window outgrows shared
    /// memory, [`Error::FieldMismatch`] when an operand is over another field,
    /// [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{resultant_euclid, Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let u: Vec<u64> = (1..=300).collect();
    /// let v: Vec<u64> = (7..=290).rev().collect();
    /// let (a, b) = (Poly::from_u64s(&f, &u), Poly::from_u64s(&f, &v));
    /// match ring.resultant_lehmer(&a, &b, 16) {
    ///     Ok(res) => assert_eq!(res, resultant_euclid(&a, &b)?),
    ///     Err(Error::NotOnGpu) => {} // on the CPU: `resultant`
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn resultant_lehmer(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        half: usize,
    ) -> Result<F::Elem, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        let max = self.lehmer_max_half()?;
        if half == 0 || half > max {
            return Err(Error::LehmerHalf { half, max });
        }
        if a.len() <= 1 || b.len() <= 1 {
            // FLINT's conventions, in O(log n) on the host.
            return resultant_euclid(a, b);
        }
        if a.len() >= b.len() {
            return self.resultant_by_rounds(a, b, half);
        }
        // res(a, b) = (−1)^(deg a · deg b) res(b, a).
        let res = self.resultant_by_rounds(b, a, half)?;
        let odd = (a.len() - 1) * (b.len() - 1) % 2 == 1;
        Ok(if odd { self.field.neg(&res) } else { res })
    }

    /// res(a, b) by Lehmer's rounds with windows of 2·`half` + 1 coefficients keeping a
    /// trail, for len a ≥ len b ≥ 2 (so that the window never swaps the pair) and a
    /// checked `half`.
    pub(super) fn resultant_by_rounds(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        half: usize,
    ) -> Result<F::Elem, Error> {
        debug_assert!(a.len() >= b.len() && b.len() >= 2);
        let f = &self.field;
        let mut rounds = self.lehmer_work(a.len(), half, Keeps::Trail)?;
        self.place(&mut rounds, 0, &self.to_device(a)?)?;
        self.place(&mut rounds, 1, &self.to_device(b)?)?;
        let mut lens = (a.len(), b.len());
        let mut divisions = Vec::new();
        loop {
            let (status, words) = self.lehmer_rounds(&mut rounds, lens, (0, 0))?;
            divisions.extend(self.read_trail(&rounds, words[LehmerState::STEPS] as usize)?);
            if status == LehmerStatus::Done {
                // The window writes the constant that ends the sequence, or the last
                // nonzero remainder when the sequence ends at zero: a common factor.
                if words[LehmerState::RESULT_LEN] != 1 {
                    return Ok(f.zero());
                }
                let out = &rounds.out;
                let end = f.to_elem(&self.download(&out.data, out.cap)?[0])?;
                let degree = (a.len() - 1) as u64;
                return Ok(resultant_of_divisions(f, degree, &divisions, &end)?);
            }
            // A quotient of degree above half: (u, v) → (v, u mod v) by one division.
            let set = (words[LehmerState::ROUND] % 2) as usize;
            let (lu, lv) = (
                words[LehmerState::len_u(set)] as usize,
                words[LehmerState::len_v(set)] as usize,
            );
            debug_assert!(lu >= lv && lv >= 2, "the window keeps the pair in order");
            let u = self.take(&rounds, 2 * set, lu)?;
            let v = self.take(&rounds, 2 * set + 1, lv)?;
            divisions.push(LehmerStep {
                lead: self.leading_device(&v)?,
                degree: (lv - 1) as u64,
                eliminations: 0,
            });
            let (_, r) = self.divrem_device(&u, &v)?;
            if r.len == 0 {
                return Ok(f.zero());
            }
            self.place(&mut rounds, 0, &v)?;
            self.place(&mut rounds, 1, &r)?;
            lens = (v.len, r.len);
        }
    }

    /// The first `logged` entries of the rounds' trail.
    fn read_trail(
        &self,
        rounds: &super::lehmer_device::LehmerWork<F>,
        logged: usize,
    ) -> Result<Vec<LehmerStep<F::Elem>>, Error> {
        let (leads, steps) = rounds.trail.as_ref().expect("the rounds keep a trail");
        if logged == 0 {
            return Ok(Vec::new());
        }
        let words = self
            .device()?
            .stream()
            .clone_dtoh(&steps.slice(..logged))
            .map_err(crate::gpu::driver("cuMemcpyDtoH"))?;
        let leads = self.download(&leads.data, leads.cap)?;
        leads
            .iter()
            .zip(words)
            .map(|(lead, word)| Ok(LehmerStep::of_word(self.field.to_elem(lead)?, word)))
            .collect()
    }
}

/// res(r_0, r_1) of a sequence with n_0 = `degree` whose divisions r_1, r_2, …, r_J are
/// `divisions` and whose last remainder r_(J+1) is the nonzero constant `end`: the
/// module's product. The powers lc(r_j)^(−e_j·n_j), whose exponents are large, are taken
/// together: with P_j = ∏_(i ≤ j) lc(r_i)^(e_i) and n_(J+1) = 0,
/// ∏_j lc(r_j)^(e_j·n_j) = ∏_j P_j^(n_j − n_(j+1)), every exponent a degree's drop, so
/// the whole is O(J) products and one inverse.
pub(super) fn resultant_of_divisions<F: Field>(
    field: &F,
    degree: u64,
    divisions: &[LehmerStep<F::Elem>],
    end: &F::Elem,
) -> Result<F::Elem, FieldError> {
    let n = |j: usize| match j {
        0 => degree,
        _ => divisions.get(j - 1).map_or(0, |s| s.degree),
    };
    let mut odd = false;
    let mut above = field.one();
    let mut below = field.one();
    let mut prefix = field.one();
    for (i, step) in divisions.iter().enumerate() {
        let j = i + 1;
        odd ^= n(j - 1) % 2 == 1 && n(j) % 2 == 1;
        let drop = field.pow_u64(&step.lead, n(j - 1) - n(j + 1));
        above = field.mul(&above, &drop);
        let scale = field.pow_u64(&step.lead, u64::from(step.eliminations));
        prefix = field.mul(&prefix, &scale);
        below = field.mul(&below, &field.pow_u64(&prefix, n(j) - n(j + 1)));
    }
    above = field.mul(&above, &field.pow_u64(end, n(divisions.len())));
    // Leading coefficients are nonzero, and so is their product.
    let res = field.mul(&above, &field.inv(&below)?);
    Ok(if odd { field.neg(&res) } else { res })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::{divrem_basecase, schoolbook_mul};
    use fermat_codegen::euclid::{lehmer_rounds_logging, LehmerEnd};
    use fermat_dsl::field::Fp32;
    use proptest::prelude::*;

    fn field() -> Fp32 {
        Fp32::new(469762049).unwrap()
    }

    /// The resultant by the mirror's rounds and trail, a stalled pair divided on the host
    /// and logged as the device's driver logs it.
    fn by_rounds(f: &Fp32, a: &Poly<Fp32>, b: &Poly<Fp32>, half: usize) -> <Fp32 as Field>::Elem {
        let (mut u, mut v) = (a.clone(), b.clone());
        let mut divisions = Vec::new();
        loop {
            let (end, trail) = lehmer_rounds_logging(f, u.coeffs(), v.coeffs(), half);
            divisions.extend(trail);
            match end {
                LehmerEnd::Done(g) if g.len() == 1 => {
                    let degree = (a.len() - 1) as u64;
                    return resultant_of_divisions(f, degree, &divisions, &g[0]).unwrap();
                }
                LehmerEnd::Done(_) => return f.zero(),
                LehmerEnd::Stalled { pair, .. } => {
                    let [x, y] = pair.map(|p| Poly::new(f, p));
                    divisions.push(LehmerStep {
                        lead: y.leading().unwrap(),
                        degree: y.degree().unwrap() as u64,
                        eliminations: 0,
                    });
                    let (_, r) = divrem_basecase(&x, &y).unwrap();
                    if r.is_zero() {
                        return f.zero();
                    }
                    (u, v) = (y, r);
                }
            }
        }
    }

    fn random(f: &Fp32, seed: &mut u64, len: usize) -> Poly<Fp32> {
        let coeffs = (0..len)
            .map(|i| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let x = (*seed >> 33) % 469762049;
                f.from_u64(if i + 1 == len && x == 0 { 1 } else { x })
            })
            .collect();
        Poly::new(f, coeffs)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Random pairs, pairs with a common factor and sequences with a degree gap (a
        /// quotient of degree above the window's half stalls a round): the trail's product
        /// is Euclid's resultant, for windows from 3 coefficients up.
        #[test]
        fn the_trail_multiplies_to_the_resultant(
            (la, lb) in (2usize..80, 2usize..80),
            common in 0usize..3,
            gap in 0usize..30,
            half in 1usize..12,
            seed in any::<u64>(),
        ) {
            let f = field();
            let mut seed = seed;
            let g = random(&f, &mut seed, common + 1);
            let mut a = schoolbook_mul(&random(&f, &mut seed, la), &g).unwrap();
            let b = schoolbook_mul(&random(&f, &mut seed, lb), &g).unwrap();
            if gap > 0 {
                // a = x^gap·(x + 1)·b + r, r short: a first quotient of degree gap + 1.
                let q = Poly::monomial(&f, f.one(), gap).add(&Poly::monomial(&f, f.one(), gap + 1)).unwrap();
                let r = random(&f, &mut seed, lb.min(3) - 1);
                a = schoolbook_mul(&q, &b).unwrap().add(&r).unwrap();
            }
            let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            prop_assert_eq!(by_rounds(&f, &a, &b, half), resultant_euclid(&a, &b).unwrap());
        }
    }

    #[test]
    fn linear_divisors_give_evaluations() {
        // res(a, x − c) = (−1)^(deg a)·a(c) for monic x − c: zero at a common root.
        let f = field();
        let e = |v: &[u64]| Poly::from_u64s(&f, v);
        let minus = |x: u64| 469762049 - x;
        for (a, c, want) in [
            (e(&[1, 0, 1]), 2, 5),
            (e(&[1, 0, 0, 1]), 2, minus(9)),
            (e(&[minus(4), 0, 1]), 2, 0),
        ] {
            let b = e(&[minus(c), 1]);
            assert_eq!(by_rounds(&f, &a, &b, 1), f.from_u64(want));
        }
    }
}
