//! Running generated kernels on the host: the C++ compiler, and the build of a harness
//! that includes them (shared by the kernel and product host tests).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C++ compiler (`$CXX`, else `c++`), or None with the reason printed when there is
/// none outside CI; on CI its absence is a failure.
pub fn compiler() -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if Command::new(&cxx).arg("--version").output().is_ok() {
        Some(cxx)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("no C++ compiler ({cxx}) on a CI machine: the kernel check cannot be skipped")
    } else {
        eprintln!("skipping: no C++ compiler ({cxx}) found to run the emitted kernels on the host");
        None
    }
}

/// Writes `harness` into `dir` with its `KERNEL_LIST` replaced by `kernels`, compiles it
/// with `cxx`, and returns the executable; `what` names the kernels in the failure.
pub fn build_harness(
    cxx: &str,
    dir: &Path,
    harness: &str,
    kernels: &[String],
    what: &str,
) -> PathBuf {
    let source = dir.join("harness.cpp");
    std::fs::write(&source, harness.replace("KERNEL_LIST", &kernels.join(", "))).unwrap();
    let exe = dir.join("harness");
    let out = Command::new(cxx)
        .args(["-std=c++17", "-O1", "-w", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{what} do not compile as C++:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}
