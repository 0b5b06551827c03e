//! The twiddle table a plan's kernels read: its layout of rows and its words.

use crate::cost::FieldShape;
use fermat_dsl::field::Field;
use fermat_dsl::field::{geometric, Roots, Shift};
use num_bigint::BigUint;
use rayon::prelude::*;

/// How a twiddle ω^e (ω = ω_{2^L}, e < 2^L) is read from the table.
///
/// A table of all 2^L powers would be as large as the data and read at scattered rows, so
/// a pass with twiddles would move about twice the bytes of one without. Instead e is
/// split as e = e_lo + 2^h·e_hi: rows 0..2^h hold ω^(e_lo), and ω^(2^h·e_hi) comes from a
/// second table of 2^(L−h) rows (word primes: one extra Montgomery product, and both
/// tables stay in the L1 and L2 caches) or, for an SRGFN, is a power of r: with
/// h = L − log2 g, ω^(2^h) = ω_g = r^amount, so ω^(2^h·e_hi) costs a digit shift.
///
/// That shift, after a full product, is a tenth of an SRGFN twist's instructions. Twiddles
/// of a small order 2^o ≤ 2^C (those of every pass but the first) are all powers of
/// ω_{2^C}, so an SRGFN table also holds the 2^C powers of ω_{2^C} whole (the *coarse*
/// rows), as many as fit [`EmitOptions::table_bytes`](super::EmitOptions::table_bytes); they are read without a shift. When
/// all 2^L powers fit, the table is whole (h = L) and no twiddle needs a shift.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{High, TableLayout};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
///
/// // Twiddles of order up to 2^20 over babybear: two tables of 2^10 rows, then 1/n.
/// let f = Fp32::new(2013265921)?;
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let layout = TableLayout::of(&shape, &Roots::canonical(&f, 20, 1 << 20)?, 8 << 20);
/// assert_eq!((layout.log_order, layout.lo_bits, layout.high), (20, 10, High::Table));
/// assert_eq!(layout.rows(), (1 << 10) + (1 << 10) + 1);
/// // Up to 2^12 powers a word-prime table is kept whole.
/// let small = TableLayout::of(&shape, &Roots::canonical(&f, 12, 1 << 12)?, 8 << 20);
/// assert_eq!((small.lo_bits, small.high, small.rows()), (12, High::None, (1 << 12) + 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableLayout {
    /// L: the table serves powers of ω_{2^L}.
    pub log_order: u32,
    /// h: rows 0..2^h hold ω^i.
    pub lo_bits: u32,
    /// How ω^(2^h·e_hi) is applied.
    pub high: High,
    /// C: after the high table, 2^C rows hold the powers of ω_{2^C} (0: no such rows).
    pub coarse_bits: u32,
}

/// The high part of a twiddle exponent (see [`TableLayout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum High {
    /// h = L: the table holds every power.
    None,
    /// Rows 2^h..2^h + 2^(L−h) hold ω^(2^h·j).
    Table,
    /// ω^(2^h·j) = r^(amount·j mod 2k): a shift.
    Shift(Shift),
}

/// Word-prime tables up to 2^SPLIT_BITS rows are kept whole: they fit the caches, and the
/// split would cost a multiplication for nothing.
pub(super) const SPLIT_BITS: u32 = 12;

impl TableLayout {
    /// The layout the kernels of a plan with these roots read, for SRGFN tables whose rows
    /// read without a shift may take `table_bytes` (see [`EmitOptions::table_bytes`](super::EmitOptions::table_bytes)).
    pub fn of<F: Field>(shape: &FieldShape, roots: &Roots<F>, table_bytes: u64) -> TableLayout {
        let l = roots.log_order();
        // The most powers of ω_{2^C} that fit the budget: C = ⌊log2(bytes / row)⌋.
        let fit = (table_bytes / shape.element_bytes.max(1)).max(1).ilog2();
        let (lo_bits, high, coarse_bits) = match (shape.shift_order, roots.shift()) {
            (Some(_), Some(_)) if l <= fit => (l, High::None, 0),
            (Some(_), Some(shift)) if shift.log_g < l => {
                // Coarse rows only pay for orders above g, whose twiddles are shifts.
                let coarse = if fit > shift.log_g { fit } else { 0 };
                (l - shift.log_g, High::Shift(shift), coarse)
            }
            (None, _) if l > SPLIT_BITS => (l.div_ceil(2), High::Table, 0),
            _ => (l, High::None, 0),
        };
        TableLayout {
            log_order: l,
            lo_bits,
            high,
            coarse_bits,
        }
    }

    /// Rows of the high table (0 unless it is [`High::Table`]).
    pub(super) fn high_rows(&self) -> u64 {
        match self.high {
            High::Table => 1 << (self.log_order - self.lo_bits),
            _ => 0,
        }
    }

    /// Rows of the coarse table.
    pub(super) fn coarse_rows(&self) -> u64 {
        if self.coarse_bits == 0 {
            0
        } else {
            1 << self.coarse_bits
        }
    }

    /// The row of ω_{2^C}^0 (the first coarse row).
    pub(super) fn coarse_base(&self) -> u64 {
        (1u64 << self.lo_bits) + self.high_rows()
    }

    /// Whether every twiddle of order 2^log_order has a coarse row.
    pub(super) fn coarse_covers(&self, log_order: u32) -> bool {
        self.coarse_bits > 0 && log_order <= self.coarse_bits
    }

    /// The coarse row that holds ω^e, if there is one (e a multiple of 2^(L−C)).
    pub(super) fn coarse_row(&self, e: u64) -> Option<u64> {
        let stride = self.log_order - self.coarse_bits;
        (self.coarse_bits > 0 && e.trailing_zeros() >= stride)
            .then(|| self.coarse_base() + (e >> stride))
    }

    /// Rows in all: the tables and n^(−1) ([`TableLayout`] has an example).
    pub fn rows(&self) -> u64 {
        self.coarse_base() + self.coarse_rows() + 1
    }

    /// What the rows hold, in words (for manifests).
    ///
    /// ```
    /// use fermat_codegen::cost::FieldShape;
    /// use fermat_codegen::kernel::TableLayout;
    /// use fermat_dsl::field::{AnyField, Fp32, Roots};
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
    /// let layout = TableLayout::of(&shape, &Roots::canonical(&f, 20, 1 << 20)?, 8 << 20);
    /// assert_eq!(
    ///     layout.describe(),
    ///     "rows 0..2^10: root^i; the next 2^10: root^(2^10*j); the last row: n^-1"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self) -> String {
        let h = self.lo_bits;
        let mut parts = vec![format!("rows 0..2^{h}: root^i")];
        if self.high_rows() > 0 {
            parts.push(format!(
                "the next 2^{}: root^(2^{h}*j)",
                self.log_order - self.lo_bits
            ));
        }
        if self.coarse_rows() > 0 {
            parts.push(format!(
                "the next 2^{}: root^(2^{}*m)",
                self.coarse_bits,
                self.log_order - self.coarse_bits
            ));
        }
        if let High::Shift(s) = self.high {
            parts.push(format!(
                "root^(2^{h}) = r^{} (a digit shift, not stored)",
                s.amount
            ));
        }
        parts.push("the last row: n^-1".into());
        parts.join("; ")
    }

    /// The exponents of ω whose powers the rows hold, in order (n^(−1) excluded).
    ///
    /// ```
    /// use fermat_codegen::cost::FieldShape;
    /// use fermat_codegen::kernel::TableLayout;
    /// use fermat_dsl::field::{AnyField, Fp32, Roots};
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
    /// let layout = TableLayout::of(&shape, &Roots::canonical(&f, 14, 1 << 14)?, 8 << 20);
    /// let e: Vec<u64> = layout.exponents().collect();
    /// // ω^i for i < 2^7, then ω^(2^7·j) for j < 2^7: every e < 2^14 is one of each.
    /// assert_eq!(e.len() as u64 + 1, layout.rows());
    /// assert_eq!((e[1], e[127], e[128], e[129], e[255]), (1, 127, 0, 128, 127 << 7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn exponents(&self) -> impl Iterator<Item = u64> + '_ {
        let lo = 0..1u64 << self.lo_bits;
        let hi = (0..self.high_rows()).map(move |j| j << self.lo_bits);
        let stride = self.log_order - self.coarse_bits;
        let coarse = (0..self.coarse_rows()).map(move |m| m << stride);
        lo.chain(hi).chain(coarse)
    }
}

/// The twiddle table of a plan in device words: the rows of `layout` (powers of ω in the
/// field's table form: w·R mod p for word primes, the digits for SRGFNs, row by row), then
/// n^(−1). Inverse plans read it at negated exponents, so one table serves both
/// directions.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::{twiddle_table, TableLayout};
/// use fermat_dsl::field::{AnyField, Fp32, Roots};
///
/// // The powers of ω_4 over babybear, then 1/4, times R = 2^32 modulo p.
/// let (p, f) = (2013265921u64, Fp32::new(2013265921)?);
/// let shape = FieldShape::of(&AnyField::Fp32(f.clone()));
/// let roots = Roots::canonical(&f, 2, 4)?;
/// let table = twiddle_table(&f, &shape, &roots, &TableLayout::of(&shape, &roots, 8 << 20));
/// let r = (1 << 32) % p;
/// assert_eq!(table.len(), 5);
/// assert_eq!((table[0], table[2]), (r, p - r)); // ω^0 = 1, ω^2 = −1
/// assert_eq!(table[4], (1 << 30) % p); // 2^32 / 4
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn twiddle_table<F: Field>(
    field: &F,
    shape: &FieldShape,
    roots: &Roots<F>,
    layout: &TableLayout,
) -> Vec<u64> {
    let omega = roots.power(field, 1);
    let mut values = Vec::with_capacity(layout.rows() as usize);
    // Each part is the powers of one step: ω, ω^(2^h) and ω^(2^(L−C)).
    let mut push_powers =
        |step: &F::Elem, count: u64| values.extend(geometric(field, &field.one(), step, count));
    push_powers(&omega, 1 << layout.lo_bits);
    let pow2 = |bits: u32| (0..bits).fold(omega, |w, _| field.mul(&w, &w));
    push_powers(&pow2(layout.lo_bits), layout.high_rows());
    push_powers(
        &pow2(layout.log_order - layout.coarse_bits),
        layout.coarse_rows(),
    );
    values.push(*roots.n_inv());
    table_form(field, shape, &values)
}

/// Rows of constants in the field's table form, the form `fe_load_row` reads and
/// `fe_mul_mont` multiplies by: w·R mod p for word primes, the base-r digits (row-major)
/// for SRGFNs.
///
/// Tables of split transforms run to millions of rows, so the rows are converted on all
/// cores, and an SRGFN's digits are read from its elements as they are stored.
///
/// ```
/// use fermat_codegen::cost::FieldShape;
/// use fermat_codegen::kernel::table_form;
/// use fermat_dsl::field::{AnyField, Field};
/// use fermat_dsl::with_field;
///
/// let babybear = AnyField::from_spec("babybear")?;
/// let words = with_field!(&babybear, f => {
///     table_form(f, &FieldShape::of(&babybear), &[f.zero(), f.one(), f.from_u64(2)])
/// });
/// let r = (1u64 << 32) % 2013265921;
/// assert_eq!(words, [0, r, 2 * r]); // Montgomery form
/// let p3 = AnyField::from_spec("P3")?; // one is the digits 1, 0, …, 0 of base r
/// let words = with_field!(&p3, f => table_form(f, &FieldShape::of(&p3), &[f.one()]));
/// assert_eq!(words, [1, 0, 0, 0, 0, 0, 0, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_form<F: Field>(field: &F, shape: &FieldShape, values: &[F::Elem]) -> Vec<u64> {
    match shape.shift_order {
        None => values
            .par_iter()
            .map(|v| montgomery(field, shape, v))
            .collect(),
        Some(order) => {
            let k = (order / 2) as usize;
            let mut words = vec![0; values.len() * k];
            words
                .par_chunks_mut(k.max(1))
                .zip(values.par_iter())
                .for_each(|(row, v)| match field.radix_digits(v) {
                    Some(d) => row.copy_from_slice(d),
                    None => row.copy_from_slice(&digits(field, v, k)),
                });
            words
        }
    }
}

/// w·R mod p for a word prime (R = 2^32 or 2^64): the form `fe_mul_mont` multiplies by.
pub(super) fn montgomery<F: Field>(field: &F, shape: &FieldShape, v: &F::Elem) -> u64 {
    let bits = 8 * shape.element_bytes as usize;
    let value = (field.to_biguint(v) << bits) % field.modulus();
    u64::try_from(value).expect("a residue of a word prime fits a word")
}

/// The base-r digits of an SRGFN element (least significant first), with p − 1 as
/// digit r on top.
pub(super) fn digits<F: Field>(field: &F, v: &F::Elem, k: usize) -> Vec<u64> {
    let p = field.modulus();
    let x = field.to_biguint(v);
    let r_k = &p - 1u32;
    if x == r_k {
        let mut d = vec![0; k];
        // r = (p − 1)^(1/k): the top digit of p − 1 is r itself.
        d[k - 1] = nth_root(&r_k, k as u32);
        return d;
    }
    let r = BigUint::from(nth_root(&r_k, k as u32));
    let mut rest = x;
    (0..k)
        .map(|_| {
            let d = u64::try_from(&rest % &r).expect("a digit is below r < 2^64");
            rest /= &r;
            d
        })
        .collect()
}

pub(super) fn nth_root(x: &BigUint, k: u32) -> u64 {
    u64::try_from(x.nth_root(k)).expect("r fits 64 bits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EmitOptions;

    #[test]
    fn stored_digits_are_the_digits_of_the_integer() {
        use fermat_dsl::field::{AnyField, FieldSpec};
        use rand::SeedableRng;
        let any: AnyField = "P5".parse::<FieldSpec>().unwrap().build().unwrap();
        let AnyField::Srgfn32(f) = &any else {
            unreachable!("P5 has 32 digits")
        };
        let shape = FieldShape::of(&any);
        let minus_one = f.neg(&f.one());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let values: Vec<_> = (0..50)
            .map(|_| f.random(&mut rng))
            .chain([f.zero(), f.one(), minus_one])
            .collect();
        let want: Vec<u64> = values.iter().flat_map(|v| digits(f, v, 32)).collect();
        assert_eq!(table_form(f, &shape, &values), want);
    }

    #[test]
    fn srgfn_tables_hold_whole_shifted_and_coarse_rows() {
        use crate::exec::tests::cooley_tukey;
        use crate::plan::{Plan, PlanOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let any: AnyField = "P2".parse::<FieldSpec>().unwrap().build().unwrap();
        let AnyField::Srgfn4(field) = &any else {
            unreachable!("P2 has four digits")
        };
        // 512 = 8^3: L = 9, g = 2k = 8; rows of 32 bytes.
        let plan = Plan::lower(&cooley_tukey(512, 8), PlanOptions::default()).unwrap();
        let roots = Roots::canonical(field, plan.max_log_order(), plan.n()).unwrap();
        let shape = FieldShape::of(&any);
        let shift = roots.shift().unwrap();
        for (bytes, lo_bits, high, coarse_bits) in [
            (EmitOptions::default().table_bytes, 9, High::None, 0),
            (32 << 9, 9, High::None, 0),
            (32 << 8, 6, High::Shift(shift), 8),
            (32 << 5, 6, High::Shift(shift), 5),
            // Coarse rows of order g or less would hold only shifts.
            (32 << 3, 6, High::Shift(shift), 0),
        ] {
            let layout = TableLayout::of(&shape, &roots, bytes);
            assert_eq!(
                (layout.lo_bits, layout.high, layout.coarse_bits),
                (lo_bits, high, coarse_bits),
                "{bytes} bytes"
            );
            let table = twiddle_table(field, &shape, &roots, &layout);
            assert_eq!(table.len() as u64, 4 * layout.rows());
            let exponents: Vec<u64> = layout.exponents().collect();
            assert_eq!(exponents.len() as u64 + 1, layout.rows());
            for (row, &e) in exponents.iter().enumerate() {
                let want = digits(field, &roots.power(field, e), 4);
                assert_eq!(
                    table[4 * row..4 * row + 4],
                    want[..],
                    "row {row} holds ω^{e}"
                );
            }
            let last = 4 * exponents.len();
            assert_eq!(table[last..], digits(field, roots.n_inv(), 4)[..]);
            // Every exponent that is a multiple of 2^(L−C) has its coarse row.
            for e in (0..1u64 << 9).step_by(1 << (9 - coarse_bits.max(1))) {
                let row = layout.coarse_row(e);
                assert_eq!(row.is_some(), coarse_bits > 0, "ω^{e}");
                if let Some(row) = row {
                    assert_eq!(exponents[row as usize], e);
                }
            }
        }
    }

    #[test]
    fn split_tables_hold_the_powers_the_kernels_read() {
        use crate::exec::tests::cooley_tukey;
        use crate::plan::{Plan, PlanOptions};
        use fermat_dsl::field::{AnyField, FieldSpec};
        let any: AnyField = "babybear".parse::<FieldSpec>().unwrap().build().unwrap();
        let AnyField::Fp32(field) = &any else {
            unreachable!("babybear is a 32-bit word prime")
        };
        let plan = Plan::lower(&cooley_tukey(1 << 14, 16), PlanOptions::default()).unwrap();
        let roots = Roots::canonical(field, plan.max_log_order(), plan.n()).unwrap();
        let shape = FieldShape::of(&any);
        let layout = TableLayout::of(&shape, &roots, EmitOptions::default().table_bytes);
        assert_eq!((layout.lo_bits, layout.high), (7, High::Table));
        let table = twiddle_table(field, &shape, &roots, &layout);
        assert_eq!(table.len() as u64, layout.rows());
        for (row, e) in layout.exponents().enumerate() {
            let want = montgomery(field, &shape, &roots.power(field, e));
            assert_eq!(table[row], want, "row {row} holds ω^{e}");
        }
    }
}
