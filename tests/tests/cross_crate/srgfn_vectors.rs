//! SRGFN fields against the reference vectors (P2, P3, P4): every element pair of each
//! file through from_biguint, the digits, addition, subtraction, multiplication and the
//! shift by r^i (2017 paper, Algorithms 2 and 3, §3.4), and the canonical roots of unity
//! and sampled DFT outputs, all computed independently of fermat. Each field is built from
//! its specification exactly as the command line does.

use fermat_dsl::{AnyField, Field, FieldError, FieldSpec, Srgfn};
use fermat_tests::{big, load, spec_of, VectorFile};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The SRGFN vector files.
const SRGFN_FILES: [&str; 3] = ["P2", "P3", "P4"];

/// Output indices sampled per DFT (each an O(N) evaluation of the defining sum).
const SAMPLED_OUTPUTS: usize = 6;

fn build(file: &VectorFile) -> AnyField {
    let spec = spec_of(file);
    FieldSpec::parse(&spec)
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{}: cannot build field {spec}: {e}", file.name))
}

fn digits_of(file: &VectorFile, text: &[String]) -> Vec<u64> {
    text.iter()
        .map(|d| {
            d.parse()
                .unwrap_or_else(|e| panic!("{}: digit {d:?}: {e}", file.name))
        })
        .collect()
}

fn check_parameters<const K: usize>(f: &Srgfn<K>, file: &VectorFile) {
    let name = &file.name;
    assert_eq!(f.name(), file.name, "the catalogue name");
    assert_eq!(f.modulus(), big(&file.p), "{name}: modulus");
    assert_eq!(f.two_adicity(), file.two_adicity, "{name}: 2-adicity");
    assert_eq!(
        Some(BigUint::from(f.r())),
        file.r.as_deref().map(big),
        "{name}: r"
    );
    assert_eq!(Some(f.k()), file.k, "{name}: k");
    let params = f.params();
    assert_eq!(
        (Some(params.w), Some(params.u)),
        (file.w, file.u),
        "{name}: w, u"
    );
}

fn check_ops<const K: usize>(f: &Srgfn<K>, file: &VectorFile) {
    let name = &file.name;
    assert!(file.ops.len() >= 10, "{name}: the ten edge cases and more");
    for (n, op) in file.ops.iter().enumerate() {
        let at = |what: &str| format!("{name} ops[{n}] {what}");
        let a = f.from_biguint(&big(&op.a)).unwrap();
        let b = f.from_biguint(&big(&op.b)).unwrap();
        let a_digits = digits_of(file, &op.a_digits);
        assert_eq!(
            a.digits().as_slice(),
            a_digits.as_slice(),
            "{}",
            at("a_digits")
        );
        assert_eq!(
            f.from_digits(&a_digits).unwrap(),
            a,
            "{}",
            at("from_digits")
        );

        let sum = f.add(&a, &b);
        assert_eq!(f.to_biguint(&sum), big(&op.sum), "{}", at("a + b"));
        assert_eq!(
            sum.digits().as_slice(),
            digits_of(file, &op.sum_digits).as_slice(),
            "{}",
            at("sum_digits")
        );
        assert_eq!(
            f.to_biguint(&f.sub(&a, &b)),
            big(&op.diff),
            "{}",
            at("a − b")
        );
        assert_eq!(f.to_biguint(&f.mul(&a, &b)), big(&op.prod), "{}", at("a·b"));
        assert_eq!(
            f.to_biguint(&f.mul_r_pow(&a, op.shift)),
            big(&op.a_times_r_pow_shift),
            "{}",
            at(&format!("a·r^{}", op.shift))
        );
    }
}

fn check_ffts<const K: usize>(f: &Srgfn<K>, file: &VectorFile) {
    let name = &file.name;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED);
    for fft in &file.ffts {
        let n = fft.n;
        let omega = f.root_of_unity(n).unwrap();
        assert_eq!(
            f.to_biguint(&omega),
            big(&fft.omega),
            "{name}: canonical ω_{n}"
        );
        if n >= 2 * K as u64 {
            assert_eq!(
                f.base_case_exponent(&omega, n),
                Ok(1),
                "{name}: ω_{n}^(n/2k) = r"
            );
        }
        let input: Vec<_> = fft
            .input
            .iter()
            .map(|x| f.from_biguint(&big(x)).unwrap())
            .collect();
        assert_eq!(input.len() as u64, n, "{name}: input length");
        let mut indices = vec![0, n as usize - 1];
        indices.extend((0..SAMPLED_OUTPUTS).map(|_| rng.gen_range(0..n as usize)));
        for i in indices {
            // y_i = Σ_j ω^(i·j) x_j, with ω^i stepping through the powers.
            let w_i = f.pow_u64(&omega, i as u64);
            let mut power = f.one();
            let mut acc = f.zero();
            for x in &input {
                acc = f.add(&acc, &f.mul(&power, x));
                power = f.mul(&power, &w_i);
            }
            assert_eq!(
                f.to_biguint(&acc),
                big(&fft.output[i]),
                "{name}: DFT_{n} output {i}"
            );
        }
    }
}

fn check_file<const K: usize>(f: &Srgfn<K>, file: &VectorFile) {
    check_parameters(f, file);
    check_ops(f, file);
    check_ffts(f, file);
}

#[test]
fn srgfn_vector_files() {
    for name in SRGFN_FILES {
        let file = load(name);
        match build(&file) {
            AnyField::Srgfn4(f) => check_file(&f, &file),
            AnyField::Srgfn8(f) => check_file(&f, &file),
            AnyField::Srgfn16(f) => check_file(&f, &file),
            other => panic!("{name} built as {}", other.name()),
        }
    }
}

#[test]
fn out_of_range_values_are_refused() {
    let file = load("P3");
    let AnyField::Srgfn8(f) = build(&file) else {
        panic!("P3 has 8 digits");
    };
    let p = big(&file.p);
    assert_eq!(
        f.from_biguint(&p),
        Err(FieldError::OutOfRange {
            value: p.clone(),
            p: p.clone()
        })
    );
    let r = f.r();
    let err = f.from_digits(&[r; 8]).unwrap_err();
    assert!(
        matches!(err, FieldError::InvalidDigits { index: 0, value, .. } if value == r),
        "{err:?}"
    );
}
