//! Kernels: parameters, launch bounds, shared memory and the name check.

use super::{check_identifier, Stmt, Type};
use crate::error::CodegenError;

/// A kernel parameter.
///
/// ```
/// use fermat_codegen::cuda::{Kernel, Param, Type};
/// let x = Param::new("x", Type::const_ptr(Type::Word));
/// let k = Kernel::new("k", vec![x, Param::new("n", Type::SizeT)], vec![]);
/// assert!(k.to_string().contains("k(const fe_word_t* __restrict__ x, size_t n)"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
}

impl Param {
    /// A parameter.
    ///
    /// ([`Param`] has an example.)
    pub fn new(name: impl Into<String>, ty: Type) -> Param {
        Param {
            name: name.into(),
            ty,
        }
    }
}

/// `__launch_bounds__(max_threads[, min_blocks])`.
///
/// Set with [`Kernel::launch_bounds`] or [`Kernel::launch_bounds_min`]:
///
/// ```
/// use fermat_codegen::cuda::{Kernel, LaunchBounds};
/// let k = Kernel::new("k", vec![], vec![]).launch_bounds_min(256, 2);
/// assert_eq!(k.launch_bounds, Some(LaunchBounds { max_threads: 256, min_blocks: Some(2) }));
/// let src = k.to_string();
/// assert_eq!(src, "extern \"C\" __global__ void __launch_bounds__(256, 2) k() {\n}\n");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    /// The most threads per block the kernel will be launched with.
    pub max_threads: u32,
    /// The fewest resident blocks per multiprocessor wanted, if any.
    pub min_blocks: Option<u32>,
}

/// A statically sized shared-memory array, `__shared__ T name[len];`.
///
/// Added to a kernel with [`Kernel::shared`]:
///
/// ```
/// use fermat_codegen::cuda::{Kernel, SharedArray, Type};
/// let tile = SharedArray::new(Type::Word, "tile", 256);
/// let k = Kernel::new("k", vec![], vec![]).shared(tile);
/// assert!(k.to_string().contains("\n    __shared__ fe_word_t tile[256];\n"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedArray {
    /// The element type.
    pub ty: Type,
    /// The name.
    pub name: String,
    /// The number of elements.
    pub len: u64,
}

impl SharedArray {
    /// A shared array.
    ///
    /// ([`SharedArray`] has an example.)
    pub fn new(ty: Type, name: impl Into<String>, len: u64) -> SharedArray {
        SharedArray {
            ty,
            name: name.into(),
            len,
        }
    }
}

/// A `__global__` kernel: `extern "C"` so that the runtime finds it by its plain name.
///
/// Printed (`Display`) as CUDA C; [`Kernel::check`] validates its names first.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr, Kernel, Param, Stmt, Type};
/// let (x, n, i) = (Expr::var("x"), Expr::var("n"), Expr::var("i"));
/// let mut body = Stmt::one_per_thread("i", n.clone());
/// body.push(fe::store(x, i, n, fe::zero()));
/// let params = vec![Param::new("x", Type::ptr(Type::Word)), Param::new("n", Type::SizeT)];
/// let k = Kernel::new("zero_all", params, body).doc("x[i] = 0 for every i < n");
/// k.check()?;
/// assert_eq!(k.to_string(), "// x[i] = 0 for every i < n
/// extern \"C\" __global__ void zero_all(fe_word_t* __restrict__ x, size_t n) {
///     const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
///     if (i >= n) {
///         return;
///     }
///     fe_store(x, i, n, fe_zero());
/// }
/// ");
/// # Ok::<(), fermat_codegen::CodegenError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The kernel's name.
    pub name: String,
    /// Comment lines printed above the kernel (what it computes, its operation counts).
    pub doc: Vec<String>,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Optional launch bounds (register budget for the compiler).
    pub launch_bounds: Option<LaunchBounds>,
    /// The block's shared memory, declared at the top of the body.
    pub shared_mem: Vec<SharedArray>,
    /// The block's dynamic shared memory, its size given at launch (beyond the 48 KB a
    /// static allocation may take): `T* name` into the bytes of `extern __shared__
    /// unsigned char fermat_dynamic_shared[]`.
    pub dynamic_shared: Option<(Type, String)>,
    /// The body.
    pub body: Vec<Stmt>,
}

impl Kernel {
    /// A kernel without documentation, launch bounds or shared memory.
    ///
    /// ([`Kernel`] has an example.)
    pub fn new(name: impl Into<String>, params: Vec<Param>, body: Vec<Stmt>) -> Kernel {
        Kernel {
            name: name.into(),
            doc: Vec::new(),
            params,
            launch_bounds: None,
            shared_mem: Vec::new(),
            dynamic_shared: None,
            body,
        }
    }

    /// Adds a comment line above the kernel.
    ///
    /// ([`Kernel`] has an example.)
    pub fn doc(mut self, line: impl Into<String>) -> Kernel {
        self.doc.push(line.into());
        self
    }

    /// Sets `__launch_bounds__(max_threads)`.
    ///
    /// A later call replaces earlier bounds.
    ///
    /// ```
    /// use fermat_codegen::cuda::Kernel;
    /// let k = Kernel::new("k", vec![], vec![]).launch_bounds_min(512, 1).launch_bounds(128);
    /// assert!(k.to_string().contains("void __launch_bounds__(128) k()"));
    /// assert_eq!(k.launch_bounds.map(|b| b.min_blocks), Some(None));
    /// ```
    pub fn launch_bounds(mut self, max_threads: u32) -> Kernel {
        self.launch_bounds = Some(LaunchBounds {
            max_threads,
            min_blocks: None,
        });
        self
    }

    /// Sets `__launch_bounds__(max_threads, min_blocks)`: ptxas then keeps to the registers
    /// that let `min_blocks` blocks reside on one multiprocessor.
    ///
    /// ```
    /// use fermat_codegen::cuda::Kernel;
    /// let k = Kernel::new("k", vec![], vec![]).launch_bounds_min(512, 1);
    /// assert!(k.to_string().contains("void __launch_bounds__(512, 1) k()"));
    /// assert_eq!(k.launch_bounds.and_then(|b| b.min_blocks), Some(1));
    /// ```
    pub fn launch_bounds_min(mut self, max_threads: u32, min_blocks: u32) -> Kernel {
        self.launch_bounds = Some(LaunchBounds {
            max_threads,
            min_blocks: Some(min_blocks),
        });
        self
    }

    /// Adds a shared-memory array.
    ///
    /// The arrays are declared in the order they were added.
    ///
    /// ```
    /// use fermat_codegen::cuda::{Kernel, SharedArray, Type};
    /// let k = Kernel::new("k", vec![], vec![])
    ///     .shared(SharedArray::new(Type::Fe, "a", 32))
    ///     .shared(SharedArray::new(Type::U32, "flags", 4));
    /// let src = k.to_string();
    /// assert!(src.contains("__shared__ fe_t a[32];\n    __shared__ uint32_t flags[4];\n"));
    /// ```
    pub fn shared(mut self, array: SharedArray) -> Kernel {
        self.shared_mem.push(array);
        self
    }

    /// Declares the dynamic shared memory, an array of `ty` sized at launch.
    ///
    /// The launch gives the size in bytes; the kernel sees a typed pointer into
    /// [`DYNAMIC_SHARED`](crate::cuda::DYNAMIC_SHARED).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Kernel, Type};
    /// let k = Kernel::new("k", vec![], vec![]).dynamic_shared(Type::Word, "buf");
    /// let src = k.to_string();
    /// let lines: Vec<&str> = src.lines().map(str::trim).collect();
    /// assert!(lines[1].ends_with("unsigned char fermat_dynamic_shared[];"));
    /// assert_eq!(lines[2], "fe_word_t* buf = (fe_word_t*)fermat_dynamic_shared;");
    /// ```
    pub fn dynamic_shared(mut self, ty: Type, name: impl Into<String>) -> Kernel {
        self.dynamic_shared = Some((ty, name.into()));
        self
    }

    /// Checks every name the kernel declares or uses: each must be a C identifier that is
    /// not a reserved word, so that the printed source means what the AST says.
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Kernel, Stmt, Type};
    /// use fermat_codegen::CodegenError;
    /// let body = |name: &str| vec![Stmt::let_(Type::Int, "t", Expr::var(name))];
    /// assert!(Kernel::new("k", vec![], body("u")).check().is_ok());
    /// let err = Kernel::new("k", vec![], body("x; y")).check().unwrap_err();
    /// assert_eq!(err, CodegenError::BadIdentifier { what: "variable", name: "x; y".into() });
    /// assert!(Kernel::new("int", vec![], vec![]).check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), CodegenError> {
        check_identifier("kernel", &self.name)?;
        for p in &self.params {
            check_identifier("parameter", &p.name)?;
        }
        for s in &self.shared_mem {
            check_identifier("shared array", &s.name)?;
        }
        if let Some((_, name)) = &self.dynamic_shared {
            check_identifier("shared array", name)?;
        }
        let mut bad = None;
        for s in &self.body {
            s.names(&mut |what, name| {
                if bad.is_none() {
                    if let Err(e) = check_identifier(what, name) {
                        bad = Some(e);
                    }
                }
            });
        }
        bad.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::Expr;

    fn v(n: &str) -> Expr {
        Expr::var(n)
    }

    #[test]
    fn check_refuses_bad_names() {
        let ok = Kernel::new("k", vec![Param::new("x", Type::ptr(Type::Word))], vec![]);
        assert!(ok.check().is_ok());
        let bad = Kernel::new("2k", vec![], vec![]);
        assert_eq!(
            bad.check().unwrap_err(),
            CodegenError::BadIdentifier {
                what: "kernel",
                name: "2k".into()
            }
        );
        let bad = Kernel::new("k", vec![Param::new("int", Type::Int)], vec![]);
        assert!(matches!(
            bad.check(),
            Err(CodegenError::BadIdentifier {
                what: "parameter",
                ..
            })
        ));
        let bad = Kernel::new("k", vec![], vec![Stmt::let_(Type::Int, "ok", v("x; y"))]);
        let err = bad.check().unwrap_err();
        assert!(err.to_string().contains("'x; y'"), "{err}");
        let bad = Kernel::new("k", vec![], vec![]).shared(SharedArray::new(Type::Word, "__s", 4));
        assert!(matches!(
            bad.check(),
            Err(CodegenError::BadIdentifier {
                what: "shared array",
                ..
            })
        ));
    }
}
