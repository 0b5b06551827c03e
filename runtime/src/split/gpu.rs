//! G GPUs of one host: one stream per device (its own), one NCCL communicator over all of
//! them in this process, each exchange one group of point-to-point calls.
//!
//! An SRGFN vector lies digit-major on the device (k rows of M words), so chunk c of a
//! device's vector is k runs of M/G words, one per digit row: the exchange sends each run
//! to its peer and receives the peer's into the same place of the destination. The chunk a
//! device keeps is a copy on its own stream.

use super::nccl::{communicators, nccl, NcclBuffer, SharedCommunicators};
use super::Step;
use crate::fft::FftPlan;
use crate::gpu::{Device, Extents, GpuError, GpuPasses, SplitVectors};
use crate::{Error, HostField};
use cudarc::driver::{CudaSlice, CudaStream};
use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::plain::Tile;
use fermat_codegen::split::{low_rows, SplitPass};
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
    /// Per device, the two work buffers and the operand of a product, each allocated
    /// where it is first written.
    buffers: Vec<[Option<NcclBuffer<F::Word>>; 3]>,
    comms: SharedCommunicators,
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
        let mut passes = Vec::with_capacity(g);
        let mut tables = Vec::with_capacity(g);
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
        }
        let comms = communicators(&devices)?;
        Ok(GpuMachine {
            field: field.clone(),
            g,
            m,
            plans,
            devices,
            passes,
            tables,
            buffers: (0..g).map(|_| [None, None, None]).collect(),
            comms,
        })
    }

    pub(super) fn load(&mut self, buffer: usize, blocks: &[Vec<F::Host>]) -> Result<(), Error> {
        for (d, block) in blocks.iter().enumerate() {
            let mut words = Vec::with_capacity(block.len() * self.field.words());
            self.field.pack(block, self.m, &mut words);
            let stream = self.devices[d].stream().clone();
            let target = self.buffer(d, buffer)?;
            stream
                .memcpy_htod(&words, target)
                .map_err(driver("cuMemcpyHtoD"))?;
        }
        Ok(())
    }

    /// Fills buffer `buffer` of every device with copies of `tile` (its length dividing
    /// M): inputs of transforms too large to build on the host.
    pub(super) fn load_tiled(&mut self, buffer: usize, tile: &[F::Host]) -> Result<(), Error> {
        let (t, m) = (tile.len(), self.m);
        let mut words = Vec::with_capacity(t * self.field.words());
        self.field.pack(tile, t, &mut words);
        for d in 0..self.g {
            let stream = self.devices[d].stream().clone();
            let target = self.buffer(d, buffer)?;
            for (r, row) in words.chunks(t).enumerate() {
                for at in (0..m).step_by(t) {
                    let mut place = target.slice_mut(r * m + at..r * m + at + t);
                    stream
                        .memcpy_htod(row, &mut place)
                        .map_err(driver("cuMemcpyHtoD"))?;
                }
            }
        }
        Ok(())
    }

    /// Buffer `buffer` of device `d`, allocated on first use.
    fn buffer(&mut self, d: usize, buffer: usize) -> Result<&mut CudaSlice<F::Word>, Error> {
        let slot = &mut self.buffers[d][buffer];
        if slot.is_none() {
            let len = self.m * self.field.words();
            *slot = Some(NcclBuffer::new(&self.devices[d], &self.comms, d, len)?);
        }
        Ok(slot.as_deref_mut().expect("allocated above"))
    }

    pub(super) fn read(&mut self, buffer: usize) -> Result<Vec<Vec<F::Host>>, Error> {
        let zero = self.field.to_host(&self.field.zero());
        self.devices
            .iter()
            .zip(&self.buffers)
            .map(|(device, bufs)| {
                let words = device
                    .stream()
                    .clone_dtoh(&**bufs[buffer].as_ref().expect("a buffer that was written"))
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
            self.buffer(d, to)?;
            let stream: &Arc<CudaStream> = self.devices[d].stream();
            let (src, dst, op) = buffers(&mut self.buffers[d], from, to);
            let src = src.slice(..);
            let op = op.map(|o| o.slice(..));
            let mut dst = dst.slice_mut(..);
            // Sizes of the pass (s, G); whole vectors of M elements, digits M words apart.
            let extents = |size, terms| Extents {
                size,
                terms,
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
                        SplitVectors {
                            src: &src,
                            op: None,
                            dst: &mut dst,
                            table: None,
                        },
                        extents(size, terms),
                    )?
                }
                Step::Butterfly(pass) => {
                    let table = self.tables[d][usize::from(pass != SplitPass::Forward)].slice(..);
                    let op = match (pass, &op) {
                        (SplitPass::Product, Some(op)) => Some(op),
                        (SplitPass::Product, None) => {
                            unreachable!("a product loads its operand first")
                        }
                        _ => None,
                    };
                    self.passes[d].run_split(
                        stream,
                        pass,
                        s,
                        SplitVectors {
                            src: &src,
                            op,
                            dst: &mut dst,
                            table: Some(&table),
                        },
                        Extents {
                            block: low_rows(s),
                            ..extents(s, g)
                        },
                    )?
                }
                Step::Exchange => unreachable!("exchanges run above"),
            }
        }
        Ok(())
    }

    /// One all-to-all: chunk c of every digit row of device d's `from` goes to slot d of
    /// the same digit row of device c's `to`.
    fn exchange(&mut self, from: usize, to: usize) -> Result<(), Error> {
        let (g, m) = (self.g, self.m);
        let s = m / g;
        let rows = self.field.words();
        for d in 0..g {
            self.buffer(d, to)?;
        }
        let comms = self.comms.clone();
        let comms = comms.lock().unwrap_or_else(|e| e.into_inner());
        cudarc::nccl::result::group_start().map_err(nccl("ncclGroupStart"))?;
        let mut sent = Ok(());
        'devices: for d in 0..g {
            let stream = self.devices[d].stream().clone();
            let (src, dst, _) = buffers(&mut self.buffers[d], from, to);
            for r in 0..rows {
                for c in 0..g {
                    // Chunk c goes to device c; what device c sends back lands in slot c.
                    let at = r * m + c * s;
                    let chunk = src.slice(at..at + s);
                    let mut slot = dst.slice_mut(at..at + s);
                    let done = if c == d {
                        stream
                            .memcpy_dtod(&chunk, &mut slot)
                            .map_err(driver("cuMemcpyDtoD"))
                    } else {
                        comms
                            .send(d, &chunk, c, &stream)
                            .and_then(|()| comms.recv(d, &mut slot, c, &stream))
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

/// `from` and `to` (distinct work buffers, allocated) and the operand, borrowed together.
fn buffers<W>(
    bufs: &mut [Option<NcclBuffer<W>>; 3],
    from: usize,
    to: usize,
) -> (&CudaSlice<W>, &mut CudaSlice<W>, Option<&CudaSlice<W>>) {
    let [a, b, op] = bufs;
    let (from, to) = match (from, to) {
        (0, 1) => (a, b),
        (1, 0) => (b, a),
        _ => unreachable!("steps alternate between the two work buffers"),
    };
    (
        from.as_deref()
            .expect("a step reads a buffer that was written"),
        to.as_deref_mut().expect("allocated before the step"),
        op.as_deref(),
    )
}
