//! The subcommands agree with each other and with their help: one default strategy,
//! sizes from 1, a radix that is not the one asked for is said, the CPU's time line, a
//! short line when NVRTC is absent, and negative roots.

use fermat_tests::{run_with, Setting};

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

#[test]
fn derive_fft_and_gen_share_the_default_strategy() {
    let (code, out, _) = fermat(&["derive", "DFT(256)", "-K", "16"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("strategy ct, K = 16\n"), "{out}");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("consistency_cli");
    let (code, _, err) = fermat(&[
        "gen",
        "--field",
        "P3",
        "--n",
        "256",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let manifest = std::fs::read_to_string(dir.join("P3_n256.json")).unwrap();
    assert!(manifest.contains(r#""strategy": "ct""#), "{manifest}");
    let (code, out, _) = fermat(&[
        "fft",
        "--field",
        "P3",
        "--n",
        "256",
        "--random",
        "1",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("(forward ct, radix 16)"), "{out}");
}

#[test]
fn sizes_start_at_one_as_the_help_says() {
    let (code, out, err) = fermat(&[
        "fft",
        "--field",
        "babybear",
        "--n",
        "1",
        "--random",
        "1",
        "--verify",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = fermat(&["fft", "--field", "babybear", "--n", "3", "--random", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("transform sizes are 1, 2, 4, 8, …"), "{err}");
    let (_, help, _) = fermat(&["fft", "--help"]);
    assert!(help.contains("a power of two (1, 2, 4, …)"), "{help}");
}

#[test]
fn a_radix_the_plan_does_not_use_is_said() {
    let (code, out, err) = fermat(&["gen", "--field", "P6", "-K", "128", "-e", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note     radix 128 asked for; the plan uses radix 8"),
        "{out}"
    );
    let (code, out, _) = fermat(&["gen", "--field", "P3", "-K", "16", "-e", "2"]);
    assert_eq!(code, 0);
    assert!(!out.contains("note "), "{out}");
}

#[test]
fn the_cpu_time_line_has_no_compilation() {
    let (code, out, _) = fermat(&[
        "fft",
        "--field",
        "P3",
        "--n",
        "256",
        "--random",
        "1",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0);
    let time = out.lines().find(|l| l.starts_with("time ")).unwrap();
    assert!(!time.contains("compilation"), "{time}");
}

#[test]
fn gen_cost_without_nvrtc_says_so_in_one_short_line() {
    let empty = std::env::temp_dir().join(format!("fermat-no-nvrtc-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let many = (0..20)
        .map(|i| format!("/nonexistent/lib{i}"))
        .collect::<Vec<_>>()
        .join(":");
    let setting = Setting {
        dir: Some(&empty),
        env: vec![
            ("LD_LIBRARY_PATH", &many),
            ("CUDA_HOME", "/nonexistent/cuda"),
        ],
        env_remove: vec!["FERMAT_NVRTC_LIB"],
        ..Setting::default()
    };
    let (code, out, err) = run_with(
        env!("CARGO_BIN_EXE_fermat"),
        &["gen", "--field", "P3", "-K", "16", "-e", "2", "--cost"],
        &setting,
    );
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.starts_with("registers")).unwrap();
    if std::path::Path::new("/usr/local/cuda/lib64").exists() {
        eprintln!("skipped the absent-NVRTC check: /usr/local/cuda/lib64 has one");
        return;
    }
    assert_eq!(
        line,
        "registers: not available (NVRTC not found: run .ci/nvrtc.sh or set FERMAT_NVRTC_LIB)"
    );
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn roots_may_be_negative() {
    let (code, out, err) = fermat(&[
        "fft",
        "--field",
        "babybear",
        "--n",
        "2",
        "--root",
        "-1",
        "--random",
        "1",
        "--verify",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("verify   round trip: ok"), "{out}");
    let (code, _, err) = fermat(&[
        "fft", "--field", "babybear", "--n", "4", "--root", "-1", "--random", "1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is not a primitive 4-th root of unity"),
        "{err}"
    );
}
