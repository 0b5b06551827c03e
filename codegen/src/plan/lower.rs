//! The lowering of Σ-stages into kernel plans: stages grouped while the index bits they
//! touch fit one piece, each group one kernel, the stride permutations tracked as
//! relabellings of index bits and folded into the last kernel's scatter.

use super::{
    BitField, BitSource, Direction, Io, KernelPlan, Order, Plan, PlanError, PlanOptions, Step,
};
use crate::contract::Hop;
use crate::sigma::Stage;

/// Where each logical index bit lives physically: `f[q]` is the physical bit of logical
/// bit q.
type Layout = Vec<u32>;

struct Group {
    active: Vec<u32>,
    stages: Vec<(Stage, Layout)>,
}

pub(super) struct Lowering {
    t: u32,
    options: PlanOptions,
}

impl Lowering {
    pub(super) fn new(t: u32, options: PlanOptions) -> Self {
        Lowering { t, options }
    }

    fn initial_layout(&self, order: Order) -> Layout {
        match order {
            Order::Natural => (0..self.t).collect(),
            Order::BitReversed => (0..self.t).map(|q| self.t - 1 - q).collect(),
        }
    }

    /// The plan of `stages`, with pieces beyond `max_local_bits` only where they save a
    /// pass: a larger piece with as many passes holds fewer blocks a multiprocessor and
    /// measured no faster (bench/RESULTS.md, "Transforms of 2^19 to 2^22 points").
    pub(super) fn run(&self, stages: &[Stage]) -> Result<Plan, PlanError> {
        let wide = self.run_grouped(stages)?;
        if self.options.max_contiguous_bits <= self.options.max_local_bits {
            return Ok(wide);
        }
        let strict = PlanOptions {
            max_contiguous_bits: 0,
            ..self.options
        };
        let strict = Lowering::new(self.t, strict).run_grouped(stages)?;
        Ok(if wide.kernels.len() < strict.kernels.len() {
            wide
        } else {
            strict
        })
    }

    fn run_grouped(&self, stages: &[Stage]) -> Result<Plan, PlanError> {
        let max = self.options.max_local_bits.min(self.t);
        let contiguous = self.options.max_contiguous_bits.min(self.t);
        let mut layout = self.initial_layout(self.options.input_order);
        let mut groups: Vec<Group> = vec![Group {
            active: Vec::new(),
            stages: Vec::new(),
        }];
        for stage in stages {
            match stage {
                Stage::Perm(perm) => {
                    // y[o] = x[σ(o)]: logical bit q of y is logical bit src[q] of x.
                    layout = perm.src.iter().map(|&s| layout[s as usize]).collect();
                }
                Stage::Twiddle { .. } => {
                    let g = groups.last_mut().expect("there is always a group");
                    g.stages.push((stage.clone(), layout.clone()));
                }
                Stage::Dft { lo, bits } => {
                    if *bits > max {
                        return Err(PlanError::LeafTooLarge {
                            bits: *bits,
                            max_local_bits: self.options.max_local_bits,
                        });
                    }
                    let touched: Vec<u32> = (*lo..lo + bits).map(|q| layout[q as usize]).collect();
                    let g = groups.last_mut().expect("there is always a group");
                    let mut union = g.active.clone();
                    union.extend(touched.iter().filter(|b| !g.active.contains(b)));
                    let fits = union.len() as u32 <= max || union.iter().all(|&q| q < contiguous);
                    if !fits && !g.active.is_empty() {
                        groups.push(Group {
                            active: touched,
                            stages: vec![(stage.clone(), layout.clone())],
                        });
                    } else {
                        g.active = union;
                        g.stages.push((stage.clone(), layout.clone()));
                    }
                }
            }
        }
        // Where logical output bit q must go: the final relabelling of the last kernel.
        let target = self.initial_layout(self.options.output_order);
        let count = groups.len();
        let mut kernels = Vec::with_capacity(count);
        for (i, mut g) in groups.into_iter().enumerate() {
            g.active.sort_unstable();
            let last = i + 1 == count;
            let dest: Vec<u32> = if last {
                // Physical bit layout[q] holds logical bit q, which belongs at target[q].
                let mut d = vec![0; self.t as usize];
                for q in 0..self.t as usize {
                    d[layout[q] as usize] = target[q];
                }
                d
            } else {
                (0..self.t).collect()
            };
            // A piece beyond max_local_bits must be consecutive where it is written too;
            // the last kernel's relabelling may scatter it (natural order after a
            // digit-reversing plan), and then the plan keeps to max_local_bits.
            if g.active.len() as u32 > max
                && g.active.iter().any(|&q| dest[q as usize] >= contiguous)
            {
                let strict = PlanOptions {
                    max_contiguous_bits: 0,
                    ..self.options
                };
                return Lowering::new(self.t, strict).run_grouped(stages);
            }
            let hop = Hop::of_pass(i, count, self.options.io.short_output);
            kernels.push(self.kernel(i, g, dest, hop, last));
        }
        Ok(Plan {
            log_n: self.t,
            options: self.options,
            kernels,
        })
    }

    fn kernel(
        &self,
        index: usize,
        group: Group,
        dest: Vec<u32>,
        hop: Hop,
        last: bool,
    ) -> KernelPlan {
        let local_of = |phys: u32| group.active.iter().position(|&a| a == phys);
        // Rank of a non-active physical bit among the piece bits.
        let piece_of = |phys: u32| (0..phys).filter(|q| !group.active.contains(q)).count() as u32;
        let source = |phys: u32| match local_of(phys) {
            Some(c) => BitSource::Local(c as u32),
            None => BitSource::Piece(piece_of(phys)),
        };
        let mut steps = Vec::new();
        for (stage, layout) in &group.stages {
            let field = |from: u32, width: u32| BitField {
                bits: (from..from + width)
                    .map(|q| source(layout[q as usize]))
                    .collect(),
            };
            steps.push(match *stage {
                Stage::Dft { lo, bits } => Step::Dft {
                    locals: (lo..lo + bits)
                        .map(|q| local_of(layout[q as usize]).expect("DFT bits are active") as u32)
                        .collect(),
                },
                Stage::Twiddle { lo, m_bits, n_bits } => Step::Twiddle {
                    log_order: m_bits + n_bits,
                    x: field(lo + n_bits, m_bits),
                    y: field(lo, n_bits),
                },
                Stage::Perm(_) => unreachable!("permutations are folded into layouts"),
            });
        }
        if last && self.options.direction == Direction::Inverse {
            steps.push(Step::Scale);
        }
        let io = self.options.io;
        let io = Io {
            short_input: index == 0 && io.short_input,
            pointwise: index == 0 && io.pointwise,
            short_output: last && io.short_output,
        };
        KernelPlan {
            name: format!("fermat_k{index}"),
            log_n: self.t,
            active: group.active,
            steps,
            dest,
            hop,
            io,
        }
    }
}
