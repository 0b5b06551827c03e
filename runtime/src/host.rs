//! How each field's elements look to a user and to the device.
//!
//! Users hold canonical integers (`u32`/`u64`) for word primes and digit arrays
//! (`[u64; k]`, least significant digit first, the representation of the 2017 paper §3.1)
//! for SRGFNs. On the device a vector of n elements is n words for word primes and k rows
//! of n words (digit-major) for SRGFNs, so that a warp reads consecutive words.

use fermat_dsl::field::{Field, FieldError, FieldSpec, Fp32, Fp64, Srgfn};
use std::fmt::Debug;

/// A field whose transforms the runtime can run: host and device representations.
///
/// ```
/// use fermat::{AnyField, Field, FieldSpec, HostField};
///
/// let AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
/// let two: [u64; 8] = p3.to_host(&p3.from_u64(2)); // 8 digits in base r
/// assert_eq!(two, [2, 0, 0, 0, 0, 0, 0, 0]);
/// assert_eq!(p3.to_elem(&two)?, p3.from_u64(2));
/// assert!(p3.to_elem(&[u64::MAX; 8]).is_err()); // digits beyond r
/// assert_eq!(p3.words(), 8);
/// # Ok::<(), fermat::Error>(())
/// ```
pub trait HostField: Field {
    /// The element type of the host API.
    type Host: Copy + Debug + PartialEq + Send + Sync + 'static;
    /// One word of device memory.
    type Word: cudarc::driver::DeviceRepr
        + cudarc::driver::ValidAsZeroBits
        + cudarc::nccl::NcclType
        + Copy
        + Default
        + Into<u64>
        + Debug
        + PartialEq
        + Send
        + Sync
        + 'static;

    /// Device words per element.
    fn words(&self) -> usize;
    /// The field's specification (what `FieldSpec::parse` reads back to this field).
    fn spec(&self) -> FieldSpec;
    /// The host form of an element.
    fn to_host(&self, e: &Self::Elem) -> Self::Host;
    /// The element of a host value; an error if it is not canonical.
    fn to_elem(&self, h: &Self::Host) -> Result<Self::Elem, FieldError>;
    /// A device word from a table word (tables are generated as `u64`).
    fn word(w: u64) -> Self::Word;
    /// Appends transforms of `n` elements to `out` in the device layout.
    fn pack(&self, xs: &[Self::Host], n: usize, out: &mut Vec<Self::Word>);
    /// Reads transforms of `n` elements back from the device layout.
    fn unpack(&self, words: &[Self::Word], n: usize, out: &mut [Self::Host]);
}

macro_rules! word_field {
    ($field:ty, $w:ty) => {
        impl HostField for $field {
            type Host = $w;
            type Word = $w;
            fn words(&self) -> usize {
                1
            }
            fn spec(&self) -> FieldSpec {
                FieldSpec::parse(&self.p().to_string()).expect("a decimal prime parses")
            }
            fn to_host(&self, e: &Self::Elem) -> $w {
                self.value(*e)
            }
            fn to_elem(&self, h: &$w) -> Result<Self::Elem, FieldError> {
                self.elem(*h)
            }
            fn word(w: u64) -> $w {
                w as $w
            }
            fn pack(&self, xs: &[$w], _n: usize, out: &mut Vec<$w>) {
                out.extend_from_slice(xs);
            }
            fn unpack(&self, words: &[$w], _n: usize, out: &mut [$w]) {
                out.copy_from_slice(words);
            }
        }
    };
}

word_field!(Fp32, u32);
word_field!(Fp64, u64);

impl<const K: usize> HostField for Srgfn<K> {
    type Host = [u64; K];
    type Word = u64;
    fn words(&self) -> usize {
        K
    }
    fn spec(&self) -> FieldSpec {
        FieldSpec::parse(&self.params().to_string()).expect("SRGFN parameters parse")
    }
    fn to_host(&self, e: &Self::Elem) -> [u64; K] {
        *e.digits()
    }
    fn to_elem(&self, h: &[u64; K]) -> Result<Self::Elem, FieldError> {
        self.from_digits(h)
    }
    fn word(w: u64) -> u64 {
        w
    }
    fn pack(&self, xs: &[[u64; K]], n: usize, out: &mut Vec<u64>) {
        for transform in xs.chunks(n) {
            for c in 0..K {
                out.extend(transform.iter().map(|x| x[c]));
            }
        }
    }
    fn unpack(&self, words: &[u64], n: usize, out: &mut [[u64; K]]) {
        for (block, transform) in words.chunks(n * K).zip(out.chunks_mut(n)) {
            for (i, x) in transform.iter_mut().enumerate() {
                for (c, digit) in x.iter_mut().enumerate() {
                    *digit = block[c * n + i];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgfn_layout_is_digit_major_per_transform() {
        let p3 = fermat_dsl::FieldSpec::parse("P3").unwrap().build().unwrap();
        let fermat_dsl::AnyField::Srgfn8(f) = p3 else {
            panic!("P3 has k = 8")
        };
        let xs: Vec<[u64; 8]> = (0..8u64).map(|i| [i, 10 + i, 0, 0, 0, 0, 0, 1]).collect();
        let mut words = Vec::new();
        f.pack(&xs, 4, &mut words);
        assert_eq!(&words[..8], &[0, 1, 2, 3, 10, 11, 12, 13]);
        assert_eq!(&words[32..36], &[4, 5, 6, 7]);
        let mut back = vec![[0u64; 8]; 8];
        f.unpack(&words, 4, &mut back);
        assert_eq!(back, xs);
    }

    #[test]
    fn word_values_are_checked() {
        let f = Fp32::new(2013265921).unwrap();
        assert!(f.to_elem(&2013265920).is_ok());
        assert!(matches!(
            f.to_elem(&2013265921),
            Err(FieldError::OutOfRange { .. })
        ));
    }
}
