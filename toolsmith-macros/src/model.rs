//! The typed fast path's check of a `#[model]` type (`toolsmith_core::typed::Fast`), generated only
//! for the shapes where decoding (through the runtime's guard) proves the value satisfies the
//! type's own schema: see the table in `toolsmith_core::typed`.
//!
//! - An enum with unit variants only, no generics, no explicit discriminants, no attributes on
//!   its variants but doc comments: serde decodes exactly the variant names, which schemars
//!   lists as the string `enum` (or the `oneOf` of `const`s of a documented enum).
//! - A struct with named fields, no generics, no attributes on its fields but doc comments:
//!   each field is checked through the same probe dispatch as a tool parameter, so a field of a
//!   type without a check makes the whole check fail (the call falls back).
//!
//! On either, the container may carry doc comments, derives, lint levels and
//! `#[serde(rename_all = "...")]`, `#[serde(rename = "...")]` (both read identically by serde
//! and schemars) and, on a struct, `#[serde(deny_unknown_fields)]`. Anything else (`tag`,
//! `untagged`, `content`, `default`, `remote`, `transparent`, any `#[schemars(...)]`, field or
//! variant renames, `cfg_attr`, unknown attributes) means no impl: the type keeps falling back.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Data, DeriveInput, Fields, Meta};

/// The generated impl, or nothing when the shape is not one the check can prove.
pub(crate) fn fast_impl(input: &TokenStream) -> TokenStream {
    let Ok(item) = syn::parse2::<DeriveInput>(input.clone()) else {
        return TokenStream::new();
    };
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return TokenStream::new();
    }
    let p = quote!(::toolsmith::__private);
    let ident = &item.ident;
    match &item.data {
        Data::Enum(e) => {
            let unit_only = !e.variants.is_empty()
                && e.variants.iter().all(|v| {
                    matches!(v.fields, Fields::Unit)
                        && v.discriminant.is_none()
                        && v.attrs.iter().all(is_doc)
                });
            if !unit_only
                || !container_ok(&item.attrs, false)
                || !names_distinct(e.variants.iter().map(|v| &v.ident))
            {
                return TokenStream::new();
            }
            quote! {
                const _: () = {
                    #[automatically_derived]
                    impl #p::typed::Fast for #ident {
                        const GUARDED: bool = true;

                        fn fast_ok(
                            &self,
                            __constraints: &[#p::Constraint],
                            _: &#p::typed::PatternCell,
                        ) -> bool {
                            __constraints.is_empty()
                        }

                        // Decoded variants have distinct names (serde reads a name as the
                        // first variant that has it), so distinct variants are distinct strings.
                        fn json_ne(&self, __other: &Self) -> bool {
                            ::core::mem::discriminant(self) != ::core::mem::discriminant(__other)
                        }
                    }
                };
            }
        }
        Data::Struct(s) => {
            let Fields::Named(named) = &s.fields else {
                return TokenStream::new();
            };
            if !named.named.iter().all(|f| f.attrs.iter().all(is_doc))
                || !container_ok(&item.attrs, true)
                || !names_distinct(named.named.iter().filter_map(|f| f.ident.as_ref()))
            {
                return TokenStream::new();
            }
            let checks = named
                .named
                .iter()
                .filter_map(|f| f.ident.as_ref())
                .map(|name| {
                    quote! {
                        && (&&#p::typed::Probe(&self.#name)).typed_ok(&[], &#p::typed::NO_PATTERN)
                    }
                });
            quote! {
                const _: () = {
                    #[automatically_derived]
                    impl #p::typed::Fast for #ident {
                        const GUARDED: bool = true;

                        #[allow(clippy::needless_borrow)]
                        fn fast_ok(
                            &self,
                            __constraints: &[#p::Constraint],
                            _: &#p::typed::PatternCell,
                        ) -> bool {
                            use #p::typed::{Known as _, Unknown as _};
                            __constraints.is_empty() #(#checks)*
                        }
                    }
                };
            }
        }
        Data::Union(_) => TokenStream::new(),
    }
}

/// Whether the names stay distinct under any `rename_all` rule. Every rule of serde (and so of
/// schemars) only changes letter case and adds or removes `_` and `-` between words, so names
/// that differ once lowercased with those left out can never be renamed into one (two fields
/// read from the same key, or two variants with one name, would break the proof).
fn names_distinct<'a>(idents: impl Iterator<Item = &'a syn::Ident>) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    idents.into_iter().all(|id| {
        let key: String = crate::syntax::unraw(id)
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        seen.insert(key)
    })
}

fn is_doc(a: &Attribute) -> bool {
    a.path().is_ident("doc")
}

/// Whether the container's attributes are all ones serde and schemars read identically.
fn container_ok(attrs: &[Attribute], is_struct: bool) -> bool {
    attrs.iter().all(|a| {
        let path = a.path();
        if ["doc", "derive", "allow", "warn", "deny", "expect"]
            .iter()
            .any(|k| path.is_ident(k))
        {
            return true;
        }
        if !path.is_ident("serde") {
            return false;
        }
        let Meta::List(list) = &a.meta else {
            return false;
        };
        let mut ok = true;
        let parsed = list.parse_nested_meta(|m| {
            if m.path.is_ident("rename_all") || m.path.is_ident("rename") {
                // Only the one-name form: `rename_all(serialize = ..., deserialize = ...)`
                // names differ per direction.
                let _: syn::LitStr = m.value()?.parse()?;
            } else if !(is_struct && m.path.is_ident("deny_unknown_fields")) {
                ok = false;
            }
            Ok(())
        });
        ok && parsed.is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_impl(src: &str) -> bool {
        !fast_impl(&src.parse().unwrap()).is_empty()
    }

    #[test]
    fn only_provable_shapes_get_a_check() {
        assert!(has_impl(
            "#[serde(rename_all = \"snake_case\")] #[derive(Debug)] enum A { /// x\n B, C }"
        ));
        assert!(has_impl(
            "/// doc\n #[serde(deny_unknown_fields)] struct S { /// f\n a: u8, b: Option<T> }"
        ));
        for src in [
            "#[serde(tag = \"kind\")] enum A { B, C }",
            "#[serde(untagged)] enum A { B, C }",
            "#[serde(deny_unknown_fields)] enum A { B, C }",
            "enum A { B(u8), C }",
            "enum A { B = 1, C }",
            "enum A { #[serde(rename = \"x\")] B, C }",
            "enum A {}",
            "#[serde(rename_all = \"lowercase\")] enum A { AB, Ab }",
            "#[serde(rename_all = \"camelCase\")] struct S { a_b: u8, ab: u8 }",
            "#[schemars(rename = \"X\")] enum A { B }",
            "#[serde(rename_all(serialize = \"lowercase\"))] enum A { B }",
            "struct S { #[serde(rename = \"x\")] a: u8 }",
            "struct S { #[serde(default)] a: u8 }",
            "#[serde(default)] struct S { a: u8 }",
            "#[serde(transparent)] struct S { a: u8 }",
            "#[cfg_attr(test, serde(default))] struct S { a: u8 }",
            "struct S<T> { a: T }",
            "struct S(u8);",
            "union U { a: u8 }",
        ] {
            assert!(!has_impl(src), "{src}");
        }
    }
}
