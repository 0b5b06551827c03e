//! Transforms and products split over several devices: the derivation of
//! [`fermat_dsl::derive::derive_devices`] lowered onto G devices, each holding N/G
//! elements.
//!
//! A [`SplitPlan`] reads the stages of the derived formula and runs each on every device:
//! a local factor is a plan of N/G points ([`FftPlan`]) or a local stride permutation, an
//! exchange is an all-to-all between the devices, and the twiddle diagonal before an
//! exchange is carried past it into the pass after it, the twiddled DFT(G) of
//! [`fermat_codegen::split`]. The devices are either real GPUs of one host, whose
//! exchanges are NCCL point-to-point calls grouped into one all-to-all, one communicator
//! for all in this process ([`SplitDevices::Gpu`]), or G devices simulated on the CPU,
//! whose exchanges are memory permutations ([`SplitDevices::Cpu`]): the CPU runs the very
//! same stages, so that a machine without GPUs checks the lowering.
//!
//! With a cyclic output as well as a cyclic input, each device folds its block into G
//! rows of N/G² points ([`CyclicPass`]) and transforms them one by one, sending each to
//! its device while it transforms the next ([`Step::Rows`]): the exchange runs under the
//! local work instead of after it (`fermat bench --devices` times each step).
//!
//! ```
//! use fermat::dsl::Fp32;
//! use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
//! use fermat::{Backend, FftOptions, FftPlan};
//!
//! let f = Fp32::new(469762049)?;
//! let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(4), SplitOptions::default())?;
//! assert_eq!(plan.exchanges(), 1); // cyclic input, transposed output
//! let x: Vec<u32> = (0..1 << 10).collect();
//! let y = plan.forward(&x)?; // natural order in and out
//! let mut want = x.clone();
//! FftPlan::new(&f, 1 << 10, FftOptions { backend: Backend::Cpu, ..Default::default() })?
//!     .forward(&mut want)?;
//! assert_eq!(y, want);
//! assert_eq!(plan.inverse(&y)?, x);
//! # Ok::<(), fermat::Error>(())
//! ```

mod cpu;
mod gpu;
mod nccl;

use crate::fft::{Backend, FftOptions, FftPlan};
use crate::{Error, HostField};
use fermat_codegen::plan::Direction;
use fermat_codegen::split::{CyclicPass, SplitPass};
use fermat_dsl::derive::{derive_devices, DeviceSplit, DeviceStage, Options, Strategy};
use fermat_dsl::formula::Formula;
use std::sync::Mutex;

pub use fermat_dsl::derive::Distribution;

/// Which devices a split runs on; on the CPU, any number of simulated ones.
///
/// ```
/// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
///
/// let f = fermat::dsl::Fp32::new(469762049)?;
/// let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(4), SplitOptions::default())?;
/// assert_eq!(plan.devices().count(), 4);
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitDevices {
    /// G devices simulated on the CPU, each exchange a memory permutation.
    Cpu(usize),
    /// These GPUs of this host (distinct ordinals), exchanging through NCCL.
    Gpu(Vec<usize>),
}

impl SplitDevices {
    /// G, the number of devices.
    ///
    /// ```
    /// use fermat::split::SplitDevices;
    /// assert_eq!(SplitDevices::Gpu(vec![0, 1, 2, 3]).count(), 4);
    /// assert_eq!(SplitDevices::Cpu(8).count(), 8);
    /// ```
    pub fn count(&self) -> usize {
        match self {
            SplitDevices::Cpu(g) => *g,
            SplitDevices::Gpu(ordinals) => ordinals.len(),
        }
    }
}

/// The choices a split leaves open; `Default` takes a cyclic input and leaves the output
/// transposed (one exchange), with fermat's default factorisation of N/G points.
///
/// ```
/// use fermat::split::{Distribution, SplitOptions};
/// let six_step = SplitOptions {
///     input: Distribution::Blocks,
///     output: Distribution::Blocks,
///     ..Default::default()
/// };
/// assert_eq!(SplitOptions::default().input, Distribution::Cyclic);
/// # let _ = six_step;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitOptions {
    /// Where the forward transform's input lives: cyclic or blocks.
    pub input: Distribution,
    /// Where its output lives: transposed, blocks, or cyclic (with a cyclic input: one
    /// exchange, hidden under the local transforms; four buffers of N/G elements a device
    /// instead of three).
    pub output: Distribution,
    /// The strategy of the local transforms (default `ct`).
    pub strategy: Option<Strategy>,
    /// Their radix (default: the field's).
    pub radix: Option<u64>,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            input: Distribution::Cyclic,
            output: Distribution::Transposed,
            strategy: None,
            radix: None,
        }
    }
}

/// One step a device runs, the stages of the derivation lowered
/// ([`SplitPlan::steps`] has an example).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// L(M, G) on every device (the inverse's L(M, M/G) with `back`).
    Transpose {
        /// Whether it is the inverse permutation.
        back: bool,
    },
    /// The all-to-all exchange.
    Exchange,
    /// The local transform of M = N/G points.
    Local(Direction),
    /// The twiddled DFT(G) after an exchange ([`SplitPass`]): forward, inverse, or the
    /// inverse of a pointwise product.
    Butterfly(SplitPass),
    /// A pass of a split with a cyclic output ([`CyclicPass`]): the fold before the rows'
    /// transforms, the twiddled DFT(G) after them, or one of their inverses.
    Cyclic(CyclicPass),
    /// The G transforms of N/G² points of a split with a cyclic output, row e of device d
    /// sent to device e: forward, each row sent while the next one is transformed; inverse,
    /// each row transformed as it arrives.
    Rows(Direction),
}

/// Buffers each device holds: two for the steps to alternate between, one for the
/// operand of a product, and one the rows of a cyclic split are sent from or received
/// into.
const WORK: [usize; 2] = [0, 1];
const OPERAND: usize = 2;
const STAGE: usize = 3;

/// The devices of a plan, real or simulated.
enum Machine<F: HostField> {
    Cpu(Box<cpu::CpuMachine<F>>),
    Gpu(gpu::GpuMachine<F>),
}

impl<F: HostField> Machine<F> {
    fn step(&mut self, step: Step, from: usize, to: usize) -> Result<(), Error> {
        match self {
            Machine::Cpu(m) => m.step(step, from, to),
            Machine::Gpu(m) => m.step(step, from, to),
        }
    }

    fn load(&mut self, buffer: usize, blocks: &[Vec<F::Host>]) -> Result<(), Error> {
        match self {
            Machine::Cpu(m) => m.load(buffer, blocks),
            Machine::Gpu(m) => m.load(buffer, blocks),
        }
    }

    fn load_tiled(&mut self, buffer: usize, tile: &[F::Host]) -> Result<(), Error> {
        match self {
            Machine::Cpu(m) => m.load_tiled(buffer, tile),
            Machine::Gpu(m) => m.load_tiled(buffer, tile),
        }
    }

    fn read(&mut self, buffer: usize) -> Result<Vec<Vec<F::Host>>, Error> {
        match self {
            Machine::Cpu(m) => m.read(buffer),
            Machine::Gpu(m) => m.read(buffer),
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        match self {
            Machine::Cpu(m) => m.swap(a, b),
            Machine::Gpu(m) => m.swap(a, b),
        }
    }

    fn synchronize(&self) -> Result<(), Error> {
        match self {
            Machine::Cpu(_) => Ok(()),
            Machine::Gpu(m) => m.synchronize(),
        }
    }
}

/// A transform of N points over one field split over G devices, planned once and run
/// many times (see the [module](self) for an example).
pub struct SplitPlan<F: HostField> {
    field: F,
    split: DeviceSplit,
    forward: Vec<Step>,
    inverse: Vec<Step>,
    machine: Mutex<Machine<F>>,
    devices: SplitDevices,
}

impl<F: HostField> SplitPlan<F> {
    /// Plans the N-point transform over `field` on `devices` (G a power of two, N ≥ G²).
    ///
    /// Everything is checked before anything is allocated: N against the field's
    /// 2-adicity and the memory, G, the distributions, and that the GPUs' ordinals are
    /// distinct.
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let err = SplitPlan::new(&f, 16, SplitDevices::Cpu(8), SplitOptions::default()).unwrap_err();
    /// assert!(err.to_string().contains("N ≥ G² = 64"), "{err}");
    /// let err = SplitPlan::new(&f, 64, SplitDevices::Gpu(vec![0, 0]), SplitOptions::default()).unwrap_err();
    /// assert!(err.to_string().contains("GPU 0 is named twice"), "{err}");
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(
        field: &F,
        n: u64,
        devices: SplitDevices,
        options: SplitOptions,
    ) -> Result<Self, Error> {
        if let SplitDevices::Gpu(ordinals) = &devices {
            if let Some(twice) = ordinals
                .iter()
                .enumerate()
                .find(|(i, o)| ordinals[..*i].contains(o))
            {
                return Err(Error::DeviceTwice { ordinal: *twice.1 });
            }
        }
        let g = devices.count() as u64;
        let any = crate::design::any_field(field)?;
        let radix = options
            .radix
            .unwrap_or_else(|| fermat_codegen::design::default_radix(&any));
        let strategy = options.strategy.unwrap_or(Strategy::Ct);
        let split = derive_devices(
            &Formula::Dft(n),
            g,
            options.input,
            options.output,
            strategy,
            &Options::radix(radix),
        )?;
        // The simulated devices hold the whole vector three times on the host; GPUs hold
        // their blocks, which each local plan checks.
        if let SplitDevices::Cpu(_) = devices {
            crate::memory::check_transform(field, n, 3)?;
        }
        let forward = lower(&split.stages());
        let inverse = invert(&forward);
        // A cyclic output transforms rows of N/G² points, any other split blocks of N/G.
        let points = match split.output {
            Distribution::Cyclic => n / g / g,
            _ => n / g,
        };
        let local = |backend| {
            FftPlan::new(
                field,
                points,
                FftOptions {
                    backend,
                    strategy: Some(strategy),
                    radix: Some(radix),
                    ..Default::default()
                },
            )
        };
        let machine = match &devices {
            SplitDevices::Cpu(g) => Machine::Cpu(Box::new(cpu::CpuMachine::new(
                field,
                n,
                *g,
                local(Backend::Cpu)?,
                split.output == Distribution::Cyclic,
            )?)),
            SplitDevices::Gpu(ordinals) => {
                let plans = ordinals
                    .iter()
                    .map(|&o| local(Backend::Gpu(o)))
                    .collect::<Result<Vec<_>, _>>()?;
                let layout = match split.output {
                    Distribution::Cyclic => gpu::Layout::Rows,
                    _ => gpu::Layout::Whole,
                };
                Machine::Gpu(gpu::GpuMachine::new(field, &any, n, plans, layout)?)
            }
        };
        Ok(SplitPlan {
            field: field.clone(),
            split,
            forward,
            inverse,
            machine: Mutex::new(machine),
            devices,
        })
    }

    /// N.
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 256, SplitDevices::Cpu(4), SplitOptions::default())?;
    /// assert_eq!((plan.n(), plan.devices().count(), plan.split().local_size()), (256, 4, 64));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn n(&self) -> u64 {
        self.split.n
    }

    /// The devices it runs on (see [`n`](Self::n)).
    pub fn devices(&self) -> &SplitDevices {
        &self.devices
    }

    /// The derivation it runs (see [`n`](Self::n)).
    pub fn split(&self) -> &DeviceSplit {
        &self.split
    }

    /// The steps each device runs in `direction`, first to last.
    ///
    /// ```
    /// use fermat::codegen::split::SplitPass;
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan, Step};
    /// use fermat::Direction;
    ///
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(2), SplitOptions::default())?;
    /// assert_eq!(
    ///     plan.steps(Direction::Inverse),
    ///     [Step::Butterfly(SplitPass::Inverse), Step::Exchange, Step::Local(Direction::Inverse)]
    /// );
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn steps(&self, direction: Direction) -> &[Step] {
        match direction {
            Direction::Forward => &self.forward,
            Direction::Inverse => &self.inverse,
        }
    }

    /// The exchanges of one forward transform (the [module](self) has an example).
    pub fn exchanges(&self) -> usize {
        self.split.exchanges()
    }

    /// The transform of `x` (N elements, natural order), returned in natural order: the
    /// input is distributed as the plan's input distribution says, and the output
    /// gathered from its output distribution (the [module](self) has an example).
    pub fn forward(&self, x: &[F::Host]) -> Result<Vec<F::Host>, Error> {
        self.run_host(Direction::Forward, x)
    }

    /// The inverse transform (at ω^(−1), scaled by 1/N) of `y`, natural order in and out:
    /// the forward's stages backwards, from its output distribution to its input one (the
    /// [module](self) has an example).
    pub fn inverse(&self, y: &[F::Host]) -> Result<Vec<F::Host>, Error> {
        self.run_host(Direction::Inverse, y)
    }

    fn run_host(&self, direction: Direction, v: &[F::Host]) -> Result<Vec<F::Host>, Error> {
        let (from, to) = match direction {
            Direction::Forward => (self.split.input, self.split.output),
            Direction::Inverse => (self.split.output, self.split.input),
        };
        self.check_len("the vector", v.len())?;
        let mut machine = self.lock();
        machine.load(WORK[0], &self.scatter(v, from)?)?;
        let at = run(&mut machine, self.steps(direction), WORK[0])?;
        let blocks = machine.read(at)?;
        Ok(self.gather(&blocks, to))
    }

    /// The cyclic product of `a` and `b` modulo x^N − 1 (each of at most N coefficients;
    /// the product of polynomials when len a + len b − 1 ≤ N): both forward transforms,
    /// the pointwise product folded into the inverse's first pass. The plan's output must
    /// be transposed or cyclic, so that no exchange stands between the transforms and the
    /// product.
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 64, SplitDevices::Cpu(2), SplitOptions::default())?;
    /// // (1 + x)(1 − x) = 1 − x²
    /// let c = plan.mul(&[1, 1], &[1, 469762048])?;
    /// assert_eq!(c[..3], [1, 0, 469762048]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul(&self, a: &[F::Host], b: &[F::Host]) -> Result<Vec<F::Host>, Error> {
        if self.split.output == Distribution::Blocks {
            return Err(Error::SplitProduct {
                output: self.split.output.name(),
            });
        }
        let n = self.n() as usize;
        let zero = self.field.to_host(&self.field.zero());
        let padded = |p: &[F::Host], what| -> Result<Vec<F::Host>, Error> {
            if p.len() > n {
                return Err(Error::SplitLength {
                    what,
                    len: p.len(),
                    n: self.n(),
                });
            }
            let mut v = p.to_vec();
            v.resize(n, zero);
            Ok(v)
        };
        let (a, b) = (padded(a, "a")?, padded(b, "b")?);
        let input = self.split.input;
        let mut machine = self.lock();
        machine.load(WORK[0], &self.scatter(&b, input)?)?;
        let at = run(&mut machine, &self.forward, WORK[0])?;
        machine.swap(at, OPERAND);
        machine.load(WORK[0], &self.scatter(&a, input)?)?;
        let at = run(&mut machine, &self.forward, WORK[0])?;
        let product: Vec<Step> = self
            .inverse
            .iter()
            .map(|&s| match s {
                Step::Butterfly(SplitPass::Inverse) => Step::Butterfly(SplitPass::Product),
                Step::Cyclic(CyclicPass::Unbutterfly) => Step::Cyclic(CyclicPass::Product),
                other => other,
            })
            .collect();
        let at = run(&mut machine, &product, at)?;
        let blocks = machine.read(at)?;
        Ok(self.gather(&blocks, input))
    }

    /// Distributes `v` over the devices (each element checked).
    fn scatter(&self, v: &[F::Host], how: Distribution) -> Result<Vec<Vec<F::Host>>, Error> {
        let (n, g) = (self.n(), self.split.devices);
        let zero = self.field.to_host(&self.field.zero());
        let mut blocks = vec![vec![zero; (n / g) as usize]; g as usize];
        for (i, x) in v.iter().enumerate() {
            self.field.to_elem(x)?;
            let (d, at) = how.place(i as u64, n, g);
            blocks[d as usize][at as usize] = *x;
        }
        Ok(blocks)
    }

    fn gather(&self, blocks: &[Vec<F::Host>], how: Distribution) -> Vec<F::Host> {
        let (n, g) = (self.n(), self.split.devices);
        (0..n)
            .map(|i| {
                let (d, at) = how.place(i, n, g);
                blocks[d as usize][at as usize]
            })
            .collect()
    }

    fn check_len(&self, what: &'static str, len: usize) -> Result<(), Error> {
        if len as u64 != self.n() {
            return Err(Error::SplitLength {
                what,
                len,
                n: self.n(),
            });
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Machine<F>> {
        self.machine.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Distributes `x` onto the devices as the forward transform's input, for
    /// [`forward_resident`](Self::forward_resident) to run again and again.
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(2), SplitOptions::default())?;
    /// plan.load_resident(&vec![1; 1 << 10])?;
    /// plan.forward_resident()?; // the data stays on the devices
    /// assert!(plan.load_resident(&[1, 2, 3]).is_err()); // not N elements
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn load_resident(&self, x: &[F::Host]) -> Result<(), Error> {
        self.check_len("the vector", x.len())?;
        let blocks = self.scatter(x, self.split.input)?;
        self.lock().load(WORK[0], &blocks)
    }

    /// Fills every device's block of the forward transform's input with copies of `tile`
    /// (its length a power of two up to N/G): inputs of transforms too large to build on
    /// the host, for [`forward_resident`](Self::forward_resident).
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 1 << 12, SplitDevices::Cpu(2), SplitOptions::default())?;
    /// plan.load_resident_tiled(&[1, 2, 3, 4])?;
    /// plan.forward_resident()?;
    /// assert!(plan.load_resident_tiled(&[1, 2, 3]).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn load_resident_tiled(&self, tile: &[F::Host]) -> Result<(), Error> {
        let m = self.split.local_size();
        let t = tile.len() as u64;
        if t == 0 || !t.is_power_of_two() || t > m {
            return Err(Error::SplitLength {
                what: "the tile",
                len: tile.len(),
                n: m,
            });
        }
        for x in tile {
            self.field.to_elem(x)?;
        }
        self.lock().load_tiled(WORK[0], tile)
    }

    /// Runs the forward transform on what the devices hold and waits for it: the data
    /// never leaves them (what `fermat bench --devices` times). Each run starts from the
    /// previous one's output, which the devices take as their next input
    /// ([`load_resident`](Self::load_resident) has an example).
    pub fn forward_resident(&self) -> Result<(), Error> {
        let mut machine = self.lock();
        let at = run(&mut machine, &self.forward, WORK[0])?;
        if at != WORK[0] {
            machine.swap(at, WORK[0]);
        }
        machine.synchronize()
    }

    /// What the devices hold, gathered from the forward transform's output distribution
    /// into natural order: the output of the last [`forward_resident`](Self::forward_resident).
    ///
    /// ```
    /// use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let cyclic = SplitOptions { output: Distribution::Cyclic, ..Default::default() };
    /// let plan = SplitPlan::new(&f, 64, SplitDevices::Cpu(2), cyclic)?;
    /// plan.load_resident_tiled(&[7])?;
    /// plan.forward_resident()?;
    /// // The transform of a constant is N times it at 0 and zero elsewhere.
    /// assert_eq!(plan.read_resident()?[..2], [448, 0]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn read_resident(&self) -> Result<Vec<F::Host>, Error> {
        let blocks = self.lock().read(WORK[0])?;
        Ok(self.gather(&blocks, self.split.output))
    }

    /// The time of each step of one forward transform of what the devices hold, each run
    /// alone and waited for: where a split spends its time (a step that overlaps an
    /// exchange with computation, [`Step::Rows`], keeps its overlap inside). Like
    /// [`forward_resident`](Self::forward_resident), the output is the next input.
    ///
    /// ```
    /// use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan, Step};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let cyclic = SplitOptions { output: Distribution::Cyclic, ..Default::default() };
    /// let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(2), cyclic)?;
    /// plan.load_resident_tiled(&[1, 2, 3, 4])?;
    /// let steps = plan.time_steps()?;
    /// assert_eq!(steps.len(), 3);
    /// assert!(matches!(steps[1].0, Step::Rows(_)));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn time_steps(&self) -> Result<Vec<(Step, std::time::Duration)>, Error> {
        let mut machine = self.lock();
        machine.synchronize()?;
        let mut at = WORK[0];
        let mut times = Vec::with_capacity(self.forward.len());
        for &step in &self.forward {
            let next = if at == WORK[0] { WORK[1] } else { WORK[0] };
            let start = std::time::Instant::now();
            machine.step(step, at, next)?;
            machine.synchronize()?;
            times.push((step, start.elapsed()));
            at = next;
        }
        if at != WORK[0] {
            machine.swap(at, WORK[0]);
        }
        Ok(times)
    }

    /// The time of one all-to-all exchange of the devices' whole vectors, after one
    /// untimed exchange; with `bytes`, how many bytes each device sent to the others.
    ///
    /// ```
    /// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
    /// let f = fermat::dsl::Fp32::new(469762049)?;
    /// let plan = SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(2), SplitOptions::default())?;
    /// let (_time, bytes) = plan.time_exchange()?;
    /// assert_eq!(bytes, 1024); // half of each device's 512 words of 4 bytes
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn time_exchange(&self) -> Result<(std::time::Duration, u64), Error> {
        let mut machine = self.lock();
        machine.step(Step::Exchange, WORK[0], WORK[1])?;
        machine.synchronize()?;
        let start = std::time::Instant::now();
        machine.step(Step::Exchange, WORK[0], WORK[1])?;
        machine.synchronize()?;
        let g = self.split.devices;
        let bytes = self.n() / g / g * (g - 1) * element_bytes(&self.field);
        Ok((start.elapsed(), bytes))
    }
}

/// The plan's size, field, devices and distributions.
///
/// ```
/// use fermat::split::{SplitDevices, SplitOptions, SplitPlan};
/// let f = fermat::dsl::Fp32::new(469762049)?;
/// let plan = SplitPlan::new(&f, 64, SplitDevices::Cpu(2), SplitOptions::default())?;
/// assert!(format!("{plan:?}").starts_with("SplitPlan { field: \"469762049\", n: 64, devices: Cpu(2)"));
/// # Ok::<(), fermat::Error>(())
/// ```
impl<F: HostField> std::fmt::Debug for SplitPlan<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitPlan")
            .field("field", &self.field.name())
            .field("n", &self.split.n)
            .field("devices", &self.devices)
            .field("input", &self.split.input)
            .field("output", &self.split.output)
            .field("exchanges", &self.exchanges())
            .finish_non_exhaustive()
    }
}

/// Runs `steps`, the first reading `start`, each writing the other work buffer; the
/// buffer the last one wrote.
fn run<F: HostField>(
    machine: &mut Machine<F>,
    steps: &[Step],
    start: usize,
) -> Result<usize, Error> {
    let mut at = start;
    for &step in steps {
        let next = if at == WORK[0] { WORK[1] } else { WORK[0] };
        machine.step(step, at, next)?;
        at = next;
    }
    Ok(at)
}

/// The bytes of one element of `field` on a device.
fn element_bytes<F: HostField>(field: &F) -> u64 {
    (field.words() * std::mem::size_of::<F::Word>()) as u64
}

/// The passes of a cyclic output with tables of their own, in the order
/// [`butterfly_tables`] makes them.
const CYCLIC_TABLES: [CyclicPass; 4] = [
    CyclicPass::Fold,
    CyclicPass::Unfold,
    CyclicPass::Butterfly,
    CyclicPass::Unbutterfly,
];

/// The tables of device c's butterfly steps for N points over G devices (`at` = (N, G,
/// c)), their low tables of `block` rows: [`SplitPass::Forward`]'s and
/// [`SplitPass::Inverse`]'s, or with a `cyclic` output those of [`CYCLIC_TABLES`];
/// [`table_index`] says which a step reads.
fn butterfly_tables<F: HostField>(
    field: &F,
    omega: &F::Elem,
    at: (u64, u64, u64),
    block: u64,
    cyclic: bool,
) -> Vec<Vec<F::Elem>> {
    if cyclic {
        CYCLIC_TABLES
            .iter()
            .map(|pass| pass.table(field, omega, at, block))
            .collect()
    } else {
        [SplitPass::Forward, SplitPass::Inverse]
            .iter()
            .map(|pass| pass.table(field, omega, at, block))
            .collect()
    }
}

/// Which of [`butterfly_tables`] a butterfly step reads (a product, the inverse's), and
/// the kernel that runs it.
fn table_index(step: Step) -> (SplitPass, usize) {
    match step {
        Step::Butterfly(pass) => (pass, usize::from(pass != SplitPass::Forward)),
        Step::Cyclic(CyclicPass::Product) => (SplitPass::Product, 3),
        Step::Cyclic(pass) => (
            pass.kernel_pass(),
            CYCLIC_TABLES
                .iter()
                .position(|&p| p == pass)
                .expect("every other cyclic pass has a table"),
        ),
        other => unreachable!("{other:?} reads no table"),
    }
}

/// The derivation's stages as steps: a local stride permutation is a transpose, any other
/// local factor before the twiddles is the local transform, and the twiddles, the
/// exchange after them and the local DFT(G) ⊗ I(M/G) after that become the exchange and
/// the twiddled butterfly (the diagonal commutes with the exchange, its index taken after
/// it).
///
/// A cyclic output (the exchanged twiddles) runs three steps: the fold (DFT(G) ⊗ I(s),
/// then D(G, s)), the rows (I(G) ⊗ DFT(s) and the exchange) and the butterfly (the
/// exchanged twiddles, then DFT(G) ⊗ I(s)). With s = 1 the derivation leaves out the
/// fold's twiddles and the rows' transforms, identities both; the steps stay the same.
fn lower(stages: &[DeviceStage]) -> Vec<Step> {
    use DeviceStage::{Exchange, Local, Twiddle, TwiddleExchanged};
    if stages.contains(&TwiddleExchanged) {
        assert!(
            matches!(stages, [Local(_), .., Exchange, TwiddleExchanged, Local(_)]),
            "a cyclic output's stages: {stages:?}"
        );
        return vec![
            Step::Cyclic(CyclicPass::Fold),
            Step::Rows(Direction::Forward),
            Step::Cyclic(CyclicPass::Butterfly),
        ];
    }
    let mut steps = Vec::new();
    let mut rest = stages.iter();
    while let Some(stage) = rest.next() {
        match stage {
            Local(Formula::Stride { .. }) => steps.push(Step::Transpose { back: false }),
            Local(_) => steps.push(Step::Local(Direction::Forward)),
            Exchange => steps.push(Step::Exchange),
            Twiddle => {
                assert_eq!(
                    rest.next(),
                    Some(&Exchange),
                    "an exchange follows the twiddles"
                );
                assert!(
                    matches!(rest.next(), Some(Local(_))),
                    "the butterflies follow the exchange"
                );
                steps.extend([Step::Exchange, Step::Butterfly(SplitPass::Forward)]);
            }
            TwiddleExchanged => unreachable!("a cyclic output returned above"),
        }
    }
    steps
}

/// The inverse's steps: the forward's backwards, each inverted.
fn invert(forward: &[Step]) -> Vec<Step> {
    forward
        .iter()
        .rev()
        .map(|&s| match s {
            Step::Transpose { back } => Step::Transpose { back: !back },
            Step::Exchange => Step::Exchange,
            Step::Local(_) => Step::Local(Direction::Inverse),
            Step::Butterfly(_) => Step::Butterfly(SplitPass::Inverse),
            Step::Rows(_) => Step::Rows(Direction::Inverse),
            Step::Cyclic(CyclicPass::Fold) => Step::Cyclic(CyclicPass::Unfold),
            Step::Cyclic(CyclicPass::Butterfly) => Step::Cyclic(CyclicPass::Unbutterfly),
            Step::Cyclic(other) => unreachable!("{other:?} runs only in an inverse"),
        })
        .collect()
}
