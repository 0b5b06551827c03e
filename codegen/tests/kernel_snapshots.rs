//! Snapshots of representative kernels emitted from plans — a word-prime radix-16 stage, the
//! DFT16 base case of P3 (shifts only), a P3 kernel with the between-stage twiddles, a P2
//! kernel whose shifts are specialised on warp-uniform bits, a word-prime round reading whole
//! twiddles from its table — and a check that each
//! compiles with NVRTC for sm_90.

use fermat_codegen::cost::FieldShape;
use fermat_codegen::header::Header;
use fermat_codegen::kernel::{emit, EmitOptions};
use fermat_codegen::{nvrtc, unit, Plan, PlanOptions, Roots};
use fermat_dsl::derive::{derive, Options, Strategy};
use fermat_dsl::field::{AnyField, FieldSpec};
use fermat_dsl::formula::Formula;
use fermat_dsl::with_field;

/// The kernels of DFT(n) (prop3 with radix K when n = K^e, e ≥ 2) over `spec`.
fn kernels(spec: &str, n: u64, radix: u64, max_local_bits: u32) -> (AnyField, Vec<String>, String) {
    kernels_by(spec, n, radix, max_local_bits, Strategy::Prop3)
}

/// The kernels of DFT(n) derived by `strategy` with radix K over `spec`.
fn kernels_by(
    spec: &str,
    n: u64,
    radix: u64,
    max_local_bits: u32,
    strategy: Strategy,
) -> (AnyField, Vec<String>, String) {
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let formula = if n == radix {
        Formula::dft(n).unwrap()
    } else {
        derive(&Formula::dft(n).unwrap(), strategy, &Options::radix(radix))
            .unwrap()
            .final_formula()
    };
    let plan = Plan::lower(
        &formula,
        PlanOptions {
            max_local_bits,
            ..PlanOptions::default()
        },
    )
    .unwrap();
    let shape = FieldShape::of(&any);
    let emitted = with_field!(&any, f => {
        let roots = Roots::canonical_lazy(f, plan.max_log_order(), plan.n()).unwrap();
        emit(f, &shape, &plan, &roots, &EmitOptions::default(), "fwd").unwrap()
    });
    let header = Header::new("kernel_snapshots test", any.name());
    let source = unit::render(&header, &any, &emitted.tables, &emitted.kernels).unwrap();
    let texts = emitted.kernels.iter().map(|k| k.to_string()).collect();
    (any, texts, source)
}

fn compiles(source: &str, what: &str) {
    match nvrtc::compile(source, nvrtc::SM90_PTX) {
        Ok(_) => {}
        Err(nvrtc::NvrtcError::NotFound { .. }) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipping the NVRTC check of {what}: NVRTC not found (run .ci/nvrtc.sh)")
        }
        Err(e) => panic!("{what} does not compile: {e}"),
    }
}

#[test]
fn word_prime_radix_16_stage() {
    let (_, k, source) = kernels("babybear", 256, 16, 4);
    assert_eq!(k.len(), 2, "two passes of one radix-16 stage each");
    insta::assert_snapshot!("babybear_256_stage_0", k[0]);
    compiles(&source, "the babybear stages");
}

#[test]
fn word_prime_codelet_table() {
    // The second round of the first pass reads its input twiddles from the kernel's own
    // table and hands their common factor to the output twist.
    let (_, k, source) = kernels_by("babybear", 1 << 12, 4, 6, Strategy::Ct);
    assert!(
        source.contains("__device__ const fe_word_t fwd_k0_t"),
        "the first pass has a table of its own"
    );
    let table = source
        .split("__device__ const fe_word_t ")
        .nth(1)
        .and_then(|rest| rest.split("};").next())
        .expect("a table");
    insta::assert_snapshot!(
        "babybear_4096_codelet_table",
        format!("{table}}};\n\n{}", k[0])
    );
    compiles(&source, "the babybear passes with codelet tables");
}

#[test]
fn word_prime_whole_table() {
    // DFT(2048) in one pass of three rounds: the middle round's input twiddles depend on
    // seven run-time bits and have no output twist to take a common factor, so they are
    // read whole from a table of 16 rows of 2^7 entries, indexed by the thread's bits.
    let (_, k, source) = kernels_by("babybear", 2048, 16, 11, Strategy::Ct);
    assert_eq!(k.len(), 1, "one pass");
    let table = source
        .split("__device__ const fe_word_t fwd_k0_t0[")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the middle round's table");
    assert_eq!(table, "2048", "16 rows of 2^7 entries");
    let middle = k[0]
        .split("// DFT(16) along tile bits [3, 4, 5, 6]")
        .nth(1)
        .and_then(|rest| rest.split("__syncthreads").next())
        .expect("the middle round");
    assert!(!middle.contains("g0_0"), "no twiddle is derived");
    insta::assert_snapshot!("babybear_2048_whole_table_round", middle);
    compiles(&source, "the babybear pass with a whole table");
}

#[test]
fn p3_dft16_base_case() {
    let (_, k, source) = kernels("P3", 16, 16, 4);
    assert_eq!(k.len(), 1);
    assert!(
        k[0].contains("fe_mul_rpow<"),
        "the base case multiplies by powers of r with shifts"
    );
    assert!(
        !k[0].contains("fe_mul_mont"),
        "and never with a full multiplication"
    );
    insta::assert_snapshot!("p3_dft16", k[0]);
    compiles(&source, "the P3 DFT16");
}

#[test]
fn p3_twiddle_kernel() {
    let (_, k, source) = kernels("P3", 256, 16, 4);
    assert_eq!(k.len(), 2);
    // The D(16,16) twist follows the first pass's DFT(16)s: it is applied to their outputs
    // in registers. All 256 powers of ω_256 fit the table, so ω_256^e is row e: a full
    // multiplication, and no digit shift after it.
    assert!(k[0].contains("fe_mul_mont(x"), "{}", k[0]);
    assert!(k[0].contains("fe_load_row(tw, (size_t)e"), "{}", k[0]);
    assert!(!k[0].contains("fe_mul_rpow_rt"), "{}", k[0]);
    assert!(
        !k[1].contains("fe_mul_mont"),
        "the last pass has no twiddles"
    );
    insta::assert_snapshot!("p3_256_twiddle_pass", k[0]);
    compiles(&source, "the P3 DFT(256) passes");
}

#[test]
fn p2_uniform_shifts() {
    // A radix-2 split of DFT(256) over P2 (2k = 8): twiddles of order 4 and 8 inside a pass
    // are shifts by powers of r. Their exponent bits go to the warp index, and a switch on
    // them applies each case's shifts at compile time instead of a barrel shift per element.
    let (_, k, source) = kernels_by("P2", 256, 2, 5, Strategy::Ct);
    let specialised: Vec<&String> = k.iter().filter(|k| k.contains("switch (")).collect();
    assert!(!specialised.is_empty(), "{k:?}");
    assert!(
        specialised[0].contains("fe_mul_rpow<"),
        "{}",
        specialised[0]
    );
    assert!(
        !specialised[0].contains("fe_mul_rpow_rt"),
        "{}",
        specialised[0]
    );
    insta::assert_snapshot!("p2_256_uniform_shifts", specialised[0]);
    compiles(&source, "the P2 radix-2 passes");
}

/// The kernels of the cyclic product of n points over `spec`: the forward transform that
/// reads a short polynomial, and the inverse with the pointwise product and a short output.
fn product_kernels(spec: &str, n: u64, max_local_bits: u32) -> (Vec<String>, Vec<String>, String) {
    use fermat_codegen::design::{design, DesignOptions};
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let d = design(
        &any,
        n,
        &DesignOptions {
            max_local_bits: Some(max_local_bits),
            ..DesignOptions::default()
        },
    )
    .unwrap();
    let (forward, inverse) = d.convolution_plans().unwrap();
    let shape = FieldShape::of(&any);
    let (fwd, inv) = with_field!(&any, f => {
        let roots = Roots::canonical_lazy(f, forward.max_log_order(), n).unwrap();
        let opts = EmitOptions::default();
        (
            emit(f, &shape, &forward, &roots, &opts, "fwd").unwrap(),
            emit(f, &shape, &inverse, &roots, &opts, "inv").unwrap(),
        )
    });
    let header = Header::new("kernel_snapshots test", any.name());
    let tables: Vec<_> = fwd.tables.iter().chain(&inv.tables).cloned().collect();
    let kernels: Vec<_> = fwd.kernels.iter().chain(&inv.kernels).cloned().collect();
    let source = unit::render(&header, &any, &tables, &kernels).unwrap();
    let text =
        |e: &fermat_codegen::kernel::Emitted| e.kernels.iter().map(|k| k.to_string()).collect();
    (text(&fwd), text(&inv), source)
}

#[test]
fn product_kernels_read_short_inputs_and_multiply_in_the_inverse() {
    let (fwd, inv, source) = product_kernels("babybear", 256, 4);
    assert_eq!((fwd.len(), inv.len()), (2, 2));
    // The forward's first pass reads a polynomial: zero beyond its length, its stride.
    assert!(
        fwd[0].contains("in_len") && fwd[0].contains("src_stride"),
        "{}",
        fwd[0]
    );
    assert!(
        !fwd[1].contains("in_len"),
        "only the first pass reads the polynomial"
    );
    // The inverse's first pass multiplies by the operand (and by 1/n in the product's
    // second reduction); its last writes the product.
    assert!(
        inv[0].contains("fe_mul_mont(fe_mul_mont(") && inv[0].contains("opb"),
        "{}",
        inv[0]
    );
    assert!(
        inv[1].contains("out_len") && inv[1].contains("dst_stride"),
        "{}",
        inv[1]
    );
    insta::assert_snapshot!("babybear_256_product_forward_gather", fwd[0]);
    insta::assert_snapshot!("babybear_256_product_inverse_pointwise", inv[0]);
    compiles(&source, "the babybear product kernels");
    let (_, inv, source) = product_kernels("P3", 4096, 6);
    insta::assert_snapshot!("p3_4096_product_inverse_store", inv[inv.len() - 1]);
    compiles(&source, "the P3 product kernels");
}

/// The fused product kernel of n points over `spec` ([`emit_product`]) and its source.
fn fused_kernel(spec: &str, n: u64) -> (String, String) {
    use fermat_codegen::design::{design, DesignOptions};
    use fermat_codegen::kernel::emit_product;
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let d = design(&any, n, &DesignOptions::default()).unwrap();
    let (forward, inverse) = d.convolution_plans().unwrap();
    let shape = FieldShape::of(&any);
    let fused = with_field!(&any, f => {
        let roots = Roots::canonical_lazy(f, forward.max_log_order(), n).unwrap();
        emit_product(f, &shape, &forward, &inverse, &roots, &EmitOptions::default(), "mul")
            .unwrap()
            .expect("one pass each way")
    });
    let header = Header::new("kernel_snapshots test", any.name());
    let source = unit::render(
        &header,
        &any,
        &fused.tables,
        std::slice::from_ref(&fused.kernel),
    )
    .unwrap();
    (fused.kernel.to_string(), source)
}

#[test]
fn fused_product_kernels() {
    let (kernel, source) = fused_kernel("babybear", 64);
    // Three phases on the shared vector mid, the second factor's multiplied in place.
    for phase in ["into mid", "multiplied into mid", "of mid into the product"] {
        assert!(kernel.contains(phase), "{kernel}");
    }
    insta::assert_snapshot!("babybear_64_fused_product", kernel);
    compiles(&source, "the babybear fused product");
    for (spec, n) in [("goldilocks", 1024), ("P3", 256), ("babybear", 2048)] {
        let (_, source) = fused_kernel(spec, n);
        compiles(&source, &format!("the {spec} fused product of {n} points"));
    }
}

#[test]
fn whole_transforms_read_their_sources_in_their_first_rounds() {
    // A fused product of 2^11 points gathers nothing: its forward transforms read their
    // factors in their first rounds (thread tq takes elements tq + 128·v, coalesced), and
    // its inverse reads mid, written in the layout of its tile, as its tile.
    let (kernel, _) = fused_kernel("babybear", 2048);
    assert!(!kernel.contains("gather the tile"), "{kernel}");
    assert!(
        kernel.contains("fe_load(in, (size_t)(base + 128u), src_stride)"),
        "{kernel}"
    );
    let inverse = kernel
        .split("the inverse transform of mid into the product")
        .nth(1)
        .expect("a third phase");
    assert!(
        inverse.contains("fe_load(in, sbase + 8u, 2175ull)"),
        "{inverse}"
    );
    // Both forward phases write mid at the inverse tile's slots: one padding word every 16.
    assert!(
        kernel.contains("__shared__ fe_word_t mid[2175];"),
        "{kernel}"
    );
    // A transform of one pass and three rounds reads its source likewise; a pass of
    // 2^20 points, a block's tile of it, still gathers.
    let (_, one_pass, _) = kernels("babybear", 4096, 16, 12);
    assert_eq!(one_pass.len(), 1);
    assert!(!one_pass[0].contains("gather the tile"), "{}", one_pass[0]);
    let (_, passes, _) = kernels("babybear", 1 << 20, 16, 12);
    assert!(passes.len() > 1);
    assert!(passes.iter().all(|k| k.contains("gather the tile")));
}

/// The pointwise product's store in phase 2 of a fused kernel's source.
fn pointwise_store(kernel: &str) -> &str {
    kernel
        .split("the second factor's transform, multiplied into mid")
        .nth(1)
        .and_then(|rest| rest.split("the inverse transform of mid").next())
        .and_then(|phase| phase.lines().rev().find(|l| l.contains("fe_store(out")))
        .expect("phase 2 stores into mid")
}

#[test]
fn fused_products_fold_one_over_n() {
    // babybear 2^11 and 2^9, goldilocks 2^10: the inverse's middle round reads whole
    // twiddles, which carry R/n, so the pointwise product reduces once.
    for (spec, n) in [("babybear", 2048), ("babybear", 512), ("goldilocks", 1024)] {
        let (kernel, _) = fused_kernel(spec, n);
        let store = pointwise_store(&kernel);
        assert_eq!(
            store.matches("fe_mul_mont(").count(),
            1,
            "{spec} {n}: {store}"
        );
    }
    // 2^6 has no whole-table round: R²/n rides on the pointwise product's second reduction.
    let (kernel, _) = fused_kernel("babybear", 64);
    let store = pointwise_store(&kernel);
    assert!(store.contains("fe_mul_mont(fe_mul_mont("), "{store}");
}

/// The kernels of products besides transforms: the FFT product's fold, recombination and
/// overlap-add, and the plain product's tile and reduce kernels (a word prime's tile of
/// 256 and P3's of 128).
#[test]
fn product_pass_kernels() {
    use fermat_codegen::plain::{PlainPass, Tile};
    use fermat_codegen::poly::ProductPass;
    let passes: Vec<String> = ProductPass::ALL
        .iter()
        .map(|p| p.kernel().to_string())
        .collect();
    insta::assert_snapshot!("fft_product_passes", passes.join("\n"));
    for (name, bytes) in [("word", 4), ("p3", 64)] {
        let tile = Tile::for_element_bytes(bytes);
        let plain: Vec<String> = PlainPass::ALL
            .iter()
            .map(|p| p.kernel(tile).to_string())
            .collect();
        insta::assert_snapshot!(format!("plain_product_{name}"), plain.join("\n"));
    }
}

/// The CRT route's projection, recombination and reduction kernels, signed and unsigned.
#[test]
fn crt_kernels() {
    let kernels: Vec<String> = fermat_codegen::crt::CrtPass::ALL
        .iter()
        .map(|p| p.kernel().to_string())
        .collect();
    insta::assert_snapshot!("crt_kernels", kernels.join("\n"));
}

/// The narrow CRT kernels in the shape of BN254's products of length 2^20: eighteen
/// 31-bit primes, operands of four words, m of ten digits and four words.
#[test]
fn crt_shaped_kernels() {
    use fermat_codegen::crt::{CrtPass, NarrowShape};
    let project = NarrowShape {
        primes: 18,
        words: 4,
        mwords: 0,
    };
    let explicit = NarrowShape {
        primes: 18,
        words: 10,
        mwords: 4,
    };
    let kernels = [
        CrtPass::ProjectNarrow { signed: false }.shaped_kernel(project),
        CrtPass::ExplicitNarrow.shaped_kernel(explicit),
    ]
    .map(|k| k.unwrap().to_string());
    insta::assert_snapshot!("crt_shaped_kernels", kernels.join("\n"));
}

/// The on-chip Euclidean algorithm: a whole remainder sequence per block, in dynamic
/// shared memory.
#[test]
fn euclid_kernels() {
    let kernels: Vec<String> = fermat_codegen::euclid::EuclidPass::ALL
        .iter()
        .map(|p| p.kernel().to_string())
        .collect();
    insta::assert_snapshot!("euclid_kernels", kernels.join("\n"));
}

/// The passes of a transform split over devices: the twiddled DFT(G) after an exchange,
/// its inverse (alone and with a pointwise product), and the local stride permutation.
#[test]
fn split_kernels() {
    let kernels: Vec<String> = fermat_codegen::split::SplitPass::ALL
        .iter()
        .map(|p| p.kernel().to_string())
        .collect();
    insta::assert_snapshot!("split_kernels", kernels.join("\n"));
}

/// The middle kernel of n points over `spec` ([`emit_middle`]) and its source.
///
/// [`emit_middle`]: fermat_codegen::kernel::emit_middle
fn middle_kernel(spec: &str, n: u64) -> (String, String) {
    use fermat_codegen::design::{design, DesignOptions};
    use fermat_codegen::kernel::emit_middle;
    let any = FieldSpec::parse(spec).unwrap().build().unwrap();
    let d = design(&any, n, &DesignOptions::default()).unwrap();
    let (forward, inverse) = d.convolution_plans().unwrap();
    let shape = FieldShape::of(&any);
    let middle = with_field!(&any, f => {
        let roots = Roots::canonical_lazy(f, forward.max_log_order(), n).unwrap();
        emit_middle(f, &shape, &forward, &inverse, &roots, &EmitOptions::default(), "mid")
            .unwrap()
            .expect("two passes each way")
    });
    let header = Header::new("kernel_snapshots test", any.name());
    let source = unit::render(
        &header,
        &any,
        &middle.tables,
        std::slice::from_ref(&middle.kernel),
    )
    .unwrap();
    (middle.kernel.to_string(), source)
}

#[test]
fn word_prime_products_scale_in_the_pointwise_product() {
    // A word prime's product inverse takes 1/n in its pointwise product's second reduction
    // — the plan's own first pass and the middle kernel alike — and no pass scales.
    use fermat_codegen::design::{design, DesignOptions};
    use fermat_codegen::kernel::emit_middle;
    let opts = EmitOptions::default();
    for (spec, folded) in [("babybear", true), ("goldilocks", true), ("P3", false)] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        let n = if folded { 1 << 13 } else { 1024 };
        let (forward, inverse) = design(&any, n, &DesignOptions::default())
            .unwrap()
            .convolution_plans()
            .unwrap();
        let shape = FieldShape::of(&any);
        let (middle, inv) = with_field!(&any, f => {
            let roots = Roots::canonical_lazy(f, forward.max_log_order(), n).unwrap();
            (
                emit_middle(f, &shape, &forward, &inverse, &roots, &opts, "mid").unwrap().unwrap(),
                emit(f, &shape, &inverse, &roots, &opts, "inv").unwrap(),
            )
        });
        // The scaling multiplies by n^(−1), the twiddle table's last row.
        let n_inverse = format!("fe_load_row(tw, {}ull)", inv.layout.rows() - 1);
        let (first, last) = (inv.kernels[0].to_string(), inv.kernels[1].to_string());
        let middle = middle.kernel.to_string();
        if folded {
            assert!(!last.contains(&n_inverse), "{spec}: {last}");
            assert!(
                first.contains("fe_mul_mont(fe_mul_mont("),
                "{spec}: {first}"
            );
            assert!(
                middle.contains("fe_mul_mont(fe_mul_mont("),
                "{spec}: {middle}"
            );
        } else {
            assert!(
                first.contains("fe_mul(") && middle.contains("fe_mul("),
                "{spec}"
            );
        }
    }
}

#[test]
fn middle_product_kernels() {
    let (kernel, source) = middle_kernel("babybear", 1 << 13);
    // Three phases on the block's run of dst, the second factor's multiplied in place.
    for phase in ["into dst", "multiplied into dst", "this block's run of dst"] {
        assert!(kernel.contains(phase), "{kernel}");
    }
    insta::assert_snapshot!("babybear_8192_middle_product", kernel);
    compiles(&source, "the babybear middle product");
    for (spec, n) in [
        ("469762049", 1 << 21),
        ("goldilocks", 1 << 16),
        ("P3", 1024),
    ] {
        let (_, source) = middle_kernel(spec, n);
        compiles(&source, &format!("the {spec} middle product of {n} points"));
    }
}
