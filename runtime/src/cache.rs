//! The on-disk cache of compiled kernels: CUBINs keyed by a hash of the source and the
//! compiler options (which name the architecture), in `$FERMAT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/fermat`, else `~/.cache/fermat`.
//!
//! The cache is an optimisation only: any failure to read or write it falls back to
//! compiling, and a corrupt entry is overwritten by the next compilation.

use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The cache directory, if one can be named.
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FERMAT_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("fermat"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("fermat"))
}

/// A hex key for the parts, in order.
pub fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The cached bytes for `key`.
pub fn get(key: &str) -> Option<Vec<u8>> {
    std::fs::read(dir()?.join(format!("{key}.cubin"))).ok()
}

/// Stores `bytes` under `key` (atomically: written aside, then renamed).
pub fn put(key: &str, bytes: &[u8]) {
    let Some(dir) = dir() else { return };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(format!("{key}.cubin")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_eq!(key(&["x"]).len(), 64);
    }
}
