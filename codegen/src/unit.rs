//! A whole generated CUDA file (one translation unit): header, field prelude, constant
//! tables and kernels, laid out by the `unit.cu.tera` skeleton.

use crate::cuda::{Kernel, Table};
use crate::error::CodegenError;
use crate::header::Header;
use crate::prelude::{self, PreludeOptions};
use fermat_dsl::field::AnyField;
use std::collections::HashSet;
use tera::{Context, Tera};

const UNIT: &str = include_str!("../templates/unit.cu.tera");

/// Renders a complete CUDA source file for `field`, with the default prelude.
///
/// Checks every kernel's names ([`Kernel::check`]), every table against the field's memory
/// word, and that no two kernels or tables share a name.
pub fn render(
    header: &Header,
    field: &AnyField,
    tables: &[Table],
    kernels: &[Kernel],
) -> Result<String, CodegenError> {
    render_with(header, field, PreludeOptions::default(), tables, kernels)
}

/// [`render`] with a prelude rendered with `prelude_options`.
pub fn render_with(
    header: &Header,
    field: &AnyField,
    prelude_options: PreludeOptions,
    tables: &[Table],
    kernels: &[Kernel],
) -> Result<String, CodegenError> {
    let word_bits = if matches!(field, AnyField::Fp32(_)) {
        32
    } else {
        64
    };
    let mut seen = HashSet::new();
    for t in tables {
        t.check(word_bits)?;
        if !seen.insert(t.name.as_str()) {
            return Err(CodegenError::DuplicateName {
                name: t.name.clone(),
            });
        }
    }
    for k in kernels {
        k.check()?;
        if !seen.insert(k.name.as_str()) {
            return Err(CodegenError::DuplicateName {
                name: k.name.clone(),
            });
        }
    }
    let mut ctx = Context::new();
    ctx.insert("header", &header.render()?);
    ctx.insert("prelude", &prelude::render_with(field, prelude_options)?);
    let tables: Vec<String> = tables
        .iter()
        .map(|t| t.to_string().trim_end().to_string())
        .collect();
    let kernels: Vec<String> = kernels
        .iter()
        .map(|k| k.to_string().trim_end().to_string())
        .collect();
    ctx.insert("tables", &tables);
    ctx.insert("kernels", &kernels);
    let mut text =
        Tera::one_off(UNIT, &ctx, false).map_err(|e| CodegenError::template("unit.cu.tera", &e))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}
