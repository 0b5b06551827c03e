//! G GPUs of one host: one stream per device (its own), one NCCL communicator over all of
//! them in this process, each exchange one group of point-to-point calls.
//!
//! An SRGFN vector lies digit-major on the device (k rows of M words), so chunk c of a
//! device's vector is k runs of M/G words, one per digit row: the exchange sends each run
//! to its peer and receives the peer's into the same place of the destination. The chunk a
//! device keeps is a copy on its own stream.

use super::Step;
use crate::fft::FftPlan;
use crate::gpu::{Device, Extent, Extents, GpuError, GpuPasses};
use crate::{Error, HostField};
use cudarc::driver::{CudaSlice, CudaStream};
use cudarc::nccl::safe::Comm;
use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::plain::Tile;
use fermat_codegen::split::SplitPass;
use fermat_dsl::field::AnyField;
use std::sync::Arc;

pub(super) struct GpuMachine<F: HostField> {
    field: F,
    g: usize,
    m: usize,
    plans: Vec<FftPlan<F>>,
    devices: Vec<Arc<Device>>,
    passes: Vec<Arc<GpuPasses>>,
    /// Per device, the rows of the forward and the inverse butterflies, in table form.
    tables: Vec<[CudaSlice<F::Word>; 2]>,
    buffers: Vec<[CudaSlice<F::Word>; 3]>,
    comms: Vec<Comm>,
}

fn nccl(call: &'static str) -> impl Fn(cudarc::nccl::result::NcclError) -> Error {
    move |e| Error::Nccl {
        why: format!("{call} failed: {e:?}"),
    }
}

fn driver(call: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |source| Error::Gpu(GpuError::Driver { call, source })
}

impl<F: HostField> GpuMachine<F> {
    pub(super) fn new(
        field: &F,
        any: &AnyField,
        n: u64,
        plans: Vec<FftPlan<F>>,
    ) -> Result<Self, Error> {
        let g = plans.len();
        let m = n as usize / g;
        let devices = plans
            .iter()
            .map(|p| p.device().cloned())
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: only asks the loader whether the library exists.
        if !unsafe { cudarc::nccl::sys::is_culib_present() } {
            return Err(Error::Nccl {
                why: "the NCCL library (libnccl.so) could not be loaded: install NCCL, or put the \
                      directory of libnccl.so on LD_LIBRARY_PATH"
                    .to_string(),
            });
        }
        let shape = FieldShape::of(any);
        let source = fermat_codegen::poly::source(any)?;
        let omega = field.root_of_unity(n)?;
        let words = m * field.words();
        let mut passes = Vec::with_capacity(g);
        let mut tables = Vec::with_capacity(g);
        let mut buffers = Vec::with_capacity(g);
        for (c, device) in devices.iter().enumerate() {
            passes.push(Arc::new(GpuPasses::compile(
                device.clone(),
                &source,
                Tile::for_element_bytes(shape.element_bytes),
            )?));
            let table = |pass: SplitPass| -> Result<CudaSlice<F::Word>, Error> {
                let rows = pass.table(field, &omega, n, g as u64, c as u64);
                let words: Vec<F::Word> = table_form(field, &shape, &rows)
                    .into_iter()
                    .map(F::word)
                    .collect();
                crate::poly::upload(device, &words)
            };
            tables.push([table(SplitPass::Forward)?, table(SplitPass::Inverse)?]);
            buffers.push([
                device.alloc::<F::Word>(words)?,
                device.alloc::<F::Word>(words)?,
                device.alloc::<F::Word>(words)?,
            ]);
        }
        let streams = devices.iter().map(|d| d.stream().clone()).collect();
        let comms = Comm::from_devices(streams).map_err(nccl("ncclCommInitAll"))?;
        Ok(GpuMachine {
            field: field.clone(),
            g,
            m,
            plans,
            devices,
            passes,
            tables,
            buffers,
            comms,
        })
    }

    pub(super) fn load(&mut self, buffer: usize, blocks: &[Vec<F::Host>]) -> Result<(), Error> {
        for ((device, bufs), block) in self.devices.iter().zip(&mut self.buffers).zip(blocks) {
            let mut words = Vec::with_capacity(block.len() * self.field.words());
            self.field.pack(block, self.m, &mut words);
            device
                .stream()
                .memcpy_htod(&words, &mut bufs[buffer])
                .map_err(driver("cuMemcpyHtoD"))?;
        }
        Ok(())
    }

    pub(super) fn read(&mut self, buffer: usize) -> Result<Vec<Vec<F::Host>>, Error> {
        let zero = self.field.to_host(&self.field.zero());
        self.devices
            .iter()
            .zip(&self.buffers)
            .map(|(device, bufs)| {
                let words = device
                    .stream()
                    .clone_dtoh(&bufs[buffer])
                    .map_err(driver("cuMemcpyDtoH"))?;
                let mut out = vec![zero; self.m];
                self.field.unpack(&words, self.m, &mut out);
                Ok(out)
            })
            .collect()
    }

    pub(super) fn swap(&mut self, a: usize, b: usize) {
        for bufs in &mut self.buffers {
            bufs.swap(a, b);
        }
    }

    pub(super) fn synchronize(&self) -> Result<(), Error> {
        for device in &self.devices {
            device
                .stream()
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))?;
        }
        Ok(())
    }

    pub(super) fn step(&mut self, step: Step, from: usize, to: usize) -> Result<(), Error> {
        if step == Step::Exchange {
            return self.exchange(from, to);
        }
        let (g, m) = (self.g as u64, self.m as u64);
        let s = m / g;
        for d in 0..self.g {
            let stream: &Arc<CudaStream> = self.devices[d].stream();
            let (src, dst, op) = buffers(&mut self.buffers[d], from, to);
            let (src, op) = (src.slice(..), op.slice(..));
            let mut dst = dst.slice_mut(..);
            // Sizes of the pass (s, G), and the words between an element's digits.
            let extents = |size, terms| Extents {
                size,
                terms,
                source: Extent {
                    len: m,
                    limit: m,
                    dist: m,
                    stride: m,
                },
                destination: Extent {
                    len: m,
                    limit: m,
                    dist: m,
                    stride: m,
                },
                ..Extents::whole(m)
            };
            match step {
                Step::Local(direction) => {
                    self.plans[d].run_device_views(direction, &src, &mut dst, 1, Some(stream))?
                }
                Step::Transpose { back } => {
                    let (size, terms) = if back { (g, s) } else { (s, g) };
                    self.passes[d].run_split(
                        stream,
                        SplitPass::Transpose,
                        m,
                        (&src, None, &mut dst, None),
                        extents(size, terms),
                    )?
                }
                Step::Butterfly(pass) => {
                    let table = self.tables[d][usize::from(pass != SplitPass::Forward)].slice(..);
                    let op = (pass == SplitPass::Product).then_some(&op);
                    self.passes[d].run_split(
                        stream,
                        pass,
                        s,
                        (&src, op, &mut dst, Some(&table)),
                        extents(s, g),
                    )?
                }
                Step::Exchange => unreachable!("exchanges run above"),
            }
        }
        Ok(())
    }

    /// One all-to-all: chunk c of every digit row of device d's `from` goes to the same
    /// place of device c's `to`... at slot d, which is where c's own chunk d lands.
    fn exchange(&mut self, from: usize, to: usize) -> Result<(), Error> {
        let (g, m) = (self.g, self.m);
        let s = m / g;
        let rows = self.field.words();
        cudarc::nccl::result::group_start().map_err(nccl("ncclGroupStart"))?;
        let mut sent = Ok(());
        'devices: for d in 0..g {
            let stream = self.devices[d].stream().clone();
            let (src, dst, _) = buffers(&mut self.buffers[d], from, to);
            for r in 0..rows {
                for c in 0..g {
                    let send = r * m + c * s;
                    let recv = r * m + c * s;
                    let chunk = src.slice(send..send + s);
                    let mut slot = dst.slice_mut(recv..recv + s);
                    let done = if c == d {
                        stream
                            .memcpy_dtod(&chunk, &mut slot)
                            .map_err(driver("cuMemcpyDtoD"))
                    } else {
                        let comm = &self.comms[d];
                        comm.send(&chunk, c as i32)
                            .map_err(nccl("ncclSend"))
                            .and_then(|()| {
                                comm.recv(&mut slot, c as i32)
                                    .map(|_| ())
                                    .map_err(nccl("ncclRecv"))
                            })
                    };
                    if let Err(e) = done {
                        sent = Err(e);
                        break 'devices;
                    }
                }
            }
        }
        // The group is closed whatever happened inside it.
        let closed = cudarc::nccl::result::group_end().map_err(nccl("ncclGroupEnd"));
        sent?;
        closed.map(|_| ())
    }
}

/// `from` and `to` (distinct work buffers) and the operand, borrowed together.
fn buffers<W>(
    bufs: &mut [CudaSlice<W>; 3],
    from: usize,
    to: usize,
) -> (&CudaSlice<W>, &mut CudaSlice<W>, &CudaSlice<W>) {
    let [a, b, op] = bufs;
    match (from, to) {
        (0, 1) => (a, b, op),
        (1, 0) => (b, a, op),
        _ => unreachable!("steps alternate between the two work buffers"),
    }
}
