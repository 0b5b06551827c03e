//! The explicit CRT on the host: the residues of a product modulo m straight from its
//! residues modulo the primes, without the integers — what [`CrtPass::Explicit`] computes
//! on the device, from the same tables ([`modular_tables`]).
//!
//! With P = p_1⋯p_s, P_i = P/p_i and y_i = x_i·P_i^−1 mod p_i, an integer x in [0, P/2)
//! is Σ y_i·P_i − k·P with k = ⌊Σ y_i/p_i⌋ (Montgomery and Silverman 1990; Bernstein
//! 1995), so x ≡ S = Σ y_i·(P_i mod m) + k·(−P mod m) (mod m): s + 1 products of a word
//! by m's words a coefficient, where Garner's digits cost s²/2 modular products and the
//! integer's reduction modulo m a long division of s words by m's.
//!
//! [`CrtPass::Explicit`]: fermat_codegen::crt::CrtPass::Explicit
//! [`modular_tables`]: fermat_codegen::crt::modular_tables

use super::lanes::{ColumnLanes, MultiplierLanes, LANES};
use super::montgomery::{Mont, Wide};
use super::residues::Integers;
use fermat_codegen::crt::{ModularTables, EXPLICIT_HEAD, REDUCE_HEAD};
use rayon::prelude::*;

/// The residues in [0, m) of the integers whose residues modulo the tables' primes are
/// `residues` (one vector per prime, each word x·2^−b mod p_i for b = `radix_bits`: 0 for
/// canonical residues, the Montgomery radix's bits for words as the products leave them),
/// each below P/2: one per coefficient, in the tables' `mwords` limbs.
pub(super) fn explicit_mod(
    tables: &ModularTables,
    residues: &[Vec<u64>],
    radix_bits: u32,
) -> Integers {
    let cofactors = Cofactors::new(tables, radix_bits);
    let n = residues.first().map_or(0, Vec::len);
    let words = tables.words;
    // The bases word by word, so that a word of the sum reads one contiguous column.
    let columns: Vec<u64> = (0..words)
        .flat_map(|w| tables.bases.iter().skip(w).step_by(words).copied())
        .collect();
    let mut out = vec![0u64; n * tables.mwords];
    out.par_chunks_mut(tables.mwords).enumerate().for_each_init(
        || (vec![0u64; cofactors.len() + 1], vec![0u64; words + 1]),
        |(ys, sum), (j, residue)| {
            cofactors.of(residues, j, ys);
            dot(ys, &columns, sum);
            reduce(&tables.reduce, sum, residue);
        },
    );
    Integers::from_words(tables.mwords, out).expect("whole residues of mwords limbs")
}

/// Coefficients converted, then handed on, together by [`explicit_radix`].
const RADIX_CHUNK: usize = 256;

/// The explicit CRT in a radix r: for each coefficient, the sums of its k columns
/// Σ_i y_i·b_ij, where b_ij is digit j in base r of the table's base i (`columns`: digit
/// j of every base, then digit j + 1, …) — S in base r with its columns not carried —
/// each in three words, handed to `finish` a chunk of coefficients at a time; what
/// `finish` makes of them (the elements of a field whose digits they are) comes back in
/// order. The residues are written as for [`explicit_mod`].
pub(super) fn explicit_radix<E: Send, Err: Send>(
    tables: &ModularTables,
    columns: &[u64],
    (residues, radix_bits): (&[Vec<u64>], u32),
    finish: impl Fn(&[[u64; 3]]) -> Result<Vec<E>, Err> + Sync,
) -> Result<Vec<E>, Err> {
    let cofactors = Cofactors::new(tables, radix_bits);
    let s = cofactors.len();
    let n = residues.first().map_or(0, Vec::len);
    let digits = columns.len() / (s + 1);
    let lanes = ColumnLanes::new(columns, s + 1);
    let chunks = (0..n.div_ceil(RADIX_CHUNK))
        .into_par_iter()
        .map_init(
            || {
                let multipliers = lanes.as_ref().map(|_| MultiplierLanes::new(s + 1));
                (
                    vec![0u64; s + 1],
                    multipliers,
                    Vec::with_capacity(RADIX_CHUNK * digits),
                )
            },
            |(ys, multipliers, sums), c| {
                sums.clear();
                let coefficients = c * RADIX_CHUNK..n.min((c + 1) * RADIX_CHUNK);
                let of = |j: usize, ys: &mut [u64]| cofactors.of(residues, j, ys);
                match (&lanes, multipliers) {
                    (Some(lanes), Some(multipliers)) => {
                        column_sums_in_lanes(of, (lanes, multipliers), coefficients, ys, sums)
                    }
                    _ => column_sums_by_words(of, columns, coefficients, ys, sums),
                }
                finish(sums)
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    Ok(chunks.into_iter().flatten().collect())
}

/// Appends the column sums Σ_i y_i·b_id of coefficients `range` to `sums`, one coefficient
/// at a time, the multipliers y of coefficient j given by `of(j, y)`.
fn column_sums_by_words(
    of: impl Fn(usize, &mut [u64]),
    columns: &[u64],
    range: std::ops::Range<usize>,
    ys: &mut [u64],
    sums: &mut Vec<[u64; 3]>,
) {
    for j in range {
        of(j, ys);
        let dot = |column: &[u64]| Wide::dot(column, ys).words();
        sums.extend(columns.chunks_exact(ys.len()).map(dot));
    }
}

/// [`column_sums_by_words`] eight coefficients at a time in IFMA lanes.
fn column_sums_in_lanes(
    of: impl Fn(usize, &mut [u64]),
    (lanes, multipliers): (&ColumnLanes, &mut MultiplierLanes),
    range: std::ops::Range<usize>,
    ys: &mut [u64],
    sums: &mut Vec<[u64; 3]>,
) {
    let end = range.end;
    for group in range.step_by(LANES) {
        let valid = LANES.min(end - group);
        for lane in 0..valid {
            of(group + lane, ys);
            multipliers.set(lane, ys);
        }
        lanes.sums(multipliers, valid, sums);
    }
}

/// The explicit CRT's multipliers of a coefficient's bases, from its residues: y_i =
/// x_i·P_i^−1 mod p_i for each prime, then k = ⌊Σ y_i/p_i⌋, so that x = Σ y_i·P_i − k·P.
struct Cofactors<'a> {
    /// The tables' rows of [`EXPLICIT_HEAD`] words, one per prime.
    rows: std::slice::ChunksExact<'a, u64>,
    /// Each row's arithmetic, made once.
    moduli: Vec<Mont>,
    /// P_i^−1·2^(64 + b) mod p_i for residues written x·2^−b.
    inverses: Vec<u64>,
}

impl<'a> Cofactors<'a> {
    /// The multipliers for residues written x·2^−b mod p_i, b = `radix_bits` < 128.
    fn new(tables: &'a ModularTables, radix_bits: u32) -> Cofactors<'a> {
        let rows = tables.constants.chunks_exact(EXPLICIT_HEAD as usize);
        debug_assert!(rows.remainder().is_empty());
        let moduli: Vec<Mont> = rows.clone().map(|row| Mont::new(row[0])).collect();
        // The table's P_i^−1·2^64 times 2^b: a Montgomery product by 2^b·R mod p_i.
        let inverses = rows
            .clone()
            .zip(&moduli)
            .map(|(row, m)| {
                let scale = ((1u128 << radix_bits) % u128::from(m.p())) as u64;
                m.mul(row[2], m.scaled(scale))
            })
            .collect();
        Cofactors {
            rows,
            moduli,
            inverses,
        }
    }

    /// The number of primes s.
    fn len(&self) -> usize {
        self.moduli.len()
    }

    /// `ys` = (y_1, …, y_s, k) of coefficient j of `residues` (one vector per prime, in
    /// the form [`new`](Self::new) was given), whose integer is below P/2.
    #[inline]
    fn of(&self, residues: &[Vec<u64>], j: usize, ys: &mut [u64]) {
        // 2^32 times the sum of the y_i/p_i, each term below the true value by less than
        // 2, so that k comes out exact with 2^30 added (x < P/2).
        let mut fraction = 0u64;
        let rows = self.rows.clone().zip(&self.moduli).zip(&self.inverses);
        for (i, (((row, modulus), inverse), y)) in rows.zip(ys.iter_mut()).enumerate() {
            let [_, _, _, g, shift] = row else {
                unreachable!("rows of EXPLICIT_HEAD words")
            };
            // y_i = (x_i·2^−b)·(P_i^−1·2^(64 + b))·2^−64: one Montgomery product.
            *y = modulus.mul(residues[i][j], *inverse);
            fraction += ((u128::from(*y << shift) * u128::from(*g)) >> 64) as u64;
        }
        ys[self.moduli.len()] = (fraction + (1 << 30)) >> 32;
    }
}

/// `remainder` = S mod m for the sum S < 2^(t + 72), t = bits(m) − 1, by Barrett's
/// method with a 72-bit quotient — the host's [`CrtPass::Reduce`], on its table
/// (t, μ = ⌊2^(t+72)/m⌋ in two words, two zeros, m): q̂ = ⌊⌊S/2^t⌋·μ/2^72⌋ is q = ⌊S/m⌋
/// or up to two less (Menezes, van Oorschot and Vanstone, *Handbook of Applied
/// Cryptography*, Algorithm 14.42), so S − q̂·m < 3m fits `remainder`'s words and at
/// most two subtractions of m finish.
///
/// [`CrtPass::Reduce`]: fermat_codegen::crt::CrtPass::Reduce
fn reduce(table: &[u64], sum: &[u64], remainder: &mut [u64]) {
    let t = table[0] as usize;
    let mu = u128::from(table[1]) | u128::from(table[2]) << 64;
    let m = &table[REDUCE_HEAD as usize..];
    let word = |i: usize| sum.get(i).copied().unwrap_or(0);
    // ⌊S/2^t⌋ < 2^72: the 128 bits of S from bit t.
    let (at, sh) = (t / 64, t % 64);
    let funnel = |i: usize| match sh {
        0 => word(i),
        _ => word(i) >> sh | word(i + 1) << (64 - sh),
    };
    let q1 = u128::from(funnel(at)) | u128::from(funnel(at + 1)) << 64;
    let q = mul_shr_72(q1, mu);
    for (i, r) in remainder.iter_mut().enumerate() {
        *r = word(i);
    }
    // S − q̂·m modulo 2^(64·len): the true difference is below 3m, so it is exact.
    sub_mul(remainder, q as u64, m);
    sub_mul(&mut remainder[1..], (q >> 64) as u64, m);
    for _ in 0..2 {
        if less(remainder, m) {
            break;
        }
        sub_mul(remainder, 1, m);
    }
    debug_assert!(less(remainder, m), "S − q̂·m < 3m");
}

/// ⌊a·b/2^72⌋ for a, b < 2^73 (the product is below 2^146).
fn mul_shr_72(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    // a·b = a0·b0 + (a0·b1 + a1·b0)·2^64 + a1·b1·2^128, each part below 2^128.
    let low = a0 * b0;
    let middle = a0 * b1 + a1 * b0 + (low >> 64);
    let high = a1 * b1 + (middle >> 64);
    (middle as u64 as u128) >> 8 | high << 56
}

/// x −= y·m modulo 2^(64·len x), m read as far as x reaches.
fn sub_mul(x: &mut [u64], y: u64, m: &[u64]) {
    let mut carry = 0u128; // the product's carry plus the subtraction's borrow
    for (i, xi) in x.iter_mut().enumerate() {
        let t = u128::from(m.get(i).copied().unwrap_or(0)) * u128::from(y) + carry;
        let (d, borrow) = xi.overflowing_sub(t as u64);
        *xi = d;
        carry = (t >> 64) + u128::from(borrow);
    }
}

/// x < m, for numbers of equal length or m padded with zeros.
fn less(x: &[u64], m: &[u64]) -> bool {
    for i in (0..x.len()).rev() {
        let mi = m.get(i).copied().unwrap_or(0);
        if x[i] != mi {
            return x[i] < mi;
        }
    }
    false
}

/// sum = Σ_i y_i·x_i, the numbers x_i given by `columns` (word w of every x_i, then word
/// w + 1, …), column by column ("product scanning"): each column is one [`Wide::dot`] of
/// its words with the y_i, all below 2^62, and its carry goes to the next once.
fn dot(ys: &[u64], columns: &[u64], sum: &mut [u64]) {
    let mut carry = 0u128;
    let words = columns.chunks_exact(ys.len());
    for (out, column) in sum.iter_mut().zip(words) {
        let (word, next) = Wide::dot(column, ys).plus(carry).word_and_carry();
        *out = word;
        carry = next;
    }
    sum[columns.len() / ys.len()] = carry as u64;
    debug_assert_eq!(carry >> 64, 0, "the sum fits its words");
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_codegen::crt::modular_tables;
    use fermat_dsl::field::biguint_of_limbs;
    use num_bigint::{BigUint, RandBigInt};
    use rand::{Rng, SeedableRng};

    #[test]
    fn column_sums_in_lanes_and_by_words_agree() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        for (terms, digits, n) in [(2, 1, 3), (18, 8, 300), (34, 16, 517)] {
            let columns: Vec<u64> = (0..terms * digits).map(|_| rng.gen()).collect();
            let Some(lanes) = ColumnLanes::new(&columns, terms) else {
                eprintln!("skipped: no AVX-512 IFMA on this CPU");
                return;
            };
            let multipliers: Vec<u64> = (0..terms * n)
                .map(|i| {
                    if i % 5 == 0 {
                        (1 << 62) - 1
                    } else {
                        rng.gen_range(0..1 << 62)
                    }
                })
                .collect();
            let of = |j: usize, ys: &mut [u64]| {
                ys.copy_from_slice(&multipliers[j * terms..(j + 1) * terms]);
            };
            let (mut ys, mut by_words, mut in_lanes) = (vec![0; terms], Vec::new(), Vec::new());
            column_sums_by_words(of, &columns, 0..n, &mut ys, &mut by_words);
            let mut lane_multipliers = MultiplierLanes::new(terms);
            let lanes = (&lanes, &mut lane_multipliers);
            column_sums_in_lanes(of, lanes, 0..n, &mut ys, &mut in_lanes);
            assert_eq!(
                in_lanes, by_words,
                "{terms} terms, {digits} columns, {n} coefficients"
            );
        }
    }

    #[test]
    fn explicit_residues_are_the_integers_residues() {
        // Primes of both of the tables' kinds: one of 62 bits, two below 2^32.
        let primes = [4_179_340_454_199_820_289u64, 2_013_265_921, 469_762_049];
        let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        for m in [
            "2",
            "1000",
            "4294967296",
            "21888242871839275222246405745257275088548364400416034343698204186575808495617",
        ] {
            let m: BigUint = m.parse().unwrap();
            let tables = modular_tables(&primes, &m).expect("tables for m ≥ 2");
            let half = &product >> 1u32;
            let mut xs = vec![BigUint::from(0u32), BigUint::from(1u32), &half - 1u32];
            xs.extend((0..50).map(|_| {
                let words: Vec<u32> = (0..8).map(|_| rng.gen()).collect();
                BigUint::new(words) % &half
            }));
            let residues: Vec<Vec<u64>> = primes
                .iter()
                .map(|&p| {
                    xs.iter()
                        .map(|x| (x % p).iter_u64_digits().next().unwrap_or(0))
                        .collect()
                })
                .collect();
            let want: Vec<BigUint> = xs.iter().map(|x| x % &m).collect();
            // Canonical residues, and words x·2^−b as Montgomery products leave them.
            for b in [0u32, 32, 64] {
                let scaled: Vec<Vec<u64>> = primes
                    .iter()
                    .zip(&residues)
                    .map(|(&p, row)| {
                        let p = BigUint::from(p);
                        let inverse = BigUint::from(2u32).modpow(&(&p - 1u32 - b), &p);
                        row.iter()
                            .map(|&x| (x * &inverse % &p).iter_u64_digits().next().unwrap_or(0))
                            .collect()
                    })
                    .collect();
                let got = explicit_mod(&tables, &scaled, b);
                let got: Vec<BigUint> = (0..got.len())
                    .map(|i| biguint_of_limbs(got.magnitude(i)))
                    .collect();
                assert_eq!(got, want, "m = {m}, b = {b}");
            }
        }
    }

    #[test]
    fn barrett_reduction_takes_every_sum_below_its_bound_to_its_residue() {
        let primes = [4_179_340_454_199_820_289u64, 4_179_340_454_199_820_289 - 2];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let one = BigUint::from(1u32);
        let moduli = [
            BigUint::from(2u32),
            BigUint::from(3u32),
            BigUint::from(u64::MAX),
            &one << 64u32,
            (&one << 255u32) - 19u32,
            (&one << 504u32) + 12345u32,
        ];
        for m in moduli {
            let tables = modular_tables(&primes, &m).expect("tables for m ≥ 2");
            // Every S below 2^(t + 72): the edges, multiples of m and random sums.
            let bound = &one << (m.bits() - 1 + 72);
            let mut sums = vec![BigUint::from(0u32), &m - 1u32, m.clone(), &bound - 1u32];
            sums.extend((1..4u32).map(|q| &m * q - 1u32));
            sums.push((&bound / &m) * &m);
            sums.extend((0..200).map(|_| rng.gen_biguint_below(&bound)));
            let words = (bound.bits() as usize).div_ceil(64);
            for x in sums {
                let mut sum: Vec<u64> = x.to_u64_digits();
                sum.resize(words, 0);
                let mut remainder = vec![u64::MAX; tables.mwords];
                reduce(&tables.reduce, &sum, &mut remainder);
                assert_eq!(biguint_of_limbs(&remainder), &x % &m, "m = {m}, S = {x}");
            }
        }
    }

    #[test]
    fn the_quotient_estimate_is_the_products_bits_from_72() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let top = (1u128 << 73) - 1;
        for (a, b) in [(0, 0), (top, top), (1 << 72, 1 << 72), (top, 1)]
            .into_iter()
            .chain((0..100).map(|_| (rng.gen::<u128>() & top, rng.gen::<u128>() & top)))
        {
            let want = (BigUint::from(a) * BigUint::from(b)) >> 72u32;
            assert_eq!(BigUint::from(mul_shr_72(a, b)), want, "{a} · {b}");
        }
    }
}
