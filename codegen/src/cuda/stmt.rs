//! Statements and `for` loops.

use super::{BinOp, Expr, Type};

/// The `#pragma unroll` request on a loop.
///
/// ```
/// use fermat_codegen::cuda::{Expr, ForLoop, Type, Unroll};
/// let l = ForLoop::range("j", Type::Int, Expr::int(0), Expr::var("m"));
/// assert_eq!(l.clone().unroll_by(4).unroll, Some(Unroll::By(4)));
/// assert_eq!(l.clone().unrolled().unroll, Some(Unroll::Full));
/// assert_eq!(l.unroll, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unroll {
    /// `#pragma unroll`: unroll completely (the trip count must be a compile-time constant).
    Full,
    /// `#pragma unroll N`.
    By(u32),
}

/// A `for` loop: `for (init; cond; step) body`.
///
/// ```
/// use fermat_codegen::cuda::{Expr, ForLoop, Stmt, Type};
/// let (v, j) = (Expr::var("v"), Expr::var("j"));
/// let l = ForLoop::range("j", Type::Int, Expr::int(0), Expr::int(4))
///     .body(vec![Stmt::store(v, j.clone(), j)]);
/// let src = Stmt::For(l).to_string();
/// assert_eq!(src, "for (int j = 0; j < 4; j += 1) {\n    v[j] = j;\n}\n");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ForLoop {
    /// The counter's type.
    pub ty: Type,
    /// The counter.
    pub var: String,
    /// Its first value.
    pub start: Expr,
    /// The loop runs while this holds.
    pub cond: Expr,
    /// Added to the counter after each iteration.
    pub step: Expr,
    /// An optional `#pragma unroll`.
    pub unroll: Option<Unroll>,
    /// The body.
    pub body: Vec<Stmt>,
}

impl ForLoop {
    /// `for (ty var = start; var < end; var += 1)`.
    ///
    /// The step is a literal of the counter's type (`1u`, `1ull` or `1`).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, ForLoop, Stmt, Type};
    /// let l = ForLoop::range("t", Type::U32, Expr::u32(0), Expr::var("m"));
    /// assert_eq!(l.step, Expr::u32(1));
    /// assert_eq!(Stmt::For(l).to_string(), "for (uint32_t t = 0u; t < m; t += 1u) {\n}\n");
    /// ```
    pub fn range(var: impl Into<String>, ty: Type, start: Expr, end: Expr) -> ForLoop {
        let var = var.into();
        let step = match ty {
            Type::U32 => Expr::u32(1),
            Type::U64 => Expr::u64(1),
            _ => Expr::int(1),
        };
        ForLoop {
            cond: Expr::var(var.clone()).lt(end),
            ty,
            var,
            start,
            step,
            unroll: None,
            body: Vec::new(),
        }
    }

    /// Asks for full unrolling (`#pragma unroll`).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, ForLoop, Stmt, Type};
    /// let l = ForLoop::range("j", Type::Int, Expr::int(0), Expr::int(8)).unrolled();
    /// let src = Stmt::For(l).to_string();
    /// assert_eq!(src, "#pragma unroll\nfor (int j = 0; j < 8; j += 1) {\n}\n");
    /// ```
    pub fn unrolled(mut self) -> ForLoop {
        self.unroll = Some(Unroll::Full);
        self
    }

    /// Asks for unrolling by a factor (`#pragma unroll n`; 1 keeps the loop rolled).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, ForLoop, Stmt, Type};
    /// let l = ForLoop::range("j", Type::Int, Expr::int(0), Expr::var("m")).unroll_by(4);
    /// let src = Stmt::For(l).to_string();
    /// assert!(src.starts_with("#pragma unroll 4\nfor (int j = 0; j < m; j += 1) {"));
    /// ```
    pub fn unroll_by(mut self, n: u32) -> ForLoop {
        self.unroll = Some(Unroll::By(n));
        self
    }

    /// Sets the body.
    ///
    /// ([`ForLoop`] has an example.)
    pub fn body(mut self, body: Vec<Stmt>) -> ForLoop {
        self.body = body;
        self
    }
}

/// A statement.
///
/// Printed (`Display`) as CUDA C lines, four spaces a level of nesting.
///
/// ```
/// use fermat_codegen::cuda::{Expr, Stmt};
/// let s = Stmt::Switch {
///     on: Expr::var("r"),
///     cases: vec![vec![Stmt::comment("r = 0")], vec![Stmt::sync()]],
/// };
/// assert_eq!(s.to_string(), "switch (r) {\ncase 0: {\n    // r = 0\n} break;\n\
///     default: {\n    __syncthreads();\n} break;\n}\n");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// `[const] T name [= init];`
    Let {
        /// The type.
        ty: Type,
        /// The name.
        name: String,
        /// The initial value, if any.
        init: Option<Expr>,
        /// Whether the variable is `const`.
        is_const: bool,
    },
    /// `T name[len];`: a register (local) array, e.g. the points of one piece.
    Array {
        /// The element type.
        ty: Type,
        /// The name.
        name: String,
        /// The number of elements.
        len: u64,
    },
    /// `target = value;` or `target op= value;` (also stores: `base[i] = v;`).
    Assign {
        /// The assigned place (a variable or an index expression).
        target: Expr,
        /// A compound operator (`+=`, `<<=`, …), or plain `=`.
        op: Option<BinOp>,
        /// The value.
        value: Expr,
    },
    /// An expression evaluated for its effect, e.g. `fe_store(...)`.
    Expr(Expr),
    /// `if (cond) { then } else { otherwise }` (no `else` when it is empty).
    If {
        /// The condition.
        cond: Expr,
        /// Run when it holds.
        then: Vec<Stmt>,
        /// Run otherwise.
        otherwise: Vec<Stmt>,
    },
    /// A `for` loop.
    For(ForLoop),
    /// `while (cond) { body }`: a loop whose trip count the data decide (every thread of a
    /// block must agree on `cond` when the body holds a barrier).
    While {
        /// The loop runs while this holds.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `__syncthreads();`: a barrier of the thread block.
    SyncThreads,
    /// `return;`.
    Return,
    /// `// text` (one comment line per line of text).
    Comment(String),
    /// `{ ... }`: a nested scope.
    Block(Vec<Stmt>),
    /// `switch (on) { case 0: { ... } break; … default: { ... } }`: case i runs for the
    /// value i, the last case for every value from its index on (so that an `on` known
    /// to lie below the number of cases needs no bounds check).
    Switch {
        /// The value switched on.
        on: Expr,
        /// The cases, for the values 0, 1, ….
        cases: Vec<Vec<Stmt>>,
    },
}

impl Stmt {
    /// `T name = init;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{fe, Stmt, Type};
    /// assert_eq!(Stmt::let_(Type::Fe, "a", fe::zero()).to_string(), "fe_t a = fe_zero();\n");
    /// ```
    pub fn let_(ty: Type, name: impl Into<String>, init: Expr) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: Some(init),
            is_const: false,
        }
    }

    /// `const T name = init;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt, Type};
    /// let half = Stmt::const_(Type::SizeT, "half", Expr::var("n") >> Expr::int(1));
    /// assert_eq!(half.to_string(), "const size_t half = n >> 1;\n");
    /// ```
    pub fn const_(ty: Type, name: impl Into<String>, init: Expr) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: Some(init),
            is_const: true,
        }
    }

    /// `T name;` (assigned later).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Stmt, Type};
    /// let s = Stmt::declare(Type::Fe, "acc");
    /// assert_eq!(s.to_string(), "fe_t acc;\n");
    /// assert!(matches!(s, Stmt::Let { init: None, is_const: false, .. }));
    /// ```
    pub fn declare(ty: Type, name: impl Into<String>) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: None,
            is_const: false,
        }
    }

    /// `T name[len];`
    ///
    /// ```
    /// use fermat_codegen::cuda::{Stmt, Type};
    /// assert_eq!(Stmt::array(Type::Fe, "v", 8).to_string(), "fe_t v[8];\n");
    /// ```
    pub fn array(ty: Type, name: impl Into<String>, len: u64) -> Stmt {
        Stmt::Array {
            ty,
            name: name.into(),
            len,
        }
    }

    /// `target = value;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{fe, Expr, Stmt};
    /// let (a, b) = (Expr::var("a"), Expr::var("b"));
    /// assert_eq!(Stmt::assign(a.clone(), fe::add(a, b)).to_string(), "a = fe_add(a, b);\n");
    /// ```
    pub fn assign(target: Expr, value: Expr) -> Stmt {
        Stmt::Assign {
            target,
            op: None,
            value,
        }
    }

    /// `target op= value;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{BinOp, Expr, Stmt};
    /// let s = Stmt::assign_op(Expr::var("mask"), BinOp::BitOr, Expr::u32(1) << Expr::var("b"));
    /// assert_eq!(s.to_string(), "mask |= 1u << b;\n");
    /// ```
    pub fn assign_op(target: Expr, op: BinOp, value: Expr) -> Stmt {
        Stmt::Assign {
            target,
            op: Some(op),
            value,
        }
    }

    /// `base[index] = value;`: a store to memory (global, shared or a register array).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt};
    /// let s = Stmt::store(Expr::var("tile"), Expr::thread_idx(), Expr::var("a"));
    /// assert_eq!(s.to_string(), "tile[threadIdx.x] = a;\n");
    /// ```
    pub fn store(base: Expr, index: Expr, value: Expr) -> Stmt {
        Stmt::assign(base.at(index), value)
    }

    /// `e;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{fe, Expr, Stmt};
    /// let (x, i, n, v) = (Expr::var("x"), Expr::var("i"), Expr::var("n"), Expr::var("v"));
    /// let s = Stmt::expr(Expr::call("fe_store", [x.clone(), i.clone(), n.clone(), v.clone()]));
    /// assert_eq!(s.to_string(), "fe_store(x, i, n, v);\n");
    /// assert_eq!(s, fe::store(x, i, n, v));
    /// ```
    pub fn expr(e: Expr) -> Stmt {
        Stmt::Expr(e)
    }

    /// `if (cond) { then }`
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt};
    /// let s = Stmt::if_(Expr::var("i").ge(Expr::var("n")), vec![Stmt::Return]);
    /// assert_eq!(s.to_string(), "if (i >= n) {\n    return;\n}\n");
    /// ```
    pub fn if_(cond: Expr, then: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            otherwise: Vec::new(),
        }
    }

    /// `if (cond) { then } else { otherwise }`
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt};
    /// let (c, a) = (Expr::var("odd"), Expr::var("a"));
    /// let s = Stmt::if_else(c.clone(), vec![Stmt::assign(a.clone(), Expr::int(1))], vec![
    ///     Stmt::assign(a.clone(), Expr::int(0)),
    /// ]);
    /// assert_eq!(s.to_string(), "if (odd) {\n    a = 1;\n} else {\n    a = 0;\n}\n");
    /// let one = vec![Stmt::assign(a, Expr::int(1))];
    /// assert_eq!(Stmt::if_else(c.clone(), one.clone(), vec![]), Stmt::if_(c, one));
    /// ```
    pub fn if_else(cond: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            otherwise,
        }
    }

    /// `for (int var = 0; var < count; var += 1)` under `#pragma unroll`: straight-line code
    /// over a compile-time count.
    ///
    /// ```
    /// use fermat_codegen::cuda::{fe, Expr, Stmt};
    /// let zero = Stmt::store(Expr::var("v"), Expr::var("j"), fe::zero());
    /// let s = Stmt::unrolled("j", 4, vec![zero]);
    /// assert_eq!(
    ///     s.to_string(),
    ///     "#pragma unroll\nfor (int j = 0; j < 4; j += 1) {\n    v[j] = fe_zero();\n}\n"
    /// );
    /// ```
    pub fn unrolled(var: impl Into<String>, count: u64, body: Vec<Stmt>) -> Stmt {
        Stmt::For(
            ForLoop::range(var, Type::Int, Expr::int(0), Expr::int(count as i64))
                .unrolled()
                .body(body),
        )
    }

    /// A grid-stride loop over `[0, n)`:
    /// `for (size_t var = global thread index; var < n; var += threads in the grid)`,
    /// so that any grid size covers any n.
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt};
    /// let s = Stmt::grid_stride_loop("i", Expr::var("n"), vec![]);
    /// assert_eq!(s.to_string(), "for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; \
    ///     i < n; i += (size_t)blockDim.x * gridDim.x) {\n}\n");
    /// ```
    pub fn grid_stride_loop(var: impl Into<String>, n: Expr, body: Vec<Stmt>) -> Stmt {
        let var = var.into();
        Stmt::For(ForLoop {
            cond: Expr::var(var.clone()).lt(n),
            ty: Type::SizeT,
            var,
            start: Expr::global_thread_index(),
            step: Expr::grid_threads(),
            unroll: None,
            body,
        })
    }

    /// A block-stride loop over `[0, n)`:
    /// `for (ty var = threadIdx.x; var < n; var += blockDim.x)`, so that a block of any
    /// size covers any n (one thread per block included, as the host harnesses run).
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt, Type};
    /// let s = Stmt::block_stride_loop("t", Type::U32, Expr::var("m"), vec![]);
    /// assert_eq!(s.to_string(), "for (uint32_t t = threadIdx.x; t < m; t += blockDim.x) {\n}\n");
    /// let s = Stmt::block_stride_loop("t", Type::SizeT, Expr::var("m"), vec![]).to_string();
    /// assert!(s.starts_with("for (size_t t = (size_t)threadIdx.x; t < m;"));
    /// assert!(s.contains("; t += (size_t)blockDim.x) {"));
    /// ```
    pub fn block_stride_loop(var: impl Into<String>, ty: Type, n: Expr, body: Vec<Stmt>) -> Stmt {
        let var = var.into();
        // threadIdx and blockDim are unsigned: only a wider counter needs a cast.
        let widen = |e: Expr| {
            if ty == Type::U32 {
                e
            } else {
                e.cast(ty.clone())
            }
        };
        Stmt::For(ForLoop {
            cond: Expr::var(var.clone()).lt(n),
            start: widen(Expr::thread_idx()),
            step: widen(Expr::block_dim()),
            ty,
            var,
            unroll: None,
            body,
        })
    }

    /// One piece per thread: `const size_t var = global thread index; if (var >= n) return;`
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Stmt};
    /// let s = Stmt::one_per_thread("i", Expr::var("n"));
    /// let src: String = s.iter().map(|s| s.to_string()).collect();
    /// assert_eq!(src, "const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n\
    ///                  if (i >= n) {\n    return;\n}\n");
    /// ```
    pub fn one_per_thread(var: impl Into<String>, n: Expr) -> Vec<Stmt> {
        let var = var.into();
        vec![
            Stmt::const_(Type::SizeT, var.clone(), Expr::global_thread_index()),
            Stmt::if_(Expr::var(var).ge(n), vec![Stmt::Return]),
        ]
    }

    /// `// text`
    ///
    /// Each line of `text` becomes a comment line of its own.
    ///
    /// ```
    /// use fermat_codegen::cuda::Stmt;
    /// assert_eq!(Stmt::comment("radix 4").to_string(), "// radix 4\n");
    /// assert_eq!(Stmt::comment("two\n\nlines").to_string(), "// two\n//\n// lines\n");
    /// ```
    pub fn comment(text: impl Into<String>) -> Stmt {
        Stmt::Comment(text.into())
    }

    /// `__syncthreads();`
    ///
    /// ```
    /// use fermat_codegen::cuda::Stmt;
    /// assert_eq!(Stmt::sync(), Stmt::SyncThreads);
    /// assert_eq!(Stmt::sync().to_string(), "__syncthreads();\n");
    /// ```
    pub fn sync() -> Stmt {
        Stmt::SyncThreads
    }

    /// Calls `visit` on every name this statement declares or uses.
    pub(super) fn names<'a>(&'a self, visit: &mut dyn FnMut(&'static str, &'a str)) {
        match self {
            Stmt::Let { name, init, .. } => {
                visit("variable", name);
                if let Some(e) = init {
                    e.names(visit);
                }
            }
            Stmt::Array { name, .. } => visit("array", name),
            Stmt::Assign { target, value, .. } => {
                target.names(visit);
                value.names(visit);
            }
            Stmt::Expr(e) => e.names(visit),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                cond.names(visit);
                for s in then.iter().chain(otherwise) {
                    s.names(visit);
                }
            }
            Stmt::For(l) => {
                visit("loop counter", &l.var);
                l.start.names(visit);
                l.cond.names(visit);
                l.step.names(visit);
                for s in &l.body {
                    s.names(visit);
                }
            }
            Stmt::Block(body) => {
                for s in body {
                    s.names(visit);
                }
            }
            Stmt::While { cond, body } => {
                cond.names(visit);
                for s in body {
                    s.names(visit);
                }
            }
            Stmt::Switch { on, cases } => {
                on.names(visit);
                for s in cases.iter().flatten() {
                    s.names(visit);
                }
            }
            Stmt::SyncThreads | Stmt::Return | Stmt::Comment(_) => {}
        }
    }
}
