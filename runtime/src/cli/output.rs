//! Where results go: every path a subcommand writes is checked before the work starts, so
//! that a typo in a directory costs nothing.

use super::CliError;
use std::path::{Path, PathBuf};

/// Refuses a file that cannot be written, before any work: its directory must exist and
/// take a new file, and the path must not be a directory. `-` (standard output) passes. A
/// file that exists is left as it is; one that does not is not left behind.
pub fn check_file(path: &Path) -> Result<(), CliError> {
    if fermat::io::is_std(path) {
        return Ok(());
    }
    let refuse =
        |why: String| -> CliError { format!("cannot write {}: {why}", path.display()).into() };
    if path.is_dir() {
        return Err(refuse("it is a directory".into()));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(refuse(format!(
            "the directory {} does not exist",
            parent.display()
        )));
    }
    if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| refuse(e.to_string()))?;
    } else {
        std::fs::File::create_new(path).map_err(|e| refuse(e.to_string()))?;
        // Only the probe's file is removed: nothing else was there.
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// [`check_file`] for an optional path.
pub fn check(path: &Option<PathBuf>) -> Result<(), CliError> {
    path.as_deref().map_or(Ok(()), check_file)
}

/// Refuses an output directory that cannot be made or written, before any work (it is
/// created if missing, as the command would).
pub fn check_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let probe = dir.join(format!(".fermat-write-check-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
