//! The CRT route on the GPU: the operands' words go up once, the projection and the
//! recombination run as generated kernels ([`fermat_codegen::crt`]), and the residues
//! never leave the device between them and the word-prime products.

use super::primes::PrimeSet;
use super::residues::Integers;
use super::rings::CrtField;
use crate::gpu::{driver, Device, GpuError, BRANCHES};
use crate::poly::PolyRing;
use crate::poly::{PolyView, PolyViewMut};
use crate::Error;
use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaView, CudaViewMut, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use fermat_codegen::crt::{
    self as kernels, CrtPass, NarrowShape, ResidueWord, EXPLICIT_HEAD, NARROW_HEAD,
    NARROW_PROJECT_HEAD, PROJECT_HEAD, THREADS,
};
use fermat_codegen::CodegenError;
use num_bigint::BigUint;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Blocks of the kernels' grid-stride loops at most.
const BLOCKS: u32 = 1 << 12;

/// The size of a word-prime product's vectors from which the s products run one after
/// another: on an H200, products of 2^21 points by 62-bit primes (16 MiB vectors, their
/// transforms bound by 64-bit multiplications) ran 3–8 % slower side by side, where
/// eighteen by 31-bit primes (8 MiB) ran about 25 % faster and 34 of 2^17 points 38 %
/// (bench/RESULTS.md, "Products modulo m, round 2").
const SIDE_BY_SIDE_BYTES: usize = 16 << 20;

/// How many branch streams the s products take side by side, by their words: all
/// [`BRANCHES`] for 64-bit words, whose transforms wait on their multiplications' latency
/// (34 products of 2^17 points 13 % faster with eight than with four on an H100), half of
/// them for 32-bit words, which gained nothing from eight (69 products of 2^17 points
/// 10 % slower on an H100; eighteen of 2^21 points level on an H100, 8 % slower on an
/// H200) (bench/RESULTS.md, "Products modulo m, round 2" and "Eight branch streams").
fn branches_for<W>() -> usize {
    match std::mem::size_of::<W>() {
        8 => BRANCHES,
        _ => BRANCHES / 2,
    }
}

/// The CRT kernels for residues in one word width, compiled for one device.
pub(crate) struct CrtKernels {
    device: Arc<Device>,
    word: ResidueWord,
    _module: Arc<CudaModule>,
    functions: Vec<(CrtPass, CudaFunction)>,
    /// The narrow kernels compiled in the shapes met so far (each function holds its
    /// module).
    shaped: Mutex<HashMap<(CrtPass, NarrowShape), CudaFunction>>,
}

impl CrtKernels {
    /// Compiles (or takes from the disk cache) the kernels of residues in `word`s for
    /// `device`.
    pub(crate) fn compile(device: Arc<Device>, word: ResidueWord) -> Result<CrtKernels, Error> {
        let (module, _) = device.compile(&kernels::source(word)?)?;
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
            word,
            _module: module,
            functions,
            shaped: Mutex::new(HashMap::new()),
        })
    }

    /// The device the kernels run on.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    fn function(&self, pass: CrtPass) -> &CudaFunction {
        &self
            .functions
            .iter()
            .find(|(p, _)| *p == pass)
            .expect("every pass is loaded")
            .1
    }

    /// The narrow kernel of `pass` with its loops fixed at `shape`, compiled (or taken from
    /// the disk cache) the first time the shape is met: on an H200 the BN254 row's
    /// projection ran in 80 µs so against 180, its explicit CRT in 224 µs against 414
    /// (bench/RESULTS.md, "Products modulo m, round 3"). A shape beyond the kernels'
    /// registers takes the run-time kernel.
    fn narrow_function(&self, pass: CrtPass, shape: NarrowShape) -> Result<CudaFunction, Error> {
        let mut shaped = self.shaped.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = shaped.get(&(pass, shape)) {
            return Ok(f.clone());
        }
        let source = match kernels::shaped_source(pass, shape) {
            Ok(source) => source,
            Err(CodegenError::KernelShape { .. }) => return Ok(self.function(pass).clone()),
            Err(e) => return Err(e.into()),
        };
        let (module, _) = self.device.compile(&source)?;
        let f = module
            .load_function(&pass.shaped_name(shape))
            .map_err(driver("cuModuleGetFunction"))?;
        shaped.insert((pass, shape), f.clone());
        Ok(f)
    }

    /// A grid-stride loop over `work` items.
    fn config(&self, work: usize) -> LaunchConfig {
        let blocks = (work.div_ceil(THREADS as usize) as u32).clamp(1, BLOCKS);
        LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// `x` on the device: word w of integer j at `words[w·n + j]`, so that the threads of
    /// a warp read consecutive words.
    pub(crate) fn upload(&self, x: &Integers) -> Result<DeviceIntegers, Error> {
        let (n, limbs) = (x.len(), x.limbs());
        let mut major = vec![0u64; n.max(1) * limbs];
        for j in 0..n {
            for (w, &d) in x.magnitude(j).iter().enumerate() {
                major[w * n + j] = d;
            }
        }
        let signs: Vec<u32> = (0..n.max(1))
            .map(|j| u32::from(j < n && x.is_negative(j)))
            .collect();
        Ok(DeviceIntegers {
            words: crate::poly::upload(&self.device, &major)?,
            signs: crate::poly::upload(&self.device, &signs)?,
            len: n,
            limbs,
            signed: (0..n).any(|j| x.is_negative(j)),
        })
    }

    /// Copies integers back from the device.
    pub(crate) fn download(&self, x: &DeviceIntegers) -> Result<Integers, Error> {
        let stream = self.device.stream();
        let major = stream
            .clone_dtoh(&x.words)
            .map_err(driver("cuMemcpyDtoH"))?;
        let negative = stream
            .clone_dtoh(&x.signs)
            .map_err(driver("cuMemcpyDtoH"))?;
        let (len, limbs) = (x.len, x.limbs);
        let mut coefficient_major = vec![0u64; len * limbs];
        for w in 0..limbs {
            for j in 0..len {
                coefficient_major[j * limbs + w] = major[w * len + j];
            }
        }
        Ok(Integers::from_parts(
            limbs,
            coefficient_major,
            negative[..len]
                .iter()
                .map(|&s| x.signed && s != 0)
                .collect(),
        ))
    }

    /// The tables of the kernels for `set` and operands of `limbs` words, on the device.
    pub(crate) fn tables(&self, set: &PrimeSet, limbs: usize) -> Result<DeviceTables, Error> {
        let t = kernels::recombine_tables(set.primes());
        // Primes below 2^31 project in 32-bit products.
        let narrow = set.primes().iter().all(|&p| p < 1 << 31);
        Ok(DeviceTables {
            primes: set.len(),
            limbs,
            narrow,
            project: crate::poly::upload(
                &self.device,
                &if narrow {
                    kernels::project_constants_narrow(set.primes(), limbs)
                } else {
                    kernels::project_constants(set.primes(), limbs)
                },
            )?,
            recombine: crate::poly::upload(&self.device, &t.constants)?,
            bases: crate::poly::upload(&self.device, &t.bases)?,
            recombine_row: t.row,
            words: t.words,
        })
    }

    /// Rows `first..first + rows` of the residues of `x` (row r modulo prime `first + r`,
    /// `dst_len` residues, zeros past x's length) into `dst`, rows `dist` words apart: one
    /// launch.
    pub(crate) fn project_into<W: DeviceRepr>(
        &self,
        tables: &DeviceTables,
        x: &DeviceIntegers,
        (first, rows): (usize, usize),
        dst: &mut CudaViewMut<'_, W>,
        (dst_len, dist): (usize, usize),
    ) -> Result<(), Error> {
        self.check_word::<W>();
        // The callers make the tables for their operands' width.
        let limbs = tables.limbs;
        debug_assert!(x.limbs <= limbs, "tables of {limbs} words for {}", x.limbs);
        let (row, pass, function) = if tables.narrow {
            let pass = CrtPass::ProjectNarrow { signed: x.signed };
            let shape = NarrowShape {
                primes: rows as u64,
                words: x.limbs as u64,
                mwords: 0,
            };
            let row = (NARROW_PROJECT_HEAD + kernels::project_digits(limbs as u64)) as usize;
            (row, pass, self.narrow_function(pass, shape)?)
        } else {
            let pass = CrtPass::Project { signed: x.signed };
            (
                PROJECT_HEAD as usize + limbs,
                pass,
                self.function(pass).clone(),
            )
        };
        let consts = tables.project.slice(first * row..);
        let (n64, dst_len64, words64, row64, rows64, dist64) = (
            x.len as u64,
            dst_len as u64,
            x.limbs as u64,
            row as u64,
            rows as u64,
            dist as u64,
        );
        let mut launch = self.device.stream().launch_builder(&function);
        launch
            .arg(&x.words)
            .arg(&n64)
            .arg(&n64)
            .arg(&words64)
            .arg(&x.signs)
            .arg(&consts)
            .arg(&row64)
            .arg(&rows64)
            .arg(dst)
            .arg(&dst_len64)
            .arg(&dist64);
        // SAFETY: the arguments follow `PROJECT_ARGS` in order and type; `x.words` holds
        // `x.limbs` rows of n words and `x.signs` n words (the weights of the first
        // `x.limbs` words, or their digits, of each constants row apply), `consts` holds
        // `rows` rows of `row` words, and `dst` holds `rows` rows of `dst_len` words
        // `dist` apart, each written once; a shaped kernel takes the same arguments, its
        // shape those of `rows` and `x.limbs`.
        unsafe { launch.launch(self.config(dst_len)) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        Ok(())
    }

    /// The integers of the residue rows `residues` (row i modulo prime i of the tables'
    /// set, `dist` words apart), the first `out.len` of each row, into `out`:
    /// Σ_k v_k·B_k for Garner's digits v_k and the `bases` B_k = p_1⋯p_(k−1), `words`
    /// words each.
    pub(crate) fn recombine_into<W: DeviceRepr>(
        &self,
        tables: &DeviceTables,
        residues: &CudaView<'_, W>,
        dist: usize,
        out: &mut DeviceIntegers,
    ) -> Result<(), Error> {
        self.check_word::<W>();
        let pass = CrtPass::Recombine { signed: out.signed };
        let (bases, words) = (&tables.bases, tables.words);
        let len = out.len;
        let (len64, dist64, s64, row64, words64) = (
            len as u64,
            dist as u64,
            tables.primes as u64,
            tables.recombine_row as u64,
            words as u64,
        );
        let mut launch = self.device.stream().launch_builder(self.function(pass));
        launch
            .arg(residues)
            .arg(&len64)
            .arg(&dist64)
            .arg(&s64)
            .arg(&tables.recombine)
            .arg(&row64)
            .arg(bases)
            .arg(&words64)
            .arg(&mut out.signs)
            .arg(&mut out.words)
            .arg(&len64);
        // SAFETY: the arguments follow `RECOMBINE_ARGS` in order and type; `residues` holds
        // s rows of at least `len` words `dist` apart, the tables are `recombine_tables`'
        // for the same s ≤ MAX_PRIMES primes (checked where the tables are made), `bases`
        // holds s rows of `words` words, and `out` has room for `len` integers of `words`
        // words (its callers allocate it so).
        unsafe { launch.launch(self.config(len)) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        Ok(())
    }

    /// The residues modulo m of the integers x in [0, P/2) whose residues are the rows
    /// `residues` (row i modulo prime i of the tables' set, `dist` words apart), the first
    /// `out.len` of each row, into `out` by the explicit CRT: one launch. By the narrow
    /// tables ([`CrtPass::ExplicitNarrow`]) they are reduced, in `mwords` words; by the
    /// wide ones ([`CrtPass::Explicit`]), sums S ≡ x (mod m) in `words` words that
    /// [`reduce`](Self::reduce) takes to [0, m).
    fn explicit_into<W: DeviceRepr>(
        &self,
        modular: &ModularTables,
        (residues, primes): (&CudaView<'_, W>, usize),
        dist: usize,
        out: &mut DeviceIntegers,
    ) -> Result<(), Error> {
        self.check_word::<W>();
        let (pass, function, row, constants, bases, words, mwords) = match &modular.route {
            ModularRoute::Narrow(n) => {
                let shape = NarrowShape {
                    primes: primes as u64,
                    words: n.digits as u64,
                    mwords: n.mwords as u64,
                };
                let pass = CrtPass::ExplicitNarrow;
                let f = self.narrow_function(pass, shape)?;
                let mwords = Some(n.mwords as u64);
                (
                    pass,
                    f,
                    NARROW_HEAD,
                    &n.constants,
                    &n.bases,
                    n.digits,
                    mwords,
                )
            }
            ModularRoute::Wide(w) => {
                let pass = CrtPass::Explicit;
                let f = self.function(pass).clone();
                (
                    pass,
                    f,
                    EXPLICIT_HEAD,
                    &w.constants,
                    &w.bases,
                    w.words,
                    None,
                )
            }
        };
        let (len64, dist64, s64, words64) =
            (out.len as u64, dist as u64, primes as u64, words as u64);
        let mut launch = self.device.stream().launch_builder(&function);
        launch
            .arg(residues)
            .arg(&len64)
            .arg(&dist64)
            .arg(&s64)
            .arg(constants)
            .arg(&row)
            .arg(bases)
            .arg(&words64)
            .arg(&mut out.words)
            .arg(&len64);
        if let Some(mwords) = &mwords {
            launch.arg(mwords);
        }
        // SAFETY: the arguments follow `EXPLICIT_ARGS`, or `NARROW_ARGS` with `mwords`
        // last, in order and type; `residues` holds `primes` rows of at least `out.len`
        // words `dist` apart; the tables are `modular_tables`' or `narrow_tables`' for
        // those primes (a shaped kernel's shape theirs); and `out` has room for `out.len`
        // integers of `words` (or `mwords`) words: its caller allocates it so.
        unsafe { launch.launch(self.config(out.len)) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        Ok(())
    }

    /// Room on the device for `len` integers of `words` words.
    pub(crate) fn alloc_integers(
        &self,
        words: usize,
        len: usize,
        signed: bool,
    ) -> Result<DeviceIntegers, Error> {
        Ok(DeviceIntegers {
            words: self.device.alloc_unset(words * len.max(1))?,
            signs: self.device.alloc(len.max(1))?,
            len,
            limbs: words,
            signed,
        })
    }

    /// The tables of products modulo `m` over `set`, on the device: the narrow route's
    /// where the kernels' residues are 32-bit words, m is odd and the primes are of 31
    /// bits, else the wide route's; `None` when the set is larger than the reduction
    /// covers (more than [`MAX_PRIMES`] primes).
    ///
    /// [`MAX_PRIMES`]: fermat_codegen::crt::MAX_PRIMES
    pub(crate) fn modular_tables(
        &self,
        set: &PrimeSet,
        m: &BigUint,
    ) -> Result<Option<ModularTables>, Error> {
        let up = |words: &[u64]| crate::poly::upload(&self.device, words);
        let narrow = match self.word {
            ResidueWord::U32 => kernels::narrow_tables(set.primes(), m),
            ResidueWord::U64 => None,
        };
        let route = match narrow {
            Some(n) => ModularRoute::Narrow(NarrowTables {
                constants: up(&n.constants)?,
                bases: up(&n.bases)?,
                digits: n.digits,
                mwords: n.mwords,
            }),
            None => {
                let Some(t) = kernels::modular_tables(set.primes(), m) else {
                    return Ok(None);
                };
                ModularRoute::Wide(WideTables {
                    constants: up(&t.constants)?,
                    bases: up(&t.bases)?,
                    words: t.words,
                    reduce: up(&t.reduce)?,
                    mwords: t.mwords,
                })
            }
        };
        Ok(Some(ModularTables {
            route,
            limbs: (m.bits().div_ceil(64) as usize).max(1),
        }))
    }

    /// `x`, integers below 2^(bits(m) − 1 + 72) of `wide.words` words, taken modulo m in
    /// place: one launch; `x` then holds m's `limbs` words.
    fn reduce(
        &self,
        (wide, limbs): (&WideTables, usize),
        x: &mut DeviceIntegers,
    ) -> Result<(), Error> {
        let pass = CrtPass::Reduce;
        let (len64, words64, mwords64) = (x.len as u64, x.limbs as u64, wide.mwords as u64);
        let mut launch = self.device.stream().launch_builder(self.function(pass));
        launch
            .arg(&mut x.words)
            .arg(&len64)
            .arg(&len64)
            .arg(&words64)
            .arg(&wide.reduce)
            .arg(&mwords64);
        // SAFETY: the arguments follow `REDUCE_ARGS` in order and type; `x.words` holds
        // `x.limbs` ≥ `mwords` rows of `x.len` words, and `reduce` is `modular_tables`'
        // constants row for `mwords` words of m.
        unsafe { launch.launch(self.config(x.len)) }.map_err(|source| GpuError::Launch {
            kernel: pass.name().to_string(),
            source,
        })?;
        x.limbs = limbs;
        Ok(())
    }

    /// The kernels' residues are `W`s: a mismatch is a bug of the caller.
    fn check_word<W>(&self) {
        let bytes = match self.word {
            ResidueWord::U32 => 4,
            ResidueWord::U64 => 8,
        };
        debug_assert_eq!(
            std::mem::size_of::<W>(),
            bytes,
            "residues of {:?}",
            self.word
        );
    }

    /// The product of integer polynomials on the device modulo the primes of `rings`,
    /// recombined into `len` coefficients — the integers, or with `modular` their
    /// residues modulo m — by the tables of that prime set (made for operands of at least
    /// their words): the result stays there.
    ///
    /// Each operand is projected onto every prime in one launch, as rows of one buffer;
    /// each prime's product reads its rows and writes its own row of a third, on the
    /// device's branch streams side by side; one recombination reads them all.
    pub(crate) fn mul_device<F: CrtField>(
        &self,
        tables: &DeviceTables,
        rings: &[Arc<PolyRing<F>>],
        (a, b): (&DeviceIntegers, &DeviceIntegers),
        len: usize,
        output: Output<'_>,
    ) -> Result<DeviceIntegers, Error> {
        debug_assert_eq!(rings.len(), tables.primes);
        debug_assert!(a.limbs.max(b.limbs) <= tables.limbs);
        let s = tables.primes;
        let project = |x: &DeviceIntegers| -> Result<CudaSlice<F::Word>, Error> {
            let mut rows: CudaSlice<F::Word> = self.device.alloc_unset(s * x.len)?;
            self.project_into(tables, x, (0, s), &mut rows.slice_mut(..), (x.len, x.len))?;
            Ok(rows)
        };
        let (ra, rb) = (project(a)?, project(b)?);
        let mut rc: CudaSlice<F::Word> = self.device.alloc_unset(s * len)?;
        // The products are independent: on branch streams they fill the device together,
        // where one after another each left it idle in its launches' tails — except
        // products of vectors of SIDE_BY_SIDE_BYTES or more, which fill it alone.
        let main = self.device.stream().clone();
        let vector_bytes = len.next_power_of_two() * std::mem::size_of::<F::Word>();
        let branches = if vector_bytes < SIDE_BY_SIDE_BYTES {
            &self.device.branch_streams()?[..s.clamp(1, branches_for::<F::Word>())]
        } else {
            std::slice::from_ref(&main)
        };
        for branch in branches.iter().filter(|b| !Arc::ptr_eq(b, &main)) {
            self.device.join(branch, &main)?;
        }
        fn row<W>(rows: &CudaSlice<W>, i: usize, n: usize) -> PolyView<'_, W> {
            PolyView {
                data: rows.slice(i * n..(i + 1) * n),
                len: n,
                cap: n,
            }
        }
        let products = rings.iter().enumerate().try_for_each(|(i, ring)| {
            let plan = ring.product_plan(a.len, b.len)?;
            debug_assert_eq!(plan.len(), len);
            let mut c = PolyViewMut {
                data: rc.slice_mut(i * len..(i + 1) * len),
                cap: len,
            };
            ring.run_device_on(
                &branches[i % branches.len()],
                &plan,
                &row(&ra, i, a.len),
                Some(&row(&rb, i, b.len)),
                &mut c,
            )
        });
        // The main stream waits for the branches before anything it frees or reads.
        for branch in branches.iter().filter(|b| !Arc::ptr_eq(b, &main)) {
            self.device.join(&main, branch)?;
        }
        products?;
        let residues = rc.slice(..);
        match output {
            Output::Integers { signed } => {
                let mut out = self.alloc_integers(tables.words, len, signed)?;
                self.recombine_into(tables, &residues, len, &mut out)?;
                Ok(out)
            }
            Output::Modulo(modular) => {
                let words = match &modular.route {
                    ModularRoute::Narrow(n) => n.mwords,
                    ModularRoute::Wide(w) => w.words,
                };
                let mut out = self.alloc_integers(words, len, false)?;
                self.explicit_into(modular, (&residues, s), len, &mut out)?;
                match &modular.route {
                    ModularRoute::Narrow(_) => out.limbs = modular.limbs,
                    ModularRoute::Wide(w) => self.reduce((w, modular.limbs), &mut out)?,
                }
                Ok(out)
            }
        }
    }
}

/// What [`CrtKernels::mul_device`] recombines the residues into.
pub(crate) enum Output<'a> {
    /// The integers, signed or not.
    Integers {
        /// Whether the product's coefficients may be negative.
        signed: bool,
    },
    /// Their residues modulo m, by these tables.
    Modulo(&'a ModularTables),
}

/// The tables of products modulo m on the device, of one route.
pub(crate) struct ModularTables {
    route: ModularRoute,
    /// Words of m: the width of the results.
    limbs: usize,
}

/// How the residues of a product become its coefficients modulo m.
enum ModularRoute {
    /// One kernel, [`CrtPass::ExplicitNarrow`]: primes of 31 bits and an odd m.
    Narrow(NarrowTables),
    /// [`CrtPass::Explicit`]'s sums, then [`CrtPass::Reduce`].
    Wide(WideTables),
}

/// The tables of [`CrtPass::Explicit`] and [`CrtPass::Reduce`] on the device (see
/// [`fermat_codegen::crt::ModularTables`]).
struct WideTables {
    constants: CudaSlice<u64>,
    bases: CudaSlice<u64>,
    words: usize,
    reduce: CudaSlice<u64>,
    mwords: usize,
}

/// The tables of [`CrtPass::ExplicitNarrow`] on the device (see
/// [`fermat_codegen::crt::NarrowTables`]).
struct NarrowTables {
    constants: CudaSlice<u64>,
    bases: CudaSlice<u64>,
    digits: usize,
    mwords: usize,
}

impl ModularTables {
    /// Words of m: the width of the residues the products give.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }
}

/// Integers on the device, word-major: word w of integer j at `words[w·len + j]`, and
/// one sign word per integer (nonzero: negative). Made by [`CrtDft::upload`] and
/// [`CrtDft::alloc_output`] (an example is there).
///
/// ```
/// use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
/// use fermat::num_bigint::BigInt;
///
/// let dft = CrtDft::new(PrimeSet::for_bits(Width::Bits62, 8, 200)?, 4, 2, fermat::Backend::Auto)?;
/// let x = Integers::from_bigints(&[1, -2, 3, -4].map(|v| BigInt::from(v) << 64u32));
/// let on_device = match dft.upload(&x) {
///     Ok(on_device) => on_device,
///     Err(fermat::Error::NotOnGpu) => {
///         assert!(!dft.on_gpu());
///         return Ok(());
///     }
///     Err(e) => return Err(e),
/// };
/// assert_eq!((on_device.len(), on_device.is_empty(), on_device.limbs()), (4, false, 2));
/// assert!(on_device.is_signed()); // two are negative
/// assert_eq!(dft.download(&on_device)?.to_bigints(), x.to_bigints());
/// # Ok::<(), fermat::Error>(())
/// ```
///
/// [`CrtDft::upload`]: super::CrtDft::upload
/// [`CrtDft::alloc_output`]: super::CrtDft::alloc_output
pub struct DeviceIntegers {
    words: CudaSlice<u64>,
    signs: CudaSlice<u32>,
    len: usize,
    limbs: usize,
    signed: bool,
}

impl DeviceIntegers {
    /// How many integers ([`DeviceIntegers`] has an example).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none ([`DeviceIntegers`] has an example).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// 64-bit words per integer ([`DeviceIntegers`] has an example).
    pub fn limbs(&self) -> usize {
        self.limbs
    }

    /// Whether the integers carry signs (some were negative when they went up, or they
    /// are a signed product); unsigned ones need one bit less of primes
    /// ([`DeviceIntegers`] has an example).
    pub fn is_signed(&self) -> bool {
        self.signed
    }
}

impl std::fmt::Debug for DeviceIntegers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceIntegers")
            .field("len", &self.len)
            .field("limbs", &self.limbs)
            .field("signed", &self.signed)
            .finish()
    }
}

impl DeviceTables {
    /// Words per recombined integer.
    pub(crate) fn words(&self) -> usize {
        self.words
    }
}

/// The constants of the kernels for one prime set and operand width, on the device.
pub(crate) struct DeviceTables {
    primes: usize,
    limbs: usize,
    /// Whether every prime is below 2^31, for [`CrtPass::ProjectNarrow`].
    narrow: bool,
    project: CudaSlice<u64>,
    recombine: CudaSlice<u64>,
    bases: CudaSlice<u64>,
    recombine_row: usize,
    words: usize,
}
