//! The gcd of device polynomials by the on-chip Euclidean algorithm
//! ([`fermat_codegen::euclid`]): one launch runs the whole remainder sequence in one block's
//! shared memory, then the host reads the result's length and leading coefficient (two
//! small copies) and the device scales it monic. Longer pairs, and pairs too long for one
//! block's shared memory, take Lehmer's rounds (`lehmer_device`): the steps on a window of
//! the top coefficients, the long products spread over the device.

use super::device::DevicePoly;
use super::ring::PolyRing;
use crate::error::Error;
use crate::gpu::{Extents, GpuError};
use crate::host::HostField;
use fermat_codegen::cost::FieldShape;
use fermat_codegen::euclid::window_takes_double_steps;

/// Below this length of the shorter operand the host's Euclid beats a launch and its
/// copies (`PolyRing::gcd` of host polynomials keeps such pairs on the host).
pub(super) const EUCLID_DEVICE_MIN_LEN: usize = 256;

impl<F: HostField> PolyRing<F> {
    /// The monic gcd of device polynomials, on the device (gcd(0, 0) = 0): one block of
    /// the on-chip Euclid when the longer is shorter than [`Self::lehmer_from`] and both
    /// fit its shared memory ([`Self::euclid_capacity`]), else Lehmer's rounds
    /// ([`Self::gcd_lehmer_device`] with [`Self::lehmer_half`]).
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &[1, 0, 1]))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &[2, 3]))?;
    /// let (da, db) = match (ring.to_device(&a), ring.to_device(&b)) {
    ///     (Ok(da), Ok(db)) => (da, db),
    ///     (Err(Error::NotOnGpu), _) => return Ok(()), // on the CPU: `gcd` of host polynomials
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// };
    /// assert_eq!(ring.from_device(&ring.gcd_device(&da, &db)?)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd_device(&self, a: &DevicePoly<F>, b: &DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        if self.gcd_by_rounds(a.len, b.len)? {
            return self.gcd_lehmer_device(a, b, self.lehmer_half(a.len.max(b.len))?);
        }
        self.gcd_on_chip(a, b)
    }

    /// From this length of the longer operand on, Lehmer's rounds beat the on-chip Euclid,
    /// whose every step passes over the whole pair in one block: 1024 for primes below
    /// 2^32, whose windows take two steps a pass (on an H200 the on-chip Euclid takes 0.72
    /// ms to the rounds' 0.59 at degree 1000 and 1.22 to 0.88 at 1500), 2048 for wider
    /// elements (goldilocks: 2.71 ms to 2.41 at 2000, 8.00 to 4.90 at 4000;
    /// bench/RESULTS.md, "GCD round 9").
    ///
    /// ```
    /// use fermat::dsl::{Fp32, Fp64};
    /// use fermat::poly::PolyRing;
    /// use fermat::Backend;
    ///
    /// let small = PolyRing::new(&Fp32::new(469762049)?, Backend::Cpu)?;
    /// let wide = PolyRing::new(&Fp64::new(0xFFFF_FFFF_0000_0001)?, Backend::Cpu)?; // goldilocks
    /// assert_eq!((small.lehmer_from(), wide.lehmer_from()), (1024, 2048));
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn lehmer_from(&self) -> usize {
        if window_takes_double_steps(FieldShape::of(&self.any).element_bytes) {
            1024
        } else {
            2048
        }
    }

    /// Whether [`Self::gcd_device`] takes Lehmer's rounds for operands of these lengths:
    /// the longer has [`Self::lehmer_from`] coefficients or more, or the pair outgrows the
    /// on-chip Euclid's block ([`Self::euclid_capacity`]).
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = PolyRing::new(&Fp32::new(469762049)?, Backend::Auto)?;
    /// match ring.gcd_by_rounds(ring.lehmer_from(), 10) {
    ///     Ok(rounds) => {
    ///         assert!(rounds);
    ///         assert!(!ring.gcd_by_rounds(1000, 1000)?);
    ///     }
    ///     Err(Error::NotOnGpu) => {}
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd_by_rounds(&self, len_a: usize, len_b: usize) -> Result<bool, Error> {
        let capacity = self.euclid_capacity()?;
        Ok(len_a.max(len_b) >= self.lehmer_from() || len_a + len_b > capacity)
    }

    /// The monic gcd of device polynomials by the on-chip Euclid, one block: the pair must
    /// fit its shared memory ([`Self::euclid_capacity`]).
    ///
    /// Errors: [`Error::EuclidCapacity`] when the pair outgrows shared memory,
    /// [`Error::NotOnGpu`] on the CPU backend, and device errors.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::{Poly, PolyRing};
    /// use fermat::{Backend, Error};
    ///
    /// let f = Fp32::new(469762049)?;
    /// let ring = PolyRing::new(&f, Backend::Auto)?;
    /// let g = Poly::from_u64s(&f, &[5, 1]); // x + 5
    /// let a = ring.mul(&g, &Poly::from_u64s(&f, &[1, 0, 1]))?;
    /// let b = ring.mul(&g, &Poly::from_u64s(&f, &[2, 3]))?;
    /// let (da, db) = match (ring.to_device(&a), ring.to_device(&b)) {
    ///     (Ok(da), Ok(db)) => (da, db),
    ///     (Err(Error::NotOnGpu), _) => return Ok(()), // on the CPU: `gcd` of host polynomials
    ///     (Err(e), _) | (_, Err(e)) => return Err(e),
    /// };
    /// assert_eq!(ring.from_device(&ring.gcd_on_chip(&da, &db)?)?, g);
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn gcd_on_chip(
        &self,
        a: &DevicePoly<F>,
        b: &DevicePoly<F>,
    ) -> Result<DevicePoly<F>, Error> {
        let (a, b) = if a.len >= b.len { (a, b) } else { (b, a) };
        let capacity = self.euclid_capacity()?;
        if a.len + b.len > capacity {
            return Err(Error::EuclidCapacity {
                capacity,
                len: a.len + b.len,
            });
        }
        let device = self.device()?;
        let mut g = self.zeros(a.len.max(1))?;
        let mut lens = device.alloc::<u64>(1)?;
        let stream = device.stream().clone();
        let destination = g.extent(0);
        self.passes()?.run_euclid(
            &stream,
            1,
            (
                &a.data.slice(..),
                &b.data.slice(..),
                &mut g.data.slice_mut(..),
                &mut lens.slice_mut(..),
            ),
            Extents {
                source: a.extent(a.len),
                factor: b.extent(b.len),
                destination,
                ..Extents::whole(1)
            },
            FieldShape::of(&self.any).element_bytes,
        )?;
        let mut len = [0u64];
        stream
            .memcpy_dtoh(&lens, &mut len)
            .map_err(|source| GpuError::Driver {
                call: "cuMemcpyDtoH",
                source,
            })?;
        g.set_len(usize::try_from(len[0]).unwrap_or(usize::MAX).min(g.cap));
        self.make_monic(g)
    }

    /// The longest pair (the two lengths summed) the on-chip Euclid holds in one block's
    /// shared memory on this ring's device: 58,112 coefficients of a 32-bit prime on an
    /// H100 or H200 (227 KB), a quarter of that for 128-bit elements.
    ///
    /// Errors: [`Error::NotOnGpu`] on the CPU backend.
    ///
    /// ```
    /// use fermat::dsl::Fp32;
    /// use fermat::poly::PolyRing;
    /// use fermat::{Backend, Error};
    ///
    /// let ring = PolyRing::new(&Fp32::new(469762049)?, Backend::Auto)?;
    /// match ring.euclid_capacity() {
    ///     Ok(n) => assert!(n >= 12_000), // 48 KB at least, on any CUDA device
    ///     Err(Error::NotOnGpu) => {}
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), fermat::Error>(())
    /// ```
    pub fn euclid_capacity(&self) -> Result<usize, Error> {
        let bytes = FieldShape::of(&self.any).element_bytes as usize;
        Ok(self.passes()?.euclid_shared_bytes / bytes)
    }

    /// Whether `gcd` of host polynomials of these lengths goes to the device.
    pub(super) fn euclid_on_device(&self, la: usize, lb: usize) -> bool {
        self.device.is_some() && la.min(lb) >= EUCLID_DEVICE_MIN_LEN
    }

    /// Whether [`Self::xgcd`] and [`Self::resultant`] take Lehmer's rounds on the device
    /// for operands of these lengths: those of [`Self::gcd_device`]'s rounds that
    /// [`Self::euclid_on_device`] sends to the device (the on-chip Euclid carries no
    /// cofactors and keeps no trail).
    pub(super) fn rounds_on_device(&self, la: usize, lb: usize) -> bool {
        self.euclid_on_device(la, lb)
            && la.max(lb) >= self.lehmer_from()
            && self.lehmer_half(la.max(lb)).is_ok_and(|h| h > 0)
    }

    /// g scaled by the inverse of its leading coefficient, on the device.
    pub(super) fn make_monic(&self, g: DevicePoly<F>) -> Result<DevicePoly<F>, Error> {
        match g.len {
            0 => return Ok(g),
            1 => return self.to_device(&super::Poly::one(&self.field)),
            _ => {}
        }
        let lead = self.leading_device(&g)?;
        let inverse = super::Poly::new(&self.field, vec![self.field.inv(&lead)?]);
        self.mul_device(&g, &self.to_device(&inverse)?)
    }

    /// The leading coefficient of a nonzero device polynomial, as the division reads its
    /// divisor's: the first coefficient of the reversal, one element copied back.
    pub(super) fn leading_device(&self, g: &DevicePoly<F>) -> Result<F::Elem, Error> {
        Ok(self.download_elems(&self.reversed(g, g.len, 1)?)?[0])
    }
}
