//! `fermat selftest --devices 0,1`: transforms and products split over several devices —
//! GPUs exchanging through NCCL, or with `--cpu` as many devices simulated on the CPU —
//! against the one-device transform and product of the same backend, for every catalogue
//! field, every distribution and sizes from G² up.

use super::{fields, CliError};
use fermat::dsl::field::{CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES};
use fermat::dsl::with_field;
use fermat::poly::{Poly, PolyRing};
use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan};
use fermat::{AnyField, Backend, Error, FftOptions, FftPlan, HostField};
use rand::{Rng, SeedableRng};
use std::process::ExitCode;
use std::time::Instant;

/// What the split selftest runs.
pub struct SplitTest<'a> {
    /// The devices: GPU ordinals, or on the CPU only their number counts.
    pub devices: &'a [usize],
    /// Simulate the devices on the CPU.
    pub cpu: bool,
    /// The largest size, log2.
    pub max_log_n: u32,
    /// The fields chosen (all catalogue fields when empty).
    pub chosen: &'a [AnyField],
    /// The seed of the random inputs.
    pub seed: u64,
}

/// The largest size tested per field, log2: SRGFNs of many words are the slow ones.
fn cap(spec: &str, cpu: bool, max_log_n: u32) -> u32 {
    let top = match spec {
        "P5" | "P6" => {
            if cpu {
                10
            } else {
                16
            }
        }
        _ if cpu => 16,
        _ => 20,
    };
    max_log_n.min(top)
}

/// Runs the split selftest: a row per field and size, then the closing count.
pub fn run(test: &SplitTest<'_>) -> Result<ExitCode, CliError> {
    let devices = super::split_devices(test.devices, test.cpu)?;
    let g = devices.count();
    println!(
        "split over {g} devices ({}); seed {} (rerun with --seed {})",
        if test.cpu {
            "simulated on the CPU".to_string()
        } else {
            format!("GPUs {:?}, exchanging through NCCL", test.devices)
        },
        test.seed,
        test.seed
    );
    let specs: Vec<&str> = CATALOGUE_WORD_PRIMES
        .iter()
        .map(|(name, _)| *name)
        .chain(CATALOGUE_SRGFNS.iter().map(|(name, _)| *name))
        .filter(|s| fields::chosen(test.chosen, s))
        .collect();
    let first = (2 * g.trailing_zeros()).max(4);
    let (mut passed, mut failed) = (0, 0);
    for spec in specs {
        let any = fields::parse(spec)?;
        let top = cap(spec, test.cpu, test.max_log_n).min(any.two_adicity());
        let mut logs: Vec<u32> = (first..=top).step_by(4).collect();
        if logs.last() != Some(&top) && top >= first {
            logs.push(top);
        }
        for log_n in logs {
            let started = Instant::now();
            let result = with_field!(&any, f => check(f, 1 << log_n, &devices, test.seed));
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let name = fields::name(&any);
            match result {
                Ok(checks) => {
                    passed += 1;
                    println!("{name:<12} 2^{log_n:<3} ok: {checks} ({ms:.0} ms)");
                }
                Err(e) => {
                    failed += 1;
                    println!("{name:<12} 2^{log_n:<3} FAILED: {e}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The reference's backend: the CPU, or the first GPU of the split.
fn reference_backend(devices: &SplitDevices) -> Backend {
    match devices {
        SplitDevices::Cpu(_) => Backend::Cpu,
        SplitDevices::Gpu(ordinals) => Backend::Gpu(ordinals[0]),
    }
}

/// Every distribution's forward transform against the one-device one and its inverse
/// back, then a product against one device's ring; what was checked, in words.
fn check<F: HostField>(
    field: &F,
    n: u64,
    devices: &SplitDevices,
    seed: u64,
) -> Result<String, String> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ n);
    let random = |rng: &mut rand_chacha::ChaCha8Rng, len: usize| -> Vec<F::Host> {
        (0..len)
            .map(|_| field.to_host(&field.from_u64(rng.gen())))
            .collect()
    };
    let text = |e: Error| e.to_string();
    let one = FftPlan::new(
        field,
        n,
        FftOptions {
            backend: reference_backend(devices),
            ..Default::default()
        },
    )
    .map_err(text)?;
    let x = random(&mut rng, n as usize);
    let mut want = x.clone();
    one.forward(&mut want).map_err(text)?;
    let mut exchanges = Vec::new();
    let mut product_plans = Vec::new();
    for (input, output) in Distribution::JOINED {
        let options = SplitOptions {
            input,
            output,
            ..Default::default()
        };
        let plan = SplitPlan::new(field, n, devices.clone(), options.clone()).map_err(text)?;
        let y = plan.forward(&x).map_err(text)?;
        if y != want {
            return Err(format!(
                "{input} → {output}: the forward transform differs from one device's"
            ));
        }
        if plan.inverse(&y).map_err(text)? != x {
            return Err(format!(
                "{input} → {output}: the inverse does not give the input back"
            ));
        }
        exchanges.push(plan.exchanges().to_string());
        if output != Distribution::Blocks && input == Distribution::Cyclic {
            product_plans.push(plan);
        }
    }
    // The cyclic split resident on the devices, from tiles shorter and longer than its
    // rows of N/G² points (every device's block is the tile repeated).
    let g = devices.count();
    let cyclic = product_plans
        .iter()
        .find(|p| p.split().output == Distribution::Cyclic)
        .expect("the cyclic output is among those tried");
    for t in [4.min(n as usize / g), n as usize / g] {
        let tile = random(&mut rng, t);
        let mut want: Vec<F::Host> = (0..n as usize).map(|i| tile[(i / g) % t]).collect();
        one.forward(&mut want).map_err(text)?;
        cyclic.load_resident_tiled(&tile).map_err(text)?;
        cyclic.forward_resident().map_err(text)?;
        if cyclic.read_resident().map_err(text)? != want {
            return Err(format!(
                "cyclic → cyclic from a tile of {t}: resident runs differ"
            ));
        }
    }
    let (la, lb) = (n as usize / 2, n as usize / 2);
    let (a, b) = (random(&mut rng, la), random(&mut rng, lb));
    let poly = |h: &[F::Host]| -> Result<Poly<F>, String> {
        Ok(Poly::new(
            field,
            h.iter()
                .map(|v| field.to_elem(v))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?,
        ))
    };
    let ring = PolyRing::new(field, reference_backend(devices)).map_err(text)?;
    let want = ring.mul(&poly(&a)?, &poly(&b)?).map_err(text)?;
    for plan in &product_plans {
        if poly(&plan.mul(&a, &b).map_err(text)?)? != want {
            return Err(format!(
                "the product {la} × {lb} with the {} output differs from one device's",
                plan.split().output
            ));
        }
    }
    Ok(format!(
        "5 distributions ({} exchanges), inverses, resident tiles, a {la} × {lb} product twice",
        exchanges.join("/")
    ))
}
