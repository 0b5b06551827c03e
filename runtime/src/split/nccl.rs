//! NCCL for the split: one communicator per device of a set, made once per process, and
//! work buffers NCCL moves without staging.
//!
//! NCCL's point-to-point calls normally go through a staging FIFO of the peer: the sender's
//! kernel copies into it over NVLink, the receiver's copies out of it. A buffer allocated by
//! NCCL (`ncclMemAlloc`, memory its peers can map) and registered with the communicator
//! (`ncclCommRegister`) on both sides lets the sender write straight into the receiver's
//! buffer: one copy instead of two. [`NcclBuffer`] is such a buffer, seen by the rest of
//! the runtime as the [`CudaSlice`] every kernel launch takes.

use crate::gpu::Device;
use crate::Error;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nccl::{result, sys, NcclType};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

/// The error of a failed NCCL call, named.
pub(super) fn nccl(call: &'static str) -> impl Fn(result::NcclError) -> Error {
    move |e| Error::Nccl {
        why: format!("{call} failed: {e:?}"),
    }
}

/// One communicator per device of a set, rank d on device d.
pub(super) struct Communicators(Vec<sys::ncclComm_t>);

// SAFETY: a communicator may be driven from any thread as long as no two threads call NCCL
// on it at once; every use goes through the `Mutex` that holds it.
unsafe impl Send for Communicators {}

impl Drop for Communicators {
    fn drop(&mut self) {
        for &comm in &self.0 {
            // SAFETY: made by `ncclCommInitAll` and destroyed once, here; an error has
            // nowhere to go in a destructor.
            let _ = unsafe { result::comm_destroy(comm) };
        }
    }
}

/// Communicators shared by the plans of one device set.
pub(super) type SharedCommunicators = Arc<Mutex<Communicators>>;

/// The communicators of `devices`, made once per process (NCCL's initialisation costs
/// about a second) and shared by every plan on the same devices.
pub(super) fn communicators(devices: &[Arc<Device>]) -> Result<SharedCommunicators, Error> {
    static ALL: OnceLock<Mutex<HashMap<Vec<usize>, SharedCommunicators>>> = OnceLock::new();
    let key: Vec<usize> = devices.iter().map(|d| d.context().ordinal()).collect();
    let mut all = ALL
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(c) = all.get(&key) {
        return Ok(c.clone());
    }
    // NVLink multicast (NVLS) is for collectives, which a split does not use; left on, a
    // failing multicast set-up can take a host's GPUs out of service. NCCL reads its
    // environment when the first communicator is made, under this lock.
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
    let ordinals: Vec<i32> = key.iter().map(|&o| o as i32).collect();
    let mut comms = vec![std::ptr::null_mut(); ordinals.len()];
    // SAFETY: `comms` has room for one communicator per ordinal.
    unsafe { result::comm_init_all(comms.as_mut_ptr(), comms.len() as i32, ordinals.as_ptr()) }
        .map_err(nccl("ncclCommInitAll"))?;
    let shared = Arc::new(Mutex::new(Communicators(comms)));
    all.insert(key, shared.clone());
    Ok(shared)
}

impl Communicators {
    /// Queues the send of `data` from device `d` to device `peer`, on `stream`.
    pub(super) fn send<T: NcclType>(
        &self,
        d: usize,
        data: &impl DevicePtr<T>,
        peer: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<(), Error> {
        let (src, _recorded) = data.device_ptr(stream);
        // SAFETY: `src` holds `data.len()` elements of `T` on device d, alive while the
        // recorded event orders later frees after this call's work.
        unsafe {
            result::send(
                src as *const c_void,
                data.len(),
                T::as_nccl_type(),
                peer as i32,
                self.0[d],
                stream.cu_stream() as _,
            )
        }
        .map(|_| ())
        .map_err(nccl("ncclSend"))
    }

    /// Queues the receipt into `data` on device `d` of what device `peer` sends, on
    /// `stream`.
    pub(super) fn recv<T: NcclType>(
        &self,
        d: usize,
        data: &mut impl DevicePtrMut<T>,
        peer: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<(), Error> {
        let count = data.len();
        let (dst, _recorded) = data.device_ptr_mut(stream);
        // SAFETY: as in `send`, for `count` elements written on device d.
        unsafe {
            result::recv(
                dst as *mut c_void,
                count,
                T::as_nccl_type(),
                peer as i32,
                self.0[d],
                stream.cu_stream() as _,
            )
        }
        .map(|_| ())
        .map_err(nccl("ncclRecv"))
    }
}

/// A work buffer of `len` words on one device, allocated by NCCL and registered with the
/// device's communicator, so that sends from it and receipts into it skip NCCL's staging.
pub(super) struct NcclBuffer<W> {
    /// The memory as a slice; `None` only while dropping.
    slice: Option<CudaSlice<W>>,
    registration: *mut c_void,
    comms: SharedCommunicators,
    rank: usize,
    device: Arc<Device>,
}

// SAFETY: the raw registration handle is only passed back to NCCL, under the communicators'
// lock; the slice is `Send` itself.
unsafe impl<W: Send> Send for NcclBuffer<W> {}

impl<W: cudarc::driver::DeviceRepr> NcclBuffer<W> {
    /// `len` words on `device`, rank `rank` of `comms`.
    pub(super) fn new(
        device: &Arc<Device>,
        comms: &SharedCommunicators,
        rank: usize,
        len: usize,
    ) -> Result<Self, Error> {
        let bytes = len * std::mem::size_of::<W>();
        let context = device.context();
        context.bind_to_thread().map_err(|source| {
            Error::Gpu(crate::gpu::GpuError::Driver {
                call: "cuCtxSetCurrent",
                source,
            })
        })?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: NCCL allocates `bytes` on the device current to this thread, bound above.
        unsafe { sys::ncclMemAlloc(&mut ptr, bytes).result() }.map_err(nccl("ncclMemAlloc"))?;
        // SAFETY: `ptr` holds `len` elements of `W` on this device, freed only by `drop`,
        // which takes the slice back (`leak`) before handing the memory to `ncclMemFree`.
        let slice = unsafe { device.stream().upgrade_device_ptr(ptr as u64, len) };
        let mut buffer = NcclBuffer {
            slice: Some(slice),
            registration: std::ptr::null_mut(),
            comms: comms.clone(),
            rank,
            device: device.clone(),
        };
        let guard = comms.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: registers memory of this communicator's device, deregistered in `drop`.
        unsafe { sys::ncclCommRegister(guard.0[rank], ptr, bytes, &mut buffer.registration) }
            .result()
            .map_err(nccl("ncclCommRegister"))?;
        drop(guard);
        Ok(buffer)
    }
}

impl<W> std::ops::Deref for NcclBuffer<W> {
    type Target = CudaSlice<W>;
    fn deref(&self) -> &CudaSlice<W> {
        self.slice.as_ref().expect("taken only by drop")
    }
}

impl<W> std::ops::DerefMut for NcclBuffer<W> {
    fn deref_mut(&mut self) -> &mut CudaSlice<W> {
        self.slice.as_mut().expect("taken only by drop")
    }
}

impl<W> Drop for NcclBuffer<W> {
    fn drop(&mut self) {
        let Some(slice) = self.slice.take() else {
            return;
        };
        // Work queued on the buffer finishes before NCCL forgets or frees it.
        let _ = self.device.stream().synchronize();
        if !self.registration.is_null() {
            let guard = self.comms.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: the handle `ncclCommRegister` gave for this communicator.
            let _ = unsafe { sys::ncclCommDeregister(guard.0[self.rank], self.registration) };
        }
        let ptr = slice.leak();
        let _ = self.device.context().bind_to_thread();
        // SAFETY: `ptr` came from `ncclMemAlloc` and nothing uses it any more.
        let _ = unsafe { sys::ncclMemFree(ptr as *mut c_void) };
    }
}
