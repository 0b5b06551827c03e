//! Formula → stages: the Σ-form of a formula whose sizes are powers of two.
//!
//! Every factor of a (fully derived) formula is one of three kinds of stage acting on the
//! bits of the index of a vector of 2^t points:
//!
//! - `I(2^a) ⊗ DFT(2^b) ⊗ I(2^c)`: a DFT on the index bits `[c, c + b)`;
//! - `I(2^a) ⊗ D(m, n) ⊗ I(2^c)`: a diagonal, ω_{mn}^{x·y} with x, y two bit fields;
//! - `I(2^a) ⊗ L(mn, m) ⊗ I(2^c)` and tensor/compose structure around it: a permutation of
//!   index bits, which never moves data — the lowering only relabels where each logical
//!   index lives (see [`crate::plan`]).
//!
//! Tensor products of several non-trivial factors follow the mixed product rule
//! (A ⊗ B = (A ⊗ I)(I ⊗ B), 2017 (15)); compositions are applied right to left.

use crate::plan::PlanError;
use fermat_dsl::formula::Formula;

/// A permutation of the t bits of an index: output bit `q` takes input bit `src[q]`,
/// i.e. `y[o] = x[σ(o)]` where bit `src[q]` of σ(o) is bit `q` of o.
///
/// ```
/// use fermat_codegen::sigma::{stages, Stage};
/// use fermat_dsl::formula::Formula;
///
/// // The stride permutation L(8, 2): y[4j + i] = x[2i + j], a rotation of the index bits.
/// let (_, st) = stages(&Formula::stride(8, 2)?)?;
/// let Stage::Perm(perm) = &st[0] else { panic!("a permutation") };
/// assert_eq!(perm.src, [1, 2, 0]);
/// let reads: Vec<u64> = (0..8).map(|o| perm.source_index(o)).collect();
/// assert_eq!(reads, [0, 2, 4, 6, 1, 3, 5, 7]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitPerm {
    /// `src[q]`: the input bit that output bit q reads.
    pub src: Vec<u32>,
}

impl BitPerm {
    /// The identity on t bits.
    ///
    /// ```
    /// use fermat_codegen::sigma::BitPerm;
    ///
    /// let id = BitPerm::identity(3);
    /// assert!(id.is_identity() && (0..8).all(|o| id.source_index(o) == o));
    /// assert!(!BitPerm { src: vec![1, 0, 2] }.is_identity());
    /// ```
    pub fn identity(t: u32) -> Self {
        BitPerm {
            src: (0..t).collect(),
        }
    }

    /// Whether the permutation moves nothing ([`BitPerm::identity`] has an example).
    pub fn is_identity(&self) -> bool {
        self.src.iter().enumerate().all(|(q, &s)| q as u32 == s)
    }

    /// σ(o): the input index that output index `o` reads.
    ///
    /// ```
    /// use fermat_codegen::sigma::BitPerm;
    ///
    /// // Output bits 0 and 1 read input bits 1 and 0: the two low bits swap.
    /// let swap = BitPerm { src: vec![1, 0, 2] };
    /// assert_eq!([1, 2, 3, 5, 6].map(|o| swap.source_index(o)), [2, 1, 3, 6, 5]);
    /// ```
    pub fn source_index(&self, o: u64) -> u64 {
        self.src
            .iter()
            .enumerate()
            .fold(0, |acc, (q, &s)| acc | (((o >> q) & 1) << s))
    }
}

/// One step of a formula in the logical index frame.
///
/// ```
/// use fermat_codegen::sigma::{stages, Stage};
/// use fermat_dsl::formula::Formula;
///
/// // D(4, 4) ⊗ I(2): a twiddle on index bits 1..5, x from bits 3..5 and y from bits 1..3.
/// let f = Formula::tensor(vec![Formula::twiddle(4, 4)?, Formula::identity(2)?])?;
/// assert_eq!(stages(&f)?, (5, vec![Stage::Twiddle { lo: 1, m_bits: 2, n_bits: 2 }]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `DFT(2^bits)` on the index bits `[lo, lo + bits)` (all other bits are independent).
    Dft {
        /// The lowest bit of the DFT's index.
        lo: u32,
        /// log2 of the DFT size.
        bits: u32,
    },
    /// `D(2^m_bits, 2^n_bits)` on bits `[lo, lo + m_bits + n_bits)`: element with
    /// x = bits `[lo + n_bits, lo + n_bits + m_bits)` and y = bits `[lo, lo + n_bits)` is
    /// multiplied by ω_{2^(m_bits + n_bits)}^(x·y).
    Twiddle {
        /// The lowest bit.
        lo: u32,
        /// log2 m.
        m_bits: u32,
        /// log2 n.
        n_bits: u32,
    },
    /// A permutation of the index bits (`y[o] = x[σ(o)]`).
    Perm(BitPerm),
}

/// The stages of `formula` in application order (the rightmost factor first), with
/// log2 of its size.
///
/// ```
/// use fermat_codegen::plan::PlanError;
/// use fermat_codegen::sigma::{stages, Stage};
/// use fermat_dsl::derive::{derive, Options, Strategy};
/// use fermat_dsl::formula::Formula;
///
/// // DFT(16) = (DFT(4) ⊗ I(4)) · D(4, 4) · (I(4) ⊗ DFT(4)) · L(16, 4), right to left.
/// let f = derive(&Formula::dft(16)?, Strategy::Ct, &Options::radix(4))?.final_formula();
/// let (t, st) = stages(&f)?;
/// assert_eq!(t, 4);
/// assert!(matches!(st[0], Stage::Perm(_)));
/// assert_eq!(st[1..], [
///     Stage::Dft { lo: 0, bits: 2 },
///     Stage::Twiddle { lo: 0, m_bits: 2, n_bits: 2 },
///     Stage::Dft { lo: 2, bits: 2 },
/// ]);
/// assert!(matches!(stages(&Formula::dft(12)?), Err(PlanError::NotPowerOfTwo { size: 12, .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stages(formula: &Formula) -> Result<(u32, Vec<Stage>), PlanError> {
    let size = formula.checked_size()?;
    let t = log2(size, formula)?;
    let mut out = Vec::new();
    walk(formula, 0, t, &mut out)?;
    Ok((t, out))
}

fn log2(n: u64, context: &Formula) -> Result<u32, PlanError> {
    if n.is_power_of_two() {
        Ok(n.trailing_zeros())
    } else {
        Err(PlanError::NotPowerOfTwo {
            size: n,
            formula: context.to_string(),
        })
    }
}

fn walk(f: &Formula, lo: u32, t: u32, out: &mut Vec<Stage>) -> Result<(), PlanError> {
    match f {
        Formula::Identity(n) => {
            log2(*n, f)?;
        }
        Formula::Dft(n) => {
            let bits = log2(*n, f)?;
            if bits > 0 {
                out.push(Stage::Dft { lo, bits });
            }
        }
        Formula::Twiddle { m, n } => {
            let (m_bits, n_bits) = (log2(*m, f)?, log2(*n, f)?);
            if m_bits > 0 && n_bits > 0 {
                out.push(Stage::Twiddle { lo, m_bits, n_bits });
            }
        }
        Formula::Stride { n, m } => {
            let (n_bits, m_bits) = (log2(*n, f)?, log2(*m, f)?);
            let q_bits = n_bits - m_bits;
            if m_bits > 0 && q_bits > 0 {
                // L(mq, m): y[j·q + i] = x[i·m + j]; output bits [0, q_bits) hold i, which
                // sits at input bits [m_bits, n_bits); output bits above hold j.
                let mut perm = BitPerm::identity(t);
                for c in 0..n_bits {
                    perm.src[(lo + c) as usize] = if c < q_bits {
                        lo + m_bits + c
                    } else {
                        lo + c - q_bits
                    };
                }
                out.push(Stage::Perm(perm));
            }
        }
        Formula::Tensor(factors) => {
            // The rightmost factor owns the lowest bits.
            let mut at = lo;
            for factor in factors.iter().rev() {
                walk(factor, at, t, out)?;
                at += log2(factor.checked_size()?, factor)?;
            }
        }
        Formula::Compose(factors) => {
            for factor in factors.iter().rev() {
                walk(factor, lo, t, out)?;
            }
        }
        Formula::DirectSum(_) => {
            return Err(PlanError::Unsupported {
                what: "direct sums".into(),
                formula: f.to_string(),
            })
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Formula {
        use Formula as F;
        // A tiny constructor language keeps these tests independent of the parser.
        match s {
            "L(8,2)" => F::stride(8, 2).unwrap(),
            "DFT(4)" => F::dft(4).unwrap(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn stride_permutation_matches_its_definition() {
        // L(mn, m): y[j·n + i] = x[i·m + j].
        for (n_bits, m_bits) in [(3u32, 1u32), (4, 2), (5, 3), (4, 1)] {
            let (size, m) = (1u64 << n_bits, 1u64 << m_bits);
            let q = size / m;
            let (t, st) = stages(&Formula::stride(size, m).unwrap()).unwrap();
            assert_eq!(t, n_bits);
            let Stage::Perm(p) = &st[0] else {
                panic!("expected a permutation")
            };
            for i in 0..q {
                for j in 0..m {
                    assert_eq!(p.source_index(j * q + i), i * m + j);
                }
            }
        }
    }

    #[test]
    fn tensor_places_factors_right_to_left() {
        let f = Formula::tensor(vec![parse("DFT(4)"), Formula::identity(8).unwrap()]).unwrap();
        let (t, st) = stages(&f).unwrap();
        assert_eq!(t, 5);
        assert_eq!(st, vec![Stage::Dft { lo: 3, bits: 2 }]);
        let f = Formula::tensor(vec![Formula::identity(2).unwrap(), parse("L(8,2)")]).unwrap();
        let (_, st) = stages(&f).unwrap();
        let Stage::Perm(p) = &st[0] else {
            panic!("expected a permutation")
        };
        assert_eq!(p.src[3], 3, "the I(2) bit is untouched");
    }

    #[test]
    fn refuses_sizes_that_are_not_powers_of_two_and_direct_sums() {
        let err = stages(&Formula::dft(12).unwrap()).unwrap_err();
        assert!(err.to_string().contains("12"), "{err}");
        let f = Formula::direct_sum(vec![parse("DFT(4)"), parse("DFT(4)")]).unwrap();
        assert!(matches!(stages(&f), Err(PlanError::Unsupported { .. })));
    }
}
