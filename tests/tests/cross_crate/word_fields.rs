//! Word-size prime fields against the reference vectors: each field is built from its
//! specification exactly as the command line does, then its 2-adicity, its canonical roots
//! of unity and its arithmetic (through sampled DFT outputs) are checked against values
//! computed independently of fermat.

use fermat_dsl::{with_field, AnyField, Field, FieldError, FieldSpec};
use fermat_tests::{big, load, spec_of, VectorFile};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The word-prime vector files.
const WORD_FILES: [&str; 4] = [
    "p469762049",
    "p2013265921",
    "p4179340454199820289",
    "goldilocks",
];

/// Output indices sampled per DFT: enough to catch a wrong root or a wrong product, few
/// enough to keep the O(N) per index evaluation fast.
const SAMPLED_OUTPUTS: usize = 16;

fn build(file: &VectorFile) -> AnyField {
    let spec = spec_of(file);
    FieldSpec::parse(&spec)
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{}: cannot build field {spec}: {e}", file.name))
}

fn check_against_file<F: Field>(f: &F, file: &VectorFile) {
    let name = &file.name;
    assert_eq!(f.modulus(), big(&file.p), "{name}: modulus");
    assert_eq!(f.two_adicity(), file.two_adicity, "{name}: 2-adicity");

    // ω_n = ω_{2n}^2 along the whole family, from the largest size down.
    let s = f.two_adicity();
    let mut w2n = f.root_of_unity(1 << s).unwrap();
    for log_n in (0..s).rev() {
        let wn = f.root_of_unity(1 << log_n).unwrap();
        assert_eq!(
            f.mul(&w2n, &w2n),
            wn,
            "{name}: ω_{} = ω_{}^2",
            1u64 << log_n,
            2u64 << log_n
        );
        w2n = wn;
    }

    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED);
    for fft in &file.ffts {
        let n = fft.n;
        let omega = f.root_of_unity(n).unwrap();
        assert_eq!(
            f.to_biguint(&omega),
            big(&fft.omega),
            "{name}: canonical ω_{n}"
        );
        assert_eq!(
            f.check_root(&omega, n),
            Ok(()),
            "{name}: ω_{n} is primitive"
        );

        let input: Vec<F::Elem> = fft
            .input
            .iter()
            .map(|x| f.from_biguint(&big(x)).unwrap())
            .collect();
        assert_eq!(input.len() as u64, n, "{name}: input length of DFT_{n}");
        // The first and last outputs, then random ones: y_i = Σ_j (ω^i)^j x_j.
        let mut indices = vec![0, n - 1];
        indices.extend((2..SAMPLED_OUTPUTS).map(|_| rng.gen_range(0..n)));
        for i in indices {
            let wi = f.pow_u64(&omega, i);
            let mut power = f.one();
            let mut sum = f.zero();
            for x in &input {
                sum = f.add(&sum, &f.mul(&power, x));
                power = f.mul(&power, &wi);
            }
            assert_eq!(
                f.to_biguint(&sum),
                big(&fft.output[i as usize]),
                "{name}: DFT_{n} output {i}"
            );
        }
    }
}

#[test]
fn word_fields_match_the_reference_vectors() {
    for file_name in WORD_FILES {
        let file = load(file_name);
        let field = build(&file);
        with_field!(&field, f => check_against_file(f, &file));
    }
}

#[test]
fn word_primes_get_the_narrowest_field_type() {
    for file_name in WORD_FILES {
        let file = load(file_name);
        let field = build(&file);
        let narrow = big(&file.p) < BigUint::from(1u64 << 32);
        match field {
            AnyField::Fp32(_) => assert!(narrow, "{file_name} is wider than 32 bits"),
            AnyField::Fp64(_) => assert!(!narrow, "{file_name} fits Fp32"),
            other => panic!("{file_name} built as {other:?}"),
        }
    }
    assert_eq!(
        AnyField::from_spec("goldilocks").unwrap().name(),
        "goldilocks"
    );
    assert_eq!(AnyField::from_spec("babybear").unwrap().name(), "babybear");
    assert_eq!(
        AnyField::from_spec("469762049").unwrap().name(),
        "469762049"
    );
}

#[test]
fn composite_and_even_word_moduli_are_refused_by_name() {
    match AnyField::from_spec("4179340454199820287") {
        Err(err @ FieldError::NotPrime { .. }) => {
            assert!(err.to_string().contains("4179340454199820287"), "{err}");
        }
        other => panic!("a composite modulus was not refused as such: {other:?}"),
    }
    match AnyField::from_spec("4179340454199820288") {
        Err(err @ FieldError::NotOdd { .. }) => {
            assert!(err.to_string().contains("4179340454199820288"), "{err}");
        }
        other => panic!("an even modulus was not refused as such: {other:?}"),
    }
    assert!(matches!(
        AnyField::from_spec("1"),
        Err(FieldError::NotOdd { .. })
    ));
}
