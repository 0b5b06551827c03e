//! The CRT route on the GPU: projection, word-prime products and recombination on the
//! device give what the CPU's route gives and what Kronecker substitution gives, for
//! Z[x] and (Z/mZ)[x]. Without a driver or a device the test skips, saying why
//! (`FERMAT_REQUIRE_GPU=1` makes that a failure).

use fermat::crt::{IntPolyRing, Integers, ModPolyRing, Width};
use fermat::num_bigint::{BigInt, BigUint, RandBigInt};
use fermat::{Backend, Error};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::common::signed_random;
use crate::gpu;

fn gpu_ring() -> Option<IntPolyRing> {
    gpu::on_gpu(IntPolyRing::new)
}

#[test]
fn integer_products_on_the_gpu_equal_the_cpu_s() {
    let Some(gpu) = gpu_ring() else {
        return;
    };
    let cpu = IntPolyRing::new(Backend::Cpu).unwrap();
    let narrow = IntPolyRing::new(Backend::Gpu(0))
        .unwrap()
        .with_width(Width::Bits31);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for (la, lb, ba, bb) in [
        (1, 1, 5, 5),
        (3, 700, 64, 1),
        (1000, 1000, 1000, 1000),
        (4096, 3000, 64, 64),
        (20000, 7, 300, 2000),
    ] {
        let a: Vec<BigInt> = (0..la).map(|_| signed_random(&mut rng, ba)).collect();
        let b: Vec<BigInt> = (0..lb).map(|_| signed_random(&mut rng, bb)).collect();
        let want = cpu.mul(&a, &b).unwrap();
        assert_eq!(
            gpu.mul(&a, &b).unwrap(),
            want,
            "{la}×{lb}, {ba} and {bb} bits"
        );
        assert_eq!(
            narrow.mul(&a, &b).unwrap(),
            want,
            "31-bit primes, {la}×{lb}"
        );
    }
    // More primes than the device's recombination takes: the host recombines.
    let a: Vec<BigInt> = (0..50).map(|_| signed_random(&mut rng, 3000)).collect();
    assert_eq!(gpu.mul(&a, &a).unwrap(), cpu.mul(&a, &a).unwrap());
}

#[test]
fn modular_products_on_the_gpu_equal_the_cpu_s() {
    if gpu_ring().is_none() {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let bn254: BigUint =
        "21888242871839275222246405745257275088548364400416034343698204186575808495617"
            .parse()
            .unwrap();
    let one = BigUint::from(1u32);
    let moduli = [
        bn254,
        BigUint::from(2u32),
        BigUint::from(3u32),
        BigUint::from(1000u32),
        &one << 64u32,
        (&one << 64u32) + 1u32,
        &one << 200u32,
        (&one << 255u32) - 19u32,
        rng.gen_biguint(1500) | (&one << 1499u32),
    ];
    for m in moduli {
        let cpu = ModPolyRing::new(&m, Backend::Cpu).unwrap();
        let a: Vec<BigUint> = (0..5000).map(|_| rng.gen_biguint_below(&m)).collect();
        let b: Vec<BigUint> = (0..3000).map(|_| rng.gen_biguint_below(&m)).collect();
        let want = cpu.mul(&a, &b).unwrap();
        // The leading terms at m − 1: their product's top coefficient is 1 mod m.
        let top = vec![&m - 1u32; 40];
        let want_top = cpu.mul(&top, &top).unwrap();
        for width in [Width::Bits62, Width::Bits31] {
            let gpu = ModPolyRing::new(&m, Backend::Gpu(0))
                .unwrap()
                .with_width(width);
            assert_eq!(gpu.mul(&a, &b).unwrap(), want, "m = {m}, {width:?}");
            assert_eq!(gpu.mul(&top, &top).unwrap(), want_top, "m = {m}, {width:?}");
        }
    }
}

#[test]
fn crt_transforms_on_the_gpu_equal_the_cpu_s() {
    use fermat::crt::{CrtDft, Integers, PrimeSet, Width};
    if gpu_ring().is_none() {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for (bits, log_n, limbs) in [(253, 8, 4), (505, 12, 8), (1010, 10, 16), (505, 16, 8)] {
        let n = 1u64 << log_n;
        let set = || PrimeSet::for_bits(Width::Bits62, 20, bits).unwrap();
        let gpu = CrtDft::new(set(), n, limbs, Backend::Gpu(0)).unwrap();
        let cpu = CrtDft::new(set(), n, limbs, Backend::Cpu).unwrap();
        assert!(gpu.on_gpu());
        let x: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint(64 * limbs as u64)).collect();
        let x = Integers::from_biguints(&x);
        // Each prime's DFT of the projected input, then the recombined integers.
        assert_eq!(
            gpu.spectra(&x).unwrap(),
            cpu.spectra(&x).unwrap(),
            "n = {n}"
        );
        assert_eq!(
            gpu.forward(&x).unwrap(),
            cpu.forward(&x).unwrap(),
            "n = {n}"
        );
        // The steps one by one on device buffers.
        let dx = gpu.upload(&x).unwrap();
        let mut residues = gpu.alloc_residues().unwrap();
        let mut spectra = gpu.alloc_residues().unwrap();
        let mut y = gpu.alloc_output().unwrap();
        gpu.project_device(&dx, &mut residues).unwrap();
        gpu.transform_device(&residues, &mut spectra).unwrap();
        gpu.recombine_device(&spectra, &mut y).unwrap();
        assert_eq!(gpu.download(&y).unwrap(), cpu.forward(&x).unwrap());
        // An output buffer of the input's width is refused, not overrun.
        let mut narrow = gpu.upload(&x).unwrap();
        let err = gpu.recombine_device(&spectra, &mut narrow).unwrap_err();
        assert!(matches!(err, Error::CrtOutput { .. }), "{err}");
    }
}

/// The s transforms replayed from their CUDA graph: new inputs in the same buffers (the
/// graph must read them, not what it was captured with), and two pairs of buffers in turn
/// (each change of pair captures again).
#[test]
fn crt_transforms_replay_from_their_graph() {
    use fermat::crt::{CrtDft, PrimeSet};
    if gpu_ring().is_none() {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for (bits, log_n, limbs) in [(505, 8, 8), (1010, 10, 16), (505, 12, 8)] {
        let n = 1u64 << log_n;
        let set = || PrimeSet::for_bits(Width::Bits62, 20, bits).unwrap();
        let gpu = CrtDft::new(set(), n, limbs, Backend::Gpu(0)).unwrap();
        let cpu = CrtDft::new(set(), n, limbs, Backend::Cpu).unwrap();
        let mut pairs = [
            (gpu.alloc_residues().unwrap(), gpu.alloc_residues().unwrap()),
            (gpu.alloc_residues().unwrap(), gpu.alloc_residues().unwrap()),
        ];
        let mut y = gpu.alloc_output().unwrap();
        for (round, pair) in [0, 0, 0, 1, 1, 0, 1].into_iter().enumerate() {
            let x: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint(64 * limbs as u64)).collect();
            let x = Integers::from_biguints(&x);
            let (residues, spectra) = &mut pairs[pair];
            gpu.project_device(&gpu.upload(&x).unwrap(), residues)
                .unwrap();
            gpu.transform_device(residues, spectra).unwrap();
            gpu.recombine_device(spectra, &mut y).unwrap();
            assert_eq!(
                gpu.download(&y).unwrap(),
                cpu.forward(&x).unwrap(),
                "n = {n}, round {round}, pair {pair}"
            );
        }
    }
}

/// Products whose operands and result stay on the device: equal to the host's, for signed
/// and unsigned operands, trailing zeros kept; the CPU ring refuses device integers.
#[test]
fn device_resident_integer_products_equal_the_host_s() {
    let cpu = IntPolyRing::new(Backend::Cpu).unwrap();
    let x = Integers::from_bigints(&[BigInt::from(3)]);
    assert!(matches!(cpu.upload(&x), Err(Error::NotOnGpu)));
    let Some(gpu) = gpu_ring() else {
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for (la, lb, ba, bb, signed) in [
        (1, 1, 5, 5, false),
        (5, 300, 64, 1, true),
        (1 << 12, 1 << 12, 1000, 1000, true),
        (1 << 12, 1 << 11, 64, 64, false),
    ] {
        let draw = |rng: &mut ChaCha8Rng, len: usize, bits: u64| -> Vec<BigInt> {
            (0..len)
                .map(|_| {
                    let v = signed_random(rng, bits);
                    if signed {
                        v
                    } else {
                        BigInt::from(v.magnitude().clone())
                    }
                })
                .collect()
        };
        let a = draw(&mut rng, la, ba);
        let b = draw(&mut rng, lb, bb);
        let (da, db) = (
            gpu.upload(&Integers::from_bigints(&a)).unwrap(),
            gpu.upload(&Integers::from_bigints(&b)).unwrap(),
        );
        let dc = gpu.mul_device(&da, &db).unwrap();
        assert_eq!(dc.len(), la + lb - 1, "{la} × {lb}");
        let mut got = gpu.download(&dc).unwrap().to_bigints();
        while got.last().is_some_and(|c| *c == BigInt::from(0)) {
            got.pop();
        }
        assert_eq!(
            got,
            cpu.mul(&a, &b).unwrap(),
            "{la} × {lb}, {ba} × {bb} bits"
        );
    }
}

/// Products modulo m whose operands and result stay on the device: the residues the host
/// computes, trailing zeros kept, for a prime, a composite and an even modulus; signed
/// operands and non-residues are typed errors.
#[test]
fn device_resident_modular_products_equal_the_host_s() {
    let m = BigUint::from(10u32).pow(40) * 6u32; // even and composite
    let cpu = ModPolyRing::new(&m, Backend::Cpu).unwrap();
    assert!(matches!(
        cpu.upload(&[BigUint::from(1u32)]),
        Err(Error::NotOnGpu)
    ));
    let Some(integers) = gpu_ring() else {
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let bn254: BigUint =
        "21888242871839275222246405745257275088548364400416034343698204186575808495617"
            .parse()
            .unwrap();
    for m in [bn254, m, BigUint::from(7u32)] {
        let cpu = ModPolyRing::new(&m, Backend::Cpu).unwrap();
        for width in [Width::Bits62, Width::Bits31] {
            let gpu = ModPolyRing::new(&m, Backend::Gpu(0))
                .unwrap()
                .with_width(width);
            for (la, lb) in [(1, 1), (17, 1000), (4096, 4096)] {
                let a: Vec<BigUint> = (0..la).map(|_| rng.gen_biguint_below(&m)).collect();
                let b: Vec<BigUint> = (0..lb).map(|_| rng.gen_biguint_below(&m)).collect();
                let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
                let c = gpu.download(&gpu.mul_device(&da, &db).unwrap()).unwrap();
                assert_eq!(c.len(), la + lb - 1, "all the coefficients, zeros included");
                let mut want = cpu.mul(&a, &b).unwrap();
                want.resize(la + lb - 1, BigUint::from(0u32));
                assert_eq!(c, want, "m = {m}, {width:?}, {la}×{lb}");
            }
            let bad = gpu.upload(std::slice::from_ref(&m)).unwrap_err();
            assert!(matches!(bad, Error::Residue { .. }), "{bad}");
        }
    }
    let signed = integers
        .upload(&Integers::from_bigints(&[BigInt::from(-1)]))
        .unwrap();
    let ring = ModPolyRing::new(&BigUint::from(7u32), Backend::Gpu(0)).unwrap();
    let err = ring.mul_device(&signed, &signed).unwrap_err();
    assert!(
        matches!(err, Error::SignedResidues { operand: "a" }),
        "{err}"
    );
}
