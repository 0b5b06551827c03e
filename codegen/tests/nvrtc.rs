//! Every catalogue field's prelude, with the example kernels, compiles with NVRTC for sm_90
//! (PTX for the driver, and a CUBIN whose ptxas report gives registers and spills).
//!
//! NVRTC is loaded by full path (see `fermat_codegen::nvrtc::locate`; `.ci/nvrtc.sh`
//! installs the pinned 13.0 wheel). Without it the test is skipped with a message, except
//! under `CI=true`, where that is a failure. No GPU is needed.

#![cfg(feature = "nvrtc")]

mod common;

use fermat_codegen::cuda::Kernel;
use fermat_codegen::header::Header;
use fermat_codegen::nvrtc::{self, Nvrtc, NvrtcError, SM90_CUBIN, SM90_PTX};
use fermat_codegen::{prelude, unit};
use fermat_dsl::field::AnyField;

const FIELDS: [&str; 10] = [
    "p469762049",
    "babybear",
    "p4179340454199820289",
    "goldilocks",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
];

/// The process-wide NVRTC, or None (with the reason printed) outside CI.
fn nvrtc() -> Option<&'static Nvrtc> {
    match nvrtc::global() {
        Ok(n) => Some(n),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("NVRTC is required in CI: {e}");
            }
            eprintln!("skipping the NVRTC compile check: {e}");
            None
        }
    }
}

/// The example source file of one field: header, prelude, a constant table and the
/// example kernels (DFT_4 by shifts only for SRGFNs).
fn example_source(name: &str) -> String {
    let field = AnyField::from_spec(name).unwrap();
    let (words, mont_one, rpow_k) = match field.srgfn_params() {
        Some(p) => (p.k as usize, 1, Some(p.k as u32)),
        None => {
            let p = u64::try_from(&field.modulus()).unwrap();
            let bits = if matches!(field, AnyField::Fp32(_)) {
                32
            } else {
                64
            };
            (1, ((1u128 << bits) % u128::from(p)) as u64, None)
        }
    };
    let mut kernels: Vec<Kernel> = vec![common::butterfly_r2(), common::scale_const()];
    if let Some(k) = rpow_k {
        kernels.push(common::dft4_shared(words as u64, k));
    }
    let header = Header::new(
        "cargo test -p fermat-codegen --test nvrtc",
        prelude::describe(&field),
    );
    unit::render(
        &header,
        &field,
        &[common::ones_table(words, mont_one)],
        &kernels,
    )
    .unwrap()
}

fn compile_or_show(nvrtc: &Nvrtc, name: &str, source: &str, options: &[&str]) -> nvrtc::Compiled {
    match nvrtc.compile(source, &format!("{name}.cu"), options) {
        Ok(c) => c,
        Err(NvrtcError::Compile { log, .. }) => {
            let numbered: String = source
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{:5} {l}\n", i + 1))
                .collect();
            panic!("{name}: NVRTC rejected the source with {options:?}:\n{log}\n--- source ---\n{numbered}")
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn every_prelude_compiles_to_ptx_for_sm_90() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    let version = nvrtc.version().unwrap();
    eprintln!(
        "NVRTC {}.{} from {}",
        version.0,
        version.1,
        nvrtc.path().display()
    );
    std::thread::scope(|s| {
        let handles: Vec<_> = FIELDS
            .chunks(5)
            .map(|chunk| {
                s.spawn(move || {
                    for name in chunk {
                        let source = example_source(name);
                        let out = compile_or_show(nvrtc, name, &source, SM90_PTX);
                        let ptx = out.ptx.expect("PTX for a virtual architecture");
                        for kernel in ["butterfly_r2", "scale_const"] {
                            assert!(
                                ptx.contains(&format!(".entry {kernel}(")),
                                "{name}: PTX lacks the kernel {kernel}"
                            );
                        }
                        assert!(ptx.contains(".target sm_90"), "{name}: PTX for sm_90");
                    }
                })
            })
            .collect();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

#[test]
fn cubins_report_registers_and_spills() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    for name in ["goldilocks", "P3"] {
        let out = compile_or_show(nvrtc, name, &example_source(name), SM90_CUBIN);
        assert!(out
            .cubin
            .as_ref()
            .is_some_and(|c| c.starts_with(b"\x7fELF")));
        let resources = out.resources();
        eprintln!("{name}: {resources:?}");
        let butterfly = resources
            .iter()
            .find(|r| r.kernel == "butterfly_r2")
            .unwrap_or_else(|| panic!("{name}: no ptxas report for butterfly_r2 in\n{}", out.log));
        assert!(butterfly.registers > 0);
    }
}

#[test]
fn compile_errors_carry_the_log() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    let err = nvrtc
        .compile(
            "__global__ void k() { undeclared = 1; }",
            "bad.cu",
            SM90_PTX,
        )
        .unwrap_err();
    match &err {
        NvrtcError::Compile { name, log, options } => {
            assert_eq!(name, "bad.cu");
            assert!(log.contains("undeclared"), "{log}");
            assert_eq!(options[0], SM90_PTX[0]);
        }
        other => panic!("expected a compile error, got {other}"),
    }
    assert!(err.to_string().contains("undeclared"));
}

#[test]
fn every_field_s_product_kernels_compile_for_sm_90() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = FIELDS
            .chunks(5)
            .map(|chunk| {
                s.spawn(move || {
                    for name in chunk {
                        let field = AnyField::from_spec(name).unwrap();
                        let source = fermat_codegen::poly::source(&field).unwrap();
                        let out = compile_or_show(nvrtc, name, &source, SM90_CUBIN);
                        let resources = out.resources();
                        eprintln!("{name}: {resources:?}");
                        for kernel in [
                            "product_fold",
                            "plain_product",
                            "plain_reduce",
                            "plain_reverse",
                            "plain_difference",
                            "plain_series",
                        ] {
                            assert!(
                                resources.iter().any(|r| r.kernel == kernel),
                                "{name}: the module lacks {kernel}"
                            );
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

#[test]
fn crt_kernels_compile_for_sm_90() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    use fermat_codegen::crt::ResidueWord;
    for word in [ResidueWord::U32, ResidueWord::U64] {
        let source = fermat_codegen::crt::source(word).unwrap();
        let out = compile_or_show(nvrtc, "crt", &source, SM90_CUBIN);
        let resources = out.resources();
        eprintln!("crt ({word:?}): {resources:?}");
        for pass in fermat_codegen::crt::CrtPass::ALL {
            assert!(
                resources.iter().any(|r| r.kernel == pass.name()),
                "the module of {word:?} residues lacks {}",
                pass.name()
            );
        }
    }
}

/// The narrow kernels in fixed shapes, the smallest and the largest their registers allow
/// among them: straight-line code, spilling to local memory at most a few words.
#[test]
fn shaped_crt_kernels_compile_for_sm_90() {
    let Some(nvrtc) = nvrtc() else {
        return;
    };
    use fermat_codegen::crt::{
        shaped_source, CrtPass, NarrowShape, MAX_PRIMES, NARROW_DIGITS, SHAPED_WORDS,
    };
    let shape = |primes, words, mwords| NarrowShape {
        primes,
        words,
        mwords,
    };
    let cases = [
        (CrtPass::ProjectNarrow { signed: false }, shape(18, 4, 0)),
        (CrtPass::ProjectNarrow { signed: true }, shape(5, 1, 0)),
        (
            CrtPass::ProjectNarrow { signed: true },
            shape(69, SHAPED_WORDS, 0),
        ),
        (CrtPass::ExplicitNarrow, shape(18, 10, 4)),
        (CrtPass::ExplicitNarrow, shape(1, 1, 1)),
        (
            CrtPass::ExplicitNarrow,
            shape(MAX_PRIMES - 1, NARROW_DIGITS, 5),
        ),
    ];
    for (pass, shape) in cases {
        let source = shaped_source(pass, shape).unwrap();
        let out = compile_or_show(nvrtc, "crt_shaped", &source, SM90_CUBIN);
        let resources = out.resources();
        eprintln!("{}: {resources:?}", pass.shaped_name(shape));
        let r = resources
            .iter()
            .find(|r| r.kernel == pass.shaped_name(shape))
            .expect("the shaped kernel is in its module");
        // The explicit CRT keeps to 64 registers for a fourth block a multiprocessor and
        // spills a few to L1 (faster so on an H200); the projections spill nothing.
        let most = match pass {
            CrtPass::ExplicitNarrow => 256,
            _ => 0,
        };
        assert!(r.spill_stores <= most, "{} spills: {r:?}", r.kernel);
    }
}
