//! The lint rules that compare the text with the signature, which only the macro knows:
//! `return_unstated` (the description says nothing of the value returned) and
//! `constraint_contradicted` (a parameter's description against its `Option`, `default` and
//! `#[arg]` bounds). The text is read by `toolsmith_lint::compile_checks`; this module gives it the
//! facts of the parsed model, and `lint.rs` reports the findings with the other rules' (allows,
//! spans and severities alike).

use crate::ast::{ModelParam, Output, Param, ToolFn};
use crate::syntax::Class;
use syn::{Expr, GenericArgument, Lit, PathArguments, Type};
use toolsmith_lint::compile_checks::{
    constraint_contradicted, return_unstated, Bound, Declared, Literal, Measure, Returned,
};
use toolsmith_lint::Finding;

/// The findings of both rules on one tool (before allows).
pub(crate) fn findings(tool: &ToolFn) -> Vec<Finding> {
    let mut out = Vec::new();
    if let (Some((description, _)), Some(ty)) = (&tool.description, returned_type(&tool.output)) {
        let mut names = Vec::new();
        type_names(ty, &mut names);
        let shown = shown(ty);
        let returned = Returned {
            shown: &shown,
            names: &names,
            many: is_list(ty),
        };
        out.extend(return_unstated(&tool.name, description, &returned));
    }
    for p in &tool.params {
        let Param::Model(m) = p else { continue };
        let Some((text, _)) = &m.description else {
            continue;
        };
        let ty = shown(&m.ty);
        out.extend(constraint_contradicted(&tool.name, &declared(m, &ty), text));
    }
    out
}

/// Whether the tool returns a value the model reads (not `()` nor `Result<(), E>`).
pub(crate) fn returns_value(tool: &ToolFn) -> bool {
    returned_type(&tool.output).is_some()
}

/// The type of the value the model reads: none for `()` and `Result<(), E>`.
fn returned_type(output: &Output) -> Option<&Type> {
    match output {
        Output::Unit | Output::Result { ok: None, .. } => None,
        Output::Plain { ty, .. } | Output::Result { ok: Some(ty), .. } => Some(ty),
    }
}

/// The last segment of each path in `ty`, outermost first (`Vec<Forecast>`: `Vec`, `Forecast`);
/// module paths and the error type of a `Result` are not what the model reads.
fn type_names(ty: &Type, out: &mut Vec<String>) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return;
            };
            out.push(crate::syntax::unraw(&last.ident));
            if let PathArguments::AngleBracketed(args) = &last.arguments {
                let mut types = args.args.iter().filter_map(|a| match a {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                });
                if last.ident == "Result" {
                    // The error goes to the envelope, not into the value.
                    types.next().into_iter().for_each(|t| type_names(t, out));
                } else {
                    types.for_each(|t| type_names(t, out));
                }
            }
        }
        Type::Tuple(t) => t.elems.iter().for_each(|t| type_names(t, out)),
        Type::Array(a) => type_names(&a.elem, out),
        Type::Slice(s) => type_names(&s.elem, out),
        Type::Reference(r) => type_names(&r.elem, out),
        Type::Paren(p) => type_names(&p.elem, out),
        Type::Group(g) => type_names(&g.elem, out),
        _ => {}
    }
}

/// Whether the value is a list, looking through the wrappers that do not change what it is.
fn is_list(ty: &Type) -> bool {
    if let Type::Path(p) = ty {
        if let Some(last) = p.path.segments.last() {
            let wrapper = ["Option", "Box", "Arc", "Rc", "Json", "Result"]
                .iter()
                .any(|w| last.ident == w);
            if wrapper {
                if let Some(inner) = crate::ast::element_type(ty) {
                    return is_list(inner);
                }
            }
        }
    }
    Class::of(ty) == Class::Array
}

/// A type as a person writes it: `Vec<Forecast>`, `Result<Option<Report>, E>`, `&str`, `(A, B)`.
pub(crate) fn shown(ty: &Type) -> String {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    let cs: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in cs.iter().enumerate() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = cs.get(i + 1).copied();
            if prev.is_some_and(|p| "<(&[:".contains(p))
                || next.is_some_and(|n| "<>,)];:".contains(n))
            {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// What the macro knows of a parameter, for `constraint_contradicted`.
fn declared<'a>(m: &'a ModelParam, ty: &'a str) -> Declared<'a> {
    let a = &m.arg;
    let has_length = a.min_length.is_some() || a.max_length.is_some();
    let has_items = a.min_items.is_some() || a.max_items.is_some();
    let has_value = [
        &a.minimum,
        &a.maximum,
        &a.exclusive_minimum,
        &a.exclusive_maximum,
    ]
    .iter()
    .any(|b| b.is_some());
    // A user type's bounds are judged by the one family declared on it; with none or several,
    // nothing is compared.
    let measure = match m.class {
        Class::Text => Some(Measure::Length),
        Class::Array => Some(Measure::Items),
        Class::Integer | Class::Number => Some(Measure::Value),
        _ => match (has_length, has_items, has_value) {
            (true, false, false) => Some(Measure::Length),
            (false, true, false) => Some(Measure::Items),
            (false, false, true) => Some(Measure::Value),
            _ => None,
        },
    };
    let count = |key: &'static str, v: &Option<(u64, proc_macro2::Span)>| {
        v.map(|(n, _)| Bound {
            key,
            value: n as f64,
            exclusive: false,
        })
    };
    let num = |pairs: [(&'static str, &Option<crate::attr::NumLit>, bool); 2]| {
        pairs.into_iter().find_map(|(key, v, exclusive)| {
            v.as_ref().map(|n| Bound {
                key,
                value: n.value,
                exclusive,
            })
        })
    };
    let (lower, upper) = match measure {
        Some(Measure::Length) => (
            count("min_length", &a.min_length),
            count("max_length", &a.max_length),
        ),
        Some(Measure::Items) => (
            count("min_items", &a.min_items),
            count("max_items", &a.max_items),
        ),
        Some(Measure::Value) => (
            num([
                ("minimum", &a.minimum, false),
                ("exclusive_minimum", &a.exclusive_minimum, true),
            ]),
            num([
                ("maximum", &a.maximum, false),
                ("exclusive_maximum", &a.exclusive_maximum, true),
            ]),
        ),
        None => (None, None),
    };
    Declared {
        name: &m.name,
        ty,
        optional: m.optional,
        has_default: a.default.is_some(),
        default: a.default.as_ref().and_then(literal),
        measure: measure.unwrap_or(Measure::Value),
        integer: m.class == Class::Integer
            || matches!(measure, Some(Measure::Length | Measure::Items)),
        lower,
        upper,
        // A type the macro cannot see into may have bounds of its own, which the schema keeps
        // where they are narrower (`NonZeroU8` under `minimum = -10`).
        narrowed: m.class == Class::Other,
    }
}

/// A `default = ...` the macro can read: a literal (`20`, `-1.5`, `"celsius"`, `true`), or a
/// string literal made a `String` (`String::from("x")`, `"x".to_string()`, `.into()`,
/// `.to_owned()`). Anything else is compared with nothing.
fn literal(e: &Expr) -> Option<Literal> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().ok().map(Literal::Number),
            Lit::Float(f) => f.base10_parse().ok().map(Literal::Number),
            Lit::Str(s) => Some(Literal::Text(s.value())),
            Lit::Bool(b) => Some(Literal::Bool(b.value)),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match literal(&u.expr)? {
            Literal::Number(n) => Some(Literal::Number(-n)),
            _ => None,
        },
        Expr::Paren(p) => literal(&p.expr),
        Expr::Group(g) => literal(&g.expr),
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else { return None };
            let from = f.path.segments.len() == 2
                && f.path.segments[0].ident == "String"
                && f.path.segments[1].ident == "from";
            match (from, literal(&c.args[0])?) {
                (true, t @ Literal::Text(_)) => Some(t),
                _ => None,
            }
        }
        Expr::MethodCall(m) if m.args.is_empty() => {
            let made = ["to_string", "to_owned", "into"]
                .iter()
                .any(|n| m.method == n);
            match (made, literal(&m.receiver)?) {
                (true, t @ Literal::Text(_)) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(src: &str) -> Type {
        syn::parse_str(src).unwrap()
    }

    #[test]
    fn types_are_shown_as_written() {
        for src in [
            "Vec<Forecast>",
            "Result<Option<ForecastReport>, E>",
            "std::collections::HashMap<String, Vec<u8>>",
            "&'static str",
            "(u8, String)",
            "[u8; 4]",
        ] {
            assert_eq!(shown(&ty(src)), src);
        }
    }

    #[test]
    fn type_names_are_the_last_segments_without_the_error() {
        let mut names = Vec::new();
        type_names(
            &ty("Result<Option<crate::weather::ForecastReport>, ToolError>"),
            &mut names,
        );
        assert_eq!(names, ["Result", "Option", "ForecastReport"]);
        let mut names = Vec::new();
        type_names(&ty("(Vec<Order>, serde_json::Value)"), &mut names);
        assert_eq!(names, ["Vec", "Order", "Value"]);
    }

    #[test]
    fn lists_are_seen_through_wrappers() {
        assert!(is_list(&ty("Vec<Forecast>")));
        assert!(is_list(&ty("Option<Box<[Forecast]>>")));
        assert!(!is_list(&ty("Option<Forecast>")));
        assert!(!is_list(&ty("HashMap<String, Vec<Forecast>>")));
    }

    #[test]
    fn defaults_are_read_when_literal() {
        let lit = |src: &str| literal(&syn::parse_str(src).unwrap());
        assert_eq!(lit("20"), Some(Literal::Number(20.0)));
        assert_eq!(lit("-1.5"), Some(Literal::Number(-1.5)));
        assert_eq!(lit("true"), Some(Literal::Bool(true)));
        assert_eq!(lit("\"celsius\""), Some(Literal::Text("celsius".into())));
        assert_eq!(
            lit("String::from(\"**/*\")"),
            Some(Literal::Text("**/*".into()))
        );
        assert_eq!(lit("\"x\".to_string()"), Some(Literal::Text("x".into())));
        assert_eq!(lit("Unit::Celsius"), None);
        assert_eq!(lit("DEFAULT_LIMIT"), None);
        assert_eq!(lit("String::new()"), None);
    }
}
