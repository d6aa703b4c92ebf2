//! Code generation from the parsed model. Never re-parses; names dependencies only through the
//! facade's `::toolsmith::__private` re-exports.

mod tools;

pub(crate) use tools::tools_impl;

use crate::ast::{ContextParam, ModelParam, Output, Param, ToolFn};
use crate::attr::{ConstraintAttr, ConstraintValue, ToolAttr};
use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Type;

/// Replaces `Self` in a type with the impl's self type (generated items cannot name `Self`).
fn replace_self(tokens: TokenStream, self_ty: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(id) if id == "Self" => self_ty.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut ng = Group::new(g.delimiter(), replace_self(g.stream(), self_ty));
                    ng.set_span(g.span());
                    vec![TokenTree::Group(ng)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// The runtime's typed `Constraint` for one `#[arg(...)]` constraint.
fn constraint_tokens(c: &ConstraintAttr) -> TokenStream {
    let p = quote!(::toolsmith::__private);
    let variant = syn::Ident::new(&format!("{:?}", c.key), proc_macro2::Span::call_site());
    match &c.value {
        ConstraintValue::Count(n) => quote!(#p::Constraint::#variant(#n)),
        ConstraintValue::Pattern(text) => quote!(#p::Constraint::#variant(#text)),
        ConstraintValue::Flag => quote!(#p::Constraint::#variant),
        ConstraintValue::Num(n) => {
            let num = match n.whole() {
                Some(Ok(i)) => quote!(#p::Num::Int(#i)),
                Some(Err(u)) => quote!(#p::Num::UInt(#u)),
                None => {
                    let f = n.value;
                    quote!(#p::Num::Float(#f))
                }
            };
            quote!(#p::Constraint::#variant(#num))
        }
    }
}

/// An expression that evaluates to the tool's `::toolsmith::Tool`.
///
/// `self_ty` is the impl's self type for tools declared inside a `#[tools]` impl block.
pub(crate) fn tool_expr(tool: &ToolFn, self_ty: Option<&Type>) -> TokenStream {
    let ex = Expander::new(tool, self_ty);
    let params = ex.params();
    let output_schema = ex.output_schema();
    let (invoke_fns, exec, typed_exec) = ex.entry_points(&params);
    let typed_fns = ex.typed_fns(&params, &typed_exec);
    let (approval_fn, approval_when) = approval_when(tool, &|ty: &Type| ex.fix(ty));
    let tool_value = ex.tool_value(&output_schema, &exec, &approval_when);
    let p = &ex.p;
    let Params {
        fields,
        defaults,
        param_defs,
        context_defs,
        ..
    } = &params;
    quote! {{
        #approval_fn
        #[allow(non_camel_case_types, dead_code)]
        struct __Args { #(#fields,)* }
        #(#defaults)*
        #invoke_fns
        #typed_fns
        let __params: &'static [#p::ParamDef] = &[#(#param_defs),*];
        let __contexts: &'static [#p::ContextDef] = &[#(#context_defs),*];
        #tool_value
    }}
}

/// The parts the parameters contribute to the expansion, each list in parameter order.
#[derive(Default)]
struct Params {
    /// The fields of `__Args`.
    fields: Vec<TokenStream>,
    // The table-driven decoding (`typed::fill`): each parameter's name, its slot (an
    // `Option<T>` local), the slot handed to `fill`, and the field taken from the slot.
    names: Vec<String>,
    slots: Vec<TokenStream>,
    slot_refs: Vec<TokenStream>,
    takes: Vec<TokenStream>,
    /// The functions that compute the parameters' defaults.
    defaults: Vec<TokenStream>,
    param_defs: Vec<TokenStream>,
    context_defs: Vec<TokenStream>,
    /// The statements of `__run` that fetch the context parameters.
    fetch: Vec<TokenStream>,
    call_args: Vec<TokenStream>,
    // The typed fast path: one check per parameter, and whether its type can have one.
    checks: Vec<TokenStream>,
    fast_possible: Vec<TokenStream>,
}

/// One model-facing parameter with what its parts share: its index, its field in `__Args`, its
/// types as the expansion writes them (`Self` replaced) and whether it is required.
struct ModelArg<'t> {
    m: &'t ModelParam,
    i: usize,
    field: syn::Ident,
    ty: TokenStream,
    inner: TokenStream,
    required: bool,
}

/// The expansion of one tool; each method emits one part of what `tool_expr` returns.
struct Expander<'t> {
    tool: &'t ToolFn,
    /// `::toolsmith::__private`, through which every dependency is named.
    p: TokenStream,
    /// The impl's self type for tools declared inside a `#[tools]` impl block.
    self_tokens: Option<TokenStream>,
}

impl<'t> Expander<'t> {
    /// The expander of `tool`, declared inside the impl of `self_ty` if any.
    fn new(tool: &'t ToolFn, self_ty: Option<&Type>) -> Self {
        Expander {
            tool,
            p: quote!(::toolsmith::__private),
            self_tokens: self_ty.map(|t| quote!(#t)),
        }
    }

    /// A type as the expansion writes it: `Self` replaced by the impl's self type.
    fn fix(&self, ty: &Type) -> TokenStream {
        match &self.self_tokens {
            Some(st) => replace_self(ty.to_token_stream(), st),
            None => ty.to_token_stream(),
        }
    }

    /// The parts of every parameter: the receiver first (a method's `self`), then each
    /// parameter in order.
    fn params(&self) -> Params {
        let mut out = Params::default();
        if self.tool.has_self {
            self.receiver(&mut out);
        }
        for (i, param) in self.tool.params.iter().enumerate() {
            match param {
                Param::Model(m) => self.model_param(i, m, &mut out),
                Param::Context(c) => self.context_param(i, c, &mut out),
            }
        }
        out
    }

    /// The receiver's parts: its fetch from the context, its `ContextDef` and its call argument.
    fn receiver(&self, out: &mut Params) {
        let p = &self.p;
        let st = self.self_tokens.clone().unwrap_or_else(|| quote!(Self));
        let name = st.to_string().replace(' ', "");
        out.fetch.push(quote! {
            let __this: &#st = #p::context::<#st>(__ctx, "self")?;
        });
        out.context_defs.push(quote! {
            #p::ContextDef { param: "self", type_name: #name, type_id: ::std::any::TypeId::of::<#st> }
        });
        out.call_args.push(quote!(__this));
    }

    /// A model-facing parameter's parts: its decoding, its typed check, its `ParamDef` and its
    /// call argument.
    fn model_param(&self, i: usize, m: &ModelParam, out: &mut Params) {
        let arg = ModelArg {
            m,
            i,
            field: format_ident!("p{}", i),
            ty: self.fix(&m.ty),
            inner: self.fix(&m.inner),
            required: !m.optional && m.arg.default.is_none(),
        };
        let default = self.decoding(&arg, out);
        let constraints = m
            .arg
            .constraints()
            .iter()
            .map(constraint_tokens)
            .collect::<Vec<_>>();
        self.typed_check(&arg, &constraints, out);
        out.param_defs
            .push(self.param_def(&arg, &default, constraints));
        let field = &arg.field;
        out.call_args.push(quote!(__args.#field));
    }

    /// A model-facing parameter's decoding: its `__Args` field, its slot for `typed::fill`, the
    /// field taken from the slot and its default's functions; returns the `ParamDef`'s default.
    fn decoding(&self, arg: &ModelArg<'_>, out: &mut Params) -> TokenStream {
        let p = &self.p;
        let ModelArg {
            m,
            i,
            field,
            ty,
            inner,
            required,
        } = arg;
        let name = &m.name;
        let slot = format_ident!("__s{}", i);
        let default = match &m.arg.default {
            Some(expr) => {
                let f = format_ident!("__default_{}", i);
                let fj = format_ident!("__default_json_{}", i);
                out.takes.push(quote!(#field: #slot.unwrap_or_else(#f)));
                // A string literal is a `&str`: into the parameter's type (`String`, `Cow`), as
                // `default = "normal"` reads. Other literals stay as written, so a number takes
                // the parameter's type by inference.
                let value = match expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    }) => quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr)),
                    _ => quote!(#expr),
                };
                out.defaults.push(quote_spanned! {expr.span()=>
                    #[allow(clippy::unnecessary_cast)]
                    fn #f() -> #ty { #value }
                    fn #fj() -> #p::Value { #p::to_json(&#f()) }
                });
                quote!(::std::option::Option::Some(#fj))
            }
            None => {
                out.takes.push(if m.optional {
                    quote!(#field: #slot.unwrap_or(::std::option::Option::None))
                } else {
                    quote!(#field: #p::typed::filled(#slot, #name)?)
                });
                quote!(::std::option::Option::None)
            }
        };
        out.fields.push(quote!(#field: #ty));
        out.names.push(name.clone());
        out.slots
            .push(quote!(let mut #slot: ::std::option::Option<#ty> = ::std::option::Option::None;));
        // The type named as written: a type serde cannot decode is an error there.
        out.slot_refs.push(quote! {
            #p::typed::Slot::new::<#ty>(
                &mut #slot,
                (&&#p::typed::TypeProbe::<#inner>(#p::typed::PhantomData)).guarded(),
                #required,
            )
        });
        default
    }

    /// A model-facing parameter's compiled check for the typed fast path, and whether its type
    /// can have one.
    fn typed_check(&self, arg: &ModelArg<'_>, constraints: &[TokenStream], out: &mut Params) {
        let p = &self.p;
        let ModelArg {
            m, field, inner, ..
        } = arg;
        let name = &m.name;
        let check_constraints = constraints;
        let probe = quote! {
            (&&#p::typed::Probe(__v)).typed_ok(__C, &__RE)
        };
        // A failing parameter is reported alone (`Decoded::OneInvalid`) when it is the
        // only one; a parameter with a default may hold the default, not what was sent,
        // so its failure is left to the general path.
        let report = if m.arg.default.is_some() {
            quote!(return ::std::result::Result::Err(#p::typed::Decoded::Fallback);)
        } else {
            quote! {
                match (__one.is_none(), (&&#p::typed::Probe(__v)).typed_json()) {
                    (true, ::std::option::Option::Some(__json)) => __one = ::std::option::Option::Some((#name, __json)),
                    _ => return ::std::result::Result::Err(#p::typed::Decoded::Fallback),
                }
            }
        };
        let check = if m.optional {
            quote! {
                if let ::std::option::Option::Some(__v) = &__a.#field {
                    if !#probe { #report }
                }
            }
        } else {
            quote! {
                let __v = &__a.#field;
                if !#probe { #report }
            }
        };
        // A compiled pattern is kept per parameter that has one; the others share the empty
        // cell (one item less per parameter to compile).
        let has_pattern = m
            .arg
            .constraints()
            .iter()
            .any(|c| matches!(c.value, crate::attr::ConstraintValue::Pattern(_)));
        let cell = if has_pattern {
            quote!(static __RE: #p::typed::PatternCell = #p::typed::PatternCell::new();)
        } else {
            quote!(let __RE: &#p::typed::PatternCell = &#p::typed::NO_PATTERN;)
        };
        out.checks.push(quote! {{
            #cell
            const __C: &[#p::Constraint] = &[#(#check_constraints),*];
            #check
        }});
        if m.optional && m.arg.default.is_some() {
            // `null` would decode as `None` where the general path drops it and decodes
            // the default: leave such tools to the general path.
            out.fast_possible.push(quote!(false));
        } else if !m.optional {
            out.fast_possible.push(quote! {
                (&&#p::typed::TypeProbe::<#inner>(#p::typed::PhantomData)).known()
            });
        }
    }

    /// A model-facing parameter's `ParamDef`: name, description, schema, constraints, default.
    fn param_def(
        &self,
        arg: &ModelArg<'_>,
        default: &TokenStream,
        constraints: Vec<TokenStream>,
    ) -> TokenStream {
        let p = &self.p;
        let ModelArg {
            m, inner, required, ..
        } = arg;
        let name = &m.name;
        let desc = m
            .description
            .as_ref()
            .map(|d| d.0.clone())
            .unwrap_or_default();
        let schema = quote_spanned!(m.inner.span()=> #p::schema_of::<#inner>);
        // The header annotation goes into the schema only, never into the typed checks.
        let mut constraints = constraints;
        constraints.extend(
            m.arg
                .header
                .iter()
                .map(|h| quote!(#p::Constraint::Header(#h))),
        );
        quote! {
            #p::ParamDef {
                name: #name,
                description: #desc,
                required: #required,
                schema: #schema,
                constraints: &[#(#constraints),*],
                default: #default,
            }
        }
    }

    /// A context parameter's parts: its fetch from the context, its `ContextDef` and its call
    /// argument.
    fn context_param(&self, i: usize, c: &ContextParam, out: &mut Params) {
        let p = &self.p;
        let local = format_ident!("__ctx_{}", i);
        let target = self.fix(&c.target);
        let pname = crate::syntax::unraw(&c.ident);
        let tname = target.to_string().replace(' ', "");
        out.fetch.push(quote_spanned! {c.target.span()=>
            let #local: &#target = #p::context::<#target>(__ctx, #pname)?;
        });
        out.context_defs.push(quote! {
            #p::ContextDef { param: #pname, type_name: #tname, type_id: ::std::any::TypeId::of::<#target> }
        });
        out.call_args.push(quote!(#local));
    }

    /// The call of the tool function with its arguments (an async tool's future, not awaited).
    fn call(&self, call_args: &[TokenStream]) -> TokenStream {
        let ident = &self.tool.ident;
        let callee = match &self.self_tokens {
            Some(st) => quote!(<#st>::#ident),
            None => quote!(#ident),
        };
        quote!(#callee(#(#call_args),*))
    }

    /// The function that encodes what the tool returns: applied to a sync tool's result at the
    /// end of `__run`, and by `typed::invoke_async` to the output of an async tool's future.
    fn encoder(&self) -> TokenStream {
        let p = &self.p;
        match &self.tool.output {
            Output::Unit => quote!(#p::unit_finish),
            Output::Plain { reply: false, .. } => quote!(#p::ok_output),
            Output::Plain { reply: true, .. } => quote!(#p::reply_output),
            Output::Result { reply: false, .. } => quote!(#p::result_output),
            Output::Result { reply: true, .. } => quote!(#p::result_reply_output),
        }
    }

    /// The spec's output schema.
    fn output_schema(&self) -> TokenStream {
        let p = &self.p;
        let ty = match &self.tool.output {
            Output::Plain { ty, .. } | Output::Result { ok: Some(ty), .. } => ty,
            Output::Unit | Output::Result { ok: None, .. } => {
                return quote!(::std::option::Option::None)
            }
        };
        let t = self.fix(ty);
        quote!(::std::option::Option::Some(#p::schema_of::<#t>))
    }

    /// What decodes the validated value into `__Args` for the entry points on it: `__fill`, or
    /// for a tool without parameters the empty struct (whatever the value holds).
    fn decode(&self, params: &Params) -> TokenStream {
        let p = &self.p;
        if params.fields.is_empty() {
            quote!(|_: #p::typed::Input<'_>| ::std::result::Result::Ok(__Args {}))
        } else {
            quote!(__fill)
        }
    }

    /// The type an entry point on the validated value returns.
    fn result_ty(&self) -> TokenStream {
        let p = &self.p;
        quote!(::std::result::Result<#p::Reply<#p::Value>, #p::ToolError>)
    }

    /// The type `__run` and the typed entry point return.
    fn encoded_ty(&self) -> TokenStream {
        let p = &self.p;
        quote!(::std::result::Result<#p::Reply<#p::Encoded>, #p::ToolError>)
    }

    /// The entry points (a sync tool's `__run`, an async tool's `__start`, and the functions
    /// around it), the spec's `exec` and the typed path's `exec`.
    fn entry_points(&self, params: &Params) -> (TokenStream, TokenStream, TokenStream) {
        let p = &self.p;
        let fetch = &params.fetch;
        let call = self.call(&params.call_args);
        let encoder = self.encoder();
        let decode = self.decode(params);
        // A sync tool is a plain function, which the toolbox runs on a tool thread so a slow body
        // cannot stall the host's async threads or outlive its timeout unanswered; an async tool
        // is a boxed future. Both entry points (validated value, typed fast path) share one body.
        if self.tool.is_async {
            // The context fetched and the tool's future made; `typed::invoke_async` awaits it
            // and applies the encoder, so the tool has no coroutine of its own here.
            let start = quote! {
                #(#fetch)*
                ::std::result::Result::Ok(#call)
            };
            self.async_entry_points(&start, &encoder, &decode)
        } else {
            let finish = match self.tool.output {
                Output::Unit => quote! { #call; #p::unit_output(__enc) },
                _ => quote!(#encoder(#call, __enc)),
            };
            let body = quote! {
                #(#fetch)*
                #finish
            };
            self.sync_entry_points(&body, &decode)
        }
    }

    /// An async tool's entry points, each a boxed future, and its two `exec`s: `__start`
    /// fetches the context and calls the tool (its future, not awaited), and the generic
    /// `typed::invoke_async` awaits it and applies `encoder`.
    fn async_entry_points(
        &self,
        start: &TokenStream,
        encoder: &TokenStream,
        decode: &TokenStream,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let p = &self.p;
        let (result_ty, encoded_ty) = (self.result_ty(), self.encoded_ty());
        let ret = self.fix(&self.tool.ret);
        (
            quote! {
                #[allow(unused_variables)]
                fn __start<'__a>(
                    __ctx: &'__a #p::Context,
                    __args: __Args,
                ) -> ::std::result::Result<
                    impl ::std::future::Future<Output = #ret> + ::std::marker::Send + '__a,
                    #p::ToolError,
                > {
                    #start
                }
                fn __invoke<'__a>(
                    __ctx: &'__a #p::Context,
                    __raw: &'__a #p::Value,
                ) -> #p::BoxFuture<'__a, #result_ty> {
                    #p::typed::invoke_async(__ctx, __raw, #decode, __start, #encoder)
                }
                fn __invoke_typed<'__a>(
                    __ctx: &'__a #p::Context,
                    __typed: #p::typed::TypedArgs,
                    __enc: #p::Encoding<'__a>,
                ) -> #p::BoxFuture<'__a, #encoded_ty> {
                    #p::typed::invoke_typed_async::<__Args, _, _, _>(__ctx, __typed, __enc, __start, #encoder)
                }
            },
            quote!(#p::Exec::Async(__invoke)),
            quote!(#p::typed::TypedExec::Async(__invoke_typed)),
        )
    }

    /// A sync tool's entry points, each a plain function, and its two `exec`s.
    fn sync_entry_points(
        &self,
        body: &TokenStream,
        decode: &TokenStream,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let p = &self.p;
        let (result_ty, encoded_ty) = (self.result_ty(), self.encoded_ty());
        (
            quote! {
                #[allow(unused_variables)]
                fn __run(__ctx: &#p::Context, __args: __Args, __enc: #p::Encoding<'_>) -> #encoded_ty {
                    #body
                }
                fn __invoke_blocking(
                    __ctx: &#p::Context,
                    __raw: &#p::Value,
                ) -> #result_ty {
                    #p::typed::invoke_blocking(__ctx, __raw, #decode, __run)
                }
                fn __typed_blocking(
                    __ctx: &#p::Context,
                    __typed: #p::typed::TypedArgs,
                    __enc: #p::Encoding<'_>,
                ) -> #encoded_ty {
                    #p::typed::invoke_typed_blocking::<__Args>(__ctx, __typed, __enc, __run)
                }
                fn __run_fused<'__a>(
                    __ctx: &'__a #p::Context,
                    __input: #p::typed::Input<'_>,
                    __enc: #p::Encoding<'__a>,
                ) -> #p::typed::Fused {
                    #p::typed::run_fused(__ctx, __input, __enc, __fill, __check, __run)
                }
            },
            quote!(#p::Exec::Sync(__invoke_blocking)),
            quote!(#p::typed::TypedExec::Sync { blocking: __typed_blocking, run: __run_fused }),
        )
    }

    /// The typed path's functions `__fill` and `__check`, and the statement that builds its
    /// `TypedDef` (`__typed`).
    fn typed_fns(&self, params: &Params, typed_exec: &TokenStream) -> TokenStream {
        let p = &self.p;
        let Params {
            names,
            slots,
            slot_refs,
            takes,
            checks,
            fast_possible,
            ..
        } = params;
        // Typed decoding: the parameters decoded into their slots by `typed::fill` (compiled once,
        // in toolsmith-core), then the compiled checks; `Fallback` hands the call to the validator,
        // which builds the errors.
        quote! {
            /// The arguments decoded into the parameters (the checks aside).
            #[allow(unused_mut, unused_imports, clippy::needless_borrow)]
            fn __fill(__input: #p::typed::Input<'_>) -> ::std::result::Result<__Args, #p::typed::DecodeError> {
                use #p::typed::{KnownType as _, UnknownType as _};
                #(#slots)*
                #p::typed::fill(__input, &[#(#names),*], &mut [#(#slot_refs),*])?;
                ::std::result::Result::Ok(__Args { #(#takes),* })
            }
            /// The compiled checks of decoded arguments: `Ok`, the one parameter that fails, or
            /// `Fallback` when more than one fails or one cannot be reported alone.
            #[allow(unused_variables, unused_imports, unused_mut, clippy::needless_borrow)]
            fn __check(__a: &__Args) -> ::std::result::Result<(), #p::typed::Decoded> {
                use #p::typed::{Known as _, Unknown as _};
                let mut __one: ::std::option::Option<(&'static str, #p::Value)> = ::std::option::Option::None;
                #(#checks)*
                match __one {
                    ::std::option::Option::None => ::std::result::Result::Ok(()),
                    ::std::option::Option::Some((__name, __value)) => {
                        ::std::result::Result::Err(#p::typed::Decoded::OneInvalid(__name, __value))
                    }
                }
            }
            // The fast path of `ToolDef::typed`: a statement of the tool's body, not an item of its
            // own (each item is one more to check after an edit that moves the tool's text).
            #[allow(unused_imports, clippy::needless_borrow)]
            let __typed: ::std::option::Option<#p::typed::TypedDef> = {
                use #p::typed::{KnownType as _, UnknownType as _};
                let __possible: bool = true #(&& #fast_possible)*;
                __possible.then_some(#p::typed::TypedDef {
                    decode: |__input| #p::typed::decoded(__input, __fill, __check),
                    exec: #typed_exec,
                })
            };
        }
    }

    /// The `Tool`: `Tool::from_def` with the spec and the entry points, then the builder calls
    /// (`approval_when`, `core`).
    fn tool_value(
        &self,
        output_schema: &TokenStream,
        exec: &TokenStream,
        approval_when: &TokenStream,
    ) -> TokenStream {
        let p = &self.p;
        let a = &self.tool.attr;
        let name = &self.tool.name;
        let description = self
            .tool
            .description
            .as_ref()
            .map(|d| d.0.clone())
            .unwrap_or_default();
        let title = some_or_none(a.title.as_ref());
        let timeout = some_or_none(a.timeout_ms);
        let output_budget = some_or_none(a.output_budget);
        let idem_keys = idempotency_keys(self.tool);
        let version = match &a.version {
            Some(v) => quote!(#v),
            None => quote!(::core::env!("CARGO_PKG_VERSION")),
        };
        let effects = self.effects(a);
        let examples = examples(a);
        let deprecated = deprecated(a);
        let icons = icons(a);
        // `#[tool(core)]`: the tool joins the toolbox's always-loaded core set.
        let core = a.core.on().then(|| quote!(.with_core(true)));
        // `#[tool(task = "...")]`: whether calls may run as tasks (forbidden is the default).
        let task = a.task.and_then(|t| match t.0 {
            "optional" => Some(quote!(.with_task(#p::TaskSupport::Optional))),
            "required" => Some(quote!(.with_task(#p::TaskSupport::Required))),
            _ => None,
        });
        let allows = a.allows.iter().map(|al| {
            let (r, why) = (&al.rule, &al.reason);
            quote!((#r, #why))
        });
        quote! {
            #p::Tool::from_def(#p::ToolDef {
                name: #name,
                title: #title,
                description: #description,
                params: __params,
                output: #output_schema,
                effects: #effects,
                allows: &[#(#allows),*],
                contexts: __contexts,
                timeout_ms: #timeout,
                output_budget: #output_budget,
                idempotency_key: &[#(#idem_keys),*],
                version: #version,
                examples: &[#(#examples),*],
                deprecated: #deprecated,
                icons: &[#(#icons),*],
                exec: #exec,
                typed: __typed,
            })#approval_when #core #task
        }
    }

    /// The spec's `Effects`, built from the attribute's effect flags.
    fn effects(&self, a: &ToolAttr) -> TokenStream {
        let p = &self.p;
        let (read_only, network, open_world, idempotent, requires_approval, untrusted_output) = (
            a.read_only.on(),
            a.network.on(),
            a.open_world.on(),
            a.idempotent.on(),
            a.requires_approval.on(),
            a.untrusted_output.on(),
        );
        let destructive = a.destructive.on();
        let writes = a.writes.on() || destructive;
        quote! {
            #p::Effects::none()
                .with_read_only(#read_only)
                .with_writes(#writes)
                .with_destructive(#destructive)
                .with_network(#network)
                .with_open_world(#open_world)
                .with_idempotent(#idempotent)
                .with_requires_approval(#requires_approval)
                .with_untrusted_output(#untrusted_output)
        }
    }
}

/// `Option::Some(value)`, or `Option::None`.
fn some_or_none(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(v) => quote!(::std::option::Option::Some(#v)),
        None => quote!(::std::option::Option::None),
    }
}

/// The spec's idempotency key: each named parameter by its model-facing name.
fn idempotency_keys(tool: &ToolFn) -> Vec<String> {
    tool.attr
        .idempotency_key
        .iter()
        .map(|id| {
            tool.params
                .iter()
                .find_map(|p| match p {
                    Param::Model(m) if m.ident == *id || *id == m.name => Some(m.name.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| id.to_string())
        })
        .collect()
}

/// The spec's examples, each as JSON text.
fn examples(a: &ToolAttr) -> Vec<String> {
    // Each example as JSON text, in the order declared (`check` has judged them).
    a.examples
        .iter()
        .map(|ex| {
            let object: serde_json::Map<String, serde_json::Value> = ex
                .args
                .iter()
                .map(|arg| (arg.name.clone(), arg.value.to_json()))
                .collect();
            serde_json::Value::Object(object).to_string()
        })
        .collect()
}

/// The spec's deprecation: `Option::Some((since, note, replaced_by))`, or `Option::None`.
fn deprecated(a: &ToolAttr) -> TokenStream {
    match &a.deprecated {
        Some(d) => {
            let since = &d.since;
            let note = some_or_none(d.note.as_ref());
            let by = some_or_none(d.replaced_by.as_ref());
            quote!(::std::option::Option::Some((#since, #note, #by)))
        }
        None => quote!(::std::option::Option::None),
    }
}

/// The spec's icons, each as JSON text.
fn icons(a: &ToolAttr) -> Vec<String> {
    // Each icon as MCP's `Icon` JSON, in the order declared (`check` has judged them).
    a.icons
        .iter()
        .map(|icon| {
            let mut object = serde_json::Map::new();
            let text = |l: &syn::LitStr| serde_json::Value::String(l.value());
            if let Some(src) = &icon.src {
                object.insert("src".into(), text(src));
            }
            if let Some(m) = &icon.mime_type {
                object.insert("mimeType".into(), text(m));
            }
            if !icon.sizes.is_empty() {
                object.insert("sizes".into(), icon.sizes.iter().map(text).collect());
            }
            if let Some(t) = &icon.theme {
                object.insert("theme".into(), text(t));
            }
            serde_json::Value::Object(object).to_string()
        })
        .collect()
}

/// For `requires_approval(when = path)`: the function that decides each call (the arguments
/// decoded, then `path` called with a reference to each, context parameters aside, in order)
/// and the builder call that attaches it (`Tool::requires_approval_when`, named as written).
/// The binding and the call are spanned at the path, so a function of another signature (a
/// parameter's type, their number, the return type) or a name that does not resolve is a
/// compile error there. Being a call, deref coercion applies: `&str` takes a `String`
/// parameter, `&[T]` a `Vec<T>`.
fn approval_when(tool: &ToolFn, fix: &dyn Fn(&Type) -> TokenStream) -> (TokenStream, TokenStream) {
    let Some(path) = &tool.attr.approval_when else {
        return (TokenStream::new(), TokenStream::new());
    };
    let p = quote!(::toolsmith::__private);
    let span = path.span();
    let args: Vec<TokenStream> = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| matches!(param, Param::Model(_)))
        .map(|(i, _)| {
            let field = format_ident!("p{}", i, span = span);
            quote_spanned!(span=> &__a.#field)
        })
        .collect();
    let name = path.to_token_stream().to_string().replace(' ', "");
    // `Self::limit` inside a `#[tools]` impl: generated items cannot name `Self`.
    let as_type = Type::Path(syn::TypePath {
        qself: None,
        path: path.clone(),
    });
    let callee: TokenStream = fix(&as_type)
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect();
    // Two steps, both spanned at the path: binding the function to a pointer with one inferred
    // parameter per tool parameter checks the number of parameters and the return type (one
    // clear error, with both signatures); calling it through the pointer checks each
    // parameter's type, with the coercions of a call.
    let holes = args.iter().map(|_| quote_spanned!(span=> _));
    let decided = quote_spanned! {span=>
        let __when: fn(#(#holes),*) -> bool = #callee;
        let __needs: bool = __when(#(#args),*);
    };
    (
        quote! {
            #[allow(unused_variables)]
            fn __approval_when(__raw: &#p::Value) -> bool {
                // The arguments are validated, so they decode; should they not, the approver
                // is asked.
                match __fill(#p::typed::Input::Value(__raw)) {
                    ::std::result::Result::Ok(__a) => {
                        #decided
                        __needs
                    }
                    ::std::result::Result::Err(_) => true,
                }
            }
        },
        quote!(.requires_approval_when(#name, __approval_when)),
    )
}
