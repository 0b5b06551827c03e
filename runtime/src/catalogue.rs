//! The catalogue of generated kernels (`generated/`): every catalogue field at the sizes
//! fermat ships kernels for, each written as one CUDA file and one JSON manifest.

use crate::design::{self, Design};
use crate::error::Error;
use crate::fft::FftOptions;
use crate::host::HostField;
use fermat_codegen::contract::{Launch, TRANSFORM_ARGS};
use fermat_codegen::cost::{Cost, FieldShape};
use fermat_codegen::kernel::EmitOptions;
use fermat_codegen::plan::Direction;
use fermat_dsl::field::{AnyField, FieldSpec, Roots, CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES};
use fermat_dsl::with_field;
use serde::Serialize;

/// The largest transform size of the catalogue, 2^MAX_LOG_N ([`entries`] has an example).
pub const MAX_LOG_N: u32 = 28;
/// The most data an SRGFN transform of the catalogue may hold.
///
/// ```
/// use fermat::catalogue::{entries, MAX_BYTES};
///
/// // P6's elements are 64 digits of 64 bits: 512 bytes, so at most 2^25 of them.
/// let p6 = entries().into_iter().filter(|e| e.field == "P6").map(|e| e.n).max();
/// assert!(p6.unwrap() * 512 <= MAX_BYTES);
/// ```
pub const MAX_BYTES: u64 = 16 << 30;

/// One file of the catalogue.
///
/// ```
/// use fermat::catalogue::Entry;
///
/// let entry = Entry { field: "P3", n: 4096, radix: Some(16) };
/// assert_eq!(entry.stem(), "P3_n4096"); // generated/P3_n4096.cu and .json
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The field's catalogue name.
    pub field: &'static str,
    /// The transform size.
    pub n: u64,
    /// The radix K (N = K^e for SRGFNs).
    pub radix: Option<u64>,
}

impl Entry {
    /// The file stem: `P3_n4096` ([`Entry`] has an example).
    pub fn stem(&self) -> String {
        format!("{}_n{}", self.field, self.n)
    }
}

/// Every entry: the word primes at n = 2^4..2^28 (up to their 2-adicity), P1..P6 with
/// K = 2k at e = 2.. while n ≤ 2^28 and the data fits 16 GiB.
///
/// ```
/// use fermat::catalogue::{entries, MAX_BYTES, MAX_LOG_N};
///
/// let all = entries();
/// assert!(all.iter().any(|e| e.stem() == "babybear_n134217728")); // 2^27, its 2-adicity
/// assert!(all.iter().any(|e| e.stem() == "P6_n16384")); // K = 128, e = 2
/// assert!(all.iter().all(|e| e.n <= 1 << MAX_LOG_N));
/// # let _ = MAX_BYTES;
/// ```
pub fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    for (name, p) in CATALOGUE_WORD_PRIMES {
        let adicity = (p - 1).trailing_zeros();
        for log_n in 4..=MAX_LOG_N.min(adicity) {
            out.push(Entry {
                field: name,
                n: 1 << log_n,
                radix: None,
            });
        }
    }
    for (name, params) in CATALOGUE_SRGFNS {
        let big_k = 2 * params.k;
        let bytes = 8 * params.k;
        let mut e = 2;
        while let Some(n) = big_k.checked_pow(e) {
            if n > 1 << MAX_LOG_N || n * bytes > MAX_BYTES {
                break;
            }
            out.push(Entry {
                field: name,
                n,
                radix: Some(big_k),
            });
            e += 1;
        }
    }
    out
}

/// What a generated file's manifest says: how to run its kernels. [`generate`] has an
/// example.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    /// The field.
    pub field: String,
    /// The modulus (decimal).
    pub modulus: String,
    /// The transform size.
    pub n: u64,
    /// The radix K.
    pub radix: u64,
    /// The derivation strategy.
    pub strategy: String,
    /// log2 of the largest piece.
    pub max_local_bits: u32,
    /// The derived formula (ASCII).
    pub formula: String,
    /// The CUDA file.
    pub source: String,
    /// Device words per element.
    pub element_words: u64,
    /// Bits per device word.
    pub word_bits: u32,
    /// How vectors are laid out in device memory.
    pub layout: &'static str,
    /// Every kernel's arguments, in order.
    pub arguments: Vec<&'static str>,
    /// The twiddle table `tw`.
    pub table: TableSpec,
    /// The forward transform's launches, in order.
    pub forward: Vec<Launch>,
    /// The inverse transform's launches, in order.
    pub inverse: Vec<Launch>,
    /// The forward plan's cost.
    pub cost: Cost,
}

/// The twiddle table every kernel of a file reads; part of a [`Manifest`].
///
/// ```
/// use fermat::catalogue::generate;
/// use fermat::{FftOptions, FieldSpec};
///
/// let f = FieldSpec::parse("goldilocks")?.build()?;
/// let table = generate(&f, 1 << 16, &FftOptions::default(), "g")?.manifest.table;
/// assert!(table.rows >= 1);
/// assert_eq!(table.root.parse::<u64>().map(|w| w > 1), Ok(true)); // a decimal root
/// # Ok::<(), fermat::Error>(())
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct TableSpec {
    /// Rows (elements).
    pub rows: u64,
    /// The root ω whose powers fill it (decimal): the canonical 2^L-th root.
    pub root: String,
    /// What the rows hold, in which form and layout.
    pub contents: String,
}

/// A generated file and its manifest, as [`generate`] returns them ([`generate`] has an
/// example).
pub struct Output {
    /// The CUDA source.
    pub source: String,
    /// The manifest.
    pub manifest: Manifest,
}

/// Generates the kernels of `n`-point transforms over `field`, as `fermat gen` writes
/// them (`stem` names the CUDA file in the manifest).
///
/// ```
/// use fermat::catalogue::generate;
/// use fermat::{FftOptions, FieldSpec};
///
/// let babybear = FieldSpec::parse("babybear")?.build()?;
/// let out = generate(&babybear, 1024, &FftOptions::default(), "babybear_n1024")?;
/// assert!(out.source.contains("fwd_k0") && out.source.contains("inv_k0"));
/// assert_eq!(out.manifest.source, "babybear_n1024.cu");
/// assert_eq!(out.manifest.forward.len(), out.manifest.cost.passes());
/// println!("{}", serde_json::to_string_pretty(&out.manifest).unwrap());
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn generate(any: &AnyField, n: u64, options: &FftOptions, stem: &str) -> Result<Output, Error> {
    let d = design::design(any, n, options)?;
    with_field!(any, f => generate_with(f, any, &d, options, stem))
}

fn generate_with<F: HostField>(
    field: &F,
    any: &AnyField,
    d: &Design,
    options: &FftOptions,
    stem: &str,
) -> Result<Output, Error> {
    let lower = |direction| d.lower(direction, options.input_order, options.output_order);
    let forward = lower(Direction::Forward)?;
    let inverse = lower(Direction::Inverse)?;
    let roots = Roots::canonical_lazy(field, forward.max_log_order(), forward.n())?;
    let generated = design::generate(
        field,
        any,
        d,
        &forward,
        &inverse,
        &roots,
        &EmitOptions::default(),
    )?;
    let shape = FieldShape::of(any);
    let word_bits = if shape.element_bytes == 4 { 32 } else { 64 };
    let manifest = Manifest {
        field: any.name(),
        modulus: any.modulus().to_string(),
        n: forward.n(),
        radix: d.radix,
        strategy: d.strategy.to_string(),
        max_local_bits: d.max_local_bits,
        formula: d.formula.ascii(),
        source: format!("{stem}.cu"),
        element_words: shape.element_bytes * 8 / word_bits as u64,
        word_bits,
        layout: if any.srgfn_params().is_some() {
            "digit-major: digit c of element i at word c*n + i; a batch is transforms one after another"
        } else {
            "element i at word i; a batch is transforms one after another"
        },
        arguments: TRANSFORM_ARGS.iter().map(|a| a.name()).collect(),
        table: TableSpec {
            rows: generated.forward.layout.rows(),
            root: field.to_biguint(&roots.power(field, 1)).to_string(),
            contents: format!(
                "{}; each in table form ({})",
                generated.forward.layout.describe(),
                if any.srgfn_params().is_some() {
                    "the k digits of the element, row-major: digit c of row j at word j*k + c"
                } else {
                    "w*R mod p, R = 2^word_bits"
                }
            ),
        },
        forward: generated.forward.launches,
        inverse: generated.inverse.launches,
        cost: Cost::of(&forward, shape),
    };
    Ok(Output {
        source: generated.source,
        manifest,
    })
}

/// Generates one catalogue entry, as `fermat gen --catalogue` does for each.
///
/// ```
/// use fermat::catalogue::{generate_entry, Entry};
///
/// let out = generate_entry(&Entry { field: "P1", n: 16, radix: Some(4) })?;
/// assert_eq!(out.manifest.modulus, "85236826359346144956638323529482240001"); // (2^63 + 2^53)^2 + 1
/// # Ok::<(), fermat::Error>(())
/// ```
pub fn generate_entry(entry: &Entry) -> Result<Output, Error> {
    let any = FieldSpec::parse(entry.field)?.build()?;
    let options = FftOptions {
        radix: entry.radix,
        ..FftOptions::default()
    };
    generate(&any, entry.n, &options, &entry.stem())
}
