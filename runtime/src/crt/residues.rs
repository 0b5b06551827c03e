//! The two ends of the CRT route on the host: projection (integers → residues modulo each
//! prime of a [`PrimeSet`]) and Garner's mixed-radix recombination (residues → integers),
//! both exact and parallel over coefficients.

use super::montgomery::Wide;
use super::primes::PrimeSet;
use fermat_dsl::field::biguint_of_limbs;
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::Zero;
use rayon::prelude::*;

/// Integers in sign–magnitude form, `limbs` 64-bit words each (least significant first):
/// the layout the projection reads.
///
/// ```
/// use fermat::crt::Integers;
/// use fermat::num_bigint::BigInt;
///
/// let x: Vec<BigInt> = vec![BigInt::from(-5), BigInt::from(1u128 << 70)];
/// let v = Integers::from_bigints(&x);
/// assert_eq!(v.limbs(), 2);
/// assert_eq!(v.to_bigints(), x);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Integers {
    limbs: usize,
    words: Vec<u64>,
    negative: Vec<bool>,
}

impl Integers {
    /// The integers `values`, each in as many limbs as the largest needs (at least one).
    ///
    /// ```
    /// use fermat::crt::Integers;
    /// use fermat::num_bigint::BigInt;
    ///
    /// let values = vec![BigInt::from(3), -(BigInt::from(1) << 128u32)];
    /// let x = Integers::from_bigints(&values);
    /// assert_eq!((x.len(), x.is_empty(), x.limbs()), (2, false, 3)); // 2^128 takes 3 words
    /// assert_eq!((x.is_negative(0), x.is_negative(1)), (false, true));
    /// assert_eq!(x.to_bigints(), values);
    /// let none = Integers::from_bigints(&[]);
    /// assert_eq!((none.len(), none.is_empty(), none.limbs()), (0, true, 1));
    /// ```
    pub fn from_bigints(values: &[BigInt]) -> Integers {
        let magnitudes: Vec<&BigUint> = values.iter().map(BigInt::magnitude).collect();
        let negative = values.iter().map(|v| v.sign() == Sign::Minus).collect();
        Integers::from_magnitudes(&magnitudes, negative)
    }

    /// The nonnegative integers `values` ([`CrtDft`](super::CrtDft) has an example).
    pub fn from_biguints(values: &[BigUint]) -> Integers {
        let magnitudes: Vec<&BigUint> = values.iter().collect();
        Integers::from_magnitudes(&magnitudes, vec![false; values.len()])
    }

    fn from_magnitudes(magnitudes: &[&BigUint], negative: Vec<bool>) -> Integers {
        let bits = magnitudes.iter().map(|v| v.bits()).max().unwrap_or(0);
        let limbs = bits.div_ceil(64).max(1) as usize;
        let mut words = vec![0u64; magnitudes.len() * limbs];
        words
            .par_chunks_mut(limbs)
            .zip(magnitudes.par_iter())
            .for_each(|(w, v)| {
                for (slot, d) in w.iter_mut().zip(v.iter_u64_digits()) {
                    *slot = d;
                }
            });
        Integers {
            limbs,
            words,
            negative,
        }
    }

    /// Nonnegative integers of `limbs` 64-bit words each, least significant first: integer
    /// j is `words[j·limbs..(j + 1)·limbs]`.
    ///
    /// Errors: [`Error::Length`](crate::Error::Length) when `limbs` is 0 or does not
    /// divide the number of words.
    ///
    /// ```
    /// use fermat::crt::Integers;
    /// use fermat::num_bigint::BigInt;
    ///
    /// let x = Integers::from_words(2, vec![5, 0, 0, 1])?;
    /// assert_eq!(x.to_bigints(), vec![BigInt::from(5), BigInt::from(1u128 << 64)]);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn from_words(limbs: usize, words: Vec<u64>) -> Result<Integers, crate::Error> {
        if limbs == 0 || !words.len().is_multiple_of(limbs) {
            return Err(crate::Error::Length {
                what: "the integers' words",
                len: words.len(),
                n: limbs as u64,
            });
        }
        let negative = vec![false; words.len() / limbs];
        Ok(Integers::from_parts(limbs, words, negative))
    }

    /// Integers from their parts: `words` (`limbs` words per integer, least significant
    /// first) and the signs.
    pub(crate) fn from_parts(limbs: usize, words: Vec<u64>, negative: Vec<bool>) -> Integers {
        debug_assert_eq!(words.len(), limbs * negative.len());
        Integers {
            limbs,
            words,
            negative,
        }
    }

    /// How many integers ([`from_bigints`](Self::from_bigints) has an example).
    pub fn len(&self) -> usize {
        self.negative.len()
    }

    /// Whether there are none ([`from_bigints`](Self::from_bigints) has an example).
    pub fn is_empty(&self) -> bool {
        self.negative.is_empty()
    }

    /// 64-bit words per integer ([`from_bigints`](Self::from_bigints) has an example).
    pub fn limbs(&self) -> usize {
        self.limbs
    }

    /// The magnitude of integer `i`, least significant word first.
    ///
    /// ```
    /// use fermat::crt::Integers;
    /// use fermat::num_bigint::BigInt;
    ///
    /// let x = Integers::from_bigints(&[BigInt::from(-7), BigInt::from(9)]);
    /// assert_eq!((x.len(), x.is_empty()), (2, false));
    /// assert_eq!((x.magnitude(0), x.is_negative(0)), (&[7][..], true));
    /// assert_eq!((x.magnitude(1), x.is_negative(1)), (&[9][..], false));
    /// ```
    pub fn magnitude(&self, i: usize) -> &[u64] {
        &self.words[i * self.limbs..(i + 1) * self.limbs]
    }

    /// Whether integer `i` is negative ([`from_bigints`](Self::from_bigints) has an
    /// example).
    pub fn is_negative(&self, i: usize) -> bool {
        self.negative[i]
    }

    /// The integers as [`BigInt`]s ([`from_bigints`](Self::from_bigints) has an
    /// example).
    pub fn to_bigints(&self) -> Vec<BigInt> {
        (0..self.len())
            .into_par_iter()
            .map(|i| {
                let m = biguint_of_limbs(self.magnitude(i));
                let sign = if self.negative[i] && !m.is_zero() {
                    Sign::Minus
                } else {
                    Sign::Plus
                };
                BigInt::from_biguint(sign, m)
            })
            .collect()
    }
}

/// The residues of `x` modulo each prime of `set`: row i holds x_j mod p_i for every j
/// (a negative x_j gives p_i − (|x_j| mod p_i)).
///
/// Word j of a magnitude weighs 2^(64j) ≡ w_ij (mod p_i): each residue is a dot product
/// of the words with the weights, one multiplication per word, and one reduction.
///
/// ```
/// use fermat::crt::{project, Integers, PrimeSet, Width};
/// use fermat::num_bigint::BigInt;
///
/// let set = PrimeSet::for_bits(Width::Bits31, 10, 100)?;
/// let x = Integers::from_bigints(&[BigInt::from(-1), BigInt::from(1u128 << 100)]);
/// let r = project(&set, &x);
/// let p = set.primes()[0];
/// assert_eq!(r[0][0], p - 1);
/// assert_eq!(u128::from(r[0][1]), (1u128 << 100) % u128::from(p));
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn project(set: &PrimeSet, x: &Integers) -> Vec<Vec<u64>> {
    let two_64 = |p: u64| ((1u128 << 64) % u128::from(p)) as u64;
    project_in_base(set, (&x.words, x.limbs), two_64, |j| x.is_negative(j))
}

/// The residues modulo each prime of `set` of the numbers Σ_j x_j·β^j whose digits x_j
/// (any 64-bit words) are the `len`-word chunks of `words`, given β mod p by `base`;
/// number j negated where `negative(j)`: row i holds every number's residue mod p_i.
/// Each residue is one dot product of the digits with the weights β^j·R² mod p, reduced
/// once by `redc2` — for limbs β = 2^64, for an SRGFN's digits β = r.
pub(super) fn project_in_base(
    set: &PrimeSet,
    (words, len): (&[u64], usize),
    base: impl Fn(u64) -> u64 + Sync,
    negative: impl Fn(usize) -> bool + Sync,
) -> Vec<Vec<u64>> {
    (0..set.len())
        .into_par_iter()
        .map(|i| {
            let m = set.mont(i);
            let step = m.scaled(base(m.p())); // β·R mod p: a Montgomery product multiplies by β
            let mut weights = Vec::with_capacity(len);
            let mut w = m.scaled(m.one()); // R² mod p
            for _ in 0..len {
                weights.push(w);
                w = m.mul(w, step);
            }
            words
                .chunks_exact(len)
                .enumerate()
                .map(|(j, digits)| {
                    let r = m.redc2(Wide::dot(digits, &weights));
                    if negative(j) {
                        m.sub(0, r)
                    } else {
                        r
                    }
                })
                .collect()
        })
        .collect()
}

/// The integers whose residues modulo the primes of `set` are `residues` (row i modulo
/// p_i), each the unique one in [0, P) — or, `signed`, in (−P/2, P/2] — for P the primes'
/// product.
///
/// Garner's algorithm: the mixed-radix digits v_i of x = v_1 + v_2·p_1 + … +
/// v_s·p_1⋯p_(s−1) come one prime at a time, v_i = (x_i − Σ_(j<i) v_j·p_1⋯p_(j−1))·
/// (p_1⋯p_(i−1))^−1 mod p_i, and Horner's rule turns them into words.
///
/// ```
/// use fermat::crt::{project, recombine, Integers, PrimeSet, Width};
/// use fermat::num_bigint::BigInt;
///
/// let set = PrimeSet::for_bits(Width::Bits62, 20, 200)?;
/// let x: Vec<BigInt> = vec![BigInt::from(-3), BigInt::from(1u128 << 120) * 7];
/// let back = recombine(&set, &project(&set, &Integers::from_bigints(&x)), true);
/// assert_eq!(back.to_bigints(), x);
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn recombine(set: &PrimeSet, residues: &[Vec<u64>], signed: bool) -> Integers {
    let s = set.len();
    let n = residues.first().map_or(0, Vec::len);
    let limbs = (set.product().bits().div_ceil(64) as usize).max(1);
    let product: Vec<u64> = set.product().iter_u64_digits().collect();
    let mut half = vec![0u64; limbs];
    for (slot, d) in half
        .iter_mut()
        .zip((set.product() >> 1u32).iter_u64_digits())
    {
        *slot = d;
    }
    let mut words = vec![0u64; n * limbs];
    let mut negative = vec![false; n];
    words
        .par_chunks_mut(limbs)
        .zip(negative.par_iter_mut())
        .enumerate()
        .for_each_init(
            || vec![0u64; s],
            |digits, (j, (out, neg))| {
                mixed_radix(set, residues, j, digits);
                horner(set.primes(), digits, out);
                if signed && greater(out, &half) {
                    // x − P < 0: store P − x.
                    subtract_from(&product, out);
                    *neg = true;
                }
            },
        );
    Integers {
        limbs,
        words,
        negative,
    }
}

/// The mixed-radix digits of coefficient `j`.
fn mixed_radix(set: &PrimeSet, residues: &[Vec<u64>], j: usize, digits: &mut [u64]) {
    for i in 0..set.len() {
        let m = set.mont(i);
        let sum = m.redc2(Wide::dot(digits, set.partial(i)));
        digits[i] = m.mul(m.sub(residues[i][j], sum), set.inverse(i));
    }
}

/// out = v_1 + p_1·(v_2 + p_2·(… + p_(s−1)·v_s)), by Horner's rule from the top digit.
fn horner(primes: &[u64], digits: &[u64], out: &mut [u64]) {
    out.fill(0);
    let Some((&top, rest)) = digits.split_last() else {
        return;
    };
    out[0] = top;
    let mut used = 1;
    for (&v, &p) in rest.iter().zip(primes).rev() {
        let mut carry = u128::from(v);
        for w in out[..used].iter_mut() {
            let t = u128::from(*w) * u128::from(p) + carry;
            *w = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            out[used] = carry as u64;
            used += 1;
        }
    }
}

/// Whether the little-endian a > b (b no longer than a).
fn greater(a: &[u64], b: &[u64]) -> bool {
    for i in (0..a.len()).rev() {
        let bi = b.get(i).copied().unwrap_or(0);
        if a[i] != bi {
            return a[i] > bi;
        }
    }
    false
}

/// x ← p − x, for x ≤ p.
fn subtract_from(p: &[u64], x: &mut [u64]) {
    let mut borrow = false;
    for (i, w) in x.iter_mut().enumerate() {
        let pi = p.get(i).copied().unwrap_or(0);
        let (d, b1) = pi.overflowing_sub(*w);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *w = d;
        borrow = b1 || b2;
    }
}
