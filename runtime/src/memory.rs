//! Sizes checked before they become allocations.
//!
//! A transform of n points holds a few vectors of n elements; n comes from a user, and an
//! allocation that cannot succeed aborts the process (or, with overcommitted memory, gets
//! it killed later). So every size is checked first: against the field's 2-adicity (only
//! sizes up to 2^(2-adicity) have roots of unity) and against the memory the machine has
//! available now. A refusal is an [`Error::Memory`] naming what was asked for.
//!
//! ```
//! use fermat::{Error, FieldSpec, FftOptions, FftPlan};
//!
//! let fermat::AnyField::Srgfn8(p3) = FieldSpec::parse("P3")?.build()? else { unreachable!() };
//! // 2^40 elements of 64 bytes: 64 TiB, more than any machine has.
//! let err = FftPlan::new(&p3, 1 << 40, FftOptions::default()).unwrap_err();
//! assert!(matches!(err, Error::Memory { .. }), "{err}");
//! assert!(fermat::memory::check_transform(&p3, 4096, 2).is_ok());
//! # Ok::<(), fermat::Error>(())
//! ```

use crate::error::Error;
use crate::host::HostField;
use fermat_dsl::field::check_order;

/// The memory available to this process now, in bytes (`None` where the system does not
/// say).
///
/// ```
/// if let Some(bytes) = fermat::memory::available() {
///     println!("{} available", fermat::memory::human(u128::from(bytes)));
/// }
/// ```
pub fn available() -> Option<u64> {
    let mut system = sysinfo::System::new();
    system.refresh_memory();
    // Inside a container the cgroup's limit is what counts.
    let available = match system.cgroup_limits() {
        Some(c) => system.available_memory().min(c.free_memory),
        None => system.available_memory(),
    };
    (available > 0).then_some(available)
}

/// Refuses `bytes` of memory for `what` when they exceed what is [`available`].
///
/// ```
/// use fermat::memory::check;
///
/// assert!(check(|| "a small table".into(), 4096).is_ok());
/// let err = check(|| "a huge table".into(), 1 << 100).unwrap_err();
/// assert!(err.to_string().starts_with("a huge table needs"), "{err}");
/// ```
pub fn check(what: impl FnOnce() -> String, bytes: u128) -> Result<(), Error> {
    // Beyond the address space nothing is ever available.
    if bytes > isize::MAX as u128 {
        return Err(Error::Memory {
            what: what(),
            bytes,
            available: None,
        });
    }
    match available() {
        Some(free) if bytes > u128::from(free) => Err(Error::Memory {
            what: what(),
            bytes,
            available: Some(free),
        }),
        _ => Ok(()),
    }
}

/// The bytes of one element of `field` in memory (the larger of its two forms).
///
/// ```
/// assert_eq!(fermat::memory::element_bytes::<fermat::dsl::Srgfn<8>>(), 64);
/// ```
pub fn element_bytes<F: HostField>() -> u128 {
    std::mem::size_of::<F::Elem>().max(std::mem::size_of::<F::Host>()) as u128
}

/// Host elements an [`FftPlan`](crate::FftPlan) of n points holds: the table of roots
/// (n of them) and the two twiddle tables of the CPU backend.
///
/// ```
/// use fermat::memory::{element_bytes, PLAN_VECTORS};
///
/// // A plan of 2^20 points over P3 holds three tables of 64-byte elements: 192 MiB.
/// let bytes = PLAN_VECTORS * (1 << 20) * element_bytes::<fermat::dsl::Srgfn<8>>();
/// assert_eq!(bytes, 192 << 20);
/// ```
pub const PLAN_VECTORS: u128 = 3;

/// Checks a transform of `n` points over `field` before anything is allocated: n must
/// be a power of two within the field's 2-adicity, and a plan together with `vectors`
/// vectors of n elements (the caller's input, output, copies) must fit in the memory
/// available.
///
/// ```
/// use fermat::memory::check_transform;
///
/// let f = fermat::dsl::Fp32::new(469762049)?;
/// assert!(check_transform(&f, 1 << 20, 2).is_ok());
/// assert!(check_transform(&f, 1 << 27, 0).is_err()); // beyond the 2-adicity, 26
/// assert!(check_transform(&f, 3, 0).is_err());
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn check_transform<F: HostField>(field: &F, n: u64, vectors: u32) -> Result<(), Error> {
    let held = if vectors == 0 {
        ": the plan's tables".to_string()
    } else {
        format!(": the plan's tables and {vectors} vectors of n elements")
    };
    check_points(field, n, PLAN_VECTORS + u128::from(vectors), &held)
}

/// n within the field's 2-adicity, then `vectors` vectors of n elements (`held` says
/// which) within the memory available.
fn check_points<F: HostField>(field: &F, n: u64, vectors: u128, held: &str) -> Result<(), Error> {
    check_order(n, field.two_adicity())?;
    check(
        || {
            format!(
                "a transform of n = 2^{} points over {}{held}, {} bytes an element,",
                n.trailing_zeros(),
                field.name(),
                element_bytes::<F>()
            )
        },
        u128::from(n) * vectors * element_bytes::<F>(),
    )
}

/// Checks a transform of `n` points over `field` that runs on a GPU: n within the field's
/// 2-adicity, and one vector of n elements (the data on its way to the device) within the
/// host's memory. The plan's own host tables are rows of a few powers each, not n of them.
///
/// ```
/// use fermat::memory::check_gpu_transform;
///
/// let fermat::AnyField::Srgfn8(p3) = fermat::FieldSpec::parse("P3")?.build()? else { unreachable!() };
/// assert!(check_gpu_transform(&p3, 1 << 20).is_ok());
/// assert!(check_gpu_transform(&p3, 1 << 50).is_err()); // 64 PiB of data
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn check_gpu_transform<F: HostField>(field: &F, n: u64) -> Result<(), Error> {
    check_points(field, n, 1, " on a GPU: one vector of n elements")
}

/// Bytes for people.
///
/// ```
/// assert_eq!(fermat::memory::human(64 << 30), "64.0 GiB");
/// ```
pub fn human(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(64 << 30), "64.0 GiB");
        assert_eq!(human(1 << 69), "512.0 EiB");
    }

    #[test]
    fn refuses_what_the_address_space_cannot_hold() {
        let err = check(|| "a test".into(), 1 << 70).unwrap_err();
        assert!(err.to_string().contains("a test"), "{err}");
        assert!(check(|| "a test".into(), 1024).is_ok());
    }
}
