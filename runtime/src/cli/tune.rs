//! `fermat tune`: measures where plain products give way to FFT-based ones, per field and
//! length ratio, on the GPU or the CPU, where the half-gcd's base case pays and (on the
//! CPU) where long division gives way to Newton's, and stores the table for this device
//! model (`fermat::tune`), where every later product, division and gcd finds it.

use super::bench::median;
use super::bench_poly::median_wall_ms;
use super::CliError;
use fermat::dsl::with_field;
use fermat::poly::{Crossover, Poly, PolyRing, RATIOS};
use fermat::tune::{Model, TuneTable};
use fermat::{Backend, FieldSpec, HostField};
use rand::SeedableRng;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Measure on GPU 0 (an error without one)
    #[arg(long, conflicts_with = "cpu")]
    gpu: bool,
    /// Measure on the CPU (the default without a GPU)
    #[arg(long)]
    cpu: bool,
    /// Fewer fields, ratios and lengths: under a minute on two CPU cores
    #[arg(long)]
    quick: bool,
}

/// Every catalogue field a table covers.
const FIELDS: [&str; 10] = [
    "babybear",
    "469762049",
    "goldilocks",
    "4179340454199820289",
    "P1",
    "P2",
    "P3",
    "P4",
    "P5",
    "P6",
];
const QUICK_FIELDS: [&str; 2] = ["babybear", "P3"];

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let backend = if args.cpu {
        Backend::Cpu
    } else if args.gpu {
        Backend::Gpu(0)
    } else {
        Backend::Auto
    };
    // Where the table goes is checked before minutes of measurements.
    let dir = fermat::tune::dir()?;
    super::output::check_dir(&dir)?;
    let fields: &[&str] = if args.quick { &QUICK_FIELDS } else { &FIELDS };
    let device = match backend {
        Backend::Cpu => None,
        Backend::Gpu(o) => Some(fermat::gpu::device(o)?),
        Backend::Auto => fermat::gpu::device(0).ok(),
    };
    let backend = if device.is_some() {
        Backend::Gpu(0)
    } else {
        Backend::Cpu
    };
    let model = Model::of(device.as_deref());
    println!("tuning on {}", model.name());
    let mut table = TuneTable::new(&model);
    for name in fields {
        let any = FieldSpec::parse(name)?.build()?;
        let crossover = with_field!(&any, f => measure(f, backend, args.quick))?;
        let crt = crossover.crt_from.map_or_else(String::new, |len| {
            format!("; CRT route from {len} coefficients")
        });
        let host = crossover.host_below.map_or_else(String::new, |len| {
            format!("; host polynomials on the host below {len} coefficients")
        });
        let hgcd = crossover.hgcd_base.map_or_else(String::new, |degree| {
            format!("; half-gcd base case below degree {degree}")
        });
        let long = crossover.long_division.map_or_else(String::new, |len| {
            format!("; long division up to quotients and divisors of {len}")
        });
        println!(
            "{:<22} {:?}{crt}{host}{hgcd}{long}",
            any.name(),
            crossover.max_short
        );
        table.fields.insert(any.name(), crossover);
    }
    let path = table.store_in(&dir)?;
    println!("stored {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// The crossover of one field: for each measured ratio 2^r, the longest shorter factor
/// 2^j at which the plain product is at least as fast as the FFT-based one, scanning up
/// until it first loses; the ratios between measured ones take the nearer one's value.
fn measure<F: HostField>(field: &F, backend: Backend, quick: bool) -> Result<Crossover, CliError> {
    let plain = PolyRing::new(field, backend)?.with_crossover(Crossover::always());
    let fft = PolyRing::new(field, backend)?.with_crossover(Crossover::never());
    let ratios: &[usize] = if quick {
        &[0, 3, 7]
    } else {
        &[0, 1, 2, 3, 4, 5, 6, 7]
    };
    let top = if quick || field.words() > 1 { 10 } else { 13 };
    let mut measured = [None; RATIOS];
    for &r in ratios {
        let mut best = 0;
        for j in 2..=top {
            let (short, long) = (1usize << j, 1usize << (j + r));
            if plain.product_plan(short, long).is_err() || fft.product_plan(short, long).is_err() {
                break;
            }
            let (tp, tf) = (
                time(field, &plain, short, long)?,
                time(field, &fft, short, long)?,
            );
            if tp > tf {
                break;
            }
            best = short;
        }
        measured[r] = Some(best);
    }
    let mut max_short = [0; RATIOS];
    for (r, slot) in max_short.iter_mut().enumerate() {
        let nearest = (0..RATIOS)
            .filter_map(|s| measured[s].map(|v| (s.abs_diff(r), v)))
            .min()
            .map_or(0, |(_, v)| v);
        *slot = nearest;
    }
    let crt_from = if field.words() > 1 {
        crt_from(field, backend, quick)?
    } else {
        None
    };
    let host_below = match backend {
        Backend::Cpu => None,
        _ => host_below(field, backend, quick)?,
    };
    let tuned = Crossover {
        max_short,
        crt_from,
        host_below,
        hgcd_base: None,
        long_division: None,
    };
    // A GPU ring divides on the device; its host operations take the CPU's table.
    let long_division = match backend {
        Backend::Cpu => Some(long_division(field, tuned, quick)?),
        _ => None,
    };
    let tuned = Crossover {
        long_division,
        ..tuned
    };
    Ok(Crossover {
        hgcd_base: Some(half_gcd_base(field, backend, tuned, quick)?),
        ..tuned
    })
}

/// The longest quotient and divisor of j coefficients (a dividend of 2j − 1) for which the
/// long division was at least as fast as Newton's, scanning j up by doubling until it
/// first loses, with the products of the crossover just measured.
fn long_division<F: HostField>(
    field: &F,
    crossover: Crossover,
    quick: bool,
) -> Result<usize, CliError> {
    let mut limited = crossover;
    limited.long_division = Some(usize::MAX);
    let long = PolyRing::new(field, Backend::Cpu)?.with_crossover(limited);
    limited.long_division = Some(1);
    let newton = PolyRing::new(field, Backend::Cpu)?.with_crossover(limited);
    let top = if quick { 7 } else { 10 };
    let mut best = 1;
    for j in 3..=top {
        let len = 1usize << j;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(len as u64);
        let a = Poly::random(field, 2 * len - 1, &mut rng);
        let b = Poly::random(field, len, &mut rng);
        let time = |ring: &PolyRing<F>| median_wall_ms(5, || ring.divrem(&a, &b).map(drop));
        if time(&long)? > time(&newton)? {
            break;
        }
        best = len;
    }
    Ok(best)
}

/// The half-gcd's base case that ran a resultant fastest (the half-gcd's user on every
/// backend), of random operands of `len` coefficients, among the candidates, with the
/// products of the crossover just measured: a degree below which Euclid's steps one by one
/// beat the recursion's products.
fn half_gcd_base<F: HostField>(
    field: &F,
    backend: Backend,
    crossover: Crossover,
    quick: bool,
) -> Result<usize, CliError> {
    let (candidates, len): (&[usize], usize) = match (quick, field.words()) {
        (true, 1) => (&[64, 128, 256], 2048),
        (true, _) => (&[64, 128, 256], 512),
        (false, 1) => (&[32, 64, 128, 256, 512], 8192),
        (false, k) if k < 32 => (&[32, 64, 128, 256, 512], 2048),
        (false, _) => (&[32, 64, 128, 256], 512),
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(len as u64);
    let a = Poly::random(field, len, &mut rng);
    let b = Poly::random(field, len - 1, &mut rng);
    let mut best = (f64::INFINITY, candidates[0]);
    for &base in candidates {
        let ring = PolyRing::new(field, backend)?.with_crossover(Crossover {
            hgcd_base: Some(base),
            ..crossover
        });
        let time = median_wall_ms(3, || ring.resultant(&a, &b).map(drop))?;
        if time < best.0 {
            best = (time, base);
        }
    }
    Ok(best.1)
}

/// The shortest product of host polynomials from which on the GPU's round trip is faster
/// than the CPU's product ([`wins_from`]); `None` where it wins from the shortest.
fn host_below<F: HostField>(
    field: &F,
    backend: Backend,
    quick: bool,
) -> Result<Option<usize>, CliError> {
    let gpu = PolyRing::new(field, backend)?;
    let all_on_device = Crossover {
        host_below: None,
        ..*gpu.crossover()
    };
    let gpu = gpu.with_crossover(all_on_device);
    let cpu = PolyRing::new(field, Backend::Cpu)?;
    let (bottom, top, step) = match (quick, field.words()) {
        (true, _) => (8, 14, 2),
        (false, k) if k >= 32 => (6, 12, 1),
        (false, _) => (6, 16, 1),
    };
    let lengths = (bottom..=top).step_by(step);
    Ok(match wins_from(field, lengths, 5, &gpu, &cpu)? {
        Some(len) if len < 1 << bottom => None,
        Some(len) => Some(len),
        // Never won: the host takes everything up to twice the longest measured.
        None => Some(2 << top),
    })
}

/// The shortest product over an SRGFN from which on the CRT route is faster than the
/// field's own transforms ([`wins_from`], every other length; host operands on both
/// routes), or `None` where it never wins at the largest.
fn crt_from<F: HostField>(
    field: &F,
    backend: Backend,
    quick: bool,
) -> Result<Option<usize>, CliError> {
    let own = PolyRing::new(field, backend)?.with_crossover(Crossover::never());
    let crt =
        PolyRing::new(field, backend)?.with_crossover(Crossover::never().with_crt_from(Some(1)));
    // One core of a 2-core EPYC: P3 and P4 cross between products of 2^11 and 2^13
    // (bench/RESULTS.md, "CPU round 2").
    let (bottom, top) = match (quick, field.words()) {
        (true, _) => (12, 16),
        (false, k) if k >= 32 => (10, 14),
        (false, _) => (10, 18),
    };
    wins_from(field, (bottom..=top).step_by(2), 3, &crt, &own)
}

/// Balanced products of host polynomials of 2^(j − 1) coefficients for each j of
/// `lengths`, timed on `first` and on `second` (medians of `runs` after one to warm up):
/// the length 2^j − 1 of the shortest product from which on `first` was faster at every
/// length measured, `None` where it was not at the last.
fn wins_from<F: HostField>(
    field: &F,
    lengths: impl Iterator<Item = u32>,
    runs: usize,
    first: &PolyRing<F>,
    second: &PolyRing<F>,
) -> Result<Option<usize>, CliError> {
    let mut from = None;
    for j in lengths {
        let half = 1usize << (j - 1);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(j));
        let a = Poly::random(field, half, &mut rng);
        let b = Poly::random(field, half, &mut rng);
        let time = |ring: &PolyRing<F>| -> Result<f64, CliError> {
            ring.mul(&a, &b)?;
            let times = (0..runs)
                .map(|_| {
                    let started = Instant::now();
                    ring.mul(&a, &b).map(|_| started.elapsed().as_secs_f64())
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(median(times))
        };
        let wins = time(first)? < time(second)?;
        from = match (wins, from) {
            (true, None) => Some(2 * half - 1),
            (false, _) => None,
            (true, kept) => kept,
        };
    }
    Ok(from)
}

/// The median time of a product of random operands of `short` × `long` on `ring` (device
/// operands on a GPU, waiting for each product).
fn time<F: HostField>(
    field: &F,
    ring: &PolyRing<F>,
    short: usize,
    long: usize,
) -> Result<f64, CliError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(short as u64 ^ (long as u64) << 20);
    let a = Poly::random(field, short, &mut rng);
    let b = Poly::random(field, long, &mut rng);
    let runs = 5;
    let mut times = Vec::with_capacity(runs);
    if matches!(ring.running(), fermat::Running::Gpu(_)) {
        let (da, db) = (ring.to_device(&a)?, ring.to_device(&b)?);
        let mut c = ring.mul_device(&da, &db)?;
        ring.synchronize()?;
        for _ in 0..runs {
            let started = Instant::now();
            ring.mul_device_into(&da, &db, &mut c)?;
            ring.synchronize()?;
            times.push(started.elapsed().as_secs_f64());
        }
    } else {
        ring.mul(&a, &b)?;
        for _ in 0..runs {
            let started = Instant::now();
            ring.mul(&a, &b)?;
            times.push(started.elapsed().as_secs_f64());
        }
    }
    Ok(median(times))
}
