//! `fermat gen`: CUDA kernels and their manifest for one transform, or the whole catalogue.

use super::fft::Transform;
use super::{fields, output, progress, CliError};
use fermat::catalogue::{self, Output};
use fermat::codegen::nvrtc::{self, NvrtcError};
use fermat::{FftOptions, Order};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `fermat gen`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The field: P1..P6, goldilocks, babybear, a decimal word prime (469762049) or
    /// srgfn:w,u,sign,k.
    #[arg(long, required_unless_present = "catalogue")]
    field: Option<String>,
    #[command(flatten)]
    transform: Transform,
    /// log2 of the largest piece a kernel keeps on chip.
    #[arg(long)]
    max_local_bits: Option<u32>,
    /// The order of the input.
    #[arg(long, value_enum, default_value_t = OrderArg::Natural)]
    input_order: OrderArg,
    /// The order of the output.
    #[arg(long, value_enum, default_value_t = OrderArg::Natural)]
    output_order: OrderArg,
    /// Write the whole catalogue instead of one transform.
    #[arg(long, conflicts_with_all = ["field", "n", "radix", "e", "strategy", "input_order", "output_order"])]
    catalogue: bool,
    /// The output directory (created if missing; checked before anything is generated).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Print the cost report (and registers and spills per kernel, if NVRTC is found).
    #[arg(long)]
    cost: bool,
    /// The device copy bandwidth for the cost report's floor, in GB/s.
    #[arg(long, default_value_t = 4260.0)]
    gbps: f64,
}

/// The most bytes a vector of one transform may take: more than any GPU holds (and the
/// cost report counts bytes in 64 bits).
const MAX_DEVICE_BYTES: u128 = 1 << 40;

/// An element order on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderArg {
    /// Element i at index i.
    Natural,
    /// Element i at the bit reversal of i.
    BitReversed,
}

impl From<OrderArg> for Order {
    fn from(o: OrderArg) -> Order {
        match o {
            OrderArg::Natural => Order::Natural,
            OrderArg::BitReversed => Order::BitReversed,
        }
    }
}

/// Writes `stem.cu` and `stem.json` into `dir`.
pub fn write(dir: &Path, stem: &str, output: &Output) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let cu = dir.join(format!("{stem}.cu"));
    std::fs::write(&cu, &output.source)
        .map_err(|e| format!("cannot write {}: {e}", cu.display()))?;
    let json = dir.join(format!("{stem}.json"));
    let mut text = serde_json::to_string_pretty(&output.manifest)?;
    text.push('\n');
    std::fs::write(&json, text).map_err(|e| format!("cannot write {}: {e}", json.display()))?;
    Ok(())
}

/// Runs `fermat gen`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if let Some(dir) = &args.out {
        output::check_dir(dir)?;
    }
    if args.catalogue {
        let dir = args
            .out
            .clone()
            .ok_or("--catalogue needs the output directory: -o DIR")?;
        let entries = catalogue::entries();
        let bar = progress::bar(entries.len() as u64, "gen");
        for entry in &entries {
            bar.set_message(entry.stem());
            let output = catalogue::generate_entry(entry)?;
            write(&dir, &entry.stem(), &output)?;
            bar.inc(1);
        }
        bar.finish_and_clear();
        println!(
            "wrote {} kernel files and their manifests to {}",
            entries.len(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let spec = args
        .field
        .as_deref()
        .expect("clap requires --field without --catalogue");
    let any = fields::parse(spec)?;
    let n = args.transform.size()?;
    fermat::dsl::field::check_order(n, any.two_adicity())?;
    let bytes = u128::from(n) * fermat::codegen::cost::FieldShape::of(&any).element_bytes as u128;
    if bytes > MAX_DEVICE_BYTES {
        return Err(format!(
            "n = 2^{} over {}: one vector takes {}; kernels are made for one device, which holds at most {}",
            n.trailing_zeros(),
            any.name(),
            fermat::memory::human(bytes),
            fermat::memory::human(MAX_DEVICE_BYTES)
        )
        .into());
    }
    let options = FftOptions {
        radix: args.transform.radix,
        strategy: args.transform.strategy()?,
        max_local_bits: args.max_local_bits,
        input_order: args.input_order.into(),
        output_order: args.output_order.into(),
        ..FftOptions::default()
    };
    let stem = format!("{}_n{n}", any.name().replace([':', ',', '+', '-'], "_"));
    let output = progress::during("generating", || {
        catalogue::generate(&any, n, &options, &stem)
    })?;
    let manifest = &output.manifest;
    if let Some(note) = args
        .transform
        .radix_note(manifest.radix, n, manifest.max_local_bits)
    {
        println!("{note}");
    }
    if let Some(dir) = &args.out {
        write(dir, &stem, &output)?;
        println!(
            "wrote {} and {}",
            dir.join(format!("{stem}.cu")).display(),
            dir.join(format!("{stem}.json")).display()
        );
    }
    if args.cost || args.out.is_none() {
        let cost = &output.manifest.cost;
        println!("{} n = {n}: {}", any.name(), output.manifest.formula);
        print!("{cost}");
        println!(
            "bandwidth floor at {} GB/s: {:.4} ms for this plan, {:.4} ms for one read and one write",
            args.gbps,
            cost.floor_seconds(args.gbps) * 1e3,
            cost.ideal_seconds(args.gbps) * 1e3
        );
        match nvrtc::compile(&output.source, nvrtc::SM90_CUBIN) {
            Ok(compiled) => {
                for r in compiled.resources() {
                    println!(
                        "{:<12} {} registers, {} bytes stack, {} bytes spilled (sm_90)",
                        r.kernel, r.registers, r.stack_frame, r.spill_stores
                    );
                }
            }
            // Where NVRTC was looked for is long and no help here: say how to get it.
            Err(NvrtcError::NotFound { .. }) => println!(
                "registers: not available (NVRTC not found: run .ci/nvrtc.sh or set FERMAT_NVRTC_LIB)"
            ),
            Err(e) => println!("registers: not available ({e})"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
