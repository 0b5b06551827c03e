//! The two ends of the multi-modular (CRT) route on the GPU, printed through the typed
//! CUDA AST: projection of big integers onto NTT primes, and Garner's mixed-radix
//! recombination of their residues (§7 of the 2017 big-prime FFT paper, "the CRT
//! alternative"; Knuth, TAOCP vol. 2, §4.3.2, for Garner's algorithm).
//!
//! The primes are below 2^62 and the arithmetic is Montgomery's with R = 2^64. Integers
//! are held word-major: 64-bit word w of integer j at `src[w·src_stride + j]`, so that
//! consecutive threads read consecutive addresses.
//!
//! - [`CrtPass::Project`]: grid row i is prime p_i, and thread j computes x_j mod p_i as
//!   a dot product of x_j's words with the weights 2^(64w)·R^2 mod p_i, accumulated in 192
//!   bits, then two rounds of Montgomery reduction: one multiplication per word and one
//!   reduction per residue. A signed projection reads a sign word per integer and negates.
//! - [`CrtPass::Recombine`]: thread j computes the mixed-radix digits v_i of its
//!   coefficient from its residues (each digit a 192-bit dot product with the weights
//!   p_1⋯p_(k−1)·R^2 mod p_i, one reduction, one product with (p_1⋯p_(i−1))^−1), then the
//!   words of x = Σ v_k·p_1⋯p_(k−1) by product scanning, one output word at a time, with
//!   the bases' words broadcast to every thread. A signed recombination compares the
//!   digits with those of ⌊P/2⌋ and writes P − x with a sign word for the upper half.
//!
//! ```
//! use fermat_codegen::crt::CrtPass;
//! let k = CrtPass::Recombine { signed: true }.kernel();
//! assert!(k.to_string().contains("fe_mulhi64"));
//! ```

use crate::contract::Arg;
use crate::cuda::{Builtin, Dim, Expr, ForLoop, Kernel, Stmt, Type};
use fermat_dsl::field::primality::{mul_mod, pow_mod};

/// A kernel of the CRT route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrtPass {
    /// Residues of integers modulo each prime: `dst[i·dst_dist + j] = x_j mod p_i` for
    /// j < `dst_len` (zero from `src_len` on); `signed` reads `signs[j]` (nonzero:
    /// negative).
    Project {
        /// Whether the integers carry sign words.
        signed: bool,
    },
    /// Integers from their residues (`src[i·src_dist + j]` modulo p_i): words of x_j at
    /// `dst[w·dst_stride + j]`, x_j in [0, P) — or, `signed`, its magnitude in (−P/2, P/2]
    /// with `signs[j]` set for the negative ones.
    Recombine {
        /// Whether the result is signed.
        signed: bool,
    },
}

/// The arguments of [`CrtPass::Project`], in order.
pub const PROJECT_ARGS: [Arg; 10] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceStride,
    Arg::Words,
    Arg::Signs,
    Arg::Constants,
    Arg::Row,
    Arg::Destination,
    Arg::DestinationLength,
    Arg::DestinationDistance,
];

/// The arguments of [`CrtPass::Recombine`], in order.
pub const RECOMBINE_ARGS: [Arg; 11] = [
    Arg::Source,
    Arg::SourceLength,
    Arg::SourceDistance,
    Arg::Primes,
    Arg::Constants,
    Arg::Row,
    Arg::Bases,
    Arg::Words,
    Arg::Signs,
    Arg::Destination,
    Arg::DestinationStride,
];

/// The most primes [`CrtPass::Recombine`] takes: its digits live in a per-thread array.
pub const MAX_PRIMES: u64 = 128;

/// Threads per block of both kernels.
pub const THREADS: u32 = 256;

/// Words of a row of the constants of [`CrtPass::Project`] before the weights: p and
/// −p^−1 mod 2^64.
pub const PROJECT_HEAD: u64 = 2;

/// Words of a row of the constants of [`CrtPass::Recombine`] before the Garner weights:
/// p, −p^−1 mod 2^64, (p_1⋯p_(i−1))^−1·R mod p, and digit i of ⌊P/2⌋.
pub const RECOMBINE_HEAD: u64 = 4;

impl CrtPass {
    /// Every kernel.
    pub const ALL: [CrtPass; 4] = [
        CrtPass::Project { signed: false },
        CrtPass::Project { signed: true },
        CrtPass::Recombine { signed: false },
        CrtPass::Recombine { signed: true },
    ];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            CrtPass::Project { signed: false } => "crt_project",
            CrtPass::Project { signed: true } => "crt_project_signed",
            CrtPass::Recombine { signed: false } => "crt_recombine",
            CrtPass::Recombine { signed: true } => "crt_recombine_signed",
        }
    }

    /// The kernel's arguments, in order.
    pub fn args(self) -> &'static [Arg] {
        match self {
            CrtPass::Project { .. } => &PROJECT_ARGS,
            CrtPass::Recombine { .. } => &RECOMBINE_ARGS,
        }
    }

    /// The kernel.
    pub fn kernel(self) -> Kernel {
        let params = self.args().iter().map(|a| a.param()).collect();
        let (body, doc) = match self {
            CrtPass::Project { signed } => (
                project_body(signed),
                "dst[i][j] = x_j mod p_i: a dot product of x_j's words with 2^(64w) R^2 mod p_i, two Montgomery rounds",
            ),
            CrtPass::Recombine { signed } => (
                recombine_body(signed),
                "x_j from its residues: Garner's mixed-radix digits, then x_j's words by product scanning",
            ),
        };
        Kernel::new(self.name(), params, body)
            .doc(doc)
            .launch_bounds(THREADS)
    }
}

fn var(name: &str) -> Expr {
    Expr::var(name)
}

fn u64_(v: u64) -> Expr {
    Expr::u64(v)
}

fn mulhi(a: Expr, b: Expr) -> Expr {
    Expr::call("fe_mulhi64", [a, b])
}

/// `(uint64_t)(cond)`.
fn carry(cond: Expr) -> Expr {
    cond.cast(Type::U64)
}

/// acc += a·b for the 192-bit accumulator (acc0, acc1, acc2), in a scope of its own.
fn mul_add(acc: &str, a: Expr, b: Expr) -> Stmt {
    let (a0, a1, a2) = (
        var(&format!("{acc}0")),
        var(&format!("{acc}1")),
        var(&format!("{acc}2")),
    );
    Stmt::Block(vec![
        Stmt::const_(Type::U64, "lo", a.clone() * b.clone()),
        Stmt::let_(Type::U64, "hi", mulhi(a, b)),
        Stmt::assign_op(a0.clone(), crate::cuda::BinOp::Add, var("lo")),
        Stmt::assign_op(var("hi"), crate::cuda::BinOp::Add, carry(a0.lt(var("lo")))),
        Stmt::assign_op(a1.clone(), crate::cuda::BinOp::Add, var("hi")),
        Stmt::assign_op(a2, crate::cuda::BinOp::Add, carry(a1.lt(var("hi")))),
    ])
}

/// Declares the accumulator `acc` = 0.
fn zero_acc(acc: &str) -> Vec<Stmt> {
    (0..3)
        .map(|k| Stmt::let_(Type::U64, format!("{acc}{k}"), u64_(0)))
        .collect()
}

/// `out` = acc·R^−2 mod p: two rounds of Montgomery's reduction of the 192-bit `acc`
/// (below p·2^128, its top word below p), with p and −p^−1 in `p` and `np`.
fn redc2(acc: &str, out: &str) -> Vec<Stmt> {
    let (a0, a1, a2) = (
        var(&format!("{acc}0")),
        var(&format!("{acc}1")),
        var(&format!("{acc}2")),
    );
    let add = crate::cuda::BinOp::Add;
    vec![Stmt::Block(vec![
        // Round 1: acc + m·p ≡ 0 mod 2^64; the low word drops.
        Stmt::const_(Type::U64, "m", a0.clone() * var("np")),
        Stmt::const_(Type::U64, "lo", var("m") * var("p")),
        Stmt::let_(Type::U64, "hi", mulhi(var("m"), var("p"))),
        Stmt::assign_op(a0.clone(), add, var("lo")),
        Stmt::assign_op(var("hi"), add, carry(a0.lt(var("lo")))),
        Stmt::assign_op(a1.clone(), add, var("hi")),
        Stmt::assign_op(a2.clone(), add, carry(a1.clone().lt(var("hi")))),
        // Round 2 on (acc2, acc1) < p·2^64.
        Stmt::const_(Type::U64, "m2", a1.clone() * var("np")),
        Stmt::const_(Type::U64, "lo2", var("m2") * var("p")),
        Stmt::let_(Type::U64, "hi2", mulhi(var("m2"), var("p"))),
        Stmt::assign_op(a1.clone(), add, var("lo2")),
        Stmt::assign_op(var("hi2"), add, carry(a1.lt(var("lo2")))),
        Stmt::assign(var(out), a2 + var("hi2")),
        Stmt::if_(
            var(out).ge(var("p")),
            vec![Stmt::assign_op(var(out), crate::cuda::BinOp::Sub, var("p"))],
        ),
    ])]
}

fn row() -> Expr {
    Expr::Builtin(Builtin::BlockIdx, Dim::Y).cast(Type::SizeT)
}

fn project_body(signed: bool) -> Vec<Stmt> {
    let mut residue = zero_acc("a");
    residue.push(Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("words")).body(vec![mul_add(
            "a",
            var("src").at(var("w") * var("src_stride") + var("j")),
            var("c").at(u64_(PROJECT_HEAD) + var("w")),
        )]),
    ));
    residue.extend(redc2("a", "r"));
    if signed {
        residue.push(Stmt::if_(
            var("signs")
                .at(var("j"))
                .not_equals(Expr::u32(0))
                .and_also(var("r").not_equals(u64_(0))),
            vec![Stmt::assign(var("r"), var("p") - var("r"))],
        ));
    }
    vec![
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "c",
            var("consts") + row() * var("row"),
        ),
        Stmt::const_(Type::U64, "p", var("c").at(u64_(0))),
        Stmt::const_(Type::U64, "np", var("c").at(u64_(1))),
        Stmt::grid_stride_loop(
            "j",
            var("dst_len"),
            vec![
                Stmt::let_(Type::U64, "r", u64_(0)),
                Stmt::if_(var("j").lt(var("src_len")), residue),
                Stmt::assign(var("dst").at(row() * var("dst_dist") + var("j")), var("r")),
            ],
        ),
    ]
}

/// The mixed-radix digits v[i] of coefficient j.
fn digits() -> Stmt {
    let mut digit = vec![
        Stmt::let_(
            Type::const_ptr(Type::U64),
            "c",
            var("consts") + var("i") * var("row"),
        ),
        Stmt::const_(Type::U64, "p", var("c").at(u64_(0))),
        Stmt::const_(Type::U64, "np", var("c").at(u64_(1))),
    ];
    digit.extend(zero_acc("a"));
    digit.push(Stmt::For(
        ForLoop::range("k", Type::SizeT, u64_(0), var("i")).body(vec![mul_add(
            "a",
            var("v").at(var("k")),
            var("c").at(u64_(RECOMBINE_HEAD) + var("k")),
        )]),
    ));
    digit.push(Stmt::let_(Type::U64, "sum", u64_(0)));
    digit.extend(redc2("a", "sum"));
    digit.extend([
        Stmt::const_(
            Type::U64,
            "x",
            var("src").at(var("i") * var("src_dist") + var("j")),
        ),
        Stmt::const_(
            Type::U64,
            "t",
            Expr::select(
                var("x").ge(var("sum")),
                var("x") - var("sum"),
                var("x") + var("p") - var("sum"),
            ),
        ),
    ]);
    // v_i = t·inv·R^−1: one Montgomery product (t, inv < p).
    digit.extend(zero_acc("b"));
    digit.push(mul_add("b", var("t"), var("c").at(u64_(2))));
    digit.push(Stmt::let_(Type::U64, "d", u64_(0)));
    digit.extend(redc_once("b", "d"));
    digit.push(Stmt::assign(var("v").at(var("i")), var("d")));
    Stmt::For(ForLoop::range("i", Type::SizeT, u64_(0), var("primes")).body(digit))
}

/// `out` = (acc1, acc0)·R^−1 mod p: one round of Montgomery's reduction of a product of
/// two residues.
fn redc_once(acc: &str, out: &str) -> Vec<Stmt> {
    let (a0, a1) = (var(&format!("{acc}0")), var(&format!("{acc}1")));
    vec![Stmt::Block(vec![
        Stmt::const_(Type::U64, "m", a0.clone() * var("np")),
        Stmt::const_(Type::U64, "lo", var("m") * var("p")),
        Stmt::const_(Type::U64, "hi", mulhi(var("m"), var("p"))),
        Stmt::const_(Type::U64, "s", a0 + var("lo")),
        Stmt::assign(var(out), a1 + var("hi") + carry(var("s").lt(var("lo")))),
        Stmt::if_(
            var(out).ge(var("p")),
            vec![Stmt::assign_op(var(out), crate::cuda::BinOp::Sub, var("p"))],
        ),
    ])]
}

/// Whether the digits exceed those of ⌊P/2⌋ (digit i in row i of the constants),
/// compared from the top digit down.
fn upper_half() -> Vec<Stmt> {
    vec![
        Stmt::let_(Type::Bool, "neg", Expr::bool(false)),
        Stmt::let_(Type::Bool, "decided", Expr::bool(false)),
        Stmt::For(
            ForLoop::range("k", Type::SizeT, u64_(0), var("primes")).body(vec![
                Stmt::const_(Type::SizeT, "i", var("primes") - u64_(1) - var("k")),
                Stmt::const_(
                    Type::U64,
                    "h",
                    var("consts").at(var("i") * var("row") + u64_(3)),
                ),
                Stmt::if_(
                    var("decided")
                        .logical_not()
                        .and_also(var("v").at(var("i")).not_equals(var("h"))),
                    vec![
                        Stmt::assign(var("neg"), var("v").at(var("i")).gt(var("h"))),
                        Stmt::assign(var("decided"), Expr::bool(true)),
                    ],
                ),
            ]),
        ),
    ]
}

/// The words of x = Σ_k v_k·B_k (B_k = p_1⋯p_(k−1), row k of `bases`), one column at a
/// time: column w sums lo(v_k·B_k[w]) and hi(v_k·B_k[w − 1]) over k, plus the carry.
fn columns(signed: bool) -> Stmt {
    let add = crate::cuda::BinOp::Add;
    let mut column = vec![
        Stmt::For(
            ForLoop::range("k", Type::SizeT, u64_(0), var("primes")).body(vec![
                Stmt::const_(Type::U64, "vk", var("v").at(var("k"))),
                Stmt::const_(
                    Type::U64,
                    "bw",
                    var("bases").at(var("k") * var("words") + var("w")),
                ),
                Stmt::const_(Type::U64, "lo", var("vk") * var("bw")),
                Stmt::assign_op(var("a0"), add, var("lo")),
                Stmt::const_(Type::U64, "c0", carry(var("a0").lt(var("lo")))),
                Stmt::assign_op(var("a1"), add, var("c0")),
                Stmt::assign_op(var("a2"), add, carry(var("a1").lt(var("c0")))),
                Stmt::if_(
                    var("w").gt(u64_(0)),
                    vec![
                        Stmt::const_(
                            Type::U64,
                            "hi",
                            mulhi(
                                var("vk"),
                                var("bases").at(var("k") * var("words") + var("w") - u64_(1)),
                            ),
                        ),
                        Stmt::assign_op(var("a0"), add, var("hi")),
                        Stmt::const_(Type::U64, "c1", carry(var("a0").lt(var("hi")))),
                        Stmt::assign_op(var("a1"), add, var("c1")),
                        Stmt::assign_op(var("a2"), add, carry(var("a1").lt(var("c1")))),
                    ],
                ),
            ]),
        ),
        Stmt::let_(Type::U64, "out", var("a0")),
    ];
    if signed {
        // P − x, word by word, for the upper half.
        column.push(Stmt::if_(
            var("neg"),
            vec![
                Stmt::const_(
                    Type::U64,
                    "pw",
                    var("bases").at(var("primes") * var("words") + var("w")),
                ),
                Stmt::const_(Type::U64, "t", var("pw") - var("a0")),
                Stmt::const_(Type::Bool, "b1", var("pw").lt(var("a0"))),
                Stmt::assign(var("out"), var("t") - var("borrow")),
                Stmt::assign(
                    var("borrow"),
                    carry(var("b1").or_else(var("t").lt(var("borrow")))),
                ),
            ],
        ));
    }
    column.extend([
        Stmt::assign(
            var("dst").at(var("w") * var("dst_stride") + var("j")),
            var("out"),
        ),
        // The next column starts from this one's carry.
        Stmt::assign(var("a0"), var("a1")),
        Stmt::assign(var("a1"), var("a2")),
        Stmt::assign(var("a2"), u64_(0)),
    ]);
    let mut body = zero_acc("a");
    body.push(Stmt::let_(Type::U64, "borrow", u64_(0)));
    body.push(Stmt::For(
        ForLoop::range("w", Type::SizeT, u64_(0), var("words")).body(column),
    ));
    Stmt::Block(body)
}

fn recombine_body(signed: bool) -> Vec<Stmt> {
    let mut per_coefficient = vec![Stmt::array(Type::U64, "v", MAX_PRIMES), digits()];
    if signed {
        per_coefficient.extend(upper_half());
        per_coefficient.push(Stmt::assign(
            var("signs").at(var("j")),
            var("neg").cast(Type::U32),
        ));
    }
    per_coefficient.push(columns(signed));
    vec![Stmt::grid_stride_loop("j", var("src_len"), per_coefficient)]
}

/// The CUDA file of the CRT route's kernels. They read their moduli from the constants
/// table, so one file serves every prime set; it carries a 64-bit word prime's prelude
/// for `fe_word_t` (64-bit words) and `fe_mulhi64`.
pub fn source() -> Result<String, crate::error::CodegenError> {
    let field = fermat_dsl::field::FieldSpec::parse("goldilocks")
        .and_then(|s| s.build())
        .expect("goldilocks is in the catalogue");
    let header = crate::header::Header::new(
        "fermat::crt (the projection and recombination of the CRT route)",
        "NTT primes below 2^62, read from the constants table (the prelude is goldilocks', for its 64-bit words)",
    )
    .note("crt_project, crt_project_signed: residues of integers modulo each prime, a grid row per prime")
    .note("crt_recombine, crt_recombine_signed: Garner's mixed-radix recombination, one thread per integer");
    let kernels: Vec<Kernel> = CrtPass::ALL.iter().map(|p| p.kernel()).collect();
    crate::unit::render(&header, &field, &[], &kernels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_renders_and_passes_the_name_check() {
        for pass in CrtPass::ALL {
            let k = pass.kernel();
            k.check().unwrap();
            assert!(k.to_string().contains(pass.name()));
        }
        let src = source().unwrap();
        assert!(src.starts_with("// Generated by"));
        assert!(src.contains("crt_recombine_signed"));
    }
}

/// −p^−1 mod 2^64, for odd p.
fn neg_inverse(p: u64) -> u64 {
    // p is its own inverse mod 8; each Newton step doubles the correct bits.
    let mut inv = p;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// The constants of [`CrtPass::Project`] for integers of `words` 64-bit words: a row of
/// [`PROJECT_HEAD`] + `words` per prime (p, −p^−1 mod 2^64, then R^(w+2) mod p, the
/// weight of word w with the R^2 that the two reductions remove).
///
/// ```
/// let c = fermat_codegen::crt::project_constants(&[2013265921], 3);
/// assert_eq!(c.len(), 5);
/// assert_eq!(c[0], 2013265921);
/// ```
pub fn project_constants(primes: &[u64], words: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(primes.len() * (PROJECT_HEAD as usize + words));
    for &p in primes {
        let r = ((1u128 << 64) % u128::from(p)) as u64;
        out.extend([p, neg_inverse(p)]);
        out.extend((0..words as u64).map(|w| pow_mod(r, w + 2, p)));
    }
    out
}

/// The tables of [`CrtPass::Recombine`] for `primes` (distinct, odd, below 2^62).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecombineTables {
    /// A row of [`RECOMBINE_HEAD`] + s words per prime i: p_i, −p_i^−1 mod 2^64,
    /// (p_1⋯p_(i−1))^−1·R mod p_i, digit i of ⌊P/2⌋ in the mixed radix of the primes, then
    /// the Garner weights p_1⋯p_(k−1)·R^2 mod p_i for k < i.
    pub constants: Vec<u64>,
    /// Words per row of `constants`.
    pub row: usize,
    /// s + 1 rows of `words` words: p_1⋯p_(k−1) for k = 1..s, then P.
    pub bases: Vec<u64>,
    /// 64-bit words of the integers: enough for P − 1.
    pub words: usize,
}

/// The tables of [`CrtPass::Recombine`].
///
/// ```
/// let t = fermat_codegen::crt::recombine_tables(&[2013265921, 469762049]);
/// assert_eq!(t.words, 1);
/// assert_eq!(t.bases, vec![1, 2013265921, 2013265921 * 469762049]);
/// ```
pub fn recombine_tables(primes: &[u64]) -> RecombineTables {
    use num_bigint::BigUint;
    let s = primes.len();
    let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
    let words = (product.bits().div_ceil(64) as usize).max(1);
    let row = RECOMBINE_HEAD as usize + s;
    let mut constants = vec![0u64; s * row];
    let mut half = &product >> 1u32;
    for (i, &p) in primes.iter().enumerate() {
        let r = ((1u128 << 64) % u128::from(p)) as u64;
        let r2 = mul_mod(r, r, p);
        let c = &mut constants[i * row..(i + 1) * row];
        let mut prefix = 1 % p;
        for (k, &q) in primes[..i].iter().enumerate() {
            c[RECOMBINE_HEAD as usize + k] = mul_mod(prefix, r2, p);
            prefix = mul_mod(prefix, q % p, p);
        }
        c[0] = p;
        c[1] = neg_inverse(p);
        c[2] = mul_mod(pow_mod(prefix, p - 2, p), r, p);
        let digit = &half % p;
        c[3] = digit.iter_u64_digits().next().unwrap_or(0);
        half /= p;
    }
    let mut bases = vec![0u64; (s + 1) * words];
    let mut base = BigUint::from(1u32);
    for k in 0..=s {
        for (slot, d) in bases[k * words..(k + 1) * words]
            .iter_mut()
            .zip(base.iter_u64_digits())
        {
            *slot = d;
        }
        if k < s {
            base *= primes[k];
        }
    }
    RecombineTables {
        constants,
        row,
        bases,
        words,
    }
}
