//! `fermat bench --devices 0,1`: forward transforms split over several GPUs (or devices
//! simulated on the CPU with `--cpu`) beside the same transform on one of them, with the
//! all-to-all bandwidth measured in the same run.

use super::CliError;
use fermat::dsl::with_field;
use fermat::split::{Distribution, SplitOptions, SplitPlan};
use fermat::{Backend, Direction, FftOptions, FftPlan, FieldSpec, HostField};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One workload timed on one device and split over G.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SplitRow {
    /// The field.
    pub field: String,
    /// The transform size.
    pub n: u64,
    /// G.
    pub devices: usize,
    /// Median forward transform on one device, ms.
    pub one_ms: f64,
    /// Median forward transform split with a cyclic input and a transposed output (one
    /// exchange), ms.
    pub cyclic_ms: f64,
    /// The same with blocks in and out (three exchanges), ms.
    pub natural_ms: f64,
    /// The same with a cyclic input and a cyclic output (one exchange, each row sent while
    /// the next is transformed), ms; NaN where the devices do not hold its four buffers.
    #[serde(default)]
    pub rows_ms: f64,
    /// Bytes each device sends to the others per second in one exchange, GB/s.
    pub exchange_gbps: f64,
}

/// The workloads: compute-bound big-prime transforms, a memory-bound word prime and the
/// largest SRGFNs; a transform one GPU does not hold runs split only.
fn workloads(cpu: bool, quick: bool) -> Vec<(&'static str, u32)> {
    match (cpu, quick) {
        (true, _) => vec![("P3", 14), ("babybear", 20)],
        (false, true) => vec![("P3", 20), ("babybear", 24)],
        (false, false) => vec![
            ("P3", 22),
            ("P4", 22),
            ("babybear", 27),
            ("P5", 24),
            ("P6", 24),
            // 64 GiB an operand: split only, 32 GiB on each of two devices.
            ("P6", 27),
        ],
    }
}

/// Whether one GPU holds a transform's input, output and scratch with room to spare.
fn fits_one_gpu<F: HostField>(field: &F, n: u64) -> bool {
    let bytes = n as u128 * (field.words() * std::mem::size_of::<F::Word>()) as u128;
    bytes * 3 < 100 << 30
}

/// Times every workload; the rows.
pub fn run(
    devices: &[usize],
    fields: &[String],
    cpu: bool,
    quick: bool,
    runs: usize,
) -> Result<Vec<SplitRow>, CliError> {
    // Refused before any measurement.
    super::split_devices(devices, cpu)?;
    println!(
        "{:<10} {:>6} {:>3} {:>12} {:>18} {:>18} {:>18} {:>12}",
        "field",
        "N",
        "G",
        "one (ms)",
        "cyclic (ms, ×)",
        "natural (ms, ×)",
        "rows (ms, ×)",
        "exch GB/s"
    );
    let mut rows = Vec::new();
    let all = workloads(cpu, quick);
    let offered: Vec<&str> = all.iter().map(|(spec, _)| *spec).collect();
    let wanted = super::fields::filter(fields, &offered)?;
    for (spec, log_n) in all {
        if !super::fields::chosen(&wanted, spec) {
            continue;
        }
        let any = FieldSpec::parse(spec)?.build()?;
        let row = match with_field!(&any, f => time(f, spec, 1 << log_n, devices, cpu, runs)) {
            Ok(row) => row,
            Err(e) => {
                println!(
                    "{spec:<10} {:>6} {:>3} not run: {e}",
                    format!("2^{log_n}"),
                    devices.len()
                );
                continue;
            }
        };
        // A transform one device does not hold has no time alone, nor a speed-up.
        let fits = !row.one_ms.is_nan();
        let one = if fits {
            format!("{:.3}", row.one_ms)
        } else {
            "does not fit".to_string()
        };
        let speedup = |x: f64| {
            if fits && !x.is_nan() {
                format!("{x:.2}×")
            } else {
                "—".to_string()
            }
        };
        println!(
            "{:<10} {:>6} {:>3} {:>12} {:>10.3} {:>7} {:>10.3} {:>7} {:>10.3} {:>7} {:>12.1}",
            row.field,
            format!("2^{log_n}"),
            row.devices,
            one,
            row.cyclic_ms,
            speedup(row.one_ms / row.cyclic_ms),
            row.natural_ms,
            speedup(row.one_ms / row.natural_ms),
            row.rows_ms,
            speedup(row.one_ms / row.rows_ms),
            row.exchange_gbps
        );
        rows.push(row);
    }
    Ok(rows)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<F: HostField>(
    field: &F,
    spec: &str,
    n: u64,
    devices: &[usize],
    cpu: bool,
    runs: usize,
) -> Result<SplitRow, CliError> {
    let runs = runs.clamp(1, if cpu { 5 } else { 30 });
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n);
    // A random tile repeated: the timing does not depend on the values, and P6 at 2^27
    // is not built on the host.
    let tile: Vec<F::Host> = (0..(n / devices.len() as u64).min(1 << 12))
        .map(|_| field.to_host(&field.from_u64(rng.gen())))
        .collect();
    let one_ms = if cpu || fits_one_gpu(field, n) {
        one_device(field, n, &tile, devices[0], cpu, runs)?
    } else {
        f64::NAN
    };
    let split_devices = super::split_devices(devices, cpu)?;
    let mut split_ms = Vec::new();
    let mut exchange_gbps = 0.0;
    let time_split = |input, output| -> Result<(f64, SplitPlan<F>), CliError> {
        let options = SplitOptions {
            input,
            output,
            ..Default::default()
        };
        let plan = SplitPlan::new(field, n, split_devices.clone(), options)?;
        plan.load_resident_tiled(&tile)?;
        plan.forward_resident()?;
        let ms = timed(runs, || plan.forward_resident())?;
        println!("  {input} → {output}: {}", step_times(&plan, runs)?);
        Ok((ms, plan))
    };
    for (input, output) in [
        (Distribution::Cyclic, Distribution::Transposed),
        (Distribution::Blocks, Distribution::Blocks),
    ] {
        let (ms, plan) = time_split(input, output)?;
        split_ms.push(ms);
        if exchange_gbps == 0.0 {
            // The same exchange for every distribution: timed once.
            let (took, bytes) = plan.time_exchange()?;
            exchange_gbps = bytes as f64 / took.as_secs_f64() / 1e9;
        }
    }
    // Its fourth buffer of N/G elements per device may not fit where the others do.
    let rows_ms = match time_split(Distribution::Cyclic, Distribution::Cyclic) {
        Ok((ms, _)) => ms,
        Err(e) => {
            println!("{spec} 2^{}: cyclic in and out not run: {e}", n.ilog2());
            f64::NAN
        }
    };
    Ok(SplitRow {
        field: spec.to_string(),
        n,
        devices: devices.len(),
        one_ms,
        cyclic_ms: split_ms[0],
        natural_ms: split_ms[1],
        rows_ms,
        exchange_gbps,
    })
}

/// The median time of each step of the plan's forward transform over `runs` runs, each
/// step run alone, in words.
fn step_times<F: HostField>(plan: &SplitPlan<F>, runs: usize) -> Result<String, CliError> {
    let mut each: Vec<Vec<f64>> = Vec::new();
    let mut names = Vec::new();
    for _ in 0..runs {
        let steps = plan.time_steps()?;
        each.resize(steps.len(), Vec::new());
        names = steps.iter().map(|(step, _)| format!("{step:?}")).collect();
        for (times, (_, took)) in each.iter_mut().zip(&steps) {
            times.push(took.as_secs_f64() * 1e3);
        }
    }
    Ok(names
        .iter()
        .zip(each)
        .map(|(name, times)| format!("{name} {:.3} ms", median(times)))
        .collect::<Vec<_>>()
        .join(", "))
}

/// The median of `runs` timed calls of `call`, in milliseconds.
fn timed(
    runs: usize,
    mut call: impl FnMut() -> Result<(), fermat::Error>,
) -> Result<f64, CliError> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        call()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

/// The median forward transform of `tile` repeated to n points on one device.
fn one_device<F: HostField>(
    field: &F,
    n: u64,
    tile: &[F::Host],
    ordinal: usize,
    cpu: bool,
    runs: usize,
) -> Result<f64, CliError> {
    let x = tile.repeat(n as usize / tile.len());
    let backend = if cpu {
        Backend::Cpu
    } else {
        Backend::Gpu(ordinal)
    };
    let one = FftPlan::new(
        field,
        n,
        FftOptions {
            backend,
            ..Default::default()
        },
    )?;
    if cpu {
        let mut y = x;
        return timed(runs, || one.forward(&mut y));
    }
    let input = one.to_device(&x)?;
    let mut out = one.alloc_device(1)?;
    one.run_device(Direction::Forward, &input, &mut out, None)?;
    one.synchronize()?;
    timed(runs, || {
        one.run_device(Direction::Forward, &input, &mut out, None)?;
        one.synchronize()
    })
}
