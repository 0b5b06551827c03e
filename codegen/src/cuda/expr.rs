//! Expressions: variables, literals, built-ins, operators, indexing, calls, casts and
//! selections.

use super::{Lit, Type};

/// A dimension of a CUDA built-in index vector.
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
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(name.into())
    }

    /// An `int` literal.
    pub fn int(v: i64) -> Expr {
        Expr::Lit(Lit::Int(v))
    }

    /// A `uint32_t` literal.
    pub fn u32(v: u32) -> Expr {
        Expr::Lit(Lit::U32(v))
    }

    /// A `uint64_t` literal.
    pub fn u64(v: u64) -> Expr {
        Expr::Lit(Lit::U64(v))
    }

    /// `true` or `false`.
    pub fn bool(v: bool) -> Expr {
        Expr::Lit(Lit::Bool(v))
    }

    /// `func(args)`.
    pub fn call(func: impl Into<String>, args: impl IntoIterator<Item = Expr>) -> Expr {
        Expr::Call {
            func: func.into(),
            template_args: Vec::new(),
            args: args.into_iter().collect(),
        }
    }

    /// `func<template_args>(args)`.
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
    pub fn thread_idx() -> Expr {
        Expr::Builtin(Builtin::ThreadIdx, Dim::X)
    }

    /// `blockIdx.x`.
    pub fn block_idx() -> Expr {
        Expr::Builtin(Builtin::BlockIdx, Dim::X)
    }

    /// `blockDim.x`.
    pub fn block_dim() -> Expr {
        Expr::Builtin(Builtin::BlockDim, Dim::X)
    }

    /// `gridDim.x`.
    pub fn grid_dim() -> Expr {
        Expr::Builtin(Builtin::GridDim, Dim::X)
    }

    /// The global thread index, `(size_t)blockIdx.x * blockDim.x + threadIdx.x`, widened
    /// before the product so that grids beyond 2^32 threads index correctly.
    pub fn global_thread_index() -> Expr {
        Expr::block_idx().cast(Type::SizeT) * Expr::block_dim() + Expr::thread_idx()
    }

    /// The number of threads in the grid, `(size_t)blockDim.x * gridDim.x`: the step of a
    /// grid-stride loop.
    pub fn grid_threads() -> Expr {
        Expr::block_dim().cast(Type::SizeT) * Expr::grid_dim()
    }

    /// `self[index]`.
    pub fn at(self, index: Expr) -> Expr {
        Expr::Index(Box::new(self), Box::new(index))
    }

    /// `(ty)self`.
    pub fn cast(self, ty: Type) -> Expr {
        Expr::Cast(ty, Box::new(self))
    }

    /// `cond ? a : b`.
    pub fn select(cond: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Select(Box::new(cond), Box::new(a), Box::new(b))
    }

    /// `self op rhs`.
    pub fn binary(self, op: BinOp, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(self), Box::new(rhs))
    }

    /// `self < rhs`.
    pub fn lt(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Lt, rhs)
    }

    /// `self <= rhs`.
    pub fn le(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Le, rhs)
    }

    /// `self > rhs`.
    pub fn gt(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Gt, rhs)
    }

    /// `self >= rhs`.
    pub fn ge(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Ge, rhs)
    }

    /// `self == rhs`.
    pub fn equals(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Eq, rhs)
    }

    /// `self != rhs`.
    pub fn not_equals(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Ne, rhs)
    }

    /// `self && rhs`.
    pub fn and_also(self, rhs: Expr) -> Expr {
        self.binary(BinOp::And, rhs)
    }

    /// `self || rhs`.
    pub fn or_else(self, rhs: Expr) -> Expr {
        self.binary(BinOp::Or, rhs)
    }

    /// `!self`.
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
