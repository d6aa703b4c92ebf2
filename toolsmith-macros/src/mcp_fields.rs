//! The rules of the MCP fields `#[tool(icon ...)]` and `#[arg(header = "...")]`, from
//! `toolsmith_lint::mcp_fields` (the toolbox applies the same ones to tools built at run time).

use crate::ast::{Param, ToolFn};
use crate::ctxt::Ctxt;
use crate::syntax::Class;
use toolsmith_lint::mcp_fields as rules;

/// Runs both rules over one tool.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn) {
    icons(cx, tool);
    headers(cx, tool);
}

/// Each icon: its `src` an http(s) URL or a Base64 `data:image/...` URI (within the size
/// limit), its MIME type `image/...` and agreeing with a `data:` URI's own, each size `WxH` or
/// `any`, its theme `light` or `dark`.
fn icons(cx: &Ctxt, tool: &ToolFn) {
    for (i, icon) in tool.attr.icons.iter().enumerate() {
        let n = i + 1;
        let Some(src) = &icon.src else { continue };
        if let Some(p) = rules::icon_src_problem(&src.value()) {
            cx.error_at(src.span(), format!("icon {n}: {p}"));
        }
        if let Some(mime) = &icon.mime_type {
            let problem = rules::icon_mime_problem(&mime.value())
                .or_else(|| rules::icon_mime_conflict(&src.value(), &mime.value()));
            if let Some(p) = problem {
                cx.error_at(mime.span(), format!("icon {n}: {p}"));
            }
        }
        for size in &icon.sizes {
            if let Some(p) = rules::icon_size_problem(&size.value()) {
                cx.error_at(size.span(), format!("icon {n}: {p}"));
            }
        }
        if let Some(theme) = &icon.theme {
            if let Some(p) = rules::icon_theme_problem(&theme.value()) {
                cx.error_at(theme.span(), format!("icon {n}: {p}"));
            }
        }
    }
}

/// Each `#[arg(header = "...")]`: a token, unique without regard to case within the tool, on a
/// parameter the macro sees is text, an integer (bounded within ±(2^53−1)) or a boolean, and not
/// on one whose name looks like a secret.
fn headers(cx: &Ctxt, tool: &ToolFn) {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for p in &tool.params {
        let Param::Model(p) = p else { continue };
        let Some(lit) = &p.arg.header else { continue };
        let header = lit.value();
        let span = lit.span();
        if let Some(problem) = rules::header_name_problem(&header) {
            cx.error_at(span, format!("`header` on `{}`: {problem}", p.name));
        } else if let Some((_, other)) = seen.iter().find(|(h, _)| rules::same_header(h, &header)) {
            cx.error_at(
                span,
                format!(
                    "header {header:?} of `{}` is also the header of `{other}`: header names are \
                     case-insensitive, so each parameter needs its own",
                    p.name
                ),
            );
        } else {
            seen.push((header.clone(), &p.name));
        }
        let ty = &p.inner;
        let ty_text = quote::quote!(#ty).to_string().replace(' ', "");
        let class = Class::of(ty);
        let kind = match class {
            Class::Text | Class::Boolean | Class::Integer => None,
            Class::Number => Some("a number with a fraction, which MCP keeps out of headers"),
            Class::Array => Some("a list"),
            // A type is never of these two (only an example value is).
            Class::Null | Class::Object | Class::Other => Some(
                "a type the macro cannot see is a string, integer or boolean (for a choice of \
                 words, take a `String` with a `pattern`)",
            ),
        };
        if let Some(kind) = kind {
            cx.error_at(
                span,
                format!(
                    "`header` on `{}` (`{ty_text}`), which is {kind}: a header carries one \
                     string, integer or boolean; use `String`, an integer type or `bool`, or drop \
                     the header",
                    p.name
                ),
            );
            continue;
        }
        if class == Class::Integer {
            integer_range(cx, p, span, &ty_text);
        }
        if toolsmith_lint::secrets::is_secret_field(&p.name) {
            cx.error_at(
                span,
                format!(
                    "`{}` looks like a secret, and a header value is visible to every \
                     intermediary: do not mirror it into `{}{header}`",
                    p.name,
                    rules::HEADER_PREFIX
                ),
            );
        }
    }
}

/// An integer header parameter's values must stay within ±(2^53−1): a type wider than 32 bits
/// needs `minimum` and `maximum` in that range.
fn integer_range(cx: &Ctxt, p: &crate::ast::ModelParam, span: proc_macro2::Span, ty_text: &str) {
    let safe = i128::from(rules::MAX_SAFE_INTEGER);
    let Some((_, type_min, type_max)) = crate::ast::int_range(&p.inner) else {
        // i128/u128: always too wide without bounds.
        if p.arg.minimum.is_none() || p.arg.maximum.is_none() {
            cx.error_at(span, unbounded(&p.name, ty_text));
        }
        return;
    };
    let declared = |n: &Option<crate::attr::NumLit>| n.as_ref().map(|n| n.value);
    let low = declared(&p.arg.minimum).map_or(type_min as f64, |m| m.max(type_min as f64));
    let high = declared(&p.arg.maximum).map_or(type_max as f64, |m| m.min(type_max as f64));
    if low < -(safe as f64) || high > safe as f64 {
        cx.error_at(span, unbounded(&p.name, ty_text));
    }
}

fn unbounded(name: &str, ty_text: &str) -> String {
    format!(
        "`header` on `{name}` (`{ty_text}`): a header integer must stay within ±{} (2^53−1, what \
         a JavaScript client holds exactly): add `minimum` and `maximum` in that range, or use a \
         32-bit type",
        rules::MAX_SAFE_INTEGER
    )
}
