//! Errors of CUDA emission: field preludes, file skeletons and headers.

use crate::prelude::PreludeError;
use thiserror::Error;

/// Why CUDA source could not be produced.
///
/// Every variant names the offending value and what would have been allowed.
///
/// ```
/// use fermat_codegen::cuda::Table;
/// use fermat_codegen::error::CodegenError;
/// use fermat_codegen::header::Header;
///
/// let err = Header::new("fermat gen\n#include <evil>", "P3").render().unwrap_err();
/// let value = "fermat gen\n#include <evil>".to_string();
/// assert_eq!(err, CodegenError::HeaderText { what: "command", value });
/// assert!(err.to_string().contains("must be one line of printable text"));
/// let err = Table::new("tw", vec![1 << 32]).check(32).unwrap_err();
/// let want = "table 'tw': value 4294967296 at index 0 does not fit a 32-bit word";
/// assert_eq!(err.to_string(), want);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CodegenError {
    /// A tera template failed to parse or render (a bug in a template, reported with tera's
    /// whole error chain so that the line at fault is visible).
    #[error("template '{template}' failed: {message}")]
    Template {
        /// The template's name.
        template: String,
        /// Tera's message, with its causes.
        message: String,
    },
    /// The device arithmetic does not cover this field.
    #[error("field {field} has no device prelude: {why}")]
    UnsupportedField {
        /// The field's name or specification.
        field: String,
        /// What is allowed.
        why: String,
    },
    /// The device arithmetic does not cover this field: its prelude refused the field's
    /// constants, naming the value and the bound it exceeds.
    #[error("field {field} has no device prelude: {source}")]
    Prelude {
        /// The field's name.
        field: String,
        /// What the prelude refused, and what it allows.
        #[source]
        source: PreludeError,
    },
    /// Text meant for a comment of a generated file would break out of the comment.
    #[error(
        "the {what} of a generated file's header must be one line of printable text; got {value:?}"
    )]
    HeaderText {
        /// Which header entry (command, field, count name, …).
        what: &'static str,
        /// The refused text.
        value: String,
    },
    /// A name in a kernel is not a C identifier.
    #[error("'{name}' is not a valid CUDA identifier for a {what}: use letters, digits and '_', not starting with a digit, and not a reserved word")]
    BadIdentifier {
        /// What the name was for (kernel, parameter, table, …).
        what: &'static str,
        /// The refused name.
        name: String,
    },
    /// Two kernels or tables of one file share a name.
    #[error("the name '{name}' is used by two kernels or tables of one file; each needs its own")]
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// A kernel's compile-time shape is out of the range its registers allow, or the
    /// kernel takes no shape.
    #[error("kernel {kernel} has no compile-time shape with {what} = {value}; allowed: {allowed}")]
    KernelShape {
        /// The kernel's name.
        kernel: &'static str,
        /// The refused bound.
        what: &'static str,
        /// Its value.
        value: u64,
        /// What is allowed.
        allowed: String,
    },
    /// A constant table's values do not fit the field's memory word.
    #[error("table '{table}': value {value} at index {index} does not fit a {bits}-bit word")]
    TableValue {
        /// The table's name.
        table: String,
        /// The index of the refused value.
        index: usize,
        /// The refused value.
        value: u64,
        /// The width of the field's memory word.
        bits: u32,
    },
}

impl CodegenError {
    /// Wraps a tera error with the name of the template, keeping the whole cause chain
    /// (tera puts the useful part — the line and the variable — in the causes).
    pub(crate) fn template(template: &str, err: &tera::Error) -> Self {
        let mut message = err.to_string();
        let mut source = std::error::Error::source(err);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        CodegenError::Template {
            template: template.to_string(),
            message,
        }
    }
}
