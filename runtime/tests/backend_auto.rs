//! `Backend::Auto` falls back to the CPU only where there is no GPU (no driver, or no
//! device), and says why; a GPU that is there but cannot compile or load the kernels is an
//! error, never a silent CPU plan. This file runs in a process of its own: it points NVRTC
//! at a library that does not exist.

use fermat::dsl::Fp32;
use fermat::gpu::GpuError;
use fermat::{Error, FftOptions, FftPlan, Running};

#[test]
fn automatic_plans_fall_back_only_without_a_gpu() {
    let field = Fp32::new(469762049).unwrap();
    let absence = fermat::gpu::device(0).err().filter(GpuError::is_absence);
    // With no NVRTC to be found, every kernel compilation fails.
    std::env::set_var("FERMAT_NVRTC_LIB", "/nonexistent/libnvrtc.so.13");
    let plan = FftPlan::new(&field, 64, FftOptions::default());
    match absence {
        Some(why) => {
            eprintln!("no GPU here ({why}): the plan must run on the CPU and say why");
            let plan = plan.expect("no GPU: the CPU");
            assert_eq!(
                plan.running(),
                &Running::Cpu {
                    reason: Some(why.to_string())
                }
            );
            assert!(plan.running().to_string().contains("no GPU"));
        }
        None => {
            let err = plan.expect_err("a GPU that cannot compile is an error under Auto");
            assert!(matches!(err, Error::Gpu(GpuError::Nvrtc(_))), "{err}");
        }
    }
}
