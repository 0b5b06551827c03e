//! Sets `cfg(fermat_avx512)` when the compiler has stable AVX-512 intrinsics and target
//! features (Rust 1.89), which the SRGFN multiplication's IFMA path
//! (src/field/srgfn/mul/ifma.rs) needs; older compilers within the crate's
//! `rust-version` build the portable path only.

use std::process::Command;

/// The first Rust release with stable AVX-512 intrinsics.
const AVX512_MINOR: u32 = 89;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fermat_avx512)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| rust_minor(&text));
    if minor.is_some_and(|m| m >= AVX512_MINOR) {
        println!("cargo::rustc-cfg=fermat_avx512");
    }
}

/// The minor version of a `rustc --version` line ("rustc 1.95.0 (…)" gives 95), for 1.x.
fn rust_minor(version: &str) -> Option<u32> {
    let number = version.split_whitespace().nth(1)?;
    let mut parts = number.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
