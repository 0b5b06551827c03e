//! # 01 — `fermat::fft!`: transforms specialised when the crate compiles
//!
//! Two FFTs are written once, below; the macro designs, derives, lowers and prints their
//! CUDA kernels while this example compiles, and makes each a type. At run time
//! `Backend::Auto` takes the GPU if one works (compiling the embedded source with NVRTC)
//! and the CPU otherwise; both transforms are checked against the exact reference vectors
//! that `fermat selftest` ships (`runtime/vectors/`).
//!
//! ```text
//! cargo run --example 01-fft-macro
//! ```

use fermat::{Backend, Error, Field, HostField, Running};
use fermat_tests::{big, load};
use std::process::ExitCode;

fermat::fft! {
    /// The 4096-point DFT over P3 = (2^63 + 2^34)^8 + 1: N = 16^3, Proposition 3 of the
    /// 2017 paper, every base-case twiddle a digit shift.
    pub struct P3x4096;
    field = P3, n = 4096, radix = 16, strategy = prop3
}

fermat::fft! {
    /// The 4096-point DFT over the word prime 469762049 = 7·2^26 + 1.
    pub struct Word4096;
    field = 469762049, n = 4096
}

/// A DFT's input and output.
type Pair<T> = (Vec<T>, Vec<T>);

/// The reference DFT of `n` points over the vector file `name`: (input, output) as host
/// values of `field`.
fn reference<F: HostField>(field: &F, name: &str, n: u64) -> Result<Pair<F::Host>, Error> {
    let file = load(name);
    let case = file
        .ffts
        .iter()
        .find(|c| c.n == n)
        .unwrap_or_else(|| panic!("runtime/vectors/{name}.json has no DFT of {n} points"));
    let host = |values: &[String]| -> Result<Vec<F::Host>, Error> {
        values
            .iter()
            .map(|s| Ok(field.to_host(&field.from_biguint(&big(s))?)))
            .collect()
    };
    Ok((host(&case.input)?, host(&case.output)?))
}

/// Forward against the reference output, inverse back to the input; a line for the
/// report, or what differs.
fn check<T: Clone + PartialEq + std::fmt::Debug>(
    what: &str,
    reference: Pair<T>,
    forward: impl Fn(&mut [T]) -> Result<(), Error>,
    inverse: impl Fn(&mut [T]) -> Result<(), Error>,
) -> Result<String, String> {
    let (input, output) = reference;
    let mut y = input.clone();
    forward(&mut y).map_err(|e| format!("{what}: forward failed: {e}"))?;
    if let Some(i) = (0..y.len()).find(|&i| y[i] != output[i]) {
        return Err(format!(
            "{what}: output {i} is {:?}, the reference says {:?}",
            y[i], output[i]
        ));
    }
    inverse(&mut y).map_err(|e| format!("{what}: inverse failed: {e}"))?;
    if y != input {
        return Err(format!("{what}: inverse(forward(x)) is not x"));
    }
    Ok(format!(
        "{what}: {} outputs equal the reference, and the inverse gives the input back",
        output.len()
    ))
}

/// On a GPU plan, the same transform through device buffers: copy in, run the forward
/// kernels, copy out and compare, then the inverse kernels back to the input.
fn check_device(
    what: &str,
    plan: &P3x4096,
    reference: &Pair<[u64; 8]>,
) -> Result<Option<String>, String> {
    if !matches!(plan.running(), Running::Gpu(_)) {
        return Ok(None);
    }
    let (input, output) = reference;
    let err = |e: Error| format!("{what} on device buffers: {e}");
    let x = plan.to_device(input).map_err(err)?;
    let mut y = plan.alloc_device(1).map_err(err)?;
    plan.forward_device(&x, &mut y).map_err(err)?;
    if &plan.from_device(&y).map_err(err)? != output {
        return Err(format!(
            "{what}: the forward kernels on device buffers disagree with the reference"
        ));
    }
    let mut back = plan.alloc_device(1).map_err(err)?;
    plan.inverse_device(&y, &mut back).map_err(err)?;
    plan.synchronize().map_err(err)?;
    if &plan.from_device(&back).map_err(err)? != input {
        return Err(format!(
            "{what}: the inverse kernels do not give the input back"
        ));
    }
    Ok(Some(format!(
        "{what}: device buffers give the reference output and the input back"
    )))
}

/// Builds both plans on `backend`, checks them against the reference vectors and returns
/// the report's lines.
pub fn run(backend: Backend) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();

    let p3 = P3x4096::new(backend).map_err(|e| format!("P3x4096: {e}"))?;
    let cost = p3.cost();
    lines.push(format!(
        "{}: {} kernels, {} passes over global memory, {} full multiplications, on {}",
        stringify!(P3x4096),
        cost.kernels.len(),
        cost.passes(),
        cost.total(|k| k.full_muls),
        p3.running()
    ));
    lines.push(format!("  DFT(4096) = {}", P3x4096::FORMULA));
    let refs = reference(p3.field(), "P3", P3x4096::N as u64).map_err(|e| e.to_string())?;
    lines.extend(check_device("P3, n = 4096", &p3, &refs)?);
    lines.push(check(
        "P3, n = 4096",
        refs,
        |x| p3.forward(x),
        |x| p3.inverse(x),
    )?);

    let word = Word4096::new(backend).map_err(|e| format!("Word4096: {e}"))?;
    let refs =
        reference(word.field(), "p469762049", Word4096::N as u64).map_err(|e| e.to_string())?;
    lines.push(format!(
        "{}: {} kernels, on {}",
        stringify!(Word4096),
        word.cost().kernels.len(),
        word.running()
    ));
    lines.push(check(
        "469762049, n = 4096",
        refs,
        |x| word.forward(x),
        |x| word.inverse(x),
    )?);
    // The root the reference vectors use is the canonical one the plans use.
    let omega = word
        .field()
        .root_of_unity(4096)
        .map_err(|e| e.to_string())?;
    lines.push(format!(
        "ω_4096 = {} (canonical)",
        word.field().to_biguint(&omega)
    ));
    Ok(lines)
}

fn main() -> ExitCode {
    match run(Backend::Auto) {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
