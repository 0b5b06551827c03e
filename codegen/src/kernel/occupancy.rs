//! Registers per thread the kernels are held to, and the resident blocks that asks for.

use super::Emitter;
use crate::plan::{KernelPlan, Step};
use crate::prelude::GOLDILOCKS;
use fermat_dsl::field::Field;
use num_bigint::BigUint;

/// 32-bit registers of one multiprocessor (every architecture since sm_50).
pub(super) const REGISTER_FILE: u32 = 65_536;
/// Resident blocks of one multiprocessor at most (sm_90).
pub(super) const MAX_BLOCKS_PER_SM: u32 = 32;

/// Registers per thread that the kernels of an SRGFN of at most SMALL_K digits are held
/// to. ptxas gives P2's kernels 72 registers by itself, which leaves room for 3 blocks of
/// 256 threads per multiprocessor; held to 64 (4 blocks, 32 warps) they spill 8 bytes and
/// the 2^24-point transform ran 7% faster on an H200 (bench/RESULTS.md): with 6 warps per
/// scheduler these kernels issued an instruction every 2.2 cycles, waiting on shared memory,
/// barriers and dependent carries, and more warps hide more of that. Larger elements need
/// their registers: P3's multiplication alone takes 64, and P4 held to 128 ran slower.
pub(super) const SMALL_SRGFN_REGISTERS: u32 = 64;
/// The most digits an SRGFN may have for [`SMALL_SRGFN_REGISTERS`] to apply.
pub(super) const SMALL_K: u64 = 4;

/// Registers per thread that the kernels of an SRGFN of k digits are held to, if any:
/// [`SMALL_SRGFN_REGISTERS`] up to [`SMALL_K`] digits, 128 from 5 to 8 (P3), 168 from 9 to
/// 16 (P4: 3 blocks of 128 threads). ptxas leaves P3's kernels at 118–138 registers, and
/// those just above 128 lose a block: the second forward pass of the batch's 2^13-point
/// products, 256 threads at 132 registers, fit one block per multiprocessor (12 % of its
/// warps) and took 2.27 ms of the batch's 10 under ncu, where the inverse's second pass,
/// at 122, took 1.32; held to 128 they spill at most 24 bytes, and the batch ran 16 %
/// faster, P3's division of 2^14 by 2^13 (products of a few blocks each) 4 % slower
/// (bench/RESULTS.md, "Batch round 2"). Registers are allocated eight per thread at a time, so a P4 kernel that
/// ptxas leaves at 170 registers fits only 2 blocks: held to 168 without spilling, P4 2^20
/// ran in 1.07 ms against 1.12 (bench/RESULTS.md, tuning round 8). A P4 kernel that also
/// scales by 1/n is left alone: ptxas gives it 155 registers by itself, but under the bound
/// it spilled 120 bytes and ran 12% slower. Other sizes are left to ptxas.
pub(super) fn srgfn_register_cap(k: u64, scaled: bool) -> Option<u32> {
    match k {
        0..=SMALL_K => Some(SMALL_SRGFN_REGISTERS),
        5..=8 => Some(128),
        9..=16 if !scaled => Some(168),
        _ => None,
    }
}

/// The resident blocks of `threads` threads to ask for so that ptxas keeps each thread to
/// `regs` registers.
pub(super) fn blocks_for_registers(threads: u32, regs: u32) -> u32 {
    (REGISTER_FILE / (threads * regs)).clamp(1, MAX_BLOCKS_PER_SM)
}

/// Registers per thread that goldilocks' kernels are held to: 4 blocks of 256 threads.
/// ptxas leaves its first passes at 68–70 registers (3 blocks); held to 64 they do not
/// spill, and goldilocks 2^24 ran 1.7% faster on an H200 (bench/RESULTS.md, tuning round
/// 9). Other 64-bit primes take Montgomery's REDC on 64-bit products, need 92–96
/// registers in their first passes, and spilled under the same bound.
pub(super) const GOLDILOCKS_REGISTERS: u32 = 64;

impl<F: Field> Emitter<'_, F> {
    /// The registers per thread a kernel is held to, if any ([`srgfn_register_cap`],
    /// [`GOLDILOCKS_REGISTERS`]).
    pub(super) fn register_cap(&self, k: &KernelPlan) -> Option<u32> {
        let scaled = k.steps.iter().any(|s| matches!(s, Step::Scale));
        match self.shape.shift_order {
            Some(order) => srgfn_register_cap(order / 2, scaled),
            None => {
                (self.field.modulus() == BigUint::from(GOLDILOCKS)).then_some(GOLDILOCKS_REGISTERS)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_srgfn_kernels_are_held_to_their_register_budget() {
        use crate::design::{transform, TransformOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let build =
            |name: &str| -> AnyField { name.parse::<FieldSpec>().unwrap().build().unwrap() };
        // (field, n, registers per thread the kernels are held to, if any).
        let cases = [
            ("P1", 1u64 << 12, Some(SMALL_SRGFN_REGISTERS)),
            ("P2", 1 << 15, Some(SMALL_SRGFN_REGISTERS)),
            ("P2", 1 << 9, Some(SMALL_SRGFN_REGISTERS)),
            ("P3", 1 << 12, Some(128)),
            ("P5", 1 << 12, None),
            ("babybear", 1 << 16, None),
        ];
        // 256 threads held to 64 registers: 4 blocks fill the register file.
        assert_eq!(blocks_for_registers(256, SMALL_SRGFN_REGISTERS), 4);
        for (name, n, cap) in cases {
            let t = transform(&build(name), n, &TransformOptions::default()).unwrap();
            let launches = t
                .forward_launches
                .iter()
                .chain(t.inverse_launches.iter().flatten());
            for l in launches {
                let bounds = match cap {
                    Some(regs) => {
                        let blocks = blocks_for_registers(l.threads, regs);
                        // The blocks asked for leave each thread at least `regs` registers.
                        assert!(REGISTER_FILE / (blocks * l.threads) >= regs, "{name} {l:?}");
                        format!("__launch_bounds__({}, {blocks}) {}(", l.threads, l.kernel)
                    }
                    None => format!("__launch_bounds__({}) {}(", l.threads, l.kernel),
                };
                assert!(t.source.contains(&bounds), "{name} at {n}: no `{bounds}`");
            }
        }
        // P4: held to 168 registers (3 blocks of 128 threads), except the kernel that
        // scales by 1/n.
        let t = transform(&build("P4"), 1 << 20, &TransformOptions::default()).unwrap();
        let inverse = t.inverse_launches.unwrap();
        let (last, rest) = inverse.split_last().unwrap();
        for l in t.forward_launches.iter().chain(rest) {
            let blocks = blocks_for_registers(l.threads, 168);
            let bounds = format!("__launch_bounds__({}, {blocks}) {}(", l.threads, l.kernel);
            assert!(t.source.contains(&bounds), "no `{bounds}`");
        }
        let plain = format!("__launch_bounds__({}) {}(", last.threads, last.kernel);
        assert!(t.source.contains(&plain), "no `{plain}`");
    }
}
