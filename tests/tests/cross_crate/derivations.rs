//! Every strategy derives the DFT: the final formula of each derivation, evaluated by the
//! reference interpreter, equals the reference vectors of `data/` where one of that size
//! exists, and otherwise the defining sum at random outputs.
//!
//! Sizes: N = K^e for K = 8, 16, 32 and e = 2..4 (over P2, P3, P4 while affordable, then
//! over word primes with enough 2-adicity), and every power of two up to 2^16 over the
//! word primes. Derivations are also checked step by step over the SRGFNs.

use fermat_dsl::derive::{derive, Derivation, Options, Strategy};
use fermat_dsl::formula::Formula;
use fermat_dsl::interp::{self, dft_entry};
use fermat_dsl::{with_field, AnyField, Field};
use fermat_tests::{big, load, spec_of, FftCase, VectorFile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Outputs compared with the defining sum when there is no reference vector.
const SAMPLES: usize = 32;

fn field_of(file: &VectorFile) -> AnyField {
    AnyField::from_spec(&spec_of(file)).unwrap_or_else(|e| panic!("{}: {e}", file.name))
}

/// The variants of the strategies exercised at each size.
fn variants(k: u64) -> Vec<(Strategy, Options)> {
    let plain = Options::radix(k);
    let expand = Options {
        expand_base: true,
        ..plain
    };
    let blocked = Options {
        prop2: true,
        expand_base: true,
        ..plain
    };
    vec![
        (Strategy::Ct, plain),
        (Strategy::Ct, expand),
        (Strategy::Radix2, plain),
        (Strategy::Stockham, plain),
        (Strategy::Prop3, plain),
        (Strategy::Prop3, blocked),
    ]
}

/// What DFT(n) must give over one field: the reference case's input and output, or a
/// random input and the defining sum at [`SAMPLES`] random outputs (computed once and
/// shared by every strategy).
struct Oracle<F: Field> {
    input: Vec<F::Elem>,
    outputs: Vec<(usize, F::Elem)>,
    what: &'static str,
}

impl<F: Field> Oracle<F> {
    fn new(field: &F, n: u64, reference: Option<&FftCase>, rng: &mut ChaCha8Rng) -> Self {
        let elems = |v: &[String]| -> Vec<F::Elem> {
            v.iter()
                .map(|s| {
                    field
                        .from_biguint(&big(s))
                        .expect("reference values are below p")
                })
                .collect()
        };
        if let Some(case) = reference {
            assert_eq!(case.n, n);
            return Oracle {
                input: elems(&case.input),
                outputs: elems(&case.output).into_iter().enumerate().collect(),
                what: "the reference vector",
            };
        }
        let input: Vec<F::Elem> = (0..n).map(|_| field.random(rng)).collect();
        let omega = field
            .root_of_unity(n)
            .expect("the field has the roots of this size");
        let outputs = (0..SAMPLES)
            .map(|_| {
                let i = rng.gen_range(0..n as usize);
                (i, dft_entry(field, &input, &omega, i))
            })
            .collect();
        Oracle {
            input,
            outputs,
            what: "the defining sum",
        }
    }

    /// Whether `formula` maps the input to the expected outputs.
    fn accepts(&self, field: &F, formula: &Formula) -> Result<(), String> {
        let y = interp::apply(field, formula, &self.input).map_err(|e| e.to_string())?;
        match self.outputs.iter().find(|(i, v)| y[*i] != *v) {
            Some((i, _)) => Err(format!(
                "output {i} over {} differs from {}",
                field.name(),
                self.what
            )),
            None => Ok(()),
        }
    }
}

/// Derives DFT(n) by every variant at radix K and checks each final formula over `field`.
fn derive_all<F: Field>(
    field: &F,
    n: u64,
    k: u64,
    reference: Option<&FftCase>,
    rng: &mut ChaCha8Rng,
) {
    let oracle = Oracle::new(field, n, reference, rng);
    for (strategy, options) in variants(k) {
        if strategy == Strategy::Prop3 && n.ilog(k) * k.ilog2() != n.ilog2() {
            continue;
        }
        let d = derive(&Formula::Dft(n), strategy, &options)
            .unwrap_or_else(|e| panic!("{strategy} N = {n} K = {k}: {e}"));
        let fin = d.final_formula();
        oracle
            .accepts(field, &fin)
            .unwrap_or_else(|e| panic!("{strategy} N = {n} {options:?}: {e}\n{fin}"));
    }
}

#[test]
fn strategies_derive_the_dft_of_k_to_the_e() {
    let (p2, p3, p4) = (load("P2"), load("P3"), load("P4"));
    let p57 = load("p4179340454199820289");
    let goldilocks = load("goldilocks");
    let mut rng = ChaCha8Rng::seed_from_u64(2017);
    // (K, e, the field's vector file): SRGFNs while affordable, then word primes.
    let cases = [
        (8u64, 2u32, &p2),
        (8, 3, &p2),
        (8, 4, &p2),
        (16, 2, &p3),
        (16, 3, &p3),
        (16, 4, &goldilocks),
        (32, 2, &p4),
        (32, 3, &p57),
        (32, 4, &goldilocks),
    ];
    for (k, e, file) in cases {
        let n = k.pow(e);
        let field = field_of(file);
        let reference = file.ffts.iter().find(|c| c.n == n);
        with_field!(&field, f => derive_all(f, n, k, reference, &mut rng));
    }
}

#[test]
fn strategies_derive_every_power_of_two_up_to_2_16_over_word_primes() {
    let files: Vec<VectorFile> = [
        "p469762049",
        "p2013265921",
        "p4179340454199820289",
        "goldilocks",
    ]
    .map(load)
    .into();
    let fields: Vec<AnyField> = files.iter().map(field_of).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(2010);
    let mut with_reference = 0;
    for j in 1..=16u32 {
        let n = 1u64 << j;
        // A field with a reference vector of this size if there is one, else in turn.
        let (at, reference) = files
            .iter()
            .enumerate()
            .find_map(|(at, f)| f.ffts.iter().find(|c| c.n == n).map(|c| (at, Some(c))))
            .unwrap_or((j as usize % files.len(), None));
        with_reference += usize::from(reference.is_some());
        for k in [2u64, 4, 16] {
            with_field!(&fields[at], f => derive_all(f, n, k, reference, &mut rng));
        }
    }
    assert!(
        with_reference >= 8,
        "only {with_reference} sizes had reference vectors"
    );
}

fn check_over(field: &AnyField, d: &Derivation, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let report = with_field!(field, f => d.check(f, &mut rng)).unwrap();
    assert_eq!(report.steps.len(), d.steps.len());
    let failed: Vec<_> = report.failures().collect();
    assert!(
        failed.is_empty(),
        "steps that disagree over {}: {failed:?}",
        report.field
    );
}

#[test]
fn derivations_check_step_by_step_over_srgfns() {
    let p3 = field_of(&load("P3"));
    for (strategy, options) in variants(16) {
        let d = derive(&Formula::Dft(256), strategy, &options).unwrap();
        assert!(!d.steps.is_empty());
        check_over(&p3, &d, 3);
    }
    let p2 = field_of(&load("P2"));
    for (strategy, options) in variants(8) {
        let d = derive(&Formula::Dft(512), strategy, &options).unwrap();
        check_over(&p2, &d, 2);
    }
}

/// The premise of the base case: with ω_K = r, every twiddle D(2, n/2) that the expansion
/// of DFT(K) leaves is taken at ω_n = r^(K/n), a power of r (a digit shift).
#[test]
fn the_base_case_twiddles_are_powers_of_r() {
    for name in ["P2", "P3", "P4"] {
        let file = load(name);
        let k = 2 * file.k.expect("an SRGFN file has k");
        let r = big(file.r.as_deref().expect("an SRGFN file has r"));
        let opts = Options {
            expand_base: true,
            ..Options::radix(k)
        };
        let d = derive(&Formula::Dft(k), Strategy::Prop3, &opts).unwrap();
        let fin = d.final_formula();
        let mut twiddles = Vec::new();
        collect_twiddles(&fin, &mut twiddles);
        assert_eq!(twiddles.len() as u32, k.ilog2() - 1, "{fin}");
        let field = field_of(&file);
        with_field!(&field, f => {
            let r = f.from_biguint(&r).unwrap();
            assert_eq!(f.root_of_unity(k).unwrap(), r, "{name}: ω_K = r");
            for (m, n) in twiddles {
                let omega = f.root_of_unity(m * n).unwrap();
                assert_eq!(omega, f.pow_u64(&r, k / (m * n)), "{name}: D({m},{n})");
            }
        });
    }
}

fn collect_twiddles(f: &Formula, out: &mut Vec<(u64, u64)>) {
    match f {
        Formula::Twiddle { m, n } => out.push((*m, *n)),
        Formula::Tensor(fs) | Formula::Compose(fs) | Formula::DirectSum(fs) => {
            fs.iter().for_each(|g| collect_twiddles(g, out))
        }
        _ => {}
    }
}
