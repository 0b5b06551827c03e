//! `fermat tune --cpu --quick` measures, prints and stores a table that reads back: every
//! quick field with its plain-product crossovers, its half-gcd base case among the
//! candidates and its long-division limit, and a gcd and a division with the stored table
//! equal Euclid's and long division's.

use fermat::dsl::AnyField;
use fermat::poly::{divrem_basecase, gcd_euclid, Crossover, Poly, PolyRing, HGCD_MIN_BASE};
use fermat::tune::{Model, TuneTable};
use fermat::{Backend, FieldSpec, HostField};
use fermat_tests::{run_with, Setting};
use rand::SeedableRng;

#[test]
fn tune_stores_a_table_that_drives_gcds_and_divisions() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tune_cli");
    let _ = std::fs::remove_dir_all(&dir);
    let setting = Setting {
        env: vec![("FERMAT_TUNE_DIR", dir.to_str().unwrap())],
        env_remove: vec!["FERMAT_REQUIRE_GPU"],
        ..Setting::default()
    };
    let (code, out, err) = run_with(
        env!("CARGO_BIN_EXE_fermat"),
        &["tune", "--cpu", "--quick"],
        &setting,
    );
    assert_eq!(code, 0, "{out}{err}");
    for line in [
        "babybear",
        "P3",
        "half-gcd base case below degree",
        "long division",
    ] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }

    std::env::set_var("FERMAT_TUNE_DIR", &dir);
    let table = TuneTable::load_from(&dir, &Model::of(None))
        .unwrap()
        .expect("the table tune stored");
    for name in ["babybear", "P3"] {
        let crossover = table.fields[name];
        let base = crossover.hgcd_base.expect("a measured base case");
        assert!([64, 128, 256].contains(&base), "{name}: base {base}");
        assert!(crossover.half_gcd_base() >= HGCD_MIN_BASE);
        let limit = crossover.long_division.expect("a measured limit");
        assert!(
            limit.is_power_of_two() && limit <= 128,
            "{name}: limit {limit}"
        );

        match FieldSpec::parse(name).unwrap().build().unwrap() {
            // Only the two fields' types: each other one would add to this test's build.
            AnyField::Fp32(f) => check_ring(&f, crossover, limit),
            AnyField::Srgfn8(f) => check_ring(&f, crossover, limit),
            other => panic!("no ring checks for {}", other.name()),
        }
    }
}

/// A ring over `f` takes `crossover` from the stored table, and its gcd and division with
/// it equal Euclid's and long division's.
fn check_ring<F: HostField>(f: &F, crossover: Crossover, limit: usize) {
    let name = f.name();
    let ring = PolyRing::new(f, Backend::Cpu).unwrap();
    assert_eq!(*ring.crossover(), crossover, "{name}: the stored crossover");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let g = Poly::random(f, 5, &mut rng);
    let a = ring.mul(&g, &Poly::random(f, 400, &mut rng)).unwrap();
    let b = ring.mul(&g, &Poly::random(f, 300, &mut rng)).unwrap();
    assert_eq!(
        ring.gcd(&a, &b).unwrap(),
        gcd_euclid(&a, &b).unwrap(),
        "{name}: gcd"
    );
    let divisor = Poly::random(f, limit + 3, &mut rng);
    let dividend = Poly::random(f, 2 * limit + 7, &mut rng);
    assert_eq!(
        ring.divrem(&dividend, &divisor).unwrap(),
        divrem_basecase(&dividend, &divisor).unwrap(),
        "{name}: division"
    );
}
