//! Sparse-radix generalized Fermat prime fields p = r^k + 1, r = 2^w ± 2^u
//! (Chen, Covanov, Mohajerani, Moreno Maza, *Big Prime Field FFT on the GPU*, ISSAC 2017, §3).
//!
//! # Representation (§3.1, equation (5))
//!
//! An element x is k digits x_0..x_{k−1}, least significant first, one `u64` each, with
//! x = Σ x_i·r^i and either every 0 ≤ x_i < r, or x_{k−1} = r and every other digit 0
//! (that is x = r^k = p − 1, the one value k digits below r cannot spell). Every element
//! has exactly one representation, so digit arrays compare like the values they denote.
//!
//! # Algorithms
//!
//! - Division by r (§3.1, equation (6), steps S1–S3) in `radix.rs`: shifts and one
//!   shifted subtraction per round, thanks to the two-bit form of r.
//! - Addition (Algorithm 2) and subtraction: digit-wise, with carries by comparison with r;
//!   the final carry z_k ∈ {0, 1, 2} is folded back as r^k ≡ −1 (the paper's steps miss
//!   z_k = 2, which (p − 1) + (p − 1) produces).
//! - Multiplication by r^i (§3.4): a negacyclic digit shift, i.e. one subtraction.
//! - Multiplication (Algorithm 3): the negacyclic product f_x·f_y mod T^k + 1 with signed
//!   192-bit coefficients (|u_i| < k·r^2, not the paper's 0 ≤ u_i ≤ k·r^2), each written in
//!   base r by the sparse division and the pieces summed with carries.
//! - Roots of unity (§3.2, Proposition 1, Algorithm 1): the canonical ω_n
//!   (docs/ARCHITECTURE.md, "Roots of unity"), with
//!   ω_n^(n/2k) = r so that the base-case DFT_2k needs shifts only.

mod add;
mod digits;
mod mul;
mod radix;
mod reciprocal;
mod sums;
#[cfg(test)]
mod tests;

use super::inverse::inverse_mod_odd;
use super::primality::{probable_prime, SRGFN_MR_ROUNDS};
use super::{check_order, two_adicity_of, Field, FieldError, Sign, SrgfnParams};
use num_bigint::BigUint;
use radix::Radix;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// The field Z/p for a sparse-radix generalized Fermat prime p = r^k + 1 (2017 paper,
/// Definition 1), r = 2^w ± 2^u.
///
/// `K` is the number of digits k (the base-case DFT has 2k points). Build one with
/// [`Srgfn::new`] or through [`FieldSpec`](super::FieldSpec).
///
/// ```
/// use fermat_dsl::field::{Field, Sign, Srgfn, SrgfnParams};
///
/// let params = SrgfnParams { w: 63, u: 53, sign: Sign::Plus, k: 2 };
/// let p1 = Srgfn::<2>::new(params, Some("P1"))?;
/// assert_eq!((p1.k(), p1.r()), (2, (1 << 63) + (1 << 53)));
/// // r has order 2k = 4: r^2 = −1, and multiplying by it is a digit shift.
/// let r = p1.from_digits(&[0, 1])?;
/// assert_eq!(p1.mul(&r, &r), p1.neg(&p1.one()));
/// assert_eq!(p1.mul_r_pow(&p1.one(), 2), p1.neg(&p1.one()));
/// assert!(Srgfn::<4>::new(params, None).is_err()); // k = 2 digits, not 4
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Srgfn<const K: usize> {
    params: SrgfnParams,
    name: Option<&'static str>,
    p: BigUint,
    two_adicity: u32,
    radix: Radix,
    /// The radix as the conversion to digits divides by it.
    reciprocal: reciprocal::Reciprocal,
    /// The radix as Algorithm 3's fast path uses it (see `mul.rs`).
    shape: mul::Shape,
    /// Whether this is the catalogue prime for k digits, whose shape is also known at
    /// compile time.
    catalogue: bool,
    /// The canonical non-residue α (a small integer), computed on first use: a full
    /// modular exponentiation per candidate. Kept as an integer so that the field's size
    /// does not grow with k.
    alpha: OnceLock<u64>,
}

/// An element of [`Srgfn<K>`]: its k base-r digits, least significant first (2017 paper,
/// §3.1). Always a valid representation; only the field makes them.
///
/// Transparent over its digits, so that a slice of elements is a slice of digits
/// ([`Field::radix_digits_many`]).
///
/// ```
/// use fermat_dsl::field::{AnyField, Field};
///
/// let AnyField::Srgfn2(p1) = AnyField::from_spec("P1")? else { unreachable!() };
/// let minus_one = p1.neg(&p1.one());
/// assert_eq!(minus_one.digits(), &[0, p1.r()]); // p − 1 = r·r^1: the one digit r
/// assert_eq!(p1.from_u64(5).digits(), &[5, 0]);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(transparent)]
pub struct SrgfnElem<const K: usize>([u64; K]);

impl<const K: usize> SrgfnElem<K> {
    /// The digits x_0..x_{k−1} (x = Σ x_i·r^i): all below r, or `[0, …, 0, r]` for p − 1
    /// ([`SrgfnElem`] has an example).
    pub fn digits(&self) -> &[u64; K] {
        &self.0
    }
}

/// Moduli already accepted by the Miller–Rabin test: P5 and P6 take a noticeable time
/// to test and are built many times (tests, every `FieldSpec::build`).
fn known_primes() -> &'static Mutex<HashSet<BigUint>> {
    static PRIMES: OnceLock<Mutex<HashSet<BigUint>>> = OnceLock::new();
    PRIMES.get_or_init(Default::default)
}

/// The canonical non-residue α of each modulus seen, for the same reason.
fn known_non_residues() -> &'static Mutex<HashMap<BigUint, u64>> {
    static ALPHAS: OnceLock<Mutex<HashMap<BigUint, u64>>> = OnceLock::new();
    ALPHAS.get_or_init(Default::default)
}

fn check_prime(p: &BigUint) -> Result<(), FieldError> {
    let lock = || known_primes().lock().unwrap_or_else(|e| e.into_inner());
    if lock().contains(p) {
        return Ok(());
    }
    probable_prime(p, SRGFN_MR_ROUNDS).map_err(|witness| FieldError::NotPrime {
        p: p.clone(),
        witness,
    })?;
    lock().insert(p.clone());
    Ok(())
}

impl<const K: usize> Srgfn<K> {
    /// Builds Z/p for p = r^k + 1, r = 2^w ± 2^u.
    ///
    /// Checks k (a power of two, at most `MAX_K` = 64, and equal to `K`),
    /// the radix (u < w, r a 64-bit digit) and that p is a probable prime
    /// ([`SRGFN_MR_ROUNDS`] Miller–Rabin rounds; accepted moduli are remembered for the
    /// life of the process). `name` is the catalogue name, if any. [`Srgfn`] has an
    /// example.
    pub fn new(params: SrgfnParams, name: Option<&'static str>) -> Result<Self, FieldError> {
        params.check_k()?;
        let r = params.radix()?;
        if params.k != K as u64 {
            return Err(FieldError::BadSpec {
                spec: params.to_string(),
                why: format!(
                    "k = {} does not match this element type, which has {K} digits",
                    params.k
                ),
            });
        }
        let p = params.modulus()?;
        check_prime(&p)?;
        let minus = params.sign == Sign::Minus;
        let radix = Radix::new(r, params.w, params.u, minus);
        let shape = mul::Shape::new(params.w, params.u, minus, K);
        Ok(Srgfn {
            params,
            name,
            two_adicity: two_adicity_of(&p),
            p,
            radix,
            reciprocal: reciprocal::Reciprocal::new(r),
            shape,
            catalogue: Self::CATALOGUE_SHAPE == Some(shape),
            alpha: OnceLock::new(),
        })
    }

    /// The parameters w, u, sign, k.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Sign};
    ///
    /// let AnyField::Srgfn4(p2) = AnyField::from_spec("P2")? else { unreachable!() };
    /// assert_eq!((p2.params().w, p2.params().sign), (64, Sign::Minus));
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn params(&self) -> SrgfnParams {
        self.params
    }

    /// The radix r = 2^w ± 2^u ([`Srgfn`] has an example).
    pub fn r(&self) -> u64 {
        self.radix.r
    }

    /// The number of digits k (the base-case DFT has 2k points); [`Srgfn`] has an example.
    pub fn k(&self) -> u64 {
        K as u64
    }

    /// For a primitive n-th root of unity `w` with 2k | n, the odd j in [1, 2k) with
    /// w^(n/2k) = r^j (2017 paper, proof of Proposition 1: w^(n/2k) is a primitive 2k-th
    /// root, hence an odd power of r).
    ///
    /// The base-case DFT_2k of a transform at `w` is then taken at r^j, and its twiddles
    /// are still digit shifts ([`Srgfn::mul_r_pow`]). Errors: `w` is not a primitive n-th
    /// root ([`Field::check_root`]), or n is not a multiple of 2k.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field};
    ///
    /// let AnyField::Srgfn8(p3) = AnyField::from_spec("P3")? else { unreachable!() };
    /// let w = p3.root_of_unity(256)?; // canonical: w^(256/16) = r
    /// assert_eq!(p3.base_case_exponent(&w, 256)?, 1);
    /// let w3 = p3.pow_u64(&w, 3); // primitive too: w3^16 = r^3
    /// assert_eq!(p3.base_case_exponent(&w3, 256)?, 3);
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn base_case_exponent(&self, w: &SrgfnElem<K>, n: u64) -> Result<u32, FieldError> {
        self.check_root(w, n)?;
        let k2 = 2 * K as u64;
        if !n.is_multiple_of(k2) {
            return Err(FieldError::SizeBelowBaseCase { n, base: k2 });
        }
        let b = self.pow_u64(w, n / k2);
        let one = self.one();
        (1..k2 as u32)
            .step_by(2)
            .find(|&j| self.mul_r_pow(&one, j) == b)
            .ok_or_else(|| self.not_a_field())
    }

    /// The error for an arithmetic contradiction that only a composite modulus explains
    /// (the probabilistic primality test let it through).
    fn not_a_field(&self) -> FieldError {
        FieldError::NotPrime {
            p: self.p.clone(),
            witness: None,
        }
    }

    /// α by Euler's criterion: the smallest a ≥ 2 with a^((p−1)/2) = −1.
    fn compute_non_residue(&self) -> u64 {
        let lock = || {
            known_non_residues()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        };
        if let Some(&a) = lock().get(&self.p) {
            return a;
        }
        let half = (&self.p - 1u32) >> 1;
        let minus_one = self.neg(&self.one());
        let mut a = 2u64;
        loop {
            let alpha = self.from_u64(a);
            if self.pow(&alpha, &half) == minus_one {
                lock().insert(self.p.clone(), a);
                return a;
            }
            a += 1;
        }
    }
}

impl<const K: usize> Field for Srgfn<K> {
    type Elem = SrgfnElem<K>;

    fn radix_digits<'a>(&self, a: &'a Self::Elem) -> Option<&'a [u64]> {
        Some(a.digits())
    }

    fn radix_digits_many<'a>(&self, xs: &'a [Self::Elem]) -> Option<&'a [u64]> {
        // SAFETY: `SrgfnElem<K>` is `repr(transparent)` over `[u64; K]`, so `xs` is
        // `xs.len()` arrays of K words, contiguous and aligned as words.
        let arrays =
            unsafe { std::slice::from_raw_parts(xs.as_ptr().cast::<[u64; K]>(), xs.len()) };
        Some(arrays.as_flattened())
    }

    fn from_radix_sums(&self, sums: &[[u64; 3]]) -> Result<Vec<Self::Elem>, FieldError> {
        Ok(self.elements_of_sums(sums))
    }

    /// r = ω_{2k} (Algorithm 1's family): multiplications by its powers are digit shifts.
    fn shift_root_order(&self) -> Option<u64> {
        Some(2 * K as u64)
    }

    /// a · r^i by a negacyclic digit shift (§3.4).
    fn mul_shift(&self, a: &Self::Elem, i: u64) -> Self::Elem {
        self.mul_r_pow(a, (i % (2 * K as u64)) as u32)
    }

    fn name(&self) -> String {
        match self.name {
            Some(n) => n.to_string(),
            None => self.params.to_string(),
        }
    }

    fn modulus(&self) -> BigUint {
        self.p.clone()
    }

    fn two_adicity(&self) -> u32 {
        self.two_adicity
    }

    fn zero(&self) -> SrgfnElem<K> {
        SrgfnElem([0; K])
    }

    fn one(&self) -> SrgfnElem<K> {
        let mut d = [0; K];
        d[0] = 1;
        SrgfnElem(d)
    }

    /// Algorithm 2.
    #[inline]
    fn add(&self, a: &SrgfnElem<K>, b: &SrgfnElem<K>) -> SrgfnElem<K> {
        SrgfnElem(self.add_digits(&a.0, &b.0))
    }

    /// The analogue of Algorithm 2 with borrows.
    #[inline]
    fn sub(&self, a: &SrgfnElem<K>, b: &SrgfnElem<K>) -> SrgfnElem<K> {
        SrgfnElem(self.sub_digits(&a.0, &b.0))
    }

    fn neg(&self, a: &SrgfnElem<K>) -> SrgfnElem<K> {
        SrgfnElem(self.sub_digits(&[0; K], &a.0))
    }

    /// Algorithm 3.
    #[inline]
    fn mul(&self, a: &SrgfnElem<K>, b: &SrgfnElem<K>) -> SrgfnElem<K> {
        SrgfnElem(self.mul_digits(&a.0, &b.0))
    }

    fn from_biguint(&self, x: &BigUint) -> Result<SrgfnElem<K>, FieldError> {
        self.digits_of(x).map(SrgfnElem)
    }

    fn to_biguint(&self, a: &SrgfnElem<K>) -> BigUint {
        self.value_of(&a.0)
    }

    fn to_limbs(&self, a: &SrgfnElem<K>, out: &mut [u64]) -> Result<(), FieldError> {
        crate::field::check_limbs(&self.p, out.len())?;
        self.write_value(&a.0, out);
        Ok(())
    }

    fn from_limbs(&self, limbs: &[u64]) -> Result<SrgfnElem<K>, FieldError> {
        self.digits_of_limbs(limbs).map(SrgfnElem)
    }

    /// a^(−1) by the binary GCD on a's binary limbs, 31 steps a round (`inverse.rs`):
    /// P3's in some 7 µs where Fermat's a^(p − 2) took 40 (one core of an EPYC). The
    /// result is checked by one product, Fermat's power the fallback.
    fn inv(&self, a: &SrgfnElem<K>) -> Result<SrgfnElem<K>, FieldError> {
        if *a == self.zero() {
            return Err(FieldError::NotInvertible);
        }
        let m = self.p.to_u64_digits();
        let mut y = vec![0; m.len()];
        self.write_value(&a.0, &mut y);
        if let Some(x) = inverse_mod_odd(&y, &m) {
            let x = self.from_limbs(&x)?;
            if self.mul(&x, a) == self.one() {
                return Ok(x);
            }
        }
        Ok(self.pow(a, &(&self.p - 2u32)))
    }

    fn from_limbs_many(&self, values: &[&[u64]]) -> Result<Vec<SrgfnElem<K>>, FieldError> {
        let mut out = Vec::with_capacity(values.len());
        let mut quads = values.chunks_exact(4);
        for quad in &mut quads {
            for digits in self.digits_of_lanes([quad[0], quad[1], quad[2], quad[3]]) {
                out.push(SrgfnElem(digits?));
            }
        }
        for value in quads.remainder() {
            out.push(self.from_limbs(value)?);
        }
        Ok(out)
    }

    fn from_u64(&self, x: u64) -> SrgfnElem<K> {
        self.digits_of_u64(x)
    }

    fn non_residue(&self) -> SrgfnElem<K> {
        self.from_u64(*self.alpha.get_or_init(|| self.compute_non_residue()))
    }

    /// The canonical ω_n (docs/ARCHITECTURE.md, "Roots of unity"): for n | 2k, ω_n = r^(2k/n); for 2k | n, Algorithm 1
    /// of the 2017 paper: g = α^((p−1)/n) and ω_n = g^j for the smallest j ≥ 1 with
    /// g^(j·n/2k) = r. Hence ω_{2k} = r and ω_n = ω_{2n}^2 for every n.
    fn root_of_unity(&self, n: u64) -> Result<SrgfnElem<K>, FieldError> {
        check_order(n, self.two_adicity)?;
        let k2 = 2 * K as u64;
        let one = self.one();
        if k2.is_multiple_of(n) {
            return Ok(self.mul_r_pow(&one, (k2 / n) as u32));
        }
        let g = self.pow(&self.non_residue(), &((&self.p - 1u32) / n));
        let base = self.pow_u64(&g, n / k2);
        let r = self.mul_r_pow(&one, 1);
        let mut beta = base;
        for j in 1..=k2 {
            if beta == r {
                return Ok(self.pow_u64(&g, j));
            }
            beta = self.mul(&beta, &base);
        }
        Err(self.not_a_field())
    }
}
