//! The generated kernels run on the CPU: each module compiles its kernels with the host
//! harness (`host`) and checks them element for element against the Rust reference. One
//! binary, so that the codegen crate's generic code is instantiated and linked once for
//! all of them.

mod host;

mod crt_host;
mod euclid_host;
mod kernels_host;
mod lehmer_host;
mod passes_host;
mod prelude_host;
mod product_host;
mod split_host;
mod warp_host;
