//! Statements and `for` loops.

use super::{BinOp, Expr, Type};

/// The `#pragma unroll` request on a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unroll {
    /// `#pragma unroll`: unroll completely (the trip count must be a compile-time constant).
    Full,
    /// `#pragma unroll N`.
    By(u32),
}

/// A `for` loop: `for (init; cond; step) body`.
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
    pub fn unrolled(mut self) -> ForLoop {
        self.unroll = Some(Unroll::Full);
        self
    }

    /// Asks for unrolling by a factor (`#pragma unroll n`; 1 keeps the loop rolled).
    pub fn unroll_by(mut self, n: u32) -> ForLoop {
        self.unroll = Some(Unroll::By(n));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: Vec<Stmt>) -> ForLoop {
        self.body = body;
        self
    }
}

/// A statement.
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
    pub fn let_(ty: Type, name: impl Into<String>, init: Expr) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: Some(init),
            is_const: false,
        }
    }

    /// `const T name = init;`
    pub fn const_(ty: Type, name: impl Into<String>, init: Expr) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: Some(init),
            is_const: true,
        }
    }

    /// `T name;` (assigned later).
    pub fn declare(ty: Type, name: impl Into<String>) -> Stmt {
        Stmt::Let {
            ty,
            name: name.into(),
            init: None,
            is_const: false,
        }
    }

    /// `T name[len];`
    pub fn array(ty: Type, name: impl Into<String>, len: u64) -> Stmt {
        Stmt::Array {
            ty,
            name: name.into(),
            len,
        }
    }

    /// `target = value;`
    pub fn assign(target: Expr, value: Expr) -> Stmt {
        Stmt::Assign {
            target,
            op: None,
            value,
        }
    }

    /// `target op= value;`
    pub fn assign_op(target: Expr, op: BinOp, value: Expr) -> Stmt {
        Stmt::Assign {
            target,
            op: Some(op),
            value,
        }
    }

    /// `base[index] = value;`: a store to memory (global, shared or a register array).
    pub fn store(base: Expr, index: Expr, value: Expr) -> Stmt {
        Stmt::assign(base.at(index), value)
    }

    /// `e;`
    pub fn expr(e: Expr) -> Stmt {
        Stmt::Expr(e)
    }

    /// `if (cond) { then }`
    pub fn if_(cond: Expr, then: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            otherwise: Vec::new(),
        }
    }

    /// `if (cond) { then } else { otherwise }`
    pub fn if_else(cond: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            otherwise,
        }
    }

    /// `for (int var = 0; var < count; var += 1)` under `#pragma unroll`: straight-line code
    /// over a compile-time count.
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
    pub fn one_per_thread(var: impl Into<String>, n: Expr) -> Vec<Stmt> {
        let var = var.into();
        vec![
            Stmt::const_(Type::SizeT, var.clone(), Expr::global_thread_index()),
            Stmt::if_(Expr::var(var).ge(n), vec![Stmt::Return]),
        ]
    }

    /// `// text`
    pub fn comment(text: impl Into<String>) -> Stmt {
        Stmt::Comment(text.into())
    }

    /// `__syncthreads();`
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
