//! The half-gcd: the gcd in O(M(n) log n) by recursive halving (Thull and Yap; Yap,
//! Fundamental Problems of Algorithmic Algebra, Lecture VIII). hgcd(a, b) is the 2×2
//! polynomial matrix taking (a, b) to the pair of consecutive remainders of their
//! Euclidean sequence that straddles degree ⌈deg a / 2⌉; it is found from the top halves of
//! the coefficients alone, twice, with one division step between. Every matrix is a
//! product of the steps' [[0, 1], [1, −q]], of determinant ±1, so applying it keeps the
//! gcd whatever the degrees: the outer loop is right by construction and fast by them.
//!
//! The resultant rides along: each step contributes
//! res(r₀, r₁) = (−1)^(d₀·d₁) · lc(r₁)^(d₀ − d₂) · res(r₁, r₂) (dᵢ = deg rᵢ), and the top
//! halves' remainders carry the whole's leading coefficients and degrees (shifted) for every
//! remainder the matrix keeps. Only the last step's d₂ is unknown until the matrix is applied
//! to the whole operands, so that one factor waits ([`Trail`]), as in FLINT's
//! `_gr_poly_hgcd` with a resultant.

use super::basecase::long_division;
use super::euclid::{gcd_euclid, resultant_euclid, xgcd_euclid, Bezout};
use super::host::Poly;
use super::product::Cyclic;
use super::ring::PolyRing;
use super::schoolbook::sub_product;
use crate::cpu::{on_the_pool, FieldNtt, FIELD_NTT_MAX};
use crate::error::Error;
use crate::host::HostField;
use rayon::prelude::*;

/// Quotients of at most this many coefficients multiply by the schoolbook product.
const SHORT_QUOTIENT: usize = 8;

/// A 2×2 matrix of polynomials, row-major.
#[derive(Clone, Debug)]
struct Matrix<F: HostField>([Poly<F>; 4]);

impl<F: HostField> Matrix<F> {
    fn identity(field: &F) -> Self {
        Matrix([
            Poly::one(field),
            Poly::zero(field),
            Poly::zero(field),
            Poly::one(field),
        ])
    }

    /// [[0, 1], [1, −q]]·self: the step (c, d) → (d, c − q·d) after self, two products.
    fn then_step(self, ring: &PolyRing<F>, q: &Poly<F>) -> Result<Self, Error> {
        let [a, b, c, d] = self.0;
        // A quotient of a step is almost always of one or two coefficients: its products
        // are shorter than any plan's, a multiply-subtract a coefficient of q.
        let minus_q_times = |x: Poly<F>, p: &Poly<F>| {
            if q.len() <= SHORT_QUOTIENT {
                let mut acc = x.coeffs().to_vec();
                sub_product(&ring.field, &mut acc, q.coeffs(), p.coeffs());
                Ok(Poly::new(&ring.field, acc))
            } else {
                x.sub(&ring.mul(q, p)?)
            }
        };
        let (e, f) = (minus_q_times(a, &c)?, minus_q_times(b, &d)?);
        Ok(Matrix([c, d, e, f]))
    }

    /// self·other.
    fn mul(&self, ring: &PolyRing<F>, other: &Self) -> Result<Self, Error> {
        let [a, b, c, d] = &self.0;
        let [e, f, g, h] = &other.0;
        let rows = [
            [(a, e), (b, g)],
            [(a, f), (b, h)],
            [(c, e), (d, g)],
            [(c, f), (d, h)],
        ];
        let [ae_bg, af_bh, ce_dg, cf_dh] = sums_of_products(ring, &rows)?;
        Ok(Matrix([ae_bg, af_bh, ce_dg, cf_dh]))
    }

    /// self·(x, y).
    fn apply(
        &self,
        ring: &PolyRing<F>,
        x: &Poly<F>,
        y: &Poly<F>,
    ) -> Result<(Poly<F>, Poly<F>), Error> {
        let [a, b, c, d] = &self.0;
        let [ax_by, cx_dy] = sums_of_products(ring, &[[(a, x), (b, y)], [(c, x), (d, y)]])?;
        Ok((ax_by, cx_dy))
    }
}

/// p·q + r·s for each row [(p, q), (r, s)]. Where every product fits one of the field's
/// transforms on a table (an SRGFN's cyclic products of up to 2^12 points on the CPU),
/// each distinct operand is transformed once and each row's sum inverted once: 8
/// transforms instead of 12 for a matrix applied to a pair, 12 instead of 24 for a
/// product of matrices — fewer than the CRT route's products take from 2^10 on, where
/// a lone product goes there (bench/RESULTS.md, "CPU round 7").
fn sums_of_products<F: HostField, const R: usize>(
    ring: &PolyRing<F>,
    rows: &[[(&Poly<F>, &Poly<F>); 2]; R],
) -> Result<[Poly<F>; R], Error> {
    let pairs = || rows.iter().flatten();
    let whole = pairs()
        .map(|(p, q)| (p.len() + q.len()).saturating_sub(1))
        .max()
        .unwrap_or(0);
    let n = whole.next_power_of_two() as u64;
    let transforms = pairs().all(|(p, q)| ring.is_transform_product(p.len(), q.len()));
    let convolution = match transforms {
        true if n <= FIELD_NTT_MAX => Some(ring.convolution(n)?),
        _ => None,
    };
    let sums: Vec<Poly<F>> = match convolution.as_ref().and_then(|c| c.field_ntt()) {
        Some(ntt) => sums_on_spectra(ring.field(), ntt, rows, n as usize),
        None => rows
            .iter()
            .map(|[(p, q), (r, s)]| ring.mul(p, q)?.add(&ring.mul(r, s)?))
            .collect::<Result<_, _>>()?,
    };
    Ok(sums
        .try_into()
        .unwrap_or_else(|_| unreachable!("R rows, R sums")))
}

/// The rows' sums of [`sums_of_products`] on the table's spectra of n points. Each
/// distinct operand (by address: a matrix's entries recur) is transformed once, the
/// transforms and then the rows' sums side by side on the pool's cores.
fn sums_on_spectra<F: HostField, const R: usize>(
    field: &F,
    ntt: &FieldNtt<F>,
    rows: &[[(&Poly<F>, &Poly<F>); 2]; R],
    n: usize,
) -> Vec<Poly<F>> {
    let mut operands: Vec<&Poly<F>> = Vec::new();
    for p in rows.iter().flatten().flat_map(|&(p, q)| [p, q]) {
        if !operands.iter().any(|o| std::ptr::eq(*o, p)) {
            operands.push(p);
        }
    }
    let spectra: Vec<Vec<F::Elem>> = operands
        .par_iter()
        .map(|p| ntt.forward(field, p.coeffs()))
        .collect();
    let spectrum = |p: &Poly<F>| {
        let i = operands.iter().position(|o| std::ptr::eq(*o, p));
        &spectra[i.expect("every operand has its spectrum")]
    };
    rows.par_iter()
        .map(|&[(p, q), (r, s)]| {
            let [sp, sq, sr, ss] = [p, q, r, s].map(spectrum);
            let mut sum: Vec<F::Elem> = (0..n)
                .map(|i| field.add(&field.mul(&sp[i], &sq[i]), &field.mul(&sr[i], &ss[i])))
                .collect();
            let len = (p.len() + q.len()).max(r.len() + s.len()).saturating_sub(1);
            let mut c = vec![field.zero(); len];
            ntt.inverse(field, &mut sum, &mut c);
            Poly::new(field, c)
        })
        .collect()
}

/// The resultant's factors along the steps a half-gcd takes. Degrees are those of the
/// operands the outer loop holds (a recursion's offset added), since the sign's parity
/// depends on them; the exponents d₀ − d₂ do not.
struct Trail<F: HostField> {
    /// The product of the settled steps' factors (zero once a remainder vanished early).
    factor: F::Elem,
    /// The last step, whose next remainder's degree is not known yet.
    pending: Option<Step<F>>,
}

/// A step (r₀, r₁) → (r₁, r₂): lc(r₁), d₀ and d₁.
struct Step<F: HostField> {
    lead: F::Elem,
    degrees: (usize, usize),
}

impl<F: HostField> Step<F> {
    /// The step from (c, d), d ≠ 0, `offset` added to their degrees.
    fn from(c: &Poly<F>, d: &Poly<F>, offset: usize) -> Self {
        let degree = |p: &Poly<F>| p.len() - 1 + offset;
        Step {
            lead: d.leading().expect("a step divides by a nonzero polynomial"),
            degrees: (degree(c), degree(d)),
        }
    }
}

impl<F: HostField> Trail<F> {
    fn new(field: &F) -> Self {
        Trail {
            factor: field.one(),
            pending: None,
        }
    }

    /// Multiplies in the step's factor, its next remainder of degree `next` (None: zero).
    /// A zero remainder ends the sequence: the resultant is lc(r₁)^d₀ when r₁ is a
    /// constant, else zero.
    fn settle(&mut self, field: &F, step: Step<F>, next: Option<usize>) {
        let (d0, d1) = step.degrees;
        let factor = match next {
            None if d1 == 0 => field.pow_u64(&step.lead, d0 as u64),
            None => field.zero(),
            Some(d2) => {
                let power = field.pow_u64(&step.lead, (d0 - d2) as u64);
                if d0 * d1 % 2 == 1 {
                    field.neg(&power)
                } else {
                    power
                }
            }
        };
        self.factor = field.mul(&self.factor, &factor);
    }

    /// Settles the waiting step, if any, now that its next remainder has degree `next`.
    fn settle_pending(&mut self, field: &F, next: Option<usize>) {
        if let Some(step) = self.pending.take() {
            self.settle(field, step, next);
        }
    }

    /// The step from (c, d) to (d, e): settled at once when e's degree is one the matrix
    /// keeps (at least `m`), else left waiting.
    fn step(
        &mut self,
        field: &F,
        (c, d, e): (&Poly<F>, &Poly<F>, &Poly<F>),
        m: usize,
        offset: usize,
    ) {
        self.step_to(field, Step::from(c, d, offset), e.degree(), m, offset);
    }

    /// [`Self::step`] from the step and e's degree (None: e is zero).
    fn step_to(&mut self, field: &F, step: Step<F>, next: Option<usize>, m: usize, offset: usize) {
        match next {
            Some(de) if de >= m => self.settle(field, step, Some(de + offset)),
            _ => self.pending = Some(step),
        }
    }
}

/// p div x^k: the coefficients from k up.
fn high<F: HostField>(p: &Poly<F>, k: usize) -> Poly<F> {
    Poly::new(p.field(), p.coeffs().get(k..).unwrap_or(&[]).to_vec())
}

impl<F: HostField> PolyRing<F> {
    /// The monic greatest common divisor of a and b (gcd(0, 0) = 0). On a GPU, pairs whose
    /// shorter operand has 256 coefficients or more run on the device
    /// ([`Self::gcd_device`]: the on-chip Euclid, or Lehmer's rounds for long pairs); on
    /// the CPU and for shorter pairs, Euclid's algorithm on short operands and the
    /// half-gcd on long ones.
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &[1, 0, 1]))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &[2, 3]))?;
    /// assert_eq!(ring.gcd(&a, &b)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        if self.euclid_on_device(a.len(), b.len()) {
            let g = self.gcd_device(&self.to_device(a)?, &self.to_device(b)?)?;
            return self.from_device(&g);
        }
        on_the_pool(|| self.gcd_half(a, b))
    }

    /// The gcd by the half-gcd on the host (its products on the ring's backend), Euclid's
    /// algorithm below [`Crossover::half_gcd_base`](crate::poly::Crossover::half_gcd_base).
    pub(super) fn gcd_half(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        let (mut a, mut b) = if a.len() >= b.len() {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        };
        while b
            .degree()
            .is_some_and(|d| d >= self.crossover().half_gcd_base())
        {
            let m = self.hgcd(&a, &b, 0, &mut Trail::new(&self.field))?;
            (a, b) = m.apply(self, &a, &b)?;
            if !b.is_zero() {
                let (_, r) = self.divrem(&a, &b)?;
                (a, b) = (b, r);
            }
        }
        gcd_euclid(&a, &b)
    }

    /// The extended gcd (g, s, t), s·a + t·b = g, with FLINT's conventions and cofactor
    /// bounds: those of [`xgcd_euclid`], which it equals. On a GPU, pairs whose shorter
    /// operand has 256 coefficients or more and whose longer has [`Self::lehmer_from`] or
    /// more run Lehmer's rounds on the device, carrying a's cofactors
    /// ([`Self::xgcd_lehmer`]). Otherwise long operands take the half-gcd, its matrices
    /// multiplied into the cofactors of the remainders Euclid's algorithm finishes with: every matrix is a product of the sequence's own steps, so
    /// the cofactors are the sequence's, O(M(n) log n) instead of quadratic.
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[1, 0, 1]), Poly::from_u64s(&f, &[0, 1]));
    /// let (g, s, t) = ring.xgcd(&a, &b)?;
    /// assert_eq!(ring.mul(&s, &a)?.add(&ring.mul(&t, &b)?)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn xgcd(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Bezout<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        if self.rounds_on_device(a.len(), b.len()) {
            return self.xgcd_lehmer(a, b, self.lehmer_half(a.len().max(b.len()))?);
        }
        on_the_pool(|| self.xgcd_half(a, b))
    }

    /// [`Self::xgcd`] by the half-gcd (long operands) or Euclid's algorithm.
    fn xgcd_half(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Bezout<F>, Error> {
        let swapped = a.len() < b.len();
        let (mut x, mut y) = if swapped {
            (b.clone(), a.clone())
        } else {
            (a.clone(), b.clone())
        };
        // (x, y) = total·(a, b) (or ·(b, a) when swapped), as in `gcd`'s loop.
        let mut total: Option<Matrix<F>> = None;
        while y
            .degree()
            .is_some_and(|d| d >= self.crossover().half_gcd_base())
        {
            let m = self.hgcd(&x, &y, 0, &mut Trail::new(&self.field))?;
            (x, y) = m.apply(self, &x, &y)?;
            let mut step = match &total {
                Some(t) => m.mul(self, t)?,
                None => m,
            };
            if !y.is_zero() {
                let (q, r) = self.divrem(&x, &y)?;
                (x, y) = (y, r);
                step = step.then_step(self, &q)?;
            }
            total = Some(step);
        }
        let Some(total) = total else {
            return xgcd_euclid(a, b);
        };
        let (g, s, t) = xgcd_euclid(&x, &y)?;
        // g = s·x + t·y = (s·m00 + t·m10)·a' + (s·m01 + t·m11)·b'.
        let [m00, m01, m10, m11] = &total.0;
        let dot = |u: &Poly<F>, v: &Poly<F>| -> Result<Poly<F>, Error> {
            self.mul(&s, u)?.add(&self.mul(&t, v)?)
        };
        let (s, t) = (dot(m00, m10)?, dot(m01, m11)?);
        Ok(if swapped { (g, t, s) } else { (g, s, t) })
    }

    /// The resultant of a and b, with FLINT's conventions (`nmod_poly_resultant`): zero when
    /// either is zero, lc(b)^deg a when b is a constant. On a GPU, the pairs
    /// [`Self::xgcd`] sends to the device run Lehmer's rounds there
    /// ([`Self::resultant_lehmer`]), keeping a trail of their divisions whose factors the
    /// host multiplies. Otherwise long operands take the half-gcd, whose steps carry the
    /// resultant's factors along; the rest is [`resultant_euclid`]'s Euclidean algorithm,
    /// which it equals.
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of the products.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[469762047, 1]), Poly::from_u64s(&f, &[1, 0, 1]));
    /// assert_eq!(ring.resultant(&a, &b)?, f.from_u64(5)); // b(2)
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn resultant(&self, a: &Poly<F>, b: &Poly<F>) -> Result<F::Elem, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        if self.rounds_on_device(a.len(), b.len()) {
            return self.resultant_lehmer(a, b, self.trail_half(a.len().max(b.len()))?);
        }
        on_the_pool(|| self.resultant_half(a, b))
    }

    /// [`Self::resultant`] by the half-gcd (long operands) or Euclid's algorithm.
    fn resultant_half(&self, a: &Poly<F>, b: &Poly<F>) -> Result<F::Elem, Error> {
        let f = &self.field;
        if a.is_zero() || b.is_zero() {
            return Ok(f.zero());
        }
        // res(b, a) = (−1)^(deg a · deg b) res(a, b).
        let (mut a, mut b, sign) = if a.len() >= b.len() {
            (a.clone(), b.clone(), false)
        } else {
            let odd = (a.len() - 1) * (b.len() - 1) % 2 == 1;
            (b.clone(), a.clone(), odd)
        };
        let mut trail = Trail::new(f);
        while b
            .degree()
            .is_some_and(|d| d >= self.crossover().half_gcd_base())
        {
            let m = self.hgcd(&a, &b, 0, &mut trail)?;
            (a, b) = m.apply(self, &a, &b)?;
            trail.settle_pending(f, b.degree());
            if b.is_zero() {
                break;
            }
            let (_, r) = self.divrem(&a, &b)?;
            trail.settle(f, Step::from(&a, &b, 0), r.degree());
            (a, b) = (b, r);
            if b.is_zero() {
                break;
            }
        }
        let rest = if b.is_zero() {
            f.one()
        } else {
            resultant_euclid(&a, &b)?
        };
        let res = f.mul(&trail.factor, &rest);
        Ok(if sign { f.neg(&res) } else { res })
    }

    /// The half-gcd matrix of (a, b), deg a > deg b: (c, d) = M·(a, b) are consecutive
    /// remainders with deg c ≥ ⌈deg a / 2⌉ > deg d. The steps' resultant factors go to
    /// `trail`, at degrees shifted by `offset` (a and b are the top of the outer operands).
    fn hgcd(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        offset: usize,
        trail: &mut Trail<F>,
    ) -> Result<Matrix<F>, Error> {
        let n = a.len() - 1;
        let m = n.div_ceil(2);
        if b.degree().is_none_or(|d| d < m) {
            return Ok(Matrix::identity(&self.field));
        }
        if n < self.crossover().half_gcd_base() {
            return self.half_euclid(a, b, m, offset, trail);
        }
        // The top halves' matrix is the whole's for the first half of the sequence.
        let r = self.hgcd(&high(a, m), &high(b, m), offset + m, trail)?;
        let (c, d) = r.apply(self, a, b)?;
        if d.degree().is_none_or(|dd| dd < m) {
            return Ok(r);
        }
        trail.settle_pending(&self.field, d.degree().map(|dd| dd + offset));
        let (q, e) = self.divrem(&c, &d)?;
        trail.step(&self.field, (&c, &d, &e), m, offset);
        let qr = r.then_step(self, &q)?;
        if e.degree().is_none_or(|de| de < m) {
            return Ok(qr);
        }
        let l = d.len() - 1;
        let k = (2 * m).saturating_sub(l);
        let s = self.hgcd(&high(&d, k), &high(&e, k), offset + k, trail)?;
        s.mul(self, &qr)
    }

    /// Euclid's steps from (a, b) while the second remainder's degree is at least m, as one
    /// matrix: in place on coefficient vectors, each step's quotient (almost always one or
    /// two coefficients) multiplied into the matrix's rows as they stand, so that a step
    /// allocates nothing.
    fn half_euclid(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        m: usize,
        offset: usize,
        trail: &mut Trail<F>,
    ) -> Result<Matrix<F>, Error> {
        let f = &self.field;
        let (mut c, mut d) = (a.coeffs().to_vec(), b.coeffs().to_vec());
        let mut rows = [[vec![f.one()], Vec::new()], [Vec::new(), vec![f.one()]]];
        let mut q = Vec::new();
        while d.len() > m {
            let step = Step {
                lead: d[d.len() - 1],
                degrees: (c.len() - 1 + offset, d.len() - 1 + offset),
            };
            long_division(f, &mut c, &d, &mut q)?;
            trail.step_to(f, step, c.len().checked_sub(1), m, offset);
            // [[0, 1], [1, −q]]·rows: row 0 ← row 1, row 1 ← row 0 − q·row 1.
            let [first, second] = &mut rows;
            for (x, y) in first.iter_mut().zip(second.iter()) {
                sub_product(f, x, &q, y);
            }
            rows.swap(0, 1);
            std::mem::swap(&mut c, &mut d);
        }
        let [[a00, a01], [a10, a11]] = rows.map(|row| row.map(|p| Poly::new(f, p)));
        Ok(Matrix([a00, a01, a10, a11]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::Backend;
    use crate::poly::schoolbook_mul;
    use fermat_dsl::field::FieldSpec;
    use fermat_dsl::with_field;
    use rand::SeedableRng;

    /// Sums of products with shared operands, by shared transforms where the field has
    /// the table (P2, P3) and by the ring's products where it does not (a word prime, and
    /// plain-sized operands), against schoolbook products.
    #[test]
    fn sums_of_products_are_the_schoolbook_sums() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        for spec in ["P2", "P3", "469762049"] {
            let any = FieldSpec::parse(spec).unwrap().build().unwrap();
            with_field!(&any, f => {
                let ring = PolyRing::new(f, Backend::Cpu).unwrap();
                for (la, lb, lx, ly) in [(40, 70, 300, 200), (500, 400, 1000, 999), (3, 2, 5, 9), (100, 0, 90, 80)] {
                    let [a, b, c, d, x, y] = [la, lb, lb, la, lx, ly].map(|len| Poly::random(f, len, &mut rng));
                    let rows = [[(&a, &x), (&b, &y)], [(&c, &x), (&d, &y)], [(&a, &a), (&x, &y)]];
                    let got = sums_of_products(&ring, &rows).unwrap();
                    for (k, [(p, q), (r, s)]) in rows.iter().enumerate() {
                        let want = schoolbook_mul(p, q).unwrap().add(&schoolbook_mul(r, s).unwrap()).unwrap();
                        assert!(got[k] == want, "{spec}: row {k} of {la}, {lb}, {lx}, {ly}");
                    }
                }
            });
        }
    }
}
