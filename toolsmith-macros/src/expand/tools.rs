//! The expansion of `#[tools]`: each `#[tool]` method of an inherent impl block expanded as
//! `#[tool]` would, collected by a generated `tools()`.

use crate::{ast, attr, check, ctxt, deprecated, lint};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

/// Whether an attribute is `#[tool]`, however its path is written.
fn is_tool_attr(a: &syn::Attribute) -> bool {
    a.path().segments.last().is_some_and(|s| s.ident == "tool")
}

/// The expansion of `#[tools]`: the impl block as written, its methods' `#[tool]` marked as
/// expanded, and the inherent `tools()` that lists their tools.
pub(crate) fn tools_impl(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: syn::ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "`#[tools]` goes on an inherent impl block: `#[tools] impl MyServer { ... }`",
            )
            .to_compile_error();
            return quote!(#e #input);
        }
    };
    let cx = ctxt::Ctxt::new();
    // `#[tools(namespace = "...", namespace_description = "...")]`: every tool of the block
    // goes into that namespace.
    let tools_attr = attr::ToolsAttr::parse(&cx, args);
    let namespace = match (&tools_attr.namespace, &tools_attr.namespace_description) {
        (Some(ns), Some(d)) => Some((ns.clone(), d.clone())),
        _ => None,
    };
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[tools]` goes on an inherent impl block (`impl MyServer`), not on a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(&item.generics, "`#[tools]` cannot be used on a generic impl block: a tool's schema must be known when it is defined");
    }
    let self_ty = (*item.self_ty).clone();
    let mut exprs = Vec::new();
    let mut warnings = Vec::new();
    for impl_item in item.items.iter_mut() {
        let syn::ImplItem::Fn(f) = impl_item else {
            continue;
        };
        let Some(pos) = f.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        let tool_attr = f.attrs[pos].clone();
        let path = tool_attr.path().clone();
        let marker = syn::Ident::new(crate::METHOD_MARKER, Span::call_site());
        f.attrs[pos] = syn::parse_quote!(#[#path(#marker)]);
        let args = match &tool_attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(l) => l.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                cx.error_spanned_by(nv, "write `#[tool]` or `#[tool(...)]`");
                TokenStream::new()
            }
        };
        let attr = attr::ToolAttr::parse(&cx, args);
        let mut tool = ast::parse(&cx, attr, &f.attrs, &mut f.sig, true);
        deprecated::apply_notice(tool.attr.deprecated.as_ref(), &mut tool.description);
        warnings.extend(check::check(&cx, &tool, tool_attr.span()));
        if let Some((ns, _)) = &namespace {
            if tool.name == ns.value() {
                cx.error_at(
                    ns.span(),
                    format!("namespace `{}` has the name of a tool of this block; OpenAI calls both by name, so rename one", ns.value()),
                );
            }
        }
        exprs.push(super::tool_expr(&tool, Some(&self_ty)));
    }
    if let Some((ns, d)) = &namespace {
        warnings.extend(lint::lint_namespace(&cx, &ns.value(), &d.value(), d.span()));
        exprs = exprs
            .into_iter()
            .map(|e| quote!(#e.with_namespace(::toolsmith::__private::Namespace::new(#ns, #d))))
            .collect();
    }
    if exprs.is_empty() && item.trait_.is_none() {
        cx.error_at(Span::call_site(), "this impl block has no `#[tool]` methods; mark the methods to expose with `#[tool(...)]`");
    }
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let body = match cx.check() {
        Ok(()) => quote!({ ::std::vec![#(#exprs),*] }),
        // An inherent `tools()` for a trait impl's type could itself be an error (a foreign type).
        Err(e) if item.trait_.is_some() => {
            let e = e.to_compile_error();
            return quote!(#e #item #(#warnings)*);
        }
        Err(e) => {
            // The fallback, as for `#[tool]`: `Type::tools()` exists, so only the real error shows.
            let e = e.to_compile_error();
            quote!({ #e ::core::unreachable!() })
        }
    };
    quote! {
        #item
        #(#warnings)*

        impl #impl_generics #self_ty #where_clause {
            /// Every `#[tool]` method of this type, to register with `Toolbox::builder().tools(...)`;
            /// register the instance with `.context(...)` too.
            pub fn tools() -> ::std::vec::Vec<::toolsmith::__private::Tool> #body
        }
    }
}
