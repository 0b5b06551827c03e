//! Constant tables of field words at file scope.

use super::check_identifier;
use crate::error::CodegenError;

/// A table of constant field words at file scope: twiddles in the field's table form (see
/// [`fe::mul_mont`](super::fe::mul_mont)).
///
/// The values are raw memory words in the field's layout (digit-major for SRGFNs, as
/// `fe_load(table, j, m)` reads them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Table {
    /// The table's name.
    pub name: String,
    /// Where it lives.
    pub space: Space,
    /// The words.
    pub words: Vec<u64>,
}

/// The memory a [`Table`] lives in.
///
/// ```
/// use fermat_codegen::cuda::{Space, Table};
/// assert_eq!(Table::new("tw", vec![1]).space, Space::Constant);
/// let t = Table::device("tw", vec![1]);
/// assert_eq!(t.space, Space::Device);
/// assert!(t.to_string().starts_with("__device__ const fe_word_t tw[1] = {"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `__constant__`: broadcast to a warp whose threads read one word, serialised when
    /// they read several.
    Constant,
    /// `__device__` global memory, read through L1: a warp's reads of neighbouring words
    /// take one wavefront.
    Device,
}

impl Table {
    /// A `__constant__` table of field words.
    ///
    /// Printed (`Display`) four words a line; an empty table keeps one unused word, as C++ has
    /// no arrays of length zero.
    ///
    /// ```
    /// use fermat_codegen::cuda::Table;
    /// let t = Table::new("tw", vec![1, 2, 3, 4, 5]);
    /// assert_eq!(t.to_string(), "__constant__ const fe_word_t tw[5] = {\n    \
    ///     1ull, 2ull, 3ull, 4ull,\n    5ull,\n};\n");
    /// assert!(Table::new("e", vec![]).to_string().contains(" e[1] = {\n    0ull,\n"));
    /// ```
    pub fn new(name: impl Into<String>, words: Vec<u64>) -> Table {
        Table {
            name: name.into(),
            space: Space::Constant,
            words,
        }
    }

    /// A `__device__` table of field words, for reads that differ across a warp.
    ///
    /// ```
    /// use fermat_codegen::cuda::Table;
    /// let t = Table::device("roots", vec![7, 9]);
    /// assert_eq!(t.to_string(), "__device__ const fe_word_t roots[2] = {\n    7ull, 9ull,\n};\n");
    /// ```
    pub fn device(name: impl Into<String>, words: Vec<u64>) -> Table {
        Table {
            name: name.into(),
            space: Space::Device,
            words,
        }
    }

    /// Checks the name, and that every word fits `word_bits` bits.
    ///
    /// ```
    /// use fermat_codegen::{cuda::Table, CodegenError};
    /// let t = Table::new("tw", vec![1, 1 << 32]);
    /// assert!(t.check(64).is_ok());
    /// let err = t.check(32).unwrap_err();
    /// let (table, index, value, bits) = ("tw".to_string(), 1, 1 << 32, 32);
    /// assert_eq!(err, CodegenError::TableValue { table, index, value, bits });
    /// assert!(Table::new("2tw", vec![]).check(64).is_err());
    /// ```
    pub fn check(&self, word_bits: u32) -> Result<(), CodegenError> {
        check_identifier("table", &self.name)?;
        for (index, &value) in self.words.iter().enumerate() {
            if word_bits < 64 && value >> word_bits != 0 {
                return Err(CodegenError::TableValue {
                    table: self.name.clone(),
                    index,
                    value,
                    bits: word_bits,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_check_their_words() {
        let t = Table::new("tw", vec![1, 2, 3, 4, 5]);
        assert!(t.check(32).is_ok());
        assert_eq!(
            t.to_string(),
            "__constant__ const fe_word_t tw[5] = {\n    1ull, 2ull, 3ull, 4ull,\n    5ull,\n};\n"
        );
        let t = Table::new("tw", vec![1, 1 << 32]);
        assert_eq!(
            t.check(32).unwrap_err(),
            CodegenError::TableValue {
                table: "tw".into(),
                index: 1,
                value: 1 << 32,
                bits: 32
            }
        );
        assert!(t.check(64).is_ok());
        assert!(Table::new("tw", vec![]).to_string().contains("tw[1]"));
    }
}
