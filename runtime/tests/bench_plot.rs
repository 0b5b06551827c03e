//! `fermat bench --replot` draws results that an earlier `fermat bench --json` wrote
//! (`tests/data/bench-h100.json`: a GPU run of the bench as it was when the font moved
//! into the binary), with the font the binary carries: no font file is read.

use std::process::Command;

#[test]
fn replots_saved_results_without_system_fonts() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench_plot");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("bench.png");
    let _ = std::fs::remove_file(&png);
    let saved = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bench-h100.json");
    let out = Command::new(env!("CARGO_BIN_EXE_fermat"))
        .args(["bench", "--replot"])
        .arg(&saved)
        .arg("--plot")
        .arg(&png)
        // A font setting of the kind older versions read is ignored.
        .env("FERMAT_FONT", "/nonexistent/font.ttf")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG file");
    assert!(
        bytes.len() > 10_000,
        "with bars and text: {} bytes",
        bytes.len()
    );
}
