//! Cost reports: what a plan moves and computes, counted from the plan itself.
//!
//! The first figure of merit of a plan is its number of passes over global memory (each
//! one read and one write of the data); the second, its field operations per element —
//! full multiplications, multiplications by powers of r (digit shifts, SRGFNs only) and
//! additions/subtractions.

use crate::plan::{BitSource, Codelet, KernelPlan, Op, Plan, Step};
use fermat_dsl::field::AnyField;
use serde::Serialize;
use std::fmt;

/// What the cost model needs to know of a field.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_dsl::field::AnyField;
///
/// let shape = |spec| AnyField::from_spec(spec).map(|f| FieldShape::of(&f));
/// let babybear = shape("babybear")?;
/// assert_eq!((babybear.element_bytes, babybear.shift_order), (4, None));
/// assert_eq!(shape("goldilocks")?.element_bytes, 8);
/// let p3 = shape("P3")?; // k = 8 digits of 64 bits; r has order 2k
/// assert_eq!((p3.name.as_str(), p3.element_bytes, p3.shift_order), ("P3", 64, Some(16)));
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldShape {
    /// The field's name.
    pub name: String,
    /// Bytes per element in device memory (4 or 8 for word primes, 8k for SRGFNs).
    pub element_bytes: u64,
    /// The order 2k of r for SRGFNs: rotations by roots of order dividing it are shifts.
    pub shift_order: Option<u64>,
}

impl FieldShape {
    /// The shape of a field ([`FieldShape`] has an example).
    pub fn of(field: &AnyField) -> FieldShape {
        let (element_bytes, shift_order) = match field {
            AnyField::Fp32(_) => (4, None),
            AnyField::Fp64(_) => (8, None),
            _ => {
                let k = field
                    .srgfn_params()
                    .expect("every other field is an SRGFN")
                    .k;
                (8 * k, Some(2 * k))
            }
        };
        FieldShape {
            name: field.name(),
            element_bytes,
            shift_order,
        }
    }

    fn is_shift(&self, log_order: u32) -> bool {
        self.shift_order.is_some_and(|s| (1u64 << log_order) <= s)
    }
}

/// The cost of one kernel, over all its pieces.
///
/// ```
/// use fermat_codegen::cost::{Cost, FieldShape};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::field::AnyField;
/// use fermat_dsl::formula::Formula;
///
/// let f = derive(&Formula::dft(1 << 12)?, Strategy::Ct, &Options::radix(16))?.final_formula();
/// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 8, ..PlanOptions::default() })?;
/// let cost = Cost::of(&plan, FieldShape::of(&AnyField::from_spec("goldilocks")?));
/// let k = &cost.kernels[0];
/// assert_eq!((k.name.as_str(), k.pieces * k.piece_size), ("fermat_k0", 4096));
/// assert_eq!((k.bytes_read, k.bytes_written), (8 * 4096, 8 * 4096)); // every element, once
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelCost {
    /// The kernel's name.
    pub name: String,
    /// Independent pieces.
    pub pieces: u64,
    /// Elements per piece.
    pub piece_size: u64,
    /// Bytes of data read from global memory.
    pub bytes_read: u64,
    /// Bytes of data written to global memory.
    pub bytes_written: u64,
    /// Full field multiplications.
    pub full_muls: u64,
    /// Multiplications by powers of r (digit shifts).
    pub shift_muls: u64,
    /// Additions and subtractions.
    pub additions: u64,
    /// Twiddle factors read from a table.
    pub twiddle_loads: u64,
}

/// The cost of a plan.
///
/// ```
/// use fermat_codegen::cost::{Cost, FieldShape};
/// use fermat_codegen::plan::{Plan, PlanOptions};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::field::AnyField;
/// use fermat_dsl::formula::Formula;
///
/// // A radix-2 FFT of 1024 points: 10 stages of 512 butterflies, in one pass.
/// let f = derive(&Formula::dft(1024)?, Strategy::Ct, &Options::radix(2))?.final_formula();
/// let plan = Plan::lower(&f, PlanOptions::default())?;
/// let cost = Cost::of(&plan, FieldShape::of(&AnyField::from_spec("babybear")?));
/// assert_eq!(cost.total(|k| k.additions), 2 * 512 * 10); // a sum and a difference each
/// assert_eq!((cost.passes(), cost.bytes()), (1, 2 * 4 * 1024));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cost {
    /// The field.
    pub field: FieldShape,
    /// The transform size.
    pub n: u64,
    /// Per kernel.
    pub kernels: Vec<KernelCost>,
}

impl Cost {
    /// Counts the operations of `plan` over a field of shape `field`.
    ///
    /// ```
    /// use fermat_codegen::cost::{Cost, FieldShape};
    /// use fermat_codegen::plan::{Plan, PlanOptions};
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::field::AnyField;
    /// use fermat_dsl::formula::Formula;
    ///
    /// // DFT(16²) over P3, whose r has order 16: every rotation inside a DFT(16) is a
    /// // shift, and only the 15 · 15 twiddles of D(16, 16) other than 1 are products.
    /// let f = derive(&Formula::dft(256)?, Strategy::Ct, &Options::radix(16))?.final_formula();
    /// let plan = Plan::lower(&f, PlanOptions::default())?;
    /// let cost = Cost::of(&plan, FieldShape::of(&AnyField::from_spec("P3")?));
    /// assert_eq!(cost.total(|k| k.full_muls), 15 * 15);
    /// assert!(cost.total(|k| k.shift_muls) > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(plan: &Plan, field: FieldShape) -> Cost {
        let kernels = plan
            .kernels
            .iter()
            .map(|k| kernel_cost(k, &field, plan.n()))
            .collect();
        Cost {
            field,
            n: plan.n(),
            kernels,
        }
    }

    /// Passes over global memory (one read and one write of the data each; [`Cost`] has
    /// an example).
    pub fn passes(&self) -> usize {
        self.kernels.len()
    }

    /// Total bytes read and written ([`Cost`] has an example).
    pub fn bytes(&self) -> u64 {
        self.kernels
            .iter()
            .map(|k| k.bytes_read + k.bytes_written)
            .sum()
    }

    /// Sum of a per-kernel count ([`Cost`] has an example).
    pub fn total(&self, count: impl Fn(&KernelCost) -> u64) -> u64 {
        self.kernels.iter().map(count).sum()
    }

    /// The time to move [`Cost::bytes`] at `gb_per_s` (10^9 bytes per second), in seconds:
    /// the plan's bandwidth floor.
    ///
    /// ```
    /// use fermat_codegen::cost::{Cost, FieldShape};
    /// use fermat_codegen::plan::{Plan, PlanOptions};
    /// use fermat_dsl::derive::{derive, Options, Strategy};
    /// use fermat_dsl::field::AnyField;
    /// use fermat_dsl::formula::Formula;
    ///
    /// let f = derive(&Formula::dft(1 << 12)?, Strategy::Ct, &Options::radix(16))?.final_formula();
    /// let plan = Plan::lower(&f, PlanOptions { max_local_bits: 8, ..PlanOptions::default() })?;
    /// let cost = Cost::of(&plan, FieldShape::of(&AnyField::from_spec("goldilocks")?));
    /// // Two passes, each reading and writing 4096 elements of 8 bytes, at 1 GB/s.
    /// assert_eq!(cost.floor_seconds(1.0), (2 * 2 * 8 * 4096) as f64 / 1e9);
    /// assert_eq!(cost.ideal_seconds(1.0), cost.floor_seconds(1.0) / 2.0); // one pass
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn floor_seconds(&self, gb_per_s: f64) -> f64 {
        self.bytes() as f64 / (gb_per_s * 1e9)
    }

    /// The floor of one read and one write of the data, whatever the plan: the ideal
    /// ([`Cost::floor_seconds`] has an example).
    pub fn ideal_seconds(&self, gb_per_s: f64) -> f64 {
        (2 * self.n * self.field.element_bytes) as f64 / (gb_per_s * 1e9)
    }
}

fn kernel_cost(kernel: &KernelPlan, field: &FieldShape, n: u64) -> KernelCost {
    let pieces = kernel.pieces();
    let piece_size = 1u64 << kernel.local_bits();
    let mut per_piece = KernelCost::default();
    for step in &kernel.steps {
        match step {
            Step::Dft { locals } => {
                let codelet = Codelet::radix2(locals.len() as u32);
                let groups = piece_size >> locals.len();
                for op in &codelet.ops {
                    match op {
                        Op::Butterfly { .. } => per_piece.additions += 2 * groups,
                        Op::Rotate { log_order, .. } if field.is_shift(*log_order) => {
                            per_piece.shift_muls += groups
                        }
                        Op::Rotate { .. } => per_piece.full_muls += groups,
                    }
                }
            }
            Step::Twiddle { log_order, x, y } => {
                let local_only = |f: &crate::plan::BitField| {
                    f.bits.iter().all(|b| matches!(b, BitSource::Local(_)))
                };
                for j in 0..piece_size {
                    // Rotations by a compile-time zero exponent are skipped by every backend.
                    if local_only(x) && x.eval(j, 0) == 0 || local_only(y) && y.eval(j, 0) == 0 {
                        continue;
                    }
                    if field.is_shift(*log_order) {
                        per_piece.shift_muls += 1;
                    } else {
                        per_piece.full_muls += 1;
                        per_piece.twiddle_loads += 1;
                    }
                }
            }
            Step::Scale => per_piece.full_muls += piece_size,
        }
    }
    let data = n * field.element_bytes;
    KernelCost {
        name: kernel.name.clone(),
        pieces,
        piece_size,
        bytes_read: data,
        bytes_written: data,
        full_muls: per_piece.full_muls * pieces,
        shift_muls: per_piece.shift_muls * pieces,
        additions: per_piece.additions * pieces,
        twiddle_loads: per_piece.twiddle_loads * pieces,
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<12} {:>10} {:>7} {:>14} {:>14} {:>14} {:>14}",
            "kernel", "pieces", "piece", "bytes r+w", "full muls", "shifts", "add/sub"
        )?;
        for k in &self.kernels {
            writeln!(
                f,
                "{:<12} {:>10} {:>7} {:>14} {:>14} {:>14} {:>14}",
                k.name,
                k.pieces,
                k.piece_size,
                k.bytes_read + k.bytes_written,
                k.full_muls,
                k.shift_muls,
                k.additions
            )?;
        }
        let n = self.n as f64;
        writeln!(
            f,
            "total: {} kernels, {} passes over global memory, {} bytes moved",
            self.kernels.len(),
            self.passes(),
            self.bytes()
        )?;
        writeln!(
            f,
            "per element: {:.2} full multiplications, {:.2} shifts, {:.2} additions",
            self.total(|k| k.full_muls) as f64 / n,
            self.total(|k| k.shift_muls) as f64 / n,
            self.total(|k| k.additions) as f64 / n
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tests::cooley_tukey;
    use crate::plan::PlanOptions;

    fn shape(element_bytes: u64, shift_order: Option<u64>) -> FieldShape {
        FieldShape {
            name: "test".into(),
            element_bytes,
            shift_order,
        }
    }

    #[test]
    fn radix2_counts_match_the_textbook() {
        // A radix-2 FFT of n points: (n/2)·log2 n butterflies, each one add and one sub.
        let plan = Plan::lower(&cooley_tukey(1 << 10, 2), PlanOptions::default()).unwrap();
        let cost = Cost::of(&plan, shape(4, None));
        assert_eq!(cost.total(|k| k.additions), 2 * 512 * 10);
        assert_eq!(cost.passes(), 1);
        assert_eq!(cost.bytes(), 2 * 4 * 1024);
    }

    #[test]
    fn srgfn_base_cases_cost_only_shifts() {
        // DFT(16^2) for P3 (2k = 16): only the twiddle between the two rounds is a full
        // multiplication; every rotation inside DFT(16) is a power of r.
        let plan = Plan::lower(&cooley_tukey(256, 16), PlanOptions::default()).unwrap();
        let cost = Cost::of(&plan, shape(64, Some(16)));
        // D(16, 16): 15·15 elements have a nonzero exponent.
        assert_eq!(cost.total(|k| k.full_muls), 15 * 15);
        let word = Cost::of(&plan, shape(8, None));
        assert!(word.total(|k| k.full_muls) > cost.total(|k| k.full_muls));
        assert_eq!(
            cost.total(|k| k.shift_muls),
            word.total(|k| k.full_muls) - 225
        );
    }

    #[test]
    fn floor_is_bytes_over_bandwidth() {
        let plan = Plan::lower(
            &cooley_tukey(1 << 12, 16),
            PlanOptions {
                max_local_bits: 8,
                ..PlanOptions::default()
            },
        )
        .unwrap();
        let cost = Cost::of(&plan, shape(8, None));
        assert_eq!(cost.passes(), 2);
        let floor = cost.floor_seconds(1.0);
        assert!((floor - 4.0 * 8.0 * 4096.0 / 1e9).abs() < 1e-15);
        assert!((cost.ideal_seconds(1.0) * 2.0 - floor).abs() < 1e-15);
    }
}
