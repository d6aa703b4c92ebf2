//! The attribute grammar: `#[tool(...)]`, `#[arg(...)]`, `#[context]` and doc comments.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr};

/// The keys `#[tool(...)]` accepts.
pub const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "read_only",
    "writes",
    "destructive",
    "network",
    "open_world",
    "idempotent",
    "requires_approval",
    "untrusted_output",
    "timeout_ms",
    "output_budget",
    "idempotency_key",
    "version",
    "allow",
];

/// The keys `#[arg(...)]` accepts.
pub const ARG_KEYS: &[&str] = &[
    "description",
    "name",
    "min_length",
    "max_length",
    "pattern",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_items",
    "max_items",
    "unique_items",
    "default",
];

/// A declared side-effect flag with the span of its keyword.
#[derive(Default, Clone, Copy)]
pub struct Flag(pub Option<Span>);

impl Flag {
    pub fn on(&self) -> bool {
        self.0.is_some()
    }
}

/// One `allow(rule, reason = "...")`.
pub struct AllowAttr {
    pub rule: String,
    pub rule_span: Span,
    pub reason: String,
}

/// Everything in `#[tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub read_only: Flag,
    pub writes: Flag,
    pub destructive: Flag,
    pub network: Flag,
    pub open_world: Flag,
    pub idempotent: Flag,
    pub requires_approval: Flag,
    pub untrusted_output: Flag,
    pub timeout_ms: Option<u64>,
    pub output_budget: Option<usize>,
    /// `idempotency_key(a, b)`: the parameters that identify a request.
    pub idempotency_key: Vec<syn::Ident>,
    pub version: Option<LitStr>,
    pub allows: Vec<AllowAttr>,
    /// Whether the attribute failed to parse (later rules then stay quiet to avoid cascades).
    pub malformed: bool,
}

fn unknown_key(meta: &ParseNestedMeta, what: &str, keys: &[&str]) -> syn::Error {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        });
    meta.error(format!(
        "unknown `{what}` key `{key}`; expected one of: {}",
        keys.join(", ")
    ))
}

impl ToolAttr {
    /// Parses the arguments of `#[tool(...)]`, reporting every problem into `cx`.
    pub fn parse(cx: &Ctxt, args: TokenStream) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let parser = syn::meta::parser(|meta| {
            let Some(ident) = meta.path.get_ident().map(ToString::to_string) else {
                return Err(unknown_key(&meta, "#[tool]", TOOL_KEYS));
            };
            let span = meta.path.span();
            let flag = |f: &mut Flag, meta: &ParseNestedMeta| -> syn::Result<()> {
                if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
                    return Err(meta.error(format!(
                        "`{ident}` is a flag: write `#[tool({ident})]` without a value"
                    )));
                }
                if f.on() {
                    return Err(meta.error(format!("`{ident}` is declared twice")));
                }
                *f = Flag(Some(span));
                Ok(())
            };
            match ident.as_str() {
                "name" => attr.name = Some(meta.value()?.parse()?),
                "title" => attr.title = Some(meta.value()?.parse()?),
                "version" => attr.version = Some(meta.value()?.parse()?),
                "timeout_ms" => {
                    let lit: syn::LitInt = meta.value()?.parse()?;
                    let ms: u64 = lit.base10_parse()?;
                    if ms == 0 {
                        return Err(syn::Error::new(
                            lit.span(),
                            "timeout_ms must be at least 1 (milliseconds)",
                        ));
                    }
                    attr.timeout_ms = Some(ms);
                }
                "output_budget" => {
                    let lit: syn::LitInt = meta.value()?.parse()?;
                    let n: usize = lit.base10_parse()?;
                    if n < 100 {
                        return Err(syn::Error::new(
                            lit.span(),
                            "output_budget is in characters of serialized data and must be at least 100",
                        ));
                    }
                    attr.output_budget = Some(n);
                }
                "idempotency_key" => {
                    meta.parse_nested_meta(|inner| match inner.path.get_ident() {
                        Some(id) => {
                            attr.idempotency_key.push(id.clone());
                            Ok(())
                        }
                        None => Err(inner.error(
                            "expected parameter names, e.g. `idempotency_key(path, content)`",
                        )),
                    })?;
                    if attr.idempotency_key.is_empty() {
                        return Err(meta.error("name the parameters that identify a request, e.g. `idempotency_key(path, content)`"));
                    }
                }
                "read_only" => flag(&mut attr.read_only, &meta)?,
                "writes" => flag(&mut attr.writes, &meta)?,
                "destructive" => flag(&mut attr.destructive, &meta)?,
                "network" => flag(&mut attr.network, &meta)?,
                "open_world" => flag(&mut attr.open_world, &meta)?,
                "idempotent" => flag(&mut attr.idempotent, &meta)?,
                "requires_approval" => flag(&mut attr.requires_approval, &meta)?,
                "untrusted_output" => flag(&mut attr.untrusted_output, &meta)?,
                "allow" => {
                    let mut rule: Option<(String, Span)> = None;
                    let mut reason: Option<String> = None;
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("reason") {
                            let lit: LitStr = inner.value()?.parse()?;
                            if lit.value().trim().is_empty() {
                                return Err(syn::Error::new(
                                    lit.span(),
                                    "the reason must say why the exception is deliberate",
                                ));
                            }
                            reason = Some(lit.value());
                        } else if let Some(id) = inner.path.get_ident() {
                            if rule.is_some() {
                                return Err(inner.error(
                                    "one `allow(...)` names one rule; write `allow(a, reason = \"...\"), allow(b, reason = \"...\")`",
                                ));
                            }
                            rule = Some((id.to_string(), id.span()));
                        } else {
                            return Err(inner.error("expected a rule id, e.g. `allow(description_budget, reason = \"...\")`"));
                        }
                        Ok(())
                    })?;
                    let Some((rule, rule_span)) = rule else {
                        return Err(meta.error("`allow` needs a rule id: `allow(description_budget, reason = \"...\")`"));
                    };
                    let Some(reason) = reason else {
                        return Err(syn::Error::new(
                            rule_span,
                            format!("`allow({rule})` needs a reason: `allow({rule}, reason = \"why this exception is deliberate\")`"),
                        ));
                    };
                    attr.allows.push(AllowAttr {
                        rule,
                        rule_span,
                        reason,
                    });
                }
                _ => return Err(unknown_key(&meta, "#[tool]", TOOL_KEYS)),
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(e);
            attr.malformed = true;
        }
        attr
    }
}

/// A number written in `#[arg(...)]`, kept as JSON text.
#[derive(Clone)]
pub struct NumLit {
    pub json: String,
    pub value: f64,
    pub span: Span,
}

/// Everything in the `#[arg(...)]` attributes of one parameter.
#[derive(Default)]
pub struct ArgAttr {
    pub description: Option<LitStr>,
    pub name: Option<LitStr>,
    pub min_length: Option<(u64, Span)>,
    pub max_length: Option<(u64, Span)>,
    pub pattern: Option<LitStr>,
    pub minimum: Option<NumLit>,
    pub maximum: Option<NumLit>,
    pub exclusive_minimum: Option<NumLit>,
    pub exclusive_maximum: Option<NumLit>,
    pub multiple_of: Option<NumLit>,
    pub min_items: Option<(u64, Span)>,
    pub max_items: Option<(u64, Span)>,
    pub unique_items: Option<Span>,
    pub default: Option<Expr>,
    /// The first `#[arg]` attribute, for errors about the attribute as a whole.
    pub attr: Option<Attribute>,
}

fn parse_num(meta: &ParseNestedMeta) -> syn::Result<NumLit> {
    let expr: Expr = meta.value()?.parse()?;
    let span = expr.span();
    let (neg, lit) = match &expr {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => (true, &*u.expr),
        other => (false, other),
    };
    let text = match lit {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_digits().to_string(),
            Lit::Float(f) => f.base10_digits().to_string(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    let value: f64 = text.parse().map_err(|_| {
        syn::Error::new(
            span,
            "expected a number literal, e.g. `minimum = 1` or `maximum = 2.5`",
        )
    })?;
    let json = if neg { format!("-{text}") } else { text };
    let value = if neg { -value } else { value };
    // Normalize through serde_json so the text is valid JSON (e.g. `1.` or `1e3`).
    let json = serde_json::from_str::<serde_json::Value>(&json)
        .map(|v| v.to_string())
        .unwrap_or(json);
    Ok(NumLit { json, value, span })
}

fn parse_count(meta: &ParseNestedMeta) -> syn::Result<(u64, Span)> {
    let lit: syn::LitInt = meta.value()?.parse()?;
    Ok((lit.base10_parse()?, lit.span()))
}

impl ArgAttr {
    /// Parses one `#[arg(...)]` attribute into `self`.
    pub fn parse_into(&mut self, cx: &Ctxt, attr: &Attribute) {
        self.attr.get_or_insert_with(|| attr.clone());
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident().map(ToString::to_string) else {
                return Err(unknown_key(&meta, "#[arg]", ARG_KEYS));
            };
            let dup = |set: bool| -> syn::Result<()> {
                if set {
                    Err(meta.error(format!("`{ident}` is given twice")))
                } else {
                    Ok(())
                }
            };
            match ident.as_str() {
                "description" => {
                    dup(self.description.is_some())?;
                    self.description = Some(meta.value()?.parse()?);
                }
                "name" => {
                    dup(self.name.is_some())?;
                    self.name = Some(meta.value()?.parse()?);
                }
                "min_length" => {
                    dup(self.min_length.is_some())?;
                    self.min_length = Some(parse_count(&meta)?);
                }
                "max_length" => {
                    dup(self.max_length.is_some())?;
                    self.max_length = Some(parse_count(&meta)?);
                }
                "min_items" => {
                    dup(self.min_items.is_some())?;
                    self.min_items = Some(parse_count(&meta)?);
                }
                "max_items" => {
                    dup(self.max_items.is_some())?;
                    self.max_items = Some(parse_count(&meta)?);
                }
                "pattern" => {
                    dup(self.pattern.is_some())?;
                    let lit: LitStr = meta.value()?.parse()?;
                    if let Err(e) = regex_syntax::Parser::new().parse(&lit.value()) {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!(
                                "`pattern` is not a valid regular expression: {}",
                                first_line(&e.to_string())
                            ),
                        ));
                    }
                    self.pattern = Some(lit);
                }
                "minimum" => {
                    dup(self.minimum.is_some())?;
                    self.minimum = Some(parse_num(&meta)?);
                }
                "maximum" => {
                    dup(self.maximum.is_some())?;
                    self.maximum = Some(parse_num(&meta)?);
                }
                "exclusive_minimum" => {
                    dup(self.exclusive_minimum.is_some())?;
                    self.exclusive_minimum = Some(parse_num(&meta)?);
                }
                "exclusive_maximum" => {
                    dup(self.exclusive_maximum.is_some())?;
                    self.exclusive_maximum = Some(parse_num(&meta)?);
                }
                "multiple_of" => {
                    dup(self.multiple_of.is_some())?;
                    let n = parse_num(&meta)?;
                    if n.value <= 0.0 {
                        return Err(syn::Error::new(
                            n.span,
                            "`multiple_of` must be greater than 0",
                        ));
                    }
                    self.multiple_of = Some(n);
                }
                "unique_items" => {
                    dup(self.unique_items.is_some())?;
                    if meta.input.peek(syn::Token![=]) {
                        let lit: syn::LitBool = meta.value()?.parse()?;
                        if lit.value {
                            self.unique_items = Some(meta.path.span());
                        }
                    } else {
                        self.unique_items = Some(meta.path.span());
                    }
                }
                "default" => {
                    dup(self.default.is_some())?;
                    self.default = Some(meta.value()?.parse()?);
                }
                _ => return Err(unknown_key(&meta, "#[arg]", ARG_KEYS)),
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }

    /// The constraints as `(json_keyword, json_value_text, span, rust_key)`.
    pub fn constraints(&self) -> Vec<(&'static str, String, Span, &'static str)> {
        let mut out = Vec::new();
        let count = |out: &mut Vec<_>, k, rk, v: &Option<(u64, Span)>| {
            if let Some((n, s)) = v {
                out.push((k, n.to_string(), *s, rk));
            }
        };
        let num = |out: &mut Vec<_>, k, rk, v: &Option<NumLit>| {
            if let Some(n) = v {
                out.push((k, n.json.clone(), n.span, rk));
            }
        };
        count(&mut out, "minLength", "min_length", &self.min_length);
        count(&mut out, "maxLength", "max_length", &self.max_length);
        if let Some(p) = &self.pattern {
            out.push((
                "pattern",
                serde_json::Value::String(p.value()).to_string(),
                p.span(),
                "pattern",
            ));
        }
        num(&mut out, "minimum", "minimum", &self.minimum);
        num(&mut out, "maximum", "maximum", &self.maximum);
        num(
            &mut out,
            "exclusiveMinimum",
            "exclusive_minimum",
            &self.exclusive_minimum,
        );
        num(
            &mut out,
            "exclusiveMaximum",
            "exclusive_maximum",
            &self.exclusive_maximum,
        );
        num(&mut out, "multipleOf", "multiple_of", &self.multiple_of);
        count(&mut out, "minItems", "min_items", &self.min_items);
        count(&mut out, "maxItems", "max_items", &self.max_items);
        if let Some(s) = self.unique_items {
            out.push(("uniqueItems", "true".into(), s, "unique_items"));
        }
        out
    }
}

fn first_line(s: &str) -> String {
    // regex-syntax errors are multi-line with a caret diagram; keep the last line, the reason.
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

/// The text of `///` doc comments (or `#[doc = "..."]`), paragraphs kept, lines joined.
///
/// Returns the text and the span of the first doc attribute.
pub fn doc_text(attrs: &[Attribute]) -> Option<(String, Span)> {
    let mut lines = Vec::new();
    let mut span = None;
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                span.get_or_insert(attr.span());
                for line in s.value().lines() {
                    lines.push(
                        line.strip_prefix(' ')
                            .unwrap_or(line)
                            .trim_end()
                            .to_string(),
                    );
                }
            }
        }
    }
    let span = span?;
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(line.trim());
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let text = paragraphs.join("\n\n");
    if text.is_empty() {
        None
    } else {
        Some((text, span))
    }
}
