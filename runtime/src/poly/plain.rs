//! Plain products on the GPU, middle products, and batches of products: the kernels of
//! [`fermat_codegen::plain`] launched for a [`PolyRing`], and the operations built on them
//! and on the cyclic products.

use super::convolution::{Reuse, Ticket};
use super::device::DevicePoly;
use super::host::Poly;
use super::product::{Algorithm, Cyclic, ProductPlan};
use super::ring::PolyRing;
use super::route::{Route, Shape};
use super::schoolbook::schoolbook_mul_middle;
use crate::cpu::on_the_pool;
use crate::error::Error;
use crate::gpu::{Extent, Extents, GpuError, GpuPasses};
use crate::host::HostField;
use cudarc::driver::{CudaStream, CudaView, CudaViewMut, DeviceRepr};
use fermat_codegen::plain::{PlainPass, REDUCE_THREADS};

/// Blocks a plain product should have at least, to fill an H200's 132 multiprocessors
/// twice: the chunk of terms per block shrinks (to [`MIN_CHUNK`]) until it does.
const FILL_BLOCKS: u64 = 264;
/// The fewest terms a block of a plain product sums.
const MIN_CHUNK: u64 = 32;
/// Partial rows a thread of the reduction adds at most when few outputs leave most of the
/// device idle: more are added in two stages.
const REDUCE_DEPTH: u64 = 32;

/// `dst` row i = the sum of rows i·t..(i + 1)·t of `src` (of `rows.len` coefficients
/// each), i < `sums`, t = the rows of `src` / `sums`.
fn reduce_rows<W: DeviceRepr>(
    passes: &GpuPasses,
    stream: &CudaStream,
    (src, rows): (&CudaView<'_, W>, Extent),
    (dst, destination): (&mut CudaViewMut<'_, W>, Extent),
    sums: u64,
) -> Result<(), GpuError> {
    passes.run_plain(
        stream,
        PlainPass::Reduce,
        (destination.len.div_ceil(u64::from(REDUCE_THREADS)), sums),
        (src, src, dst),
        Extents {
            source: rows,
            destination,
            terms: rows.limit / rows.len.max(1) / sums,
            ..Extents::whole(1)
        },
    )
}

/// `rows` rows of `len` coefficients each, one after another in one vector.
fn rows_of(len: u64, rows: u64) -> Extent {
    Extent {
        len,
        limit: rows * len,
        dist: len,
        stride: rows * len,
    }
}

/// Where a middle product left its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WindowAt {
    /// In the destination, from its first coefficient.
    Destination,
    /// In the room given for the whole cyclic product, from coefficient lo.
    Whole,
}

/// A device vector and where its polynomials lie in it.
pub(super) type Part<'a, 'b, W> = (&'a CudaView<'b, W>, Extent);

/// A part as a convolution's operand.
fn source<'a, 'b, W>(
    (data, extent): Part<'a, 'b, W>,
) -> super::convolution::DeviceSource<'a, 'b, W> {
    super::convolution::DeviceSource { data, extent }
}

impl<F: HostField> PolyRing<F> {
    /// Queues `count` plain products on the device's stream: outputs lo..lo + len of
    /// product q = a_q·b_q into part q of `c`, each vector's part q at q·dist.
    pub(super) fn plain_device(
        &self,
        a: Part<'_, '_, F::Word>,
        b: Part<'_, '_, F::Word>,
        (lo, len): (u64, u64),
        (c, c_extent): (&mut CudaViewMut<'_, F::Word>, Extent),
        count: u64,
    ) -> Result<(), Error> {
        // The shorter factor is chunked: fewer partial sums to add.
        let (a, b) = if a.1.len <= b.1.len { (a, b) } else { (b, a) };
        let passes = self.passes()?;
        let tile = passes.tile;
        let tiles = len.div_ceil(u64::from(tile.outputs));
        let mut chunk = u64::from(tile.chunk);
        while chunk > MIN_CHUNK && tiles * a.1.len.div_ceil(chunk) * count < FILL_BLOCKS {
            chunk /= 2;
        }
        let mut terms = a.1.len.div_ceil(chunk).max(1);
        // Few outputs over many partial rows (the coefficients a middle product wraps, each
        // a sum over the whole shorter factor): one thread per output adding thousands of
        // rows in turn took 80 µs at 2^19 terms, so the rows are added in two stages,
        // groups of REDUCE_DEPTH rows first. Rows past the factor's end are zeros.
        let reduce_blocks = len.div_ceil(u64::from(REDUCE_THREADS)) * count;
        let groups = if terms > REDUCE_DEPTH && reduce_blocks < FILL_BLOCKS {
            terms = terms.next_multiple_of(REDUCE_DEPTH);
            terms / REDUCE_DEPTH
        } else {
            1
        };
        let stream = self.device()?.stream().clone();
        let extents = |destination: Extent| Extents {
            source: a.1,
            destination,
            factor: b.1,
            low: lo,
            terms,
            block: chunk,
            ..Extents::whole(1)
        };
        if terms == 1 {
            return Ok(passes.run_plain(
                &stream,
                PlainPass::Product,
                (tiles, count),
                (a.0, b.0, c),
                extents(c_extent),
            )?);
        }
        let rows = count * terms;
        let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let [partial, sums, _] = &mut *work;
        let partial = self.work_buffer(partial, (rows * len) as usize)?;
        let partials = rows_of(len, rows);
        passes.run_plain(
            &stream,
            PlainPass::Product,
            (tiles, rows),
            (a.0, b.0, &mut partial.slice_mut(..)),
            extents(partials),
        )?;
        let view = partial.slice(..);
        if groups == 1 {
            return Ok(reduce_rows(
                &passes,
                &stream,
                (&view, partials),
                (c, c_extent),
                count,
            )?);
        }
        let grouped = rows_of(len, count * groups);
        let sums = self.work_buffer(sums, (count * groups * len) as usize)?;
        reduce_rows(
            &passes,
            &stream,
            (&view, partials),
            (&mut sums.slice_mut(..), grouped),
            count * groups,
        )?;
        reduce_rows(
            &passes,
            &stream,
            (&sums.slice(..), grouped),
            (c, c_extent),
            count,
        )?;
        Ok(())
    }

    /// Coefficients lo..lo + len of a·b (the middle product: what Newton division needs),
    /// normalised, on the ring's backend: plain where the product would be, else from one
    /// cyclic product of N ≥ lo + len points, smaller than the whole product's: the
    /// coefficients it wraps land below lo, or, just above a power of two, are few enough
    /// to be subtracted again by a plain product of them.
    ///
    /// Errors: [`Error::FieldMismatch`], and [`Error::ProductTooLong`] when N exceeds the
    /// field's transforms.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 3, 4]);
    /// let b = Poly::from_u64s(&f, &[5, 6]); // a·b = 5 + 16x + 27x² + 38x³ + 24x⁴
    /// assert_eq!(ring.mul_middle(&a, &b, 1, 3)?, Poly::from_u64s(&f, &[16, 27, 38]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_middle(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        lo: usize,
        len: usize,
    ) -> Result<Poly<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        let plan = self.product_plan(a.len(), b.len())?;
        if let Some(host) = self.host_for(plan.len())? {
            return host.mul_middle(a, b, lo, len);
        }
        if self.device.is_some() && !plan.is_empty() {
            let c = self.mul_middle_device(&self.to_device(a)?, &self.to_device(b)?, lo, len)?;
            return self.from_device(&c);
        }
        match plan.algorithm {
            Algorithm::Zero => Ok(Poly::new(&self.field, Vec::new())),
            _ if is_plain(&plan) || narrow_window(&plan, len) => {
                schoolbook_mul_middle(a, b, lo, lo + len)
            }
            _ => {
                // On the CRT route the primes compute the window only (bench/RESULTS.md,
                // "CPU round 5"); where the route takes no digits, the field's transforms.
                let by_crt = match self.route(a.len(), b.len())? {
                    Route::Crt { .. } => {
                        self.crt_product_in_digits(a, Some(b), Shape::Middle { lo, len })?
                    }
                    Route::Field(_) => None,
                };
                match by_crt {
                    Some(c) => Ok(c),
                    None => self.mul_middle_by_transforms(a, b, (&plan, lo, len)),
                }
            }
        }
    }

    /// Coefficients [lo, lo + len) of a·b by the field's own cyclic product of N points
    /// (see `middle_points`), with the coefficients that wrapped into the window taken out
    /// again by a plain product.
    fn mul_middle_by_transforms(
        &self,
        a: &Poly<F>,
        b: &Poly<F>,
        (plan, lo, len): (&ProductPlan, usize, usize),
    ) -> Result<Poly<F>, Error> {
        let (n, wrapped) = middle_points(plan, lo, len, self.field.two_adicity())?;
        let mut c = vec![self.field.zero(); (lo + len).min(n as usize)];
        on_the_pool(|| {
            let (a, b) = (a.coeffs(), Some(b.coeffs()));
            self.convolution(n)?.cyclic_host(&self.field, a, b, &mut c)
        })?;
        let mut window: Vec<F::Elem> = c.get(lo..).unwrap_or(&[]).to_vec();
        window.resize(len, self.field.zero());
        // The coefficients that wrapped into the window, taken out again.
        let extra = schoolbook_mul_middle(a, b, wrapped.start, wrapped.end)?;
        for (i, t) in wrapped.enumerate() {
            let w = &mut window[t - n as usize - lo];
            *w = self.field.sub(w, &extra.coeff(i));
        }
        Ok(Poly::new(&self.field, window))
    }

    /// [`mul_middle`](Self::mul_middle) of device polynomials, on the device. The result
    /// keeps all `len` coefficients, zeros at the top included (reading it back normalises
    /// it), so that nothing waits for the device to know its degree.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let (a, b) = (Poly::from_u64s(&f, &[1, 2, 3, 4]), Poly::from_u64s(&f, &[5, 6]));
    /// let da = match ring.to_device(&a) {
    ///     Ok(a) => a,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `mul_middle`
    ///     Err(e) => return Err(e),
    /// };
    /// let db = ring.to_device(&b)?;
    /// let middle = ring.mul_middle_device(&da, &db, 1, 3)?;
    /// assert_eq!(middle.len(), 3);
    /// assert_eq!(ring.from_device(&middle)?, ring.mul_middle(&a, &b, 1, 3)?);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_middle_device(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        lo: usize,
        len: usize,
    ) -> Result<DevicePoly<F>, Error> {
        let mut c = self.zeros(len)?;
        let out = c.extent(len);
        self.middle_into(
            (&a.data.slice(..), a.extent(a.len)),
            (&b.data.slice(..), b.extent(b.len)),
            lo,
            (&mut c.data.slice_mut(..), out),
        )?;
        c.set_len(if a.len == 0 || b.len == 0 { 0 } else { len });
        Ok(c)
    }

    /// Queues coefficients lo..lo + `out.len` of the product of the parts a and b into
    /// `out`: plain where the ring's crossover says, else a window of one cyclic product.
    /// Nothing is written when a factor is empty.
    pub(super) fn middle_into(
        &self,
        a: Part<'_, '_, F::Word>,
        b: Part<'_, '_, F::Word>,
        lo: usize,
        c: (&mut CudaViewMut<'_, F::Word>, Extent),
    ) -> Result<(), Error> {
        self.middle_into_with(a, b, lo, c, Reuse::Nothing, None)
            .map(drop)
    }

    /// [`middle_into`](Self::middle_into), telling the cyclic product what to do with its
    /// second factor's transform (`reuse`: keep it, or take the one a [`Ticket`] from the
    /// middle product before names) and returning the ticket it gives (see
    /// `Convolution::cyclic_device`): a factor of both keeps its transform.
    ///
    /// With room for the whole cyclic product (`whole`, of capacity at least its points),
    /// a window that does not start at 0 is left inside it, at coefficient lo, instead of
    /// copied out into `c`; the answer says which.
    pub(super) fn middle_into_with(
        &self,
        a: Part<'_, '_, F::Word>,
        b: Part<'_, '_, F::Word>,
        lo: usize,
        (c, out): (&mut CudaViewMut<'_, F::Word>, Extent),
        reuse: Reuse,
        whole: Option<&mut DevicePoly<F>>,
    ) -> Result<(Option<Ticket>, WindowAt), Error> {
        let plan = self.product_plan(a.1.len as usize, b.1.len as usize)?;
        match plan.algorithm {
            Algorithm::Zero => Ok((None, WindowAt::Destination)),
            _ if is_plain(&plan) || narrow_window(&plan, out.len as usize) => self
                .plain_device(a, b, (lo as u64, out.len), (c, out), 1)
                .map(|()| (None, WindowAt::Destination)),
            _ => {
                let (n, wrapped) =
                    middle_points(&plan, lo, out.len as usize, self.field.two_adicity())?;
                match whole {
                    Some(whole) if lo > 0 && whole.cap as u64 >= n => {
                        let stream = self.device()?.stream().clone();
                        let ticket = self.convolution(n)?.cyclic_device(
                            &stream,
                            source(a),
                            Some(source(b)),
                            super::convolution::DeviceDestination {
                                extent: whole.extent(n as usize),
                                data: &mut whole.data.slice_mut(..),
                            },
                            1,
                            reuse,
                        )?;
                        let window = Extent {
                            len: out.len,
                            limit: out.len,
                            ..whole.extent(0)
                        };
                        let mut c = whole.data.slice_mut(lo..);
                        self.subtract_wrapped(a, b, (lo, n), wrapped, (&mut c, window))?;
                        Ok((ticket, WindowAt::Whole))
                    }
                    _ => {
                        let ticket = self.window_of_cyclic(n, a, b, lo, (c, out), reuse)?;
                        self.subtract_wrapped(a, b, (lo, n), wrapped, (c, out))?;
                        Ok((ticket, WindowAt::Destination))
                    }
                }
            }
        }
    }

    /// Takes out of the window lo.. in c of a cyclic product of n points of a and b the
    /// coefficients that wrapped into it, `wrapped` of the whole product, by a plain
    /// product (through a copy: the difference kernel's operands are distinct).
    fn subtract_wrapped(
        &self,
        a: Part<'_, '_, F::Word>,
        b: Part<'_, '_, F::Word>,
        (lo, n): (usize, u64),
        wrapped: std::ops::Range<usize>,
        (c, out): (&mut CudaViewMut<'_, F::Word>, Extent),
    ) -> Result<(), Error> {
        if wrapped.is_empty() {
            return Ok(());
        }
        let w = wrapped.len();
        let (mut extra, mut fixed) = (self.scratch(w)?, self.scratch(w)?);
        let (extra_out, fixed_out) = (extra.extent(w), fixed.extent(w));
        self.plain_device(
            a,
            b,
            (wrapped.start as u64, w as u64),
            (&mut extra.data.slice_mut(..), extra_out),
            1,
        )?;
        let at = wrapped.start - n as usize - lo;
        let part = Extent {
            len: w as u64,
            limit: w as u64,
            ..out
        };
        self.elementwise(
            PlainPass::Difference,
            (&c.slice(at..), part),
            (&extra.data.slice(..), extra_out),
            (&mut fixed.data.slice_mut(..), fixed_out),
        )?;
        let view = fixed.data.slice(..);
        self.elementwise(
            PlainPass::Difference,
            (&view, fixed_out),
            (&view, fixed.extent(0)),
            (&mut c.slice_mut(at..), part),
        )
    }

    /// Coefficients lo.. of the cyclic product of n points of a and b into c: straight
    /// from the inverse transform when the window starts at 0, else through a work buffer
    /// (the copy of the window is a reduction of one row). `reuse` and the result as in
    /// [`middle_into_with`](Self::middle_into_with).
    pub(super) fn window_of_cyclic(
        &self,
        n: u64,
        a: Part<'_, '_, F::Word>,
        b: Part<'_, '_, F::Word>,
        lo: usize,
        (c, out): (&mut CudaViewMut<'_, F::Word>, Extent),
        reuse: Reuse,
    ) -> Result<Option<Ticket>, Error> {
        let stream = self.device()?.stream().clone();
        if lo == 0 && out.len <= n {
            return self.convolution(n)?.cyclic_device(
                &stream,
                source(a),
                Some(source(b)),
                super::convolution::DeviceDestination {
                    extent: Extent { dist: 0, ..out },
                    data: c,
                },
                1,
                reuse,
            );
        }
        let passes = self.passes()?;
        let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let r = self.work_buffer(&mut work[0], n as usize)?;
        let full = Extent::first(n, n);
        let ticket = self.convolution(n)?.cyclic_device(
            &stream,
            source(a),
            Some(source(b)),
            super::convolution::DeviceDestination {
                extent: full,
                data: &mut r.slice_mut(..),
            },
            1,
            reuse,
        )?;
        let from = (lo as u64).min(n) as usize;
        let window = Extent {
            len: out.len.min(n - from as u64),
            ..out
        };
        let src = r.slice(from..);
        passes.run_plain(
            &stream,
            PlainPass::Reduce,
            (window.len.div_ceil(u64::from(REDUCE_THREADS)).max(1), 1),
            (&src, &src, c),
            Extents {
                source: full,
                destination: window,
                terms: 1,
                ..Extents::whole(1)
            },
        )?;
        Ok(ticket)
    }
}

/// Whether `plan` multiplies plain (on the GPU's tiles or by the CPU's schoolbook).
pub(super) fn is_plain(plan: &ProductPlan) -> bool {
    matches!(plan.algorithm, Algorithm::Plain | Algorithm::Schoolbook)
}

/// Whether `len` coefficients of the product of `plan`'s operands cost less plain (len
/// products per coefficient of the shorter operand) than from their cyclic product, of at
/// least the longer operand's length in points (about N·log2 N products for its three
/// transforms): the last step of a Newton inverse to 2^19 + 1 needs one coefficient.
fn narrow_window(plan: &ProductPlan, len: usize) -> bool {
    let terms = plan.len_a.min(plan.len_b) as u64;
    let n = plan.len_a.max(plan.len_b).next_power_of_two() as u64;
    (len as u64) * terms <= n * u64::from(n.trailing_zeros())
}

/// The points N of the cyclic product a middle product lo..lo + len of `plan`'s operands
/// takes, and the coefficients of the whole product that wrap into its window: the power
/// of two N ≥ lo + len, len a, len b, with the wrapped coefficients (c_t, t ∈ [lo + N, lo + len + N))
/// left to a plain product while they cost less than the transforms N saves, else the
/// power of two with none (N ≥ len a + len b − 1 − lo).
fn middle_points(
    plan: &ProductPlan,
    lo: usize,
    len: usize,
    two_adicity: u32,
) -> Result<(u64, std::ops::Range<usize>), Error> {
    let whole = plan.len();
    // The operands fit the cyclic product unfolded.
    let fit = (lo + len).max(plan.len_a).max(plan.len_b).max(2);
    let small = fit.next_power_of_two();
    let wrapped = (lo + small).min(whole)..(lo + len + small).min(whole);
    let terms = plan.len_a.min(plan.len_b);
    // Coefficients at or past lo + 2N would wrap twice: then only the larger N serves.
    let n = if whole <= lo + 2 * small
        && (wrapped.len() as u64) * (terms as u64)
            <= (small as u64) * u64::from(small.trailing_zeros())
    {
        small
    } else {
        fit.max(whole.saturating_sub(lo)).next_power_of_two()
    };
    let max_log = two_adicity.min(62);
    if n.trailing_zeros() > max_log {
        return Err(Error::ProductTooLong {
            len_a: plan.len_a,
            len_b: plan.len_b,
            len: n as u64,
            max: 1 << max_log,
        });
    }
    let wrapped = if n == small { wrapped } else { 0..0 };
    Ok((n as u64, wrapped))
}
