//! # fermat-codegen
//!
//! Lowers a derivation into a kernel plan (gather, straight-line body, scatter), runs
//! plans on the CPU exactly as the kernels would, and prints them as CUDA C.

#![warn(missing_docs)]

pub mod contract;
pub mod cost;
pub mod crt;
pub mod cuda;
pub mod design;
pub mod error;
pub mod euclid;
pub mod exec;
pub mod header;
pub mod kernel;
#[cfg(feature = "nvrtc")]
pub mod nvrtc;
pub mod plain;
pub mod plan;
pub mod poly;
pub mod prelude;
pub mod sigma;
pub mod split;
pub mod unit;

pub use contract::{Arg, Buffer, Buffers, Hop, Input, Launch, POLY_TRANSFORM_ARGS, TRANSFORM_ARGS};
pub use cost::{Cost, FieldShape, KernelCost};
pub use error::CodegenError;
pub use exec::{execute, execute_io, execute_with, ExecError, KernelRunner};
pub use fermat_dsl::field::{Roots, Shift};
pub use plan::{
    BitField, BitSource, CheckedPlan, Codelet, Direction, Io, KernelPlan, Op, Order, Plan,
    PlanError, PlanOptions, Step,
};
