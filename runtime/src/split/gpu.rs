//! G GPUs of one host: one stream per device (its own), one NCCL communicator over all of
//! them in this process, each exchange one group of point-to-point calls.
//!
//! An SRGFN vector lies digit-major on the device (k rows of M words), so chunk c of a
//! device's vector is k runs of M/G words, one per digit row: the exchange sends each run
//! to its peer and receives the peer's into the same place of the destination. The chunk a
//! device keeps is a copy on its own stream.
//!
//! A split with a cyclic output holds its M elements as G vectors of s = M/G ([`Layout`]),
//! so that each row is one transform and one message. Its rows' step overlaps the
//! exchange with the transforms: the device's urgent stream (of the greatest priority, so
//! that NCCL's blocks are not queued behind the transform's) sends each row as soon as the
//! main stream has transformed it (forward), or the main stream transforms each row as
//! soon as the urgent stream has received it (inverse).

use super::nccl::{communicators, nccl, NcclBuffer, SharedCommunicators};
use super::{Step, STAGE};
use crate::fft::FftPlan;
use crate::gpu::{driver, Device, Extent, Extents, GpuPasses, SplitVectors};
use crate::{Error, HostField};
use cudarc::driver::{CudaSlice, CudaStream};
use fermat_codegen::cost::FieldShape;
use fermat_codegen::kernel::table_form;
use fermat_codegen::plain::Tile;
use fermat_codegen::plan::Direction;
use fermat_codegen::split::{table_block, SplitPass};
use fermat_dsl::field::AnyField;
use std::sync::Arc;

/// How a device lays out its M = G·s elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// One vector of M elements (an SRGFN's k digit rows of M words).
    Whole,
    /// G vectors of s elements one after another (k digit rows of s words each): the rows
    /// of a cyclic output, each transformed and sent alone.
    Rows,
}

pub(super) struct GpuMachine<F: HostField> {
    field: F,
    g: usize,
    m: usize,
    /// The rows of the butterflies' low tables ([`table_block`]).
    block: u64,
    layout: Layout,
    /// Per device, the transform of M points ([`Layout::Whole`]) or of s ([`Layout::Rows`]).
    plans: Vec<FftPlan<F>>,
    devices: Vec<Arc<Device>>,
    passes: Vec<Arc<GpuPasses>>,
    /// Per device, the tables of the butterfly steps in table form
    /// ([`super::butterfly_tables`]).
    tables: Vec<Vec<CudaSlice<F::Word>>>,
    /// Per device, the two work buffers, the operand of a product and the rows' stage,
    /// each allocated where it is first written.
    buffers: Vec<[Option<NcclBuffer<F::Word>>; 4]>,
    comms: SharedCommunicators,
}

impl<F: HostField> GpuMachine<F> {
    pub(super) fn new(
        field: &F,
        any: &AnyField,
        n: u64,
        plans: Vec<FftPlan<F>>,
        layout: Layout,
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
        let block = table_block(m as u64 / g as u64, super::element_bytes(field));
        let mut passes = Vec::with_capacity(g);
        let mut tables = Vec::with_capacity(g);
        for (c, device) in devices.iter().enumerate() {
            passes.push(Arc::new(GpuPasses::compile(
                device.clone(),
                &source,
                Tile::for_element_bytes(shape.element_bytes),
            )?));
            let upload = |rows: Vec<F::Elem>| -> Result<CudaSlice<F::Word>, Error> {
                let words: Vec<F::Word> = table_form(field, &shape, &rows)
                    .into_iter()
                    .map(F::word)
                    .collect();
                crate::poly::upload(device, &words)
            };
            let at = (n, g as u64, c as u64);
            let cyclic = layout == Layout::Rows;
            tables.push(
                super::butterfly_tables(field, &omega, at, block, cyclic)
                    .into_iter()
                    .map(upload)
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        let comms = communicators(&devices)?;
        Ok(GpuMachine {
            field: field.clone(),
            g,
            m,
            block,
            layout,
            plans,
            devices,
            passes,
            tables,
            buffers: (0..g).map(|_| [None, None, None, None]).collect(),
            comms,
        })
    }

    /// The elements of each vector a device holds: M, or s for the rows.
    fn vector_len(&self) -> usize {
        match self.layout {
            Layout::Whole => self.m,
            Layout::Rows => self.m / self.g,
        }
    }

    /// The words of one row of a cyclic output.
    fn row_words(&self) -> usize {
        self.m / self.g * self.field.words()
    }

    pub(super) fn load(&mut self, buffer: usize, blocks: &[Vec<F::Host>]) -> Result<(), Error> {
        for (d, block) in blocks.iter().enumerate() {
            let mut words = Vec::with_capacity(block.len() * self.field.words());
            self.field.pack(block, self.vector_len(), &mut words);
            let stream = self.devices[d].stream().clone();
            let target = self.buffer(d, buffer)?;
            stream
                .memcpy_htod(&words, target)
                .map_err(driver("cuMemcpyHtoD"))?;
        }
        Ok(())
    }

    /// Fills buffer `buffer` of every device with copies of `tile` (its length a power of
    /// two up to M): inputs of transforms too large to build on the host. Each vector of
    /// L elements ([`Self::vector_len`]) takes copies of pieces of v = min(t, L) elements.
    pub(super) fn load_tiled(&mut self, buffer: usize, tile: &[F::Host]) -> Result<(), Error> {
        let (t, m, k) = (tile.len(), self.m, self.field.words());
        let l = self.vector_len();
        let v = t.min(l);
        let mut words = Vec::with_capacity(t * k);
        self.field.pack(tile, v, &mut words);
        for d in 0..self.g {
            let stream = self.devices[d].stream().clone();
            let target = self.buffer(d, buffer)?;
            for first in (0..m).step_by(v) {
                let (vector, at) = (first / l, first % l);
                let piece = (first % t) / v;
                for r in 0..k {
                    let to = vector * k * l + r * l + at;
                    let from = piece * k * v + r * v;
                    stream
                        .memcpy_htod(&words[from..from + v], &mut target.slice_mut(to..to + v))
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
                self.field.unpack(&words, self.vector_len(), &mut out);
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
        match step {
            Step::Exchange => return self.exchange(from, to),
            Step::Rows(direction) => return self.rows(direction, from, to),
            _ => {}
        }
        let (g, m) = (self.g as u64, self.m as u64);
        let s = m / g;
        // The butterflies' rows: s elements apart in one vector of M elements (digits M
        // words apart), or k·s apart in G vectors of s (digits s words apart).
        let (stride, dist) = match self.layout {
            Layout::Whole => (m, s),
            Layout::Rows => (s, s * self.field.words() as u64),
        };
        for d in 0..self.g {
            self.buffer(d, to)?;
            let stream: &Arc<CudaStream> = self.devices[d].stream();
            let (src, dst, op) = buffers(&mut self.buffers[d], from, to);
            let src = src.slice(..);
            let op = op.map(|o| o.slice(..));
            let mut dst = dst.slice_mut(..);
            let (pass, table) = match step {
                Step::Local(direction) => {
                    self.plans[d].run_device_views(direction, &src, &mut dst, 1, Some(stream))?;
                    continue;
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
                        Extents {
                            size,
                            terms,
                            ..Extents::whole(m)
                        },
                    )?;
                    continue;
                }
                Step::Butterfly(_) | Step::Cyclic(_) => super::table_index(step),
                Step::Exchange | Step::Rows(_) => unreachable!("run above"),
            };
            let table = self.tables[d][table].slice(..);
            let op = match (pass, &op) {
                (SplitPass::Product, Some(op)) => Some(op),
                (SplitPass::Product, None) => unreachable!("a product loads its operand first"),
                _ => None,
            };
            let rows = Extent {
                len: s,
                limit: m,
                dist,
                stride,
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
                    source: rows,
                    destination: rows,
                    size: s,
                    terms: g,
                    block: self.block,
                    ..Extents::whole(m)
                },
            )?;
        }
        Ok(())
    }

    /// The rows of a cyclic output (see the [module](self)): forward, device d transforms
    /// its row e = d + r (mod G) on its main stream and sends it to device e on its urgent
    /// stream, for r = 1, …, G − 1, receiving row d of device d − r, then transforms its
    /// own row straight into place; inverse, the reverse, each received row transformed
    /// as soon as it has arrived. Rows in flight are sent from or received into
    /// [`STAGE`].
    fn rows(&mut self, direction: Direction, from: usize, to: usize) -> Result<(), Error> {
        let g = self.g;
        for d in 0..g {
            self.buffer(d, to)?;
            self.buffer(d, STAGE)?;
        }
        let devices = self.devices.clone();
        let mains: Vec<_> = devices
            .iter()
            .map(|device| device.stream().clone())
            .collect();
        let urgent = devices
            .iter()
            .map(|device| device.urgent_stream().cloned())
            .collect::<Result<Vec<_>, _>>()?;
        // `waiting` on device d waits for what is queued so far on `on`.
        let join = |d: usize, waiting: &CudaStream, on: &CudaStream| -> Result<(), Error> {
            Ok(devices[d].join(waiting, on)?)
        };
        match direction {
            Direction::Forward => {
                for r in 1..g {
                    for d in 0..g {
                        let e = (d + r) % g;
                        self.transform_row(d, direction, (from, e), (STAGE, e))?;
                        join(d, &urgent[d], &mains[d])?;
                    }
                    self.exchange_rows(r, STAGE, to, &urgent)?;
                }
                for d in 0..g {
                    self.transform_row(d, direction, (from, d), (to, d))?;
                    join(d, &mains[d], &urgent[d])?;
                }
            }
            Direction::Inverse => {
                for d in 0..g {
                    join(d, &urgent[d], &mains[d])?;
                    self.transform_row(d, direction, (from, d), (to, d))?;
                }
                for r in 1..g {
                    self.exchange_rows(r, from, STAGE, &urgent)?;
                    for d in 0..g {
                        let c = (d + g - r) % g;
                        join(d, &mains[d], &urgent[d])?;
                        self.transform_row(d, direction, (STAGE, c), (to, c))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Device d's transform of row `row` of buffer `from` into row `slot` of buffer `to`,
    /// on its main stream.
    fn transform_row(
        &mut self,
        d: usize,
        direction: Direction,
        (from, row): (usize, usize),
        (to, slot): (usize, usize),
    ) -> Result<(), Error> {
        let words = self.row_words();
        let stream = self.devices[d].stream().clone();
        let (src, dst) = pair(&mut self.buffers[d], from, to);
        let src = src.slice(row * words..(row + 1) * words);
        let mut dst = dst.slice_mut(slot * words..(slot + 1) * words);
        self.plans[d].run_device_views(direction, &src, &mut dst, 1, Some(&stream))
    }

    /// Round r of the rows' all-to-all, on the urgent streams: device d sends row d + r (mod
    /// G) of `from` to that device and receives row d − r of `to` from that one.
    fn exchange_rows(
        &mut self,
        r: usize,
        from: usize,
        to: usize,
        urgent: &[Arc<CudaStream>],
    ) -> Result<(), Error> {
        let (g, words) = (self.g, self.row_words());
        let comms = self.comms.clone();
        let comms = comms.lock().unwrap_or_else(|e| e.into_inner());
        cudarc::nccl::result::group_start().map_err(nccl("ncclGroupStart"))?;
        let mut sent = Ok(());
        for (d, (bufs, stream)) in self.buffers.iter_mut().zip(urgent).enumerate() {
            let (peer_to, peer_from) = ((d + r) % g, (d + g - r) % g);
            let (src, dst) = pair(bufs, from, to);
            let row = src.slice(peer_to * words..(peer_to + 1) * words);
            let mut slot = dst.slice_mut(peer_from * words..(peer_from + 1) * words);
            sent = comms
                .send(d, &row, peer_to, stream)
                .and_then(|()| comms.recv(d, &mut slot, peer_from, stream));
            if sent.is_err() {
                break;
            }
        }
        // The group is closed whatever happened inside it.
        let closed = cudarc::nccl::result::group_end().map_err(nccl("ncclGroupEnd"));
        sent?;
        closed.map(|_| ())
    }

    /// One all-to-all: chunk c of every digit row of device d's `from` goes to slot d of
    /// the same digit row of device c's `to` (of a cyclic output's rows, row c whole).
    fn exchange(&mut self, from: usize, to: usize) -> Result<(), Error> {
        let (g, m) = (self.g, self.m);
        let s = m / g;
        let (runs, run) = match self.layout {
            Layout::Whole => (self.field.words(), s),
            Layout::Rows => (1, self.row_words()),
        };
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
            for r in 0..runs {
                for c in 0..g {
                    // Chunk c goes to device c; what device c sends back lands in slot c.
                    let at = match self.layout {
                        Layout::Whole => r * m + c * s,
                        Layout::Rows => c * run,
                    };
                    let chunk = src.slice(at..at + run);
                    let mut slot = dst.slice_mut(at..at + run);
                    let done = if c == d {
                        stream
                            .memcpy_dtod(&chunk, &mut slot)
                            .map_err(driver("cuMemcpyDtoD"))
                            .map_err(Error::from)
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

/// Buffers `a` and `b` of one device (distinct, allocated), the first to read.
fn pair<W>(
    bufs: &mut [Option<NcclBuffer<W>>; 4],
    a: usize,
    b: usize,
) -> (&CudaSlice<W>, &mut CudaSlice<W>) {
    let [first, second] = bufs
        .get_disjoint_mut([a, b])
        .expect("two distinct buffers of a device");
    (
        first
            .as_deref()
            .expect("a step reads a buffer that was written"),
        second.as_deref_mut().expect("allocated before the step"),
    )
}

/// `from` and `to` (distinct work buffers, allocated) and the operand, borrowed together.
fn buffers<W>(
    bufs: &mut [Option<NcclBuffer<W>>; 4],
    from: usize,
    to: usize,
) -> (&CudaSlice<W>, &mut CudaSlice<W>, Option<&CudaSlice<W>>) {
    let [a, b, op, _] = bufs;
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
