//! `fermat primes` (being written).
use super::CliError;
use std::process::ExitCode;
/// Arguments of `fermat primes`.
#[derive(Debug, clap::Args)]
pub struct Args {}
/// Runs it.
pub fn run(_args: Args) -> Result<ExitCode, CliError> { Ok(ExitCode::SUCCESS) }
