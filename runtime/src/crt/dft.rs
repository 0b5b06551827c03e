//! The CRT route's transform: a DFT of length n over Z/PZ, P = p_1⋯p_s, computed as s
//! word-prime DFTs between a projection and a recombination. It is the building block §7
//! of the 2017 paper weighs against one DFT over an SRGFN of as many bits ("the CRT
//! alternative": project, s small-prime DFTs, combine), and what `fermat bench --compare
//! crt` times against the SRGFN FFT.
//!
//! The root of the DFT over Z/PZ is the ω ≡ ω_i (mod p_i) of the CRT, ω_i the root of
//! unity of order n that fermat's transforms use modulo p_i ([`Field::root_of_unity`]).

use super::device::{CrtKernels, DeviceIntegers, DeviceTables};
use super::graph::TransformGraph;
use super::primes::PrimeSet;
use super::residues::{project, recombine, Integers};
use crate::fft::{Backend, FftOptions, FftPlan};
use crate::Error;
use cudarc::driver::CudaSlice;
use fermat_codegen::crt::{ResidueWord, MAX_PRIMES};
use fermat_codegen::plan::Order;
use fermat_dsl::field::Fp64;
use rayon::prelude::*;
use std::sync::Arc;

/// A forward DFT of n integers modulo P = p_1⋯p_s by the CRT route: the integers' residues
/// modulo each prime, s word-prime DFTs, and Garner's recombination of the spectra into
/// integers in [0, P). The output is in natural order.
///
/// On a GPU every step runs there: one projection launch for all primes, the s transforms,
/// one recombination launch (s ≤ 128); [`CrtDft::project_device`],
/// [`CrtDft::transform_device`] and [`CrtDft::recombine_device`] queue the steps one by
/// one on device buffers, for callers (and benchmarks) that keep their data there.
///
/// ```
/// use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
/// use fermat::num_bigint::BigUint;
/// use fermat::Backend;
///
/// // A DFT of 16 integers below 2^500 over Z/PZ, P a product of 62-bit primes.
/// let primes = PrimeSet::for_bits(Width::Bits62, 20, 500)?;
/// let dft = CrtDft::new(primes, 16, 8, Backend::Cpu)?;
/// let x: Vec<BigUint> = (0..16u32).map(|i| BigUint::from(i) << 400u32).collect();
/// let y = dft.forward(&Integers::from_biguints(&x))?;
/// // y_0 is the sum of the inputs, below P.
/// let sum: BigUint = x.iter().sum();
/// assert_eq!(y.to_bigints()[0].magnitude(), &(sum % dft.primes().product()));
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct CrtDft {
    primes: Arc<PrimeSet>,
    n: u64,
    limbs: usize,
    plans: Vec<FftPlan<Fp64>>,
    gpu: Option<Gpu>,
}

/// The device half of a [`CrtDft`].
struct Gpu {
    kernels: Arc<CrtKernels>,
    tables: DeviceTables,
    /// The s transforms, replayed as one graph.
    transforms: TransformGraph,
}

impl CrtDft {
    /// The transform of length `n` (a power of two, 2^adicity of the primes at most) of
    /// integers of at most `limbs` 64-bit words, modulo the product of `primes`, on
    /// `backend` (with [`Backend::Auto`] and no GPU, the CPU).
    ///
    /// Errors: those of the word-prime plans ([`FftPlan::new`]: a length no prime's
    /// 2-adicity allows, a GPU that fails); [`Error::CrtGpuPrimes`] on a GPU for more
    /// primes than its recombination takes (128).
    ///
    /// ```
    /// use fermat::crt::{CrtDft, PrimeSet, Width};
    /// use fermat::Backend;
    ///
    /// let primes = PrimeSet::for_bits(Width::Bits62, 10, 200)?;
    /// let dft = CrtDft::new(primes.clone(), 1 << 10, 2, Backend::Cpu)?;
    /// assert_eq!((dft.n(), dft.limbs(), dft.primes().len()), (1024, 2, 4));
    /// // p_1 = c·2^10 + 1 with c odd: no root of unity of order 2^11 modulo p_1.
    /// assert_eq!(primes.primes()[0] % (1 << 11), (1 << 10) + 1);
    /// assert!(CrtDft::new(primes, 1 << 11, 2, Backend::Cpu).is_err());
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn new(primes: PrimeSet, n: u64, limbs: usize, backend: Backend) -> Result<CrtDft, Error> {
        let options = FftOptions {
            backend,
            output_order: Order::Natural,
            ..FftOptions::default()
        };
        // On a GPU the plans compile in parallel: each prime has its own kernels.
        let plans = primes
            .primes()
            .par_iter()
            .map(|&p| FftPlan::new(&Fp64::new(p)?, n, options.clone()))
            .collect::<Result<Vec<_>, Error>>()?;
        let limbs = limbs.max(1);
        let gpu = match plans.first().map(FftPlan::device) {
            Some(Ok(device)) => {
                check_gpu_primes(&primes)?;
                let kernels = Arc::new(CrtKernels::compile(device.clone(), ResidueWord::U64)?);
                let tables = kernels.tables(&primes, limbs)?;
                let transforms = TransformGraph::new(device, plans.len())?;
                Some(Gpu {
                    kernels,
                    tables,
                    transforms,
                })
            }
            _ => None,
        };
        Ok(CrtDft {
            primes: Arc::new(primes),
            n,
            limbs,
            plans,
            gpu,
        })
    }

    /// The primes ([`CrtDft`] has an example).
    pub fn primes(&self) -> &PrimeSet {
        &self.primes
    }

    /// The transform's length ([`CrtDft`] has an example).
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Words per input integer at most ([`new`](Self::new) has an example).
    pub fn limbs(&self) -> usize {
        self.limbs
    }

    /// Whether the transform runs on a GPU ([`plan`](Self::plan) has an example).
    pub fn on_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// The word-prime transform modulo p_i.
    ///
    /// ```
    /// use fermat::crt::{CrtDft, PrimeSet, Width};
    ///
    /// let dft = CrtDft::new(PrimeSet::for_bits(Width::Bits62, 10, 200)?, 1024, 4, fermat::Backend::Cpu)?;
    /// assert_eq!((dft.n(), dft.limbs(), dft.on_gpu()), (1024, 4, false));
    /// assert_eq!(dft.plan(0).field().p(), dft.primes().primes()[0]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn plan(&self, i: usize) -> &FftPlan<Fp64> {
        &self.plans[i]
    }

    /// Whether an input of `len` integers of `limbs` words fits the transform.
    fn check(&self, len: usize, limbs: usize) -> Result<(), Error> {
        if len as u64 != self.n || limbs > self.limbs {
            return Err(Error::CrtInput {
                len,
                limbs,
                n: self.n,
                max_limbs: self.limbs,
            });
        }
        Ok(())
    }

    /// The spectra of `x` on the device, rows of one buffer (checked by the caller).
    fn spectra_on_device(&self, gpu: &Gpu, x: &Integers) -> Result<CudaSlice<u64>, Error> {
        let x = gpu.kernels.upload(x)?;
        let mut residues = self.alloc_residues()?;
        let mut spectra = self.alloc_residues()?;
        self.project_device(&x, &mut residues)?;
        self.transform_device(&residues, &mut spectra)?;
        Ok(spectra)
    }

    /// The DFT of `x` (n integers, of any sign) over Z/PZ: n integers in [0, P).
    ///
    /// Errors: [`Error::CrtInput`] when `x` does not hold n integers of at most
    /// [`limbs`](Self::limbs) words; the device's errors.
    ///
    /// ```
    /// use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
    /// use fermat::num_bigint::BigInt;
    /// use fermat::{Backend, Error};
    ///
    /// let dft = CrtDft::new(PrimeSet::for_bits(Width::Bits62, 10, 200)?, 4, 1, Backend::Cpu)?;
    /// let p = BigInt::from(dft.primes().product().clone());
    /// // The DFT of (−1, 0, 0, 0) is −1 at every point: P − 1 in [0, P).
    /// let y = dft.forward(&Integers::from_bigints(&[-1, 0, 0, 0].map(BigInt::from)))?;
    /// assert_eq!(y.to_bigints(), vec![&p - 1; 4]);
    /// // Three integers do not fit a transform of length 4.
    /// let err = dft.forward(&Integers::from_bigints(&[1, 2, 3].map(BigInt::from)));
    /// assert!(matches!(err, Err(Error::CrtInput { len: 3, n: 4, .. })));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn forward(&self, x: &Integers) -> Result<Integers, Error> {
        self.check(x.len(), x.limbs())?;
        match &self.gpu {
            Some(gpu) => {
                let spectra = self.spectra_on_device(gpu, x)?;
                let mut y = self.alloc_output()?;
                self.recombine_device(&spectra, &mut y)?;
                self.download(&y)
            }
            None => Ok(recombine(&self.primes, &self.spectra(x)?, false)),
        }
    }

    /// The s spectra before recombination: row i is the DFT modulo p_i of x's residues
    /// modulo p_i, computed on the transform's backend.
    ///
    /// Errors: as [`forward`](Self::forward).
    ///
    /// ```
    /// use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
    /// use fermat::num_bigint::BigUint;
    /// use fermat::Backend;
    ///
    /// let dft = CrtDft::new(PrimeSet::for_bits(Width::Bits62, 10, 200)?, 8, 4, Backend::Cpu)?;
    /// let x = Integers::from_biguints(&vec![BigUint::from(5u32); 8]);
    /// let rows = dft.spectra(&x)?;
    /// assert_eq!(rows.len(), dft.primes().len());
    /// for row in rows {
    ///     assert_eq!(row, [40, 0, 0, 0, 0, 0, 0, 0]); // 8 × 5 at ω^0, nothing elsewhere
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn spectra(&self, x: &Integers) -> Result<Vec<Vec<u64>>, Error> {
        self.check(x.len(), x.limbs())?;
        match &self.gpu {
            Some(gpu) => {
                let spectra = self.spectra_on_device(gpu, x)?;
                let words =
                    gpu.kernels
                        .device()
                        .stream()
                        .clone_dtoh(&spectra)
                        .map_err(|source| crate::gpu::GpuError::Driver {
                            call: "cuMemcpyDtoH",
                            source,
                        })?;
                Ok(words.chunks(self.n as usize).map(<[u64]>::to_vec).collect())
            }
            None => {
                let mut rows = project(&self.primes, x);
                rows.par_iter_mut()
                    .zip(&self.plans)
                    .try_for_each(|(row, plan)| plan.forward(row))?;
                Ok(rows)
            }
        }
    }
}

/// The device steps, for data that stays there.
impl CrtDft {
    fn gpu(&self) -> Result<&Gpu, Error> {
        self.gpu.as_ref().ok_or(Error::NotOnGpu)
    }

    /// Copies n integers to the device (see [`forward`](Self::forward) for the errors).
    ///
    /// The steps of [`forward`](Self::forward) one by one, on data that stays on the
    /// device; on a transform that runs on the CPU they are refused with
    /// [`Error::NotOnGpu`]:
    ///
    /// ```
    /// use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
    /// use fermat::num_bigint::BigUint;
    /// use fermat::{Backend, Error};
    ///
    /// let dft = CrtDft::new(PrimeSet::for_bits(Width::Bits62, 12, 400)?, 1 << 12, 6, Backend::Auto)?;
    /// let x = Integers::from_biguints(&vec![BigUint::from(3u32) << 300u32; 1 << 12]);
    /// match dft.upload(&x) {
    ///     Ok(on_device) => {
    ///         let (mut residues, mut spectra) = (dft.alloc_residues()?, dft.alloc_residues()?);
    ///         let mut y = dft.alloc_output()?;
    ///         dft.project_device(&on_device, &mut residues)?; // one launch, every prime
    ///         dft.transform_device(&residues, &mut spectra)?; // s transforms
    ///         dft.recombine_device(&spectra, &mut y)?; // one launch
    ///         assert_eq!(dft.download(&y)?, dft.forward(&x)?);
    ///     }
    ///     Err(Error::NotOnGpu) => assert!(!dft.on_gpu()),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn upload(&self, x: &Integers) -> Result<DeviceIntegers, Error> {
        self.check(x.len(), x.limbs())?;
        self.gpu()?.kernels.upload(x)
    }

    /// Copies integers back from the device ([`upload`](Self::upload) has an example).
    pub fn download(&self, x: &DeviceIntegers) -> Result<Integers, Error> {
        self.gpu()?.kernels.download(x)
    }

    /// Room for the s residue rows of n words each, in one buffer ([`upload`](Self::upload)
    /// has an example).
    pub fn alloc_residues(&self) -> Result<CudaSlice<u64>, Error> {
        let device = self.gpu()?.kernels.device();
        Ok(device.alloc_unset(self.primes.len() * self.n as usize)?)
    }

    /// Room for the n recombined integers ([`upload`](Self::upload) has an example).
    pub fn alloc_output(&self) -> Result<DeviceIntegers, Error> {
        let gpu = self.gpu()?;
        gpu.kernels
            .alloc_integers(gpu.tables.words(), self.n as usize, false)
    }

    fn check_rows(&self, rows: &CudaSlice<u64>) -> Result<(), Error> {
        let want = self.primes.len() * self.n as usize;
        if rows.len() != want {
            return Err(Error::Length {
                what: "the residue rows",
                len: rows.len(),
                n: want as u64,
            });
        }
        Ok(())
    }

    /// Queues the projection of `x` onto the primes into `residues` (row i modulo p_i):
    /// one launch ([`upload`](Self::upload) has an example).
    pub fn project_device(
        &self,
        x: &DeviceIntegers,
        residues: &mut CudaSlice<u64>,
    ) -> Result<(), Error> {
        let gpu = self.gpu()?;
        self.check_rows(residues)?;
        self.check(x.len(), x.limbs())?;
        let n = self.n as usize;
        let mut dst = residues.slice_mut(..);
        gpu.kernels
            .project_into(&gpu.tables, x, (0, self.primes.len()), &mut dst, (n, n))
    }

    /// Queues the s word-prime DFTs of the rows of `residues` into `spectra`
    /// ([`upload`](Self::upload) has an example). The first call with a pair of buffers
    /// runs them one after another and captures them into a CUDA graph whose branches
    /// run side by side; the calls after it with the same pair launch the graph.
    pub fn transform_device(
        &self,
        residues: &CudaSlice<u64>,
        spectra: &mut CudaSlice<u64>,
    ) -> Result<(), Error> {
        let gpu = self.gpu()?;
        self.check_rows(residues)?;
        self.check_rows(spectra)?;
        gpu.transforms
            .run(&self.plans, self.n as usize, residues, spectra)
    }

    /// Queues the recombination of the rows of `spectra` into `out` (integers in [0, P);
    /// [`upload`](Self::upload) has an example).
    pub fn recombine_device(
        &self,
        spectra: &CudaSlice<u64>,
        out: &mut DeviceIntegers,
    ) -> Result<(), Error> {
        let gpu = self.gpu()?;
        self.check_rows(spectra)?;
        if out.len() as u64 != self.n || out.limbs() != gpu.tables.words() {
            return Err(Error::CrtOutput {
                len: out.len(),
                limbs: out.limbs(),
                n: self.n,
                want_limbs: gpu.tables.words(),
            });
        }
        gpu.kernels
            .recombine_into(&gpu.tables, &spectra.slice(..), self.n as usize, out)
    }
}

impl std::fmt::Debug for CrtDft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrtDft")
            .field("n", &self.n)
            .field("primes", &self.primes.len())
            .field("limbs", &self.limbs)
            .field("gpu", &self.gpu.is_some())
            .finish()
    }
}

/// The GPU's recombination keeps one digit per prime in registers: at most `MAX_PRIMES`.
fn check_gpu_primes(primes: &PrimeSet) -> Result<(), Error> {
    if primes.len() as u64 > MAX_PRIMES {
        return Err(Error::CrtGpuPrimes {
            primes: primes.len(),
            max: MAX_PRIMES as usize,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crt::Width;

    #[test]
    fn the_gpu_takes_at_most_max_primes() {
        let most = PrimeSet::for_bits(Width::Bits62, 8, 127 * 61).unwrap();
        assert!(most.len() as u64 <= MAX_PRIMES);
        assert!(check_gpu_primes(&most).is_ok());
        let more = PrimeSet::for_bits(Width::Bits62, 8, 130 * 61).unwrap();
        let err = check_gpu_primes(&more).unwrap_err();
        assert!(
            matches!(err, Error::CrtGpuPrimes { primes, max: 128 } if primes == more.len()),
            "{err}"
        );
        assert!(err.to_string().contains("at most 128 primes"), "{err}");
    }
}
