//! Launches of the Lehmer rounds ([`EuclidPass::Window`] then [`EuclidPass::Apply`]):
//! Euclid's steps on a window of the top coefficients in one block, their cofactor matrix
//! multiplied into the whole pair on every multiprocessor, and into a's cofactors where
//! the rounds carry them; [`EuclidPass::TrailWindow`] for the window where they keep a
//! trail.

use super::args::{launch_raw, KernelConfig};
use super::launch::GpuPasses;
use super::GpuError;
use cudarc::driver::{CudaStream, CudaViewMut, DevicePtrMut, DeviceRepr};
use fermat_codegen::euclid::EuclidPass;

/// The device buffers of the Lehmer rounds of one pair: `work` (two pairs of vectors of
/// `cap` coefficients), `mat` (four cofactors of `half` + 1), the `state` words
/// ([`fermat_codegen::euclid::LehmerState`]), the destination of the last remainder
/// (`dst`, digits `dst_stride` words apart), and a's cofactors where the rounds carry them
/// (`cofs`, laid out as `work`), and the trail where the rounds keep one (`leads`, `cap`
/// coefficients, and `steps`, `cap` words; [`fermat_codegen::euclid::LehmerStep`]).
pub(crate) struct LehmerBuffers<'a, W> {
    pub(crate) work: CudaViewMut<'a, W>,
    pub(crate) cap: u64,
    pub(crate) mat: CudaViewMut<'a, W>,
    pub(crate) state: CudaViewMut<'a, u64>,
    pub(crate) dst: CudaViewMut<'a, W>,
    pub(crate) dst_stride: u64,
    pub(crate) cofs: Option<CudaViewMut<'a, W>>,
    pub(crate) trail: Option<(CudaViewMut<'a, W>, CudaViewMut<'a, u64>)>,
}

impl GpuPasses {
    /// Queues round `round` on `stream`: the window with `half` (one block), then the
    /// apply pass on `apply_blocks` blocks (any number covers the pair; a block per tile
    /// of the longest pair fills the device), twice as many where it carries a's
    /// cofactors (a second row). `element_bytes` is the size of one element
    /// in shared memory; the caller keeps both passes' within `lehmer_shared_bytes`.
    pub(crate) fn run_lehmer_round<W: DeviceRepr>(
        &self,
        stream: &CudaStream,
        round: u64,
        buffers: &mut LehmerBuffers<'_, W>,
        (half, element_bytes): (u64, u64),
        apply_blocks: u64,
    ) -> Result<(), GpuError> {
        let [window, apply, trail_window] = &self.lehmer;
        let passes = match buffers.trail {
            Some(_) => [
                (EuclidPass::TrailWindow, trail_window),
                (EuclidPass::Apply, apply),
            ],
            None => [(EuclidPass::Window, window), (EuclidPass::Apply, apply)],
        };
        for (pass, function) in passes {
            let threads = pass.threads((half, 0));
            let shared = pass.shared_bytes((half, u64::from(threads)), element_bytes);
            let (blocks, rows) = match pass {
                EuclidPass::Apply => (apply_blocks, 1 + usize::from(buffers.cofs.is_some())),
                _ => (1, 1),
            };
            let grid = self.device.limits.grid(pass.name(), blocks, rows)?;
            // Every argument is a device pointer or a 64-bit word. The guards order these
            // buffers' uses on other streams after the launch.
            let mut guards = Vec::with_capacity(6);
            let mut values = Vec::with_capacity(pass.args().len());
            let mut ptr = |(p, guard)| {
                guards.push(guard);
                p
            };
            values.extend([
                ptr(buffers.work.device_ptr_mut(stream)),
                buffers.cap,
                ptr(buffers.mat.device_ptr_mut(stream)),
                half,
                round,
                ptr(buffers.state.device_ptr_mut(stream)),
            ]);
            if pass == EuclidPass::Apply {
                // A grid of one row never reads `cofs`: a null pointer stands for it.
                values.push(match &mut buffers.cofs {
                    Some(cofs) => ptr(cofs.device_ptr_mut(stream)),
                    None => 0,
                });
            } else {
                values.extend([ptr(buffers.dst.device_ptr_mut(stream)), buffers.dst_stride]);
                if let Some((leads, steps)) = &mut buffers.trail {
                    values.extend([
                        ptr(leads.device_ptr_mut(stream)),
                        ptr(steps.device_ptr_mut(stream)),
                    ]);
                }
            }
            debug_assert_eq!(values.len(), pass.args().len());
            let mut params: Vec<_> = values
                .iter_mut()
                .map(|v| (v as *mut u64).cast::<std::ffi::c_void>())
                .collect();
            let config = KernelConfig {
                grid,
                threads,
                shared_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
                // Each pass begins with `fe_grid_wait`: the window may start while the apply
                // pass before it drains, and the apply pass while the window does.
                dependent: self.device.arch.0 >= 9,
            };
            // SAFETY: the arguments follow `WINDOW_ARGS` (`TRAIL_WINDOW_ARGS` where the
            // trail is given) and `APPLY_ARGS` in order and type; the caller sizes `work`
            // and `cofs` to 4·`cap` coefficients, `mat` to 4·(`half` + 1), `state` to
            // `LehmerState::WORDS` words, `dst` and `leads` to `cap` coefficients and
            // `steps` to `cap` words, and keeps `shared` within `lehmer_shared_bytes`, the
            // attribute set at load; both kernels wait for the grid before them first.
            unsafe { launch_raw(stream, function, pass.name(), config, &mut params) }?;
        }
        Ok(())
    }
}
