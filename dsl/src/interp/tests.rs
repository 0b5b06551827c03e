//! Shared helpers for the interpreter's tests (a small prime field, random vectors,
//! formula shorthands), and the tests of the [`Interpreter`] itself.

use super::*;
use num_bigint::BigUint;
use num_traits::ToPrimitive;
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

pub(crate) fn random_vec(f: &TestPrime, n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(0..f.p)).collect()
}

pub(crate) fn dft(n: u64) -> Formula {
    Formula::dft(n).unwrap()
}
pub(crate) fn id(n: u64) -> Formula {
    Formula::identity(n).unwrap()
}
pub(crate) fn l(n: u64, m: u64) -> Formula {
    Formula::stride(n, m).unwrap()
}
pub(crate) fn d(m: u64, n: u64) -> Formula {
    Formula::twiddle(m, n).unwrap()
}
pub(crate) fn t(fs: Vec<Formula>) -> Formula {
    Formula::tensor(fs).unwrap()
}
pub(crate) fn c(fs: Vec<Formula>) -> Formula {
    Formula::compose(fs).unwrap()
}
pub(crate) fn s(fs: Vec<Formula>) -> Formula {
    Formula::direct_sum(fs).unwrap()
}

pub(crate) fn cooley_tukey(j: u64, k: u64) -> Formula {
    c(vec![
        t(vec![dft(j), id(k)]),
        d(j, k),
        t(vec![id(j), dft(k)]),
        l(j * k, j),
    ])
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
