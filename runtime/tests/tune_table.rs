//! A stored `fermat tune` table drives the products and the half-gcd: a ring built with a
//! table in `FERMAT_TUNE_DIR` takes its field's crossover from it (plain at every size and
//! a half-gcd base case of 16 for one field, FFT-based at every size for another), a field
//! the table does not name keeps the default, and a corrupt table is ignored for the
//! default. One test in its own process:
//! it sets the environment.

use fermat::dsl::{AnyField, FieldSpec};
use fermat::poly::{Algorithm, Crossover, Poly, PolyRing};
use fermat::tune::{Model, TuneTable};
use fermat::{Backend, HostField};
use rand::SeedableRng;

fn ring_of(spec: &str) -> (Crossover, Algorithm) {
    match FieldSpec::parse(spec).unwrap().build().unwrap() {
        // Only the three fields' types: each other one would add to this test's build.
        AnyField::Fp32(f) => crossover_of(&f),
        AnyField::Fp64(f) => crossover_of(&f),
        AnyField::Srgfn4(f) => crossover_of(&f),
        other => panic!("no ring checks for {}", other.name()),
    }
}

/// The crossover of a ring over `f` and its algorithm at 300 × 300, its products checked.
fn crossover_of<F: HostField>(f: &F) -> (Crossover, Algorithm) {
    let ring = PolyRing::new(f, Backend::Cpu).unwrap();
    let algorithm = ring.product_plan(300, 300).unwrap().algorithm;
    check_products(&ring);
    (*ring.crossover(), algorithm)
}

/// Whatever the table says, products and gcds stay right.
fn check_products<F: HostField>(ring: &PolyRing<F>) {
    let f = ring.field();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let (a, b) = (
        Poly::random(f, 300, &mut rng),
        Poly::random(f, 300, &mut rng),
    );
    let c = Poly::random(f, 20, &mut rng);
    assert_eq!(
        ring.mul(&a, &b).unwrap(),
        fermat::poly::schoolbook_mul(&a, &b).unwrap()
    );
    let (ac, bc) = (ring.mul(&a, &c).unwrap(), ring.mul(&b, &c).unwrap());
    assert_eq!(
        ring.gcd(&ac, &bc).unwrap(),
        fermat::poly::gcd_euclid(&ac, &bc).unwrap()
    );
}

#[test]
fn a_stored_table_drives_the_crossover() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tune_table");
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("FERMAT_TUNE_DIR", &dir);
    let model = Model::of(None);
    let mut table = TuneTable::new(&model);
    let babybear = Crossover {
        hgcd_base: Some(16),
        ..Crossover::always()
    };
    table.fields.insert("babybear".into(), babybear);
    table.fields.insert("goldilocks".into(), Crossover::never());
    table.store_in(&dir).unwrap();

    let (crossover, algorithm) = ring_of("babybear");
    assert_eq!(crossover, babybear);
    assert_eq!(crossover.half_gcd_base(), 16);
    assert_eq!(
        algorithm,
        Algorithm::Schoolbook,
        "plain at 300 × 300 on the CPU"
    );
    let (crossover, algorithm) = ring_of("goldilocks");
    assert_eq!(crossover, Crossover::never());
    assert!(
        !matches!(algorithm, Algorithm::Schoolbook | Algorithm::Plain),
        "FFT-based at 300 × 300: {algorithm:?}"
    );
    let (crossover, _) = ring_of("P2");
    assert_eq!(
        crossover,
        Crossover::cpu(),
        "a field the table does not name"
    );

    std::fs::write(dir.join(model.file_name()), "{ not json").unwrap();
    let (crossover, _) = ring_of("babybear");
    assert_eq!(crossover, Crossover::cpu(), "a corrupt table is ignored");
}
