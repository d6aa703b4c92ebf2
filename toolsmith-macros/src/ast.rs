//! A parsed model of one `#[tool]` function.

use crate::attr::{doc_text, ArgAttr, ToolAttr};
use crate::ctxt::Ctxt;
use crate::syntax::{unraw, Class};
use proc_macro2::Span;
use syn::{FnArg, GenericArgument, Ident, Pat, PathArguments, Signature, Type};

/// A model-facing parameter.
pub(crate) struct ModelParam {
    pub ident: Ident,
    pub name: String,
    pub name_span: Span,
    /// The declared type (`Option<T>` stays as written).
    pub ty: Type,
    /// The type without `Option<...>`.
    pub inner: Type,
    pub optional: bool,
    pub description: Option<(String, Span)>,
    pub arg: ArgAttr,
    pub class: Class,
}

/// A parameter injected by the host.
pub(crate) struct ContextParam {
    pub ident: Ident,
    /// The referenced type (`T` in `&T`).
    pub target: Type,
}

#[allow(clippy::large_enum_variant)] // a handful per function, built once at compile time
pub(crate) enum Param {
    Model(ModelParam),
    Context(ContextParam),
}

/// The return type.
pub(crate) enum Output {
    /// `()` or no return type.
    Unit,
    /// A plain `T`; `reply` when it is `Reply<T>` (then `T` is the inner type).
    Plain { ty: Type, reply: bool },
    /// `Result<T, E>`: the ok type, or `None` when it is `()`; `reply` as above.
    Result { ok: Option<Type>, reply: bool },
}

/// `Reply<T>` → `(T, true)`; anything else → `(ty, false)`.
fn reply_inner(ty: &Type) -> (Type, bool) {
    if let Type::Path(p) = ty {
        if let Some(last) = p.path.segments.last() {
            if last.ident == "Reply" {
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    if let (1, Some(GenericArgument::Type(inner))) =
                        (args.args.len(), args.args.first())
                    {
                        return (inner.clone(), true);
                    }
                }
            }
        }
    }
    (ty.clone(), false)
}

pub(crate) struct ToolFn {
    pub attr: ToolAttr,
    pub ident: Ident,
    pub name: String,
    pub name_span: Span,
    pub is_async: bool,
    pub description: Option<(String, Span)>,
    pub has_self: bool,
    pub params: Vec<Param>,
    pub output: Output,
    /// The return type as written (`()` when there is none).
    pub ret: Type,
    /// Where the return type is written (the name's span when there is none), for findings about
    /// what comes back.
    pub output_span: Span,
}

fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

fn output_of(sig: &Signature) -> Output {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return Output::Unit;
    };
    if is_unit(ty) {
        return Output::Unit;
    }
    if let Type::Path(p) = &**ty {
        if let Some(last) = p.path.segments.last() {
            if last.ident == "Result" {
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(GenericArgument::Type(ok)) = args.args.first() {
                        let (ok, reply) = reply_inner(ok);
                        return Output::Result {
                            ok: (!is_unit(&ok)).then_some(ok),
                            reply,
                        };
                    }
                }
            }
        }
    }
    let (ty, reply) = reply_inner(ty);
    Output::Plain { ty, reply }
}

/// Strips the `#[arg]`, `#[context]` and doc attributes the compiler would reject on parameters.
fn strip_param_attrs(attrs: &mut Vec<syn::Attribute>) {
    attrs.retain(|a| {
        !(a.path().is_ident("doc") || a.path().is_ident("arg") || a.path().is_ident("context"))
    });
}

/// Parses a tool function's signature. The signature is modified in place: parameter attributes
/// that only the macro understands are removed, so the function can be emitted unchanged otherwise.
pub(crate) fn parse(
    cx: &Ctxt,
    attr: ToolAttr,
    fn_attrs: &[syn::Attribute],
    sig: &mut Signature,
    in_impl: bool,
) -> ToolFn {
    let ident = sig.ident.clone();
    let (name, name_span) = match &attr.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(&ident), ident.span()),
    };
    if !sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)))
    {
        cx.error_spanned_by(
            &sig.generics,
            "a tool function cannot be generic: its schema must be known when the tool is defined; use concrete types",
        );
    }
    if let Some(v) = sig.variadic.take() {
        // Reported here and removed from the emitted function, so rustc adds no error of its own.
        cx.error_spanned_by(v, "a tool function cannot be variadic: the model sends named parameters; take a list instead, e.g. `numbers: Vec<u32>`");
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            "a tool function cannot be `unsafe`: the toolbox calls it for the model, and no caller is there to uphold its safety contract; make the function safe and keep the `unsafe` block inside it",
        );
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        if contains_impl_trait(ty) {
            cx.error_spanned_by(
                ty,
                "a tool's return type must be a concrete type, because the output schema comes from it: name the type instead of `impl Trait`",
            );
        }
    }
    let description = doc_text(fn_attrs);
    let mut has_self = false;
    let mut params = Vec::new();
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                strip_param_attrs(&mut r.attrs);
                let by_ref =
                    r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none();
                if !in_impl {
                    cx.error_spanned_by(
                        &*r,
                        "a `#[tool]` method needs `#[toolsmith::tools]` on its impl block, which collects the block's tools",
                    );
                } else if !by_ref {
                    cx.error_spanned_by(
                        &*r,
                        "a tool method takes `&self`: the toolbox shares one instance across concurrent calls (keep mutable state behind a Mutex or an atomic)",
                    );
                }
                has_self = true;
            }
            FnArg::Typed(pt) => {
                let is_context = pt.attrs.iter().any(|a| a.path().is_ident("context"));
                let mut arg = ArgAttr::default();
                for a in pt.attrs.iter().filter(|a| a.path().is_ident("arg")) {
                    arg.parse_into(cx, a);
                }
                let doc = doc_text(&pt.attrs);
                strip_param_attrs(&mut pt.attrs);
                let ident = match &*pt.pat {
                    Pat::Ident(pi) if pi.subpat.is_none() => pi.ident.clone(),
                    other => {
                        cx.error_spanned_by(
                            other,
                            "a tool parameter needs a plain name, because the name is what the model sends: write `pair: (u8, u8)` and destructure inside the function body",
                        );
                        continue;
                    }
                };
                if is_context {
                    if let Some(a) = &arg.attr {
                        cx.error_spanned_by(a, "a `#[context]` parameter is supplied by the host and has no schema, so `#[arg]` does not apply");
                    }
                    match &*pt.ty {
                        Type::Reference(r) if r.mutability.is_none() => {
                            params.push(Param::Context(ContextParam {
                                ident,
                                target: (*r.elem).clone(),
                            }));
                        }
                        other => cx.error_spanned_by(
                            other,
                            "a `#[context]` parameter is borrowed from the toolbox: write it as a shared reference, e.g. `ws: &Workspace`",
                        ),
                    }
                    continue;
                }
                if contains_impl_trait(&pt.ty) {
                    cx.error_spanned_by(
                        &pt.ty,
                        "a tool parameter needs a concrete type, because its schema comes from the type: name the type instead of `impl Trait`",
                    );
                    continue;
                }
                if let Type::Reference(r) = &*pt.ty {
                    cx.error_spanned_by(
                        r,
                        "a model-facing parameter is decoded from JSON and must own its value: use `String` for `&str`, `Vec<T>` for `&[T]` (or mark a host-supplied value `#[context]`)",
                    );
                    continue;
                }
                let (name, name_span) = match &arg.name {
                    Some(lit) => (lit.value(), lit.span()),
                    None => (unraw(&ident), ident.span()),
                };
                let ty = (*pt.ty).clone();
                let (inner, optional) = match option_inner(&ty) {
                    Some(inner) => (inner.clone(), true),
                    None => (ty.clone(), false),
                };
                let description = match (&arg.description, doc) {
                    (Some(lit), Some((_, doc_span))) => {
                        cx.error_at(
                            doc_span,
                            format!("parameter `{name}` has both a doc comment and `#[arg(description)]`; keep one"),
                        );
                        Some((lit.value(), lit.span()))
                    }
                    (Some(lit), None) => Some((lit.value(), lit.span())),
                    (None, doc) => doc,
                };
                let class = Class::of(&inner);
                params.push(Param::Model(ModelParam {
                    ident,
                    name,
                    name_span,
                    ty,
                    inner,
                    optional,
                    description,
                    arg,
                    class,
                }));
            }
        }
    }
    let output_span = match &sig.output {
        syn::ReturnType::Type(_, ty) => syn::spanned::Spanned::span(ty),
        syn::ReturnType::Default => name_span,
    };
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
        syn::ReturnType::Default => syn::parse_quote!(()),
    };
    ToolFn {
        output: output_of(sig),
        ret,
        output_span,
        attr,
        ident,
        name,
        name_span,
        is_async: sig.asyncness.is_some(),
        description,
        has_self,
        params,
    }
}

/// Whether `ty` has an `impl Trait` anywhere in it (`impl Display`, `Vec<impl Display>`).
fn contains_impl_trait(ty: &Type) -> bool {
    fn walk(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "impl",
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    walk(quote::ToTokens::to_token_stream(ty))
}

/// The range of a primitive integer type, by its name: `(min, max)`.
pub(crate) fn int_range(ty: &Type) -> Option<(&'static str, i128, i128)> {
    let Type::Path(p) = ty else { return None };
    let name = p.path.get_ident()?.to_string();
    Some(match name.as_str() {
        "u8" => ("u8", 0, u8::MAX.into()),
        "u16" => ("u16", 0, u16::MAX.into()),
        "u32" => ("u32", 0, u32::MAX.into()),
        "u64" => ("u64", 0, u64::MAX.into()),
        "usize" => ("usize", 0, u64::MAX.into()),
        "i8" => ("i8", i8::MIN.into(), i8::MAX.into()),
        "i16" => ("i16", i16::MIN.into(), i16::MAX.into()),
        "i32" => ("i32", i32::MIN.into(), i32::MAX.into()),
        "i64" => ("i64", i64::MIN.into(), i64::MAX.into()),
        "isize" => ("isize", i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}

impl ModelParam {
    /// The span to report problems with the parameter as a whole.
    pub(crate) fn span(&self) -> Span {
        self.ident.span()
    }
}

/// The element type of a list type (`Vec<T>`, `[T; N]`, `[T]`, `HashSet<T>`, ...), when the
/// syntax shows it.
pub(crate) fn element_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Slice(s) => Some(&s.elem),
        Type::Paren(p) => element_type(&p.elem),
        Type::Group(g) => element_type(&g.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first()? {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}
