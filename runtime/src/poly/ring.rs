//! F\[x\] on one backend: products of polynomials on the host and on the device, with the
//! plans of every size kept for the next product.

use super::convolution::Convolution;
use super::device::DevicePoly;
use super::host::{check_same_field, Poly};
use super::product::{
    mul_host, mul_host_into, Algorithm, Crossover, Cyclic, ProductPlan, SplitTables,
};
use super::route::{fold, Route, Shape};
use crate::cpu::on_the_pool;
use crate::design::any_field;
use crate::error::Error;
use crate::fft::{Backend, Running};
use crate::gpu::{self, Device, GpuError, GpuPasses};
use crate::host::HostField;
use cudarc::driver::CudaSlice;
use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::plain::Tile;
use fermat_codegen::poly::ProductPass;
use fermat_dsl::field::AnyField;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The polynomials over `F` on one backend: their products, and the transfers of device
/// polynomials. Plan once, multiply many: the cyclic products of every size a product
/// has used (their kernels, twiddle tables and work buffers) are kept for the next one.
/// `Send + Sync`.
///
/// ```
/// use fermat::dsl::{Field, Fp32};
/// use fermat::poly::{Poly, PolyRing};
/// use fermat::Backend;
///
/// let f = Fp32::new(469762049)?;
/// let ring = PolyRing::new(&f, Backend::Cpu)?;
/// let a = Poly::new(&f, (1..=100).map(|i| f.from_u64(i)).collect());
/// let b = Poly::new(&f, (1..=50).map(|i| f.from_u64(3 * i)).collect());
/// let c = ring.mul(&a, &b)?;
/// assert_eq!(c.len(), 149);
/// let x = f.from_u64(12345);
/// assert_eq!(c.eval(&x), f.mul(&a.eval(&x), &b.eval(&x)));
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct PolyRing<F: HostField> {
    pub(super) field: F,
    pub(super) any: AnyField,
    running: Running,
    pub(super) device: Option<Arc<Device>>,
    convolutions: Mutex<HashMap<u64, Arc<Convolution<F>>>>,
    split_tables: Mutex<HashMap<(u64, u64), SharedSplitTables<F>>>,
    passes: Mutex<Option<Arc<GpuPasses>>>,
    tables: Mutex<HashMap<(ProductPass, u64, u64), DeviceTable<F>>>,
    /// The device buffers of split and block products, as large as the largest so far.
    pub(super) work: Mutex<[Option<CudaSlice<F::Word>>; 3]>,
    crossover: Crossover,
    /// Where the crossover came from, for the plans' reasons.
    crossover_source: &'static str,
    /// The backend the ring was made for: the CRT route's rings run there too.
    pub(super) backend: Backend,
    /// The (Z/pZ)\[x\] ring of the CRT route, made when a product first takes it.
    pub(super) crt: std::sync::OnceLock<crate::crt::ModPolyRing>,
    /// On a GPU, the CPU ring that takes the short operations on host polynomials
    /// ([`Crossover::host_below`]), made when one first needs it.
    host: std::sync::OnceLock<Box<PolyRing<F>>>,
}

/// `words` copied into a new device buffer.
pub(crate) fn upload<W: cudarc::driver::DeviceRepr>(
    device: &Device,
    words: &[W],
) -> Result<CudaSlice<W>, Error> {
    // The copy fills every word.
    let mut data = device.alloc_unset::<W>(words.len())?;
    device
        .stream()
        .memcpy_htod(words, &mut data)
        .map_err(|source| GpuError::Driver {
            call: "cuMemcpyHtoD",
            source,
        })?;
    Ok(data)
}

/// The host tables of a split product of n + m points, shared by its products.
type SharedSplitTables<F> = Arc<SplitTables<F>>;

/// A table of a pass of split products, on the device.
type DeviceTable<F> = Arc<CudaSlice<<F as HostField>::Word>>;

impl<F: HostField> PolyRing<F> {
    /// The ring of polynomials over `field` on `backend` (`Backend::Auto`: GPU 0 if there
    /// is one, else the CPU, saying why). Kernels are compiled when a product first needs
    /// them.
    ///
    /// Errors: [`Error::Gpu`] when `Backend::Gpu` names a device that cannot be opened,
    /// or when `Backend::Auto` finds a GPU that fails (not merely none).
    ///
    /// ```
    /// use fermat::dsl::Fp64;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Running};
    ///
    /// let ring = PolyRing::new(&Fp64::new(0xffff_ffff_0000_0001)?, Backend::Auto)?;
    /// match ring.running() {
    ///     Running::Gpu(device) => println!("products on {device}"),
    ///     Running::Cpu { reason } => println!("products on the CPU: {reason:?}"),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(field: &F, backend: Backend) -> Result<Self, Error> {
        let (device, running) = match backend {
            Backend::Cpu => (None, Running::Cpu { reason: None }),
            Backend::Gpu(ordinal) => {
                let d = gpu::device(ordinal)?;
                let running = Running::Gpu(d.describe());
                (Some(d), running)
            }
            Backend::Auto => match gpu::device(0) {
                Ok(d) => {
                    let running = Running::Gpu(d.describe());
                    (Some(d), running)
                }
                Err(e) if e.is_absence() => (
                    None,
                    Running::Cpu {
                        reason: Some(e.to_string()),
                    },
                ),
                Err(e) => return Err(e.into()),
            },
        };
        let (crossover, crossover_source) =
            crate::tune::crossover_and_source(&any_field(field)?, device.as_deref());
        Ok(PolyRing {
            field: field.clone(),
            any: any_field(field)?,
            running,
            convolutions: Mutex::new(HashMap::new()),
            split_tables: Mutex::new(HashMap::new()),
            passes: Mutex::new(None),
            tables: Mutex::new(HashMap::new()),
            work: Mutex::new([None, None, None]),
            crossover,
            crossover_source,
            backend: if device.is_some() {
                backend
            } else {
                Backend::Cpu
            },
            crt: std::sync::OnceLock::new(),
            host: std::sync::OnceLock::new(),
            device,
        })
    }

    /// The field of the coefficients.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::Backend;
    ///
    /// let ring = PolyRing::new(&Fp32::new(2013265921)?, Backend::Cpu)?;
    /// assert_eq!(ring.field().p(), 2013265921);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn field(&self) -> &F {
        &self.field
    }

    /// Where the products run.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Running};
    ///
    /// let ring = PolyRing::new(&Fp32::new(2013265921)?, Backend::Cpu)?;
    /// assert_eq!(ring.running(), &Running::Cpu { reason: None });
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn running(&self) -> &Running {
        &self.running
    }

    /// How the product of operands of `len_a` and `len_b` coefficients is computed here.
    ///
    /// Errors: [`Error::ProductTooLong`] when the product needs more points than the
    /// field's 2-adicity allows.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Algorithm, PolyRing};
    /// use fermat::Backend;
    ///
    /// let ring = PolyRing::new(&Fp32::new(2013265921)?, Backend::Cpu)?;
    /// let plan = ring.product_plan(1000, 1000)?;
    /// assert_eq!(plan.algorithm, Algorithm::Cyclic { n: 2048 });
    /// assert!(ring.product_plan(1 << 27, 1 << 27).is_err()); // 2^28 points: beyond 2^27
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn product_plan(&self, len_a: usize, len_b: usize) -> Result<ProductPlan, Error> {
        ProductPlan::with_crossover(
            len_a,
            len_b,
            self.field.two_adicity(),
            self.device.is_some(),
            &self.crossover,
        )
    }

    /// Where this ring's products stop being plain: the stored `fermat tune` table's entry
    /// for this field and device, else the backend's default.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Crossover, PolyRing};
    /// use fermat::Backend;
    ///
    /// let ring = PolyRing::new(&Fp32::new(2013265921)?, Backend::Cpu)?
    ///     .with_crossover(Crossover::never());
    /// assert_eq!(ring.crossover(), &Crossover::never());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn crossover(&self) -> &Crossover {
        &self.crossover
    }

    /// This ring with products plain where `crossover` says ([`crossover`](Self::crossover)
    /// has an example).
    pub fn with_crossover(mut self, crossover: Crossover) -> Self {
        self.crossover = crossover;
        self.crossover_source = "the ring's given crossover";
        self
    }

    /// Where [`crossover`](Self::crossover) came from: `fermat tune`'s table, the built-in
    /// default, or [`with_crossover`](Self::with_crossover).
    pub(super) fn crossover_source(&self) -> &'static str {
        self.crossover_source
    }

    /// The product a·b.
    ///
    /// Errors: [`Error::FieldMismatch`] when an operand is over another field, and the
    /// errors of [`product_plan`](Self::product_plan).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[1, 1]); // 1 + x
    /// let b = Poly::from_u64s(&f, &[2013265920, 1]); // −1 + x
    /// assert_eq!(ring.mul(&a, &b)?, Poly::from_u64s(&f, &[2013265920, 0, 1]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul(&self, a: &Poly<F>, b: &Poly<F>) -> Result<Poly<F>, Error> {
        self.check_field(a)?;
        self.check_field(b)?;
        self.product(a, Some(b))
    }

    /// The square a² (two transforms instead of three).
    ///
    /// ```
    /// use fermat::dsl::Fp64;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp64::new(0xffff_ffff_0000_0001)?;
    /// let ring = PolyRing::new(&f, Backend::Cpu)?;
    /// let a = Poly::from_u64s(&f, &[1, 2]);
    /// assert_eq!(ring.sqr(&a)?, Poly::from_u64s(&f, &[1, 4, 4]));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn sqr(&self, a: &Poly<F>) -> Result<Poly<F>, Error> {
        self.check_field(a)?;
        self.product(a, None)
    }

    /// Whether an operation on host polynomials whose result has `len` coefficients runs
    /// on the host: always on the CPU backend, and on a GPU below
    /// [`Crossover::host_below`], where the device's round trip costs more than the
    /// host's own work (the half-gcd's many short products and divisions).
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Crossover, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(469762049)?;
    /// assert!(PolyRing::new(&f, Backend::Cpu)?.on_host(1 << 20));
    /// if let Ok(gpu) = PolyRing::new(&f, Backend::Gpu(0)) {
    ///     let gpu = gpu.with_crossover(Crossover { host_below: Some(4096), ..Crossover::gpu() });
    ///     assert!(gpu.on_host(4095) && !gpu.on_host(4096));
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn on_host(&self, len: usize) -> bool {
        self.device.is_none() || self.crossover.host_below.is_some_and(|below| len < below)
    }

    /// The ring that runs an operation on host polynomials with a result of `len`
    /// coefficients, when that is not this one: a GPU ring's CPU ring, made on first use.
    pub(super) fn host_for(&self, len: usize) -> Result<Option<&PolyRing<F>>, Error> {
        if self.device.is_none() || !self.on_host(len) {
            return Ok(None);
        }
        if let Some(ring) = self.host.get() {
            return Ok(Some(ring));
        }
        let ring = Box::new(PolyRing::new(&self.field, Backend::Cpu)?);
        Ok(Some(self.host.get_or_init(|| ring)))
    }

    fn product(&self, a: &Poly<F>, b: Option<&Poly<F>>) -> Result<Poly<F>, Error> {
        let other = b.unwrap_or(a);
        let len = (a.len() + other.len()).saturating_sub(1);
        if let Some(host) = self.host_for(len)? {
            return host.product(a, b);
        }
        let plan = match self.route(a.len(), other.len())? {
            Route::Field(plan) => plan,
            Route::Crt { .. } => return self.crt_product(a, b),
        };
        if self.device.is_some() && plan.algorithm != Algorithm::Zero {
            let da = self.to_device(a)?;
            let c = match b {
                Some(b) => self.mul_device(&da, &self.to_device(b)?)?,
                None => self.sqr_device(&da)?,
            };
            return self.from_device(&c);
        }
        let c =
            on_the_pool(|| mul_host(&self.field, &plan, self, a.coeffs(), b.map(|b| b.coeffs())))?;
        Ok(Poly::new(&self.field, c))
    }

    /// The coefficients `shape` names of the product a·b (`b`: None for a²) of coefficient
    /// slices, into `c`, whose allocation a CPU ring reuses for whole and cyclic products:
    /// for callers that keep their vectors from one product to the next (the CRT route's
    /// word primes). `c` gets exactly `shape.len(len a + len b − 1)` coefficients, zeros
    /// at the top included. Products on a GPU, by the CRT route or of other shapes come
    /// back in a fresh vector; on the CRT route a window or a cyclic product is all the
    /// primes compute.
    pub(crate) fn product_into(
        &self,
        (a, b): (&[F::Elem], Option<&[F::Elem]>),
        shape: Shape,
        c: &mut Vec<F::Elem>,
    ) -> Result<(), Error> {
        let whole = (a.len() + b.unwrap_or(a).len()).saturating_sub(1);
        let poly = |x: &[F::Elem]| Poly::new(&self.field, x.to_vec());
        match (shape, self.route(a.len(), b.unwrap_or(a).len())?) {
            (Shape::Whole, Route::Field(plan)) if self.device.is_none() => {
                on_the_pool(|| mul_host_into(&self.field, &plan, self, (a, b), c))?
            }
            (Shape::Whole, _) => *c = self.product(&poly(a), b.map(poly).as_ref())?.into_coeffs(),
            (Shape::Middle { lo, len }, _) => {
                let pa = poly(a);
                let pb = b.map_or_else(|| pa.clone(), poly);
                *c = self.mul_middle(&pa, &pb, lo, len)?.into_coeffs();
            }
            (Shape::Cyclic { n }, Route::Field(plan))
                if self.device.is_none() && n > 0 && a.len().max(b.map_or(0, <[_]>::len)) <= n =>
            {
                c.clear();
                c.resize(n, self.field.zero());
                if !plan.is_empty() {
                    let convolution = self.convolution(n as u64)?;
                    on_the_pool(|| convolution.cyclic_host(&self.field, a, b, c))?;
                }
            }
            (Shape::Cyclic { n }, route) => {
                let (pa, pb) = (poly(a), b.map(poly));
                // On the CRT route the primes' products are cyclic too (bench/RESULTS.md,
                // "CPU round 5"); elsewhere the whole product, folded.
                let by_crt = match route {
                    Route::Crt { .. } => self.crt_product_in_digits(&pa, pb.as_ref(), shape)?,
                    Route::Field(_) => None,
                };
                *c = match by_crt {
                    Some(p) => p.into_coeffs(),
                    None => fold(&self.field, self.product(&pa, pb.as_ref())?.coeffs(), n),
                };
            }
        }
        c.resize(shape.len(whole), self.field.zero());
        Ok(())
    }

    /// Whether a product of `len_a` by `len_b` coefficients is one the field's own cyclic
    /// products can serve on the CPU: not plain, not on a device — whichever route a lone
    /// product of these lengths takes, since products that share their transforms cost
    /// fewer of them (bench/RESULTS.md, "CPU round 7").
    pub(super) fn is_transform_product(&self, len_a: usize, len_b: usize) -> bool {
        self.device.is_none()
            && self.product_plan(len_a, len_b).is_ok_and(|plan| {
                !matches!(
                    plan.algorithm,
                    Algorithm::Zero | Algorithm::Schoolbook | Algorithm::Plain
                )
            })
    }

    pub(super) fn check_field(&self, a: &Poly<F>) -> Result<(), Error> {
        check_same_field(&self.field, a.field())
    }

    pub(crate) fn device(&self) -> Result<&Arc<Device>, Error> {
        self.device.as_ref().ok_or(Error::NotOnGpu)
    }

    /// Copies a polynomial to the device; a ring on the CPU refuses it with
    /// [`Error::NotOnGpu`].
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let a = Poly::new(&f, (1..=1000).map(|i| f.from_u64(i)).collect());
    /// match ring.to_device(&a) {
    ///     Ok(da) => {
    ///         // Products stay on the device until they are copied back.
    ///         let c = ring.mul_device(&da, &da)?;
    ///         assert_eq!(ring.from_device(&c)?, ring.mul(&a, &a)?);
    ///     }
    ///     Err(Error::NotOnGpu) => println!("no GPU: {}", ring.running()),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_device(&self, a: &Poly<F>) -> Result<DevicePoly<F>, Error> {
        self.check_field(a)?;
        let device = self.device()?;
        let cap = a.len().max(1);
        let host: Vec<F::Host> = a.coeffs().iter().map(|e| self.field.to_host(e)).collect();
        let mut words = Vec::with_capacity(cap * self.field.words());
        let mut padded = host;
        padded.resize(cap, self.field.to_host(&self.field.zero()));
        self.field.pack(&padded, cap, &mut words);
        Ok(DevicePoly {
            data: upload(device, &words)?,
            len: a.len(),
            cap,
            top_nonzero: !a.is_zero(),
            constant_nonzero: a.coeff(0) != self.field.zero(),
        })
    }

    /// Copies a polynomial back from the device (its values are checked;
    /// [`DevicePoly`] has an example).
    pub fn from_device(&self, a: &DevicePoly<F>) -> Result<Poly<F>, Error> {
        let host = self.download(&a.data, a.cap)?;
        let coeffs = host[..a.len]
            .iter()
            .map(|h| self.field.to_elem(h))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Poly::new(&self.field, coeffs))
    }

    /// A device polynomial of room for `capacity` coefficients filled with all-ones words, a
    /// value no element has: a result written into it ([`mul_device_into`]) whose kernels
    /// miss a coefficient fails to read back.
    ///
    /// [`mul_device_into`]: Self::mul_device_into (an example is there)
    pub fn poisoned_device(&self, capacity: usize) -> Result<DevicePoly<F>, Error> {
        let device = self.device()?;
        let cap = capacity.max(1);
        let poison = vec![F::word(u64::MAX); cap * self.field.words()];
        Ok(DevicePoly {
            data: upload(device, &poison)?,
            len: 0,
            cap,
            top_nonzero: false,
            constant_nonzero: false,
        })
    }

    /// A device polynomial of room for `len` coefficients, its words unspecified: for the
    /// temporaries of an operation whose kernels write every coefficient before any read.
    pub(super) fn scratch(&self, len: usize) -> Result<DevicePoly<F>, Error> {
        let cap = len.max(1);
        Ok(DevicePoly {
            data: self
                .device()?
                .alloc_unset::<F::Word>(cap * self.field.words())?,
            len: 0,
            cap,
            top_nonzero: false,
            constant_nonzero: false,
        })
    }

    /// A device polynomial of room for `len` coefficients, holding the zero polynomial.
    pub(super) fn zeros(&self, len: usize) -> Result<DevicePoly<F>, Error> {
        let device = self.device()?;
        let cap = len.max(1);
        Ok(DevicePoly {
            data: device.alloc::<F::Word>(cap * self.field.words())?,
            len: 0,
            cap,
            top_nonzero: false,
            constant_nonzero: false,
        })
    }

    /// Waits for the work queued on the device. A ring on the CPU has none
    /// ([`Error::NotOnGpu`]).
    ///
    /// ```
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = PolyRing::new(&fermat::dsl::Fp32::new(469762049)?, Backend::Cpu)?;
    /// assert!(matches!(ring.synchronize(), Err(Error::NotOnGpu)));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<(), Error> {
        self.device()?.stream().synchronize().map_err(|source| {
            Error::Gpu(GpuError::Driver {
                call: "cuStreamSynchronize",
                source,
            })
        })
    }

    /// A work buffer of at least `len` elements in `slot`, allocated only when the slot is
    /// empty or too small.
    pub(super) fn work_buffer<'a>(
        &self,
        slot: &'a mut Option<CudaSlice<F::Word>>,
        len: usize,
    ) -> Result<&'a mut CudaSlice<F::Word>, Error> {
        let words = len * self.field.words();
        if slot.as_ref().is_none_or(|s| s.len() < words) {
            *slot = Some(self.device()?.alloc::<F::Word>(words)?);
        }
        Ok(slot.as_mut().expect("allocated above"))
    }

    /// The host values of a device vector of `cap` elements (digit-major for SRGFNs).
    pub(super) fn download(
        &self,
        data: &CudaSlice<F::Word>,
        cap: usize,
    ) -> Result<Vec<F::Host>, Error> {
        let words =
            self.device()?
                .stream()
                .clone_dtoh(data)
                .map_err(|source| GpuError::Driver {
                    call: "cuMemcpyDtoH",
                    source,
                })?;
        let mut host = vec![self.field.to_host(&self.field.zero()); cap];
        self.field.unpack(&words, cap, &mut host);
        Ok(host)
    }

    /// The passes of products besides transforms, compiled on first use.
    pub(super) fn passes(&self) -> Result<Arc<GpuPasses>, Error> {
        let mut passes = self.passes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = passes.as_ref() {
            return Ok(p.clone());
        }
        let source = fermat_codegen::poly::source(&self.any)?;
        let compiled = Arc::new(GpuPasses::compile(
            self.device()?.clone(),
            &source,
            Tile::for_element_bytes(FieldShape::of(&self.any).element_bytes),
        )?);
        *passes = Some(compiled.clone());
        Ok(compiled)
    }

    /// The table of `pass` for a split product of n + m points, on the device.
    pub(super) fn table(&self, pass: ProductPass, n: u64, m: u64) -> Result<DeviceTable<F>, Error> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tables.get(&(pass, n, m)) {
            return Ok(t.clone());
        }
        let theta = self.field.root_of_unity(2 * n)?;
        let rows = pass.table(&self.field, &theta, m, n / m);
        let shape = FieldShape::of(&self.any);
        let words: Vec<F::Word> = table_form(&self.field, &shape, &rows)
            .into_iter()
            .map(F::word)
            .collect();
        let data = Arc::new(upload(self.device()?, &words)?);
        tables.insert((pass, n, m), data.clone());
        Ok(data)
    }
}

impl<F: HostField> Cyclic<F> for PolyRing<F> {
    fn convolution(&self, n: u64) -> Result<Arc<Convolution<F>>, Error> {
        let mut all = self.convolutions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = all.get(&n) {
            return Ok(c.clone());
        }
        let c = Arc::new(Convolution::new(&self.field, n, self.device.as_ref())?);
        all.insert(n, c.clone());
        Ok(c)
    }

    fn split_tables(&self, n: u64, m: u64) -> Result<SharedSplitTables<F>, Error> {
        let mut all = self.split_tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = all.get(&(n, m)) {
            return Ok(t.clone());
        }
        let t = Arc::new(SplitTables::new(&self.field, n, m)?);
        all.insert((n, m), t.clone());
        Ok(t)
    }
}

impl<F: HostField> std::fmt::Debug for PolyRing<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolyRing")
            .field("field", &self.field.name())
            .field("running", &self.running)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::schoolbook_mul;
    use fermat_dsl::field::FieldSpec;
    use fermat_dsl::with_field;
    use rand::SeedableRng;

    /// Products of many shapes on the CPU backend against the schoolbook product.
    fn check<F: HostField>(field: &F, shapes: &[(usize, usize)]) {
        let ring = PolyRing::new(field, Backend::Cpu).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // `product_into`'s vector, kept from shape to shape: stale values, any capacity.
        let mut kept = vec![field.one(); 3000];
        for &(la, lb) in shapes {
            let mut random = |len: usize| -> Vec<F::Elem> {
                let mut v: Vec<F::Elem> = (0..len).map(|_| field.random(&mut rng)).collect();
                if let Some(last) = v.last_mut() {
                    if *last == field.zero() {
                        *last = field.one();
                    }
                }
                v
            };
            let (a, b) = (random(la), random(lb));
            let (pa, pb) = (Poly::new(field, a), Poly::new(field, b));
            let plan = ring.product_plan(la, lb).unwrap();
            let c = ring.mul(&pa, &pb).unwrap();
            assert!(
                c == schoolbook_mul(&pa, &pb).unwrap(),
                "{}: {la} × {lb} by {plan}",
                field.name()
            );
            assert!(
                ring.sqr(&pa).unwrap() == schoolbook_mul(&pa, &pa).unwrap(),
                "{}: the square of {la}",
                field.name()
            );
            // Every shape of the product and of the square, into the kept vector.
            let n = la.max(lb).max(1).next_power_of_two();
            let shapes = [
                Shape::Whole,
                Shape::Middle {
                    lo: la.min(lb) / 2,
                    len: la,
                },
                Shape::Cyclic { n },
                Shape::Cyclic { n: 2 * n },
            ];
            for (shape, other) in shapes.into_iter().flat_map(|s| [(s, Some(&pb)), (s, None)]) {
                let c = schoolbook_mul(&pa, other.unwrap_or(&pa)).unwrap();
                let len_b = other.map_or(la, Poly::len);
                let mut want = match shape {
                    Shape::Whole => c.coeffs().to_vec(),
                    Shape::Middle { lo, len } => (lo..lo + len).map(|t| c.coeff(t)).collect(),
                    Shape::Cyclic { n } => fold(field, c.coeffs(), n),
                };
                want.resize(shape.len((la + len_b).saturating_sub(1)), field.zero());
                ring.product_into((pa.coeffs(), other.map(Poly::coeffs)), shape, &mut kept)
                    .unwrap();
                assert!(
                    kept == want,
                    "{}: {shape:?} of {la} × {len_b} into a kept vector",
                    field.name()
                );
            }
        }
    }

    const SHAPES: [(usize, usize); 14] = [
        (0, 0),
        (0, 5),
        (1, 1),
        (2, 2),
        (1, 300),
        (9, 9),
        (64, 64),
        (65, 65),
        (80, 81),
        (96, 97),
        (127, 129),
        (700, 40),
        (40, 2000),
        (300, 299),
    ];

    #[test]
    fn word_prime_products_of_every_shape() {
        for spec in ["469762049", "babybear", "goldilocks", "4179340454199820289"] {
            let any = FieldSpec::parse(spec).unwrap().build().unwrap();
            with_field!(&any, f => check(f, &SHAPES));
        }
    }

    #[test]
    fn srgfn_products_of_every_shape() {
        for spec in ["P1", "P2", "P3"] {
            let any = FieldSpec::parse(spec).unwrap().build().unwrap();
            // 40 × 2000 takes the CRT route, in every shape.
            with_field!(&any, f => check(f, &SHAPES[..13]));
        }
    }

    #[test]
    fn very_unbalanced_products() {
        let any = FieldSpec::parse("babybear").unwrap().build().unwrap();
        with_field!(&any, f => check(f, &[(1, 10_000), (10_000, 3), (20_000, 100)]));
    }
}
