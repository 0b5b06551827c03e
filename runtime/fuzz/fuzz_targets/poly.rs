//! Fuzzes the reader of polynomial JSON (`Polynomial::from_json`): any text is either
//! refused with a typed error, or read into a normalised polynomial whose JSON reads back
//! into the same polynomial and the same text.

#![no_main]

use fermat::poly::Polynomial;
use fermat::PrimeField;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, &str)| {
    let (choice, text) = input;
    let field = match choice % 5 {
        0 => PrimeField::babybear(),
        1 => PrimeField::goldilocks(),
        2 => PrimeField::new("469762049").expect("a word prime"),
        3 => PrimeField::p1(),
        _ => PrimeField::p3(),
    };
    match Polynomial::from_json(&field, text) {
        Ok(p) => {
            let json = p.to_json();
            let again = Polynomial::from_json(&field, &json).expect("its own JSON reads back");
            assert_eq!(again, p);
            assert_eq!(again.to_json(), json);
            // Normalised: the last coefficient, if any, is not zero.
            assert!(!json.ends_with(",\"0\"]") && json != "[\"0\"]");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
