//! The field prelude's uniform device API as typed builders (see [`crate::prelude`]): kernel
//! bodies written with these are field-agnostic.

use super::{Expr, Stmt};

/// `fe_load(base, idx, n)`: element `idx` of a vector of `n` elements (SRGFN digit c at
/// `base[c * n + idx]`; word primes `base[idx]`).
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr, Stmt, Type};
/// let a = fe::load(Expr::var("x"), Expr::var("i"), Expr::var("n"));
/// assert_eq!(Stmt::let_(Type::Fe, "a", a).to_string(), "fe_t a = fe_load(x, i, n);\n");
/// ```
pub fn load(base: Expr, idx: Expr, n: Expr) -> Expr {
    Expr::call("fe_load", [base, idx, n])
}

/// `fe_load_row(table, row)`: row `row` of a table of constants (SRGFN digit c at
/// `table[row * k + c]`; word primes `table[row]`).
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let w = fe::load_row(v("tw"), v("j") + Expr::int(1));
/// assert_eq!(w.to_string(), "fe_load_row(tw, j + 1)");
/// ```
pub fn load_row(table: Expr, row: Expr) -> Expr {
    Expr::call("fe_load_row", [table, row])
}

/// `fe_store(base, idx, n, v);`
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let s = fe::store(v("x"), v("i"), v("n"), fe::zero());
/// assert_eq!(s.to_string(), "fe_store(x, i, n, fe_zero());\n");
/// ```
pub fn store(base: Expr, idx: Expr, n: Expr, v: Expr) -> Stmt {
    Stmt::expr(Expr::call("fe_store", [base, idx, n, v]))
}

/// `fe_add(a, b)`: a + b.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let sum = fe::add(v("a"), fe::add(v("b"), v("c")));
/// assert_eq!(sum.to_string(), "fe_add(a, fe_add(b, c))");
/// ```
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_add", [a, b])
}

/// `fe_sub(a, b)`: a − b.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::sub(v("a"), v("b")).to_string(), "fe_sub(a, b)");
/// ```
pub fn sub(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_sub", [a, b])
}

/// `fe_neg(a)`: −a.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::neg(fe::sub(v("a"), v("b"))).to_string(), "fe_neg(fe_sub(a, b))");
/// ```
pub fn neg(a: Expr) -> Expr {
    Expr::call("fe_neg", [a])
}

/// `fe_inv(a)`: a^(p − 2), the inverse of a canonical a ≠ 0 (0 for 0); word primes only,
/// a power in one thread.
///
/// The word primes' preludes define it, the SRGFNs' do not:
///
/// ```
/// use fermat_codegen::{cuda::{fe, Expr}, prelude};
/// use fermat_dsl::field::FieldSpec;
/// assert_eq!(fe::inv(Expr::var("a")).to_string(), "fe_inv(a)");
/// let babybear = prelude::render(&FieldSpec::parse("babybear")?.build()?)?;
/// let p3 = prelude::render(&FieldSpec::parse("P3")?.build()?)?;
/// assert!(babybear.contains("fe_t fe_inv(") && !p3.contains("fe_inv("));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inv(a: Expr) -> Expr {
    Expr::call("fe_inv", [a])
}

/// `fe_mul(a, b)`: a · b, both canonical.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::mul(v("a"), v("a")).to_string(), "fe_mul(a, a)");
/// ```
pub fn mul(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_mul", [a, b])
}

/// `fe_mul_mont(a, t)`: a · w for a constant `t` in the field's table form (w·R mod p,
/// R = 2^32 or 2^64, for word primes; w itself for SRGFNs).
///
/// The twiddles of a [`Table`](crate::cuda::Table) are in table form already:
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let e = fe::mul_mont(v("a"), fe::load_row(v("tw"), v("j")));
/// assert_eq!(e.to_string(), "fe_mul_mont(a, fe_load_row(tw, j))");
/// ```
pub fn mul_mont(a: Expr, t: Expr) -> Expr {
    Expr::call("fe_mul_mont", [a, t])
}

/// `fe_mul_sub_mont(a, t, b, s)`: a·w − b·v for `t`, `s` the table forms of w and v, as
/// [`mul_mont`] computes each, canonical `a` and `b`; for primes below 2^31 the two
/// products are summed unreduced and reduced once.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let e = fe::mul_sub_mont(v("a"), v("t"), v("b"), v("s"));
/// assert_eq!(e.to_string(), "fe_mul_sub_mont(a, t, b, s)");
/// ```
pub fn mul_sub_mont(a: Expr, t: Expr, b: Expr, s: Expr) -> Expr {
    Expr::call("fe_mul_sub_mont", [a, t, b, s])
}

/// `fe_mul_sub2_mont(a, t, b, s, c, u)`: a·w − b·v − c·x for `t`, `s`, `u` the table forms
/// of w, v, x, as [`mul_sub_mont`]: for primes below 2^31 one reduction of the three
/// products' unreduced sum.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let e = fe::mul_sub2_mont(v("a"), v("t"), v("b"), v("s"), v("c"), v("u"));
/// assert_eq!(e.to_string(), "fe_mul_sub2_mont(a, t, b, s, c, u)");
/// ```
pub fn mul_sub2_mont(a: Expr, t: Expr, b: Expr, s: Expr, c: Expr, u: Expr) -> Expr {
    Expr::call("fe_mul_sub2_mont", [a, t, b, s, c, u])
}

/// `fe_dot_zero()`: an empty sum of products ([`Type::FeDot`](super::Type::FeDot)).
///
/// ```
/// use fermat_codegen::cuda::{fe, Stmt, Type};
/// let s = Stmt::let_(Type::FeDot, "s", fe::dot_zero());
/// assert_eq!(s.to_string(), "fe_dot_t s = fe_dot_zero();\n");
/// ```
pub fn dot_zero() -> Expr {
    Expr::call("fe_dot_zero", [])
}

/// `fe_dot_add(s, a, t)`: the sum s plus a · w for `t` in table form, as [`mul_mont`]
/// computes it; for 32-bit primes the products (each below p·2^32 < 2^63) are added
/// exactly into 96 bits — exact for any sum of fewer than 2^33 terms — and reduced once,
/// by [`dot_value`].
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr, Stmt};
/// let (s, j) = (Expr::var("s"), Expr::var("j"));
/// let term = fe::dot_add(s.clone(), Expr::var("a").at(j.clone()), Expr::var("t").at(j));
/// assert_eq!(Stmt::assign(s, term).to_string(), "s = fe_dot_add(s, a[j], t[j]);\n");
/// ```
pub fn dot_add(s: Expr, a: Expr, t: Expr) -> Expr {
    Expr::call("fe_dot_add", [s, a, t])
}

/// `fe_dot_value(s)`: the canonical element a sum of products stands for.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let s = fe::store(v("x"), v("i"), v("n"), fe::dot_value(v("s")));
/// assert_eq!(s.to_string(), "fe_store(x, i, n, fe_dot_value(s));\n");
/// ```
pub fn dot_value(s: Expr) -> Expr {
    Expr::call("fe_dot_value", [s])
}

/// `fe_to_mont(a)`: the table form of a canonical element (a·R mod p for word primes, a
/// itself for SRGFNs), the second argument [`mul_mont`] takes.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let e = fe::mul_mont(v("a"), fe::to_mont(v("w")));
/// assert_eq!(e.to_string(), "fe_mul_mont(a, fe_to_mont(w))");
/// ```
pub fn to_mont(a: Expr) -> Expr {
    Expr::call("fe_to_mont", [a])
}

/// `fe_mul_rpow<i>(a)`: a · r^i for a compile-time i in [0, 2k) (SRGFNs only; a
/// negacyclic digit shift and one subtraction).
///
/// Only the SRGFNs' preludes define it:
///
/// ```
/// use fermat_codegen::{cuda::{fe, Expr}, prelude};
/// use fermat_dsl::field::FieldSpec;
/// assert_eq!(fe::mul_rpow(Expr::var("a"), 5).to_string(), "fe_mul_rpow<5>(a)");
/// let p3 = prelude::render(&FieldSpec::parse("P3")?.build()?)?;
/// let babybear = prelude::render(&FieldSpec::parse("babybear")?.build()?)?;
/// assert!(p3.contains("fe_t fe_mul_rpow(") && !babybear.contains("fe_mul_rpow"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mul_rpow(a: Expr, i: u32) -> Expr {
    Expr::call_t("fe_mul_rpow", [Expr::int(i64::from(i))], [a])
}

/// `fe_lane_below(v)`: the v of the thread one lane below in its warp, among the lanes
/// running (lane 0, and the host's one thread: its own); every running lane must call it.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::lane_below(v("carry")).to_string(), "fe_lane_below(carry)");
/// ```
pub fn lane_below(v: Expr) -> Expr {
    Expr::call("fe_lane_below", [v])
}

/// `fe_warp_constant(c)`: the constant c as a [`Type::FeWarp`](crate::cuda::Type::FeWarp).
///
/// ```
/// use fermat_codegen::cuda::{fe, Stmt, Type};
/// let s = Stmt::let_(Type::FeWarp, "x", fe::warp_constant(fe::one()));
/// assert_eq!(s.to_string(), "fe_warp_t x = fe_warp_constant(fe_one());\n");
/// ```
pub fn warp_constant(c: Expr) -> Expr {
    Expr::call("fe_warp_constant", [c])
}

/// `fe_warp_load(row, from, len)`: coefficient i = `row[from + i]` where `from + i < len`,
/// zero above.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let x = fe::warp_load(v("q"), Expr::int(0), v("m"));
/// assert_eq!(x.to_string(), "fe_warp_load(q, 0, m)");
/// ```
pub fn warp_load(row: Expr, from: Expr, len: Expr) -> Expr {
    Expr::call("fe_warp_load", [row, from, len])
}

/// `fe_warp_store(row, x, len)`: `row[i]` = coefficient i of x for i < `len` (at most 32).
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let s = fe::warp_store(v("q"), v("x"), v("m"));
/// assert_eq!(s.to_string(), "fe_warp_store(q, x, m);\n");
/// ```
pub fn warp_store(row: Expr, x: Expr, len: Expr) -> Stmt {
    Stmt::Expr(Expr::call("fe_warp_store", [row, x, len]))
}

/// `fe_warp_at(x, i)`: coefficient i of x, in every lane of the warp.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::warp_at(v("x"), Expr::int(0)).to_string(), "fe_warp_at(x, 0)");
/// ```
pub fn warp_at(x: Expr, i: Expr) -> Expr {
    Expr::call("fe_warp_at", [x, i])
}

/// `fe_warp_up(x, k)`: x·x^k, cut to 32 coefficients.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::warp_up(v("x"), v("k")).to_string(), "fe_warp_up(x, k)");
/// ```
pub fn warp_up(x: Expr, k: Expr) -> Expr {
    Expr::call("fe_warp_up", [x, k])
}

/// `fe_warp_len(x)`: one more than the degree of x, 0 for zero.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let is_zero = fe::warp_len(v("x")).equals(Expr::int(0));
/// assert_eq!(is_zero.to_string(), "fe_warp_len(x) == 0");
/// ```
pub fn warp_len(x: Expr) -> Expr {
    Expr::call("fe_warp_len", [x])
}

/// `fe_warp_mul_sub2(a, t, b, s, c, u)`: [`mul_sub2_mont`] coefficient by coefficient.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// let e = fe::warp_mul_sub2(v("a"), v("t"), v("b"), v("s"), v("c"), v("u"));
/// assert_eq!(e.to_string(), "fe_warp_mul_sub2(a, t, b, s, c, u)");
/// ```
pub fn warp_mul_sub2(a: Expr, t: Expr, b: Expr, s: Expr, c: Expr, u: Expr) -> Expr {
    Expr::call("fe_warp_mul_sub2", [a, t, b, s, c, u])
}

/// `fe_zero()`.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::eq(v("a"), fe::zero()).to_string(), "fe_eq(a, fe_zero())");
/// ```
pub fn zero() -> Expr {
    Expr::call("fe_zero", [])
}

/// `fe_one()`.
///
/// ```
/// use fermat_codegen::cuda::{fe, Stmt, Type};
/// assert_eq!(Stmt::let_(Type::Fe, "w", fe::one()).to_string(), "fe_t w = fe_one();\n");
/// ```
pub fn one() -> Expr {
    Expr::call("fe_one", [])
}

/// `fe_eq(a, b)`.
///
/// ```
/// use fermat_codegen::cuda::{fe, Expr};
/// let v = Expr::var;
/// assert_eq!(fe::eq(v("a"), v("b")).logical_not().to_string(), "!fe_eq(a, b)");
/// ```
pub fn eq(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_eq", [a, b])
}
