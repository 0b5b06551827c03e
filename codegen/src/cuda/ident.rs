//! C identifiers: the check every declared or used name passes.

use crate::error::CodegenError;

/// C and CUDA words that cannot name anything of ours.
const RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "namespace",
    "new",
    "delete",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "true",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "class",
    "operator",
    "private",
    "public",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "size_t",
    "fe_t",
    "fe_word_t",
];

/// Checks that `name` is a C identifier and not a reserved word.
///
/// `what` says what the name is for, in the error. Names with a double underscore, or an
/// underscore and a capital, belong to the compiler; `fe_t` and `fe_word_t` to the prelude.
///
/// ```
/// use fermat_codegen::{cuda::check_identifier, CodegenError};
/// assert!(check_identifier("table", "twiddles_3").is_ok());
/// for bad in ["3tw", "tw-3", "", "int", "threadIdx", "fe_t", "a__b", "_Tw"] {
///     assert!(check_identifier("table", bad).is_err(), "{bad}");
/// }
/// let err = check_identifier("parameter", "while").unwrap_err();
/// assert_eq!(err, CodegenError::BadIdentifier { what: "parameter", name: "while".into() });
/// ```
pub fn check_identifier(what: &'static str, name: &str) -> Result<(), CodegenError> {
    let mut chars = name.chars();
    let ok = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    };
    // Names with a double underscore, or `_` and a capital, belong to the implementation.
    let reserved = RESERVED.contains(&name)
        || name.contains("__")
        || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()));
    if ok && !reserved {
        Ok(())
    } else {
        Err(CodegenError::BadIdentifier {
            what,
            name: name.to_string(),
        })
    }
}
