//! Fuzzes the field-specification parser: any UTF-8 text either fails with a typed error,
//! or reads as a spec whose canonical name reads back as the same spec; building a spec
//! gives a field of that name or a typed error, never a panic.

#![no_main]

use fermat_dsl::field::FieldSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match FieldSpec::parse(text) {
        Ok(spec) => {
            let name = spec.name();
            match FieldSpec::parse(&name) {
                Ok(again) => assert_eq!(again, spec, "{text:?} named {name:?} reads back as {again:?}"),
                Err(e) => panic!("{text:?} named {name:?} does not read back: {e}"),
            }
            if let Ok(field) = spec.build() {
                assert_eq!(field.name(), name, "{text:?}");
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
