//! Cyclic products of word-prime polynomials on the CPU: the word-prime NTT of both
//! operands, pointwise products, the inverse.
//!
//! The field keeps an element as its Montgomery residue a·R mod p, and the transforms are
//! linear: the transform of the residues is R times the transform of the values, so the
//! residues go through the transforms as they are. The pointwise Montgomery product
//! REDC(aR·bR) = abR is again a residue, and so is the inverse transform of it: no
//! conversion on the way in or out.

use super::scalar::Mont;
use super::{same_type, Fast, Lanes32, WordNtt};
use crate::error::Error;
use crate::host::HostField;
use fermat_dsl::field::{Fp32, Fp32Elem, Fp64, Fp64Elem};
use rayon::prelude::*;
use std::any::{Any, TypeId};
use std::sync::{Mutex, TryLockError};

/// `data` as a slice of `U` when `T` is `U`.
fn same_type_ref<T: 'static, U: 'static>(data: &[T]) -> Option<&[U]> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: T and U are the same type.
        unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<U>(), data.len()) }
    })
}

/// Elements multiplied in one rayon task.
const CHUNK: usize = 1 << 14;

/// The words the NTTs run on: u32 residues in u32, or in u64 where their sums would
/// overflow u32 in the SIMD butterflies; u64 residues in u64.
trait Lane: super::Word + Default {
    fn lift(v: u64) -> Self;
    fn lower(self) -> u64;
}

impl Lane for u32 {
    fn lift(v: u64) -> Self {
        v as u32
    }
    fn lower(self) -> u64 {
        u64::from(self)
    }
}

impl Lane for u64 {
    fn lift(v: u64) -> Self {
        v
    }
    fn lower(self) -> u64 {
        self
    }
}

/// The transform buffers of cyclic products, kept from one product to the next: a fresh
/// buffer faults in each of its pages on first touch, and with two threads faulting them
/// in at once the faults took a third of a 62-bit product of 2^21 points (bench/RESULTS.md).
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    narrow: Mutex<[Vec<u32>; 2]>,
    wide: Mutex<[Vec<u64>; 2]>,
}

/// The buffers in `slot`, or fresh ones while another product holds them.
fn take<L>(slot: &Mutex<[Vec<L>; 2]>) -> [Vec<L>; 2] {
    match slot.try_lock() {
        Ok(mut held) => std::mem::take(&mut *held),
        Err(TryLockError::Poisoned(e)) => std::mem::take(&mut *e.into_inner()),
        Err(TryLockError::WouldBlock) => Default::default(),
    }
}

/// Returns `buffers` to `slot` for the next product (dropping them if another product
/// returned its own first).
fn give<L>(slot: &Mutex<[Vec<L>; 2]>, buffers: [Vec<L>; 2]) {
    if let Ok(mut held) = slot.try_lock() {
        if held[0].capacity() < buffers[0].capacity() {
            *held = buffers;
        }
    }
}

/// The residues an element slice stores, for the word fields' `repr(transparent)`
/// elements.
macro_rules! residues_of {
    ($name:ident, $elem:ty, $w:ty) => {
        fn $name(x: &[$elem]) -> &[$w] {
            // SAFETY: the element is a repr(transparent) word.
            unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<$w>(), x.len()) }
        }
    };
}

residues_of!(residues32, Fp32Elem, u32);
residues_of!(residues64, Fp64Elem, u64);

macro_rules! cyclic_for {
    ($name:ident, $field:ty, $elem:ty, $w:ty, $residues:ident, $lanes:expr) => {
        /// The first `out.len()` coefficients of the cyclic product of n points of `a` and
        /// `b` (`b = None`: of `a` with itself), with forward transforms from natural to
        /// bit-reversed order and the inverse back.
        fn $name<L: Lane>(
            field: &$field,
            (forward, inverse): (&WordNtt<L>, &WordNtt<L>),
            a: &[$elem],
            b: Option<&[$elem]>,
            out: &mut [$elem],
            [ta, tb]: &mut [Vec<L>; 2],
        ) -> Result<(), Error> {
            let n = forward.n() as usize;
            let load = |x: &[$elem], words: &mut Vec<L>| -> Result<(), Error> {
                words.resize(n, L::default());
                let (values, padding) = words.split_at_mut(x.len());
                match same_type::<L, $w>(values) {
                    // Words of the residue's width: the elements as they are stored.
                    Some(values) => values
                        .par_chunks_mut(CHUNK)
                        .zip(x.par_chunks(CHUNK))
                        .for_each(|(w, e)| w.copy_from_slice($residues(e))),
                    None => values
                        .par_chunks_mut(CHUNK)
                        .zip(x.par_chunks(CHUNK))
                        .for_each(|(w, e)| {
                            for (w, e) in w.iter_mut().zip(e) {
                                *w = L::lift(u64::from(field.to_montgomery_raw(*e)));
                            }
                        }),
                }
                padding
                    .par_chunks_mut(CHUNK)
                    .for_each(|w| w.fill(L::default()));
                forward.apply(words)
            };
            load(a, ta)?;
            let mont = Mont::<$w>::new(field.p());
            let times = |u: L, v: L| L::lift(u64::from(mont.mul(u.lower() as $w, v.lower() as $w)));
            // Residues in u32 words take the AVX-512 lanes where there are some.
            let lanes: Option<Lanes32> = $lanes(field);
            let pointwise = |x: &mut [L], y: Option<&[L]>| {
                if let (Some(lanes), Some(x)) = (lanes, same_type::<L, u32>(x)) {
                    match y.map(same_type_ref::<L, u32>) {
                        Some(Some(y)) => return lanes.mul_pointwise(x, Some(y)),
                        None => return lanes.mul_pointwise(x, None),
                        Some(None) => {}
                    }
                }
                match y {
                    Some(y) => x.iter_mut().zip(y).for_each(|(u, v)| *u = times(*u, *v)),
                    None => x.iter_mut().for_each(|u| *u = times(*u, *u)),
                }
            };
            match b {
                Some(b) => {
                    load(b, tb)?;
                    ta.par_chunks_mut(CHUNK)
                        .zip(tb.par_chunks(CHUNK))
                        .for_each(|(x, y)| pointwise(x, Some(y)));
                }
                None => ta.par_chunks_mut(CHUNK).for_each(|x| pointwise(x, None)),
            }
            inverse.apply(ta)?;
            if let Some(words) = same_type_ref::<L, $w>(&ta[..out.len()]) {
                // The inverse leaves canonical residues (`WordNtt`'s contract), which in
                // words of their own width are the elements as they are stored.
                debug_assert!(words.iter().all(|&w| w < field.p()));
                // SAFETY: the element is a repr(transparent) word, and every word
                // written is a canonical residue.
                let out = unsafe {
                    std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<$w>(), out.len())
                };
                out.par_chunks_mut(CHUNK)
                    .zip(words.par_chunks(CHUNK))
                    .for_each(|(o, w)| o.copy_from_slice(w));
                return Ok(());
            }
            out.par_chunks_mut(CHUNK)
                .zip(ta.par_chunks(CHUNK))
                .try_for_each(|(o, w)| -> Result<(), Error> {
                    for (o, w) in o.iter_mut().zip(w) {
                        *o = field.from_montgomery_raw(w.lower() as $w)?;
                    }
                    Ok(())
                })
        }
    };
}

cyclic_for!(cyclic32, Fp32, Fp32Elem, u32, residues32, |f: &Fp32| {
    Lanes32::new(f.p())
});
// Fp64's residues are modulo R = 2^64: never the u32 lanes.
cyclic_for!(cyclic64, Fp64, Fp64Elem, u64, residues64, |_: &Fp64| None);

impl Fast {
    /// The first `out.len()` coefficients of the cyclic product of n points of `a` and `b`
    /// (or of `a` with itself), for transforms built with forward orders (natural,
    /// bit-reversed) and inverse orders (bit-reversed, natural); `None` when `F` is not
    /// the word prime these transforms are for.
    pub(crate) fn cyclic<F: HostField>(
        &self,
        buffers: &Buffers,
        field: &F,
        a: &[F::Elem],
        b: Option<&[F::Elem]>,
        out: &mut [F::Elem],
    ) -> Option<Result<(), Error>> {
        let any = field as &dyn Any;
        if let Some(f) = any.downcast_ref::<Fp32>() {
            let a = same_type_ref::<F::Elem, Fp32Elem>(a)?;
            let b = b.map(same_type_ref::<F::Elem, Fp32Elem>);
            let out = same_type::<F::Elem, Fp32Elem>(out)?;
            return match (self, b) {
                (_, Some(None)) => None,
                (Fast::Narrow(fwd, inv), b) => {
                    let mut t = take(&buffers.narrow);
                    let done = cyclic32(f, (fwd, inv), a, b.flatten(), out, &mut t);
                    give(&buffers.narrow, t);
                    Some(done)
                }
                (Fast::Widened(fwd, inv), b) => {
                    let mut t = take(&buffers.wide);
                    let done = cyclic32(f, (fwd, inv), a, b.flatten(), out, &mut t);
                    give(&buffers.wide, t);
                    Some(done)
                }
                (Fast::Wide(..), _) => None,
            };
        }
        if let (Some(f), Fast::Wide(fwd, inv)) = (any.downcast_ref::<Fp64>(), self) {
            let a = same_type_ref::<F::Elem, Fp64Elem>(a)?;
            let b = match b.map(same_type_ref::<F::Elem, Fp64Elem>) {
                Some(None) => return None,
                b => b.flatten(),
            };
            let out = same_type::<F::Elem, Fp64Elem>(out)?;
            let mut t = take(&buffers.wide);
            let done = cyclic64(f, (fwd, inv), a, b, out, &mut t);
            give(&buffers.wide, t);
            return Some(done);
        }
        None
    }
}
