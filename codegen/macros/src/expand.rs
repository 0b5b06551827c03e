//! The expansion of `fft!`: the transform is designed, derived, lowered and printed here,
//! while the user's crate compiles, and written out as a type with constants.

use crate::args::{span_of, Checked, Input};
use fermat_codegen::contract::Launch;
use fermat_codegen::design::{transform, DesignError, Transform, CODEGEN_VERSION};
use fermat_codegen::plan::{Order, PlanError};
use fermat_dsl::derive::{DeriveError, Strategy};
use fermat_dsl::field::{AnyField, FieldError};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The tokens of the type, or the error at the argument at fault.
pub fn expand(input: &Input) -> syn::Result<TokenStream> {
    let checked = input.check()?;
    let t = transform(&checked.field, checked.n, &checked.options)
        .map_err(|e| locate(input, &checked, e))?;
    Ok(tokens(input, &checked, &t))
}

/// Places an error of the design at the argument that caused it.
fn locate(input: &Input, checked: &Checked, e: DesignError) -> syn::Error {
    let at = |key: &str| span_of(input, key);
    let name = input.name.span();
    let (span, message) = match &e {
        DesignError::Field(FieldError::NotPrimitiveRoot { root, n }) => (
            at("root"),
            format!(
                "root = {root} is not a primitive root of unity of order n = {n} in {}: it needs root^{n} = 1 and root^{} ≠ 1",
                checked.field.name(),
                n / 2
            ),
        ),
        DesignError::Field(FieldError::OutOfRange { .. }) => (at("root"), e.to_string()),
        DesignError::Derive(DeriveError::NotAPowerOfRadix { .. }) => (
            at("strategy").or(at("radix")).or(at("n")),
            e.to_string(),
        ),
        DesignError::Plan(PlanError::LeafTooLarge { .. }) => (
            at("max_local_bits").or(at("radix")),
            e.to_string(),
        ),
        _ => (
            None,
            format!(
                "cannot generate the {}-point transform over {}: {e}",
                checked.n,
                checked.field.name()
            ),
        ),
    };
    syn::Error::new(span.unwrap_or(name), message)
}

fn strategy_tokens(s: Strategy) -> TokenStream {
    match s {
        Strategy::Ct => quote!(::fermat::Strategy::Ct),
        Strategy::Radix2 => quote!(::fermat::Strategy::Radix2),
        Strategy::Stockham => quote!(::fermat::Strategy::Stockham),
        Strategy::Prop3 => quote!(::fermat::Strategy::Prop3),
    }
}

fn order_tokens(o: Order) -> TokenStream {
    match o {
        Order::Natural => quote!(::fermat::Order::Natural),
        Order::BitReversed => quote!(::fermat::Order::BitReversed),
    }
}

fn option<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn launches(list: &[Launch]) -> TokenStream {
    let items = list.iter().map(|l| {
        let Launch {
            kernel,
            blocks,
            threads,
            shared_bytes,
            pieces_per_block,
            hop,
            signals,
            args,
        } = l;
        let kernel: &str = kernel;
        // The contract's enums are written by their variant names.
        let hop = format_ident!("{hop:?}");
        let args = args.iter().map(|a| format_ident!("{a:?}"));
        quote! {
            ::fermat::codegen::contract::Launch {
                kernel: ::std::borrow::Cow::Borrowed(#kernel),
                blocks: #blocks,
                threads: #threads,
                shared_bytes: #shared_bytes,
                pieces_per_block: #pieces_per_block,
                hop: ::fermat::codegen::contract::Hop::#hop,
                signals: #signals,
                args: &[#(::fermat::codegen::contract::Arg::#args),*],
            }
        }
    });
    quote!(&[#(#items),*])
}

fn tokens(input: &Input, checked: &Checked, t: &Transform) -> TokenStream {
    let Input {
        attrs, vis, name, ..
    } = input;
    let (field_ty, host_ty, element) = field_types(&checked.field);
    let docs = type_docs(input, t, &element);
    let embedded = embedded(checked, t);
    let consts = constants(t);
    let transforms = transform_methods(checked, t, &field_ty, &host_ty);
    let device = device_methods(&field_ty, &host_ty);
    quote! {
        #(#attrs)*
        #docs
        #vis struct #name {
            plan: ::fermat::FftPlan<#field_ty>,
        }

        #[allow(dead_code)]
        impl #name {
            #embedded
            #consts
            #transforms
            #device
        }

        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(::core::stringify!(#name))
                    .field("field", &Self::FIELD)
                    .field("n", &Self::N)
                    .field("running", self.plan.running())
                    .finish()
            }
        }
    }
}

/// The field's type, the host element type, and how the docs name the element.
fn field_types(field: &AnyField) -> (TokenStream, TokenStream, String) {
    match field {
        AnyField::Fp32(_) => (
            quote!(::fermat::dsl::Fp32),
            quote!(u32),
            "`u32`".to_string(),
        ),
        AnyField::Fp64(_) => (
            quote!(::fermat::dsl::Fp64),
            quote!(u64),
            "`u64`".to_string(),
        ),
        other => {
            let k = other.srgfn_params().map_or(1, |p| p.k) as usize;
            let k_lit = Literal::usize_unsuffixed(k);
            (
                quote!(::fermat::dsl::Srgfn<#k_lit>),
                quote!([u64; #k_lit]),
                format!("`[u64; {k}]` (base-r digits, least significant first)"),
            )
        }
    }
}

/// The type's documentation: the user's, then a summary of the transform.
fn type_docs(input: &Input, t: &Transform, element: &str) -> TokenStream {
    let (n, field_name, radix) = (t.n, &t.field, t.design.radix);
    let kernels = t.forward_launches.len();
    let passes = t.cost.passes();
    let summary = format!(
        " The DFT of {n} points over {field_name}, specialised when this crate compiled \
         (`fermat::fft!`): strategy {}, radix {radix}, {kernels} kernel(s) and {passes} \
         global-memory pass(es) per transform; elements are {element}.",
        t.design.strategy
    );
    if input.attrs.iter().any(|a| a.path().is_ident("doc")) {
        quote!(#[doc = ""] #[doc = #summary])
    } else {
        quote!(#[doc = #summary])
    }
}

/// `EMBEDDED`: everything generated for the transform, as one constant.
fn embedded(checked: &Checked, t: &Transform) -> TokenStream {
    let n = t.n;
    let field_name = &t.field;
    let radix = t.design.radix;
    let strategy = strategy_tokens(t.design.strategy);
    let max_local_bits = t.design.max_local_bits;
    let input_order = order_tokens(checked.options.input_order);
    let output_order = order_tokens(checked.options.output_order);
    let root = option(checked.options.root.as_ref().map(|r| r.to_string()));
    let batch = option(checked.batch.map(Literal::usize_unsuffixed));
    let formula = t.design.formula.ascii();
    let derivation = t.derivation.render(true).to_string();
    let command = &t.command;
    let source = Literal::string(&t.source);
    let forward = launches(&t.forward_launches);
    let inverse = option(t.inverse_launches.as_deref().map(launches));
    let table_rows = t.table_rows;
    let fingerprint = t.fingerprint;
    quote! {
        /// Everything generated for this transform when the crate compiled.
        pub const EMBEDDED: &'static ::fermat::Embedded = &::fermat::Embedded {
            field: #field_name,
            n: #n,
            strategy: #strategy,
            radix: #radix,
            max_local_bits: #max_local_bits,
            input_order: #input_order,
            output_order: #output_order,
            root: #root,
            batch: #batch,
            formula: #formula,
            derivation: #derivation,
            command: #command,
            source: #source,
            forward: #forward,
            inverse: #inverse,
            table_rows: #table_rows,
            fingerprint: #fingerprint,
            codegen_version: #CODEGEN_VERSION,
        };
    }
}

/// The type's constants, read from `EMBEDDED`'s parts.
fn constants(t: &Transform) -> TokenStream {
    let n_usize = Literal::usize_unsuffixed(t.n as usize);
    let source_doc = if t.inverse_launches.is_some() {
        " The CUDA source of the kernels: the field prelude, the forward kernels `fwd_k*` and \
         the inverse kernels `inv_k*`, as the command of [`Self::COMMAND`] writes it."
    } else {
        " The CUDA source of the kernels: the field prelude and the forward kernels `fwd_k*`."
    };
    quote! {
        /// The transform size n.
        pub const N: usize = #n_usize;
        /// The field's name (`P3`, `469762049`, …).
        pub const FIELD: &'static str = Self::EMBEDDED.field;
        /// The radix K of the factorisation.
        pub const RADIX: u64 = Self::EMBEDDED.radix;
        /// The derivation strategy.
        pub const STRATEGY: ::fermat::Strategy = Self::EMBEDDED.strategy;
        /// The number of transforms every call takes, if fixed (`batch = …`).
        pub const BATCH: ::core::option::Option<usize> = Self::EMBEDDED.batch;
        #[doc = #source_doc]
        pub const CUDA_SOURCE: &'static str = Self::EMBEDDED.source;
        /// The derived formula the kernels implement (ASCII notation).
        pub const FORMULA: &'static str = Self::EMBEDDED.formula;
        /// The derivation from `DFT(n)` to [`Self::FORMULA`], as `fermat derive` prints it.
        pub const DERIVATION: &'static str = Self::EMBEDDED.derivation;
        /// The command line that makes the same CUDA file.
        pub const COMMAND: &'static str = Self::EMBEDDED.command;
    }
}

/// `new`, the transforms on host slices, and what the plan reports of itself.
fn transform_methods(
    checked: &Checked,
    t: &Transform,
    field_ty: &TokenStream,
    host_ty: &TokenStream,
) -> TokenStream {
    let n = t.n;
    let batch_doc = match checked.batch {
        Some(b) => format!(
            "exactly {b} transforms of n = {n} elements, one after another ({} elements)",
            b as u64 * n
        ),
        None => format!("a positive multiple of n = {n} elements (a batch of transforms)"),
    };
    let forward_doc = format!(
        " The forward DFT (at ω, the canonical root unless `root` was given) of every \
         transform in `data`, in place; `data` holds {batch_doc}. Values must be canonical."
    );
    let inverse_doc = format!(
        " The inverse DFT (at ω^(−1), scaled by 1/n) of every transform in `data`, in place; \
         `data` holds {batch_doc}."
    );
    let inverse_methods = if t.inverse_launches.is_some() {
        quote! {
            #[doc = #inverse_doc]
            pub fn inverse(&self, data: &mut [#host_ty]) -> ::core::result::Result<(), ::fermat::Error> {
                self.plan.inverse(data)
            }

            /// The inverse transforms of `input` into `output` on the device, queued on
            /// the plan's stream (see [`Self::forward_device`]).
            pub fn inverse_device(
                &self,
                input: &::fermat::DeviceVec<#field_ty>,
                output: &mut ::fermat::DeviceVec<#field_ty>,
            ) -> ::core::result::Result<(), ::fermat::Error> {
                self.plan.run_device(::fermat::Direction::Inverse, input, output, ::core::option::Option::None)
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        /// The plan on `backend` (`Backend::Auto`: the GPU if one works, else the
        /// CPU). Nothing is derived or generated at run time: the plan is lowered from
        /// the embedded formula and checked against the embedded kernels.
        pub fn new(backend: ::fermat::Backend) -> ::core::result::Result<Self, ::fermat::Error> {
            ::core::result::Result::Ok(Self {
                plan: ::fermat::FftPlan::from_embedded(Self::EMBEDDED, backend)?,
            })
        }

        #[doc = #forward_doc]
        pub fn forward(&self, data: &mut [#host_ty]) -> ::core::result::Result<(), ::fermat::Error> {
            self.plan.forward(data)
        }

        /// The forward transforms of `input` into `output` on the device, queued on
        /// the plan's stream without waiting (read the result with
        /// [`Self::from_device`], or call [`Self::synchronize`]). Needs a GPU plan.
        pub fn forward_device(
            &self,
            input: &::fermat::DeviceVec<#field_ty>,
            output: &mut ::fermat::DeviceVec<#field_ty>,
        ) -> ::core::result::Result<(), ::fermat::Error> {
            self.plan.run_device(::fermat::Direction::Forward, input, output, ::core::option::Option::None)
        }

        #inverse_methods

        /// The cost report of the forward transform: passes over global memory, bytes
        /// moved, multiplications and additions, per kernel.
        pub fn cost(&self) -> ::fermat::codegen::Cost {
            ::fermat::codegen::Cost::of(
                self.plan.kernel_plan(::fermat::Direction::Forward),
                self.plan.shape().clone(),
            )
        }

        /// Where the plan runs (and, under `Backend::Auto`, why not on a GPU).
        pub fn running(&self) -> &::fermat::Running {
            self.plan.running()
        }

        /// The field.
        pub fn field(&self) -> &#field_ty {
            self.plan.field()
        }

        /// The underlying plan.
        pub fn plan(&self) -> &::fermat::FftPlan<#field_ty> {
            &self.plan
        }
    }
}

/// Device buffers: copies in and out, allocation, and waiting for the stream.
fn device_methods(field_ty: &TokenStream, host_ty: &TokenStream) -> TokenStream {
    quote! {
        /// Copies transforms to the device, in the device layout (values are checked).
        pub fn to_device(&self, data: &[#host_ty]) -> ::core::result::Result<::fermat::DeviceVec<#field_ty>, ::fermat::Error> {
            self.plan.to_device(data)
        }

        /// A zeroed device vector of `batch` transforms.
        pub fn alloc_device(&self, batch: usize) -> ::core::result::Result<::fermat::DeviceVec<#field_ty>, ::fermat::Error> {
            self.plan.alloc_device(batch)
        }

        /// Copies transforms back from the device.
        pub fn from_device(&self, v: &::fermat::DeviceVec<#field_ty>) -> ::core::result::Result<::std::vec::Vec<#host_ty>, ::fermat::Error> {
            self.plan.from_device(v)
        }

        /// Waits for the work queued on the plan's stream.
        pub fn synchronize(&self) -> ::core::result::Result<(), ::fermat::Error> {
            self.plan.synchronize()
        }
    }
}
