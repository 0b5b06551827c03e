//! The GPU backend: cudarc (driver API, loaded at run time) for devices, memory and
//! launches; NVRTC (loaded at run time by `fermat_codegen::nvrtc`) to compile the generated
//! CUDA C for the device's architecture, with the CUBINs cached on disk.

use crate::cache::{self, Cache};
use cudarc::driver::{sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DeviceRepr, DriverError};
use cudarc::nvrtc::Ptx;
use fermat_codegen::nvrtc::{self, NvrtcError, Resources};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use thiserror::Error;

/// Why the GPU could not be used.
///
/// ```
/// use fermat::gpu::{self, GpuError};
///
/// // No GPU of ordinal 1000 anywhere: an absence (no driver, or no such device), the one
/// // kind of error after which `Backend::Auto` runs on the CPU instead.
/// let err = gpu::device(1000).unwrap_err();
/// assert!(matches!(err, GpuError::NoDriver | GpuError::NoDevice { ordinal: 1000, .. }));
/// assert!(err.is_absence());
/// ```
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
    /// A kernel's status word that names no status.
    #[error("kernel {kernel} left the status word {word}, which names no status")]
    Status {
        /// The kernel.
        kernel: &'static str,
        /// The word it left.
        word: u64,
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
    /// A kernel takes an argument that a plan's launches do not bind (the CRT route's
    /// kernels bind their own).
    #[error("kernel {kernel} takes the argument {arg}, which a plan's launch does not bind")]
    Unbound {
        /// The kernel.
        kernel: String,
        /// The argument's name.
        arg: &'static str,
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
    /// skip ([`Device`] has an example).
    pub fn is_absence(&self) -> bool {
        matches!(self, GpuError::NoDriver | GpuError::NoDevice { .. })
    }
}

/// The error of a failed driver call, named.
pub(crate) fn driver(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |source| GpuError::Driver { call, source }
}

/// The largest grid a device launches: blocks along x and y.
///
/// ```
/// use fermat::gpu::{GpuError, GridLimits};
///
/// let hopper = GridLimits { max_x: (1 << 31) - 1, max_y: 65_535 };
/// assert_eq!(hopper.grid("fwd_k0", 4096, 8)?, (4096, 8)); // 4096 tiles of 8 transforms
/// let err = hopper.grid("fwd_k0", 1, 100_000).unwrap_err(); // a batch beyond the grid
/// assert!(matches!(err, GpuError::GridTooLarge { batch: 100_000, .. }));
/// # Ok::<(), GpuError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridLimits {
    /// Blocks along x (2^31 − 1 on every architecture since sm_30).
    pub max_x: u64,
    /// Blocks along y (65,535).
    pub max_y: u64,
}

impl GridLimits {
    /// The grid of a launch of `blocks` tiles for each of `batch` transforms, or the error
    /// naming the limit it exceeds ([`GridLimits`] has an example).
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

/// How many [`Device::branch_streams`] there are: enough independent transforms of a
/// few hundred blocks each to fill the multiprocessors that one leaves idle in its tail
/// and between its launches: eight, which the CRT route halves for products in 32-bit
/// words (bench/RESULTS.md, "Eight branch streams").
pub(crate) const BRANCHES: usize = 8;

/// One GPU: its context and the stream fermat launches on. [`device`] opens it.
///
/// ```
/// use fermat::gpu;
///
/// match gpu::device(0) {
///     Ok(gpu) => {
///         println!("{}", gpu.describe()); // NVIDIA H200 (GPU 0, sm_90)
///         assert!(gpu.describe().starts_with(gpu.name()));
///         assert!(gpu.arch_option().starts_with("--gpu-architecture=sm_"));
///         assert!(gpu.limits().max_y >= 65_535);
///         let words = gpu.alloc::<u64>(1 << 20)?; // 8 MiB, zeroed
///         assert_eq!(words.len(), 1 << 20);
///         let back = gpu.stream().clone_dtoh(&words).expect("a copy back");
///         assert!(back.iter().all(|&w| w == 0));
///         assert_eq!(gpu.stream().context().cu_ctx(), gpu.context().cu_ctx());
///     }
///     Err(e) if e.is_absence() => println!("no GPU here: {e}"),
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// A second stream for work that may overlap the main stream's (created on first use).
    side: OnceLock<Arc<CudaStream>>,
    /// The stream of the greatest priority, made on first use.
    urgent: OnceLock<Arc<CudaStream>>,
    /// Streams for independent pieces of one operation (made on first use).
    branches: OnceLock<Vec<Arc<CudaStream>>>,
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
///
/// ```
/// if !fermat::gpu::driver_present() {
///     assert_eq!(fermat::gpu::device_count(), 0);
/// }
/// ```
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; no driver function is called.
    unsafe { sys::is_culib_present() }
}

/// The number of GPUs the driver reports (0 without a driver).
///
/// ```
/// for ordinal in 0..fermat::gpu::device_count() {
///     println!("{}", fermat::gpu::device(ordinal)?.describe());
/// }
/// # Ok::<(), fermat::gpu::GpuError>(())
/// ```
pub fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    CudaContext::device_count().map(|c| c as usize).unwrap_or(0)
}

static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();

/// The device with this ordinal, opened once per process: every call for it returns the
/// same [`Device`]. [`Device`] has an example.
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
    // SAFETY: fermat orders its streams itself. Every buffer is allocated, used and freed
    // on the device's stream, except for the side stream of split products and the urgent
    // stream of a split's exchanges, which wait
    // for the device's stream after the buffers they use exist and before they use them
    // (`Device::join`, and the joins after allocations made for it), and which the device's
    // stream waits for before it reads what the side stream wrote or frees anything. The
    // per-buffer events cudarc would otherwise record cost two driver calls per buffer per
    // launch: most of a small kernel's launch.
    unsafe { ctx.disable_event_tracking() };
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
        side: OnceLock::new(),
        urgent: OnceLock::new(),
        branches: OnceLock::new(),
        ordinal,
        name,
        arch,
        limits,
    });
    devices.insert(ordinal, d.clone());
    Ok(d)
}

impl Device {
    /// "NVIDIA H100 80GB HBM3 (GPU 0, sm_90)" ([`Device`] has an example).
    pub fn describe(&self) -> String {
        format!(
            "{} (GPU {}, sm_{}{})",
            self.name, self.ordinal, self.arch.0, self.arch.1
        )
    }

    /// The name the driver reports, e.g. "NVIDIA H200" ([`Device`] has an example).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The CUDA context. Its per-buffer event tracking is off (fermat orders its streams
    /// itself): work queued on a stream of one's own must be ordered against the device's
    /// stream with events or joins, as with the driver API ([`Device`] has an example).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream fermat launches on unless told otherwise ([`Device`] has an example).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A second stream, for work independent of the main stream's until they join: the
    /// caller orders it with [`CudaStream::join`] both ways.
    pub(crate) fn side_stream(&self) -> Result<&Arc<CudaStream>, GpuError> {
        if let Some(side) = self.side.get() {
            return Ok(side);
        }
        let side = self.ctx.new_stream().map_err(driver("cuStreamCreate"))?;
        Ok(self.side.get_or_init(|| side))
    }

    /// [`BRANCHES`] streams for independent pieces of one operation (the word-prime
    /// products of the CRT route), which the device runs side by side: each is ordered
    /// with the main stream by [`CudaStream::join`] both ways, like
    /// [`side_stream`](Self::side_stream).
    pub(crate) fn branch_streams(&self) -> Result<&[Arc<CudaStream>], GpuError> {
        if let Some(branches) = self.branches.get() {
            return Ok(branches);
        }
        let branches = (0..BRANCHES)
            .map(|_| self.ctx.new_stream().map_err(driver("cuStreamCreate")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.branches.get_or_init(|| branches))
    }

    /// A stream of the greatest priority, for work that must not queue behind the main
    /// stream's blocks: NCCL's kernels exchanging rows beside a transform, whose blocks
    /// the device then schedules first as the transform's blocks retire. Ordered like
    /// [`side_stream`](Self::side_stream).
    pub(crate) fn urgent_stream(&self) -> Result<&Arc<CudaStream>, GpuError> {
        if let Some(urgent) = self.urgent.get() {
            return Ok(urgent);
        }
        let (_, greatest) = cudarc::driver::result::stream::get_priority_range()
            .map_err(driver("cuCtxGetStreamPriorityRange"))?;
        let urgent = self
            .ctx
            .new_stream_with_priority(greatest)
            .map_err(driver("cuStreamCreateWithPriority"))?;
        Ok(self.urgent.get_or_init(|| urgent))
    }

    /// Makes `waiting` wait for the work queued so far on `on`.
    pub(crate) fn join(&self, waiting: &CudaStream, on: &CudaStream) -> Result<(), GpuError> {
        waiting.join(on).map_err(driver("cuStreamWaitEvent"))
    }

    /// The architecture option of NVRTC for this device ([`Device`] has an example).
    pub fn arch_option(&self) -> String {
        format!("--gpu-architecture=sm_{}{}", self.arch.0, self.arch.1)
    }

    /// The largest grid this device launches ([`Device`] has an example).
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
    /// NVRTC's version (another NVRTC may emit another binary). [`Device::compile`] has an
    /// example.
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
    ///
    /// ```
    /// let source = r#"extern "C" __global__ void twice(unsigned *x) { x[threadIdx.x] *= 2; }"#;
    /// match fermat::gpu::device(0) {
    ///     Ok(gpu) => {
    ///         let (module, _ptxas) = gpu.compile(source)?; // or from the disk cache
    ///         module.load_function("twice").expect("the kernel is in the module");
    ///         println!("cached as {}", gpu.cache_key(source)?);
    ///     }
    ///     Err(e) if e.is_absence() => println!("no GPU here: {e}"),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::gpu::GpuError>(())
    /// ```
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

    /// Allocates `len` words, zeroed, with a typed error when memory runs out
    /// ([`Device`] has an example).
    pub fn alloc<W: DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<W>, GpuError> {
        self.stream
            .alloc_zeros::<W>(len)
            .map_err(|e| self.alloc_error::<W>(len, e))
    }

    /// Allocates `len` words whose contents are unspecified: one driver call instead of an
    /// allocation and a memset, for buffers the caller fills whole before reading them
    /// (a copy from the host, a kernel's every output).
    pub(crate) fn alloc_unset<W: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<W>, GpuError> {
        // SAFETY: the words are plain data of any bit pattern on the device; the caller
        // writes each one before any read (its contract above).
        unsafe { self.stream.alloc::<W>(len) }.map_err(|e| self.alloc_error::<W>(len, e))
    }

    fn alloc_error<W>(&self, len: usize, e: cudarc::driver::DriverError) -> GpuError {
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
    }

    /// A timing event, as `fermat bench` times launches with.
    ///
    /// ```
    /// if let Ok(gpu) = fermat::gpu::device(0) {
    ///     let (start, stop) = (gpu.event()?, gpu.event()?);
    ///     start.record(gpu.stream()).expect("recorded");
    ///     let _buffer = gpu.alloc::<u32>(1 << 24)?; // something to time: a memset
    ///     stop.record(gpu.stream()).expect("recorded");
    ///     println!("{} ms", start.elapsed_ms(&stop).expect("both recorded"));
    /// }
    /// # Ok::<(), fermat::gpu::GpuError>(())
    /// ```
    pub fn event(&self) -> Result<CudaEvent, GpuError> {
        self.ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventCreate"))
    }
}

mod args;
mod handoff;
mod launch;
mod lehmer;

pub(crate) use args::{DeviceInput, Extent, Extents, Operand, Vectors};
pub(crate) use handoff::Counters;
pub(crate) use launch::{GpuKernels, GpuPasses, HandOff, SplitVectors};
pub(crate) use lehmer::LehmerBuffers;

#[cfg(test)]
mod tests {
    use super::*;

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
}
