//! Polynomials in device memory.

use crate::gpu::Extent;
use crate::host::HostField;
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

/// A polynomial in device memory, the twin of [`Poly`](super::Poly): coefficients lowest
/// degree first, normalised, in the layout the kernels read — one word per coefficient for
/// a word prime, and for an SRGFN digit c of coefficient i at word c·capacity + i
/// (digit-major, so that a warp reads consecutive words).
///
/// Made and read back by a [`PolyRing`](super::PolyRing) that runs on a GPU; products of
/// device polynomials stay on the device.
///
/// ```
/// use fermat::dsl::{Field, Fp32};
/// use fermat::poly::{Poly, PolyRing};
/// use fermat::{Backend, Error};
///
/// let f = Fp32::new(469762049)?;
/// let ring = PolyRing::new(&f, Backend::Auto)?; // the GPU if there is one
/// let a = match ring.to_device(&Poly::new(&f, vec![f.one(), f.one()])) { // 1 + x
///     Ok(a) => a,
///     Err(Error::NotOnGpu) => return Ok(()), // on the CPU: no device memory
///     Err(e) => return Err(e),
/// };
/// assert_eq!((a.len(), a.degree(), a.is_empty()), (2, Some(1), false));
/// assert!(a.capacity() >= 2 && a.words().len() >= 2);
/// let c = ring.mul_device(&a, &a)?; // stays on the device
/// assert_eq!(c.len(), 3);
/// assert_eq!(ring.from_device(&c)?, Poly::new(&f, vec![f.one(), f.from_u64(2), f.one()]));
/// # Ok::<(), fermat::Error>(())
/// ```
pub struct DevicePoly<F: HostField> {
    pub(crate) data: CudaSlice<F::Word>,
    pub(crate) len: usize,
    pub(crate) cap: usize,
    /// Whether coefficient len − 1 is known to be nonzero: a host polynomial copied up
    /// (host polynomials have no zeros at the top). Results of device operations are not
    /// checked, and [`set_len`](Self::set_len) forgets it.
    pub(crate) top_nonzero: bool,
    /// Whether coefficient 0 is known to be nonzero, likewise: a power series copied up
    /// whose inverse then needs nothing read back.
    pub(crate) constant_nonzero: bool,
}

impl<F: HostField> DevicePoly<F> {
    /// The number of coefficients: the degree plus one, 0 for the zero polynomial
    /// ([`DevicePoly`] has an example).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether this is the zero polynomial ([`DevicePoly`] has an example).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The degree, `None` for the zero polynomial ([`DevicePoly`] has an example).
    pub fn degree(&self) -> Option<usize> {
        self.len.checked_sub(1)
    }

    /// The coefficients the buffer holds room for: the words between two digits of one
    /// coefficient of an SRGFN ([`DevicePoly`] has an example).
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The raw device words, in the layout above ([`DevicePoly`] has an example).
    pub fn words(&self) -> &CudaSlice<F::Word> {
        &self.data
    }

    /// The polynomial as a view of its words.
    pub(crate) fn view(&self) -> PolyView<'_, F::Word> {
        PolyView {
            data: self.data.slice(..),
            len: self.len,
            cap: self.cap,
        }
    }

    /// Its room as a view to write a result into.
    pub(crate) fn view_mut(&mut self) -> PolyViewMut<'_, F::Word> {
        PolyViewMut {
            data: self.data.slice_mut(..),
            cap: self.cap,
        }
    }

    /// Sets the length of what the device wrote, whose coefficients nobody checked.
    pub(crate) fn set_len(&mut self, len: usize) {
        self.len = len;
        self.top_nonzero = false;
        self.constant_nonzero = false;
    }

    /// Where the kernels find the first `len` coefficients.
    pub(crate) fn extent(&self, len: usize) -> Extent {
        Extent::first(len as u64, self.cap as u64)
    }
}

/// A polynomial in a view of device memory — a [`DevicePoly`]'s words, or a row of a
/// buffer that holds many: `len` coefficients in room for `cap` (the words between two
/// digits of an SRGFN's coefficient).
pub(crate) struct PolyView<'a, W> {
    pub(crate) data: CudaView<'a, W>,
    pub(crate) len: usize,
    pub(crate) cap: usize,
}

/// Room for a result in a view of device memory: `cap` coefficients.
pub(crate) struct PolyViewMut<'a, W> {
    pub(crate) data: CudaViewMut<'a, W>,
    pub(crate) cap: usize,
}

impl<W> PolyView<'_, W> {
    /// Where the kernels find the polynomial's `len` coefficients.
    pub(crate) fn whole(&self) -> Extent {
        Extent::first(self.len as u64, self.cap as u64)
    }
}

impl<W> PolyViewMut<'_, W> {
    /// Where the kernels write the first `len` coefficients of a result.
    pub(crate) fn extent(&self, len: usize) -> Extent {
        Extent::first(len as u64, self.cap as u64)
    }
}

impl<F: HostField> std::fmt::Debug for DevicePoly<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevicePoly")
            .field("len", &self.len)
            .field("capacity", &self.cap)
            .finish()
    }
}
