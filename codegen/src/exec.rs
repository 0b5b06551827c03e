//! The CPU executor: runs a [`Plan`] exactly as the generated kernels do — the same
//! gather and scatter maps, the same straight-line body per piece, the same buffers — so
//! that every lowering is checked without a GPU.

use crate::contract::Input;
use crate::plan::{BitField, Codelet, Direction, KernelPlan, Op, Plan, Step};
use fermat_dsl::field::{Field, FieldError, Roots};
use thiserror::Error;

/// Why a plan could not run.
///
/// ```
/// use fermat_codegen::exec::{execute, ExecError};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(17)?; // 17 − 1 = 2^4: roots of unity of orders up to 16
/// let plan = Plan::lower(&Formula::dft(8)?, PlanOptions::default())?;
/// let err = execute(&f, &plan, &[f.zero(); 4], &mut [f.zero(); 8]).unwrap_err();
/// assert_eq!(err, ExecError::Length { what: "input", len: 4, n: 8 });
/// let plan = Plan::lower(&Formula::dft(32)?, PlanOptions::default())?;
/// let err = execute(&f, &plan, &[f.zero(); 32], &mut [f.zero(); 32]).unwrap_err();
/// assert!(matches!(err, ExecError::Field(_))); // no ω_32 modulo 17
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ExecError {
    /// A buffer of the wrong length.
    #[error("{what} has {len} elements; the plan transforms {n}")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The plan's size.
        n: u64,
    },
    /// The field has no root of unity of a size the plan uses.
    #[error(transparent)]
    Field(#[from] FieldError),
}

/// Runs `plan` on `input`, writing `output`, over `field` with the canonical roots.
///
/// ```
/// use fermat_codegen::exec::execute;
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(8) over babybear: the transform of x = (0, 1, 0, …, 0) is the powers of ω_8.
/// let f = Fp32::new(2013265921)?;
/// let plan = Plan::lower(&Formula::dft(8)?, PlanOptions::default())?;
/// let (mut x, mut y) = (vec![f.zero(); 8], vec![f.zero(); 8]);
/// x[1] = f.one();
/// execute(&f, &plan, &x, &mut y)?;
/// let w = f.root_of_unity(8)?;
/// assert!((0..8).all(|i| y[i] == f.pow_u64(&w, i as u64)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn execute<F: Field>(
    field: &F,
    plan: &Plan,
    input: &[F::Elem],
    output: &mut [F::Elem],
) -> Result<(), ExecError> {
    let roots = Roots::canonical(field, plan.max_log_order(), plan.n())?;
    execute_with(field, plan, &roots, input, output)
}

/// Runs `plan` with precomputed roots (reuse them across calls).
///
/// ```
/// use fermat_codegen::exec::execute_with;
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let plan = Plan::lower(&Formula::dft(16)?, PlanOptions::default())?;
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let mut y = vec![f.zero(); 16];
/// for v in 1..4 {
///     // The transform of a constant vector v is (16·v, 0, …, 0).
///     execute_with(&f, &plan, &roots, &vec![f.from_u64(v); 16], &mut y)?;
///     assert_eq!(y[0], f.from_u64(16 * v));
///     assert!(y[1..].iter().all(|e| *e == f.zero()));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn execute_with<F: Field>(
    field: &F,
    plan: &Plan,
    roots: &Roots<F>,
    input: &[F::Elem],
    output: &mut [F::Elem],
) -> Result<(), ExecError> {
    execute_io(field, plan, roots, Input::shared(input), None, output)
}

/// Runs a plan of any [`Io`](crate::plan::Io): `input` holds n elements, or at most n
/// where the plan reads a short input (the rest are zero); `operand` the n elements the
/// first pass multiplies by, where the plan has a pointwise product; `output` n elements,
/// or the first ones only where the plan writes a short output. A plan with a short output
/// clobbers an input it is given up ([`Input::Clobbered`]).
///
/// A cyclic product of length 8, (1 + x)·(1 + 2x + x²), as a product's three transforms:
///
/// ```
/// use fermat_codegen::contract::Input;
/// use fermat_codegen::exec::execute_io;
/// use fermat_codegen::plan::{Direction, Io, Order, Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let (dft, reversed) = (Formula::dft(8)?, Order::BitReversed);
/// let forward = PlanOptions { output_order: reversed, io: Io::FACTOR, ..PlanOptions::default() };
/// let (direction, io) = (Direction::Inverse, Io::PRODUCT);
/// let inverse = PlanOptions { input_order: reversed, direction, io, ..PlanOptions::default() };
/// let (forward, inverse) = (Plan::lower(&dft, forward)?, Plan::lower(&dft, inverse)?);
/// let roots = Roots::canonical(&f, 3, 8)?;
/// let poly = |c: &[u64]| c.iter().map(|&v| f.from_u64(v)).collect::<Vec<_>>();
/// let (mut a, mut b) = (vec![f.zero(); 8], vec![f.zero(); 8]);
/// execute_io(&f, &forward, &roots, Input::shared(&poly(&[1, 1])), None, &mut a)?;
/// execute_io(&f, &forward, &roots, Input::shared(&poly(&[1, 2, 1])), None, &mut b)?;
/// let mut product = vec![f.zero(); 4]; // the first 4 coefficients only
/// execute_io(&f, &inverse, &roots, Input::Clobbered(&mut a), Some(&b), &mut product)?;
/// assert_eq!(product, poly(&[1, 3, 3, 1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn execute_io<F: Field>(
    field: &F,
    plan: &Plan,
    roots: &Roots<F>,
    input: Input<'_, F::Elem>,
    operand: Option<&[F::Elem]>,
    output: &mut [F::Elem],
) -> Result<(), ExecError> {
    let n = plan.n();
    let io = plan.io();
    let fits = |len: usize, short: bool| len as u64 == n || (short && (len as u64) < n);
    for (what, len, short) in [
        ("input", input_len(&input), io.short_input),
        ("output", output.len(), io.short_output),
    ] {
        if !fits(len, short) {
            return Err(ExecError::Length { what, len, n });
        }
    }
    let operand = match (io.pointwise, operand) {
        (true, Some(op)) if op.len() as u64 == n => op,
        (true, op) => {
            return Err(ExecError::Length {
                what: "operand",
                len: op.map_or(0, <[_]>::len),
                n,
            })
        }
        (false, _) => &[],
    };
    plan.run_passes(input, output, field.zero(), |kernel, src, dst| {
        KernelRunner::new(field, plan, roots, kernel).run(src, operand, dst)
    });
    Ok(())
}

fn input_len<T: Clone>(input: &Input<'_, T>) -> usize {
    match input {
        Input::Shared(read) => read.len(),
        Input::Clobbered(written) => written.len(),
    }
}

/// One kernel of a plan, ready to run piece by piece: what a thread block does.
///
/// Backends that run pieces in parallel use [`KernelRunner::piece`] and
/// [`KernelPlan::scatter`]; [`KernelRunner::run`] runs them all in order.
///
/// ```
/// use fermat_codegen::exec::{execute, KernelRunner};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::field::{Field, Fp32, Roots};
/// use fermat_dsl::formula::Formula;
///
/// let f = Fp32::new(2013265921)?;
/// let plan = Plan::lower(&Formula::dft(16)?, PlanOptions::default())?; // one kernel
/// let roots = Roots::canonical(&f, plan.max_log_order(), plan.n())?;
/// let x: Vec<_> = (0..16).map(|v| f.from_u64(v)).collect();
/// let (mut y, mut want) = (vec![f.zero(); 16], vec![f.zero(); 16]);
/// KernelRunner::new(&f, &plan, &roots, &plan.kernels[0]).run(&x, &[], &mut y);
/// execute(&f, &plan, &x, &mut want)?;
/// assert_eq!(y, want);
/// assert_eq!(y[0], f.from_u64(120)); // 0 + 1 + … + 15
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct KernelRunner<'a, F: Field> {
    field: &'a F,
    roots: &'a Roots<F>,
    kernel: &'a KernelPlan,
    maps: Vec<StepMaps<'a>>,
    /// The local parts of the gather and scatter addresses, by local index.
    gather: Vec<u64>,
    scatter: Vec<u64>,
    inverse: bool,
}

/// What a step needs per local element, computed once per kernel rather than per element
/// of every piece.
///
/// Every index map of a kernel takes each bit from either the piece index or the local
/// index (gather and scatter addresses, the twiddle factors' bit fields), so it is the OR
/// of a piece part and a local part: the local parts are tabulated here, and the piece
/// parts cost one evaluation per piece.
enum StepMaps<'a> {
    /// The DFT's groups in order: the local indices of group g's registers are
    /// `order[g·2^b..(g + 1)·2^b]`.
    Dft {
        codelet: Codelet,
        order: Vec<u32>,
    },
    /// The twiddle's root order and row and column bit fields, with their local parts.
    Twiddle {
        log_order: u32,
        x: &'a BitField,
        y: &'a BitField,
        local: Vec<(u64, u64)>,
    },
    Scale,
}

impl<'a, F: Field> KernelRunner<'a, F> {
    /// Prepares `kernel` of `plan` (its codelets and index tables) with the given roots
    /// ([`KernelRunner`] has an example).
    pub fn new(field: &'a F, plan: &Plan, roots: &'a Roots<F>, kernel: &'a KernelPlan) -> Self {
        let size = 1u64 << kernel.local_bits();
        let maps = kernel
            .steps
            .iter()
            .map(|step| match step {
                Step::Dft { locals } => {
                    let mask: u64 = locals.iter().map(|&c| 1u64 << c).sum();
                    let position = |base: u64, v: u64| {
                        locals
                            .iter()
                            .enumerate()
                            .fold(base, |acc, (i, &c)| acc | (((v >> i) & 1) << c))
                            as u32
                    };
                    let order = (0..size)
                        .filter(|b| b & mask == 0)
                        .flat_map(|base| (0..1u64 << locals.len()).map(move |v| position(base, v)))
                        .collect();
                    StepMaps::Dft {
                        codelet: Codelet::radix2(locals.len() as u32),
                        order,
                    }
                }
                Step::Twiddle { log_order, x, y } => StepMaps::Twiddle {
                    log_order: *log_order,
                    x,
                    y,
                    local: (0..size).map(|j| (x.eval(j, 0), y.eval(j, 0))).collect(),
                },
                Step::Scale => StepMaps::Scale,
            })
            .collect();
        KernelRunner {
            field,
            roots,
            kernel,
            maps,
            gather: (0..size).map(|j| kernel.gather(0, j)).collect(),
            scatter: (0..size).map(|j| kernel.scatter(0, j)).collect(),
            inverse: plan.options.direction == Direction::Inverse,
        }
    }

    /// The addresses piece `p`'s local elements are written to, in local order: element
    /// j's is `kernel.scatter(p, j)` ([`KernelRunner::piece`] has an example).
    pub fn scatter(&self, p: u64) -> impl Iterator<Item = u64> + '_ {
        let base = self.kernel.scatter(p, 0);
        self.scatter.iter().map(move |&local| base | local)
    }

    /// Runs every piece in order, reading `src` (and `operand`, for a kernel with a
    /// pointwise product) and writing `dst`. A short `src` is read as zeros beyond its
    /// end, and a short `dst` is written up to its end, as the kernels do ([`KernelRunner`]
    /// has an example).
    pub fn run(&self, src: &[F::Elem], operand: &[F::Elem], dst: &mut [F::Elem]) {
        let mut piece = Vec::new();
        let mut regs = Vec::new();
        for p in 0..self.kernel.pieces() {
            self.piece(p, src, operand, &mut piece, &mut regs);
            for (a, value) in self.scatter(p).zip(&*piece) {
                if let Some(slot) = dst.get_mut(a as usize) {
                    *slot = *value;
                }
            }
        }
    }

    /// Gathers piece `p` from `src` into `piece` (each element times the operand's at its
    /// address, for a kernel with a pointwise product; zero beyond a short `src`) and runs
    /// the body on it; local element j then belongs at `kernel.scatter(p, j)`. `regs` is
    /// scratch space.
    ///
    /// ```
    /// use fermat_codegen::exec::KernelRunner;
    /// use fermat_codegen::plan::{Plan, PlanOptions};
    /// use fermat_dsl::field::{Field, Fp32, Roots};
    /// use fermat_dsl::formula::Formula;
    ///
    /// // I(4) ⊗ DFT(16): one kernel of four independent pieces of 16 elements.
    /// let f = Fp32::new(2013265921)?;
    /// let formula = Formula::tensor(vec![Formula::identity(4)?, Formula::dft(16)?])?;
    /// let plan = Plan::lower(&formula, PlanOptions::default())?;
    /// let (k, roots) = (&plan.kernels[0], Roots::canonical(&f, 4, 64)?);
    /// let runner = KernelRunner::new(&f, &plan, &roots, k);
    /// let x: Vec<_> = (0..64).map(|v| f.from_u64(v)).collect();
    /// let (mut y, mut piece, mut regs) = (vec![f.zero(); 64], Vec::new(), Vec::new());
    /// for p in (0..k.pieces()).rev() {
    ///     // In any order, as the blocks of a kernel run.
    ///     runner.piece(p, &x, &[], &mut piece, &mut regs);
    ///     runner.scatter(p).zip(&piece).for_each(|(a, v)| y[a as usize] = *v);
    /// }
    /// assert_eq!((y[0], y[16]), (f.from_u64(120), f.from_u64(376))); // sums of 16 elements
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn piece(
        &self,
        p: u64,
        src: &[F::Elem],
        operand: &[F::Elem],
        piece: &mut Vec<F::Elem>,
        regs: &mut Vec<F::Elem>,
    ) {
        let (field, roots, inverse) = (self.field, self.roots, self.inverse);
        let zero = field.zero();
        let base = self.kernel.gather(p, 0);
        piece.clear();
        piece.extend(self.gather.iter().map(|&local| {
            let a = (base | local) as usize;
            let x = src.get(a).copied().unwrap_or(zero);
            if self.kernel.io.pointwise {
                field.mul(&x, &operand[a])
            } else {
                x
            }
        }));
        for maps in &self.maps {
            match maps {
                StepMaps::Dft { codelet, order } => {
                    for group in order.chunks(1 << codelet.bits) {
                        regs.clear();
                        regs.extend(group.iter().map(|&j| piece[j as usize]));
                        run_codelet(field, roots, codelet, inverse, regs);
                        for (&j, &r) in group.iter().zip(&codelet.out) {
                            piece[j as usize] = regs[r as usize];
                        }
                    }
                }
                StepMaps::Twiddle {
                    log_order,
                    x,
                    y,
                    local,
                } => {
                    let (x_piece, y_piece) = (x.eval(0, p), y.eval(0, p));
                    for (slot, &(xj, yj)) in piece.iter_mut().zip(local) {
                        let e = (x_piece | xj).wrapping_mul(y_piece | yj);
                        *slot = roots.rotate(field, slot, *log_order, e, inverse);
                    }
                }
                StepMaps::Scale => {
                    for slot in piece.iter_mut() {
                        *slot = field.mul(slot, roots.n_inv());
                    }
                }
            }
        }
    }
}

fn run_codelet<F: Field>(
    field: &F,
    roots: &Roots<F>,
    codelet: &Codelet,
    inverse: bool,
    regs: &mut [F::Elem],
) {
    for op in &codelet.ops {
        match *op {
            Op::Butterfly { a, b } => {
                let (u, v) = (regs[a as usize], regs[b as usize]);
                regs[a as usize] = field.add(&u, &v);
                regs[b as usize] = field.sub(&u, &v);
            }
            Op::Rotate {
                reg,
                log_order,
                exp,
            } => {
                let r = reg as usize;
                regs[r] = roots.rotate(field, &regs[r], log_order, exp, inverse);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::{Order, PlanOptions};
    use fermat_dsl::formula::Formula;
    use num_bigint::BigUint;

    /// A plain prime field (u128 remainders) so the executor is tested on its own.
    #[derive(Clone, Debug)]
    pub(crate) struct Plain(pub u64);

    impl Field for Plain {
        type Elem = u64;
        fn name(&self) -> String {
            self.0.to_string()
        }
        fn modulus(&self) -> BigUint {
            self.0.into()
        }
        fn two_adicity(&self) -> u32 {
            (self.0 - 1).trailing_zeros()
        }
        fn zero(&self) -> u64 {
            0
        }
        fn one(&self) -> u64 {
            1
        }
        fn add(&self, a: &u64, b: &u64) -> u64 {
            ((*a as u128 + *b as u128) % self.0 as u128) as u64
        }
        fn sub(&self, a: &u64, b: &u64) -> u64 {
            ((*a as u128 + self.0 as u128 - *b as u128) % self.0 as u128) as u64
        }
        fn neg(&self, a: &u64) -> u64 {
            (self.0 - a) % self.0
        }
        fn mul(&self, a: &u64, b: &u64) -> u64 {
            ((*a as u128 * *b as u128) % self.0 as u128) as u64
        }
        fn from_biguint(&self, x: &BigUint) -> Result<u64, FieldError> {
            u64::try_from(x)
                .ok()
                .filter(|&v| v < self.0)
                .ok_or_else(|| FieldError::OutOfRange {
                    value: x.clone(),
                    p: self.modulus(),
                })
        }
        fn to_biguint(&self, a: &u64) -> BigUint {
            (*a).into()
        }
    }

    /// Recursive Cooley–Tukey with radix 2^r: DFT(JK) = (DFT(J) ⊗ I(K))·D(J,K)·(I(J) ⊗ DFT(K))·L(JK,J).
    pub(crate) fn cooley_tukey(n: u64, k: u64) -> Formula {
        if n <= k {
            return Formula::dft(n).unwrap();
        }
        let j = n / k;
        Formula::compose(vec![
            Formula::tensor(vec![cooley_tukey(j, k), Formula::identity(k).unwrap()]).unwrap(),
            Formula::twiddle(j, k).unwrap(),
            Formula::tensor(vec![
                Formula::identity(j).unwrap(),
                Formula::dft(k).unwrap(),
            ])
            .unwrap(),
            Formula::stride(n, j).unwrap(),
        ])
        .unwrap()
    }

    fn naive_dft(f: &Plain, x: &[u64], w: u64) -> Vec<u64> {
        (0..x.len())
            .map(|i| {
                let wi = f.pow_u64(&w, i as u64);
                x.iter()
                    .rev()
                    .fold(0, |acc, xj| f.add(&f.mul(&acc, &wi), xj))
            })
            .collect()
    }

    fn bitrev(i: u64, bits: u32) -> u64 {
        if bits == 0 {
            0
        } else {
            i.reverse_bits() >> (64 - bits)
        }
    }

    fn check(n: u64, k: u64, options: PlanOptions) {
        let field = Plain(469_762_049);
        let plan = Plan::lower(&cooley_tukey(n, k), options).unwrap();
        let x: Vec<u64> = (0..n).map(|i| (i * i * 7919 + 13) % field.0).collect();
        let log_n = n.trailing_zeros();
        let input: Vec<u64> = match options.input_order {
            Order::Natural => x.clone(),
            Order::BitReversed => (0..n).map(|i| x[bitrev(i, log_n) as usize]).collect(),
        };
        let mut out = vec![u64::MAX; n as usize];
        execute(&field, &plan, &input, &mut out).unwrap();
        let w = field.root_of_unity(n).unwrap();
        let w = if options.direction == Direction::Inverse {
            field.inv(&w).unwrap()
        } else {
            w
        };
        let mut want = naive_dft(&field, &x, w);
        if options.direction == Direction::Inverse {
            let n_inv = field.inv(&n).unwrap();
            want.iter_mut().for_each(|v| *v = field.mul(v, &n_inv));
        }
        let got: Vec<u64> = match options.output_order {
            Order::Natural => out,
            Order::BitReversed => (0..n).map(|i| out[bitrev(i, log_n) as usize]).collect(),
        };
        assert_eq!(got, want, "n = {n}, k = {k}, {options:?}");
    }

    #[test]
    fn plans_compute_the_dft_in_every_order_and_direction() {
        for (n, k) in [
            (2u64, 2u64),
            (16, 4),
            (64, 4),
            (256, 16),
            (1024, 8),
            (512, 2),
        ] {
            for max_local_bits in [2, 4, 12] {
                for direction in [Direction::Forward, Direction::Inverse] {
                    for (input_order, output_order) in [
                        (Order::Natural, Order::Natural),
                        (Order::Natural, Order::BitReversed),
                        (Order::BitReversed, Order::Natural),
                    ] {
                        if k.trailing_zeros() > max_local_bits {
                            continue;
                        }
                        let options = PlanOptions {
                            max_local_bits,
                            input_order,
                            output_order,
                            direction,
                            ..PlanOptions::default()
                        };
                        check(n, k, options);
                    }
                }
            }
        }
    }

    #[test]
    fn small_pieces_make_more_kernels() {
        let f = cooley_tukey(1 << 12, 16);
        let kernels = |bits| {
            let o = PlanOptions {
                max_local_bits: bits,
                ..PlanOptions::default()
            };
            Plan::lower(&f, o).unwrap().kernels.len()
        };
        assert_eq!(kernels(12), 1);
        assert_eq!(kernels(8), 2);
        assert_eq!(kernels(4), 3);
    }

    #[test]
    fn wrong_lengths_are_errors() {
        let field = Plain(469_762_049);
        let plan = Plan::lower(&Formula::dft(8).unwrap(), PlanOptions::default()).unwrap();
        let mut out = vec![0; 8];
        let err = execute(&field, &plan, &[0; 4], &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "input has 4 elements; the plan transforms 8"
        );
    }
}
