//! On a machine with a GPU: a cached CUBIN that the driver refuses is evicted and compiled
//! again, and the rebuilt entry serves the next compilation. Without a driver or a device
//! the test skips, saying why (`FERMAT_REQUIRE_GPU=1` makes that a failure). This file
//! runs in a process of its own: it points the cache at a directory of its own.

use fermat::cache::Cache;
use fermat::codegen::design::{transform, TransformOptions};
use fermat::dsl::FieldSpec;

#[test]
fn refused_cache_entries_are_rebuilt() {
    let dir = std::env::temp_dir().join(format!("fermat-gpu-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("FERMAT_CACHE_DIR", &dir);
    let device = match fermat::gpu::device(0) {
        Ok(d) => d,
        Err(e) if e.is_absence() && std::env::var("FERMAT_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("skipping: {e}");
            return;
        }
        Err(e) => panic!("the GPU is there but does not work: {e}"),
    };
    let field = FieldSpec::parse("babybear").unwrap().build().unwrap();
    let source = transform(&field, 256, &TransformOptions::default())
        .unwrap()
        .source;
    let key = device.cache_key(&source).unwrap();
    let cache = Cache::at(&dir);
    // A whole entry (its hash is right) that is no CUBIN: the driver refuses it.
    cache.put(&key, b"not a cubin").unwrap();
    let (_, resources) = device.compile(&source).expect("rebuilt, not an error");
    assert!(
        !resources.is_empty(),
        "compiled afresh, with ptxas's report"
    );
    let cubin = cache.get(&key).expect("the rebuilt entry is stored");
    assert!(cubin.starts_with(b"\x7fELF"), "a CUBIN is an ELF file");
    let (_, resources) = device.compile(&source).unwrap();
    assert!(
        resources.is_empty(),
        "the second compilation is a cache hit"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
