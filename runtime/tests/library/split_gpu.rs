//! On a machine with several GPUs: transforms and products split over GPUs 0 and 1
//! (exchanging through NCCL) equal the CPU's, for word primes of both widths and SRGFNs,
//! every distribution. Without a driver, or with fewer than two devices, the test skips
//! saying why (`FERMAT_REQUIRE_GPU=1` makes a missing driver or NCCL a failure).

use fermat::dsl::{with_field, FieldSpec};
use fermat::poly::{Poly, PolyRing};
use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan};
use fermat::{Backend, Error, FftOptions, FftPlan, HostField};
use rand::{Rng, SeedableRng};

/// GPUs 0 and 1, or None after saying why they cannot be used.
fn two_gpus() -> Option<SplitDevices> {
    let required = std::env::var("FERMAT_REQUIRE_GPU").as_deref() == Ok("1");
    if !fermat::gpu::driver_present() {
        assert!(!required, "FERMAT_REQUIRE_GPU=1 but no CUDA driver");
        eprintln!("skipping: no CUDA driver");
        return None;
    }
    let count = fermat::gpu::device_count();
    if count < 2 {
        eprintln!("skipping: a split needs two GPUs; this machine has {count}");
        return None;
    }
    Some(SplitDevices::Gpu(vec![0, 1]))
}

fn check<F: HostField>(field: &F, n: u64, devices: &SplitDevices) -> Result<(), Error> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n);
    let mut random = |len: usize| -> Vec<F::Host> {
        (0..len)
            .map(|_| field.to_host(&field.from_u64(rng.gen())))
            .collect()
    };
    let x = random(n as usize);
    let mut want = x.clone();
    let cpu = FftOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    FftPlan::new(field, n, cpu)?.forward(&mut want)?;
    for input in [Distribution::Cyclic, Distribution::Blocks] {
        for output in [Distribution::Transposed, Distribution::Blocks] {
            let options = SplitOptions {
                input,
                output,
                ..Default::default()
            };
            let plan = SplitPlan::new(field, n, devices.clone(), options)?;
            let y = plan.forward(&x)?;
            assert!(y == want, "{} N = {n} {input} → {output}", field.name());
            assert!(
                plan.inverse(&y)? == x,
                "{} N = {n} {input} → {output} back",
                field.name()
            );
        }
    }
    let plan = SplitPlan::new(field, n, devices.clone(), SplitOptions::default())?;
    let (a, b) = (random(n as usize / 2), random(n as usize / 2 - 1));
    let poly =
        |h: &[F::Host]| Poly::new(field, h.iter().map(|v| field.to_elem(v).unwrap()).collect());
    let ring = PolyRing::new(field, Backend::Cpu)?;
    let c = plan.mul(&a, &b)?;
    assert!(
        poly(&c) == ring.mul(&poly(&a), &poly(&b))?,
        "{} product N = {n}",
        field.name()
    );
    Ok(())
}

#[test]
fn split_transforms_and_products_on_two_gpus() {
    let Some(devices) = two_gpus() else {
        return;
    };
    for spec in ["babybear", "goldilocks", "P1", "P3"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        for n in [1u64 << 8, 1 << 16] {
            match with_field!(&any, f => check(f, n, &devices)) {
                Ok(()) => {}
                Err(Error::Nccl { why })
                    if std::env::var("FERMAT_REQUIRE_GPU").as_deref() != Ok("1") =>
                {
                    eprintln!("skipping: {why}");
                    return;
                }
                Err(e) => panic!("{spec} N = {n}: {e}"),
            }
        }
    }
}
