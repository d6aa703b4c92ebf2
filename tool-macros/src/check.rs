//! Rules over the parsed model. Rules report errors; they never emit tokens.

use crate::ast::{Class, Param, ToolFn};
use crate::attr::ArgKey;
use crate::ctxt::Ctxt;
use proc_macro2::Span;

/// Rule ids `allow(...)` accepts besides the lint rules.
pub(crate) const DECLARATION_RULES: &[&str] = &["destructive_without_approval"];

/// Runs every rule, reporting errors into `cx`; returns the lint warnings to emit.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn, attr_span: Span) -> Vec<proc_macro2::TokenStream> {
    descriptions(cx, tool);
    name(cx, tool);
    constraints(cx, tool);
    effects(cx, tool, attr_span);
    allows(cx, tool);
    crate::lint::lint(cx, tool)
}

fn descriptions(cx: &Ctxt, tool: &ToolFn) {
    if tool.description.is_none() {
        cx.error_at(
            tool.ident.span(),
            format!(
                "tool `{}` has no description: add a `///` doc comment that says what it does and what it returns",
                tool.name
            ),
        );
    }
    for p in &tool.params {
        if let Param::Model(p) = p {
            if p.description.is_none() {
                cx.error_at(
                    p.span(),
                    format!(
                        "parameter `{}` has no description: add a `///` doc comment above it (or `#[arg(description = \"...\")]`) saying what to pass, e.g. with an example",
                        p.name
                    ),
                );
            }
        }
    }
}

fn name(cx: &Ctxt, tool: &ToolFn) {
    if let Some(problem) = tool_lint::platform::name_problem(&tool.name) {
        cx.error_at(tool.name_span, problem);
    }
    let mut seen: Vec<&str> = Vec::new();
    for p in &tool.params {
        if let Param::Model(p) = p {
            if seen.contains(&p.name.as_str()) {
                cx.error_at(
                    p.name_span,
                    format!("two parameters are named `{}`", p.name),
                );
            }
            seen.push(&p.name);
        }
    }
}

fn constraints(cx: &Ctxt, tool: &ToolFn) {
    for p in &tool.params {
        let Param::Model(p) = p else { continue };
        for c in p.arg.constraints() {
            let (span, key) = (c.span, c.key.as_str());
            let needs = match c.key {
                ArgKey::MinLength | ArgKey::MaxLength | ArgKey::Pattern => Class::Text,
                ArgKey::MinItems | ArgKey::MaxItems | ArgKey::UniqueItems => Class::Array,
                _ => Class::Number,
            };
            let fits = match (needs, p.class) {
                (_, Class::Other) => true, // checked against the generated schema when the toolbox is built
                (Class::Number, Class::Integer | Class::Number) => true,
                (a, b) => a == b,
            };
            if !fits {
                cx.error_at(
                    span,
                    format!(
                        "`{key}` applies to {}, but `{}` is {}",
                        match needs {
                            Class::Text => "text",
                            Class::Array => "lists",
                            _ => "numbers",
                        },
                        p.name,
                        p.class.noun()
                    ),
                );
            }
        }
        within_type_range(cx, p);
        let pairs = [
            (
                &p.arg.min_length,
                &p.arg.max_length,
                "min_length",
                "max_length",
            ),
            (&p.arg.min_items, &p.arg.max_items, "min_items", "max_items"),
        ];
        for (lo, hi, lo_key, hi_key) in pairs {
            if let (Some((lo, _)), Some((hi, span))) = (lo, hi) {
                if lo > hi {
                    cx.error_at(*span, format!("`{lo_key}` ({lo}) is greater than `{hi_key}` ({hi}): no value can satisfy both"));
                }
            }
        }
        if let (Some(lo), Some(hi)) = (&p.arg.minimum, &p.arg.maximum) {
            if lo.value > hi.value {
                cx.error_at(
                    hi.span,
                    format!(
                        "`minimum` ({}) is greater than `maximum` ({}): no value can satisfy both",
                        lo.json, hi.json
                    ),
                );
            }
        }
        if let Some(d) = &p.arg.default {
            if p.optional {
                cx.error_spanned_by(
                    d,
                    format!("parameter `{}` has a default, so it is optional already: declare it as the inner type instead of `Option<...>`", p.name),
                );
            }
        }
    }
}

/// A numeric bound outside the range of the parameter's primitive integer type is a mistake:
/// `minimum = -5` on a `u32` checks nothing, `minimum = 300` on a `u8` admits nothing.
fn within_type_range(cx: &Ctxt, p: &crate::ast::ModelParam) {
    let Some((ty, min, max)) = crate::ast::int_range(&p.inner) else {
        return;
    };
    for c in p.arg.constraints() {
        let (
            ArgKey::Minimum | ArgKey::Maximum | ArgKey::ExclusiveMinimum | ArgKey::ExclusiveMaximum,
            crate::attr::ConstraintValue::Num(n),
        ) = (c.key, &c.value)
        else {
            continue;
        };
        let outside = match n.whole() {
            Some(Ok(i)) => i128::from(i) < min || i128::from(i) > max,
            Some(Err(u)) => i128::from(u) > max,
            None => n.value < min as f64 || n.value > max as f64,
        };
        if outside {
            cx.error_at(
                c.span,
                format!(
                    "`{} = {}` is outside the range of `{ty}` ({min} to {max}), the type of `{}`: a bound outside it checks nothing or admits nothing; use a bound within the range, or another type",
                    c.key.as_str(),
                    n.json,
                    p.name
                ),
            );
        }
    }
}

fn effects(cx: &Ctxt, tool: &ToolFn, attr_span: Span) {
    let a = &tool.attr;
    if a.malformed {
        return;
    }
    if !(a.read_only.on() || a.writes.on() || a.destructive.on() || a.network.on()) {
        cx.error_at(
            attr_span,
            format!(
                "tool `{}` does not declare its side effects: add `read_only` if it only reads, or `writes` if it changes state (with `idempotent`, `destructive` or `requires_approval` as they apply), e.g. `#[tool(read_only)]`",
                tool.name
            ),
        );
    }
    if a.read_only.on() {
        for (flag, key) in [(a.writes, "writes"), (a.destructive, "destructive")] {
            if let Some(span) = flag.0 {
                cx.error_at(span, format!("`read_only` and `{key}` contradict each other: a read-only tool changes nothing; keep the one that is true"));
            }
        }
        if let Some(span) = a.idempotent.0 {
            cx.error_at(span, "`idempotent` is redundant on a `read_only` tool: reading is always safe to repeat; remove it");
        }
    }
    if let Some(first) = a.idempotency_key.first() {
        if a.read_only.on() {
            cx.error_spanned_by(
                first,
                "`idempotency_key` is for tools that write: a read-only tool is safe to repeat",
            );
        }
        for id in &a.idempotency_key {
            let known = tool.params.iter().any(
                |p| matches!(p, crate::ast::Param::Model(m) if *id == m.name || m.ident == *id),
            );
            if !known {
                cx.error_spanned_by(
                    id,
                    format!(
                        "`{id}` in `idempotency_key` is not a parameter of `{}`",
                        tool.name
                    ),
                );
            }
        }
    }
    if let Some(span) = a.destructive.0 {
        let allowed = a
            .allows
            .iter()
            .any(|al| al.rule == "destructive_without_approval");
        if !a.requires_approval.on() && !allowed {
            cx.error_at(span, "a `destructive` tool needs `requires_approval`, so a human confirms each call; or add `allow(destructive_without_approval, reason = \"...\")`");
        }
    }
}

fn allows(cx: &Ctxt, tool: &ToolFn) {
    for al in &tool.attr.allows {
        let known = DECLARATION_RULES.contains(&al.rule.as_str()) || crate::lint::is_rule(&al.rule);
        if !known {
            let mut ids: Vec<&str> = crate::lint::rule_ids();
            ids.extend_from_slice(DECLARATION_RULES);
            cx.error_at(
                al.rule_span,
                format!(
                    "unknown rule `{}` in `allow`; the rules are: {}",
                    al.rule,
                    ids.join(", ")
                ),
            );
        }
    }
}
