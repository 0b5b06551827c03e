//! `fermat primes`: Table 1 computed, one field's facts, the refusals, and the search.

fn fermat(args: &[&str]) -> (i32, String, String) {
    fermat_tests::run(env!("CARGO_BIN_EXE_fermat"), args)
}

#[test]
fn table_1_is_computed() {
    let (code, out, err) = fermat(&["primes"]);
    assert_eq!(code, 0, "{err}");
    // name, r, k, K, bits, 2-adicity, prime — Table 1 of the 2017 paper.
    for (name, r, k, bits, adicity) in [
        ("P1", "2^63 + 2^53", 2, 127, 106),
        ("P2", "2^64 - 2^50", 4, 256, 200),
        ("P3", "2^63 + 2^34", 8, 505, 272),
        ("P4", "2^62 + 2^36", 16, 993, 576),
        ("P5", "2^62 + 2^56", 32, 1985, 1792),
        ("P6", "2^63 - 2^40", 64, 4032, 2560),
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name} in\n{out}"));
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert!(line.contains(r), "{line}");
        let tail = &cols[cols.len() - 5..];
        assert_eq!(
            tail,
            [
                k.to_string().as_str(),
                (2 * k).to_string().as_str(),
                bits.to_string().as_str(),
                adicity.to_string().as_str(),
                "yes"
            ],
            "{line}"
        );
    }
    assert!(
        out.contains("goldilocks") && out.contains("babybear"),
        "{out}"
    );
}

#[test]
fn one_field_or_the_error_that_refuses_it() {
    let (code, out, _) = fermat(&["primes", "--field", "srgfn:63,34,+,8"]);
    assert_eq!(code, 0);
    assert!(out.contains("field       P3"), "{out}");
    assert!(out.contains("2-adicity   272"), "{out}");
    let (code, out, _) = fermat(&["primes", "--field", "goldilocks"]);
    assert_eq!(code, 0);
    assert!(out.contains("2-adicity   32"), "{out}");
    for (spec, needle) in [
        ("srgfn:63,34,+,6", "k = 6 is not a power of two"),
        ("srgfn:64,3,+,4", "does not fit 64 bits"),
        ("4179340454199820287", "is not prime"),
        ("P9", "catalogue name"),
    ] {
        let (code, _, err) = fermat(&["primes", "--field", spec]);
        assert_eq!(code, 2, "{spec}");
        assert!(err.contains(needle), "{spec}: {err}");
    }
}

#[test]
fn the_search_finds_sparse_radices() {
    let (code, out, err) = fermat(&[
        "primes", "--digits", "2", "--search", "--budget", "20", "--limit", "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 primes:"), "{out}");
    let rows = out.lines().filter(|l| l.starts_with("srgfn:")).count();
    assert_eq!(rows, 3, "{out}");
    let (code, _, err) = fermat(&["primes", "--digits", "3", "--search"]);
    assert_eq!(code, 2);
    assert!(err.contains("k = 3"), "{err}");
}

/// `fermat primes | head -1`: the reader goes away before fermat writes, and fermat ends
/// as Unix filters do (by SIGPIPE, or with status 0), never with a panic.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_fermat"))
        .arg("primes")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take()); // the reader closes its end before the first write
    let out = child.wait_with_output().expect("fermat ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            out.status.signal() == Some(libc::SIGPIPE) || out.status.success(),
            "{:?}: {err}",
            out.status
        );
    }
}
