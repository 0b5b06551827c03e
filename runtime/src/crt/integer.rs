//! Products of polynomials with integer coefficients by the multi-modular route: project
//! the coefficients onto enough NTT primes, multiply modulo each prime with the word-prime
//! products of [`PolyRing`], and recombine the residues (§7 of the 2017 paper, "the CRT
//! alternative"; FLINT's `fmpz_poly_mul` takes the same route on the CPU).

use super::device::{CrtKernels, DeviceIntegers, DeviceTables, ModularTables, Output};
use super::primes::{PrimeSet, Width};
use super::residues::{project, recombine, Integers};
use super::rings::{Form, Rings};
use super::schoolbook::{schoolbook_integers, schoolbook_is_cheaper};
use crate::fft::Backend;
use crate::poly::{PolyRing, Shape};
use crate::Error;
use fermat_codegen::crt::{ResidueWord, MAX_PRIMES};
use fermat_dsl::field::{Fp32, Fp64};
use num_bigint::BigInt;
use num_traits::Zero;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The smallest 2-adicity the route asks of its primes: one family of primes serves every
/// length up to 2^FAMILY_ADICITY, so that the rings (and on the GPU their compiled
/// kernels) are shared between lengths.
const FAMILY_ADICITY: u32 = 20;

/// The device tables of a prime set (width, adicity, primes) for operands of some words.
type TablesKey = (Width, u32, usize, usize);

/// How a product of integer polynomials is computed: the primes and why.
///
/// ```
/// use fermat::crt::IntPolyRing;
/// use fermat::Backend;
///
/// let ring = IntPolyRing::new(Backend::Cpu)?;
/// let plan = ring.plan(1 << 16, 1 << 16, 1000, 1000)?;
/// assert!(plan.primes.product().bits() > 2017);
/// println!("{plan}");
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CrtPlan {
    /// The primes.
    pub primes: Arc<PrimeSet>,
    /// Bits of the largest coefficient the product can have, sign included.
    pub bits: u64,
    /// Coefficients of the product.
    pub len: usize,
}

impl std::fmt::Display for CrtPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CRT over {} primes of {} bits ≡ 1 mod 2^{} (their product has {} bits; coefficients need {})",
            self.primes.len(),
            self.primes.width().bits(),
            self.primes.adicity(),
            self.primes.product().bits(),
            self.bits
        )
    }
}

/// Products in Z\[x\]: polynomials with signed integer coefficients of any size, exact.
///
/// The product runs modulo enough NTT primes for its largest possible coefficient, each
/// on the ring's backend: 62-bit primes (see [`Width`]); on a GPU the projection and the
/// recombination run there too, and the residues stay on the device.
///
/// ```
/// use fermat::crt::IntPolyRing;
/// use fermat::num_bigint::BigInt;
/// use fermat::Backend;
///
/// let ring = IntPolyRing::new(Backend::Auto)?;
/// let big = BigInt::from(1) << 200u32;
/// let a = vec![BigInt::from(-1), big.clone()];          // 2^200·x − 1
/// let b = vec![BigInt::from(1), big.clone()];           // 2^200·x + 1
/// let c = ring.mul(&a, &b)?;
/// assert_eq!(c, vec![BigInt::from(-1), BigInt::from(0), &big * &big]);
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct IntPolyRing {
    width: Width,
    parallel: bool,
    /// The GPU the projection and recombination run on, with their kernels once built.
    device: Option<Arc<crate::gpu::Device>>,
    running: crate::Running,
    /// The kernels of each residue width, compiled on first use.
    kernels: Mutex<HashMap<ResidueWord, Arc<CrtKernels>>>,
    /// The device tables of each prime set and operand width.
    tables: Mutex<HashMap<TablesKey, Arc<DeviceTables>>>,
    narrow: Rings<Fp32>,
    wide: Rings<Fp64>,
    sets: Mutex<HashMap<(Width, u32, u64), Arc<PrimeSet>>>,
}

impl IntPolyRing {
    /// The ring on `backend` (the GPU's errors are the same as [`PolyRing::new`]'s; with
    /// [`Backend::Auto`] and no GPU, the CPU).
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Width};
    /// use fermat::{Backend, Running};
    ///
    /// let ring = IntPolyRing::new(Backend::Cpu)?;
    /// assert!(matches!(ring.running(), Running::Cpu { .. }));
    /// assert_eq!(ring.width(), Width::Bits62);
    /// let auto = IntPolyRing::new(Backend::Auto)?; // the GPU if there is one
    /// println!("{}", auto.running());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(backend: Backend) -> Result<IntPolyRing, Error> {
        // Which backend Auto resolves to decides where the route runs.
        let probe = PolyRing::new(&Fp32::new(2013265921)?, backend)?;
        let device = probe.device().ok().cloned();
        let on_gpu = device.is_some();
        let backend = if on_gpu { backend } else { Backend::Cpu };
        Ok(IntPolyRing {
            // 62-bit primes on both backends: on the GPU the products over Z of 1000-bit
            // coefficients by 31-bit primes took 1.8× as long (bench/RESULTS.md, "Products
            // modulo m, round 2"); `with_width` takes the other, as `ModPolyRing` does
            // for the moduli its 32-bit explicit CRT reduces by.
            width: Width::Bits62,
            parallel: !on_gpu,
            device,
            running: probe.running().clone(),
            kernels: Mutex::new(HashMap::new()),
            tables: Mutex::new(HashMap::new()),
            narrow: Rings::new(backend),
            wide: Rings::new(backend),
            sets: Mutex::new(HashMap::new()),
        })
    }

    /// The ring with primes of another width.
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Width};
    /// use fermat::num_bigint::BigInt;
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Cpu)?.with_width(Width::Bits31);
    /// assert_eq!(ring.width(), Width::Bits31);
    /// println!("{}", ring.running()); // CPU (… threads)
    /// let c = ring.mul(&[BigInt::from(1) << 100u32], &[BigInt::from(-3)])?;
    /// assert_eq!(c, [-(BigInt::from(3) << 100u32)]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn with_width(mut self, width: Width) -> IntPolyRing {
        self.width = width;
        self
    }

    /// Where the products run ([`with_width`](Self::with_width) has an example).
    pub fn running(&self) -> &crate::Running {
        &self.running
    }

    /// The primes' width ([`with_width`](Self::with_width) has an example).
    pub fn width(&self) -> Width {
        self.width
    }

    /// The plan of a product of `len_a` by `len_b` coefficients of at most `bits_a` and
    /// `bits_b` bits (magnitudes).
    ///
    /// Errors: [`Error::CrtPrimes`] when the width has too few primes for the length and
    /// the coefficients.
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Width};
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Cpu)?;
    /// let plan = ring.plan(1000, 24, 100, 50)?;
    /// // 1023 coefficients, each a sum of at most 24 products below 2^150: 156 bits signed.
    /// assert_eq!((plan.len, plan.bits), (1023, 156));
    /// assert!(plan.primes.product().bits() > 156);
    /// assert_eq!((plan.primes.width(), plan.primes.len()), (Width::Bits62, 3));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn plan(
        &self,
        len_a: usize,
        len_b: usize,
        bits_a: u64,
        bits_b: u64,
    ) -> Result<CrtPlan, Error> {
        self.plan_of_width(self.width, (len_a, len_b), (bits_a, bits_b))
    }

    /// [`plan`](Self::plan) with primes of `width`.
    pub(super) fn plan_of_width(
        &self,
        width: Width,
        (len_a, len_b): (usize, usize),
        (bits_a, bits_b): (u64, u64),
    ) -> Result<CrtPlan, Error> {
        let len = (len_a + len_b).saturating_sub(1);
        let bits = product_bits((len_a, len_b), (bits_a, bits_b));
        let adicity = (len.max(2) as u64)
            .next_power_of_two()
            .trailing_zeros()
            .max(FAMILY_ADICITY);
        let key = (width, adicity, bits);
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        let primes = match sets.get(&key) {
            Some(s) => s.clone(),
            None => {
                let s = Arc::new(PrimeSet::for_bits(width, adicity, bits)?);
                sets.insert(key, s.clone());
                s
            }
        };
        Ok(CrtPlan { primes, bits, len })
    }

    /// The product a·b, normalised (no trailing zeros; the zero polynomial is empty): by
    /// the route, or for short products of huge coefficients by sums of products of big
    /// integers where that costs less ([`takes_schoolbook`](Self::takes_schoolbook)).
    ///
    /// Errors: [`Error::CrtPrimes`] (see [`IntPolyRing::plan`]), and the errors of the
    /// word-prime products ([`PolyRing::mul`]).
    ///
    /// ```
    /// use fermat::crt::IntPolyRing;
    /// use fermat::num_bigint::BigInt;
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Cpu)?;
    /// let a = [1, 1, 0].map(BigInt::from); // x + 1, a trailing zero
    /// let b = [-1, 1].map(BigInt::from); // x − 1
    /// assert_eq!(ring.mul(&a, &b)?, [-1, 0, 1].map(BigInt::from));
    /// assert!(ring.mul(&a, &[BigInt::from(0)])?.is_empty());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul(&self, a: &[BigInt], b: &[BigInt]) -> Result<Vec<BigInt>, Error> {
        let a = Integers::from_bigints(trim(a));
        let b = Integers::from_bigints(trim(b));
        let mut c = self.mul_integers(&a, &b, true)?.to_bigints();
        while c.last().is_some_and(Zero::is_zero) {
            c.pop();
        }
        Ok(c)
    }

    /// The product of `a` and `b` as [`Integers`], `signed` or (both operands nonnegative)
    /// not: unsigned products need no sign bit.
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Integers};
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Cpu)?;
    /// // (1 + 2^64 x)^2 with words in, words out: 1 + 2^65 x + 2^128 x^2.
    /// let a = Integers::from_words(2, vec![1, 0, 0, 1])?;
    /// let c = ring.mul_integers(&a, &a, false)?;
    /// assert_eq!(c.len(), 3);
    /// assert_eq!(&c.magnitude(1)[..2], [0, 2]);
    /// assert_eq!(&c.magnitude(2)[..3], [0, 0, 1]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_integers(
        &self,
        a: &Integers,
        b: &Integers,
        signed: bool,
    ) -> Result<Integers, Error> {
        if a.is_empty() || b.is_empty() {
            return Ok(Integers::from_bigints(&[]));
        }
        let (bits_a, bits_b) = (bits_of(a), bits_of(b));
        if self.takes_schoolbook(a.len(), b.len(), bits_a, bits_b) {
            let c = schoolbook_integers(&a.to_bigints(), &b.to_bigints());
            return Ok(Integers::from_bigints(&c));
        }
        let mut plan = self.plan(a.len(), b.len(), bits_a, bits_b)?;
        if !signed {
            plan.bits -= 1;
        }
        self.mul_planned(&plan, a, b, signed)
    }

    /// Whether [`mul`](Self::mul) multiplies operands of `len_a` and `len_b` coefficients
    /// of at most `bits_a` and `bits_b` bits by sums of products of big integers instead
    /// of the route: where the route would run on the host and cost more, its
    /// recombination alone about s²/2 word products a coefficient for s primes (on a GPU
    /// the route runs on the device up to the primes its recombination takes).
    ///
    /// ```
    /// use fermat::crt::IntPolyRing;
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Cpu)?;
    /// // Three coefficients of 10^6 bits by three: some 33,000 primes, so the schoolbook;
    /// assert!(ring.takes_schoolbook(3, 3, 1_000_000, 1_000_000));
    /// // 2^16 by 2^16 coefficients of 1000 bits: 34 primes, so the route.
    /// assert!(!ring.takes_schoolbook(1 << 16, 1 << 16, 1000, 1000));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn takes_schoolbook(&self, len_a: usize, len_b: usize, bits_a: u64, bits_b: u64) -> bool {
        // The primes a plan would take, within one (each is above 2^(bits − 1)), found
        // without looking for them: 3.2 million for coefficients of 10^8 bits.
        let bits = product_bits((len_a, len_b), (bits_a, bits_b));
        let primes = bits.div_ceil(u64::from(self.width.bits()) - 1);
        !self.runs_on_device(primes)
            && schoolbook_is_cheaper((len_a, len_b), bits_a.max(bits_b), primes)
    }

    /// Whether the route by that many primes runs on the device: on a GPU, up to the
    /// primes its recombination takes.
    fn runs_on_device(&self, primes: u64) -> bool {
        self.device.is_some() && primes <= MAX_PRIMES
    }

    /// The word-prime products of a and b's residues on the host, by `plan`, in `form`:
    /// one vector per prime. a and b are not empty.
    pub(super) fn host_products(
        &self,
        plan: &CrtPlan,
        a: &Integers,
        b: &Integers,
        form: Form,
    ) -> Result<Vec<Vec<u64>>, Error> {
        let set = &plan.primes;
        let operands = (&project(set, a)[..], &project(set, b)[..]);
        self.residue_products(plan, operands, Shape::Whole, form)
    }

    /// The coefficients `shape` names of the word-prime products on the host of operands
    /// already projected onto the plan's primes (one residue vector per prime,
    /// canonical), by `plan`, in `form`.
    pub(super) fn residue_products(
        &self,
        plan: &CrtPlan,
        operands: (&[Vec<u64>], &[Vec<u64>]),
        shape: Shape,
        form: Form,
    ) -> Result<Vec<Vec<u64>>, Error> {
        let set = &plan.primes;
        let shape = (shape, plan.len);
        match set.width() {
            Width::Bits31 => self
                .narrow
                .products(set, operands, shape, self.parallel, form),
            Width::Bits62 => self
                .wide
                .products(set, operands, shape, self.parallel, form),
        }
    }

    /// Takes back the rows of [`residue_products`](Self::residue_products) or
    /// [`host_products`](Self::host_products) once read, for the next product by a plan
    /// of the same primes: their pages stay mapped.
    pub(super) fn recycle(&self, plan: &CrtPlan, rows: Vec<Vec<u64>>) {
        match plan.primes.width() {
            Width::Bits31 => self.narrow.recycle(&plan.primes, rows),
            Width::Bits62 => self.wide.recycle(&plan.primes, rows),
        }
    }

    /// The product by `plan`.
    fn mul_planned(
        &self,
        plan: &CrtPlan,
        a: &Integers,
        b: &Integers,
        signed: bool,
    ) -> Result<Integers, Error> {
        let set = &plan.primes;
        if self.runs_on_device(set.len() as u64) {
            let (a, b) = (self.upload(a)?, self.upload(b)?);
            let c = self.mul_device_planned(plan, (&a, &b), Output::Integers { signed })?;
            return self.download(&c);
        }
        let rc = self.host_products(plan, a, b, Form::Canonical)?;
        let c = recombine(set, &rc, signed);
        self.recycle(plan, rc);
        Ok(c)
    }
}

/// Bits of the largest coefficient a product of `len_a` by `len_b` coefficients of
/// `bits_a` and `bits_b` bits can have, sign included: |c_k| ≤ min(len a, len b)·
/// max|a_i|·max|b_j|, and the sign needs one bit more.
fn product_bits((len_a, len_b): (usize, usize), (bits_a, bits_b): (u64, u64)) -> u64 {
    let terms = len_a.min(len_b).max(1) as u64;
    bits_a + bits_b + u64::from(64 - (terms - 1).leading_zeros()) + 1
}

/// The bits of the largest magnitude of `x`.
pub(super) fn bits_of(x: &Integers) -> u64 {
    (0..x.len())
        .map(|i| {
            let m = x.magnitude(i);
            m.iter()
                .rposition(|&w| w != 0)
                .map_or(0, |t| 64 * t as u64 + u64::from(64 - m[t].leading_zeros()))
        })
        .max()
        .unwrap_or(0)
}

/// Products whose operands and result stay on the device.
impl IntPolyRing {
    /// Whether the ring runs on a GPU.
    pub(super) fn on_gpu(&self) -> bool {
        self.device.is_some()
    }

    /// The kernels for residues in `word`s on the ring's GPU.
    fn gpu(&self, word: ResidueWord) -> Result<Arc<CrtKernels>, Error> {
        let device = self.device.as_ref().ok_or(Error::NotOnGpu)?;
        let mut kernels = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kernels.get(&word) {
            return Ok(k.clone());
        }
        let k = Arc::new(CrtKernels::compile(device.clone(), word)?);
        kernels.insert(word, k.clone());
        Ok(k)
    }

    /// The kernels of the ring's own width, for what does not depend on it (transfers,
    /// tables).
    fn any_gpu(&self) -> Result<Arc<CrtKernels>, Error> {
        self.gpu(self.residue_word())
    }

    fn residue_word(&self) -> ResidueWord {
        word_of(self.width)
    }

    /// Copies integers to the device, word-major, for [`mul_device`](Self::mul_device);
    /// a ring on the CPU refuses with [`Error::NotOnGpu`].
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Integers};
    /// use fermat::num_bigint::BigInt;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = IntPolyRing::new(Backend::Auto)?; // the GPU if there is one
    /// let a = Integers::from_bigints(&[BigInt::from(-1), BigInt::from(1) << 200u32]);
    /// let on_device = match ring.upload(&a) {
    ///     Ok(x) => x,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `mul_integers`
    ///     Err(e) => return Err(e),
    /// };
    /// let c = ring.mul_device(&on_device, &on_device)?; // (2^200·x − 1)²
    /// let c = ring.download(&c)?.to_bigints();
    /// assert_eq!(c, [BigInt::from(1), -(BigInt::from(1) << 201u32), BigInt::from(1) << 400u32]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn upload(&self, x: &Integers) -> Result<DeviceIntegers, Error> {
        self.any_gpu()?.upload(x)
    }

    /// Copies integers back from the device ([`upload`](Self::upload) has an example).
    pub fn download(&self, x: &DeviceIntegers) -> Result<Integers, Error> {
        self.any_gpu()?.download(x)
    }

    /// The product of two polynomials whose coefficients are on the device, queued there
    /// and left there: len a + len b − 1 coefficients, trailing zeros included (nothing
    /// waits for the device to normalise). The primes are chosen for coefficients of
    /// 64·[`limbs`](DeviceIntegers::limbs) bits, the most the operands' words hold, of the
    /// ring's [`width`](Self::width).
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU; [`Error::CrtPrimes`] and
    /// [`Error::CrtGpuPrimes`] when the coefficients need more primes than there are or
    /// than the recombination takes; the errors of the word-prime products. An example
    /// is at [`upload`](Self::upload).
    pub fn mul_device(
        &self,
        a: &DeviceIntegers,
        b: &DeviceIntegers,
    ) -> Result<DeviceIntegers, Error> {
        let signed = a.is_signed() || b.is_signed();
        let plan = self.device_plan(a, b)?;
        self.mul_device_planned(&plan, (a, b), Output::Integers { signed })
    }

    /// The product of device operands by `plan` (its primes of either width), recombined
    /// as `output` asks.
    pub(super) fn mul_device_planned(
        &self,
        plan: &CrtPlan,
        (a, b): (&DeviceIntegers, &DeviceIntegers),
        output: Output<'_>,
    ) -> Result<DeviceIntegers, Error> {
        let set = &plan.primes;
        let limbs = a.limbs().max(b.limbs());
        let kernels = self.gpu(word_of(set.width()))?;
        let tables = self.device_tables(&kernels, set, limbs)?;
        if a.is_empty() || b.is_empty() {
            let words = match output {
                Output::Integers { .. } => tables.words(),
                Output::Modulo(m) => m.limbs(),
            };
            let signed = matches!(output, Output::Integers { signed: true });
            return kernels.alloc_integers(words, 0, signed);
        }
        let lens = (a.len(), b.len());
        match set.width() {
            Width::Bits31 => {
                let rings = self.narrow.prepared(set, lens)?;
                kernels.mul_device(&tables, &rings, (a, b), plan.len, output)
            }
            Width::Bits62 => {
                let rings = self.wide.prepared(set, lens)?;
                kernels.mul_device(&tables, &rings, (a, b), plan.len, output)
            }
        }
    }

    /// The device tables of products modulo `m` over `set`, made by the kernels of the
    /// set's width (a ring of 62-bit primes may plan 31-bit ones for the explicit CRT,
    /// whose one-kernel tables only the 32-bit kernels have).
    pub(super) fn modular_tables(
        &self,
        set: &PrimeSet,
        m: &num_bigint::BigUint,
    ) -> Result<Option<ModularTables>, Error> {
        self.gpu(word_of(set.width()))?.modular_tables(set, m)
    }

    /// The plan of [`mul_device`](Self::mul_device) for `a` and `b`: primes of the ring's
    /// width for coefficients of as many bits as their words hold.
    ///
    /// Errors: [`Error::CrtPrimes`], and [`Error::CrtGpuPrimes`] for more primes than the
    /// device's recombination takes.
    ///
    /// ```
    /// use fermat::crt::{IntPolyRing, Integers};
    /// use fermat::num_bigint::BigInt;
    ///
    /// let ring = IntPolyRing::new(fermat::Backend::Auto)?;
    /// let x = Integers::from_bigints(&vec![BigInt::from(1) << 999u32; 1 << 16]);
    /// if let Ok(x) = ring.upload(&x) {
    ///     let plan = ring.device_plan(&x, &x)?;
    ///     assert_eq!(plan.primes.len(), 34); // 2 · 1024 bits and 16 for the 2^16 terms
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn device_plan(&self, a: &DeviceIntegers, b: &DeviceIntegers) -> Result<CrtPlan, Error> {
        let bits = |x: &DeviceIntegers| 64 * x.limbs() as u64;
        let lens = (a.len(), b.len());
        let mut plan = self.plan_of_width(self.width, lens, (bits(a), bits(b)))?;
        if !(a.is_signed() || b.is_signed()) {
            plan.bits -= 1;
        }
        if plan.primes.len() as u64 > MAX_PRIMES {
            return Err(Error::CrtGpuPrimes {
                primes: plan.primes.len(),
                max: MAX_PRIMES as usize,
            });
        }
        Ok(plan)
    }

    /// The device tables of `set` for operands of `limbs` words, made on first use.
    fn device_tables(
        &self,
        kernels: &CrtKernels,
        set: &PrimeSet,
        limbs: usize,
    ) -> Result<Arc<DeviceTables>, Error> {
        let key = (set.width(), set.adicity(), set.len(), limbs);
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tables.get(&key) {
            return Ok(t.clone());
        }
        let t = Arc::new(kernels.tables(set, limbs)?);
        tables.insert(key, t.clone());
        Ok(t)
    }
}

impl std::fmt::Debug for IntPolyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntPolyRing")
            .field("width", &self.width)
            .field("backend", &self.narrow.backend)
            .finish()
    }
}

/// The words residues modulo primes of `width` are held in on the device.
fn word_of(width: Width) -> ResidueWord {
    match width {
        Width::Bits31 => ResidueWord::U32,
        Width::Bits62 => ResidueWord::U64,
    }
}

/// `x` without its trailing zeros.
fn trim(x: &[BigInt]) -> &[BigInt] {
    let n = x.iter().rposition(|c| !c.is_zero()).map_or(0, |i| i + 1);
    &x[..n]
}
