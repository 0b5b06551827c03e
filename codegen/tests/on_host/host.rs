//! Running generated kernels on the host: the C++ compiler, and the build of a harness
//! that includes them (shared by the kernel and product host tests).

use fermat_dsl::field::Field;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The C++ compiler (`$CXX`, else `c++`), or None with the reason printed when there is
/// none outside CI; on CI its absence is a failure.
pub fn compiler() -> Option<String> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let works = Command::new(&cxx)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if works {
        Some(cxx)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("no C++ compiler ({cxx}) on a CI machine: the kernel check cannot be skipped")
    } else {
        eprintln!("skipping: no C++ compiler ({cxx}) found to run the emitted kernels on the host");
        None
    }
}

/// What lets CUDA C compile as host C++, before a harness: the qualifiers defined away,
/// one thread of one block, a barrier with nothing to wait for, and 4 MiB of dynamic
/// shared memory (shared memory lives as long as the program, as `thread_local`: a
/// block-scope `extern` declaration may then name it).
const CUDA_ON_HOST: &str = r#"#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#define __global__
#define __launch_bounds__(...)
#define __shared__ thread_local
#define __align__(n)
#define __constant__ static
#define __device__ static
struct fermat_dim3 { unsigned x, y, z; };
static fermat_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1},
    gridDim = {1, 1, 1};
static inline void __syncthreads() {}
alignas(16) thread_local unsigned char fermat_dynamic_shared[4 << 20];
"#;

/// Writes `harness` into `dir` after [`CUDA_ON_HOST`], its `KERNEL_LIST` replaced by
/// `kernels`, compiles it
/// with `cxx`, and returns the executable; `what` names the kernels in the failure.
pub fn build_harness(
    cxx: &str,
    dir: &Path,
    harness: &str,
    kernels: &[String],
    what: &str,
) -> PathBuf {
    let source = dir.join("harness.cpp");
    let harness = harness.replace("KERNEL_LIST", &kernels.join(", "));
    std::fs::write(&source, format!("{CUDA_ON_HOST}{harness}")).unwrap();
    let exe = dir.join("harness");
    let out = Command::new(cxx)
        .args(["-std=c++17", "-O1", "-w", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{what} do not compile as C++:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs the built harness `exe` on `input` and returns its standard output; `what` names
/// it in the failure.
pub fn run_harness(exe: &Path, input: &str, what: &str) -> String {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{what} failed: {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// The words a harness printed, one per line or separated by spaces.
pub fn parse_words(text: &str) -> Vec<u64> {
    text.split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect()
}

/// Words of a vector of `cap` elements holding `xs` first (digit-major for SRGFNs), the
/// words beyond them junk that a kernel must not read.
pub fn words<F: Field>(field: &F, xs: &[F::Elem], cap: usize, k: usize) -> Vec<u64> {
    let mut out = vec![0x3c3c_3c3c_3c3c_3c3c_u64; cap * k];
    let p = field.modulus();
    let r = (&p - 1u32).nth_root(k as u32);
    for (i, x) in xs.iter().enumerate() {
        let v = field.to_biguint(x);
        if k == 1 {
            out[i] = u64::try_from(v).unwrap();
        } else if v == &p - 1u32 {
            out[(k - 1) * cap + i] = u64::try_from(&r).unwrap();
        } else {
            let mut rest = v;
            for c in 0..k {
                out[c * cap + i] = u64::try_from(&rest % &r).unwrap();
                rest /= &r;
            }
        }
    }
    out
}

/// The elements of the first `len` of a vector of `cap` elements.
pub fn elements<F: Field>(
    field: &F,
    words: &[u64],
    len: usize,
    cap: usize,
    k: usize,
) -> Vec<F::Elem> {
    let r = (field.modulus() - 1u32).nth_root(k as u32);
    (0..len)
        .map(|i| {
            let v = (0..k)
                .rev()
                .fold(num_bigint::BigUint::from(0u32), |acc, c| {
                    acc * &r + words[c * cap + i]
                });
            field.from_biguint(&v).unwrap()
        })
        .collect()
}
