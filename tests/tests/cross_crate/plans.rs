//! Kernel plans, run by the CPU executor exactly as the kernels would, equal the reference
//! interpreter on the derived formula (and the reference vectors where they exist): every
//! word prime at n = 2^1..2^16, P2 (K = 8), P3 (K = 16) and P4 (K = 32) at e = 2..3 (P2 and
//! P3 also at e = 4), forward and inverse, on fresh random inputs, with the output poisoned
//! twice so that an element no kernel writes cannot go unnoticed.

use fermat::codegen::{execute, Direction, Plan, PlanOptions};
use fermat::dsl::derive::{derive, Options, Strategy};
use fermat::dsl::formula::Formula;
use fermat::dsl::interp::Interpreter;
use fermat::dsl::with_field;
use fermat::{Field, FieldSpec};
use rand::{Rng, SeedableRng};

fn seed() -> u64 {
    let seed = rand::thread_rng().gen();
    eprintln!("random inputs from seed {seed}");
    seed
}

/// Forward and inverse plans of DFT(n) against the interpreter, each run twice with
/// different poisons in the output.
fn check<F: Field>(field: &F, n: u64, radix: u64, max_local_bits: u32, rng: &mut impl Rng) {
    // prop3 (the 2017 paper's blocked FFT) where n = K^e with e ≥ 2, else Cooley–Tukey.
    let e = n.ilog(radix.max(2));
    let strategy = if e >= 2 && radix.pow(e) == n {
        Strategy::Prop3
    } else {
        Strategy::Ct
    };
    let radix = radix.min(n);
    let formula = derive(&Formula::dft(n).unwrap(), strategy, &Options::radix(radix))
        .unwrap()
        .final_formula();
    let x: Vec<F::Elem> = (0..n).map(|_| field.random(rng)).collect();
    let mut interp = Interpreter::new(field);
    let forward = interp.apply(&formula, &x).unwrap();
    for direction in [Direction::Forward, Direction::Inverse] {
        let plan = Plan::lower(
            &formula,
            PlanOptions {
                max_local_bits,
                direction,
                ..PlanOptions::default()
            },
        )
        .unwrap();
        // The inverse of the forward output is x again.
        let (input, want) = match direction {
            Direction::Forward => (&x, forward.clone()),
            Direction::Inverse => (&forward, x.clone()),
        };
        for poison in [field.zero(), field.one()] {
            let mut out = vec![poison; n as usize];
            execute(field, &plan, input, &mut out).unwrap();
            assert!(
                out == want,
                "{} n = {n} ({strategy}, K = {radix}, {} kernels) {direction:?} differs from the interpreter",
                field.name(),
                plan.kernels.len()
            );
        }
    }
}

#[test]
fn word_primes_at_every_size_up_to_2_16() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed());
    for spec in ["469762049", "babybear", "4179340454199820289", "goldilocks"] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        for log_n in 1..=16u32 {
            with_field!(&any, f => check(f, 1 << log_n, 16, 8, &mut rng));
        }
    }
}

#[test]
fn srgfns_at_k_pow_e() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed());
    for (spec, k, top_e) in [("P2", 8u64, 4u32), ("P3", 16, 4), ("P4", 32, 3)] {
        let any = FieldSpec::parse(spec).unwrap().build().unwrap();
        for e in 2..=top_e {
            let n = k.pow(e);
            with_field!(&any, f => check(f, n, k, 8, &mut rng));
        }
    }
}

#[test]
fn plans_reproduce_the_reference_vectors() {
    for name in fermat_tests::VECTOR_FILES {
        let file = fermat_tests::load(name);
        let any = FieldSpec::parse(&fermat_tests::spec_of(&file))
            .unwrap()
            .build()
            .unwrap();
        with_field!(&any, f => {
            for case in &file.ffts {
                let formula = derive(&Formula::dft(case.n).unwrap(), Strategy::Ct, &Options::radix(case.n.min(16)))
                    .unwrap()
                    .final_formula();
                let plan = Plan::lower(&formula, PlanOptions { max_local_bits: 6, ..PlanOptions::default() }).unwrap();
                let x: Vec<_> = case.input.iter().map(|s| f.from_biguint(&fermat_tests::big(s)).unwrap()).collect();
                let mut y = vec![f.zero(); x.len()];
                execute(f, &plan, &x, &mut y).unwrap();
                for (i, (got, want)) in y.iter().zip(&case.output).enumerate() {
                    assert_eq!(f.to_biguint(got), fermat_tests::big(want), "{name} N = {} output {i}", case.n);
                }
            }
        });
    }
}
