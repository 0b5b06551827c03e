//! Fields on the command line: one parser and one printer for every subcommand.
//!
//! A field is named as [`FieldSpec::parse`] reads it: a catalogue name (`P1`..`P6`,
//! `goldilocks`, `babybear`, `p469762049`, `p4179340454199820289`), a decimal word prime
//! (`469762049`) or `srgfn:w,u,sign,k`. It is printed as [`AnyField::name`] gives it.
//! Filters (`--field` of `bench` and `selftest`) compare fields by their modulus, so every
//! spelling of a field selects it, and a name that selects nothing is an error.

use super::CliError;
use fermat::{AnyField, FieldSpec};

/// Parses and builds a field: the one reader of field names.
pub fn parse(text: &str) -> Result<AnyField, CliError> {
    Ok(FieldSpec::parse(text)?.build()?)
}

/// The field's name as every subcommand prints it.
pub fn name(field: &AnyField) -> String {
    field.name()
}

/// A `--field` filter: the fields named, each checked to be among `offered` (the names
/// the subcommand has work for). Empty when no field was named (everything is chosen).
pub fn filter(named: &[String], offered: &[&str]) -> Result<Vec<AnyField>, CliError> {
    let offered: Vec<AnyField> = offered.iter().map(|o| parse(o)).collect::<Result<_, _>>()?;
    named
        .iter()
        .map(|text| {
            let field = parse(text)?;
            if offered.iter().any(|o| same(o, &field)) {
                Ok(field)
            } else {
                let mut names: Vec<String> = offered.iter().map(name).collect();
                names.dedup();
                Err(format!(
                    "--field {text}: nothing to run over {}; choose among {}",
                    name(&field),
                    names.join(", ")
                )
                .into())
            }
        })
        .collect()
}

/// Whether `field` passes the filter `chosen` (empty: every field does).
pub fn chosen(chosen: &[AnyField], field: &str) -> bool {
    chosen.is_empty() || parse(field).is_ok_and(|f| chosen.iter().any(|c| same(c, &f)))
}

/// Two fields are the same when their moduli are.
fn same(a: &AnyField, b: &AnyField) -> bool {
    a.modulus() == b.modulus()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_selects_a_field() {
        let offered = ["babybear", "4179340454199820289", "P3"];
        for text in [
            "p4179340454199820289",
            "4179340454199820289",
            "2013265921",
            "p3",
        ] {
            let f = filter(&[text.to_string()], &offered).unwrap();
            assert_eq!(f.len(), 1, "{text}");
        }
        let f = filter(&["p4179340454199820289".into()], &offered).unwrap();
        assert!(chosen(&f, "4179340454199820289"));
        assert!(!chosen(&f, "P3"));
        assert!(chosen(&[], "P3"));
    }

    #[test]
    fn unknown_and_absent_fields_are_errors() {
        let err = filter(&["P9".into()], &["P3"]).unwrap_err().to_string();
        assert!(err.contains("cannot read field 'P9'"), "{err}");
        let err = filter(&["P5".into()], &["P3"]).unwrap_err().to_string();
        assert!(
            err.contains("--field P5: nothing to run over P5; choose among P3"),
            "{err}"
        );
    }
}
