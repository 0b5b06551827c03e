//! `fermat::fft!` types: the numbered example against the reference vectors, the embedded
//! CUDA source against `fermat gen`, and every option of the macro on the CPU backend.

use fermat::dsl::interp::dft_entry;
use fermat::{Backend, Error, Field, HostField, Order, Strategy};
use fermat_tests::{big, load};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../examples/01-fft-macro.rs"]
#[allow(dead_code)]
mod example;
use crate::gpu::on_gpu;

fermat::fft! {
    /// P3 at 16^4 points with the defaults of `fermat gen`.
    struct P3x65536;
    field = P3, n = 65536, strategy = prop3, radix = 16
}

fermat::fft! {
    /// The catalogue's P3 transform of 4096 points, all defaults.
    struct P3Default;
    field = P3, n = 4096
}

fermat::fft! {
    pub(crate) struct Goldilocks64;
    field = goldilocks, n = 64, batch = 2, strategy = radix2, radix = 4,
}

fermat::fft! {
    struct BabyBearForward;
    field = babybear, n = 1024, inverse = false
}

fermat::fft! {
    struct AtOmegaCubed;
    // ω_16^3 for 469762049, where ω_16 is the canonical 16th root.
    field = 469762049, n = 16, root = 444569212, output = bitreversed
}

fermat::fft! {
    struct P2Small;
    field = "srgfn:64,50,-,4", n = 64, max_local_bits = 4, inverse
}

fn cpu() -> Backend {
    Backend::Cpu
}

#[test]
fn the_example_matches_the_reference_vectors_on_the_cpu() {
    let lines = example::run(cpu()).unwrap();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("equal the reference"))
            .count(),
        2,
        "{lines:#?}"
    );
}

/// Runs `command` (a `fermat gen …` line) with `-o dir` and reads the CUDA file it writes.
fn fermat_gen(command: &str, dir: &Path) -> String {
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(&args[..2], ["fermat", "gen"], "{command}");
    let status = Command::new(env!("CARGO_BIN_EXE_fermat"))
        .args(&args[1..])
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let cu: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    assert_eq!(cu.len(), 1, "{command} wrote {cu:?}");
    std::fs::read_to_string(&cu[0]).unwrap()
}

#[test]
fn the_embedded_source_is_what_fermat_gen_writes() {
    let root = std::env::temp_dir().join(format!("fermat-fft-macro-{}", std::process::id()));
    for (i, (command, source)) in [
        (P3x65536::COMMAND, P3x65536::CUDA_SOURCE),
        (example::P3x4096::COMMAND, example::P3x4096::CUDA_SOURCE),
        (example::Word4096::COMMAND, example::Word4096::CUDA_SOURCE),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = root.join(i.to_string());
        let written = fermat_gen(command, &dir);
        assert!(written == source, "{command}: the sources differ");
    }
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        P3x65536::COMMAND,
        "fermat gen --field P3 --n 65536 --radix 16 --strategy prop3 --max-local-bits 6"
    );
    // And the catalogue's file of the same transform, checked in.
    let catalogue = include_str!("../../../generated/P3_n4096.cu");
    assert!(P3Default::CUDA_SOURCE == catalogue);
}

#[test]
fn constants_describe_the_transform() {
    assert_eq!(P3x65536::N, 65536);
    assert_eq!(P3x65536::FIELD, "P3");
    assert_eq!(P3x65536::RADIX, 16);
    assert_eq!(P3x65536::STRATEGY, Strategy::Prop3);
    assert_eq!(P3x65536::BATCH, None);
    assert!(P3x65536::DERIVATION.starts_with("start  DFT(65536)\n 1. prop3 at root"));
    assert!(P3x65536::DERIVATION.ends_with(&format!("final  {}\n", P3x65536::FORMULA)));
    assert!(P3x65536::CUDA_SOURCE.contains("fwd_k0") && P3x65536::CUDA_SOURCE.contains("inv_k0"));
    let e = P3x65536::EMBEDDED;
    assert_eq!(e.forward.len(), e.inverse.unwrap().len());
    assert_eq!(e.codegen_version, fermat::design::CODEGEN_VERSION);
    assert_eq!(Goldilocks64::BATCH, Some(2));
    assert_eq!(Goldilocks64::STRATEGY, Strategy::Radix2);
    assert_eq!(AtOmegaCubed::EMBEDDED.output_order, Order::BitReversed);
    assert!(AtOmegaCubed::COMMAND.starts_with("fermat::fft! field = 469762049"));
}

#[test]
fn plans_report_their_cost_and_backend() {
    let plan = P3x65536::new(cpu()).unwrap();
    let cost = plan.cost();
    assert_eq!(cost.n, 65536);
    assert_eq!(
        cost.passes(),
        P3x65536::EMBEDDED.forward.len(),
        "one pass per kernel"
    );
    assert!(cost.total(|k| k.full_muls) > 0);
    assert_eq!(plan.running(), &fermat::Running::Cpu { reason: None });
    assert_eq!(plan.plan().n(), 65536);
    let shown = format!("{plan:?}");
    assert!(
        shown.starts_with("P3x65536 { field: \"P3\", n: 65536"),
        "{shown}"
    );
}

#[test]
fn fixed_batches_match_the_reference_and_refuse_other_lengths() {
    let plan = Goldilocks64::new(cpu()).unwrap();
    let file = load("goldilocks");
    let case = file.ffts.iter().find(|c| c.n == 64).unwrap();
    let parse = |v: &[String]| -> Vec<u64> {
        v.iter()
            .map(|s| u64::try_from(big(s)).unwrap())
            .collect::<Vec<_>>()
    };
    let (input, output) = (parse(&case.input), parse(&case.output));
    let mut data = [input.clone(), input.clone()].concat();
    plan.forward(&mut data).unwrap();
    assert_eq!(data, [output.clone(), output].concat());
    plan.inverse(&mut data).unwrap();
    assert_eq!(data, [input.clone(), input.clone()].concat());
    let mut one = input;
    let err = plan.forward(&mut one).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Batch {
                len: 64,
                n: 64,
                batch: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("exactly 2 vectors"), "{err}");
}

#[test]
fn forward_only_types_carry_no_inverse_kernels() {
    assert!(!BabyBearForward::CUDA_SOURCE.contains("inv_k"));
    assert!(BabyBearForward::EMBEDDED.inverse.is_none());
    let plan = BabyBearForward::new(cpu()).unwrap();
    let field = plan.field().clone();
    let x: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 2_013_265_921)
        .collect();
    let mut y = x.clone();
    plan.forward(&mut y).unwrap();
    let elems: Vec<_> = x.iter().map(|v| field.to_elem(v).unwrap()).collect();
    let omega = field.root_of_unity(1024).unwrap();
    for i in [0, 1, 511, 1023] {
        assert_eq!(
            field.to_elem(&y[i]).unwrap(),
            dft_entry(&field, &elems, &omega, i)
        );
    }
}

#[test]
fn a_root_of_the_users_is_used_and_orders_are_honoured() {
    let plan = AtOmegaCubed::new(cpu()).unwrap();
    let field = plan.field().clone();
    let omega = field.root_of_unity(16).unwrap();
    let cubed = field.pow_u64(&omega, 3);
    assert_eq!(field.to_biguint(&cubed), 444_569_212u32.into());
    let x: Vec<u32> = (1..=16).collect();
    let mut y = x.clone();
    plan.forward(&mut y).unwrap();
    let elems: Vec<_> = x.iter().map(|v| field.to_elem(v).unwrap()).collect();
    for i in 0..16usize {
        let at = i.reverse_bits() >> (usize::BITS - 4);
        assert_eq!(
            field.to_elem(&y[at]).unwrap(),
            dft_entry(&field, &elems, &cubed, i),
            "output {i} (bit-reversed order)"
        );
    }
}

#[test]
fn srgfns_named_by_parameters_round_trip() {
    let plan = P2Small::new(cpu()).unwrap();
    assert_eq!(P2Small::FIELD, "P2");
    let field = plan.field().clone();
    let x: Vec<[u64; 4]> = (0..64u64)
        .map(|i| field.to_host(&field.from_u64(i * i + 1)))
        .collect();
    let mut y = x.clone();
    plan.forward(&mut y).unwrap();
    assert_ne!(y, x);
    plan.inverse(&mut y).unwrap();
    assert_eq!(y, x);
}

#[test]
fn device_buffers_on_a_cpu_plan_are_typed_errors() {
    let plan = P2Small::new(cpu()).unwrap();
    let err = plan.to_device(&[[0u64; 4]; 64]).err().unwrap();
    assert!(
        err.to_string().contains("device buffers need a GPU plan"),
        "{err}"
    );
    assert!(plan.alloc_device(1).is_err());
    assert!(plan.synchronize().is_err());
}

#[test]
fn embedded_kernels_agree_with_the_cpu_on_a_gpu() {
    let Some(gpu) = on_gpu(P3x65536::new) else {
        return;
    };
    let cpu_plan = P3x65536::new(cpu()).unwrap();
    let field = cpu_plan.field().clone();
    let x: Vec<[u64; 8]> = (0..65536u64)
        .map(|i| field.to_host(&field.from_u64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))))
        .collect();
    let (mut a, mut b) = (x.clone(), x.clone());
    gpu.forward(&mut a).unwrap();
    cpu_plan.forward(&mut b).unwrap();
    assert!(
        a == b,
        "P3, n = 65536: GPU and CPU forward transforms differ"
    );
    gpu.inverse(&mut a).unwrap();
    assert!(
        a == x,
        "P3, n = 65536: the GPU inverse does not give the input back"
    );
    // Device buffers, explicitly.
    let input = gpu.to_device(&x).unwrap();
    let mut output = gpu.alloc_device(1).unwrap();
    gpu.forward_device(&input, &mut output).unwrap();
    gpu.synchronize().unwrap();
    assert!(gpu.from_device(&output).unwrap() == b);

    let batch = on_gpu(Goldilocks64::new).unwrap();
    let file = load("goldilocks");
    let case = file.ffts.iter().find(|c| c.n == 64).unwrap();
    let parse =
        |v: &[String]| -> Vec<u64> { v.iter().map(|s| u64::try_from(big(s)).unwrap()).collect() };
    let mut data = [parse(&case.input), parse(&case.input)].concat();
    batch.forward(&mut data).unwrap();
    assert_eq!(data, [parse(&case.output), parse(&case.output)].concat());
    assert!(batch.alloc_device(1).is_err(), "a batch of 2 is fixed");

    let forward_only = on_gpu(BabyBearForward::new).unwrap();
    let mut y: Vec<u32> = (0..1024).collect();
    forward_only.forward(&mut y).unwrap();
    let err = forward_only.plan().inverse(&mut y).unwrap_err();
    assert!(err.to_string().contains("forward only"), "{err}");
}
