//! The bodies of [`CrtPass::ExplicitNarrow`](super::CrtPass::ExplicitNarrow) and
//! [`CrtPass::ProjectNarrow`](super::CrtPass::ProjectNarrow): the two ends of the CRT
//! route for primes of 31 bits (2^30 < p < 2^31) in 32-bit products, one IMAD.WIDE.U32
//! each, where the kernels for any width multiply 64-bit words.
//!
//! The explicit CRT of [`CrtPass::Explicit`](super::CrtPass::Explicit), with Montgomery's
//! reduction modulo m (odd) on the way, so that no second kernel runs: y_i = x_i·P_i^−1
//! mod p_i is one 32-bit Montgomery product, and the quotient's terms ⌊y_i·⌊2^62/p_i⌋/2^30⌋
//! lie below 2^32·y_i/p_i by less than 3 (k is exact when x < P/2, as there). The sum
//! S = Σ y_i·C_i + k·D, with C_i = P_i·2^52 mod m and D = −P·2^52 mod m in digits of 26
//! bits, gathers in [`NARROW_DIGITS`] columns held in registers, prime by prime: each term
//! is a 32 × 32-bit product below 2^57, so that a column of up to 127 of them, the two
//! multiples of m and the carry fit 64 bits. The first two columns choose q_0 and q_1
//! below 2^26 with S + (q_0 + q_1·2^26)·m ≡ 0 (mod 2^52) (Montgomery, 1985), and the
//! columns above give r = (S + q·m)/2^52 ≡ x (mod m), below S/2^52 + m < 2m; one
//! conditional subtraction of m finishes it.
//!
//! The projection: x mod p from x's digits d_k of 29 bits, as Σ d_k·(2^(29k)·2^32 mod p)
//! summed in 64 bits — one multiply-add a digit, folded below p·2^32 — and one Montgomery
//! step that removes the weights' 2^32.
//!
//! Both kernels also come in a [`NarrowShape`]: the number of primes and of words fixed
//! at compile time, so that the loops over them unroll into straight-line code, the
//! guards of the register columns fold away, and each integer's words are loaded once
//! for all its primes. The arguments stay those of the run-time kernels.

use super::garner::{projection, u64_, var};
use super::reduce::subtract_pass;
use super::MAX_PRIMES;
use crate::cuda::{BinOp, Expr, ForLoop, Stmt, Type};

/// Bits of a digit of the sums.
///
/// ```
/// use fermat_codegen::crt::{narrow_tables, DIGIT_BITS};
/// use num_bigint::BigUint;
///
/// let primes = [2013265921u64, 2130706433];
/// let digits = |m: u32| narrow_tables(&primes, &BigUint::from(m)).unwrap().digits;
/// assert_eq!(digits((1 << DIGIT_BITS) - 1), 1);
/// assert_eq!(digits((1 << DIGIT_BITS) + 1), 2);
/// ```
pub const DIGIT_BITS: u64 = 26;

/// The most digits of m the kernel's columns hold in registers: m below 2^312.
///
/// ```
/// use fermat_codegen::crt::{narrow_reduces, DIGIT_BITS, NARROW_DIGITS};
/// use num_bigint::BigUint;
///
/// let top = BigUint::from(1u32) << (DIGIT_BITS * NARROW_DIGITS); // 2^312
/// assert!(narrow_reduces(&(&top - 1u32)));
/// assert!(!narrow_reduces(&(&top + 1u32)));
/// ```
pub const NARROW_DIGITS: u64 = 12;

/// Bits of the digits the narrow projection cuts the integers into: each digit's product
/// with a weight below 2^31 stays below 2^60, so that 64 bits sum eleven of them on top of
/// a folded sum.
///
/// ```
/// use fermat_codegen::crt::{project_constants_narrow, PROJECT_DIGIT_BITS};
///
/// // The weight of digit 1 is 2^29·2^32 mod p, in Montgomery's form.
/// let p = 2013265921u64;
/// let weights = &project_constants_narrow(&[p], 1)[3..];
/// let r = (1u64 << 32) % p;
/// assert_eq!(weights[1], ((1u64 << PROJECT_DIGIT_BITS) % p) * r % p);
/// ```
pub const PROJECT_DIGIT_BITS: u64 = 29;

/// Products the narrow projection sums between folds: a sum folded twice is below 2^62 +
/// 2^33, and eleven products below 2^60 more stay below 2^64.
const FOLD_TERMS: u64 = 11;

/// Words of a row of the constants of [`CrtPass::ProjectNarrow`](super::CrtPass::ProjectNarrow)
/// before the weights: p, −p^−1 mod 2^32 and 2^32 mod p.
///
/// ```
/// use fermat_codegen::crt::{project_constants_narrow, project_digits, NARROW_PROJECT_HEAD};
///
/// let c = project_constants_narrow(&[2013265921, 2130706433], 2);
/// assert_eq!(c.len(), 2 * (NARROW_PROJECT_HEAD + project_digits(2)) as usize);
/// ```
pub const NARROW_PROJECT_HEAD: u64 = 3;

/// Digits of [`PROJECT_DIGIT_BITS`] bits of integers of `words` 64-bit words.
///
/// ```
/// use fermat_codegen::crt::project_digits;
///
/// assert_eq!(project_digits(1), 3); // 64 bits: 29 + 29 + 6
/// assert_eq!(project_digits(4), 9); // 256 bits: 8·29 = 232, and one more
/// ```
pub fn project_digits(words: u64) -> u64 {
    (64 * words).div_ceil(PROJECT_DIGIT_BITS)
}

/// The most 64-bit words of the integers a shaped projection holds in registers.
///
/// ```
/// use fermat_codegen::crt::{CrtPass, NarrowShape, SHAPED_WORDS};
///
/// let project = CrtPass::ProjectNarrow { signed: false };
/// let shape = |words| NarrowShape { primes: 18, words, mwords: 0 };
/// assert!(project.shaped_kernel(shape(SHAPED_WORDS)).is_ok());
/// assert!(project.shaped_kernel(shape(SHAPED_WORDS + 1)).is_err());
/// ```
pub const SHAPED_WORDS: u64 = 16;

/// The loop bounds of a narrow kernel fixed at compile time (see the module's
/// documentation): for [`CrtPass::ProjectNarrow`](super::CrtPass::ProjectNarrow) the
/// primes and the integers' 64-bit words, for
/// [`CrtPass::ExplicitNarrow`](super::CrtPass::ExplicitNarrow) the primes, the digits of m
/// and the words of the results.
///
/// ```
/// use fermat_codegen::crt::{CrtPass, NarrowShape};
///
/// // BN254's scalar field: 254 bits, ten digits of 26 bits, four words.
/// let shape = NarrowShape { primes: 18, words: 10, mwords: 4 };
/// let k = CrtPass::ExplicitNarrow.shaped_kernel(shape)?;
/// assert!(k.to_string().contains("crt_explicit_narrow_18x10"));
/// # Ok::<(), fermat_codegen::CodegenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NarrowShape {
    /// The primes: rows of residues.
    pub primes: u64,
    /// The kernel's `words`: 64-bit words of the integers projected (at most
    /// [`SHAPED_WORDS`]), or digits of 26 bits of m (at most [`NARROW_DIGITS`]).
    pub words: u64,
    /// 64-bit words of the explicit CRT's results; unused by a projection.
    pub mwords: u64,
}

/// How many primes a shaped explicit CRT's loop takes per turn: on an H200, BN254's
/// eighteen primes ran in 265 µs two at a time against 296 µs one at a time (both at 73
/// registers, before the kernel kept to 64), and unrolled fully the loop spills (it
/// hoists every prime's loads).
const EXPLICIT_UNROLL: u32 = 2;

/// The most products (primes × digits) a shaped projection unrolls fully: BN254's 18 × 9
/// ran in 80 µs so against 95 µs a prime at a time; 69 × 36 would take 226 registers.
const PROJECT_UNROLLED_TERMS: u64 = 256;

/// Words of the explicit CRT's results at most: 2m for m of [`NARROW_DIGITS`] digits.
const MOST_MWORDS: u64 = (DIGIT_BITS * NARROW_DIGITS + 2).div_ceil(64);

/// The bounds of a narrow kernel's loops: the arguments, or a shape's constants.
#[derive(Clone, Copy)]
pub(super) struct Bounds(pub(super) Option<NarrowShape>);

impl Bounds {
    fn bound(&self, fixed: impl Fn(&NarrowShape) -> u64, arg: &str) -> Expr {
        self.0.as_ref().map_or_else(|| var(arg), |s| u64_(fixed(s)))
    }

    fn primes(&self) -> Expr {
        self.bound(|s| s.primes, "primes")
    }

    fn words(&self) -> Expr {
        self.bound(|s| s.words, "words")
    }

    fn mwords(&self) -> Expr {
        self.bound(|s| s.mwords, "mwords")
    }

    /// The loop over the primes (`i`), unrolled by `by` (fully for 0) when their number
    /// is fixed.
    fn over_primes(&self, by: u32) -> ForLoop {
        let primes = ForLoop::range("i", Type::SizeT, u64_(0), self.primes());
        match self.0 {
            Some(_) if by == 0 => primes.unrolled(),
            Some(_) => primes.unroll_by(by),
            None => primes,
        }
    }

    /// The register columns of the explicit CRT: m's digits when fixed, else room for
    /// the most.
    fn columns(&self) -> u64 {
        self.0.map_or(NARROW_DIGITS, |s| s.words)
    }

    /// `body` under the guard `cond` of the run-time bounds; with a shape, whose loops
    /// run exactly to its bounds, `body` alone.
    fn guarded(&self, cond: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        match self.0 {
            Some(_) => body,
            None => vec![Stmt::if_(cond, body)],
        }
    }
}

/// Why a shape has no kernel: the bound it exceeds, or `None`.
pub(super) fn shape_refusal(
    explicit: bool,
    shape: &NarrowShape,
) -> Option<(&'static str, u64, String)> {
    let most_words = if explicit {
        NARROW_DIGITS
    } else {
        SHAPED_WORDS
    };
    if !(1..MAX_PRIMES).contains(&shape.primes) {
        Some(("primes", shape.primes, format!("1 to {}", MAX_PRIMES - 1)))
    } else if !(1..=most_words).contains(&shape.words) {
        Some(("words", shape.words, format!("1 to {most_words}")))
    } else if explicit && !(1..=MOST_MWORDS).contains(&shape.mwords) {
        Some(("mwords", shape.mwords, format!("1 to {MOST_MWORDS}")))
    } else {
        None
    }
}

fn mask(x: Expr) -> Expr {
    x & u64_((1 << DIGIT_BITS) - 1)
}

/// `(uint64_t)x` for a 32-bit x: a factor of a 32 × 32-bit product (one IMAD.WIDE.U32).
fn wide(x: Expr) -> Expr {
    x.cast(Type::U64)
}

/// `(uint32_t)x`.
fn word32(x: Expr) -> Expr {
    x.cast(Type::U32)
}

/// Entry `index` of the 64-bit `table`, below 2^32, loaded as its low 32-bit half (the
/// words are little-endian): a 64-bit load cut to 32 bits leaves ptxas adding a zero high
/// word after each product it feeds, one instruction per term.
fn low32(table: Expr, index: Expr) -> Expr {
    table.cast(Type::const_ptr(Type::U32)).at(u64_(2) * index)
}

/// `out` = a·b·2^−32 mod p for a, b < p < 2^31 (32-bit values), by one Montgomery
/// product with np = −p^−1 mod 2^32: two IMAD.WIDE.U32 and a conditional subtraction.
fn mont32(out: &str, a: Expr, b: Expr) -> Vec<Stmt> {
    vec![
        Stmt::let_(Type::U32, out, Expr::u32(0)),
        redc32(out, wide(a) * wide(b)),
    ]
}

/// `out` (a 32-bit variable) = u·2^−32 mod p for a 64-bit u below p·2^32, by
/// Montgomery's reduction with np = −p^−1 mod 2^32: (u + q·p)/2^32 < 2p, then a
/// conditional subtraction.
fn redc32(out: &str, u: Expr) -> Stmt {
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "u", u),
        Stmt::const_(Type::U32, "q", word32(var("u")) * var("np")),
        Stmt::assign(
            var(out),
            word32((wide(var("q")) * wide(var("p")) + var("u")) >> u64_(32)),
        ),
        Stmt::if_(
            var(out).ge(var("p")),
            vec![Stmt::assign_op(var(out), BinOp::Sub, var("p"))],
        ),
    ])
}

/// Row i's prime p and −p^−1 mod 2^32 as 32-bit values, and the row (`c`).
fn prime_row32() -> Vec<Stmt> {
    vec![
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "c",
            var("consts") + var("i") * var("row"),
        ),
        Stmt::const_(Type::U32, "p", low32(var("c"), u64_(0))),
        Stmt::const_(Type::U32, "np", low32(var("c"), u64_(1))),
    ]
}

/// For every prime: y_i, its quotient's term into `frac`, and y_i·C_i into the columns.
fn terms(bounds: &Bounds) -> Stmt {
    let c = |k: u64| low32(var("c"), u64_(k));
    let mut body = prime_row32();
    // y_i = x_i·(P_i^−1·2^32)·2^−32 mod p_i.
    body.extend(mont32(
        "y",
        word32(var("src").at(var("i") * var("src_dist") + var("j"))),
        c(2),
    ));
    body.extend([
        Stmt::assign_op(
            var("frac"),
            BinOp::Add,
            (wide(var("y")) * wide(c(3))) >> u64_(30),
        ),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "ci",
            var("bases") + u64_(1) + var("i") * bounds.words(),
        ),
        add_row(bounds, "y", "ci"),
    ]);
    Stmt::For(bounds.over_primes(EXPLICIT_UNROLL).body(body))
}

/// `col[w] += x·row[w]` for the digits w < `words`, the columns in registers.
fn add_row(bounds: &Bounds, x: &str, row: &str) -> Stmt {
    Stmt::unrolled(
        "w",
        bounds.columns(),
        bounds.guarded(
            var("w").lt(var("words")),
            vec![Stmt::assign_op(
                var("col").at(var("w")),
                BinOp::Add,
                wide(var(x)) * wide(low32(var(row), var("w"))),
            )],
        ),
    )
}

/// Appends the digit `d` to the `mwords` words of the result, writing each word as it
/// fills.
fn push(d: Expr, mwords: Expr) -> Stmt {
    let emit = vec![
        Stmt::if_(
            var("out_w").lt(mwords),
            vec![Stmt::assign(
                var("ints_out").at(var("out_w") * var("dst_stride") + var("j")),
                var("pend"),
            )],
        ),
        Stmt::assign_op(var("out_w"), BinOp::Add, u64_(1)),
        // The digit's bits above the word (none when it ended exactly there).
        Stmt::assign(var("pend"), var("d") >> (u64_(64) - var("nb"))),
        Stmt::assign(var("nb"), var("nb") + u64_(DIGIT_BITS) - u64_(64)),
    ];
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "d", d),
        Stmt::assign_op(var("pend"), BinOp::BitOr, var("d") << var("nb")),
        Stmt::if_else(
            (var("nb") + u64_(DIGIT_BITS)).ge(u64_(64)),
            emit,
            vec![Stmt::assign_op(var("nb"), BinOp::Add, u64_(DIGIT_BITS))],
        ),
    ])
}

/// Column w of S + q·m (w < `words` + 2) with the carry from below: q_0 or q_1 where
/// w < 2, and above them the digit of r it gives.
fn column(bounds: &Bounds) -> Vec<Stmt> {
    let m = |k: Expr| wide(low32(var("mdig"), k));
    let add = |x: Expr| Stmt::assign_op(var("t"), BinOp::Add, x);
    let choose = |q: &str| {
        vec![
            Stmt::assign(var(q), mask(mask(var("t")) * var("mprime"))),
            add(var(q) * m(u64_(0))),
        ]
    };
    let w = || var("w");
    vec![
        Stmt::let_(
            Type::U64,
            "t",
            var("carry") + Expr::select(w().lt(bounds.words()), var("col").at(w()), u64_(0)),
        ),
        Stmt::if_(
            w().ge(Expr::int(1)).and_also(w().lt(bounds.words())),
            vec![add(var("q0") * m(w()))],
        ),
        Stmt::if_(
            w().ge(Expr::int(2))
                .and_also((w() - Expr::int(1)).lt(bounds.words())),
            vec![add(var("q1") * m(w() - Expr::int(1)))],
        ),
        Stmt::if_(w().equals(Expr::int(0)), choose("q0")),
        Stmt::if_(w().equals(Expr::int(1)), choose("q1")),
        Stmt::if_(
            w().ge(Expr::int(2)),
            vec![push(mask(var("t")), bounds.mwords())],
        ),
        Stmt::assign(var("carry"), var("t") >> u64_(DIGIT_BITS)),
    ]
}

pub(super) fn explicit_narrow_body(bounds: &Bounds) -> Vec<Stmt> {
    let (primes, words, mwords) = (bounds.primes(), bounds.words(), bounds.mwords());
    let m_words =
        |w: Expr| var("bases").at(u64_(1) + (primes.clone() + u64_(2)) * words.clone() + w);
    let columns = bounds.columns();
    let per_coefficient = vec![
        Stmt::array(Type::U64, "col", columns),
        Stmt::unrolled(
            "w",
            columns,
            vec![Stmt::assign(var("col").at(var("w")), u64_(0))],
        ),
        Stmt::let_(Type::U64, "frac", u64_(0)),
        terms(bounds),
        Stmt::comment("k = the integer part of the sum (x < P/2: 2^30 covers its error)"),
        Stmt::const_(
            Type::U32,
            "k",
            word32((var("frac") + u64_(1 << 30)) >> u64_(32)),
        ),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "d_row",
            var("bases") + u64_(1) + primes.clone() * words.clone(),
        ),
        add_row(bounds, "k", "d_row"),
        Stmt::let_(Type::U64, "carry", u64_(0)),
        Stmt::let_(Type::U64, "q0", u64_(0)),
        Stmt::let_(Type::U64, "q1", u64_(0)),
        Stmt::let_(Type::U64, "pend", u64_(0)),
        Stmt::let_(Type::U64, "nb", u64_(0)),
        Stmt::let_(Type::SizeT, "out_w", u64_(0)),
        // Columns w < words + 2: two past m's digits for q's.
        Stmt::unrolled(
            "w",
            columns + 2,
            bounds.guarded(var("w").lt(var("words") + u64_(2)), column(bounds)),
        ),
        push(var("carry"), mwords.clone()),
        Stmt::For(
            ForLoop::range("z", Type::SizeT, var("out_w"), mwords.clone()).body(vec![
                Stmt::assign(
                    var("ints_out").at(var("z") * var("dst_stride") + var("j")),
                    var("pend"),
                ),
                Stmt::assign(var("pend"), u64_(0)),
            ]),
        ),
        Stmt::comment("r < 2m: one subtraction when r >= m (no borrow out of r - m)"),
        Stmt::let_(Type::U64, "borrow", u64_(0)),
        subtract_pass(false, &m_words, mwords.clone()),
        Stmt::if_(
            var("borrow").equals(u64_(0)),
            vec![subtract_pass(true, &m_words, mwords)],
        ),
    ];
    vec![
        Stmt::const_(Type::U64, "mprime", var("bases").at(u64_(0))),
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "mdig",
            var("bases") + u64_(1) + (primes + u64_(1)) * words,
        ),
        Stmt::grid_stride_loop("j", var("src_len"), per_coefficient),
    ]
}

/// acc = hi·(2^32 mod p) + lo for acc = hi·2^32 + lo, twice: the same residue, below
/// 2^63 + 2^32 after the first, below (2^31 + 1)·p + 2^32 < min(p·2^32, 2^62 + 2^33) after
/// the second.
fn fold_twice() -> Vec<Stmt> {
    let fold = Stmt::assign(
        var("acc"),
        wide(word32(var("acc") >> u64_(32))) * wide(var("c32")) + wide(word32(var("acc"))),
    );
    vec![fold.clone(), fold]
}

/// One thread per integer, its residues modulo every prime below 2^31 in turn: the
/// integer's digits of [`PROJECT_DIGIT_BITS`] bits d_k times their weights t_k =
/// 2^(29k)·2^32 mod p summed in 64 bits — one IMAD.WIDE.U32 each, every product below
/// 2^60, eleven of them between folds — then the sum folded twice below p·2^32
/// and reduced by Montgomery's step, which removes the weights' 2^32 (the loops of
/// [`projection`]). With a shape, the digits are cut from the words once, in registers,
/// for all the primes.
pub(super) fn project_narrow_body(signed: bool, bounds: &Bounds) -> Vec<Stmt> {
    let word = |w: Expr| var("ints").at(w * var("src_stride") + var("j"));
    let digit_mask = u64_((1 << PROJECT_DIGIT_BITS) - 1);
    let term = |d: Expr, k: Expr| {
        let t = low32(var("c"), u64_(NARROW_PROJECT_HEAD) + k);
        Stmt::assign_op(var("acc"), BinOp::Add, wide(d) * wide(t))
    };
    let (loads, terms) = match bounds.0 {
        Some(shape) => {
            // The integer's 32-bit halves in h<i> (zero past src_len), digit k in d[k], cut
            // from at most two halves by 32-bit shifts.
            let digits = project_digits(shape.words);
            let h = |i: u64| var(&format!("h{i}"));
            let mut loads = Vec::new();
            for w in 0..shape.words {
                let load = Expr::select(var("j").lt(var("src_len")), word(u64_(w)), u64_(0));
                loads.extend([
                    Stmt::const_(Type::U64, format!("x{w}"), load),
                    Stmt::const_(
                        Type::U32,
                        format!("h{}", 2 * w),
                        word32(var(&format!("x{w}"))),
                    ),
                    Stmt::const_(
                        Type::U32,
                        format!("h{}", 2 * w + 1),
                        word32(var(&format!("x{w}")) >> u64_(32)),
                    ),
                ]);
            }
            loads.push(Stmt::array(Type::U32, "d", digits));
            for k in 0..digits {
                let (i, shift) = (k * PROJECT_DIGIT_BITS / 32, k * PROJECT_DIGIT_BITS % 32);
                let mut bits = h(i) >> Expr::u32(shift as u32);
                if shift + PROJECT_DIGIT_BITS > 32 && i + 1 < 2 * shape.words {
                    bits = bits | (h(i + 1) << Expr::u32(32 - shift as u32));
                }
                loads.push(Stmt::assign(
                    var("d").at(u64_(k)),
                    bits & Expr::u32((1 << PROJECT_DIGIT_BITS) - 1),
                ));
            }
            let mut terms = Vec::new();
            for k in 0..digits {
                if k > 0 && k % FOLD_TERMS == 0 {
                    terms.extend(fold_twice());
                }
                terms.push(term(var("d").at(u64_(k)), u64_(k)));
            }
            (loads, terms)
        }
        None => {
            let k = || var("k");
            let bit = k() * u64_(PROJECT_DIGIT_BITS);
            let body = vec![
                Stmt::const_(Type::SizeT, "w", bit.clone() >> u64_(6)),
                Stmt::const_(Type::U64, "s", bit & u64_(63)),
                Stmt::let_(Type::U64, "bits", word(var("w")) >> var("s")),
                Stmt::if_(
                    (var("s") + u64_(PROJECT_DIGIT_BITS))
                        .gt(u64_(64))
                        .and_also((var("w") + u64_(1)).lt(var("words"))),
                    vec![Stmt::assign_op(
                        var("bits"),
                        BinOp::BitOr,
                        word(var("w") + u64_(1)) << (u64_(64) - var("s")),
                    )],
                ),
                Stmt::if_(
                    k().gt(u64_(0))
                        .and_also((k() % u64_(FOLD_TERMS)).equals(u64_(0))),
                    fold_twice(),
                ),
                term(word32(var("bits") & digit_mask), k()),
            ];
            let digits =
                (var("words") * u64_(64) + u64_(PROJECT_DIGIT_BITS - 1)) / u64_(PROJECT_DIGIT_BITS);
            let terms = vec![Stmt::For(
                ForLoop::range("k", Type::SizeT, u64_(0), digits).body(body),
            )];
            (Vec::new(), terms)
        }
    };
    let mut residue = vec![
        Stmt::const_(Type::U32, "c32", low32(var("c"), u64_(2))),
        Stmt::let_(Type::U64, "acc", u64_(0)),
    ];
    residue.extend(terms);
    residue.push(Stmt::comment("below 2^64; folded, below p 2^32"));
    residue.extend(fold_twice());
    residue.push(redc32("r", var("acc")));
    // Fully unrolled (0) up to PROJECT_UNROLLED_TERMS products, else a prime at a time.
    let unroll = match bounds.0 {
        Some(s) if s.primes * project_digits(s.words) <= PROJECT_UNROLLED_TERMS => 0,
        _ => 1,
    };
    projection(
        signed,
        (loads, bounds.over_primes(unroll)),
        prime_row32(),
        Type::U32,
        residue,
    )
}
