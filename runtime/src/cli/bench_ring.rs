//! The CRT rows of `fermat bench --poly`: products in Z[x] and in (Z/mZ)[x] by the
//! multi-modular route with data on the device (projection, the word-prime products, the
//! recombination and for (Z/mZ)[x] the reduction modulo m; no transfer, no conversion), by
//! primes of both widths, beside FLINT's figures on one core of the development machine,
//! quoted.

use super::bench_poly::{median_device_ms, print_row, PolyResult};
use super::CliError;
use fermat::crt::{IntPolyRing, Integers, ModPolyRing, Width};
use fermat::num_bigint::{BigInt, BigUint, RandBigInt, Sign};
use fermat::Backend;
use rand::{Rng, SeedableRng};

/// A product of two operands of `len` coefficients of `bits` bits.
struct Row {
    ring: &'static str,
    len: usize,
    bits: u64,
    /// Whether the coefficients carry random signs (in Z[x]); unsigned rows are residues
    /// modulo BN254's r, multiplied in (Z/rZ)[x].
    signed: bool,
    anchor: &'static str,
    target: &'static str,
}

/// BN254's scalar field order r, the modulus of the (Z/mZ)[x] row.
const BN254_R: &str =
    "21888242871839275222246405745257275088548364400416034343698204186575808495617";

const ROWS: [Row; 3] = [
    Row {
        ring: "Z",
        len: 1 << 16,
        bits: 1000,
        signed: true,
        anchor: "FLINT 3.7 fmpz_poly_mul 219–223 ms (one core)",
        target: "≥ 30× FLINT (≤ 7.4 ms)",
    },
    Row {
        ring: "Z",
        len: 1 << 20,
        bits: 64,
        signed: true,
        anchor: "FLINT 3.7 fmpz_poly_mul 345–451 ms (one core)",
        target: "≥ 30× FLINT (≤ 11.5 ms)",
    },
    Row {
        ring: "Z/rZ, r of BN254",
        len: 1 << 20,
        bits: 254,
        signed: false,
        anchor: "3 sppark NTTs of 2^21 ≈ 3 × 0.55 ms",
        target: "≤ 1.0 ms",
    },
];

/// Times the rows on GPU 0, by primes of each width.
pub fn run_gpu(runs: usize) -> Result<Vec<PolyResult>, CliError> {
    let r: BigUint = BN254_R.parse().expect("a decimal constant");
    let mut out = Vec::new();
    for width in [Width::Bits62, Width::Bits31] {
        let integers = IntPolyRing::new(Backend::Gpu(0))?.with_width(width);
        let modular = ModPolyRing::new(&r, Backend::Gpu(0))?.with_width(width);
        for row in &ROWS {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(row.len as u64 ^ row.bits);
            let mut draw = || -> Vec<BigInt> {
                (0..row.len)
                    .map(|_| {
                        let m = if row.signed {
                            rng.gen_biguint(row.bits)
                        } else {
                            rng.gen_biguint_below(&r)
                        };
                        let sign = if row.signed && rng.gen() {
                            Sign::Minus
                        } else {
                            Sign::Plus
                        };
                        BigInt::from_biguint(sign, m)
                    })
                    .collect()
            };
            let (a, b) = (
                integers.upload(&Integers::from_bigints(&draw()))?,
                integers.upload(&Integers::from_bigints(&draw()))?,
            );
            let (plan, ms) = if row.signed {
                let plan = integers.device_plan(&a, &b)?;
                let ms = median_device_ms(runs, || integers.mul_device(&a, &b).map(drop))?;
                (plan, ms)
            } else {
                let plan = modular.device_plan(&a, &b)?;
                let ms = median_device_ms(runs, || modular.mul_device(&a, &b).map(drop))?;
                (plan, ms)
            };
            let r = PolyResult {
                field: row.ring.into(),
                operation: "mul (CRT)".into(),
                len_a: row.len,
                len_b: row.len,
                algorithm: plan.to_string(),
                backend: "gpu".into(),
                median_ms: ms,
                anchor: row.anchor.into(),
                target: row.target.into(),
            };
            print_row(&r);
            out.push(r);
        }
    }
    Ok(out)
}
