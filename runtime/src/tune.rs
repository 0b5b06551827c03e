//! Measured crossovers, stored per device model: where products stop being plain
//! (schoolbook on the CPU, tiles of outputs on the GPU) and become FFT-based, per field and
//! length ratio ([`Crossover`]). `fermat tune` measures them; every [`PolyRing`] reads the
//! table of its device when it is made, and falls back to the built-in defaults without
//! one.
//!
//! Tables live in `$FERMAT_TUNE_DIR`, else in the `tune` directory of the kernel cache
//! (`$FERMAT_CACHE_DIR`, else `$XDG_CACHE_HOME/fermat`, else `~/.cache/fermat`), one JSON
//! file per device model. A table that does not parse, was measured on another model or
//! another format, is ignored with a warning on standard error: never an error.
//!
//! [`PolyRing`]: crate::poly::PolyRing

use crate::cache::Cache;
use crate::gpu::Device;
use crate::poly::Crossover;
use fermat_dsl::field::AnyField;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The format of the tables this build writes and reads: a table of another format is
/// ignored with a warning.
///
/// ```
/// use fermat::tune::{Model, TuneTable, FORMAT};
///
/// assert_eq!(TuneTable::new(&Model::Cpu("any".into())).format, FORMAT);
/// ```
pub const FORMAT: u32 = 1;

/// The crossovers measured on one device model.
///
/// ```
/// use fermat::poly::Crossover;
/// use fermat::tune::{Model, TuneTable};
///
/// let model = Model::Cpu("Example CPU".into());
/// let mut table = TuneTable::new(&model);
/// table.fields.insert("babybear".into(), Crossover::never());
/// let dir = std::env::temp_dir().join("fermat-tune-doc");
/// table.store_in(&dir)?;
/// let back = TuneTable::load_from(&dir, &model)?.expect("just stored");
/// assert_eq!(back, table);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), fermat::tune::TuneError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuneTable {
    /// [`FORMAT`] when it was written.
    pub format: u32,
    /// The device model it was measured on ([`Model::name`]).
    pub model: String,
    /// The crossover of each field, by catalogue name (or decimal prime).
    pub fields: BTreeMap<String, Crossover>,
}

/// A device model: the key of a table.
///
/// ```
/// use fermat::tune::Model;
///
/// let h200 = Model::Gpu("NVIDIA H200".into());
/// assert_eq!(h200.name(), "gpu NVIDIA H200");
/// assert_eq!(h200.file_name(), "gpu_NVIDIA_H200.json");
/// let here = Model::of(None); // this machine's CPU
/// assert!(here.name().starts_with("cpu "));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// A GPU, by the name its driver reports.
    Gpu(String),
    /// The CPU, by the model name the operating system reports.
    Cpu(String),
}

/// Why a table could not be stored or read.
///
/// ```
/// use fermat::tune::{Model, TuneError, TuneTable};
///
/// let dir = std::env::temp_dir().join(format!("fermat-tune-foreign-{}", std::process::id()));
/// let path = TuneTable::new(&Model::Cpu("A".into())).store_in(&dir)?;
/// std::fs::rename(&path, dir.join(Model::Cpu("B".into()).file_name())).unwrap();
/// let err = TuneTable::load_from(&dir, &Model::Cpu("B".into())).unwrap_err();
/// assert!(matches!(err, TuneError::Foreign { .. }));
/// assert!(err.to_string().ends_with("measured on cpu A, not on cpu B"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), TuneError>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// No directory for tables can be named (no `HOME` and no override).
    #[error("no directory for tuning tables: set FERMAT_TUNE_DIR")]
    NoDirectory,
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not a table of this format.
    #[error("{path}: not a tuning table of format {FORMAT}: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file holds the table of another device model.
    #[error("{path}: measured on {found}, not on {expected}")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// The model it names.
        found: String,
        /// The model asked for.
        expected: String,
    },
}

impl Model {
    /// The model of `device`, or of this machine's CPU without one ([`Model`] has an
    /// example).
    pub fn of(device: Option<&Device>) -> Model {
        match device {
            Some(d) => Model::Gpu(d.name().to_string()),
            None => Model::Cpu(cpu_model()),
        }
    }

    /// "gpu NVIDIA H200", "cpu AMD EPYC …" ([`Model`] has an example).
    pub fn name(&self) -> String {
        match self {
            Model::Gpu(n) => format!("gpu {n}"),
            Model::Cpu(n) => format!("cpu {n}"),
        }
    }

    /// The table's file name: the model's name with every character other than ASCII
    /// letters and digits made `_` ([`Model`] has an example).
    pub fn file_name(&self) -> String {
        file_name(&self.name())
    }
}

fn file_name(model: &str) -> String {
    let safe: String = model
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{safe}.json")
}

/// The CPU's model name (Linux: `/proc/cpuinfo`), or "unknown".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The directory of the tables (see the module's documentation).
///
/// ```
/// std::env::set_var("FERMAT_TUNE_DIR", "/tmp/fermat-tables");
/// assert_eq!(fermat::tune::dir()?, std::path::Path::new("/tmp/fermat-tables"));
/// # Ok::<(), fermat::tune::TuneError>(())
/// ```
pub fn dir() -> Result<PathBuf, TuneError> {
    if let Some(d) = std::env::var_os("FERMAT_TUNE_DIR") {
        return Ok(PathBuf::from(d));
    }
    Cache::from_env()
        .map(|c| c.dir().join("tune"))
        .ok_or(TuneError::NoDirectory)
}

impl TuneTable {
    /// An empty table for `model` ([`TuneTable`] has an example).
    pub fn new(model: &Model) -> TuneTable {
        TuneTable {
            format: FORMAT,
            model: model.name(),
            fields: BTreeMap::new(),
        }
    }

    /// Writes the table into `dir` (created if missing), whole or not at all: a temporary
    /// file renamed over the old one ([`TuneTable`] has an example).
    pub fn store_in(&self, dir: &Path) -> Result<PathBuf, TuneError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TuneError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let name = file_name(&self.model);
        let path = dir.join(&name);
        let temporary = dir.join(format!(".{name}.{}", std::process::id()));
        let text = serde_json::to_string_pretty(self).expect("a table serialises");
        std::fs::write(&temporary, text).map_err(io(&temporary))?;
        std::fs::rename(&temporary, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// The table of `model` in `dir`: `None` when there is none, an error when the file
    /// is corrupt or names another model ([`TuneTable`] and [`TuneError`] have examples).
    pub fn load_from(dir: &Path, model: &Model) -> Result<Option<TuneTable>, TuneError> {
        let path = dir.join(model.file_name());
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(TuneError::Io { path, source }),
        };
        let table: TuneTable = serde_json::from_str(&text).map_err(|e| TuneError::Corrupt {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if table.format != FORMAT {
            return Err(TuneError::Corrupt {
                path,
                reason: format!("format {}", table.format),
            });
        }
        if table.model != model.name() {
            return Err(TuneError::Foreign {
                path,
                found: table.model,
                expected: model.name(),
            });
        }
        Ok(Some(table))
    }
}

/// Warnings already printed, so that each bad table is reported once per process.
static WARNED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The crossover products over `field` on `device` (the CPU without one) use: the stored
/// table's, else the default. A bad table is reported on standard error, once.
///
/// ```
/// use fermat::poly::Crossover;
/// use fermat::FieldSpec;
///
/// // With no table in the directory, the CPU's built-in default.
/// std::env::set_var("FERMAT_TUNE_DIR", std::env::temp_dir().join("fermat-no-tables"));
/// let babybear = FieldSpec::parse("babybear")?.build()?;
/// assert_eq!(fermat::tune::crossover(&babybear, None), Crossover::cpu());
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn crossover(field: &AnyField, device: Option<&Device>) -> Crossover {
    crossover_and_source(field, device).0
}

/// [`crossover`] and where it came from, in words.
pub(crate) fn crossover_and_source(
    field: &AnyField,
    device: Option<&Device>,
) -> (Crossover, &'static str) {
    let default = match device {
        // An SRGFN's products on the host cost more than the device's round trip at
        // every length measured.
        Some(_) if field.srgfn_params().is_some() => Crossover {
            host_below: None,
            ..Crossover::gpu()
        },
        Some(_) => Crossover::gpu(),
        None => Crossover::cpu(),
    };
    let built_in = (default, "the built-in default");
    let model = Model::of(device);
    let stored = dir().and_then(|d| TuneTable::load_from(&d, &model));
    match stored {
        Ok(Some(table)) => table
            .fields
            .get(&field.name())
            .map_or(built_in, |&c| (c, "fermat tune's table")),
        Ok(None) | Err(TuneError::NoDirectory) => built_in,
        Err(e) => {
            let message = format!("warning: ignoring a tuning table: {e}");
            let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
            if !warned.contains(&message) {
                eprintln!("{message}");
                warned.push(message);
            }
            built_in
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of the test's own, empty at the start and removed at the end.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    impl AsRef<Path> for Scratch {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl std::ops::Deref for Scratch {
        type Target = Path;

        fn deref(&self) -> &Path {
            &self.0
        }
    }

    fn scratch(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("fermat-tune-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Scratch(d)
    }

    #[test]
    fn tables_read_back_what_was_stored() {
        let dir = scratch("roundtrip");
        let model = Model::Gpu("Test GPU".into());
        let mut table = TuneTable::new(&model);
        table.fields.insert(
            "P3".into(),
            Crossover {
                max_short: [1, 2, 3, 4, 5, 6, 7, 8],
                crt_from: Some(1 << 12),
                host_below: Some(1 << 10),
                hgcd_base: Some(96),
                long_division: Some(48),
            },
        );
        let path = table.store_in(&dir).unwrap();
        assert!(path.ends_with("gpu_Test_GPU.json"));
        assert_eq!(TuneTable::load_from(&dir, &model).unwrap(), Some(table));
        let other = Model::Gpu("Other".into());
        assert_eq!(TuneTable::load_from(&dir, &other).unwrap(), None);
    }

    /// A table stored before `host_below` existed reads as it ran then: every operation
    /// of a GPU ring on the device.
    #[test]
    fn older_tables_keep_host_operations_on_the_device() {
        let mut json = serde_json::to_value(Crossover::gpu()).unwrap();
        assert_eq!(json["host_below"], crate::poly::GPU_HOST_BELOW);
        json.as_object_mut().unwrap().remove("host_below");
        let read: Crossover = serde_json::from_value(json).unwrap();
        assert_eq!(read.host_below, None);
        assert_eq!(read.max_short, Crossover::gpu().max_short);
    }

    /// A table stored before `hgcd_base` existed reads with the built-in base case.
    #[test]
    fn older_tables_keep_the_built_in_half_gcd_base() {
        let tuned = Crossover {
            hgcd_base: Some(256),
            ..Crossover::cpu()
        };
        let mut json = serde_json::to_value(tuned).unwrap();
        assert_eq!(json["hgcd_base"], 256);
        json.as_object_mut().unwrap().remove("hgcd_base");
        let read: Crossover = serde_json::from_value(json).unwrap();
        assert_eq!(read.hgcd_base, None);
        assert_eq!(read.half_gcd_base(), crate::poly::HGCD_BASE);
    }

    #[test]
    fn corrupt_and_foreign_tables_are_errors_not_panics() {
        let dir = scratch("bad");
        let model = Model::Cpu("Test CPU".into());
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(model.file_name());
        for text in ["", "{", "[1, 2]", "{\"format\": 1}", "\u{0}\u{1}"] {
            std::fs::write(&path, text).unwrap();
            let err = TuneTable::load_from(&dir, &model).unwrap_err();
            assert!(matches!(err, TuneError::Corrupt { .. }), "{text:?}: {err}");
        }
        let mut foreign = TuneTable::new(&Model::Cpu("Another CPU".into()));
        foreign.format = FORMAT;
        std::fs::write(&path, serde_json::to_string(&foreign).unwrap()).unwrap();
        let err = TuneTable::load_from(&dir, &model).unwrap_err();
        assert!(
            err.to_string().contains("measured on cpu Another CPU"),
            "{err}"
        );
        let mut old = TuneTable::new(&model);
        old.format = FORMAT + 1;
        std::fs::write(&path, serde_json::to_string(&old).unwrap()).unwrap();
        assert!(matches!(
            TuneTable::load_from(&dir, &model),
            Err(TuneError::Corrupt { .. })
        ));
    }
}
