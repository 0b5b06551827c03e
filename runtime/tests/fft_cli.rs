//! `fermat fft` on the reference vectors' files, and its refusals.

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

fn dir() -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fft_cli");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn transforms_the_reference_vectors_from_files() {
    for name in ["P3", "goldilocks"] {
        let file = fermat_tests::load(name);
        let case = &file.ffts[1];
        let input = dir().join(format!("{name}_in.json"));
        let output = dir().join(format!("{name}_out.json"));
        std::fs::write(&input, serde_json::to_string(&case.input).unwrap()).unwrap();
        let spec = fermat_tests::spec_of(&file);
        let n = case.n.to_string();
        let (code, out, err) = fermat(&[
            "fft",
            "--field",
            &spec,
            "--n",
            &n,
            "--backend",
            "cpu",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
            "--verify",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("verify   round trip: ok"), "{out}");
        let got: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
        assert_eq!(got, case.output, "{name} N = {}", case.n);
    }
}

#[test]
fn random_inputs_and_the_inverse_verify() {
    let (code, out, err) = fermat(&[
        "fft",
        "--field",
        "P2",
        "--radix",
        "8",
        "--e",
        "3",
        "--random",
        "5",
        "--inverse",
        "--verify",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("n = 512 (inverse"), "{out}");
    assert!(out.contains("defining sum at 32 outputs: ok"), "{out}");
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let bad = dir().join("bad.json");
    std::fs::write(&bad, r#"["1", "two"]"#).unwrap();
    let short = dir().join("short.json");
    std::fs::write(&short, r#"["1", "2"]"#).unwrap();
    let big = dir().join("big.json");
    std::fs::write(&big, r#"["2013265921", "0"]"#).unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "12",
                "--random",
                "1",
                "--backend",
                "cpu",
            ],
            "not a power of two",
        ),
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "268435456",
                "--random",
                "1",
                "--backend",
                "cpu",
            ],
            "2-adicity",
        ),
        (
            &[
                "fft",
                "--field",
                "P3",
                "--n",
                "4096",
                "--radix",
                "32",
                "--random",
                "1",
                "--backend",
                "cpu",
            ],
            "radix 32",
        ),
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "2",
                "--input",
                bad.to_str().unwrap(),
                "--backend",
                "cpu",
            ],
            "\"two\"",
        ),
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "4",
                "--input",
                short.to_str().unwrap(),
                "--backend",
                "cpu",
            ],
            "holds 2 values",
        ),
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "2",
                "--input",
                big.to_str().unwrap(),
                "--backend",
                "cpu",
            ],
            "2013265921",
        ),
        (
            &[
                "fft",
                "--field",
                "babybear",
                "--n",
                "16",
                "--random",
                "1",
                "--backend",
                "tpu",
            ],
            "--backend tpu",
        ),
    ];
    for (args, needle) in cases {
        let (code, out, err) = fermat(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
