//! Batches of polynomials in the caller's own buffers: a count, a length, a stride and a
//! distance, as cuFFT's advanced layout (`cufftPlanMany`) places the signals of a batch.

use super::host::Poly;
use super::ring::PolyRing;
use crate::error::Error;
use crate::host::HostField;

/// Where the polynomials of a batch lie in one flat buffer: coefficient e (lowest degree
/// first) of polynomial q at index q·`dist` + e·`stride`, for q < `count` and e < `len`.
///
/// Contiguous polynomials one after another have stride 1 and distance `len`;
/// interleaved ones (coefficient e of every polynomial, then e + 1) have stride `count`
/// and distance 1. An operand may repeat one polynomial for the whole batch (distance 0);
/// an output's polynomials must not share an element.
///
/// ```
/// use fermat::poly::BatchLayout;
///
/// let rows = BatchLayout::contiguous(3, 4);
/// assert_eq!((rows.stride, rows.dist), (1, 4));
/// assert_eq!(rows.index(2, 1), 9);
/// let columns = BatchLayout { count: 3, len: 4, stride: 3, dist: 1 };
/// assert_eq!(columns.index(2, 1), 5);
/// assert_eq!(columns.span(), Some(12)); // the elements a buffer must hold
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchLayout {
    /// Polynomials in the batch.
    pub count: usize,
    /// Coefficients of each polynomial (shorter ones end in zeros).
    pub len: usize,
    /// Elements between two consecutive coefficients of one polynomial (at least 1).
    pub stride: usize,
    /// Elements between the first coefficients of two consecutive polynomials.
    pub dist: usize,
}

/// What is wrong with a [`BatchLayout`], in an [`Error::BatchLayout`].
///
/// ```
/// use fermat::dsl::{Field, Fp32};
/// use fermat::poly::{BatchLayout, LayoutFault, PolyRing};
/// use fermat::{Backend, Error};
///
/// let f = Fp32::new(469762049)?;
/// let ring = PolyRing::new(&f, Backend::Cpu)?;
/// let a = vec![f.one(); 8];
/// let two = BatchLayout::contiguous(2, 4);
/// let mut c = vec![f.zero(); 8]; // products of 7 coefficients in rows of 4
/// let err = ring.mul_batch_strided(&a, &two, &a, &two, &mut c, &two).unwrap_err();
/// assert!(matches!(err, Error::BatchLayout { fault: LayoutFault::Short { product: 7 }, .. }));
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutFault {
    /// The stride is 0: a polynomial's coefficients would share one element.
    ZeroStride,
    /// The layout reaches beyond the buffer (`need` is `None` past the address space).
    Reaches {
        /// Elements the layout needs.
        need: Option<usize>,
        /// Elements the buffer holds.
        buffer: usize,
    },
    /// Two coefficients of the output share an element.
    Overlaps,
    /// The batches pair polynomials one to one: the counts differ.
    Count {
        /// The first operand's count.
        expected: usize,
    },
    /// The output's polynomials are shorter than the products.
    Short {
        /// Coefficients of each product.
        product: usize,
    },
}

impl std::fmt::Display for LayoutFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutFault::ZeroStride => write!(f, "the stride must be at least 1"),
            LayoutFault::Reaches {
                need: Some(need),
                buffer,
            } => write!(f, "it needs {need} elements but the buffer holds {buffer}"),
            LayoutFault::Reaches { need: None, buffer } => write!(
                f,
                "it reaches past the address space; the buffer holds {buffer} elements"
            ),
            LayoutFault::Overlaps => write!(
                f,
                "two coefficients share an element; an output needs dist ≥ (len − 1)·stride + 1, \
                 or stride ≥ (count − 1)·dist + 1"
            ),
            LayoutFault::Count { expected } => {
                write!(f, "the first operand's batch holds {expected} polynomials")
            }
            LayoutFault::Short { product } => {
                write!(f, "the products have {product} coefficients")
            }
        }
    }
}

impl BatchLayout {
    /// `count` polynomials of `len` coefficients one after another ([`BatchLayout`] has an
    /// example).
    pub const fn contiguous(count: usize, len: usize) -> BatchLayout {
        BatchLayout {
            count,
            len,
            stride: 1,
            dist: len,
        }
    }

    /// The index of coefficient `e` of polynomial `q` ([`BatchLayout`] has an example).
    pub const fn index(&self, q: usize, e: usize) -> usize {
        q * self.dist + e * self.stride
    }

    /// The elements a buffer must hold: one past the last index, 0 for an empty batch;
    /// `None` past the address space ([`BatchLayout`] has an example).
    pub fn span(&self) -> Option<usize> {
        if self.count == 0 || self.len == 0 {
            return Some(0);
        }
        let last_q = (self.count - 1).checked_mul(self.dist)?;
        let last_e = (self.len - 1).checked_mul(self.stride)?;
        last_q.checked_add(last_e)?.checked_add(1)
    }

    /// Whether no two coefficients share an element: the polynomials' blocks are
    /// disjoint, or their coefficients interleave.
    fn is_disjoint(&self) -> bool {
        if self.count <= 1 || self.len == 0 {
            return true;
        }
        let block = (self.len - 1) * self.stride + 1;
        let column = (self.count - 1) * self.dist + 1;
        self.dist >= block || self.stride >= column
    }

    /// Checks the layout against a buffer of `buffer` elements (`output`: its
    /// coefficients must not share an element).
    fn check(&self, what: &'static str, buffer: usize, output: bool) -> Result<(), Error> {
        let fault = if self.stride == 0 && self.len > 1 {
            Some(LayoutFault::ZeroStride)
        } else {
            match self.span() {
                Some(need) if need <= buffer => None,
                need => Some(LayoutFault::Reaches { need, buffer }),
            }
        };
        // Only a layout within the address space is tested for overlaps: its products of
        // lengths and strides cannot overflow.
        let fault =
            fault.or_else(|| (output && !self.is_disjoint()).then_some(LayoutFault::Overlaps));
        match fault {
            Some(fault) => Err(self.error(what, fault)),
            None => Ok(()),
        }
    }

    fn error(&self, what: &'static str, fault: LayoutFault) -> Error {
        Error::BatchLayout {
            what,
            count: self.count,
            len: self.len,
            stride: self.stride,
            dist: self.dist,
            fault,
        }
    }
}

impl<F: HostField> PolyRing<F> {
    /// The products a_q·b_q of two batches in flat buffers, written into a third, each
    /// buffer in a layout of its own ([`BatchLayout`]): on the GPU as one batch (one
    /// launch sequence for all), on the CPU in parallel. Product q fills the first
    /// `c_layout.len` coefficients of polynomial q of `c`, zeros above its degree; the
    /// elements of `c` outside the layout are left as they are.
    ///
    /// Errors: [`Error::BatchLayout`] when a layout reaches beyond its buffer, the counts
    /// differ, the output's polynomials overlap or are shorter than the products
    /// (`a_layout.len + b_layout.len − 1`) — all checked before any work.
    ///
    /// ```
    /// use fermat::dsl::{Field, Fp32};
    /// use fermat::poly::{BatchLayout, PolyRing};
    /// use fermat::Backend;
    ///
    /// let f = Fp32::new(2013265921)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let e = |v: u64| f.from_u64(v);
    /// // Three linear polynomials, interleaved: constant terms first, then the x terms.
    /// let a = [1, 2, 3, 1, 1, 1].map(e); // 1 + x, 2 + x, 3 + x
    /// let a_layout = BatchLayout { count: 3, len: 2, stride: 3, dist: 1 };
    /// // One polynomial for the whole batch: distance 0.
    /// let b = [5, 1].map(e); // 5 + x
    /// let b_layout = BatchLayout { count: 3, len: 2, stride: 1, dist: 0 };
    /// // Products one after another, each in a row of 4 (the last left as it is).
    /// let mut c = vec![e(7); 12];
    /// ring.mul_batch_strided(&a, &a_layout, &b, &b_layout, &mut c, &BatchLayout { count: 3, len: 3, stride: 1, dist: 4 })?;
    /// assert_eq!(c, [5, 6, 1, 7, 10, 7, 1, 7, 15, 8, 1, 7].map(e));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn mul_batch_strided(
        &self,
        a: &[F::Elem],
        a_layout: &BatchLayout,
        b: &[F::Elem],
        b_layout: &BatchLayout,
        c: &mut [F::Elem],
        c_layout: &BatchLayout,
    ) -> Result<(), Error> {
        a_layout.check("the first operand", a.len(), false)?;
        b_layout.check("the second operand", b.len(), false)?;
        c_layout.check("the output", c.len(), true)?;
        let count = LayoutFault::Count {
            expected: a_layout.count,
        };
        for (what, layout) in [("the second operand", b_layout), ("the output", c_layout)] {
            if layout.count != a_layout.count {
                return Err(layout.error(what, count));
            }
        }
        let product = if a_layout.len == 0 || b_layout.len == 0 {
            0
        } else {
            a_layout.len + b_layout.len - 1
        };
        if c_layout.len < product {
            return Err(c_layout.error("the output", LayoutFault::Short { product }));
        }
        let gather = |x: &[F::Elem], layout: &BatchLayout| -> Vec<Poly<F>> {
            (0..layout.count)
                .map(|q| {
                    let coeffs = (0..layout.len).map(|e| x[layout.index(q, e)]);
                    Poly::new(&self.field, coeffs.collect())
                })
                .collect()
        };
        let products = self.mul_batch(&gather(a, a_layout), &gather(b, b_layout))?;
        let zero = self.field.zero();
        for (q, p) in products.iter().enumerate() {
            for e in 0..c_layout.len {
                c[c_layout.index(q, e)] = *p.coeffs().get(e).unwrap_or(&zero);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::Backend;
    use fermat_dsl::field::{Field, Fp32};

    fn ring() -> (Fp32, PolyRing<Fp32>) {
        let f = Fp32::new(469762049).unwrap();
        let ring = PolyRing::new(&f, Backend::Cpu).unwrap();
        (f, ring)
    }

    #[test]
    fn spans_count_one_past_the_last_index() {
        assert_eq!(BatchLayout::contiguous(0, 5).span(), Some(0));
        assert_eq!(BatchLayout::contiguous(3, 4).span(), Some(12));
        let padded = BatchLayout {
            count: 3,
            len: 4,
            stride: 1,
            dist: 6,
        };
        assert_eq!(padded.span(), Some(16)); // the last row's padding is not needed
        let huge = BatchLayout {
            count: usize::MAX,
            len: 2,
            stride: 1,
            dist: 2,
        };
        assert_eq!(huge.span(), None);
        // Past the address space: refused as such, not by an overflow in the overlap test.
        let err = huge.check("the output", 8, true).unwrap_err();
        assert!(
            matches!(
                err,
                Error::BatchLayout {
                    fault: LayoutFault::Reaches { need: None, .. },
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn outputs_must_not_overlap_but_operands_may() {
        let overlapping = BatchLayout {
            count: 2,
            len: 3,
            stride: 1,
            dist: 2,
        };
        assert!(overlapping.check("x", 5, false).is_ok());
        let err = overlapping.check("the output", 5, true).unwrap_err();
        assert!(
            matches!(
                err,
                Error::BatchLayout {
                    fault: LayoutFault::Overlaps,
                    ..
                }
            ),
            "{err}"
        );
        let interleaved = BatchLayout {
            count: 2,
            len: 3,
            stride: 2,
            dist: 1,
        };
        assert!(interleaved.check("the output", 6, true).is_ok());
    }

    #[test]
    fn every_bad_layout_is_refused_before_any_work() {
        let (f, ring) = ring();
        let one = |n| vec![f.one(); n];
        let rows = BatchLayout::contiguous(2, 3);
        let out = BatchLayout::contiguous(2, 5);
        let mut c = one(10);
        // A buffer shorter than its layout, named with the elements it lacks.
        let err = ring
            .mul_batch_strided(&one(5), &rows, &one(6), &rows, &mut c, &out)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the first operand: 2 polynomials of 3 coefficients at stride 1 and distance 3: \
             it needs 6 elements but the buffer holds 5"
        );
        // Counts that differ.
        let three = BatchLayout::contiguous(3, 3);
        let err = ring
            .mul_batch_strided(&one(6), &rows, &one(9), &three, &mut c, &out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::BatchLayout {
                    fault: LayoutFault::Count { expected: 2 },
                    ..
                }
            ),
            "{err}"
        );
        // An output too short for the products, a zero stride.
        let short = BatchLayout::contiguous(2, 4);
        let err = ring
            .mul_batch_strided(&one(6), &rows, &one(6), &rows, &mut c, &short)
            .unwrap_err();
        assert!(err
            .to_string()
            .ends_with("the products have 5 coefficients"));
        let flat = BatchLayout { stride: 0, ..rows };
        let err = ring
            .mul_batch_strided(&one(6), &flat, &one(6), &rows, &mut c, &out)
            .unwrap_err();
        assert!(err.to_string().ends_with("the stride must be at least 1"));
        assert!(c.iter().all(|x| *x == f.one()), "nothing was written");
    }

    #[test]
    fn strided_products_equal_the_products_of_the_gathered_polynomials() {
        let (f, ring) = ring();
        let (count, la, lb) = (5, 7, 4);
        let a: Vec<_> = (0..count * la)
            .map(|i| f.from_u64(3 * i as u64 + 1))
            .collect();
        let b: Vec<_> = (0..count * lb)
            .map(|i| f.from_u64(i as u64 * i as u64))
            .collect();
        let a_layout = BatchLayout {
            count,
            len: la,
            stride: count,
            dist: 1,
        };
        let b_layout = BatchLayout::contiguous(count, lb);
        let c_layout = BatchLayout {
            count,
            len: la + lb,
            stride: 1,
            dist: la + lb + 2,
        };
        let mut c = vec![f.from_u64(99); c_layout.span().unwrap()];
        ring.mul_batch_strided(&a, &a_layout, &b, &b_layout, &mut c, &c_layout)
            .unwrap();
        for q in 0..count {
            let pa = Poly::new(&f, (0..la).map(|e| a[a_layout.index(q, e)]).collect());
            let pb = Poly::new(&f, b[q * lb..(q + 1) * lb].to_vec());
            let want = ring.mul(&pa, &pb).unwrap();
            let row = &c[c_layout.index(q, 0)..c_layout.index(q, c_layout.len)];
            assert_eq!(&row[..la + lb - 1], want.coeffs());
            assert_eq!(row[la + lb - 1], f.zero(), "zeros above the degree");
            if q + 1 < count {
                let gap = &c[c_layout.index(q, c_layout.len)..c_layout.index(q + 1, 0)];
                assert!(gap.iter().all(|x| *x == f.from_u64(99)), "untouched");
            }
        }
    }
}
