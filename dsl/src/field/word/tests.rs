use super::*;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::LazyLock;

const GOLDILOCKS: u64 = 0xFFFF_FFFF_0000_0001;

/// The primes under test: small ones, the catalogue, Mersenne primes, 2^64 − 59.
const PRIMES: [u64; 15] = [
    3,
    5,
    17,
    97,
    257,
    7681,
    12289,
    65537,
    469_762_049,
    2_013_265_921,
    (1 << 31) - 1,
    (1 << 61) - 1,
    4_179_340_454_199_820_289,
    GOLDILOCKS,
    u64::MAX - 58,
];

static FIELDS32: LazyLock<Vec<Fp32>> = LazyLock::new(|| {
    PRIMES
        .iter()
        .filter_map(|&p| u32::try_from(p).ok())
        .map(|p| Fp32::new(p).unwrap())
        .collect()
});

static FIELDS64: LazyLock<Vec<Fp64>> =
    LazyLock::new(|| PRIMES.iter().map(|&p| Fp64::new(p).unwrap()).collect());

/// Values where carries, borrows and reductions change behaviour, those below p.
fn edge_values(p: u64) -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        2,
        p - 1,
        p - 2,
        (p - 1) / 2,
        p / 2 + 1,
        p / 3,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        (1 << 63) - 1,
        1 << 63,
        (1 << 63) + 1,
    ];
    v.retain(|&x| x < p);
    v.sort_unstable();
    v.dedup();
    v
}

/// Checks every operation of `f` on the canonical values `a`, `b` (below p) and the
/// exponent `e` against num-bigint.
fn check_ops<F: Field>(f: &F, a: u64, b: u64, e: u64) {
    let p = f.modulus();
    let (ba, bb) = (BigUint::from(a), BigUint::from(b));
    let x = f.from_biguint(&ba).unwrap();
    let y = f.from_biguint(&bb).unwrap();
    let val = |z: &F::Elem| f.to_biguint(z);
    let ctx = format!("p = {p}, a = {a}, b = {b}, e = {e}");
    assert_eq!(val(&x), ba, "round trip, {ctx}");
    assert_eq!(f.from_u64(a), x, "from_u64, {ctx}");
    assert_eq!(val(&f.add(&x, &y)), (&ba + &bb) % &p, "add, {ctx}");
    assert_eq!(val(&f.sub(&x, &y)), (&ba + &p - &bb) % &p, "sub, {ctx}");
    assert_eq!(val(&f.neg(&x)), (&p - &ba) % &p, "neg, {ctx}");
    assert_eq!(val(&f.mul(&x, &y)), (&ba * &bb) % &p, "mul, {ctx}");
    let be = BigUint::from(e);
    assert_eq!(val(&f.pow_u64(&x, e)), ba.modpow(&be, &p), "pow_u64, {ctx}");
    let huge = (&be << 100u32) + &bb;
    assert_eq!(val(&f.pow(&x, &huge)), ba.modpow(&huge, &p), "pow, {ctx}");
    match f.inv(&x) {
        Ok(inv) => {
            assert_eq!(val(&inv), ba.modpow(&(&p - 2u32), &p), "inv, {ctx}");
            assert_eq!(f.mul(&inv, &x), f.one(), "a · a^(−1), {ctx}");
        }
        Err(err) => {
            assert_eq!(a, 0, "inv refused a non-zero element, {ctx}");
            assert_eq!(err, FieldError::NotInvertible);
        }
    }
}

#[test]
fn arithmetic_matches_bigint_on_edge_values() {
    for f in FIELDS32.iter() {
        let p = u64::from(f.p());
        for &a in &edge_values(p) {
            for &b in &edge_values(p) {
                for e in [0, 1, 2, p - 2, p - 1, p, u64::MAX] {
                    check_ops(f, a, b, e);
                }
            }
        }
    }
    for f in FIELDS64.iter() {
        let p = f.p();
        for &a in &edge_values(p) {
            for &b in &edge_values(p) {
                for e in [0, 1, 2, p - 2, p - 1, p.wrapping_add(1), u64::MAX] {
                    check_ops(f, a, b, e);
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn arithmetic_matches_bigint(a in any::<u64>(), b in any::<u64>(), e in any::<u64>()) {
        for f in FIELDS32.iter() {
            let p = u64::from(f.p());
            check_ops(f, a % p, b % p, e);
            prop_assert_eq!(u64::from(f.value(f.from_u64(a))), a % p);
        }
        for f in FIELDS64.iter() {
            let p = f.p();
            check_ops(f, a % p, b % p, e);
            prop_assert_eq!(f.value(f.from_u64(a)), a % p);
        }
    }

    #[test]
    fn field_laws_hold(a in any::<u64>(), b in any::<u64>(), c in any::<u64>()) {
        for f in FIELDS64.iter() {
            let (x, y, z) = (f.from_u64(a), f.from_u64(b), f.from_u64(c));
            prop_assert_eq!(f.mul(&x, &f.add(&y, &z)), f.add(&f.mul(&x, &y), &f.mul(&x, &z)));
            prop_assert_eq!(f.mul(&f.mul(&x, &y), &z), f.mul(&x, &f.mul(&y, &z)));
            prop_assert_eq!(f.add(&f.sub(&x, &y), &y), x);
            prop_assert_eq!(f.add(&x, &f.neg(&x)), f.zero());
            prop_assert_eq!(f.mul(&x, &f.one()), x);
        }
    }
}

#[test]
fn montgomery_constants_are_right() {
    fn check(p: u64, bits: u32, r: u64, r2: u64, neg_p_inv: u64) {
        let big_p = BigUint::from(p);
        let big_r = BigUint::one() << bits;
        assert_eq!(BigUint::from(r), &big_r % &big_p, "R mod {p}");
        assert_eq!(BigUint::from(r2), (&big_r * &big_r) % &big_p, "R^2 mod {p}");
        assert_eq!(
            (BigUint::from(neg_p_inv) * &big_p + 1u32) % &big_r,
            BigUint::zero(),
            "−p^(−1) mod R for p = {p}"
        );
    }
    for f in FIELDS32.iter() {
        check(
            u64::from(f.p()),
            32,
            u64::from(f.montgomery_r()),
            u64::from(f.montgomery_r2()),
            u64::from(f.montgomery_neg_p_inv()),
        );
        for x in edge_values(u64::from(f.p())) {
            let x = x as u32;
            let raw = f.to_montgomery_raw(f.elem(x).unwrap());
            assert_eq!(u64::from(raw), (u64::from(x) << 32) % u64::from(f.p()));
            assert_eq!(f.value(f.from_montgomery_raw(raw).unwrap()), x);
        }
    }
    for f in FIELDS64.iter() {
        let p = f.p();
        check(
            p,
            64,
            f.montgomery_r(),
            f.montgomery_r2(),
            f.montgomery_neg_p_inv(),
        );
        for x in edge_values(p) {
            let raw = f.to_montgomery_raw(f.elem(x).unwrap());
            assert_eq!(u128::from(raw), (u128::from(x) << 64) % u128::from(p));
            assert_eq!(f.value(f.from_montgomery_raw(raw).unwrap()), x);
        }
    }
}

#[test]
fn catalogue_primes_have_their_two_adicity() {
    assert_eq!(Fp32::new(469_762_049).unwrap().two_adicity(), 26);
    assert_eq!(Fp32::new(2_013_265_921).unwrap().two_adicity(), 27);
    assert_eq!(Fp64::new(2_013_265_921).unwrap().two_adicity(), 27);
    assert_eq!(
        Fp64::new(4_179_340_454_199_820_289).unwrap().two_adicity(),
        57
    );
    let goldilocks = Fp64::new(GOLDILOCKS).unwrap();
    assert_eq!(goldilocks.two_adicity(), 32);
    assert_eq!(Field::two_adicity(&goldilocks), 32);
}

#[test]
fn names_default_to_the_modulus() {
    let f = Fp32::new(2_013_265_921).unwrap();
    assert_eq!(f.name(), "2013265921");
    assert_eq!(f.with_name(Some("babybear")).name(), "babybear");
    let f = Fp64::new(GOLDILOCKS).unwrap();
    assert_eq!(f.name(), "18446744069414584321");
    assert_eq!(f.with_name(Some("goldilocks")).name(), "goldilocks");
}

#[test]
fn refuses_bad_moduli_naming_them() {
    let err = Fp64::new(4_179_340_454_199_820_287).unwrap_err();
    assert_eq!(
        err,
        FieldError::NotPrime {
            p: BigUint::from(4_179_340_454_199_820_287u64),
            witness: Some(BigUint::from(3u32)),
        }
    );
    assert!(err.to_string().contains("4179340454199820287"), "{err}");
    assert!(matches!(
        Fp64::new(u64::MAX),
        Err(FieldError::NotPrime {
            witness: Some(_),
            ..
        })
    ));
    // 3215031751 fools bases 2, 3, 5 and 7; the witness is a later base.
    match Fp32::new(3_215_031_751) {
        Err(FieldError::NotPrime {
            p,
            witness: Some(w),
        }) => {
            assert_eq!(p, BigUint::from(3_215_031_751u32));
            assert!(w > BigUint::from(7u32), "witness {w}");
        }
        other => panic!("3215031751 accepted or misreported: {other:?}"),
    }
    for p in [0u64, 1, 2, 4, 1 << 40, GOLDILOCKS + 1] {
        let err = Fp64::new(p).unwrap_err();
        assert_eq!(
            err,
            FieldError::NotOdd {
                p: BigUint::from(p)
            }
        );
        assert!(err.to_string().contains(&p.to_string()), "{err}");
    }
    for p in [0u32, 1, 2, 65_536] {
        assert_eq!(
            Fp32::new(p).unwrap_err(),
            FieldError::NotOdd {
                p: BigUint::from(p)
            }
        );
    }
    assert!(matches!(
        Fp32::new(9),
        Err(FieldError::NotPrime { witness: Some(w), .. }) if w == BigUint::from(3u32)
    ));
}

#[test]
fn refuses_values_out_of_range() {
    let out_of_range = |value: u64, p: u64| FieldError::OutOfRange {
        value: BigUint::from(value),
        p: BigUint::from(p),
    };
    let f = Fp64::new(GOLDILOCKS).unwrap();
    assert_eq!(
        f.elem(GOLDILOCKS),
        Err(out_of_range(GOLDILOCKS, GOLDILOCKS))
    );
    assert_eq!(f.elem(u64::MAX), Err(out_of_range(u64::MAX, GOLDILOCKS)));
    assert_eq!(
        f.from_montgomery_raw(GOLDILOCKS),
        Err(out_of_range(GOLDILOCKS, GOLDILOCKS))
    );
    assert_eq!(
        f.from_biguint(&BigUint::from(GOLDILOCKS)),
        Err(out_of_range(GOLDILOCKS, GOLDILOCKS))
    );
    let huge = BigUint::one() << 100u32;
    assert_eq!(
        f.from_biguint(&huge),
        Err(FieldError::OutOfRange {
            value: huge.clone(),
            p: BigUint::from(GOLDILOCKS)
        })
    );
    let g = Fp32::new(97).unwrap();
    assert_eq!(g.elem(97), Err(out_of_range(97, 97)));
    assert_eq!(
        g.from_montgomery_raw(u32::MAX),
        Err(out_of_range(u64::from(u32::MAX), 97))
    );
    assert_eq!(
        g.from_biguint(&BigUint::from(1u64 << 32)),
        Err(out_of_range(1 << 32, 97))
    );
    let err = g.elem(200).unwrap_err().to_string();
    assert!(err.contains("200") && err.contains("97"), "{err}");
}

#[test]
fn zero_has_no_inverse() {
    let f = Fp32::new(7681).unwrap();
    assert_eq!(f.inv(&f.zero()), Err(FieldError::NotInvertible));
    let f = Fp64::new(GOLDILOCKS).unwrap();
    assert_eq!(f.inv(&f.zero()), Err(FieldError::NotInvertible));
    assert_eq!(f.pow(&f.zero(), &BigUint::zero()), f.one());
    assert_eq!(f.pow(&f.zero(), &BigUint::from(GOLDILOCKS - 1)), f.zero());
}

#[test]
fn inverses_are_fermats_at_the_extremes_and_at_random() {
    fn check<F: Field>(f: &F, p: u64, rng: &mut rand_chacha::ChaCha8Rng) {
        let values = [1, 2, 3, p / 2, p / 2 + 1, p - 2, p - 1];
        let picks = values.map(|v| f.from_u64(v));
        for a in picks.into_iter().chain((0..500).map(|_| f.random(rng))) {
            if a == f.zero() {
                continue;
            }
            let inverse = f.inv(&a).unwrap();
            assert_eq!(f.mul(&a, &inverse), f.one(), "{a:?} modulo {p}");
            let fermat = f.pow(&a, &BigUint::from(p - 2));
            assert_eq!(inverse, fermat, "{a:?} modulo {p}");
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    for p in [3u32, 7681, 469_762_049, 2_013_265_921, 4_294_967_291] {
        check(&Fp32::new(p).unwrap(), u64::from(p), &mut rng);
    }
    for p in [
        3u64,
        GOLDILOCKS,
        4_179_340_454_199_820_289,
        18_446_744_073_709_551_557,
    ] {
        check(&Fp64::new(p).unwrap(), p, &mut rng);
    }
}

/// ω_n = α^((p−1)/n) computed with num-bigint alone, α the least non-residue ≥ 2.
fn oracle_root(p: u64, n: u64) -> BigUint {
    let big_p = BigUint::from(p);
    let half = BigUint::from((p - 1) / 2);
    let minus_one = &big_p - 1u32;
    let alpha = (2u64..)
        .map(BigUint::from)
        .find(|a| a.modpow(&half, &big_p) == minus_one)
        .unwrap();
    alpha.modpow(&BigUint::from((p - 1) / n), &big_p)
}

fn check_root_family<F: Field>(f: &F, p: u64) {
    let s = f.two_adicity();
    let mut previous: Option<F::Elem> = None;
    for log_n in (0..=s).rev() {
        let n = 1u64 << log_n;
        let w = f.root_of_unity(n).unwrap();
        assert_eq!(f.to_biguint(&w), oracle_root(p, n), "ω_{n} mod {p}");
        assert_eq!(f.check_root(&w, n), Ok(()), "ω_{n} mod {p}");
        if let Some(w2n) = previous {
            assert_eq!(f.mul(&w2n, &w2n), w, "ω_{n} = ω_{}^2 mod {p}", 2 * n);
        }
        previous = Some(w);
    }
    let beyond = 1u64 << (s + 1);
    assert_eq!(
        f.root_of_unity(beyond),
        Err(FieldError::SizeBeyondTwoAdicity {
            n: beyond,
            two_adicity: s
        })
    );
    for n in [0, 3, 12] {
        assert_eq!(f.root_of_unity(n), Err(FieldError::SizeNotPowerOfTwo { n }));
    }
}

#[test]
fn roots_of_unity_are_the_canonical_family() {
    for f in FIELDS32.iter() {
        check_root_family(f, u64::from(f.p()));
    }
    for f in FIELDS64.iter() {
        check_root_family(f, f.p());
    }
}

#[test]
fn check_root_refuses_non_primitive_roots() {
    for f in FIELDS64.iter().filter(|f| f.two_adicity() >= 2) {
        let w4 = f.root_of_unity(4).unwrap();
        let one = f.one();
        let minus_one = f.neg(&one);
        let mut bad_roots = vec![f.mul(&w4, &w4), one, minus_one, f.zero()];
        if f.p() > 5 {
            // 2^4 = 16 ≠ 1 unless p divides 15; mod 5, 2 is a primitive 4th root.
            bad_roots.push(f.from_u64(2));
        }
        for bad in bad_roots {
            assert_eq!(
                f.check_root(&bad, 4),
                Err(FieldError::NotPrimitiveRoot {
                    root: f.to_biguint(&bad),
                    n: 4
                }),
                "p = {}",
                f.p()
            );
        }
        let s = f.two_adicity();
        let n = 1u64 << s;
        let w = f.root_of_unity(n).unwrap();
        assert_eq!(f.check_root(&w, n), Ok(()));
        let w2 = f.mul(&w, &w);
        assert!(matches!(
            f.check_root(&w2, n),
            Err(FieldError::NotPrimitiveRoot { .. })
        ));
        assert_eq!(
            f.check_root(&w, 12),
            Err(FieldError::SizeNotPowerOfTwo { n: 12 })
        );
    }
    let f = Fp32::new(2_013_265_921).unwrap();
    let w = f.root_of_unity(8).unwrap();
    assert_eq!(
        f.check_root(&f.pow_u64(&w, 3), 8),
        Ok(()),
        "odd powers stay primitive"
    );
    assert!(f.check_root(&f.pow_u64(&w, 6), 8).is_err());
}

#[test]
fn random_elements_are_in_range_and_reproducible() {
    for f in FIELDS64.iter() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let xs: Vec<u64> = (0..64).map(|_| f.value(f.random(&mut rng))).collect();
        assert!(xs.iter().all(|&x| x < f.p()));
        if f.p() > 1 << 20 {
            let distinct: std::collections::HashSet<_> = xs.iter().collect();
            assert!(distinct.len() > 60, "p = {}: {xs:?}", f.p());
        }
        let mut again = ChaCha8Rng::seed_from_u64(7);
        let ys: Vec<u64> = (0..64).map(|_| f.value(f.random(&mut again))).collect();
        assert_eq!(xs, ys);
    }
}

#[test]
fn fp32_and_fp64_agree_below_two_to_the_32() {
    for f in FIELDS32.iter() {
        let g = Fp64::new(u64::from(f.p())).unwrap();
        assert_eq!(
            u64::from(f.value(f.non_residue())),
            g.value(g.non_residue())
        );
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..100 {
            let (a, b) = (rng.gen::<u64>(), rng.gen::<u64>());
            let x = f.mul(&f.from_u64(a), &f.from_u64(b));
            let y = g.mul(&g.from_u64(a), &g.from_u64(b));
            assert_eq!(u64::from(f.value(x)), g.value(y));
        }
    }
}
