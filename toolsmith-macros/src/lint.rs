//! The lint rules at compile time: `toolsmith_lint` runs on the text the macro sees (and, through
//! `signature.rs`, on the text against the signature), and each finding becomes a compile error
//! (or, for warning-severity rules, a compiler warning) spanned at the doc comment, attribute,
//! parameter or return type it is about.

use crate::ast::{Param, ToolFn};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use toolsmith_lint::{LintConfig, Severity};

pub(crate) fn is_rule(id: &str) -> bool {
    toolsmith_lint::rule(id).is_some()
}

pub(crate) fn rule_ids() -> Vec<&'static str> {
    toolsmith_lint::rule_ids()
}

/// The crate's lint configuration from `[package.metadata.toolsmith]`, read once per crate.
fn config() -> Result<LintConfig, String> {
    static CACHE: Mutex<Option<HashMap<String, Result<LintConfig, String>>>> = Mutex::new(None);
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    if dir.is_empty() {
        return Ok(LintConfig::default());
    }
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let cache = guard.get_or_insert_with(HashMap::new);
    cache
        .entry(dir.clone())
        .or_insert_with(|| LintConfig::from_manifest_dir(&dir).map_err(|e| e.to_string()))
        .clone()
}

/// The crate's lint settings, or `None` with the error reported (at the call site: the
/// settings are the manifest's, not any token's).
fn settings(cx: &Ctxt) -> Option<LintConfig> {
    config()
        .map_err(|e| cx.error_at(Span::call_site(), format!("toolsmith lint settings: {e}")))
        .ok()
}

/// A finding at `span`: an error into `cx`, or a warning (a deprecated item's use, the only
/// warning a proc macro can raise on stable) pushed to `warnings`.
fn report(
    cx: &Ctxt,
    severity: Severity,
    span: Span,
    message: String,
    warnings: &mut Vec<TokenStream>,
) {
    match severity {
        Severity::Error => cx.error_at(span, message),
        Severity::Warning => {
            let note = format!("toolsmith lint warning: {message}");
            warnings.push(quote_spanned! {span=>
                const _: () = {
                    #[deprecated(note = #note)]
                    #[allow(non_camel_case_types)]
                    struct toolsmith_lint;
                    let _ = toolsmith_lint;
                };
            });
        }
    }
}

/// The definition as far as the macro can see it: names and descriptions, no schemas of types.
fn definition(tool: &ToolFn) -> Value {
    let mut props = Map::new();
    for p in &tool.params {
        if let Param::Model(m) = p {
            let mut prop = Map::new();
            if let Some((d, _)) = &m.description {
                prop.insert("description".into(), Value::String(d.clone()));
            }
            props.insert(m.name.clone(), Value::Object(prop));
        }
    }
    let mut def = json!({
        "name": tool.name,
        "inputSchema": {"type": "object", "properties": props},
    });
    if let Some((d, _)) = &tool.description {
        def["description"] = Value::String(d.clone());
    }
    if let Some(t) = &tool.attr.title {
        def["title"] = Value::String(t.value());
    }
    def
}

fn span_for(tool: &ToolFn, pointer: &str) -> Span {
    let tokens = toolsmith_lint::pointer_tokens(pointer);
    let t: Vec<&str> = tokens.iter().map(String::as_str).collect();
    match t.as_slice() {
        ["name", ..] => tool.name_span,
        ["description", ..] => tool.description.as_ref().map_or(tool.name_span, |d| d.1),
        ["title", ..] => tool
            .attr
            .title
            .as_ref()
            .map_or(tool.name_span, |l| l.span()),
        ["outputSchema", ..] => tool.output_span,
        ["inputSchema", "properties", param, rest @ ..] => tool
            .params
            .iter()
            .find_map(|p| match p {
                Param::Model(m) if m.name == *param => {
                    Some(if rest.first() == Some(&"description") {
                        m.description.as_ref().map_or(m.name_span, |d| d.1)
                    } else {
                        m.name_span
                    })
                }
                _ => None,
            })
            .unwrap_or(tool.name_span),
        _ => tool.name_span,
    }
}

/// Runs the compile-time rules. Errors go into `cx`; warnings come back as tokens to emit.
pub(crate) fn lint(cx: &Ctxt, tool: &ToolFn) -> Vec<TokenStream> {
    let Some(cfg) = settings(cx) else {
        return Vec::new();
    };
    let allows: Vec<(String, String)> = tool
        .attr
        .allows
        .iter()
        .map(|a| (tool.name.clone(), a.rule.clone()))
        .collect();
    let mut findings = toolsmith_lint::lint_definition(&definition(tool), &cfg);
    // The rules that compare the text with the signature, which only the macro sees.
    if crate::signature::returns_value(tool) {
        // `return_unstated` judges what comes back with the returned type in hand: a description
        // that names the type passes, one that says nothing of it gets one warning, not two.
        findings.retain(|f| f.rule != "says_what_it_returns");
    }
    let own = crate::signature::findings(tool);
    findings.extend(own);
    let findings = toolsmith_lint::apply_allows(findings, &allows);
    let mut warnings = Vec::new();
    for f in findings {
        let Some(rule) = toolsmith_lint::rule(f.rule) else {
            continue;
        };
        // Missing descriptions and malformed names have their own, more precise checks.
        if !rule.runs_at_compile_time() || matches!(f.rule, "described" | "well_formed") {
            continue;
        }
        let span = span_for(tool, &f.pointer);
        let message = format!(
            "{}{} (lint rule `{}`; if this is deliberate, add `allow({}, reason = \"...\")` to #[tool])",
            f.message,
            crate::deprecated::budget_note(tool.attr.deprecated.as_ref(), f.rule),
            f.rule,
            f.rule
        );
        report(cx, f.severity, span, message, &mut warnings);
    }
    warnings
}

/// The rules that judge a tool rather than text, which a namespace's description is not held
/// to (a namespace returns nothing and its name is no verb).
const NOT_FOR_NAMESPACES: [&str; 7] = [
    "well_formed",
    "described",
    "says_what_it_returns",
    "name_style",
    "name_budget",
    "definition_budget",
    "tool_shadowing",
];

/// Runs the text rules (budget, steering, poisoning) on a namespace's description, spanned at
/// `span`. Errors go into `cx`; warnings come back as tokens to emit.
pub(crate) fn lint_namespace(
    cx: &Ctxt,
    name: &str,
    description: &str,
    span: Span,
) -> Vec<TokenStream> {
    let Some(cfg) = settings(cx) else {
        return Vec::new();
    };
    let def = json!({"name": name, "description": description});
    let mut warnings = Vec::new();
    for f in toolsmith_lint::lint_definition(&def, &cfg) {
        let Some(rule) = toolsmith_lint::rule(f.rule) else {
            continue;
        };
        if !rule.runs_at_compile_time() || NOT_FOR_NAMESPACES.contains(&f.rule) {
            continue;
        }
        let message = format!(
            "namespace description: {} (lint rule `{}`)",
            f.message, f.rule
        );
        report(cx, f.severity, span, message, &mut warnings);
    }
    warnings
}
