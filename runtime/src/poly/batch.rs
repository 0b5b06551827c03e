//! Batches: many products of the same lengths in one launch sequence — plain products as
//! grid rows, FFT-based ones as batches of transforms — on host polynomials and on device
//! batches.

use super::convolution::{DeviceDestination, DeviceSource, Reuse};
use super::host::Poly;
use super::product::{mul_host, Algorithm, Cyclic, ProductPlan};
use super::ring::{upload, PolyRing};
use crate::error::Error;
use crate::gpu::Extent;
use crate::host::HostField;
use cudarc::driver::CudaSlice;
use rayon::prelude::*;

/// The longest shorter factor of a batch's plain products.
const BATCH_PLAIN_SHORT: usize = 32;

/// Polynomials of at most `len` coefficients each, on the device, one after another: digit
/// c of coefficient e of polynomial q at word c·capacity + q·dist + e (dist = len, the
/// capacity `count · len`), as cuFFT's batched layouts put the signals of a plan.
///
/// ```
/// use fermat::dsl::Fp32;
/// use fermat::poly::{Poly, PolyRing};
/// use fermat::{Backend, Error};
///
/// let f = Fp32::new(2013265921)?;
/// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
/// let polys: Vec<Poly<Fp32>> = (1..=4).map(|i| Poly::from_u64s(&f, &[i, 1])).collect();
/// let a = match ring.to_device_batch(&polys, 2) {
///     Ok(a) => a,
///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `mul_batch` on host polynomials
///     Err(e) => return Err(e),
/// };
/// assert_eq!((a.count(), a.len(), a.is_empty()), (4, 2, false));
/// let c = ring.mul_batch_device(&a, &a)?; // four squares, one launch sequence
/// assert_eq!(ring.from_device_batch(&c)?[1], Poly::from_u64s(&f, &[4, 4, 1]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct DeviceBatch<F: HostField> {
    pub(crate) data: CudaSlice<F::Word>,
    pub(crate) count: usize,
    pub(crate) len: usize,
}

impl<F: HostField> DeviceBatch<F> {
    /// The number of polynomials ([`DeviceBatch`] has an example).
    pub fn count(&self) -> usize {
        self.count
    }

    /// The coefficients each polynomial has room for, the distance between two
    /// ([`DeviceBatch`] has an example).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no coefficient ([`DeviceBatch`] has an example).
    pub fn is_empty(&self) -> bool {
        self.count == 0 || self.len == 0
    }

    fn extent(&self, len: u64) -> Extent {
        let total = (self.count * self.len) as u64;
        Extent {
            len,
            limit: total,
            dist: self.len as u64,
            stride: total.max(1),
        }
    }
}

impl<F: HostField> PolyRing<F> {
    /// Copies polynomials of at most `len` coefficients to the device as one batch.
    ///
    /// Errors: [`Error::BatchLength`] naming the first polynomial longer than `len`,
    /// [`Error::FieldMismatch`], [`Error::NotOnGpu`]. [`DeviceBatch`] has an example.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Error;
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let ring = PolyRing::new(&f, fermat::Backend::Auto)?;
    /// let polys = [Poly::from_u64s(&f, &[1, 2]), Poly::from_u64s(&f, &[1, 2, 3])];
    /// let err = ring.to_device_batch(&polys, 2).err().unwrap(); // checked before any copy
    /// assert!(matches!(err, Error::BatchLength { index: 1, len: 3, max: 2 }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_device_batch(&self, polys: &[Poly<F>], len: usize) -> Result<DeviceBatch<F>, Error> {
        for (index, p) in polys.iter().enumerate() {
            self.check_field(p)?;
            if p.len() > len {
                return Err(Error::BatchLength {
                    index,
                    len: p.len(),
                    max: len,
                });
            }
        }
        let device = self.device()?;
        let cap = (polys.len() * len).max(1);
        let zero = self.field.to_host(&self.field.zero());
        let mut host = vec![zero; cap];
        for (q, p) in polys.iter().enumerate() {
            for (slot, e) in host[q * len..].iter_mut().zip(p.coeffs()) {
                *slot = self.field.to_host(e);
            }
        }
        let mut words = Vec::with_capacity(cap * self.field.words());
        self.field.pack(&host, cap, &mut words);
        Ok(DeviceBatch {
            data: upload(device, &words)?,
            count: polys.len(),
            len,
        })
    }

    /// Copies a batch back from the device (its values checked), each polynomial
    /// normalised ([`DeviceBatch`] has an example).
    pub fn from_device_batch(&self, batch: &DeviceBatch<F>) -> Result<Vec<Poly<F>>, Error> {
        let host = self.download(&batch.data, (batch.count * batch.len).max(1))?;
        (0..batch.count)
            .map(|q| {
                let coeffs = host[q * batch.len..(q + 1) * batch.len]
                    .iter()
                    .map(|h| self.field.to_elem(h))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Poly::new(&self.field, coeffs))
            })
            .collect()
    }

    /// The products a_q·b_q of two device batches of the same count, on the device, in
    /// one launch sequence: plain products below the crossover, else one batch of cyclic
    /// products of the next power of two at or above the product's length.
    ///
    /// Errors: [`Error::BatchOperands`], and those of
    /// [`product_plan`](Self::product_plan). [`DeviceBatch`] has an example.
    pub fn mul_batch_device(
        &self,
        a: &DeviceBatch<F>,
        b: &DeviceBatch<F>,
    ) -> Result<DeviceBatch<F>, Error> {
        if a.count != b.count {
            return Err(Error::BatchOperands {
                a: a.count,
                b: b.count,
            });
        }
        let plan = self.batch_plan(a.len, b.len)?;
        let len = plan.len();
        let device = self.device()?.clone();
        let mut c = DeviceBatch {
            data: device.alloc::<F::Word>((a.count * len).max(1) * self.field.words())?,
            count: a.count,
            len,
        };
        if plan.is_empty() || a.count == 0 {
            return Ok(c);
        }
        let out = c.extent(len as u64);
        let (va, vb) = (a.data.slice(..), b.data.slice(..));
        match plan.algorithm {
            Algorithm::Plain | Algorithm::Schoolbook => self.plain_device(
                (&va, a.extent(a.len as u64)),
                (&vb, b.extent(b.len as u64)),
                (0, len as u64),
                (&mut c.data.slice_mut(..), out),
                a.count as u64,
            )?,
            Algorithm::Cyclic { n } => {
                self.convolution(n)?.cyclic_device(
                    device.stream(),
                    DeviceSource {
                        data: &va,
                        extent: a.extent(a.len as u64),
                    },
                    Some(DeviceSource {
                        data: &vb,
                        extent: b.extent(b.len as u64),
                    }),
                    DeviceDestination {
                        extent: out,
                        data: &mut c.data.slice_mut(..),
                    },
                    a.count,
                    Reuse::Nothing,
                )?;
            }
            Algorithm::Zero | Algorithm::Split { .. } | Algorithm::Blocks { .. } => {
                unreachable!("batch plans are plain or one cyclic product: {plan}")
            }
        }
        Ok(c)
    }

    /// How a batch of products of `len_a` × `len_b` is computed: plain products only for
    /// short factors (a batch fills the device with transforms that would each leave it
    /// idle: 4096 plain products of 2^10 ran at 25 GB/s on an H200), else one batch of
    /// cyclic products of the next power of two at or above the product's length.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Algorithm, PolyRing};
    /// use fermat::Backend;
    ///
    /// let ring = PolyRing::new(&Fp32::new(2013265921)?, Backend::Cpu)?;
    /// assert_eq!(ring.batch_plan(1024, 1024)?.algorithm, Algorithm::Cyclic { n: 2048 });
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn batch_plan(&self, len_a: usize, len_b: usize) -> Result<ProductPlan, Error> {
        let mut plan = self.product_plan(len_a, len_b)?;
        plan.algorithm = match plan.algorithm {
            Algorithm::Zero => Algorithm::Zero,
            Algorithm::Plain | Algorithm::Schoolbook if len_a.min(len_b) <= BATCH_PLAIN_SHORT => {
                plan.algorithm
            }
            _ => Algorithm::Cyclic {
                n: (plan.len() as u64).next_power_of_two().max(2),
            },
        };
        Ok(plan)
    }

    /// The products a_q·b_q of two lists of host polynomials: on the GPU as one batch (the
    /// lists' longest lengths), on the CPU in parallel.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a: Vec<_> = (1..=3).map(|i| Poly::from_u64s(&f, &[i, 1])).collect();
    /// let c = ring.mul_batch(&a, &a)?;
    /// assert_eq!(c[2], Poly::from_u64s(&f, &[9, 6, 1]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_batch(&self, a: &[Poly<F>], b: &[Poly<F>]) -> Result<Vec<Poly<F>>, Error> {
        if a.len() != b.len() {
            return Err(Error::BatchOperands {
                a: a.len(),
                b: b.len(),
            });
        }
        for p in a.iter().chain(b) {
            self.check_field(p)?;
        }
        if self.device.is_some() {
            let longest = |ps: &[Poly<F>]| ps.iter().map(Poly::len).max().unwrap_or(0);
            let da = self.to_device_batch(a, longest(a))?;
            let db = self.to_device_batch(b, longest(b))?;
            return self.from_device_batch(&self.mul_batch_device(&da, &db)?);
        }
        a.par_iter()
            .zip(b)
            .map(|(x, y)| {
                let plan = self.product_plan(x.len(), y.len())?;
                let c = mul_host(&self.field, &plan, self, x.coeffs(), Some(y.coeffs()))?;
                Ok(Poly::new(&self.field, c))
            })
            .collect()
    }
}
