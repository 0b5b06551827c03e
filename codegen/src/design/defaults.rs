//! The defaults a design takes: the radix, the codelets, the pieces and the runs of
//! consecutive elements, by field and size.

use super::DesignError;
use crate::cost::FieldShape;
use crate::kernel::EmitOptions;
#[cfg(doc)]
use crate::plan::PlanOptions;
use fermat_dsl::field::AnyField;

/// The default radix: 2k for an SRGFN (the base case DFT(2k) is taken at r, all shifts),
/// 16 for word primes.
///
/// ```
/// use fermat_codegen::design::default_radix;
/// use fermat_dsl::field::AnyField;
///
/// assert_eq!(default_radix(&AnyField::from_spec("P3")?), 16);
/// assert_eq!(default_radix(&AnyField::from_spec("babybear")?), 16);
/// assert_eq!(default_radix(&AnyField::from_spec("P6")?), 128);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn default_radix(field: &AnyField) -> u64 {
    field.srgfn_params().map_or(16, |p| 2 * p.k)
}

/// The size of a thread's codelet for SRGFNs: 4 elements up to k = 8, 2 beyond (an
/// element takes k 64-bit registers); word primes keep the whole base case.
///
/// ```
/// use fermat_codegen::design::leaf_radix;
/// use fermat_dsl::field::AnyField;
///
/// assert_eq!(leaf_radix(&AnyField::from_spec("P3")?), Some(4));
/// assert_eq!(leaf_radix(&AnyField::from_spec("P4")?), Some(2));
/// assert_eq!(leaf_radix(&AnyField::from_spec("goldilocks")?), None);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn leaf_radix(field: &AnyField) -> Option<u64> {
    field.srgfn_params().map(|p| if p.k <= 8 { 4 } else { 2 })
}

/// The largest piece that fits 48 KiB of shared memory, at most 2^12, together with
/// enough neighbouring pieces that a block's tile spans whole 32-byte memory sectors in
/// every pass (8 pieces of 4-byte elements, 4 of 8-byte ones): a pass whose warps read
/// 8 bytes per sector moves four times the bytes it uses, and measured slower than one
/// more pass that reads whole sectors (bench/RESULTS.md).
///
/// A transform of n ≤ 2^12 points whose elements fit that shared memory whole runs in one
/// pass (its tile is contiguous, so whole sectors come for free): then the piece is all
/// of it.
///
/// SRGFN transforms of more than one pass take pieces of at most [`SRGFN_PIECE_BYTES`]
/// (a block then holds several small pieces instead of one large one).
///
/// ```
/// use fermat_codegen::design::default_local_bits;
/// use fermat_dsl::field::AnyField;
///
/// let babybear = AnyField::from_spec("babybear")?;
/// assert_eq!(default_local_bits(&babybear, 1 << 12), 12); // one pass, the piece all of it
/// assert_eq!(default_local_bits(&babybear, 1 << 20), 10); // 8 pieces span whole sectors
/// let p3 = AnyField::from_spec("P3")?; // 64-byte elements
/// assert!(default_local_bits(&p3, 1 << 20) < 12);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn default_local_bits(field: &AnyField, n: u64) -> u32 {
    let bytes = FieldShape::of(field).element_bytes;
    let fit = (48 * 1024 / bytes).ilog2().min(12);
    let log_n = n.max(1).ilog2();
    if log_n <= fit {
        return fit;
    }
    let sector_pieces = (32 / bytes).max(1).ilog2();
    let bits = fit.min((48 * 1024 / bytes).ilog2() - sector_pieces);
    if field.srgfn_params().is_some() {
        bits.min((SRGFN_PIECE_BYTES / bytes).max(2).ilog2())
    } else {
        bits
    }
}

/// log2 of the largest piece of consecutive elements a kernel may keep on chip
/// ([`PlanOptions::max_contiguous_bits`]): for an SRGFN, the most elements a tile holds in
/// the shared memory kernels take by default ([`EmitOptions::shared_limit`], 48 KiB); for a
/// word prime, the elements of [`WORD_CONTIGUOUS_BYTES`]. Where DFT stages touch only low
/// index bits on both sides, they then join one kernel where that saves a pass: P3 2^20
/// with bit-reversed output in three passes (6 + 6 + 8 bits) instead of four
/// (6 + 6 + 6 + 2), with the same tiles of 512 elements; a product's transforms of 2^20
/// words in two (8 + 12 bits forward, 12 + 8 inverse) instead of three (8 + 8 + 4).
///
/// ```
/// use fermat_codegen::design::default_contiguous_bits;
/// use fermat_dsl::field::AnyField;
///
/// let field = |spec| AnyField::from_spec(spec);
/// assert_eq!(default_contiguous_bits(&field("babybear")?, 10), 12); // 16 KiB of 4 bytes
/// assert_eq!(default_contiguous_bits(&field("goldilocks")?, 10), 11); // 16 KiB of 8 bytes
/// assert_eq!(default_contiguous_bits(&field("P3")?, 6), 9); // 48 KiB of 64 bytes: 768
/// assert_eq!(default_contiguous_bits(&field("babybear")?, 13), 13); // never below the pieces
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn default_contiguous_bits(field: &AnyField, max_local_bits: u32) -> u32 {
    let bytes = match field.srgfn_params() {
        Some(_) => EmitOptions::default().shared_limit,
        None => WORD_CONTIGUOUS_BYTES,
    };
    (bytes / FieldShape::of(field).element_bytes)
        .ilog2()
        .max(max_local_bits)
}

/// The largest piece of consecutive elements of a word prime's transform, in bytes. On
/// an H200, runs of 2^12 babybear elements took three transforms of 2^20 from 0.051
/// to 0.045 ms and the power-series inverse mod x^(2^20) from 0.49 to 0.45 ms; runs
/// of 2^13 (32 KiB), which make a 2^21-point product's transforms two passes each,
/// took that product from 0.085 to 0.090 ms (bench/RESULTS.md, "Transforms of 2^19 to
/// 2^22 points").
///
/// ```
/// use fermat_codegen::design::{default_contiguous_bits, WORD_CONTIGUOUS_BYTES};
/// use fermat_dsl::field::AnyField;
///
/// // Runs of 2^12 babybear elements (4 bytes) and of 2^11 goldilocks ones (8 bytes).
/// let bits = |spec| AnyField::from_spec(spec).map(|f| default_contiguous_bits(&f, 8));
/// assert_eq!(4 << bits("babybear")?, WORD_CONTIGUOUS_BYTES);
/// assert_eq!(8 << bits("goldilocks")?, WORD_CONTIGUOUS_BYTES);
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub const WORD_CONTIGUOUS_BYTES: u64 = 16 * 1024;

/// The largest piece of an SRGFN transform of several passes, in bytes. On an H200,
/// pieces of 4 KiB against the 16–32 KiB before took P2 2^24 from 4.56 to 3.84 ms, P3 2^20
/// from 0.53 to 0.43 ms, P3 16^4 from 0.048 to 0.046 ms and P4 2^20 from 1.52 to 1.14 ms;
/// half as large was no faster for P2 and P3 and slower for P4 (bench/RESULTS.md, tuning
/// round 5). The extra pass costs memory traffic, which these arithmetic-bound transforms
/// have to spare.
///
/// ```
/// use fermat_codegen::design::{default_local_bits, SRGFN_PIECE_BYTES};
/// use fermat_dsl::field::AnyField;
///
/// // P3 2^20 in several passes: pieces of 2^6 elements of 64 bytes.
/// let p3 = AnyField::from_spec("P3")?;
/// assert_eq!(64 << default_local_bits(&p3, 1 << 20), SRGFN_PIECE_BYTES);
/// assert_eq!(default_local_bits(&p3, 1 << 9), 9); // one pass: the piece is all of it
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub const SRGFN_PIECE_BYTES: u64 = 4096;

/// Checks a radix for `field`: a power of two ≥ 2, and for an SRGFN at most 2k (so that
/// the base case DFT(K) is taken at a power of r and needs shifts only).
///
/// ```
/// use fermat_codegen::design::check_radix;
/// use fermat_dsl::field::AnyField;
///
/// let p3 = AnyField::from_spec("P3")?;
/// assert!(check_radix(&p3, 16).is_ok());
/// assert!(check_radix(&p3, 32).is_err()); // beyond 2k = 16
/// assert!(check_radix(&AnyField::from_spec("babybear")?, 6).is_err());
/// # Ok::<(), fermat_dsl::field::FieldError>(())
/// ```
pub fn check_radix(field: &AnyField, radix: u64) -> Result<(), DesignError> {
    if radix < 2 || !radix.is_power_of_two() {
        return Err(DesignError::RadixNotPowerOfTwo { radix });
    }
    if let Some(p) = field.srgfn_params() {
        if radix > 2 * p.k {
            return Err(DesignError::RadixTooLarge {
                radix,
                field: field.name(),
                max: 2 * p.k,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::field;

    #[test]
    fn defaults_follow_the_field() {
        let p3 = field("P3");
        assert_eq!(default_radix(&p3), 16);
        assert_eq!(leaf_radix(&p3), Some(4));
        // Pieces of 4 KiB: 2^6 elements of 64 bytes (P3), 2^7 of 32 (P2), 2^5 of 128 (P4).
        assert_eq!(default_local_bits(&p3, 1 << 20), 6);
        assert_eq!(default_local_bits(&p3, 1 << 16), 6);
        assert_eq!(default_local_bits(&field("P2"), 1 << 24), 7);
        assert_eq!(default_local_bits(&field("P4"), 1 << 20), 5);
        // An SRGFN transform that fits shared memory whole stays one launch.
        assert_eq!(default_local_bits(&p3, 1 << 9), 9);
        assert_eq!(default_local_bits(&field("P2"), 1 << 10), 10);
        let bb = field("babybear");
        assert_eq!(default_radix(&bb), 16);
        assert_eq!(leaf_radix(&bb), None);
        // 2^10 elements and 8 pieces per tile: 32 KiB, whole sectors.
        assert_eq!(default_local_bits(&bb, 1 << 24), 10);
        assert_eq!(default_local_bits(&field("goldilocks"), 1 << 13), 10);
        // Small transforms stay one pass.
        assert_eq!(default_local_bits(&bb, 1 << 12), 12);
        assert_eq!(default_local_bits(&field("goldilocks"), 1 << 12), 12);
        // Runs of consecutive elements: 16 KiB for word primes, 48 KiB for SRGFNs.
        assert_eq!(default_contiguous_bits(&bb, 10), 12);
        assert_eq!(default_contiguous_bits(&field("goldilocks"), 10), 11);
        assert_eq!(default_contiguous_bits(&p3, 6), 9);
    }
}
