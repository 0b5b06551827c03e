//! Every subcommand that writes checks where it writes before it starts: a path in a
//! missing directory is an error at once (exit status 2), and no work is done.

use std::time::{Duration, Instant};

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

const BAD: &str = "/nonexistent/dir/x.json";

#[test]
fn unwritable_outputs_are_refused_before_the_work() {
    let commands: [&[&str]; 8] = [
        &[
            "fft", "--field", "P3", "--n", "65536", "--random", "1", "--verify", "--output", BAD,
        ],
        &[
            "mul", "--field", "P3", "--random", "1", "--len-a", "30000", "--len-b", "30000",
            "--output", BAD,
        ],
        &[
            "div", "--field", "P3", "--random", "1", "--len-a", "30000", "--len-b", "300",
            "--output", BAD,
        ],
        &[
            "gcd", "--field", "P3", "--random", "1", "--len-a", "3000", "--len-b", "3000",
            "--output", BAD,
        ],
        &[
            "gen",
            "--field",
            "P3",
            "--n",
            "4096",
            "-o",
            "/proc/nonexistent/out",
        ],
        &["bench", "--json", BAD],
        &["bench", "--cpu", "--plot", "/nonexistent/dir/x.png"],
        &[
            "bench",
            "--replot",
            "x.json",
            "--plot",
            "/nonexistent/dir/x.png",
        ],
    ];
    for args in commands {
        let started = Instant::now();
        let (code, out, err) = fermat(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("cannot write /nonexistent/dir/x")
                || err.contains("cannot create /proc/nonexistent/out"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("does not exist") || err.contains("cannot create"),
            "{err}"
        );
        assert!(!out.contains("time "), "nothing was computed: {out}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} worked first"
        );
    }
}

#[test]
fn a_directory_is_not_an_output_file() {
    let dir = std::env::temp_dir();
    let (code, _, err) = fermat(&[
        "fft",
        "--field",
        "babybear",
        "--n",
        "16",
        "--random",
        "1",
        "--output",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("it is a directory"), "{err}");
}
