//! The field prelude's uniform device API as typed builders (see [`crate::prelude`]): kernel
//! bodies written with these are field-agnostic.

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

/// `fe_inv(a)`: a^(p − 2), the inverse of a canonical a ≠ 0 (0 for 0); word primes only,
/// a power in one thread.
pub fn inv(a: Expr) -> Expr {
    Expr::call("fe_inv", [a])
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

/// `fe_mul_sub_mont(a, t, b, s)`: a·w − b·v for `t`, `s` the table forms of w and v, as
/// [`mul_mont`] computes each, canonical `a` and `b`; for primes below 2^31 the two
/// products are summed unreduced and reduced once.
pub fn mul_sub_mont(a: Expr, t: Expr, b: Expr, s: Expr) -> Expr {
    Expr::call("fe_mul_sub_mont", [a, t, b, s])
}

/// `fe_mul_sub2_mont(a, t, b, s, c, u)`: a·w − b·v − c·x for `t`, `s`, `u` the table forms
/// of w, v, x, as [`mul_sub_mont`]: for primes below 2^31 one reduction of the three
/// products' unreduced sum.
pub fn mul_sub2_mont(a: Expr, t: Expr, b: Expr, s: Expr, c: Expr, u: Expr) -> Expr {
    Expr::call("fe_mul_sub2_mont", [a, t, b, s, c, u])
}

/// `fe_dot_zero()`: an empty sum of products ([`Type::FeDot`](super::Type::FeDot)).
pub fn dot_zero() -> Expr {
    Expr::call("fe_dot_zero", [])
}

/// `fe_dot_add(s, a, t)`: the sum s plus a · w for `t` in table form, as [`mul_mont`]
/// computes it; for 32-bit primes the products (each below p·2^32 < 2^63) are added
/// exactly into 96 bits — exact for any sum of fewer than 2^33 terms — and reduced once,
/// by [`dot_value`].
pub fn dot_add(s: Expr, a: Expr, t: Expr) -> Expr {
    Expr::call("fe_dot_add", [s, a, t])
}

/// `fe_dot_value(s)`: the canonical element a sum of products stands for.
pub fn dot_value(s: Expr) -> Expr {
    Expr::call("fe_dot_value", [s])
}

/// `fe_to_mont(a)`: the table form of a canonical element (a·R mod p for word primes, a
/// itself for SRGFNs), the second argument [`mul_mont`] takes.
pub fn to_mont(a: Expr) -> Expr {
    Expr::call("fe_to_mont", [a])
}

/// `fe_mul_rpow<i>(a)`: a · r^i for a compile-time i in [0, 2k) (SRGFNs only; a
/// negacyclic digit shift and one subtraction).
pub fn mul_rpow(a: Expr, i: u32) -> Expr {
    Expr::call_t("fe_mul_rpow", [Expr::int(i64::from(i))], [a])
}

/// `fe_lane_below(v)`: the v of the thread one lane below in its warp, among the lanes
/// running (lane 0, and the host's one thread: its own); every running lane must call it.
pub fn lane_below(v: Expr) -> Expr {
    Expr::call("fe_lane_below", [v])
}

/// `fe_warp_constant(c)`: the constant c as a [`Type::FeWarp`](crate::cuda::Type::FeWarp).
pub fn warp_constant(c: Expr) -> Expr {
    Expr::call("fe_warp_constant", [c])
}

/// `fe_warp_load(row, from, len)`: coefficient i = `row[from + i]` where `from + i < len`,
/// zero above.
pub fn warp_load(row: Expr, from: Expr, len: Expr) -> Expr {
    Expr::call("fe_warp_load", [row, from, len])
}

/// `fe_warp_store(row, x, len)`: `row[i]` = coefficient i of x for i < `len` (at most 32).
pub fn warp_store(row: Expr, x: Expr, len: Expr) -> Stmt {
    Stmt::Expr(Expr::call("fe_warp_store", [row, x, len]))
}

/// `fe_warp_at(x, i)`: coefficient i of x, in every lane of the warp.
pub fn warp_at(x: Expr, i: Expr) -> Expr {
    Expr::call("fe_warp_at", [x, i])
}

/// `fe_warp_up(x, k)`: x·x^k, cut to 32 coefficients.
pub fn warp_up(x: Expr, k: Expr) -> Expr {
    Expr::call("fe_warp_up", [x, k])
}

/// `fe_warp_len(x)`: one more than the degree of x, 0 for zero.
pub fn warp_len(x: Expr) -> Expr {
    Expr::call("fe_warp_len", [x])
}

/// `fe_warp_mul_sub2(a, t, b, s, c, u)`: [`mul_sub2_mont`] coefficient by coefficient.
pub fn warp_mul_sub2(a: Expr, t: Expr, b: Expr, s: Expr, c: Expr, u: Expr) -> Expr {
    Expr::call("fe_warp_mul_sub2", [a, t, b, s, c, u])
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
