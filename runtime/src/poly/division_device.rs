//! Division and the power-series inverse of device polynomials, on the device.
//!
//! The host reads only the few top coefficients of the divisor (one copy per division,
//! never one per step) and turns them into the first coefficients of the inverse by the
//! recurrence; every Newton step, product, reversal and difference after that is queued on
//! the ring's stream, the data staying on the device. Short quotients are thus a handful
//! of launches: the seed inverse covers all of them, and the quotient is one plain
//! product away.

use super::basecase::inv_series_coeffs;
use super::convolution::{Reuse, Ticket};
use super::device::DevicePoly;
use super::division::{newton_precisions, series_base};
use super::plain::{is_plain, Part, WindowAt};
use super::product::Algorithm;
use super::ring::PolyRing;
use crate::error::Error;
use crate::gpu::{Extent, Extents};
use crate::host::HostField;
use cudarc::driver::CudaViewMut;
use fermat_codegen::plain::{PlainPass, REDUCE_THREADS};

impl<F: HostField> PolyRing<F> {
    /// The quotient and remainder of device polynomials, on the device: a = q·b + r with
    /// deg r < deg b. Like every device result, q keeps len a − len b + 1 coefficients and
    /// r len b − 1, zeros at the top included (reading them back normalises them).
    ///
    /// Errors: [`Error::ZeroDivisor`] when b is zero, [`Error::NotOnGpu`] on the CPU
    /// backend, and the errors of the products.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
    /// let a = match ring.to_device(&Poly::from_u64s(&f, &[5, 0, 0, 1])) { // x³ + 5
    ///     Ok(a) => a,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `divrem` on host polynomials
    ///     Err(e) => return Err(e),
    /// };
    /// let b = ring.to_device(&Poly::from_u64s(&f, &[1, 1]))?; // x + 1
    /// let (q, r) = ring.divrem_device(&a, &b)?;
    /// assert_eq!(ring.from_device(&q)?, Poly::from_u64s(&f, &[1, 469762048, 1]));
    /// assert_eq!(ring.from_device(&r)?, Poly::from_u64s(&f, &[4]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn divrem_device(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
    ) -> Result<(DevicePoly<F>, DevicePoly<F>), Error> {
        let (n, m) = (a.len, b.len);
        if m == 0 {
            return Err(self.zero_divisor());
        }
        if n < m {
            let mut r = self.zeros(n)?;
            self.copy_into(a, n, &mut r)?;
            return Ok((self.zeros(0)?, r));
        }
        let Some(head) = self.divisor_head(b, n - m + 1)? else {
            return self.divrem_device(a, &self.normalised(b)?);
        };
        let (mut q, mut r) = (self.zeros(n - m + 1)?, self.zeros(m - 1)?);
        self.divrem_seeded(a, b, head, &mut q, &mut r)?;
        Ok((q, r))
    }

    /// [`divrem_device`](Self::divrem_device) into `q` and `r`, their contents replaced:
    /// `q` needs room for len a − len b + 1 coefficients, `r` for min(len a, len b − 1)
    /// (len b without zeros at its top).
    ///
    /// Errors: [`Error::Capacity`] when one is too small, and those of
    /// [`divrem_device`](Self::divrem_device).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let b = match ring.to_device(&Poly::from_u64s(&f, &[1, 1])) { // x + 1
    ///     Ok(b) => b,
    ///     Err(Error::NotOnGpu) => return Ok(()),
    ///     Err(e) => return Err(e),
    /// };
    /// let (mut q, mut r) = ring.divrem_device(&b, &b)?; // buffers to reuse
    /// for k in 1..=3u64 {
    ///     let a = ring.to_device(&Poly::from_u64s(&f, &[k, k]))?; // k·(x + 1)
    ///     ring.divrem_device_into(&a, &b, &mut q, &mut r)?;
    ///     assert_eq!(ring.from_device(&q)?, Poly::from_u64s(&f, &[k]));
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn divrem_device_into(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        q: &mut DevicePoly<F>,
        r: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let (n, m) = (a.len, b.len);
        if m == 0 {
            return Err(self.zero_divisor());
        }
        let head = if n >= m {
            match self.divisor_head(b, n - m + 1)? {
                Some(head) => Some(head),
                None => return self.divrem_device_into(a, &self.normalised(b)?, q, r),
            }
        } else {
            None
        };
        for (p, len) in [(&*q, (n + 1).saturating_sub(m)), (&*r, n.min(m - 1))] {
            if p.cap < len {
                return Err(Error::Capacity {
                    capacity: p.cap,
                    len,
                });
            }
        }
        match head {
            Some(head) => self.divrem_seeded(a, b, head, q, r),
            None => {
                q.set_len(0);
                self.copy_into(a, n, r)
            }
        }
    }

    /// The first coefficients of rev(b) a division of k quotient coefficients starts its
    /// inverse from (its top ones, reversed: one copy to the host), or `None` when b's top
    /// coefficient is zero. None at all when b's top coefficient is known to be nonzero (a
    /// host polynomial copied up) and the field's series kernel computes 1/f_0 itself
    /// (word primes): the inverse then starts on chip, and nothing is read back.
    fn divisor_head(&self, b: &DevicePoly<F>, k: usize) -> Result<Option<Vec<F::Elem>>, Error> {
        if b.top_nonzero && self.passes()?.tile.inverts {
            return Ok(Some(Vec::new()));
        }
        let base = k.min(series_base(&self.field));
        let head = self.download_elems(&self.reversed(b, b.len, base)?)?;
        Ok((head[0] != self.field.zero()).then_some(head))
    }

    /// A device result with zeros at its top, without them; zero is refused.
    fn normalised(&self, b: &DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        let b = self.from_device(b)?;
        if b.is_zero() {
            return Err(self.zero_divisor());
        }
        self.to_device(&b)
    }

    /// The Newton division of a by b (len a ≥ len b, b's top coefficient nonzero) from
    /// `head`, the first coefficients of rev(b) (none: the inverse starts on chip).
    fn divrem_seeded(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        head: Vec<F::Elem>,
        q: &mut DevicePoly<F>,
        r: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let (n, m) = (a.len, b.len);
        let k = n - m + 1;
        let seed = if head.is_empty() {
            Vec::new()
        } else {
            inv_series_coeffs(&self.field, &head, newton_precisions(k, head.len())[0])?
        };
        let f = self.reversed(b, m, k.min(m))?;
        let mut g = self.scratch(k)?;
        self.newton_inverse(&f, seed, &mut g)?;
        // rev(q) = rev(a)·g mod x^k.
        let ar = self.reversed(a, n, k)?;
        let mut qr = self.scratch(k)?;
        let out = qr.extent(k);
        self.middle_into(
            (&ar.data.slice(..), ar.extent(k)),
            (&g.data.slice(..), g.extent(k)),
            0,
            (&mut qr.data.slice_mut(..), out),
        )?;
        qr.set_len(k);
        self.reverse_into(&qr, k, k, q)?;
        r.set_len(0);
        if m > 1 {
            self.remainder_on_device(a, b, q, r)?;
        }
        Ok(())
    }

    /// r = a − q·b (len b > 1), which has degree below m − 1 = len b − 1 and so equals
    /// (a − q·b) mod (x^N − 1) for N = 2^⌈log₂ max(len q, m)⌉ ≥ m − 1: one cyclic
    /// product of N points, where the product q·b would take 2N once len a > N, and a
    /// folded: r_t = a_t + a_(t+N) − (q·b mod (x^N − 1))_t, len a < 2N (bench/RESULTS.md,
    /// "Division round 6").
    fn remainder_on_device(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        q: &DevicePoly<F>,
        r: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let (n, m, k) = (a.len, b.len, q.len);
        let points = k.max(m).next_power_of_two();
        let mut qb = self.scratch(m - 1)?;
        let out = qb.extent(m - 1);
        let plan = self.product_plan(k, m)?;
        if n > points && plan.algorithm != Algorithm::Zero && !is_plain(&plan) {
            self.window_of_cyclic(
                points as u64,
                (&q.data.slice(..), q.extent(k)),
                (&b.data.slice(..), b.extent(m)),
                0,
                (&mut qb.data.slice_mut(..), out),
                Reuse::Nothing,
            )?;
            // qb − a_(N..), so that a − (qb − a_(N..)) folds a.
            let mut folded = self.scratch(m - 1)?;
            let out_folded = folded.extent(m - 1);
            let high = Extent {
                len: (n - points) as u64,
                limit: (n - points) as u64,
                ..a.extent(0)
            };
            self.elementwise(
                PlainPass::Difference,
                (&qb.data.slice(..), out),
                (&a.data.slice(points..), high),
                (&mut folded.data.slice_mut(..), out_folded),
            )?;
            qb = folded;
        } else {
            self.middle_into(
                (&q.data.slice(..), q.extent(k)),
                (&b.data.slice(..), b.extent(m)),
                0,
                (&mut qb.data.slice_mut(..), out),
            )?;
        }
        let out = r.extent(m - 1);
        self.elementwise(
            PlainPass::Difference,
            (&a.data.slice(..), a.extent(n.min(m - 1))),
            (&qb.data.slice(..), qb.extent(m - 1)),
            (&mut r.data.slice_mut(..), out),
        )?;
        r.set_len(m - 1);
        Ok(())
    }

    /// The inverse of the power series f mod x^n, on the device: g of degree below n with
    /// f·g ≡ 1 (mod x^n), kept with all n coefficients.
    ///
    /// Errors: [`Error::SeriesNotInvertible`] when f(0) = 0, [`Error::NotOnGpu`] on the
    /// CPU backend, and the errors of the products (n beyond the field's transforms).
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
    /// let s = match ring.to_device(&Poly::from_u64s(&f, &[1, 469762048])) { // 1 − x
    ///     Ok(s) => s,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `inv_series`
    ///     Err(e) => return Err(e),
    /// };
    /// let g = ring.from_device(&ring.inv_series_device(&s, 1 << 16)?)?;
    /// assert!(g.len() == 1 << 16 && g.coeffs().iter().all(|c| *c == f.one()));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn inv_series_device(&self, f: &DevicePoly<F>, n: usize) -> Result<DevicePoly<F>, Error> {
        // The last step's products are as long as one of n by n: refuse what they cannot do.
        self.product_plan(n, n)?;
        if n == 0 {
            return self.zeros(0);
        }
        let mut g = self.scratch(n)?;
        if f.constant_nonzero && self.passes()?.tile.inverts {
            // f(0) ≠ 0 was read on the host: the inverse starts on chip, nothing read back.
            self.newton_inverse(f, Vec::new(), &mut g)?;
            return Ok(g);
        }
        let base = n.min(series_base(&self.field));
        let mut head = self.zeros(base)?;
        self.copy_into(f, f.len.min(base), &mut head)?;
        let head = self.download_elems(&head)?;
        let seed = inv_series_coeffs(&self.field, &head, newton_precisions(n, base)[0])?;
        self.newton_inverse(f, seed, &mut g)?;
        Ok(g)
    }

    /// Newton's iteration for the inverse of f mod x^n from the first coefficients of the
    /// inverse, `seed` (none: from 1/f_0, which the series kernel computes where its tile
    /// [`inverts`](fermat_codegen::plain::Tile::inverts)): each step about doubles the
    /// coefficients known, ℓ → ℓ′ ≤ 2ℓ ([`newton_precisions`]), with e = [f·g]_[ℓ, ℓ′)
    /// (a middle product: the lower coefficients of f·g are those of 1) and
    /// g_[ℓ, ℓ′) = −(g·e mod x^(ℓ′ − ℓ)). A step is two products and nothing else: e′ = −e
    /// comes from −f, negated once, and is read where its cyclic product left it; g·e′
    /// goes straight into g. Writes all n = `g.cap` coefficients of g.
    fn newton_inverse(
        &self,
        f: &DevicePoly<F>,
        seed: Vec<F::Elem>,
        g: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let n = g.cap;
        let start = seed.len();
        if start > 0 {
            let seed = self.to_device(&super::host::Poly::new(&self.field, seed))?;
            let out = g.extent(start);
            self.elementwise(
                PlainPass::Difference,
                (&seed.data.slice(..), seed.extent(seed.len)),
                (&seed.data.slice(..), seed.extent(0)),
                (&mut g.data.slice_mut(..), out),
            )?;
        }
        // The first steps in one block, to as many coefficients as its shared memory holds.
        let on_chip = n.min(self.passes()?.tile.series as usize);
        if on_chip > start {
            let stream = self.device()?.stream().clone();
            let extents = Extents {
                source: f.extent(f.len.min(on_chip)),
                destination: g.extent(on_chip),
                low: start as u64,
                ..Extents::whole(1)
            };
            self.passes()?.run_plain(
                &stream,
                PlainPass::Series,
                (1, 1),
                (
                    &f.data.slice(..),
                    &f.data.slice(..),
                    &mut g.data.slice_mut(..),
                ),
                extents,
            )?;
        }
        let precisions = newton_precisions(n, on_chip.max(start));
        if precisions.len() < 2 {
            g.set_len(n);
            return Ok(());
        }
        // The steps multiply −f, so that g·e′ is −h, g's next coefficients, which a
        // product can write straight into g: one negation instead of a difference a step.
        let len_f = f.len.min(n);
        let mut minus_f = self.scratch(len_f)?;
        self.negate_into(f, len_f, &mut minus_f)?;
        let half = n.div_ceil(2).max(1);
        // e′ stays inside its cyclic product, in `whole`, where the product takes one.
        let (mut e, mut whole) = (self.scratch(half)?, self.scratch(n.next_power_of_two())?);
        let mut h = None;
        for precision in precisions.windows(2) {
            let (have, step) = (precision[0], precision[1] - precision[0]);
            let out_e = e.extent(step);
            // e′ = [(−f)·g]_[have, have + step) = −e.
            let (ticket, at) = self.middle_into_with(
                (
                    &minus_f.data.slice(..),
                    minus_f.extent(len_f.min(have + step)),
                ),
                (&g.data.slice(..), g.extent(have)),
                have,
                (&mut e.data.slice_mut(..), out_e),
                Reuse::Keep,
                Some(&mut whole),
            )?;
            let (e_view, e_extent) = match at {
                WindowAt::Whole => (whole.data.slice(have..), whole.extent(0)),
                WindowAt::Destination => (e.data.slice(..), e.extent(0)),
            };
            let e_part = Extent {
                len: step as u64,
                limit: step as u64,
                ..e_extent
            };
            self.newton_update(g, have, (&e_view, e_part), ticket, &mut h)?;
        }
        g.set_len(n);
        Ok(())
    }

    /// g's coefficients have..have + len e′ = g·e′ mod x^(len e′), e′ = −e: the Newton
    /// step's −h (with g's transform from e′'s product where `ticket` says it is kept).
    /// Where a coefficient is one word the product reads g below `have` and writes it
    /// from there; an SRGFN's digits interleave the two ranges, so its −h goes through
    /// `h` (made on first use) and a copy.
    fn newton_update(
        &self,
        g: &mut DevicePoly<F>,
        have: usize,
        e: Part<'_, '_, F::Word>,
        ticket: Option<Ticket>,
        h: &mut Option<DevicePoly<F>>,
    ) -> Result<(), Error> {
        let step = e.1.len as usize;
        // g is read to `have`, as in e′'s product, so that its transform there serves
        // again (neither −f nor g was written since): its coefficients from `step` ≤
        // `have` up only reach the product past the window.
        let (low, out) = (g.extent(have), g.extent(step));
        if self.field.words() == 1 {
            let (below, mut above) = g.data.split_at_mut(have);
            self.middle_into_with(
                (&below.as_view(), low),
                e,
                0,
                (&mut above, out),
                ticket.map_or(Reuse::Nothing, Reuse::From),
                None,
            )?;
            return Ok(());
        }
        let h = match h {
            Some(h) => h,
            None => h.insert(self.scratch(g.cap.div_ceil(2).max(1))?),
        };
        let out_h = h.extent(step);
        self.middle_into_with(
            (&g.data.slice(..), low),
            e,
            0,
            (&mut h.data.slice_mut(..), out_h),
            ticket.map_or(Reuse::Nothing, Reuse::From),
            None,
        )?;
        let view_h = h.data.slice(..);
        self.elementwise(
            PlainPass::Difference,
            (&view_h, out_h),
            (&view_h, h.extent(0)),
            (&mut g.data.slice_mut(have..), out),
        )
    }

    /// The difference a − b of device polynomials, on the device, with max(len a, len b)
    /// coefficients (zeros at the top kept, as every device result keeps them).
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[1, 2, 3]), Poly::from_u64s(&f, &[5, 2]));
    /// let (da, db) = match (ring.to_device(&a), ring.to_device(&b)) {
    ///     (Ok(da), Ok(db)) => (da, db),
    ///     (Err(Error::NotOnGpu), _) => return Ok(()), // on the CPU: `Poly::sub`
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// };
    /// let c = ring.sub_device(&da, &db)?;
    /// assert_eq!(ring.from_device(&c)?, a.sub(&b)?); // 469762045 + 3x²
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn sub_device(&self, a: &DevicePoly<F>, b: &DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        let len = a.len.max(b.len);
        let mut out = self.scratch(len)?;
        let extent = out.extent(len);
        self.elementwise(
            PlainPass::Difference,
            (&a.data.slice(..), a.extent(a.len)),
            (&b.data.slice(..), b.extent(b.len)),
            (&mut out.data.slice_mut(..), extent),
        )?;
        out.set_len(len);
        Ok(out)
    }

    /// The first `len` coefficients of −p into `out` (zero past len p), `out.len` set to
    /// `len`.
    fn negate_into(
        &self,
        p: &DevicePoly<F>,
        len: usize,
        out: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        // A difference with an empty first operand.
        self.unary_into(PlainPass::Difference, p, (0, len.min(p.len)), len, out)
    }

    /// A new device polynomial of the first `len` coefficients of x^(about − 1)·p(1/x):
    /// coefficient t is p_(about − 1 − t), zero past `about`.
    pub(super) fn reversed(
        &self,
        p: &DevicePoly<F>,
        about: usize,
        len: usize,
    ) -> Result<DevicePoly<F>, Error> {
        let mut out = self.scratch(len)?;
        self.reverse_into(p, about, len, &mut out)?;
        Ok(out)
    }

    /// The first `len` coefficients of x^(about − 1)·p(1/x) into `out`, `out.len` set to
    /// `len`.
    fn reverse_into(
        &self,
        p: &DevicePoly<F>,
        about: usize,
        len: usize,
        out: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        self.unary_into(PlainPass::Reverse, p, (about, 0), len, out)
    }

    /// The first `len` coefficients of p copied into `out` (zero past len p), `out.len`
    /// set to `len`.
    fn copy_into(
        &self,
        p: &DevicePoly<F>,
        len: usize,
        out: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        // A difference with an empty second operand.
        self.unary_into(PlainPass::Difference, p, (len.min(p.len), 0), len, out)
    }

    /// `pass` of p against itself, its first `src_len` coefficients as the first operand
    /// and its first `fac_len` as the second (one of them empty: p alone), `len` outputs
    /// into `out`.
    fn unary_into(
        &self,
        pass: PlainPass,
        p: &DevicePoly<F>,
        (src_len, fac_len): (usize, usize),
        len: usize,
        out: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let extent = out.extent(len);
        let view = p.data.slice(..);
        self.elementwise(
            pass,
            (&view, p.extent(src_len)),
            (&view, p.extent(fac_len)),
            (&mut out.data.slice_mut(..), extent),
        )?;
        out.set_len(len);
        Ok(())
    }

    /// Queues one of the elementwise kernels ([`PlainPass::Reverse`],
    /// [`PlainPass::Difference`]) over the outputs `out`.
    pub(super) fn elementwise(
        &self,
        pass: PlainPass,
        src: Part<'_, '_, F::Word>,
        fac: Part<'_, '_, F::Word>,
        (dst, out): (&mut CudaViewMut<'_, F::Word>, Extent),
    ) -> Result<(), Error> {
        if out.len == 0 {
            return Ok(());
        }
        let stream = self.device()?.stream().clone();
        self.passes()?.run_plain(
            &stream,
            pass,
            (out.len.div_ceil(u64::from(REDUCE_THREADS)), 1),
            (src.0, fac.0, dst),
            Extents {
                source: src.1,
                factor: fac.1,
                destination: out,
                ..Extents::whole(1)
            },
        )?;
        Ok(())
    }

    /// All `capacity` coefficients of a device polynomial, read back and checked.
    pub(super) fn download_elems(&self, p: &DevicePoly<F>) -> Result<Vec<F::Elem>, Error> {
        let host = self.download(&p.data, p.cap)?;
        Ok(host
            .iter()
            .take(p.len)
            .map(|h| self.field.to_elem(h))
            .collect::<Result<_, _>>()?)
    }

    fn zero_divisor(&self) -> Error {
        Error::ZeroDivisor {
            field: self.field.name(),
        }
    }
}
