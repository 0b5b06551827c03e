//! The library's integration tests in one binary. A test binary links the runtime and
//! instantiates its generic code for every field it names; one binary does that once for
//! all of them, in a fraction of the build time of one binary each. Tests that change the
//! process's environment (`backend_auto`, `gpu_cache`, `tune_cli`, `tune_table`) and
//! those that run the `fermat` binary are binaries of their own.

mod common;
mod gpu;

mod catalogue;
mod cpu_fast;
mod crt_cpu;
mod crt_gpu;
mod division_cpu;
mod euclid_cpu;
mod fft_cpu;
mod fft_macro;
mod poly_gpu;
mod poly_host;
mod sizes;
mod split_cpu;
mod split_gpu;
