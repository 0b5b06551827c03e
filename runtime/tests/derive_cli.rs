//! `fermat derive` as a user runs it: the binary, its output and its exit status.

use fermat::dsl::derive::{derive, Options, Strategy};
use fermat::dsl::formula::Formula;
use fermat::dsl::rules;
use std::process::Command;

/// Runs `fermat ARGS…`: (exit status, stdout, stderr).
fn fermat(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fermat"))
        .args(args)
        .output()
        .expect("the fermat binary runs");
    (
        out.status.code().expect("fermat exits normally"),
        String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    )
}

#[test]
fn a_derivation_checks_out_step_by_step() {
    let (code, out, err) = fermat(&[
        "derive",
        "DFT(256)",
        "--strategy",
        "prop3",
        "-K",
        "16",
        "--check",
        "--field",
        "P3",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("strategy prop3, K = 16\nstart  DFT_256\n"),
        "{out}"
    );
    assert!(
        out.contains(" 1. prop3 at root\n      DFT_256\n    → "),
        "{out}"
    );
    assert!(
        out.contains("check over P3 (seed 5)\n 1. prop3 at root: 256 points: agree\n"),
        "{out}"
    );
    assert!(
        out.contains("end to end: 256 points: agree\nthe derivation checks out\n"),
        "{out}"
    );
    assert!(!out.contains("DISAGREE"), "{out}");
    let steps = derive(&Formula::Dft(256), Strategy::Prop3, &Options::radix(16))
        .unwrap()
        .steps
        .len();
    assert_eq!(
        out.matches(": 256 points: agree").count() + out.matches(": 16 points: agree").count(),
        steps + 1,
        "{out}"
    );
}

#[test]
fn checks_in_ascii_over_a_word_prime_with_the_base_case_expanded() {
    let (code, out, err) = fermat(&[
        "derive",
        "DFT(64)",
        "-s",
        "ct",
        "-K",
        "8",
        "--expand-base",
        "--check",
        "--field",
        "469762049",
        "--ascii",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_ascii(), "{out}");
    assert!(out.contains("base_case_dft2k at"), "{out}");
    assert!(
        out.contains("-> L(8,2) * I(4) (x) DFT(2) * L(8,4) * D(2,4)"),
        "{out}"
    );
    assert!(out.contains("the derivation checks out"), "{out}");
}

#[test]
fn rules_lists_the_registry_with_identities() {
    let (code, out, err) = fermat(&["derive", "--rules"]);
    assert_eq!(code, 0, "{err}");
    for r in rules::registry() {
        let head = format!(
            "{} ({}, {})\n    {}\n",
            r.name,
            r.kind.name(),
            r.source,
            r.identity
        );
        assert!(out.contains(&head), "missing {head}in\n{out}");
        assert!(
            out.contains(&format!("applies to: {}", r.condition)),
            "{}",
            r.name
        );
    }
    assert!(out.contains("DFT(J·K) = (DFT(J) ⊗ I(K)) · D(J,K) · (I(J) ⊗ DFT(K)) · L(J·K, J)"));
    let (code, ascii, _) = fermat(&["derive", "--rules", "--ascii"]);
    assert_eq!(code, 0);
    assert!(ascii.is_ascii(), "{ascii}");
    assert!(ascii.contains("DFT(J*K) = (DFT(J) (x) I(K)) * D(J,K) * (I(J) (x) DFT(K)) * L(J*K, J)"));
}

#[test]
fn final_only_prints_just_the_result() {
    let (code, out, err) = fermat(&["derive", "DFT(256)", "-K", "16", "--final-only", "--ascii"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "DFT(16) (x) I(16) * D(16,16) * I(16) (x) DFT(16) * L(256,16)\n"
    );
    let (code, unicode, _) = fermat(&["derive", "DFT_4096", "-s", "stockham", "--final-only"]);
    assert_eq!(code, 0);
    let want = derive(&Formula::Dft(4096), Strategy::Stockham, &Options::default())
        .unwrap()
        .final_formula();
    assert_eq!(Formula::parse(unicode.trim_end()).unwrap(), want);
}

/// Malformed input: exit status 2 and a message that says what is wrong (and where).
#[test]
fn malformed_input_exits_2_with_a_message() {
    let (code, out, err) = fermat(&["derive", "DFT(40"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with("error: cannot read the formula: expected ')' at column 7"),
        "{err}"
    );
    assert!(
        err.contains("\n  DFT(40\n        ^"),
        "the caret points at column 7:\n{err}"
    );
    assert!(out.is_empty());

    let cases: [(&[&str], &str); 7] = [
        (
            &["derive", "DFT(2048)", "-s", "prop3", "-K", "16"],
            "2048 is not a power of K = 16; the nearest are 256 and 4096",
        ),
        (
            &["derive", "DFT(64)", "-s", "ct", "-K", "12"],
            "K = 12 must be a power of two",
        ),
        (
            &["derive", "DFT(48)", "-s", "ct"],
            "DFT(48): N must be a power of two",
        ),
        (
            &["derive", "I(8) ⊗ DFT(2)", "-s", "ct"],
            "the strategies derive DFT(N); got I_8 ⊗ DFT_2",
        ),
        (
            &["derive", "DFT(64)", "-s", "ct", "--prop2"],
            "prop2 option applies to the prop3 strategy only",
        ),
        (
            &["derive", "DFT(64)", "--check", "--field", "P9"],
            "cannot read field 'P9'",
        ),
        (
            &[
                "derive", "DFT(64)", "-s", "stockham", "--check", "--field", "7",
            ],
            "step 1 (stockham at root) cannot be evaluated",
        ),
    ];
    for (args, needle) in cases {
        let (code, _, err) = fermat(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
    }

    for args in [
        &["derive", "DFT(64)", "--strategy", "fft"][..],
        &["derive"][..],
        &["derive", "DFT(64)", "-K", "sixteen"][..],
    ] {
        let (code, _, err) = fermat(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    let (_, _, err) = fermat(&["derive", "DFT(64)", "--strategy", "fft"]);
    assert!(
        err.contains("the strategies are ct, radix2, stockham, prop3"),
        "{err}"
    );
}

#[test]
fn a_split_over_devices_shows_its_stages_and_checks_out() {
    let (code, out, err) = fermat(&[
        "derive",
        "DFT(4096)",
        "--devices",
        "4",
        "--check",
        "--field",
        "P3",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("strategy ct, K = 16, split over 4 devices (cyclic in, transposed out)"),
        "{out}"
    );
    assert!(out.contains("device_commute at [0]"), "{out}");
    assert!(
        out.contains("on 4 devices of N/G = 1024 points, 1 exchange(s)"),
        "{out}"
    );
    assert!(out.contains("3. all-to-all"), "{out}");
    assert!(
        out.contains("output transposed: the last exchange is left out"),
        "{out}"
    );
    assert!(out.ends_with("the derivation checks out\n"), "{out}");
    let (code, out, err) = fermat(&[
        "derive",
        "DFT(65536)",
        "--devices",
        "2",
        "--input",
        "blocks",
        "--output",
        "blocks",
        "--check",
        "--field",
        "babybear",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("device_stride at [3]") && out.contains("3 exchange(s)"),
        "{out}"
    );
    assert!(out.ends_with("the derivation checks out\n"), "{out}");
}

#[test]
fn bad_splits_over_devices_are_named() {
    for (args, want) in [
        (vec!["--devices", "3"], "G = 3 devices"),
        (vec!["--devices", "128"], "N ≥ G² = 16384"),
        (
            vec!["--devices", "2", "--input", "transposed"],
            "input of a split cannot be transposed",
        ),
        (
            vec!["--devices", "2", "--output", "rows"],
            "unknown distribution 'rows'",
        ),
        (vec!["--input", "blocks"], "--devices"),
    ] {
        let mut all = vec!["derive", "DFT(4096)"];
        all.extend(&args);
        let (code, out, err) = fermat(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_split_selftest_runs_on_simulated_devices() {
    let (code, out, err) = fermat(&[
        "selftest",
        "--cpu",
        "--devices",
        "0,1,2,3",
        "--max-log-n",
        "8",
        "--field",
        "P2",
        "--field",
        "babybear",
        "--seed",
        "4",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("split over 4 devices (simulated on the CPU)"),
        "{out}"
    );
    assert!(
        out.contains("babybear     2^4   ok: 5 distributions (1/2/2/3/1 exchanges)"),
        "{out}"
    );
    assert!(out.ends_with("4 passed, 0 failed\n"), "{out}");
    let (code, _, err) = fermat(&["selftest", "--cpu", "--devices", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a split needs at least 2"), "{err}");
}
