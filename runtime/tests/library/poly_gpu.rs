//! On a machine with a GPU: products of polynomials on the device equal those of the CPU
//! backend for every catalogue field and many shapes — one cyclic product, split products
//! just above powers of two, unbalanced blocks, squares — written into poisoned device
//! polynomials, so that a coefficient no kernel writes fails to read back; likewise
//! differences, divisions, power-series inverses and gcds (the on-chip Euclid and
//! Lehmer's rounds, whose windows and stalls have a test of their own). Without a driver
//! or a device the test skips, saying why (`FERMAT_REQUIRE_GPU=1` makes that a failure).

use fermat::dsl::{with_field, FieldSpec};
use fermat::poly::{Crossover, DevicePoly, Poly, PolyRing};
use fermat::{Backend, Error, Field, HostField};
use rand::SeedableRng;

use crate::common::CATALOGUE;
use crate::gpu;

fn gpu_ring<F: HostField>(field: &F) -> Option<PolyRing<F>> {
    gpu::on_gpu(|backend| PolyRing::new(field, backend))
}

fn check<F: HostField>(field: &F, shapes: &[(usize, usize)]) {
    let Some(gpu) = gpu_ring(field) else {
        return;
    };
    let cpu = PolyRing::new(field, Backend::Cpu).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    for &(la, lb) in shapes {
        let a = Poly::random(field, la, &mut rng);
        let b = Poly::random(field, lb, &mut rng);
        let want = cpu.mul(&a, &b).unwrap();
        let plan = gpu.product_plan(la, lb).unwrap();
        let (da, db) = (gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap());
        let mut c = gpu.poisoned_device(plan.len() + 3).unwrap();
        gpu.mul_device_into(&da, &db, &mut c).unwrap();
        let got = gpu.from_device(&c).unwrap();
        assert!(got == want, "{}: {la} × {lb} by {plan}", field.name());
        let square = gpu.from_device(&gpu.sqr_device(&da).unwrap()).unwrap();
        assert!(
            square == cpu.sqr(&a).unwrap(),
            "{}: the square of {la} by {plan}",
            field.name()
        );
        let both = [
            gpu.sub_device(&da, &db).unwrap(),
            gpu.sub_device(&db, &da).unwrap(),
        ];
        let [ab, ba] = both.map(|d| gpu.from_device(&d).unwrap());
        assert!(
            ab == a.sub(&b).unwrap() && ba == b.sub(&a).unwrap(),
            "{}: a − b",
            field.name()
        );
    }
    let a = Poly::random(field, 100, &mut rng);
    let da = gpu.to_device(&a).unwrap();
    assert!(gpu
        .from_device(&gpu.sub_device(&da, &da).unwrap())
        .unwrap()
        .is_zero());
}

const SHAPES: [(usize, usize); 12] = [
    (1, 1),
    (2, 3),
    (64, 64),
    (65, 65),
    (80, 81),
    (96, 97),
    (300, 100),
    (4097, 4097),
    (5 << 10, 5 << 10),
    (3 << 11, 3 << 11),
    (9000, 3),
    (70_000, 1000),
];

#[test]
fn word_prime_products_on_the_device() {
    for spec in ["469762049", "babybear", "goldilocks", "4179340454199820289"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(f, &SHAPES));
    }
}

#[test]
fn srgfn_products_on_the_device() {
    for spec in ["P1", "P2", "P3", "P4"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(f, &SHAPES[..10]));
    }
    for spec in ["P5", "P6"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check(f, &SHAPES[..4]));
    }
}

/// Plain products of every length 1..=300 against lengths 1..=300 reversed, poisoned
/// outputs, for one word prime.
#[test]
fn plain_products_of_every_length_up_to_300() {
    let field = fermat::dsl::Fp32::new(469762049).unwrap();
    let Some(gpu) = gpu_ring(&field) else {
        return;
    };
    let gpu = gpu.with_crossover(Crossover::always());
    let cpu = PolyRing::new(&field, Backend::Cpu).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for la in 1..=300 {
        let lb = 301 - la;
        let a = Poly::random(&field, la, &mut rng);
        let b = Poly::random(&field, lb, &mut rng);
        let (da, db) = (gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap());
        let mut c = gpu.poisoned_device(la + lb + 2).unwrap();
        gpu.mul_device_into(&da, &db, &mut c).unwrap();
        assert!(
            gpu.from_device(&c).unwrap() == cpu.mul(&a, &b).unwrap(),
            "{la} × {lb}"
        );
    }
}

/// Middle products and batches, plain and FFT-based, against the CPU.
fn check_middle_and_batches<F: HostField>(field: &F) {
    use fermat::poly::schoolbook_mul_middle;
    let Some(gpu) = gpu_ring(field) else {
        return;
    };
    let cpu = PolyRing::new(field, Backend::Cpu).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    for crossover in [Crossover::always(), Crossover::never()] {
        let gpu = PolyRing::new(field, Backend::Gpu(0))
            .unwrap()
            .with_crossover(crossover);
        for (la, lb, lo, len) in [
            (10, 10, 0, 19),
            (600, 300, 299, 300),
            (2000, 1000, 999, 1000),
            (50, 700, 100, 900),
            // Few outputs, each a sum over thousands of terms: partial rows added in two
            // stages.
            (5000, 5000, 4990, 3),
            (20000, 20000, 19990, 10),
        ] {
            let a = Poly::random(field, la, &mut rng);
            let b = Poly::random(field, lb, &mut rng);
            let want = schoolbook_mul_middle(&a, &b, lo, lo + len).unwrap();
            let got = gpu.mul_middle(&a, &b, lo, len).unwrap();
            assert!(
                got == want,
                "{}: middle {la} × {lb} [{lo}, +{len}) {crossover:?}",
                field.name()
            );
            assert!(
                cpu.mul_middle(&a, &b, lo, len).unwrap() == want,
                "{}: CPU middle",
                field.name()
            );
        }
        for (count, la, lb) in [
            (7, 33, 20),
            (64, 300, 300),
            (3, 1000, 1000),
            (5, 2048, 2049),
        ] {
            let a: Vec<_> = (0..count)
                .map(|_| Poly::random(field, la, &mut rng))
                .collect();
            let b: Vec<_> = (0..count)
                .map(|_| Poly::random(field, lb, &mut rng))
                .collect();
            let got = gpu.mul_batch(&a, &b).unwrap();
            for q in 0..count {
                assert!(
                    got[q] == cpu.mul(&a[q], &b[q]).unwrap(),
                    "{}: product {q} of a batch of {count} × ({la}, {lb}) {crossover:?}",
                    field.name()
                );
            }
        }
    }
    let _ = gpu;
}

#[test]
fn middle_products_and_batches_on_the_device() {
    for spec in ["babybear", "goldilocks", "P3"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => check_middle_and_batches(f));
    }
}

/// Divisions and series inverses on the device against the CPU backend, plain and
/// FFT-based, quotient and remainder written into poisoned device polynomials; a divisor
/// with zeros at its top (a device result) and zero divisors.
fn check_division<F: HostField>(field: &F, shapes: &[(usize, usize)]) {
    let Some(gpu) = gpu_ring(field) else {
        return;
    };
    let cpu = PolyRing::new(field, Backend::Cpu).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    let name = field.name();
    for crossover in [Crossover::always(), Crossover::never()] {
        let gpu = PolyRing::new(field, Backend::Gpu(0))
            .unwrap()
            .with_crossover(crossover);
        for &(la, lb) in shapes {
            let a = Poly::random(field, la, &mut rng);
            let b = Poly::random(field, lb, &mut rng);
            if b.is_zero() {
                continue;
            }
            let (want_q, want_r) = cpu.divrem(&a, &b).unwrap();
            let (da, db) = (gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap());
            let mut q = gpu.poisoned_device(la + 3).unwrap();
            let mut r = gpu.poisoned_device(lb + 3).unwrap();
            gpu.divrem_device_into(&da, &db, &mut q, &mut r).unwrap();
            let (got_q, got_r) = (gpu.from_device(&q).unwrap(), gpu.from_device(&r).unwrap());
            assert!(
                got_q == want_q,
                "{name}: quotient of {la} / {lb} {crossover:?}"
            );
            assert!(
                got_r == want_r,
                "{name}: remainder of {la} / {lb} {crossover:?}"
            );
            // A divisor the device made, whose top coefficient nobody checked: the seed
            // from its top coefficients read back, where a copied-up one starts on chip.
            let made = gpu
                .mul_device(&db, &gpu.to_device(&Poly::one(field)).unwrap())
                .unwrap();
            gpu.divrem_device_into(&da, &made, &mut q, &mut r).unwrap();
            assert!(
                gpu.from_device(&q).unwrap() == want_q && gpu.from_device(&r).unwrap() == want_r,
                "{name}: {la} / {lb} by a divisor the device made {crossover:?}"
            );
            let n = la.max(1);
            let mut f = a.clone();
            if f.coeff(0) == field.zero() {
                f = f.add(&Poly::one(field)).unwrap();
            }
            let g = gpu
                .inv_series_device(&gpu.to_device(&f).unwrap(), n)
                .unwrap();
            let want = cpu.inv_series(&f, n).unwrap();
            assert!(
                gpu.from_device(&g).unwrap() == want,
                "{name}: 1/f mod x^{n}, len f = {la} {crossover:?}"
            );
            // A series the device made: f(0) read back first.
            let made = gpu
                .mul_device(
                    &gpu.to_device(&f).unwrap(),
                    &gpu.to_device(&Poly::one(field)).unwrap(),
                )
                .unwrap();
            let g = gpu.inv_series_device(&made, n).unwrap();
            assert!(
                gpu.from_device(&g).unwrap() == want,
                "{name}: 1/f mod x^{n} of a series the device made {crossover:?}"
            );
        }
    }
    // A divisor whose device length counts zeros at its top: x^3 + 1 as the window
    // [0, 6) of (x^3 + 1)·1.
    let b = Poly::from_u64s(field, &[1, 0, 0, 1]);
    let db = gpu
        .mul_middle_device(
            &gpu.to_device(&b).unwrap(),
            &gpu.to_device(&Poly::one(field)).unwrap(),
            0,
            6,
        )
        .unwrap();
    assert_eq!(db.len(), 6);
    let a = Poly::random(field, 40, &mut rng);
    let (q, r) = gpu.divrem_device(&gpu.to_device(&a).unwrap(), &db).unwrap();
    let want = cpu.divrem(&a, &b).unwrap();
    assert!(
        (gpu.from_device(&q).unwrap(), gpu.from_device(&r).unwrap()) == want,
        "{name}: a divisor with zeros at its top"
    );
    // Zero divisors: empty, and zeros only.
    let da = gpu.to_device(&a).unwrap();
    let zeros = gpu
        .mul_middle_device(
            &gpu.to_device(&b).unwrap(),
            &gpu.to_device(&b).unwrap(),
            20,
            5,
        )
        .unwrap();
    for zero in [gpu.to_device(&Poly::zero(field)).unwrap(), zeros] {
        let err = gpu.divrem_device(&da, &zero).unwrap_err();
        assert!(matches!(err, Error::ZeroDivisor { .. }), "{name}: {err}");
    }
    let mut small = gpu.poisoned_device(2).unwrap();
    let mut r = gpu.poisoned_device(4).unwrap();
    let err = gpu
        .divrem_device_into(&da, &gpu.to_device(&b).unwrap(), &mut small, &mut r)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Capacity {
                capacity: 2,
                len: 37
            }
        ),
        "{name}: {err}"
    );
}

/// Shapes (len a, len b) of divisions: a shorter than b, b constant, short and long
/// quotients, the Newton seed's length crossed, and the sizes of the speed targets.
const DIVISION_SHAPES: [(usize, usize); 12] = [
    (3, 5),
    (5, 5),
    (40, 1),
    (300, 1),
    (65, 1),
    (101, 100),
    (300, 40),
    (700, 33),
    (1200, 500),
    (10_001, 5001),
    (1 << 14, 1 << 13),
    // An inverse mod x^70001: steps of transforms in three passes, the last one short.
    (70_001, 3),
];

#[test]
fn divisions_and_series_inverses_on_the_device() {
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        let shapes = if spec.starts_with('P') {
            &DIVISION_SHAPES[..10]
        } else {
            &DIVISION_SHAPES[..]
        };
        with_field!(&any, f => check_division(f, shapes));
    }
}

/// The half-gcd on the GPU backend (its products and divisions on the device) against the
/// CPU backend.
#[test]
fn gcds_on_the_gpu_backend() {
    for spec in ["babybear", "P2"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu_ring(f) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
            // Every host operation on the device, every one on the host, and the default.
            for host_below in [None, Some(usize::MAX), gpu.crossover().host_below] {
                let gpu = PolyRing::new(f, Backend::Gpu(0)).unwrap();
                let crossover = Crossover { host_below, ..*gpu.crossover() };
                let gpu = gpu.with_crossover(crossover);
                assert_eq!(gpu.on_host(1000), host_below.is_some_and(|b| 1000 < b));
                for (lg, lu, lv) in [(1, 300, 200), (50, 200, 199), (1, 1, 1), (3, 3000, 2990)] {
                    let g = Poly::random(f, lg, &mut rng);
                    let (u, v) = (Poly::random(f, lu, &mut rng), Poly::random(f, lv, &mut rng));
                    let (a, b) = (cpu.mul(&g, &u).unwrap(), cpu.mul(&g, &v).unwrap());
                    assert!(
                        gpu.gcd(&a, &b).unwrap() == cpu.gcd(&a, &b).unwrap(),
                        "{spec}: gcd of {lg}·({lu}, {lv}), {host_below:?}"
                    );
                    assert!(
                        gpu.divrem(&a, &v).unwrap() == cpu.divrem(&a, &v).unwrap(),
                        "{spec}: division of {lg}·{lu} by {lv}, {host_below:?}"
                    );
                    assert!(
                        gpu.mul(&u, &v).unwrap() == cpu.mul(&u, &v).unwrap(),
                        "{spec}: {lu} × {lv}, {host_below:?}"
                    );
                }
            }
        });
    }
}

/// The on-chip Euclid against Euclid's algorithm on the host, in every catalogue field:
/// pairs with common factors of many degrees, coprime pairs, an operand dividing the other,
/// zero and constant operands, device operands with zeros at the top; a pair that fits
/// only after one division on the device, and (P3) a pair too long for shared memory,
/// which Lehmer's rounds take.
#[test]
fn gcds_on_chip_in_every_field() {
    use fermat::poly::gcd_euclid;
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu_ring(f) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(30);
            let capacity = gpu.euclid_capacity().unwrap();
            let name = spec;
            let mut shapes = vec![(1, 300, 299), (40, 500, 260), (300, 1, 40), (7, 7, 7), (0, 0, 5), (1, 1000, 1)];
            // Only one division from fitting: the longer operand past the capacity.
            shapes.push((3, capacity, capacity / 8));
            if capacity < 8000 {
                // Two operands too long for one block (SRGFNs): Lehmer's rounds.
                shapes.push((5, capacity / 2 + 100, capacity / 2 + 50));
            }
            for (lg, lu, lv) in shapes {
                let g = Poly::random(f, lg, &mut rng);
                let (u, v) = (Poly::random(f, lu, &mut rng), Poly::random(f, lv, &mut rng));
                let (a, b) = (cpu.mul(&g, &u).unwrap(), cpu.mul(&g, &v).unwrap());
                let want = gcd_euclid(&a, &b).unwrap();
                let (da, db) = (gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap());
                let got = gpu.from_device(&gpu.gcd_device(&da, &db).unwrap()).unwrap();
                assert!(got == want, "{name}: gcd_device of {lg}·({lu}, {lv})");
                let swapped = gpu.from_device(&gpu.gcd_device(&db, &da).unwrap()).unwrap();
                assert!(swapped == want, "{name}: gcd_device of {lg}·({lv}, {lu})");
                assert!(gpu.gcd(&a, &b).unwrap() == want, "{name}: gcd of {lg}·({lu}, {lv})");
            }
            // Device results keep zeros at the top: a remainder of a division is one.
            let (a, b) = (Poly::random(f, 900, &mut rng), Poly::random(f, 400, &mut rng));
            let (da, db) = (gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap());
            let (_, r) = gpu.divrem_device(&da, &db).unwrap();
            let r_host = gpu.from_device(&r).unwrap();
            let got = gpu.from_device(&gpu.gcd_device(&db, &r).unwrap()).unwrap();
            assert!(got == gcd_euclid(&b, &r_host).unwrap(), "{name}: a remainder's gcd");
        });
    }
}

/// For each shape (lg, lu, lv), the pair (g·u, g·v) of random g, u and v of those
/// lengths: a common factor of degree lg − 1 (none for lg = 1).
fn multiples<F: HostField>(
    ring: &PolyRing<F>,
    shapes: &[(usize, usize, usize)],
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Vec<(Poly<F>, Poly<F>)> {
    let f = ring.field();
    shapes
        .iter()
        .map(|&(lg, lu, lv)| {
            let g = Poly::random(f, lg, rng);
            let (u, v) = (Poly::random(f, lu, rng), Poly::random(f, lv, rng));
            (ring.mul(&g, &u).unwrap(), ring.mul(&g, &v).unwrap())
        })
        .collect()
}

/// A pair whose remainder sequence has the given quotient degrees and ends at g: built
/// backwards, r_(i−1) = q_i·r_i + r_(i+1).
fn sequence<F: HostField>(
    ring: &PolyRing<F>,
    g: &Poly<F>,
    degrees: &[usize],
    rng: &mut rand_chacha::ChaCha8Rng,
) -> (Poly<F>, Poly<F>) {
    let f = ring.field();
    let (mut r0, mut r1) = (g.clone(), Poly::new(f, vec![]));
    for &d in degrees.iter().rev() {
        let q = Poly::random(f, d + 1, rng);
        let next = ring.mul(&q, &r0).unwrap().add(&r1).unwrap();
        (r0, r1) = (next, r0);
    }
    (r0, r1)
}

/// Lehmer's rounds against the CPU's gcd in every catalogue field: pairs with common
/// factors, windows from 3 coefficients to the default, remainder sequences that are not
/// normal (quotients of degree above the window's half stall the rounds, and a division on
/// the device takes them), pairs longer than one block's shared memory, zero and constant
/// operands; a window that is empty or too large for the device is a typed error.
#[test]
fn lehmer_rounds_find_the_cpus_gcd_in_every_field() {
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu_ring(f) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
            let default = gpu.lehmer_half(3000).unwrap();
            let wide = f.words() > 2;
            let shapes = [(5, 3000, 2999), (1, 2500, 2500), (30, 1500, 1400), (2, 700, 2)];
            let mut pairs = multiples(&cpu, &shapes, &mut rng);
            // Quotients of degree 1 with a few far above any half, and gaps of 0 and 2.
            let degrees: Vec<usize> = (0..600).map(|i| match i % 97 { 13 => 300, 50 => 0, 70 => 2, _ => 1 }).collect();
            let g = Poly::random(f, 4, &mut rng);
            pairs.push(sequence(&cpu, &g, &degrees, &mut rng));
            if !wide {
                // Longer than one block's shared memory holds.
                let g = Poly::random(f, 9, &mut rng);
                let u = Poly::random(f, 40_000, &mut rng);
                let v = Poly::random(f, 39_990, &mut rng);
                pairs.push((cpu.mul(&g, &u).unwrap(), cpu.mul(&g, &v).unwrap()));
            }
            for (a, b) in &pairs {
                let want = cpu.gcd(a, b).unwrap();
                let (da, db) = (gpu.to_device(a).unwrap(), gpu.to_device(b).unwrap());
                let what = format!("{spec}: ({}, {})", a.len(), b.len());
                for half in [1, 16, default] {
                    if half == 1 && a.len() > 4000 {
                        continue;
                    }
                    let got = gpu.from_device(&gpu.gcd_lehmer_device(&da, &db, half).unwrap()).unwrap();
                    assert!(got == want, "{what}, half {half}");
                    let swapped = gpu.from_device(&gpu.gcd_lehmer_device(&db, &da, half).unwrap()).unwrap();
                    assert!(swapped == want, "{what}, half {half}, swapped");
                }
                // A window wider than the window's threads: more coefficients each.
                match gpu.gcd_lehmer_device(&da, &db, 512) {
                    Ok(g) => assert!(gpu.from_device(&g).unwrap() == want, "{what}, half 512"),
                    Err(Error::LehmerHalf { .. }) => {} // wider than shared memory holds
                    Err(e) => panic!("{what}, half 512: {e}"),
                }
                let got = gpu.from_device(&gpu.gcd_device(&da, &db).unwrap()).unwrap();
                assert!(got == want, "{what}: gcd_device");
            }
            // Zero and constant operands end in the first round.
            let a = &pairs[0].0;
            let zero = Poly::new(f, vec![]);
            let seven = Poly::from_u64s(f, &[7]);
            for (x, y, want) in [(a, &zero, cpu.gcd(a, &zero).unwrap()), (&zero, &zero, zero.clone()), (a, &seven, Poly::one(f))] {
                let (dx, dy) = (gpu.to_device(x).unwrap(), gpu.to_device(y).unwrap());
                let got = gpu.from_device(&gpu.gcd_lehmer_device(&dx, &dy, default).unwrap()).unwrap();
                assert!(got == want, "{spec}: ({}, {})", x.len(), y.len());
            }
            let (da, db) = (gpu.to_device(a).unwrap(), gpu.to_device(&pairs[0].1).unwrap());
            for half in [0, 1 << 30] {
                let e = gpu.gcd_lehmer_device(&da, &db, half).unwrap_err();
                assert!(matches!(e, Error::LehmerHalf { half: h, .. } if h == half), "{spec}: {e}");
                assert!(e.to_string().contains(&half.to_string()), "{e}");
            }
        });
    }
}

/// The extended gcd by Lehmer's rounds carrying a's cofactors against the CPU's, (g, s, t)
/// alike, in every catalogue field: pairs with common factors, equal lengths, the shorter
/// operand first, one operand dividing the other, a remainder sequence whose quotients of
/// degree 300 stall the rounds, one whose last quotients, of degree 40, stall the rounds
/// of half 16 that take on the last window's pair, constant and zero operands (FLINT's
/// conventions), windows from 3 coefficients to the default; `xgcd` on the GPU backend
/// takes the rounds for long operands; a window that is empty or too large is a typed
/// error.
#[test]
fn xgcd_by_lehmer_rounds_is_the_cpus_in_every_field() {
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu_ring(f) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(32);
            let default = gpu.lehmer_half(3000).unwrap();
            let n = if f.words() > 2 { 700 } else { 2000 };
            let shapes = [(5, n, n - 3), (1, n, n), (30, n / 2, n), (1, n, 1), (1, 1, n)];
            let mut pairs = multiples(&cpu, &shapes, &mut rng);
            let b = Poly::random(f, n / 2, &mut rng);
            let a = cpu.mul(&b, &Poly::random(f, n / 2, &mut rng)).unwrap();
            pairs.push((a.clone(), b.clone()));
            pairs.push((b.clone(), a.clone()));
            pairs.push((b.clone(), b.clone()));
            let degrees: Vec<usize> = (0..n / 3).map(|i| match i % 97 { 13 => 300, 50 => 0, 70 => 2, _ => 1 }).collect();
            pairs.push(sequence(&cpu, &Poly::random(f, 4, &mut rng), &degrees, &mut rng));
            let last: Vec<usize> = (0..n / 3).map(|i| if i + 40 >= n / 3 && i % 10 == 0 { 40 } else { 1 }).collect();
            pairs.push(sequence(&cpu, &Poly::random(f, 2, &mut rng), &last, &mut rng));
            pairs.push((a.clone(), Poly::new(f, vec![])));
            pairs.push((Poly::new(f, vec![]), b.clone()));
            pairs.push((Poly::new(f, vec![]), Poly::new(f, vec![])));
            for (a, b) in &pairs {
                let want = cpu.xgcd(a, b).unwrap();
                let what = format!("{spec}: ({}, {})", a.len(), b.len());
                for half in [1, 16, default] {
                    if half == 1 && a.len().max(b.len()) > 1000 {
                        continue;
                    }
                    assert!(gpu.xgcd_lehmer(a, b, half).unwrap() == want, "{what}, half {half}");
                }
            }
            if f.words() == 1 {
                let g = Poly::random(f, 3, &mut rng);
                let len = gpu.lehmer_from() + 500;
                let a = cpu.mul(&g, &Poly::random(f, len, &mut rng)).unwrap();
                let b = cpu.mul(&g, &Poly::random(f, len - 700, &mut rng)).unwrap();
                assert!(gpu.xgcd(&a, &b).unwrap() == cpu.xgcd(&a, &b).unwrap(), "{spec}: xgcd");
                // Data on the device: copied up (the rounds) and short (the host's route);
                // a product, whose top coefficient is read back before the rounds take it;
                // a difference whose top coefficients cancel (its zeros at the top kept).
                let xgcd_device = |da: &DevicePoly<_>, db: &DevicePoly<_>| {
                    let (g, s, t) = gpu.xgcd_device(da, db).unwrap();
                    (g, gpu.from_device(&s).unwrap(), gpu.from_device(&t).unwrap())
                };
                let up = |p: &Poly<_>| gpu.to_device(p).unwrap();
                let (c, d) = (Poly::random(f, 40, &mut rng), Poly::random(f, 30, &mut rng));
                for (x, y) in [(&a, &b), (&b, &a), (&c, &d)] {
                    let want = cpu.xgcd(x, y).unwrap();
                    assert!(xgcd_device(&up(x), &up(y)) == want, "{spec}: xgcd_device");
                }
                let ga = gpu.mul_device(&up(&g), &up(&a)).unwrap();
                let want = cpu.xgcd(&cpu.mul(&g, &a).unwrap(), &b).unwrap();
                assert!(xgcd_device(&ga, &up(&b)) == want, "{spec}: xgcd_device of a product");
                let lead = *b.coeffs().last().unwrap();
                let top = Poly::new(f, [vec![f.zero(); b.len() - 1], vec![lead]].concat());
                let cancelled = gpu.sub_device(&up(&b), &up(&top)).unwrap();
                assert_eq!(cancelled.len(), b.len());
                let want = cpu.xgcd(&a, &b.sub(&top).unwrap()).unwrap();
                assert!(xgcd_device(&up(&a), &cancelled) == want, "{spec}: xgcd_device, top zero");
            }
            let (a, b) = &pairs[0];
            for half in [0, 1 << 30] {
                let e = gpu.xgcd_lehmer(a, b, half).unwrap_err();
                assert!(matches!(e, Error::LehmerHalf { half: h, .. } if h == half), "{spec}: {e}");
            }
        });
    }
}

/// The resultant by Lehmer's rounds keeping a trail against the CPU's, in every catalogue
/// field: coprime pairs (a nonzero resultant, its sign and every factor of the trail at
/// stake), pairs with common factors (zero), equal lengths, the shorter operand first (the
/// sign of the swap), one operand dividing the other, coprime remainder sequences whose
/// quotients of degree 300 stall the rounds, constant and zero operands (FLINT's
/// conventions), windows from 3 coefficients to the default; `resultant` on the GPU
/// backend takes the rounds for long operands; a window that is empty or too large is a
/// typed error.
#[test]
fn resultants_by_lehmer_rounds_are_the_cpus_in_every_field() {
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu_ring(f) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(33);
            let default = gpu.lehmer_half(3000).unwrap();
            let n = if f.words() > 2 { 700 } else { 2000 };
            let shapes = [(1, n, n - 3), (1, n, n), (1, n / 2, n), (3, n, n - 1), (1, n, 2), (1, 1, n)];
            let mut pairs = multiples(&cpu, &shapes, &mut rng);
            let b = Poly::random(f, n / 2, &mut rng);
            let a = cpu.mul(&b, &Poly::random(f, n / 2, &mut rng)).unwrap();
            pairs.push((a.clone(), b.clone()));
            pairs.push((b.clone(), b.clone()));
            let degrees: Vec<usize> = (0..n / 3).map(|i| match i % 97 { 13 => 300, 50 => 0, 70 => 2, _ => 1 }).collect();
            let (x, y) = sequence(&cpu, &Poly::random(f, 1, &mut rng), &degrees, &mut rng);
            pairs.push((x.clone(), y.clone()));
            pairs.push((y, x));
            pairs.push((a.clone(), Poly::new(f, vec![])));
            pairs.push((Poly::new(f, vec![]), Poly::new(f, vec![])));
            for (a, b) in &pairs {
                let want = cpu.resultant(a, b).unwrap();
                let what = format!("{spec}: ({}, {})", a.len(), b.len());
                for half in [1, 16, default] {
                    if half == 1 && a.len().max(b.len()) > 1000 {
                        continue;
                    }
                    assert!(gpu.resultant_lehmer(a, b, half).unwrap() == want, "{what}, half {half}");
                }
                // A window wider than the trail window's threads: more coefficients each.
                match gpu.resultant_lehmer(a, b, 512) {
                    Ok(res) => assert!(res == want, "{what}, half 512"),
                    Err(Error::LehmerHalf { .. }) => {} // wider than shared memory holds
                    Err(e) => panic!("{what}, half 512: {e}"),
                }
            }
            // Coprime pairs have nonzero resultants: the tests above are not all zeros.
            assert!(cpu.resultant(&pairs[0].0, &pairs[0].1).unwrap() != fermat::Field::zero(f), "{spec}");
            let g = Poly::random(f, 1, &mut rng);
            let len = gpu.lehmer_from() + 500;
            let a = cpu.mul(&g, &Poly::random(f, len, &mut rng)).unwrap();
            let b = cpu.mul(&g, &Poly::random(f, len - 700, &mut rng)).unwrap();
            assert!(gpu.resultant(&a, &b).unwrap() == cpu.resultant(&a, &b).unwrap(), "{spec}: resultant");
            let (a, b) = &pairs[0];
            for half in [0, 1 << 30] {
                let e = gpu.resultant_lehmer(a, b, half).unwrap_err();
                assert!(matches!(e, Error::LehmerHalf { half: h, .. } if h == half), "{spec}: {e}");
            }
        });
    }
}
