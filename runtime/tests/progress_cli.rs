//! Steps that can take more than a second show progress on standard error when it is a
//! terminal (`FERMAT_PROGRESS=always` draws as if it were), and nothing when it is not.

use fermat_tests::{run_with, Setting};

fn fermat(args: &[&str], progress: Option<&str>) -> (i32, String, String) {
    let setting = Setting {
        env: progress
            .map(|p| ("FERMAT_PROGRESS", p))
            .into_iter()
            .collect(),
        env_remove: if progress.is_none() {
            vec!["FERMAT_PROGRESS"]
        } else {
            vec![]
        },
        ..Setting::default()
    };
    run_with(env!("CARGO_BIN_EXE_fermat"), args, &setting)
}

const FFT: [&str; 9] = [
    "fft",
    "--field",
    "P3",
    "--n",
    "4096",
    "--random",
    "1",
    "--verify",
    "--backend",
];

#[test]
fn verification_and_selftest_show_progress_on_a_terminal() {
    let fft = [&FFT[..], &["cpu"]].concat();
    let (code, out, err) = fermat(&fft, Some("always"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("verify"), "a verification bar: {err:?}");
    assert!(err.contains("outputs against the defining sum"), "{err:?}");
    let selftest = [
        "selftest",
        "--cpu",
        "--field",
        "babybear",
        "--max-log-n",
        "5",
        "--seed",
        "1",
    ];
    let (code, out, err) = fermat(&selftest, Some("always"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("selftest"), "a selftest bar: {err:?}");
    assert!(err.contains("babybear n = 16 on cpu"), "{err:?}");
    assert!(err.contains("products over babybear"), "{err:?}");
}

#[test]
fn no_progress_when_the_output_is_not_a_terminal() {
    let fft = [&FFT[..], &["cpu"]].concat();
    let (code, out, err) = fermat(&fft, None);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err, "", "nothing but the report");
    assert!(out.contains("verify   round trip: ok"), "{out}");
}
