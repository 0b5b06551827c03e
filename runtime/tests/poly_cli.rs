//! `fermat div` and `fermat gcd` on the reference vectors' files (the results written as
//! JSON equal the vectors'), random operands verified, and their refusals; `fermat mul
//! --devices` on simulated devices.

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

fn dir() -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("poly_cli");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn divides_the_reference_vectors_from_files() {
    for name in ["P3", "babybear"] {
        let file = fermat_tests::load_poly(name);
        for (i, case) in file.divrem.iter().enumerate() {
            let (a, b) = (
                dir().join(format!("{name}_{i}_a.json")),
                dir().join(format!("{name}_{i}_b.json")),
            );
            let out = dir().join(format!("{name}_{i}_qr.json"));
            std::fs::write(&a, serde_json::to_string(&case.a).unwrap()).unwrap();
            std::fs::write(&b, serde_json::to_string(&case.b).unwrap()).unwrap();
            let spec = file.spec();
            let args = [
                "div",
                "--field",
                &spec,
                "--a",
                a.to_str().unwrap(),
                "--b",
                b.to_str().unwrap(),
            ];
            let out_arg = [
                "--output",
                out.to_str().unwrap(),
                "--backend",
                "cpu",
                "--verify",
            ];
            let (code, stdout, stderr) = fermat(&[&args[..], &out_arg[..]].concat());
            assert_eq!(code, 0, "{name} divrem[{i}]: {stdout}{stderr}");
            assert!(stdout.contains("a = q·b + r: ok"), "{stdout}");
            let got: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            assert_eq!(
                got["quotient"],
                serde_json::json!(case.quotient),
                "{name} divrem[{i}]"
            );
            assert_eq!(
                got["remainder"],
                serde_json::json!(case.remainder),
                "{name} divrem[{i}]"
            );
        }
    }
}

#[test]
fn random_divisions_verify() {
    let (code, stdout, stderr) = fermat(&[
        "div",
        "--field",
        "goldilocks",
        "--random",
        "5",
        "--len-a",
        "3000",
        "--len-b",
        "1200",
        "--backend",
        "cpu",
        "--verify",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("a = q·b + r: ok; deg r < deg b: ok"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(json["quotient"].as_array().unwrap().len(), 1801);
}

#[test]
fn refusals_name_the_value() {
    let zero = dir().join("zero.json");
    let a = dir().join("a.json");
    let bad = dir().join("bad.json");
    std::fs::write(&zero, r#"["0", "0"]"#).unwrap();
    std::fs::write(&a, r#"["1", "2", "1"]"#).unwrap();
    std::fs::write(&bad, r#"["1", "x"]"#).unwrap();
    let (a, zero, bad) = (
        a.to_str().unwrap(),
        zero.to_str().unwrap(),
        bad.to_str().unwrap(),
    );
    let cases: [(&[&str], &str); 4] = [
        (
            &["--field", "babybear", "--a", a, "--b", zero],
            "division by the zero polynomial",
        ),
        (
            &["--field", "babybear", "--a", a, "--b", bad],
            "coefficient 1 = x",
        ),
        (
            &["--field", "babybear", "--a", a, "--b", "/nonexistent.json"],
            "cannot read",
        ),
        (
            &["--field", "nope", "--a", a, "--b", a],
            "cannot read field 'nope'",
        ),
    ];
    for (args, want) in cases {
        let (code, _, stderr) = fermat(&[&["div"][..], args].concat());
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn gcds_of_the_reference_vectors_from_files() {
    for name in ["P2", "goldilocks"] {
        let file = fermat_tests::load_poly(name);
        for (i, case) in file.gcd.iter().enumerate() {
            let a = dir().join(format!("gcd_{name}_{i}_a.json"));
            let b = dir().join(format!("gcd_{name}_{i}_b.json"));
            let out = dir().join(format!("gcd_{name}_{i}.json"));
            std::fs::write(&a, serde_json::to_string(&case.a).unwrap()).unwrap();
            std::fs::write(&b, serde_json::to_string(&case.b).unwrap()).unwrap();
            let spec = file.spec();
            let (code, stdout, stderr) = fermat(&[
                "gcd",
                "--field",
                &spec,
                "--a",
                a.to_str().unwrap(),
                "--b",
                b.to_str().unwrap(),
                "--output",
                out.to_str().unwrap(),
                "--backend",
                "cpu",
                "--verify",
            ]);
            assert_eq!(code, 0, "{name} gcd[{i}]: {stdout}{stderr}");
            assert!(stdout.contains("divides both: ok"), "{stdout}");
            let got: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            assert_eq!(got, serde_json::json!(case.gcd), "{name} gcd[{i}]");
        }
    }
    let out = dir().join("xgcd.json");
    let (code, stdout, stderr) = fermat(&[
        "gcd",
        "--field",
        "babybear",
        "--random",
        "3",
        "--len-a",
        "120",
        "--len-b",
        "90",
        "--xgcd",
        "--verify",
        "--backend",
        "cpu",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("s·a + t·b = g: ok; cofactor bounds: ok"),
        "{stdout}"
    );
    let got: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(got["gcd"], serde_json::json!(["1"]));
    assert!(got["s"].as_array().unwrap().len() <= 90 && got["t"].as_array().unwrap().len() <= 120);
    let (code, _, stderr) = fermat(&["gcd", "--field", "P2", "--random", "1", "--len-a", "400"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--len-b"), "{stderr}");
}

#[test]
fn gcd_with_the_resultant_from_files() {
    // res(x − 2, x² + 1) = 5 = b(2); res((x − 2)(x + 1), (x − 2)²) = 0, with the gcd x − 2.
    for (a, b, gcd, resultant) in [
        (r#"["469762047","1"]"#, r#"["1","0","1"]"#, vec!["1"], "5"),
        (
            r#"["469762047","469762048","1"]"#,
            r#"["4","469762045","1"]"#,
            vec!["469762047", "1"],
            "0",
        ),
    ] {
        let (pa, pb, out) = (
            dir().join("res_a.json"),
            dir().join("res_b.json"),
            dir().join("res.json"),
        );
        std::fs::write(&pa, a).unwrap();
        std::fs::write(&pb, b).unwrap();
        let (code, stdout, stderr) = fermat(&[
            "gcd",
            "--field",
            "469762049",
            "--a",
            pa.to_str().unwrap(),
            "--b",
            pb.to_str().unwrap(),
            "--resultant",
            "--xgcd",
            "--verify",
            "--backend",
            "cpu",
            "--output",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(
            stdout.contains("not constant: ok; Euclid's value: ok"),
            "{stdout}"
        );
        let got: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(got["resultant"], serde_json::json!(resultant), "{got}");
        assert_eq!(got["gcd"], serde_json::json!(gcd), "{got}");
        assert!(got["s"].is_array() && got["t"].is_array(), "{got}");
    }
}

#[test]
fn products_split_over_simulated_devices_verify() {
    for field in ["469762049", "P3"] {
        let (code, out, err) = fermat(&[
            "mul",
            "--field",
            field,
            "--random",
            "5",
            "--len-a",
            "700",
            "--len-b",
            "333",
            "--devices",
            "0,1,2,3",
            "--backend",
            "cpu",
            "--verify",
        ]);
        assert_eq!(code, 0, "{field}: {err}");
        assert!(
            err.contains("devices  4 devices simulated on the CPU"),
            "{err}"
        );
        assert!(
            err.contains("cyclic product of 2048 points over 4 devices"),
            "{err}"
        );
        assert!(
            err.contains("at 4 random points: ok") && err.contains("schoolbook product: ok"),
            "{err}"
        );
        let product: Vec<String> = serde_json::from_str(&out).unwrap();
        assert_eq!(product.len(), 1032, "{field}");
    }
    let (code, out, err) = fermat(&[
        "mul",
        "--field",
        "babybear",
        "--random",
        "1",
        "--len-a",
        "0",
        "--len-b",
        "9",
        "--devices",
        "0,1",
        "--backend",
        "cpu",
        "--verify",
    ]);
    assert_eq!((code, out.trim()), (0, "[]"), "{err}");
    assert!(err.contains("lengths  0 × 9 → 0"), "{err}");
    for (devices, want) in [
        ("0", "a split needs at least 2"),
        ("0,1,2", "G = 3 devices"),
    ] {
        let (code, _, err) = fermat(&[
            "mul",
            "--field",
            "babybear",
            "--random",
            "1",
            "--len-a",
            "5",
            "--len-b",
            "9",
            "--devices",
            devices,
            "--backend",
            "cpu",
        ]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(want), "{devices}: {err}");
    }
}
