//! The CPU backend: the plan's kernels run one after another, the pieces of each kernel in
//! parallel on all cores (rayon) — the same gathers, bodies and scatters as the GPU.

use fermat_codegen::exec::{KernelRunner, Roots};
use fermat_codegen::plan::{Buffer, Plan};
use fermat_dsl::field::Field;
use rayon::prelude::*;

/// A shared output pointer: pieces write disjoint addresses (a kernel's scatter map is a
/// bijection), so concurrent writes never touch the same element.
#[derive(Clone, Copy)]
struct Out<T>(*mut T);
// SAFETY: see the type's documentation; every address is written by exactly one piece.
unsafe impl<T: Send> Send for Out<T> {}
unsafe impl<T: Send> Sync for Out<T> {}

impl<T> Out<T> {
    /// # Safety
    /// `a` is in bounds and written by no other piece.
    unsafe fn write(&self, a: usize, value: T) {
        unsafe { *self.0.add(a) = value };
    }
}

/// Runs one transform of `plan` on `input`, writing `output` (both of n elements).
pub(crate) fn run<F: Field>(
    field: &F,
    plan: &Plan,
    roots: &Roots<F>,
    input: &[F::Elem],
    output: &mut [F::Elem],
) {
    let n = plan.n() as usize;
    assert_eq!(input.len(), n, "callers pass whole transforms");
    assert_eq!(output.len(), n, "callers pass whole transforms");
    let mut scratch = if plan.needs_scratch() {
        vec![field.zero(); n]
    } else {
        Vec::new()
    };
    for kernel in &plan.kernels {
        let runner = KernelRunner::new(field, plan, roots, kernel);
        match (kernel.src_buffer, kernel.dst_buffer) {
            (Buffer::Input, Buffer::Output) => run_kernel(&runner, kernel, input, output),
            (Buffer::Input, Buffer::Scratch) => run_kernel(&runner, kernel, input, &mut scratch),
            (Buffer::Output, Buffer::Scratch) => run_kernel(&runner, kernel, output, &mut scratch),
            (Buffer::Scratch, Buffer::Output) => run_kernel(&runner, kernel, &scratch, output),
            (src, dst) => unreachable!("plans never read {src:?} and write {dst:?}"),
        }
    }
}

fn run_kernel<F: Field>(
    runner: &KernelRunner<'_, F>,
    kernel: &fermat_codegen::plan::KernelPlan,
    src: &[F::Elem],
    dst: &mut [F::Elem],
) {
    let out = Out(dst.as_mut_ptr());
    let len = dst.len();
    let pieces = kernel.pieces();
    // Enough chunks to balance the cores, few enough to amortise each chunk's buffers.
    let chunk = (pieces / (rayon::current_num_threads() as u64 * 8)).max(1);
    (0..pieces.div_ceil(chunk)).into_par_iter().for_each(|c| {
        let mut piece = Vec::new();
        let mut regs = Vec::new();
        for p in c * chunk..((c + 1) * chunk).min(pieces) {
            runner.piece(p, src, &mut piece, &mut regs);
            for (j, value) in piece.iter().enumerate() {
                let a = kernel.scatter(p, j as u64) as usize;
                assert!(a < len, "scatter addresses stay inside the output");
                // SAFETY: `a` is in bounds, and no other piece writes address `a`.
                unsafe { out.write(a, *value) };
            }
        }
    });
}
