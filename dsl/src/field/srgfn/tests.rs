//! Tests of the SRGFN arithmetic against big-integer arithmetic: the catalogue P1..P6,
//! tiny SRGFNs (exhaustively where p is small), the edge cases of every carry path, the
//! algebraic laws, the roots of unity, and the refusals.

use super::*;
use crate::field::spec::CATALOGUE_SRGFNS;
use crate::field::spec::MAX_K;
use crate::field::{primality::is_prime_u64, FieldSpec};
use num_bigint::RandBigInt;
use num_traits::{One, ToPrimitive, Zero};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn catalogue<const K: usize>(name: &str) -> Srgfn<K> {
    let (name, params) = CATALOGUE_SRGFNS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a catalogue name");
    Srgfn::new(*params, Some(name)).unwrap()
}

macro_rules! cached_field {
    ($fn:ident, $k:literal, $name:literal) => {
        fn $fn() -> &'static Srgfn<$k> {
            static F: OnceLock<Srgfn<$k>> = OnceLock::new();
            F.get_or_init(|| catalogue::<$k>($name))
        }
    };
}
cached_field!(p1, 2, "P1");
cached_field!(p2, 4, "P2");
cached_field!(p3, 8, "P3");
cached_field!(p4, 16, "P4");
cached_field!(p5, 32, "P5");
cached_field!(p6, 64, "P6");

/// Every SRGFN prime with w ≤ 12, digits count `k` and p < 2^64 (decided exactly).
fn tiny_srgfns(k: u64) -> Vec<SrgfnParams> {
    let mut out = Vec::new();
    for w in 2..=12u32 {
        for u in 1..w {
            for sign in [Sign::Plus, Sign::Minus] {
                let params = SrgfnParams { w, u, sign, k };
                let r = params.radix().unwrap();
                let p = r.checked_pow(k as u32).and_then(|x| x.checked_add(1));
                if p.is_some_and(is_prime_u64) {
                    out.push(params);
                }
            }
        }
    }
    out
}

fn tiny<const K: usize>(w: u32, u: u32, sign: Sign) -> Srgfn<K> {
    Srgfn::new(
        SrgfnParams {
            w,
            u,
            sign,
            k: K as u64,
        },
        None,
    )
    .unwrap()
}

/// r^i mod p for 0 ≤ i < 2k, from r^k ≡ −1.
fn r_pow<const K: usize>(f: &Srgfn<K>, i: u32) -> BigUint {
    let r = BigUint::from(f.r());
    let k = K as u32;
    if i < k {
        r.pow(i)
    } else {
        f.modulus() - r.pow(i - k)
    }
}

/// Values that exercise the representation and every carry path: 0, 1, p − 1 (digit r on
/// top), p − 2 (every digit r − 1), single digits, r^(k−1), (p − 1)/2, r^k − r, …
fn edges<const K: usize>(f: &Srgfn<K>) -> Vec<BigUint> {
    let p = f.modulus();
    let r = BigUint::from(f.r());
    let top = r.pow(K as u32 - 1);
    let alternating = (0..K).step_by(2).fold(BigUint::zero(), |acc, i| {
        acc + (&r - 1u32) * r.pow(i as u32)
    });
    let mut v = vec![
        BigUint::zero(),
        BigUint::one(),
        BigUint::from(2u32),
        &r - 1u32,
        r.clone(),
        &r + 1u32,
        top.clone(),
        &top - 1u32,
        (&r - 1u32) * &top,
        (&p - 1u32) >> 1,
        &p - 1u32 - &r,
        &p - 1u32 - &top,
        alternating,
        &p - 3u32,
        &p - 2u32,
        &p - 1u32,
    ];
    v.retain(|x| x < &p);
    v.sort();
    v.dedup();
    v
}

fn random_below(p: &BigUint, seed: u64) -> BigUint {
    ChaCha8Rng::seed_from_u64(seed).gen_biguint_below(p)
}

/// An element for a proptest seed: an edge case one time in four, else uniform.
fn pick<const K: usize>(f: &Srgfn<K>, seed: u64) -> BigUint {
    if seed.is_multiple_of(4) {
        let e = edges(f);
        e[(seed / 4) as usize % e.len()].clone()
    } else {
        random_below(&f.modulus(), seed)
    }
}

/// The element is a valid representation (§3.1), hence the canonical one of its value.
fn assert_canonical<const K: usize>(f: &Srgfn<K>, e: &SrgfnElem<K>) {
    if let Err(err) = f.from_digits(e.digits()) {
        panic!("{e:?}: {err}");
    }
}

/// Every operation on (a, b) against big integers.
fn check_pair<const K: usize>(f: &Srgfn<K>, a: &BigUint, b: &BigUint) {
    let p = f.modulus();
    let (ea, eb) = (f.from_biguint(a).unwrap(), f.from_biguint(b).unwrap());
    assert_canonical(f, &ea);
    assert_eq!(&f.to_biguint(&ea), a);
    let cases = [
        ("sum", f.add(&ea, &eb), (a + b) % &p),
        ("diff", f.sub(&ea, &eb), (a + &p - b) % &p),
        ("prod", f.mul(&ea, &eb), (a * b) % &p),
        ("neg", f.neg(&ea), (&p - a) % &p),
    ];
    for (what, got, want) in cases {
        assert_canonical(f, &got);
        assert_eq!(
            f.to_biguint(&got),
            want,
            "{what} of {a} and {b} in {}",
            f.name()
        );
    }
}

/// a·r^i for all i in [0, 2k), against big integers and against a full multiplication by
/// r^i; i is taken mod 2k.
fn check_shifts<const K: usize>(f: &Srgfn<K>, a: &BigUint) {
    let p = f.modulus();
    let ea = f.from_biguint(a).unwrap();
    for i in 0..2 * K as u32 {
        let ri = r_pow(f, i);
        let got = f.mul_r_pow(&ea, i);
        assert_canonical(f, &got);
        assert_eq!(f.to_biguint(&got), a * &ri % &p, "{a}·r^{i}");
        assert_eq!(got, f.mul(&ea, &f.from_biguint(&ri).unwrap()), "{a}·r^{i}");
    }
    assert_eq!(f.mul_r_pow(&ea, 2 * K as u32 + 3), f.mul_r_pow(&ea, 3));
}

/// The ring laws and the inverse on three elements.
fn check_laws<const K: usize>(f: &Srgfn<K>, a: &BigUint, b: &BigUint, c: &BigUint) {
    check_pair(f, a, b);
    let [a, b, c] = [a, b, c].map(|x| f.from_biguint(x).unwrap());
    assert_eq!(f.add(&a, &b), f.add(&b, &a));
    assert_eq!(f.mul(&a, &b), f.mul(&b, &a));
    assert_eq!(f.add(&f.add(&a, &b), &c), f.add(&a, &f.add(&b, &c)));
    assert_eq!(f.mul(&f.mul(&a, &b), &c), f.mul(&a, &f.mul(&b, &c)));
    assert_eq!(
        f.mul(&a, &f.add(&b, &c)),
        f.add(&f.mul(&a, &b), &f.mul(&a, &c))
    );
    assert_eq!(f.sub(&f.add(&a, &b), &b), a);
    assert_eq!(f.add(&a, &f.neg(&a)), f.zero());
    if a != f.zero() {
        assert_eq!(f.mul(&a, &f.inv(&a).unwrap()), f.one());
    }
}

fn check_all_edges<const K: usize>(f: &Srgfn<K>) {
    let e = edges(f);
    for a in &e {
        for b in &e {
            check_pair(f, a, b);
        }
        check_shifts(f, a);
    }
}

#[test]
fn edge_cases_p1_p2_p3_p4() {
    check_all_edges(p1());
    check_all_edges(p2());
    check_all_edges(p3());
    check_all_edges(p4());
}

#[test]
fn edge_cases_p5_p6() {
    check_all_edges(p5());
    check_all_edges(p6());
}

#[test]
fn algorithm_2_carry_paths() {
    let f = p3();
    let p = f.modulus();
    let r = BigUint::from(f.r());
    let top = r.pow(7);
    let e = |x: &BigUint| f.from_biguint(x).unwrap();
    let value = |a: &BigUint, b: &BigUint| f.to_biguint(&f.add(&e(a), &e(b)));
    // z_k = 0.
    assert_eq!(value(&r, &(&r - 1u32)), &r * 2u32 - 1u32);
    // z_k = 1 and z_{k−1} = … = z_0 = 0: the sum is r^k = p − 1 (step 5).
    let sum = f.add(&e(&top), &e(&(&p - 1u32 - &top)));
    assert_eq!(sum.digits(), &f.minus_one_digits());
    // z_k = 1 otherwise (step 6): (p − 2) + (p − 2) = p − 4.
    assert_eq!(value(&(&p - 2u32), &(&p - 2u32)), &p - 4u32);
    // z_k = 1 with a long borrow: r^k + r^(k−1)·r … = (p − 1) + 1 = 0, (p − 1) + r.
    assert_eq!(value(&(&p - 1u32), &BigUint::one()), BigUint::zero());
    assert_eq!(value(&(&p - 1u32), &r), &r - 1u32);
    // z_k = 2: (p − 1) + (p − 1) = p − 2, every digit r − 1.
    let twice = f.add(&e(&(&p - 1u32)), &e(&(&p - 1u32)));
    assert_eq!(twice.digits(), &[f.r() - 1; 8]);
    // Subtraction: a final borrow adds one, and may reach p − 1.
    let diff = f.sub(&f.zero(), &f.one());
    assert_eq!(diff.digits(), &f.minus_one_digits());
    assert_eq!(f.to_biguint(&f.sub(&e(&r), &e(&(&p - 1u32)))), &r + 1u32);
}

#[test]
fn multiplication_slow_path_is_reached_and_exact() {
    let before = mul::SLOW_PATH_HITS.load(std::sync::atomic::Ordering::Relaxed);
    check_all_edges(p2());
    let after = mul::SLOW_PATH_HITS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(after > before, "no edge case reached the serial carry pass");
}

#[test]
fn tiny_srgfns_exist_for_each_k() {
    for k in [1, 2, 4, 8, 16] {
        assert!(!tiny_srgfns(k).is_empty(), "k = {k}");
    }
    // 2^16 + 1 = (2^2 − 2^1)^16 + 1, a Fermat prime.
    assert!(tiny_srgfns(16).contains(&SrgfnParams {
        w: 2,
        u: 1,
        sign: Sign::Minus,
        k: 16
    }));
}

/// All pairs of a small field, against u64 arithmetic.
fn exhaustive<const K: usize>(f: &Srgfn<K>) {
    let p = f.modulus().to_u64().unwrap();
    let elems: Vec<_> = (0..p).map(|x| f.from_u64(x)).collect();
    let r = f.r() % p;
    for (a, ea) in elems.iter().enumerate() {
        let a = a as u64;
        assert_canonical(f, ea);
        assert_eq!(f.to_biguint(ea), BigUint::from(a));
        assert_eq!(f.neg(ea), elems[((p - a) % p) as usize]);
        let mut shifted = a;
        for i in 0..2 * K as u32 {
            assert_eq!(
                f.mul_r_pow(ea, i),
                elems[shifted as usize],
                "{a}·r^{i} mod {p}"
            );
            shifted = shifted * r % p;
        }
        for (b, eb) in elems.iter().enumerate() {
            let b = b as u64;
            assert_eq!(
                f.add(ea, eb),
                elems[((a + b) % p) as usize],
                "{a} + {b} mod {p}"
            );
            assert_eq!(
                f.sub(ea, eb),
                elems[((a + p - b) % p) as usize],
                "{a} − {b} mod {p}"
            );
            assert_eq!(
                f.mul(ea, eb),
                elems[(a * b % p) as usize],
                "{a}·{b} mod {p}"
            );
        }
    }
}

#[test]
fn tiny_fields_exhaustively() {
    for params in tiny_srgfns(1)
        .into_iter()
        .filter(|s| s.modulus().unwrap() < BigUint::from(200u32))
    {
        exhaustive(&Srgfn::<1>::new(params, None).unwrap());
    }
    exhaustive(&tiny::<2>(3, 1, Sign::Plus)); // r = 10, p = 101
    exhaustive(&tiny::<2>(4, 1, Sign::Minus)); // r = 14, p = 197
    exhaustive(&tiny::<2>(4, 3, Sign::Plus)); // r = 24, p = 577
    exhaustive(&tiny::<4>(2, 1, Sign::Plus)); // r = 6, p = 1297
    exhaustive(&tiny::<8>(2, 1, Sign::Minus)); // r = 2, p = 257
}

/// Random pairs of every tiny SRGFN with k digits, against u128 arithmetic.
fn dense<const K: usize>(pairs: usize) {
    for params in tiny_srgfns(K as u64) {
        let f = Srgfn::<K>::new(params, None).unwrap();
        let p = f.modulus().to_u64().unwrap() as u128;
        let mut rng = ChaCha8Rng::seed_from_u64(params.w as u64 * 1000 + params.u as u64);
        let edge_values: Vec<u128> = edges(&f).iter().map(|x| x.to_u128().unwrap()).collect();
        for n in 0..pairs {
            let mut draw = |j: usize| {
                if n < edge_values.len() * edge_values.len() {
                    edge_values[if j == 0 {
                        n / edge_values.len()
                    } else {
                        n % edge_values.len()
                    }]
                } else {
                    rand::Rng::gen_range(&mut rng, 0..p)
                }
            };
            let (a, b) = (draw(0), draw(1));
            let e = |x: u128| f.from_u64(x as u64);
            let value = |x: &SrgfnElem<K>| f.to_biguint(x).to_u128().unwrap();
            assert_eq!(
                value(&f.add(&e(a), &e(b))),
                (a + b) % p,
                "{a} + {b} in {params}"
            );
            assert_eq!(
                value(&f.sub(&e(a), &e(b))),
                (a + p - b) % p,
                "{a} − {b} in {params}"
            );
            assert_eq!(
                value(&f.mul(&e(a), &e(b))),
                a * b % p,
                "{a}·{b} in {params}"
            );
            assert_canonical(&f, &f.mul(&e(a), &e(b)));
        }
    }
}

#[test]
fn tiny_fields_densely() {
    dense::<1>(2000);
    dense::<2>(2000);
    dense::<4>(2000);
    dense::<8>(2000);
    dense::<16>(2000);
}

fn check_roots<const K: usize>(f: &Srgfn<K>, largest: u64) {
    let one = f.one();
    let minus_one = f.neg(&one);
    let r = f.mul_r_pow(&one, 1);
    assert_eq!(f.to_biguint(&r), BigUint::from(f.r()));
    assert_eq!(f.root_of_unity(2 * K as u64).unwrap(), r, "ω_2k = r");
    let mut n = 1;
    while n <= largest {
        let w = f.root_of_unity(n).unwrap();
        let w2 = f.root_of_unity(2 * n).unwrap();
        assert_eq!(f.mul(&w2, &w2), w, "ω_{n} = ω_{}^2", 2 * n);
        assert_eq!(f.pow_u64(&w, n), one, "ω_{n}^{n} = 1");
        if n > 1 {
            assert_eq!(f.pow_u64(&w, n / 2), minus_one, "ω_{n} is primitive");
        }
        if n >= 2 * K as u64 {
            assert_eq!(f.pow_u64(&w, n / (2 * K as u64)), r, "ω_{n}^(n/2k) = r");
        }
        n *= 2;
    }
}

#[test]
fn roots_of_unity_form_one_family() {
    check_roots(p1(), 1 << 12);
    check_roots(p2(), 1 << 12);
    check_roots(p3(), 1 << 12);
    check_roots(p4(), 1 << 8);
    check_roots(p6(), 256);
    check_roots(&tiny::<4>(2, 1, Sign::Plus), 8); // p − 1 = 2^4·3^4
                                                  // The largest size a field admits.
    let f = p1();
    let top = 1u64 << 63;
    assert!(f.two_adicity() > 63);
    check_roots(f, top >> 1);
}

#[test]
fn non_residue_is_the_smallest() {
    let f = p3();
    let alpha = f.non_residue();
    let a = f.to_biguint(&alpha).to_u64().unwrap();
    let half = (f.modulus() - 1u32) >> 1;
    let minus_one = f.neg(&f.one());
    assert_eq!(f.pow(&alpha, &half), minus_one);
    for smaller in 2..a {
        assert_eq!(
            f.pow(&f.from_u64(smaller), &half),
            f.one(),
            "{smaller} is a residue"
        );
    }
    // A second field value shares the process-wide memo.
    assert_eq!(catalogue::<8>("P3").non_residue(), alpha);
}

#[test]
fn base_case_exponent_finds_the_odd_power() {
    let f = p3();
    let n = 256;
    let w = f.root_of_unity(n).unwrap();
    assert_eq!(f.base_case_exponent(&w, n), Ok(1));
    for j in [3u64, 5, 7, 15, 17, 31, 255] {
        let wj = f.pow_u64(&w, j);
        assert_eq!(f.base_case_exponent(&wj, n), Ok((j % 16) as u32), "j = {j}");
    }
    let not_primitive = f.pow_u64(&w, 2);
    assert_eq!(
        f.base_case_exponent(&not_primitive, n),
        Err(FieldError::NotPrimitiveRoot {
            root: f.to_biguint(&not_primitive),
            n
        })
    );
    let w4 = f.root_of_unity(4).unwrap();
    let err = f.base_case_exponent(&w4, 4).unwrap_err();
    assert_eq!(err, FieldError::SizeBelowBaseCase { n: 4, base: 16 });
    assert!(err.to_string().contains("n = 4") && err.to_string().contains("16"));
}

#[test]
fn roots_of_wrong_order_are_refused() {
    let f = p3();
    assert_eq!(
        f.root_of_unity(12),
        Err(FieldError::SizeNotPowerOfTwo { n: 12 })
    );
    assert_eq!(
        f.root_of_unity(0),
        Err(FieldError::SizeNotPowerOfTwo { n: 0 })
    );
    let tiny = tiny::<4>(2, 1, Sign::Plus); // 2-adicity 4
    let err = tiny.root_of_unity(32).unwrap_err();
    assert_eq!(
        err,
        FieldError::SizeBeyondTwoAdicity {
            n: 32,
            two_adicity: 4
        }
    );
    assert!(err.to_string().contains("32"));
    let r = f.mul_r_pow(&f.one(), 1);
    let err = f.check_root(&r, 32).unwrap_err();
    assert!(err.to_string().contains(&f.r().to_string()), "{err}");
}

#[test]
fn bad_parameters_are_typed_errors() {
    let build = |text: &str| FieldSpec::parse(text).unwrap().build().unwrap_err();
    let cases: [(&str, &str); 5] = [
        ("srgfn:63,34,+,6", "k = 6"),
        ("srgfn:63,34,+,128", "k = 128"),
        ("srgfn:64,3,+,4", "2^64 + 2^3"),
        ("srgfn:40,40,+,4", "u must be smaller than w"),
        ("srgfn:40,50,-,4", "u must be smaller than w"),
    ];
    for (text, needle) in cases {
        let err = build(text).to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    assert!(matches!(
        build("srgfn:63,34,+,6"),
        FieldError::KNotPowerOfTwo { k: 6, .. }
    ));
    assert!(matches!(
        build("srgfn:63,34,+,128"),
        FieldError::KTooLarge {
            k: 128,
            max_k: MAX_K
        }
    ));
    assert!(matches!(
        build("srgfn:64,3,+,4"),
        FieldError::BadRadix {
            w: 64,
            u: 3,
            sign: '+',
            ..
        }
    ));
    // Composite moduli: one with the small factor 17, one with a Miller–Rabin witness.
    let p = |w, u, k| SrgfnParams {
        w,
        u,
        sign: Sign::Plus,
        k,
    };
    match Srgfn::<8>::new(p(63, 1, 8), None).unwrap_err() {
        FieldError::NotPrime { p: m, witness } => {
            assert_eq!(m, p(63, 1, 8).modulus().unwrap());
            assert!(&m % 17u32 == BigUint::zero() && witness.is_none());
        }
        other => panic!("{other:?}"),
    }
    let err = Srgfn::<4>::new(p(63, 34, 4), None).unwrap_err();
    assert!(
        matches!(
            &err,
            FieldError::NotPrime {
                witness: Some(_),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err
        .to_string()
        .contains(&p(63, 34, 4).modulus().unwrap().to_string()));
    // The element type must have k digits.
    let err = Srgfn::<8>::new(CATALOGUE_SRGFNS[1].1, None).unwrap_err();
    assert!(matches!(&err, FieldError::BadSpec { .. }), "{err:?}");
    assert!(err.to_string().contains("k = 4"), "{err}");
    assert!(Srgfn::<4>::new(CATALOGUE_SRGFNS[1].1, None).is_ok());
}

#[test]
fn names_and_parameters() {
    assert_eq!(p3().name(), "P3");
    assert_eq!(p3().k(), 8);
    assert_eq!(p3().r(), (1 << 63) + (1 << 34));
    assert_eq!(p3().params(), CATALOGUE_SRGFNS[2].1);
    assert_eq!(p3().two_adicity(), 272);
    let f = tiny::<2>(3, 1, Sign::Plus);
    assert_eq!(f.name(), "srgfn:3,1,+,2");
    assert_eq!(f.modulus(), BigUint::from(101u32));
    let table_adicity = [106, 200, 272, 576, 1792, 2560];
    let got = [
        p1().two_adicity(),
        p2().two_adicity(),
        p3().two_adicity(),
        p4().two_adicity(),
        p5().two_adicity(),
        p6().two_adicity(),
    ];
    assert_eq!(got, table_adicity);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn laws_p1(a: u64, b: u64, c: u64) {
        let f = p1();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }

    #[test]
    fn laws_p2(a: u64, b: u64, c: u64) {
        let f = p2();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }

    #[test]
    fn laws_p3(a: u64, b: u64, c: u64) {
        let f = p3();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }

    #[test]
    fn laws_p4(a: u64, b: u64, c: u64) {
        let f = p4();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn laws_p5(a: u64, b: u64, c: u64) {
        let f = p5();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }

    #[test]
    fn laws_p6(a: u64, b: u64, c: u64) {
        let f = p6();
        check_laws(f, &pick(f, a), &pick(f, b), &pick(f, c));
        check_shifts(f, &pick(f, a));
    }
}

fn check_product<const K: usize>(f: &Srgfn<K>, a: u64, b: u64) {
    let (x, y) = (pick(f, a), pick(f, b));
    let prod = f.mul(&f.from_biguint(&x).unwrap(), &f.from_biguint(&y).unwrap());
    assert_eq!(
        f.to_biguint(&prod),
        &x * &y % f.modulus(),
        "{x}·{y} in {}",
        f.name()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Products alone, cheaper than the laws and so more of them.
    #[test]
    fn products_p1_to_p4(a: u64, b: u64) {
        check_product(p1(), a, b);
        check_product(p2(), a, b);
        check_product(p3(), a, b);
        check_product(p4(), a, b);
    }
}

#[test]
fn shifts_are_multiplications_by_the_canonical_root_of_order_2k() {
    use crate::field::{Field, FieldSpec};
    let crate::field::AnyField::Srgfn8(f) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!()
    };
    assert_eq!(f.shift_root_order(), Some(16));
    let r = f.root_of_unity(16).unwrap();
    let a = f.from_u64(0x1234_5678_9abc_def1);
    for i in 0..40u64 {
        assert_eq!(f.mul_shift(&a, i), f.mul(&a, &f.pow_u64(&r, i)), "i = {i}");
    }
}

#[test]
fn digits_of_slices_are_each_elements_digits_in_order() {
    fn check<const K: usize>(f: &Srgfn<K>) {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let p_minus_one = f.from_biguint(&(f.modulus() - 1u32)).unwrap();
        let mut xs: Vec<SrgfnElem<K>> = (0..50).map(|_| f.random(&mut rng)).collect();
        xs.extend([f.zero(), p_minus_one, f.one()]);
        let want: Vec<u64> = xs.iter().flat_map(|x| *x.digits()).collect();
        assert_eq!(f.radix_digits_many(&xs), Some(&want[..]), "{}", f.name());
        assert_eq!(f.radix_digits_many(&[]), Some(&[][..]), "{}", f.name());
    }
    check(p1());
    check(p2());
    check(p3());
    check(p4());
}

/// The binary GCD's inverse itself, not its fallback, at the edges and at random in every
/// catalogue SRGFN: Fermat's power agrees, and the rounds finish.
fn check_inverses<const K: usize>(f: &Srgfn<K>) {
    let p = f.modulus();
    let mut rng = ChaCha8Rng::seed_from_u64(K as u64);
    let mut values = edges(f);
    values.extend((0..20).map(|_| rng.gen_biguint_below(&p)));
    let m = p.to_u64_digits();
    for x in values.iter().filter(|x| !x.is_zero()) {
        let mut y = x.to_u64_digits();
        y.resize(m.len(), 0);
        let got = crate::field::inverse::inverse_mod_odd(&y, &m)
            .unwrap_or_else(|| panic!("{}: {x} has an inverse", f.name()));
        let want = f.pow(&f.from_biguint(x).unwrap(), &(&p - 2u32));
        assert_eq!(f.from_limbs(&got).unwrap(), want, "{}: {x}^−1", f.name());
    }
}

#[test]
fn inverses_by_the_binary_gcd_are_fermats() {
    check_inverses(p1());
    check_inverses(p2());
    check_inverses(p3());
    check_inverses(p4());
    check_inverses(p5());
    check_inverses(p6());
}
