//! `fermat fft --input` and `--output`: JSON lists of decimal strings or integers, the
//! reference-vector files, raw little-endian binary and standard input and output; and
//! each malformed input refused with the file, the index and the value.

use fermat_tests::{run_with, Setting};
use std::path::PathBuf;

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fft_io_cli");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A file in the test folder holding `bytes`.
fn file(name: &str, bytes: &[u8]) -> String {
    let path = dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

fn vectors(name: &str) -> String {
    fermat_tests::data_dir()
        .join(format!("{name}.json"))
        .to_str()
        .unwrap()
        .to_string()
}

/// Runs `fft --field FIELD --input PATH --backend cpu` plus `extra`.
fn fft(field: &str, path: &str, extra: &[&str]) -> (i32, String, String) {
    let args = [
        &["fft", "--field", field, "--input", path, "--backend", "cpu"][..],
        extra,
    ]
    .concat();
    fermat(&args)
}

#[test]
fn reads_a_reference_vector_file_and_compares_its_output() {
    for (name, field, n) in [("P3", "P3", "256"), ("p469762049", "469762049", "1024")] {
        let (code, out, err) = fft(field, &vectors(name), &["--n", n, "--verify"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains("verify   reference output of"), "{out}");
        assert!(out.contains(".json: ok"), "{out}");
    }
    // Without --n a file of several DFTs asks which.
    let (code, _, err) = fft("P3", &vectors("P3"), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("holds DFTs of [16, 256, 4096] points; choose one with --n"),
        "{err}"
    );
    let (code, _, err) = fft("P3", &vectors("P3"), &["--n", "64"]);
    assert_eq!(code, 2);
    assert!(err.contains("none of n = 64"), "{err}");
    // A file over another field.
    let (code, _, err) = fft("P2", &vectors("P3"), &["--n", "16"]);
    assert_eq!(code, 2);
    assert!(err.contains("not over P2"), "{err}");
}

#[test]
fn reads_decimal_strings_and_json_integers_alike() {
    let strings = file("strings.json", br#"["1", "2", "3", "4"]"#);
    let ints = file("ints.json", b"[1, 2, 3, 4]\n");
    let mixed = file("mixed.json", br#"[ 1, "2", 3 , "4" ]"#);
    let mut outputs = Vec::new();
    for (i, input) in [strings, ints, mixed].iter().enumerate() {
        let out = dir().join(format!("y{i}.json"));
        let out = out.to_str().unwrap();
        let (code, stdout, err) = fft("babybear", input, &["--output", out, "--verify"]);
        assert_eq!(code, 0, "{stdout}{err}");
        assert!(
            stdout.contains("size     n = 4 "),
            "n from the file: {stdout}"
        );
        outputs.push(std::fs::read_to_string(out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
    let ys: Vec<String> = serde_json::from_str(&outputs[0]).unwrap();
    assert_eq!(ys[0], "10", "the first output is the sum");
}

#[test]
fn big_json_integers_keep_their_digits() {
    // p − 1 of P3 as a JSON number, far beyond 2^64.
    let p3 = fermat_tests::load("P3");
    let p = fermat_tests::big(&p3.p);
    let top = (&p - 1u32).to_string();
    let text = format!("[{top}, 0]");
    let input = file("big.json", text.as_bytes());
    let (code, out, err) = fft("P3", &input, &["--output", "-"]);
    assert_eq!(code, 0, "{out}{err}");
    let ys: Vec<String> = serde_json::from_str(&out).unwrap();
    assert_eq!(ys, vec![top.clone(), top], "DFT(2) of (p − 1, 0)");
    assert!(
        err.contains("field    P3"),
        "the report goes to standard error: {err}"
    );
}

#[test]
fn malformed_inputs_name_the_file_the_index_and_the_value() {
    let cases: [(&str, &[u8], &str); 8] = [
        ("bad.json", b"[\"1\", \"2\",", "bad.json: malformed JSON"),
        (
            "range.json",
            b"[\"1\", \"2013265921\"]",
            "range.json, value 1: 2013265921 is not below p = 2013265921",
        ),
        (
            "neg.json",
            b"[1, -5, 3, 4]",
            "neg.json, value 1: -5 is negative",
        ),
        (
            "word.json",
            b"[\"1\", \"two\"]",
            "word.json, value 1: \"two\" is not a non-negative decimal integer",
        ),
        (
            "float.json",
            b"[1, 2.5]",
            "float.json, value 1: \"2.5\" is not a non-negative decimal integer",
        ),
        ("empty.json", b"", "empty.json is empty"),
        ("blank.json", b"  \n", "blank.json is empty"),
        (
            "object.json",
            b"{\"a\": 1}",
            "object.json: not a vector file",
        ),
    ];
    for (name, bytes, needle) in cases {
        let (code, out, err) = fft("babybear", &file(name, bytes), &[]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = fft(
        "babybear",
        &file("three.json", b"[1, 2, 3, 4]"),
        &["--n", "8"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("three.json holds 4 values; the transform has n = 8"),
        "{err}"
    );
    let (code, _, err) = fft("babybear", &file("odd.json", b"[1, 2, 3]"), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("n = 3 is not a power of two"), "{err}");
    let missing = dir().join("missing.json");
    let (code, _, err) = fft("babybear", missing.to_str().unwrap(), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read") && err.contains("missing.json"),
        "{err}"
    );
}

#[test]
fn binary_files_hold_words_element_after_element() {
    // babybear: one u32 per element.
    let words: Vec<u8> = [1u32, 2, 3, 4]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let input = file("x.bin", &words);
    let out = dir().join("y.bin");
    let (code, stdout, err) = fft("babybear", &input, &["--output", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{err}");
    let y = std::fs::read(&out).unwrap();
    assert_eq!(y.len(), 16);
    assert_eq!(&y[..4], &10u32.to_le_bytes(), "the first output is the sum");
    // The inverse of the output gives the input back, binary in and out.
    let back = dir().join("back.bin");
    let (code, _, err) = fft(
        "babybear",
        out.to_str().unwrap(),
        &["--inverse", "--output", back.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&back).unwrap(), words);

    // goldilocks: one u64 per element; a value ≥ p names the element.
    let p = 0xFFFF_FFFF_0000_0001u64;
    let words: Vec<u8> = [1u64, p].iter().flat_map(|w| w.to_le_bytes()).collect();
    let (code, _, err) = fft("goldilocks", &file("big.bin", &words), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("big.bin, element 1: value 18446744069414584321"),
        "{err}"
    );
    // Not a whole number of elements.
    let (code, _, err) = fft("goldilocks", &file("ragged.bin", &[0u8; 12]), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ragged.bin has 12 bytes: not a whole number of 8-byte elements"),
        "{err}"
    );
    let (code, _, err) = fft("goldilocks", &file("empty.bin", &[]), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("empty.bin is empty"), "{err}");
}

#[test]
fn binary_srgfn_elements_are_k_digits() {
    // P3's reference DFT of 16 points, digits written as the binary format has them.
    let (code, out, err) = fft(
        "P3",
        &vectors("P3"),
        &[
            "--n",
            "16",
            "--output",
            dir().join("p3.bin").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let bytes = std::fs::read(dir().join("p3.bin")).unwrap();
    assert_eq!(bytes.len(), 16 * 8 * 8, "16 elements of 8 u64 digits");
    // Back through the inverse, to JSON: the reference input.
    let back = dir().join("p3_back.json");
    let (code, _, err) = fft(
        "P3",
        dir().join("p3.bin").to_str().unwrap(),
        &["--inverse", "--output", back.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let got: Vec<String> = serde_json::from_str(&std::fs::read_to_string(back).unwrap()).unwrap();
    let want = &fermat_tests::load("P3").ffts[0];
    assert_eq!(want.n, 16);
    assert_eq!(got, want.input);
    // A digit beyond r is refused, naming the element.
    let mut bad = bytes.clone();
    bad[8 * 8 * 3..8 * 8 * 3 + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let (code, _, err) = fft("P3", &file("p3_bad.bin", &bad), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("p3_bad.bin, element 3: invalid digit vector"),
        "{err}"
    );
}

#[test]
fn standard_input_and_output() {
    let fermat = env!("CARGO_BIN_EXE_fermat");
    let args = [
        "fft",
        "--field",
        "babybear",
        "--input",
        "-",
        "--output",
        "-",
        "--backend",
        "cpu",
    ];
    let setting = Setting {
        stdin: Some(b"[1, 2, 3, 4]"),
        ..Setting::default()
    };
    let (code, out, err) = run_with(fermat, &args, &setting);
    assert_eq!(code, 0, "{err}");
    let ys: Vec<String> = serde_json::from_str(&out).unwrap();
    assert_eq!(ys.len(), 4);
    assert_eq!(ys[0], "10");
    assert!(
        err.contains("backend  CPU"),
        "the report on standard error: {err}"
    );
    // Binary both ways with --format.
    let words: Vec<u8> = [1u32, 2, 3, 4]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let setting = Setting {
        stdin: Some(&words),
        ..Setting::default()
    };
    let out = std::process::Command::new(fermat)
        .args(args)
        .args(["--format", "bin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(setting.stdin.unwrap())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), 16);
    assert_eq!(&out.stdout[..4], &10u32.to_le_bytes());
    // An empty standard input.
    let (code, _, err) = run_with(fermat, &args, &Setting::default());
    assert_eq!(code, 2);
    assert!(err.contains("standard input is empty"), "{err}");
}
