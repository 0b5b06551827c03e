//! The CPU's memory bandwidth, measured the way the GPU's is: copies of a buffer far
//! larger than any cache, counting the bytes read and written, the median of a few.
//! CPU rows of `fermat bench` take their floor from it, measured in the same run.

use super::bench::median;
use super::CliError;
use rayon::prelude::*;
use std::time::Instant;

/// Words per buffer: 256 MiB, beyond the last-level cache of any CPU fermat runs on.
const WORDS: usize = 1 << 25;

/// Copies per measurement (the first two warm up and are not counted).
const COPIES: usize = 7;

/// Copy bandwidth on `threads` threads (read + write), in GB/s.
pub fn cpu_copy_gbps(threads: usize) -> Result<f64, CliError> {
    fermat::memory::check(
        || "the CPU's bandwidth measurement (two buffers of 256 MiB)".into(),
        2 * (WORDS * 8) as u128,
    )?;
    let src = vec![1u64; WORDS];
    let mut dst = vec![0u64; WORDS];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let chunk = WORDS.div_ceil(threads);
    let mut times = Vec::with_capacity(COPIES);
    pool.install(|| {
        for i in 0..COPIES {
            let started = Instant::now();
            dst.par_chunks_mut(chunk)
                .zip(src.par_chunks(chunk))
                .for_each(|(d, s)| d.copy_from_slice(s));
            if i >= 2 {
                times.push(started.elapsed().as_secs_f64());
            }
        }
    });
    // The copy must not be optimised away.
    std::hint::black_box(&dst);
    Ok(2.0 * (WORDS * 8) as f64 / median(times) / 1e9)
}
