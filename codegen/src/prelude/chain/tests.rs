//! The carry chains run on an emulation of their PTX instructions, against exact integers.

use super::*;
use crate::prelude::testing::params;
use fermat_dsl::field::Sign;
use num_bigint::BigInt;
use num_traits::Zero;

/// Runs a chain on 64-bit input operands as PTX defines its instructions (the carry
/// flag a borrow after `sub.cc`/`subc`), returning the output operands.
fn run_chain(c: &DigitChain, inputs: &[u64]) -> Vec<u64> {
    use std::collections::HashMap;
    let mut regs: HashMap<&str, u32> = HashMap::new();
    let mut out = vec![0u64; c.outputs.len()];
    let mut cf = 0u64;
    for line in &c.lines {
        match line {
            ChainLine::Op {
                mnemonic,
                dst,
                args,
            } => {
                let v: Vec<u64> = args
                    .iter()
                    .map(|a| match a {
                        ChainArg::Reg(r) => u64::from(regs[r]),
                        ChainArg::Imm(x) => u64::from(*x),
                    })
                    .collect();
                let (d, new_cf) = match *mnemonic {
                    "add.u32" => (v[0] + v[1], cf),
                    "add.cc.u32" => (v[0] + v[1], (v[0] + v[1]) >> 32),
                    "addc.u32" => (v[0] + v[1] + cf, cf),
                    "addc.cc.u32" => (v[0] + v[1] + cf, (v[0] + v[1] + cf) >> 32),
                    "sub.cc.u32" => (v[0].wrapping_sub(v[1]), u64::from(v[0] < v[1])),
                    "subc.u32" => (v[0].wrapping_sub(v[1] + cf), cf),
                    "subc.cc.u32" => (v[0].wrapping_sub(v[1] + cf), u64::from(v[0] < v[1] + cf)),
                    "mad.lo.u32" => (v[0] * v[1] + v[2], cf),
                    "xor.b32" => (v[0] ^ v[1], cf),
                    m => panic!("unknown mnemonic {m}"),
                };
                regs.insert(dst, d as u32);
                cf = new_cf;
            }
            ChainLine::Split { lo, hi, input } => {
                regs.insert(lo, inputs[*input] as u32);
                regs.insert(hi, (inputs[*input] >> 32) as u32);
            }
            ChainLine::Load { reg, input } => {
                regs.insert(reg, inputs[*input] as u32);
            }
            ChainLine::Join { output, lo, hi } => {
                out[*output] = u64::from(regs[lo]) | (u64::from(regs[hi]) << 32);
            }
            ChainLine::Store { output, reg } => out[*output] = u64::from(regs[reg]),
        }
    }
    out
}

/// Runs the chains of one operation over k digits: `x`, `y` per digit (y: the sign
/// masks for signed chains), the carry variable passed from chain to chain.
fn run_chains(chains: &[DigitChain], x: &[u64], y: &[u64]) -> (Vec<u64>, u64) {
    let mut z = vec![0u64; x.len()];
    let mut carry = 0u64;
    for c in chains {
        let inputs: Vec<u64> = c
            .inputs
            .iter()
            .map(|(_, e)| {
                let index = |e: &str| {
                    e[e.find('[').unwrap() + 1..e.len() - 1]
                        .parse::<usize>()
                        .unwrap()
                };
                if e.starts_with("x.d[") {
                    x[index(e)]
                } else if e.starts_with("y.d[") || e.starts_with("s[") {
                    y[index(e)]
                } else {
                    carry
                }
            })
            .collect();
        let outs = run_chain(c, &inputs);
        for ((_, lvalue), v) in c.outputs.iter().zip(outs) {
            match lvalue.strip_prefix("z.d[") {
                Some(rest) => z[rest.trim_end_matches(']').parse::<usize>().unwrap()] = v,
                None => carry = v,
            }
        }
    }
    (z, carry)
}

/// Σ d_i r^i.
fn value(d: &[u64], r: u64) -> BigInt {
    d.iter()
        .rev()
        .fold(BigInt::zero(), |acc, &x| acc * BigInt::from(r) + x)
}

#[test]
fn digit_chains_compute_algorithm_2() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut fields: Vec<SrgfnParams> = fermat_dsl::field::CATALOGUE_SRGFNS
        .iter()
        .map(|(_, p)| *p)
        .collect();
    // r = 2^64 - 2^32, the largest radix with a zero low half.
    fields.push(params(64, 32, Sign::Minus, 4));
    for p in fields {
        let r = p.radix().unwrap();
        let k = p.k as usize;
        let (add, sub, signed) = (
            add_chains(p).unwrap(),
            sub_chains(p).unwrap(),
            signed_chains(p).unwrap(),
        );
        let rk = BigInt::from(r).pow(k as u32);
        let digit = |rng: &mut rand_chacha::ChaCha8Rng| match rng.gen_range(0..4) {
            0 => 0,
            1 => r - 1,
            2 => r / 2 + rng.gen_range(0..2),
            _ => rng.gen_range(0..r),
        };
        for trial in 0..300 {
            let mut x: Vec<u64> = (0..k).map(|_| digit(&mut rng)).collect();
            let mut y: Vec<u64> = (0..k).map(|_| digit(&mut rng)).collect();
            // p - 1 as either operand now and then.
            if trial % 7 == 0 {
                x = vec![0; k];
                x[k - 1] = r;
            }
            if trial % 11 == 0 {
                y = vec![0; k];
                y[k - 1] = r;
            }
            let (vx, vy) = (value(&x, r), value(&y, r));
            let (z, c) = run_chains(&add, &x, &y);
            assert!(c <= 1, "{p}: carry {c}");
            assert_eq!(
                value(&z, r) + BigInt::from(c) * &rk,
                &vx + &vy,
                "{p}: {x:?} + {y:?}"
            );
            let special = z[k - 1] == r && z[..k - 1].iter().all(|&d| d == 0);
            assert!(special || z.iter().all(|&d| d < r), "{p}: sum digits {z:?}");
            let (z, m) = run_chains(&sub, &x, &y);
            assert!(m == 0 || m == u64::from(u32::MAX), "{p}: mask {m}");
            let b = BigInt::from(m & 1);
            assert_eq!(value(&z, r) - b * &rk, &vx - &vy, "{p}: {x:?} - {y:?}");
            let special = z[k - 1] == r && z[..k - 1].iter().all(|&d| d == 0);
            assert!(
                special || z.iter().all(|&d| d < r),
                "{p}: difference digits {z:?}"
            );
            // Signs at random: Σ ±x_i r^i.
            let s: Vec<u64> = (0..k)
                .map(|_| if rng.gen() { u64::from(u32::MAX) } else { 0 })
                .collect();
            let expect: BigInt = (0..k)
                .map(|i| {
                    let t = BigInt::from(x[i]) * BigInt::from(r).pow(i as u32);
                    if s[i] != 0 {
                        -t
                    } else {
                        t
                    }
                })
                .sum();
            let (z, m) = run_chains(&signed, &x, &s);
            let b = BigInt::from(m & 1);
            assert_eq!(value(&z, r) - b * &rk, expect, "{p}: signed {x:?} {s:?}");
        }
    }
}

#[test]
fn digit_chains_are_checked() {
    let mut c = DigitChain::new();
    let x = c.input('l', "x.d[0]".into());
    c.lines.push(ChainLine::Split {
        lo: "al",
        hi: "ah",
        input: x,
    });
    c.op(
        "addc.cc.u32",
        "zl",
        &[ChainArg::Reg("al"), ChainArg::Reg("ah")],
    );
    let err = c.check().unwrap_err();
    assert_eq!(
        err,
        PreludeError::ChainCarry {
            step: 1,
            mnemonic: "addc.cc.u32"
        }
    );
    assert!(
        err.to_string()
            .contains("reads the carry before the chain sets it"),
        "{err}"
    );
    c.lines.pop();
    c.op(
        "add.cc.u32",
        "zl",
        &[ChainArg::Reg("al"), ChainArg::Reg("bl")],
    );
    assert_eq!(
        c.check().unwrap_err(),
        PreludeError::ChainRegister {
            step: 1,
            register: "bl"
        }
    );
    c.lines.pop();
    c.op("add.cc.u32", "zl", &[ChainArg::Reg("al")]);
    assert_eq!(
        c.check().unwrap_err(),
        PreludeError::ChainArity {
            step: 1,
            mnemonic: "add.cc.u32",
            sources: 2,
            got: 1
        }
    );
    c.lines.pop();
    c.op(
        "mul.lo.u32",
        "zl",
        &[ChainArg::Reg("al"), ChainArg::Reg("ah")],
    );
    let err = c.check().unwrap_err();
    assert_eq!(
        err,
        PreludeError::ChainMnemonic {
            step: 1,
            mnemonic: "mul.lo.u32"
        }
    );
    assert!(err.to_string().contains("mad.lo.u32"), "{err}");
    // Radices with a nonzero low half have no chains.
    let p = params(62, 21, Sign::Plus, 4);
    let r = (1u64 << 62) + (1 << 21);
    for err in [
        add_chains(p).unwrap_err(),
        sub_chains(p).unwrap_err(),
        signed_chains(p).unwrap_err(),
    ] {
        assert_eq!(err, PreludeError::RadixLowHalf { r });
        assert!(err.to_string().contains("u ≥ 32"), "{err}");
    }
}

#[test]
fn long_chains_pass_the_carry_between_statements() {
    // P6 (k = 64): four asm statements of 16 digits each, the later ones taking the
    // carry of the one before.
    let p = params(63, 40, Sign::Minus, 64);
    let chains = sub_chains(p).unwrap();
    assert_eq!(chains.len(), 4);
    assert_eq!(chains[0].inputs.len(), 32);
    assert_eq!(chains[1].inputs.len(), 33);
    assert!(chains[1].asm("").contains("sub.cc.u32 m, 0x0, m;"));
    assert!(chains[1]
        .portable("")
        .contains("v_m = fe_ptx_sub_cc_u32(0x0u, v_m, cf);"));
}
