//! FFT plans: design once (derive, lower, generate, compile), run many times.

use crate::embedded::{Embedded, EmbeddedError};
use crate::error::Error;
use crate::gpu::{self, GpuKernels};
use crate::host::HostField;
use crate::{cpu, design};
use cudarc::driver::CudaSlice;
use fermat_codegen::contract::Input;
use fermat_codegen::cost::{Cost, FieldShape};
use fermat_codegen::kernel::{self, EmitOptions, TableLayout};
use fermat_codegen::plan::{CheckedPlan, Direction, Plan};
use fermat_dsl::derive::Strategy;
use fermat_dsl::field::AnyField;
use fermat_dsl::field::Roots;
use fermat_dsl::formula::Formula;
use fermat_dsl::with_field;
use std::sync::Mutex;

mod device;
mod options;

pub use device::DeviceVec;
pub use options::{Backend, FftOptions, Running};

struct GpuPlan<W> {
    forward: GpuKernels<W>,
    /// `None` for an embedded source with forward kernels only.
    inverse: Option<GpuKernels<W>>,
    /// The device memory the calls share; held while a call enqueues its work, so that
    /// calls on different streams take it in turn (the buffers' events order them).
    workspace: Mutex<Workspace<W>>,
}

struct Workspace<W> {
    scratch: Option<CudaSlice<W>>,
    /// The hand-off counters of each direction.
    counters: [gpu::Counters; 2],
}

/// A transform of one size over one field, ready to run many times. `Send + Sync`.
///
/// ```
/// use fermat::{FftOptions, FftPlan, Backend};
/// use fermat::dsl::Fp32;
///
/// let field = Fp32::new(2013265921).unwrap();
/// let plan = FftPlan::new(&field, 1024, FftOptions { backend: Backend::Cpu, ..Default::default() }).unwrap();
/// let x: Vec<u32> = (0..1024).collect();
/// let mut y = x.clone();
/// plan.forward(&mut y).unwrap();
/// plan.inverse(&mut y).unwrap();
/// assert_eq!(x, y);
/// ```
pub struct FftPlan<F: HostField> {
    field: F,
    n: u64,
    design: design::Design,
    forward: CheckedPlan,
    inverse: CheckedPlan,
    roots: Roots<F>,
    shape: FieldShape,
    running: Running,
    gpu: Option<GpuPlan<F::Word>>,
    /// The kernels generated ahead of time, for plans made by [`FftPlan::from_embedded`].
    embedded: Option<&'static Embedded>,
    /// The word-prime NTT that runs the plan on the CPU (`None` for SRGFNs).
    fast: Option<cpu::Fast>,
}

impl<F: HostField> FftPlan<F> {
    /// Plans the transform of `n` points over `field` (n a power of two up to the field's
    /// 2-adicity).
    ///
    /// The size is checked before anything is allocated: n must be a power of two within
    /// the field's 2-adicity, and the plan's tables must fit the memory available
    /// ([`memory::check_transform`](crate::memory::check_transform)); a plan on
    /// [`Backend::Gpu`] keeps no table of n roots on the host, and only the data's vector
    /// is checked against it ([`memory::check_gpu_transform`](crate::memory::check_gpu_transform)).
    ///
    /// ```
    /// use fermat::{AnyField, Error, FftOptions, FftPlan, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let plan = FftPlan::new(&p3, 256, FftOptions::default())?; // 256 = 16^2 points
    /// assert_eq!(plan.n(), 256);
    /// // 2^63 points of 64 bytes each: refused before anything is allocated.
    /// let err = FftPlan::new(&p3, 1 << 63, FftOptions::default()).unwrap_err();
    /// assert!(matches!(err, Error::Memory { .. }), "{err}");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(field: &F, n: u64, options: FftOptions) -> Result<Self, Error> {
        match options.backend {
            // A GPU plan keeps no table of n roots on the host.
            Backend::Gpu(_) => crate::memory::check_gpu_transform(field, n)?,
            Backend::Cpu | Backend::Auto => crate::memory::check_transform(field, n, 0)?,
        }
        let any = design::any_field(field)?;
        let d = design::design(&any, n, &options)?;
        Self::build(field, &any, n, options, d, None)
    }

    /// The plan of a transform generated ahead of time (by the [`fft!`](crate::fft) macro),
    /// on `backend`.
    ///
    /// Nothing is derived or generated: the plans are lowered from the embedded formula,
    /// and the GPU compiles the embedded CUDA source. Before that source is trusted, the
    /// [`fingerprint`](crate::design::fingerprint) of the lowered plans (and of the root,
    /// the size, the field and the `fermat-codegen` version) must equal the embedded one:
    /// a source printed by another version of the code generator, or for other plans, is
    /// refused with an [`EmbeddedError::Fingerprint`] rather than run. Errors also if the embedded
    /// field is not `F`.
    ///
    /// A source with forward kernels only (`inverse = false`) gives a plan whose inverse
    /// runs on the CPU backend but is refused on the GPU.
    ///
    /// ```
    /// use fermat::{Backend, FftPlan};
    ///
    /// fermat::fft! {
    ///     /// The 64-point DFT over BabyBear.
    ///     pub struct BabyBear64;
    ///     field = babybear, n = 64
    /// }
    ///
    /// let plan = FftPlan::<fermat::dsl::Fp32>::from_embedded(BabyBear64::EMBEDDED, Backend::Cpu)?;
    /// assert!(plan.embedded().is_some());
    /// let mut x = vec![1u32; 64];
    /// plan.forward(&mut x)?;
    /// assert_eq!(x[0], 64);
    /// // The embedded field is BabyBear: a plan over another field type is refused.
    /// let other = FftPlan::<fermat::dsl::Fp64>::from_embedded(BabyBear64::EMBEDDED, Backend::Cpu);
    /// assert!(matches!(other, Err(fermat::Error::Embedded(_))));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_embedded(embedded: &'static Embedded, backend: Backend) -> Result<Self, Error> {
        let any = embedded.any_field()?;
        let field = with_field!(&any, f => (f as &dyn std::any::Any).downcast_ref::<F>().cloned())
            .ok_or(EmbeddedError::FieldType {
                field: embedded.field,
                expected: std::any::type_name::<F>(),
            })?;
        let options = embedded.options(backend)?;
        let d = embedded.design()?;
        Self::build(&field, &any, embedded.n, options, d, Some(embedded))
    }

    fn build(
        field: &F,
        any: &AnyField,
        n: u64,
        options: FftOptions,
        d: design::Design,
        embedded: Option<&'static Embedded>,
    ) -> Result<Self, Error> {
        let lower = |direction| d.lower(direction, options.input_order, options.output_order);
        let forward = CheckedPlan::new(lower(Direction::Forward)?)?;
        let inverse = CheckedPlan::new(lower(Direction::Inverse)?)?;
        let log_table = forward.max_log_order();
        // The table of all powers is made only for a plan that runs on the CPU, below: the
        // GPU's twiddle table has rows of a few powers each, computed where asked for.
        let roots = match &options.root {
            None => Roots::canonical_lazy(field, log_table, forward.n())?,
            Some(root) => {
                let w = field.from_biguint(root)?;
                field.check_root(&w, n)?;
                let table_root = field.pow_u64(&w, n >> log_table);
                Roots::lazy(field, log_table, forward.n(), table_root)?
            }
        };
        if let Some(e) = embedded {
            let table_root = field.to_biguint(&roots.power(field, 1));
            let ours = design::fingerprint(
                &any.name(),
                n,
                &d,
                &forward,
                &inverse,
                &table_root,
                &EmitOptions::default(),
            );
            if ours != e.fingerprint {
                return Err(EmbeddedError::Fingerprint {
                    field: e.field,
                    n,
                    printed_by: e.codegen_version,
                    running: design::CODEGEN_VERSION,
                    embedded: e.fingerprint,
                    expected: ours,
                }
                .into());
            }
        }
        let mut plan = FftPlan {
            field: field.clone(),
            n,
            design: d,
            forward,
            inverse,
            roots,
            shape: FieldShape::of(any),
            running: Running::Cpu { reason: None },
            gpu: None,
            embedded,
            fast: None,
        };
        match options.backend {
            Backend::Cpu => {}
            Backend::Gpu(ordinal) => plan.attach_gpu(any, ordinal)?,
            // Only the absence of a GPU sends an automatic plan to the CPU: a GPU that is
            // there but fails (a kernel that does not compile or load) is an error.
            Backend::Auto => match plan.attach_gpu(any, 0) {
                Ok(()) => {}
                Err(Error::Gpu(e)) if e.is_absence() => {
                    plan.running = Running::Cpu {
                        reason: Some(e.to_string()),
                    }
                }
                Err(e) => return Err(e),
            },
        }
        if plan.gpu.is_none() {
            plan.roots.tabulate(field)?;
            // Its tables (n twiddles per direction) are only worth holding on the CPU.
            plan.fast = cpu::Fast::new(
                field,
                n,
                &plan.roots.power(field, 1),
                log_table,
                (options.input_order, options.output_order),
                (options.input_order, options.output_order),
                cpu::Isa::Auto,
            )?;
        }
        Ok(plan)
    }

    fn attach_gpu(&mut self, any: &AnyField, ordinal: usize) -> Result<(), Error> {
        let device = gpu::device(ordinal)?;
        let generated;
        let (source, forward, inverse, rows) = match self.embedded {
            Some(e) => (
                e.source,
                e.forward.to_vec(),
                e.inverse.map(<[_]>::to_vec),
                e.table_rows,
            ),
            None => {
                generated = design::generate(
                    &self.field,
                    any,
                    &self.design,
                    &self.forward,
                    &self.inverse,
                    &self.roots,
                    &EmitOptions::default(),
                )?;
                (
                    generated.source.as_str(),
                    generated.forward.launches.clone(),
                    Some(generated.inverse.launches.clone()),
                    generated.forward.layout.rows(),
                )
            }
        };
        // Kernels, embedded ones included, are emitted with the default options.
        let layout = TableLayout::of(&self.shape, &self.roots, EmitOptions::default().table_bytes);
        let table: Vec<F::Word> =
            kernel::twiddle_table(&self.field, &self.shape, &self.roots, &layout)
                .into_iter()
                .map(F::word)
                .collect();
        let words = self.field.words() as u64;
        if table.len() as u64 != rows * words {
            return Err(Error::TableMismatch {
                rows,
                made: table.len() as u64 / words,
            });
        }
        let has_inverse = inverse.is_some();
        let mut kernels = GpuKernels::compile_all(
            device.clone(),
            source,
            std::iter::once(forward).chain(inverse).collect(),
            &table,
        )?;
        let inverse = if has_inverse { kernels.pop() } else { None };
        let forward = kernels.pop().expect("a forward launch list");
        self.running = Running::Gpu(device.describe());
        self.gpu = Some(GpuPlan {
            forward,
            inverse,
            workspace: Mutex::new(Workspace {
                scratch: None,
                counters: Default::default(),
            }),
        });
        Ok(())
    }

    /// The transform size.
    ///
    /// ```
    /// # let plan = fermat::FftPlan::new(&fermat::dsl::Fp32::new(469762049)?, 256,
    /// #     fermat::FftOptions { backend: fermat::Backend::Cpu, ..Default::default() })?;
    /// assert_eq!(plan.n(), 256);
    /// assert_eq!(plan.field().p(), 469762049);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The field (see [`n`](Self::n) for an example).
    pub fn field(&self) -> &F {
        &self.field
    }

    /// Where the plan runs (see [`Backend`] for an example).
    pub fn running(&self) -> &Running {
        &self.running
    }

    /// The derived formula the kernels implement, and the strategy and radix it was
    /// derived with.
    ///
    /// ```
    /// use fermat::{Backend, FftOptions, FftPlan, Strategy};
    ///
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = FftPlan::new(&f, 256, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// assert_eq!(plan.factorisation(), (Strategy::Ct, 16)); // the defaults
    /// println!("{}", plan.formula()); // (DFT(16) ⊗ I(16)) · D(16,16) · …
    /// assert_eq!(plan.kernel_plan(fermat::Direction::Forward).n(), 256);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn formula(&self) -> &Formula {
        &self.design.formula
    }

    /// The strategy and radix of the derivation (see [`formula`](Self::formula)).
    pub fn factorisation(&self) -> (Strategy, u64) {
        (self.design.strategy, self.design.radix)
    }

    /// The kernel plan of one direction (see [`formula`](Self::formula)).
    pub fn kernel_plan(&self, direction: Direction) -> &Plan {
        self.checked_plan(direction)
    }

    fn checked_plan(&self, direction: Direction) -> &CheckedPlan {
        match direction {
            Direction::Forward => &self.forward,
            Direction::Inverse => &self.inverse,
        }
    }

    /// The cost report of the forward plan: passes over global memory, bytes moved,
    /// multiplications, and the floor at a bandwidth.
    ///
    /// ```
    /// # let plan = fermat::FftPlan::new(&fermat::dsl::Fp32::new(469762049)?, 1 << 20,
    /// #     fermat::FftOptions { backend: fermat::Backend::Cpu, ..Default::default() })?;
    /// let cost = plan.cost()?;
    /// println!("{cost}");
    /// assert!(cost.passes() >= 2);
    /// assert!(cost.floor_seconds(1000.0) >= cost.ideal_seconds(1000.0));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn cost(&self) -> Result<Cost, Error> {
        Ok(Cost::of(&self.forward, self.shape.clone()))
    }

    /// The field's shape in device memory (element bytes, the order of r): what cost
    /// reports need.
    ///
    /// ```
    /// use fermat::{AnyField, Backend, FftOptions, FftPlan, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let plan = FftPlan::new(&p3, 256, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// assert_eq!(plan.shape().element_bytes, 64); // k = 8 digits of 64 bits
    /// assert_eq!(plan.shape().shift_order, Some(16)); // r has order 2k = 16
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn shape(&self) -> &FieldShape {
        &self.shape
    }

    /// The transform generated ahead of time this plan runs, for plans made by
    /// [`FftPlan::from_embedded`] (an example is there); `None` for plans made at run time.
    pub fn embedded(&self) -> Option<&'static Embedded> {
        self.embedded
    }

    /// The forward transform of every run of n elements of `data`, in place
    /// (`data.len()` must be a positive multiple of n: a batch), at ω_n in natural order
    /// unless the options said otherwise.
    ///
    /// ```
    /// use fermat::{Backend, FftOptions, FftPlan};
    ///
    /// let f = fermat::dsl::Fp32::new(17)?;
    /// let plan = FftPlan::new(&f, 4, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// let mut x = vec![1u32, 1, 1, 1, /* and a second vector: */ 1, 0, 0, 0];
    /// plan.forward(&mut x)?;
    /// assert_eq!(x, vec![4, 0, 0, 0, 1, 1, 1, 1]);
    /// plan.inverse(&mut x)?;
    /// assert_eq!(x, vec![1, 1, 1, 1, 1, 0, 0, 0]);
    /// assert!(plan.forward(&mut vec![0u32; 6]).is_err()); // not whole vectors
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn forward(&self, data: &mut [F::Host]) -> Result<(), Error> {
        self.run(Direction::Forward, data)
    }

    /// The inverse transform (at ω^(−1), scaled by 1/n) of every run of n elements (see
    /// [`forward`](Self::forward)).
    pub fn inverse(&self, data: &mut [F::Host]) -> Result<(), Error> {
        self.run(Direction::Inverse, data)
    }

    fn batch_of(&self, what: &'static str, len: usize) -> Result<usize, Error> {
        let n = self.n as usize;
        if let Some(batch) = self.fixed_batch() {
            if len != batch * n {
                return Err(Error::Batch {
                    what,
                    len,
                    n: self.n,
                    batch,
                });
            }
        }
        if len == 0 || !len.is_multiple_of(n) {
            return Err(Error::Length {
                what,
                len,
                n: self.n,
            });
        }
        Ok(len / n)
    }

    /// The number of transforms every call takes, if the plan fixes it (an embedded
    /// transform declared with `batch = …`).
    ///
    /// ```
    /// fermat::fft! {
    ///     /// Eight 16-point DFTs over BabyBear per call.
    ///     pub struct Eight16;
    ///     field = babybear, n = 16, batch = 8
    /// }
    ///
    /// let plan = Eight16::new(fermat::Backend::Cpu)?;
    /// assert_eq!(plan.plan().fixed_batch(), Some(8));
    /// let mut one = vec![0u32; 16];
    /// assert!(matches!(plan.forward(&mut one), Err(fermat::Error::Batch { batch: 8, .. })));
    /// plan.forward(&mut vec![0u32; 8 * 16])?;
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn fixed_batch(&self) -> Option<usize> {
        self.embedded.and_then(|e| e.batch)
    }

    fn check_device_batch(&self, what: &'static str, batch: usize) -> Result<(), Error> {
        match self.fixed_batch() {
            Some(fixed) if fixed != batch => Err(Error::Batch {
                what,
                len: batch * self.n as usize,
                n: self.n,
                batch: fixed,
            }),
            _ => Ok(()),
        }
    }

    /// The instruction set of the word-prime NTT that runs this plan on the CPU, or `None`
    /// where the CPU runs the kernel plan itself (SRGFNs) — the two compute the same.
    ///
    /// ```
    /// use fermat::cpu::Kernels;
    /// use fermat::{Backend, FftOptions, FftPlan};
    ///
    /// let f = fermat::dsl::Fp32::new(2013265921)?;
    /// let plan = FftPlan::new(&f, 1 << 16, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// let isa = plan.cpu_kernels().expect("a word prime on the CPU");
    /// assert!(matches!(isa, Kernels::Portable | Kernels::Avx512));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn cpu_kernels(&self) -> Option<cpu::Kernels> {
        self.fast.as_ref().map(cpu::Fast::kernels)
    }

    fn run(&self, direction: Direction, data: &mut [F::Host]) -> Result<(), Error> {
        let batch = self.batch_of("data", data.len())?;
        // Built only for plans that run on the CPU.
        if let Some(fast) = &self.fast {
            return fast.run(direction, data);
        }
        // Validate every value before any work: a non-canonical input is an error.
        let elems: Vec<F::Elem> = data
            .iter()
            .map(|h| self.field.to_elem(h))
            .collect::<Result<_, _>>()?;
        match &self.gpu {
            None => {
                let plan = self.checked_plan(direction);
                let n = self.n as usize;
                let mut out = vec![self.field.zero(); n];
                for (t, chunk) in elems.chunks(n).enumerate() {
                    cpu::run(
                        &self.field,
                        plan,
                        &self.roots,
                        Input::shared(chunk),
                        &[],
                        &mut out,
                    );
                    for (h, e) in data[t * n..(t + 1) * n].iter_mut().zip(&out) {
                        *h = self.field.to_host(e);
                    }
                }
                Ok(())
            }
            Some(_) => {
                let input = self.to_device(data)?;
                let mut output = self.alloc_device(batch)?;
                self.run_device(direction, &input, &mut output, None)?;
                let host = self.from_device(&output)?;
                data.copy_from_slice(&host);
                Ok(())
            }
        }
    }
}

/// The plan's size, field, factorisation and backend.
///
/// ```
/// let f = fermat::dsl::Fp32::new(469762049)?;
/// let plan = fermat::FftPlan::new(&f, 64, fermat::FftOptions {
///     backend: fermat::Backend::Cpu, ..Default::default()
/// })?;
/// assert!(format!("{plan:?}").starts_with("FftPlan { field: \"469762049\", n: 64, strategy: Ct, radix: 16"));
/// # Ok::<(), fermat::Error>(())
/// ```
impl<F: HostField> std::fmt::Debug for FftPlan<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftPlan")
            .field("field", &self.field.name())
            .field("n", &self.n)
            .field("strategy", &self.design.strategy)
            .field("radix", &self.design.radix)
            .field("running", &self.running)
            .finish_non_exhaustive()
    }
}
