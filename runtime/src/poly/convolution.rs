//! Cyclic products of one size n: the products modulo x^n − 1 that every FFT-based
//! product of polynomials is made of.
//!
//! The forward transform reads a short polynomial (zero padding in its first pass's
//! gather, [`Io::short_input`]) and leaves its output in bit-reversed order; the inverse
//! takes it in that order, multiplies by the other operand's transform in its first pass
//! ([`Io::pointwise`]) and writes only the coefficients wanted ([`Io::short_output`]), in
//! natural order. A product thus moves no more memory than its three transforms (two for
//! a square), and no permutation pass runs.
//!
//! [`Io::short_input`]: fermat_codegen::plan::Io::short_input
//! [`Io::pointwise`]: fermat_codegen::plan::Io::pointwise
//! [`Io::short_output`]: fermat_codegen::plan::Io::short_output

use crate::cpu;
use crate::design::{self, any_field};
use crate::error::Error;
use crate::gpu::{
    Counters, Device, DeviceInput, Extent, Extents, GpuKernels, HandOff, Operand, Vectors,
};
use crate::host::HostField;
use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr};
use fermat_codegen::contract::Input;
use fermat_codegen::kernel::{twiddle_table, EmitOptions, MiddleProduct, TableLayout};
use fermat_codegen::plan::{CheckedPlan, Order};
use fermat_dsl::field::Roots;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The cyclic product of n points on one backend, planned once.
pub(crate) struct Convolution<F: HostField> {
    n: u64,
    /// Device words per element.
    words: usize,
    forward: CheckedPlan,
    inverse: CheckedPlan,
    roots: Roots<F>,
    engine: Engine<F>,
}

enum Engine<F: HostField> {
    /// The GPU: the plans' kernels.
    Gpu(Box<GpuConvolution<F::Word>>),
    /// The CPU, word primes: the word-prime NTT, and its buffers kept between products.
    Words(cpu::Fast, cpu::Buffers),
    /// The CPU, SRGFNs, up to [`cpu::FIELD_NTT_MAX`] points: an NTT on a table of twiddles
    /// in stages of radix 2k ([`cpu::FieldNtt`]).
    Field(cpu::FieldNtt<F>),
    /// The CPU, SRGFNs, longer: the plans themselves.
    Plans,
}

struct GpuConvolution<W> {
    forward: GpuKernels<W>,
    inverse: GpuKernels<W>,
    /// The fused product kernel, where both transforms are one pass each.
    product: Option<GpuKernels<W>>,
    /// The product by its middle, where both transforms are two passes each.
    middle: Option<Middle<W>>,
    work: Mutex<Work<W>>,
}

/// A product in four launches ([`fermat_codegen::kernel::emit_middle`]): each factor's
/// first forward pass (`head`), then the middle kernel and the last inverse pass (`tail`).
struct Middle<W> {
    head: GpuKernels<W>,
    tail: GpuKernels<W>,
}

/// The device buffers of calls: the transforms of both operands and a scratch buffer for
/// each of the two transforms that run side by side, as large as the largest batch so
/// far; the hand-off counters of each direction, of the fused product and of the second
/// operand's forward transform.
struct Work<W> {
    first: Option<CudaSlice<W>>,
    second: Option<CudaSlice<W>>,
    scratch: Option<CudaSlice<W>>,
    side_scratch: Option<CudaSlice<W>>,
    counters: [Counters; 4],
    /// The operand whose transform `second` holds, when a product of one part put it
    /// there: the product's ticket, the vector's device address and its extent.
    second_holds: Option<(Ticket, (u64, Extent))>,
}

/// The operands of a product by transforms: `b` `None` for a square, `kept` where `b`'s
/// transform is still held from the product before, `keep` where it is to be held for
/// the product after.
struct Factors<'a, 'b, W> {
    a: DeviceSource<'a, 'b, W>,
    b: Option<DeviceSource<'a, 'b, W>>,
    kept: bool,
    keep: bool,
}

/// What a product does with its second operand's transform (see
/// [`Convolution::cyclic_device`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reuse {
    /// Nothing: the product may take the middle kernel, which never writes the transform.
    Nothing,
    /// Keep it for the product after, which the returned [`Ticket`] names.
    Keep,
    /// Take the one the ticket names where it is still held, and keep it again.
    From(Ticket),
}

/// Names the transform of a product's second operand, for the product after it (see
/// [`Convolution::cyclic_device`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket(u64);

impl Ticket {
    /// A ticket no product has had before.
    fn new() -> Ticket {
        static ISSUED: AtomicU64 = AtomicU64::new(0);
        Ticket(ISSUED.fetch_add(1, Ordering::Relaxed))
    }
}

/// A polynomial operand on the device: a vector and where each transform of a batch finds
/// its part of it.
pub(crate) struct DeviceSource<'a, 'b, W> {
    pub(crate) data: &'a CudaView<'b, W>,
    pub(crate) extent: Extent,
}

impl<W> DeviceSource<'_, '_, W> {
    /// What identifies the operand's transform: the vector's address and the extent.
    fn key(&self, stream: &CudaStream) -> (u64, Extent) {
        let (address, _read) = self.data.device_ptr(stream);
        (address, self.extent)
    }
}

/// Where a product goes on the device.
pub(crate) struct DeviceDestination<'a, 'b, W> {
    pub(crate) data: &'a mut CudaViewMut<'b, W>,
    pub(crate) extent: Extent,
}

impl<F: HostField> Convolution<F> {
    /// Plans the cyclic product of `n` points over `field`, on `device` or on the CPU.
    pub(crate) fn new(field: &F, n: u64, device: Option<&Arc<Device>>) -> Result<Self, Error> {
        let any = any_field(field)?;
        let design = design::design(&any, n, &Default::default())?;
        let (forward, inverse) = design.convolution_plans()?;
        let (forward, inverse) = (CheckedPlan::new(forward)?, CheckedPlan::new(inverse)?);
        // The two plans may come from different formulas (`Design::leftover_first`).
        let log_table = forward.max_log_order().max(inverse.max_log_order());
        let roots = Roots::canonical(field, log_table, n)?;
        let engine = match device {
            Some(device) => {
                let generated = design::generate(
                    field,
                    &any,
                    &design,
                    &forward,
                    &inverse,
                    &roots,
                    &EmitOptions::default(),
                )?;
                let shape = fermat_codegen::cost::FieldShape::of(&any);
                let layout = TableLayout::of(&shape, &roots, EmitOptions::default().table_bytes);
                let table: Vec<F::Word> = twiddle_table(field, &shape, &roots, &layout)
                    .into_iter()
                    .map(F::word)
                    .collect();
                let middle_lists = generated.middle.as_ref().and_then(|m| {
                    let head = MiddleProduct::head(&generated.forward)?;
                    Some([vec![head], m.tail(&generated.inverse)?])
                });
                let fused = generated.product.is_some();
                let mut lists = vec![generated.forward.launches, generated.inverse.launches];
                lists.extend(generated.product.map(|p| vec![p.launch]));
                lists.extend(middle_lists.into_iter().flatten());
                let mut kernels =
                    GpuKernels::compile_all(device.clone(), &generated.source, lists, &table)?
                        .into_iter();
                let forward = kernels.next().expect("a forward launch list");
                let inverse = kernels.next().expect("an inverse launch list");
                let product = if fused { kernels.next() } else { None };
                let middle = kernels.next().zip(kernels.next());
                Engine::Gpu(Box::new(GpuConvolution {
                    forward,
                    inverse,
                    product,
                    middle: middle.map(|(head, tail)| Middle { head, tail }),
                    work: Mutex::new(Work {
                        first: None,
                        second: None,
                        scratch: None,
                        side_scratch: None,
                        counters: Default::default(),
                        second_holds: None,
                    }),
                }))
            }
            None => {
                let orders = (
                    (Order::Natural, Order::BitReversed),
                    (Order::BitReversed, Order::Natural),
                );
                match cpu::Fast::new(
                    field,
                    n,
                    &roots.power(field, 1),
                    log_table,
                    orders.0,
                    orders.1,
                    cpu::Isa::Auto,
                )? {
                    Some(fast) => Engine::Words(fast, cpu::Buffers::default()),
                    None if n <= cpu::FIELD_NTT_MAX => Engine::Field(cpu::FieldNtt::new(field, n)?),
                    None => Engine::Plans,
                }
            }
        };
        Ok(Convolution {
            n,
            words: field.words(),
            forward,
            inverse,
            roots,
            engine,
        })
    }

    /// The first `out.len()` (at most n) coefficients of the cyclic product of `a` and `b`
    /// (or of `a` with itself), each of at most n coefficients, on the CPU.
    pub(crate) fn cyclic_host(
        &self,
        field: &F,
        a: &[F::Elem],
        b: Option<&[F::Elem]>,
        out: &mut [F::Elem],
    ) -> Result<(), Error> {
        let n = self.n as usize;
        debug_assert!(a.len() <= n && b.is_none_or(|b| b.len() <= n) && out.len() <= n);
        match &self.engine {
            Engine::Words(fast, buffers) => {
                if let Some(done) = fast.cyclic(buffers, field, a, b, out) {
                    return done;
                }
            }
            Engine::Field(ntt) => {
                ntt.cyclic(field, a, b, out);
                return Ok(());
            }
            _ => {}
        }
        self.cyclic_by_plans(field, a, b, out);
        Ok(())
    }

    /// The table-driven NTT this CPU convolution runs, if it runs one (SRGFNs up to
    /// [`cpu::FIELD_NTT_MAX`] points): its spectra can be summed before one inverse.
    pub(crate) fn field_ntt(&self) -> Option<&cpu::FieldNtt<F>> {
        match &self.engine {
            Engine::Field(ntt) => Some(ntt),
            _ => None,
        }
    }

    /// [`cyclic_host`](Self::cyclic_host) by the plans' kernels on the CPU, whatever the
    /// engine: what the GPU runs, pass by pass.
    fn cyclic_by_plans(
        &self,
        field: &F,
        a: &[F::Elem],
        b: Option<&[F::Elem]>,
        out: &mut [F::Elem],
    ) {
        let n = self.n as usize;
        let transform = |x: &[F::Elem]| {
            let mut t = vec![field.zero(); n];
            cpu::run(
                field,
                &self.forward,
                &self.roots,
                Input::shared(x),
                &[],
                &mut t,
            );
            t
        };
        let ta = transform(a);
        let mut tb = match b {
            Some(b) => transform(b),
            None => ta.clone(),
        };
        cpu::run(
            field,
            &self.inverse,
            &self.roots,
            Input::Clobbered(&mut tb),
            &ta,
            out,
        );
    }

    /// The cyclic products of the `batch` parts of `a` with those of `b` (`b`'s extent at
    /// distance 0: one part, shared by the whole batch; `None`: each part of `a` with
    /// itself), queued on `stream`: part t of the destination holds the first coefficients
    /// of product t, as its extent says.
    ///
    /// A product of one part asked to keep its second operand's transform
    /// ([`Reuse::Keep`]) returns a [`Ticket`] for it. The caller that passes it to the
    /// next product ([`Reuse::From`]) vouches that the vector has not been written since;
    /// if that operand is the same vector and extent there, and no product on this
    /// convolution came between, its transform serves again (Newton's iteration
    /// multiplies by g twice per step). A product that keeps nothing takes the middle
    /// kernel where the convolution has one.
    pub(crate) fn cyclic_device(
        &self,
        stream: &Arc<CudaStream>,
        a: DeviceSource<'_, '_, F::Word>,
        b: Option<DeviceSource<'_, '_, F::Word>>,
        c: DeviceDestination<'_, '_, F::Word>,
        batch: usize,
        reuse: Reuse,
    ) -> Result<Option<Ticket>, Error> {
        let Engine::Gpu(gpu) = &self.engine else {
            return Err(Error::NotOnGpu);
        };
        let mut work = gpu.work.lock().unwrap_or_else(|e| e.into_inner());
        let work = &mut *work;
        // The operand whose transform `second` still holds goes second.
        let held = work
            .second_holds
            .filter(|(ticket, _)| batch == 1 && reuse == Reuse::From(*ticket))
            .map(|(_, key)| key);
        let (a, b, kept) = match b {
            Some(b) if held.is_some() && Some(a.key(stream)) == held => (b, Some(a), true),
            Some(b) => {
                let kept = held.is_some() && Some(b.key(stream)) == held;
                (a, Some(b), kept)
            }
            None => (a, None, false),
        };
        // A batch of products of factors of their own, or a single product: one fused
        // kernel, one block per product, where the transforms are one pass each. (A
        // transform of one pass is one block per part anyway: fused, a single product
        // saves two launches and its transforms' round trips through global memory.)
        if let (Some(fused), Some(b)) = (&gpu.product, &b) {
            if batch == 1 || b.extent.dist > 0 {
                work.second_holds = None;
                self.fused_device(fused, work, stream, (&a, b), c, batch)?;
                return Ok(None);
            }
        }
        let keep = reuse != Reuse::Nothing;
        let factors = Factors { a, b, kept, keep };
        self.transforms_device(gpu, work, stream, factors, c, batch)
    }

    /// [`cyclic_device`](Self::cyclic_device) by the fused product kernel.
    fn fused_device(
        &self,
        fused: &GpuKernels<F::Word>,
        work: &mut Work<F::Word>,
        stream: &Arc<CudaStream>,
        (a, b): (
            &DeviceSource<'_, '_, F::Word>,
            &DeviceSource<'_, '_, F::Word>,
        ),
        c: DeviceDestination<'_, '_, F::Word>,
        batch: usize,
    ) -> Result<(), Error> {
        let device = fused.device();
        if work.scratch.is_none() {
            work.scratch = Some(device.alloc::<F::Word>(1)?);
            if !Arc::ptr_eq(stream, device.stream()) {
                device.join(stream, device.stream())?;
            }
        }
        let scratch = work.scratch.as_mut().expect("allocated above");
        run(
            fused,
            stream,
            &mut work.counters[2],
            Vectors {
                input: DeviceInput::Shared(a.data),
                output: &mut c.data.slice_mut(..),
                scratch: &mut scratch.slice_mut(..),
                operand: Operand::Separate(b.data),
                extents: Extents {
                    source: a.extent,
                    destination: c.extent,
                    factor: b.extent,
                    ..Extents::whole(self.n)
                },
            },
            batch,
        )
    }

    /// Grows the buffers of a product of `batch` parts by transforms: the first operand's
    /// transforms and a scratch buffer; where there is a second operand, its `b_parts`
    /// transforms and, where they run `beside` the first's, a scratch buffer of their own.
    fn ensure_buffers(
        &self,
        gpu: &GpuConvolution<F::Word>,
        work: &mut Work<F::Word>,
        stream: &Arc<CudaStream>,
        (batch, b_parts): (usize, Option<usize>),
        beside: bool,
    ) -> Result<(), Error> {
        let device = gpu.forward.device();
        let words = self.n as usize * self.words;
        let mut allocated = false;
        let mut ensure = |slot: &mut Option<CudaSlice<F::Word>>, len: usize| -> Result<(), Error> {
            if slot.as_ref().is_none_or(|s| s.len() < len) {
                *slot = Some(device.alloc::<F::Word>(len)?);
                allocated = true;
            }
            Ok(())
        };
        ensure(&mut work.first, words * batch)?;
        ensure(&mut work.scratch, words * batch)?;
        if let Some(parts) = b_parts {
            ensure(&mut work.second, words * parts)?;
            if beside && gpu.forward.needs_scratch() {
                ensure(&mut work.side_scratch, words * parts)?;
            }
        }
        // Buffers are allocated on the device's stream: another stream waits for them.
        if allocated && !Arc::ptr_eq(stream, device.stream()) {
            device.join(stream, device.stream())?;
        }
        Ok(())
    }

    /// The forward transforms of `parts` parts of `source` into `output` by `kernels`
    /// (the whole transform, or its first pass where a middle kernel runs the rest), on
    /// `stream`.
    fn forward_device(
        &self,
        kernels: &GpuKernels<F::Word>,
        stream: &Arc<CudaStream>,
        counters: &mut Counters,
        scratch: &mut CudaSlice<F::Word>,
        (source, output): (&DeviceSource<'_, '_, F::Word>, &mut CudaSlice<F::Word>),
        parts: usize,
    ) -> Result<(), Error> {
        let words = self.n as usize * self.words;
        let need = if kernels.needs_scratch() {
            words * parts
        } else {
            1
        };
        run(
            kernels,
            stream,
            counters,
            Vectors {
                input: DeviceInput::Shared(source.data),
                output: &mut output.slice_mut(0..words * parts),
                scratch: &mut scratch.slice_mut(0..need),
                operand: Operand::None,
                extents: Extents {
                    source: source.extent,
                    ..Extents::whole(self.n)
                },
            },
            parts,
        )
    }

    /// [`cyclic_device`](Self::cyclic_device) by two forward transforms (one where the
    /// second operand's is `kept` from the product before, or a square's) and the inverse
    /// with the pointwise products — or, where the convolution has a middle kernel, by the
    /// first pass of each forward transform and the middle kernel and the inverse's last
    /// pass, which keep no transform for the product after.
    fn transforms_device(
        &self,
        gpu: &GpuConvolution<F::Word>,
        work: &mut Work<F::Word>,
        stream: &Arc<CudaStream>,
        Factors { a, b, kept, keep }: Factors<'_, '_, F::Word>,
        c: DeviceDestination<'_, '_, F::Word>,
        batch: usize,
    ) -> Result<Option<Ticket>, Error> {
        let device = gpu.forward.device().clone();
        let words = self.n as usize * self.words;
        let middle = gpu.middle.as_ref().filter(|_| !keep);
        let head = middle.map_or(&gpu.forward, |m| &m.head);
        // Parts of b: one for the whole batch, or one per product.
        let b_parts = match &b {
            Some(b) if b.extent.dist > 0 => batch,
            _ => 1,
        };
        // Two fresh operands: b's transform runs on the side stream beside a's (each a
        // launch of a few blocks at the sizes of a Newton step, which leave most of the
        // device idle), with a scratch buffer and counters of its own. On a stream other
        // than the device's, whose caller runs other work beside it, the two transforms
        // run one after the other.
        let beside = b.is_some() && !kept && Arc::ptr_eq(stream, device.stream());
        let parts = (batch, b.is_some().then_some(b_parts));
        self.ensure_buffers(gpu, work, stream, parts, beside)?;
        let Work {
            first,
            second,
            scratch,
            side_scratch,
            counters,
            second_holds,
        } = work;
        let first = first.as_mut().expect("allocated above");
        let scratch = scratch.as_mut().expect("allocated above");
        let whole = Extents::whole(self.n);
        let [forward_counters, inverse_counters, _, side_counters] = counters;
        // b's transform (unless kept from the product before): beside a's on the side
        // stream, or before it on this one; then a's.
        let side = match &b {
            Some(b) if !kept => {
                *second_holds = None;
                let output = (b, second.as_mut().expect("allocated above"));
                if beside {
                    let side = device.side_stream()?.clone();
                    // The side stream waits for what the operands and buffers wait for.
                    device.join(&side, stream)?;
                    let side_scratch = match side_scratch.as_mut() {
                        Some(s) => s,
                        None => &mut *scratch,
                    };
                    self.forward_device(head, &side, side_counters, side_scratch, output, b_parts)?;
                    Some(side)
                } else {
                    self.forward_device(head, stream, forward_counters, scratch, output, b_parts)?;
                    None
                }
            }
            _ => None,
        };
        self.forward_device(head, stream, forward_counters, scratch, (&a, first), batch)?;
        if let Some(side) = side {
            device.join(stream, &side)?;
        }
        if let (Some(b), false, 1, None) = (&b, kept, batch, middle) {
            *second_holds = Some((Ticket::new(), b.key(stream)));
        }
        // The inverse of the pointwise products (by the middle kernel, the products of
        // the last forward passes).
        let second_view;
        let operand = match &b {
            Some(_) => {
                second_view = second
                    .as_ref()
                    .expect("allocated above")
                    .slice(0..words * b_parts);
                Operand::Separate(&second_view)
            }
            None => Operand::Input,
        };
        run(
            middle.map_or(&gpu.inverse, |m| &m.tail),
            stream,
            inverse_counters,
            Vectors {
                input: DeviceInput::Clobbered(&mut first.slice_mut(0..words * batch)),
                output: &mut c.data.slice_mut(..),
                scratch: &mut scratch.slice_mut(0..words * batch),
                operand,
                extents: Extents {
                    destination: c.extent,
                    // One operand for the whole batch, or one per product.
                    op_dist: u64::from(b_parts > 1),
                    ..whole
                },
            },
            batch,
        )?;
        Ok(second_holds
            .filter(|_| b.is_some())
            .map(|(ticket, _)| ticket))
    }
}

/// Runs one direction's kernels with its hand-off counters.
fn run<W: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy>(
    kernels: &GpuKernels<W>,
    stream: &Arc<CudaStream>,
    counters: &mut Counters,
    vectors: Vectors<'_, '_, W>,
    batch: usize,
) -> Result<(), Error> {
    let (flags, epoch) = counters.next(kernels, stream, batch)?;
    let ran = kernels.run(
        stream,
        vectors,
        HandOff {
            counters: &mut flags.slice_mut(..),
            epoch,
            first_early: true,
        },
        batch,
    );
    if ran.is_err() {
        counters.invalidate();
    }
    Ok(ran?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_dsl::field::{Field, FieldSpec};
    use fermat_dsl::with_field;
    use rand::SeedableRng;

    /// The SRGFNs' short products run a table-driven NTT on the CPU; the plans' kernels,
    /// which the GPU runs, still run here on every size, and agree with it.
    #[test]
    fn the_field_ntt_and_the_plans_kernels_agree() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for spec in ["P2", "P3", "P4"] {
            let any = FieldSpec::parse(spec).unwrap().build().unwrap();
            with_field!(&any, f => {
                for n in [2u64, 16, 64, 512, cpu::FIELD_NTT_MAX] {
                    let convolution = Convolution::new(f, n, None).unwrap();
                    assert!(matches!(convolution.engine, Engine::Field(_)), "{spec}: {n}");
                    let n = n as usize;
                    let a: Vec<_> = (0..n).map(|_| f.random(&mut rng)).collect();
                    let b: Vec<_> = (0..n / 2 + 1).map(|_| f.random(&mut rng)).collect();
                    for b in [Some(&b[..]), None] {
                        let (mut by_ntt, mut by_plans) = (vec![f.zero(); n], vec![f.zero(); n]);
                        convolution.cyclic_host(f, &a, b, &mut by_ntt).unwrap();
                        convolution.cyclic_by_plans(f, &a, b, &mut by_plans);
                        assert!(by_ntt == by_plans, "{spec}: {n} points, square: {}", b.is_none());
                    }
                }
                let longer = Convolution::new(f, 2 * cpu::FIELD_NTT_MAX, None).unwrap();
                assert!(matches!(longer.engine, Engine::Plans), "{spec}: longer transforms");
            });
        }
    }
}
