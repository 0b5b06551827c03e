//! Multiplications by roots of unity as the device does them: digit shifts, Montgomery or
//! Shoup constants, and table reads for exponents known at run time.

use super::bits::{assemble, lit, or_constant, Bit};
use super::occupancy::SMALL_K;
use super::table::{montgomery, High};
use super::Emitter;
use crate::cuda::{fe, Expr, Stmt, Type};
use crate::plan::{BitField, BitSource, Step};
use fermat_dsl::field::Field;

/// A multiplication by a constant root power, as the device does it.
pub(super) enum Constant {
    /// `fe_mul_rpow<i>`.
    Shift(u32),
    /// `fe_mul_mont(v, literal)`: a word prime constant in Montgomery form.
    Literal(u64),
    /// `fe_mul_shoup(v, w, ⌊w·2^32/p⌋)`: a constant w of a 32-bit word prime below 2^31,
    /// by Shoup's method (one high and two low products, no 64-bit product).
    Shoup(u32, u32),
    /// ω^e (ω = ω_{2^L}) for an exponent e < 2^L, read through the [`TableLayout`].
    Row(u64),
}

impl<F: Field> Emitter<'_, F> {
    pub(super) fn word_bits(&self) -> u32 {
        if self.shape.element_bytes == 4 {
            32
        } else {
            64
        }
    }

    /// The device form of a multiplication by ω_{2^log_order}^e, e known at compile time
    /// (already negated for inverse plans).
    pub(super) fn constant(&self, log_order: u32, e: u64) -> Option<Constant> {
        let order = 1u64 << log_order;
        let e = e % order;
        if e == 0 {
            return None;
        }
        if let (Some(_), Some(shift)) = (self.shape.shift_order, self.roots.shift()) {
            if log_order <= shift.log_g {
                let steps = e << (shift.log_g - log_order);
                let amount = (steps * shift.amount) % shift.order;
                return (amount != 0).then_some(Constant::Shift(amount as u32));
            }
        }
        let row = e << (self.log_table - log_order);
        if self.shape.shift_order.is_none() {
            let v = self.roots.power(self.field, row);
            let p = self.field.modulus();
            if self.shape.element_bytes == 4 && p.bits() <= 31 {
                let w = self.field.to_biguint(&v);
                let quotient = (&w << 32u32) / &p;
                let w = u32::try_from(w).expect("a residue of a 31-bit prime fits 32 bits");
                let quotient = u32::try_from(quotient).expect("w < p, so w·2^32/p < 2^32");
                return Some(Constant::Shoup(w, quotient));
            }
            Some(Constant::Literal(montgomery(self.field, self.shape, &v)))
        } else {
            Some(Constant::Row(row))
        }
    }

    pub(super) fn apply_constant(&self, value: Expr, c: Constant) -> Expr {
        match c {
            Constant::Shift(i) => fe::mul_rpow(value, i),
            Constant::Shoup(w, quotient) => {
                Expr::call("fe_mul_shoup", [value, Expr::u32(w), Expr::u32(quotient)])
            }
            Constant::Literal(w) => fe::mul_mont(
                value,
                if self.word_bits() == 32 {
                    Expr::u32(w as u32)
                } else {
                    Expr::u64(w)
                },
            ),
            Constant::Row(e) => {
                if let Some(row) = self.layout.coarse_row(e) {
                    return fe::mul_mont(value, self.table_load(Expr::u64(row)));
                }
                let lo = e & ((1u64 << self.layout.lo_bits) - 1);
                let hi = e >> self.layout.lo_bits;
                let value = if lo == 0 {
                    value
                } else {
                    fe::mul_mont(value, self.table_load(Expr::u64(lo)))
                };
                match self.layout.high {
                    _ if hi == 0 => value,
                    High::None => unreachable!("a whole table leaves no high part"),
                    High::Table => fe::mul_mont(
                        value,
                        self.table_load(Expr::u64((1 << self.layout.lo_bits) + hi)),
                    ),
                    High::Shift(s) => match (hi * s.amount) % s.order {
                        0 => value,
                        i => fe::mul_rpow(value, i as u32),
                    },
                }
            }
        }
    }

    pub(super) fn table_load(&self, row: Expr) -> Expr {
        fe::load_row(Expr::var("tw"), row)
    }

    /// ω^e in table form (word primes), for a run-time exponent e < 2^L.
    pub(super) fn table_value(&self, e: Expr, ty: &Type) -> Expr {
        let h = self.layout.lo_bits;
        match self.layout.high {
            High::None => self.table_load(e.cast(Type::SizeT)),
            High::Table => {
                let lo = (e.clone() & lit(ty, (1u64 << h) - 1)).cast(Type::SizeT);
                let hi = ((e >> lit(ty, h as u64)) + lit(ty, 1u64 << h)).cast(Type::SizeT);
                fe::mul_mont(self.table_load(lo), self.table_load(hi))
            }
            High::Shift(_) => unreachable!("SRGFN twiddles take the shift for the high part"),
        }
    }

    /// `value · ω^e` for the run-time exponent held by variable `e` (already reduced mod
    /// 2^L), through the table layout.
    pub(super) fn table_mul(&self, value: Expr, e: &str, ty: &Type, out: &mut Vec<Stmt>) -> Expr {
        let h = self.layout.lo_bits;
        let shift_name = format!("{e}s");
        let e = Expr::var(e);
        match self.layout.high {
            High::None | High::Table => {
                let row = self.table_value(e.clone(), ty);
                self.twist(value, e, row, ty)
            }
            High::Shift(s) => {
                let lo = e.clone() & lit(ty, (1u64 << h) - 1);
                out.push(Stmt::const_(
                    Type::Int,
                    shift_name.clone(),
                    (((e >> lit(ty, h as u64)) * lit(ty, s.amount)) & lit(ty, s.order - 1))
                        .cast(Type::Int),
                ));
                let row = self.table_load(lo.clone().cast(Type::SizeT));
                Expr::call(
                    "fe_mul_rpow_rt",
                    [self.twist(value, lo, row, ty), Expr::var(shift_name)],
                )
            }
        }
    }

    /// `value · row`, the full multiplication of a twist by the table row of run-time
    /// exponent `e`, skipped where e = 0 for SRGFNs of at most [`SMALL_K`] digits. Exponents
    /// that are products of index fields vanish on whole warps where a factor's bits are the
    /// warp's (the round layout gives them to the warp index for the shifts' sake); the
    /// branch then spares the warp a multiplication. On an H200 P2 2^24 went from 3.70 to
    /// 3.61 ms; P3 2^20 went from 0.401 to 0.405 ms and P4 2^20 from 1.064 to 1.100 ms, whose
    /// longer multiplications pay more for the branch around their call (bench/RESULTS.md,
    /// tuning round 9).
    pub(super) fn twist(&self, value: Expr, e: Expr, row: Expr, ty: &Type) -> Expr {
        match self.shape.shift_order {
            Some(order) if order / 2 <= SMALL_K => Expr::select(
                e.equals(lit(ty, 0)),
                value.clone(),
                fe::mul_mont(value, row),
            ),
            _ => fe::mul_mont(value, row),
        }
    }

    pub(super) fn direction_exponent(&self, e: u64, log_order: u32) -> u64 {
        let order = 1u64 << log_order;
        if self.inverse {
            (order - e % order) % order
        } else {
            e % order
        }
    }

    /// `v · ω_{2^log_order}^(x·y)` for bit fields whose bits come from `bit_of`.
    pub(super) fn twiddle(
        &self,
        value: Expr,
        (log_order, x, y): (u32, &BitField, &BitField),
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        // Exponents are only needed mod 2^L: 32-bit arithmetic wraps harmlessly below 2^32
        // and costs a fraction of the 64-bit multiplications on the device.
        let ty = if self.log_table <= 32 {
            Type::U32
        } else {
            Type::U64
        };
        let field = |f: &BitField| {
            let bits: Vec<Bit> = f.bits.iter().map(|&b| bit_of(b)).collect();
            assemble(&bits, ty.clone())
        };
        let ((cx, ex), (cy, ey)) = (field(x), field(y));
        if (cx == 0 && ex.is_none()) || (cy == 0 && ey.is_none()) {
            return value;
        }
        if ex.is_none() && ey.is_none() {
            let e = self.direction_exponent(cx.wrapping_mul(cy), log_order);
            return match self.constant(log_order, e) {
                Some(c) => self.apply_constant(value, c),
                None => value,
            };
        }
        let xe = or_constant(cx, ex, &ty);
        let ye = or_constant(cy, ey, &ty);
        let mask = (1u64 << log_order) - 1;
        let mut e = xe * ye;
        if self.inverse {
            e = lit(&ty, 0) - e;
        }
        let name = format!("e{tmp}");
        *tmp += 1;
        if let (Some(_), Some(shift)) = (self.shape.shift_order, self.roots.shift()) {
            if log_order <= shift.log_g {
                // A power of r: ω_{2^lo}^e = r^(e · 2^(log_g − lo) · amount).
                let steps = (e & lit(&ty, mask)) << lit(&ty, (shift.log_g - log_order) as u64);
                out.push(Stmt::const_(
                    Type::Int,
                    name.clone(),
                    ((steps * lit(&ty, shift.amount)) & lit(&ty, shift.order - 1)).cast(Type::Int),
                ));
                return Expr::call("fe_mul_rpow_rt", [value, Expr::var(name)]);
            }
        }
        if self.layout.coarse_covers(log_order) {
            // A power of ω_{2^C}: its own row, no shift.
            let stride = self.layout.coarse_bits - log_order;
            out.push(Stmt::const_(
                ty.clone(),
                name.clone(),
                (e & lit(&ty, mask)) << lit(&ty, stride as u64),
            ));
            let row = Expr::var(&name).cast(Type::SizeT) + Expr::u64(self.layout.coarse_base());
            return self.twist(value, Expr::var(&name), self.table_load(row), &ty);
        }
        out.push(Stmt::const_(
            ty.clone(),
            name.clone(),
            (e & lit(&ty, mask)) << lit(&ty, (self.log_table - log_order) as u64),
        ));
        self.table_mul(value, &name, &ty, out)
    }

    pub(super) fn scale(&self, value: Expr) -> Expr {
        fe::mul_mont(value, self.table_load(Expr::u64(self.layout.rows() - 1)))
    }

    pub(super) fn fused(
        &self,
        mut value: Expr,
        pending: &[&Step],
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        for step in pending {
            value = match step {
                Step::Twiddle { log_order, x, y } => {
                    self.twiddle(value, (*log_order, x, y), bit_of, out, tmp)
                }
                Step::Scale => self.scale(value),
                Step::Dft { .. } => unreachable!("only twiddles are fused"),
            };
        }
        value
    }
}
