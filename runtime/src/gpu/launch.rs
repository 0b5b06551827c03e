//! Launches: the compiled kernels of a plan, of a product and of the polynomial passes on
//! one device, and the calls that queue them (their arguments: [`super::args`]).

use super::args::{launch, Bound, DeviceInput, Extents, Operand, Vectors};
use super::{driver, Device, GpuError};
use cudarc::driver::{
    sys, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceRepr, LaunchConfig, PushKernelArg,
};
use fermat_codegen::contract::{Arg, Hop, Launch};
use fermat_codegen::euclid::EuclidPass;
use fermat_codegen::nvrtc::Resources;
use fermat_codegen::plain::{PlainPass, Tile};
use fermat_codegen::poly::{ProductPass, THREADS};
use fermat_codegen::split::SplitPass;
use std::sync::Arc;

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
    /// Whether the first pass, too, may start while the kernel before it on the stream
    /// drains (it waits for that grid's end before reading). The products' transforms
    /// gain 3–8% by it; a P3 transform after another lost 7% (bench/RESULTS.md,
    /// "Division round 8"), so plain transforms launch their first pass after the whole
    /// of what came before.
    pub(crate) first_early: bool,
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
    /// launch after the first (and the first too where the hand-off says
    /// [`first_early`](HandOff::first_early)) may then start while the one before drains
    /// (programmatic dependent launch), each of its blocks as soon as the blocks of the pass
    /// before that it depends on are done (the hand-off counters).
    ///
    /// [`POLY_TRANSFORM_ARGS`]: fermat_codegen::contract::POLY_TRANSFORM_ARGS
    pub(crate) fn run(
        &self,
        stream: &CudaStream,
        vectors: Vectors<'_, '_, W>,
        hand_off: HandOff<'_, '_>,
        batch: usize,
    ) -> Result<(), GpuError> {
        let HandOff {
            counters,
            epoch,
            first_early,
        } = hand_off;
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
            Operand::Separate(view) => {
                let (ptr, guard) = view.device_ptr(stream);
                (ptr, Some(guard))
            }
            // Read at the addresses the first pass reads its input, before any pass writes
            // it (the hand-offs of a plan that clobbers its input wait for those reads).
            Operand::Input => (input, None),
            Operand::None => (0, None),
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
            // Every kernel of a plan, and the fused product, waits for the grid before it
            // (`fe_grid_wait`) before it reads anything.
            let dependent = overlap && (i > 0 || first_early);
            launch(stream, f, l, &bound, (x, y), dependent)?;
        }
        Ok(())
    }

    /// The device.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }
}

/// The passes of products besides transforms ([`ProductPass`]) for one field on one
/// device: one module, launched at any size.
pub(crate) struct GpuPasses {
    pub(super) device: Arc<Device>,
    functions: Vec<(ProductPass, CudaFunction)>,
    plain: Vec<(PlainPass, CudaFunction)>,
    euclid: CudaFunction,
    /// [`EuclidPass::Window`], [`EuclidPass::Apply`] and [`EuclidPass::TrailWindow`]: the
    /// Lehmer rounds (`gpu::lehmer`).
    pub(super) lehmer: [CudaFunction; 3],
    split: Vec<(SplitPass, CudaFunction)>,
    /// The dynamic shared memory a block of the on-chip Euclid may take, in bytes.
    pub(crate) euclid_shared_bytes: usize,
    /// The dynamic shared memory a block of either pass of the Lehmer rounds may take.
    pub(crate) lehmer_shared_bytes: usize,
    /// The tile the plain products' kernels were generated for.
    pub(crate) tile: Tile,
}

/// Blocks of the passes' grid-stride loops at most: enough to fill any device.
const PASS_BLOCKS: u64 = 1 << 14;

impl GpuPasses {
    /// Compiles the passes' source (`fermat_codegen::poly::source`) for `device`.
    pub(crate) fn compile(device: Arc<Device>, source: &str, tile: Tile) -> Result<Self, GpuError> {
        let (module, _) = device.compile(source)?;
        let load = |name: &str| {
            module
                .load_function(name)
                .map_err(driver("cuModuleGetFunction"))
        };
        let functions = ProductPass::ALL
            .iter()
            .map(|&pass| load(pass.name()).map(|f| (pass, f)))
            .collect::<Result<_, _>>()?;
        let plain = PlainPass::ALL
            .iter()
            .map(|&pass| load(pass.name()).map(|f| (pass, f)))
            .collect::<Result<_, _>>()?;
        let split = SplitPass::ALL
            .iter()
            .map(|&pass| load(pass.name()).map(|f| (pass, f)))
            .collect::<Result<_, _>>()?;
        // The on-chip Euclid and the Lehmer rounds may take all the shared memory a
        // block may opt in to.
        let euclid = load(EuclidPass::Gcd.name())?;
        let lehmer = [
            load(EuclidPass::Window.name())?,
            load(EuclidPass::Apply.name())?,
            load(EuclidPass::TrailWindow.name())?,
        ];
        let optin = device
            .context()
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(driver("cuDeviceGetAttribute"))?;
        // Static shared memory counts against the same limit: each kernel may take what is
        // left of it.
        let mut dynamic = [0i32; 4];
        for (f, room) in std::iter::once(&euclid).chain(&lehmer).zip(&mut dynamic) {
            let fixed = f
                .shared_size_bytes()
                .map_err(driver("cuFuncGetAttribute"))?;
            *room = optin - fixed;
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                *room,
            )
            .map_err(driver("cuFuncSetAttribute"))?;
        }
        Ok(GpuPasses {
            device,
            functions,
            plain,
            euclid,
            lehmer,
            split,
            euclid_shared_bytes: usize::try_from(dynamic[0]).unwrap_or(0),
            lehmer_shared_bytes: usize::try_from(dynamic[1..].iter().copied().min().unwrap_or(0))
                .unwrap_or(0),
            tile,
        })
    }

    /// Runs the on-chip Euclid ([`EuclidPass::Gcd`]) on `stream`, a block per pair of
    /// `src` and `fac` (the extents' source and factor), the last remainders into `dst`
    /// (the destination's stride and distance) and their lengths into `lens`.
    /// `element_bytes` is the size of one element in shared memory.
    pub(crate) fn run_euclid<W: DeviceRepr>(
        &self,
        stream: &CudaStream,
        pairs: u64,
        (src, fac, dst, lens): (
            &CudaView<'_, W>,
            &CudaView<'_, W>,
            &mut CudaViewMut<'_, W>,
            &mut CudaViewMut<'_, u64>,
        ),
        extents: Extents,
        element_bytes: u64,
    ) -> Result<(), GpuError> {
        let pass = EuclidPass::Gcd;
        let lengths = (extents.source.len, extents.factor.len);
        let shared = pass.shared_bytes(lengths, element_bytes);
        let grid = self.device.limits.grid(pass.name(), pairs, 1)?;
        let config = LaunchConfig {
            grid_dim: (grid.0, grid.1, 1),
            block_dim: (pass.threads(lengths), 1, 1),
            shared_mem_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
        };
        let (s, f, d) = (extents.source, extents.factor, extents.destination);
        let mut launch = stream.launch_builder(&self.euclid);
        launch
            .arg(src)
            .arg(&s.len)
            .arg(&s.stride)
            .arg(&s.dist)
            .arg(fac)
            .arg(&f.len)
            .arg(&f.stride)
            .arg(&f.dist)
            .arg(dst)
            .arg(&d.stride)
            .arg(&d.dist)
            .arg(lens);
        // SAFETY: the arguments follow `GCD_ARGS` in order and type; the callers size the
        // buffers to `pairs` pairs at the extents' distances, `lens` to `pairs` words, and
        // keep `shared` within `euclid_shared_bytes`, the attribute set at load.
        unsafe { launch.launch(config) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        Ok(())
    }

    /// Runs `pass` of plain products on `stream` on a grid of `blocks` × `rows`: from `src`
    /// and the factor `fac` into `dst` (for [`PlainPass::Reduce`], from the partial sums in
    /// `src`; `fac` is not read).
    pub(crate) fn run_plain<W: DeviceRepr>(
        &self,
        stream: &CudaStream,
        pass: PlainPass,
        (blocks, rows): (u64, u64),
        (src, fac, dst): (&CudaView<'_, W>, &CudaView<'_, W>, &mut CudaViewMut<'_, W>),
        extents: Extents,
    ) -> Result<(), GpuError> {
        let function = loaded(&self.plain, pass);
        // The reduction loops over its grid; the product's blocks are its tiles.
        let blocks = match pass {
            PlainPass::Reduce | PlainPass::Reverse | PlainPass::Difference => {
                blocks.clamp(1, PASS_BLOCKS)
            }
            PlainPass::Product => blocks.max(1),
            PlainPass::Series => 1,
        };
        let l = Launch {
            kernel: pass.name().into(),
            blocks,
            threads: pass.threads(self.tile),
            shared_bytes: 0,
            pieces_per_block: 1,
            hop: Hop::InputToOutput,
            signals: 0,
            args: pass.args(),
        };
        let grid = self
            .device
            .limits
            .grid(pass.name(), blocks, rows as usize)?;
        stream
            .context()
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        let (src, _src) = src.device_ptr(stream);
        let (fac, _fac) = fac.device_ptr(stream);
        let (dst, _dst) = dst.device_ptr_mut(stream);
        let bound = Bound {
            src,
            dst,
            table: 0,
            counters: 0,
            epoch: 0,
            operand: fac,
            extents,
        };
        launch(stream, function, &l, &bound, grid, false)
    }

    /// Runs `pass` over `work` output coefficients on `stream`, from `src` into `dst`
    /// (in place for [`ProductPass::Recombine`]), reading `table`.
    pub(crate) fn run<W: DeviceRepr>(
        &self,
        stream: &CudaStream,
        pass: ProductPass,
        work: u64,
        (src, dst, table): (&CudaView<'_, W>, &mut CudaViewMut<'_, W>, &CudaView<'_, W>),
        extents: Extents,
    ) -> Result<(), GpuError> {
        let function = loaded(&self.functions, pass);
        let (l, grid) = self.grid_stride(stream, pass.name(), pass.args(), work)?;
        let (src, _src) = src.device_ptr(stream);
        let (dst, _dst) = dst.device_ptr_mut(stream);
        let (table, _table) = table.device_ptr(stream);
        let bound = Bound {
            src,
            dst,
            table,
            counters: 0,
            epoch: 0,
            operand: 0,
            extents,
        };
        launch(stream, function, &l, &bound, grid, false)
    }
}

impl GpuPasses {
    /// The launch of a grid-stride pass of [`THREADS`]-thread blocks over `work` items,
    /// and its grid, with the stream's context bound to this thread.
    fn grid_stride(
        &self,
        stream: &CudaStream,
        kernel: &'static str,
        args: &'static [Arg],
        work: u64,
    ) -> Result<(Launch, (u32, u32)), GpuError> {
        let blocks = work.div_ceil(u64::from(THREADS)).clamp(1, PASS_BLOCKS);
        let l = Launch {
            kernel: kernel.into(),
            blocks,
            threads: THREADS,
            shared_bytes: 0,
            pieces_per_block: 1,
            hop: Hop::InputToOutput,
            signals: 0,
            args,
        };
        let grid = self.device.limits.grid(kernel, blocks, 1)?;
        stream
            .context()
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        Ok((l, grid))
    }
}

/// The function of `pass` among those loaded.
fn loaded<P: PartialEq>(functions: &[(P, CudaFunction)], pass: P) -> &CudaFunction {
    functions
        .iter()
        .find(|(p, _)| *p == pass)
        .map(|(_, f)| f)
        .expect("every pass is loaded")
}

/// The vectors of a pass of a split transform ([`GpuPasses::run_split`]).
pub(crate) struct SplitVectors<'a, 'b, W> {
    /// What the pass reads.
    pub(crate) src: &'a CudaView<'b, W>,
    /// The operand of [`SplitPass::Product`].
    pub(crate) op: Option<&'a CudaView<'b, W>>,
    /// What it writes.
    pub(crate) dst: &'a mut CudaViewMut<'b, W>,
    /// Its table (none for [`SplitPass::Transpose`]).
    pub(crate) table: Option<&'a CudaView<'b, W>>,
}

impl GpuPasses {
    /// Runs `pass` of a split transform on `stream` over `work` items, on `vectors`; the
    /// extents carry s, G and the digits' stride.
    pub(crate) fn run_split<W: DeviceRepr>(
        &self,
        stream: &CudaStream,
        pass: SplitPass,
        work: u64,
        vectors: SplitVectors<'_, '_, W>,
        extents: Extents,
    ) -> Result<(), GpuError> {
        let SplitVectors {
            src,
            op,
            dst,
            table,
        } = vectors;
        let function = loaded(&self.split, pass);
        let (l, grid) = self.grid_stride(stream, pass.name(), pass.args(), work)?;
        let (src, _src) = src.device_ptr(stream);
        let (dst, _dst) = dst.device_ptr_mut(stream);
        let (table, _table) = match table {
            Some(t) => {
                let (p, r) = t.device_ptr(stream);
                (p, Some(r))
            }
            None => (0, None),
        };
        let (operand, _op) = match op {
            Some(o) => {
                let (p, r) = o.device_ptr(stream);
                (p, Some(r))
            }
            None => (0, None),
        };
        let bound = Bound {
            src,
            dst,
            table,
            counters: 0,
            epoch: 0,
            operand,
            extents,
        };
        launch(stream, function, &l, &bound, grid, false)
    }
}
