//! Multiplication (2017 paper, Algorithm 3).
//!
//! Step 1 forms the negacyclic product f_u = f_x·f_y mod T^k + 1 by schoolbook, each
//! coefficient a signed sum of 64×64→128-bit products in a 192-bit accumulator
//! (the coefficients are signed, |u_i| < k·r^2, beyond 128 bits: not the paper's
//! 0 ≤ u_i ≤ k·r^2).
//!
//! Steps 2–4 write each u_i in base r and add the pieces u_i·r^i. Rather than three digits
//! per coefficient followed by k − 1 additions with Algorithm 2, the pieces are summed as
//! they are made, in two data-parallel sweeps over the coefficients (no serial carry chain):
//!
//! 1. u_i = q_i·r + s_i with |s_i| a small multiple of r, by the sparse division of §3.1 in
//!    its series form (`Radix::estimate_wide`): q_i = h − (h >> (w−u)) + … with
//!    h = u_i >> w, and s_i = u_i − q_i·r computed modulo 2^128 (exact, as s_i is small).
//!    q_i·r^(i+1) joins the next coefficient, and q_{k−1}·r^k comes back to coefficient 0
//!    as −q_{k−1} (r^k ≡ −1): v_i = s_i + q_{i−1}.
//! 2. One round of equation (6) on each v_i: v_i = g_i·2^w + l_i = g_i·r + (l_i ∓ 2^u·g_i),
//!    and g_i moves up the same way. The digit is z_i = l_i ∓ 2^u·g_i + g_{i−1}: exact, and
//!    within a few 2^u·|g| of [0, r).
//!
//! If every z_i lies in [0, r) they are the canonical digits (S1 for all of them at once);
//! that fails with probability about k·2^u·|g|/2^w (under 2^−16 for P3 and P4, about 2^−9
//! for P2, but most of the time for P5, whose 2^u = 2^56 is r/64). The z_i are still exact
//! signed digits of the product, so a cold path settles them by one serial carry pass with
//! exact divisions by r (S2/S3 corrections, [`Srgfn::settle`]), without forming the
//! product again.
//!
//! For the catalogue primes the radix is a compile-time constant of the element type
//! ([`Shape::catalogue`]), so every shift above is by an immediate; other SRGFNs run the
//! same code with the shifts read from the field.
//!
//! On x86-64 CPUs with AVX-512 IFMA (detected at run time),
//! the catalogue primes with 8 and 16 digits (P3, P4) run the same algorithm with one
//! vector lane per coefficient instead (`mul/ifma.rs`); it falls back to the exact path
//! below on rare operands.
//! [`Srgfn::mul_portable`] runs the code above on any CPU.

#[cfg(target_arch = "x86_64")]
mod ifma;

use super::radix::Wide;
use super::{Srgfn, SrgfnElem};
use crate::field::spec::CATALOGUE_SRGFNS;
use crate::field::Sign;

/// The radix as the multiplication's fast path sees it, with the bounds that make the
/// fast path exact (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// r = 2^w ± 2^u.
    pub r: u64,
    /// The exponent of the leading power of two.
    pub w: u32,
    /// The exponent of the trailing power of two.
    pub u: u32,
    /// r = 2^w − 2^u.
    pub minus: bool,
    /// Series terms of the first sweep beyond the first.
    pub terms: u32,
    /// Whether every series term h >> (j·(w−u)), j ≥ 1, fits a signed word with room for
    /// their sum (|h| < 2^(62 + w − u)).
    pub word_series: bool,
    /// Whether the digits of the second sweep can be range-checked as wrapped u64 values:
    /// their true values lie in (−D, 2^w + D) with 2^w + D ≤ 2^64 and D ≤ 2^64 − r, so a
    /// wrapped value below r is exactly a true value in [0, r).
    pub narrow: bool,
}

/// The number of bits of x (0 for 0).
const fn bits(x: u128) -> u32 {
    128 - x.leading_zeros()
}

impl Shape {
    /// The shape of r = 2^w ± 2^u with k digits; the caller has checked u < w ≤ 64 and
    /// that r fits 64 bits.
    pub const fn new(w: u32, u: u32, minus: bool, k: usize) -> Shape {
        let r = if minus {
            ((1u128 << w) - (1u128 << u)) as u64
        } else {
            ((1u128 << w) + (1u128 << u)) as u64
        };
        let k = k as u128;
        let g = w - u;
        // |u_i| ≤ k·r^2 (digits are at most r), so |h| = |u_i >> w| ≤ h_max.
        let r2 = r as u128 * r as u128;
        let h_max = (r2 >> w) * k + k + 1;
        let h_bits = bits(h_max);
        // The series tail is below 2^(h_bits − (terms+1)·g + 1) units of r; take enough terms
        // that 2^u times it stays below 2^(w−16) (the fast path then rarely fails), or, where
        // no number of terms achieves that, until the tail vanishes.
        let mut terms = 0u32;
        loop {
            let covered = (terms + 1) * g;
            let tail_bits = (h_bits + 1).saturating_sub(covered);
            if tail_bits + u + 16 <= w || tail_bits == 0 {
                break;
            }
            terms += 1;
        }
        // |s_i| < (terms + 7)·r, |q_i| ≤ 2·h_max + terms + 5, so
        // |g_i| ≤ |v_i|/2^w + 1 = g_max and D = g_max·(2^u + 1).
        let tail = if h_bits + 1 > (terms + 1) * g {
            1u128 << (h_bits + 1 - (terms + 1) * g)
        } else {
            1
        };
        let v_max = (terms as u128 + 7 + tail) * r as u128 + 2 * h_max + terms as u128 + 5;
        let g_max = (v_max >> w) + 1;
        let d = g_max * ((1u128 << u) + 1);
        let narrow = (1u128 << w) + d <= 1u128 << 64 && d <= (1u128 << 64) - r as u128;
        Shape {
            r,
            w,
            u,
            minus,
            terms,
            word_series: h_bits <= 62 + g,
            narrow,
        }
    }

    /// The shape of the catalogue prime with k digits, if there is one (one per k: P1..P6).
    pub const fn catalogue(k: usize) -> Option<Shape> {
        let mut i = 0;
        while i < CATALOGUE_SRGFNS.len() {
            let p = CATALOGUE_SRGFNS[i].1;
            if p.k == k as u64 {
                return Some(Shape::new(p.w, p.u, matches!(p.sign, Sign::Minus), k));
            }
            i += 1;
        }
        None
    }
}

/// The 192-bit column accumulator of step 1, as three words (two carry chains per product).
#[derive(Clone, Copy)]
struct Acc {
    w0: u64,
    w1: u64,
    w2: u64,
}

impl Acc {
    const ZERO: Acc = Acc {
        w0: 0,
        w1: 0,
        w2: 0,
    };

    /// acc ± x·y.
    #[inline(always)]
    fn mac(&mut self, x: u64, y: u64, add: bool) {
        let p = x as u128 * y as u128;
        let (lo, hi) = (p as u64, (p >> 64) as u64);
        if add {
            let c = add_carry(false, self.w0, lo, &mut self.w0);
            let c = add_carry(c, self.w1, hi, &mut self.w1);
            add_carry(c, self.w2, 0, &mut self.w2);
        } else {
            let b = sub_borrow(false, self.w0, lo, &mut self.w0);
            let b = sub_borrow(b, self.w1, hi, &mut self.w1);
            sub_borrow(b, self.w2, 0, &mut self.w2);
        }
    }

    /// acc ± `x[J]·y[M]`, as one instruction sequence on x86-64.
    #[inline(always)]
    fn mac_at<const J: usize, const M: usize>(&mut self, x: &[u64], y: &[u64], add: bool) {
        #[cfg(target_arch = "x86_64")]
        {
            assert!(J < x.len() && M < y.len());
            // SAFETY: both indices are in bounds (checked above, at compile time in
            // practice); the block reads those two words and writes only its operands.
            unsafe {
                if add {
                    core::arch::asm!(
                        "mov rax, qword ptr [{x} + 8*{j}]",
                        "mul qword ptr [{y} + 8*{m}]",
                        "add {w0}, rax",
                        "adc {w1}, rdx",
                        "adc {w2}, 0",
                        x = in(reg) x.as_ptr(), y = in(reg) y.as_ptr(),
                        j = const J, m = const M,
                        w0 = inout(reg) self.w0, w1 = inout(reg) self.w1, w2 = inout(reg) self.w2,
                        out("rax") _, out("rdx") _,
                        options(pure, readonly, nostack),
                    );
                } else {
                    core::arch::asm!(
                        "mov rax, qword ptr [{x} + 8*{j}]",
                        "mul qword ptr [{y} + 8*{m}]",
                        "sub {w0}, rax",
                        "sbb {w1}, rdx",
                        "sbb {w2}, 0",
                        x = in(reg) x.as_ptr(), y = in(reg) y.as_ptr(),
                        j = const J, m = const M,
                        w0 = inout(reg) self.w0, w1 = inout(reg) self.w1, w2 = inout(reg) self.w2,
                        out("rax") _, out("rdx") _,
                        options(pure, readonly, nostack),
                    );
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.mac(x[J], y[M], add);
    }

    #[inline(always)]
    fn wide(self) -> Wide {
        Wide {
            lo: (self.w1 as u128) << 64 | self.w0 as u128,
            hi: self.w2 as i64,
        }
    }
}

/// a + b + carry, through the carry flag where the target has one: LLVM keeps chains of
/// these as add/adc, where the portable form makes it rebuild the carries with compares.
#[inline(always)]
fn add_carry(carry: bool, a: u64, b: u64, out: &mut u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(unused_unsafe)]
        let c = unsafe { core::arch::x86_64::_addcarry_u64(carry as u8, a, b, out) };
        c != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (s, c1) = a.overflowing_add(b);
        let (s, c2) = s.overflowing_add(carry as u64);
        *out = s;
        c1 | c2
    }
}

/// a − b − borrow, like [`add_carry`].
#[inline(always)]
fn sub_borrow(borrow: bool, a: u64, b: u64, out: &mut u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(unused_unsafe)]
        let c = unsafe { core::arch::x86_64::_subborrow_u64(borrow as u8, a, b, out) };
        c != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (s, b1) = a.overflowing_sub(b);
        let (s, b2) = s.overflowing_sub(borrow as u64);
        *out = s;
        b1 | b2
    }
}

/// Step 1 fully unrolled for one k: column i sums x_j·y_{(i−j) mod k}, added for j ≤ i and
/// subtracted otherwise (T^k ≡ −1); the sign is decided at compile time.
macro_rules! negacyclic_unrolled {
    ($name:ident, $k:literal, [$($i:literal)*]) => {
        #[inline(always)]
        fn $name(x: &[u64; $k], y: &[u64; $k], column: &mut impl FnMut(usize, Wide)) {
            negacyclic_unrolled!(@columns x, y, column, $k, [$($i)*], [$($i)*]);
        }
    };
    (@columns $x:ident, $y:ident, $f:ident, $k:literal, [$($i:literal)*], $js:tt) => {
        $( negacyclic_unrolled!(@column $x, $y, $f, $k, $i, $js); )*
    };
    (@column $x:ident, $y:ident, $f:ident, $k:literal, $i:literal, [$($j:literal)*]) => {{
        let mut acc = Acc::ZERO;
        $( acc.mac_at::<$j, { ($k + $i - $j) % $k }>($x, $y, $j <= $i); )*
        $f($i, acc.wide());
    }};
}

negacyclic_unrolled!(negacyclic2, 2, [0 1]);
negacyclic_unrolled!(negacyclic4, 4, [0 1 2 3]);
negacyclic_unrolled!(negacyclic8, 8, [0 1 2 3 4 5 6 7]);
negacyclic_unrolled!(negacyclic16, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);

/// Step 1 with loops, for the k too large to unroll.
#[inline(always)]
fn negacyclic_loops<const K: usize>(
    x: &[u64; K],
    y: &[u64; K],
    column: &mut impl FnMut(usize, Wide),
) {
    for i in 0..K {
        let mut acc = Acc::ZERO;
        for j in 0..=i {
            acc.mac(x[j], y[i - j], true);
        }
        for j in i + 1..K {
            acc.mac(x[j], y[K + i - j], false);
        }
        column(i, acc.wide());
    }
}

/// Step 1: f_x·f_y mod T^k + 1, handing each coefficient u_i to `column` as soon as it
/// is complete (so that its first sweep overlaps the next coefficient's products).
#[inline(always)]
fn negacyclic<const K: usize>(x: &[u64; K], y: &[u64; K], column: &mut impl FnMut(usize, Wide)) {
    macro_rules! unrolled {
        ($f:ident) => {
            $f(
                x.as_slice().try_into().unwrap(),
                y.as_slice().try_into().unwrap(),
                column,
            )
        };
    }
    match K {
        2 => unrolled!(negacyclic2),
        4 => unrolled!(negacyclic4),
        8 => unrolled!(negacyclic8),
        16 => unrolled!(negacyclic16),
        _ => negacyclic_loops(x, y, column),
    }
}

/// The coefficients of f_x·f_y mod T^k + 1, as an array.
fn negacyclic_array<const K: usize>(x: &[u64; K], y: &[u64; K], unrolled: bool) -> [Wide; K] {
    let mut u = [Wide::ZERO; K];
    let mut put = |i: usize, c: Wide| u[i] = c;
    if unrolled {
        negacyclic(x, y, &mut put);
    } else {
        negacyclic_loops(x, y, &mut put);
    }
    u
}

/// How often the exact cold path ran: tests check that their edge cases reach it.
#[cfg(test)]
pub(super) static SLOW_PATH_HITS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

impl<const K: usize> Srgfn<K> {
    /// The radix of the catalogue prime with k digits, fixed at compile time.
    pub(super) const CATALOGUE_SHAPE: Option<Shape> = Shape::catalogue(K);

    /// Algorithm 3 on digit arrays (see the module documentation).
    #[inline]
    pub(super) fn mul_digits(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        match self.mul_vector(x, y) {
            Some(z) => z,
            None => self.mul_portable_digits(x, y),
        }
    }

    /// x·y by the AVX-512 IFMA path (its exact fallback included), or `None` where that
    /// path does not run: another CPU or target, a field
    /// without a plan.
    #[inline]
    fn mul_vector(&self, x: &[u64; K], y: &[u64; K]) -> Option<[u64; K]> {
        #[cfg(target_arch = "x86_64")]
        if self.catalogue && ifma::Catalogue::<K>::PLAN.is_some() && ifma::available() {
            // SAFETY: `available` has checked that the CPU runs AVX-512F and AVX-512 IFMA.
            return Some(unsafe { ifma::mul_catalogue(self, x, y) });
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (x, y);
        None
    }

    /// Algorithm 3 without the vector path: the scalar code of every target.
    #[inline]
    fn mul_portable_digits(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        match Self::CATALOGUE_SHAPE {
            Some(shape) if self.catalogue => self.mul_with(x, y, shape),
            _ => self.mul_with(x, y, self.shape),
        }
    }

    #[inline(always)]
    fn mul_with(&self, x: &[u64; K], y: &[u64; K], shape: Shape) -> [u64; K] {
        let mut q = [0u128; K];
        let mut s = [0u128; K];
        negacyclic(x, y, &mut |i, u| (q[i], s[i]) = first_sweep(u, shape));
        match second_sweep(&q, &s, shape) {
            Ok(z) => z,
            // The digits are exact but out of [0, r): a serial carry pass settles them,
            // with no need to form the product again. Where 2^u is close to r (P5: u = 56,
            // w = 62) that is most products.
            Err(t) => self.carry_digits(t),
        }
    }

    /// The canonical digits of Σ t_i·r^i (mod r^k + 1): one serial carry pass with exact
    /// divisions by r, the carry out of the top digit coming back negated (r^k ≡ −1).
    /// Kept out of line, but not cold: for P5 it is the usual path.
    #[inline(never)]
    fn carry_digits(&self, t: [i128; K]) -> [u64; K] {
        #[cfg(test)]
        SLOW_PATH_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut z = [0u64; K];
        let mut carry = 0i128;
        for i in 0..K {
            let (c, digit) = self.radix.div_rem(t[i] + carry);
            z[i] = digit;
            carry = c;
        }
        self.settle(z, -carry)
    }

    /// x·y by the scalar code alone (the module documentation's first part), also where the
    /// CPU has AVX-512 IFMA: for benchmarks and cross-checks of the two paths.
    ///
    /// ```
    /// use fermat_dsl::field::{AnyField, Field};
    ///
    /// let AnyField::Srgfn8(p3) = AnyField::from_spec("P3")? else { unreachable!() };
    /// let mut rng = rand::thread_rng();
    /// let (a, b) = (p3.random(&mut rng), p3.random(&mut rng));
    /// assert_eq!(p3.mul_portable(&a, &b), p3.mul(&a, &b));
    /// # Ok::<(), fermat_dsl::field::FieldError>(())
    /// ```
    pub fn mul_portable(&self, a: &SrgfnElem<K>, b: &SrgfnElem<K>) -> SrgfnElem<K> {
        SrgfnElem(self.mul_portable_digits(&a.0, &b.0))
    }

    /// Steps 2–4 with exact divisions and a serial carry pass, from the operands: for the
    /// rare products the vector path (`mul/ifma.rs`) cannot settle in its lanes.
    #[cold]
    #[inline(never)]
    fn mul_exact(&self, x: &[u64; K], y: &[u64; K]) -> [u64; K] {
        let u = negacyclic_array(x, y, false);
        let rad = self.radix;
        let terms = rad.terms_for(128);
        // u_i = q_i·r + d_i exactly, then the carries q_i (|q_i| < k·r + 2) in one pass.
        let mut q = [0i128; K];
        let mut d = [0u64; K];
        for i in 0..K {
            let (qi, si) = rad.estimate_wide(u[i], terms);
            (q[i], d[i]) = rad.finish(qi, si);
        }
        let t: [i128; K] =
            std::array::from_fn(|i| d[i] as i128 + if i == 0 { -q[K - 1] } else { q[i - 1] });
        self.carry_digits(t)
    }
}

/// The first sweep for one coefficient: u = q·r + s, with s small (module documentation).
#[inline(always)]
fn first_sweep(u: Wide, shape: Shape) -> (u128, u128) {
    let gap = shape.w - shape.u;
    let h = u.shr(shape.w);
    let q = if shape.word_series {
        // Every term h >> (j·gap) fits a word, and so does their sum.
        let mut tail = 0i64;
        for j in 0..shape.terms {
            let term = (h >> ((j + 1) * gap)) as i64;
            if shape.minus || j % 2 == 1 {
                tail += term;
            } else {
                tail -= term;
            }
        }
        h.wrapping_add(tail as i128)
    } else {
        let mut q = h;
        for j in 0..shape.terms {
            let term = h >> ((j + 1) * gap);
            if shape.minus || j % 2 == 1 {
                q += term;
            } else {
                q -= term;
            }
        }
        q
    } as u128;
    // q·r modulo 2^128, by one full and one low multiplication.
    let qr = (q as u64 as u128 * shape.r as u128)
        .wrapping_add((((q >> 64) as u64).wrapping_mul(shape.r) as u128) << 64);
    (q, u.lo.wrapping_sub(qr))
}

/// The second sweep and the range check: the digits, or, when one falls outside [0, r),
/// the exact signed digits t_i (Σ t_i·r^i is still the product) for a carry pass.
#[inline(always)]
fn second_sweep<const K: usize>(
    q: &[u128; K],
    s: &[u128; K],
    shape: Shape,
) -> Result<[u64; K], [i128; K]> {
    let r = shape.r;
    let w = shape.w;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    // Second sweep: v_i = s_i + q_{i−1} = g_i·2^w + l_i, digit l_i ∓ 2^u·g_i + g_{i−1}.
    let mut g = [0u64; K];
    let mut e = [0u64; K];
    let mut e_hi = [0i64; K];
    for i in 0..K {
        let v = if i == 0 {
            s[0].wrapping_sub(q[K - 1])
        } else {
            s[i].wrapping_add(q[i - 1])
        };
        let gi = ((v as i128) >> w) as i64;
        let low = v as u64 & mask;
        let shifted = (gi as i128) << shape.u;
        let ei = if shape.minus {
            low as i128 + shifted
        } else {
            low as i128 - shifted
        };
        g[i] = gi as u64;
        e[i] = ei as u64;
        e_hi[i] = (ei >> 64) as i64;
    }
    let mut z = [0u64; K];
    let mut in_range = true;
    for i in 0..K {
        let from_below = if i == 0 {
            g[K - 1].wrapping_neg()
        } else {
            g[i - 1]
        };
        if shape.narrow {
            let t = e[i].wrapping_add(from_below);
            in_range &= t < r;
            z[i] = t;
        } else {
            let t = ((e_hi[i] as i128) << 64 | e[i] as i128) + from_below as i64 as i128;
            in_range &= (0..r as i128).contains(&t);
            z[i] = t as u64;
        }
    }
    if in_range {
        return Ok(z);
    }
    Err(std::array::from_fn(|i| {
        let from_below = if i == 0 {
            g[K - 1].wrapping_neg()
        } else {
            g[i - 1]
        };
        ((e_hi[i] as i128) << 64 | e[i] as i128) + from_below as i64 as i128
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn check_unrolled_matches_loops<const K: usize>() {
        let mut rng = ChaCha8Rng::seed_from_u64(K as u64);
        for n in 0..200 {
            let mut x = [0u64; K];
            let mut y = [0u64; K];
            for (a, b) in x.iter_mut().zip(y.iter_mut()) {
                // Extremes as well as random words: every carry of the accumulator.
                (*a, *b) = match n % 4 {
                    0 => (u64::MAX, u64::MAX),
                    1 => (u64::MAX, rng.gen()),
                    _ => (rng.gen(), rng.gen()),
                };
            }
            let got = negacyclic_array(&x, &y, true);
            let want = negacyclic_array(&x, &y, false);
            assert!(got == want, "k = {K}, x = {x:?}, y = {y:?}");
        }
    }

    #[test]
    fn unrolled_products_match_the_loops() {
        check_unrolled_matches_loops::<1>();
        check_unrolled_matches_loops::<2>();
        check_unrolled_matches_loops::<4>();
        check_unrolled_matches_loops::<8>();
        check_unrolled_matches_loops::<16>();
    }

    #[test]
    fn catalogue_shapes_take_the_fast_path_checks() {
        // P1..P6: the series lengths and whether the wrapped-u64 check applies.
        let got: Vec<(u32, bool)> = [2, 4, 8, 16, 32, 64]
            .iter()
            .map(|&k| {
                let s = Shape::catalogue(k).unwrap();
                (s.terms, s.narrow)
            })
            .collect();
        // P2 has w = 64: its digits can pass 2^64, so it checks in 128 bits.
        assert!(!got[1].1);
        for (k, (terms, narrow)) in [2, 8, 16, 32, 64].iter().zip(
            got.iter()
                .enumerate()
                .filter(|(i, _)| *i != 1)
                .map(|(_, x)| *x),
        ) {
            assert!(narrow, "k = {k}");
            assert!(terms <= 16, "k = {k}: {terms} terms");
        }
        assert_eq!(Shape::catalogue(8).unwrap().terms, 1, "P3");
        assert!(Shape::catalogue(1).is_none());
    }
}

/// The AVX-512 IFMA path against the portable path and big integers, on the operands of
/// every carry boundary and on random ones.
#[cfg(test)]
mod vector_tests {
    use super::*;
    use crate::field::{Field, CATALOGUE_SRGFNS};
    use num_bigint::RandBigInt;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn catalogue<const K: usize>() -> Srgfn<K> {
        let (name, params) = CATALOGUE_SRGFNS
            .iter()
            .find(|(_, p)| p.k == K as u64)
            .expect("a catalogue prime with K digits");
        Srgfn::new(*params, Some(name)).unwrap()
    }

    /// Digit vectors on the boundaries: 0, 1, 2, r − 1, r^(k−1), p − 1 (top digit r),
    /// p − 2 and p − 3 (digits r − 1), alternating r − 1 and 0 or 1, r/2 everywhere, and
    /// random digits salted with r − 1 and 0.
    fn edge_operands<const K: usize>(r: u64, rng: &mut ChaCha8Rng) -> Vec<[u64; K]> {
        let unit = |i: usize, d: u64| {
            let mut x = [0; K];
            x[i] = d;
            x
        };
        let mut v = vec![
            [0; K],
            unit(0, 1),
            unit(0, 2),
            unit(0, r - 1),
            unit(K - 1, 1),
            unit(K - 1, r),
            [r - 1; K],
            [1; K],
            [r / 2; K],
            core::array::from_fn(|i| if i == 0 { r - 2 } else { r - 1 }),
            core::array::from_fn(|i| if i % 2 == 0 { r - 1 } else { 0 }),
            core::array::from_fn(|i| if i % 2 == 1 { r - 1 } else { 1 }),
            core::array::from_fn(|i| if i + 1 < K { r - 1 } else { 0 }),
        ];
        for _ in 0..4 {
            v.push(core::array::from_fn(|_| match rng.gen_range(0..3) {
                0 => r - 1,
                1 => 0,
                _ => rng.gen_range(0..r),
            }));
        }
        v
    }

    /// x·y by both paths: the portable one against big integers and in canonical form,
    /// and the vector one (where this CPU runs it) equal to it.
    fn check_pair<const K: usize>(f: &Srgfn<K>, x: &[u64; K], y: &[u64; K]) {
        let want = f.value_of(x) * f.value_of(y) % f.modulus();
        let portable = f.mul_portable_digits(x, y);
        assert_eq!(f.value_of(&portable), want, "{x:?}·{y:?} in {}", f.name());
        assert!(f.from_digits(&portable).is_ok(), "{portable:?}");
        if let Some(vector) = f.mul_vector(x, y) {
            assert_eq!(vector, portable, "{x:?}·{y:?} in {}", f.name());
        }
    }

    fn check_edges<const K: usize>() {
        let f = catalogue::<K>();
        let mut rng = ChaCha8Rng::seed_from_u64(K as u64);
        let edges = edge_operands::<K>(f.r(), &mut rng);
        for x in &edges {
            for y in &edges {
                check_pair(&f, x, y);
            }
        }
    }

    fn check_random<const K: usize>(n: usize) {
        let f = catalogue::<K>();
        let p = f.modulus();
        let mut rng = ChaCha8Rng::seed_from_u64(3 * K as u64);
        for _ in 0..n {
            let x = f.from_biguint(&rng.gen_biguint_below(&p)).unwrap();
            let y = f.from_biguint(&rng.gen_biguint_below(&p)).unwrap();
            check_pair(&f, x.digits(), y.digits());
        }
    }

    #[test]
    fn vector_and_portable_paths_agree_on_edges() {
        check_edges::<4>();
        check_edges::<8>();
        check_edges::<16>();
    }

    #[test]
    fn vector_and_portable_paths_agree_on_random_products() {
        check_random::<4>(2000);
        check_random::<8>(3000);
        check_random::<16>(2000);
    }

    /// The vector path runs exactly where the CPU has AVX-512 IFMA and the catalogue
    /// prime a plan (P3 and P4).
    #[test]
    fn vector_path_runs_where_expected() {
        #[cfg(target_arch = "x86_64")]
        let here = ifma::available();
        #[cfg(not(target_arch = "x86_64"))]
        let here = false;
        let x = [1; 8];
        assert_eq!(catalogue::<8>().mul_vector(&x, &x).is_some(), here);
        assert_eq!(
            catalogue::<16>().mul_vector(&[1; 16], &[1; 16]).is_some(),
            here
        );
        assert!(catalogue::<4>().mul_vector(&[1; 4], &[1; 4]).is_none());
        assert!(catalogue::<2>().mul_vector(&[1; 2], &[1; 2]).is_none());
    }

    /// Random products settle in the vector kernel itself: the exact fallback is for rare
    /// operands (about 2^−20 per digit), not a second pass in disguise.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_kernel_settles_random_products_itself() {
        fn fallbacks<const K: usize>(n: usize) -> usize {
            let f = catalogue::<K>();
            let p = f.modulus();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            (0..n)
                .filter(|_| {
                    let x = f.from_biguint(&rng.gen_biguint_below(&p)).unwrap();
                    let y = f.from_biguint(&rng.gen_biguint_below(&p)).unwrap();
                    let mut z = [0; K];
                    // SAFETY: the caller checked `ifma::available`.
                    !unsafe { ifma::try_mul(x.digits(), y.digits(), &mut z) }
                })
                .count()
        }
        if !ifma::available() {
            return;
        }
        assert_eq!(fallbacks::<8>(20_000), 0);
        assert_eq!(fallbacks::<16>(10_000), 0);
    }
}
