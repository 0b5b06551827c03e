use super::*;

#[test]
fn catalogue_handles_are_shared_and_named() {
    let fields = [
        (PrimeField::p1(), "P1"),
        (PrimeField::p2(), "P2"),
        (PrimeField::p3(), "P3"),
        (PrimeField::p4(), "P4"),
        (PrimeField::babybear(), "babybear"),
        (PrimeField::goldilocks(), "goldilocks"),
    ];
    for (field, name) in fields {
        assert_eq!(field.to_string(), name);
        assert_eq!(field, PrimeField::new(name).unwrap());
        assert_eq!(field.spec(), FieldSpec::parse(name).unwrap());
    }
    assert!(Arc::ptr_eq(&PrimeField::p3().0, &PrimeField::p3().0));
}

#[test]
fn the_same_modulus_in_two_representations_is_one_field() {
    // 2^31 − 2^27 + 1: BabyBear as a word prime and as an SRGFN with k = 1.
    let word = PrimeField::babybear();
    let digits = PrimeField::new("srgfn:31,27,-,1").unwrap();
    assert!(matches!(digits.any(), AnyField::Srgfn1(_)));
    assert_eq!(word, digits);
    let (a, b) = (
        word.element(123u32).unwrap(),
        digits.element(456u32).unwrap(),
    );
    assert_eq!((&a * &b).to_string(), "56088");
    assert_eq!((&b - &a).to_string(), "333");
    assert_eq!(digits.element(123u32).unwrap(), a);
    let hash = |e: &Element| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        e.hash(&mut h);
        h.finish()
    };
    assert_eq!(hash(&digits.element(123u32).unwrap()), hash(&a));
}
