//! The subcommands of the `fermat` binary, one module each.

mod bandwidth;
mod bench;
mod bench_crt;
mod bench_div;
mod bench_gcd;
mod bench_poly;
mod bench_ring;
mod bench_split;
mod derive;
mod div;
mod fft;
mod fields;
mod gcd;
mod gen;
mod mul;
mod mul_ring;
mod mul_split;
mod operands;
mod output;
mod primes;
mod progress;
mod selftest;
mod selftest_mul;
mod selftest_split;
mod tune;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// A boxed error with a human-readable message: what the binary prints before exiting.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

/// fermat: exact FFTs over finite fields, compiled into specialised kernels.
#[derive(Debug, Parser)]
#[command(name = "fermat", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List, check and search sparse-radix generalized Fermat primes (SRGFNs).
    Primes(primes::Args),
    /// Show a formula's rewrites step by step, check them, or list the rewrite rules.
    Derive(derive::Args),
    /// Run one transform on a file or random data, verify it and time it.
    Fft(fft::Args),
    /// Multiply two polynomials from files or random, verify the product and time it.
    Mul(mul::Args),
    /// Divide two polynomials with remainder, from files or random, verify and time it.
    Div(div::Args),
    /// The monic gcd of two polynomials, from files or random, verified and timed.
    Gcd(gcd::Args),
    /// Write the CUDA kernels and manifest of a transform, or the whole catalogue.
    Gen(gen::Args),
    /// Check every catalogue field at many sizes on each backend against exact references.
    Selftest(selftest::Args),
    /// Time the catalogue's workloads against the memory-bandwidth floor.
    Bench(bench::Args),
    /// Measure where plain products give way to FFT-based ones and store the table.
    Tune(tune::Args),
}

/// The devices `--devices` names, for the commands that split over them: GPUs of this
/// host, or as many devices simulated on the CPU; fewer than two is an error.
fn split_devices(
    ordinals: &[usize],
    simulated: bool,
) -> Result<fermat::split::SplitDevices, CliError> {
    let g = ordinals.len();
    if g < 2 {
        return Err(format!(
            "--devices names {g} device(s); a split needs at least 2 (e.g. --devices 0,1)"
        )
        .into());
    }
    Ok(if simulated {
        fermat::split::SplitDevices::Cpu(g)
    } else {
        fermat::split::SplitDevices::Gpu(ordinals.to_vec())
    })
}

/// Runs one subcommand; the exit code says whether it succeeded (checks that fail give 1).
pub fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Primes(args) => primes::run(args),
        Command::Derive(args) => derive::run(args),
        Command::Fft(args) => fft::run(args),
        Command::Mul(args) => mul::run(args),
        Command::Div(args) => div::run(args),
        Command::Gcd(args) => gcd::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Selftest(args) => selftest::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Tune(args) => tune::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::Parser;

    #[test]
    fn every_readme_command_parses() {
        let commands = fermat_tests::readme_commands();
        assert!(commands.len() >= 5, "the main job and a tour");
        for args in commands {
            let argv = std::iter::once("fermat".to_string()).chain(args.iter().cloned());
            if let Err(e) = Cli::try_parse_from(argv) {
                panic!("fermat {}: {e}", args.join(" "));
            }
        }
    }
}
