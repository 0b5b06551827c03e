//! The hand-off counters between the passes of a plan and the epochs of the calls that
//! count them up.

use super::{GpuError, GpuKernels};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use std::sync::Arc;

/// Hand-off counters between the passes of one direction's kernels, and the epochs of the
/// calls that counted them up ([`Arg::Counters`](fermat_codegen::contract::Arg::Counters),
/// [`Arg::Epoch`](fermat_codegen::contract::Arg::Epoch)).
#[derive(Default)]
pub(crate) struct Counters {
    data: Option<CudaSlice<u32>>,
    epochs: Epochs,
}

/// The epochs of the calls since a direction's counters were last zeroed. A pass waits
/// until each counter reaches epoch × its writers; epoch 0 means a call without hand-offs,
/// which neither signals nor waits on the counters, so no call that hands off may ever
/// run at epoch 0: before the epoch would wrap, the counters are zeroed and counting
/// starts again at 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Epochs {
    /// The last call's epoch; 0 right after zeroing.
    last: u32,
    /// The batch of the calls since the counters were zeroed (a counter's count is the
    /// epoch times its writers only for the transforms every one of those calls ran);
    /// `None` when the counts no longer follow the epochs (a call failed).
    batch: Option<usize>,
}

impl Epochs {
    /// The epoch of the next call of `batch` transforms that hands off, and whether the
    /// counters must be zeroed before it.
    fn advance(&mut self, batch: usize) -> (u32, bool) {
        let zero = self.batch != Some(batch) || self.last == u32::MAX;
        if zero {
            *self = Epochs::zeroed(batch);
        }
        self.last += 1;
        (self.last, zero)
    }

    /// The epochs of counters just zeroed for calls of `batch` transforms.
    fn zeroed(batch: usize) -> Epochs {
        Epochs {
            last: 0,
            batch: Some(batch),
        }
    }

    /// After a failed call: the counts no longer follow the epochs.
    fn invalidate(&mut self) {
        self.batch = None;
    }
}

impl Counters {
    /// After a failed call: the counts no longer follow the epochs, and the next call
    /// that hands off zeroes them first.
    pub(crate) fn invalidate(&mut self) {
        self.epochs.invalidate();
    }

    /// The counters and the epoch for a call of `kernels` on `batch` transforms, each with
    /// [`GpuKernels::counters`] counters, zeroed on `stream` first where
    /// [`Epochs::advance`] says so. A call that does not hand off
    /// ([`GpuKernels::hands_off`]) gets epoch 0 and leaves the counters as they are.
    pub(crate) fn next<W>(
        &mut self,
        kernels: &GpuKernels<W>,
        stream: &Arc<CudaStream>,
        batch: usize,
    ) -> Result<(&mut CudaSlice<u32>, u32), GpuError>
    where
        W: DeviceRepr + ValidAsZeroBits + Copy,
    {
        let (device, per_transform) = (kernels.device(), kernels.counters());
        let hand_off = kernels.hands_off(batch);
        let need = if hand_off { per_transform * batch } else { 0 }.max(1);
        if self.data.as_ref().is_none_or(|d| d.len() < need) {
            // Zeroed on the device's stream: another stream waits for that.
            self.data = Some(device.alloc::<u32>(need)?);
            self.epochs = Epochs::zeroed(batch);
            if !Arc::ptr_eq(stream, device.stream()) {
                device.join(stream, device.stream())?;
            }
        }
        let data = self.data.as_mut().expect("allocated above");
        if !hand_off {
            return Ok((data, 0));
        }
        let (epoch, zero) = self.epochs.advance(batch);
        if zero {
            stream
                .memset_zeros(data)
                .map_err(|source| GpuError::Driver {
                    call: "cuMemsetD8Async",
                    source,
                })?;
        }
        Ok((data, epoch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_never_wrap_to_zero() {
        // Counters that have counted up almost 2^32 calls.
        let mut epochs = Epochs {
            last: u32::MAX - 1,
            batch: Some(3),
        };
        assert_eq!(epochs.advance(3), (u32::MAX, false));
        // The next call would wrap to 0, which neither signals nor waits: the counters
        // are zeroed and counting starts again at 1.
        assert_eq!(epochs.advance(3), (1, true));
        assert_eq!(epochs.advance(3), (2, false));
    }

    #[test]
    fn epochs_restart_for_another_batch_and_after_a_failure() {
        let mut epochs = Epochs::zeroed(1);
        assert_eq!(
            epochs.advance(1),
            (1, false),
            "fresh counters need no zeroing"
        );
        assert_eq!(epochs.advance(1), (2, false));
        assert_eq!(epochs.advance(2), (1, true));
        epochs.invalidate();
        assert_eq!(epochs.advance(2), (1, true));
        assert_eq!(Epochs::default().advance(1), (1, true));
    }
}
