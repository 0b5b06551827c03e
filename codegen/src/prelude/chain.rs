//! The 32-bit carry chains of the SRGFN addition and subtraction, printed as inline PTX for
//! the device and as portable C++ for the host.

use super::error::PreludeError;
use fermat_dsl::field::SrgfnParams;

/// The most digits one inline-PTX carry chain covers: longer chains are split into asm
/// statements of this many digits, which pass the carry on in a register (the condition
/// code does not survive from one asm statement to the next).
///
/// ```
/// use fermat_codegen::prelude::{add_chains, CHAIN_DIGITS};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P6's 64 digits: four asm statements, each after the first resuming from the carry c.
/// let p6 = SrgfnParams { w: 63, u: 40, sign: Sign::Minus, k: 64 };
/// let chains = add_chains(p6)?;
/// assert_eq!(chains.len() as u64, p6.k / CHAIN_DIGITS);
/// assert_eq!(chains[1].inputs[0], ('r', "c".to_string()));
/// assert_eq!(chains[1].inputs[1], ('l', "x.d[16]".to_string()));
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
pub const CHAIN_DIGITS: u64 = 16;

/// A source operand of one instruction of a [`DigitChain`].
///
/// ```
/// use fermat_codegen::prelude::{sub_chains, ChainArg, ChainLine};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// // P3's r = 2^63 + 2^34: a digit that borrowed gets r back as m·(2^32 − r_hi) on its
/// // high half, r_hi = 2^31 + 4, the mask m a register and 2^32 − r_hi a constant.
/// let chain = &sub_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?[0];
/// let ChainLine::Op { mnemonic: "mad.lo.u32", args, .. } = &chain.lines[5] else {
///     panic!("digit 0 ends with its correction");
/// };
/// assert_eq!(args, &[ChainArg::Reg("m"), ChainArg::Imm((1 << 31) - 4), ChainArg::Reg("zh")]);
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainArg {
    /// A 32-bit register of the chain.
    Reg(&'static str),
    /// A 32-bit constant.
    Imm(u32),
}

/// One step of a [`DigitChain`]: a PTX instruction on 32-bit registers, or the moves
/// between the chain's registers and its C++ operands.
///
/// ```
/// use fermat_codegen::prelude::{sub_chains, ChainArg::Reg, ChainLine};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let chain = &sub_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?[0];
/// // Digit 0: x_0 and y_0 into halves, then the low halves' difference sets the borrow.
/// assert_eq!(chain.lines[0], ChainLine::Split { lo: "al", hi: "ah", input: 0 });
/// assert_eq!(chain.lines[1], ChainLine::Split { lo: "bl", hi: "bh", input: 1 });
/// let sub = ChainLine::Op { mnemonic: "sub.cc.u32", dst: "zl", args: vec![Reg("al"), Reg("bl")] };
/// assert_eq!(chain.lines[2], sub);
/// // The end: z_7 from its halves, then the borrow's mask out as the last output.
/// let n = chain.lines.len();
/// assert_eq!(chain.lines[n - 2], ChainLine::Join { output: 7, lo: "zl", hi: "zh" });
/// assert_eq!(chain.lines[n - 1], ChainLine::Store { output: 8, reg: "m" });
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainLine {
    /// `mnemonic dst, args…`: one of `add.u32`, `add.cc.u32`, `addc.u32`, `addc.cc.u32`,
    /// `sub.cc.u32`, `subc.u32`, `subc.cc.u32`, `mad.lo.u32`, `xor.b32`.
    Op {
        /// The PTX mnemonic.
        mnemonic: &'static str,
        /// The register written.
        dst: &'static str,
        /// The sources (three for `mad.lo.u32`, else two).
        args: Vec<ChainArg>,
    },
    /// The halves of 64-bit input operand `input` into registers `lo` and `hi`.
    Split {
        /// The low half.
        lo: &'static str,
        /// The high half.
        hi: &'static str,
        /// The input operand.
        input: usize,
    },
    /// 32-bit input operand `input` into register `reg`.
    Load {
        /// The register written.
        reg: &'static str,
        /// The input operand.
        input: usize,
    },
    /// Registers `lo` and `hi` as 64-bit output operand `output`.
    Join {
        /// The output operand.
        output: usize,
        /// The low half.
        lo: &'static str,
        /// The high half.
        hi: &'static str,
    },
    /// Register `reg` as 32-bit output operand `output`.
    Store {
        /// The output operand.
        output: usize,
        /// The register read.
        reg: &'static str,
    },
}

/// The instructions of a [`DigitChain`]: (mnemonic, whether it reads the carry flag,
/// whether it writes it, its sources).
pub(super) const MNEMONICS: [(&str, bool, bool, usize); 9] = [
    ("add.u32", false, false, 2),
    ("add.cc.u32", false, true, 2),
    ("addc.u32", true, false, 2),
    ("addc.cc.u32", true, true, 2),
    ("sub.cc.u32", false, true, 2),
    ("subc.u32", true, false, 2),
    ("subc.cc.u32", true, true, 2),
    ("mad.lo.u32", false, false, 3),
    ("xor.b32", false, false, 2),
];

/// One carry chain of the SRGFN addition or subtraction (2017 paper, Algorithm 2) on the
/// 32-bit halves of the digits, for radices r = 2^w ± 2^u with u ≥ 32, whose low half is 0.
///
/// The same list of steps is printed twice: as inline PTX for the device (one asm statement,
/// so that the condition code carries from digit to digit) and as portable C++ for the host,
/// one call of an emulation of each instruction (`fe_ptx_*` in the prelude) per step, so
/// that the host tests run exactly the device's instruction sequence.
///
/// ```
/// use fermat_codegen::prelude::sub_chains;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let chain = &sub_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?[0];
/// // One borrow mask per digit, in both texts: the device's PTX and the host's emulation.
/// assert_eq!(chain.asm("").matches("subc.cc.u32 m, 0x0, 0x0;").count(), 8);
/// assert_eq!(chain.portable("").matches("v_m = fe_ptx_subc_cc_u32(0x0u, 0x0u, cf);").count(), 8);
/// // x and y per digit in, z per digit and the mask out.
/// assert_eq!((chain.inputs.len(), chain.outputs.len()), (16, 9));
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigitChain {
    /// Output operands: (constraint letter `l` or `r`, C++ lvalue).
    pub outputs: Vec<(char, String)>,
    /// Input operands: (constraint letter `l` or `r`, C++ expression).
    pub inputs: Vec<(char, String)>,
    /// The steps.
    pub lines: Vec<ChainLine>,
}

impl DigitChain {
    fn new() -> DigitChain {
        DigitChain {
            outputs: Vec::new(),
            inputs: Vec::new(),
            lines: Vec::new(),
        }
    }

    fn input(&mut self, kind: char, expr: String) -> usize {
        self.inputs.push((kind, expr));
        self.inputs.len() - 1
    }

    fn output(&mut self, kind: char, lvalue: String) -> usize {
        self.outputs.push((kind, lvalue));
        self.outputs.len() - 1
    }

    fn op(&mut self, mnemonic: &'static str, dst: &'static str, args: &[ChainArg]) {
        self.lines.push(ChainLine::Op {
            mnemonic,
            dst,
            args: args.to_vec(),
        });
    }

    /// The registers the chain uses, in order of first appearance: the asm statement
    /// declares them, the portable C++ names them `v_<register>`.
    ///
    /// ```
    /// use fermat_codegen::prelude::{signed_chains, sub_chains};
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// assert_eq!(sub_chains(p3)?[0].registers(), ["al", "ah", "bl", "bh", "zl", "zh", "m"]);
    /// // A signed sum reads one sign mask per digit where a difference reads y's halves.
    /// assert_eq!(signed_chains(p3)?[0].registers(), ["al", "ah", "s", "zl", "zh", "m"]);
    /// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
    /// ```
    pub fn registers(&self) -> Vec<&'static str> {
        let mut regs: Vec<&'static str> = Vec::new();
        let mut note = |r: &'static str| {
            if !regs.contains(&r) {
                regs.push(r);
            }
        };
        for line in &self.lines {
            match line {
                ChainLine::Op { dst, args, .. } => {
                    for a in args {
                        if let ChainArg::Reg(r) = a {
                            note(r);
                        }
                    }
                    note(dst);
                }
                ChainLine::Split { lo, hi, .. } | ChainLine::Join { lo, hi, .. } => {
                    note(lo);
                    note(hi);
                }
                ChainLine::Load { reg, .. } | ChainLine::Store { reg, .. } => note(reg),
            }
        }
        regs
    }

    /// Why the chain is not well formed: a carry read before any instruction of the chain
    /// wrote one (the condition code is undefined when an asm statement starts), a register
    /// read before it is written, an unknown mnemonic, or one given the wrong number of
    /// sources.
    ///
    /// ```
    /// use fermat_codegen::prelude::{ChainArg::Imm, ChainLine, DigitChain, PreludeError};
    ///
    /// // An add with carry as the first step reads a condition code no step has set.
    /// let op = ChainLine::Op { mnemonic: "addc.u32", dst: "g", args: vec![Imm(0), Imm(0)] };
    /// let chain = DigitChain { outputs: vec![], inputs: vec![], lines: vec![op] };
    /// let err = PreludeError::ChainCarry { step: 0, mnemonic: "addc.u32" };
    /// assert_eq!(chain.check(), Err(err));
    /// ```
    pub fn check(&self) -> Result<(), PreludeError> {
        let mut carry = false;
        let mut written: Vec<&'static str> = Vec::new();
        for (step, line) in self.lines.iter().enumerate() {
            let read = |register: &'static str, written: &Vec<&'static str>| {
                if written.contains(&register) {
                    Ok(())
                } else {
                    Err(PreludeError::ChainRegister { step, register })
                }
            };
            match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => {
                    let mnemonic = *mnemonic;
                    let Some(&(_, reads_cf, writes_cf, sources)) =
                        MNEMONICS.iter().find(|(m, ..)| *m == mnemonic)
                    else {
                        return Err(PreludeError::ChainMnemonic { step, mnemonic });
                    };
                    if args.len() != sources {
                        return Err(PreludeError::ChainArity {
                            step,
                            mnemonic,
                            sources,
                            got: args.len(),
                        });
                    }
                    if reads_cf && !carry {
                        return Err(PreludeError::ChainCarry { step, mnemonic });
                    }
                    carry |= writes_cf;
                    for a in args {
                        if let ChainArg::Reg(r) = a {
                            read(r, &written)?;
                        }
                    }
                    written.push(dst);
                }
                ChainLine::Split { lo, hi, .. } => {
                    written.push(lo);
                    written.push(hi);
                }
                ChainLine::Load { reg, .. } => written.push(reg),
                ChainLine::Join { lo, hi, .. } => {
                    read(lo, &written)?;
                    read(hi, &written)?;
                }
                ChainLine::Store { reg, .. } => read(reg, &written)?,
            }
        }
        Ok(())
    }

    /// The chain as one asm statement (lines of C++ source, indented by `indent`).
    ///
    /// ```
    /// use fermat_codegen::prelude::sub_chains;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let asm = sub_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?[0].asm("    ");
    /// assert!(asm.starts_with(r#"    asm("{\n\t.reg .u32 al, ah, bl, bh, zl, zh, m;\n\t""#));
    /// // Operands %0 to %8 are the outputs, so x.d[0] is %9.
    /// assert!(asm.contains(r#""mov.b64 {al, ah}, %9;\n\t""#));
    /// assert!(asm.contains(r#""mad.lo.u32 zh, m, 0x7ffffffc, zh;\n\t""#));
    /// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
    /// ```
    pub fn asm(&self, indent: &str) -> String {
        let n_out = self.outputs.len();
        let arg = |a: &ChainArg| match a {
            ChainArg::Reg(r) => r.to_string(),
            ChainArg::Imm(v) => format!("{v:#x}"),
        };
        let mut text = format!(
            "{indent}asm(\"{{\\n\\t.reg .u32 {};\\n\\t\"\n",
            self.registers().join(", ")
        );
        for line in &self.lines {
            let ptx = match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => format!(
                    "{mnemonic} {dst}, {};",
                    args.iter().map(arg).collect::<Vec<_>>().join(", ")
                ),
                ChainLine::Split { lo, hi, input } => {
                    format!("mov.b64 {{{lo}, {hi}}}, %{};", n_out + input)
                }
                ChainLine::Load { reg, input } => format!("mov.u32 {reg}, %{};", n_out + input),
                ChainLine::Join { output, lo, hi } => format!("mov.b64 %{output}, {{{lo}, {hi}}};"),
                ChainLine::Store { output, reg } => format!("mov.u32 %{output}, {reg};"),
            };
            text.push_str(&format!("{indent}    \"{ptx}\\n\\t\"\n"));
        }
        let operands = |ops: &[(char, String)], prefix: &str| {
            ops.iter()
                .map(|(kind, e)| format!("\"{prefix}{kind}\"({e})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "{indent}    \"}}\"\n{indent}    : {}\n{indent}    : {});\n",
            operands(&self.outputs, "=&"),
            operands(&self.inputs, "")
        ));
        text
    }

    /// The chain as portable C++ (lines indented by `indent`, in a block of their own):
    /// the same steps, each instruction by its emulation `fe_ptx_<mnemonic>` with the carry
    /// flag in `cf`.
    ///
    /// ```
    /// use fermat_codegen::prelude::sub_chains;
    /// use fermat_dsl::field::{Sign, SrgfnParams};
    ///
    /// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
    /// let cpp = sub_chains(p3)?[0].portable("");
    /// let head = "{\n    uint32_t v_al, v_ah, v_bl, v_bh, v_zl, v_zh, v_m, cf = 0;\n";
    /// assert!(cpp.starts_with(head));
    /// assert!(cpp.contains("v_zh = fe_ptx_mad_lo_u32(v_m, 0x7ffffffcu, v_zh, cf);"));
    /// assert!(cpp.contains("z.d[7] = (uint64_t)v_zl | ((uint64_t)v_zh << 32);"));
    /// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
    /// ```
    pub fn portable(&self, indent: &str) -> String {
        // Registers get a prefix, so that none hides a C++ operand of the same name.
        let reg = |r: &str| format!("v_{r}");
        let arg = |a: &ChainArg| match a {
            ChainArg::Reg(r) => reg(r),
            ChainArg::Imm(v) => format!("{v:#x}u"),
        };
        let regs: Vec<String> = self.registers().iter().map(|r| reg(r)).collect();
        let mut text = format!(
            "{indent}{{\n{indent}    uint32_t {}, cf = 0;\n",
            regs.join(", ")
        );
        for line in &self.lines {
            let cpp = match line {
                ChainLine::Op {
                    mnemonic,
                    dst,
                    args,
                } => format!(
                    "{} = fe_ptx_{}({}, cf);",
                    reg(dst),
                    mnemonic.replace('.', "_"),
                    args.iter().map(arg).collect::<Vec<_>>().join(", ")
                ),
                ChainLine::Split { lo, hi, input } => {
                    let e = &self.inputs[*input].1;
                    format!(
                        "{} = (uint32_t)({e}); {} = (uint32_t)(({e}) >> 32);",
                        reg(lo),
                        reg(hi)
                    )
                }
                ChainLine::Load { reg: r, input } => {
                    format!("{} = {};", reg(r), self.inputs[*input].1)
                }
                ChainLine::Join { output, lo, hi } => format!(
                    "{} = (uint64_t){} | ((uint64_t){} << 32);",
                    self.outputs[*output].1,
                    reg(lo),
                    reg(hi)
                ),
                ChainLine::Store { output, reg: r } => {
                    format!("{} = {};", self.outputs[*output].1, reg(r))
                }
            };
            text.push_str(&format!("{indent}    {cpp}\n"));
        }
        text.push_str(&format!("{indent}    (void)cf;\n{indent}}}\n"));
        text
    }
}

/// The high half of r and 2^32 minus it, for a radix whose low half is 0.
pub(super) fn radix_halves(params: SrgfnParams) -> Result<(u32, u32), PreludeError> {
    let r = params.radix()?;
    if r as u32 != 0 {
        return Err(PreludeError::RadixLowHalf { r });
    }
    let rh = (r >> 32) as u32;
    Ok((rh, rh.wrapping_neg()))
}

/// How the asm statements of one operation pass its carry on, the condition code not
/// surviving from one statement to the next.
struct CarryLink {
    /// The C++ variable that takes the carry from one statement to the next.
    var: &'static str,
    /// The register that holds it in a chain.
    reg: &'static str,
    /// The instruction, written to `reg`, that sets the carry flag from the variable at the
    /// start of a later statement.
    resume: (&'static str, [ChainArg; 2]),
    /// The instruction, written to `reg`, that reads the carry flag back into the variable
    /// at the end of an earlier statement, where its digits leave `reg` holding something
    /// else.
    hand_over: Option<(&'static str, [ChainArg; 2])>,
}

/// The borrow of [`sub_chains`] and [`signed_chains`], passed on as its mask m (all ones or
/// 0, which every digit computes anyway): 0 − m borrows exactly when m ≠ 0.
const BORROW: CarryLink = CarryLink {
    var: "m",
    reg: "m",
    resume: ("sub.cc.u32", [ChainArg::Imm(0), ChainArg::Reg("m")]),
    hand_over: None,
};

/// The carry of [`add_chains`], passed on as c = 0 or 1: c + 0xffffffff carries exactly
/// when c = 1. A digit below the top leaves g = carry − 1 with the carry in the flag, which
/// `addc` of 0 + 0 reads back at the end of a statement.
const CARRY: CarryLink = CarryLink {
    var: "c",
    reg: "g",
    resume: ("add.cc.u32", [ChainArg::Reg("g"), ChainArg::Imm(u32::MAX)]),
    hand_over: Some(("addc.u32", [ChainArg::Imm(0), ChainArg::Imm(0)])),
};

/// The operand of each digit beside x_i.
#[derive(Clone, Copy)]
enum Operand {
    /// Digit y_i (64-bit input `y.d[i]`), in registers `bl` and `bh`.
    Digit,
    /// The sign mask s_i (32-bit input `s[i]`, all ones: negative), in register `s`.
    Sign,
}

/// The chains of one operation over the k digits, in asm statements of at most
/// [`CHAIN_DIGITS`] digits that pass the carry on through `link`. Digit i loads x_i into
/// `al` and `ah` and its second operand as `second` says, runs `digit`'s instructions
/// and stores `zl` and `zh` into z_i.
fn build_chains(
    k: u64,
    second: Operand,
    link: &CarryLink,
    mut digit: impl FnMut(&mut DigitChain, u64),
) -> Result<Vec<DigitChain>, PreludeError> {
    let mut chains = Vec::new();
    for first in (0..k).step_by(CHAIN_DIGITS as usize) {
        let mut c = DigitChain::new();
        if first > 0 {
            let input = c.input('r', link.var.into());
            c.lines.push(ChainLine::Load {
                reg: link.reg,
                input,
            });
            c.op(link.resume.0, link.reg, &link.resume.1);
        }
        let last = (first + CHAIN_DIGITS).min(k);
        for i in first..last {
            let x = c.input('l', format!("x.d[{i}]"));
            let y = match second {
                Operand::Digit => c.input('l', format!("y.d[{i}]")),
                Operand::Sign => c.input('r', format!("s[{i}]")),
            };
            let z = c.output('l', format!("z.d[{i}]"));
            c.lines.push(ChainLine::Split {
                lo: "al",
                hi: "ah",
                input: x,
            });
            c.lines.push(match second {
                Operand::Digit => ChainLine::Split {
                    lo: "bl",
                    hi: "bh",
                    input: y,
                },
                Operand::Sign => ChainLine::Load { reg: "s", input: y },
            });
            digit(&mut c, i);
            c.lines.push(ChainLine::Join {
                output: z,
                lo: "zl",
                hi: "zh",
            });
        }
        if let Some((mnemonic, args)) = &link.hand_over {
            if last < k {
                c.op(mnemonic, link.reg, args);
            }
        }
        let output = c.output('r', link.var.into());
        c.lines.push(ChainLine::Store {
            output,
            reg: link.reg,
        });
        c.check()?;
        chains.push(c);
    }
    Ok(chains)
}

/// The chains of x − y over the k digits (in asm statements of at most [`CHAIN_DIGITS`]
/// digits), which leave z and the mask `m` of the borrow out of the top digit (all ones or 0).
///
/// Digit i: the 64-bit difference x_i − y_i − b with the borrow b from below, as two
/// subtractions of 32-bit halves with borrow; the borrow out is the digit's base-r borrow
/// (x_i, y_i ≤ r), read back as the mask m by a `subc.cc` of 0 − 0 (which leaves the
/// borrow in place for the next digit); r is added back where it borrowed by
/// hi += m·(2^32 − r_hi), r's low half being 0.
///
/// ```
/// use fermat_codegen::prelude::{sub_chains, PreludeError};
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let p3 = SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 };
/// let chains = sub_chains(p3)?;
/// assert_eq!(chains.len(), 1); // 8 digits in one asm statement
/// assert!(chains[0].check().is_ok());
/// // r = 2^62 + 2^21 has a nonzero low half.
/// let low = SrgfnParams { w: 62, u: 21, sign: Sign::Plus, k: 4 };
/// assert_eq!(sub_chains(low), Err(PreludeError::RadixLowHalf { r: (1 << 62) + (1 << 21) }));
/// # Ok::<(), PreludeError>(())
/// ```
pub fn sub_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, PreludeError> {
    let (_, nr) = radix_halves(params)?;
    build_chains(params.k, Operand::Digit, &BORROW, |c, i| {
        subtract_digit(c, i, nr, ("bl", "bh"));
    })
}

/// The chains of Σ ±x_i r^i over the k digits, the sign of digit i given by the mask
/// `s[i]` (all ones: negative), which leave z and the mask `m` of the borrow out of the top
/// digit, as [`sub_chains`] does for x − y.
///
/// Digit i is the subtraction (x_i ⊕ s_i) − s_i − b: for s_i = 0 that is x_i − 0 − b, and
/// for s_i all ones (¬x_i) − (2^32 − 1) − b on each half, which is 0 − x_i − b with the
/// same borrow, half by half. A run-time shift (whose digits change sign where they wrap
/// around) thus costs one chain.
///
/// ```
/// use fermat_codegen::prelude::signed_chains;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let chain = &signed_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?[0];
/// // Each digit flips both halves by its sign mask s[i], then subtracts it.
/// let asm = chain.asm("");
/// assert_eq!(asm.matches("xor.b32").count(), 2 * 8);
/// assert!(asm.contains("subc.cc.u32 zh, ah, s;"));
/// assert_eq!(chain.inputs[1], ('r', "s[0]".to_string()));
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
pub fn signed_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, PreludeError> {
    use ChainArg::Reg;
    let (_, nr) = radix_halves(params)?;
    build_chains(params.k, Operand::Sign, &BORROW, |c, i| {
        c.op("xor.b32", "al", &[Reg("al"), Reg("s")]);
        c.op("xor.b32", "ah", &[Reg("ah"), Reg("s")]);
        subtract_digit(c, i, nr, ("s", "s"));
    })
}

/// Digit i of [`sub_chains`] and [`signed_chains`]: (`ah`, `al`) less (`hi`, `lo`) less the
/// borrow from below into (`zh`, `zl`), the borrow out read back as the mask m and
/// 2^32 − r_hi = `nr` times m added to `zh`.
fn subtract_digit(c: &mut DigitChain, i: u64, nr: u32, (lo, hi): (&'static str, &'static str)) {
    use ChainArg::{Imm, Reg};
    let lo_op = if i == 0 { "sub.cc.u32" } else { "subc.cc.u32" };
    c.op(lo_op, "zl", &[Reg("al"), Reg(lo)]);
    c.op("subc.cc.u32", "zh", &[Reg("ah"), Reg(hi)]);
    c.op("subc.cc.u32", "m", &[Imm(0), Imm(0)]);
    c.op("mad.lo.u32", "zh", &[Reg("m"), Imm(nr), Reg("zh")]);
}

/// The chains of x + y over the k digits for canonical operands, which leave z and the
/// carry `c` (0 or 1) out of the top digit.
///
/// Digit i < k − 1 (below r, as only a top digit may be r): the low halves add with the
/// carry from below; the high half a_hi + 2^32 − r_hi stays below 2^32, and adding b_hi and
/// the low carry to it carries out exactly when the digit sum reaches r: the carry into
/// digit i + 1. `addc.cc` of 0xffffffff + 0 reads it back as g = carry − 1 (0 or all ones)
/// and leaves it in place; hi += g·(2^32 − r_hi) takes the bias back where the sum stayed
/// below r. The top digit may be r (p − 1): its high halves add with a carry out (which
/// only r ≥ 2^63 can produce) and the sum is compared with r_hi apart.
///
/// ```
/// use fermat_codegen::prelude::add_chains;
/// use fermat_dsl::field::{Sign, SrgfnParams};
///
/// let chains = add_chains(SrgfnParams { w: 63, u: 34, sign: Sign::Plus, k: 8 })?;
/// let asm = chains[0].asm("");
/// // Each digit below the top biases its high half by 2^32 − r_hi = 2^31 − 4 first.
/// assert_eq!(asm.matches("add.u32 ah, ah, 0x7ffffffc;").count(), 7);
/// // r ≥ 2^63: the top digit's high halves may carry out, into the register o.
/// assert!(asm.contains("addc.u32 o, 0x0, 0x0;"));
/// # Ok::<(), fermat_codegen::prelude::PreludeError>(())
/// ```
pub fn add_chains(params: SrgfnParams) -> Result<Vec<DigitChain>, PreludeError> {
    let (_, nr) = radix_halves(params)?;
    let wide = params.radix()? >= 1u64 << 63;
    let k = params.k;
    build_chains(k, Operand::Digit, &CARRY, |c, i| {
        add_digit(c, i, i + 1 == k, nr, wide);
    })
}

/// Digit i of [`add_chains`], the `top` one or one below it: (`ah`, `al`) plus (`bh`, `bl`)
/// plus the carry from below into (`zh`, `zl`), with r_hi's complement `nr`; `wide` where
/// r ≥ 2^63.
fn add_digit(c: &mut DigitChain, i: u64, top: bool, nr: u32, wide: bool) {
    use ChainArg::{Imm, Reg};
    let lo_op = if i == 0 { "add.cc.u32" } else { "addc.cc.u32" };
    if !top {
        c.op("add.u32", "ah", &[Reg("ah"), Imm(nr)]);
        c.op(lo_op, "zl", &[Reg("al"), Reg("bl")]);
        c.op("addc.cc.u32", "zh", &[Reg("ah"), Reg("bh")]);
        c.op("addc.cc.u32", "g", &[Imm(u32::MAX), Imm(0)]);
        c.op("mad.lo.u32", "zh", &[Reg("g"), Imm(nr), Reg("zh")]);
        return;
    }
    c.op(lo_op, "zl", &[Reg("al"), Reg("bl")]);
    if wide {
        // a_hi + b_hi + carry may reach 2^32 (then it exceeds r_hi).
        c.op("addc.cc.u32", "zh", &[Reg("ah"), Reg("bh")]);
        c.op("addc.u32", "o", &[Imm(0), Imm(0)]);
    } else {
        c.op("addc.u32", "zh", &[Reg("ah"), Reg("bh")]);
        c.op("add.u32", "o", &[Imm(0), Imm(0)]);
    }
    // The sum reaches r_hi exactly when adding 2^32 - r_hi carries (or o = 1).
    c.op("add.cc.u32", "g", &[Reg("zh"), Imm(nr)]);
    c.op("addc.u32", "g", &[Reg("o"), Imm(0)]);
    c.op("mad.lo.u32", "zh", &[Reg("g"), Imm(nr), Reg("zh")]);
}

/// The device and host bodies of a list of chains, for the template.
pub(super) fn chains_text(chains: &[DigitChain]) -> (String, String) {
    let asm = chains.iter().map(|c| c.asm("    ")).collect::<String>();
    let portable = chains
        .iter()
        .map(|c| c.portable("    "))
        .collect::<String>();
    (asm, portable)
}

#[cfg(test)]
mod tests;
