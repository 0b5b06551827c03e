//! Multiplication (2017 paper, Algorithm 3).
//!
//! Step 1 forms the negacyclic product f_u = f_x·f_y mod T^k + 1 by schoolbook, each
//! coefficient a signed sum of 64×64→128-bit products in a 192-bit accumulator
//! (PAPERS.md: the coefficients are signed, |u_i| < k·r^2, beyond 128 bits).
//!
//! Steps 2–4 write each u_i in base r and add the pieces u_i·r^i. Rather than three digits
//! per coefficient followed by k − 1 additions with Algorithm 2, the pieces are summed as
//! they are made, in two data-parallel sweeps over the coefficients:
//!
//! 1. u_i = q_i·r + s_i by the sparse division of §3.1 (the series form of the S2 rounds,
//!    [`Radix::estimate_wide`]); q_i·r^(i+1) joins the next coefficient, and q_{k−1}·r^k
//!    comes back to coefficient 0 as −q_{k−1} (r^k ≡ −1). Now every |v_i| < (k + 2·t + 12)·r.
//! 2. v_i = c_i·r + d_i with 0 ≤ d_i < r exactly (estimate, then S3/S2 corrections), and
//!    c_i moves up the same way. The digits d_i + c_{i−1} lie within |c| of [0, r) and,
//!    for a radix of 60-odd bits, land in [0, r) but with probability ~k·|c|/r.
//!
//! When one does not, a serial carry pass ([`Srgfn::settle`]) finishes the job exactly.
//! No step multiplies by r (the sparse form gives shifts) and none divides in hardware.

use super::radix::{Radix, Wide};
use super::Srgfn;
use num_bigint::BigUint;

/// How often the serial carry pass ran: tests check that their edge cases reach it.
#[cfg(test)]
pub(super) static SLOW_PATH_HITS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// The number of series terms the two sweeps need for radix `radix` and k digits, from
/// the worst-case magnitudes: |u_i| ≤ k·r^2 (digits are at most r), and after the first
/// sweep |v_i| < (k + 2·t + 12)·r.
pub(super) fn sweep_terms(radix: &Radix, k: usize) -> [u32; 2] {
    let r = BigUint::from(radix.r);
    let bits_of_high = |bound: BigUint| ((bound >> radix.w) + 1u32).bits();
    let first = radix.terms_for(bits_of_high(BigUint::from(k) * &r * &r));
    let v_bound = BigUint::from(k + 2 * first as usize + 12) * &r;
    [first, radix.terms_for(bits_of_high(v_bound))]
}

impl<const K: usize> Srgfn<K> {
    /// Algorithm 3 on digit arrays (see the module documentation).
    #[inline]
    pub(super) fn mul_digits(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        let rad = self.radix;
        let r = rad.r as i128;

        // Step 1: T^(i+j) with i + j ≥ k is −T^(i+j−k) modulo T^k + 1.
        let mut u = [Wide::ZERO; K];
        for i in 0..K {
            let xi = x[i] as u128;
            for j in 0..K - i {
                u[i + j].add_u128(xi * y[j] as u128);
            }
            for j in K - i..K {
                u[i + j - K].sub_u128(xi * y[j] as u128);
            }
        }

        // First sweep.
        let mut q = [0i128; K];
        let mut v = [0i128; K];
        for i in 0..K {
            (q[i], v[i]) = rad.estimate_wide(u[i], self.terms[0]);
        }
        v[0] -= q[K - 1];
        for i in 1..K {
            v[i] += q[i - 1];
        }

        // Second sweep.
        let mut c = [0i128; K];
        let mut d = [0u64; K];
        for i in 0..K {
            let (qi, si) = rad.estimate(v[i], self.terms[1]);
            (c[i], d[i]) = rad.finish(qi, si);
        }

        let mut z = [0u64; K];
        let mut in_range = true;
        for i in 0..K {
            let carry = if i == 0 { -c[K - 1] } else { c[i - 1] };
            let t = d[i] as i128 + carry;
            in_range &= (0..r).contains(&t);
            z[i] = t as u64;
        }
        if in_range {
            return z;
        }
        self.mul_carry_slow(&d, &c)
    }

    /// Σ d_i·r^i + Σ c_i·r^(i+1) mod p by a serial carry pass, for the rare products whose
    /// second sweep leaves a digit outside [0, r).
    #[cold]
    fn mul_carry_slow(&self, d: &[u64; K], c: &[i128; K]) -> [u64; K] {
        #[cfg(test)]
        SLOW_PATH_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut z = [0u64; K];
        let mut carry = 0i128;
        for i in 0..K {
            let from_below = if i == 0 { -c[K - 1] } else { c[i - 1] };
            let (q, s) = self.radix.div_rem(d[i] as i128 + from_below + carry);
            z[i] = s;
            carry = q;
        }
        self.settle(z, -carry)
    }
}
