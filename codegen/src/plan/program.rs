//! The straight-line program a kernel runs on each piece: butterflies and rotations by
//! roots of unity whose exponents are products of index bit fields.

/// Where one bit of a twiddle exponent's factor comes from.
///
/// ```
/// use fermat_codegen::plan::{BitField, BitSource};
///
/// // Bit 0 is bit 2 of the local index, bit 1 is bit 0 of the piece index.
/// let f = BitField { bits: vec![BitSource::Local(2), BitSource::Piece(0)] };
/// assert_eq!(f.eval(0b100, 0), 0b01);
/// assert_eq!(f.eval(0b100, 1), 0b11);
/// assert_eq!(f.eval(0b011, 1), 0b10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitSource {
    /// Bit c of the element's local index within its piece.
    Local(u32),
    /// Bit c of the piece index.
    Piece(u32),
}

/// A value assembled from index bits: bit i is `bits[i]`.
///
/// The row and the column of a twiddle step are bit fields: where a bit of the formula's
/// index lives after the lowering's relabellings, in the piece or in the local index.
///
/// ```
/// use fermat_codegen::plan::{BitSource, Plan, PlanOptions, Step};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(64) by radix 4 in pieces of 4: the first kernel's twiddle row is the piece index.
/// let f = derive(&Formula::dft(64)?, Strategy::Ct, &Options::radix(4))?.final_formula();
/// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 2, ..PlanOptions::default() })?;
/// let Step::Twiddle { x, y, .. } = &plan.kernels[0].steps[1] else { panic!("a twiddle") };
/// assert_eq!(x.bits, (0..4).map(BitSource::Piece).collect::<Vec<_>>());
/// assert_eq!(y.bits, [BitSource::Local(0), BitSource::Local(1)]);
/// assert!(x.uses_piece() && !y.uses_piece());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BitField {
    /// The source of each bit, least significant first.
    pub bits: Vec<BitSource>,
}

impl BitField {
    /// The value for local element `j` of piece `p`.
    ///
    /// ```
    /// use fermat_codegen::plan::{BitField, BitSource::{Local, Piece}};
    ///
    /// let f = BitField { bits: vec![Piece(1), Local(0), Piece(0)] };
    /// assert_eq!(f.eval(1, 0b10), 0b011);
    /// assert_eq!(f.eval(1, 0b01), 0b110);
    /// assert_eq!(f.eval(0, 0b00), 0);
    /// ```
    pub fn eval(&self, j: u64, p: u64) -> u64 {
        self.bits.iter().enumerate().fold(0, |acc, (i, src)| {
            let bit = match *src {
                BitSource::Local(c) => (j >> c) & 1,
                BitSource::Piece(c) => (p >> c) & 1,
            };
            acc | (bit << i)
        })
    }

    /// Whether the value depends on the piece index ([`BitField`] has an example).
    pub fn uses_piece(&self) -> bool {
        self.bits.iter().any(|b| matches!(b, BitSource::Piece(_)))
    }
}

/// One step of a kernel's body, applied to the whole piece.
///
/// ```
/// use fermat_codegen::plan::{Direction, Plan, PlanOptions, Step};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(256) = (DFT(16) ⊗ I(16)) · D(16, 16) · (I(16) ⊗ DFT(16)) · L(256, 16), one piece.
/// let f = derive(&Formula::dft(256)?, Strategy::Ct, &Options::radix(16))?.final_formula();
/// let options = PlanOptions { direction: Direction::Inverse, ..PlanOptions::default() };
/// let steps = &Plan::lower(&f, options)?.kernels[0].steps;
/// // L(256, 16) moves nothing: the first DFT(16) runs along the high local bits.
/// assert_eq!(steps[0], Step::Dft { locals: vec![4, 5, 6, 7] });
/// assert!(matches!(steps[1], Step::Twiddle { log_order: 8, .. }));
/// assert_eq!(steps[2], Step::Dft { locals: vec![0, 1, 2, 3] });
/// assert_eq!(steps[3], Step::Scale); // the inverse's 1/n
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// DFT(2^b), b = `locals.len()`, along the local bits `locals` (bit i of the DFT's
    /// index is local bit `locals[i]`), for every value of the other local bits; each
    /// group runs the radix-2 [`Codelet`] of that size.
    Dft {
        /// The local bits the DFT runs along.
        locals: Vec<u32>,
    },
    /// Element j of piece p is multiplied by ω_{2^log_order}^(x·y) (by ω^(−1) in inverse
    /// plans): the twiddle diagonal D(m, n) of a formula, with x and y the bit fields of
    /// the formula's index mapped to where those bits live.
    Twiddle {
        /// log2 of the root's order, log2(mn).
        log_order: u32,
        /// The row index a.
        x: BitField,
        /// The column index b.
        y: BitField,
    },
    /// Every element is multiplied by n^(−1) (the inverse transform's scaling).
    Scale,
}

/// One instruction of a codelet, on the codelet's registers.
///
/// Run on numbers modulo 17 at ω_4 = 4 (4² = −1), the ops of DFT(4) give the DFT:
///
/// ```
/// use fermat_codegen::plan::{Codelet, Op};
///
/// let (p, x) = (17, [1u64, 2, 3, 4]);
/// let (codelet, mut regs) = (Codelet::radix2(2), x);
/// for op in &codelet.ops {
///     match *op {
///         Op::Butterfly { a, b } => {
///             let (u, v) = (regs[a as usize], regs[b as usize]);
///             (regs[a as usize], regs[b as usize]) = ((u + v) % p, (u + p - v) % p);
///         }
///         Op::Rotate { reg, log_order: 2, exp } => {
///             regs[reg as usize] = regs[reg as usize] * 4u64.pow(exp as u32) % p;
///         }
///         Op::Rotate { .. } => unreachable!("DFT(4) rotates by powers of ω_4 only"),
///     }
/// }
/// let dft = |v: u64| (0..4).map(|j| x[j as usize] * 4u64.pow((j * v) as u32 % 4)).sum::<u64>();
/// assert!((0..4).all(|v| regs[codelet.out[v as usize] as usize] == dft(v) % p));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// (a, b) ← (a + b, a − b): a DFT(2).
    Butterfly {
        /// First register.
        a: u32,
        /// Second register.
        b: u32,
    },
    /// reg ← reg · ω_{2^log_order}^exp: for an SRGFN with 2^log_order | 2k the root is a
    /// power of r and this is a digit shift.
    Rotate {
        /// The register.
        reg: u32,
        /// log2 of the root's order.
        log_order: u32,
        /// The exponent.
        exp: u64,
    },
}

/// The straight-line DFT(2^bits) on registers 0..2^bits, by the radix-2 base-case
/// expansion DFT(m) = (DFT(2) ⊗ I(m/2)) · D(2, m/2) · (I(2) ⊗ DFT(m/2)) · L(m, 2)
/// (thesis, DFT16): stride permutations are register relabellings and the twiddles are
/// powers of ω_m — digit shifts when m divides 2k for an SRGFN.
///
/// ```
/// use fermat_codegen::plan::{Codelet, Op};
///
/// // DFT(16): 4 · 8 butterflies, and its outputs land in bit-reversed registers.
/// let c = Codelet::radix2(4);
/// let butterflies = c.ops.iter().filter(|op| matches!(op, Op::Butterfly { .. })).count();
/// assert_eq!((c.bits, butterflies), (4, 32));
/// assert!((0..16u32).all(|v| c.out[v as usize] == v.reverse_bits() >> 28));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Codelet {
    /// log2 of the size.
    pub bits: u32,
    /// The instructions, in order.
    pub ops: Vec<Op>,
    /// Output position v is in register `out[v]`.
    pub out: Vec<u32>,
}

impl Codelet {
    /// The radix-2 codelet of size 2^bits.
    ///
    /// ```
    /// use fermat_codegen::plan::{Codelet, Op};
    ///
    /// // DFT(4): DFT(2)s of the even and the odd registers, ω_4 on register 3, two more.
    /// let c = Codelet::radix2(2);
    /// let bf = |a, b| Op::Butterfly { a, b };
    /// let rotate = Op::Rotate { reg: 3, log_order: 2, exp: 1 };
    /// assert_eq!(c.ops, [bf(0, 2), bf(1, 3), rotate, bf(0, 1), bf(2, 3)]);
    /// assert_eq!(c.out, [0, 2, 1, 3]); // output v is in register out[v]
    /// ```
    pub fn radix2(bits: u32) -> Codelet {
        let regs: Vec<u32> = (0..1u32 << bits).collect();
        let mut ops = Vec::new();
        let out = radix2(&regs, &mut ops);
        Codelet { bits, ops, out }
    }
}

fn radix2(regs: &[u32], ops: &mut Vec<Op>) -> Vec<u32> {
    let m = regs.len();
    if m == 1 {
        return regs.to_vec();
    }
    let half = m / 2;
    // L(m, 2): y[j·half + i] = x[2i + j].
    let evens: Vec<u32> = (0..half).map(|i| regs[2 * i]).collect();
    let odds: Vec<u32> = (0..half).map(|i| regs[2 * i + 1]).collect();
    let lo = radix2(&evens, ops);
    let hi = radix2(&odds, ops);
    let log_order = m.trailing_zeros();
    for (b, &reg) in hi.iter().enumerate().skip(1) {
        ops.push(Op::Rotate {
            reg,
            log_order,
            exp: b as u64,
        });
    }
    for (&a, &b) in lo.iter().zip(&hi) {
        ops.push(Op::Butterfly { a, b });
    }
    lo.into_iter().chain(hi).collect()
}
