//! The reference interpreter: the meaning of every [`Formula`], applied to vectors.
//!
//! It follows the formula's structure and never builds a dense matrix: the work is
//! proportional to the formula's operation count.
//!
//! - `DFT(n)` leaves are evaluated by the defining sum y_i = Σ_j ω_n^(i·j) x_j (O(n²), fine
//!   for the small leaves a derivation leaves behind), with a cached table of ω_n^k;
//! - `D(m, n)` multiplies by ω_{mn}^(a·b) from the same kind of table (O(mn));
//! - `L(mn, m)` is a permutation through one scratch copy;
//! - `A ⊗ B ⊗ …` applies each factor as `I(left) ⊗ A_i ⊗ I(right)`; with `right = 1` that is
//!   `left` contiguous block applications, otherwise each strided column is gathered into
//!   a scratch buffer, transformed and scattered back (the factorisation
//!   `A ⊗ B = (A ⊗ I)(I ⊗ B)` of the 2017 paper, (15));
//! - `A · B · …` applies its factors right to left, in place;
//! - `A ⊕ B ⊕ …` applies each block to its own slice.
//!
//! Operators that equal the identity whatever the root (`I(n)`, `DFT(1)`, `L(n, 1)`,
//! `L(n, n)`, `D(1, n)`, `D(m, 1)`) need no root of unity and cost nothing.

use crate::field::{Field, FieldError};
use crate::formula::{Formula, FormulaError};
use std::collections::HashMap;
use thiserror::Error;

/// The largest size [`dense_matrix`] accepts: its result has size² entries.
pub const DENSE_MAX_SIZE: u64 = 1024;

/// Why a formula could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum InterpError {
    /// The input vector's length is not the formula's size.
    #[error("the input has {len} elements but the formula acts on vectors of size {size}")]
    LengthMismatch {
        /// The formula's size.
        size: u64,
        /// The input's length.
        len: usize,
    },
    /// A `DFT(n)` or `D(m, n)` needs a root of unity the field does not have.
    #[error(
        "{op} needs a primitive root of unity of order {n}, which {field} does not provide: {source}"
    )]
    NoRoot {
        /// The operator, printed.
        op: String,
        /// The order of the root it needs.
        n: u64,
        /// The field's name.
        field: String,
        /// Why the field refused.
        #[source]
        source: FieldError,
    },
    /// The formula is malformed (built without the checked constructors).
    #[error(transparent)]
    Malformed(#[from] FormulaError),
    /// [`dense_matrix`] refuses sizes whose matrix would not fit comfortably in memory.
    #[error("dense_matrix handles sizes up to {max}; this formula has size {size}")]
    TooLargeForDense {
        /// The formula's size.
        size: u64,
        /// The largest size allowed, [`DENSE_MAX_SIZE`].
        max: u64,
    },
}

/// Applies formulas over one field, caching the roots of unity ω_n and the power tables
/// ω_n^0, …, ω_n^(n−1) per size so that repeated applications share them.
#[derive(Clone, Debug)]
pub struct Interpreter<F: Field> {
    field: F,
    roots: HashMap<u64, F::Elem>,
    table_index: HashMap<u64, usize>,
    tables: Vec<Vec<F::Elem>>,
}

impl<F: Field> Interpreter<F> {
    /// An interpreter over `field`, with empty caches.
    pub fn new(field: &F) -> Self {
        Interpreter {
            field: field.clone(),
            roots: HashMap::new(),
            table_index: HashMap::new(),
            tables: Vec::new(),
        }
    }

    /// The field it computes in.
    pub fn field(&self) -> &F {
        &self.field
    }

    /// The canonical primitive n-th root of unity ω_n of the field (cached).
    pub fn root(&mut self, n: u64) -> Result<F::Elem, FieldError> {
        if let Some(w) = self.roots.get(&n) {
            return Ok(*w);
        }
        let w = self.field.root_of_unity(n)?;
        self.roots.insert(n, w);
        Ok(w)
    }

    /// `formula · x`, in a new vector.
    pub fn apply(&mut self, formula: &Formula, x: &[F::Elem]) -> Result<Vec<F::Elem>, InterpError> {
        let mut y = x.to_vec();
        self.apply_in_place(formula, &mut y)?;
        Ok(y)
    }

    /// Replaces `x` by `formula · x`. On error `x` is left unchanged.
    pub fn apply_in_place(
        &mut self,
        formula: &Formula,
        x: &mut [F::Elem],
    ) -> Result<(), InterpError> {
        let size = formula.checked_size()?;
        check_arity(formula)?;
        if usize::try_from(size).ok() != Some(x.len()) {
            return Err(InterpError::LengthMismatch { size, len: x.len() });
        }
        // Every size inside the formula is at most its total size, which equals x.len():
        // the casts to usize in `compile` are therefore exact.
        let (node, need) = self.compile(formula)?;
        let mut scratch = vec![self.field.zero(); need];
        run(&self.field, &self.tables, &node, x, &mut scratch);
        Ok(())
    }

    /// The index of the table ω_n^0, …, ω_n^(n−1) in `self.tables`, built on first use.
    fn table(&mut self, n: u64, op: impl FnOnce() -> String) -> Result<usize, InterpError> {
        if let Some(&i) = self.table_index.get(&n) {
            return Ok(i);
        }
        let w = self.root(n).map_err(|source| InterpError::NoRoot {
            op: op(),
            n,
            field: self.field.name(),
            source,
        })?;
        let f = &self.field;
        let mut t = Vec::with_capacity(n as usize);
        let mut acc = f.one();
        for _ in 0..n {
            t.push(acc);
            acc = f.mul(&acc, &w);
        }
        self.tables.push(t);
        self.table_index.insert(n, self.tables.len() - 1);
        Ok(self.tables.len() - 1)
    }

    /// Lowers a (checked, size-consistent) formula to the executable tree, returning it
    /// with the number of scratch elements its execution needs.
    fn compile(&mut self, formula: &Formula) -> Result<(Node, usize), InterpError> {
        Ok(match *formula {
            Formula::Identity(_) | Formula::Dft(1) => (Node::Identity, 0),
            Formula::Dft(n) => {
                let table = self.table(n, || formula.to_string())?;
                if n == 2 {
                    (Node::Dft2, 0)
                } else {
                    let n = n as usize;
                    (Node::Dft { n, table }, n)
                }
            }
            Formula::Stride { n, m } if m == 1 || m == n => (Node::Identity, 0),
            Formula::Stride { n, m } => {
                let (n, m) = (n as usize, m as usize);
                (Node::Stride { n, m }, n)
            }
            Formula::Twiddle { m, n } if m == 1 || n == 1 => (Node::Identity, 0),
            Formula::Twiddle { m, n } => {
                let table = self.table(m * n, || formula.to_string())?;
                let n = n as usize;
                (Node::Twiddle { n, table }, 0)
            }
            Formula::Tensor(ref fs) => {
                let sizes = fs
                    .iter()
                    .map(|f| f.checked_size().map(|s| s as usize))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut factors = Vec::new();
                let mut need = 0;
                // Factors act on disjoint index digits, so they commute: applying them
                // right to left matches the reading (A ⊗ I)(I ⊗ B).
                for (i, f) in fs.iter().enumerate().rev() {
                    let (node, inner) = self.compile(f)?;
                    if matches!(node, Node::Identity) {
                        continue;
                    }
                    let right: usize = sizes[i + 1..].iter().product();
                    let gathers = right > 1 && !node.applies_strided();
                    need = need.max(inner + if gathers { sizes[i] } else { 0 });
                    factors.push(Factor {
                        node,
                        size: sizes[i],
                        right,
                    });
                }
                let total: usize = sizes.iter().product();
                match factors.pop() {
                    None => (Node::Identity, 0),
                    // The other factors are all I(1): the product is this factor alone.
                    Some(only) if factors.is_empty() && only.size == total => (only.node, need),
                    Some(last) => {
                        factors.push(last);
                        (Node::Tensor(factors), need)
                    }
                }
            }
            Formula::Compose(ref fs) => {
                let mut nodes = Vec::new();
                let mut need = 0;
                for f in fs.iter().rev() {
                    let (node, inner) = self.compile(f)?;
                    if !matches!(node, Node::Identity) {
                        need = need.max(inner);
                        nodes.push(node);
                    }
                }
                match nodes.len() {
                    0 => (Node::Identity, 0),
                    1 => (nodes.pop().unwrap_or(Node::Identity), need),
                    _ => (Node::Compose(nodes), need),
                }
            }
            Formula::DirectSum(ref fs) => {
                let mut blocks = Vec::new();
                let mut need = 0;
                let mut all_identity = true;
                for f in fs {
                    let size = f.checked_size()? as usize;
                    let (node, inner) = self.compile(f)?;
                    all_identity &= matches!(node, Node::Identity);
                    need = need.max(inner);
                    blocks.push((size, node));
                }
                if all_identity {
                    (Node::Identity, 0)
                } else {
                    (Node::DirectSum(blocks), need)
                }
            }
        })
    }
}

/// Refuses n-ary nodes with fewer than two factors, which only a formula built without the
/// checked constructors can have ([`Formula::checked_size`] does not look at arity).
fn check_arity(formula: &Formula) -> Result<(), FormulaError> {
    let (fs, op) = match formula {
        Formula::Tensor(fs) => (fs, "⊗"),
        Formula::Compose(fs) => (fs, "·"),
        Formula::DirectSum(fs) => (fs, "⊕"),
        _ => return Ok(()),
    };
    if fs.len() < 2 {
        return Err(FormulaError::TooFewFactors { op });
    }
    fs.iter().try_for_each(check_arity)
}

/// A formula lowered for execution: sizes resolved, identities dropped, roots looked up.
#[derive(Debug)]
enum Node {
    Identity,
    /// `DFT(2)`: the butterfly (x0 + x1, x0 − x1), since ω_2 = −1 in every odd field.
    Dft2,
    Dft {
        n: usize,
        table: usize,
    },
    Stride {
        n: usize,
        m: usize,
    },
    /// `D(m, n)`: rows of `n`; the number of rows is implied by the slice length.
    Twiddle {
        n: usize,
        table: usize,
    },
    /// Non-identity factors, in application order.
    Tensor(Vec<Factor>),
    /// Non-identity factors, in application order (rightmost first).
    Compose(Vec<Node>),
    /// (size, block) left to right.
    DirectSum(Vec<(usize, Node)>),
}

/// One factor of a tensor product, applied as `I(left) ⊗ node ⊗ I(right)`.
#[derive(Debug)]
struct Factor {
    node: Node,
    size: usize,
    right: usize,
}

impl Node {
    /// Whether [`run_strided`] handles this node at a stride directly, without gathering.
    fn applies_strided(&self) -> bool {
        matches!(self, Node::Dft2 | Node::Twiddle { .. })
    }
}

/// Applies `node` to `x` (whose length is the node's size) in place.
fn run<F: Field>(
    f: &F,
    tables: &[Vec<F::Elem>],
    node: &Node,
    x: &mut [F::Elem],
    scratch: &mut [F::Elem],
) {
    match node {
        Node::Identity => {}
        Node::Dft2 => {
            let (a, b) = (x[0], x[1]);
            x[0] = f.add(&a, &b);
            x[1] = f.sub(&a, &b);
        }
        Node::Dft { n, table } => {
            let (n, t) = (*n, &tables[*table]);
            let y = &mut scratch[..n];
            for (i, yi) in y.iter_mut().enumerate() {
                let mut acc = x[0];
                // e = i·j mod n, stepped by i; both are below n, so one subtraction reduces.
                let mut e = 0;
                for xj in &x[1..] {
                    e += i;
                    if e >= n {
                        e -= n;
                    }
                    acc = f.add(&acc, &f.mul(&t[e], xj));
                }
                *yi = acc;
            }
            x.copy_from_slice(y);
        }
        Node::Stride { n, m } => {
            let (m, q) = (*m, *n / *m);
            let tmp = &mut scratch[..*n];
            tmp.copy_from_slice(x);
            // y[j·q + i] = x[i·m + j]: read the source row by row.
            for (i, row) in tmp.chunks_exact(m).enumerate() {
                for (j, v) in row.iter().enumerate() {
                    x[j * q + i] = *v;
                }
            }
        }
        Node::Twiddle { n, table, .. } => {
            let t = &tables[*table];
            // a·b < m·n, so the exponent needs no reduction; row 0 and column 0 are ω^0.
            for (a, row) in x.chunks_exact_mut(*n).enumerate().skip(1) {
                for (b, v) in row.iter_mut().enumerate().skip(1) {
                    *v = f.mul(v, &t[a * b]);
                }
            }
        }
        Node::Tensor(factors) => {
            for fac in factors {
                if fac.right == 1 {
                    for block in x.chunks_exact_mut(fac.size) {
                        run(f, tables, &fac.node, block, scratch);
                    }
                } else if fac.node.applies_strided() {
                    for block in x.chunks_exact_mut(fac.size * fac.right) {
                        run_strided(f, tables, &fac.node, block, fac.right);
                    }
                } else {
                    let (tmp, rest) = scratch.split_at_mut(fac.size);
                    for block in x.chunks_exact_mut(fac.size * fac.right) {
                        for r in 0..fac.right {
                            for (k, t) in tmp.iter_mut().enumerate() {
                                *t = block[r + k * fac.right];
                            }
                            run(f, tables, &fac.node, tmp, rest);
                            for (k, t) in tmp.iter().enumerate() {
                                block[r + k * fac.right] = *t;
                            }
                        }
                    }
                }
            }
        }
        Node::Compose(nodes) => {
            for node in nodes {
                run(f, tables, node, x, scratch);
            }
        }
        Node::DirectSum(blocks) => {
            let mut rest = x;
            for (size, node) in blocks {
                let (block, tail) = rest.split_at_mut(*size);
                run(f, tables, node, block, scratch);
                rest = tail;
            }
        }
    }
}

/// Applies `node ⊗ I(right)` to `x` (length size·right) in place, for the nodes whose
/// [`Node::applies_strided`] is true: whole rows of `right` elements at a time, which
/// keeps memory access sequential.
fn run_strided<F: Field>(
    f: &F,
    tables: &[Vec<F::Elem>],
    node: &Node,
    x: &mut [F::Elem],
    right: usize,
) {
    match node {
        Node::Dft2 => {
            let (lo, hi) = x.split_at_mut(right);
            for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
                let (s, d) = (f.add(a, b), f.sub(a, b));
                *a = s;
                *b = d;
            }
        }
        Node::Twiddle { n, table, .. } => {
            let t = &tables[*table];
            for (a, rows) in x.chunks_exact_mut(*n * right).enumerate().skip(1) {
                for (b, row) in rows.chunks_exact_mut(right).enumerate().skip(1) {
                    let w = &t[a * b];
                    for v in row {
                        *v = f.mul(v, w);
                    }
                }
            }
        }
        _ => unreachable!("run_strided is only called when applies_strided() holds"),
    }
}

/// `formula · x` over `field` (a one-shot [`Interpreter`]).
pub fn apply<F: Field>(
    field: &F,
    formula: &Formula,
    x: &[F::Elem],
) -> Result<Vec<F::Elem>, InterpError> {
    Interpreter::new(field).apply(formula, x)
}

/// The dense matrix of `formula`, as rows: entry `[i][j]` is output `i` of the formula
/// applied to the unit vector e_j. Meant for small sizes (up to [`DENSE_MAX_SIZE`]),
/// e.g. to compare both sides of a rewrite rule exactly.
pub fn dense_matrix<F: Field>(
    field: &F,
    formula: &Formula,
) -> Result<Vec<Vec<F::Elem>>, InterpError> {
    let size = formula.checked_size()?;
    if size > DENSE_MAX_SIZE {
        return Err(InterpError::TooLargeForDense {
            size,
            max: DENSE_MAX_SIZE,
        });
    }
    let n = size as usize;
    let mut interp = Interpreter::new(field);
    let mut rows = vec![vec![field.zero(); n]; n];
    let mut e = vec![field.zero(); n];
    for j in 0..n {
        e.fill(field.zero());
        e[j] = field.one();
        interp.apply_in_place(formula, &mut e)?;
        for (row, v) in rows.iter_mut().zip(&e) {
            row[j] = *v;
        }
    }
    Ok(rows)
}

/// The DFT of `x` at `omega` by the defining sum: y_i = Σ_j omega^(i·j) x_j, O(n²).
///
/// `omega` may be any element (it need not be a primitive root): this is the plain
/// definition, the oracle the interpreter and the generated code are checked against.
pub fn dft_at<F: Field>(field: &F, x: &[F::Elem], omega: &F::Elem) -> Vec<F::Elem> {
    let mut w_i = field.one();
    (0..x.len())
        .map(|_| {
            let y = horner(field, x, &w_i);
            w_i = field.mul(&w_i, omega);
            y
        })
        .collect()
}

/// Output `i` of the DFT of `x` at `omega`: Σ_j omega^(i·j) x_j, in O(n + log i) —
/// the check of single entries of large transforms.
pub fn dft_entry<F: Field>(field: &F, x: &[F::Elem], omega: &F::Elem, i: usize) -> F::Elem {
    let w_i = field.pow_u64(omega, i as u64);
    horner(field, x, &w_i)
}

/// Σ_j w^j x_j by Horner's rule.
fn horner<F: Field>(field: &F, x: &[F::Elem], w: &F::Elem) -> F::Elem {
    x.iter()
        .rev()
        .fold(field.zero(), |acc, xj| field.add(&field.mul(&acc, w), xj))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use num_bigint::BigUint;
    use num_traits::ToPrimitive;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A plain prime field for these tests, independent of the production field types:
    /// arithmetic by `%` on u64, roots from the trait's canonical defaults.
    #[derive(Clone, Debug)]
    pub(crate) struct TestPrime {
        p: u64,
    }

    impl TestPrime {
        pub(crate) fn new(p: u64) -> Self {
            assert!(
                p < 1 << 32 && p % 2 == 1,
                "test primes are odd and below 2^32"
            );
            TestPrime { p }
        }
    }

    impl Field for TestPrime {
        type Elem = u64;
        fn name(&self) -> String {
            self.p.to_string()
        }
        fn modulus(&self) -> BigUint {
            BigUint::from(self.p)
        }
        fn two_adicity(&self) -> u32 {
            (self.p - 1).trailing_zeros()
        }
        fn zero(&self) -> u64 {
            0
        }
        fn one(&self) -> u64 {
            1
        }
        fn add(&self, a: &u64, b: &u64) -> u64 {
            (a + b) % self.p
        }
        fn sub(&self, a: &u64, b: &u64) -> u64 {
            (a + self.p - b) % self.p
        }
        fn neg(&self, a: &u64) -> u64 {
            (self.p - a) % self.p
        }
        fn mul(&self, a: &u64, b: &u64) -> u64 {
            a * b % self.p
        }
        fn from_biguint(&self, x: &BigUint) -> Result<u64, FieldError> {
            x.to_u64()
                .filter(|&v| v < self.p)
                .ok_or_else(|| FieldError::OutOfRange {
                    value: x.clone(),
                    p: self.modulus(),
                })
        }
        fn to_biguint(&self, a: &u64) -> BigUint {
            BigUint::from(*a)
        }
    }

    /// 7·2^26 + 1, the 2010 paper's prime.
    pub(crate) fn field() -> TestPrime {
        TestPrime::new(469_762_049)
    }

    fn random_vec(f: &TestPrime, n: usize, seed: u64) -> Vec<u64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.gen_range(0..f.p)).collect()
    }

    fn dft(n: u64) -> Formula {
        Formula::dft(n).unwrap()
    }
    fn id(n: u64) -> Formula {
        Formula::identity(n).unwrap()
    }
    fn l(n: u64, m: u64) -> Formula {
        Formula::stride(n, m).unwrap()
    }
    fn d(m: u64, n: u64) -> Formula {
        Formula::twiddle(m, n).unwrap()
    }
    fn t(fs: Vec<Formula>) -> Formula {
        Formula::tensor(fs).unwrap()
    }
    fn c(fs: Vec<Formula>) -> Formula {
        Formula::compose(fs).unwrap()
    }
    fn s(fs: Vec<Formula>) -> Formula {
        Formula::direct_sum(fs).unwrap()
    }

    fn cooley_tukey(j: u64, k: u64) -> Formula {
        c(vec![
            t(vec![dft(j), id(k)]),
            d(j, k),
            t(vec![id(j), dft(k)]),
            l(j * k, j),
        ])
    }

    /// The Kronecker product of two dense matrices, by its definition.
    fn kron(f: &TestPrime, a: &[Vec<u64>], b: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let (na, nb) = (a.len(), b.len());
        (0..na * nb)
            .map(|r| {
                (0..na * nb)
                    .map(|col| f.mul(&a[r / nb][col / nb], &b[r % nb][col % nb]))
                    .collect()
            })
            .collect()
    }

    fn matmul(f: &TestPrime, a: &[Vec<u64>], b: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let n = b.len();
        a.iter()
            .map(|row| {
                (0..b[0].len())
                    .map(|j| (0..n).fold(0, |acc, k| f.add(&acc, &f.mul(&row[k], &b[k][j]))))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn dft_is_the_defining_sum_at_the_canonical_root() {
        let f = field();
        for n in [1u64, 2, 4, 8, 16, 32] {
            let x = random_vec(&f, n as usize, n);
            let w = f.root_of_unity(n).unwrap();
            let expected: Vec<u64> = (0..n)
                .map(|i| {
                    (0..n).fold(0, |acc, j| {
                        f.add(&acc, &f.mul(&f.pow_u64(&w, i * j), &x[j as usize]))
                    })
                })
                .collect();
            assert_eq!(apply(&f, &dft(n), &x).unwrap(), expected, "DFT({n})");
            assert_eq!(dft_at(&f, &x, &w), expected, "dft_at, n = {n}");
            for (i, want) in expected.iter().enumerate() {
                assert_eq!(dft_entry(&f, &x, &w, i), *want, "dft_entry({i}), n = {n}");
            }
        }
    }

    #[test]
    fn dft_at_accepts_any_omega() {
        // ω = 3 is not a root of unity of small order: the sum must still be the plain one.
        let f = field();
        let x = vec![5, 7, 11];
        let y = dft_at(&f, &x, &3);
        assert_eq!(y[0], 23);
        assert_eq!(y[1], 5 + 7 * 3 + 11 * 9);
        assert_eq!(y[2], 5 + 7 * 9 + 11 * 81);
        assert_eq!(dft_entry(&f, &x, &3, 2), y[2]);
    }

    #[test]
    fn stride_permutation_follows_its_definition() {
        let f = field();
        for (mn, m) in [
            (6u64, 2u64),
            (6, 3),
            (8, 2),
            (8, 4),
            (12, 3),
            (16, 4),
            (9, 9),
            (5, 1),
        ] {
            let n = mn / m;
            let x: Vec<u64> = (0..mn).collect();
            let y = apply(&f, &l(mn, m), &x).unwrap();
            for i in 0..n {
                for j in 0..m {
                    assert_eq!(
                        y[(j * n + i) as usize],
                        x[(i * m + j) as usize],
                        "L({mn},{m})"
                    );
                }
            }
        }
    }

    #[test]
    fn twiddle_follows_its_definition() {
        let f = field();
        for (m, n) in [
            (2u64, 2u64),
            (2, 4),
            (4, 2),
            (4, 4),
            (2, 8),
            (8, 4),
            (1, 8),
            (8, 1),
        ] {
            let w = f.root_of_unity(m * n).unwrap();
            let x = random_vec(&f, (m * n) as usize, m * 100 + n);
            let y = apply(&f, &d(m, n), &x).unwrap();
            for a in 0..m {
                for b in 0..n {
                    let k = (a * n + b) as usize;
                    assert_eq!(y[k], f.mul(&f.pow_u64(&w, a * b), &x[k]), "D({m},{n})[{k}]");
                }
            }
        }
    }

    #[test]
    fn identity_changes_nothing() {
        let f = field();
        let x = random_vec(&f, 7, 1);
        assert_eq!(apply(&f, &id(7), &x).unwrap(), x);
    }

    #[test]
    fn tensor_is_the_kronecker_product() {
        let f = field();
        let pieces = [
            dft(4),
            l(6, 2),
            d(2, 4),
            id(3),
            dft(2),
            c(vec![dft(4), l(4, 2)]),
        ];
        for a in &pieces {
            for b in &pieces {
                let expected = kron(
                    &f,
                    &dense_matrix(&f, a).unwrap(),
                    &dense_matrix(&f, b).unwrap(),
                );
                let got = dense_matrix(&f, &t(vec![a.clone(), b.clone()])).unwrap();
                assert_eq!(got, expected, "{a} ⊗ {b}");
            }
        }
        // Three factors, the middle one strided on both sides.
        let abc = t(vec![dft(2), l(6, 3), dft(4)]);
        let expected = kron(
            &f,
            &kron(
                &f,
                &dense_matrix(&f, &dft(2)).unwrap(),
                &dense_matrix(&f, &l(6, 3)).unwrap(),
            ),
            &dense_matrix(&f, &dft(4)).unwrap(),
        );
        assert_eq!(dense_matrix(&f, &abc).unwrap(), expected);
    }

    #[test]
    fn compose_applies_the_rightmost_factor_first() {
        let f = field();
        let (a, b, cc) = (dft(8), l(8, 2), d(2, 4));
        let expected = matmul(
            &f,
            &matmul(
                &f,
                &dense_matrix(&f, &a).unwrap(),
                &dense_matrix(&f, &b).unwrap(),
            ),
            &dense_matrix(&f, &cc).unwrap(),
        );
        assert_eq!(dense_matrix(&f, &c(vec![a, b, cc])).unwrap(), expected);
    }

    #[test]
    fn direct_sum_is_block_diagonal() {
        let f = field();
        let (a, b, e) = (dft(4), l(6, 2), id(1));
        let got = dense_matrix(&f, &s(vec![a.clone(), b.clone(), e])).unwrap();
        let (da, db) = (dense_matrix(&f, &a).unwrap(), dense_matrix(&f, &b).unwrap());
        for (r, row) in got.iter().enumerate() {
            for (col, v) in row.iter().enumerate() {
                let want = match (r, col) {
                    (r, col) if r < 4 && col < 4 => da[r][col],
                    (r, col) if (4..10).contains(&r) && (4..10).contains(&col) => {
                        db[r - 4][col - 4]
                    }
                    (10, 10) => 1,
                    _ => 0,
                };
                assert_eq!(*v, want, "entry ({r}, {col})");
            }
        }
    }

    #[test]
    fn worked_check_dft4() {
        let f = field();
        let rhs = cooley_tukey(2, 2);
        assert_eq!(
            dense_matrix(&f, &rhs).unwrap(),
            dense_matrix(&f, &dft(4)).unwrap()
        );
    }

    #[test]
    fn cooley_tukey_holds_for_several_splits() {
        let f = field();
        for (j, k) in [
            (2u64, 4u64),
            (4, 2),
            (2, 8),
            (8, 2),
            (4, 4),
            (4, 8),
            (16, 2),
            (1, 8),
            (8, 1),
        ] {
            let x = random_vec(&f, (j * k) as usize, j * 31 + k);
            assert_eq!(
                apply(&f, &cooley_tukey(j, k), &x).unwrap(),
                apply(&f, &dft(j * k), &x).unwrap(),
                "DFT({j}·{k})"
            );
        }
    }

    /// Radix-2 Cooley–Tukey unrolled to DFT(2) leaves.
    fn radix2(n: u64) -> Formula {
        if n == 2 {
            return dft(2);
        }
        c(vec![
            t(vec![dft(2), id(n / 2)]),
            d(2, n / 2),
            t(vec![id(2), radix2(n / 2)]),
            l(n, 2),
        ])
    }

    #[test]
    fn a_derived_transform_matches_single_entries_of_the_definition() {
        let f = field();
        let n = 1u64 << 12;
        let x = random_vec(&f, n as usize, 12);
        let y = apply(&f, &radix2(n), &x).unwrap();
        let w = f.root_of_unity(n).unwrap();
        for i in [0usize, 1, 2, 3, 1000, 2047, 2048, 4095] {
            assert_eq!(y[i], dft_entry(&f, &x, &w, i), "output {i}");
        }
    }

    #[test]
    fn interpreter_caches_are_reused_across_calls() {
        let f = field();
        let mut interp = Interpreter::new(&f);
        let x = random_vec(&f, 16, 3);
        let y1 = interp.apply(&cooley_tukey(4, 4), &x).unwrap();
        let tables = interp.tables.len();
        let y2 = interp.apply(&cooley_tukey(4, 4), &x).unwrap();
        assert_eq!(y1, y2);
        assert_eq!(
            interp.tables.len(),
            tables,
            "no new tables on the second call"
        );
        assert_eq!(interp.root(16).unwrap(), f.root_of_unity(16).unwrap());
    }

    #[test]
    fn refuses_an_input_of_the_wrong_length() {
        let f = field();
        let err = apply(&f, &dft(8), &[1, 2, 3]).unwrap_err();
        assert_eq!(err, InterpError::LengthMismatch { size: 8, len: 3 });
        let msg = err.to_string();
        assert!(msg.contains('3') && msg.contains("size 8"), "{msg}");
    }

    #[test]
    fn refuses_sizes_without_a_root() {
        let f = field();
        let err = apply(&f, &dft(3), &[1, 2, 3]).unwrap_err();
        assert!(
            matches!(
                &err,
                InterpError::NoRoot {
                    n: 3,
                    source: FieldError::SizeNotPowerOfTwo { n: 3 },
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("DFT"), "{err}");
        let err = apply(&f, &d(3, 4), &[0; 12]).unwrap_err();
        assert!(matches!(err, InterpError::NoRoot { n: 12, .. }), "{err:?}");
        // F_17 has 2-adicity 4: no 32nd root of unity.
        let small = TestPrime::new(17);
        let err = apply(&small, &dft(32), &[0; 32]).unwrap_err();
        assert!(
            matches!(
                err,
                InterpError::NoRoot {
                    n: 32,
                    source: FieldError::SizeBeyondTwoAdicity { .. },
                    ..
                }
            ),
            "{err:?}"
        );
        // The identities need no root, whatever their size.
        assert!(apply(&f, &d(1, 12), &[1; 12]).is_ok());
        assert!(apply(&f, &d(3, 1), &[1; 3]).is_ok());
        assert!(apply(&f, &l(12, 12), &[1; 12]).is_ok());
    }

    #[test]
    fn refuses_malformed_formulas() {
        let f = field();
        let bad = Formula::Compose(vec![dft(2), dft(4)]);
        let err = apply(&f, &bad, &[0; 2]).unwrap_err();
        assert!(
            matches!(
                err,
                InterpError::Malformed(FormulaError::ComposeSizes { .. })
            ),
            "{err:?}"
        );
        let err = apply(&f, &Formula::Stride { n: 6, m: 4 }, &[0; 6]).unwrap_err();
        assert!(
            matches!(
                err,
                InterpError::Malformed(FormulaError::StrideDoesNotDivide { n: 6, m: 4 })
            ),
            "{err:?}"
        );
        for bad in [
            Formula::Tensor(vec![]),
            Formula::DirectSum(vec![dft(1)]),
            t(vec![id(1), Formula::Compose(vec![id(1)])]),
        ] {
            let err = apply(&f, &bad, &[0]).unwrap_err();
            assert!(
                matches!(
                    err,
                    InterpError::Malformed(FormulaError::TooFewFactors { .. })
                ),
                "{bad:?}: {err:?}"
            );
        }
    }

    #[test]
    fn dense_matrix_refuses_large_sizes() {
        let f = field();
        let err = dense_matrix(&f, &id(DENSE_MAX_SIZE + 1)).unwrap_err();
        assert_eq!(
            err,
            InterpError::TooLargeForDense {
                size: DENSE_MAX_SIZE + 1,
                max: DENSE_MAX_SIZE
            }
        );
    }

    #[test]
    fn stride_permutations_are_mutually_inverse() {
        let f = field();
        for (m, n) in [(2u64, 8u64), (3, 5), (4, 4)] {
            let x = random_vec(&f, (m * n) as usize, m + n);
            let both = c(vec![l(m * n, m), l(m * n, n)]);
            assert_eq!(
                apply(&f, &both, &x).unwrap(),
                x,
                "L({},{m})·L({},{n})",
                m * n,
                m * n
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every formula is linear: F(a·x + y) = a·F(x) + F(y).
        #[test]
        fn formulas_are_linear(
            formula in (0u32..=5).prop_flat_map(|e| crate::formula::arbitrary::pow2_formula_of_size(1 << e, 3)),
            seed in any::<u64>(),
            a in 0u64..469_762_049,
        ) {
            let f = field();
            let n = formula.size() as usize;
            let (x, y) = (random_vec(&f, n, seed), random_vec(&f, n, seed ^ 1));
            let ax_y: Vec<u64> = x.iter().zip(&y).map(|(u, v)| f.add(&f.mul(&a, u), v)).collect();
            let (fx, fy) = (apply(&f, &formula, &x).unwrap(), apply(&f, &formula, &y).unwrap());
            let want: Vec<u64> = fx.iter().zip(&fy).map(|(u, v)| f.add(&f.mul(&a, u), v)).collect();
            prop_assert_eq!(apply(&f, &formula, &ax_y).unwrap(), want);
        }

        /// The mixed-product law (2017, (15)): (A ⊗ B)(C ⊗ D) = (AC) ⊗ (BD).
        #[test]
        fn mixed_product_law(
            (a, cc) in (0u32..=3).prop_flat_map(|e| (
                crate::formula::arbitrary::pow2_formula_of_size(1 << e, 2),
                crate::formula::arbitrary::pow2_formula_of_size(1 << e, 2),
            )),
            (b, dd) in (0u32..=3).prop_flat_map(|e| (
                crate::formula::arbitrary::pow2_formula_of_size(1 << e, 2),
                crate::formula::arbitrary::pow2_formula_of_size(1 << e, 2),
            )),
        ) {
            let f = field();
            let lhs = Formula::compose(vec![
                Formula::tensor(vec![a.clone(), b.clone()]).unwrap(),
                Formula::tensor(vec![cc.clone(), dd.clone()]).unwrap(),
            ]).unwrap();
            let rhs = Formula::tensor(vec![
                Formula::compose(vec![a, cc]).unwrap(),
                Formula::compose(vec![b, dd]).unwrap(),
            ]).unwrap();
            prop_assert_eq!(dense_matrix(&f, &lhs).unwrap(), dense_matrix(&f, &rhs).unwrap());
        }
    }
}
