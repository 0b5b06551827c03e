//! Sizes are checked before they become allocations, in the library and in the `fermat`
//! binary: beyond the field's 2-adicity, or beyond the memory there is, a size is a typed
//! error (exit status 2), never an abort or a panic.

use fermat::dsl::field::Roots;
use fermat::{AnyField, Error, FftOptions, FftPlan, Field, FieldError, FieldSpec};

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

fn p3() -> fermat::dsl::Srgfn<8> {
    let AnyField::Srgfn8(f) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!("P3 has k = 8")
    };
    f
}

#[test]
fn plans_beyond_memory_are_errors() {
    // 2^40 elements of 64 bytes: 64 TiB.
    let err = FftPlan::new(&p3(), 1 << 40, FftOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Memory { .. }), "{err}");
    assert!(err.to_string().contains("n = 2^40 points over P3"), "{err}");
    let err = FftPlan::new(&p3(), 1 << 63, FftOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Memory {
                available: None,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn plans_beyond_the_two_adicity_are_errors() {
    let f = fermat::dsl::Fp64::new(0xFFFF_FFFF_0000_0001).unwrap();
    let err = FftPlan::new(&f, 1 << 33, FftOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Field(FieldError::SizeBeyondTwoAdicity {
                two_adicity: 32,
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn root_tables_beyond_the_address_space_are_errors() {
    let f = p3();
    let w = f.root_of_unity(1 << 63).unwrap();
    let err = Roots::from_root(&f, 63, 1 << 63, w).unwrap_err();
    assert!(
        matches!(err, FieldError::TableTooLarge { log_order: 63, .. }),
        "{err}"
    );
}

#[test]
fn the_cli_refuses_sizes_before_making_data() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "fft",
                "--field",
                "goldilocks",
                "--n",
                "8589934592",
                "--random",
                "1",
            ],
            "n = 8589934592 exceeds the field's 2-adicity",
        ),
        (
            &[
                "fft",
                "--field",
                "P3",
                "--n",
                "9223372036854775808",
                "--random",
                "1",
            ],
            "n = 2^63 points over P3",
        ),
        (
            &[
                "fft",
                "--field",
                "P3",
                "--n",
                "1099511627776",
                "--random",
                "1",
            ],
            "of memory are available",
        ),
        (
            &[
                "mul",
                "--field",
                "babybear",
                "--random",
                "1",
                "--len-a",
                "100000000000000",
                "--len-b",
                "3",
            ],
            "random operands of 100000000000000 and 3 coefficients",
        ),
        (
            &[
                "mul",
                "--ring",
                "Z",
                "--random",
                "1",
                "--len-a",
                "100000000000",
                "--len-b",
                "3",
            ],
            "random operands of 100000000000 and 3 coefficients of 64 bits",
        ),
        (
            &[
                "mul",
                "--ring",
                "mod:7",
                "--random",
                "1",
                "--len-a",
                "3",
                "--len-b",
                "100000000000",
            ],
            "random operands of 3 and 100000000000 coefficients of 3 bits",
        ),
    ];
    for (args, needle) in cases {
        let (code, out, err) = fermat(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = fermat(&["gen", "--field", "P3", "--n", "9223372036854775808"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("one vector takes 512.0 EiB"), "{err}");
}
