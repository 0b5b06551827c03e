//! On a machine with a GPU: products of polynomials on the device equal those of the CPU
//! backend for every catalogue field and many shapes — one cyclic product, split products
//! just above powers of two, unbalanced blocks, squares — written into poisoned device
//! polynomials, so that a coefficient no kernel writes fails to read back. Without a
//! driver or a device the test skips, saying why (`FERMAT_REQUIRE_GPU=1` makes that a
//! failure).

use fermat::dsl::{with_field, FieldSpec};
use fermat::poly::{Poly, PolyRing};
use fermat::{Backend, Error, HostField};
use rand::SeedableRng;

fn gpu_ring<F: HostField>(field: &F) -> Option<PolyRing<F>> {
    match PolyRing::new(field, Backend::Gpu(0)) {
        Ok(ring) => Some(ring),
        Err(Error::Gpu(e))
            if e.is_absence() && std::env::var("FERMAT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("the GPU is there but does not work: {e}"),
    }
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
    }
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
    let gpu = gpu.with_crossover(fermat::poly::Crossover::always());
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
    use fermat::poly::{schoolbook_mul_middle, Crossover};
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
        for (count, la, lb) in [(7, 33, 20), (64, 300, 300), (3, 1000, 1000)] {
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
