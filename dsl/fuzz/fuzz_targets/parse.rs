//! Fuzzes the formula parser: any UTF-8 text either fails with an error positioned inside
//! the text, or reads as a well-formed formula whose printed forms (Unicode and ASCII)
//! read back as the same tree.

#![no_main]

use fermat_dsl::formula::Formula;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match Formula::parse(text) {
        Ok(f) => {
            assert!(f.checked_size().is_ok(), "{text:?} gave a malformed {f:?}");
            for printed in [f.to_string(), f.ascii()] {
                match Formula::parse(&printed) {
                    Ok(g) => {
                        assert_eq!(g, f, "{text:?} printed as {printed:?} reads back as {g:?}")
                    }
                    Err(e) => panic!("{text:?} printed as {printed:?} does not read back:\n{e}"),
                }
            }
        }
        Err(e) => {
            let chars = text.chars().count();
            assert!(
                (1..=chars + 1).contains(&e.column()),
                "{text:?}: column {} outside the input",
                e.column()
            );
            assert!(
                text.is_char_boundary(e.offset()),
                "{text:?}: offset {}",
                e.offset()
            );
            // The Display (with its caret line) must not panic either.
            let _ = e.to_string();
        }
    }
});
