//! The s word-prime transforms of the CRT route as one CUDA graph.
//!
//! At the 2017 benchmark's small sizes (P3 at N = 16², P4 at 32²) each of the s transforms
//! is a launch of one or a few blocks that takes a few microseconds, and s of them queued
//! one after another on one stream leave the device almost idle between them: the route's
//! time is its launches. The transforms are independent (one residue row each), so they
//! are captured once from several streams into a graph whose branches the device runs side
//! by side, and every later call with the same buffers is one graph launch.
//!
//! A graph holds the addresses its kernels were captured with: it is kept for one pair of
//! buffers (the residues and the spectra) and captured again when another pair comes.
//! Plans that hand off between their passes count epochs up from call to call and cannot
//! be replayed; they, and a device where capturing fails, run the transforms one by one.

use crate::fft::FftPlan;
use crate::gpu::{driver, Device, GpuError};
use crate::Error;
use cudarc::driver::{sys, CudaGraph, CudaSlice, CudaStream, DevicePtr, DriverError};
use fermat_codegen::plan::Direction;
use fermat_dsl::field::Fp64;
use std::sync::{Arc, Mutex};

/// The most streams a capture fans out over: the transforms beyond it queue behind the
/// first ones, round robin.
const BRANCHES: usize = 8;

/// The transforms of the rows of a residue buffer, replayed from a graph where they can be.
pub(super) struct TransformGraph {
    device: Arc<Device>,
    /// The stream the graph is captured on and launched from.
    stream: Arc<CudaStream>,
    /// The streams the capture forks to, one per branch.
    branches: Vec<Arc<CudaStream>>,
    state: Mutex<State>,
}

enum State {
    /// Nothing captured yet, or the last capture was for other buffers.
    Empty,
    /// The graph of the transforms from `buffers.0` into `buffers.1`.
    Captured {
        buffers: (sys::CUdeviceptr, sys::CUdeviceptr),
        graph: Graph,
    },
    /// Capturing failed once: the transforms run one by one.
    OneByOne,
}

/// A captured graph, used only under the [`TransformGraph`]'s lock.
struct Graph(CudaGraph);

// SAFETY: a CUDA graph may be launched from any thread as long as no two threads use it at
// once; every use goes through the `Mutex` that holds the state.
unsafe impl Send for Graph {}

impl TransformGraph {
    /// Streams for the transforms of `transforms` rows on `device`.
    pub(super) fn new(device: &Arc<Device>, transforms: usize) -> Result<Self, Error> {
        let stream = || {
            device
                .context()
                .new_stream()
                .map_err(driver("cuStreamCreate"))
        };
        Ok(TransformGraph {
            device: device.clone(),
            stream: stream()?,
            branches: (0..transforms.clamp(1, BRANCHES))
                .map(|_| stream())
                .collect::<Result<_, _>>()?,
            state: Mutex::new(State::Empty),
        })
    }

    /// Queues on the device's stream the forward transform of row i of `residues` (n words)
    /// into row i of `spectra` by `plans[i]`, for every plan.
    pub(super) fn run(
        &self,
        plans: &[FftPlan<Fp64>],
        n: usize,
        residues: &CudaSlice<u64>,
        spectra: &mut CudaSlice<u64>,
    ) -> Result<(), Error> {
        let main = self.device.stream().clone();
        let buffers = (residues.device_ptr(&main).0, spectra.device_ptr(&main).0);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &*state {
            State::Captured {
                buffers: held,
                graph,
            } if *held == buffers => {
                self.device.join(&self.stream, &main)?;
                graph.0.launch().map_err(driver("cuGraphLaunch"))?;
                self.device.join(&main, &self.stream)?;
                return Ok(());
            }
            State::OneByOne => return one_by_one(plans, n, residues, spectra, |_| &main),
            _ => {}
        }
        // The first call with these buffers runs the transforms as they come, which also
        // allocates what their plans keep between calls; the capture after it only records.
        one_by_one(plans, n, residues, spectra, |_| &main)?;
        let replayable = plans.iter().all(|p| !p.hands_off(Direction::Forward, 1));
        *state = match replayable.then(|| self.capture(plans, n, residues, spectra)) {
            Some(Ok(graph)) => State::Captured { buffers, graph },
            Some(Err(_)) | None => State::OneByOne,
        };
        Ok(())
    }

    /// The transforms recorded into a graph whose branches run side by side.
    fn capture(
        &self,
        plans: &[FftPlan<Fp64>],
        n: usize,
        residues: &CudaSlice<u64>,
        spectra: &mut CudaSlice<u64>,
    ) -> Result<Graph, Error> {
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        self.stream
            .begin_capture(mode)
            .map_err(driver("cuStreamBeginCapture"))?;
        let recorded = (|| -> Result<(), Error> {
            for branch in &self.branches {
                self.device.join(branch, &self.stream)?;
            }
            let branch = |i: usize| &self.branches[i % self.branches.len()];
            one_by_one(plans, n, residues, spectra, branch)?;
            for branch in &self.branches {
                self.device.join(&self.stream, branch)?;
            }
            Ok(())
        })();
        // The capture ends whatever happened inside it, so that the stream is usable.
        let ended = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .map_err(driver("cuStreamEndCapture"));
        recorded?;
        let graph = ended?.ok_or(GpuError::Driver {
            call: "cuStreamEndCapture",
            source: DriverError(sys::cudaError_enum::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
        })?;
        graph.upload().map_err(driver("cuGraphUpload"))?;
        Ok(Graph(graph))
    }
}

/// Queues the transform of row i by `plans[i]` on `stream_of(i)`.
fn one_by_one<'s>(
    plans: &[FftPlan<Fp64>],
    n: usize,
    residues: &CudaSlice<u64>,
    spectra: &mut CudaSlice<u64>,
    stream_of: impl Fn(usize) -> &'s Arc<CudaStream>,
) -> Result<(), Error> {
    for (i, plan) in plans.iter().enumerate() {
        let rows = i * n..(i + 1) * n;
        plan.run_device_views(
            Direction::Forward,
            &residues.slice(rows.clone()),
            &mut spectra.slice_mut(rows),
            1,
            Some(stream_of(i)),
        )?;
    }
    Ok(())
}
