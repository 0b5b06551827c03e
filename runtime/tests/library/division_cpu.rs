//! Division with remainder and power-series inverses on the CPU backend: the reference
//! vectors exactly, a = q·b + r with deg r < deg b on random operands of many shapes in
//! every catalogue field, Newton against long division, and the refusals.

use fermat::dsl::with_field;
use fermat::poly::{divrem_basecase, inv_series_basecase, schoolbook_mul, Poly, PolyRing};
use fermat::{Backend, Error, HostField, PrimeField};
use fermat_tests::{big, load_poly, PolyVectorFile, POLY_VECTOR_FILES};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;
use common::{catalogue, random_poly};

fn check_vectors<F: HostField>(field: &F, file: &PolyVectorFile) {
    let ring = PolyRing::new(field, Backend::Cpu).unwrap();
    let poly = |values: &[String]| Poly::from_decimals(field, values).unwrap();
    for (i, case) in file.divrem.iter().enumerate() {
        let (a, b) = (poly(&case.a), poly(&case.b));
        let (q, r) = ring.divrem(&a, &b).unwrap();
        assert_eq!(
            q,
            poly(&case.quotient),
            "{} divrem[{i}]: quotient",
            file.name
        );
        assert_eq!(
            r,
            poly(&case.remainder),
            "{} divrem[{i}]: remainder",
            file.name
        );
        assert_eq!(ring.div(&a, &b).unwrap(), q);
        assert_eq!(ring.rem(&a, &b).unwrap(), r);
    }
}

#[test]
fn every_division_of_the_vectors() {
    for name in POLY_VECTOR_FILES {
        let file = load_poly(name);
        let field = PrimeField::new(&file.spec()).unwrap();
        assert_eq!(field.modulus(), big(&file.p));
        with_field!(field.any(), f => check_vectors(f, &file));
    }
}

/// a = q·b + r with deg r < deg b, against long division, for one shape; `vanish` builds
/// a as b·(a quotient with runs of zeros) + a short remainder, so that intermediate
/// leading terms vanish.
fn check_shape<F: HostField>(
    ring: &PolyRing<F>,
    (la, lb): (usize, usize),
    monic: bool,
    vanish: bool,
    rng: &mut ChaCha8Rng,
) {
    let field = ring.field();
    let b = random_poly(field, lb, monic, rng);
    let a = if vanish && la >= lb {
        let mut q: Vec<F::Elem> = (0..la - lb + 1).map(|_| field.random(rng)).collect();
        for (i, c) in q.iter_mut().enumerate() {
            if i % 7 < 3 {
                *c = field.zero();
            }
        }
        *q.last_mut().unwrap() = field.one();
        let q = Poly::new(field, q);
        let r = random_poly(field, rng.gen_range(0..lb), false, rng);
        schoolbook_mul(&q, &b).unwrap().add(&r).unwrap()
    } else {
        random_poly(field, la, false, rng)
    };
    let (q, r) = ring.divrem(&a, &b).unwrap();
    let name = field.name();
    assert!(r.len() < b.len(), "{name}: {la} / {lb}: deg r < deg b");
    assert_eq!(
        schoolbook_mul(&q, &b).unwrap().add(&r).unwrap(),
        a,
        "{name}: {la} / {lb}: a = q·b + r"
    );
    assert_eq!(
        (q, r),
        divrem_basecase(&a, &b).unwrap(),
        "{name}: {la} / {lb}: against long division"
    );
}

fn check_inverse<F: HostField>(ring: &PolyRing<F>, len: usize, n: usize, rng: &mut ChaCha8Rng) {
    let field = ring.field();
    let mut f = random_poly(field, len, false, rng);
    if f.coeff(0) == field.zero() {
        f = f.add(&Poly::one(field)).unwrap();
    }
    let g = ring.inv_series(&f, n).unwrap();
    let name = field.name();
    assert!(g.len() <= n, "{name}: 1/f mod x^{n} has degree below {n}");
    assert_eq!(
        schoolbook_mul(&f, &g).unwrap().truncate(n),
        if n == 0 {
            Poly::zero(field)
        } else {
            Poly::one(field)
        },
        "{name}: f·g ≡ 1 mod x^{n}, len f = {len}"
    );
    if n <= 300 {
        assert_eq!(
            g,
            inv_series_basecase(&f, n).unwrap(),
            "{name}: against the recurrence"
        );
    }
}

/// Shapes (len a, len b): a shorter than b, as long, b constant, quotients of length one
/// and far longer than b, both long enough for Newton division.
const SHAPES: [(usize, usize); 12] = [
    (3, 5),
    (5, 5),
    (40, 1),
    (300, 1),
    (100, 100),
    (101, 100),
    (300, 40),
    (300, 150),
    (700, 33),
    (1200, 500),
    (1025, 513),
    (2049, 1025),
];

#[test]
fn every_shape_in_every_catalogue_field() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for field in catalogue() {
        with_field!(field.any(), f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            for shape in SHAPES {
                for (monic, vanish) in [(false, false), (true, false), (false, true)] {
                    check_shape(&ring, shape, monic, vanish, &mut rng);
                }
            }
            for (len, n) in [(1, 1), (1, 500), (3, 70), (200, 130), (700, 1000)] {
                check_inverse(&ring, len, n, &mut rng);
            }
        });
    }
}

/// Every long-division limit a tuning table may give, from none (Newton's division down
/// to quotients and divisors of two coefficients; a table's 0 reads as 1) to one above
/// every shape (long division alone): the same quotients and remainders.
#[test]
fn every_long_division_limit_divides_alike() {
    use fermat::poly::Crossover;
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    for name in ["babybear", "goldilocks", "P2"] {
        let any = fermat::FieldSpec::parse(name).unwrap().build().unwrap();
        with_field!(&any, f => {
            for limit in [0, 1, 2, 7, 100, usize::MAX] {
                let ring = PolyRing::new(f, Backend::Cpu).unwrap().with_crossover(Crossover {
                    long_division: Some(limit),
                    ..Crossover::cpu()
                });
                assert_eq!(ring.crossover().long_division_limit(), limit.max(1));
                for shape in [(2, 2), (3, 2), (4, 3), (40, 2), (40, 39), (130, 65), (300, 17), (17, 17)] {
                    for (monic, vanish) in [(false, false), (true, true)] {
                        check_shape(&ring, shape, monic, vanish, &mut rng);
                    }
                }
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn division_recomposes_its_dividend(
        field in prop::sample::select(catalogue()),
        la in 0usize..400,
        lb in 1usize..200,
        monic in any::<bool>(),
        vanish in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        with_field!(field.any(), f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            check_shape(&ring, (la, lb), monic, vanish, &mut rng);
        });
    }

    #[test]
    fn series_inverses_are_inverses(
        field in prop::sample::select(catalogue()),
        len in 1usize..300,
        n in 0usize..600,
        seed in any::<u64>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        with_field!(field.any(), f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            check_inverse(&ring, len, n, &mut rng);
        });
    }
}

#[test]
fn refusals_are_typed_and_name_the_value() {
    let f = fermat::dsl::Fp32::new(469762049).unwrap();
    let ring = PolyRing::new(&f, Backend::Cpu).unwrap();
    let a = Poly::from_u64s(&f, &[1, 2, 3]);
    let zero = Poly::from_u64s(&f, &[0, 0, 0]); // all zeros: the zero polynomial
    for b in [Poly::zero(&f), zero] {
        let err = ring.divrem(&a, &b).unwrap_err();
        assert!(matches!(err, Error::ZeroDivisor { .. }), "{err}");
        assert!(err.to_string().contains("469762049"), "{err}");
        assert!(matches!(
            ring.div_exact(&a, &b),
            Err(Error::ZeroDivisor { .. })
        ));
    }
    let err = ring
        .div_exact(&a, &Poly::from_u64s(&f, &[1, 1]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::InexactDivision {
                remainder_degree: 0,
                divisor_degree: 1
            }
        ),
        "{err}"
    );
    let err = ring.inv_series(&Poly::x(&f), 8).unwrap_err();
    assert!(matches!(err, Error::SeriesNotInvertible { .. }), "{err}");
    let err = ring.inv_series(&Poly::zero(&f), 8).unwrap_err();
    assert!(matches!(err, Error::SeriesNotInvertible { .. }), "{err}");
    // Beyond the field's transforms (2^26 here): refused before any allocation.
    let err = ring.inv_series(&Poly::one(&f), usize::MAX / 4).unwrap_err();
    assert!(matches!(err, Error::ProductTooLong { .. }), "{err}");
    let other = fermat::dsl::Fp32::new(2013265921).unwrap();
    let b = Poly::one(&other);
    assert!(matches!(
        ring.divrem(&a, &b),
        Err(Error::FieldMismatch { .. })
    ));
    assert!(matches!(
        ring.divrem(&b, &a),
        Err(Error::FieldMismatch { .. })
    ));
}

/// Middle products whose cyclic product wraps a few coefficients into the window (just
/// above powers of two), and ones that do not, against the schoolbook middle product.
#[test]
fn middle_products_just_above_powers_of_two() {
    let f = fermat::dsl::Fp32::new(469762049).unwrap();
    let ring = PolyRing::new(&f, Backend::Cpu).unwrap();
    let fft = PolyRing::new(&f, Backend::Cpu)
        .unwrap()
        .with_crossover(fermat::poly::Crossover::never());
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (la, lb, lo, len) in [
        (513, 513, 0, 513),
        (1025, 1025, 0, 1025),
        (1025, 1000, 0, 1025),
        (2049, 1025, 1025, 1024),
        (700, 600, 100, 900),
        (4097, 4097, 0, 4097),
        // An operand longer than the window's cyclic product, and tiny FFT products.
        (100, 2, 50, 10),
        (1, 5, 0, 4),
        (5, 5, 0, 5),
    ] {
        let a = random_poly(&f, la, false, &mut rng);
        let b = random_poly(&f, lb, false, &mut rng);
        let want = fermat::poly::schoolbook_mul_middle(&a, &b, lo, lo + len).unwrap();
        for ring in [&ring, &fft] {
            let got = ring.mul_middle(&a, &b, lo, len).unwrap();
            assert_eq!(got, want, "{la} × {lb} [{lo}, +{len})");
        }
    }
}

/// Over SRGFNs the CRT route's primes compute only the window of a middle product and
/// the folded product of a remainder: middle products, Newton divisions and series
/// inverses on the route from the shortest products on agree with schoolbook middle
/// products, long division and the recurrence.
#[test]
fn the_crt_route_divides_as_long_division_does() {
    use fermat::poly::Crossover;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for name in ["P2", "P3"] {
        let any = fermat::FieldSpec::parse(name).unwrap().build().unwrap();
        with_field!(&any, f => {
            let crossover = Crossover::cpu().with_crt_from(Some(1));
            let ring = PolyRing::new(f, Backend::Cpu).unwrap().with_crossover(crossover);
            for (la, lb, lo, len) in [
                (513, 513, 0, 513),
                (2049, 1025, 1025, 1024),
                (700, 600, 100, 900),
                (1000, 90, 0, 1500),
                (100, 2, 50, 10),
            ] {
                let a = random_poly(f, la, false, &mut rng);
                let b = random_poly(f, lb, false, &mut rng);
                let want = fermat::poly::schoolbook_mul_middle(&a, &b, lo, lo + len).unwrap();
                let got = ring.mul_middle(&a, &b, lo, len).unwrap();
                assert_eq!(got, want, "{name}: {la} × {lb} [{lo}, +{len})");
            }
            for shape in [(100, 100), (300, 40), (1025, 513), (2049, 1025), (1200, 500)] {
                for (monic, vanish) in [(false, false), (true, true)] {
                    check_shape(&ring, shape, monic, vanish, &mut rng);
                }
            }
            check_inverse(&ring, 200, 130, &mut rng);
            check_inverse(&ring, 700, 1000, &mut rng);
        });
    }
}
