//! The CRT route on the GPU: the operands' words go up once, the projection and the
//! recombination run as generated kernels ([`fermat_codegen::crt`]), and the residues
//! never leave the device between them and the word-prime products.

use super::primes::PrimeSet;
use super::residues::Integers;
use crate::gpu::{Device, GpuError};
use crate::poly::{DevicePoly, PolyRing};
use crate::Error;
use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, LaunchConfig, PushKernelArg};
use fermat_codegen::crt::{self as kernels, CrtPass, PROJECT_HEAD, THREADS};
use fermat_dsl::field::Fp64;
use std::sync::Arc;

/// Blocks of the kernels' grid-stride loops at most.
const BLOCKS: u32 = 1 << 12;

/// The CRT kernels, compiled for one device.
pub(crate) struct CrtKernels {
    device: Arc<Device>,
    _module: Arc<CudaModule>,
    functions: Vec<(CrtPass, CudaFunction)>,
}

fn driver(call: &'static str) -> impl Fn(cudarc::driver::DriverError) -> GpuError {
    move |source| GpuError::Driver { call, source }
}

impl CrtKernels {
    /// Compiles (or takes from the disk cache) the kernels for `device`.
    pub(crate) fn compile(device: Arc<Device>) -> Result<CrtKernels, Error> {
        let (module, _) = device.compile(&kernels::source()?)?;
        let functions = CrtPass::ALL
            .iter()
            .map(|&pass| {
                module
                    .load_function(pass.name())
                    .map(|f| (pass, f))
                    .map_err(driver("cuModuleGetFunction"))
            })
            .collect::<Result<_, _>>()?;
        Ok(CrtKernels {
            device,
            _module: module,
            functions,
        })
    }

    fn function(&self, pass: CrtPass) -> &CudaFunction {
        &self
            .functions
            .iter()
            .find(|(p, _)| *p == pass)
            .expect("every pass is loaded")
            .1
    }

    fn config(&self, work: usize, rows: usize) -> LaunchConfig {
        let blocks = (work.div_ceil(THREADS as usize) as u32).clamp(1, BLOCKS);
        LaunchConfig {
            grid_dim: (blocks, rows as u32, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The residues of `x` modulo each prime of `set`, one device polynomial per prime
    /// (of x's length; a residue polynomial may end in zeros).
    fn project(&self, set: &PrimeSet, x: &Integers) -> Result<Vec<DevicePoly<Fp64>>, Error> {
        let stream = self.device.stream();
        let (n, words) = (x.len(), x.limbs());
        let signed = (0..n).any(|j| x.is_negative(j));
        let mut major = vec![0u64; n * words];
        for j in 0..n {
            for (w, &d) in x.magnitude(j).iter().enumerate() {
                major[w * n + j] = d;
            }
        }
        let src = crate::poly::upload(&self.device, &major)?;
        let signs: Vec<u32> = (0..n).map(|j| u32::from(x.is_negative(j))).collect();
        let signs = crate::poly::upload(&self.device, &signs)?;
        let consts = crate::poly::upload(
            &self.device,
            &kernels::project_constants(set.primes(), words),
        )?;
        let row = PROJECT_HEAD as usize + words;
        let pass = CrtPass::Project { signed };
        let mut out = Vec::with_capacity(set.len());
        for i in 0..set.len() {
            let mut dst: CudaSlice<u64> = self.device.alloc_unset(n)?;
            let consts_i = consts.slice(i * row..);
            let (n64, words64, row64, dist) = (n as u64, words as u64, row as u64, n as u64);
            let mut launch = stream.launch_builder(self.function(pass));
            launch
                .arg(&src)
                .arg(&n64)
                .arg(&n64)
                .arg(&words64)
                .arg(&signs)
                .arg(&consts_i)
                .arg(&row64)
                .arg(&mut dst)
                .arg(&n64)
                .arg(&dist);
            // SAFETY: the arguments follow `PROJECT_ARGS` in order and type; `src` holds
            // `words` rows of n words, `signs` n words, `consts_i` a row of `row` words,
            // and `dst` n words, each written once.
            unsafe { launch.launch(self.config(n, 1)) }.map_err(|source| GpuError::Launch {
                kernel: pass.name().to_string(),
                source,
            })?;
            out.push(DevicePoly {
                data: dst,
                len: n,
                cap: n,
            });
        }
        Ok(out)
    }

    /// The integers of the residue polynomials `c` (modulo the primes of `set` in turn),
    /// the first `len` coefficients of each.
    fn recombine(
        &self,
        set: &PrimeSet,
        c: &[DevicePoly<Fp64>],
        len: usize,
        signed: bool,
    ) -> Result<Integers, Error> {
        let stream = self.device.stream();
        let s = set.len();
        let mut residues: CudaSlice<u64> = self.device.alloc(s * len)?;
        for (i, ci) in c.iter().enumerate() {
            let take = ci.len.min(len);
            if take > 0 {
                stream
                    .memcpy_dtod(
                        &ci.data.slice(..take),
                        &mut residues.slice_mut(i * len..i * len + take),
                    )
                    .map_err(driver("cuMemcpyDtoD"))?;
            }
        }
        let t = kernels::recombine_tables(set.primes());
        let consts = crate::poly::upload(&self.device, &t.constants)?;
        let bases = crate::poly::upload(&self.device, &t.bases)?;
        let mut words: CudaSlice<u64> = self.device.alloc_unset(t.words * len.max(1))?;
        let mut signs: CudaSlice<u32> = self.device.alloc(len.max(1))?;
        let pass = CrtPass::Recombine { signed };
        let (len64, s64, row64, words64) = (len as u64, s as u64, t.row as u64, t.words as u64);
        let mut launch = stream.launch_builder(self.function(pass));
        launch
            .arg(&residues)
            .arg(&len64)
            .arg(&len64)
            .arg(&s64)
            .arg(&consts)
            .arg(&row64)
            .arg(&bases)
            .arg(&words64)
            .arg(&mut signs)
            .arg(&mut words)
            .arg(&len64);
        // SAFETY: the arguments follow `RECOMBINE_ARGS` in order and type; `residues` holds
        // s rows of `len` words, the tables are `recombine_tables`' for the same primes
        // (s ≤ MAX_PRIMES, checked by the caller), and `words` and `signs` have room for
        // `len` integers.
        unsafe { launch.launch(self.config(len, 1)) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        let major = stream.clone_dtoh(&words).map_err(driver("cuMemcpyDtoH"))?;
        let negative = stream.clone_dtoh(&signs).map_err(driver("cuMemcpyDtoH"))?;
        let mut coefficient_major = vec![0u64; len * t.words];
        for w in 0..t.words {
            for j in 0..len {
                coefficient_major[j * t.words + w] = major[w * len + j];
            }
        }
        Ok(Integers::from_parts(
            t.words,
            coefficient_major,
            negative[..len].iter().map(|&s| signed && s != 0).collect(),
        ))
    }

    /// The product of `a` and `b` modulo the primes of `set`, recombined: `len`
    /// coefficients.
    pub(crate) fn mul(
        &self,
        set: &PrimeSet,
        rings: &[Arc<PolyRing<Fp64>>],
        (a, b): (&Integers, &Integers),
        len: usize,
        signed: bool,
    ) -> Result<Integers, Error> {
        let ra = self.project(set, a)?;
        let rb = self.project(set, b)?;
        let c = ra
            .iter()
            .zip(&rb)
            .zip(rings)
            .map(|((x, y), ring)| ring.mul_device(x, y))
            .collect::<Result<Vec<_>, _>>()?;
        self.recombine(set, &c, len, signed)
    }
}
