//! On a machine with a GPU: the gcd by Lehmer's rounds on the device equals the CPU's for
//! every catalogue field — pairs with common factors, windows from 3 coefficients to the
//! default, remainder sequences that are not normal (quotients of degree above the
//! window's half stall the rounds, and the host's division on the device takes them),
//! pairs longer than one block's shared memory — and a window that is empty or too large
//! for the device is a typed error. Without a driver or a device the test skips, saying
//! why (`FERMAT_REQUIRE_GPU=1` makes that a failure).

use fermat::dsl::{with_field, FieldSpec};
use fermat::poly::{Poly, PolyRing};
use fermat::{Backend, Error, HostField};
use rand::SeedableRng;

mod gpu;

const CATALOGUE: [&str; 7] = [
    "P1",
    "P2",
    "P3",
    "P4",
    "babybear",
    "goldilocks",
    "469762049",
];

/// A pair whose remainder sequence has the given quotient degrees and ends at g: built
/// backwards, r_(i−1) = q_i·r_i + r_(i+1).
fn sequence<F: HostField>(
    ring: &PolyRing<F>,
    g: &Poly<F>,
    degrees: &[usize],
    rng: &mut rand_chacha::ChaCha8Rng,
) -> (Poly<F>, Poly<F>) {
    let f = ring.field();
    let (mut r0, mut r1) = (g.clone(), Poly::new(f, vec![]));
    for &d in degrees.iter().rev() {
        let q = Poly::random(f, d + 1, rng);
        let next = ring.mul(&q, &r0).unwrap().add(&r1).unwrap();
        (r0, r1) = (next, r0);
    }
    (r0, r1)
}

#[test]
fn lehmer_rounds_find_the_cpus_gcd_in_every_field() {
    for spec in CATALOGUE {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        with_field!(&any, f => {
            let Some(gpu) = gpu::on_gpu(|backend| PolyRing::new(f, backend)) else {
                return;
            };
            let cpu = PolyRing::new(f, Backend::Cpu).unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
            let default = gpu.lehmer_half().unwrap();
            let wide = f.words() > 2;
            let mut pairs = Vec::new();
            for (lg, lu, lv) in [(5, 3000, 2999), (1, 2500, 2500), (30, 1500, 1400), (2, 700, 2)] {
                let g = Poly::random(f, lg, &mut rng);
                let (u, v) = (Poly::random(f, lu, &mut rng), Poly::random(f, lv, &mut rng));
                pairs.push((cpu.mul(&g, &u).unwrap(), cpu.mul(&g, &v).unwrap()));
            }
            // Quotients of degree 1 with a few far above any half, and gaps of 0 and 2.
            let degrees: Vec<usize> = (0..600).map(|i| match i % 97 { 13 => 300, 50 => 0, 70 => 2, _ => 1 }).collect();
            let g = Poly::random(f, 4, &mut rng);
            pairs.push(sequence(&cpu, &g, &degrees, &mut rng));
            if !wide {
                // Longer than one block's shared memory holds.
                let g = Poly::random(f, 9, &mut rng);
                let u = Poly::random(f, 40_000, &mut rng);
                let v = Poly::random(f, 39_990, &mut rng);
                pairs.push((cpu.mul(&g, &u).unwrap(), cpu.mul(&g, &v).unwrap()));
            }
            for (a, b) in &pairs {
                let want = cpu.gcd(a, b).unwrap();
                let (da, db) = (gpu.to_device(a).unwrap(), gpu.to_device(b).unwrap());
                let what = format!("{spec}: ({}, {})", a.len(), b.len());
                for half in [1, 16, default] {
                    if half == 1 && a.len() > 4000 {
                        continue;
                    }
                    let got = gpu.from_device(&gpu.gcd_lehmer_device(&da, &db, half).unwrap()).unwrap();
                    assert!(got == want, "{what}, half {half}");
                    let swapped = gpu.from_device(&gpu.gcd_lehmer_device(&db, &da, half).unwrap()).unwrap();
                    assert!(swapped == want, "{what}, half {half}, swapped");
                }
                let got = gpu.from_device(&gpu.gcd_device(&da, &db).unwrap()).unwrap();
                assert!(got == want, "{what}: gcd_device");
            }
            // Zero and constant operands end in the first round.
            let a = &pairs[0].0;
            let zero = Poly::new(f, vec![]);
            let seven = Poly::from_u64s(f, &[7]);
            for (x, y, want) in [(a, &zero, cpu.gcd(a, &zero).unwrap()), (&zero, &zero, zero.clone()), (a, &seven, Poly::one(f))] {
                let (dx, dy) = (gpu.to_device(x).unwrap(), gpu.to_device(y).unwrap());
                let got = gpu.from_device(&gpu.gcd_lehmer_device(&dx, &dy, default).unwrap()).unwrap();
                assert!(got == want, "{spec}: ({}, {})", x.len(), y.len());
            }
            let (da, db) = (gpu.to_device(a).unwrap(), gpu.to_device(&pairs[0].1).unwrap());
            for half in [0, 1 << 30] {
                let e = gpu.gcd_lehmer_device(&da, &db, half).unwrap_err();
                assert!(matches!(e, Error::LehmerHalf { half: h, .. } if h == half), "{spec}: {e}");
                assert!(e.to_string().contains(&half.to_string()), "{e}");
            }
        });
    }
}
