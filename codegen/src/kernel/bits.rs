//! Values assembled from index bits: the run-time and compile-time parts of addresses,
//! tile indices and twiddle exponents.

use crate::cuda::{Expr, Type};

/// One bit of a value: a known constant, or bit `bit` of a run-time variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Bit {
    Known(u64),
    Of(&'static str, u32),
}

/// The compile-time value whose bit `positions[i]` is bit i of `v`: a codelet's element
/// or a group's index deposited into the tile-index bits it stands for.
pub(super) fn deposit(v: u64, positions: &[u32]) -> u64 {
    positions
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &c)| acc | (((v >> i) & 1) << c))
}

/// `Σ bit_i << i` as an expression, merging runs of consecutive bits of one variable into
/// one shift and mask; `None` when every bit is known (the value is `constant`).
pub(super) fn assemble(bits: &[Bit], ty: Type) -> (u64, Option<Expr>) {
    let mut constant = 0u64;
    let mut terms: Vec<Expr> = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        match bits[i] {
            Bit::Known(b) => {
                constant |= b << i;
                i += 1;
            }
            Bit::Of(var, from) => {
                let mut len = 1;
                while i + len < bits.len() && bits[i + len] == Bit::Of(var, from + len as u32) {
                    len += 1;
                }
                let mask = if len >= 64 {
                    u64::MAX
                } else {
                    (1u64 << len) - 1
                };
                let v = Expr::var(var).cast(ty.clone());
                let shifted = if from > 0 {
                    v >> lit(&ty, from as u64)
                } else {
                    v
                };
                let masked = shifted & lit(&ty, mask);
                let placed = if i > 0 {
                    masked << lit(&ty, i as u64)
                } else {
                    masked
                };
                terms.push(placed);
                i += len;
            }
        }
    }
    let expr = terms.into_iter().reduce(|a, b| a | b);
    (constant, expr)
}

pub(super) fn lit(ty: &Type, v: u64) -> Expr {
    match ty {
        Type::U32 => Expr::u32(v as u32),
        _ => Expr::u64(v),
    }
}

pub(super) fn or_constant(constant: u64, expr: Option<Expr>, ty: &Type) -> Expr {
    match (constant, expr) {
        (c, None) => lit(ty, c),
        (0, Some(e)) => e,
        (c, Some(e)) => e | lit(ty, c),
    }
}

/// The part of `bits` that comes from the variables `vars` (every other bit zero), as an
/// expression of type `ty`. Parts from disjoint sets of variables have disjoint bits, so
/// their sum is the whole: an address becomes a per-thread base plus constants once the
/// unrolled counters are known.
pub(super) fn part(bits: &[Bit], vars: &[&str], ty: &Type) -> Expr {
    let kept: Vec<Bit> = bits
        .iter()
        .map(|b| match b {
            Bit::Of(v, _) if vars.contains(v) => b.clone(),
            _ => Bit::Known(0),
        })
        .collect();
    let (c, e) = assemble(&kept, ty.clone());
    or_constant(c, e, ty)
}
