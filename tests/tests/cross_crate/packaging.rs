//! Every published crate builds from its own folder: no library source includes a file
//! from outside its crate, and none bakes the building machine's paths into the library.
//! (`.ci/run` also runs `cargo package --workspace`, whose verification build proves the
//! same from the packaged sources.)

use std::path::{Path, PathBuf};

/// The published crates' folders.
const CRATES: [&str; 4] = ["dsl", "codegen", "codegen/macros", "runtime"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library text of a source file: everything before its unit tests.
fn library_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[test]
fn libraries_include_only_files_of_their_own_crate() {
    for krate in CRATES {
        let dir = root().join(krate);
        let mut files = Vec::new();
        sources(&dir.join("src"), &mut files);
        assert!(!files.is_empty(), "{krate}/src has sources");
        for file in files {
            let text = library_text(&file);
            for macro_name in ["include_str!(\"", "include_bytes!(\""] {
                for (at, _) in text.match_indices(macro_name) {
                    let rest = &text[at + macro_name.len()..];
                    let relative = &rest[..rest.find('"').unwrap()];
                    let target = file.parent().unwrap().join(relative);
                    let target = target.canonicalize().unwrap_or_else(|e| {
                        panic!("{}: {relative} does not exist ({e})", file.display())
                    });
                    assert!(
                        target.starts_with(dir.canonicalize().unwrap()),
                        "{} includes {relative}, outside its crate {krate}",
                        file.display()
                    );
                }
            }
            assert!(
                !text.contains("env!(\"CARGO_MANIFEST_DIR\")"),
                "{} bakes the building machine's path into the library",
                file.display()
            );
        }
    }
}
