//! The input of `fft!`: attributes, `vis struct Name;`, then `key = value` arguments,
//! each checked where it is written so that an error points at the argument at fault.

use fermat_codegen::design::{check_radix, DesignError, DesignOptions, TransformOptions};
use fermat_codegen::plan::Order;
use fermat_dsl::derive::Strategy;
use fermat_dsl::field::{AnyField, FieldSpec, CATALOGUE_SRGFNS, CATALOGUE_WORD_PRIMES};
use num_bigint::BigUint;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitBool, LitInt, LitStr, Token, Visibility};

/// Every argument, in the order the documentation lists them.
const KEYS: [&str; 10] = [
    "field",
    "n",
    "radix",
    "strategy",
    "max_local_bits",
    "input",
    "output",
    "root",
    "inverse",
    "batch",
];

/// A value as written: a name, an integer, a string, a boolean, or nothing (a bare flag).
pub enum Value {
    /// `P3`, `prop3`, `natural`.
    Ident(Ident),
    /// `4096`.
    Int(LitInt),
    /// `"srgfn:63,34,+,8"`.
    Str(LitStr),
    /// `true`, `false`.
    Bool(LitBool),
    /// A key without `= value`.
    Flag,
}

/// One `key = value`.
pub struct Arg {
    /// The key.
    pub key: Ident,
    /// The value.
    pub value: Value,
}

impl Arg {
    /// Where the value is written (the key, for a flag).
    pub fn span(&self) -> Span {
        match &self.value {
            Value::Ident(i) => i.span(),
            Value::Int(l) => l.span(),
            Value::Str(l) => l.span(),
            Value::Bool(l) => l.span,
            Value::Flag => self.key.span(),
        }
    }

    fn error(&self, message: impl std::fmt::Display) -> syn::Error {
        syn::Error::new(self.span(), message)
    }

    /// The value as written, for messages.
    fn shown(&self) -> String {
        match &self.value {
            Value::Ident(i) => i.to_string(),
            Value::Int(l) => l.base10_digits().to_string(),
            Value::Str(l) => format!("{:?}", l.value()),
            Value::Bool(l) => l.value.to_string(),
            Value::Flag => String::new(),
        }
    }

    fn int<T>(&self, what: &str, example: &str) -> syn::Result<T>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        match &self.value {
            Value::Int(l) => l.base10_parse::<T>().map_err(|_| {
                self.error(format!(
                    "{} = {} is too large for {what}",
                    self.key,
                    l.base10_digits()
                ))
            }),
            _ => Err(self.error(format!(
                "{} takes an integer ({what}), e.g. `{} = {example}`",
                self.key, self.key
            ))),
        }
    }

    fn name(&self, what: &str) -> syn::Result<String> {
        match &self.value {
            Value::Ident(i) => Ok(i.unraw().to_string()),
            Value::Str(s) => Ok(s.value()),
            _ => Err(self.error(format!("{} takes a name: {what}", self.key))),
        }
    }

    fn bool(&self) -> syn::Result<bool> {
        match &self.value {
            Value::Bool(b) => Ok(b.value),
            Value::Flag => Ok(true),
            _ => Err(self.error(format!(
                "{} takes `true` or `false` (a bare `{}` means true)",
                self.key, self.key
            ))),
        }
    }
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        if !input.peek(Token![=]) {
            return Ok(Arg {
                key,
                value: Value::Flag,
            });
        }
        input.parse::<Token![=]>()?;
        let value = if input.peek(LitInt) {
            Value::Int(input.parse()?)
        } else if input.peek(LitStr) {
            Value::Str(input.parse()?)
        } else if input.peek(LitBool) {
            Value::Bool(input.parse()?)
        } else if input.peek(Ident::peek_any) {
            Value::Ident(Ident::parse_any(input)?)
        } else {
            return Err(input.error(format!(
                "expected the value of `{key}`: a name, an integer or a string"
            )));
        };
        Ok(Arg { key, value })
    }
}

/// The whole input of `fft!`.
pub struct Input {
    /// Attributes for the type (doc comments, `#[allow]`, …).
    pub attrs: Vec<Attribute>,
    /// The type's visibility.
    pub vis: Visibility,
    /// The type's name.
    pub name: Ident,
    /// The arguments, by key (each at most once).
    pub args: Vec<Arg>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        if !input.peek(Token![struct]) {
            return Err(input.error(
                "expected `struct Name;` before the arguments, e.g. `fermat::fft! { pub struct P3x4096; field = P3, n = 4096 }`",
            ));
        }
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![;]>()?;
        let raw = Punctuated::<Arg, Token![,]>::parse_terminated(input)?;
        let mut args: Vec<Arg> = Vec::new();
        let mut errors: Option<syn::Error> = None;
        let mut push = |e: syn::Error| match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        };
        for arg in raw {
            let key = arg.key.to_string();
            if !KEYS.contains(&key.as_str()) {
                push(syn::Error::new(
                    arg.key.span(),
                    format!(
                        "unknown argument `{key}`: the arguments are field and n (required), {}",
                        KEYS[2..].join(", ")
                    ),
                ));
            } else if args.iter().any(|a| a.key == key) {
                push(syn::Error::new(
                    arg.key.span(),
                    format!("duplicate argument `{key}`: each argument is given at most once"),
                ));
            } else {
                args.push(arg);
            }
        }
        if let Some(e) = errors {
            return Err(e);
        }
        Ok(Input {
            attrs,
            vis,
            name,
            args,
        })
    }
}

/// The arguments, checked: everything `fermat_codegen::design::transform` takes.
pub struct Checked {
    /// The field.
    pub field: AnyField,
    /// The transform size.
    pub n: u64,
    /// The transform's options (root, orders, factorisation, forward only).
    pub options: TransformOptions,
    /// Transforms per call, if fixed.
    pub batch: Option<usize>,
}

fn catalogue_names() -> String {
    let srgfns: Vec<&str> = CATALOGUE_SRGFNS.iter().map(|(n, _)| *n).collect();
    let words: Vec<&str> = CATALOGUE_WORD_PRIMES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !n.starts_with('p'))
        .collect();
    format!("{}, {}", srgfns.join(", "), words.join(", "))
}

impl Input {
    fn get(&self, key: &str) -> Option<&Arg> {
        self.args.iter().find(|a| a.key == key)
    }

    fn required(&self, key: &str, example: &str) -> syn::Result<&Arg> {
        self.get(key).ok_or_else(|| {
            syn::Error::new(
                self.name.span(),
                format!(
                    "missing argument `{key}` for `{}`: add `{key} = {example}` after `struct {};` (the required arguments are field and n)",
                    self.name, self.name
                ),
            )
        })
    }

    /// Checks every argument, in the order a reader expects: the field, then the size
    /// (its 2-adicity), then the factorisation, then the rest.
    pub fn check(&self) -> syn::Result<Checked> {
        let field_arg = self.required("field", "P3")?;
        let n_arg = self.required("n", "4096")?;
        let field = self.field(field_arg)?;
        let n = self.size(n_arg, &field)?;
        let radix = match self.get("radix") {
            None => None,
            Some(arg) => Some(self.radix(arg, &field)?),
        };
        let strategy = match self.get("strategy") {
            None => None,
            Some(arg) => {
                let name = arg.name("ct, radix2, stockham or prop3")?;
                Some(name.parse::<Strategy>().map_err(|_| {
                    arg.error(format!(
                        "unknown strategy `{name}`: the strategies are ct (recursive Cooley–Tukey), radix2, stockham and prop3 (2017, Proposition 3)"
                    ))
                })?)
            }
        };
        let max_local_bits = match self.get("max_local_bits") {
            None => None,
            Some(arg) => {
                let bits: u32 = arg.int("log2 of a kernel's piece, 1..=20", "9")?;
                if !(1..=20).contains(&bits) {
                    return Err(arg.error(format!(
                        "max_local_bits = {bits} is out of range: log2 of a kernel's piece is 1..=20"
                    )));
                }
                Some(bits)
            }
        };
        let order = |key: &str| -> syn::Result<Order> {
            let Some(arg) = self.get(key) else {
                return Ok(Order::Natural);
            };
            match arg.name("natural or bitreversed")?.as_str() {
                "natural" => Ok(Order::Natural),
                "bitreversed" | "bit_reversed" => Ok(Order::BitReversed),
                other => Err(arg.error(format!(
                    "unknown order `{other}` for {key}: the orders are natural and bitreversed"
                ))),
            }
        };
        let input_order = order("input")?;
        let output_order = order("output")?;
        let root = match self.get("root") {
            None => None,
            Some(arg) => Some(self.root(arg, &field)?),
        };
        let inverse = match self.get("inverse") {
            None => true,
            Some(arg) => arg.bool()?,
        };
        let batch = match self.get("batch") {
            None => None,
            Some(arg) => {
                let b: usize = arg.int("transforms per call, at least 1", "8")?;
                if b == 0 {
                    return Err(arg.error(
                        "batch = 0: a call transforms at least one vector (leave batch out to allow any number)",
                    ));
                }
                if b.checked_mul(n as usize).is_none() {
                    return Err(arg.error(format!(
                        "batch = {b} of {n} points overflows the address space"
                    )));
                }
                Some(b)
            }
        };
        Ok(Checked {
            field,
            n,
            options: TransformOptions {
                design: DesignOptions {
                    strategy,
                    radix,
                    max_local_bits,
                },
                input_order,
                output_order,
                root,
                forward_only: !inverse,
                ..TransformOptions::default()
            },
            batch,
        })
    }

    fn field(&self, arg: &Arg) -> syn::Result<AnyField> {
        let text = match &arg.value {
            Value::Ident(i) => i.unraw().to_string(),
            Value::Int(l) => l.base10_digits().to_string(),
            Value::Str(s) => s.value(),
            Value::Bool(_) | Value::Flag => String::new(),
        };
        let unknown = || {
            arg.error(format!(
                "unknown field `{}`: a field is a catalogue name ({}), a decimal word prime such as 469762049, or a string \"srgfn:w,u,sign,k\"",
                arg.shown(),
                catalogue_names()
            ))
        };
        let spec = match (&arg.value, FieldSpec::parse(&text)) {
            (_, Ok(spec)) => spec,
            // A string names its own problem (a bad srgfn field, a number too large).
            (Value::Str(_), Err(e)) => return Err(arg.error(format!("field {}: {e}", arg.shown()))),
            (_, Err(_)) => return Err(unknown()),
        };
        spec.build()
            .map_err(|e| arg.error(format!("field {} cannot be used: {e}", arg.shown())))
    }

    fn size(&self, arg: &Arg, field: &AnyField) -> syn::Result<u64> {
        let n: u64 = arg.int("a power of two", "4096")?;
        if n == 0 || !n.is_power_of_two() {
            let hint = if n < 2 {
                "the smallest is 1".to_string()
            } else {
                let below = 1u64 << n.ilog2();
                match below.checked_mul(2) {
                    Some(above) => format!("the nearest are {below} and {above}"),
                    None => format!("the nearest is {below}"),
                }
            };
            return Err(arg.error(format!(
                "n = {n} is not a power of two: transform sizes are 1, 2, 4, 8, …; {hint}"
            )));
        }
        let adicity = field.two_adicity();
        if n.trailing_zeros() > adicity {
            return Err(arg.error(format!(
                "n = {n} = 2^{} is beyond the 2-adicity of {}: 2^{adicity} is the largest power of two dividing p − 1, so its transforms have at most 2^{adicity} points",
                n.trailing_zeros(),
                field.name()
            )));
        }
        Ok(n)
    }

    fn radix(&self, arg: &Arg, field: &AnyField) -> syn::Result<u64> {
        let radix: u64 = arg.int("a power of two", "16")?;
        check_radix(field, radix).map_err(|e| match e {
            DesignError::RadixTooLarge { radix, field, max } => arg.error(format!(
                "radix = {radix} is too large for {field}: an SRGFN radix must divide 2k = {max} ({}), so that the base case DFT(K) uses only shifts",
                powers_up_to(max)
            )),
            _ => {
                let allowed = match field.srgfn_params() {
                    Some(p) => powers_up_to(2 * p.k),
                    None => "2, 4, 8, 16, …".to_string(),
                };
                arg.error(format!(
                    "radix = {radix} is not a power of two: {} can use radix {allowed}",
                    field.name()
                ))
            }
        })?;
        Ok(radix)
    }

    fn root(&self, arg: &Arg, field: &AnyField) -> syn::Result<BigUint> {
        let digits = match &arg.value {
            Value::Int(l) => l.base10_digits().to_string(),
            Value::Str(s) => s.value(),
            _ => {
                return Err(arg.error(
                    "root takes a decimal integer, as a string for a big field: `root = \"…\"`",
                ))
            }
        };
        let root: BigUint = digits
            .trim()
            .parse()
            .map_err(|_| arg.error(format!("root = {} is not a decimal integer", arg.shown())))?;
        if root >= field.modulus() {
            return Err(arg.error(format!(
                "root = {root} is not an element of {}: it must be below p = {}",
                field.name(),
                field.modulus()
            )));
        }
        Ok(root)
    }
}

/// `2, 4, …, max`.
fn powers_up_to(max: u64) -> String {
    let powers: Vec<String> = (1..=max.ilog2()).map(|i| (1u64 << i).to_string()).collect();
    powers.join(", ")
}

/// The span of an argument, if given (for errors found after the arguments were checked).
pub fn span_of(input: &Input, key: &str) -> Option<Span> {
    input.get(key).map(Arg::span)
}
