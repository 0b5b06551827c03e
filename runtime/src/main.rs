//! The `fermat` command: see `fermat --help`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `fermat … | head` ends quietly when the reader goes away, as Unix filters do. Rust
/// programs start with SIGPIPE ignored, so a write to a closed pipe fails instead, and
/// `println!` panics on that failure; the default disposition ends the process at once.
#[cfg(unix)]
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: `signal` with SIG_DFL installs no handler; this runs first in `main`, before
    // any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_a_closed_pipe() {}
