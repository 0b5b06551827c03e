//! A typed CUDA C AST and its printer: the only way kernel bodies are written
//! (no string glue for code: docs/ARCHITECTURE.md, "Code generation").
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

mod expr;
pub mod fe;
mod ident;
mod kernel;
mod print;
mod stmt;
mod table;
mod ty;

pub use expr::{BinOp, Builtin, Dim, Expr, UnOp};
pub use ident::check_identifier;
pub use kernel::{Kernel, LaunchBounds, Param, SharedArray};
pub use print::DYNAMIC_SHARED;
pub use stmt::{ForLoop, Stmt, Unroll};
pub use table::{Space, Table};
pub use ty::{Lit, Type};
