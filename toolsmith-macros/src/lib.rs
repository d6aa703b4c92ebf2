//! Procedural macros of toolsmith. Use them through the `toolsmith` facade:
//! `#[toolsmith::tool]`, `#[toolsmith::tools]` and `#[toolsmith::model]`.
//!
//! The pipeline follows parse → check → expand: `attr` holds the attribute grammar, `ast`
//! the parsed model of one tool function, `check` the rules (which only report errors) and
//! `expand` the code generation (which never re-parses).

#![deny(unreachable_pub, missing_docs)]
mod ast;
mod attr;
mod check;
mod ctxt;
mod deprecated;
mod example;
mod expand;
mod lint;
mod mcp_fields;
mod model;
mod signature;
mod syntax;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::spanned::Spanned;

/// `#[tool]`: turns a function into a tool. This macro lives in the `toolsmith-macros` crate; depend
/// on `toolsmith` and use it as `toolsmith::tool`, whose page is the reference.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_impl(args.into(), input.into()).into()
}

/// The argument `#[tools]` leaves on the methods it has expanded, so the `#[tool]` import stays used.
const METHOD_MARKER: &str = "__toolsmith_expanded_by_tools";

fn tool_impl(args: TokenStream2, input: TokenStream2) -> TokenStream2 {
    if args.to_string() == METHOD_MARKER {
        return input;
    }
    let mut item: syn::ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[tool]` goes on a function (or on a method inside a `#[toolsmith::tools]` impl block)",
            );
            let e = err.to_compile_error();
            return quote!(#e #input);
        }
    };
    let cx = ctxt::Ctxt::new();
    let attr = attr::ToolAttr::parse(&cx, args);
    let mut tool = ast::parse(&cx, attr, &item.attrs, &mut item.sig, false);
    deprecated::apply_notice(tool.attr.deprecated.as_ref(), &mut tool.description);
    let warnings = check::check(&cx, &tool, Span::call_site());
    let vis = &item.vis;
    let ident = &item.sig.ident;
    if let Err(e) = cx.check() {
        // As thiserror's fallback does: the companion still exists (with a body that never
        // runs, since the crate does not compile), so the user sees only the real error and no
        // follow-on "cannot find `tool`" where the tool is registered.
        let e = e.to_compile_error();
        // A method (it has a receiver) sits in an impl block, where a companion cannot go.
        let is_method = matches!(item.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
        let companion = if is_method {
            TokenStream2::new()
        } else {
            companion(vis, ident, &quote!({ ::core::unreachable!() }))
        };
        return quote!(#e #item #(#warnings)* #companion);
    }
    let expr = expand::tool_expr(&tool, None);
    let companion = companion(vis, ident, &expr);
    quote! {
        #item
        #(#warnings)*
        #companion
    }
}

/// The same-named companion of a tool function: `name::tool()` with `body` as its block.
fn companion(vis: &syn::Visibility, ident: &syn::Ident, body: &TokenStream2) -> TokenStream2 {
    let doc = format!(
        "The tool definition of [`{ident}()`]: `{ident}::tool()` gives the `toolsmith::Tool` to register in a `Toolbox`."
    );
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #[allow(dead_code)]
        impl #ident {
            /// The tool (its spec and its executor), to register with `Toolbox::builder().tool(...)`.
            #vis fn tool() -> ::toolsmith::__private::Tool #body
        }
    }
}

/// `#[tools]`: collects the `#[tool]` methods of an inherent impl block. This macro lives in the
/// `toolsmith-macros` crate; depend on `toolsmith` and use it as `toolsmith::tools`, whose page is the
/// reference.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tools_impl(args.into(), input.into()).into()
}

/// `#[model]`: derives `Serialize`, `Deserialize` and `JsonSchema` through the facade. This macro
/// lives in the `toolsmith-macros` crate; depend on `toolsmith` and use it as `toolsmith::model`, whose
/// page is the reference.
#[proc_macro_attribute]
pub fn model(args: TokenStream, input: TokenStream) -> TokenStream {
    let args: TokenStream2 = args.into();
    let input: TokenStream2 = input.into();
    if !args.is_empty() {
        let e = syn::Error::new(args.span(), "`#[model]` takes no arguments").to_compile_error();
        return quote!(#e #input).into();
    }
    // The typed fast path's check of the type, when its shape lets one be proved.
    let fast = model::fast_impl(&input);
    quote! {
        #[derive(
            ::toolsmith::__private::serde::Serialize,
            ::toolsmith::__private::serde::Deserialize,
            ::toolsmith::__private::schemars::JsonSchema
        )]
        #[serde(crate = "::toolsmith::__private::serde")]
        #[schemars(crate = "::toolsmith::__private::schemars")]
        #input
        #fast
    }
    .into()
}
