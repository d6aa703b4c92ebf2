//! Rules over the parsed model. Rules report errors; they never emit tokens.

use crate::ast::{ModelParam, Param, ToolFn};
use crate::attr::{ArgKey, NumLit};
use crate::ctxt::Ctxt;
use crate::example::{ExampleKind, ExampleValue};
use crate::syntax::Class;
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
    examples(cx, tool);
    crate::deprecated::check(cx, tool.attr.deprecated.as_ref(), &tool.name);
    crate::mcp_fields::check(cx, tool);
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
    if let Some(problem) = toolsmith_lint::platform::name_problem(&tool.name) {
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
        } else if let (Some(when), false) = (&a.approval_when, allowed) {
            cx.error_at(syn::spanned::Spanned::span(when), "a `destructive` tool needs approval of every call, and `when` lets some run unasked: write `requires_approval` without a condition, or add `allow(destructive_without_approval, reason = \"...\")`");
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

/// Each `example(...)` against the parameters: every argument names a parameter, every
/// required parameter is given, each value is of the parameter's type (and within a primitive
/// integer's range), and within the `#[arg]` constraints the macro can judge. What it cannot
/// see (a user type, a `pattern`) the toolbox checks when the tool is registered.
fn examples(cx: &Ctxt, tool: &ToolFn) {
    let params: Vec<&ModelParam> = tool
        .params
        .iter()
        .filter_map(|p| match p {
            Param::Model(m) => Some(m),
            Param::Context(_) => None,
        })
        .collect();
    let names = if params.is_empty() {
        format!("`{}` takes no parameters", tool.name)
    } else {
        let list: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        format!("the parameters of `{}` are: {}", tool.name, list.join(", "))
    };
    for (i, ex) in tool.attr.examples.iter().enumerate() {
        let n = i + 1;
        for arg in &ex.args {
            match params.iter().find(|p| p.name == arg.name) {
                Some(p) => example_value(cx, n, p, &p.inner, &arg.value, true),
                None => cx.error_at(
                    arg.name_span,
                    format!("example {n}: unknown argument `{}`; {names}", arg.name),
                ),
            }
        }
        for p in &params {
            let required = !p.optional && p.arg.default.is_none();
            if required && !ex.args.iter().any(|a| a.name == p.name) {
                cx.error_at(
                    ex.span,
                    format!(
                        "example {n}: missing argument `{}`, which is required (it is neither an `Option` nor has a default): add `{} = ...`",
                        p.name, p.name
                    ),
                );
            }
        }
    }
}

/// One example value against the type `ty` of parameter `p` (an element's type inside a list,
/// where `top` is false and the parameter's constraints do not apply).
fn example_value(cx: &Ctxt, n: usize, p: &ModelParam, ty: &syn::Type, v: &ExampleValue, top: bool) {
    let class = Class::of(ty);
    if top && p.optional && matches!(v.kind, ExampleKind::Null) {
        return; // an `Option` takes null, and no constraint applies to it
    }
    let fits = match (class, v.class()) {
        (Class::Other, _) => return, // checked against the generated schema at registration
        (Class::Number, Class::Integer) => true,
        (want, got) => want == got,
    };
    let what = if top {
        format!("`{}`", p.name)
    } else {
        format!("an element of `{}`", p.name)
    };
    let ty_text = quote::quote!(#ty).to_string().replace(' ', "");
    if !fits {
        cx.error_at(
            v.span,
            format!(
                "example {n}: wrong type for {what}: it is {} (`{ty_text}`), but the example gives {}",
                class.noun(),
                v.noun()
            ),
        );
        return;
    }
    match &v.kind {
        ExampleKind::Integer(x) => {
            if let Some((name, min, max)) = crate::ast::int_range(ty) {
                if *x < min || *x > max {
                    cx.error_at(
                        v.span,
                        format!("example {n}: {what} = {x} is outside the range of `{name}` ({min} to {max})"),
                    );
                    return;
                }
            }
        }
        ExampleKind::Text(s) if ty_text == "char" && s.chars().count() != 1 => {
            cx.error_at(
                v.span,
                format!("example {n}: {what} is a `char`: give exactly one character, e.g. \"A\""),
            );
            return;
        }
        ExampleKind::List(items) => {
            if let Some(elem) = crate::ast::element_type(ty) {
                for item in items {
                    example_value(cx, n, p, elem, item, false);
                }
            }
        }
        _ => {}
    }
    if top {
        example_constraints(cx, n, p, v);
    }
}

/// The `#[arg]` constraints of `p` that `v` (of the parameter's type) breaks.
fn example_constraints(cx: &Ctxt, n: usize, p: &ModelParam, v: &ExampleValue) {
    let a = &p.arg;
    let shown = v.shown();
    let name = &p.name;
    let broken = |rule: String, detail: &str| {
        cx.error_at(
            v.span,
            format!("example {n}: `{name}` = {shown} breaks `{rule}`{detail}"),
        )
    };
    let counted = |len: u64,
                   min: &Option<(u64, Span)>,
                   max: &Option<(u64, Span)>,
                   keys: [&str; 2],
                   unit: &str| {
        let detail = format!(" (it has {len} {unit})");
        if let Some((min, _)) = min {
            if len < *min {
                broken(format!("{} = {min}", keys[0]), &detail);
            }
        }
        if let Some((max, _)) = max {
            if len > *max {
                broken(format!("{} = {max}", keys[1]), &detail);
            }
        }
    };
    match &v.kind {
        ExampleKind::Text(s) => counted(
            s.chars().count() as u64,
            &a.min_length,
            &a.max_length,
            ["min_length", "max_length"],
            "characters",
        ),
        ExampleKind::List(items) => {
            counted(
                items.len() as u64,
                &a.min_items,
                &a.max_items,
                ["min_items", "max_items"],
                "items",
            );
            if a.unique_items.is_some() {
                let json: Vec<String> = items.iter().map(ExampleValue::shown).collect();
                if (1..json.len()).any(|i| json[..i].contains(&json[i])) {
                    broken("unique_items".to_string(), " (an item is repeated)");
                }
            }
        }
        ExampleKind::Integer(_) | ExampleKind::Number(_) => {
            let x = v.as_f64().unwrap_or_default();
            type Outside = fn(f64, f64) -> bool;
            let bounds: [(&Option<NumLit>, &str, Outside); 4] = [
                (&a.minimum, "minimum", |x, b| x < b),
                (&a.maximum, "maximum", |x, b| x > b),
                (&a.exclusive_minimum, "exclusive_minimum", |x, b| x <= b),
                (&a.exclusive_maximum, "exclusive_maximum", |x, b| x >= b),
            ];
            for (bound, key, outside) in bounds {
                if let Some(b) = bound {
                    if outside(x, b.value) {
                        broken(format!("{key} = {}", b.json), "");
                    }
                }
            }
            if let Some(m) = &a.multiple_of {
                let q = x / m.value;
                if (q - q.round()).abs() > 1e-9 {
                    broken(format!("multiple_of = {}", m.json), "");
                }
            }
        }
        // An object is only ever given to a user type, which the toolbox checks at registration.
        ExampleKind::Boolean(_) | ExampleKind::Null | ExampleKind::Object(_) => {}
    }
}
