//! NVRTC, CUDA's run-time compiler, loaded by full path at run time (no CUDA at build time,
//! no `LD_LIBRARY_PATH` at process start, no GPU): compile checks of generated sources and,
//! through ptxas's verbose output, registers and spills per kernel for the cost report.
//!
//! The library is found at run time by [`locate`]: `$FERMAT_NVRTC_LIB` (a file), else the
//! `nvidia-cuda-nvrtc` wheel of a Python virtual environment `.venv` in the current
//! directory or one of its ancestors (what `.ci/nvrtc.sh` installs at the top of a
//! checkout), else the directories of `LD_LIBRARY_PATH`, else `$CUDA_HOME/lib64`, else
//! `/usr/local/cuda/lib64`. Nothing of the machine that built the library is baked in.
//!
//! ```
//! use fermat_codegen::nvrtc::{self, NvrtcError, SM90_CUBIN};
//!
//! let src = "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = 1; }";
//! match nvrtc::compile(src, SM90_CUBIN) {
//!     Ok(out) => assert!(out.resources()[0].kernel == "k" && out.resources()[0].registers > 0),
//!     // Without libnvrtc, the error says where it was looked for and how to install it.
//!     Err(err) => assert!(matches!(err, NvrtcError::NotFound { .. }), "{err}"),
//! }
//! ```

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use thiserror::Error;

/// Options for PTX for sm_90 (H100/H200): what the runtime loads through the driver.
///
/// ```
/// use fermat_codegen::nvrtc::{self, SM90_PTX};
///
/// assert!(SM90_PTX.contains(&"--gpu-architecture=compute_90")); // a virtual architecture
/// // Where libnvrtc is found, these options give PTX text and no CUBIN.
/// if let Ok(nvrtc) = nvrtc::global() {
///     let out = nvrtc.compile("extern \"C\" __global__ void k() {}", "k.cu", SM90_PTX)?;
///     assert!(out.ptx.is_some_and(|ptx| ptx.contains(".entry k")) && out.cubin.is_none());
/// }
/// # Ok::<(), nvrtc::NvrtcError>(())
/// ```
pub const SM90_PTX: &[&str] = &["--gpu-architecture=compute_90", "--std=c++17"];

/// Options for a sm_90 CUBIN with ptxas's resource report (registers, spills) in the log.
///
/// ```
/// use fermat_codegen::nvrtc::{self, SM90_CUBIN};
///
/// assert!(SM90_CUBIN.contains(&"--gpu-architecture=sm_90")); // a real architecture
/// assert!(SM90_CUBIN.contains(&"--ptxas-options=-v"));
/// // Where libnvrtc is found, these options give a CUBIN and ptxas's report.
/// if let Ok(nvrtc) = nvrtc::global() {
///     let src = "extern \"C\" __global__ void k(int* x) { x[0] = 1; }";
///     let out = nvrtc.compile(src, "k.cu", SM90_CUBIN)?;
///     assert!(out.cubin.is_some());
///     assert_eq!(out.resources()[0].kernel, "k");
/// }
/// # Ok::<(), nvrtc::NvrtcError>(())
/// ```
pub const SM90_CUBIN: &[&str] = &[
    "--gpu-architecture=sm_90",
    "--std=c++17",
    "--ptxas-options=-v",
];

/// Why NVRTC could not be used or a source did not compile.
///
/// ```
/// use fermat_codegen::nvrtc::{self, NvrtcError};
///
/// let err = NvrtcError::NotFound { searched: vec!["/usr/local/cuda/lib64/libnvrtc.so*".into()] };
/// assert!(err.to_string().contains("/usr/local/cuda/lib64/libnvrtc.so*"));
/// assert!(err.to_string().contains("FERMAT_NVRTC_LIB")); // and how to provide it
/// // Where libnvrtc is found, a source that does not compile returns the compiler's log.
/// if let Ok(nvrtc) = nvrtc::global() {
///     let err = nvrtc.compile("__global__ void k() { undeclared(); }", "bad.cu", &[]);
///     let err = err.unwrap_err();
///     assert!(matches!(err, NvrtcError::Compile { ref name, ref log, .. }
///         if name == "bad.cu" && log.contains("undeclared")));
///     let err = nvrtc.compile("int x;\0", "nul.cu", &[]).unwrap_err();
///     assert_eq!(err, NvrtcError::Nul { what: "source" });
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NvrtcError {
    /// No libnvrtc was found.
    #[error("libnvrtc not found (looked for {}); run .ci/nvrtc.sh or set FERMAT_NVRTC_LIB to the library file", .searched.join(", "))]
    NotFound {
        /// Where it was looked for, in order.
        searched: Vec<String>,
    },
    /// The library exists but could not be loaded or lacks a function.
    #[error("cannot load NVRTC from {path}: {message}")]
    Load {
        /// The library file.
        path: String,
        /// The loader's message.
        message: String,
    },
    /// An NVRTC call other than the compilation failed.
    #[error("NVRTC call {call} failed: {message}")]
    Call {
        /// The function.
        call: &'static str,
        /// NVRTC's error string.
        message: String,
    },
    /// The source did not compile; `log` is the compiler's output.
    #[error("NVRTC could not compile {name} with options {options:?}:\n{log}")]
    Compile {
        /// The program's name.
        name: String,
        /// The options given.
        options: Vec<String>,
        /// The compiler's log.
        log: String,
    },
    /// A source, name or option holds a NUL byte and cannot be passed to C.
    #[error("the {what} passed to NVRTC holds a NUL byte")]
    Nul {
        /// Which argument.
        what: &'static str,
    },
}

/// The result of a successful compilation.
///
/// ```
/// use fermat_codegen::nvrtc::{self, NvrtcError, SM90_PTX};
///
/// match nvrtc::global() {
///     Ok(nvrtc) => {
///         let out = nvrtc.compile("extern \"C\" __global__ void k() {}", "k.cu", SM90_PTX)?;
///         assert!(out.ptx.is_some_and(|ptx| ptx.contains(".target sm_90")));
///     }
///     // Without libnvrtc, the error says where it was looked for.
///     Err(err) => assert!(err.to_string().contains("libnvrtc not found"), "{err}"),
/// }
/// # Ok::<(), NvrtcError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// PTX text, when compiled for a virtual architecture (`compute_XX`).
    pub ptx: Option<String>,
    /// The CUBIN, when compiled for a real architecture (`sm_XX`).
    pub cubin: Option<Vec<u8>>,
    /// The compiler's log (warnings; ptxas's report with `--ptxas-options=-v`).
    pub log: String,
}

/// What ptxas reports for one kernel.
///
/// ```
/// use fermat_codegen::nvrtc::Compiled;
///
/// let log = "ptxas info    : Compiling entry function 'a' for 'sm_90'\n\
///            \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
///            ptxas info    : Compiling entry function 'b' for 'sm_90'\n\
///            \x20   16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n";
/// let compiled = Compiled { ptx: None, cubin: None, log: log.into() };
/// // The kernels that spill registers to local memory.
/// let spills: Vec<String> =
///     compiled.resources().into_iter().filter(|r| r.spill_stores > 0).map(|r| r.kernel).collect();
/// assert_eq!(spills, ["b"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// The kernel's name.
    pub kernel: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of local-memory stack frame per thread.
    pub stack_frame: u32,
    /// Bytes spilled to local memory per thread (stores).
    pub spill_stores: u32,
    /// Bytes reloaded from spills per thread.
    pub spill_loads: u32,
}

impl Compiled {
    /// Registers and spills per kernel, read from ptxas's verbose report in the log (empty
    /// unless compiled with `--ptxas-options=-v` for a real architecture).
    ///
    /// ```
    /// use fermat_codegen::nvrtc::{Compiled, Resources};
    ///
    /// let log = "ptxas info    : Compiling entry function 'butterfly' for 'sm_90'\n\
    ///            ptxas info    : Function properties for butterfly\n\
    ///            \x20   8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
    ///            ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]\n";
    /// let compiled = Compiled { ptx: None, cubin: None, log: log.into() };
    /// let want = Resources {
    ///     kernel: "butterfly".into(),
    ///     registers: 40,
    ///     stack_frame: 8,
    ///     spill_stores: 4,
    ///     spill_loads: 12,
    /// };
    /// assert_eq!(compiled.resources(), [want]);
    /// ```
    pub fn resources(&self) -> Vec<Resources> {
        let mut out: Vec<Resources> = Vec::new();
        for line in self.log.lines() {
            if let Some(name) = quoted_after(line, "Compiling entry function '") {
                out.push(Resources {
                    kernel: name.to_string(),
                    ..Resources::default()
                });
                continue;
            }
            let Some(current) = out.last_mut() else {
                continue;
            };
            if line.contains("bytes stack frame") {
                current.stack_frame = number_before(line, " bytes stack frame").unwrap_or(0);
                current.spill_stores = number_before(line, " bytes spill stores").unwrap_or(0);
                current.spill_loads = number_before(line, " bytes spill loads").unwrap_or(0);
            } else if line.contains("Used ") && line.contains(" registers") {
                current.registers = number_before(line, " registers").unwrap_or(0);
            }
        }
        out
    }
}

fn quoted_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &line[line.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('\'')?])
}

/// The decimal number just before `suffix` in `line`.
fn number_before(line: &str, suffix: &str) -> Option<u32> {
    let head = &line[..line.find(suffix)?];
    let digits: String = head
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

type Program = *mut c_void;
type CreateProgramFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileProgramFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type BytesFn = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type DestroyProgramFn = unsafe extern "C" fn(*mut Program) -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;

/// A loaded libnvrtc.
///
/// ```
/// use fermat_codegen::nvrtc::{locate, Nvrtc, NvrtcError};
///
/// match locate() {
///     Ok(path) => {
///         let nvrtc = Nvrtc::load(&path)?;
///         assert_eq!(nvrtc.path(), path);
///         let (major, _minor) = nvrtc.version()?;
///         assert!(major >= 11); // NVRTC has CUBIN output from CUDA 11 on
///     }
///     Err(err) => assert!(matches!(err, NvrtcError::NotFound { .. })),
/// }
/// # Ok::<(), NvrtcError>(())
/// ```
pub struct Nvrtc {
    path: PathBuf,
    create: CreateProgramFn,
    compile: CompileProgramFn,
    log_size: SizeFn,
    log: BytesFn,
    ptx_size: SizeFn,
    ptx: BytesFn,
    cubin_size: SizeFn,
    cubin: BytesFn,
    destroy: DestroyProgramFn,
    error_string: ErrorStringFn,
    version: VersionFn,
    // The function pointers above point into these libraries: they live as long as self.
    _lib: Library,
    _builtins: Option<Library>,
}

impl std::fmt::Debug for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvrtc").field("path", &self.path).finish()
    }
}

/// Is `name` the main NVRTC library (not the builtins, not the `.alt` variant)?
fn is_nvrtc(name: &str) -> bool {
    name.starts_with("libnvrtc.so")
}

/// Libraries in `dir` whose file names satisfy `pick`, sorted.
fn libs_in(dir: &Path, pick: fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(pick))
        .collect();
    found.sort();
    found
}

/// The directories searched for libnvrtc after `$FERMAT_NVRTC_LIB`, in order (see the
/// module's documentation).
pub fn search_dirs() -> Vec<PathBuf> {
    let cwd = std::env::current_dir().ok();
    let mut dirs = venv_dirs(cwd.as_deref());
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        dirs.push(PathBuf::from(home).join("lib64"));
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    dirs
}

/// The NVRTC wheel's library directories of the `.venv` nearest to `start` (itself or an
/// ancestor), one per Python version, sorted.
fn venv_dirs(start: Option<&Path>) -> Vec<PathBuf> {
    let Some(venv) = start
        .into_iter()
        .flat_map(Path::ancestors)
        .map(|d| d.join(".venv").join("lib"))
        .find(|lib| lib.is_dir())
    else {
        return Vec::new();
    };
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(&venv)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3"))
        })
        .collect();
    pythons.sort();
    pythons
        .into_iter()
        .map(|py| py.join("site-packages/nvidia/cu13/lib"))
        .collect()
}

/// Finds libnvrtc: `$FERMAT_NVRTC_LIB` if set (it must exist), else the first
/// `libnvrtc.so*` in [`search_dirs`].
///
/// ```
/// use fermat_codegen::nvrtc::{locate, NvrtcError};
///
/// // A library named by $FERMAT_NVRTC_LIB must exist: nothing else is searched then.
/// std::env::set_var("FERMAT_NVRTC_LIB", "/nonexistent/libnvrtc.so");
/// let searched = vec!["$FERMAT_NVRTC_LIB = /nonexistent/libnvrtc.so".to_string()];
/// assert_eq!(locate(), Err(NvrtcError::NotFound { searched }));
/// ```
pub fn locate() -> Result<PathBuf, NvrtcError> {
    if let Some(path) = std::env::var_os("FERMAT_NVRTC_LIB") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(NvrtcError::NotFound {
                searched: vec![format!("$FERMAT_NVRTC_LIB = {}", path.display())],
            })
        };
    }
    let dirs = search_dirs();
    for dir in &dirs {
        if let Some(lib) = libs_in(dir, is_nvrtc).into_iter().next() {
            return Ok(lib);
        }
    }
    Err(NvrtcError::NotFound {
        searched: dirs
            .iter()
            .map(|d| format!("{}/libnvrtc.so*", d.display()))
            .collect(),
    })
}

/// Copies a symbol's address out of `lib`.
///
/// # Safety
/// `T` must be the function's true signature.
unsafe fn symbol<T: Copy>(lib: &Library, path: &Path, name: &str) -> Result<T, NvrtcError> {
    // SAFETY: the caller guarantees the signature; the pointer is used only while `lib`
    // is alive (both are kept in `Nvrtc`).
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| NvrtcError::Load {
            path: path.display().to_string(),
            message: format!("{name}: {e}"),
        })
}

impl Nvrtc {
    /// Loads libnvrtc from `path`. The `libnvrtc-builtins` beside it is loaded first, by
    /// full path, so that NVRTC's own lookup of it by name succeeds without
    /// `LD_LIBRARY_PATH`.
    ///
    /// ```
    /// use fermat_codegen::nvrtc::{Nvrtc, NvrtcError};
    /// use std::path::Path;
    ///
    /// let err = Nvrtc::load(Path::new("/nonexistent/libnvrtc.so.13")).unwrap_err();
    /// assert!(matches!(err, NvrtcError::Load { ref path, .. } if path.ends_with("so.13")));
    /// ```
    pub fn load(path: &Path) -> Result<Nvrtc, NvrtcError> {
        let load_err = |e: libloading::Error| NvrtcError::Load {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let builtins = libs_in(dir, |n| n.starts_with("libnvrtc-builtins.so"))
            .into_iter()
            .next()
            // SAFETY: loading runs the library's initialisers; libnvrtc-builtins has no
            // side effects beyond registering its data.
            .map(|b| unsafe { Library::new(&b) })
            .transpose()
            .map_err(load_err)?;
        // SAFETY: as above, for libnvrtc itself.
        let lib = unsafe { Library::new(path) }.map_err(load_err)?;
        // SAFETY: the signatures are NVRTC's C API (nvrtc.h, CUDA 11–13).
        unsafe {
            Ok(Nvrtc {
                create: symbol(&lib, path, "nvrtcCreateProgram")?,
                compile: symbol(&lib, path, "nvrtcCompileProgram")?,
                log_size: symbol(&lib, path, "nvrtcGetProgramLogSize")?,
                log: symbol(&lib, path, "nvrtcGetProgramLog")?,
                ptx_size: symbol(&lib, path, "nvrtcGetPTXSize")?,
                ptx: symbol(&lib, path, "nvrtcGetPTX")?,
                cubin_size: symbol(&lib, path, "nvrtcGetCUBINSize")?,
                cubin: symbol(&lib, path, "nvrtcGetCUBIN")?,
                destroy: symbol(&lib, path, "nvrtcDestroyProgram")?,
                error_string: symbol(&lib, path, "nvrtcGetErrorString")?,
                version: symbol(&lib, path, "nvrtcVersion")?,
                path: path.to_path_buf(),
                _lib: lib,
                _builtins: builtins,
            })
        }
    }

    /// The library file this was loaded from ([`Nvrtc`] has an example).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// NVRTC's version (major, minor), e.g. (13, 0) ([`Nvrtc`] has an example).
    pub fn version(&self) -> Result<(i32, i32), NvrtcError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let rc = unsafe { (self.version)(&mut major, &mut minor) };
        self.check("nvrtcVersion", rc)?;
        Ok((major, minor))
    }

    fn message(&self, rc: c_int) -> String {
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any code.
        let s = unsafe { (self.error_string)(rc) };
        if s.is_null() {
            format!("NVRTC error {rc}")
        } else {
            // SAFETY: non-null and NUL-terminated, per NVRTC's contract.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        }
    }

    fn check(&self, call: &'static str, rc: c_int) -> Result<(), NvrtcError> {
        if rc == 0 {
            Ok(())
        } else {
            Err(NvrtcError::Call {
                call,
                message: self.message(rc),
            })
        }
    }

    /// Reads one of the program's outputs (log, PTX, CUBIN); `None` when NVRTC has none.
    fn output(&self, prog: Program, size: SizeFn, bytes: BytesFn) -> Option<Vec<u8>> {
        let mut n = 0usize;
        // SAFETY: `prog` is a live program; `n` a valid out-pointer.
        if unsafe { size(prog, &mut n) } != 0 || n == 0 {
            return None;
        }
        let mut buf = vec![0u8; n];
        // SAFETY: the buffer holds the `n` bytes NVRTC announced.
        if unsafe { bytes(prog, buf.as_mut_ptr().cast()) } != 0 {
            return None;
        }
        Some(buf)
    }

    /// Compiles `source` (named `name` in messages) with `options`.
    ///
    /// Returns the PTX or CUBIN (whichever the options produce) with the log, or
    /// [`NvrtcError::Compile`] carrying the log.
    ///
    /// ```
    /// use fermat_codegen::nvrtc::{self, NvrtcError, SM90_CUBIN};
    ///
    /// match nvrtc::global() {
    ///     Ok(nvrtc) => {
    ///         let src = "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = 1; }";
    ///         let out = nvrtc.compile(src, "k.cu", SM90_CUBIN)?;
    ///         assert!(out.cubin.is_some_and(|cubin| cubin.starts_with(b"\x7fELF")));
    ///         let err = nvrtc.compile("__global__ void k() { x; }", "bad.cu", SM90_CUBIN);
    ///         assert!(matches!(err, Err(NvrtcError::Compile { .. })));
    ///     }
    ///     Err(err) => assert!(matches!(err, NvrtcError::NotFound { .. })),
    /// }
    /// # Ok::<(), NvrtcError>(())
    /// ```
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[&str],
    ) -> Result<Compiled, NvrtcError> {
        let src = CString::new(source).map_err(|_| NvrtcError::Nul { what: "source" })?;
        let cname = CString::new(name).map_err(|_| NvrtcError::Nul {
            what: "program name",
        })?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(*o).map_err(|_| NvrtcError::Nul { what: "option" }))
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: valid C strings; no headers (count 0, null arrays).
        let rc = unsafe {
            (self.create)(
                &mut prog,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check("nvrtcCreateProgram", rc)?;
        // SAFETY: `prog` was created above; the option pointers outlive the call.
        let rc = unsafe { (self.compile)(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
        let text = |bytes: Vec<u8>| {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        };
        let log = self
            .output(prog, self.log_size, self.log)
            .map(text)
            .unwrap_or_default();
        let result = if rc != 0 {
            Err(NvrtcError::Compile {
                name: name.to_string(),
                options: options.iter().map(|o| o.to_string()).collect(),
                log: if log.trim().is_empty() {
                    self.message(rc)
                } else {
                    log
                },
            })
        } else {
            Ok(Compiled {
                ptx: self.output(prog, self.ptx_size, self.ptx).map(text),
                cubin: self.output(prog, self.cubin_size, self.cubin),
                log,
            })
        };
        // SAFETY: destroys the program created above, once.
        unsafe { (self.destroy)(&mut prog) };
        result
    }
}

/// The process-wide NVRTC, located and loaded on first use.
///
/// ```
/// use fermat_codegen::nvrtc::global;
///
/// // Located and loaded once: every call gives the same library, or the same error.
/// match (global(), global()) {
///     (Ok(a), Ok(b)) => assert!(std::ptr::eq(a, b) && a.path().is_file()),
///     (Err(a), Err(b)) => assert_eq!(a, b),
///     _ => unreachable!("the first outcome is kept"),
/// }
/// ```
pub fn global() -> Result<&'static Nvrtc, NvrtcError> {
    static NVRTC: OnceLock<Result<Nvrtc, NvrtcError>> = OnceLock::new();
    NVRTC
        .get_or_init(|| locate().and_then(|p| Nvrtc::load(&p)))
        .as_ref()
        .map_err(Clone::clone)
}

/// Compiles `source` with the process-wide NVRTC (see [`Nvrtc::compile`]).
pub fn compile(source: &str, options: &[&str]) -> Result<Compiled, NvrtcError> {
    global()?.compile(source, "fermat.cu", options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ptxas_resource_reports() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'butterfly' for 'sm_90'\n\
ptxas info    : Function properties for butterfly\n\
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'other' for 'sm_90'\n\
ptxas info    : Function properties for other\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 255 registers, used 1 barriers, 380 bytes cmem[0]\n";
        let c = Compiled {
            ptx: None,
            cubin: None,
            log: log.into(),
        };
        assert_eq!(
            c.resources(),
            vec![
                Resources {
                    kernel: "butterfly".into(),
                    registers: 40,
                    stack_frame: 8,
                    spill_stores: 4,
                    spill_loads: 12
                },
                Resources {
                    kernel: "other".into(),
                    registers: 255,
                    ..Resources::default()
                }
            ]
        );
    }

    #[test]
    fn virtual_environments_are_found_above_the_current_directory() {
        let root = std::env::temp_dir().join(format!("fermat-venv-{}", std::process::id()));
        let lib = root.join(".venv/lib/python3.11/site-packages/nvidia/cu13/lib");
        std::fs::create_dir_all(&lib).unwrap();
        let deep = root.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(venv_dirs(Some(&deep)), vec![lib.clone()]);
        assert_eq!(venv_dirs(Some(&root)), vec![lib]);
        assert_eq!(venv_dirs(None), Vec::<PathBuf>::new());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn names_the_missing_library() {
        let err = Nvrtc::load(Path::new("/nonexistent/libnvrtc.so.13")).unwrap_err();
        assert!(
            matches!(&err, NvrtcError::Load { path, .. } if path == "/nonexistent/libnvrtc.so.13"),
            "{err}"
        );
        let err = NvrtcError::NotFound {
            searched: vec!["/a/libnvrtc.so*".into()],
        };
        assert!(err.to_string().contains("/a/libnvrtc.so*"));
        assert!(err.to_string().contains(".ci/nvrtc.sh"));
    }
}
