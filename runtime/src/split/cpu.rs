//! G devices simulated on the CPU: each buffer is one host vector of N elements, device d
//! holding elements [d·M, (d + 1)·M), and an exchange is a permutation of chunks. A split
//! with a cyclic output runs its local transforms on the rows of N/G² points, its rows'
//! exchange a permutation of them.

use super::Step;
use crate::fft::FftPlan;
use crate::{Error, HostField};
use fermat_codegen::plan::Direction;
use fermat_codegen::split::{self, SplitPass};
use rayon::prelude::*;

pub(super) struct CpuMachine<F: HostField> {
    field: F,
    g: usize,
    m: usize,
    /// The transform each device runs: of M points, or of the rows of a cyclic output.
    local: FftPlan<F>,
    /// The rows of the butterflies' low tables ([`split::table_block`]).
    block: usize,
    /// Per device, the tables of the butterfly steps ([`super::butterfly_tables`]).
    tables: Vec<Vec<Vec<F::Elem>>>,
    buffers: [Vec<F::Host>; 3],
}

impl<F: HostField> CpuMachine<F> {
    /// The devices of a split of N = `n` points over `g`, with a `cyclic` output or not.
    pub(super) fn new(
        field: &F,
        n: u64,
        g: usize,
        local: FftPlan<F>,
        cyclic: bool,
    ) -> Result<Self, Error> {
        let omega = field.root_of_unity(n)?;
        let s = n / g as u64 / g as u64;
        let block = split::table_block(s, super::element_bytes(field));
        let tables = (0..g as u64)
            .map(|c| super::butterfly_tables(field, &omega, (n, g as u64, c), block, cyclic))
            .collect();
        let zero = field.to_host(&field.zero());
        Ok(CpuMachine {
            field: field.clone(),
            g,
            m: n as usize / g,
            local,
            block: block as usize,
            tables,
            buffers: std::array::from_fn(|_| vec![zero; n as usize]),
        })
    }

    pub(super) fn load(&mut self, buffer: usize, blocks: &[Vec<F::Host>]) -> Result<(), Error> {
        self.buffers[buffer] = blocks.concat();
        Ok(())
    }

    pub(super) fn load_tiled(&mut self, buffer: usize, tile: &[F::Host]) -> Result<(), Error> {
        self.buffers[buffer] = tile.repeat(self.g * self.m / tile.len());
        Ok(())
    }

    pub(super) fn read(&mut self, buffer: usize) -> Result<Vec<Vec<F::Host>>, Error> {
        Ok(self.buffers[buffer]
            .chunks(self.m)
            .map(<[F::Host]>::to_vec)
            .collect())
    }

    pub(super) fn swap(&mut self, a: usize, b: usize) {
        self.buffers.swap(a, b);
    }

    pub(super) fn step(&mut self, step: Step, from: usize, to: usize) -> Result<(), Error> {
        let (g, m) = (self.g, self.m);
        let s = m / g;
        let mut dst = std::mem::take(&mut self.buffers[to]);
        let src = &self.buffers[from];
        match step {
            Step::Transpose { back } => {
                let rows = if back { s } else { g };
                for (d, block) in dst.chunks_mut(m).enumerate() {
                    split::transpose(&src[d * m..(d + 1) * m], rows, block);
                }
            }
            Step::Exchange => {
                for d in 0..g {
                    for c in 0..g {
                        dst[c * m + d * s..c * m + (d + 1) * s]
                            .copy_from_slice(&src[d * m + c * s..d * m + (c + 1) * s]);
                    }
                }
            }
            Step::Local(direction) => {
                dst.copy_from_slice(src);
                match direction {
                    Direction::Forward => self.local.forward(&mut dst)?,
                    Direction::Inverse => self.local.inverse(&mut dst)?,
                }
            }
            Step::Rows(direction) => {
                // Row e of device d, transformed, is slot d of device e (and back).
                for d in 0..g {
                    for e in 0..g {
                        let (row, slot) = (d * m + e * s, e * m + d * s);
                        let (from, into) = match direction {
                            Direction::Forward => (row, slot),
                            Direction::Inverse => (slot, row),
                        };
                        let out = &mut dst[into..into + s];
                        out.copy_from_slice(&src[from..from + s]);
                        match direction {
                            Direction::Forward => self.local.forward(out)?,
                            Direction::Inverse => self.local.inverse(out)?,
                        }
                    }
                }
            }
            Step::Butterfly(_) | Step::Cyclic(_) => {
                let (kernel, which) = super::table_index(step);
                self.butterflies(kernel, which, src, &mut dst)?;
            }
        }
        self.buffers[to] = dst;
        Ok(())
    }

    /// The twiddled DFT(G) or its inverse (`kernel`) on every device, each with its table
    /// `which`.
    fn butterflies(
        &self,
        kernel: SplitPass,
        which: usize,
        src: &[F::Host],
        dst: &mut [F::Host],
    ) -> Result<(), Error> {
        let (field, g, m) = (&self.field, self.g, self.m);
        let shape = (g, self.block);
        let operand = (kernel == SplitPass::Product).then(|| &self.buffers[super::OPERAND]);
        dst.par_chunks_mut(m)
            .enumerate()
            .try_for_each(|(c, out)| -> Result<(), Error> {
                let elems = |v: &[F::Host]| -> Result<Vec<F::Elem>, Error> {
                    Ok(v.iter()
                        .map(|h| field.to_elem(h))
                        .collect::<Result<_, _>>()?)
                };
                let x = elems(&src[c * m..(c + 1) * m])?;
                let mut y = vec![field.zero(); m];
                match kernel {
                    SplitPass::Forward => {
                        split::forward(field, shape, &self.tables[c][which], &x, &mut y)
                    }
                    _ => {
                        let op = operand.map(|o| elems(&o[c * m..(c + 1) * m])).transpose()?;
                        let table = &self.tables[c][which];
                        split::inverse(field, shape, table, &x, op.as_deref(), &mut y);
                    }
                }
                for (o, e) in out.iter_mut().zip(&y) {
                    *o = field.to_host(e);
                }
                Ok(())
            })
    }
}
