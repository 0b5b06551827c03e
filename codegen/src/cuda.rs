//! A typed CUDA C AST and its printer: the only way kernel bodies are written
//! (STYLE.md habit 4 — no string glue for code).
//!
//! The AST covers what lowered kernel plans need: one-piece-per-thread and grid-stride
//! loops, index arithmetic with shifts and masks, register arrays of `fe_t`, straight-line
//! calls of the field prelude's uniform API (`fe_load`, `fe_add`, `fe_mul_rpow<i>`, …, see
//! [`fe`]), constant twiddle tables, shared-memory exchange with barriers, and stores.
//! Printing never fails; [`Kernel::check`] validates the names first.
//!
//! ```
//! use fermat_codegen::cuda::{fe, Expr, Kernel, Param, Stmt, Type};
//! let (x, n, i) = (Expr::var("x"), Expr::var("n"), Expr::var("i"));
//! let body = vec![Stmt::grid_stride_loop("i", n.clone(), vec![
//!     Stmt::let_(Type::Fe, "a", fe::load(x.clone(), i.clone(), n.clone())),
//!     fe::store(x, i, n, fe::add(Expr::var("a"), Expr::var("a"))),
//! ])];
//! let k = Kernel::new("double_all", vec![
//!     Param::new("x", Type::ptr(Type::Word)),
//!     Param::new("n", Type::SizeT),
//! ], body);
//! assert!(k.to_string().contains("fe_store(x, i, n, fe_add(a, a));"));
//! ```

use crate::error::CodegenError;
use std::fmt;

/// A CUDA C type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void` (kernel results).
    Void,
    /// `bool`.
    Bool,
    /// `int`: loop counters and small compile-time indices.
    Int,
    /// `uint32_t`.
    U32,
    /// `uint64_t`.
    U64,
    /// `int64_t`.
    I64,
    /// `size_t`: element indices and sizes.
    SizeT,
    /// `fe_t`: one field element in registers (the prelude defines it).
    Fe,
    /// `fe_word_t`: one memory word of a field vector (`uint32_t` for 32-bit primes,
    /// `uint64_t` otherwise; the prelude defines it).
    Word,
    /// A pointer, optionally to const data and marked `__restrict__`.
    Ptr {
        /// The pointee.
        to: Box<Type>,
        /// Whether the pointee is `const`.
        is_const: bool,
        /// Whether the pointer is `__restrict__` (no aliasing with other parameters).
        restrict: bool,
    },
}

impl Type {
    /// `T* __restrict__`: a writable kernel argument.
    pub fn ptr(to: Type) -> Type {
        Type::Ptr {
            to: Box::new(to),
            is_const: false,
            restrict: true,
        }
    }

    /// `const T* __restrict__`: a read-only kernel argument.
    pub fn const_ptr(to: Type) -> Type {
        Type::Ptr {
            to: Box::new(to),
            is_const: true,
            restrict: true,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::U32 => f.write_str("uint32_t"),
            Type::U64 => f.write_str("uint64_t"),
            Type::I64 => f.write_str("int64_t"),
            Type::SizeT => f.write_str("size_t"),
            Type::Fe => f.write_str("fe_t"),
            Type::Word => f.write_str("fe_word_t"),
            Type::Ptr {
                to,
                is_const,
                restrict,
            } => {
                if *is_const {
                    f.write_str("const ")?;
                }
                write!(f, "{to}*")?;
                if *restrict {
                    f.write_str(" __restrict__")?;
                }
                Ok(())
            }
        }
    }
}

/// A literal constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lit {
    /// An `int` literal.
    Int(i64),
    /// A `uint32_t` literal (`u` suffix).
    U32(u32),
    /// A `uint64_t` literal (`ull` suffix).
    U64(u64),
    /// `true` or `false`.
    Bool(bool),
}

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

impl BinOp {
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// C precedence level: smaller binds tighter.
    fn prec(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 3,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Shl | BinOp::Shr => 5,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 6,
            BinOp::Eq | BinOp::Ne => 7,
            BinOp::BitAnd => 8,
            BinOp::BitXor => 9,
            BinOp::BitOr => 10,
            BinOp::And => 11,
            BinOp::Or => 12,
        }
    }

    /// Shifts and bitwise operators: their operands are parenthesised unless they are the
    /// same operator, because C's precedence there surprises readers (`a << b + c`).
    fn is_bitwise(self) -> bool {
        matches!(
            self,
            BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
        )
    }
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

const PREC_POSTFIX: u8 = 1;
const PREC_UNARY: u8 = 2;
const PREC_SELECT: u8 = 13;

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

    fn prec(&self) -> u8 {
        match self {
            Expr::Var(_) | Expr::Builtin(..) | Expr::Index(..) | Expr::Call { .. } => PREC_POSTFIX,
            Expr::Lit(Lit::Int(v)) if *v < 0 => PREC_UNARY,
            Expr::Lit(_) => PREC_POSTFIX,
            Expr::Unary(..) | Expr::Cast(..) => PREC_UNARY,
            Expr::Binary(op, ..) => op.prec(),
            Expr::Select(..) => PREC_SELECT,
        }
    }

    /// Prints `self`, parenthesised when it binds looser than `max_prec` allows.
    fn fmt_prec(&self, f: &mut fmt::Formatter<'_>, max_prec: u8) -> fmt::Result {
        if self.prec() > max_prec {
            f.write_str("(")?;
            self.fmt_bare(f)?;
            f.write_str(")")
        } else {
            self.fmt_bare(f)
        }
    }

    fn fmt_bare(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Var(name) => f.write_str(name),
            Expr::Lit(Lit::Int(v)) => write!(f, "{v}"),
            Expr::Lit(Lit::U32(v)) => write!(f, "{v}u"),
            Expr::Lit(Lit::U64(v)) => write!(f, "{v}ull"),
            Expr::Lit(Lit::Bool(v)) => write!(f, "{v}"),
            Expr::Builtin(b, d) => {
                let b = match b {
                    Builtin::ThreadIdx => "threadIdx",
                    Builtin::BlockIdx => "blockIdx",
                    Builtin::BlockDim => "blockDim",
                    Builtin::GridDim => "gridDim",
                };
                let d = match d {
                    Dim::X => "x",
                    Dim::Y => "y",
                    Dim::Z => "z",
                };
                write!(f, "{b}.{d}")
            }
            Expr::Unary(op, e) => {
                f.write_str(match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "!",
                })?;
                // `- -x` must not print as `--x`.
                let nested_sign = matches!(**e, Expr::Unary(UnOp::Neg, _))
                    || matches!(**e, Expr::Lit(Lit::Int(v)) if v < 0);
                if nested_sign {
                    f.write_str("(")?;
                    e.fmt_bare(f)?;
                    f.write_str(")")
                } else {
                    e.fmt_prec(f, PREC_UNARY)
                }
            }
            Expr::Binary(op, a, b) => {
                let p = op.prec();
                let side = |e: &Expr, max: u8, f: &mut fmt::Formatter<'_>| match e {
                    Expr::Binary(inner, ..) if op.is_bitwise() && inner != op => {
                        f.write_str("(")?;
                        e.fmt_bare(f)?;
                        f.write_str(")")
                    }
                    _ => e.fmt_prec(f, max),
                };
                // Left-associative: the right operand must bind strictly tighter.
                side(a, p, f)?;
                write!(f, " {} ", op.symbol())?;
                side(b, p - 1, f)
            }
            Expr::Index(base, index) => {
                base.fmt_prec(f, PREC_POSTFIX)?;
                f.write_str("[")?;
                index.fmt_bare(f)?;
                f.write_str("]")
            }
            Expr::Call {
                func,
                template_args,
                args,
            } => {
                f.write_str(func)?;
                if !template_args.is_empty() {
                    f.write_str("<")?;
                    for (i, a) in template_args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        // A bare `>` or `>>` inside would close the template list.
                        a.fmt_prec(f, PREC_POSTFIX)?;
                    }
                    f.write_str(">")?;
                }
                f.write_str("(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    a.fmt_bare(f)?;
                }
                f.write_str(")")
            }
            Expr::Cast(ty, e) => {
                write!(f, "({ty})")?;
                e.fmt_prec(f, PREC_UNARY)
            }
            Expr::Select(c, a, b) => {
                c.fmt_prec(f, PREC_SELECT - 1)?;
                f.write_str(" ? ")?;
                a.fmt_prec(f, PREC_SELECT)?;
                f.write_str(" : ")?;
                b.fmt_prec(f, PREC_SELECT)
            }
        }
    }

    /// Calls `visit` on every name this expression uses (variables and called functions).
    fn names<'a>(&'a self, visit: &mut dyn FnMut(&'static str, &'a str)) {
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

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_bare(f)
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

    fn print(&self, out: &mut Printer) {
        match self {
            Stmt::Let {
                ty,
                name,
                init,
                is_const,
            } => {
                let c = if *is_const { "const " } else { "" };
                match init {
                    Some(e) => out.line(format_args!("{c}{ty} {name} = {e};")),
                    None => out.line(format_args!("{c}{ty} {name};")),
                }
            }
            Stmt::Array { ty, name, len } => out.line(format_args!("{ty} {name}[{len}];")),
            Stmt::Assign { target, op, value } => {
                let op = op.map(BinOp::symbol).unwrap_or("");
                out.line(format_args!("{target} {op}= {value};"))
            }
            Stmt::Expr(e) => out.line(format_args!("{e};")),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                out.line(format_args!("if ({cond}) {{"));
                out.block(then);
                if otherwise.is_empty() {
                    out.line(format_args!("}}"));
                } else {
                    out.line(format_args!("}} else {{"));
                    out.block(otherwise);
                    out.line(format_args!("}}"));
                }
            }
            Stmt::For(l) => {
                match l.unroll {
                    Some(Unroll::Full) => out.line(format_args!("#pragma unroll")),
                    Some(Unroll::By(n)) => out.line(format_args!("#pragma unroll {n}")),
                    None => {}
                }
                out.line(format_args!(
                    "for ({} {} = {}; {}; {} += {}) {{",
                    l.ty, l.var, l.start, l.cond, l.var, l.step
                ));
                out.block(&l.body);
                out.line(format_args!("}}"));
            }
            Stmt::SyncThreads => out.line(format_args!("__syncthreads();")),
            Stmt::Return => out.line(format_args!("return;")),
            Stmt::Comment(text) => {
                // Any line break would end the comment: each line gets its own `//`.
                for line in text.split(|c: char| c.is_control() && c != '\t') {
                    let line = line.trim_end();
                    if line.is_empty() {
                        out.line(format_args!("//"));
                    } else {
                        out.line(format_args!("// {line}"));
                    }
                }
            }
            Stmt::Block(body) => {
                out.line(format_args!("{{"));
                out.block(body);
                out.line(format_args!("}}"));
            }
            Stmt::Switch { on, cases } => {
                out.line(format_args!("switch ({on}) {{"));
                for (i, body) in cases.iter().enumerate() {
                    if i + 1 == cases.len() {
                        out.line(format_args!("default: {{"));
                    } else {
                        out.line(format_args!("case {i}: {{"));
                    }
                    out.block(body);
                    out.line(format_args!("}} break;"));
                }
                out.line(format_args!("}}"));
            }
        }
    }

    /// Calls `visit` on every name this statement declares or uses.
    fn names<'a>(&'a self, visit: &mut dyn FnMut(&'static str, &'a str)) {
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

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        self.print(&mut p);
        f.write_str(&p.out)
    }
}

/// An indenting line printer.
#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, args: fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        // Writing to a String cannot fail.
        let _ = self.out.write_fmt(args);
        self.out.push('\n');
    }

    fn block(&mut self, body: &[Stmt]) {
        self.indent += 1;
        for s in body {
            s.print(self);
        }
        self.indent -= 1;
    }
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
}

impl Param {
    /// A parameter.
    pub fn new(name: impl Into<String>, ty: Type) -> Param {
        Param {
            name: name.into(),
            ty,
        }
    }
}

/// `__launch_bounds__(max_threads[, min_blocks])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    /// The most threads per block the kernel will be launched with.
    pub max_threads: u32,
    /// The fewest resident blocks per multiprocessor wanted, if any.
    pub min_blocks: Option<u32>,
}

/// A statically sized shared-memory array, `__shared__ T name[len];`.
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
    pub fn new(ty: Type, name: impl Into<String>, len: u64) -> SharedArray {
        SharedArray {
            ty,
            name: name.into(),
            len,
        }
    }
}

/// A `__global__` kernel: `extern "C"` so that the runtime finds it by its plain name.
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
    /// The body.
    pub body: Vec<Stmt>,
}

impl Kernel {
    /// A kernel without documentation, launch bounds or shared memory.
    pub fn new(name: impl Into<String>, params: Vec<Param>, body: Vec<Stmt>) -> Kernel {
        Kernel {
            name: name.into(),
            doc: Vec::new(),
            params,
            launch_bounds: None,
            shared_mem: Vec::new(),
            body,
        }
    }

    /// Adds a comment line above the kernel.
    pub fn doc(mut self, line: impl Into<String>) -> Kernel {
        self.doc.push(line.into());
        self
    }

    /// Sets `__launch_bounds__(max_threads)`.
    pub fn launch_bounds(mut self, max_threads: u32) -> Kernel {
        self.launch_bounds = Some(LaunchBounds {
            max_threads,
            min_blocks: None,
        });
        self
    }

    /// Sets `__launch_bounds__(max_threads, min_blocks)`: ptxas then keeps to the registers
    /// that let `min_blocks` blocks reside on one multiprocessor.
    pub fn launch_bounds_min(mut self, max_threads: u32, min_blocks: u32) -> Kernel {
        self.launch_bounds = Some(LaunchBounds {
            max_threads,
            min_blocks: Some(min_blocks),
        });
        self
    }

    /// Adds a shared-memory array.
    pub fn shared(mut self, array: SharedArray) -> Kernel {
        self.shared_mem.push(array);
        self
    }

    /// Checks every name the kernel declares or uses: each must be a C identifier that is
    /// not a reserved word, so that the printed source means what the AST says.
    pub fn check(&self) -> Result<(), CodegenError> {
        check_identifier("kernel", &self.name)?;
        for p in &self.params {
            check_identifier("parameter", &p.name)?;
        }
        for s in &self.shared_mem {
            check_identifier("shared array", &s.name)?;
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

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        for line in &self.doc {
            Stmt::Comment(line.clone()).print(&mut p);
        }
        let bounds = match self.launch_bounds {
            Some(LaunchBounds {
                max_threads,
                min_blocks: Some(b),
            }) => format!("__launch_bounds__({max_threads}, {b}) "),
            Some(LaunchBounds {
                max_threads,
                min_blocks: None,
            }) => format!("__launch_bounds__({max_threads}) "),
            None => String::new(),
        };
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{} {}", p.ty, p.name))
            .collect();
        p.line(format_args!(
            "extern \"C\" __global__ void {bounds}{}({}) {{",
            self.name,
            params.join(", ")
        ));
        p.indent += 1;
        for s in &self.shared_mem {
            p.line(format_args!("__shared__ {} {}[{}];", s.ty, s.name, s.len));
        }
        p.indent -= 1;
        p.block(&self.body);
        p.line(format_args!("}}"));
        f.write_str(&p.out)
    }
}

/// A table of constant field words at file scope: twiddles in the field's table form (see
/// [`fe::mul_mont`]).
///
/// The values are raw memory words in the field's layout (digit-major for SRGFNs, as
/// `fe_load(table, j, m)` reads them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Table {
    /// The table's name.
    pub name: String,
    /// Where it lives.
    pub space: Space,
    /// The words.
    pub words: Vec<u64>,
}

/// The memory a [`Table`] lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `__constant__`: broadcast to a warp whose threads read one word, serialised when
    /// they read several.
    Constant,
    /// `__device__` global memory, read through L1: a warp's reads of neighbouring words
    /// take one wavefront.
    Device,
}

impl Table {
    /// A `__constant__` table of field words.
    pub fn new(name: impl Into<String>, words: Vec<u64>) -> Table {
        Table {
            name: name.into(),
            space: Space::Constant,
            words,
        }
    }

    /// A `__device__` table of field words, for reads that differ across a warp.
    pub fn device(name: impl Into<String>, words: Vec<u64>) -> Table {
        Table {
            name: name.into(),
            space: Space::Device,
            words,
        }
    }

    /// Checks the name, and that every word fits `word_bits` bits.
    pub fn check(&self, word_bits: u32) -> Result<(), CodegenError> {
        check_identifier("table", &self.name)?;
        for (index, &value) in self.words.iter().enumerate() {
            if word_bits < 64 && value >> word_bits != 0 {
                return Err(CodegenError::TableValue {
                    table: self.name.clone(),
                    index,
                    value,
                    bits: word_bits,
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A zero-length array is not valid C++; an empty table keeps one unused word.
        let len = self.words.len().max(1);
        let space = match self.space {
            Space::Constant => "__constant__",
            Space::Device => "__device__",
        };
        writeln!(f, "{space} const fe_word_t {}[{len}] = {{", self.name)?;
        if self.words.is_empty() {
            writeln!(f, "    0ull,")?;
        }
        for chunk in self.words.chunks(4) {
            let row: Vec<String> = chunk.iter().map(|w| format!("{w}ull")).collect();
            writeln!(f, "    {},", row.join(", "))?;
        }
        writeln!(f, "}};")
    }
}

/// C and CUDA words that cannot name anything of ours.
const RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "namespace",
    "new",
    "delete",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "true",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "class",
    "operator",
    "private",
    "public",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "size_t",
    "fe_t",
    "fe_word_t",
];

/// Checks that `name` is a C identifier and not a reserved word.
pub fn check_identifier(what: &'static str, name: &str) -> Result<(), CodegenError> {
    let mut chars = name.chars();
    let ok = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    };
    // Names with a double underscore, or `_` and a capital, belong to the implementation.
    let reserved = RESERVED.contains(&name)
        || name.contains("__")
        || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()));
    if ok && !reserved {
        Ok(())
    } else {
        Err(CodegenError::BadIdentifier {
            what,
            name: name.to_string(),
        })
    }
}

/// The field prelude's uniform device API as typed builders (see [`crate::prelude`]): kernel
/// bodies written with these are field-agnostic.
pub mod fe {
    use super::{Expr, Stmt};

    /// `fe_load(base, idx, n)`: element `idx` of a vector of `n` elements (SRGFN digit c at
    /// `base[c * n + idx]`; word primes `base[idx]`).
    pub fn load(base: Expr, idx: Expr, n: Expr) -> Expr {
        Expr::call("fe_load", [base, idx, n])
    }

    /// `fe_load_row(table, row)`: row `row` of a table of constants (SRGFN digit c at
    /// `table[row * k + c]`; word primes `table[row]`).
    pub fn load_row(table: Expr, row: Expr) -> Expr {
        Expr::call("fe_load_row", [table, row])
    }

    /// `fe_store(base, idx, n, v);`
    pub fn store(base: Expr, idx: Expr, n: Expr, v: Expr) -> Stmt {
        Stmt::expr(Expr::call("fe_store", [base, idx, n, v]))
    }

    /// `fe_add(a, b)`: a + b.
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::call("fe_add", [a, b])
    }

    /// `fe_sub(a, b)`: a − b.
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::call("fe_sub", [a, b])
    }

    /// `fe_neg(a)`: −a.
    pub fn neg(a: Expr) -> Expr {
        Expr::call("fe_neg", [a])
    }

    /// `fe_mul(a, b)`: a · b, both canonical.
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::call("fe_mul", [a, b])
    }

    /// `fe_mul_mont(a, t)`: a · w for a constant `t` in the field's table form (w·R mod p,
    /// R = 2^32 or 2^64, for word primes; w itself for SRGFNs).
    pub fn mul_mont(a: Expr, t: Expr) -> Expr {
        Expr::call("fe_mul_mont", [a, t])
    }

    /// `fe_mul_rpow<i>(a)`: a · r^i for a compile-time i in [0, 2k) (SRGFNs only; a
    /// negacyclic digit shift and one subtraction).
    pub fn mul_rpow(a: Expr, i: u32) -> Expr {
        Expr::call_t("fe_mul_rpow", [Expr::int(i64::from(i))], [a])
    }

    /// `fe_zero()`.
    pub fn zero() -> Expr {
        Expr::call("fe_zero", [])
    }

    /// `fe_one()`.
    pub fn one() -> Expr {
        Expr::call("fe_one", [])
    }

    /// `fe_eq(a, b)`.
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::call("fe_eq", [a, b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: &str) -> Expr {
        Expr::var(n)
    }

    #[test]
    fn prints_minimal_parentheses_by_c_precedence() {
        assert_eq!((v("a") + v("b") * v("c")).to_string(), "a + b * c");
        assert_eq!(((v("a") + v("b")) * v("c")).to_string(), "(a + b) * c");
        assert_eq!((v("a") - (v("b") - v("c"))).to_string(), "a - (b - c)");
        assert_eq!((v("a") - v("b") - v("c")).to_string(), "a - b - c");
        assert_eq!(
            (v("a").lt(v("b")).and_also(v("c").equals(Expr::int(0)))).to_string(),
            "a < b && c == 0"
        );
        assert_eq!(
            (-(-v("a"))).to_string(),
            "-(-a)",
            "two minus signs must not fuse into a decrement"
        );
        assert_eq!((-Expr::int(-3)).to_string(), "-(-3)");
        assert_eq!(
            Expr::select(v("c"), v("a"), v("b")).to_string(),
            "c ? a : b"
        );
        assert_eq!(
            (Expr::select(v("c"), v("a"), v("b")) + v("d")).to_string(),
            "(c ? a : b) + d"
        );
    }

    #[test]
    fn parenthesises_mixed_bitwise_operators() {
        let e = ((v("t") >> Expr::int(3)) << Expr::int(4)) | (v("t") & Expr::int(7));
        assert_eq!(e.to_string(), "((t >> 3) << 4) | (t & 7)");
        let e = v("a") << (v("b") + v("c"));
        assert_eq!(e.to_string(), "a << (b + c)");
        let e = v("a") | v("b") | v("c");
        assert_eq!(e.to_string(), "a | b | c");
    }

    #[test]
    fn prints_literals_casts_indices_and_calls() {
        assert_eq!(Expr::u32(7).to_string(), "7u");
        assert_eq!(Expr::u64(7).to_string(), "7ull");
        assert_eq!(
            (v("a") + v("b")).cast(Type::U64).to_string(),
            "(uint64_t)(a + b)"
        );
        assert_eq!(v("x").at(v("i") + Expr::int(1)).to_string(), "x[i + 1]");
        assert_eq!(fe::mul_rpow(v("a"), 5).to_string(), "fe_mul_rpow<5>(a)");
        assert_eq!(
            Expr::call_t("f", [v("a") >> v("b")], []).to_string(),
            "f<(a >> b)>()",
            "a shift inside a template list is parenthesised"
        );
        assert_eq!(
            Expr::global_thread_index().to_string(),
            "(size_t)blockIdx.x * blockDim.x + threadIdx.x"
        );
        assert_eq!(
            Type::const_ptr(Type::Word).to_string(),
            "const fe_word_t* __restrict__"
        );
    }

    #[test]
    fn prints_statements_with_indentation() {
        let s = Stmt::For(
            ForLoop::range("j", Type::Int, Expr::int(0), Expr::int(4))
                .unrolled()
                .body(vec![Stmt::if_else(
                    v("j").equals(Expr::int(0)),
                    vec![Stmt::assign_op(v("s"), BinOp::Add, v("j"))],
                    vec![Stmt::store(v("x"), v("j"), fe::zero())],
                )]),
        );
        assert_eq!(
            s.to_string(),
            "#pragma unroll\n\
             for (int j = 0; j < 4; j += 1) {\n\
             \x20   if (j == 0) {\n\
             \x20       s += j;\n\
             \x20   } else {\n\
             \x20       x[j] = fe_zero();\n\
             \x20   }\n\
             }\n"
        );
        assert_eq!(
            Stmt::comment("two\nlines").to_string(),
            "// two\n// lines\n",
            "a newline in a comment starts a new comment line"
        );
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

    #[test]
    fn tables_check_their_words() {
        let t = Table::new("tw", vec![1, 2, 3, 4, 5]);
        assert!(t.check(32).is_ok());
        assert_eq!(
            t.to_string(),
            "__constant__ const fe_word_t tw[5] = {\n    1ull, 2ull, 3ull, 4ull,\n    5ull,\n};\n"
        );
        let t = Table::new("tw", vec![1, 1 << 32]);
        assert_eq!(
            t.check(32).unwrap_err(),
            CodegenError::TableValue {
                table: "tw".into(),
                index: 1,
                value: 1 << 32,
                bits: 32
            }
        );
        assert!(t.check(64).is_ok());
        assert!(Table::new("tw", vec![]).to_string().contains("tw[1]"));
    }
}
