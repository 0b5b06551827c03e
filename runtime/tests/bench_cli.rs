//! `fermat bench` without a GPU: CPU rows take their floor from the CPU's copy bandwidth
//! measured in the same run, the plot draws them, and `--field` takes every spelling of a
//! field and refuses names that select nothing.

use std::path::PathBuf;

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench_cli");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cpu_rows_have_a_floor_a_ratio_and_a_plot() {
    let (json, png) = (dir().join("bench.json"), dir().join("bench.png"));
    let _ = std::fs::remove_file(&png);
    let (code, out, err) = fermat(&[
        "bench",
        "--cpu",
        "--quick",
        "--runs",
        "12",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("CPU: copy bandwidth"), "{out}");
    assert!(
        out.contains("(--runs 12 is capped on the CPU)"),
        "the cap is said: {out}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["results"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["backend"].as_str().unwrap().starts_with("cpu"), "{r}");
        assert!(r["floor_ms"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["ratio"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["floor_gbps"].as_f64().unwrap() > 0.0, "{r}");
    }
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn fields_are_named_as_everywhere() {
    // The decimal spelling of babybear selects its rows, printed by its name.
    let (code, out, err) = fermat(&[
        "bench",
        "--cpu",
        "--quick",
        "--runs",
        "2",
        "--field",
        "2013265921",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nbabybear "), "{out}");
    assert!(!out.contains("\nP3 "), "{out}");
    // An unknown name, and a field the bench has no workload for, are errors.
    let (code, _, err) = fermat(&["bench", "--cpu", "--quick", "--field", "P9"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read field 'P9'"), "{err}");
    let (code, _, err) = fermat(&["bench", "--cpu", "--quick", "--field", "P5"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nothing to run over P5; choose among babybear, P3"),
        "{err}"
    );
}

#[test]
fn selftest_and_primes_print_fields_as_bench_does() {
    // The catalogue's name and the decimal select the same rows, printed the same way.
    let mut tables = Vec::new();
    for spelling in ["p469762049", "469762049"] {
        let (code, out, err) = fermat(&[
            "selftest",
            "--cpu",
            "--field",
            spelling,
            "--max-log-n",
            "5",
            "--seed",
            "1",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("PASS  469762049 "), "{out}");
        tables.push(out.lines().filter(|l| l.starts_with("PASS")).count());
    }
    assert_eq!(tables[0], tables[1]);
    let (code, out, _) = fermat(&["primes"]);
    assert_eq!(code, 0);
    assert!(out.contains("\n4179340454199820289 "), "{out}");
    assert!(!out.contains("p4179340454199820289"), "{out}");
    let (code, _, err) = fermat(&["selftest", "--cpu", "--field", "P9"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read field 'P9'"), "{err}");
}

#[test]
fn the_crt_comparison_times_both_routes_beside_the_paper() {
    let (json, png) = (dir().join("compare.json"), dir().join("compare.png"));
    let _ = std::fs::remove_file(&png);
    let (code, out, err) = fermat(&[
        "bench",
        "--compare",
        "crt",
        "--cpu",
        "--quick",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["compare"].as_array().unwrap();
    // P3 at e = 2, 3, 4 and P4 at e = 2, 3, each by three routes.
    assert_eq!(rows.len(), 15, "{out}");
    for route in ["srgfn", "crt", "crt+rec"] {
        assert_eq!(rows.iter().filter(|r| r["route"] == route).count(), 5);
    }
    let p3_e4_crt = rows
        .iter()
        .find(|r| r["field"] == "P3" && r["e"] == 4 && r["route"] == "crt")
        .unwrap();
    assert_eq!(p3_e4_crt["n"], 65536);
    assert_eq!(p3_e4_crt["primes"], 9);
    assert_eq!(p3_e4_crt["paper_ms"], 15.93);
    assert!(p3_e4_crt["median_ms"].as_f64().unwrap() > 0.0);
    assert!(p3_e4_crt["floor_ms"].as_f64().unwrap() > 0.0);
    assert!(
        out.contains("P3: the CRT route beats the SRGFN FFT"),
        "{out}"
    );
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    // --replot draws the comparison from the JSON alone.
    let again = dir().join("compare-again.png");
    let (code, out, err) = fermat(&[
        "bench",
        "--replot",
        json.to_str().unwrap(),
        "--plot",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(again.exists());
    // Comparisons are their own report.
    let (code, _, err) = fermat(&["bench", "--compare", "crt", "--poly"]);
    assert_ne!(code, 0);
    assert!(err.contains("--poly"), "{err}");
    let (code, _, err) = fermat(&["bench", "--compare", "fft"]);
    assert_ne!(code, 0);
    assert!(err.contains("crt"), "{err}");
}

#[test]
fn poly_rows_can_be_chosen_by_group() {
    // The --poly rows of a quick CPU run limited to `groups`.
    let rows_of = |groups: &str| -> Vec<serde_json::Value> {
        let json = dir().join(format!("only_{groups}.json"));
        let (code, out, err) = fermat(&[
            "bench",
            "--poly",
            "--cpu",
            "--quick",
            "--runs",
            "1",
            "--only",
            groups,
            "--json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        report["poly"].as_array().cloned().unwrap_or_default()
    };
    let rows = rows_of("mul,div");
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["operation"] == "mul"), "{rows:?}");
    // No products asked for: none measured.
    assert_eq!(rows_of("gcd"), Vec::<serde_json::Value>::new());
    // A group that does not exist, and groups without --poly, are refused.
    let (code, _, err) = fermat(&["bench", "--poly", "--only", "fft"]);
    assert_ne!(code, 0);
    assert!(err.contains("fft") && err.contains("mul"), "{err}");
    let (code, _, err) = fermat(&["bench", "--only", "div"]);
    assert_ne!(code, 0);
    assert!(err.contains("--poly"), "{err}");
}
