//! The rounds of a kernel: every DFT step is one round of codelets over the tile in shared
//! memory, with the rotations before it fused into its loads and those after it applied to
//! its outputs.

use super::bits::{assemble, deposit, part, Bit};
use super::tile::{thread_loop, Tile};
use super::{Emitter, MidLayout};
use crate::cuda::{fe, Expr, Stmt, Table, Type};
use crate::plan::{BitSource, Codelet, KernelPlan, Op, Step};
use fermat_dsl::field::Field;

/// The steps of one round of a kernel: the DFT along tile bits `locals`, the rotations
/// fused into its loads (`pre`) and those applied to its outputs (`post`), and where its
/// inputs come from.
pub(super) struct RoundSteps<'k> {
    pub(super) locals: &'k [u32],
    pub(super) pre: Vec<&'k Step>,
    pub(super) post: Vec<&'k Step>,
    /// Whether the round reads its inputs from the kernel's source rather than the tile
    /// (`Emitter::first_round_reads_source`).
    pub(super) reads_source: bool,
}

/// How the threads of a block take the codelets of one round.
pub(super) struct RoundLayout {
    /// The tile bits outside the codelet's, in the order the group index fills them: group
    /// bit u is thread bit u below the round's thread count, a loop counter's bit above.
    pub(super) free: Vec<u32>,
    /// The rotations specialised on warp-uniform bits, if any.
    pub(super) uniform: Option<Uniform>,
}

/// Rotations of a round whose exponents depend, at run time, only on bits that are the same
/// across a warp: SRGFN shifts by powers of r — the inner twiddles of a DFT(2k) split into
/// codelets, whose exponent bits the round gives to the warp index, or shifts set by the
/// block index. Each value of those bits can get a case of a `switch` with its shifts at
/// compile time (a negacyclic rotation and one subtraction, `fe_mul_rpow<i>`) instead of
/// a run-time shift through a barrel shifter (`fe_mul_rpow_rt`) on every element; the
/// branch is uniform, so no warp diverges.
pub(super) struct Uniform {
    /// The run-time bits the cases are taken on, lowest first (`base` or `blk` bits).
    pub(super) bits: Vec<Bit>,
    /// Whether the rotations of the loads depend on them only.
    pub(super) pre: bool,
    /// Whether the rotations of the outputs depend on them only.
    pub(super) post: bool,
}

/// The most compile-time shifts the cases of one `switch` may hold together ([`Uniform`]).
/// Each is straight-line code over k digits, and the SRGFN passes are sensitive to the
/// instruction cache: on an H200 the switches took P2 2^24 from 3.82 to 3.72 ms (three
/// shifts each) and P4 2^20 from 1.13 to 1.11 ms (one or two), but P3 2^20 from 0.428 to
/// 0.440 ms (nine), which keeps its run-time shifts (bench/RESULTS.md, tuning round 7).
pub(super) const MAX_SPECIALISED_SHIFTS: usize = 8;

/// Lanes of a warp, log2.
pub(super) const WARP_BITS: u32 = 5;

/// The group bits of a round along `locals` that tell the lanes of a warp apart (at most
/// [`WARP_BITS`], fewer where the round has fewer threads or groups): group bit u below
/// them is lane bit u, and those above are the same across a warp.
pub(super) fn lane_bits(tile: &Tile, locals: &[u32]) -> u32 {
    let groups = tile.size() >> locals.len();
    (tile.threads as u64)
        .min(groups)
        .trailing_zeros()
        .min(WARP_BITS)
}

/// The run-time bit that a rotation exponent's source bit is in a round along `locals`:
/// a tile bit of the group's `base`, a block bit or a constant; `None` for the codelet's
/// own bits, which every element knows at compile time.
pub(super) fn round_bit(tile: &Tile, locals: &[u32], src: BitSource) -> Option<Bit> {
    match src {
        BitSource::Local(c) if locals.contains(&c) => None,
        BitSource::Local(c) => Some(Bit::Of("base", c)),
        BitSource::Piece(c) => Some(match tile.piece_bit(c) {
            Bit::Of("i", t) => Bit::Of("base", t),
            other => other,
        }),
    }
}

impl<F: Field> Emitter<'_, F> {
    /// The rounds of kernel `k`, each DFT step with the rotations before it (fused into its
    /// loads) and, for the last, those after it (applied to its outputs while they are
    /// still in registers, where a codelet's twiddles share their table reads); and the
    /// rotations of a kernel without DFT steps, applied on the way through.
    pub(super) fn rounds(k: &KernelPlan) -> (Vec<RoundSteps<'_>>, Vec<&Step>) {
        let last_round = k.steps.iter().rposition(|s| matches!(s, Step::Dft { .. }));
        let mut rounds = Vec::new();
        let mut pending = Vec::new();
        for (at, step) in k.steps.iter().enumerate() {
            match step {
                Step::Twiddle { .. } | Step::Scale => {
                    if last_round.is_none_or(|last| at < last) {
                        pending.push(step);
                    }
                }
                Step::Dft { locals } => {
                    let post = if Some(at) == last_round {
                        k.steps[at + 1..].iter().collect()
                    } else {
                        Vec::new()
                    };
                    rounds.push(RoundSteps {
                        locals,
                        pre: std::mem::take(&mut pending),
                        post,
                        reads_source: false,
                    });
                }
            }
        }
        (rounds, pending)
    }

    /// How the threads of a block take the codelets of `round` (see [`Uniform`]): the group
    /// index fills the tile bits outside the codelet lowest first, except that bits on which
    /// the round's shifts depend go last — to the warp index and the loop counter, where
    /// they are the same across a warp — when they fit there: the loads' and the outputs'
    /// shifts together where both fit, else whichever does. That order alone, without the
    /// switch, took P3 2^20 from 0.434 to 0.428 ms and P4 2^20 from 1.142 to 1.129 ms on an
    /// H200 (bench/RESULTS.md, tuning round 7): the layout chosen for it left P3's passes
    /// with fewer shared-memory bank conflicts.
    pub(super) fn round_layout(&self, round: &RoundSteps, tile: &Tile) -> RoundLayout {
        let bits = tile.s + tile.pb;
        let ascending: Vec<u32> = (0..bits).filter(|c| !round.locals.contains(c)).collect();
        let plain = RoundLayout {
            free: ascending.clone(),
            uniform: None,
        };
        let Some(shift) = self.shape.shift_order.and(self.roots.shift()) else {
            return plain;
        };
        // Group bits from this one up are the same across a warp.
        let uniform_from = lane_bits(tile, round.locals);
        // The run-time bits of a list of rotations that are all shifts, if any (the 1/n
        // scale is a full product, which every case would repeat).
        let deps = |steps: &[&Step]| -> Option<Vec<Bit>> {
            let mut deps: Vec<Bit> = Vec::new();
            for step in steps {
                let Step::Twiddle { log_order, x, y } = step else {
                    return None;
                };
                if *log_order > shift.log_g {
                    return None;
                }
                for &src in x.bits.iter().chain(&y.bits) {
                    if let Some(b @ Bit::Of(..)) = round_bit(tile, round.locals, src) {
                        if !deps.contains(&b) {
                            deps.push(b);
                        }
                    }
                }
            }
            (!deps.is_empty()).then_some(deps)
        };
        let (pre, post) = (deps(&round.pre), deps(&round.post));
        for (want_pre, want_post) in [(true, true), (true, false), (false, true)] {
            let wanted = [(want_pre, &pre), (want_post, &post)];
            if wanted.iter().any(|(want, d)| *want && d.is_none()) {
                continue;
            }
            let mut on: Vec<Bit> = Vec::new();
            for (_, d) in wanted.iter().filter(|(want, _)| *want) {
                for b in d.iter().flatten() {
                    if !on.contains(b) {
                        on.push(b.clone());
                    }
                }
            }
            let moved: Vec<u32> = ascending
                .iter()
                .copied()
                .filter(|&c| on.contains(&Bit::Of("base", c)))
                .collect();
            if moved.len() as u32 + uniform_from > ascending.len() as u32 {
                continue;
            }
            let mut free: Vec<u32> = ascending
                .iter()
                .copied()
                .filter(|c| !moved.contains(c))
                .collect();
            free.extend(moved);
            return RoundLayout {
                free,
                uniform: Some(Uniform {
                    bits: on,
                    pre: want_pre,
                    post: want_post,
                }),
            };
        }
        plain
    }

    /// A `switch` over the values of `uniform`'s bits (held in `on`) whose case applies
    /// `steps` to the registers `regs` — element v in register `x{r}` for each (v, r) — with
    /// those bits known, so that every exponent is a compile-time constant; `None` when the
    /// cases would hold more than [`MAX_SPECIALISED_SHIFTS`] rotations.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn specialised(
        &self,
        uniform: &Uniform,
        on: &str,
        steps: &[&Step],
        regs: &[(u64, u32)],
        bit_of: &dyn Fn(u64, BitSource) -> Bit,
        tmp: &mut u32,
    ) -> Option<Stmt> {
        let mut rotations = 0;
        let cases = (0..1u64 << uniform.bits.len())
            .map(|case| {
                let mut out = Vec::new();
                for &(v, r) in regs {
                    let known = |src: BitSource| {
                        let b = bit_of(v, src);
                        match uniform.bits.iter().position(|u| *u == b) {
                            Some(i) => Bit::Known((case >> i) & 1),
                            None => b,
                        }
                    };
                    let x = Expr::var(format!("x{r}"));
                    let value = self.fused(x.clone(), steps, &known, &mut out, tmp);
                    if value != x {
                        rotations += 1;
                        out.push(Stmt::assign(x, value));
                    }
                }
                out
            })
            .collect();
        (rotations <= MAX_SPECIALISED_SHIFTS).then(|| Stmt::Switch {
            on: Expr::var(on),
            cases,
        })
    }

    /// One round: every thread runs the codelet of its groups of the DFT along
    /// `steps.locals`, with the rotations `steps.pre` applied to its inputs and `steps.post`
    /// to its outputs, the groups taken as `layout` says.
    pub(super) fn round(
        &self,
        k: &KernelPlan,
        steps: &RoundSteps,
        layout: &RoundLayout,
        tile: &Tile,
        (name, tables): (&str, &mut Vec<Table>),
        tmp: &mut u32,
    ) -> Vec<Stmt> {
        let (locals, pre, post) = (steps.locals, &steps.pre[..], &steps.post[..]);
        let m = 1u64 << locals.len();
        let groups = Groups::new(locals, layout, tile);
        let mut inner = groups.heads();
        // Bits of a tile index outside the codelet's own: from `base` (the group) or the
        // block index.
        let runtime_bit =
            |src: BitSource| round_bit(tile, &[], src).expect("no bit is the codelet's");
        // Bits of element v's tile index: the codelet's bits are those of v.
        let bit_of = |v: u64| move |src: BitSource| element_bit(tile, locals, v, src);
        let codelet = Codelet::radix2(locals.len() as u32);
        let (pre_switch, post_switch) =
            self.switches(steps, layout, tile, &codelet, &mut inner, tmp);
        let (spec_pre, spec_post) = (pre_switch.is_some(), post_switch.is_some());
        // The loads' twiddles from a table of the kernel's own where it serves, their
        // common factor then moved to the outputs; else derived per codelet.
        let outputs_twisted = !spec_post && post.iter().any(|s| matches!(s, Step::Twiddle { .. }));
        let mut moved = Vec::new();
        let shared_pre = if spec_pre {
            None
        } else {
            self.codelet_exponents(pre, locals, &runtime_bit)
                .and_then(|ex| {
                    match self.codelet_table(&ex, outputs_twisted, name, &mut inner, tmp) {
                        Some(t) => {
                            moved = t.moved;
                            tables.extend(t.table);
                            Some(t.shared)
                        }
                        None => match self.whole_table(&ex, name, &mut inner, tmp) {
                            Some(t) => {
                                tables.extend(t.table);
                                Some(t.shared)
                            }
                            None => self.codelet_twiddles(ex, &[], &mut inner, tmp),
                        },
                    }
                })
        };
        for v in 0..m {
            let words = Expr::u64(tile.words());
            let loaded = match (steps.reads_source, &self.mid) {
                (false, _) => fe::load(Expr::var("tile"), groups.slot(v), words),
                (true, MidLayout::Reads) => fe::load(Expr::var("in"), groups.slot(v), words),
                (true, _) => self.read_source(k, Expr::var("in"), groups.index(v), self.operand(k)),
            };
            let value = if spec_pre {
                loaded
            } else {
                self.rotate(loaded, v, pre, &shared_pre, &bit_of(v), &mut inner, tmp)
            };
            inner.push(Stmt::let_(Type::Fe, format!("x{v}"), value));
        }
        inner.extend(pre_switch);
        let mut post_twiddles = Vec::new();
        let shared_post = if spec_post {
            None
        } else {
            self.codelet_exponents(post, locals, &runtime_bit)
                .and_then(|ex| self.codelet_twiddles(ex, &moved, &mut post_twiddles, tmp))
        };
        let lazy = self.lazy_outputs(&codelet, post, &shared_post);
        inner.extend(self.codelet_ops(&codelet, &lazy));
        inner.extend(post_twiddles);
        inner.extend(post_switch);
        for (v, &r) in codelet.out.iter().enumerate() {
            let v = v as u64;
            let value = Expr::var(format!("x{r}"));
            let value = if spec_post {
                value
            } else {
                self.rotate(value, v, post, &shared_post, &bit_of(v), &mut inner, tmp)
            };
            inner.push(fe::store(
                Expr::var("tile"),
                groups.slot(v),
                Expr::u64(tile.words()),
                value,
            ));
        }
        vec![
            Stmt::comment(format!("DFT({m}) along tile bits {locals:?}")),
            self.group_loop(&groups, inner),
            Stmt::sync(),
        ]
    }

    /// The shifts of a round's loads and outputs, specialised in a `switch` where `layout`
    /// made their bits uniform and the cases stay small ([`Uniform`]); the value switched
    /// on is defined in `inner`.
    fn switches(
        &self,
        steps: &RoundSteps,
        layout: &RoundLayout,
        tile: &Tile,
        codelet: &Codelet,
        inner: &mut Vec<Stmt>,
        tmp: &mut u32,
    ) -> (Option<Stmt>, Option<Stmt>) {
        let Some(u) = layout.uniform.as_ref() else {
            return (None, None);
        };
        let on = format!("u{tmp}");
        let m = 1u64 << steps.locals.len();
        let elem_bit = |v: u64, src: BitSource| element_bit(tile, steps.locals, v, src);
        let ins: Vec<(u64, u32)> = (0..m).map(|v| (v, v as u32)).collect();
        let outs: Vec<(u64, u32)> = (0..m).zip(codelet.out.iter().copied()).collect();
        let pre_switch = u
            .pre
            .then(|| self.specialised(u, &on, &steps.pre, &ins, &elem_bit, tmp))
            .flatten();
        let post_switch = u
            .post
            .then(|| self.specialised(u, &on, &steps.post, &outs, &elem_bit, tmp))
            .flatten();
        if pre_switch.is_some() || post_switch.is_some() {
            *tmp += 1;
            let (_, value) = assemble(&u.bits, Type::U32);
            let value = value.expect("a round is specialised on run-time bits");
            inner.push(Stmt::const_(Type::U32, on, value));
        }
        (pre_switch, post_switch)
    }

    /// The codelet's butterflies and constant rotations on registers `x0..`, each sum or
    /// difference left unreduced where `lazy` says a product takes it next.
    fn codelet_ops(&self, codelet: &Codelet, lazy: &[(bool, bool)]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for (at, op) in codelet.ops.iter().enumerate() {
            match *op {
                Op::Butterfly { a, b } => {
                    let (xa, xb) = (Expr::var(format!("x{a}")), Expr::var(format!("x{b}")));
                    let add = if lazy[at].0 { "fe_add_lazy" } else { "fe_add" };
                    let sub = if lazy[at].1 { "fe_sub_lazy" } else { "fe_sub" };
                    out.push(Stmt::Block(vec![
                        Stmt::const_(Type::Fe, "t", xa.clone()),
                        Stmt::assign(xa, Expr::call(add, [Expr::var("t"), xb.clone()])),
                        Stmt::assign(xb.clone(), Expr::call(sub, [Expr::var("t"), xb])),
                    ]));
                }
                Op::Rotate {
                    reg,
                    log_order,
                    exp,
                } => {
                    let e = self.direction_exponent(exp, log_order);
                    if let Some(c) = self.constant(log_order, e) {
                        let x = Expr::var(format!("x{reg}"));
                        out.push(Stmt::assign(x.clone(), self.apply_constant(x, c)));
                    }
                }
            }
        }
        out
    }

    /// Each thread's loop over its groups around `inner` (one group's codelet).
    fn group_loop(&self, groups: &Groups, inner: Vec<Stmt>) -> Stmt {
        let mut body = groups.thread();
        if groups.per_thread == 1 {
            body.push(Stmt::const_(Type::U32, "gj", Expr::u32(0)));
            body.extend(inner);
        } else {
            let mut lp = crate::cuda::ForLoop::range(
                "gj",
                Type::U32,
                Expr::u32(0),
                Expr::u32(groups.per_thread as u32),
            )
            .body(inner);
            // A thread's codelets are independent: unrolled, one's loads and products fill
            // the other's latencies. Measured worth it for 32-bit words only (larger
            // elements fill the registers with one codelet).
            if self.shape.element_bytes == 4 {
                lp = lp.unrolled();
            }
            body.push(Stmt::For(lp));
        }
        thread_loop(groups.threads as u32, body)
    }
}

/// The bit of element v's tile index that a rotation exponent's source bit is, in a round
/// along `locals`: the codelet's own bits are those of v.
fn element_bit(tile: &Tile, locals: &[u32], v: u64, src: BitSource) -> Bit {
    round_bit(tile, locals, src).unwrap_or_else(|| {
        let BitSource::Local(c) = src else {
            unreachable!("only local bits are the codelet's")
        };
        let i = locals.iter().position(|&l| l == c).expect("a codelet bit");
        Bit::Known((v >> i) & 1)
    })
}

/// How the threads of a block take the codelets (groups) of one round: group
/// g = tq | gj·2^t, thread tq running `per_thread` of them, and each group's base tile
/// index, into whose non-DFT bits the group index deposits.
struct Groups<'a> {
    tile: &'a Tile,
    locals: &'a [u32],
    threads: u64,
    per_thread: u64,
    base_bits: Vec<Bit>,
}

impl<'a> Groups<'a> {
    fn new(locals: &'a [u32], layout: &RoundLayout, tile: &'a Tile) -> Groups<'a> {
        let groups = tile.size() >> locals.len();
        // More threads than groups leave some idle.
        let threads = (tile.threads as u64).min(groups);
        let t = threads.trailing_zeros();
        let group_bit = |u: u32| {
            if u < t {
                Bit::Of("tq", u)
            } else {
                Bit::Of("gj", u - t)
            }
        };
        let mut base_bits = vec![Bit::Known(0); (tile.s + tile.pb) as usize];
        for (u, &c) in layout.free.iter().enumerate() {
            base_bits[c as usize] = group_bit(u as u32);
        }
        Groups {
            tile,
            locals,
            threads,
            per_thread: groups / threads,
            base_bits,
        }
    }

    /// A thread's part of the base (`bt`) and its shared-memory slot (`sbt`).
    fn thread(&self) -> Vec<Stmt> {
        vec![
            Stmt::const_(Type::U32, "bt", part(&self.base_bits, &["tq"], &Type::U32)),
            Stmt::const_(Type::U32, "sbt", self.tile.swizzle.expr(Expr::var("bt"))),
        ]
    }

    /// A group's base (`base`) and its slot (`sbase`), at the head of its codelet.
    fn heads(&self) -> Vec<Stmt> {
        let swz = &self.tile.swizzle;
        let own = part(&self.base_bits, &["gj"], &Type::U32);
        vec![
            Stmt::const_(Type::U32, "base", Expr::var("bt") + own.clone()),
            Stmt::const_(
                Type::U32,
                "sbase",
                swz.join(Expr::var("sbt"), swz.expr(own)),
            ),
        ]
    }

    /// The tile-index bits of element v of the group's codelet beside its base.
    fn offset(&self, v: u64) -> u64 {
        deposit(v, self.locals)
    }

    /// The shared-memory slot of element v of the group's codelet: base and offset have
    /// disjoint bits, so swz(base | offset) = join(swz(base), swz(offset)).
    fn slot(&self, v: u64) -> Expr {
        let swz = &self.tile.swizzle;
        swz.join(
            Expr::var("sbase"),
            Expr::u32(swz.apply(self.offset(v)) as u32),
        )
    }

    /// The tile index of element v of the group's codelet, as an offset into a vector.
    fn index(&self, v: u64) -> Expr {
        (Expr::var("base") + Expr::u32(self.offset(v) as u32)).cast(Type::SizeT)
    }
}
