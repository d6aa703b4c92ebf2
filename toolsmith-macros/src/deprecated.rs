//! `#[tool(deprecated(since = "3", note = "...", replaced_by = "book_trip"))]`: parsing, the
//! rules on the replacement's name, and the notice appended to the description before the lint
//! runs (so the description budget counts it).

use crate::ctxt::Ctxt;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::LitStr;

/// The keys `deprecated(...)` accepts, in the order the "expected one of" list shows them.
const KEYS: [&str; 3] = ["since", "note", "replaced_by"];

/// A parsed `deprecated(...)`.
pub(crate) struct DeprecatedAttr {
    pub since: String,
    pub note: Option<String>,
    /// The replacement's name as written (checked by [`check`]).
    pub replaced_by: Option<LitStr>,
}

const FORM: &str =
    "`deprecated(since = \"3\", note = \"why\", replaced_by = \"new_tool\")`; `since` is required";

/// Parses the parenthesized part of `deprecated(...)`.
pub(crate) fn parse(meta: &ParseNestedMeta) -> syn::Result<DeprecatedAttr> {
    let span = syn::spanned::Spanned::span(&meta.path);
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`deprecated` says since when and what to use instead: {FORM}"
        )));
    }
    let (mut since, mut note, mut replaced_by): (Option<String>, Option<String>, Option<LitStr>) =
        (None, None, None);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        if !KEYS.contains(&key.as_str()) {
            let shown = if key.is_empty() { "this path".to_string() } else { format!("`{key}`") };
            return Err(inner.error(format!(
                "unknown `deprecated` key {shown}; expected one of: {}",
                KEYS.join(", ")
            )));
        }
        let given = match key.as_str() {
            "since" => since.is_some(),
            "note" => note.is_some(),
            _ => replaced_by.is_some(),
        };
        if given {
            return Err(inner.error(format!("`{key}` is given twice")));
        }
        let lit: LitStr = inner.value()?.parse()?;
        let text = lit.value();
        if text.trim().is_empty() {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{key}` cannot be empty: {FORM}"),
            ));
        }
        match key.as_str() {
            "since" => {
                if text.contains(char::is_whitespace) || text.contains(':') {
                    return Err(syn::Error::new(
                        lit.span(),
                        "`since` is the version the tool is deprecated since, e.g. `since = \"3\"` or `since = \"2.1.0\"`, without spaces or `:`",
                    ));
                }
                since = Some(text);
            }
            "note" => {
                if text.contains('`') {
                    return Err(syn::Error::new(
                        lit.span(),
                        "the note cannot hold a backtick: the notice quotes the replacement's name in backticks",
                    ));
                }
                note = Some(text.trim().to_string());
            }
            _ => replaced_by = Some(lit),
        }
        Ok(())
    })?;
    let Some(since) = since else {
        return Err(syn::Error::new(
            span,
            format!("`deprecated` needs `since`: {FORM}"),
        ));
    };
    Ok(DeprecatedAttr {
        since,
        note,
        replaced_by,
    })
}

/// The rules on the replacement: a valid tool name, and not the tool itself (`tool_name`).
pub(crate) fn check(cx: &Ctxt, deprecated: Option<&DeprecatedAttr>, tool_name: &str) {
    let Some(d) = deprecated else {
        return;
    };
    let Some(lit) = &d.replaced_by else {
        return;
    };
    let name = lit.value();
    if let Some(problem) = toolsmith_lint::platform::name_problem(&name) {
        cx.error_at(
            lit.span(),
            format!("`replaced_by` must name a tool: {problem}"),
        );
    } else if name == tool_name {
        cx.error_at(
            lit.span(),
            format!(
                "`replaced_by` names the tool itself (`{name}`): name the tool the model should call instead"
            ),
        );
    }
}

/// Appends the deprecation notice to the tool's description, so the lint and the generated spec
/// see the text the model reads.
pub(crate) fn apply_notice(
    deprecated: Option<&DeprecatedAttr>,
    description: &mut Option<(String, Span)>,
) {
    let (Some(d), Some((text, _))) = (deprecated, description) else {
        return;
    };
    let by = d.replaced_by.as_ref().map(LitStr::value);
    let notice = toolsmith_lint::deprecation::notice(&d.since, d.note.as_deref(), by.as_deref());
    *text = toolsmith_lint::deprecation::with_notice(text, &notice);
}

/// For a description over its budget, what the deprecation notice adds to it (the notice is part
/// of what the model reads, so the budget counts it).
pub(crate) fn budget_note(deprecated: Option<&DeprecatedAttr>, rule: &str) -> String {
    let Some(d) = deprecated.filter(|_| rule == "description_budget") else {
        return String::new();
    };
    let by = d.replaced_by.as_ref().map(LitStr::value);
    let notice = toolsmith_lint::deprecation::notice(&d.since, d.note.as_deref(), by.as_deref());
    format!(
        "; the deprecation notice takes {} of them (`{notice}`): shorten the description or the note",
        notice.chars().count() + 1
    )
}
