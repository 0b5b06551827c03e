//! The products of `fermat selftest`: for every catalogue field, products of several shapes
//! — one cyclic product, split products just above powers of two, unbalanced blocks — on
//! each backend: the CPU's against the schoolbook product (or at random points where that
//! is too long), the GPU's against the CPU's, written into poisoned device polynomials.

use fermat::dsl::field::{CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES};
use fermat::dsl::with_field;
use fermat::poly::{schoolbook_mul, Poly, PolyRing};
use fermat::{AnyField, Backend, HostField};
use rand::SeedableRng;
use std::time::Instant;

/// Products of at most this many coefficient products are compared with the schoolbook one.
const SCHOOLBOOK: u64 = 1 << 22;

/// The shapes (lengths of the operands) tried for a field with elements of `bytes` bytes.
fn shapes(bytes: u64) -> Vec<(usize, usize)> {
    let mut s = vec![
        (1, 1),
        (100, 37),
        (1000, 1000),
        (1025, 1025),
        (2500, 2000),
        (20_000, 30),
    ];
    if bytes <= 64 {
        s.push(((1 << 14) + 1, (1 << 14) + 1));
    }
    s
}

/// Runs the products for the catalogue fields chosen (all when `chosen` is empty) on
/// `backends`, printing a row each; the number of rows and of failures.
pub fn run(chosen: &[AnyField], backends: &[Backend], seed: u64) -> (usize, usize) {
    let fields: Vec<AnyField> = CATALOGUE_WORD_PRIMES
        .iter()
        .map(|(n, _)| *n)
        .chain(CATALOGUE_SRGFNS.iter().map(|(n, _)| *n))
        .filter(|n| super::fields::chosen(chosen, n))
        .filter_map(|n| super::fields::parse(n).ok())
        .collect();
    let bar = super::progress::bar((fields.len() * backends.len()) as u64, "selftest");
    let (mut rows, mut failed) = (0, 0);
    for any in &fields {
        let name = super::fields::name(any);
        for &backend in backends {
            bar.set_message(format!("products over {name}"));
            let (r, f) =
                with_field!(any, field => field_products(field, &name, backend, seed, &bar));
            rows += r;
            failed += f;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    (rows, failed)
}

fn field_products<F: HostField>(
    field: &F,
    name: &str,
    backend: Backend,
    seed: u64,
    bar: &indicatif::ProgressBar,
) -> (usize, usize) {
    let label = match backend {
        Backend::Gpu(i) => format!("gpu{i}"),
        _ => "cpu".into(),
    };
    let rings = PolyRing::new(field, backend).and_then(|ring| {
        let cpu = PolyRing::new(field, Backend::Cpu)?;
        Ok((ring, cpu))
    });
    let (ring, cpu) = match rings {
        Ok(r) => r,
        Err(e) => {
            bar.suspend(|| println!("FAIL  {name:<22} mul                 {label:<8} error: {e}"));
            return (1, 1);
        }
    };
    let bytes = 8 * field.words() as u64;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ field.modulus().bits());
    let (mut rows, mut failed) = (0, 0);
    for (la, lb) in shapes(bytes) {
        let a = Poly::random(field, la, &mut rng);
        let b = Poly::random(field, lb, &mut rng);
        let started = Instant::now();
        let outcome = product(
            &ring,
            &cpu,
            &a,
            &b,
            matches!(backend, Backend::Gpu(_)),
            &mut rng,
        );
        let millis = started.elapsed().as_secs_f64() * 1e3;
        let plan = ring
            .product_plan(la, lb)
            .map(|p| p.to_string())
            .unwrap_or_default();
        let (pass, text) = match outcome {
            Ok((ok, how)) => (ok, format!("{how} {}", if ok { "ok" } else { "FAIL" })),
            Err(e) => (false, format!("error: {e}")),
        };
        bar.suspend(|| {
            println!(
                "{:<5} {name:<22} mul {:<16} {label:<8} {millis:>9.1} ms  {text} ({plan})",
                if pass { "PASS" } else { "FAIL" },
                format!("{la}×{lb}"),
            )
        });
        rows += 1;
        failed += usize::from(!pass);
    }
    (rows, failed)
}

/// One product checked: whether it is right, and against what.
fn product<F: HostField>(
    ring: &PolyRing<F>,
    cpu: &PolyRing<F>,
    a: &Poly<F>,
    b: &Poly<F>,
    gpu: bool,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Result<(bool, &'static str), fermat::Error> {
    let field = a.field();
    if gpu {
        let plan = ring.product_plan(a.len(), b.len())?;
        let (da, db) = (ring.to_device(a)?, ring.to_device(b)?);
        let mut c = ring.poisoned_device(plan.len())?;
        ring.mul_device_into(&da, &db, &mut c)?;
        let got = ring.from_device(&c)?;
        let square = ring.from_device(&ring.sqr_device(&da)?)?;
        return Ok((got == cpu.mul(a, b)? && square == cpu.sqr(a)?, "cpu"));
    }
    let c = ring.mul(a, b)?;
    if (a.len() as u64) * (b.len() as u64) <= SCHOOLBOOK {
        return Ok((c == schoolbook_mul(a, b)?, "schoolbook"));
    }
    let ok = (0..4).all(|_| {
        let x = field.random(rng);
        c.eval(&x) == field.mul(&a.eval(&x), &b.eval(&x))
    });
    Ok((ok, "points"))
}
