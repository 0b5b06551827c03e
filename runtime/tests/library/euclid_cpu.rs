//! The Euclidean references — gcd, xgcd, resultant — against the reference vectors and the
//! laws, in every catalogue field: the gcd divides both and is monic, gcd(g·u, g·v) =
//! monic(g) for coprime u, v, Bézout with FLINT's cofactor bounds, res(a·b, c) =
//! res(a, c)·res(b, c), the Sylvester determinant, and res = 0 exactly when the gcd is
//! not constant.

use fermat::dsl::{with_field, Field};
use fermat::poly::{
    divrem_basecase, gcd_euclid, resultant_euclid, schoolbook_mul, xgcd_euclid, Poly,
};
use fermat::{HostField, PrimeField};
use fermat_tests::{load_poly, PolyVectorFile, POLY_VECTOR_FILES};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;
use common::{catalogue, random_poly};

fn check_vectors<F: HostField>(field: &F, file: &PolyVectorFile) {
    let poly = |values: &[String]| Poly::from_decimals(field, values).unwrap();
    for (i, case) in file.gcd.iter().enumerate() {
        let (a, b, g) = (poly(&case.a), poly(&case.b), poly(&case.gcd));
        assert_eq!(gcd_euclid(&a, &b).unwrap(), g, "{} gcd[{i}]", file.name);
        let (xg, s, t) = xgcd_euclid(&a, &b).unwrap();
        assert_eq!(xg, g, "{} xgcd[{i}]", file.name);
        check_bezout(&a, &b, (&g, &s, &t));
    }
}

#[test]
fn every_gcd_of_the_vectors() {
    for name in POLY_VECTOR_FILES {
        let file = load_poly(name);
        let field = PrimeField::new(&file.spec()).unwrap();
        with_field!(field.any(), f => check_vectors(f, &file));
    }
}

/// s·a + t·b = g with len s ≤ max(len b − len g, 1) and len t ≤ max(len a − len g, 1).
fn check_bezout<F: Field>(a: &Poly<F>, b: &Poly<F>, (g, s, t): (&Poly<F>, &Poly<F>, &Poly<F>)) {
    let sum = schoolbook_mul(s, a)
        .unwrap()
        .add(&schoolbook_mul(t, b).unwrap())
        .unwrap();
    assert_eq!(&sum, g, "s·a + t·b = g");
    assert!(
        s.len() <= (b.len().saturating_sub(g.len())).max(1),
        "len s: {} {} {}",
        s.len(),
        b.len(),
        g.len()
    );
    assert!(
        t.len() <= (a.len().saturating_sub(g.len())).max(1),
        "len t: {} {} {}",
        t.len(),
        a.len(),
        g.len()
    );
}

/// The Sylvester matrix's determinant, by Gaussian elimination: the definition of the
/// resultant, for small degrees.
fn sylvester<F: Field>(a: &Poly<F>, b: &Poly<F>) -> F::Elem {
    let f = a.field();
    let (m, n) = (a.len() - 1, b.len() - 1);
    let size = m + n;
    if size == 0 {
        return f.one();
    }
    let mut rows = vec![vec![f.zero(); size]; size];
    for i in 0..n {
        for (j, c) in a.coeffs().iter().rev().enumerate() {
            rows[i][i + j] = *c;
        }
    }
    for i in 0..m {
        for (j, c) in b.coeffs().iter().rev().enumerate() {
            rows[n + i][i + j] = *c;
        }
    }
    let mut det = f.one();
    for col in 0..size {
        let Some(pivot) = (col..size).find(|&r| rows[r][col] != f.zero()) else {
            return f.zero();
        };
        if pivot != col {
            rows.swap(pivot, col);
            det = f.neg(&det);
        }
        det = f.mul(&det, &rows[col][col]);
        let inv = f.inv(&rows[col][col]).unwrap();
        let (top, below) = rows.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for row in below {
            let factor = f.mul(&row[col], &inv);
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x = f.sub(x, &f.mul(&factor, p));
            }
        }
    }
    det
}

fn check_laws<F: Field>(field: &F, (lg, lu, lv): (usize, usize, usize), rng: &mut ChaCha8Rng) {
    let (g, u, v) = (
        random_poly(field, lg, false, rng),
        random_poly(field, lu, false, rng),
        random_poly(field, lv, false, rng),
    );
    let (a, b) = (
        schoolbook_mul(&g, &u).unwrap(),
        schoolbook_mul(&g, &v).unwrap(),
    );
    let d = gcd_euclid(&a, &b).unwrap();
    let name = field.name();
    if !a.is_zero() || !b.is_zero() {
        assert_eq!(d.leading(), Some(field.one()), "{name}: monic");
    }
    for p in [&a, &b] {
        if !d.is_zero() {
            assert!(
                divrem_basecase(p, &d).unwrap().1.is_zero(),
                "{name}: g divides both"
            );
        }
    }
    // gcd(g·u, g·v) = monic(g) when u and v are coprime.
    if !g.is_zero() && gcd_euclid(&u, &v).unwrap() == Poly::one(field) {
        let monic_g = g.scale(&field.inv(&g.leading().unwrap()).unwrap());
        assert_eq!(d, monic_g, "{name}: gcd(g·u, g·v)");
    }
    let (xg, s, t) = xgcd_euclid(&a, &b).unwrap();
    assert_eq!(xg, d, "{name}: xgcd's gcd");
    check_bezout(&a, &b, (&xg, &s, &t));
    // Resultants: multiplicative, zero exactly when the gcd is not constant, and the
    // Sylvester determinant.
    let (x, y, z) = (
        random_poly(field, lu, false, rng),
        random_poly(field, lv, false, rng),
        random_poly(field, lg + 1, false, rng),
    );
    let rxz = resultant_euclid(&x, &z).unwrap();
    let ryz = resultant_euclid(&y, &z).unwrap();
    let xy = schoolbook_mul(&x, &y).unwrap();
    assert_eq!(
        resultant_euclid(&xy, &z).unwrap(),
        field.mul(&rxz, &ryz),
        "{name}: res(xy, z)"
    );
    let rab = resultant_euclid(&a, &b).unwrap();
    let constant_gcd = !a.is_zero() && !b.is_zero() && d.len() == 1;
    assert_eq!(
        rab != field.zero(),
        constant_gcd,
        "{name}: res = 0 iff gcd not constant"
    );
    if !x.is_zero() && !z.is_zero() && x.len() + z.len() < 24 {
        assert_eq!(
            rxz,
            sylvester(&x, &z),
            "{name}: Sylvester {} {}",
            x.len(),
            z.len()
        );
        assert_eq!(
            resultant_euclid(&z, &x).unwrap(),
            sylvester(&z, &x),
            "{name}: Sylvester {} {}",
            z.len(),
            x.len()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn laws_of_gcd_xgcd_and_resultant(
        field in prop::sample::select(catalogue()),
        lg in 0usize..12,
        lu in 0usize..12,
        lv in 0usize..12,
        seed in any::<u64>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        with_field!(field.any(), f => check_laws(f, (lg, lu, lv), &mut rng));
    }
}

/// Degenerate shapes: zeros, constants, a shorter than b, a = b, b | a, degree gaps.
#[test]
fn degenerate_cases_in_every_field() {
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    for field in catalogue() {
        with_field!(field.any(), f => {
            for shape in [(0, 0, 0), (1, 0, 0), (0, 3, 0), (1, 1, 1), (3, 1, 1), (4, 0, 5), (1, 6, 2), (5, 1, 0)] {
                check_laws(f, shape, &mut rng);
            }
            // A remainder sequence with a degree gap: a = x^8 + 1, b = x^5 (one step drops
            // three degrees), and a = b.
            let a = Poly::from_u64s(f, &[1, 0, 0, 0, 0, 0, 0, 0, 1]);
            let b = Poly::monomial(f, f.from_u64(3), 5);
            assert_eq!(gcd_euclid(&a, &b).unwrap(), Poly::one(f));
            let (g, s, t) = xgcd_euclid(&a, &b).unwrap();
            check_bezout(&a, &b, (&g, &s, &t));
            let c = random_poly(f, rng.gen_range(2..9), false, &mut rng);
            let (g, s, t) = xgcd_euclid(&c, &c).unwrap();
            assert_eq!((s.is_zero(), t.len()), (true, 1), "a = b");
            check_bezout(&c, &c, (&g, &s, &t));
        });
    }
}

/// The half-gcd against Euclid, at degrees past its base case: random pairs (coprime,
/// almost surely) and pairs with a common factor of many degrees; the gcd and the extended
/// gcd's cofactors.
#[test]
fn the_half_gcd_agrees_with_euclid() {
    use fermat::poly::PolyRing;
    use fermat::Backend;
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    for field in catalogue() {
        with_field!(field.any(), f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            for (lg, lu, lv) in [(1, 300, 200), (40, 150, 149), (100, 100, 1), (129, 70, 300), (1, 1000, 999)] {
                if field.modulus().bits() > 64 && lu > 500 {
                    continue;
                }
                let (g, u, v) = (random_poly(f, lg, false, &mut rng), random_poly(f, lu, false, &mut rng), random_poly(f, lv, false, &mut rng));
                let (a, b) = (ring.mul(&g, &u).unwrap(), ring.mul(&g, &v).unwrap());
                let want = gcd_euclid(&a, &b).unwrap();
                assert_eq!(ring.gcd(&a, &b).unwrap(), want, "{}: {lg} {lu} {lv}", f.name());
                assert_eq!(ring.gcd(&b, &a).unwrap(), want, "{}: swapped", f.name());
                // The half-gcd's cofactors are Euclid's: FLINT's conventions and bounds.
                let bezout = xgcd_euclid(&a, &b).unwrap();
                let fast = ring.xgcd(&a, &b).unwrap();
                check_bezout(&a, &b, (&fast.0, &fast.1, &fast.2));
                assert!(fast == bezout, "{}: xgcd {lg} {lu} {lv}", f.name());
                let (g, s, t) = ring.xgcd(&b, &a).unwrap();
                assert!((g, t, s) == bezout, "{}: xgcd swapped", f.name());
                // The resultant's factors ride along the half-gcd's steps.
                for (x, y) in [(&a, &b), (&b, &a), (&u, &v)] {
                    let want = resultant_euclid(x, y).unwrap();
                    assert_eq!(ring.resultant(x, y).unwrap(), want, "{}: resultant {lg} {lu} {lv}", f.name());
                }
            }
        });
    }
}

/// The half-gcd at every base case a tuning table may give, from the smallest the
/// crossover allows (a table's 0 and 1 read as it) to one above the operands (Euclid
/// alone): gcd, extended gcd and resultant equal Euclid's, on pairs with common factors,
/// sequences with gaps and the shorter operand first.
#[test]
fn the_half_gcd_agrees_with_euclid_at_every_base_case() {
    use fermat::poly::{Crossover, PolyRing, HGCD_MIN_BASE};
    use fermat::Backend;
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    for name in ["babybear", "goldilocks", "P1", "P3"] {
        let any = fermat::FieldSpec::parse(name).unwrap().build().unwrap();
        with_field!(&any, f => {
            let mut pairs = Vec::new();
            for (lg, lu, lv) in [(3, 90, 60), (1, 120, 119), (20, 40, 70)] {
                let g = random_poly(f, lg, false, &mut rng);
                let u = random_poly(f, lu, false, &mut rng);
                let v = random_poly(f, lv, false, &mut rng);
                pairs.push((schoolbook_mul(&g, &u).unwrap(), schoolbook_mul(&g, &v).unwrap()));
            }
            let mut sparse = vec![0u64; 100];
            (sparse[0], sparse[37], sparse[99]) = (5, 2, 1);
            pairs.push((Poly::from_u64s(f, &sparse), Poly::monomial(f, f.from_u64(7), 45)));
            for base in [0, 1, HGCD_MIN_BASE, 5, 16, 33, 1000] {
                let ring = PolyRing::new(f, Backend::Cpu).unwrap().with_crossover(Crossover {
                    hgcd_base: Some(base),
                    ..Crossover::cpu()
                });
                assert_eq!(ring.crossover().half_gcd_base(), base.max(HGCD_MIN_BASE));
                for (a, b) in &pairs {
                    let what = format!("{name}: ({}, {}), base {base}", a.len(), b.len());
                    assert_eq!(ring.gcd(a, b).unwrap(), gcd_euclid(a, b).unwrap(), "{what}");
                    assert!(ring.xgcd(a, b).unwrap() == xgcd_euclid(a, b).unwrap(), "{what}: xgcd");
                    let want = resultant_euclid(b, a).unwrap();
                    assert_eq!(ring.resultant(b, a).unwrap(), want, "{what}: resultant");
                }
            }
        });
    }
}

/// Sparse operands, whose remainder sequences drop many degrees at once (not normal), and
/// operands whose half-gcd recursion meets a zero remainder: the half-gcd's gcd, extended
/// gcd and resultant equal Euclid's.
#[test]
fn the_half_gcd_follows_sequences_that_are_not_normal() {
    use fermat::poly::PolyRing;
    use fermat::Backend;
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    for field in catalogue() {
        with_field!(field.any(), f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            let sparse = |terms: &[(usize, u64)]| {
                let mut p = Poly::zero(f);
                for &(k, c) in terms {
                    p = p.add(&Poly::monomial(f, f.from_u64(c), k)).unwrap();
                }
                p
            };
            let pairs = [
                (sparse(&[(400, 1), (200, 3), (0, 1)]), sparse(&[(399, 2), (150, 1), (0, 5)])),
                (sparse(&[(512, 1), (0, 1)]), sparse(&[(300, 1), (1, 7)])),
                (sparse(&[(300, 1), (299, 1), (10, 4)]), sparse(&[(290, 3), (0, 2)])),
                // A common factor x^130 + 1 and a cofactor that divides the other.
                (sparse(&[(260, 1), (0, 1)]), sparse(&[(130, 1), (0, 1)])),
            ];
            let c = random_poly(f, 140, false, &mut rng);
            let d = random_poly(f, 135, false, &mut rng);
            let pairs = pairs.into_iter().chain([(ring.mul(&c, &d).unwrap(), d.clone())]);
            for (i, (a, b)) in pairs.enumerate() {
                assert_eq!(ring.gcd(&a, &b).unwrap(), gcd_euclid(&a, &b).unwrap(), "{} gcd {i}", f.name());
                assert!(ring.xgcd(&a, &b).unwrap() == xgcd_euclid(&a, &b).unwrap(), "{} xgcd {i}", f.name());
                for (x, y) in [(&a, &b), (&b, &a)] {
                    assert_eq!(ring.resultant(x, y).unwrap(), resultant_euclid(x, y).unwrap(), "{} resultant {i}", f.name());
                }
            }
        });
    }
}
