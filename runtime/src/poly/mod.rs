//! Dense univariate polynomials over fermat's fields, on the host and on the device, and
//! their arithmetic: FFT-based and plain products, division with remainder and
//! power-series inverses, on the GPU and the CPU.
//!
//! [`Poly<F>`] holds its coefficients lowest degree first, normalised: no trailing zeros,
//! and the zero polynomial has none. Its device twin [`DevicePoly<F>`] keeps them in
//! device memory in the layout the kernels read (digit-major for SRGFNs), so that chains
//! of operations stay on the GPU. A [`PolyRing<F>`] multiplies them on one backend and
//! keeps the plans of every size it has used.

mod basecase;
mod batch;
mod convolution;
mod device;
mod division;
mod division_device;
mod dynamic;
mod euclid;
mod euclid_device;
mod hgcd;
mod host;
pub(crate) mod json;
mod layout;
mod lehmer_device;
mod plain;
mod product;
mod product_device;
mod resultant_device;
mod ring;
mod route;
mod schoolbook;

pub use basecase::{divrem_basecase, inv_series_basecase};
pub use batch::DeviceBatch;
pub use device::DevicePoly;
pub(crate) use device::{PolyView, PolyViewMut};
pub use dynamic::Polynomial;
pub use euclid::{gcd_euclid, resultant_euclid, xgcd_euclid, Bezout};
pub use host::Poly;
pub use json::{integers_of_json, integers_to_json, PolyIoError};
pub use layout::{BatchLayout, LayoutFault};
pub use lehmer_device::DeviceBezout;
pub use product::{
    Algorithm, Crossover, ProductPlan, CPU_CRT_FROM, GPU_HOST_BELOW, HGCD_BASE, HGCD_MIN_BASE,
    LONG_DIVISION, RATIOS,
};
pub(crate) use ring::upload;
pub use ring::PolyRing;
pub use route::Route;
pub(crate) use route::Shape;
pub use schoolbook::{schoolbook_mul, schoolbook_mul_middle};
