//! The twiddles of a whole codelet at once (word primes): exponents split into run-time
//! and compile-time parts, shared table reads, and the kernel's own codelet tables.

use super::bits::{assemble, lit, Bit};
use super::table::montgomery;
use super::twiddle::Constant;
use super::Emitter;
use crate::cuda::{fe, Expr, Stmt, Table, Type};
use crate::plan::{BitField, BitSource, Codelet, Op, Step};
use fermat_dsl::field::Field;

/// The most run-time bits a codelet's own twiddle table is indexed by
/// ([`Emitter::codelet_table`]): 2^5 entries for each of up to 16 elements, at most 2 KiB
/// of 32-bit words or 4 KiB of 64-bit ones in L1.
pub(super) const CODELET_TABLE_BITS: u32 = 5;

/// The most run-time bits a codelet's table of whole twiddles is indexed by
/// ([`Emitter::whole_table`]): 2^7 entries for each of up to 16 elements, 8 KiB of 32-bit
/// words or 16 KiB of 64-bit ones in L1.
pub(super) const WHOLE_TABLE_BITS: u32 = 7;

/// One bit of a twiddle's index field, as the codelet sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FieldBit {
    /// Known when the kernel is generated.
    Known(u64),
    /// Bit l of the codelet's element v.
    Element(usize),
    /// A run-time bit.
    Run(Bit),
}

/// One twiddle step of a codelet's rotations: ω_{2^L}^(scale·x·y) for the index fields x
/// and y, bit by bit.
pub(super) struct TwiddleFields {
    scale: u64,
    x: Vec<FieldBit>,
    y: Vec<FieldBit>,
}

/// The exponents of a codelet's rotations, split as [`Emitter::codelet_exponents`] says.
pub(super) struct CodeletExponents {
    /// The run-time terms of E_0: (coefficient, value), coefficients scaled to ω_{2^L}.
    pub(super) e0: Vec<(u64, Expr)>,
    /// The run-time terms of each K_l, the same way.
    pub(super) k: Vec<Vec<(u64, Expr)>>,
    /// The run-time bits the K_l depend on, each with its weight in every K_l.
    pub(super) k_bits: Vec<(Bit, Vec<u64>)>,
    /// Per element v: Q(v) plus the compile-time parts of E_0 and of the K_l (mod 2^L, not
    /// yet negated for inverse plans).
    pub(super) q: Vec<u64>,
    /// The twiddle steps unsplit, for a table of whole exponents.
    pub(super) steps: Vec<TwiddleFields>,
}

impl CodeletExponents {
    /// Adds to [`Self::k_bits`] the weights of a field's run-time bits `bits`: the bit at
    /// place t weighs `weights[l]`·2^t·`scale` in K_l (mod 2^L, `mask`).
    fn weigh_runtime_bits(&mut self, bits: &[Bit], weights: &[u64], scale: u64, mask: u64) {
        for (t, bit) in bits.iter().enumerate() {
            if !matches!(bit, Bit::Of(..)) {
                continue;
            }
            let at = match self.k_bits.iter().position(|(known, _)| known == bit) {
                Some(at) => at,
                None => {
                    self.k_bits.push((bit.clone(), vec![0; weights.len()]));
                    self.k_bits.len() - 1
                }
            };
            for (l, &w) in weights.iter().enumerate() {
                let add = w.wrapping_mul(1 << t).wrapping_mul(scale);
                let slot = &mut self.k_bits[at].1[l];
                *slot = slot.wrapping_add(add) & mask;
            }
        }
    }
}

/// The loads' twiddles of a codelet read from a table ([`Emitter::codelet_table`]).
pub(super) struct CodeletTable {
    /// The loads' rotations.
    pub(super) shared: Shared,
    /// The run-time terms of E_0, for the outputs' twiddles to take.
    pub(super) moved: Vec<(u64, Expr)>,
    /// The table, unless every row is a constant.
    pub(super) table: Option<Table>,
}

/// The rotations of a codelet's elements, worked out for the whole codelet at once: per
/// element, a run-time factor and a compile-time exponent (already negated for inverse
/// plans).
pub(super) struct Shared {
    /// Run-time twiddles in Montgomery form.
    pub(super) factors: Vec<Option<Expr>>,
    pub(super) consts: Vec<u64>,
}

impl<F: Field> Emitter<'_, F> {
    /// The exponents of the rotations `pending` of a codelet along tile bits `locals` (word
    /// primes): for element v,
    ///
    ///   e(v) = Σ_steps 2^(L−lo)·(x_r + Σ_l a_l v_l)(y_r + Σ_l c_l v_l)
    ///        = E_0 + Σ_l v_l·K_l + Q(v),
    ///
    /// x_r, y_r the run-time parts of the index fields, a_l and c_l the weights of the
    /// codelet's own bits v_l in them: E_0 = Σ x_r·y_r and K_l = Σ (a_l·y_r + c_l·x_r) are
    /// known at run time, Q(v) = Σ (Σ a_l v_l)(Σ c_l v_l) at compile time. `None` for
    /// SRGFNs and for tables beyond 32-bit exponents.
    pub(super) fn codelet_exponents(
        &self,
        pending: &[&Step],
        locals: &[u32],
        runtime_bit: &dyn Fn(BitSource) -> Bit,
    ) -> Option<CodeletExponents> {
        if self.shape.shift_order.is_some() || self.log_table > 32 {
            return None;
        }
        let ty = Type::U32;
        let l_bits = self.log_table;
        let mask = (1u64 << l_bits) - 1;
        let b = locals.len();
        let m = 1usize << b;
        let mut ex = CodeletExponents {
            e0: Vec::new(),
            k: vec![Vec::new(); b],
            k_bits: Vec::new(),
            q: vec![0u64; m],
            steps: Vec::new(),
        };
        let mut e0_const = 0u64;
        let mut k_const = vec![0u64; b];
        for step in pending {
            let Step::Twiddle { log_order, x, y } = step else {
                continue;
            };
            let scale = 1u64 << (l_bits - log_order);
            // The run-time bits, their value (c + e) and the codelet-bit weights of a field.
            let split = |f: &BitField| -> (Vec<Bit>, u64, Option<Expr>, Vec<u64>) {
                let mut weights = vec![0u64; b];
                let bits: Vec<Bit> = f
                    .bits
                    .iter()
                    .enumerate()
                    .map(|(t, &src)| match src {
                        BitSource::Local(c) if locals.contains(&c) => {
                            let l = locals.iter().position(|&x| x == c).unwrap_or(0);
                            weights[l] |= 1 << t;
                            Bit::Known(0)
                        }
                        other => runtime_bit(other),
                    })
                    .collect();
                let (c, e) = assemble(&bits, ty.clone());
                (bits, c, e, weights)
            };
            let (xbits, cx, xe, a) = split(x);
            let (ybits, cy, ye, c) = split(y);
            let fields = |f: &BitField, bits: &[Bit]| -> Vec<FieldBit> {
                f.bits
                    .iter()
                    .zip(bits)
                    .map(|(&src, bit)| match (src, bit) {
                        (BitSource::Local(c), _) if locals.contains(&c) => {
                            FieldBit::Element(locals.iter().position(|&x| x == c).unwrap_or(0))
                        }
                        (_, Bit::Known(v)) => FieldBit::Known(*v),
                        (_, run) => FieldBit::Run(run.clone()),
                    })
                    .collect()
            };
            ex.steps.push(TwiddleFields {
                scale,
                x: fields(x, &xbits),
                y: fields(y, &ybits),
            });
            let term = |coef: u64, e: &Option<Expr>| -> Option<(u64, Expr)> {
                let coef = coef.wrapping_mul(scale) & mask;
                match (coef, e) {
                    (0, _) | (_, None) => None,
                    (c, Some(e)) => Some((c, e.clone())),
                }
            };
            // x_r·y_r.
            e0_const = e0_const.wrapping_add(cx.wrapping_mul(cy).wrapping_mul(scale));
            ex.e0.extend(term(cx, &ye));
            ex.e0.extend(term(cy, &xe));
            if let (Some(xe), Some(ye)) = (&xe, &ye) {
                ex.e0.extend(term(1, &Some(xe.clone() * ye.clone())));
            }
            for l in 0..b {
                k_const[l] = k_const[l].wrapping_add(
                    a[l].wrapping_mul(cy)
                        .wrapping_add(c[l].wrapping_mul(cx))
                        .wrapping_mul(scale),
                );
                ex.k[l].extend(term(a[l], &ye));
                ex.k[l].extend(term(c[l], &xe));
            }
            // The same run-time parts of the K_l, bit by bit: a bit at place t of x weighs
            // c_l·2^t in K_l, one of y a_l·2^t.
            ex.weigh_runtime_bits(&xbits, &c, scale, mask);
            ex.weigh_runtime_bits(&ybits, &a, scale, mask);
            for (v, qv) in ex.q.iter_mut().enumerate() {
                let sum = |w: &[u64]| -> u64 {
                    (0..b).filter(|&l| (v >> l) & 1 == 1).map(|l| w[l]).sum()
                };
                *qv = qv.wrapping_add(sum(&a).wrapping_mul(sum(&c)).wrapping_mul(scale));
            }
        }
        ex.k_bits.retain(|(_, w)| w.iter().any(|&w| w != 0));
        for (v, qv) in ex.q.iter_mut().enumerate() {
            let from_k: u64 = (0..b)
                .filter(|&l| (v >> l) & 1 == 1)
                .fold(0u64, |acc, l| acc.wrapping_add(k_const[l]));
            *qv = qv.wrapping_add(e0_const).wrapping_add(from_k) & mask;
        }
        Some(ex)
    }

    /// The twiddles of a whole codelet at once (word primes), from the exponents of
    /// [`Self::codelet_exponents`] with `moved` added to E_0: ω^e(v) is ω^E_0 times the
    /// product of the ω^K_l over the set bits of v — one product each from a smaller
    /// subset — times a constant: 1 + log2 m table reads per codelet instead of m, at the
    /// cost of m − 1 extra Montgomery products (cheap next to scattered reads).
    ///
    /// Returns, per element, the run-time twiddle and the compile-time exponent (already
    /// negated for inverse plans); `None` when nothing depends on the run time.
    pub(super) fn codelet_twiddles(
        &self,
        ex: CodeletExponents,
        moved: &[(u64, Expr)],
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Option<Shared> {
        let CodeletExponents { mut e0, k, q, .. } = ex;
        e0.extend(moved.iter().cloned());
        if e0.is_empty() && k.iter().all(Vec::is_empty) {
            return None;
        }
        let ty = Type::U32;
        let mask = (1u64 << self.log_table) - 1;
        let b = k.len();
        let m = q.len();
        let id = *tmp;
        *tmp += 1;
        // A run-time power ω^(Σ terms) as a named twiddle.
        let power = |name: String, terms: &[(u64, Expr)], out: &mut Vec<Stmt>| -> Option<Expr> {
            let mut e = terms
                .iter()
                .map(|(c, e)| match c {
                    1 => e.clone(),
                    c => e.clone() * lit(&ty, *c),
                })
                .reduce(|x, y| x + y)?;
            if self.inverse {
                e = lit(&ty, 0) - e;
            }
            let ename = format!("{name}e");
            out.push(Stmt::const_(ty.clone(), ename.clone(), e & lit(&ty, mask)));
            out.push(Stmt::const_(
                Type::Fe,
                name.clone(),
                self.table_value(Expr::var(ename), &ty),
            ));
            Some(Expr::var(name))
        };
        let t0 = power(format!("w{id}"), &e0, out);
        let mut gens: Vec<Option<Expr>> = Vec::with_capacity(b);
        for l in 0..b {
            let name = format!("g{id}_{l}");
            // Codelet bits usually weigh 1, 2, 4, …: then ω^(K_l) = (ω^(K_(l−1)))^2, a
            // squaring instead of table reads.
            let doubles = l > 0
                && !k[l].is_empty()
                && k[l].len() == k[l - 1].len()
                && k[l]
                    .iter()
                    .zip(&k[l - 1])
                    .all(|((c, e), (c0, e0))| e == e0 && *c == c0.wrapping_mul(2) & mask);
            let g = match &gens.last() {
                Some(Some(prev)) if doubles => {
                    out.push(Stmt::const_(
                        Type::Fe,
                        name.clone(),
                        fe::mul_mont(prev.clone(), prev.clone()),
                    ));
                    Some(Expr::var(name))
                }
                _ => power(name, &k[l], out),
            };
            gens.push(g);
        }
        let mut w: Vec<Option<Expr>> = vec![t0];
        for v in 1..m {
            let top = usize::BITS - 1 - v.leading_zeros();
            let rest = v & !(1 << top);
            let value = match (&w[rest], &gens[top as usize]) {
                (x, None) => x.clone(),
                (None, g) => g.clone(),
                (Some(x), Some(g)) => {
                    let name = format!("w{id}_{v}");
                    out.push(Stmt::const_(
                        Type::Fe,
                        name.clone(),
                        fe::mul_mont(x.clone(), g.clone()),
                    ));
                    Some(Expr::var(name))
                }
            };
            w.push(value);
        }
        Some(Shared {
            factors: w,
            consts: q
                .iter()
                .map(|&e| self.direction_exponent(e, self.log_table))
                .collect(),
        })
    }

    /// The twiddles of a codelet's loads read whole from a table of the kernel's own
    /// (word primes), where that is cheaper than deriving them: ω^e(v) = ω^E_0 ·
    /// ω^(Σ_l v_l·K_l + Q(v)), and when the K_l depend on at most [`CODELET_TABLE_BITS`]
    /// run-time bits s (the codelet's other tile bits, typically: the output index of the
    /// round before), the second factor is an entry T[v][s] computed at compile time. The
    /// first is the same for every element of the codelet, so it commutes with the DFT and
    /// is `moved` to the outputs, where the next twist multiplies them anyway (its twiddles
    /// take one more product). A codelet of 16 thus spends 15 reads of one L1 wavefront
    /// each instead of about 20 Montgomery products on its input twiddles — products on the
    /// integer multiplier, whose pipe bounds the word-prime passes (ncu: 64% busy, "math
    /// pipe throttle" the first stall). On an H200, babybear 2^24 went from 0.152 to
    /// 0.143 ms and goldilocks 2^24 from 0.388 to 0.359 (bench/RESULTS.md, tuning round 9).
    ///
    /// Entries are in Montgomery form: Shoup pairs (w and ⌊w·2^32/p⌋) would save a product
    /// per twiddle but hold twice the registers, and the kernels then fit fewer blocks.
    /// `None` where the derivation stays: too many run-time bits, or an E_0 that depends on
    /// the run time without output twiddles to take it.
    pub(super) fn codelet_table(
        &self,
        ex: &CodeletExponents,
        outputs_twisted: bool,
        name: &str,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Option<CodeletTable> {
        let s_bits = ex.k_bits.len() as u32;
        if s_bits > CODELET_TABLE_BITS
            || (ex.k_bits.is_empty() && ex.e0.is_empty())
            || (!ex.e0.is_empty() && !outputs_twisted)
        {
            return None;
        }
        let mask = (1u64 << self.log_table) - 1;
        let m = ex.q.len();
        // The run-time part of element v's exponent for run-time bits s.
        let varying = |v: usize, s: u64| -> u64 {
            ex.k_bits
                .iter()
                .enumerate()
                .filter(|&(i, _)| (s >> i) & 1 == 1)
                .flat_map(|(_, (_, w))| {
                    w.iter()
                        .enumerate()
                        .filter(move |&(l, _)| (v >> l) & 1 == 1)
                })
                .fold(0u64, |acc, (_, &w)| acc.wrapping_add(w))
                & mask
        };
        let bits: Vec<Bit> = ex.k_bits.iter().map(|(b, _)| b.clone()).collect();
        let (shared, table) = self.table_rows(
            (m, &bits),
            |v, s| ex.q[v].wrapping_add(varying(v, s)),
            None,
            name,
            out,
            tmp,
        );
        Some(CodeletTable {
            shared,
            moved: ex.e0.clone(),
            table,
        })
    }

    /// The loads' twiddles of a codelet read whole from a table of the kernel's own (word
    /// primes) where [`Self::codelet_table`] cannot serve them — E_0 depends on the run time
    /// and no twist on the outputs takes it, as in the middle round of a pass of three —
    /// and the exponents depend on at most [`WHOLE_TABLE_BITS`] run-time bits s: entry
    /// T[v][s] = ω^e(v) for every element v, one L1 read and one product each. The
    /// derivation it replaces spends m + log2 m + 2 Montgomery products per codelet on
    /// twiddles before the m that apply them (bench/RESULTS.md, batch round 3).
    pub(super) fn whole_table(
        &self,
        ex: &CodeletExponents,
        name: &str,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Option<CodeletTable> {
        let mut run: Vec<Bit> = Vec::new();
        for bit in ex.steps.iter().flat_map(|s| s.x.iter().chain(&s.y)) {
            if let FieldBit::Run(b) = bit {
                if !run.contains(b) {
                    run.push(b.clone());
                }
            }
        }
        if run.is_empty() || run.len() as u32 > WHOLE_TABLE_BITS {
            return None;
        }
        // Bits of one variable in ascending order: neighbouring threads read neighbouring
        // entries, one L1 wavefront a warp.
        run.sort_by_key(|b| match b {
            Bit::Of(var, at) => (*var, *at),
            Bit::Known(_) => ("", 0),
        });
        let mask = (1u64 << self.log_table) - 1;
        let value = |field: &[FieldBit], v: usize, s: u64| -> u64 {
            field.iter().enumerate().fold(0u64, |acc, (t, bit)| {
                let b = match bit {
                    FieldBit::Known(c) => *c,
                    FieldBit::Element(l) => (v as u64 >> l) & 1,
                    FieldBit::Run(b) => {
                        let at = run.iter().position(|r| r == b).unwrap_or(0);
                        (s >> at) & 1
                    }
                };
                acc | b << t
            })
        };
        let exponent = |v: usize, s: u64| -> u64 {
            ex.steps.iter().fold(0u64, |acc, step| {
                let xy = value(&step.x, v, s).wrapping_mul(value(&step.y, v, s));
                acc.wrapping_add(xy.wrapping_mul(step.scale)) & mask
            })
        };
        // The first whole table takes the emitter's factor, if it has one.
        let factor = match &self.whole_factor {
            Some(c) if !self.whole_factor_taken.replace(true) => Some(c),
            _ => None,
        };
        let rows = (ex.q.len(), run.as_slice());
        let (shared, table) = self.table_rows(rows, exponent, factor, name, out, tmp);
        Some(CodeletTable {
            shared,
            moved: Vec::new(),
            table,
        })
    }

    /// A codelet table `{name}_t{id}` of rows of entries ω^exponent(v, s) (negated for
    /// inverse plans), times `factor` where there is one, for each of the codelet's `m`
    /// elements v and each value s of the run-time `bits`, in Montgomery form, and the
    /// rotations that read it at `t{id}s` (defined in `out`): without a factor, a row
    /// alike across s is a compile-time exponent instead. The table is `None` where every
    /// row is.
    fn table_rows(
        &self,
        (m, bits): (usize, &[Bit]),
        exponent: impl Fn(usize, u64) -> u64,
        factor: Option<&F::Elem>,
        name: &str,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> (Shared, Option<Table>) {
        let id = *tmp;
        *tmp += 1;
        let table_name = format!("{name}_t{id}");
        let index = format!("t{id}s");
        let mut words = Vec::new();
        let mut factors = Vec::with_capacity(m);
        let mut consts = Vec::with_capacity(m);
        for v in 0..m {
            let row: Vec<u64> = (0..1u64 << bits.len())
                .map(|s| self.direction_exponent(exponent(v, s), self.log_table))
                .collect();
            if factor.is_none() && row.iter().all(|&e| e == row[0]) {
                factors.push(None);
                consts.push(row[0]);
                continue;
            }
            let at = Expr::u32(words.len() as u32) + Expr::var(&index);
            factors.push(Some(Expr::var(&table_name).at(at)));
            consts.push(0);
            words.extend(row.iter().map(|&e| {
                let w = self.roots.power(self.field, e);
                let w = factor.map_or(w, |c| self.field.mul(&w, c));
                montgomery(self.field, self.shape, &w)
            }));
        }
        // Without rows, nothing that varies depended on the run time: constants alone.
        let table = (!words.is_empty()).then(|| {
            let (_, s_expr) = assemble(bits, Type::U32);
            let s_expr = s_expr.expect("table rows vary with run-time bits");
            out.push(Stmt::const_(Type::U32, index, s_expr));
            Table::device(table_name, words)
        });
        (Shared { factors, consts }, table)
    }

    /// The rotations `steps` applied to element v of a codelet: through the codelet's
    /// shared twiddles where [`Self::codelet_table`] or [`Self::codelet_twiddles`] found
    /// them, else one by one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rotate(
        &self,
        value: Expr,
        v: u64,
        steps: &[&Step],
        shared: &Option<Shared>,
        bit_of: &dyn Fn(BitSource) -> Bit,
        out: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> Expr {
        let Some(shared) = shared else {
            return self.fused(value, steps, bit_of, out, tmp);
        };
        let mut value = value;
        if let Some(t) = &shared.factors[v as usize] {
            value = fe::mul_mont(value, t.clone());
        }
        if let Some(c) = self.constant(self.log_table, shared.consts[v as usize]) {
            value = self.apply_constant(value, c);
        }
        for step in steps {
            if let Step::Scale = step {
                value = self.scale(value);
            }
        }
        value
    }

    /// Whether a multiplication is the next thing done to `value`'s register at each point:
    /// a product of a word prime below R/2 takes any operand below R, so the butterfly
    /// feeding it may leave its sum or difference unreduced in [0, 2p) (one instruction
    /// instead of two). Per op of `codelet`: whether the sum and the difference of that
    /// butterfly go straight into a product — a rotation by a non-trivial constant, or the
    /// output twiddles `post` (through the codelet's shared twiddles `shared`).
    pub(super) fn lazy_outputs(
        &self,
        codelet: &Codelet,
        post: &[&Step],
        shared: &Option<Shared>,
    ) -> Vec<(bool, bool)> {
        let p = self.field.modulus();
        let half = self.shape.shift_order.is_none() && p.bits() < u64::from(self.word_bits());
        if !half {
            return vec![(false, false); codelet.ops.len()];
        }
        let scaled = post.iter().any(|s| matches!(s, Step::Scale));
        // A constant rotation is a product unless it is a digit shift (SRGFNs, excluded
        // above) or trivial.
        let multiplies = |c: Option<Constant>| c.is_some_and(|c| !matches!(c, Constant::Shift(_)));
        // Output v starts with a product when its rotation has a run-time twiddle, a
        // multiplying constant, or the 1/n scale.
        let output_multiplied = |v: usize| -> bool {
            match shared {
                Some(s) => {
                    s.factors[v].is_some()
                        || multiplies(self.constant(self.log_table, s.consts[v]))
                        || scaled
                }
                None => post.len() == 1 && scaled,
            }
        };
        let multiplied_next = |from: usize, reg: u32| -> bool {
            for op in &codelet.ops[from..] {
                match *op {
                    Op::Butterfly { a, b } if a == reg || b == reg => return false,
                    Op::Rotate {
                        reg: r,
                        log_order,
                        exp,
                    } if r == reg => {
                        let c = self.constant(log_order, self.direction_exponent(exp, log_order));
                        // A trivial rotation emits nothing: look further.
                        if c.is_some() {
                            return multiplies(c);
                        }
                    }
                    _ => {}
                }
            }
            codelet
                .out
                .iter()
                .position(|&r| r == reg)
                .is_some_and(output_multiplied)
        };
        codelet
            .ops
            .iter()
            .enumerate()
            .map(|(at, op)| match *op {
                Op::Butterfly { a, b } => (multiplied_next(at + 1, a), multiplied_next(at + 1, b)),
                Op::Rotate { .. } => (false, false),
            })
            .collect()
    }
}
