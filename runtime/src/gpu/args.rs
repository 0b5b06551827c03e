//! The arguments of a launch: the vectors and extents of a call, the values a call binds
//! to its kernels' arguments, and the launch itself (programmatic dependent launches
//! included).

use super::GpuError;
use cudarc::driver::{sys, CudaFunction, CudaStream, CudaView, CudaViewMut};
use fermat_codegen::contract::{Arg, Launch};

/// The most arguments a launch passes (transform kernels of polynomials take fifteen).
const MAX_ARGS: usize = 16;

/// The vectors of one call of a plan on the device.
pub(crate) struct Vectors<'a, 'b, W> {
    /// The input: read only, or given up to a plan that clobbers it.
    pub(crate) input: DeviceInput<'a, 'b, W>,
    /// The output.
    pub(crate) output: &'a mut CudaViewMut<'b, W>,
    /// The scratch buffer.
    pub(crate) scratch: &'a mut CudaViewMut<'b, W>,
    /// The operand of a plan with a pointwise product.
    pub(crate) operand: Operand<'a, 'b, W>,
    /// The extents of short inputs and outputs.
    pub(crate) extents: Extents,
}

/// The operand of a call on the device.
pub(crate) enum Operand<'a, 'b, W> {
    /// None: the plan has no pointwise product.
    None,
    /// A vector of its own.
    Separate(&'a CudaView<'b, W>),
    /// The input itself (a square).
    Input,
}

/// The input of a call on the device.
pub(crate) enum DeviceInput<'a, 'b, W> {
    /// Read only.
    Shared(&'a CudaView<'b, W>),
    /// Given up to a plan that clobbers its input.
    Clobbered(&'a mut CudaViewMut<'b, W>),
}

/// Where a plan's transforms find their short sources and destinations and their operand
/// ([`Arg::SourceLength`] and its kin, in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extents {
    pub(crate) source: Extent,
    pub(crate) destination: Extent,
    /// Transforms between the operands of consecutive transforms (0: one for all).
    pub(crate) op_dist: u64,
    /// The size, terms and block of a pass of a product (`ProductPass`, `PlainPass`).
    pub(crate) size: u64,
    pub(crate) terms: u64,
    pub(crate) block: u64,
    /// The second factor of a plain product (its `limit` unused), or of a fused one.
    pub(crate) factor: Extent,
    /// The first coefficient a plain product writes.
    pub(crate) low: u64,
}

/// Where the transforms of a batch find their part of one vector of polynomials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    /// Elements of each transform's part.
    pub(crate) len: u64,
    /// Elements of the vector in all.
    pub(crate) limit: u64,
    /// Elements between the parts of consecutive transforms.
    pub(crate) dist: u64,
    /// Words between the digits of one element.
    pub(crate) stride: u64,
}

impl Extent {
    /// The first `len` elements of one vector (no batch), whose digits lie `stride` words
    /// apart.
    pub(crate) fn first(len: u64, stride: u64) -> Extent {
        Extent {
            len,
            limit: len,
            dist: 0,
            stride,
        }
    }
}

impl Extents {
    /// Whole vectors of n elements, one transform after another.
    pub(crate) fn whole(n: u64) -> Extents {
        let whole = Extent {
            len: n,
            limit: n,
            dist: n,
            stride: n,
        };
        Extents {
            source: whole,
            destination: whole,
            op_dist: 1,
            size: n,
            terms: 1,
            block: n,
            factor: whole,
            low: 0,
        }
    }
}

/// Launches one kernel on `stream` with its arguments bound from `bound`, on a grid of
/// `grid` blocks; a `dependent` launch may start while the launch before it drains
/// (programmatic dependent launch, sm_90 and later).
pub(crate) fn launch(
    stream: &CudaStream,
    function: &CudaFunction,
    l: &Launch,
    bound: &Bound,
    (x, y): (u32, u32),
    dependent: bool,
) -> Result<(), GpuError> {
    if l.args.len() > MAX_ARGS {
        return Err(GpuError::TooManyArguments {
            kernel: l.kernel.to_string(),
            count: l.args.len(),
            max: MAX_ARGS,
        });
    }
    let mut values = [Value::U32(0); MAX_ARGS];
    for (v, &arg) in values.iter_mut().zip(l.args) {
        *v = bound.value(arg).ok_or_else(|| GpuError::Unbound {
            kernel: l.kernel.to_string(),
            arg: arg.name(),
        })?;
    }
    let mut params = values.each_mut().map(Value::as_param);
    let config = KernelConfig {
        grid: (x, y),
        threads: l.threads,
        shared_bytes: 0,
        dependent,
    };
    // SAFETY: `params` holds one pointer per kernel argument, in the order and of the
    // types `l.args` gives (the kernel was generated from the same list); the buffers
    // bound hold what the extents bound say (callers size them), and the grid covers the
    // work the launch describes; `values` and `params` outlive the call.
    unsafe { launch_raw(stream, function, &l.kernel, config, &mut params) }
}

/// The shape of a raw launch ([`launch_raw`]).
pub(crate) struct KernelConfig {
    /// Blocks in x and y.
    pub(crate) grid: (u32, u32),
    /// Threads per block.
    pub(crate) threads: u32,
    /// Dynamic shared memory per block.
    pub(crate) shared_bytes: u32,
    /// Whether the launch may start while the one before it on the stream drains
    /// (programmatic dependent launch, sm_90 and later): the kernel then begins with
    /// `fe_grid_wait`.
    pub(crate) dependent: bool,
}

/// Launches `function` (named `kernel` in errors) on `stream` with the arguments
/// `params`.
///
/// # Safety
///
/// `params` holds one pointer to each of the kernel's arguments, in order and of their
/// types, and the buffers they name are as large as the kernel reads and writes for the
/// grid of `config`; a dependent launch's kernel waits (`fe_grid_wait`) before it reads
/// what the work before it writes.
pub(crate) unsafe fn launch_raw(
    stream: &CudaStream,
    function: &CudaFunction,
    kernel: &str,
    config: KernelConfig,
    params: &mut [*mut std::ffi::c_void],
) -> Result<(), GpuError> {
    let mut attribute = sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue {
            programmaticStreamSerializationAllowed: 1,
        },
    };
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid.0,
        gridDimY: config.grid.1,
        gridDimZ: 1,
        blockDimX: config.threads,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: config.shared_bytes,
        hStream: stream.cu_stream(),
        attrs: if config.dependent {
            &mut attribute
        } else {
            std::ptr::null_mut()
        },
        numAttrs: config.dependent as u32,
    };
    // SAFETY: the caller's contract covers the arguments and the buffers; `attribute`
    // outlives the call, which copies it.
    unsafe {
        sys::cuLaunchKernelEx(
            &launch,
            function.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
    .map_err(|source| GpuError::Launch {
        kernel: kernel.to_string(),
        source,
    })
}

/// The values a call binds to the [`Arg`]s of its kernels.
pub(crate) struct Bound {
    pub(crate) src: sys::CUdeviceptr,
    pub(crate) dst: sys::CUdeviceptr,
    pub(crate) table: sys::CUdeviceptr,
    pub(crate) counters: sys::CUdeviceptr,
    pub(crate) epoch: u32,
    pub(crate) operand: sys::CUdeviceptr,
    pub(crate) extents: Extents,
}

/// One kernel argument, as the driver reads it: through a pointer to its value.
#[derive(Clone, Copy)]
enum Value {
    Ptr(sys::CUdeviceptr),
    U32(u32),
    U64(u64),
}

impl Bound {
    fn value(&self, arg: Arg) -> Option<Value> {
        Some(match arg {
            Arg::Source => Value::Ptr(self.src),
            Arg::Destination => Value::Ptr(self.dst),
            Arg::Twiddles => Value::Ptr(self.table),
            Arg::Counters => Value::Ptr(self.counters),
            Arg::Epoch => Value::U32(self.epoch),
            Arg::Operand => Value::Ptr(self.operand),
            Arg::OperandDistance => Value::U64(self.extents.op_dist),
            Arg::SourceLength => Value::U64(self.extents.source.len),
            Arg::SourceLimit => Value::U64(self.extents.source.limit),
            Arg::SourceDistance => Value::U64(self.extents.source.dist),
            Arg::SourceStride => Value::U64(self.extents.source.stride),
            Arg::DestinationLength => Value::U64(self.extents.destination.len),
            Arg::DestinationLimit => Value::U64(self.extents.destination.limit),
            Arg::DestinationDistance => Value::U64(self.extents.destination.dist),
            Arg::DestinationStride => Value::U64(self.extents.destination.stride),
            Arg::Size => Value::U64(self.extents.size),
            Arg::Terms => Value::U64(self.extents.terms),
            Arg::Block => Value::U64(self.extents.block),
            Arg::Factor => Value::Ptr(self.operand),
            Arg::FactorLength => Value::U64(self.extents.factor.len),
            Arg::FactorStride => Value::U64(self.extents.factor.stride),
            Arg::FactorDistance => Value::U64(self.extents.factor.dist),
            Arg::FactorLimit => Value::U64(self.extents.factor.limit),
            Arg::Low => Value::U64(self.extents.low),
            Arg::Words
            | Arg::Signs
            | Arg::Constants
            | Arg::Row
            | Arg::Primes
            | Arg::Bases
            | Arg::Lengths
            | Arg::Integers
            | Arg::IntegerDestination
            | Arg::ModulusWords
            | Arg::Work
            | Arg::WorkCapacity
            | Arg::Matrix
            | Arg::Half
            | Arg::Round
            | Arg::State
            | Arg::Cofactors
            | Arg::Leads
            | Arg::Steps => return None,
        })
    }
}

impl Value {
    fn as_param(&mut self) -> *mut std::ffi::c_void {
        match self {
            Value::Ptr(p) => (p as *mut sys::CUdeviceptr).cast(),
            Value::U32(v) => (v as *mut u32).cast(),
            Value::U64(v) => (v as *mut u64).cast(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fermat_codegen::contract::{POLY_TRANSFORM_ARGS, TRANSFORM_ARGS};

    #[test]
    fn bound_values_follow_the_contract() {
        let bound = Bound {
            src: 1,
            dst: 2,
            table: 3,
            counters: 4,
            epoch: 5,
            operand: 6,
            extents: Extents {
                source: Extent {
                    len: 8,
                    limit: 9,
                    dist: 10,
                    stride: 11,
                },
                destination: Extent {
                    len: 12,
                    limit: 13,
                    dist: 14,
                    stride: 15,
                },
                op_dist: 7,
                size: 16,
                terms: 17,
                block: 18,
                factor: Extent {
                    len: 19,
                    limit: 23,
                    dist: 21,
                    stride: 20,
                },
                low: 22,
            },
        };
        let values = |args: &[Arg]| -> Vec<u64> {
            args.iter()
                .map(|&a| match bound.value(a).expect("a plan's argument") {
                    Value::Ptr(p) => p,
                    Value::U32(v) => u64::from(v),
                    Value::U64(v) => v,
                })
                .collect()
        };
        assert_eq!(values(&TRANSFORM_ARGS), [1, 2, 3, 4, 5]);
        assert_eq!(values(&POLY_TRANSFORM_ARGS), (1..=15).collect::<Vec<u64>>());
        assert_eq!(
            values(&fermat_codegen::plain::PRODUCT_ARGS),
            [1, 8, 11, 10, 6, 19, 20, 21, 2, 12, 15, 14, 22, 17, 18]
        );
        assert_eq!(
            values(&fermat_codegen::contract::FUSED_PRODUCT_ARGS),
            [1, 2, 3, 8, 9, 10, 11, 6, 19, 23, 21, 20, 12, 13, 14, 15]
        );
        // The CRT route's kernels bind their own arguments; a plan's launch refuses them.
        for pass in fermat_codegen::crt::CrtPass::ALL {
            assert!(pass.args().iter().any(|&a| bound.value(a).is_none()));
        }
    }
}
