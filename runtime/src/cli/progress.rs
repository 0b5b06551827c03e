//! Progress bars for every step that can take more than a second.
//!
//! They draw on standard error and only when it is a terminal, so piped output and logs
//! stay clean; `FERMAT_PROGRESS=always` draws them anyway (for recorded terminals, and
//! the tests that check they are there), `FERMAT_PROGRESS=never` hides them.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Where bars are drawn.
fn target() -> ProgressDrawTarget {
    match std::env::var("FERMAT_PROGRESS").as_deref() {
        Ok("always") => ProgressDrawTarget::term_like(Box::new(console::Term::stderr())),
        Ok("never") => ProgressDrawTarget::hidden(),
        _ => ProgressDrawTarget::stderr(),
    }
}

/// A bar of `len` steps, labelled `what` (`"verify"`, `"selftest"`).
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), target());
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} {msg} (eta {eta})",
        )
        .expect("the progress template is valid"),
    );
    bar.set_prefix(what.to_string());
    bar
}

/// A spinner for one step of unknown length, labelled `what`; it ticks by itself until
/// it is finished.
pub fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, target());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {prefix} [{elapsed_precise}] {msg}")
            .expect("the progress template is valid"),
    );
    bar.set_prefix(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Runs `step` under a spinner labelled `what`, cleared when it ends.
pub fn during<T>(what: &str, step: impl FnOnce() -> T) -> T {
    let spinner = spinner(what);
    let out = step();
    spinner.finish_and_clear();
    out
}
