//! Products of device polynomials: the plan's algorithm run on views of device memory,
//! so that a caller's rows of one buffer (the CRT route's residues) serve as polynomials.

use super::convolution::{DeviceDestination, DeviceSource, Reuse};
use super::device::{DevicePoly, PolyView, PolyViewMut};
use super::product::{Algorithm, Cyclic, ProductPlan};
use super::ring::PolyRing;
use crate::error::Error;
use crate::gpu::{Extent, Extents};
use crate::host::HostField;
use cudarc::driver::{CudaSlice, CudaStream, CudaView};
use fermat_codegen::poly::ProductPass;
use std::sync::Arc;

impl<F: HostField> PolyRing<F> {
    /// The product a·b of device polynomials, on the device: the work is queued on the
    /// device's stream and the result stays there ([`DevicePoly`] has an example).
    pub fn mul_device(&self, a: &DevicePoly<F>, b: &DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        let plan = self.product_plan(a.len, b.len)?;
        let mut c = self.zeros(plan.len())?;
        self.run_device(&plan, &a.view(), Some(&b.view()), &mut c.view_mut())?;
        c.set_len(plan.len());
        Ok(c)
    }

    /// The square a² of a device polynomial, on the device: two transforms instead of
    /// three.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let a = Poly::from_u64s(&f, &(1..=5000).collect::<Vec<u64>>());
    /// let on_device = match ring.to_device(&a) {
    ///     Ok(a) => a,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `sqr`
    ///     Err(e) => return Err(e),
    /// };
    /// let c = ring.sqr_device(&on_device)?;
    /// assert_eq!(ring.from_device(&c)?, ring.sqr(&a)?);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn sqr_device(&self, a: &DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        let plan = self.product_plan(a.len, a.len)?;
        let mut c = self.zeros(plan.len())?;
        self.run_device(&plan, &a.view(), None, &mut c.view_mut())?;
        c.set_len(plan.len());
        Ok(c)
    }

    /// The product a·b written into `c` (its capacity at least the product's length, its
    /// contents replaced): products without allocating their result.
    ///
    /// Errors: [`Error::Capacity`] when `c` has too little room; those of
    /// [`mul_device`](Self::mul_device).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let a = Poly::from_u64s(&f, &[1, 2, 3]);
    /// let a = match ring.to_device(&a) {
    ///     Ok(a) => a,
    ///     Err(Error::NotOnGpu) => return Ok(()),
    ///     Err(e) => return Err(e),
    /// };
    /// let mut c = ring.poisoned_device(5)?; // room for the product, every word poisoned
    /// ring.mul_device_into(&a, &a, &mut c)?;
    /// assert_eq!(ring.from_device(&c)?, Poly::from_u64s(&f, &[1, 4, 10, 12, 9]));
    /// let mut small = ring.poisoned_device(4)?;
    /// let err = ring.mul_device_into(&a, &a, &mut small).unwrap_err();
    /// assert!(matches!(err, Error::Capacity { capacity: 4, len: 5 }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_device_into(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
        c: &mut DevicePoly<F>,
    ) -> Result<(), Error> {
        let plan = self.product_plan(a.len, b.len)?;
        if c.cap < plan.len() {
            return Err(Error::Capacity {
                capacity: c.cap,
                len: plan.len(),
            });
        }
        self.run_device(&plan, &a.view(), Some(&b.view()), &mut c.view_mut())?;
        c.set_len(plan.len());
        Ok(())
    }

    /// The product a·b (a² without `b`) by `plan`, queued on the device's stream: its
    /// `plan.len()` coefficients written into `c`, whose room the caller has checked.
    pub(crate) fn run_device(
        &self,
        plan: &ProductPlan,
        a: &PolyView<'_, F::Word>,
        b: Option<&PolyView<'_, F::Word>>,
        c: &mut PolyViewMut<'_, F::Word>,
    ) -> Result<(), Error> {
        let stream = self.device()?.stream().clone();
        self.run_device_on(&stream, plan, a, b, c)
    }

    /// [`run_device`](Self::run_device) queued on `stream`, which the caller orders with
    /// the device's stream. The plain and split products queue on the device's stream
    /// (the split one forks from it itself): on another stream they join it both ways.
    pub(crate) fn run_device_on(
        &self,
        stream: &Arc<CudaStream>,
        plan: &ProductPlan,
        a: &PolyView<'_, F::Word>,
        b: Option<&PolyView<'_, F::Word>>,
        c: &mut PolyViewMut<'_, F::Word>,
    ) -> Result<(), Error> {
        let device = self.device()?.clone();
        let main = device.stream();
        if !Arc::ptr_eq(stream, main)
            && matches!(plan.algorithm, Algorithm::Plain | Algorithm::Split { .. })
        {
            device.join(main, stream)?;
            self.run_device_on(main, plan, a, b, c)?;
            return Ok(device.join(stream, main)?);
        }
        let stream = stream.clone();
        let len = plan.len();
        let other = b.unwrap_or(a);
        match plan.algorithm {
            Algorithm::Zero | Algorithm::Schoolbook => {}
            Algorithm::Plain => {
                let (va, vb) = (a.data.slice(..), other.data.slice(..));
                let out = c.extent(len);
                self.plain_device(
                    (&va, a.whole()),
                    (&vb, other.whole()),
                    (0, len as u64),
                    (&mut c.data.slice_mut(..), out),
                    1,
                )?;
            }
            Algorithm::Cyclic { n } => {
                let (va, vb) = (a.data.slice(..), other.data.slice(..));
                self.convolution(n)?.cyclic_device(
                    &stream,
                    DeviceSource {
                        data: &va,
                        extent: a.whole(),
                    },
                    b.map(|_| DeviceSource {
                        data: &vb,
                        extent: other.whole(),
                    }),
                    DeviceDestination {
                        extent: c.extent(len),
                        data: &mut c.data.slice_mut(..),
                    },
                    1,
                    Reuse::Nothing,
                )?;
            }
            Algorithm::Split { n, m } => self.split_device(n, m, a, b, c, len)?,
            Algorithm::Blocks { n, block, count } => {
                self.blocks_device(&stream, (n, block, count), (a, other), c, len)?
            }
        }
        Ok(())
    }

    /// The product of a long operand by a short one in `count` blocks of `block`
    /// coefficients of the longer: a batch of cyclic products of n points into a work
    /// buffer, then the overlap-add of their tails into c's `len` coefficients.
    fn blocks_device(
        &self,
        stream: &Arc<CudaStream>,
        (n, block, count): (u64, u64, u64),
        (a, b): (&PolyView<'_, F::Word>, &PolyView<'_, F::Word>),
        c: &mut PolyViewMut<'_, F::Word>,
        len: usize,
    ) -> Result<(), Error> {
        let (long, short) = if a.len >= b.len { (a, b) } else { (b, a) };
        let r_len = (count * n) as usize;
        let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let [r, ..] = &mut *work;
        let r = self.work_buffer(r, r_len)?;
        let (vl, vs) = (long.data.slice(..), short.data.slice(..));
        self.convolution(n)?.cyclic_device(
            stream,
            DeviceSource {
                data: &vl,
                extent: Extent {
                    len: block,
                    dist: block,
                    ..long.whole()
                },
            },
            Some(DeviceSource {
                data: &vs,
                extent: short.whole(),
            }),
            DeviceDestination {
                extent: Extent {
                    len: n,
                    limit: r_len as u64,
                    dist: n,
                    stride: r_len as u64,
                },
                data: &mut r.slice_mut(..),
            },
            count as usize,
            Reuse::Nothing,
        )?;
        let extents = Extents {
            source: Extent {
                stride: r_len as u64,
                ..long.whole()
            },
            destination: c.extent(len),
            op_dist: 0,
            size: n,
            terms: count,
            block,
            ..Extents::whole(n)
        };
        self.passes()?.run(
            stream,
            ProductPass::OverlapAdd,
            len as u64,
            // The pass reads no table: any valid pointer serves.
            (&r.slice(..), &mut c.data.slice_mut(..), &r.slice(..)),
            extents,
        )?;
        Ok(())
    }

    /// The split product on the device: the cyclic product of n points into c, the folded
    /// operands' cyclic product of m points, and the recombination.
    fn split_device(
        &self,
        n: u64,
        m: u64,
        a: &PolyView<'_, F::Word>,
        b: Option<&PolyView<'_, F::Word>>,
        c: &mut PolyViewMut<'_, F::Word>,
        len: usize,
    ) -> Result<(), Error> {
        let device = self.device()?.clone();
        let stream = device.stream().clone();
        // The folds and the smaller product read only the operands: on a second stream
        // they fill the gaps the larger product's passes leave, and join before the
        // recombination reads both products.
        let side = device.side_stream()?.clone();
        let other = b.unwrap_or(a);
        // What the side stream uses is made on the device's stream before it starts.
        let passes = self.passes()?;
        let fold_table = self.table(ProductPass::Fold, n, m)?;
        {
            let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
            let [first, second, r] = &mut *work;
            self.work_buffer(first, m as usize)?;
            if b.is_some() {
                self.work_buffer(second, m as usize)?;
            }
            self.work_buffer(r, m as usize)?;
        }
        device.join(&side, &stream)?;
        let (va, vb) = (a.data.slice(..), other.data.slice(..));
        self.convolution(n)?.cyclic_device(
            &stream,
            DeviceSource {
                data: &va,
                extent: a.whole(),
            },
            b.map(|_| DeviceSource {
                data: &vb,
                extent: other.whole(),
            }),
            DeviceDestination {
                extent: Extent {
                    len: n,
                    ..c.extent(len)
                },
                data: &mut c.data.slice_mut(..),
            },
            1,
            Reuse::Nothing,
        )?;
        let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
        let [first, second, r] = &mut *work;
        let mut folded = Vec::new();
        for (p, u) in std::iter::once(a).chain(b).zip([first, second]) {
            let u = self.work_buffer(u, m as usize)?;
            let extents = Extents {
                source: p.whole(),
                size: m,
                terms: (p.len as u64).div_ceil(m),
                ..Extents::whole(m)
            };
            passes.run(
                &side,
                ProductPass::Fold,
                m,
                (
                    &p.data.slice(..),
                    &mut u.slice_mut(..),
                    &fold_table.slice(..),
                ),
                extents,
            )?;
            folded.push(u);
        }
        let r = self.work_buffer(r, m as usize)?;
        let (fa, fb) = (folded[0].slice(..), folded.get(1).map(|u| u.slice(..)));
        self.convolution(m)?.cyclic_device(
            &side,
            DeviceSource {
                data: &fa,
                extent: Extent::first(m, m),
            },
            fb.as_ref().map(|fb: &CudaView<'_, F::Word>| DeviceSource {
                data: fb,
                extent: Extent::first(m, m),
            }),
            DeviceDestination {
                extent: Extent::first(m, m),
                data: &mut r.slice_mut(..),
            },
            1,
            Reuse::Nothing,
        )?;
        device.join(&stream, &side)?;
        self.recombine_device(&stream, (n, m), r, c, len)
    }

    /// The split product's last pass, on `stream`: c's `len` coefficients from the cyclic
    /// product of n points in c and the folded operands' product `r` of m points.
    fn recombine_device(
        &self,
        stream: &Arc<CudaStream>,
        (n, m): (u64, u64),
        r: &CudaSlice<F::Word>,
        c: &mut PolyViewMut<'_, F::Word>,
        len: usize,
    ) -> Result<(), Error> {
        let recombine_table = self.table(ProductPass::Recombine, n, m)?;
        let extents = Extents {
            destination: c.extent(len),
            size: m,
            terms: n / m,
            ..Extents::whole(m)
        };
        self.passes()?.run(
            stream,
            ProductPass::Recombine,
            m,
            (
                &r.slice(..),
                &mut c.data.slice_mut(..),
                &recombine_table.slice(..),
            ),
            extents,
        )?;
        Ok(())
    }
}
