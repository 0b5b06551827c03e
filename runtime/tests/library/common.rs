//! Helpers the polynomial tests share: the fields they run in and random operands.

use fermat::dsl::Field;
use fermat::poly::Poly;
use fermat::PrimeField;
use rand_chacha::ChaCha8Rng;

/// The catalogue's fields and the word prime of the speed targets.
pub fn catalogue() -> Vec<PrimeField> {
    [
        "P1",
        "P2",
        "P3",
        "P4",
        "babybear",
        "goldilocks",
        "469762049",
    ]
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
