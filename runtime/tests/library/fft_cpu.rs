//! FFT plans on the CPU backend against the reference vectors and the defining sum.

use fermat::dsl::interp::dft_entry;
use fermat::{
    AnyField, Backend, Error, FftOptions, FftPlan, Field, FieldSpec, HostField, Order, Strategy,
};
use rand::SeedableRng;

fn cpu() -> FftOptions {
    FftOptions {
        backend: Backend::Cpu,
        ..Default::default()
    }
}

/// Forward against the defining sum at random outputs, inverse back to the input.
fn round_trip<F: HostField>(field: &F, n: u64, options: FftOptions) {
    let plan = FftPlan::new(field, n, options.clone()).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(n);
    let x: Vec<F::Elem> = (0..n).map(|_| field.random(&mut rng)).collect();
    let host: Vec<F::Host> = x.iter().map(|e| field.to_host(e)).collect();
    let mut y = host.clone();
    plan.forward(&mut y).unwrap();
    let omega = match &options.root {
        Some(r) => field.from_biguint(r).unwrap(),
        None => field.root_of_unity(n).unwrap(),
    };
    let bitrev = |i: u64| {
        if n == 1 {
            0
        } else {
            i.reverse_bits() >> (64 - n.trailing_zeros())
        }
    };
    for i in [0, 1, n / 2, n - 1, n / 3] {
        let at = match options.output_order {
            Order::Natural => i,
            Order::BitReversed => bitrev(i),
        };
        let want = dft_entry(field, &x, &omega, i as usize);
        assert_eq!(
            field.to_elem(&y[at as usize]).unwrap(),
            want,
            "{} n={n} output {i}",
            field.name()
        );
    }
    let mut back = y;
    let inverse = FftPlan::new(
        field,
        n,
        FftOptions {
            input_order: options.output_order,
            output_order: Order::Natural,
            ..options
        },
    )
    .unwrap();
    inverse.inverse(&mut back).unwrap();
    assert_eq!(
        back,
        host,
        "{} n={n}: inverse(forward(x)) = x",
        field.name()
    );
}

fn with_spec(spec: &str, f: impl Fn(&AnyField)) {
    f(&FieldSpec::parse(spec).unwrap().build().unwrap());
}

#[test]
fn word_primes_every_small_size() {
    for spec in ["469762049", "babybear", "4179340454199820289", "goldilocks"] {
        with_spec(spec, |any| {
            for log_n in 1..=12 {
                match any {
                    AnyField::Fp32(f) => round_trip(f, 1 << log_n, cpu()),
                    AnyField::Fp64(f) => round_trip(f, 1 << log_n, cpu()),
                    _ => unreachable!(),
                }
            }
        });
    }
}

#[test]
fn srgfns_at_k_pow_e_and_mixed_sizes() {
    let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!()
    };
    for n in [16, 256, 4096, 32, 512, 2048] {
        round_trip(&p3, n, cpu());
    }
    let AnyField::Srgfn4(p2) = FieldSpec::parse("P2").unwrap().build().unwrap() else {
        unreachable!()
    };
    for n in [8, 64, 512, 128] {
        round_trip(&p2, n, cpu());
    }
}

#[test]
fn strategies_and_orders() {
    let AnyField::Fp32(f) = FieldSpec::parse("babybear").unwrap().build().unwrap() else {
        unreachable!()
    };
    for strategy in Strategy::ALL {
        for output_order in [Order::Natural, Order::BitReversed] {
            let options = FftOptions {
                strategy: Some(strategy),
                radix: Some(8),
                output_order,
                max_local_bits: Some(6),
                ..cpu()
            };
            round_trip(&f, 4096, options);
        }
    }
}

#[test]
fn a_user_root_that_is_not_canonical() {
    let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!()
    };
    let n = 256;
    let w = p3.pow_u64(&p3.root_of_unity(n).unwrap(), 3);
    assert_eq!(p3.base_case_exponent(&w, n).unwrap(), 3);
    let options = FftOptions {
        root: Some(p3.to_biguint(&w)),
        ..cpu()
    };
    round_trip(&p3, n, options);
}

#[test]
fn reference_vectors() {
    for name in fermat_tests::VECTOR_FILES {
        let file = fermat_tests::load(name);
        let any = FieldSpec::parse(&fermat_tests::spec_of(&file))
            .unwrap()
            .build()
            .unwrap();
        fermat::dsl::with_field!(&any, f => {
            for case in &file.ffts {
                let mut data: Vec<_> = case
                    .input
                    .iter()
                    .map(|s| f.to_host(&f.from_biguint(&fermat_tests::big(s)).unwrap()))
                    .collect();
                let plan = FftPlan::new(f, case.n, cpu()).unwrap();
                plan.forward(&mut data).unwrap();
                for (i, (got, want)) in data.iter().zip(&case.output).enumerate() {
                    let got = f.to_biguint(&f.to_elem(got).unwrap());
                    assert_eq!(got, fermat_tests::big(want), "{name} N={} output {i}", case.n);
                }
            }
        });
    }
}

#[test]
fn bad_input_is_an_error() {
    let AnyField::Fp32(f) = FieldSpec::parse("babybear").unwrap().build().unwrap() else {
        unreachable!()
    };
    let plan = FftPlan::new(&f, 16, cpu()).unwrap();
    let mut short = vec![0u32; 10];
    assert!(matches!(
        plan.forward(&mut short),
        Err(Error::Length { len: 10, n: 16, .. })
    ));
    let mut big = vec![2013265921u32; 16];
    assert!(matches!(plan.forward(&mut big), Err(Error::Field(_))));
    assert!(matches!(FftPlan::new(&f, 12, cpu()), Err(Error::Field(_))));
    assert!(matches!(
        FftPlan::new(&f, 1 << 28, cpu()),
        Err(Error::Field(_))
    ));
    let bad_root = FftOptions {
        root: Some(1u32.into()),
        ..cpu()
    };
    assert!(matches!(
        FftPlan::new(&f, 16, bad_root),
        Err(Error::Field(_))
    ));
    let AnyField::Srgfn8(p3) = FieldSpec::parse("P3").unwrap().build().unwrap() else {
        unreachable!()
    };
    let too_big = FftOptions {
        radix: Some(32),
        ..cpu()
    };
    let err = FftPlan::new(&p3, 1024, too_big).unwrap_err().to_string();
    assert!(err.contains("radix 32"), "{err}");
}

#[test]
fn batches_run_every_transform() {
    let AnyField::Fp64(f) = FieldSpec::parse("goldilocks").unwrap().build().unwrap() else {
        unreachable!()
    };
    let plan = FftPlan::new(&f, 64, cpu()).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let x: Vec<u64> = (0..64 * 3)
        .map(|_| f.to_host(&f.random(&mut rng)))
        .collect();
    let mut batch = x.clone();
    plan.forward(&mut batch).unwrap();
    for t in 0..3 {
        let mut one = x[t * 64..(t + 1) * 64].to_vec();
        plan.forward(&mut one).unwrap();
        assert_eq!(&batch[t * 64..(t + 1) * 64], &one[..]);
    }
}
