//! The printer: CUDA C source for types, expressions, statements, kernels and tables, with
//! the fewest parentheses C's precedence allows and four-space indentation.

use super::{
    BinOp, Builtin, Dim, Expr, ForLoop, Kernel, LaunchBounds, Lit, Space, Stmt, Table, Type, UnOp,
    Unroll,
};
use std::fmt;

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

const PREC_POSTFIX: u8 = 1;
const PREC_UNARY: u8 = 2;
const PREC_SELECT: u8 = 13;

impl Expr {
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
            Expr::Builtin(b, d) => fmt_builtin(f, *b, *d),
            Expr::Unary(op, e) => fmt_unary(f, *op, e),
            Expr::Binary(op, a, b) => fmt_binary(f, *op, a, b),
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
            } => fmt_call(f, func, template_args, args),
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
}

fn fmt_builtin(f: &mut fmt::Formatter<'_>, b: Builtin, d: Dim) -> fmt::Result {
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

fn fmt_unary(f: &mut fmt::Formatter<'_>, op: UnOp, e: &Expr) -> fmt::Result {
    f.write_str(match op {
        UnOp::Neg => "-",
        UnOp::BitNot => "~",
        UnOp::Not => "!",
    })?;
    // `- -x` must not print as `--x`.
    let nested_sign =
        matches!(*e, Expr::Unary(UnOp::Neg, _)) || matches!(*e, Expr::Lit(Lit::Int(v)) if v < 0);
    if nested_sign {
        f.write_str("(")?;
        e.fmt_bare(f)?;
        f.write_str(")")
    } else {
        e.fmt_prec(f, PREC_UNARY)
    }
}

fn fmt_binary(f: &mut fmt::Formatter<'_>, op: BinOp, a: &Expr, b: &Expr) -> fmt::Result {
    let p = op.prec();
    let side = |e: &Expr, max: u8, f: &mut fmt::Formatter<'_>| match e {
        Expr::Binary(inner, ..) if op.is_bitwise() && *inner != op => {
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

fn fmt_call(
    f: &mut fmt::Formatter<'_>,
    func: &str,
    template_args: &[Expr],
    args: &[Expr],
) -> fmt::Result {
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

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_bare(f)
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
            Type::FeDot => f.write_str("fe_dot_t"),
            Type::FeWarp => f.write_str("fe_warp_t"),
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

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        p.stmt(self);
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
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let {
                ty,
                name,
                init,
                is_const,
            } => {
                let c = if *is_const { "const " } else { "" };
                match init {
                    Some(e) => self.line(format_args!("{c}{ty} {name} = {e};")),
                    None => self.line(format_args!("{c}{ty} {name};")),
                }
            }
            Stmt::Array { ty, name, len } => self.line(format_args!("{ty} {name}[{len}];")),
            Stmt::Assign { target, op, value } => {
                let op = op.map(BinOp::symbol).unwrap_or("");
                self.line(format_args!("{target} {op}= {value};"))
            }
            Stmt::Expr(e) => self.line(format_args!("{e};")),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.if_else(cond, then, otherwise),
            Stmt::For(l) => self.for_loop(l),
            Stmt::While { cond, body } => {
                self.line(format_args!("while ({cond}) {{"));
                self.block(body);
                self.line(format_args!("}}"));
            }
            Stmt::SyncThreads => self.line(format_args!("__syncthreads();")),
            Stmt::Return => self.line(format_args!("return;")),
            Stmt::Comment(text) => self.comment(text),
            Stmt::Block(body) => {
                self.line(format_args!("{{"));
                self.block(body);
                self.line(format_args!("}}"));
            }
            Stmt::Switch { on, cases } => self.switch(on, cases),
        }
    }

    fn if_else(&mut self, cond: &Expr, then: &[Stmt], otherwise: &[Stmt]) {
        self.line(format_args!("if ({cond}) {{"));
        self.block(then);
        if otherwise.is_empty() {
            self.line(format_args!("}}"));
        } else {
            self.line(format_args!("}} else {{"));
            self.block(otherwise);
            self.line(format_args!("}}"));
        }
    }

    fn for_loop(&mut self, l: &ForLoop) {
        match l.unroll {
            Some(Unroll::Full) => self.line(format_args!("#pragma unroll")),
            Some(Unroll::By(n)) => self.line(format_args!("#pragma unroll {n}")),
            None => {}
        }
        self.line(format_args!(
            "for ({} {} = {}; {}; {} += {}) {{",
            l.ty, l.var, l.start, l.cond, l.var, l.step
        ));
        self.block(&l.body);
        self.line(format_args!("}}"));
    }

    fn comment(&mut self, text: &str) {
        // Any line break would end the comment: each line gets its own `//`.
        for line in text.split(|c: char| c.is_control() && c != '\t') {
            let line = line.trim_end();
            if line.is_empty() {
                self.line(format_args!("//"));
            } else {
                self.line(format_args!("// {line}"));
            }
        }
    }

    fn switch(&mut self, on: &Expr, cases: &[Vec<Stmt>]) {
        self.line(format_args!("switch ({on}) {{"));
        for (i, body) in cases.iter().enumerate() {
            if i + 1 == cases.len() {
                self.line(format_args!("default: {{"));
            } else {
                self.line(format_args!("case {i}: {{"));
            }
            self.block(body);
            self.line(format_args!("}} break;"));
        }
        self.line(format_args!("}}"));
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer::default();
        for line in &self.doc {
            p.comment(line);
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
        if let Some((ty, name)) = &self.dynamic_shared {
            // Bytes, then a typed pointer: one declaration serves every element type, and
            // the alignment holds for any of them.
            p.line(format_args!(
                "extern __shared__ __align__(16) unsigned char {DYNAMIC_SHARED}[];"
            ));
            p.line(format_args!("{ty}* {name} = ({ty}*){DYNAMIC_SHARED};"));
        }
        p.indent -= 1;
        p.block(&self.body);
        p.line(format_args!("}}"));
        f.write_str(&p.out)
    }
}

/// The name of the dynamic shared memory's bytes in every kernel that has some.
///
/// ([`Kernel::dynamic_shared`] declares it.)
///
/// ```
/// use fermat_codegen::cuda::{check_identifier, Kernel, Type, DYNAMIC_SHARED};
/// assert_eq!(DYNAMIC_SHARED, "fermat_dynamic_shared");
/// assert!(check_identifier("shared array", DYNAMIC_SHARED).is_ok());
/// let k = Kernel::new("k", vec![], vec![]).dynamic_shared(Type::Fe, "s");
/// assert!(k.to_string().contains(&format!("fe_t* s = (fe_t*){DYNAMIC_SHARED};")));
/// ```
pub const DYNAMIC_SHARED: &str = "fermat_dynamic_shared";

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fe;

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
}
