//! Launches of the Lehmer rounds ([`EuclidPass::Window`] then [`EuclidPass::Apply`]):
//! Euclid's steps on a window of the top coefficients in one block, their cofactor matrix
//! multiplied into the whole pair on every multiprocessor, and into a's cofactors where
//! the rounds carry them; [`EuclidPass::TrailWindow`] for the window where they keep a
//! trail.

use super::launch::GpuPasses;
use super::GpuError;
use cudarc::driver::{CudaStream, CudaViewMut, DeviceRepr, LaunchConfig, PushKernelArg};
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
            let config = LaunchConfig {
                grid_dim: (grid.0, grid.1, 1),
                block_dim: (threads, 1, 1),
                shared_mem_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
            };
            let mut launch = stream.launch_builder(function);
            launch
                .arg(&mut buffers.work)
                .arg(&buffers.cap)
                .arg(&mut buffers.mat)
                .arg(&half)
                .arg(&round)
                .arg(&mut buffers.state);
            // A grid of one row never reads `cofs`: a null pointer stands for it.
            let no_cofactors = 0u64;
            if pass == EuclidPass::Apply {
                match &mut buffers.cofs {
                    Some(cofs) => launch.arg(cofs),
                    None => launch.arg(&no_cofactors),
                };
            } else {
                launch.arg(&mut buffers.dst).arg(&buffers.dst_stride);
                if let Some((leads, steps)) = &mut buffers.trail {
                    launch.arg(leads).arg(steps);
                }
            }
            // SAFETY: the arguments follow `WINDOW_ARGS` (`TRAIL_WINDOW_ARGS` where the
            // trail is given) and `APPLY_ARGS` in order and type; the caller sizes `work`
            // and `cofs` to 4·`cap` coefficients, `mat` to 4·(`half` + 1), `state` to
            // `LehmerState::WORDS` words, `dst` and `leads` to `cap` coefficients and
            // `steps` to `cap` words, and keeps `shared` within `lehmer_shared_bytes`, the
            // attribute set at load.
            unsafe { launch.launch(config) }.map_err(|source| GpuError::Launch {
                kernel: pass.name().to_string(),
                source,
            })?;
        }
        Ok(())
    }
}
