//! Products in (Z/mZ)\[x\] for any modulus m ≥ 2, prime or not: the product over Z of the
//! canonical representatives, by the CRT route, reduced modulo m (FLINT's
//! `fmpz_mod_poly_mul`).

use super::device::{DeviceIntegers, ModularTables, Output};
use super::explicit::explicit_mod;
use super::integer::{bits_of, CrtPlan, IntPolyRing};
use super::primes::Width;
use super::residues::{recombine, Integers};
use super::rings::Form;
use super::schoolbook::schoolbook_modular;
use crate::fft::Backend;
use crate::Error;
use fermat_codegen::crt::{modular_tables, narrow_reduces, MAX_PRIMES};
use fermat_dsl::field::biguint_of_limbs;
use num_bigint::BigUint;
use num_traits::Zero;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The device tables of one prime set (width, 2-adicity, primes) for products modulo m.
type ModularKey = (Width, u32, usize);

/// Products of polynomials over Z/mZ: coefficients are residues in [0, m).
///
/// ```
/// use fermat::crt::ModPolyRing;
/// use fermat::num_bigint::BigUint;
/// use fermat::Backend;
///
/// // BN254's scalar field, which is no generalized Fermat prime.
/// let m: BigUint =
///     "21888242871839275222246405745257275088548364400416034343698204186575808495617".parse()?;
/// let ring = ModPolyRing::new(&m, Backend::Auto)?;
/// let a = vec![&m - 1u32, BigUint::from(1u32)];            // x − 1
/// let c = ring.mul(&a, &a)?;                                 // x² − 2x + 1
/// assert_eq!(c, vec![BigUint::from(1u32), &m - 2u32, BigUint::from(1u32)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ModPolyRing {
    modulus: BigUint,
    integers: IntPolyRing,
    /// Whether the device's products take 31-bit primes first (on a GPU, for an m that
    /// [`narrow_reduces`] covers, unless [`with_width`](ModPolyRing::with_width) chose).
    narrow_first: bool,
    tables: Mutex<HashMap<ModularKey, Arc<ModularTables>>>,
}

impl ModPolyRing {
    /// The ring (Z/mZ)\[x\] on `backend`, with 62-bit primes, or on a GPU with 31-bit ones
    /// for an odd m of at most 312 bits, whose explicit CRT runs in 32-bit products, where
    /// the length leaves enough of them ([`with_width`](Self::with_width) fixes a width).
    ///
    /// Errors: [`Error::Modulus`] for m < 2; the backend's errors as for
    /// [`IntPolyRing::new`].
    ///
    /// ```
    /// use fermat::crt::ModPolyRing;
    /// use fermat::num_bigint::BigUint;
    ///
    /// let ring = ModPolyRing::new(&BigUint::from(1000u32), fermat::Backend::Cpu)?; // composite m
    /// assert_eq!(ring.modulus(), &BigUint::from(1000u32));
    /// let err = ModPolyRing::new(&BigUint::from(1u32), fermat::Backend::Cpu).unwrap_err();
    /// assert!(matches!(err, fermat::Error::Modulus { .. }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(m: &BigUint, backend: Backend) -> Result<ModPolyRing, Error> {
        if m < &BigUint::from(2u32) {
            return Err(Error::Modulus { m: m.clone() });
        }
        let integers = IntPolyRing::new(backend)?;
        // On the GPU, 31-bit primes where their explicit CRT reduces modulo m in 32-bit
        // products: for BN254's r at 2^20 they measured 1.75 ms against 2.5 by 62-bit
        // primes on an H200 (bench/RESULTS.md, "Products modulo m, round 2").
        let narrow_first = integers.on_gpu() && narrow_reduces(m);
        Ok(ModPolyRing {
            modulus: m.clone(),
            integers,
            narrow_first,
            tables: Mutex::new(HashMap::new()),
        })
    }

    /// The ring with primes of another width (see [`IntPolyRing::with_width`]).
    ///
    /// ```
    /// use fermat::crt::{ModPolyRing, Width};
    /// use fermat::num_bigint::BigUint;
    ///
    /// let m = BigUint::from(1000u32);
    /// let ring = ModPolyRing::new(&m, fermat::Backend::Cpu)?.with_width(Width::Bits31);
    /// assert_eq!(ring.integers().width(), Width::Bits31);
    /// let c = ring.mul(&[BigUint::from(999u32)], &[BigUint::from(2u32)])?;
    /// assert_eq!(c, [BigUint::from(998u32)]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn with_width(mut self, width: Width) -> ModPolyRing {
        self.integers = self.integers.with_width(width);
        self.narrow_first = false;
        self
    }

    /// Whether the ring's products run on a GPU.
    pub(crate) fn on_gpu(&self) -> bool {
        self.integers.on_gpu()
    }

    /// The modulus m ([`new`](Self::new) has an example).
    pub fn modulus(&self) -> &BigUint {
        &self.modulus
    }

    /// The ring over Z the products run in ([`plan`](Self::plan) has an example).
    pub fn integers(&self) -> &IntPolyRing {
        &self.integers
    }

    /// The plan of a product of `len_a` by `len_b` coefficients.
    ///
    /// ```
    /// use fermat::crt::{ModPolyRing, Width};
    /// use fermat::num_bigint::BigUint;
    ///
    /// let m = (BigUint::from(1u32) << 255u32) - 19u32;
    /// let ring = ModPolyRing::new(&m, fermat::Backend::Cpu)?;
    /// let plan = ring.plan(1 << 12, 1 << 12)?;
    /// // Coefficients below 4096 · m^2 < 2^522: nine 62-bit primes.
    /// assert_eq!((plan.bits, plan.primes.len()), (522, 9));
    /// assert_eq!(ring.integers().width(), Width::Bits62);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn plan(&self, len_a: usize, len_b: usize) -> Result<CrtPlan, Error> {
        let bits = self.modulus.bits();
        if self.narrow_first {
            return self.narrow_or_wide_plan(len_a, len_b);
        }
        let mut plan = self.integers.plan(len_a, len_b, bits, bits)?;
        plan.bits -= 1; // representatives are nonnegative: no sign bit
        Ok(plan)
    }

    /// The plan of the explicit CRT on the GPU: 31-bit primes, or the ring's own where
    /// too few 31-bit primes have the length's 2-adicity, for coefficients below P/2
    /// (the plan's bit for a sign is the bit to spare).
    fn narrow_or_wide_plan(&self, len_a: usize, len_b: usize) -> Result<CrtPlan, Error> {
        let bits = self.modulus.bits();
        let lens = (len_a, len_b);
        match self
            .integers
            .plan_of_width(Width::Bits31, lens, (bits, bits))
        {
            Err(Error::CrtPrimes { .. }) => self.integers.plan(len_a, len_b, bits, bits),
            plan => plan,
        }
    }

    /// The product a·b mod m, normalised: no trailing zeros (with a composite m, the
    /// leading coefficients can multiply to zero). Short products of residues of a huge m
    /// run as sums of products of big integers where that costs less than the route
    /// ([`takes_schoolbook`](Self::takes_schoolbook)).
    ///
    /// Errors: [`Error::Residue`] naming the operand, the index and the value of a
    /// coefficient that is not below m; the errors of [`IntPolyRing::mul_integers`].
    ///
    /// ```
    /// use fermat::crt::ModPolyRing;
    /// use fermat::num_bigint::BigUint;
    /// use fermat::Error;
    ///
    /// let ring = ModPolyRing::new(&BigUint::from(12u32), fermat::Backend::Cpu)?;
    /// // (4x + 1)(3x + 1) = 12x² + 7x + 1 ≡ 7x + 1 (mod 12).
    /// let a = [1u32, 4].map(BigUint::from);
    /// let b = [1u32, 3].map(BigUint::from);
    /// assert_eq!(ring.mul(&a, &b)?, [1u32, 7].map(BigUint::from));
    /// let err = ring.mul(&a, &[BigUint::from(12u32)]).unwrap_err();
    /// assert!(matches!(err, Error::Residue { operand: "b", index: 0, .. }));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul(&self, a: &[BigUint], b: &[BigUint]) -> Result<Vec<BigUint>, Error> {
        self.check_residues("a", a)?;
        self.check_residues("b", b)?;
        let (a, b) = (trim(a), trim(b));
        if a.is_empty() || b.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = if self.takes_schoolbook(a.len(), b.len()) {
            schoolbook_modular(a, b, &self.modulus)
        } else {
            let c = self.mul_residues(&Integers::from_biguints(a), &Integers::from_biguints(b))?;
            (0..c.len())
                .into_par_iter()
                .map(|i| biguint_of_limbs(c.magnitude(i)))
                .collect()
        };
        while out.last().is_some_and(Zero::is_zero) {
            out.pop();
        }
        Ok(out)
    }

    /// Whether [`mul`](Self::mul) multiplies operands of `len_a` and `len_b` residues by
    /// sums of products of big integers, each sum reduced once, instead of the route: as
    /// [`IntPolyRing::takes_schoolbook`] decides for coefficients of m's bits.
    ///
    /// ```
    /// use fermat::crt::ModPolyRing;
    /// use num_bigint::BigUint;
    ///
    /// let m = (BigUint::from(1u32) << 20_000u32) + 1u32;
    /// let ring = ModPolyRing::new(&m, fermat::Backend::Cpu)?;
    /// assert!(ring.takes_schoolbook(3, 4));
    /// assert!(!ring.takes_schoolbook(1000, 1000));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn takes_schoolbook(&self, len_a: usize, len_b: usize) -> bool {
        let bits = self.modulus.bits();
        self.integers.takes_schoolbook(len_a, len_b, bits, bits)
    }

    /// The product a·b mod m of residues that the caller knows to be below m (a field's
    /// canonical values), as residues in [0, m): len a + len b − 1 of them, trailing zeros
    /// included, or none for an empty operand. On the GPU the operands go up and the
    /// residues come back; on the CPU the products over the primes run on the host and
    /// the explicit CRT reduces their residues straight to [0, m), Garner's integers
    /// reduced where its tables cannot serve.
    pub(crate) fn mul_residues(&self, a: &Integers, b: &Integers) -> Result<Integers, Error> {
        if a.is_empty() || b.is_empty() {
            return Integers::from_words(1, Vec::new());
        }
        if self.integers.on_gpu() {
            let on_device = || -> Result<Integers, Error> {
                let (a, b) = (self.integers.upload(a)?, self.integers.upload(b)?);
                self.integers.download(&self.mul_device(&a, &b)?)
            };
            match on_device() {
                // Sets beyond the device's recombination run on the host.
                Err(Error::CrtGpuPrimes { .. }) => {}
                c => return c,
            }
        }
        // The explicit CRT takes the products' words as they are (Form::Montgomery);
        // where it has no tables, Garner's recombination needs canonical residues.
        let plan = self
            .integers
            .plan(a.len(), b.len(), bits_of(a), bits_of(b))?;
        let tables = modular_tables(plan.primes.primes(), &self.modulus);
        let form = match tables {
            Some(_) => Form::Montgomery,
            None => Form::Canonical,
        };
        let residues = self.integers.host_products(&plan, a, b, form)?;
        let radix_bits = form.radix_bits(plan.primes.width());
        let c = match tables {
            Some(tables) => explicit_mod(&tables, &residues, radix_bits),
            None => {
                let c = recombine(&plan.primes, &residues, false);
                let reduced: Vec<BigUint> = (0..c.len())
                    .into_par_iter()
                    .map(|i| biguint_of_limbs(c.magnitude(i)) % &self.modulus)
                    .collect();
                Integers::from_biguints(&reduced)
            }
        };
        self.integers.recycle(&plan, residues);
        Ok(c)
    }
}

/// Products whose operands and result stay on the device.
impl ModPolyRing {
    fn check_residues(&self, operand: &'static str, x: &[BigUint]) -> Result<(), Error> {
        match x.iter().enumerate().find(|(_, v)| *v >= &self.modulus) {
            Some((index, v)) => Err(Error::Residue {
                operand,
                index,
                value: v.clone(),
                m: self.modulus.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Copies residues modulo m to the device, for [`mul_device`](Self::mul_device); a
    /// ring on the CPU refuses with [`Error::NotOnGpu`].
    ///
    /// Errors: [`Error::Residue`] for a coefficient that is not below m.
    ///
    /// ```
    /// use fermat::crt::ModPolyRing;
    /// use fermat::num_bigint::BigUint;
    /// use fermat::{Backend, Error};
    ///
    /// let m: BigUint =
    ///     "21888242871839275222246405745257275088548364400416034343698204186575808495617".parse()?;
    /// let ring = ModPolyRing::new(&m, Backend::Auto)?; // the GPU if there is one
    /// let a = vec![&m - 1u32, BigUint::from(1u32)]; // x − 1
    /// let on_device = match ring.upload(&a) {
    ///     Ok(x) => x,
    ///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: `mul`
    ///     Err(e) => return Err(e.into()),
    /// };
    /// let c = ring.download(&ring.mul_device(&on_device, &on_device)?)?;
    /// assert_eq!(c, vec![BigUint::from(1u32), &m - 2u32, BigUint::from(1u32)]);
    /// assert!(matches!(ring.upload(std::slice::from_ref(&m)), Err(Error::Residue { index: 0, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn upload(&self, a: &[BigUint]) -> Result<DeviceIntegers, Error> {
        self.check_residues("a", a)?;
        self.integers.upload(&Integers::from_biguints(a))
    }

    /// Copies residues back from the device: as many as the device polynomial has,
    /// trailing zeros included ([`upload`](Self::upload) has an example).
    pub fn download(&self, x: &DeviceIntegers) -> Result<Vec<BigUint>, Error> {
        let c = self.integers.download(x)?;
        Ok((0..c.len())
            .into_par_iter()
            .map(|i| biguint_of_limbs(c.magnitude(i)))
            .collect())
    }

    /// The product a·b mod m of device polynomials, queued on the device and left there:
    /// len a + len b − 1 residues in [0, m), trailing zeros included. The product over Z
    /// runs by the CRT route with the primes of [`device_plan`](Self::device_plan); the
    /// explicit CRT takes their residues to sums congruent modulo m, and one more kernel
    /// reduces the sums to [0, m) — the integers of the product over Z never exist. An
    /// example is at [`upload`](Self::upload).
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU; [`Error::SignedResidues`] for operands
    /// that carry signs; those of [`IntPolyRing::mul_device`].
    pub fn mul_device(
        &self,
        a: &DeviceIntegers,
        b: &DeviceIntegers,
    ) -> Result<DeviceIntegers, Error> {
        for (operand, x) in [("a", a), ("b", b)] {
            if x.is_signed() {
                return Err(Error::SignedResidues { operand });
            }
        }
        let plan = self.device_plan(a, b)?;
        let tables = self.device_tables(&plan)?;
        self.integers
            .mul_device_planned(&plan, (a, b), Output::Modulo(&tables))
    }

    /// The plan of [`mul_device`](Self::mul_device) for `a` and `b`: primes of the ring's
    /// width whose product exceeds twice the coefficients of the product over Z (below
    /// min(len a, len b)·m²), since the explicit CRT finds its quotient from x/P < 1/2.
    ///
    /// Errors: [`Error::CrtPrimes`], and [`Error::CrtGpuPrimes`] for more primes than the
    /// device's kernels take.
    ///
    /// ```
    /// use fermat::crt::{ModPolyRing, Width};
    /// use fermat::num_bigint::BigUint;
    ///
    /// let m: BigUint =
    ///     "21888242871839275222246405745257275088548364400416034343698204186575808495617".parse()?;
    /// let ring = ModPolyRing::new(&m, fermat::Backend::Auto)?;
    /// if let Ok(x) = ring.upload(&vec![&m - 1u32; 1 << 10]) {
    ///     let plan = ring.device_plan(&x, &x)?;
    ///     // On the GPU, 31-bit primes (an odd m of at most 312 bits).
    ///     assert_eq!(plan.primes.width(), Width::Bits31);
    ///     // 2 · 254 bits, 10 for the 2^10 terms and one to spare: eighteen primes.
    ///     assert_eq!((plan.bits, plan.primes.len()), (519, 18));
    ///     assert!(plan.primes.product().bits() > 519);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn device_plan(&self, a: &DeviceIntegers, b: &DeviceIntegers) -> Result<CrtPlan, Error> {
        let bits = self.modulus.bits();
        // The plan's bit for a sign is the explicit CRT's bit to spare.
        let plan = if self.narrow_first {
            self.narrow_or_wide_plan(a.len(), b.len())?
        } else {
            self.integers.plan(a.len(), b.len(), bits, bits)?
        };
        if plan.primes.len() as u64 > MAX_PRIMES {
            return Err(Error::CrtGpuPrimes {
                primes: plan.primes.len(),
                max: MAX_PRIMES as usize,
            });
        }
        Ok(plan)
    }

    fn device_tables(&self, plan: &CrtPlan) -> Result<Arc<ModularTables>, Error> {
        let set = &plan.primes;
        let key = (set.width(), set.adicity(), set.len());
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tables.get(&key) {
            return Ok(t.clone());
        }
        let t = self
            .integers
            .modular_tables(set, &self.modulus)?
            .ok_or(Error::CrtGpuPrimes {
                primes: set.len(),
                max: fermat_codegen::crt::MAX_PRIMES as usize,
            })?;
        let t = Arc::new(t);
        tables.insert(key, t.clone());
        Ok(t)
    }
}

impl std::fmt::Debug for ModPolyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModPolyRing")
            .field("modulus", &self.modulus)
            .field("integers", &self.integers)
            .finish()
    }
}

/// `x` without its trailing zeros.
fn trim(x: &[BigUint]) -> &[BigUint] {
    let n = x.iter().rposition(|c| !c.is_zero()).map_or(0, |i| i + 1);
    &x[..n]
}
