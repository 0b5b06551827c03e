//! Helpers the polynomial and CRT tests share: the fields they run in and random operands.

use fermat::dsl::Field;
use fermat::num_bigint::{BigInt, RandBigInt, Sign};
use fermat::poly::Poly;
use fermat::PrimeField;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The names of the catalogue's fields and of the word prime of the speed targets.
pub const CATALOGUE: [&str; 7] = [
    "P1",
    "P2",
    "P3",
    "P4",
    "babybear",
    "goldilocks",
    "469762049",
];

/// The catalogue's fields and the word prime of the speed targets.
pub fn catalogue() -> Vec<PrimeField> {
    CATALOGUE
        .map(|spec| PrimeField::new(spec).unwrap())
        .to_vec()
}

/// A random polynomial of exactly `len` coefficients (its leading one nonzero), monic if
/// asked.
pub fn random_poly<F: Field>(field: &F, len: usize, monic: bool, rng: &mut ChaCha8Rng) -> Poly<F> {
    let mut c: Vec<F::Elem> = (0..len).map(|_| field.random(rng)).collect();
    if let Some(last) = c.last_mut() {
        if monic || *last == field.zero() {
            *last = field.one();
        }
    }
    Poly::new(field, c)
}

/// A random integer of at most `bits` bits and either sign.
pub fn signed_random(rng: &mut ChaCha8Rng, bits: u64) -> BigInt {
    let m = rng.gen_biguint(bits);
    let sign = if rng.gen() { Sign::Minus } else { Sign::Plus };
    BigInt::from_biguint(sign, m)
}
