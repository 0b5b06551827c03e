//! The GPU backend: cudarc (driver API, loaded at run time) for devices, memory and
//! launches; NVRTC (loaded at run time by `fermat_codegen::nvrtc`) to compile the generated
//! CUDA C for the device's architecture, with the CUBINs cached on disk.

use crate::cache;
use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut,
    DevicePtr, DevicePtrMut, DeviceRepr, DriverError,
};
use cudarc::nvrtc::Ptx;
use fermat_codegen::kernel::Launch;
use fermat_codegen::nvrtc::{self, NvrtcError, Resources};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use thiserror::Error;

/// Why the GPU could not be used.
#[derive(Debug, Clone, Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No CUDA driver library on this machine.
    #[error("no CUDA driver: libcuda could not be loaded (no NVIDIA driver installed?)")]
    NoDriver,
    /// The driver is there but has no such device.
    #[error("no GPU with ordinal {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices there are.
        count: usize,
    },
    /// A driver call failed.
    #[error("CUDA driver call {call} failed: {message}")]
    Driver {
        /// What was being done.
        call: &'static str,
        /// The driver's message.
        message: String,
    },
    /// The device ran out of memory.
    #[error("out of GPU memory allocating {bytes} bytes ({free} bytes free of {total})")]
    OutOfMemory {
        /// The allocation asked for.
        bytes: usize,
        /// Free device memory.
        free: usize,
        /// Total device memory.
        total: usize,
    },
    /// NVRTC is missing, or the generated source did not compile (the log says why).
    #[error(transparent)]
    Nvrtc(#[from] NvrtcError),
    /// A kernel launch failed.
    #[error("launch of kernel {kernel} failed: {message}")]
    Launch {
        /// The kernel.
        kernel: String,
        /// The driver's message.
        message: String,
    },
}

fn driver(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e| GpuError::Driver {
        call,
        message: e.to_string(),
    }
}

/// One GPU: its context and the stream fermat launches on.
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
    name: String,
    arch: (i32, i32),
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.describe())
    }
}

/// Whether a CUDA driver library can be loaded here.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; no driver function is called.
    unsafe { sys::is_culib_present() }
}

/// The number of GPUs the driver reports (0 without a driver).
pub fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    CudaContext::device_count().map(|c| c as usize).unwrap_or(0)
}

static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();

/// The device with this ordinal, opened once per process.
pub fn device(ordinal: usize) -> Result<Arc<Device>, GpuError> {
    if !driver_present() {
        return Err(GpuError::NoDriver);
    }
    let count = CudaContext::device_count().map_err(driver("cuDeviceGetCount"))? as usize;
    if ordinal >= count {
        return Err(GpuError::NoDevice { ordinal, count });
    }
    let mut devices = DEVICES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(d) = devices.get(&ordinal) {
        return Ok(d.clone());
    }
    let ctx = CudaContext::new(ordinal).map_err(driver("cuCtxCreate"))?;
    let name = ctx.name().map_err(driver("cuDeviceGetName"))?;
    let arch = ctx
        .compute_capability()
        .map_err(driver("cuDeviceGetAttribute"))?;
    let stream = ctx.new_stream().map_err(driver("cuStreamCreate"))?;
    let d = Arc::new(Device {
        ctx,
        stream,
        ordinal,
        name,
        arch,
    });
    devices.insert(ordinal, d.clone());
    Ok(d)
}

impl Device {
    /// "NVIDIA H100 80GB HBM3 (GPU 0, sm_90)".
    pub fn describe(&self) -> String {
        format!(
            "{} (GPU {}, sm_{}{})",
            self.name, self.ordinal, self.arch.0, self.arch.1
        )
    }

    /// The CUDA context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream fermat launches on unless told otherwise.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The architecture option of NVRTC for this device.
    pub fn arch_option(&self) -> String {
        format!("--gpu-architecture=sm_{}{}", self.arch.0, self.arch.1)
    }

    /// Compiles `source` for this device (or takes the CUBIN from the disk cache) and
    /// loads it; returns the module and ptxas's resource report (empty from the cache).
    pub fn compile(
        &self,
        source: &str,
    ) -> Result<(Arc<cudarc::driver::CudaModule>, Vec<Resources>), GpuError> {
        let arch = self.arch_option();
        let options = [arch.as_str(), "--std=c++17", "--ptxas-options=-v"];
        let key = cache::key(&[source, &options.join(" ")]);
        let (cubin, resources) = match cache::get(&key) {
            Some(bytes) => (bytes, Vec::new()),
            None => {
                let compiled = nvrtc::compile(source, &options)?;
                let resources = compiled.resources();
                let cubin = compiled.cubin.ok_or_else(|| GpuError::Driver {
                    call: "nvrtcGetCUBIN",
                    message: "NVRTC returned no CUBIN for a real architecture".into(),
                })?;
                cache::put(&key, &cubin);
                (cubin, resources)
            }
        };
        let module = self
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("cuModuleLoadData"))?;
        Ok((module, resources))
    }

    /// Allocates `len` words, with a typed error when memory runs out.
    pub fn alloc<W: DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<W>, GpuError> {
        self.stream.alloc_zeros::<W>(len).map_err(|e| {
            if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
                let (free, total) = self.ctx.mem_get_info().unwrap_or((0, 0));
                GpuError::OutOfMemory {
                    bytes: len * std::mem::size_of::<W>(),
                    free,
                    total,
                }
            } else {
                driver("cuMemAlloc")(e)
            }
        })
    }

    /// A timing event.
    pub fn event(&self) -> Result<CudaEvent, GpuError> {
        self.ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventCreate"))
    }
}

/// Hand-offs between passes pay where a pass's last wave of blocks leaves the device partly
/// idle and the next pass can fill it: on an H200 they took P3 2^20 (3.9 waves per pass)
/// from 0.403 to 0.376 ms and P4 2^20 (10.3 waves) from 1.064 to 1.037, but cost
/// babybear 2^26 (15.5 waves) 1.5%, where the tail is short next to each block's wait for
/// its own stores, and P3 16^4 (a quarter of a wave) 7%, where every block's latency is
/// the pass's (bench/RESULTS.md, tuning round 10). Outside these bounds, in waves of the
/// dependent passes, a call waits for whole passes instead.
const HAND_OFF_WAVES: std::ops::RangeInclusive<f64> = 0.5..=12.0;

/// A call's hand-off counters and epoch (see `fermat_codegen::kernel::KERNEL_ARGS`).
pub(crate) struct HandOff<'a, 'b> {
    /// [`GpuKernels::counters`] per transform of the batch.
    pub(crate) counters: &'a mut CudaViewMut<'b, u32>,
    /// The call's number since the counters were zeroed; 0 waits for whole passes.
    pub(crate) epoch: u32,
}

/// The compiled kernels of one plan on one device.
pub(crate) struct GpuKernels<W> {
    device: Arc<Device>,
    functions: Vec<CudaFunction>,
    /// Blocks of each kernel the whole device holds at once.
    resident: Vec<u64>,
    launches: Vec<Launch>,
    table: Arc<CudaSlice<W>>,
    /// Words per transform.
    words: usize,
    /// ptxas's report, when the source was compiled rather than taken from the cache.
    pub(crate) resources: Vec<Resources>,
}

impl<W: DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy> GpuKernels<W> {
    /// Compiles `source` once and prepares the kernels of each launch list (one per
    /// direction), all reading one uploaded twiddle table.
    pub(crate) fn compile_all(
        device: Arc<Device>,
        source: &str,
        launch_lists: Vec<Vec<Launch>>,
        table: &[W],
        words: usize,
    ) -> Result<Vec<Self>, GpuError> {
        let (module, resources) = device.compile(source)?;
        // An empty table still needs a valid pointer.
        let mut dev_table = device.alloc::<W>(table.len().max(1))?;
        if !table.is_empty() {
            device
                .stream
                .memcpy_htod(table, &mut dev_table)
                .map_err(driver("cuMemcpyHtoD"))?;
        }
        let table = Arc::new(dev_table);
        launch_lists
            .into_iter()
            .map(|launches| {
                let functions = launches
                    .iter()
                    .map(|l| {
                        module
                            .load_function(&l.kernel)
                            .map_err(driver("cuModuleGetFunction"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let sms = device
                    .ctx
                    .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                    .map_err(driver("cuDeviceGetAttribute"))?;
                let resident = functions
                    .iter()
                    .zip(&launches)
                    .map(|(f, l)| {
                        let per_sm = f
                            .occupancy_max_active_blocks_per_multiprocessor(l.threads, 0, None)
                            .map_err(driver("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
                        Ok(u64::from(per_sm.max(1)) * sms.max(1) as u64)
                    })
                    .collect::<Result<Vec<_>, GpuError>>()?;
                Ok(GpuKernels {
                    device: device.clone(),
                    functions,
                    resident,
                    resources: resources
                        .iter()
                        .filter(|r| launches.iter().any(|l| l.kernel == r.kernel))
                        .cloned()
                        .collect(),
                    launches,
                    table: table.clone(),
                    words,
                })
            })
            .collect()
    }

    /// Whether the plan needs a scratch buffer.
    pub(crate) fn needs_scratch(&self) -> bool {
        self.launches
            .iter()
            .any(|l| l.src == "scratch" || l.dst == "scratch")
    }

    /// The hand-off counters between the plan's passes, per transform of a batch.
    pub(crate) fn counters(&self) -> usize {
        self.launches.iter().map(|l| l.signals as usize).sum()
    }

    /// Whether a call of `batch` transforms should hand off between passes group by group
    /// ([`HAND_OFF_WAVES`]) rather than pass by pass.
    pub(crate) fn hands_off(&self, batch: usize) -> bool {
        self.counters() > 0
            && self
                .launches
                .iter()
                .zip(&self.resident)
                .skip(1)
                .all(|(l, &r)| {
                    HAND_OFF_WAVES.contains(&((l.blocks * batch as u64) as f64 / r as f64))
                })
    }

    /// Runs `batch` transforms from `input` into `output` on `stream`; `scratch` holds
    /// as many words as `output` when [`needs_scratch`](Self::needs_scratch).
    ///
    /// The buffers' device pointers are taken once for the whole plan, so that its launches
    /// follow one another on the stream with nothing in between; on sm_90 and later every
    /// launch after the first may then start while the one before drains (programmatic
    /// dependent launch), each of its blocks as soon as the blocks of the pass before that
    /// it depends on are done (the hand-off counters).
    pub(crate) fn run(
        &self,
        stream: &CudaStream,
        input: &CudaView<'_, W>,
        output: &mut CudaViewMut<'_, W>,
        scratch: &mut CudaViewMut<'_, W>,
        hand_off: HandOff<'_, '_>,
        batch: usize,
    ) -> Result<(), GpuError> {
        let HandOff { counters, epoch } = hand_off;
        debug_assert_eq!(input.len(), batch * self.words);
        let batch_dim = u32::try_from(batch)
            .ok()
            .filter(|&b| b <= 65_535)
            .ok_or_else(|| GpuError::Launch {
                kernel: self.launches[0].kernel.clone(),
                message: format!("a batch of {batch} transforms exceeds the grid's 65535 rows"),
            })?;
        stream
            .context()
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        // The guards order these buffers' uses on other streams after the whole plan.
        let (input, _input) = input.device_ptr(stream);
        let (output, _output) = output.device_ptr_mut(stream);
        let (scratch, _scratch) = scratch.device_ptr_mut(stream);
        let (table, _table) = self.table.device_ptr(stream);
        let (counters, _counters) = counters.device_ptr_mut(stream);
        let overlap = self.device.arch.0 >= 9;
        for (i, (f, l)) in self.functions.iter().zip(&self.launches).enumerate() {
            let (src, dst) = match (l.src, l.dst) {
                ("input", "output") => (input, output),
                ("input", "scratch") => (input, scratch),
                ("output", "scratch") => (output, scratch),
                ("scratch", "output") => (scratch, output),
                (src, dst) => unreachable!("plans never read {src} and write {dst}"),
            };
            let mut attribute = sys::CUlaunchAttribute {
                id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                pad: [0; 4],
                value: sys::CUlaunchAttributeValue {
                    programmaticStreamSerializationAllowed: 1,
                },
            };
            let dependent = overlap && i > 0;
            let config = sys::CUlaunchConfig {
                gridDimX: l.blocks as u32,
                gridDimY: batch_dim,
                gridDimZ: 1,
                blockDimX: l.threads,
                blockDimY: 1,
                blockDimZ: 1,
                sharedMemBytes: 0,
                hStream: stream.cu_stream(),
                attrs: if dependent {
                    &mut attribute
                } else {
                    std::ptr::null_mut()
                },
                numAttrs: dependent as u32,
            };
            let mut args = [src, dst, table, counters];
            let mut epoch = epoch;
            let [a, b, c, d] = args
                .each_mut()
                .map(|a| a as *mut sys::CUdeviceptr as *mut std::ffi::c_void);
            let mut params = [a, b, c, d, &mut epoch as *mut u32 as *mut std::ffi::c_void];
            // SAFETY: the kernel's parameters are (const word*, word*, const word*, u32*,
            // u32), the buffers hold `batch` transforms of `words` words each (`counters`
            // its counters per transform for each) and the grid covers exactly the plan's
            // tiles, as the manifest computed them; `params` and `attribute` outlive the
            // call, which copies them.
            unsafe {
                sys::cuLaunchKernelEx(
                    &config,
                    f.cu_function(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .map_err(|e| GpuError::Launch {
                kernel: l.kernel.clone(),
                message: e.to_string(),
            })?;
        }
        Ok(())
    }

    /// The device.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }
}
