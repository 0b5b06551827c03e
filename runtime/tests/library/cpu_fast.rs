//! The word-prime CPU transform (`fermat::cpu::WordNtt`, used by `FftPlan` on the CPU)
//! against the generic kernel-plan executor, the reference vectors and itself (SIMD and
//! portable butterflies), for every order, direction, batch and a non-canonical root.

use fermat::codegen::exec::execute_with;
use fermat::cpu::{Isa, Kernels, WordNtt};
use fermat::dsl::field::Roots;
use fermat::dsl::{Fp32, Fp64};
use fermat::{
    AnyField, Backend, Direction, Error, FftOptions, FftPlan, Field, FieldError, FieldSpec,
    HostField, Order,
};
use num_bigint::BigUint;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ORDERS: [(Order, Order); 4] = [
    (Order::Natural, Order::Natural),
    (Order::Natural, Order::BitReversed),
    (Order::BitReversed, Order::Natural),
    (Order::BitReversed, Order::BitReversed),
];

/// The word types of Fp32 and Fp64, so that one test body serves both.
trait Prime: HostField {
    type W: fermat::cpu::Word;
    fn ntt(
        &self,
        omega: u64,
        n: u64,
        direction: Direction,
        orders: (Order, Order),
        isa: Isa,
    ) -> Result<WordNtt<Self::W>, Error>;
    fn host(&self, x: &[Self::Host]) -> Vec<Self::W>;
}

impl Prime for Fp32 {
    type W = u32;
    fn ntt(
        &self,
        omega: u64,
        n: u64,
        d: Direction,
        (i, o): (Order, Order),
        isa: Isa,
    ) -> Result<WordNtt<u32>, Error> {
        WordNtt::<u32>::new(self.p(), omega as u32, n, d, i, o, isa)
    }
    fn host(&self, x: &[u32]) -> Vec<u32> {
        x.to_vec()
    }
}

impl Prime for Fp64 {
    type W = u64;
    fn ntt(
        &self,
        omega: u64,
        n: u64,
        d: Direction,
        (i, o): (Order, Order),
        isa: Isa,
    ) -> Result<WordNtt<u64>, Error> {
        WordNtt::<u64>::new(self.p(), omega, n, d, i, o, isa)
    }
    fn host(&self, x: &[u64]) -> Vec<u64> {
        x.to_vec()
    }
}

fn value<F: Field>(field: &F, e: &F::Elem) -> u64 {
    u64::try_from(field.to_biguint(e)).unwrap()
}

/// One size, pair of orders and root: the generic executor (serial, on the kernel plan)
/// against `FftPlan` (the fast path) and `WordNtt` with both instruction sets, forward and
/// inverse, on a batch.
fn check<F: Prime>(field: &F, n: u64, orders: (Order, Order), root: Option<u64>, batch: usize) {
    let options = FftOptions {
        backend: Backend::Cpu,
        input_order: orders.0,
        output_order: orders.1,
        root: root.map(BigUint::from),
        ..Default::default()
    };
    let plan = FftPlan::new(field, n, options).unwrap();
    assert!(
        plan.cpu_kernels().is_some(),
        "word primes take the fast path"
    );
    let fwd = plan.kernel_plan(Direction::Forward);
    let log_table = fwd.max_log_order();
    let (roots, omega) = match root {
        None => (
            Roots::canonical(field, fwd.max_log_order(), fwd.n()).unwrap(),
            value(field, &field.root_of_unity(n).unwrap()),
        ),
        Some(w) => {
            let we = field.from_u64(w);
            let table_root = field.pow_u64(&we, n >> log_table);
            (
                Roots::from_root(field, fwd.max_log_order(), fwd.n(), table_root).unwrap(),
                w,
            )
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(n ^ (batch as u64) << 32);
    let x: Vec<F::Elem> = (0..n as usize * batch)
        .map(|_| field.random(&mut rng))
        .collect();
    for direction in [Direction::Forward, Direction::Inverse] {
        let kplan = plan.kernel_plan(direction);
        let mut want = vec![field.zero(); x.len()];
        for (xs, ys) in x.chunks(n as usize).zip(want.chunks_mut(n as usize)) {
            execute_with(field, kplan, &roots, xs, ys).unwrap();
        }
        let want: Vec<F::Host> = want.iter().map(|e| field.to_host(e)).collect();
        let what = format!(
            "{} n={n} {orders:?} root={root:?} batch={batch} {direction:?}",
            field.name()
        );
        let mut got: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
        match direction {
            Direction::Forward => plan.forward(&mut got).unwrap(),
            Direction::Inverse => plan.inverse(&mut got).unwrap(),
        }
        assert!(got == want, "FftPlan: {what}");
        for isa in [Isa::Auto, Isa::Portable] {
            let ntt = field.ntt(omega, n, direction, orders, isa).unwrap();
            if isa == Isa::Portable {
                assert_eq!(ntt.kernels(), Kernels::Portable);
            }
            let mut got: Vec<F::W> =
                field.host(&x.iter().map(|e| field.to_host(e)).collect::<Vec<_>>());
            ntt.apply(&mut got).unwrap();
            assert!(field.host(&want) == got, "WordNtt {isa:?}: {what}");
        }
    }
}

fn each_field(f: impl Fn(&AnyField)) {
    for spec in ["babybear", "469762049", "goldilocks", "4179340454199820289"] {
        f(&FieldSpec::parse(spec).unwrap().build().unwrap());
    }
}

/// A non-canonical primitive n-th root: the cube of the canonical one.
fn other_root<F: Field>(field: &F, n: u64) -> u64 {
    value(field, &field.pow_u64(&field.root_of_unity(n).unwrap(), 3))
}

fn sweep<F: Prime>(field: &F) {
    for log_n in 1..=12 {
        let n = 1u64 << log_n;
        for orders in ORDERS {
            check(field, n, orders, None, 1 + (log_n as usize % 3));
            check(field, n, orders, Some(other_root(field, n)), 1);
        }
    }
    // The cache-blocked sizes: recursion above the block, radix-2 and radix-4 tops.
    for log_n in [13, 14, 16] {
        let n = 1u64 << log_n;
        check(field, n, ORDERS[0], None, 1);
        check(
            field,
            n,
            ORDERS[(log_n as usize) % 4],
            Some(other_root(field, n)),
            2,
        );
    }
}

#[test]
fn equals_the_kernel_plan_executor() {
    each_field(|any| match any {
        AnyField::Fp32(f) => sweep(f),
        AnyField::Fp64(f) => sweep(f),
        _ => unreachable!(),
    });
}

#[test]
fn fp32_primes_above_2_pow_31_take_the_wide_butterflies() {
    // 3·2^30 + 1: sums of two residues overflow 32 bits.
    let f = Fp32::new(3_221_225_473).unwrap();
    for log_n in [1, 4, 5, 10, 14] {
        for orders in ORDERS {
            check(&f, 1 << log_n, orders, None, 2);
        }
    }
}

#[test]
fn reference_vectors() {
    for name in [
        "p2013265921",
        "p469762049",
        "goldilocks",
        "p4179340454199820289",
    ] {
        let file = fermat_tests::load(name);
        let p: u64 = file.p.parse().unwrap();
        for case in &file.ffts {
            let parse = |v: &Vec<String>| {
                v.iter()
                    .map(|s| s.parse::<u64>().unwrap())
                    .collect::<Vec<u64>>()
            };
            let (input, output) = (parse(&case.input), parse(&case.output));
            let omega: u64 = case.omega.parse().unwrap();
            let orders = (Order::Natural, Order::Natural);
            for isa in [Isa::Auto, Isa::Portable] {
                if p < 1 << 32 {
                    let f = Fp32::new(p as u32).unwrap();
                    let ntt = f
                        .ntt(omega, case.n, Direction::Forward, orders, isa)
                        .unwrap();
                    let mut y: Vec<u32> = input.iter().map(|&v| v as u32).collect();
                    ntt.apply(&mut y).unwrap();
                    let y: Vec<u64> = y.into_iter().map(u64::from).collect();
                    assert_eq!(y, output, "{name} n={} {isa:?}", case.n);
                } else {
                    let f = Fp64::new(p).unwrap();
                    let ntt = f
                        .ntt(omega, case.n, Direction::Forward, orders, isa)
                        .unwrap();
                    let mut y = input.clone();
                    ntt.apply(&mut y).unwrap();
                    assert_eq!(y, output, "{name} n={} {isa:?}", case.n);
                }
            }
        }
    }
}

#[test]
fn bad_input_is_refused_before_any_write() {
    let f = Fp32::new(2_013_265_921).unwrap();
    let omega = value(&f, &f.root_of_unity(64).unwrap());
    let orders = (Order::Natural, Order::Natural);
    let ntt = f
        .ntt(omega, 64, Direction::Forward, orders, Isa::Auto)
        .unwrap();
    let mut x: Vec<u32> = (0..128).collect();
    x[100] = 2_013_265_921;
    let before = x.clone();
    match ntt.apply(&mut x) {
        Err(Error::Field(FieldError::OutOfRange { value, p })) => {
            assert_eq!(value, BigUint::from(2_013_265_921u32));
            assert_eq!(p, BigUint::from(2_013_265_921u32));
        }
        other => panic!("expected OutOfRange, got {other:?}"),
    }
    assert_eq!(x, before);
    // Every order (equal orders check inside the bit reversal and undo it), both
    // instruction sets, tiled sizes, a bad value in the second transform of a batch.
    let goldilocks = Fp64::new(0xFFFF_FFFF_0000_0001).unwrap();
    for n in [64u64, 1 << 12, 1 << 13] {
        for orders in ORDERS {
            for isa in [Isa::Auto, Isa::Portable] {
                let w = value(&f, &f.root_of_unity(n).unwrap());
                let ntt = f.ntt(w, n, Direction::Forward, orders, isa).unwrap();
                let mut x: Vec<u32> = (0..2 * n as u32).collect();
                x[n as usize + 7] = u32::MAX;
                let before = x.clone();
                assert!(
                    matches!(
                        ntt.apply(&mut x),
                        Err(Error::Field(FieldError::OutOfRange { .. }))
                    ),
                    "n={n} {orders:?} {isa:?}"
                );
                assert!(x == before, "n={n} {orders:?} {isa:?}: data changed");
                let w = value(&goldilocks, &goldilocks.root_of_unity(n).unwrap());
                let ntt = goldilocks
                    .ntt(w, n, Direction::Inverse, orders, isa)
                    .unwrap();
                let mut x: Vec<u64> = (0..2 * n).collect();
                x[n as usize + 7] = goldilocks.p();
                let before = x.clone();
                assert!(
                    ntt.apply(&mut x).is_err() && x == before,
                    "goldilocks n={n} {orders:?}"
                );
            }
        }
    }
    for len in [0, 63, 65] {
        let mut x = vec![0u32; len];
        assert!(matches!(
            ntt.apply(&mut x),
            Err(Error::Length { len: l, n: 64, .. }) if l == len
        ));
    }
    let bad = |omega: u64, n: u64| f.ntt(omega, n, Direction::Forward, orders, Isa::Auto);
    // ω_64^2 has order 32, not 64.
    assert!(matches!(
        bad(value(&f, &f.root_of_unity(32).unwrap()), 64),
        Err(Error::Field(FieldError::NotPrimitiveRoot { n: 64, .. }))
    ));
    assert!(matches!(
        bad(2_013_265_921, 64),
        Err(Error::Field(FieldError::OutOfRange { .. }))
    ));
    assert!(matches!(
        bad(omega, 48),
        Err(Error::Field(FieldError::SizeNotPowerOfTwo { n: 48 }))
    ));
    assert!(matches!(
        WordNtt::<u64>::new(10, 1, 1, Direction::Forward, orders.0, orders.1, Isa::Auto),
        Err(Error::Field(FieldError::NotOdd { .. }))
    ));
    // 2^28 does not divide babybear's p − 1 = 15·2^27.
    assert!(matches!(
        bad(omega, 1 << 28),
        Err(Error::Field(FieldError::SizeBeyondTwoAdicity {
            n: 268_435_456,
            two_adicity: 27
        }))
    ));
    // Through FftPlan: the same refusal, data untouched.
    let plan = FftPlan::new(
        &f,
        64,
        FftOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
    )
    .unwrap();
    let mut x = before.clone();
    assert!(matches!(
        plan.forward(&mut x),
        Err(Error::Field(FieldError::OutOfRange { .. }))
    ));
    assert_eq!(x, before);
}

#[test]
fn srgfns_keep_the_kernel_plan_executor() {
    let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!()
    };
    let plan = FftPlan::new(
        &p3,
        256,
        FftOptions {
            backend: Backend::Cpu,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(plan.cpu_kernels(), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// SIMD and portable butterflies agree, and the inverse undoes the forward transform,
    /// on random data of random sizes and orders.
    #[test]
    fn simd_equals_portable_and_inverts(
        log_n in 1u32..=11,
        order in 0usize..4,
        wide in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let n = 1u64 << log_n;
        let orders = ORDERS[order];
        let back = (orders.1, orders.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        if wide {
            let f = Fp64::new(4_179_340_454_199_820_289).unwrap();
            let omega = value(&f, &f.root_of_unity(n).unwrap());
            let x: Vec<u64> = (0..n).map(|_| rng.gen_range(0..f.p())).collect();
            let mut a = x.clone();
            let mut b = x.clone();
            f.ntt(omega, n, Direction::Forward, orders, Isa::Auto).unwrap().apply(&mut a).unwrap();
            f.ntt(omega, n, Direction::Forward, orders, Isa::Portable).unwrap().apply(&mut b).unwrap();
            prop_assert_eq!(&a, &b);
            f.ntt(omega, n, Direction::Inverse, back, Isa::Auto).unwrap().apply(&mut a).unwrap();
            prop_assert_eq!(a, x);
        } else {
            let f = Fp32::new(2_013_265_921).unwrap();
            let omega = value(&f, &f.root_of_unity(n).unwrap());
            let x: Vec<u32> = (0..n).map(|_| rng.gen_range(0..f.p())).collect();
            let mut a = x.clone();
            let mut b = x.clone();
            f.ntt(omega, n, Direction::Forward, orders, Isa::Auto).unwrap().apply(&mut a).unwrap();
            f.ntt(omega, n, Direction::Forward, orders, Isa::Portable).unwrap().apply(&mut b).unwrap();
            prop_assert_eq!(&a, &b);
            f.ntt(omega, n, Direction::Inverse, back, Isa::Auto).unwrap().apply(&mut a).unwrap();
            prop_assert_eq!(a, x);
        }
    }
}
