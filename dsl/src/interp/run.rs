//! Execution of a lowered formula on a vector, in place.

use super::lower::{Factor, Node};
use crate::field::Field;

impl Node {
    /// Whether [`run_strided`] handles this node at a stride directly, without gathering.
    pub(super) fn applies_strided(&self) -> bool {
        matches!(self, Node::Dft2 | Node::Twiddle { .. })
    }
}

/// Applies `node` to `x` (whose length is the node's size) in place.
pub(super) fn run<F: Field>(
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
        Node::Dft { n, table } => run_dft(f, &tables[*table], x, &mut scratch[..*n]),
        Node::Stride { n, m } => run_stride(x, *m, &mut scratch[..*n]),
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
                run_factor(f, tables, fac, x, scratch);
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

/// `DFT(n)` by its defining sum, with `t` the table ω_n^0, …, ω_n^(n−1) and `y` a scratch
/// vector of length n.
fn run_dft<F: Field>(f: &F, t: &[F::Elem], x: &mut [F::Elem], y: &mut [F::Elem]) {
    let n = y.len();
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

/// `L(n, m)` through `tmp`, a scratch vector of length n.
fn run_stride<E: Copy>(x: &mut [E], m: usize, tmp: &mut [E]) {
    let q = tmp.len() / m;
    tmp.copy_from_slice(x);
    // y[j·q + i] = x[i·m + j]: read the source row by row.
    for (i, row) in tmp.chunks_exact(m).enumerate() {
        for (j, v) in row.iter().enumerate() {
            x[j * q + i] = *v;
        }
    }
}

/// Applies one factor of a tensor product, `I(left) ⊗ node ⊗ I(right)`: contiguous blocks
/// when `right` is 1, otherwise strided in place or gathered column by column into scratch.
fn run_factor<F: Field>(
    f: &F,
    tables: &[Vec<F::Elem>],
    fac: &Factor,
    x: &mut [F::Elem],
    scratch: &mut [F::Elem],
) {
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

#[cfg(test)]
mod tests {
    use crate::formula::Formula;
    use crate::interp::tests::{
        c, cooley_tukey, d, dft, field, id, l, random_vec, s, t, TestPrime,
    };
    use crate::interp::{apply, dense_matrix, dft_at, dft_entry};
    use crate::Field;
    use proptest::prelude::*;

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
