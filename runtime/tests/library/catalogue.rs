//! `generated/` is exactly what `fermat gen --catalogue` writes, and every kernel in it
//! compiles with NVRTC for sm_90.

use fermat::catalogue;
use fermat::codegen::nvrtc;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

fn generated_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../generated")
}

#[test]
fn generated_is_up_to_date() {
    let dir = generated_dir();
    let mut expected = BTreeSet::new();
    for entry in catalogue::entries() {
        let output = catalogue::generate_entry(&entry).unwrap();
        let stem = entry.stem();
        let manifest = serde_json::to_string_pretty(&output.manifest).unwrap() + "\n";
        for (name, want) in [
            (format!("{stem}.cu"), output.source),
            (format!("{stem}.json"), manifest),
        ] {
            let path = dir.join(&name);
            let have = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{} is missing ({e}): run `cargo run --release -p fermat -- gen --catalogue -o generated`",
                    path.display()
                )
            });
            if have != want {
                let line = have
                    .lines()
                    .zip(want.lines())
                    .position(|(a, b)| a != b)
                    .map_or_else(|| "the end".to_string(), |l| format!("line {}", l + 1));
                panic!(
                    "generated/{name} differs from what fermat gen writes (first at {line}): run `cargo run --release -p fermat -- gen --catalogue -o generated`"
                );
            }
            expected.insert(name);
        }
    }
    let present: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cu") || n.ends_with(".json"))
        .collect();
    let stale: Vec<_> = present.difference(&expected).collect();
    assert!(
        stale.is_empty(),
        "generated/ holds files fermat gen no longer writes: {stale:?}"
    );
}

#[test]
fn every_generated_kernel_compiles_with_nvrtc_for_sm_90() {
    let compiler = match nvrtc::global() {
        Ok(c) => c,
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("NVRTC is required on CI (run .ci/nvrtc.sh): {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            return;
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(generated_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    assert!(files.len() > 100, "the catalogue has {} files", files.len());
    let queue = Mutex::new(files);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(path) = queue.lock().unwrap().pop() else {
                    return;
                };
                let source = std::fs::read_to_string(&path).unwrap();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if let Err(e) = compiler.compile(&source, &name, nvrtc::SM90_PTX) {
                    failures.lock().unwrap().push(format!("{name}: {e}"));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "NVRTC rejected:\n{}",
        failures.join("\n")
    );
}
