//! G devices simulated on the CPU: each buffer is one host vector of N elements, device d
//! holding elements [d·M, (d + 1)·M), and an exchange is a permutation of chunks.

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
    local: FftPlan<F>,
    /// Per device, the rows of the forward and the inverse butterflies.
    tables: Vec<[Vec<F::Elem>; 2]>,
    buffers: [Vec<F::Host>; 3],
}

impl<F: HostField> CpuMachine<F> {
    pub(super) fn new(field: &F, n: u64, g: usize, local: FftPlan<F>) -> Result<Self, Error> {
        let omega = field.root_of_unity(n)?;
        let tables = (0..g as u64)
            .map(|c| {
                [
                    SplitPass::Forward.table(field, &omega, n, g as u64, c),
                    SplitPass::Inverse.table(field, &omega, n, g as u64, c),
                ]
            })
            .collect();
        let zero = field.to_host(&field.zero());
        Ok(CpuMachine {
            field: field.clone(),
            g,
            m: n as usize / g,
            local,
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
            Step::Butterfly(pass) => {
                let operand = (pass == SplitPass::Product).then(|| &self.buffers[super::OPERAND]);
                let (field, tables) = (&self.field, &self.tables);
                dst.par_chunks_mut(m).enumerate().try_for_each(
                    |(c, out)| -> Result<(), Error> {
                        let elems = |v: &[F::Host]| -> Result<Vec<F::Elem>, Error> {
                            Ok(v.iter()
                                .map(|h| field.to_elem(h))
                                .collect::<Result<_, _>>()?)
                        };
                        let x = elems(&src[c * m..(c + 1) * m])?;
                        let mut y = vec![field.zero(); m];
                        match pass {
                            SplitPass::Forward => {
                                split::forward(field, g, &tables[c][0], &x, &mut y)
                            }
                            _ => {
                                let op =
                                    operand.map(|o| elems(&o[c * m..(c + 1) * m])).transpose()?;
                                split::inverse(field, g, &tables[c][1], &x, op.as_deref(), &mut y);
                            }
                        }
                        for (o, e) in out.iter_mut().zip(&y) {
                            *o = field.to_host(e);
                        }
                        Ok(())
                    },
                )?;
            }
        }
        self.buffers[to] = dst;
        Ok(())
    }
}
