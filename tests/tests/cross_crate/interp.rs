//! The reference interpreter on the production fields against the reference vectors
//! (exact DFTs computed independently of fermat), on factorised formulas of the papers,
//! and on a radix-2 Cooley–Tukey transform of 2^20 points.
//!
//! `DFT(N)` leaves are evaluated by the defining sum, O(N²): the word primes are checked
//! that way at every size the vectors hold (up to 4096), the SRGFNs up to the sizes whose
//! quadratic cost stays near a second in the test profile. Every size, SRGFN or not, is
//! also checked through a Cooley–Tukey factorisation with small `DFT` leaves, which costs
//! O(N·(sum of the leaf sizes)).

use fermat_dsl::formula::Formula;
use fermat_dsl::interp::{self, InterpError, Interpreter};
use fermat_dsl::{with_field, AnyField, Field, FieldError, FieldSpec};
use fermat_tests::{big, load, spec_of, FftCase, VectorFile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn build(file: &VectorFile) -> AnyField {
    let spec = spec_of(file);
    FieldSpec::parse(&spec)
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{}: cannot build field {spec}: {e}", file.name))
}

fn field(name: &str) -> AnyField {
    build(&load(name))
}

fn dft(n: u64) -> Formula {
    Formula::dft(n).unwrap()
}

fn id(n: u64) -> Formula {
    Formula::identity(n).unwrap()
}

fn tensor(fs: Vec<Formula>) -> Formula {
    Formula::tensor(fs).unwrap()
}

fn compose(fs: Vec<Formula>) -> Formula {
    Formula::compose(fs).unwrap()
}

/// (CT) DFT(JK) = (DFT(J) ⊗ I(K)) · D(J,K) · (I(J) ⊗ DFT(K)) · L(JK, J), with the given
/// formulas standing for DFT(J) and DFT(K).
fn cooley_tukey(j: u64, k: u64, dft_j: Formula, dft_k: Formula) -> Formula {
    compose(vec![
        tensor(vec![dft_j, id(k)]),
        Formula::twiddle(j, k).unwrap(),
        tensor(vec![id(j), dft_k]),
        Formula::stride(j * k, j).unwrap(),
    ])
}

/// DFT(n), n a power of two, factorised by (CT) into leaves of at most `leaf` points
/// (the split J = leaf, K = n / leaf at every level).
fn factorised(n: u64, leaf: u64) -> Formula {
    if n <= leaf {
        dft(n)
    } else {
        cooley_tukey(leaf, n / leaf, dft(leaf), factorised(n / leaf, leaf))
    }
}

/// The radix-2 recursion DFT(2n) = (DFT(2) ⊗ I(n)) · D(2,n) · (I(2) ⊗ DFT(n)) · L(2n, 2),
/// down to DFT(2) leaves.
fn radix2(n: u64) -> Formula {
    if n <= 2 {
        dft(n)
    } else {
        cooley_tukey(2, n / 2, dft(2), radix2(n / 2))
    }
}

fn elems<F: Field>(f: &F, values: &[String]) -> Vec<F::Elem> {
    values
        .iter()
        .map(|s| f.from_biguint(&big(s)).unwrap())
        .collect()
}

/// Compares a computed vector with the expected decimal strings, naming the first
/// differing index.
fn assert_vector<F: Field>(f: &F, got: &[F::Elem], want: &[String], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = f.to_biguint(g);
        assert_eq!(g, big(w), "{what}: output {i} of {}", got.len());
    }
}

/// Checks one vector-file DFT: the field's canonical root is the file's, the oracle
/// `dft_at` reproduces the file on the smaller sizes, and the interpreter gives the file's
/// output for `DFT(N)` applied directly (when `direct`) and through a factorisation with
/// leaves of `leaf` points.
fn check_case<F: Field>(f: &F, file: &str, case: &FftCase, direct: bool, leaf: u64) {
    let n = case.n;
    let omega = f.root_of_unity(n).unwrap();
    assert_eq!(
        f.to_biguint(&omega),
        big(&case.omega),
        "{file}: canonical root of order {n}"
    );
    let x = elems(f, &case.input);
    let mut interp = Interpreter::new(f);
    if n <= 64 {
        let y = interp::dft_at(f, &x, &omega);
        assert_vector(f, &y, &case.output, &format!("{file}: dft_at, N = {n}"));
    }
    if direct {
        let y = interp.apply(&dft(n), &x).unwrap();
        assert_vector(f, &y, &case.output, &format!("{file}: DFT({n})"));
    }
    let formula = factorised(n, leaf);
    let y = interp.apply(&formula, &x).unwrap();
    let what = format!("{file}: DFT({n}) factorised with DFT({leaf}) leaves");
    assert_vector(f, &y, &case.output, &what);
}

/// Checks every DFT of a vector file, applying `DFT(N)` directly up to `direct_max`.
fn check_file(name: &str, direct_max: u64, leaf: u64) {
    let file = load(name);
    assert!(!file.ffts.is_empty(), "{name}: the file holds no DFTs");
    let f = build(&file);
    for case in &file.ffts {
        let start = Instant::now();
        with_field!(&f, f => check_case(f, name, case, case.n <= direct_max, leaf));
        eprintln!("{name}: N = {} checked in {:.2?}", case.n, start.elapsed());
    }
}

#[test]
fn word_prime_p469762049_matches_vectors() {
    check_file("p469762049", 4096, 16);
}

#[test]
fn word_prime_babybear_matches_vectors() {
    check_file("p2013265921", 4096, 16);
}

#[test]
fn word_prime_p4179340454199820289_matches_vectors() {
    check_file("p4179340454199820289", 4096, 16);
}

#[test]
fn word_prime_goldilocks_matches_vectors() {
    check_file("goldilocks", 4096, 16);
}

// SRGFNs: the factorisations use DFT(K) leaves with K = 2k, the base case of the 2017
// paper (its root is r, so these leaves exercise the shift-only powers).

#[test]
fn srgfn_p2_matches_vectors() {
    check_file("P2", 512, 8);
}

#[test]
fn srgfn_p3_matches_vectors() {
    check_file("P3", 256, 16);
}

#[test]
fn srgfn_p4_matches_vectors() {
    check_file("P4", 32, 32);
}

/// The worked check DFT(4) = (DFT(2) ⊗ I(2)) · D(2,2) · (I(2) ⊗ DFT(2)) · L(4,2) (2010
/// paper, formula (8)) and (CT) for several J, K on every field of the vectors, as dense
/// matrices: exact equality of operators.
#[test]
fn cooley_tukey_holds_on_every_field() {
    let splits: [(u64, u64); 6] = [(2, 2), (2, 4), (4, 2), (2, 8), (8, 4), (4, 16)];
    for name in fermat_tests::VECTOR_FILES {
        let f = field(name);
        with_field!(&f, f => {
            let worked = Formula::parse("(DFT(2) (x) I(2)) * D(2,2) * (I(2) (x) DFT(2)) * L(4,2)")
                .unwrap();
            assert_eq!(
                interp::dense_matrix(f, &worked).unwrap(),
                interp::dense_matrix(f, &dft(4)).unwrap(),
                "{name}: worked check"
            );
            for (j, k) in splits {
                let ct = cooley_tukey(j, k, dft(j), dft(k));
                assert_eq!(
                    interp::dense_matrix(f, &ct).unwrap(),
                    interp::dense_matrix(f, &dft(j * k)).unwrap(),
                    "{name}: (CT) with J = {j}, K = {k}"
                );
            }
        });
    }
}

/// Each operator against its definition on the production fields, on random vectors.
#[test]
fn operators_follow_their_definitions_on_every_field() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1e7e);
    for name in fermat_tests::VECTOR_FILES {
        let f = field(name);
        with_field!(&f, f => check_operators(f, name, &mut rng));
    }
}

fn check_operators<F: Field>(f: &F, name: &str, rng: &mut ChaCha8Rng) {
    let random = |rng: &mut ChaCha8Rng, n: usize| -> Vec<F::Elem> {
        (0..n).map(|_| f.random(rng)).collect()
    };
    let apply = |formula: &Formula, x: &[F::Elem]| interp::apply(f, formula, x).unwrap();
    let (m, n) = (4usize, 8usize);
    let x = random(rng, m * n);

    // DFT(n): y_i = Σ_j ω_n^(i·j) x_j.
    let w = f.root_of_unity((m * n) as u64).unwrap();
    let y = apply(&dft((m * n) as u64), &x);
    for (i, yi) in y.iter().enumerate() {
        let mut sum = f.zero();
        for (j, xj) in x.iter().enumerate() {
            sum = f.add(&sum, &f.mul(&f.pow_u64(&w, (i * j) as u64), xj));
        }
        assert_eq!(*yi, sum, "{name}: DFT({}) output {i}", m * n);
    }

    // L(mn, m): y[j·n + i] = x[i·m + j].
    let y = apply(&Formula::stride((m * n) as u64, m as u64).unwrap(), &x);
    for i in 0..n {
        for j in 0..m {
            assert_eq!(y[j * n + i], x[i * m + j], "{name}: L({}, {m})", m * n);
        }
    }

    // D(m, n): y[a·n + b] = ω_{mn}^(a·b) x[a·n + b].
    let y = apply(&Formula::twiddle(m as u64, n as u64).unwrap(), &x);
    for a in 0..m {
        for b in 0..n {
            let t = f.pow_u64(&w, (a * b) as u64);
            assert_eq!(
                y[a * n + b],
                f.mul(&t, &x[a * n + b]),
                "{name}: D({m}, {n})"
            );
        }
    }

    // I(n), A ⊗ B as (A ⊗ I)(I ⊗ B), A ⊕ B blockwise, A · B with B first.
    assert_eq!(apply(&id((m * n) as u64), &x), x, "{name}: I");
    let (a, b) = (dft(m as u64), Formula::twiddle(2, (n / 2) as u64).unwrap());
    let both = apply(&tensor(vec![a.clone(), b.clone()]), &x);
    let split = apply(
        &compose(vec![
            tensor(vec![a.clone(), id(n as u64)]),
            tensor(vec![id(m as u64), b.clone()]),
        ]),
        &x,
    );
    assert_eq!(both, split, "{name}: A ⊗ B = (A ⊗ I)(I ⊗ B)");
    let mut blocks = apply(&a, &x[..m]);
    blocks.extend(apply(&b, &x[m..m + n]));
    let sum = apply(
        &Formula::direct_sum(vec![a.clone(), b]).unwrap(),
        &x[..m + n],
    );
    assert_eq!(sum, blocks, "{name}: A ⊕ B");
    let l = Formula::stride(m as u64, 2).unwrap();
    let after = apply(&compose(vec![a.clone(), l.clone()]), &x[..m]);
    assert_eq!(
        after,
        apply(&a, &apply(&l, &x[..m])),
        "{name}: A · B applies B first"
    );
}

/// Bad input is a typed error naming the bad value, never a panic.
#[test]
fn bad_input_gives_typed_errors() {
    let f = field("p2013265921");
    let AnyField::Fp32(f) = f else {
        panic!("babybear is a 32-bit prime, got {f:?}");
    };
    let x = vec![f.one(); 8];
    let err = interp::apply(&f, &dft(16), &x).unwrap_err();
    assert_eq!(err, InterpError::LengthMismatch { size: 16, len: 8 });
    assert!(
        err.to_string().contains("16") && err.to_string().contains('8'),
        "{err}"
    );

    // Babybear has roots of power-of-two orders only.
    let x = vec![f.one(); 6];
    let err = interp::apply(&f, &dft(6), &x).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::NoRoot {
                n: 6,
                source: FieldError::SizeNotPowerOfTwo { n: 6 },
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("DFT"), "{err}");
    let err = interp::apply(&f, &Formula::twiddle(2, 3).unwrap(), &x).unwrap_err();
    assert!(matches!(err, InterpError::NoRoot { n: 6, .. }), "{err:?}");

    // A tree built without the checked constructors.
    let bad = Formula::Compose(vec![dft(4), dft(2)]);
    let err = interp::apply(&f, &bad, &x[..4]).unwrap_err();
    assert!(matches!(err, InterpError::Malformed(_)), "{err:?}");

    let p2 = field("P2");
    with_field!(&p2, p2 => {
        let x = vec![p2.one(); 12];
        let err = interp::apply(p2, &dft(12), &x).unwrap_err();
        assert!(matches!(err, InterpError::NoRoot { n: 12, .. }), "{err:?}");
    });
}

/// A radix-2 Cooley–Tukey formula of 2^20 points over babybear, with DFT(2) leaves,
/// against the defining sum at sampled outputs. Prints how long the interpreter took
/// (recorded in bench/RESULTS.md; not an assertion).
#[test]
fn radix2_cooley_tukey_of_2_pow_20_points() {
    const LOG_N: u32 = 20;
    const SAMPLES: usize = 24;
    let n = 1u64 << LOG_N;
    let f = field("p2013265921");
    let AnyField::Fp32(f) = f else {
        panic!("babybear is a 32-bit prime, got {f:?}");
    };
    let formula = radix2(n);
    assert_eq!(formula.checked_size(), Ok(n));
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    let x: Vec<_> = (0..n).map(|_| f.random(&mut rng)).collect();

    let mut interp = Interpreter::new(&f);
    let start = Instant::now();
    let y = interp.apply(&formula, &x).unwrap();
    let first = start.elapsed();
    let start = Instant::now();
    let again = interp.apply(&formula, &x).unwrap();
    let second = start.elapsed();
    eprintln!(
        "interpreter: radix-2 DFT(2^{LOG_N}) over babybear in {first:.3?} \
         (again, with the root tables cached: {second:.3?})"
    );
    assert_eq!(y, again, "the cached second run differs from the first");

    let omega = f.root_of_unity(n).unwrap();
    let mut indices = vec![0, 1, n as usize / 2, n as usize - 1];
    while indices.len() < SAMPLES {
        indices.push(rng.gen_range(0..n as usize));
    }
    for i in indices {
        let want = interp::dft_entry(&f, &x, &omega, i);
        assert_eq!(
            f.to_biguint(&y[i]),
            f.to_biguint(&want),
            "output {i} of DFT(2^{LOG_N})"
        );
    }
    // The oracle itself is not vacuous: a wrong root changes the sampled output.
    let wrong = interp::dft_entry(&f, &x, &f.root_of_unity(n / 2).unwrap(), 1);
    assert_ne!(f.to_biguint(&y[1]), f.to_biguint(&wrong));
}
