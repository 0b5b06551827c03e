//! `fermat mul --devices 0,1`: one product whose transforms are split over several
//! devices — GPUs of this host exchanging through NCCL, or, with `--backend cpu` or
//! without a GPU, as many devices simulated on the CPU.

use super::operands::{finish, report_for};
use super::CliError;
use fermat::poly::Poly;
use fermat::split::{Distribution, SplitDevices, SplitOptions, SplitPlan};
use fermat::HostField;
use std::io::Write;
use std::time::Instant;

/// Which devices `--devices` and `--backend` name: GPUs where the backend allows and the
/// driver reports them all, else simulated ones (saying why).
fn devices(ordinals: &[usize], backend: &str) -> Result<(SplitDevices, String), CliError> {
    let g = ordinals.len();
    let count = fermat::gpu::device_count();
    let all_there = ordinals.iter().all(|&o| o < count);
    let (simulated, said) = match backend {
        "cpu" => (true, format!("{g} devices simulated on the CPU")),
        "gpu" if !all_there => {
            return Err(format!("--devices {ordinals:?}: the driver reports {count} GPU(s)").into())
        }
        "gpu" | "auto" if all_there => {
            (false, format!("GPUs {ordinals:?}, exchanging through NCCL"))
        }
        "auto" => (
            true,
            format!("{g} devices simulated on the CPU (the driver reports {count} GPU(s))"),
        ),
        other => return Err(format!("--backend {other}: expected cpu, gpu or auto").into()),
    };
    Ok((super::split_devices(ordinals, simulated)?, said))
}

/// Multiplies `a` by `b` on `ordinals`: the cyclic product of the smallest power of two
/// that holds the product (at least G² points); the report, the check and the output as
/// for any product.
pub fn run<F: HostField>(
    field: &F,
    (a, b): (&Poly<F>, &Poly<F>),
    (ordinals, backend): (&[usize], &str),
    field_line: &str,
    (output, verify): (&Option<std::path::PathBuf>, bool),
) -> Result<std::process::ExitCode, CliError> {
    let (devices, said) = devices(ordinals, backend)?;
    let g = devices.count() as u64;
    let mut report = report_for(output);
    // The product's length: none when an operand is the zero polynomial.
    let len = if a.is_empty() || b.is_empty() {
        0
    } else {
        a.len() + b.len() - 1
    };
    writeln!(report, "{field_line}")?;
    writeln!(report, "lengths  {} × {} → {len}", a.len(), b.len())?;
    writeln!(report, "devices  {said}")?;
    let c = if len == 0 {
        Poly::zero(field)
    } else {
        let n = (len as u64).next_power_of_two().max(g * g);
        // Cyclic in and out: each device sends its rows while it transforms the next.
        let options = SplitOptions {
            output: Distribution::Cyclic,
            ..Default::default()
        };
        let plan = SplitPlan::new(field, n, devices, options)?;
        writeln!(
            report,
            "product  cyclic product of {n} points over {g} devices, {} exchange per transform \
             (cyclic in and out)",
            plan.exchanges()
        )?;
        let host =
            |p: &Poly<F>| -> Vec<F::Host> { p.coeffs().iter().map(|c| field.to_host(c)).collect() };
        let started = Instant::now();
        let mut c = plan.mul(&host(a), &host(b))?;
        writeln!(
            report,
            "time     {:.3} ms, plans made and transfers included",
            started.elapsed().as_secs_f64() * 1e3
        )?;
        c.truncate(len);
        Poly::new(
            field,
            c.iter()
                .map(|h| field.to_elem(h))
                .collect::<Result<_, _>>()?,
        )
    };
    let ok = !verify || super::mul::verify(field, a, b, &c, &mut report)?;
    finish(output, &c.to_json(), ok, &mut report)
}
