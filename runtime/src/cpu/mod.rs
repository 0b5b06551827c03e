//! The CPU backend.
//!
//! Word primes ([`Fp32`], [`Fp64`]) take a specialised NTT ([`WordNtt`]: precomputed
//! twiddles, radix-4 passes, cache blocking, rayon, AVX-512 where the CPU has it); every
//! other field runs the plan's kernels one after another, the pieces of each kernel in
//! parallel on all cores (rayon) — the same gathers, bodies and scatters as the GPU.

#[cfg(target_arch = "x86_64")]
mod avx512;
mod field_ntt;
mod ntt;
mod product;
pub(crate) use product::Buffers;
mod scalar;
mod vector;
pub(crate) use vector::{Lanes32, SubMul};

pub(crate) use field_ntt::{FieldNtt, FIELD_NTT_MAX};
pub use ntt::{Isa, Kernels, WordNtt};
pub use scalar::Word;

use crate::error::Error;
use crate::host::HostField;
use fermat_codegen::contract::Input;
use fermat_codegen::exec::KernelRunner;
use fermat_codegen::plan::{CheckedPlan, Direction, KernelPlan, Order};
use fermat_dsl::field::{Field, Roots};
use fermat_dsl::field::{Fp32, Fp64};
use rayon::prelude::*;
use std::any::{Any, TypeId};

/// Runs `op` on a worker of rayon's global pool. A parallel section (a transform, a
/// product's pointwise pass) started by a thread outside the pool is handed to a worker
/// while the thread sleeps: two context switches a section — 11 % of the samples of a gcd
/// of 2^16 on one core, a third of a division of 10^4 (bench/RESULTS.md, "GCD round 19"
/// and "CPU round 1"). On a worker the sections split in place; called from a worker
/// already (a caller's parallel loop, an operation built on this one), `op` runs where
/// it is. The polynomial operations on the CPU enter the pool once, at the top.
pub(crate) fn on_the_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| op())
}

/// A shared output pointer: pieces write disjoint addresses (a [`CheckedPlan`]'s scatter
/// maps are bijections), so concurrent writes never touch the same element.
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

/// Runs one transform of `plan` on `input`, writing `output`: n elements each, or fewer
/// where the plan reads a short input or writes a short output; `operand` holds the n
/// elements its first pass multiplies by, for a plan with a pointwise product (else it is
/// empty).
pub(crate) fn run<F: Field>(
    field: &F,
    plan: &CheckedPlan,
    roots: &Roots<F>,
    input: Input<'_, F::Elem>,
    operand: &[F::Elem],
    output: &mut [F::Elem],
) {
    plan.run_passes(input, output, field.zero(), |kernel, src, dst| {
        let runner = KernelRunner::new(field, plan, roots, kernel);
        run_kernel(&runner, kernel, src, operand, dst)
    });
}

/// Runs one pass, its pieces in parallel: each piece writes the addresses its scatter map
/// gives, and a checked plan's maps are bijections, so no address is written twice.
fn run_kernel<F: Field>(
    runner: &KernelRunner<'_, F>,
    kernel: &KernelPlan,
    src: &[F::Elem],
    operand: &[F::Elem],
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
            runner.piece(p, src, operand, &mut piece, &mut regs);
            for (a, value) in runner.scatter(p).zip(&piece) {
                let a = a as usize;
                // A short output (the last pass of a product) takes its first elements.
                if a < len {
                    // SAFETY: `a` is in bounds, and no other piece writes address `a` (the
                    // plan's maps were checked to be bijections when it was built).
                    unsafe { out.write(a, *value) };
                }
            }
        }
    });
}

/// The word-prime transforms of one plan, both directions, built once with the plan.
pub(crate) enum Fast {
    /// p < 2^31 (or any Fp32 prime on the portable path): u32 butterflies.
    Narrow(WordNtt<u32>, WordNtt<u32>),
    /// An Fp32 prime p ≥ 2^31, whose sums overflow u32 in the SIMD butterflies: u64 ones.
    Widened(WordNtt<u64>, WordNtt<u64>),
    /// Fp64.
    Wide(WordNtt<u64>, WordNtt<u64>),
}

/// `data` as a slice of `U` when `T` is `U`.
pub(crate) fn same_type<T: 'static, U: 'static>(data: &mut [T]) -> Option<&mut [U]> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: T and U are the same type.
        unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<U>(), data.len()) }
    })
}

impl Fast {
    /// The fast transforms equal to a plan over `field` whose table root is `table_root`
    /// (a primitive 2^log_table-th root; the plan's ω_n is its 2^log_table/n-th power), or
    /// `None` when the field is not a word prime or the table is too small to hold ω_n.
    ///
    /// The forward transform reads and writes in the `forward` orders (input, output), the
    /// inverse in the `inverse` ones.
    pub(crate) fn new<F: HostField>(
        field: &F,
        n: u64,
        table_root: &F::Elem,
        log_table: u32,
        forward: (Order, Order),
        inverse: (Order, Order),
        isa: Isa,
    ) -> Result<Option<Self>, Error> {
        let any = field as &dyn Any;
        let log_n = n.trailing_zeros();
        if !(any.is::<Fp32>() || any.is::<Fp64>()) || log_table < log_n {
            return Ok(None);
        }
        let omega = field.pow_u64(table_root, 1 << (log_table - log_n));
        let omega =
            u64::try_from(field.to_biguint(&omega)).expect("a word prime's element fits u64");
        let both = |dir| match dir {
            Direction::Forward => (dir, forward.0, forward.1, isa),
            Direction::Inverse => (dir, inverse.0, inverse.1, isa),
        };
        let build32 = |p: u32| -> Result<Self, Error> {
            // Sums of two residues overflow u32 for p ≥ 2^31, which the u32 SIMD butterflies
            // do not allow: such primes take the u64 ones where the CPU has them.
            if p >= 1 << 31 && isa == Isa::Auto {
                let make =
                    |(d, i, o, isa)| WordNtt::<u64>::new(u64::from(p), omega, n, d, i, o, isa);
                let wide = make(both(Direction::Forward))?;
                if wide.kernels() != Kernels::Portable {
                    return Ok(Fast::Widened(wide, make(both(Direction::Inverse))?));
                }
            }
            let make = |(d, i, o, isa)| WordNtt::<u32>::new(p, omega as u32, n, d, i, o, isa);
            Ok(Fast::Narrow(
                make(both(Direction::Forward))?,
                make(both(Direction::Inverse))?,
            ))
        };
        if let Some(f) = any.downcast_ref::<Fp32>() {
            return build32(f.p()).map(Some);
        }
        if let Some(f) = any.downcast_ref::<Fp64>() {
            let make = |(d, i, o, isa)| WordNtt::<u64>::new(f.p(), omega, n, d, i, o, isa);
            return Ok(Some(Fast::Wide(
                make(both(Direction::Forward))?,
                make(both(Direction::Inverse))?,
            )));
        }
        Ok(None)
    }

    /// The instruction set the forward transform runs on.
    pub(crate) fn kernels(&self) -> Kernels {
        match self {
            Fast::Narrow(f, _) => f.kernels(),
            Fast::Widened(f, _) | Fast::Wide(f, _) => f.kernels(),
        }
    }

    /// Transforms every run of n host values of `data` (canonical u32 or u64) in place.
    pub(crate) fn run<H: 'static>(
        &self,
        direction: Direction,
        data: &mut [H],
    ) -> Result<(), Error> {
        fn pick<T>(direction: Direction, f: T, i: T) -> T {
            match direction {
                Direction::Forward => f,
                Direction::Inverse => i,
            }
        }
        match self {
            Fast::Narrow(f, i) => {
                pick(direction, f, i).apply(same_type::<H, u32>(data).expect("Fp32 hosts are u32"))
            }
            Fast::Wide(f, i) => {
                pick(direction, f, i).apply(same_type::<H, u64>(data).expect("Fp64 hosts are u64"))
            }
            Fast::Widened(f, i) => {
                let narrow = same_type::<H, u32>(data).expect("Fp32 hosts are u32");
                let mut wide: Vec<u64> = narrow.iter().map(|&x| u64::from(x)).collect();
                pick(direction, f, i).apply(&mut wide)?;
                for (x, w) in narrow.iter_mut().zip(&wide) {
                    *x = *w as u32;
                }
                Ok(())
            }
        }
    }
}
