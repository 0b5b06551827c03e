//! The CRT route on the CPU: projection and recombination against num-bigint, products in
//! Z[x] and (Z/mZ)[x] against Kronecker substitution, products modulo P3 by both routes,
//! the reference vectors, and bad input.

use fermat::crt::{project, recombine, IntPolyRing, Integers, ModPolyRing, PrimeSet, Width};
use fermat::dsl::Field;
use fermat::num_bigint::{BigInt, BigUint, RandBigInt};
use fermat::poly::{Poly, PolyRing};
use fermat::{Backend, Error, PrimeField};
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::common::signed_random;

/// The prime sets the tests cover: both widths, small and large adicities and bounds.
fn prime_sets() -> Vec<PrimeSet> {
    [
        (Width::Bits31, 20, 40),
        (Width::Bits31, 20, 700),
        (Width::Bits31, 24, 200),
        (Width::Bits62, 24, 60),
        (Width::Bits62, 20, 2100),
        (Width::Bits62, 30, 500),
    ]
    .into_iter()
    .map(|(w, t, bits)| PrimeSet::for_bits(w, t, bits).unwrap())
    .collect()
}

#[test]
fn projection_and_recombination_agree_with_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for set in prime_sets() {
        let p = BigInt::from(set.product().clone());
        let half: BigInt = &p / 2u32;
        // Edge values: 0, ±1, the signed bound ±(P − 1)/2 and P/2 itself (which
        // recombines to itself: the signed range is (−P/2, P/2]), and randoms of many sizes.
        let mut x = vec![
            BigInt::zero(),
            BigInt::one(),
            -BigInt::one(),
            half.clone(),
            -(&p - 1u32) / 2u32,
            (&p - 1u32) / 2u32,
        ];
        for bits in [1, 31, 62, 64, 65, 128] {
            if bits + 1 < set.product().bits() {
                x.push(signed_random(&mut rng, bits));
            }
        }
        x.push(signed_random(&mut rng, set.product().bits() - 2));
        let ints = Integers::from_bigints(&x);
        let residues = project(&set, &ints);
        for (i, &q) in set.primes().iter().enumerate() {
            let q = BigInt::from(q);
            for (j, v) in x.iter().enumerate() {
                let want = ((v % &q) + &q) % &q;
                assert_eq!(BigInt::from(residues[i][j]), want, "x = {v} mod {q}");
            }
        }
        assert_eq!(recombine(&set, &residues, true).to_bigints(), x);
        // Unsigned: the representative in [0, P), P − 1 included.
        let unsigned = vec![BigUint::zero(), set.product() - 1u32, set.product() / 3u32];
        let r = project(&set, &Integers::from_biguints(&unsigned));
        let back = recombine(&set, &r, false).to_bigints();
        let want: Vec<BigInt> = unsigned.into_iter().map(BigInt::from).collect();
        assert_eq!(back, want);
    }
}

/// The product by Kronecker substitution: pack at x = 2^k, multiply, unpack signed digits.
fn kronecker(a: &[BigInt], b: &[BigInt]) -> Vec<BigInt> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let max = |v: &[BigInt]| v.iter().map(|c| c.bits()).max().unwrap_or(0);
    let k = max(a) + max(b) + 64 - (a.len().min(b.len()) as u64).leading_zeros() as u64 + 2;
    let pack = |v: &[BigInt]| v.iter().rev().fold(BigInt::zero(), |acc, c| (acc << k) + c);
    let mut c = pack(a) * pack(b);
    let base = BigInt::one() << k;
    let half = BigInt::one() << (k - 1);
    let mut out = Vec::new();
    for _ in 0..a.len() + b.len() - 1 {
        let mut r = ((&c % &base) + &base) % &base;
        if r >= half {
            r -= &base;
        }
        c = (c - &r) >> k;
        out.push(r);
    }
    normalised(out)
}

#[test]
fn integer_products_equal_kronecker_substitution() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let ring = IntPolyRing::new(Backend::Cpu).unwrap();
    let narrow = IntPolyRing::new(Backend::Cpu)
        .unwrap()
        .with_width(Width::Bits31);
    let shapes = [
        (1, 1, 1, 1),
        (1, 7, 64, 3),
        (13, 5, 2, 200),
        (100, 100, 64, 64),
        (257, 31, 1000, 10),
        (600, 900, 130, 129),
        (2000, 1, 3000, 5),
    ];
    for (la, lb, ba, bb) in shapes {
        let a: Vec<BigInt> = (0..la).map(|_| signed_random(&mut rng, ba)).collect();
        let b: Vec<BigInt> = (0..lb).map(|_| signed_random(&mut rng, bb)).collect();
        let want = kronecker(&a, &b);
        assert_eq!(
            ring.mul(&a, &b).unwrap(),
            want,
            "{la}×{lb}, {ba} and {bb} bits"
        );
        assert_eq!(
            narrow.mul(&a, &b).unwrap(),
            want,
            "31-bit primes, {la}×{lb}"
        );
    }
    // Coefficients at their extremes: (2^e − 1)·(1 + x + … ) squared, negated, and zeros.
    let top: BigInt = (BigInt::one() << 256u32) - 1u32;
    let a = vec![top.clone(); 300];
    let b: Vec<BigInt> = vec![-top.clone(); 300];
    assert_eq!(ring.mul(&a, &b).unwrap(), kronecker(&a, &b));
    assert_eq!(ring.mul(&a, &[]).unwrap(), Vec::<BigInt>::new());
    let zeros = vec![BigInt::zero(); 5];
    assert_eq!(ring.mul(&zeros, &a).unwrap(), Vec::<BigInt>::new());
    let padded = vec![BigInt::from(3), BigInt::zero(), BigInt::zero()];
    assert_eq!(ring.mul(&padded, &padded).unwrap(), vec![BigInt::from(9)]);
}

#[test]
fn short_products_of_huge_coefficients_take_the_schoolbook() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let ring = IntPolyRing::new(Backend::Cpu).unwrap();
    for (la, lb, bits) in [(3, 3, 20_000), (1, 7, 50_000), (4, 2, 8000)] {
        assert!(
            ring.takes_schoolbook(la, lb, bits, bits),
            "{la}×{lb}, {bits} bits"
        );
        let a: Vec<BigInt> = (0..la).map(|_| signed_random(&mut rng, bits)).collect();
        let b: Vec<BigInt> = (0..lb).map(|_| signed_random(&mut rng, bits)).collect();
        let want = kronecker(&a, &b);
        assert_eq!(ring.mul(&a, &b).unwrap(), want, "{la}×{lb}, {bits} bits");
        let words = ring
            .mul_integers(
                &Integers::from_bigints(&a),
                &Integers::from_bigints(&b),
                true,
            )
            .unwrap();
        assert_eq!(words.to_bigints(), want, "as Integers, {la}×{lb}");
    }
    // Modulo an m of 20,000 bits: the schoolbook's sums reduced once.
    let m = rng.gen_biguint(20_000) | BigUint::one();
    let ring = ModPolyRing::new(&m, Backend::Cpu).unwrap();
    assert!(ring.takes_schoolbook(3, 4));
    assert!(!ring.takes_schoolbook(1000, 1000));
    let a: Vec<BigUint> = (0..3).map(|_| rng.gen_biguint_below(&m)).collect();
    let b: Vec<BigUint> = (0..4).map(|_| rng.gen_biguint_below(&m)).collect();
    let signed = |v: &[BigUint]| v.iter().cloned().map(BigInt::from).collect::<Vec<_>>();
    let want: Vec<BigUint> = kronecker(&signed(&a), &signed(&b))
        .into_iter()
        .map(|c| c.to_biguint().unwrap() % &m)
        .collect();
    assert_eq!(ring.mul(&a, &b).unwrap(), want);
}

#[test]
fn kept_vectors_never_reach_a_later_product() {
    // One ring, the same primes: a long product, a short one, a square, the long again —
    // each prime's kept operands and rows hold the previous product's values.
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let ring = IntPolyRing::new(Backend::Cpu).unwrap();
    let mut random = |len: usize, bits: u64| -> Vec<BigInt> {
        (0..len).map(|_| signed_random(&mut rng, bits)).collect()
    };
    let (long_a, long_b) = (random(3000, 500), random(2500, 500));
    let (short_a, short_b) = (random(40, 500), random(7, 500));
    let square = random(600, 500);
    for (a, b) in [
        (&long_a, &long_b),
        (&short_a, &short_b),
        (&square, &square),
        (&long_a, &long_b),
    ] {
        assert_eq!(
            ring.mul(a, b).unwrap(),
            kronecker(a, b),
            "{} × {}",
            a.len(),
            b.len()
        );
    }
}

fn modular_case(m: &BigUint, la: usize, lb: usize, rng: &mut ChaCha8Rng) {
    let ring = ModPolyRing::new(m, Backend::Cpu).unwrap();
    let a: Vec<BigUint> = (0..la).map(|_| rng.gen_biguint_below(m)).collect();
    let mut b: Vec<BigUint> = (0..lb).map(|_| rng.gen_biguint_below(m)).collect();
    if let Some(last) = b.last_mut() {
        *last = m - 1u32; // the largest residue
    }
    let want = kronecker_modulo(&a, &b, m);
    assert_eq!(ring.mul(&a, &b).unwrap(), want, "m = {m}, {la}×{lb}");
}

/// The product of residues a and b modulo m: Kronecker substitution's over Z, reduced and
/// normalised.
fn kronecker_modulo(a: &[BigUint], b: &[BigUint], m: &BigUint) -> Vec<BigUint> {
    let lift = |v: &[BigUint]| -> Vec<BigInt> { v.iter().cloned().map(BigInt::from).collect() };
    let mi = BigInt::from(m.clone());
    normalised(
        kronecker(&lift(a), &lift(b))
            .into_iter()
            .map(|c| ((c % &mi + &mi) % &mi).magnitude().clone())
            .collect(),
    )
}

/// `v` without its trailing zeros.
fn normalised<T: Zero>(mut v: Vec<T>) -> Vec<T> {
    while v.last().is_some_and(Zero::is_zero) {
        v.pop();
    }
    v
}

#[test]
fn modular_products_equal_kronecker_substitution_reduced() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let bn254: BigUint =
        "21888242871839275222246405745257275088548364400416034343698204186575808495617"
            .parse()
            .unwrap();
    let moduli = [
        BigUint::from(2u32),
        BigUint::from(1024u32),          // a power of two
        BigUint::one() << 300u32,        // a big power of two
        BigUint::from(1_000_000_007u64), // a prime
        BigUint::from(600u32),           // composite and even
        BigUint::from(3u32).pow(200),    // a prime power
        bn254,
        (BigUint::one() << 1000u32) - 1u32, // composite, 1000 bits
    ];
    for m in &moduli {
        for (la, lb) in [(1, 1), (5, 3), (64, 200), (700, 700)] {
            modular_case(m, la, lb, &mut rng);
        }
    }
}

#[test]
fn leading_coefficients_that_multiply_to_zero_are_normalised_away() {
    let ring = ModPolyRing::new(&BigUint::from(12u32), Backend::Cpu).unwrap();
    let a = vec![BigUint::from(1u32), BigUint::from(4u32)]; // 4x + 1
    let b = vec![BigUint::from(1u32), BigUint::from(3u32)]; // 3x + 1
    assert_eq!(
        ring.mul(&a, &b).unwrap(),
        vec![BigUint::from(1u32), BigUint::from(7u32)]
    );
}

#[test]
fn products_modulo_p3_agree_by_both_routes_and_with_the_vectors() {
    let p3 = PrimeField::new("P3").unwrap();
    let m = p3.modulus();
    let crt = ModPolyRing::new(&m, Backend::Cpu).unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/poly/P3.json"
    ))
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let read = |v: &serde_json::Value| -> Vec<BigUint> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().parse().unwrap())
            .collect()
    };
    for case in json["mul"].as_array().unwrap() {
        let c = crt.mul(&read(&case["a"]), &read(&case["b"])).unwrap();
        assert_eq!(c, read(&case["product"]));
    }
    // Random operands: the SRGFN route (FFT over P3 itself) and the CRT route agree.
    let fermat::AnyField::Srgfn8(f) = fermat::FieldSpec::parse("P3").unwrap().build().unwrap()
    else {
        unreachable!()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let a = Poly::new(&f, (0..3000).map(|_| f.random(&mut rng)).collect());
    let b = Poly::new(&f, (0..1000).map(|_| f.random(&mut rng)).collect());
    let srgfn = PolyRing::new(&f, Backend::Cpu)
        .unwrap()
        .mul(&a, &b)
        .unwrap();
    let c = crt.mul(&a.to_biguints(), &b.to_biguints()).unwrap();
    assert_eq!(c, srgfn.to_biguints());
}

#[test]
fn srgfn_rings_take_the_crt_route_where_their_crossover_says() {
    use fermat::poly::{Crossover, Route};
    let fermat::AnyField::Srgfn8(f) = fermat::FieldSpec::parse("P3").unwrap().build().unwrap()
    else {
        unreachable!()
    };
    let own = PolyRing::new(&f, Backend::Cpu)
        .unwrap()
        .with_crossover(Crossover::never());
    let crt = PolyRing::new(&f, Backend::Cpu)
        .unwrap()
        .with_crossover(Crossover::never().with_crt_from(Some(1000)));
    assert!(matches!(crt.route(400, 400).unwrap(), Route::Field(_)));
    let route = crt.route(600, 500).unwrap();
    let Route::Crt { plan, why } = &route else {
        panic!("{route}")
    };
    assert_eq!(plan.len, 1099);
    assert!(why.contains("at least 1000 coefficients"), "{why}");
    assert!(route.to_string().contains("because"), "{route}");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (la, lb) in [(600, 500), (1, 2000), (1500, 1500)] {
        let a = Poly::new(&f, (0..la).map(|_| f.random(&mut rng)).collect());
        let b = Poly::new(&f, (0..lb).map(|_| f.random(&mut rng)).collect());
        assert_eq!(crt.mul(&a, &b).unwrap(), own.mul(&a, &b).unwrap());
        assert_eq!(crt.sqr(&a).unwrap(), own.sqr(&a).unwrap());
    }
    // Word primes have no other route.
    let g = fermat::dsl::Fp64::new(0xffff_ffff_0000_0001).unwrap();
    let ring = PolyRing::new(&g, Backend::Cpu)
        .unwrap()
        .with_crossover(Crossover::never().with_crt_from(Some(1)));
    assert!(matches!(ring.route(5000, 5000).unwrap(), Route::Field(_)));
}

#[test]
fn bad_moduli_and_residues_are_typed_errors() {
    for m in [0u32, 1] {
        let e = ModPolyRing::new(&BigUint::from(m), Backend::Cpu).unwrap_err();
        assert!(matches!(e, Error::Modulus { .. }), "{e}");
        assert!(e.to_string().contains(&format!("modulus {m} ")), "{e}");
    }
    let ring = ModPolyRing::new(&BigUint::from(10u32), Backend::Cpu).unwrap();
    let ok = vec![BigUint::from(3u32)];
    let bad = vec![BigUint::from(1u32), BigUint::from(10u32)];
    let e = ring.mul(&ok, &bad).unwrap_err();
    match &e {
        Error::Residue {
            operand,
            index,
            value,
            ..
        } => {
            assert_eq!((*operand, *index), ("b", 1));
            assert_eq!(value, &BigUint::from(10u32));
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("coefficient 1 of b is 10"), "{e}");
    // A product too long for 31-bit primes with a 2^27-adic form: refused, not wrong.
    let narrow = IntPolyRing::new(Backend::Cpu)
        .unwrap()
        .with_width(Width::Bits31);
    let e = narrow.plan(1 << 27, 1 << 27, 2000, 2000).unwrap_err();
    assert!(matches!(e, Error::CrtPrimes { .. }), "{e}");
}

#[test]
fn plans_say_which_primes_and_why() {
    let ring = IntPolyRing::new(Backend::Cpu).unwrap();
    let plan = ring.plan(1 << 16, 1 << 16, 1000, 1000).unwrap();
    assert!(plan.primes.product().bits() > plan.bits);
    assert_eq!(plan.bits, 1000 + 1000 + 16 + 1);
    let text = plan.to_string();
    assert!(text.contains("62 bits") && text.contains("2^20"), "{text}");
    assert!(BigInt::from(plan.primes.product().clone()).is_positive());
}

/// The DFT of `x` modulo `m` with the root `w`, by its definition: y_k = Σ_j x_j·w^(jk).
fn naive_dft(x: &[BigUint], w: &BigUint, m: &BigUint) -> Vec<BigUint> {
    let n = x.len();
    (0..n)
        .map(|k| {
            let wk = w.modpow(&BigUint::from(k), m);
            let mut power = BigUint::one();
            let mut sum = BigUint::zero();
            for xj in x {
                sum = (sum + xj * &power) % m;
                power = power * &wk % m;
            }
            sum
        })
        .collect()
}

#[test]
fn crt_transform_spectra_are_each_primes_dft_of_the_projected_input() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for (bits, n, limbs) in [(100, 8, 2), (505, 64, 8), (1010, 32, 16)] {
        let primes = PrimeSet::for_bits(Width::Bits62, 20, bits).unwrap();
        let dft = fermat::crt::CrtDft::new(primes, n, limbs, Backend::Cpu).unwrap();
        let x: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint(64 * limbs as u64)).collect();
        let spectra = dft.spectra(&Integers::from_biguints(&x)).unwrap();
        for (i, &p) in dft.primes().primes().iter().enumerate() {
            let f = fermat::dsl::Fp64::new(p).unwrap();
            let w = BigUint::from(f.value(f.root_of_unity(n).unwrap()));
            let pb = BigUint::from(p);
            let residues: Vec<BigUint> = x.iter().map(|v| v % &pb).collect();
            let want = naive_dft(&residues, &w, &pb);
            let got: Vec<BigUint> = spectra[i].iter().map(|&v| BigUint::from(v)).collect();
            assert_eq!(got, want, "prime {p}, n = {n}");
        }
    }
}

#[test]
fn crt_transform_is_the_dft_over_the_primes_product() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let primes = PrimeSet::for_bits(Width::Bits62, 20, 505).unwrap();
    let n = 16u64;
    // P has 9 words: 9 primes of 62 bits.
    let dft = fermat::crt::CrtDft::new(primes, n, 9, Backend::Cpu).unwrap();
    let set = dft.primes();
    let big_p = set.product().clone();
    // ω ≡ ω_i (mod p_i): the CRT of the primes' roots.
    let w = set.primes().iter().fold(BigUint::zero(), |acc, &p| {
        let f = fermat::dsl::Fp64::new(p).unwrap();
        let wi = BigUint::from(f.value(f.root_of_unity(n).unwrap()));
        let pb = BigUint::from(p);
        let rest = &big_p / &pb;
        let inv = rest.modinv(&pb).unwrap();
        (acc + wi * inv % &pb * rest) % &big_p
    });
    // Edge values beside random ones: 0, P − 1 and the widest input the plan takes.
    let mut x: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint(500)).collect();
    x[0] = BigUint::zero();
    x[1] = &big_p - 1u32;
    x[2] = (BigUint::one() << 576u32) - 1u32;
    let y = dft.forward(&Integers::from_biguints(&x)).unwrap();
    let reduced: Vec<BigUint> = x.iter().map(|v| v % &big_p).collect();
    let want: Vec<BigInt> = naive_dft(&reduced, &w, &big_p)
        .into_iter()
        .map(BigInt::from)
        .collect();
    assert_eq!(y.to_bigints(), want);
}

#[test]
fn crt_transform_refuses_inputs_that_do_not_fit() {
    let primes = PrimeSet::for_bits(Width::Bits62, 20, 505).unwrap();
    let dft = fermat::crt::CrtDft::new(primes, 16, 8, Backend::Cpu).unwrap();
    let short = Integers::from_biguints(&vec![BigUint::one(); 15]);
    let err = dft.forward(&short).unwrap_err();
    assert!(
        matches!(err, Error::CrtInput { len: 15, n: 16, .. }),
        "{err}"
    );
    let wide = Integers::from_biguints(&vec![BigUint::one() << 600u32; 16]);
    let err = dft.forward(&wide).unwrap_err();
    assert!(
        matches!(
            err,
            Error::CrtInput {
                limbs: 10,
                max_limbs: 8,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("at most 8 words"), "{err}");
    // A length the primes' 2-adicity does not reach.
    let primes = PrimeSet::for_bits(Width::Bits62, 20, 100).unwrap();
    let err = fermat::crt::CrtDft::new(primes, 1 << 40, 2, Backend::Cpu).unwrap_err();
    assert!(err.to_string().contains("1099511627776"), "{err}");
}

/// `len` random signed coefficients of up to `bits` bits each, from `seed`.
fn integers(seed: u64, len: usize, bits: u64) -> Vec<BigInt> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| signed_random(&mut rng, bits)).collect()
}

/// a + b, normalised (no trailing zeros).
fn sum(a: &[BigInt], b: &[BigInt]) -> Vec<BigInt> {
    normalised(
        (0..a.len().max(b.len()))
            .map(|i| a.get(i).cloned().unwrap_or_default() + b.get(i).cloned().unwrap_or_default())
            .collect(),
    )
}

/// Short operands often, the route's lengths sometimes.
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![0..4usize, 0..300usize]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Z[x] is a commutative ring, whichever primes carry the products: they commute,
    /// associate and distribute over sums, and equal Kronecker substitution's, for random
    /// lengths, sizes and signs.
    #[test]
    fn integer_products_obey_the_ring_laws(
        seed in any::<u64>(),
        lens in [length(), length(), length()],
        bits in [1u64..300, 1u64..300, 1u64..300],
        narrow in any::<bool>(),
    ) {
        let ring = IntPolyRing::new(Backend::Cpu).unwrap();
        let ring = if narrow { ring.with_width(Width::Bits31) } else { ring };
        let [a, b, c] = [0, 1, 2].map(|i| integers(seed.wrapping_add(i as u64), lens[i], bits[i]));
        let ab = ring.mul(&a, &b).unwrap();
        prop_assert_eq!(&ab, &kronecker(&a, &b));
        prop_assert_eq!(&ab, &ring.mul(&b, &a).unwrap());
        prop_assert_eq!(ring.mul(&ab, &c).unwrap(), ring.mul(&a, &ring.mul(&b, &c).unwrap()).unwrap());
        let distributed = sum(&ab, &ring.mul(&a, &c).unwrap());
        prop_assert_eq!(ring.mul(&a, &sum(&b, &c)).unwrap(), distributed);
    }

    /// Products in (Z/mZ)[x] are Kronecker substitution's reduced modulo m, for random
    /// moduli odd and even, of a few bits to beyond the 31-bit primes' 312.
    #[test]
    fn modular_products_are_integer_products_reduced(
        seed in any::<u64>(),
        m_bits in 2u64..400,
        odd in any::<bool>(),
        lens in [length(), length()],
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let m = (rng.gen_biguint(m_bits) | (BigUint::one() << (m_bits - 1))) | BigUint::from(u8::from(odd));
        let ring = ModPolyRing::new(&m, Backend::Cpu).unwrap();
        let residues = |len: usize, rng: &mut ChaCha8Rng| -> Vec<BigUint> {
            (0..len).map(|_| rng.gen_biguint_below(&m)).collect()
        };
        let (a, b) = (residues(lens[0], &mut rng), residues(lens[1], &mut rng));
        prop_assert_eq!(ring.mul(&a, &b).unwrap(), kronecker_modulo(&a, &b, &m), "m = {}", m);
    }
}
