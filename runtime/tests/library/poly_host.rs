//! The host polynomial API against the reference vectors, the algebraic laws and
//! num-bigint: the schoolbook product, additions, evaluation, elements, JSON.

use fermat::dsl::{with_field, Field};
use fermat::num_bigint::BigUint;
use fermat::poly::{schoolbook_mul, Poly, PolyIoError, Polynomial};
use fermat::{Element, Error, PrimeField};
use fermat_tests::{big, load_poly, PolyVectorFile, POLY_VECTOR_FILES};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The fields of the laws: the catalogue and two decimal word primes. P5 and P6 are slow
/// and have their own, smaller, proptest.
fn fast_fields() -> Vec<PrimeField> {
    let mut fields = vec![
        PrimeField::p1(),
        PrimeField::p2(),
        PrimeField::p3(),
        PrimeField::p4(),
        PrimeField::babybear(),
        PrimeField::goldilocks(),
    ];
    for spec in ["469762049", "4179340454199820289"] {
        fields.push(PrimeField::new(spec).unwrap());
    }
    fields
}

fn slow_fields() -> Vec<PrimeField> {
    vec![PrimeField::p5(), PrimeField::p6()]
}

fn every_field() -> Vec<PrimeField> {
    let mut fields = fast_fields();
    fields.extend(slow_fields());
    fields
}

fn decimals(field: &PrimeField, values: &[String]) -> Polynomial {
    Polynomial::from_decimals(field, values).unwrap()
}

// ---------------------------------------------------------------------------------------
// Reference vectors.

fn field_of(file: &PolyVectorFile) -> PrimeField {
    let field = PrimeField::new(&file.spec()).unwrap();
    assert_eq!(field.modulus(), big(&file.p), "{}", file.name);
    field
}

#[test]
fn every_product_of_the_vectors_is_the_schoolbook_product() {
    for name in POLY_VECTOR_FILES {
        let file = load_poly(name);
        let field = field_of(&file);
        for (i, case) in file.mul.iter().enumerate() {
            let (a, b) = (decimals(&field, &case.a), decimals(&field, &case.b));
            let product = decimals(&field, &case.product);
            assert_eq!(
                product.to_json_value(),
                serde_json::json!(case.product),
                "{name} mul[{i}]: outputs are normalised"
            );
            assert_eq!(a.schoolbook_mul(&b).unwrap(), product, "{name} mul[{i}]");
        }
    }
}

/// a = q·b + r, in the typed API.
fn check_divisions<F: Field>(field: &F, file: &PolyVectorFile) {
    let poly = |values: &[String]| Poly::from_decimals(field, values).unwrap();
    for (i, case) in file.divrem.iter().enumerate() {
        let (a, b) = (poly(&case.a), poly(&case.b));
        let (q, r) = (poly(&case.quotient), poly(&case.remainder));
        let qb = schoolbook_mul(&q, &b).unwrap();
        assert_eq!(qb.add(&r).unwrap(), a, "{} divrem[{i}]", file.name);
        assert!(
            r.len() < b.len(),
            "{} divrem[{i}]: deg r < deg b",
            file.name
        );
    }
}

#[test]
fn every_division_of_the_vectors_recomposes_its_dividend() {
    for name in POLY_VECTOR_FILES {
        let file = load_poly(name);
        let field = field_of(&file);
        with_field!(field.any(), f => check_divisions(f, &file));
    }
}

#[test]
fn the_vectors_read_as_json_values() {
    for name in POLY_VECTOR_FILES {
        let text =
            std::fs::read_to_string(fermat_tests::poly_data_dir().join(format!("{name}.json")))
                .unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let field = PrimeField::new(&load_poly(name).spec()).unwrap();
        for case in value["gcd"].as_array().unwrap() {
            let g = Polynomial::from_json_value(&field, &case["gcd"]).unwrap();
            assert!(
                g.leading().is_none_or(|c| c == field.one()),
                "{name}: monic gcds"
            );
            let a = Polynomial::from_json(&field, &case["a"].to_string()).unwrap();
            assert_eq!(Polynomial::from_json(&field, &a.to_json()).unwrap(), a);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The laws of the schoolbook product and of addition.

/// Three polynomials of the given lengths and a point, from a seed.
fn operands(field: &PrimeField, seed: u64, lens: [usize; 3]) -> ([Polynomial; 3], Element) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let [a, b, c] = lens.map(|len| Polynomial::random(field, len, &mut rng));
    ([a, b, c], field.random(&mut rng))
}

fn check_laws(field: &PrimeField, seed: u64, lens: [usize; 3], pad: usize) {
    let ([a, b, c], x) = operands(field, seed, lens);
    let mul = |p: &Polynomial, q: &Polynomial| p.schoolbook_mul(q).unwrap();
    let add = |p: &Polynomial, q: &Polynomial| p.add(q).unwrap();
    let at = |p: &Polynomial| p.eval(&x).unwrap();
    let what = format!("{field}, seed {seed}, lengths {lens:?}");

    let ab = mul(&a, &b);
    assert_eq!(ab, mul(&b, &a), "commutativity: {what}");
    assert_eq!(mul(&ab, &c), mul(&a, &mul(&b, &c)), "associativity: {what}");
    assert_eq!(
        mul(&a, &add(&b, &c)),
        add(&ab, &mul(&a, &c)),
        "distributivity: {what}"
    );
    assert_eq!(at(&ab), at(&a) * at(&b), "(a·b)(x) = a(x)·b(x): {what}");
    let degree = match (a.degree(), b.degree()) {
        (Some(da), Some(db)) => Some(da + db),
        _ => None,
    };
    assert_eq!(ab.degree(), degree, "deg(a·b): {what}");

    assert_eq!(add(&a, &b), add(&b, &a), "a + b = b + a: {what}");
    assert_eq!(
        add(&add(&a, &b), &c),
        add(&a, &add(&b, &c)),
        "(a + b) + c: {what}"
    );
    assert_eq!(add(&a, &b).sub(&b).unwrap(), a, "(a + b) − b = a: {what}");
    assert!(a.sub(&a).unwrap().is_zero(), "a − a = 0: {what}");
    assert!(add(&a, &a.neg()).is_zero(), "a + (−a) = 0: {what}");
    assert_eq!(at(&add(&a, &b)), at(&a) + at(&b), "(a + b)(x): {what}");
    assert_eq!(
        at(&a.sub(&b).unwrap()),
        at(&a) - at(&b),
        "(a − b)(x): {what}"
    );

    // Inputs written with trailing zeros are the same polynomials.
    let padded = |p: &Polynomial| {
        let mut values = p.to_biguints();
        values.resize(p.len() + pad, BigUint::default());
        Polynomial::from_biguints(field, &values).unwrap()
    };
    let (pa, pb) = (padded(&a), padded(&b));
    assert_eq!(
        (pa.len(), pb.len()),
        (a.len(), b.len()),
        "padding dropped: {what}"
    );
    assert_eq!(mul(&pa, &pb), ab, "padded product: {what}");
}

/// Lengths 0, 1 and 2 often, and anything up to 40.
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![0..3usize, 0..40usize]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn laws_of_the_product_and_the_sum(
        field in prop::sample::select(fast_fields()),
        seed in any::<u64>(),
        lens in [length(), length(), length()],
        pad in 0..4usize,
    ) {
        check_laws(&field, seed, lens, pad);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn laws_in_the_widest_fields(
        field in prop::sample::select(slow_fields()),
        seed in any::<u64>(),
        lens in [length(), length(), length()],
        pad in 0..3usize,
    ) {
        check_laws(&field, seed, lens, pad);
    }
}

#[test]
fn edge_lengths_in_every_field() {
    for field in every_field() {
        for lens in [[0, 0, 0], [0, 1, 2], [1, 1, 1], [2, 2, 1], [2, 0, 2]] {
            check_laws(&field, 7, lens, 2);
        }
    }
}

#[test]
fn schoolbook_products_match_big_integer_sums() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for field in every_field() {
        let p = field.modulus();
        let a = Polynomial::random(&field, 9, &mut rng);
        let b = Polynomial::random(&field, 6, &mut rng);
        let (x, y) = (a.to_biguints(), b.to_biguints());
        let mut expected = vec![BigUint::default(); x.len() + y.len() - 1];
        for (i, xi) in x.iter().enumerate() {
            for (j, yj) in y.iter().enumerate() {
                expected[i + j] = (&expected[i + j] + xi * yj) % &p;
            }
        }
        assert_eq!(
            a.schoolbook_mul(&b).unwrap().to_biguints(),
            expected,
            "{field}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Elements.

fn check_element_arithmetic(field: &PrimeField, a: &Element, b: &Element) {
    let p = field.modulus();
    let (x, y) = (a.to_biguint(), b.to_biguint());
    let what = format!("{field}: a = {x}, b = {y}");
    assert_eq!((a + b).to_biguint(), (&x + &y) % &p, "{what}");
    assert_eq!((a - b).to_biguint(), (&x + &p - &y) % &p, "{what}");
    assert_eq!((a * b).to_biguint(), (&x * &y) % &p, "{what}");
    assert_eq!((-a).to_biguint(), (&p - &x) % &p, "{what}");
    assert_eq!(
        a.pow(1000).to_biguint(),
        x.modpow(&BigUint::from(1000u32), &p),
        "{what}"
    );
    assert_eq!(a.to_string(), x.to_string(), "{what}");
    assert_eq!(field.parse_element(&x.to_string()).unwrap(), *a, "{what}");
    match b.inv() {
        Ok(inv) => {
            assert_eq!(inv.to_biguint(), y.modpow(&(&p - 2u32), &p), "{what}");
            assert_eq!(b * &inv, field.one(), "{what}");
            assert_eq!(a.checked_div(b).unwrap() * b, *a, "{what}");
            assert_eq!(a / b, a * inv, "{what}");
        }
        Err(e) => {
            assert!(b.is_zero(), "{what}");
            assert!(matches!(e, Error::DivisionByZero { .. }), "{what}");
            assert!(matches!(
                a.checked_div(b),
                Err(Error::DivisionByZero { .. })
            ));
        }
    }
}

#[test]
fn elements_at_the_edges_of_every_field() {
    for field in every_field() {
        let p = field.modulus();
        let edges = [
            BigUint::default(),
            1u32.into(),
            2u32.into(),
            &p - 2u32,
            &p - 1u32,
        ];
        for x in &edges {
            for y in &edges {
                let (a, b) = (
                    field.element(x.clone()).unwrap(),
                    field.element(y.clone()).unwrap(),
                );
                check_element_arithmetic(&field, &a, &b);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn elements_against_num_bigint(field in prop::sample::select(every_field()), seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (a, b) = (field.random(&mut rng), field.random(&mut rng));
        check_element_arithmetic(&field, &a, &b);
    }
}

#[test]
fn elements_of_different_fields_are_refused_by_the_checked_forms() {
    let (a, b) = (PrimeField::p1().one(), PrimeField::p2().one());
    for result in [
        a.try_add(&b),
        a.try_sub(&b),
        a.try_mul(&b),
        a.checked_div(&b),
    ] {
        let Err(Error::FieldMismatch { left, right }) = result else {
            panic!("P1 and P2 must not mix")
        };
        assert_eq!((left.as_str(), right.as_str()), ("P1", "P2"));
    }
    let word = PrimeField::new("469762049").unwrap();
    let err = word
        .one()
        .try_mul(&PrimeField::babybear().one())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the operands belong to different fields: 469762049 and babybear"
    );
    assert_ne!(a, PrimeField::p2().one());
}

#[test]
#[should_panic(expected = "different fields: P1 and P2")]
fn operators_panic_on_mismatched_fields() {
    let _ = PrimeField::p1().one() + PrimeField::p2().one();
}

#[test]
#[should_panic(expected = "division by zero in babybear")]
fn division_by_zero_panics_in_the_operator() {
    let f = PrimeField::babybear();
    let _ = f.one() / f.zero();
}

#[test]
fn assign_operators_match_the_binary_ones() {
    let f = PrimeField::p2();
    let (a, b) = (f.element(10u8).unwrap(), f.element(4u8).unwrap());
    let mut x = a.clone();
    x += &b;
    x -= b.clone();
    x *= &b;
    x /= b.clone();
    assert_eq!(x, a);
    assert_eq!(format!("{a:?}"), "10 (in P2)");
}

#[test]
fn field_specs_and_element_text_are_checked() {
    assert!(matches!(PrimeField::new("P7"), Err(Error::Field(_))));
    assert!(matches!("15".parse::<PrimeField>(), Err(Error::Field(_))));
    assert_eq!(
        PrimeField::new("p469762049").unwrap().modulus(),
        469762049u32.into()
    );
    let f = PrimeField::new("469762049").unwrap();
    let err = f.element(469762049u32).unwrap_err().to_string();
    assert!(
        err.contains("value 469762049") && err.contains("p = 469762049"),
        "{err}"
    );
    for text in ["", "x", "1.5", "-3", "0x10", "1 2"] {
        let Err(Error::ParseElement { text: t, field, .. }) = f.parse_element(text) else {
            panic!("{text:?} is not an element")
        };
        assert_eq!((t.as_str(), field.as_str()), (text, "469762049"));
    }
    assert!(matches!(f.parse_element("469762049"), Err(Error::Field(_))));
}

// ---------------------------------------------------------------------------------------
// JSON.

#[test]
fn json_round_trips_in_every_field() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for field in every_field() {
        for len in [0, 1, 2, 17] {
            let p = Polynomial::random(&field, len, &mut rng);
            let text = p.to_json();
            assert_eq!(Polynomial::from_json(&field, &text).unwrap(), p, "{field}");
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(Polynomial::from_json_value(&field, &value).unwrap(), p);
            with_field!(field.any(), f => {
                let typed = Poly::from_json(f, &text).unwrap();
                assert_eq!(typed.to_json(), text);
                assert_eq!(Polynomial::from(typed), p);
            });
        }
    }
}

#[test]
fn json_drops_trailing_zeros_and_reads_integers() {
    let f = PrimeField::p3();
    let big = (f.modulus() - 1u32).to_string();
    let p = Polynomial::from_json(&f, &format!("[0, \"1\", {big}, \"0\", 0]")).unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(p.to_json(), format!("[\"0\",\"1\",\"{big}\"]"));
    assert!(Polynomial::from_json(&f, "[0, \"0\"]").unwrap().is_zero());
    assert_eq!(Polynomial::zero(&f).to_json(), "[]");
}

fn io_error(field: &PrimeField, text: &str) -> PolyIoError {
    match Polynomial::from_json(field, text) {
        Err(Error::PolyIo(e)) => e,
        other => panic!("{text:?} must be refused, got {other:?}"),
    }
}

#[test]
fn json_refusals_are_typed_and_name_index_and_value() {
    let f = PrimeField::babybear();
    assert!(matches!(
        io_error(&f, "[1, 2"),
        PolyIoError::Json { line: 1, .. }
    ));
    assert!(matches!(
        io_error(&f, "[1,\n 2,]"),
        PolyIoError::Json { line: 2, .. }
    ));
    let PolyIoError::NotAList { found } = io_error(&f, r#"{"a": [1]}"#) else {
        panic!("an object is not a list")
    };
    assert!(found.starts_with("an object"), "{found}");
    assert_eq!(
        io_error(&f, r#"["1", "x"]"#),
        PolyIoError::NotADecimal {
            index: 1,
            value: "x".into()
        }
    );
    assert_eq!(
        io_error(&f, "[1, 2, 3.5]"),
        PolyIoError::NotADecimal {
            index: 2,
            value: "3.5".into()
        }
    );
    assert_eq!(
        io_error(&f, "[true]"),
        PolyIoError::NotADecimal {
            index: 0,
            value: "true".into()
        }
    );
    assert_eq!(
        io_error(&f, "[0, -7]"),
        PolyIoError::Negative {
            index: 1,
            value: "-7".into()
        }
    );
    assert_eq!(
        io_error(&f, r#"["-7"]"#),
        PolyIoError::Negative {
            index: 0,
            value: "-7".into()
        }
    );
    assert_eq!(
        io_error(&f, r#"["0", "0", "2013265921"]"#),
        PolyIoError::OutOfRange {
            index: 2,
            value: 2013265921u32.into(),
            p: 2013265921u32.into()
        }
    );
    let message = io_error(&f, "[2013265922]").to_string();
    assert!(message.contains("coefficient 0 = 2013265922") && message.contains("p = 2013265921"));
    let value = serde_json::json!([1, 1e30]);
    assert!(matches!(
        Polynomial::from_json_value(&f, &value),
        Err(Error::PolyIo(PolyIoError::Inexact { index: 1, .. }))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text is read or refused, never a panic.
    #[test]
    fn json_input_never_panics(text in r#"[\[\]{}",:0-9 .eE+\-a-z\\]{0,24}"#) {
        let _ = Polynomial::from_json(&PrimeField::goldilocks(), &text);
        let _ = Poly::from_json(&fermat::dsl::Fp32::new(7).unwrap(), &text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = Polynomial::from_json(&PrimeField::p2(), &text);
        let _ = PrimeField::p2().parse_element(&text);
    }
}
