//! Expressions: variables, literals, built-ins, operators, indexing, calls, casts and
//! selections.

use super::{Lit, Type};

/// A dimension of a CUDA built-in index vector.
///
/// ```
/// use fermat_codegen::cuda::{Builtin, Dim, Expr};
/// assert_eq!(Expr::Builtin(Builtin::BlockIdx, Dim::Y).to_string(), "blockIdx.y");
/// assert_eq!(Expr::thread_idx(), Expr::Builtin(Builtin::ThreadIdx, Dim::X));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

/// A CUDA built-in variable.
///
/// ```
/// use fermat_codegen::cuda::{Builtin, Dim, Expr};
/// let e = Expr::Builtin(Builtin::BlockDim, Dim::X) * Expr::Builtin(Builtin::GridDim, Dim::X);
/// assert_eq!(e.to_string(), "blockDim.x * gridDim.x");
/// assert_eq!(Expr::block_idx(), Expr::Builtin(Builtin::BlockIdx, Dim::X));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `threadIdx`
    ThreadIdx,
    /// `blockIdx`
    BlockIdx,
    /// `blockDim`
    BlockDim,
    /// `gridDim`
    GridDim,
}

/// A unary operator.
///
/// `-` and `~` are Rust's `Neg` and `Not` on [`Expr`]; `!` is [`Expr::logical_not`].
///
/// ```
/// use fermat_codegen::cuda::{Expr, UnOp};
/// let m = Expr::var("m");
/// assert_eq!(!m.clone(), Expr::Unary(UnOp::BitNot, Box::new(m.clone())));
/// assert_eq!((!m.clone()).to_string(), "~m");
/// assert_eq!((-(-m.clone())).to_string(), "-(-m)");
/// assert_eq!(m.logical_not().to_string(), "!m");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `~x`
    BitNot,
    /// `!x`
    Not,
}

/// A binary operator.
///
/// The arithmetic and bitwise operators are also Rust's operators on [`Expr`] (`a + b`,
/// `a << b`, `a & b`, …); the comparisons and the logical ones are methods ([`Expr::lt`],
/// [`Expr::and_also`], …). [`Stmt::assign_op`](crate::cuda::Stmt::assign_op) takes one for `op=`.
///
/// ```
/// use fermat_codegen::cuda::{BinOp, Expr, Stmt};
/// let (a, n) = (Expr::var("a"), Expr::var("n"));
/// assert_eq!(a.clone().binary(BinOp::Rem, n.clone()), a.clone() % n.clone());
/// assert_eq!((a.clone() % n).to_string(), "a % n");
/// assert_eq!(Stmt::assign_op(a, BinOp::Shl, Expr::int(1)).to_string(), "a <<= 1;\n");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// An expression.
///
/// Built with the constructors below and Rust's operators, and printed (`Display`) with the
/// fewest parentheses C's precedence allows, plus parentheses around the operands of mixed
/// shifts and bitwise operators, whose precedence surprises readers.
///
/// ```
/// use fermat_codegen::cuda::Expr;
/// let (a, b, c) = (Expr::var("a"), Expr::var("b"), Expr::var("c"));
/// assert_eq!((a.clone() + b.clone() * c.clone()).to_string(), "a + b * c");
/// assert_eq!(((a + b) * c).to_string(), "(a + b) * c");
/// let t = Expr::var("t");
/// let e = ((t.clone() >> Expr::int(3)) << Expr::int(4)) | (t & Expr::int(7));
/// assert_eq!(e.to_string(), "((t >> 3) << 4) | (t & 7)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A variable, parameter or array name.
    Var(String),
    /// A literal.
    Lit(Lit),
    /// A built-in index variable, e.g. `threadIdx.x`.
    Builtin(Builtin, Dim),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `base[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `func<template_args>(args)`; the template list is omitted when empty.
    Call {
        /// The function's name.
        func: String,
        /// Compile-time template arguments (e.g. the power of r of `fe_mul_rpow<i>`).
        template_args: Vec<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `(T)e`.
    Cast(Type, Box<Expr>),
    /// `c ? a : b`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// A variable.
    ///
    /// The name is not checked here but by [`Kernel::check`](crate::cuda::Kernel::check).
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::var("n"), Expr::Var("n".to_string()));
    /// assert_eq!((Expr::var("n") - Expr::int(1)).to_string(), "n - 1");
    /// ```
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(name.into())
    }

    /// An `int` literal.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::int(-3).to_string(), "-3");
    /// assert_eq!((-Expr::int(-3)).to_string(), "-(-3)");
    /// ```
    pub fn int(v: i64) -> Expr {
        Expr::Lit(Lit::Int(v))
    }

    /// A `uint32_t` literal.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::u32(7).to_string(), "7u");
    /// assert_eq!((Expr::u32(1) << Expr::var("b")).to_string(), "1u << b");
    /// ```
    pub fn u32(v: u32) -> Expr {
        Expr::Lit(Lit::U32(v))
    }

    /// A `uint64_t` literal.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::u64(7).to_string(), "7ull");
    /// assert_eq!((Expr::u64(1) << Expr::int(40)).to_string(), "1ull << 40");
    /// ```
    pub fn u64(v: u64) -> Expr {
        Expr::Lit(Lit::U64(v))
    }

    /// `true` or `false`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::bool(true).to_string(), "true");
    /// assert_eq!(Expr::bool(false).logical_not().to_string(), "!false");
    /// ```
    pub fn bool(v: bool) -> Expr {
        Expr::Lit(Lit::Bool(v))
    }

    /// `func(args)`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let sum = Expr::call("fe_add", [Expr::var("a"), Expr::var("b")]);
    /// assert_eq!(sum.to_string(), "fe_add(a, b)");
    /// assert_eq!(Expr::call("fe_zero", []).to_string(), "fe_zero()");
    /// ```
    pub fn call(func: impl Into<String>, args: impl IntoIterator<Item = Expr>) -> Expr {
        Expr::Call {
            func: func.into(),
            template_args: Vec::new(),
            args: args.into_iter().collect(),
        }
    }

    /// `func<template_args>(args)`.
    ///
    /// A template argument other than a name, literal, index or call is parenthesised, so that a
    /// `>` inside it cannot close the list.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let e = Expr::call_t("fe_mul_rpow", [Expr::int(3)], [Expr::var("a")]);
    /// assert_eq!(e.to_string(), "fe_mul_rpow<3>(a)");
    /// let shift = Expr::var("i") >> Expr::int(1);
    /// assert_eq!(Expr::call_t("f", [shift], []).to_string(), "f<(i >> 1)>()");
    /// ```
    pub fn call_t(
        func: impl Into<String>,
        template_args: impl IntoIterator<Item = Expr>,
        args: impl IntoIterator<Item = Expr>,
    ) -> Expr {
        Expr::Call {
            func: func.into(),
            template_args: template_args.into_iter().collect(),
            args: args.into_iter().collect(),
        }
    }

    /// `threadIdx.x`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::thread_idx().to_string(), "threadIdx.x");
    /// assert_eq!((Expr::thread_idx() & Expr::int(31)).to_string(), "threadIdx.x & 31");
    /// ```
    pub fn thread_idx() -> Expr {
        Expr::Builtin(Builtin::ThreadIdx, Dim::X)
    }

    /// `blockIdx.x`.
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Type};
    /// assert_eq!(Expr::block_idx().to_string(), "blockIdx.x");
    /// assert_eq!(Expr::block_idx().cast(Type::SizeT).to_string(), "(size_t)blockIdx.x");
    /// ```
    pub fn block_idx() -> Expr {
        Expr::Builtin(Builtin::BlockIdx, Dim::X)
    }

    /// `blockDim.x`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::block_dim().to_string(), "blockDim.x");
    /// let next = Expr::thread_idx() + Expr::block_dim();
    /// assert_eq!(next.to_string(), "threadIdx.x + blockDim.x");
    /// ```
    pub fn block_dim() -> Expr {
        Expr::Builtin(Builtin::BlockDim, Dim::X)
    }

    /// `gridDim.x`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::grid_dim().to_string(), "gridDim.x");
    /// let last = Expr::block_idx().equals(Expr::grid_dim() - Expr::int(1));
    /// assert_eq!(last.to_string(), "blockIdx.x == gridDim.x - 1");
    /// ```
    pub fn grid_dim() -> Expr {
        Expr::Builtin(Builtin::GridDim, Dim::X)
    }

    /// The global thread index, `(size_t)blockIdx.x * blockDim.x + threadIdx.x`, widened
    /// before the product so that grids beyond 2^32 threads index correctly.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let i = Expr::global_thread_index().to_string();
    /// assert_eq!(i, "(size_t)blockIdx.x * blockDim.x + threadIdx.x");
    /// ```
    pub fn global_thread_index() -> Expr {
        Expr::block_idx().cast(Type::SizeT) * Expr::block_dim() + Expr::thread_idx()
    }

    /// The number of threads in the grid, `(size_t)blockDim.x * gridDim.x`: the step of a
    /// grid-stride loop.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::grid_threads().to_string(), "(size_t)blockDim.x * gridDim.x");
    /// ```
    pub fn grid_threads() -> Expr {
        Expr::block_dim().cast(Type::SizeT) * Expr::grid_dim()
    }

    /// `self[index]`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let x = Expr::var("x");
    /// assert_eq!(x.clone().at(Expr::var("i") + Expr::int(1)).to_string(), "x[i + 1]");
    /// let base = x + Expr::var("off");
    /// assert_eq!(base.at(Expr::var("i")).to_string(), "(x + off)[i]");
    /// ```
    pub fn at(self, index: Expr) -> Expr {
        Expr::Index(Box::new(self), Box::new(index))
    }

    /// `(ty)self`.
    ///
    /// ```
    /// use fermat_codegen::cuda::{Expr, Type};
    /// let (a, b) = (Expr::var("a"), Expr::var("b"));
    /// assert_eq!((a.clone() + b).cast(Type::U64).to_string(), "(uint64_t)(a + b)");
    /// assert_eq!((a.cast(Type::U64) << Expr::int(32)).to_string(), "(uint64_t)a << 32");
    /// ```
    pub fn cast(self, ty: Type) -> Expr {
        Expr::Cast(ty, Box::new(self))
    }

    /// `cond ? a : b`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let (a, b) = (Expr::var("a"), Expr::var("b"));
    /// let min = Expr::select(a.clone().lt(b.clone()), a, b);
    /// assert_eq!(min.to_string(), "a < b ? a : b");
    /// assert_eq!((min + Expr::int(1)).to_string(), "(a < b ? a : b) + 1");
    /// ```
    pub fn select(cond: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Select(Box::new(cond), Box::new(a), Box::new(b))
    }

    /// `self op rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::{BinOp, Expr};
    /// let e = Expr::var("a").binary(BinOp::BitXor, Expr::var("b"));
    /// assert_eq!(e, Expr::var("a") ^ Expr::var("b"));
    /// assert_eq!(e.to_string(), "a ^ b");
    /// ```
    pub fn binary(self, op: BinOp, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(self), Box::new(rhs))
    }

    /// `self < rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let e = (Expr::var("i") + Expr::int(1)).lt(Expr::var("n"));
    /// assert_eq!(e.to_string(), "i + 1 < n");
    /// ```
    pub fn lt(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Lt, rhs)
    }

    /// `self <= rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let e = Expr::var("j").le(Expr::var("k") * Expr::int(2));
    /// assert_eq!(e.to_string(), "j <= k * 2");
    /// ```
    pub fn le(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Le, rhs)
    }

    /// `self > rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// assert_eq!(Expr::var("len").gt(Expr::int(32)).to_string(), "len > 32");
    /// ```
    pub fn gt(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Gt, rhs)
    }

    /// `self >= rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let past_end = Expr::global_thread_index().ge(Expr::var("n"));
    /// assert_eq!(past_end.to_string(), "(size_t)blockIdx.x * blockDim.x + threadIdx.x >= n");
    /// ```
    pub fn ge(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Ge, rhs)
    }

    /// `self == rhs`.
    ///
    /// C's `==` binds tighter than `&`: the printer parenthesises the mask.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let even = (Expr::var("i") & Expr::int(1)).equals(Expr::int(0));
    /// assert_eq!(even.to_string(), "(i & 1) == 0");
    /// ```
    pub fn equals(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Eq, rhs)
    }

    /// `self != rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let e = (Expr::var("i") % Expr::var("m")).not_equals(Expr::int(0));
    /// assert_eq!(e.to_string(), "i % m != 0");
    /// ```
    pub fn not_equals(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Ne, rhs)
    }

    /// `self && rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let (i, j) = (Expr::var("i"), Expr::var("j"));
    /// let inside = i.lt(Expr::var("n")).and_also(j.lt(Expr::var("m")));
    /// assert_eq!(inside.to_string(), "i < n && j < m");
    /// ```
    pub fn and_also(self, rhs: Expr) -> Expr {
        self.binary(BinOp::And, rhs)
    }

    /// `self || rhs`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let (a, b, c) = (Expr::var("a"), Expr::var("b"), Expr::var("c"));
    /// assert_eq!(a.clone().or_else(b.clone()).to_string(), "a || b");
    /// assert_eq!(a.and_also(b.or_else(c)).to_string(), "a && (b || c)");
    /// ```
    pub fn or_else(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Or, rhs)
    }

    /// `!self`.
    ///
    /// ```
    /// use fermat_codegen::cuda::Expr;
    /// let (i, n) = (Expr::var("i"), Expr::var("n"));
    /// assert_eq!(i.clone().lt(n).logical_not().to_string(), "!(i < n)");
    /// assert_eq!((!i).to_string(), "~i", "Rust's `!` is the bitwise complement");
    /// ```
    pub fn logical_not(self) -> Expr {
        Expr::Unary(UnOp::Not, Box::new(self))
    }

    /// Calls `visit` on every name this expression uses (variables and called functions).
    pub(super) fn names<'a>(&'a self, visit: &mut dyn FnMut(&'static str, &'a str)) {
        match self {
            Expr::Var(n) => visit("variable", n),
            Expr::Lit(_) | Expr::Builtin(..) => {}
            Expr::Unary(_, e) | Expr::Cast(_, e) => e.names(visit),
            Expr::Binary(_, a, b) | Expr::Index(a, b) => {
                a.names(visit);
                b.names(visit);
            }
            Expr::Call {
                func,
                template_args,
                args,
            } => {
                visit("function", func);
                for a in template_args.iter().chain(args) {
                    a.names(visit);
                }
            }
            Expr::Select(c, a, b) => {
                c.names(visit);
                a.names(visit);
                b.names(visit);
            }
        }
    }
}

macro_rules! binary_ops {
    ($($trait:ident $method:ident $op:ident),* $(,)?) => {
        $(
            impl std::ops::$trait for Expr {
                type Output = Expr;
                fn $method(self, rhs: Expr) -> Expr {
                    self.binary(BinOp::$op, rhs)
                }
            }
        )*
    };
}

binary_ops!(
    Add add Add,
    Sub sub Sub,
    Mul mul Mul,
    Div div Div,
    Rem rem Rem,
    Shl shl Shl,
    Shr shr Shr,
    BitAnd bitand BitAnd,
    BitOr bitor BitOr,
    BitXor bitxor BitXor,
);

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::Unary(UnOp::Neg, Box::new(self))
    }
}

/// Bitwise complement `~x` (as for Rust integers; [`Expr::logical_not`] is `!x`).
impl std::ops::Not for Expr {
    type Output = Expr;
    fn not(self) -> Expr {
        Expr::Unary(UnOp::BitNot, Box::new(self))
    }
}
