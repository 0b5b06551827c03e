//! `fermat bench`: median times of the catalogue's workloads against the memory-bandwidth
//! floor measured on the same device in the same run; JSON and a plot.
//!
//! A GPU call is timed twice per run, by CUDA events on the plan's stream:
//! - **device time** (`median_ms`): the call is queued behind a kernel that only waits
//!   ([`HOLD_KERNEL`], 0.2 ms, touching no memory, so caches stay as the previous call left
//!   them), so its launches are all queued when the start event fires and the events time
//!   the device alone (what nvbench's blocking kernel does);
//! - **idle-stream time** (`idle_ms`): the call is made on an idle stream, so the time
//!   includes the host's submission of the first launch, as a lone call sees it.
//!
//! CPU rows take their floor from the CPU's own copy bandwidth on as many threads,
//! measured in the same run ([`super::bandwidth`]).

use super::{bandwidth, fields, output, CliError};
use fermat::dsl::with_field;
use fermat::{Backend, Direction, FftOptions, FftPlan, FieldSpec, HostField, Order};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `fermat bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write the results as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw the results (time over the bandwidth floor per workload) as a PNG.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Plot results from an earlier --json file instead of measuring.
    #[arg(long, requires = "plot")]
    replot: Option<PathBuf>,
    /// Timed runs per workload (after warm-up); on the CPU at most 10 per transform and 5
    /// per product, where one call takes up to seconds (the report says so).
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Only the CPU workloads.
    #[arg(long, conflicts_with = "gpu")]
    cpu: bool,
    /// Only the GPU workloads (an error if there is no working GPU).
    #[arg(long)]
    gpu: bool,
    /// Only the workloads over these fields (repeatable), named in any way a field is
    /// (`--field babybear`, `--field 2013265921`); a field without workloads is an error.
    #[arg(long = "field", value_name = "NAME", conflicts_with = "poly")]
    fields: Vec<String>,
    /// Time GPU plans with pieces of at most 2^BITS elements instead of the default design.
    #[arg(long, value_name = "BITS")]
    max_local_bits: Option<u32>,
    /// Time GPU plans with this radix instead of the default design.
    #[arg(long)]
    radix: Option<u64>,
    /// Fewer and smaller workloads.
    #[arg(long)]
    quick: bool,
    /// Time products of polynomials instead of transforms.
    #[arg(long)]
    poly: bool,
    /// With --poly, only these groups of rows (comma-separated); all of them without it.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "GROUPS",
        requires = "poly"
    )]
    only: Vec<PolyGroup>,
    /// Compare two routes to the same result instead: `crt` times the 2017 paper's
    /// benchmark (DFTs of K^e elements over P2..P6) by the SRGFN FFT and by the CRT route,
    /// beside the paper's figures.
    #[arg(long, value_enum, conflicts_with_all = ["poly", "fields"])]
    compare: Option<Compare>,
    /// Time forward transforms split over these devices instead (e.g. `0,1`), beside one
    /// of them alone: GPUs of this host exchanging through NCCL, or with --cpu as many
    /// devices simulated on the CPU.
    #[arg(long, value_delimiter = ',', value_name = "ORDINALS", conflicts_with_all = ["poly", "compare"])]
    devices: Option<Vec<usize>>,
}

/// A group of `--poly` rows (`--only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolyGroup {
    /// Products, middle products and batches, and the transforms they are measured
    /// against.
    Mul,
    /// Divisions with remainder and power-series inverses.
    Div,
    /// Greatest common divisors.
    Gcd,
    /// Products over Z and Z/mZ by the CRT route.
    Ring,
}

/// What `--compare` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Compare {
    /// The SRGFN FFT and the CRT route (projection, word-prime transforms, recombination).
    Crt,
}

/// One measured workload.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Result_ {
    /// The field.
    pub field: String,
    /// The transform size.
    pub n: u64,
    /// Transforms per call.
    pub batch: usize,
    /// "natural" or "bit-reversed" output.
    pub order: String,
    /// "gpu" or "cpu, T threads".
    pub backend: String,
    /// Median time of one call, in milliseconds (GPU: device time, launches queued).
    pub median_ms: f64,
    /// Median time of one call made on an idle stream, in milliseconds (GPU: with the host's
    /// submission of the first launch; CPU: the same as `median_ms`).
    #[serde(default)]
    pub idle_ms: f64,
    /// Fastest call, in milliseconds.
    pub min_ms: f64,
    /// Bytes read and written once: 2 · batch · n · element bytes.
    pub bytes: u64,
    /// bytes / median time.
    pub effective_gbps: f64,
    /// One read and one write of the data at the measured copy bandwidth, in ms.
    pub floor_ms: f64,
    /// The copy bandwidth of the floor, in GB/s: the GPU's, or the CPU's on as many
    /// threads as the row.
    #[serde(default)]
    pub floor_gbps: f64,
    /// median / floor.
    pub ratio: f64,
    /// Global-memory passes of the plan.
    pub passes: usize,
}

/// The whole report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The device (or the CPU).
    pub device: String,
    /// Device-to-device copy bandwidth (read + write), GB/s; 0 without a GPU.
    pub copy_gbps: f64,
    /// The CPU's copy bandwidth (read + write) by number of threads, GB/s, where CPU rows
    /// were measured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cpu_copy_gbps: BTreeMap<usize, f64>,
    /// The results.
    pub results: Vec<Result_>,
    /// The products of polynomials (`--poly`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub poly: Vec<super::bench_poly::PolyResult>,
    /// The routes compared (`--compare crt`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<super::bench_crt::CompareRow>,
    /// Transforms split over devices (`--devices`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub split: Vec<super::bench_split::SplitRow>,
}

struct Workload {
    field: &'static str,
    n: u64,
    batch: usize,
}

impl Args {
    /// The options of the GPU plans timed.
    fn gpu_options(&self, output_order: Order) -> FftOptions {
        FftOptions {
            backend: Backend::Gpu(0),
            output_order,
            max_local_bits: self.max_local_bits,
            radix: self.radix,
            ..FftOptions::default()
        }
    }
}

fn gpu_workloads(quick: bool) -> Vec<Workload> {
    let w = |field, log_n: u32, batch| Workload {
        field,
        n: 1 << log_n,
        batch,
    };
    if quick {
        return vec![w("babybear", 20, 1), w("P3", 16, 1)];
    }
    vec![
        w("babybear", 24, 1),
        w("babybear", 26, 1),
        w("goldilocks", 24, 1),
        w("P2", 24, 1),
        w("P3", 20, 1),
        w("P3", 16, 1),
        w("P4", 20, 1),
        w("babybear", 16, 256),
        w("babybear", 12, 4096),
        w("P3", 12, 64),
    ]
}

fn cpu_workloads(quick: bool) -> Vec<Workload> {
    let w = |field, log_n: u32| Workload {
        field,
        n: 1 << log_n,
        batch: 1,
    };
    if quick {
        return vec![w("babybear", 16), w("P3", 12)];
    }
    vec![w("babybear", 20), w("4179340454199820289", 20), w("P3", 16)]
}

/// Timed runs of a CPU transform at most.
pub(super) const CPU_RUNS: usize = 10;
/// Timed runs of a CPU product or division at most.
pub(super) const CPU_POLY_RUNS: usize = 5;

pub(super) fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `fermat bench`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // Before hours of measurements, not after.
    output::check(&args.json)?;
    output::check(&args.plot)?;
    if let Some(path) = &args.replot {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let report: Report = serde_json::from_str(&text)?;
        plot(&report, args.plot.as_ref().expect("clap requires --plot"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let gpu = if args.cpu {
        None
    } else if args.gpu {
        Some(fermat::gpu::device(0)?)
    } else {
        fermat::gpu::device(0).ok()
    };
    let copy_gbps = match &gpu {
        Some(d) => copy_bandwidth(d)?,
        None => 0.0,
    };
    let mut report = Report {
        device: gpu
            .as_ref()
            .map_or_else(|| "CPU".to_string(), |d| d.describe()),
        copy_gbps,
        cpu_copy_gbps: BTreeMap::new(),
        results: Vec::new(),
        poly: Vec::new(),
        compare: Vec::new(),
        split: Vec::new(),
    };
    if gpu.is_some() {
        println!(
            "device {}: copy bandwidth {:.0} GB/s (read + write)",
            report.device, copy_gbps
        );
    }
    if args.compare.is_some() {
        return compare(&args, gpu.is_some(), report);
    }
    if let Some(devices) = &args.devices {
        report.split =
            super::bench_split::run(devices, &args.fields, gpu.is_none(), args.quick, args.runs)?;
        return finish(&args, &report);
    }
    // The fields of the transform rows, after the benches that offer others.
    let offered: Vec<&str> = (gpu.is_some().then(|| gpu_workloads(args.quick)))
        .into_iter()
        .chain((!args.gpu).then(|| cpu_workloads(args.quick)))
        .flatten()
        .map(|w| w.field)
        .collect();
    let wanted = fields::filter(&args.fields, &offered)?;
    let chosen = |w: &Workload| fields::chosen(&wanted, w.field);
    let gpu_workloads =
        |quick| -> Vec<Workload> { gpu_workloads(quick).into_iter().filter(chosen).collect() };
    let cpu_workloads = |quick| -> Vec<Workload> {
        if args.gpu {
            Vec::new()
        } else {
            cpu_workloads(quick).into_iter().filter(chosen).collect()
        }
    };
    if args.poly {
        if !args.gpu && args.runs > CPU_POLY_RUNS {
            println!("note: CPU products take {CPU_POLY_RUNS} timed runs each (--runs {} is capped on the CPU)", args.runs);
        }
        let groups = if args.only.is_empty() {
            <PolyGroup as clap::ValueEnum>::value_variants()
        } else {
            &args.only[..]
        };
        report.poly =
            super::bench_poly::run(gpu.is_some(), !args.gpu, args.quick, args.runs, groups)?;
        return finish(&args, &report);
    }
    let gpu_rows = if gpu.is_some() {
        gpu_workloads(args.quick)
    } else {
        Vec::new()
    };
    time_rows(&args, &gpu_rows, cpu_workloads(args.quick), &mut report)?;
    finish(&args, &report)
}

/// Times the transform rows: the GPU's (their kernels compiled in parallel first) in both
/// output orders, then the CPU's on one thread and on all.
fn time_rows(
    args: &Args,
    gpu_rows: &[Workload],
    cpu_rows: Vec<Workload>,
    report: &mut Report,
) -> Result<(), CliError> {
    if !gpu_rows.is_empty() {
        // Kernels for every workload compile in parallel into the disk cache first.
        use rayon::prelude::*;
        gpu_rows.par_iter().for_each(|w| {
            for order in [Order::BitReversed, Order::Natural] {
                if let Ok(any) = FieldSpec::parse(w.field).and_then(|s| s.build()) {
                    let _ = with_field!(&any, f => FftPlan::new(f, w.n, args.gpu_options(order))
                        .map(|_| ()));
                }
            }
        });
    }
    if !cpu_rows.is_empty() {
        cpu_bandwidth(report, args.runs)?;
    }
    print_header();
    let bar = super::progress::spinner("bench");
    let copy_gbps = report.copy_gbps;
    for w in gpu_rows {
        for order in [Order::BitReversed, Order::Natural] {
            bar.set_message(format!("{} n = {}", w.field, w.n));
            let any = FieldSpec::parse(w.field)?.build()?;
            let options = args.gpu_options(order);
            let r = with_field!(&any, f => time_gpu(f, w, options.clone(), args.runs, copy_gbps))?;
            bar.suspend(|| print_row(&r));
            report.results.push(r);
        }
    }
    for w in cpu_rows {
        for threads in [1, rayon::current_num_threads()] {
            bar.set_message(format!("{} n = {} on {threads} threads", w.field, w.n));
            let any = FieldSpec::parse(w.field)?.build()?;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            let gbps = report.cpu_copy_gbps[&threads];
            let runs = args.runs.min(CPU_RUNS);
            let r =
                pool.install(|| with_field!(&any, f => time_cpu(f, &w, threads, runs, gbps)))?;
            bar.suspend(|| print_row(&r));
            report.results.push(r);
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// `--compare crt`: on the GPU where there is one (and not `--cpu`), else on the CPU.
fn compare(args: &Args, gpu: bool, mut report: Report) -> Result<ExitCode, CliError> {
    let gbps = if gpu {
        report.copy_gbps
    } else {
        cpu_bandwidth(&mut report, 0)?;
        report.cpu_copy_gbps[&rayon::current_num_threads()]
    };
    let runs = if gpu {
        args.runs
    } else {
        args.runs.min(CPU_POLY_RUNS)
    };
    report.compare = super::bench_crt::run(gpu, args.quick, runs, gbps)?;
    finish(args, &report)
}

/// Measures the CPU's copy bandwidth on 1 thread and on all, for the floors of CPU rows,
/// and says how many runs CPU rows take.
fn cpu_bandwidth(report: &mut Report, runs: usize) -> Result<(), CliError> {
    for threads in [1, rayon::current_num_threads()] {
        let gbps = bandwidth::cpu_copy_gbps(threads)?;
        println!(
            "CPU: copy bandwidth {gbps:.1} GB/s on {threads} thread{} (read + write)",
            if threads == 1 { "" } else { "s" }
        );
        report.cpu_copy_gbps.insert(threads, gbps);
    }
    if runs > CPU_RUNS {
        println!(
            "note: CPU rows take {CPU_RUNS} timed runs each (--runs {runs} is capped on the CPU)"
        );
    }
    Ok(())
}

/// Writes the report as JSON and draws it, where the arguments ask for it.
fn finish(args: &Args, report: &Report) -> Result<ExitCode, CliError> {
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(report)?)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        plot(report, path)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_header() {
    println!(
        "{:<22} {:>10} {:>6} {:<13} {:<12} {:>10} {:>9} {:>9} {:>10} {:>7} {:>6}",
        "field",
        "n",
        "batch",
        "order",
        "backend",
        "median ms",
        "idle ms",
        "GB/s",
        "floor ms",
        "ratio",
        "passes"
    );
}

fn print_row(r: &Result_) {
    println!(
        "{:<22} {:>10} {:>6} {:<13} {:<12} {:>10.4} {:>9.4} {:>9.1} {:>10.4} {:>7.2} {:>6}",
        r.field,
        r.n,
        r.batch,
        r.order,
        r.backend,
        r.median_ms,
        r.idle_ms,
        r.effective_gbps,
        r.floor_ms,
        r.ratio,
        r.passes
    );
}

/// Device-to-device copy bandwidth, counting bytes read and written.
fn copy_bandwidth(d: &fermat::gpu::Device) -> Result<f64, CliError> {
    let len = 1usize << 27; // 1 GiB of u64
    let src = d.alloc::<u64>(len)?;
    let mut dst = d.alloc::<u64>(len)?;
    let stream = d.stream();
    let mut times = Vec::new();
    for i in 0..12 {
        let start = d.event()?;
        let end = d.event()?;
        start.record(stream)?;
        stream.memcpy_dtod(&src, &mut dst)?;
        end.record(stream)?;
        end.synchronize()?;
        if i >= 2 {
            times.push(start.elapsed_ms(&end)? as f64);
        }
    }
    Ok(2.0 * (len * 8) as f64 / (median(times) * 1e-3) / 1e9)
}

fn order_name(o: Order) -> &'static str {
    match o {
        Order::Natural => "natural",
        Order::BitReversed => "bit-reversed",
    }
}

/// A one-thread kernel that returns once `ns` nanoseconds of the GPU's global timer have
/// passed: queued before a timed call, it holds the stream while the host queues the call.
const HOLD_KERNEL: &str = r#"
extern "C" __global__ void fermat_hold(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"#;

/// Queues [`HOLD_KERNEL`] for `ns` nanoseconds on `stream`.
pub(super) fn hold(
    device: &fermat::gpu::Device,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    ns: u64,
) -> Result<(), CliError> {
    use cudarc::driver::PushKernelArg;
    static HOLD: std::sync::OnceLock<cudarc::driver::CudaFunction> = std::sync::OnceLock::new();
    let f = match HOLD.get() {
        Some(f) => f,
        None => {
            let (module, _) = device.compile(HOLD_KERNEL)?;
            let f = module
                .load_function("fermat_hold")
                .map_err(|e| format!("cannot load the hold kernel: {e}"))?;
            HOLD.get_or_init(|| f)
        }
    };
    let mut launch = stream.launch_builder(f);
    launch.arg(&ns);
    // SAFETY: the kernel takes one 64-bit integer and touches no memory.
    unsafe { launch.launch(cudarc::driver::LaunchConfig::for_num_elems(1)) }
        .map_err(|e| format!("cannot launch the hold kernel: {e}"))?;
    Ok(())
}

fn time_gpu<F: HostField>(
    field: &F,
    w: &Workload,
    options: FftOptions,
    runs: usize,
    copy_gbps: f64,
) -> Result<Result_, CliError> {
    let order = options.output_order;
    let plan = FftPlan::new(field, w.n, options)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(w.n);
    let x: Vec<F::Host> = (0..w.n * w.batch as u64)
        .map(|_| field.to_host(&field.random(&mut rng)))
        .collect();
    let input = plan.to_device(&x)?;
    let mut output = plan.alloc_device(w.batch)?;
    let device = fermat::gpu::device(0)?;
    let stream = device.stream();
    for _ in 0..3 {
        plan.run_device(Direction::Forward, &input, &mut output, None)?;
    }
    let mut times = Vec::with_capacity(runs);
    let mut idle_times = Vec::with_capacity(runs);
    for _ in 0..runs {
        for queued in [true, false] {
            let start = device.event()?;
            let end = device.event()?;
            if queued {
                hold(&device, stream, 200_000)?;
            }
            start.record(stream)?;
            plan.run_device(Direction::Forward, &input, &mut output, None)?;
            end.record(stream)?;
            end.synchronize()?;
            let ms = start.elapsed_ms(&end)? as f64;
            if queued { &mut times } else { &mut idle_times }.push(ms);
        }
    }
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    let bytes =
        2 * w.n * w.batch as u64 * field.words() as u64 * std::mem::size_of::<F::Word>() as u64;
    Ok(result(
        field.name(),
        w,
        order_name(order),
        "gpu".into(),
        median(times),
        median(idle_times),
        min,
        bytes,
        copy_gbps,
        plan.cost()?.passes(),
    ))
}

#[allow(clippy::too_many_arguments)]
fn result(
    field: String,
    w: &Workload,
    order: &str,
    backend: String,
    median_ms: f64,
    idle_ms: f64,
    min_ms: f64,
    bytes: u64,
    copy_gbps: f64,
    passes: usize,
) -> Result_ {
    let floor_ms = if copy_gbps > 0.0 {
        bytes as f64 / (copy_gbps * 1e9) * 1e3
    } else {
        0.0
    };
    Result_ {
        field,
        n: w.n,
        batch: w.batch,
        order: order.into(),
        backend,
        median_ms,
        idle_ms,
        min_ms,
        bytes,
        effective_gbps: bytes as f64 / (median_ms * 1e-3) / 1e9,
        floor_ms,
        floor_gbps: copy_gbps,
        ratio: if floor_ms > 0.0 {
            median_ms / floor_ms
        } else {
            0.0
        },
        passes,
    }
}

fn time_cpu<F: HostField>(
    field: &F,
    w: &Workload,
    threads: usize,
    runs: usize,
    copy_gbps: f64,
) -> Result<Result_, CliError> {
    let plan = FftPlan::new(
        field,
        w.n,
        FftOptions {
            backend: Backend::Cpu,
            ..FftOptions::default()
        },
    )?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(w.n);
    let x: Vec<F::Host> = (0..w.n)
        .map(|_| field.to_host(&field.random(&mut rng)))
        .collect();
    let mut times = Vec::new();
    for i in 0..runs + 1 {
        let mut y = x.clone();
        let started = Instant::now();
        plan.forward(&mut y)?;
        if i > 0 {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    let bytes = 2 * w.n * field.words() as u64 * std::mem::size_of::<F::Word>() as u64;
    // A CPU call has no queue to wait behind: both medians are the same.
    let median_ms = median(times);
    Ok(result(
        field.name(),
        w,
        "natural",
        format!("cpu, {threads} thr"),
        median_ms,
        median_ms,
        min,
        bytes,
        copy_gbps,
        plan.cost()?.passes(),
    ))
}

fn plot(report: &Report, path: &PathBuf) -> Result<(), CliError> {
    use plotters::prelude::*;
    if !report.compare.is_empty() {
        return super::bench_crt::plot(&report.compare, &report.device, path);
    }
    // The font travels in the binary: the GPU servers, among others, have none installed.
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the embedded DejaVu Sans font cannot be read")?;
    let rows: Vec<&Result_> = report.results.iter().filter(|r| r.ratio > 0.0).collect();
    if rows.is_empty() {
        return Err("nothing to plot: no results with a bandwidth floor".into());
    }
    let root = BitMapBackend::new(path, (1200, 60 + 28 * rows.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let max = rows.iter().map(|r| r.ratio).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption(report), ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(330)
        .build_cartesian_2d(0.0..max, (0..rows.len()).into_segmented())?;
    let labels: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} n={} ×{} {} ({})",
                r.field, r.n, r.batch, r.order, r.backend
            )
        })
        .collect();
    chart
        .configure_mesh()
        .y_labels(rows.len())
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc("median time / floor (1 = one read and one write at the copy bandwidth)")
        .draw()?;
    chart.draw_series(rows.iter().enumerate().map(|(i, r)| {
        Rectangle::new(
            [
                (0.0, SegmentValue::Exact(i)),
                (r.ratio, SegmentValue::Exact(i + 1)),
            ],
            if r.backend == "gpu" { BLUE } else { RED }
                .mix(0.6)
                .filled(),
        )
    }))?;
    root.present()?;
    println!("plot {}", path.display());
    Ok(())
}

/// The plot's title: the device and the bandwidths the floors are taken from.
fn caption(report: &Report) -> String {
    let mut floors = Vec::new();
    if report.copy_gbps > 0.0 {
        floors.push(format!("GPU {:.0} GB/s", report.copy_gbps));
    }
    for (threads, gbps) in &report.cpu_copy_gbps {
        floors.push(format!("CPU {gbps:.1} GB/s on {threads} thr"));
    }
    format!(
        "fermat on {}: time / bandwidth floor (copy: {})",
        report.device,
        floors.join(", ")
    )
}
