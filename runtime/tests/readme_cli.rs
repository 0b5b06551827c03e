//! The README's commands: each `cargo run --release -p fermat -- …` line runs from an empty
//! directory and exits 0. The quick ones run here, in order (later lines read what earlier
//! ones wrote); the long ones (`selftest` at its defaults, the full benches, the largest
//! products) are only parsed here (a unit test of the binary parses every line) and are
//! run as a whole by `FERMAT_README_ALL=1`.

use fermat_tests::{readme_commands, run_with, Setting};
use std::time::{Duration, Instant};

/// Subcommand lines that take more than a few seconds on two cores.
const LONG: [&str; 4] = [
    "selftest",
    "bench",
    "mul --field 469762049",
    "fft --field P3 --n 65536",
];

#[test]
fn readme_commands_run_from_an_empty_directory() {
    let all = std::env::var("FERMAT_README_ALL").is_ok_and(|v| v == "1");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let commands = readme_commands();
    assert!(commands.len() >= 5, "the main job and a tour");
    let mut ran = 0;
    for args in &commands {
        let line = args.join(" ");
        if !all && LONG.iter().any(|long| line.starts_with(long)) {
            continue;
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let setting = Setting {
            dir: Some(&dir),
            ..Setting::default()
        };
        let started = Instant::now();
        let (code, out, err) = run_with(env!("CARGO_BIN_EXE_fermat"), &args, &setting);
        let took = started.elapsed();
        eprintln!("{:>7.1} s  fermat {line}", took.as_secs_f64());
        assert_eq!(code, 0, "fermat {line}:\n{out}\n{err}");
        assert!(!out.trim().is_empty(), "fermat {line} says something");
        assert!(
            took < Duration::from_secs(600),
            "fermat {line} took {took:?}"
        );
        ran += 1;
    }
    assert!(ran >= 10, "most of the tour runs here: {ran}");
}
