//! Lehmer's rounds on chip: Euclid's algorithm on pairs too long for one block's shared
//! memory, the steps on a short window of the top coefficients and the long arithmetic
//! spread over the whole device.
//!
//! The quotients of a remainder sequence depend only on the top coefficients: if f, f*
//! coincide in their top 2h + 1 coefficients and g, g* in theirs down to the same
//! position, the quotients q_1, q_2, … of (f, g) and (f*, g*) agree as long as
//! deg q_1 + … + deg q_i ≤ h (von zur Gathen and Gerhard, *Modern Computer Algebra*,
//! Lemma 11.3 and Theorem 11.4; the same fact drives the half-gcd). A round of
//! [`EuclidPass::Window`](crate::euclid::EuclidPass::Window) therefore runs Euclid's steps on the
//! top 2h + 1 coefficients of the pair (u, v), u the longer, in one block's shared memory,
//! each step u ← lc(v)·u − lc(u)·x^k·v as in [`EuclidPass::Gcd`](crate::euclid::EuclidPass::Gcd),
//! and carries the same combinations on the cofactors: after the steps it may take (those
//! whose divisor keeps degree ≥ deg u − h), the pair is (r_i, r_(i+1)) = M·(u, v) up to
//! constants, M a 2×2 matrix of polynomials of degree ≤ h. A round of
//! [`EuclidPass::Apply`](crate::euclid::EuclidPass::Apply) then multiplies M into the whole pair on
//! every multiprocessor: deg u drops by about h per round, for O(h) work on one block and
//! O(h·n) spread over the device, where the on-chip Euclid took O(n) per step on one block.
//!
//! A round whose pair fits the window (deg u ≤ 2h) runs the sequence to its end and writes
//! the last nonzero remainder, as [`EuclidPass::Gcd`](crate::euclid::EuclidPass::Gcd) does. A pair
//! whose first quotient has degree above h (deg u − deg v > h) cannot take a step from the
//! window: the round stops with [`LehmerStatus::Stalled`] and the host divides once. The
//! rounds keep their state on the device ([`LehmerState`]), so a host queues many of them
//! without reading anything back; a round after the sequence ended or stalled returns at
//! once.
//!
//! [`lehmer_rounds`] runs the same rounds in Rust: the host harness
//! (`codegen/tests/on_host/lehmer_host.rs`) checks the kernels against it element for element.

mod apply;
mod mirror;
mod rows;
mod warp;
mod window;

pub(super) use apply::apply_body;
pub use mirror::{
    lehmer_rounds, lehmer_rounds_carrying, lehmer_rounds_logging, LehmerCarried, LehmerEnd,
};
pub(super) use warp::WARP_LENS;
pub use warp::{WARP_HALF, WARP_MATRIX_LEN};
pub(super) use window::window_body;

use super::var;
use crate::cuda::{fe, BinOp, Expr, Stmt, Type};

/// The words of the state of the Lehmer rounds (`uint64_t state[WORDS]`), and where each
/// lives.
///
/// ```
/// use fermat_codegen::euclid::LehmerState as S;
///
/// // Every word the rounds keep has a place of its own within the state.
/// let mut words = vec![S::STATUS, S::ROUND, S::RESULT_LEN, S::STEPS];
/// for set in 0..2 {
///     words.extend([S::len_u(set), S::len_v(set), S::len_su(set), S::len_sv(set)]);
/// }
/// words.extend((0..4).map(S::cofactor));
/// words.sort();
/// assert_eq!(words, (0..S::WORDS).collect::<Vec<_>>());
/// // Round r reads pair r mod 2: the second pair's words follow the first's by two.
/// assert_eq!((S::len_u(1), S::len_v(1)), (S::len_u(0) + 2, S::len_v(0) + 2));
/// ```
pub struct LehmerState;

impl LehmerState {
    /// [`LehmerStatus`] as a word. ([`LehmerState`] has an example.)
    pub const STATUS: usize = 0;
    /// The round that set the status. ([`LehmerState`] has an example.)
    pub const ROUND: usize = 1;
    /// The length of the last nonzero remainder, once [`LehmerStatus::Done`].
    /// ([`LehmerState`] has an example.)
    pub const RESULT_LEN: usize = 2;
    /// Where the rounds keep a trail ([`Arg::Leads`](crate::contract::Arg::Leads)): the
    /// divisions logged so far, the next one's entry. ([`LehmerState`] has an example.)
    pub const STEPS: usize = 15;
    /// Words of the state. ([`LehmerState`] has an example.)
    pub const WORDS: usize = 16;

    /// The length of the first polynomial of pair `set` (0 or 1; round r reads pair r mod 2
    /// and writes the other). ([`LehmerState`] has an example.)
    pub const fn len_u(set: usize) -> usize {
        3 + 2 * set
    }

    /// A bound on the length of the second polynomial of pair `set`.
    /// ([`LehmerState`] has an example.)
    pub const fn len_v(set: usize) -> usize {
        4 + 2 * set
    }

    /// The length of cofactor `row` of the matrix (0, 1: the first polynomial's cofactors
    /// of the pair's two; 2, 3: the second's). ([`LehmerState`] has an example.)
    pub const fn cofactor(row: usize) -> usize {
        7 + row
    }

    /// Where the rounds carry a's cofactors ([`Arg::Cofactors`](crate::contract::Arg::Cofactors)):
    /// the length of the first polynomial's, in pair `set`. A bound: its top coefficients
    /// may be zero. ([`LehmerState`] has an example.)
    pub const fn len_su(set: usize) -> usize {
        11 + 2 * set
    }

    /// Where the rounds carry a's cofactors: the length of the second polynomial's, in
    /// pair `set`, a bound likewise. ([`LehmerState`] has an example.)
    pub const fn len_sv(set: usize) -> usize {
        12 + 2 * set
    }
}

/// One division of a remainder sequence as the Lehmer rounds log it where they keep a
/// trail ([`Arg::Leads`](crate::contract::Arg::Leads) and
/// [`Arg::Steps`](crate::contract::Arg::Steps)): the division of r_(j−1) by r_j took
/// `eliminations` steps u ← lc(r_j)·u − c·x^k·r_j, so that
/// r_(j+1) = lc(r_j)^e·r_(j−1) − q·r_j, e = `eliminations`. With the degrees of the
/// sequence these give the resultant: res(r_(j−1), r_j) =
/// (−1)^(n_(j−1)·n_j)·lc(r_j)^(n_(j−1) − n_(j+1) − e·n_j)·res(r_j, r_(j+1)), n_i = deg r_i,
/// from res(g, f) = lc(g)^(deg f)·∏_(g(ρ) = 0) f(ρ).
///
/// ```
/// use fermat_codegen::euclid::LehmerStep;
/// let step = LehmerStep { lead: 7u32, degree: 1 << 20, eliminations: 2 };
/// assert_eq!(LehmerStep::of_word(7u32, step.word()), step);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LehmerStep<E> {
    /// lc(r_j), the divisor's leading coefficient.
    pub lead: E,
    /// n_j = deg r_j, the divisor's degree.
    pub degree: u64,
    /// The eliminations the division took; 0 for a division by the monic quotient.
    pub eliminations: u32,
}

impl<E> LehmerStep<E> {
    /// The word the window logs (`steps[j]`): the degree above the eliminations.
    ///
    /// ```
    /// use fermat_codegen::euclid::LehmerStep;
    ///
    /// let step = LehmerStep { lead: (), degree: 3, eliminations: 2 };
    /// assert_eq!(step.word(), 0x0000_0003_0000_0002);
    /// ```
    pub fn word(&self) -> u64 {
        self.degree << 32 | u64::from(self.eliminations)
    }

    /// The step of a logged word and its divisor's leading coefficient: the host reads
    /// `steps[j]` and `leads[j]` back into it.
    ///
    /// ```
    /// use fermat_codegen::euclid::LehmerStep;
    ///
    /// let step = LehmerStep::of_word(5u32, 10 << 32 | 1);
    /// assert_eq!((step.lead, step.degree, step.eliminations), (5, 10, 1));
    /// ```
    pub fn of_word(lead: E, word: u64) -> Self {
        LehmerStep {
            lead,
            degree: word >> 32,
            eliminations: word as u32,
        }
    }
}

/// Where the Lehmer rounds stand (the word [`LehmerState::STATUS`]).
///
/// ```
/// use fermat_codegen::euclid::LehmerStatus;
///
/// // The words the kernels write, as the host reads them back.
/// assert_eq!(LehmerStatus::Running as u64, 0);
/// assert_eq!((LehmerStatus::Done as u64, LehmerStatus::Stalled as u64), (1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum LehmerStatus {
    /// Rounds go on.
    Running = 0,
    /// The sequence ended: the destination holds the last nonzero remainder (not monic),
    /// [`LehmerState::RESULT_LEN`] its length.
    Done = 1,
    /// The pair's first quotient has degree above `half`: the host divides once and
    /// starts the rounds again from the pair (v, u mod v).
    Stalled = 2,
}

impl LehmerStatus {
    /// The status a state word holds, `None` for no status.
    ///
    /// ```
    /// use fermat_codegen::euclid::LehmerStatus;
    ///
    /// for status in [LehmerStatus::Running, LehmerStatus::Done, LehmerStatus::Stalled] {
    ///     assert_eq!(LehmerStatus::of_word(status as u64), Some(status));
    /// }
    /// assert_eq!(LehmerStatus::of_word(3), None);
    /// ```
    pub fn of_word(word: u64) -> Option<LehmerStatus> {
        match word {
            0 => Some(LehmerStatus::Running),
            1 => Some(LehmerStatus::Done),
            2 => Some(LehmerStatus::Stalled),
            _ => None,
        }
    }
}

pub(super) fn state(i: Expr) -> Expr {
    var("state").at(i)
}

/// Word `i` of the state (a [`LehmerState`] constant).
pub(super) fn state_word(i: usize) -> Expr {
    state(Expr::u64(i as u64))
}

/// The state word of the first (`second` false) or second polynomial's length of the pair
/// the kernel variable `set` names: [`LehmerState::len_u`] or [`LehmerState::len_v`].
pub(super) fn pair_len(set: &str, second: bool) -> Expr {
    if second {
        set_word(set, LehmerState::len_v)
    } else {
        set_word(set, LehmerState::len_u)
    }
}

/// The state word `word(s)` of the pair the kernel variable `set` names, s = 0 or 1.
pub(super) fn set_word(set: &str, word: fn(usize) -> usize) -> Expr {
    let (first, stride) = (word(0), word(1) - word(0));
    state(Expr::u64(first as u64) + Expr::u64(stride as u64) * var(set))
}

pub(super) fn max(a: Expr, b: Expr) -> Expr {
    Expr::select(a.clone().gt(b.clone()), a, b)
}

pub(super) fn min(a: Expr, b: Expr) -> Expr {
    Expr::select(a.clone().lt(b.clone()), a, b)
}

pub(super) fn set_status(status: LehmerStatus, extra: Vec<Stmt>) -> Stmt {
    let mut body = extra;
    body.push(Stmt::assign(state_word(LehmerState::ROUND), var("round")));
    body.push(Stmt::assign(
        state_word(LehmerState::STATUS),
        Expr::u64(status as u64),
    ));
    Stmt::if_(Expr::thread_idx().equals(Expr::u32(0)), body)
}

pub(super) fn swap(ty: Type, a: &str, b: &str) -> Vec<Stmt> {
    let w = format!("{a}_{b}");
    vec![
        Stmt::let_(ty, w.clone(), var(a)),
        Stmt::assign(var(a), var(b)),
        Stmt::assign(var(b), var(&w)),
    ]
}

/// The pair a round reads (`U`, `V`: vectors 2s and 2s + 1 of the buffer the kernel
/// variable `buffer` points to, `work` or `cofs`) and the one it writes (`U1`, `V1`),
/// s = `round` mod 2.
pub(super) fn pairs(buffer: &str, writes: bool) -> Vec<Stmt> {
    let vector =
        |name: &str, index: Expr| Stmt::let_(work_ptr(), name, var(buffer) + index * var("cap"));
    let mut stmts = vec![
        Stmt::const_(Type::SizeT, "s", var("round") & Expr::u64(1)),
        Stmt::const_(Type::SizeT, "s1", var("s") ^ Expr::u64(1)),
        Stmt::const_(Type::SizeT, "vstride", Expr::u64(4) * var("cap")),
        Stmt::const_(
            Type::SizeT,
            "mstride",
            Expr::u64(4) * (var("half") + Expr::u64(1)),
        ),
        vector("U", Expr::u64(2) * var("s")),
        vector("V", Expr::u64(2) * var("s") + Expr::u64(1)),
    ];
    if writes {
        stmts.push(vector("U1", Expr::u64(2) * var("s1")));
        stmts.push(vector("V1", Expr::u64(2) * var("s1") + Expr::u64(1)));
    }
    stmts
}

/// A vector of the work buffer: the window swaps them, so not `__restrict__`.
pub(super) fn work_ptr() -> Type {
    Type::Ptr {
        to: Box::new(Type::Word),
        is_const: false,
        restrict: false,
    }
}

/// The start of both passes of a round: each waits for the grid before it on the stream
/// (launched as dependent launches, a pass may start while that grid drains), lets the
/// next pass launch, and does nothing once the rounds have ended or stalled.
pub(super) fn begin_round() -> Vec<Stmt> {
    vec![
        Stmt::Expr(Expr::call("fe_grid_wait", [])),
        Stmt::Expr(Expr::call("fe_grid_release", [])),
        Stmt::if_(
            state_word(LehmerState::STATUS).not_equals(Expr::u64(0)),
            vec![Stmt::Return],
        ),
    ]
}

/// `while (n > 0 && P[n − 1] == 0) n -= 1;` over a vector of the work buffer.
pub(super) fn normalise_global(p: &str, n: &str) -> Stmt {
    Stmt::While {
        cond: var(n).gt(Expr::u64(0)).and_also(fe::eq(
            fe::load(var(p), var(n) - Expr::u64(1), var("vstride")),
            fe::zero(),
        )),
        body: vec![Stmt::assign_op(var(n), BinOp::Sub, Expr::u64(1))],
    }
}
