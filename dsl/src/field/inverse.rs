//! Inverses modulo an odd multi-word integer by the binary GCD, 31 of its steps at a
//! time (Pornin, *Optimized Binary GCD for Modular Inversion*, 2020, Algorithm 2).
//!
//! Each round runs 31 steps of the binary GCD on 64-bit approximations of a and b (their
//! low 31 bits, exact, and their top 33 bits), collecting the steps as a 2×2 matrix of
//! small integers, then applies the matrix to the whole numbers: a few word products a
//! limb a round, where Fermat's little theorem (a^(m − 2)) takes some 1.5·log₂ m
//! products of the field's elements. The low bits decide the steps' parities exactly; a
//! step the top bits misjudge leaves a or b negative, which the round negates with its
//! row of the matrix. Throughout, a ≡ u·y and b ≡ v·y (mod m), the rounds' divisions by
//! 2^31 done on u and v modulo m (Montgomery's halving); when a reaches 0, b is
//! gcd(y, m) and v = y^(−1) if that is 1.

/// Binary GCD steps a round takes: the matrix's entries stay within ±2^31.
const STEPS: u32 = 31;

/// y^(−1) mod m for 0 ≤ y < m, m odd, both least significant limb first (y at most as
/// many limbs as m): m's limbs, or `None` when gcd(y, m) ≠ 1, m is even or the rounds
/// did not finish within their bound. For example 3^(−1) mod 7 is 5, and 3 has no
/// inverse modulo 15.
pub(crate) fn inverse_mod_odd(y: &[u64], m: &[u64]) -> Option<Vec<u64>> {
    let l = m.len();
    if m.first().is_none_or(|&m0| m0 & 1 == 0) || y.len() > l {
        return None;
    }
    // Two limbs above m's: the rounds' sums stay within ±2^(64l + 33).
    let width = l + 2;
    let wide = |x: &[u64]| {
        let mut w = vec![0u64; width];
        w[..x.len()].copy_from_slice(x);
        w
    };
    let (modulus, minus_m_inv) = (wide(m), word_inverse(m[0]).wrapping_neg());
    let (mut a, mut b) = (wide(y), wide(m));
    let (mut u, mut v) = (wide(&[1]), wide(&[]));
    let (mut ta, mut tb) = (vec![0u64; width], vec![0u64; width]);
    // Each round takes at least 31 − 2 bits off a·b (Pornin, §3), with room to spare.
    let rounds = 2 * (64 * l as u32 + 64) / (STEPS - 2) + 4;
    for _ in 0..rounds {
        if a.iter().all(|&w| w == 0) {
            break;
        }
        let bits = bit_length(&a).max(bit_length(&b)).max(64);
        let [f0, g0, f1, g1] = steps(approximation(&a, bits), approximation(&b, bits));
        combine((&a, f0), (&b, g0), &mut ta);
        combine((&a, f1), (&b, g1), &mut tb);
        let (f0, g0) = shift_out_nonnegative(&mut ta, (f0, g0));
        let (f1, g1) = shift_out_nonnegative(&mut tb, (f1, g1));
        std::mem::swap(&mut a, &mut ta);
        std::mem::swap(&mut b, &mut tb);
        combine((&u, f0), (&v, g0), &mut ta);
        combine((&u, f1), (&v, g1), &mut tb);
        halve_mod(&mut ta, (&modulus, minus_m_inv));
        halve_mod(&mut tb, (&modulus, minus_m_inv));
        std::mem::swap(&mut u, &mut ta);
        std::mem::swap(&mut v, &mut tb);
    }
    let one = b[0] == 1 && b[1..].iter().all(|&w| w == 0);
    (a.iter().all(|&w| w == 0) && one).then(|| v[..l].to_vec())
}

/// m^(−1) mod 2^64 for odd m, by Newton's iteration (each step doubles the bits right).
fn word_inverse(m: u64) -> u64 {
    let mut x = m; // right to 3 bits: m·m ≡ 1 (mod 8)
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(x)));
    }
    x
}

/// The bits of a nonnegative x.
fn bit_length(x: &[u64]) -> u32 {
    x.iter()
        .rposition(|&w| w != 0)
        .map_or(0, |i| 64 * i as u32 + 64 - x[i].leading_zeros())
}

/// x's low 31 bits, and above them the 33 bits below bit `bits` (≥ 64) of x.
fn approximation(x: &[u64], bits: u32) -> u64 {
    let low = x[0] & ((1 << STEPS) - 1);
    let start = (bits - 64 + STEPS) as usize;
    let (i, shift) = (start / 64, start % 64);
    let mut top = x[i] >> shift;
    if shift > 0 {
        top |= x.get(i + 1).map_or(0, |&w| w << (64 - shift));
    }
    low | (top << STEPS)
}

/// 31 binary GCD steps on the approximations (ā, b̄), b̄ odd: the matrix [[f0, g0],
/// [f1, g1]] with (ā', b̄') = (f0·ā + g0·b̄, f1·ā + g1·b̄) / 2^31 for the exact values.
fn steps(mut a: u64, mut b: u64) -> [i64; 4] {
    let (mut f0, mut g0, mut f1, mut g1) = (1i64, 0i64, 0i64, 1i64);
    for _ in 0..STEPS {
        if a & 1 == 1 {
            if a < b {
                (a, b) = (b, a);
                (f0, f1) = (f1, f0);
                (g0, g1) = (g1, g0);
            }
            a -= b;
            f0 -= f1;
            g0 -= g1;
        }
        a >>= 1;
        f1 <<= 1;
        g1 <<= 1;
    }
    [f0, g0, f1, g1]
}

/// out = x·f + y·g in two's complement, for x and y in two's complement of out's width
/// and |f|, |g| ≤ 2^31 (the sum fits the width).
fn combine((x, f): (&[u64], i64), (y, g): (&[u64], i64), out: &mut [u64]) {
    let mut carry: i128 = 0;
    let top = x.len() - 1;
    for i in 0..x.len() {
        // The top limb carries the sign.
        let (xi, yi) = if i == top {
            (x[i] as i64 as i128, y[i] as i64 as i128)
        } else {
            (x[i] as i128, y[i] as i128)
        };
        let t = xi * f as i128 + yi * g as i128 + carry;
        out[i] = t as u64;
        carry = t >> 64;
    }
}

/// x ← |x| / 2^31 for x ≡ 0 mod 2^31, and the row (f, g) that made x, negated with it
/// when x was negative.
fn shift_out_nonnegative(x: &mut [u64], (f, g): (i64, i64)) -> (i64, i64) {
    shift_right(x);
    if is_negative(x) {
        negate(x);
        (-f, -g)
    } else {
        (f, g)
    }
}

/// x ← x · 2^(−31) mod m, in [0, m), for |x| < 2^32·m in two's complement: add the
/// multiple t·m (t < 2^31) that clears x's low 31 bits, shift them out, and take the
/// result (within ±3m) into [0, m).
fn halve_mod(x: &mut [u64], (m, minus_m_inv): (&[u64], u64)) {
    let t = x[0].wrapping_mul(minus_m_inv) & ((1 << STEPS) - 1);
    let mut carry = 0u128;
    for (xi, &mi) in x.iter_mut().zip(m) {
        let s = *xi as u128 + mi as u128 * t as u128 + carry;
        *xi = s as u64;
        carry = s >> 64;
    }
    shift_right(x);
    while is_negative(x) {
        add(x, m);
    }
    while !less_than(x, m) {
        sub(x, m);
    }
}

/// x ← x / 2^31, arithmetic (x two's complement).
fn shift_right(x: &mut [u64]) {
    let top = x.len() - 1;
    for i in 0..top {
        x[i] = (x[i] >> STEPS) | (x[i + 1] << (64 - STEPS));
    }
    x[top] = ((x[top] as i64) >> STEPS) as u64;
}

fn is_negative(x: &[u64]) -> bool {
    x.last().is_some_and(|&w| (w as i64) < 0)
}

fn negate(x: &mut [u64]) {
    let mut borrow = true;
    for w in x.iter_mut() {
        (*w, borrow) = (!*w).overflowing_add(u64::from(borrow));
    }
}

fn add(x: &mut [u64], y: &[u64]) {
    let mut carry = false;
    for (xi, &yi) in x.iter_mut().zip(y) {
        let (s, c1) = xi.overflowing_add(yi);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        (*xi, carry) = (s, c1 || c2);
    }
}

fn sub(x: &mut [u64], y: &[u64]) {
    let mut borrow = false;
    for (xi, &yi) in x.iter_mut().zip(y) {
        let (s, b1) = xi.overflowing_sub(yi);
        let (s, b2) = s.overflowing_sub(u64::from(borrow));
        (*xi, borrow) = (s, b1 || b2);
    }
}

/// x < y for nonnegative x, y of one width.
fn less_than(x: &[u64], y: &[u64]) -> bool {
    for (xi, yi) in x.iter().zip(y).rev() {
        if xi != yi {
            return xi < yi;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::{BigUint, RandBigInt};
    use rand::SeedableRng;

    fn value(limbs: &[u64]) -> BigUint {
        limbs
            .iter()
            .rev()
            .fold(BigUint::default(), |acc, &w| (acc << 64u32) + w)
    }

    #[test]
    fn small_moduli_invert_every_unit_and_refuse_the_rest() {
        for m in [3u64, 7, 9, 15, 101, 255, (1 << 31) | 1, u64::MAX] {
            for y in (0..m.min(300)).chain(m.saturating_sub(5)..m) {
                let want = (1..m.min(1 << 20))
                    .find(|&x| (x as u128 * y as u128) % m as u128 == 1)
                    .or_else(|| {
                        BigUint::from(y)
                            .modinv(&BigUint::from(m))
                            .map(|x| x.to_u64_digits()[0])
                    });
                assert_eq!(
                    inverse_mod_odd(&[y], &[m]).map(|v| v[0]),
                    want,
                    "{y}^−1 mod {m}"
                );
            }
        }
        assert_eq!(inverse_mod_odd(&[3], &[10]), None, "an even modulus");
        assert_eq!(inverse_mod_odd(&[3, 0], &[7]), None, "a longer operand");
    }

    #[test]
    fn inverses_modulo_multi_limb_moduli() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for bits in [65u64, 127, 128, 200, 505, 1024, 2049] {
            let top = BigUint::from(1u32) << (bits - 1);
            let m = rng.gen_biguint(bits) | BigUint::from(1u32) | top;
            let ml = m.to_u64_digits();
            let mut values: Vec<BigUint> = (0..50).map(|_| rng.gen_biguint_below(&m)).collect();
            values.extend([BigUint::from(1u32), &m - 1u32, &m - 2u32, &m >> 1u32]);
            for y in values {
                let mut yl = y.to_u64_digits();
                yl.resize(ml.len(), 0);
                let got = inverse_mod_odd(&yl, &ml).map(|x| value(&x));
                assert_eq!(got, y.modinv(&m), "{y}^−1 mod {m}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn inverses_agree_with_extended_euclid(
            m in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..10),
            y in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..10),
        ) {
            let mut m = m;
            m[0] |= 1;
            let mv = value(&m);
            let y = value(&y) % &mv;
            let mut yl = y.to_u64_digits();
            yl.resize(m.len(), 0);
            let want = if mv == BigUint::from(1u32) { Some(BigUint::default()) } else { y.modinv(&mv) };
            proptest::prop_assert_eq!(inverse_mod_odd(&yl, &m).map(|x| value(&x)), want);
        }
    }
}
