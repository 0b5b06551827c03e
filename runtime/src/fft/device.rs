//! An [`FftPlan`] on the device: transforms kept in device memory between calls, and the
//! calls that run them there.

use super::{FftPlan, Workspace};
use crate::error::Error;
use crate::gpu::{self, Device, GpuError};
use crate::host::HostField;
use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut};
use fermat_codegen::plan::Direction;
use std::sync::Arc;

impl<F: HostField> FftPlan<F> {
    pub(crate) fn device(&self) -> Result<&Arc<Device>, Error> {
        match &self.gpu {
            Some(g) => Ok(g.forward.device()),
            None => Err(Error::NotOnGpu),
        }
    }

    /// Copies transforms to the device, in the device layout (values are checked).
    ///
    /// The device API keeps data on the GPU between calls; a plan on the CPU refuses it
    /// with [`Error::NotOnGpu`]:
    ///
    /// ```
    /// use fermat::{Direction, Error, FftOptions, FftPlan};
    ///
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = FftPlan::new(&f, 1024, FftOptions::default())?; // the GPU if there is one
    /// let x: Vec<u32> = (0..2 * 1024).collect(); // a batch of two
    /// match plan.to_device(&x) {
    ///     Ok(input) => {
    ///         let mut output = plan.alloc_device(input.batch())?;
    ///         plan.run_device(Direction::Forward, &input, &mut output, None)?;
    ///         let y = plan.from_device(&output)?; // waits for the stream
    ///         let mut want = x.clone();
    ///         fermat::FftPlan::new(&f, 1024, fermat::FftOptions {
    ///             backend: fermat::Backend::Cpu, ..Default::default()
    ///         })?.forward(&mut want)?;
    ///         assert_eq!(y, want);
    ///     }
    ///     Err(Error::NotOnGpu) => println!("no GPU: {}", plan.running()),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn to_device(&self, data: &[F::Host]) -> Result<DeviceVec<F>, Error> {
        let batch = self.batch_of("data", data.len())?;
        for h in data {
            self.field.to_elem(h)?;
        }
        let device = self.device()?;
        let mut words = Vec::with_capacity(data.len() * self.field.words());
        self.field.pack(data, self.n as usize, &mut words);
        let mut buf = device.alloc::<F::Word>(words.len())?;
        device
            .stream()
            .memcpy_htod(&words, &mut buf)
            .map_err(|source| GpuError::Driver {
                call: "cuMemcpyHtoD",
                source,
            })?;
        Ok(DeviceVec { data: buf, batch })
    }

    /// A zeroed device vector of `batch` transforms (see [`to_device`](Self::to_device)).
    pub fn alloc_device(&self, batch: usize) -> Result<DeviceVec<F>, Error> {
        self.check_device_batch("the device vector", batch)?;
        let device = self.device()?;
        let len = batch * self.n as usize * self.field.words();
        Ok(DeviceVec {
            data: device.alloc::<F::Word>(len)?,
            batch,
        })
    }

    /// A device vector of `batch` transforms filled with all-ones words, a value no
    /// element has: an element a kernel fails to write shows up in any comparison.
    ///
    /// ```
    /// use fermat::{Direction, Error, FftOptions, FftPlan};
    ///
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = FftPlan::new(&f, 1 << 12, FftOptions::default())?;
    /// match plan.poisoned_device(1) {
    ///     Ok(mut out) => {
    ///         let input = plan.to_device(&vec![7u32; 1 << 12])?;
    ///         plan.run_device(Direction::Forward, &input, &mut out, None)?;
    ///         // Every element was written: none is still the all-ones word.
    ///         assert!(plan.from_device(&out)?.iter().all(|&y| y != u32::MAX));
    ///     }
    ///     Err(Error::NotOnGpu) => println!("no GPU: {}", plan.running()),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn poisoned_device(&self, batch: usize) -> Result<DeviceVec<F>, Error> {
        let device = self.device()?;
        let len = batch * self.n as usize * self.field.words();
        let poison = vec![F::word(u64::MAX); len];
        let mut buf = device.alloc::<F::Word>(len)?;
        device
            .stream()
            .memcpy_htod(&poison, &mut buf)
            .map_err(|source| GpuError::Driver {
                call: "cuMemcpyHtoD",
                source,
            })?;
        Ok(DeviceVec { data: buf, batch })
    }

    /// Copies transforms back from the device (as they are: callers compare or check); see
    /// [`to_device`](Self::to_device).
    pub fn from_device(&self, v: &DeviceVec<F>) -> Result<Vec<F::Host>, Error> {
        let device = self.device()?;
        let words = device
            .stream()
            .clone_dtoh(&v.data)
            .map_err(|source| GpuError::Driver {
                call: "cuMemcpyDtoH",
                source,
            })?;
        let n = self.n as usize;
        let mut out = vec![self.field.to_host(&self.field.zero()); v.batch * n];
        self.field.unpack(&words, n, &mut out);
        Ok(out)
    }

    /// Runs the transforms of `input` into `output` on the device, on `stream` (default:
    /// the plan's), without synchronising: the work is ordered on the stream (see
    /// [`to_device`](Self::to_device)).
    pub fn run_device(
        &self,
        direction: Direction,
        input: &DeviceVec<F>,
        output: &mut DeviceVec<F>,
        stream: Option<&Arc<CudaStream>>,
    ) -> Result<(), Error> {
        self.gpu.as_ref().ok_or(Error::NotOnGpu)?;
        if input.batch != output.batch {
            return Err(Error::BatchMismatch {
                input: input.batch,
                output: output.batch,
            });
        }
        self.check_device_batch("the input", input.batch)?;
        let len = output.data.len();
        self.run_device_views(
            direction,
            &input.data.slice(0..input.data.len()),
            &mut output.data.slice_mut(0..len),
            output.batch,
            stream,
        )
    }

    /// [`run_device`](Self::run_device) on views of `batch` transforms each, checked by
    /// the caller: the CRT route's residues are rows of one buffer.
    pub(crate) fn run_device_views(
        &self,
        direction: Direction,
        input: &CudaView<'_, F::Word>,
        output: &mut CudaViewMut<'_, F::Word>,
        batch: usize,
        stream: Option<&Arc<CudaStream>>,
    ) -> Result<(), Error> {
        let gpu = self.gpu.as_ref().ok_or(Error::NotOnGpu)?;
        let kernels = match direction {
            Direction::Forward => &gpu.forward,
            Direction::Inverse => gpu
                .inverse
                .as_ref()
                .ok_or(Error::ForwardOnly { n: self.n })?,
        };
        let stream = stream.unwrap_or_else(|| kernels.device().stream());
        let len = output.len();
        let mut workspace = gpu.workspace.lock().unwrap_or_else(|e| e.into_inner());
        let Workspace { scratch, counters } = &mut *workspace;
        // Plans without a scratch pass still take a valid pointer: one word, allocated once,
        // so no call allocates device memory on its way to the launch.
        let need = if kernels.needs_scratch() { len } else { 1 };
        if scratch.as_ref().is_none_or(|s| s.len() < need) {
            *scratch = Some(kernels.device().alloc::<F::Word>(need)?);
        }
        let mut scratch_view = scratch
            .as_mut()
            .expect("allocated above")
            .slice_mut(0..need);
        let counters = &mut counters[(direction == Direction::Inverse) as usize];
        let (flags, epoch) = counters.next(kernels, stream, batch)?;
        let mut flags = flags.slice_mut(..);
        // Views of the workspace's lifetime: a call's vectors all share one.
        let input = input.slice(..);
        let mut output = output.slice_mut(..);
        let vectors = gpu::Vectors {
            input: gpu::DeviceInput::Shared(&input),
            output: &mut output,
            scratch: &mut scratch_view,
            operand: gpu::Operand::None,
            extents: gpu::Extents::whole(self.n),
        };
        let ran = kernels.run(
            stream,
            vectors,
            gpu::HandOff {
                counters: &mut flags,
                epoch,
                first_early: false,
            },
            batch,
        );
        if ran.is_err() {
            counters.invalidate();
        }
        ran?;
        Ok(())
    }

    /// Whether a device call of `batch` transforms in `direction` hands off between passes
    /// group by group (rather than pass by pass): multi-pass SRGFN plans whose passes fill
    /// the device between half a wave and twelve waves of blocks. Always false on the CPU.
    ///
    /// ```
    /// use fermat::{AnyField, Backend, Direction, FftOptions, FftPlan, FieldSpec};
    ///
    /// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
    /// let plan = FftPlan::new(&p3, 1 << 16, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// assert!(!plan.hands_off(Direction::Forward, 1));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn hands_off(&self, direction: Direction, batch: usize) -> bool {
        let Some(gpu) = &self.gpu else {
            return false;
        };
        match direction {
            Direction::Forward => gpu.forward.hands_off(batch),
            Direction::Inverse => gpu.inverse.as_ref().is_some_and(|k| k.hands_off(batch)),
        }
    }

    /// Waits for the plan's stream: [`run_device`](Self::run_device) only enqueues.
    /// A plan on the CPU has no stream ([`Error::NotOnGpu`]).
    ///
    /// ```
    /// use fermat::{Backend, Error, FftOptions, FftPlan};
    ///
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = FftPlan::new(&f, 64, FftOptions { backend: Backend::Cpu, ..Default::default() })?;
    /// assert!(matches!(plan.synchronize(), Err(Error::NotOnGpu)));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<(), Error> {
        let device = self.device()?;
        device.stream().synchronize().map_err(|source| {
            Error::Gpu(GpuError::Driver {
                call: "cuStreamSynchronize",
                source,
            })
        })
    }

    /// ptxas's registers and spills per kernel of the forward plan (empty when the CUBIN
    /// came from the cache or the plan runs on the CPU).
    ///
    /// ```
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = fermat::FftPlan::new(&f, 1 << 12, fermat::FftOptions::default())?;
    /// for kernel in plan.resources() {
    ///     println!("{kernel:?}"); // registers and spills, as ptxas reported them
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn resources(&self) -> Vec<fermat_codegen::nvrtc::Resources> {
        self.gpu
            .as_ref()
            .map(|g| g.forward.resources.clone())
            .unwrap_or_default()
    }
}

/// Transforms on the device, in the device layout (digit-major for SRGFNs): made by
/// [`FftPlan::to_device`] and [`FftPlan::alloc_device`] (an example is there).
///
/// ```
/// use fermat::{AnyField, FftOptions, FftPlan, FieldSpec};
///
/// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
/// let plan = FftPlan::new(&p3, 256, FftOptions::default())?;
/// if let Ok(v) = plan.alloc_device(3) {
///     assert_eq!(v.batch(), 3);
///     assert_eq!(v.words().len(), 3 * 256 * 8); // k = 8 words per element
/// }
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct DeviceVec<F: HostField> {
    pub(super) data: CudaSlice<F::Word>,
    pub(super) batch: usize,
}

impl<F: HostField> DeviceVec<F> {
    /// How many transforms it holds ([`DeviceVec`] has an example).
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// The raw device words, digit-major for an SRGFN ([`DeviceVec`] has an example).
    pub fn words(&self) -> &CudaSlice<F::Word> {
        &self.data
    }

    /// The raw device words, writable (see [`words`](Self::words)).
    pub fn words_mut(&mut self) -> &mut CudaSlice<F::Word> {
        &mut self.data
    }
}
