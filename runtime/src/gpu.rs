//! The GPU backend: cudarc (driver API, loaded at run time) for devices, memory and
//! launches; NVRTC (loaded at run time by `fermat_codegen::nvrtc`) to compile the generated
//! CUDA C for the device's architecture, with the CUBINs cached on disk.

use crate::cache::{self, Cache};
use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut,
    DevicePtr, DevicePtrMut, DeviceRepr, DriverError,
};
use cudarc::nvrtc::Ptx;
use fermat_codegen::contract::{Arg, Launch};
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
    #[error("CUDA driver call {call} failed")]
    Driver {
        /// The driver function.
        call: &'static str,
        /// The driver's error.
        #[source]
        source: DriverError,
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
    /// NVRTC compiled the source but returned no CUBIN.
    #[error("NVRTC returned no CUBIN for {arch}")]
    NoCubin {
        /// The architecture option the source was compiled with.
        arch: String,
    },
    /// A launch beyond the device's grid.
    #[error("kernel {kernel} needs a grid of {blocks} × {batch} blocks; this device launches at most {max_x} × {max_y}")]
    GridTooLarge {
        /// The kernel.
        kernel: String,
        /// Blocks along x (tiles of one transform).
        blocks: u64,
        /// Blocks along y (transforms of the batch).
        batch: u64,
        /// The device's largest grid along x.
        max_x: u64,
        /// The device's largest grid along y.
        max_y: u64,
    },
    /// A kernel takes more arguments than a launch passes.
    #[error("kernel {kernel} takes {count} arguments; launches pass at most {max}")]
    TooManyArguments {
        /// The kernel.
        kernel: String,
        /// Its arguments.
        count: usize,
        /// The most a launch passes.
        max: usize,
    },
    /// A kernel launch failed.
    #[error("launch of kernel {kernel} failed")]
    Launch {
        /// The kernel.
        kernel: String,
        /// The driver's error.
        #[source]
        source: DriverError,
    },
}

impl GpuError {
    /// Whether the error says that there is no GPU to use here (no driver, or no device of
    /// that ordinal) rather than that one failed: the only reasons for
    /// [`Backend::Auto`](crate::Backend::Auto) to fall back to the CPU and for GPU tests to
    /// skip.
    pub fn is_absence(&self) -> bool {
        matches!(self, GpuError::NoDriver | GpuError::NoDevice { .. })
    }
}

fn driver(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |source| GpuError::Driver { call, source }
}

/// The largest grid a device launches: blocks along x and y.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridLimits {
    /// Blocks along x (2^31 − 1 on every architecture since sm_30).
    pub max_x: u64,
    /// Blocks along y (65,535).
    pub max_y: u64,
}

impl GridLimits {
    /// The grid of a launch of `blocks` tiles for each of `batch` transforms, or the error
    /// naming the limit it exceeds.
    pub fn grid(&self, kernel: &str, blocks: u64, batch: usize) -> Result<(u32, u32), GpuError> {
        let batch = batch as u64;
        let fits = |v: u64, max: u64| (1..=max).contains(&v).then_some(v as u32);
        match (fits(blocks, self.max_x), fits(batch, self.max_y)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(GpuError::GridTooLarge {
                kernel: kernel.to_string(),
                blocks,
                batch,
                max_x: self.max_x,
                max_y: self.max_y,
            }),
        }
    }
}

/// One GPU: its context and the stream fermat launches on.
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
    name: String,
    arch: (i32, i32),
    limits: GridLimits,
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
    let grid = |attribute| {
        ctx.attribute(attribute)
            .map(|v| v.max(0) as u64)
            .map_err(driver("cuDeviceGetAttribute"))
    };
    let limits = GridLimits {
        max_x: grid(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        max_y: grid(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
    };
    let d = Arc::new(Device {
        ctx,
        stream,
        ordinal,
        name,
        arch,
        limits,
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

    /// The largest grid this device launches.
    pub fn limits(&self) -> GridLimits {
        self.limits
    }

    /// The NVRTC options of a compilation for this device.
    fn compile_options(&self) -> [String; 3] {
        [
            self.arch_option(),
            "--std=c++17".into(),
            "--ptxas-options=-v".into(),
        ]
    }

    /// The cache key of `source` compiled for this device: the source, the options and
    /// NVRTC's version (another NVRTC may emit another binary).
    pub fn cache_key(&self, source: &str) -> Result<String, GpuError> {
        let (major, minor) = nvrtc::global()?.version()?;
        let options = self.compile_options().join(" ");
        Ok(cache::key(&[
            source,
            &options,
            &format!("nvrtc {major}.{minor}"),
        ]))
    }

    /// Compiles `source` for this device (or takes the CUBIN from the disk cache) and
    /// loads it; returns the module and ptxas's resource report (empty from the cache).
    ///
    /// A cached CUBIN that the driver refuses is evicted and compiled again; only a fresh
    /// CUBIN that fails to load is an error.
    pub fn compile(
        &self,
        source: &str,
    ) -> Result<(Arc<cudarc::driver::CudaModule>, Vec<Resources>), GpuError> {
        let key = self.cache_key(source)?;
        let cache = Cache::from_env();
        if let Some(cubin) = cache.as_ref().and_then(|c| c.get(&key)) {
            match self.load(cubin) {
                Ok(module) => return Ok((module, Vec::new())),
                Err(_) => cache.iter().for_each(|c| c.evict(&key)),
            }
        }
        let options = self.compile_options();
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let compiled = nvrtc::compile(source, &options)?;
        let resources = compiled.resources();
        let cubin = compiled.cubin.ok_or_else(|| GpuError::NoCubin {
            arch: self.arch_option(),
        })?;
        let module = self.load(cubin.clone())?;
        if let Some(cache) = &cache {
            // The cache only saves time: a failed write leaves nothing behind.
            let _ = cache.put(&key, &cubin);
        }
        Ok((module, resources))
    }

    fn load(&self, cubin: Vec<u8>) -> Result<Arc<cudarc::driver::CudaModule>, GpuError> {
        self.ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("cuModuleLoadData"))
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

/// A call's hand-off counters and epoch ([`Arg::Counters`], [`Arg::Epoch`]).
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
                })
            })
            .collect()
    }

    /// Whether the plan needs a scratch buffer.
    pub(crate) fn needs_scratch(&self) -> bool {
        self.launches.iter().any(|l| l.hop.uses_scratch())
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

    /// Runs `batch` transforms of `vectors` on `stream`: from the input into the output,
    /// through the scratch buffer (as many words as the output, when
    /// [`needs_scratch`](Self::needs_scratch)), with the operand and the extents of short
    /// vectors where the plan's kernels take them ([`POLY_TRANSFORM_ARGS`]).
    ///
    /// The buffers' device pointers are taken once for the whole plan, so that its launches
    /// follow one another on the stream with nothing in between; on sm_90 and later every
    /// launch after the first may then start while the one before drains (programmatic
    /// dependent launch), each of its blocks as soon as the blocks of the pass before that
    /// it depends on are done (the hand-off counters).
    ///
    /// [`POLY_TRANSFORM_ARGS`]: fermat_codegen::contract::POLY_TRANSFORM_ARGS
    pub(crate) fn run(
        &self,
        stream: &CudaStream,
        vectors: Vectors<'_, '_, W>,
        hand_off: HandOff<'_, '_>,
        batch: usize,
    ) -> Result<(), GpuError> {
        let HandOff { counters, epoch } = hand_off;
        let Vectors {
            input,
            output,
            scratch,
            operand,
            extents,
        } = vectors;
        let grids = self
            .launches
            .iter()
            .map(|l| self.device.limits.grid(&l.kernel, l.blocks, batch))
            .collect::<Result<Vec<_>, _>>()?;
        stream
            .context()
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        // The guards order these buffers' uses on other streams after the whole plan.
        let (input, _input) = match input {
            DeviceInput::Shared(view) => view.device_ptr(stream),
            DeviceInput::Clobbered(view) => view.device_ptr_mut(stream),
        };
        let (operand, _operand) = match operand {
            Some(view) => {
                let (ptr, guard) = view.device_ptr(stream);
                (ptr, Some(guard))
            }
            None => (0, None),
        };
        let (output, _output) = output.device_ptr_mut(stream);
        let (scratch, _scratch) = scratch.device_ptr_mut(stream);
        let (table, _table) = self.table.device_ptr(stream);
        let (counters, _counters) = counters.device_ptr_mut(stream);
        let overlap = self.device.arch.0 >= 9;
        for (i, ((f, l), (x, y))) in self
            .functions
            .iter()
            .zip(&self.launches)
            .zip(grids)
            .enumerate()
        {
            let (src, dst) = l.hop.select(input, output, scratch);
            let bound = Bound {
                src,
                dst,
                table,
                counters,
                epoch,
                operand,
                extents,
            };
            let mut values = [Value::U32(0); MAX_ARGS];
            if l.args.len() > MAX_ARGS {
                return Err(GpuError::TooManyArguments {
                    kernel: l.kernel.to_string(),
                    count: l.args.len(),
                    max: MAX_ARGS,
                });
            }
            for (v, &arg) in values.iter_mut().zip(l.args) {
                *v = bound.value(arg);
            }
            let mut params = values.each_mut().map(Value::as_param);
            let mut attribute = sys::CUlaunchAttribute {
                id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                pad: [0; 4],
                value: sys::CUlaunchAttributeValue {
                    programmaticStreamSerializationAllowed: 1,
                },
            };
            let dependent = overlap && i > 0;
            let config = sys::CUlaunchConfig {
                gridDimX: x,
                gridDimY: y,
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
            // SAFETY: `params` holds one pointer per kernel argument, in the order and of
            // the types `l.args` gives (the kernel was generated from the same list); the
            // buffers hold `batch` transforms within the extents bound (`counters` its
            // counters per transform for each) and the grid covers exactly the plan's
            // tiles, as the manifest computed them; `values`, `params` and `attribute`
            // outlive the call, which copies them.
            unsafe {
                sys::cuLaunchKernelEx(
                    &config,
                    f.cu_function(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .map_err(|source| GpuError::Launch {
                kernel: l.kernel.to_string(),
                source,
            })?;
        }
        Ok(())
    }

    /// The device.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }
}

/// The most arguments a launch passes (transform kernels of polynomials take fifteen).
const MAX_ARGS: usize = 16;

/// The vectors of one call of a plan on the device.
pub(crate) struct Vectors<'a, 'b, W> {
    /// The input: read only, or given up to a plan that clobbers it.
    pub(crate) input: DeviceInput<'a, 'b, W>,
    /// The output.
    pub(crate) output: &'a mut CudaViewMut<'b, W>,
    /// The scratch buffer.
    pub(crate) scratch: &'a mut CudaViewMut<'b, W>,
    /// The operand of a plan with a pointwise product.
    pub(crate) operand: Option<&'a CudaView<'b, W>>,
    /// The extents of short inputs and outputs.
    pub(crate) extents: Extents,
}

/// The input of a call on the device.
pub(crate) enum DeviceInput<'a, 'b, W> {
    /// Read only.
    Shared(&'a CudaView<'b, W>),
    /// Given up to a plan that clobbers its input.
    Clobbered(&'a mut CudaViewMut<'b, W>),
}

/// Where a plan's transforms find their short sources and destinations and their operand
/// ([`Arg::SourceLength`] and its kin, in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extents {
    pub(crate) source: Extent,
    pub(crate) destination: Extent,
    /// Transforms between the operands of consecutive transforms (0: one for all).
    pub(crate) op_dist: u64,
}

/// Where the transforms of a batch find their part of one vector of polynomials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    /// Elements of each transform's part.
    pub(crate) len: u64,
    /// Elements of the vector in all.
    pub(crate) limit: u64,
    /// Elements between the parts of consecutive transforms.
    pub(crate) dist: u64,
    /// Words between the digits of one element.
    pub(crate) stride: u64,
}

impl Extents {
    /// Whole vectors of n elements, one transform after another.
    pub(crate) fn whole(n: u64) -> Extents {
        let whole = Extent {
            len: n,
            limit: n,
            dist: n,
            stride: n,
        };
        Extents {
            source: whole,
            destination: whole,
            op_dist: 1,
        }
    }
}

/// The values a call binds to the [`Arg`]s of its kernels.
struct Bound {
    src: sys::CUdeviceptr,
    dst: sys::CUdeviceptr,
    table: sys::CUdeviceptr,
    counters: sys::CUdeviceptr,
    epoch: u32,
    operand: sys::CUdeviceptr,
    extents: Extents,
}

/// One kernel argument, as the driver reads it: through a pointer to its value.
#[derive(Clone, Copy)]
enum Value {
    Ptr(sys::CUdeviceptr),
    U32(u32),
    U64(u64),
}

impl Bound {
    fn value(&self, arg: Arg) -> Value {
        match arg {
            Arg::Source => Value::Ptr(self.src),
            Arg::Destination => Value::Ptr(self.dst),
            Arg::Twiddles => Value::Ptr(self.table),
            Arg::Counters => Value::Ptr(self.counters),
            Arg::Epoch => Value::U32(self.epoch),
            Arg::Operand => Value::Ptr(self.operand),
            Arg::OperandDistance => Value::U64(self.extents.op_dist),
            Arg::SourceLength => Value::U64(self.extents.source.len),
            Arg::SourceLimit => Value::U64(self.extents.source.limit),
            Arg::SourceDistance => Value::U64(self.extents.source.dist),
            Arg::SourceStride => Value::U64(self.extents.source.stride),
            Arg::DestinationLength => Value::U64(self.extents.destination.len),
            Arg::DestinationLimit => Value::U64(self.extents.destination.limit),
            Arg::DestinationDistance => Value::U64(self.extents.destination.dist),
            Arg::DestinationStride => Value::U64(self.extents.destination.stride),
        }
    }
}

impl Value {
    fn as_param(&mut self) -> *mut std::ffi::c_void {
        match self {
            Value::Ptr(p) => (p as *mut sys::CUdeviceptr).cast(),
            Value::U32(v) => (v as *mut u32).cast(),
            Value::U64(v) => (v as *mut u64).cast(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_codegen::contract::{POLY_TRANSFORM_ARGS, TRANSFORM_ARGS};

    #[test]
    fn launches_beyond_the_grid_are_typed_errors() {
        let h100 = GridLimits {
            max_x: (1 << 31) - 1,
            max_y: 65_535,
        };
        assert_eq!(h100.grid("k", 8, 3).unwrap(), (8, 3));
        assert_eq!(
            h100.grid("k", (1 << 31) - 1, 65_535).unwrap(),
            ((1 << 31) - 1, 65_535)
        );
        // Beyond u32 along x: a cast would have launched 0 blocks.
        let err = h100.grid("fwd_k0", 1 << 32, 1).unwrap_err();
        assert!(
            matches!(err, GpuError::GridTooLarge { blocks, .. } if blocks == 1 << 32),
            "{err}"
        );
        assert!(
            err.to_string().contains("at most 2147483647 × 65535"),
            "{err}"
        );
        assert!(h100.grid("k", 1 << 31, 1).is_err());
        assert!(h100.grid("k", 1, 65_536).is_err());
        assert!(h100.grid("k", 0, 1).is_err(), "an empty grid is no launch");
    }

    #[test]
    fn only_a_missing_driver_or_device_is_an_absence() {
        assert!(GpuError::NoDriver.is_absence());
        assert!(GpuError::NoDevice {
            ordinal: 1,
            count: 1
        }
        .is_absence());
        let compile = GpuError::Nvrtc(NvrtcError::NotFound { searched: vec![] });
        assert!(!compile.is_absence());
        let load = GpuError::Driver {
            call: "cuModuleLoadData",
            source: DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_IMAGE),
        };
        assert!(!load.is_absence());
        // The driver's error is kept as the source (its message comes from the driver, which
        // this machine may not have: compared, not printed).
        let source = std::error::Error::source(&load).expect("a source");
        let kept = source.downcast_ref::<DriverError>();
        assert!(kept == Some(&DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_IMAGE)));
    }

    #[test]
    fn bound_values_follow_the_contract() {
        let bound = Bound {
            src: 1,
            dst: 2,
            table: 3,
            counters: 4,
            epoch: 5,
            operand: 6,
            extents: Extents {
                source: Extent {
                    len: 8,
                    limit: 9,
                    dist: 10,
                    stride: 11,
                },
                destination: Extent {
                    len: 12,
                    limit: 13,
                    dist: 14,
                    stride: 15,
                },
                op_dist: 7,
            },
        };
        let values = |args: &[Arg]| -> Vec<u64> {
            args.iter()
                .map(|&a| match bound.value(a) {
                    Value::Ptr(p) => p,
                    Value::U32(v) => u64::from(v),
                    Value::U64(v) => v,
                })
                .collect()
        };
        assert_eq!(values(&TRANSFORM_ARGS), [1, 2, 3, 4, 5]);
        assert_eq!(values(&POLY_TRANSFORM_ARGS), (1..=15).collect::<Vec<u64>>());
    }
}
