//! `fermat bench --compare crt`: the 2017 paper's benchmark, a DFT of N = K^e elements of
//! k words over an SRGFN p = r^k + 1 (K = 2k), by the SRGFN FFT (`srgfn` rows) and by the
//! CRT route (`crt` rows: projection onto s 62-bit NTT primes whose product exceeds p, s
//! word-prime DFTs, and, in the `crt+rec` rows, Garner's recombination into integers
//! modulo their product), beside the paper's Tesla M2050 figures (§7, "the CRT
//! alternative").
//!
//! Each row's floor is its bytes moved once at the copy bandwidth measured in the same
//! run: the SRGFN FFT reads and writes N·k words; the CRT route reads N·k words, writes
//! s·N residues, and each of the s transforms reads and writes its N; recombination reads
//! the s·N spectra and writes N integers of ⌈bits(P)/64⌉ words.

use super::bench::median;
use super::bench_poly::{median_device_ms, median_wall_ms};
use super::CliError;
use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
use fermat::dsl::with_field;
use fermat::{Backend, Direction, FftOptions, FftPlan, FieldSpec, HostField, Order};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// One measured row of the comparison.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompareRow {
    /// The SRGFN.
    pub field: String,
    /// K = 2k for p = r^k + 1.
    pub big_k: u64,
    /// N = K^e.
    pub e: u32,
    /// The transform's length.
    pub n: u64,
    /// `srgfn`, `crt` (projection and transforms, as the paper counts the route) or
    /// `crt+rec` (with recombination).
    pub route: String,
    /// "gpu" or "cpu, T threads".
    pub backend: String,
    /// Primes of the CRT route (0 for the SRGFN FFT).
    pub primes: usize,
    /// Median time of one call, in milliseconds (GPU: device time, launches queued).
    pub median_ms: f64,
    /// The paper's figure for the row (Tesla M2050), where it has one.
    pub paper_ms: Option<f64>,
    /// Bytes moved once at the copy bandwidth, in ms.
    pub floor_ms: f64,
}

/// The paper's Tesla M2050 times in ms for e = 2, 3, …: the SRGFN FFT and the CRT route
/// (projection and CUMODP's small-prime FFTs), P3 and P4.
const PAPER: [(&str, &[f64], &[f64]); 2] = [
    (
        "P3",
        &[0.03, 0.88, 17.41, 364.88],
        &[3.12, 6.66, 15.93, 198.46],
    ),
    ("P4", &[0.27, 14.80, 678.34], &[9.91, 23.93, 449.53]),
];

fn paper_ms(field: &str, e: u32, route: &str) -> Option<f64> {
    let (_, srgfn, crt) = PAPER.iter().find(|(f, _, _)| *f == field)?;
    // The paper timed the CRT route without its recombination.
    let times = match route {
        "srgfn" => srgfn,
        "crt" => crt,
        _ => return None,
    };
    times.get(e.checked_sub(2)? as usize).copied()
}

/// The fields and exponents compared: the paper's P3 (K = 16, e = 2..5) and P4 (K = 32,
/// e = 2..4), then P2, P5, P6 and N = 2^24 where the device has the memory.
fn workloads(gpu: bool, quick: bool) -> Vec<(&'static str, u64, Vec<u32>)> {
    match (gpu, quick) {
        (false, true) => vec![("P3", 16, vec![2, 3, 4]), ("P4", 32, vec![2, 3])],
        (true, true) => vec![("P3", 16, vec![2, 3, 4, 5]), ("P4", 32, vec![2, 3, 4])],
        (true, false) => vec![
            ("P2", 8, (2..=8).collect()),
            ("P3", 16, (2..=6).collect()),
            ("P4", 32, vec![2, 3, 4]),
            // Each prime compiles its own transforms on first use: P5's 33 and P6's 66
            // primes take minutes at larger N, so one size each.
            ("P5", 64, vec![2]),
            ("P6", 128, vec![2]),
        ],
        (false, false) => vec![
            ("P2", 8, (2..=6).collect()),
            ("P3", 16, (2..=5).collect()),
            ("P4", 32, vec![2, 3, 4]),
            ("P5", 64, vec![2]),
        ],
    }
}

/// Runs the comparison on the GPU (`gpu`) or the CPU, printing rows as they come.
pub fn run(
    gpu: bool,
    quick: bool,
    runs: usize,
    copy_gbps: f64,
) -> Result<Vec<CompareRow>, CliError> {
    print_header();
    let mut rows = Vec::new();
    for (name, big_k, exponents) in workloads(gpu, quick) {
        let any = FieldSpec::parse(name)?.build()?;
        for e in exponents {
            let n = big_k.pow(e);
            let measured =
                with_field!(&any, f => compare(f, name, (big_k, e, n), gpu, runs, copy_gbps));
            match measured {
                Ok(measured) => {
                    for row in measured {
                        print_row(&row);
                        rows.push(row);
                    }
                }
                // A size the device has no memory for is reported and the others go on.
                Err(e)
                    if matches!(
                        e.downcast_ref::<fermat::Error>(),
                        Some(fermat::Error::Memory { .. })
                    ) =>
                {
                    println!("{name} N = {n}: not measured: {e}");
                }
                Err(e) => return Err(e),
            }
        }
    }
    print_crossovers(&rows);
    Ok(rows)
}

/// The three rows of one (field, N).
fn compare<F: HostField>(
    field: &F,
    name: &str,
    (big_k, e, n): (u64, u32, u64),
    gpu: bool,
    runs: usize,
    copy_gbps: f64,
) -> Result<Vec<CompareRow>, CliError> {
    let backend = if gpu { Backend::Gpu(0) } else { Backend::Cpu };
    let threads = rayon::current_num_threads();
    let label = if gpu {
        "gpu".to_string()
    } else {
        format!("cpu, {threads} thr")
    };
    let k = field.words() as u64;
    let bits = field.modulus().bits();
    let limbs = bits.div_ceil(64) as usize;
    let row = |route: &str, primes: usize, median_ms: f64, words_moved: u64| CompareRow {
        field: name.to_string(),
        big_k,
        e,
        n,
        route: route.into(),
        backend: label.clone(),
        primes,
        median_ms,
        paper_ms: paper_ms(name, e, route),
        floor_ms: (words_moved * 8) as f64 / (copy_gbps * 1e9) * 1e3,
    };
    let srgfn_ms = time_srgfn(field, n, backend, runs)?;
    let adicity = n.trailing_zeros().max(20);
    let primes = PrimeSet::for_bits(Width::Bits62, adicity, bits)?;
    let s = primes.len() as u64;
    let dft = CrtDft::new(primes, n, limbs, backend)?;
    let out_words = dft.primes().product().bits().div_ceil(64);
    let x = random_integers(n as usize, limbs, bits);
    let (crt_ms, rec_ms) = if gpu {
        time_crt_gpu(&dft, &x, runs)?
    } else {
        (
            median_wall_ms(runs, || dft.spectra(&x).map(drop))?,
            median_wall_ms(runs, || dft.forward(&x).map(drop))?,
        )
    };
    let crt_words = n * (k + 3 * s);
    Ok(vec![
        row("srgfn", 0, srgfn_ms, 2 * n * k),
        row("crt", s as usize, crt_ms, crt_words),
        row(
            "crt+rec",
            s as usize,
            rec_ms,
            crt_words + n * (s + out_words),
        ),
    ])
}

/// N random integers of `bits` bits at most, `limbs` words each.
fn random_integers(n: usize, limbs: usize, bits: u64) -> Integers {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n as u64);
    let top = bits - 64 * (limbs as u64 - 1);
    let mask = if top >= 64 { u64::MAX } else { (1 << top) - 1 };
    let words: Vec<u64> = (0..n * limbs)
        .map(|i| {
            let w: u64 = rng.gen();
            if i % limbs == limbs - 1 {
                w & mask
            } else {
                w
            }
        })
        .collect();
    Integers::from_words(limbs, words).expect("n·limbs words")
}

/// The SRGFN FFT of n random elements, natural order out.
fn time_srgfn<F: HostField>(
    field: &F,
    n: u64,
    backend: Backend,
    runs: usize,
) -> Result<f64, CliError> {
    let plan = FftPlan::new(
        field,
        n,
        FftOptions {
            backend,
            output_order: Order::Natural,
            ..FftOptions::default()
        },
    )?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n);
    let x: Vec<F::Host> = (0..n)
        .map(|_| field.to_host(&field.random(&mut rng)))
        .collect();
    if backend == Backend::Cpu {
        return Ok(median_wall_ms(runs, || plan.forward(&mut x.clone()))?);
    }
    let input = plan.to_device(&x)?;
    let mut output = plan.alloc_device(1)?;
    median_device_ms(runs, || {
        plan.run_device(Direction::Forward, &input, &mut output, None)
    })
}

/// The CRT route on the device: projection and transforms, then the same with the
/// recombination; the data stays on the device.
fn time_crt_gpu(dft: &CrtDft, x: &Integers, runs: usize) -> Result<(f64, f64), CliError> {
    let dx = dft.upload(x)?;
    let mut residues = dft.alloc_residues()?;
    let mut spectra = dft.alloc_residues()?;
    let mut y = dft.alloc_output()?;
    let paper = median_device_ms(runs, || {
        dft.project_device(&dx, &mut residues)?;
        dft.transform_device(&residues, &mut spectra)
    })?;
    let whole = median_device_ms(runs, || {
        dft.project_device(&dx, &mut residues)?;
        dft.transform_device(&residues, &mut spectra)?;
        dft.recombine_device(&spectra, &mut y)
    })?;
    Ok((paper, whole))
}

fn print_header() {
    println!(
        "{:<6} {:>4} {:>2} {:>10} {:<8} {:<12} {:>6} {:>11} {:>10} {:>9} {:>10} {:>7}",
        "field",
        "K",
        "e",
        "N",
        "route",
        "backend",
        "primes",
        "median ms",
        "paper ms",
        "× paper",
        "floor ms",
        "/floor"
    );
}

fn print_row(r: &CompareRow) {
    let paper = r
        .paper_ms
        .map_or_else(|| "—".to_string(), |ms| format!("{ms:.2}"));
    let speedup = r
        .paper_ms
        .map_or_else(|| "—".to_string(), |ms| times(ms / r.median_ms));
    println!(
        "{:<6} {:>4} {:>2} {:>10} {:<8} {:<12} {:>6} {:>11.4} {:>10} {:>9} {:>10.4} {:>7.2}",
        r.field,
        r.big_k,
        r.e,
        r.n,
        r.route,
        r.backend,
        r.primes,
        r.median_ms,
        paper,
        speedup,
        r.floor_ms,
        r.median_ms / r.floor_ms
    );
}

/// A ratio as "15×" or "0.48×".
fn times(ratio: f64) -> String {
    if ratio >= 10.0 {
        format!("{ratio:.0}×")
    } else {
        format!("{ratio:.2}×")
    }
}

/// Per field: from which N on the CRT route is faster than the SRGFN FFT, counted as the
/// paper counts it and with recombination.
pub fn crossovers(rows: &[CompareRow]) -> Vec<String> {
    let mut fields: Vec<&str> = rows.iter().map(|r| r.field.as_str()).collect();
    fields.dedup();
    fields
        .into_iter()
        .map(|field| {
            let time = |n: u64, route: &str| {
                rows.iter()
                    .find(|r| r.field == field && r.n == n && r.route == route)
                    .map(|r| r.median_ms)
            };
            let sizes: Vec<u64> = rows
                .iter()
                .filter(|r| r.field == field && r.route == "srgfn")
                .map(|r| r.n)
                .collect();
            let wins = |route: &str| {
                let won: Vec<bool> = sizes
                    .iter()
                    .map(|&n| time(n, route) < time(n, "srgfn"))
                    .collect();
                match won.iter().position(|&w| w) {
                    None => "never".to_string(),
                    Some(i) if won[i..].iter().all(|&w| w) => format!("from N = {}", sizes[i]),
                    Some(_) => {
                        let at: Vec<String> = sizes
                            .iter()
                            .zip(&won)
                            .filter(|(_, &w)| w)
                            .map(|(n, _)| n.to_string())
                            .collect();
                        format!("at N = {}", at.join(", "))
                    }
                }
            };
            format!(
                "{field}: the CRT route beats the SRGFN FFT {} as the paper counts it, {} with recombination",
                wins("crt"),
                wins("crt+rec")
            )
        })
        .collect()
}

fn print_crossovers(rows: &[CompareRow]) {
    for line in crossovers(rows) {
        println!("{line}");
    }
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.route == "crt")
        .filter_map(|r| r.paper_ms.map(|ms| ms / r.median_ms))
        .collect();
    if !ratios.is_empty() {
        println!(
            "the CRT route against the paper's: median {} faster",
            times(median(ratios))
        );
    }
}

/// Draws the comparison: time over N per field, both routes and the paper's figures, on
/// logarithmic axes.
pub fn plot(rows: &[CompareRow], device: &str, path: &std::path::Path) -> Result<(), CliError> {
    use plotters::prelude::*;
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the embedded DejaVu Sans font cannot be read")?;
    let mut fields: Vec<&str> = rows.iter().map(|r| r.field.as_str()).collect();
    fields.dedup();
    if fields.is_empty() {
        return Err("nothing to plot: the comparison has no rows".into());
    }
    let root = BitMapBackend::new(path, (480 * fields.len() as u32, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!(
            "DFT of N = K^e elements: SRGFN FFT and CRT route on {device} (paper: Tesla M2050)"
        ),
        ("sans-serif", 18),
    )?;
    for (panel, field) in root.split_evenly((1, fields.len())).iter().zip(&fields) {
        let mine: Vec<&CompareRow> = rows.iter().filter(|r| r.field == *field).collect();
        let log_n = |r: &CompareRow| f64::from(r.n.trailing_zeros());
        let (x_lo, x_hi) = mine
            .iter()
            .map(|r| log_n(r))
            .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let times = mine
            .iter()
            .flat_map(|r| [Some(r.median_ms), r.paper_ms])
            .flatten();
        let (y_lo, y_hi) = times.fold((f64::MAX, f64::MIN), |(a, b), t| (a.min(t), b.max(t)));
        let mut chart = ChartBuilder::on(panel)
            .caption(*field, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x_lo - 0.5..x_hi + 0.5, (y_lo / 2.0..y_hi * 2.0).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("log2 N")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc("ms")
            .draw()?;
        let series = |route: &str, paper: bool| -> Vec<(f64, f64)> {
            mine.iter()
                .filter(|r| r.route == route)
                .filter_map(|r| {
                    let t = if paper { r.paper_ms? } else { r.median_ms };
                    Some((log_n(r), t))
                })
                .collect()
        };
        for (route, paper, color, label) in [
            ("srgfn", false, BLUE, "SRGFN FFT"),
            ("crt", false, RED, "CRT: projection + transforms"),
            ("crt+rec", false, MAGENTA, "CRT with recombination"),
            ("srgfn", true, CYAN, "paper: SRGFN FFT"),
            ("crt", true, RGBColor(230, 140, 0), "paper: CRT"),
        ] {
            let points = series(route, paper);
            if points.is_empty() {
                continue;
            }
            let style = ShapeStyle::from(&color).stroke_width(2);
            chart
                .draw_series(LineSeries::new(points.clone(), style))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, style.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    root.present()?;
    println!("plot {}", path.display());
    Ok(())
}
