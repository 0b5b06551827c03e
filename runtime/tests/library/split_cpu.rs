//! Transforms and products split over G devices simulated on the CPU equal the one-device
//! transform and the schoolbook product, for G = 2, 4, 8, every distribution, word primes
//! and SRGFNs: the lowering of the derived stages checked without a GPU.

use fermat::dsl::{with_field, FieldSpec};
use fermat::poly::{Poly, PolyRing};
use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan, Step};
use fermat::{Backend, Direction, Error, FftOptions, FftPlan, HostField};
use rand::SeedableRng;

fn random<F: HostField>(field: &F, n: usize, seed: u64) -> Vec<F::Host> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut v: Vec<F::Host> = Poly::random(field, n, &mut rng)
        .coeffs()
        .iter()
        .map(|c| field.to_host(c))
        .collect();
    v.resize(n, field.to_host(&field.zero()));
    v
}

fn poly<F: HostField>(field: &F, host: &[F::Host]) -> Poly<F> {
    Poly::new(
        field,
        host.iter().map(|h| field.to_elem(h).unwrap()).collect(),
    )
}

fn check_transforms<F: HostField>(field: &F, n: u64, g: usize) {
    let one = FftPlan::new(
        field,
        n,
        FftOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
    )
    .unwrap();
    let x = random(field, n as usize, n + g as u64);
    let mut want = x.clone();
    one.forward(&mut want).unwrap();
    for (input, output) in Distribution::JOINED {
        let options = SplitOptions {
            input,
            output,
            ..Default::default()
        };
        let plan = SplitPlan::new(field, n, SplitDevices::Cpu(g), options).unwrap();
        let what = format!("{} N = {n} G = {g} {input} → {output}", field.name());
        let y = plan.forward(&x).unwrap();
        assert!(y == want, "{what}");
        assert!(plan.inverse(&y).unwrap() == x, "{what}: the inverse");
    }
}

#[test]
fn split_transforms_equal_the_one_device_transform() {
    for spec in ["469762049", "babybear", "goldilocks", "P2"] {
        let field = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&field, f => {
            for (n, g) in [(4u64, 2usize), (64, 2), (256, 4), (1 << 12, 8), (1 << 14, 2)] {
                check_transforms(f, n, g);
            }
        });
    }
}

#[test]
fn split_products_equal_the_ring_product() {
    for spec in ["469762049", "goldilocks", "P3"] {
        let field = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&field, f => {
            let ring = PolyRing::new(f, Backend::Cpu).unwrap();
            let cyclic = SplitOptions { output: Distribution::Cyclic, ..Default::default() };
            for (n, g, la, lb) in [(64u64, 2usize, 32, 33), (256, 4, 200, 57), (1 << 10, 8, 1, 1000)] {
                for options in [SplitOptions::default(), cyclic.clone()] {
                    let output = options.output;
                    let plan = SplitPlan::new(f, n, SplitDevices::Cpu(g), options).unwrap();
                    let (a, b) = (random(f, la, 1), random(f, lb, 2));
                    let c = plan.mul(&a, &b).unwrap();
                    let want = ring.mul(&poly(f, &a), &poly(f, &b)).unwrap();
                    let got = poly(f, &c);
                    assert!(got == want, "{spec}: {la} × {lb} on {g} devices, {output} output");
                }
            }
        });
    }
}

#[test]
fn plans_go_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<SplitPlan<fermat::dsl::Fp32>>();
    send_sync::<SplitPlan<fermat::dsl::Srgfn<8>>>();
}

#[test]
fn the_steps_follow_the_distributions() {
    let f = fermat::dsl::Fp32::new(469762049).unwrap();
    let plan = |input, output| {
        let options = SplitOptions {
            input,
            output,
            ..Default::default()
        };
        SplitPlan::new(&f, 1 << 10, SplitDevices::Cpu(4), options).unwrap()
    };
    let one = plan(Distribution::Cyclic, Distribution::Transposed);
    assert_eq!(
        one.steps(Direction::Forward),
        [
            Step::Local(Direction::Forward),
            Step::Exchange,
            Step::Butterfly(fermat::codegen::split::SplitPass::Forward)
        ]
    );
    assert_eq!(one.exchanges(), 1);
    let six = plan(Distribution::Blocks, Distribution::Blocks);
    assert_eq!(six.exchanges(), 3);
    assert_eq!(
        six.steps(Direction::Forward)[0],
        Step::Transpose { back: false }
    );
    assert_eq!(
        six.steps(Direction::Inverse).last(),
        Some(&Step::Transpose { back: true })
    );
    // Cyclic in and out: the fold, the rows with their exchange, the butterfly; with
    // N = G² too, where the rows are of one point.
    use fermat::codegen::split::CyclicPass;
    for n in [1 << 10, 16] {
        let options = SplitOptions {
            output: Distribution::Cyclic,
            ..Default::default()
        };
        let rows = SplitPlan::new(&f, n, SplitDevices::Cpu(4), options).unwrap();
        assert_eq!(rows.exchanges(), 1);
        assert_eq!(
            rows.steps(Direction::Forward),
            [
                Step::Cyclic(CyclicPass::Fold),
                Step::Rows(Direction::Forward),
                Step::Cyclic(CyclicPass::Butterfly)
            ]
        );
        assert_eq!(
            rows.steps(Direction::Inverse),
            [
                Step::Cyclic(CyclicPass::Unbutterfly),
                Step::Rows(Direction::Inverse),
                Step::Cyclic(CyclicPass::Unfold)
            ]
        );
    }
}

#[test]
fn bad_splits_are_typed_errors() {
    let f = fermat::dsl::Fp32::new(469762049).unwrap();
    let new = |n, devices| SplitPlan::new(&f, n, devices, SplitOptions::default());
    assert!(matches!(
        new(64, SplitDevices::Cpu(3)),
        Err(Error::Derive(_))
    ));
    assert!(matches!(
        new(32, SplitDevices::Cpu(8)),
        Err(Error::Derive(_))
    ));
    assert!(matches!(
        new(1 << 40, SplitDevices::Cpu(2)),
        Err(Error::Field(_) | Error::Memory { .. })
    ));
    assert!(matches!(
        new(64, SplitDevices::Gpu(vec![1, 0, 1, 2])),
        Err(Error::DeviceTwice { ordinal: 1 })
    ));
    let plan = new(64, SplitDevices::Cpu(2)).unwrap();
    let err = plan.forward(&[1u32; 63]).unwrap_err();
    assert!(
        matches!(err, Error::SplitLength { len: 63, n: 64, .. }),
        "{err}"
    );
    assert!(matches!(
        plan.forward(&[u32::MAX; 64]),
        Err(Error::Field(_))
    ));
    assert!(matches!(
        plan.mul(&[1u32; 65], &[1]),
        Err(Error::SplitLength { what: "a", .. })
    ));
    let blocks = SplitPlan::new(
        &f,
        64,
        SplitDevices::Cpu(2),
        SplitOptions {
            output: Distribution::Blocks,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(matches!(
        blocks.mul(&[1], &[1]),
        Err(Error::SplitProduct { output: "blocks" })
    ));
    // A cyclic output needs a cyclic input.
    let err = SplitPlan::new(
        &f,
        64,
        SplitDevices::Cpu(2),
        SplitOptions {
            input: Distribution::Blocks,
            output: Distribution::Cyclic,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("needs a cyclic input"), "{err}");
}

/// Resident runs of a cyclic output: a tile repeated over rows shorter and longer than it,
/// transformed in place twice (each step of the second timed alone), give the host's
/// transform of the host's transform.
#[test]
fn resident_cyclic_runs_keep_their_output() {
    let f = fermat::dsl::Fp32::new(469762049).unwrap();
    let n = 1u64 << 10;
    let options = SplitOptions {
        output: Distribution::Cyclic,
        ..Default::default()
    };
    let plan = SplitPlan::new(&f, n, SplitDevices::Cpu(2), options).unwrap();
    for tile in [vec![3u32, 1, 4, 1], (0..512).collect::<Vec<u32>>()] {
        // Every device's block holds the tile repeated: element i sits at i div G.
        let x: Vec<u32> = (0..n as usize)
            .map(|i| tile[(i / 2) % tile.len()])
            .collect();
        let twice = plan.forward(&plan.forward(&x).unwrap()).unwrap();
        plan.load_resident_tiled(&tile).unwrap();
        plan.forward_resident().unwrap();
        assert_eq!(plan.time_steps().unwrap().len(), 3);
        assert_eq!(
            plan.read_resident().unwrap(),
            twice,
            "a tile of {}",
            tile.len()
        );
    }
}
