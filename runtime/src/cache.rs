//! The on-disk cache of compiled kernels: CUBINs in `$FERMAT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/fermat`, else `~/.cache/fermat`, keyed by a hash of everything the
//! binary depends on (the source, the compiler options, which name the architecture, and
//! NVRTC's version).
//!
//! The cache is an optimisation only: a failure to read or write it falls back to
//! compiling. Every entry carries the SHA-256 of its contents, so a truncated or corrupt
//! entry is a miss, and removed; an entry the driver still refuses is evicted by the
//! caller ([`Cache::evict`]) and rebuilt. Entries are written to a temporary file of their
//! own (removed if anything fails) and renamed into place, so processes and threads that
//! fill the same entry at once each leave a whole entry and never read a partial one.
//!
//! ```
//! use fermat::cache::{key, Cache};
//!
//! let dir = std::env::temp_dir().join(format!("fermat-cache-doc-{}", std::process::id()));
//! let cache = Cache::at(&dir);
//! let k = key(&["extern \"C\" __global__ void f() {}", "--gpu-architecture=sm_90"]);
//! assert_eq!(cache.get(&k), None);
//! cache.put(&k, b"cubin bytes")?;
//! assert_eq!(cache.get(&k).as_deref(), Some(&b"cubin bytes"[..]));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The first bytes of every entry: the format's name and version.
const MAGIC: &[u8; 8] = b"FERMATC1";
/// The bytes before an entry's contents: the magic and the contents' SHA-256.
const HEADER: usize = MAGIC.len() + 32;

/// A directory of cached kernels.
///
/// ```
/// use fermat::cache::Cache;
///
/// let cache = Cache::at("/tmp/kernels");
/// assert_eq!(cache.dir(), std::path::Path::new("/tmp/kernels"));
/// assert_eq!(cache.get("no such key"), None); // a miss, never an error
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

/// A hex key for the parts, in order (each part's length is hashed too, so that parts
/// never run into one another).
///
/// ```
/// use fermat::cache::key;
///
/// let k = key(&["source", "--gpu-architecture=sm_90"]);
/// assert_eq!(k.len(), 64); // a SHA-256, in hex
/// assert_ne!(k, key(&["sourc", "e--gpu-architecture=sm_90"])); // the parts stay apart
/// ```
pub fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    /// The cache of this user (see the module's documentation), if a directory can be
    /// named.
    ///
    /// ```
    /// use fermat::cache::Cache;
    ///
    /// std::env::set_var("FERMAT_CACHE_DIR", "/tmp/fermat-kernels");
    /// let cache = Cache::from_env().expect("FERMAT_CACHE_DIR names it");
    /// assert_eq!(cache.dir(), std::path::Path::new("/tmp/fermat-kernels"));
    /// ```
    pub fn from_env() -> Option<Cache> {
        let dir = if let Some(d) = std::env::var_os("FERMAT_CACHE_DIR") {
            PathBuf::from(d)
        } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            PathBuf::from(d).join("fermat")
        } else {
            PathBuf::from(std::env::var_os("HOME")?)
                .join(".cache")
                .join("fermat")
        };
        Some(Cache { dir })
    }

    /// The cache in `dir` (created by the first [`Cache::put`]). The module's
    /// documentation has an example.
    pub fn at(dir: impl AsRef<Path>) -> Cache {
        Cache {
            dir: dir.as_ref().to_path_buf(),
        }
    }

    /// The directory of the entries.
    ///
    /// ```
    /// let cache = fermat::cache::Cache::at("/tmp/fermat-kernels");
    /// assert_eq!(cache.dir(), std::path::Path::new("/tmp/fermat-kernels"));
    /// ```
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// The contents stored under `key`, if there is a whole entry; a corrupt or truncated
    /// one is removed. The module's documentation has an example.
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.entry(key);
        let bytes = std::fs::read(&path).ok()?;
        match open(&bytes) {
            Some(contents) => Some(contents.to_vec()),
            None => {
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores `contents` under `key`: written to a temporary file of this call's own,
    /// then renamed into place; the temporary file is removed when anything fails. The
    /// module's documentation has an example.
    pub fn put(&self, key: &str, contents: &[u8]) -> std::io::Result<()> {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!("{key}.{}.{call}.tmp", std::process::id()));
        let mut entry = Vec::with_capacity(HEADER + contents.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(&Sha256::digest(contents));
        entry.extend_from_slice(contents);
        let written =
            std::fs::write(&tmp, &entry).and_then(|()| std::fs::rename(&tmp, self.entry(key)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// Removes the entry under `key` (one the driver refused to load).
    ///
    /// ```
    /// use fermat::cache::{key, Cache};
    ///
    /// let dir = std::env::temp_dir().join(format!("fermat-evict-doc-{}", std::process::id()));
    /// let cache = Cache::at(&dir);
    /// let k = key(&["kernel"]);
    /// cache.put(&k, b"refused by the driver")?;
    /// cache.evict(&k);
    /// assert_eq!(cache.get(&k), None); // the next lookup compiles afresh
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn evict(&self, key: &str) {
        let _ = std::fs::remove_file(self.entry(key));
    }
}

/// The contents of a whole entry: the magic, then the SHA-256 of what follows.
fn open(entry: &[u8]) -> Option<&[u8]> {
    if entry.len() < HEADER || &entry[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (hash, contents) = entry[MAGIC.len()..].split_at(32);
    (Sha256::digest(contents).as_slice() == hash).then_some(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> Cache {
        let dir =
            std::env::temp_dir().join(format!("fermat-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Cache::at(dir)
    }

    fn leftovers(cache: &Cache) -> Vec<String> {
        std::fs::read_dir(cache.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_eq!(key(&["x"]).len(), 64);
    }

    #[test]
    fn corrupt_and_truncated_entries_are_misses_and_removed() {
        let cache = scratch("corrupt");
        let k = key(&["source"]);
        cache.put(&k, b"a valid cubin").unwrap();
        assert_eq!(cache.get(&k).as_deref(), Some(&b"a valid cubin"[..]));
        let path = cache.entry(&k);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get(&k), None, "a flipped bit is a miss");
        assert!(!path.exists(), "and the entry is gone");
        cache.put(&k, b"a valid cubin").unwrap();
        let whole = std::fs::read(&path).unwrap();
        for cut in [0, 5, HEADER - 1, HEADER, whole.len() - 1] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert_eq!(cache.get(&k), None, "truncated to {cut} bytes");
        }
        // An entry written by an older fermat, without the header.
        std::fs::write(&path, b"\x7fELF a raw cubin").unwrap();
        assert_eq!(cache.get(&k), None);
        std::fs::remove_dir_all(cache.dir()).unwrap();
    }

    #[test]
    fn failed_writes_leave_no_temporary_files() {
        let cache = scratch("failed");
        let k = key(&["source"]);
        // The entry's name is taken by a directory that is not empty: the rename fails.
        std::fs::create_dir_all(cache.entry(&k).join("occupied")).unwrap();
        assert!(cache.put(&k, b"cubin").is_err());
        assert_eq!(leftovers(&cache), Vec::<String>::new());
        assert_eq!(cache.get(&k), None);
        std::fs::remove_dir_all(cache.dir()).unwrap();
    }

    #[test]
    fn entries_filled_at_once_stay_whole() {
        let cache = scratch("race");
        let k = key(&["source"]);
        let contents: Vec<u8> = (0..1 << 16).map(|i| (i % 251) as u8).collect();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..20 {
                        cache.put(&k, &contents).unwrap();
                        let got = cache.get(&k);
                        assert!(
                            got.is_none_or(|g| g == contents),
                            "a partial entry was read"
                        );
                    }
                });
            }
        });
        assert_eq!(cache.get(&k), Some(contents));
        assert_eq!(leftovers(&cache), Vec::<String>::new());
        std::fs::remove_dir_all(cache.dir()).unwrap();
    }
}
