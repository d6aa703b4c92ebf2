//! The attribute grammar: `#[tool(...)]`, `#[arg(...)]`, `#[context]` and doc comments.

use crate::ctxt::Ctxt;
use crate::example::ExampleValue;
use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr, Token};

/// An attribute's keys as one table: the enum drives both the parser's dispatch (a `match` the
/// compiler checks for exhaustiveness) and the "expected one of" list of the error for an
/// unknown key, so the two cannot drift apart.
macro_rules! keys {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub(crate) enum $name { $($variant,)* }

        impl $name {
            /// Every key, in the order the error message lists them.
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The key as the user writes it.
            pub(crate) fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The key written `text`, if there is one.
            pub(crate) fn lookup(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|k| k.as_str() == text)
            }

            /// `a, b, c`: the list an "unknown key" error shows.
            pub(crate) fn expected() -> String {
                Self::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
            }
        }
    };
}

keys! {
    /// The keys `#[tool(...)]` accepts.
    ToolKey {
        Name = "name",
        Title = "title",
        ReadOnly = "read_only",
        Writes = "writes",
        Destructive = "destructive",
        Network = "network",
        OpenWorld = "open_world",
        Idempotent = "idempotent",
        RequiresApproval = "requires_approval",
        UntrustedOutput = "untrusted_output",
        TimeoutMs = "timeout_ms",
        OutputBudget = "output_budget",
        IdempotencyKey = "idempotency_key",
        Version = "version",
        Allow = "allow",
        Example = "example",
        Deprecated = "deprecated",
        Icon = "icon",
        Core = "core",
        Task = "task",
    }
}

keys! {
    /// The keys `#[arg(...)]` accepts.
    ArgKey {
        Description = "description",
        Name = "name",
        MinLength = "min_length",
        MaxLength = "max_length",
        Pattern = "pattern",
        Minimum = "minimum",
        Maximum = "maximum",
        ExclusiveMinimum = "exclusive_minimum",
        ExclusiveMaximum = "exclusive_maximum",
        MultipleOf = "multiple_of",
        MinItems = "min_items",
        MaxItems = "max_items",
        UniqueItems = "unique_items",
        Default = "default",
        Header = "header",
    }
}

/// A declared side-effect flag with the span of its keyword.
#[derive(Default, Clone, Copy)]
pub(crate) struct Flag(pub Option<Span>);

impl Flag {
    pub(crate) fn on(&self) -> bool {
        self.0.is_some()
    }
}

/// The values of `task = "..."`, as MCP spells them.
pub(crate) const TASK_VALUES: [&str; 3] = ["forbidden", "optional", "required"];

/// `task = "optional"`: the value, one of [`TASK_VALUES`].
#[derive(Clone, Copy)]
pub(crate) struct TaskAttr(pub &'static str);

/// One `allow(rule, reason = "...")`.
pub(crate) struct AllowAttr {
    pub rule: String,
    pub rule_span: Span,
    pub reason: String,
}

/// One `example(name = value, ...)`: an example call, its arguments as written.
pub(crate) struct ExampleAttr {
    /// The `example` keyword, for errors about the example as a whole.
    pub span: Span,
    pub args: Vec<ExampleArg>,
}

/// One `name = value` of an example.
pub(crate) struct ExampleArg {
    /// The argument's name as the model sends it.
    pub name: String,
    pub name_span: Span,
    pub value: ExampleValue,
}

/// The arguments of an example written as a JSON object, each spanned at the string.
fn json_example(lit: &LitStr) -> syn::Result<Vec<ExampleArg>> {
    let span = lit.span();
    let value = crate::example::example_from_json(&lit.value(), span)
        .map_err(|e| {
            syn::Error::new(
                span,
                format!("cannot read this example as JSON: {e}; the JSON form is an object of arguments, e.g. `example = r#\"{{\"query\": \"tent\"}}\"#`"),
            )
        })?;
    match value.kind {
        crate::example::ExampleKind::Object(members) => Ok(members
            .into_iter()
            .map(|(name, value)| ExampleArg {
                name,
                name_span: span,
                value,
            })
            .collect()),
        _ => Err(syn::Error::new(
            span,
            format!(
                "an example in JSON is an object of arguments, e.g. `example = r#\"{{\"query\": \"tent\"}}\"#`; this is {}",
                value.noun()
            ),
        )),
    }
}

/// Everything in `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub read_only: Flag,
    pub writes: Flag,
    pub destructive: Flag,
    pub network: Flag,
    pub open_world: Flag,
    pub idempotent: Flag,
    pub requires_approval: Flag,
    /// `requires_approval(when = fn_name)`: the condition on the arguments (then
    /// `requires_approval` is on too).
    pub approval_when: Option<syn::Path>,
    pub untrusted_output: Flag,
    pub timeout_ms: Option<u64>,
    pub output_budget: Option<usize>,
    /// `idempotency_key(a, b)`: the parameters that identify a request.
    pub idempotency_key: Vec<syn::Ident>,
    pub version: Option<LitStr>,
    pub allows: Vec<AllowAttr>,
    /// `example(a = 1, b = "x")`, in declaration order.
    pub examples: Vec<ExampleAttr>,
    /// `deprecated(since = "3", note = "...", replaced_by = "new_tool")`.
    pub deprecated: Option<crate::deprecated::DeprecatedAttr>,
    /// `icon = "..."` and `icon(src = ..., ...)`, in declaration order.
    pub icons: Vec<IconAttr>,
    /// `core`: part of the toolbox's always-loaded core set.
    pub core: Flag,
    /// `task = "forbidden" | "optional" | "required"`: whether calls may run as MCP tasks.
    pub task: Option<TaskAttr>,
    /// Whether the attribute failed to parse (later rules then stay quiet to avoid cascades).
    pub malformed: bool,
}

fn unknown_key(meta: &ParseNestedMeta, what: &str, expected: &str) -> syn::Error {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        });
    meta.error(format!(
        "unknown `{what}` key `{key}`; expected one of: {expected}"
    ))
}

/// The condition of `requires_approval(when = fn_name)`: a path to a function.
fn approval_when(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    use syn::ext::IdentExt;
    let usage = "write `requires_approval(when = fn_name)`, naming a function that takes a reference to each parameter of the tool (context parameters aside), in order, and returns `bool` (true: ask the approver)";
    let content;
    syn::parenthesized!(content in meta.input);
    if content.is_empty() {
        return Err(meta.error(usage));
    }
    let key = syn::Ident::parse_any(&content)?;
    if key != "when" {
        return Err(syn::Error::new(key.span(), usage));
    }
    content.parse::<syn::Token![=]>()?;
    let path: syn::Path = content.parse()?;
    let _ = content.parse::<Option<syn::Token![,]>>()?;
    if !content.is_empty() {
        return Err(content.error(usage));
    }
    Ok(path)
}

impl ToolAttr {
    /// Parses the arguments of `#[tool(...)]`, reporting every problem into `cx`.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let parser = syn::meta::parser(|meta| {
            let ident = meta.path.get_ident().map(ToString::to_string);
            let Some(key) = ident.as_deref().and_then(ToolKey::lookup) else {
                return Err(unknown_key(&meta, "#[tool]", &ToolKey::expected()));
            };
            let ident = key.as_str();
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
            let once = |given: bool| -> syn::Result<()> {
                if given {
                    Err(meta.error(format!("`{ident}` is given twice")))
                } else {
                    Ok(())
                }
            };
            match key {
                ToolKey::Name => {
                    once(attr.name.is_some())?;
                    attr.name = Some(meta.value()?.parse()?);
                }
                ToolKey::Title => {
                    once(attr.title.is_some())?;
                    attr.title = Some(meta.value()?.parse()?);
                }
                ToolKey::Version => {
                    once(attr.version.is_some())?;
                    attr.version = Some(meta.value()?.parse()?);
                }
                ToolKey::TimeoutMs => {
                    once(attr.timeout_ms.is_some())?;
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
                ToolKey::OutputBudget => {
                    once(attr.output_budget.is_some())?;
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
                ToolKey::IdempotencyKey => {
                    once(!attr.idempotency_key.is_empty())?;
                    let names = "name the parameters that identify a request, e.g. `idempotency_key(path, content)`";
                    if !meta.input.peek(syn::token::Paren) {
                        return Err(meta.error(names));
                    }
                    let content;
                    syn::parenthesized!(content in meta.input);
                    if content.is_empty() {
                        return Err(meta.error(names));
                    }
                    let paths =
                        syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated(
                            &content,
                        )?;
                    for path in paths {
                        match path.get_ident() {
                            Some(id) => attr.idempotency_key.push(id.clone()),
                            None => return Err(syn::Error::new_spanned(
                                path,
                                "expected parameter names, e.g. `idempotency_key(path, content)`",
                            )),
                        }
                    }
                }
                ToolKey::ReadOnly => flag(&mut attr.read_only, &meta)?,
                ToolKey::Writes => flag(&mut attr.writes, &meta)?,
                ToolKey::Destructive => flag(&mut attr.destructive, &meta)?,
                ToolKey::Network => flag(&mut attr.network, &meta)?,
                ToolKey::OpenWorld => flag(&mut attr.open_world, &meta)?,
                ToolKey::Idempotent => flag(&mut attr.idempotent, &meta)?,
                ToolKey::RequiresApproval if meta.input.peek(syn::token::Paren) => {
                    if attr.requires_approval.on() {
                        return Err(meta.error("`requires_approval` is declared twice"));
                    }
                    attr.approval_when = Some(approval_when(&meta)?);
                    attr.requires_approval = Flag(Some(span));
                }
                ToolKey::RequiresApproval => flag(&mut attr.requires_approval, &meta)?,
                ToolKey::UntrustedOutput => flag(&mut attr.untrusted_output, &meta)?,
                ToolKey::Core => flag(&mut attr.core, &meta)?,
                ToolKey::Task => {
                    once(attr.task.is_some())?;
                    let usage = "write `task = \"optional\"` (a client may ask for a task) or `task = \"required\"` (every call is a task); \"forbidden\" is the default";
                    if !meta.input.peek(Token![=]) {
                        return Err(meta.error(usage));
                    }
                    let lit: LitStr = meta.value()?.parse()?;
                    let value = lit.value();
                    let Some(found) = TASK_VALUES.iter().find(|v| **v == value) else {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!("unknown task support `{value}`; {usage}"),
                        ));
                    };
                    attr.task = Some(TaskAttr(found));
                }
                ToolKey::Example => {
                    let mut args: Vec<ExampleArg> = Vec::new();
                    if meta.input.peek(Token![=]) {
                        // The JSON form: `example = r#"{"query": "tent", "filter": {...}}"#`.
                        let lit: LitStr = meta.value()?.parse()?;
                        attr.examples.push(ExampleAttr {
                            span,
                            args: json_example(&lit)?,
                        });
                        return Ok(());
                    }
                    if !meta.input.peek(syn::token::Paren) {
                        return Err(meta.error("`example` lists the arguments of a call: `example(query = \"tent\", max_price = 2500)`, or gives them as a JSON object: `example = r#\"{\"query\": \"tent\"}\"#`"));
                    }
                    meta.parse_nested_meta(|inner| {
                        let Some(id) = inner.path.get_ident() else {
                            return Err(inner.error(
                                "expected an argument name, e.g. `example(query = \"tent\")`",
                            ));
                        };
                        let name = crate::syntax::unraw(id);
                        if args.iter().any(|a| a.name == name) {
                            return Err(
                                inner.error(format!("`{name}` is given twice in this example"))
                            );
                        }
                        let expr: Expr = inner.value()?.parse()?;
                        let value = ExampleValue::parse(&expr)?;
                        args.push(ExampleArg {
                            name,
                            name_span: id.span(),
                            value,
                        });
                        Ok(())
                    })?;
                    attr.examples.push(ExampleAttr { span, args });
                }
                ToolKey::Deprecated => {
                    once(attr.deprecated.is_some())?;
                    attr.deprecated = Some(crate::deprecated::parse(&meta)?);
                }
                ToolKey::Icon => attr.icons.push(IconAttr::parse(&meta)?),
                ToolKey::Allow => {
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
pub(crate) struct NumLit {
    pub json: String,
    pub value: f64,
    pub span: Span,
}

/// Everything in the `#[arg(...)]` attributes of one parameter.
#[derive(Default)]
pub(crate) struct ArgAttr {
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
    /// `header = "Region"`: the MCP 2026-07-28 `x-mcp-header`.
    pub header: Option<LitStr>,
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

fn parse_count(meta: &ParseNestedMeta, key: &str) -> syn::Result<(u64, Span)> {
    let expr: Expr = meta.value()?.parse()?;
    let count = match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    match count {
        Some(n) => Ok((n, expr.span())),
        None => Err(syn::Error::new(
            expr.span(),
            format!("`{key}` is a count: expected a whole number literal, e.g. `{key} = 100`"),
        )),
    }
}

impl ArgAttr {
    /// Parses one `#[arg(...)]` attribute into `self`.
    pub(crate) fn parse_into(&mut self, cx: &Ctxt, attr: &Attribute) {
        self.attr.get_or_insert_with(|| attr.clone());
        let result = attr.parse_nested_meta(|meta| {
            let ident = meta.path.get_ident().map(ToString::to_string);
            let Some(key) = ident.as_deref().and_then(ArgKey::lookup) else {
                return Err(unknown_key(&meta, "#[arg]", &ArgKey::expected()));
            };
            let ident = key.as_str();
            let dup = |set: bool| -> syn::Result<()> {
                if set {
                    Err(meta.error(format!("`{ident}` is given twice")))
                } else {
                    Ok(())
                }
            };
            match key {
                ArgKey::Description => {
                    dup(self.description.is_some())?;
                    self.description = Some(meta.value()?.parse()?);
                }
                ArgKey::Name => {
                    dup(self.name.is_some())?;
                    self.name = Some(meta.value()?.parse()?);
                }
                ArgKey::MinLength => {
                    dup(self.min_length.is_some())?;
                    self.min_length = Some(parse_count(&meta, ident)?);
                }
                ArgKey::MaxLength => {
                    dup(self.max_length.is_some())?;
                    self.max_length = Some(parse_count(&meta, ident)?);
                }
                ArgKey::MinItems => {
                    dup(self.min_items.is_some())?;
                    self.min_items = Some(parse_count(&meta, ident)?);
                }
                ArgKey::MaxItems => {
                    dup(self.max_items.is_some())?;
                    self.max_items = Some(parse_count(&meta, ident)?);
                }
                ArgKey::Pattern => {
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
                ArgKey::Minimum => {
                    dup(self.minimum.is_some())?;
                    self.minimum = Some(parse_num(&meta)?);
                }
                ArgKey::Maximum => {
                    dup(self.maximum.is_some())?;
                    self.maximum = Some(parse_num(&meta)?);
                }
                ArgKey::ExclusiveMinimum => {
                    dup(self.exclusive_minimum.is_some())?;
                    self.exclusive_minimum = Some(parse_num(&meta)?);
                }
                ArgKey::ExclusiveMaximum => {
                    dup(self.exclusive_maximum.is_some())?;
                    self.exclusive_maximum = Some(parse_num(&meta)?);
                }
                ArgKey::MultipleOf => {
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
                ArgKey::UniqueItems => {
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
                ArgKey::Default => {
                    dup(self.default.is_some())?;
                    self.default = Some(meta.value()?.parse()?);
                }
                ArgKey::Header => {
                    dup(self.header.is_some())?;
                    self.header = Some(meta.value()?.parse()?);
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }

    /// The constraints, in schema order.
    pub(crate) fn constraints(&self) -> Vec<ConstraintAttr> {
        let mut out = Vec::new();
        let mut push = |key, value, span| out.push(ConstraintAttr { key, value, span });
        let counts = [
            (ArgKey::MinLength, &self.min_length),
            (ArgKey::MaxLength, &self.max_length),
        ];
        for (key, v) in counts {
            if let Some((n, span)) = v {
                push(key, ConstraintValue::Count(*n), *span);
            }
        }
        if let Some(p) = &self.pattern {
            push(
                ArgKey::Pattern,
                ConstraintValue::Pattern(p.value()),
                p.span(),
            );
        }
        let nums = [
            (ArgKey::Minimum, &self.minimum),
            (ArgKey::Maximum, &self.maximum),
            (ArgKey::ExclusiveMinimum, &self.exclusive_minimum),
            (ArgKey::ExclusiveMaximum, &self.exclusive_maximum),
            (ArgKey::MultipleOf, &self.multiple_of),
        ];
        for (key, v) in nums {
            if let Some(n) = v {
                push(key, ConstraintValue::Num(n.clone()), n.span);
            }
        }
        let counts = [
            (ArgKey::MinItems, &self.min_items),
            (ArgKey::MaxItems, &self.max_items),
        ];
        for (key, v) in counts {
            if let Some((n, span)) = v {
                push(key, ConstraintValue::Count(*n), *span);
            }
        }
        if let Some(span) = self.unique_items {
            push(ArgKey::UniqueItems, ConstraintValue::Flag, span);
        }
        out
    }
}

/// One constraint of `#[arg(...)]`: its key (whose variant name is the runtime's
/// `Constraint` variant), its value and where it was written.
pub(crate) struct ConstraintAttr {
    pub key: ArgKey,
    pub value: ConstraintValue,
    pub span: Span,
}

/// The value of a constraint.
pub(crate) enum ConstraintValue {
    Count(u64),
    Num(NumLit),
    Pattern(String),
    Flag,
}

impl NumLit {
    /// The literal as a whole number when it is one: negative as `i64`, else `u64`.
    pub(crate) fn whole(&self) -> Option<Result<i64, u64>> {
        if let Ok(n) = self.json.parse::<u64>() {
            return Some(Err(n));
        }
        self.json.parse::<i64>().ok().map(Ok)
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
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<(String, Span)> {
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

/// One `icon = "src"` or `icon(src = "...", mime_type = "...", sizes = ["48x48"], theme =
/// "dark")`: MCP's `Icon`, each value with where it was written (`check` judges them).
pub(crate) struct IconAttr {
    /// The `icon` keyword.
    pub span: Span,
    pub src: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub sizes: Vec<LitStr>,
    pub theme: Option<LitStr>,
}

impl IconAttr {
    fn parse(meta: &ParseNestedMeta) -> syn::Result<IconAttr> {
        let mut icon = IconAttr {
            span: meta.path.span(),
            src: None,
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        };
        if meta.input.peek(syn::Token![=]) {
            icon.src = Some(meta.value()?.parse()?);
            return Ok(icon);
        }
        if !meta.input.peek(syn::token::Paren) {
            return Err(meta.error(
                "`icon` takes its image: `icon = \"https://...\"` or `icon(src = \"https://...\", mime_type = \"image/png\", sizes = [\"48x48\"], theme = \"dark\")`",
            ));
        }
        let keys = "src, mime_type, sizes, theme";
        meta.parse_nested_meta(|inner| {
            let key = inner.path.get_ident().map(ToString::to_string);
            let twice = |given: bool| -> syn::Result<()> {
                match given {
                    true => Err(inner.error(format!(
                        "`{}` is given twice in this icon",
                        key.as_deref().unwrap_or_default()
                    ))),
                    false => Ok(()),
                }
            };
            match key.as_deref() {
                Some("src") => {
                    twice(icon.src.is_some())?;
                    icon.src = Some(inner.value()?.parse()?);
                }
                Some("mime_type") => {
                    twice(icon.mime_type.is_some())?;
                    icon.mime_type = Some(inner.value()?.parse()?);
                }
                Some("theme") => {
                    twice(icon.theme.is_some())?;
                    icon.theme = Some(inner.value()?.parse()?);
                }
                Some("sizes") => {
                    twice(!icon.sizes.is_empty())?;
                    let expr: syn::ExprArray = inner.value()?.parse()?;
                    for e in expr.elems {
                        match e {
                            Expr::Lit(syn::ExprLit {
                                lit: Lit::Str(s), ..
                            }) => icon.sizes.push(s),
                            other => {
                                return Err(syn::Error::new(
                                    other.span(),
                                    "a size is a string: \"48x48\" or \"any\"",
                                ))
                            }
                        }
                    }
                    if icon.sizes.is_empty() {
                        return Err(inner.error(
                            "`sizes` lists at least one size, e.g. `sizes = [\"48x48\"]`; leave it out for any size",
                        ));
                    }
                }
                _ => return Err(unknown_key(&inner, "icon", keys)),
            }
            Ok(())
        })?;
        if icon.src.is_none() {
            return Err(syn::Error::new(
                icon.span,
                "this icon has no `src`: add `src = \"https://...\"` (or a `data:image/...;base64,` URI)",
            ));
        }
        Ok(icon)
    }
}

keys! {
    /// The keys `#[tools(...)]` accepts.
    ToolsKey {
        Namespace = "namespace",
        NamespaceDescription = "namespace_description",
    }
}

/// Everything in `#[tools(...)]`: the namespace every tool of the impl block is put in.
#[derive(Default)]
pub(crate) struct ToolsAttr {
    pub namespace: Option<LitStr>,
    pub namespace_description: Option<LitStr>,
}

impl ToolsAttr {
    /// Parses the arguments of `#[tools(...)]` and checks the namespace: a name OpenAI accepts
    /// and a description, which OpenAI shows the model before it loads the namespace's tools.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolsAttr {
        let mut attr = ToolsAttr::default();
        let parser = syn::meta::parser(|meta| {
            let ident = meta.path.get_ident().map(ToString::to_string);
            let Some(key) = ident.as_deref().and_then(ToolsKey::lookup) else {
                return Err(unknown_key(&meta, "#[tools]", &ToolsKey::expected()));
            };
            let slot = match key {
                ToolsKey::Namespace => &mut attr.namespace,
                ToolsKey::NamespaceDescription => &mut attr.namespace_description,
            };
            if slot.is_some() {
                return Err(meta.error(format!("`{}` is given twice", key.as_str())));
            }
            *slot = Some(meta.value()?.parse()?);
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(e);
            return ToolsAttr::default();
        }
        match (&attr.namespace, &attr.namespace_description) {
            (Some(ns), None) => cx.error_at(
                ns.span(),
                format!(
                    "`namespace = {:?}` needs `namespace_description = \"...\"`: OpenAI shows the model the namespace's description, not its tools, until it loads them",
                    ns.value()
                ),
            ),
            (None, Some(d)) => cx.error_at(
                d.span(),
                "`namespace_description` describes a namespace: add `namespace = \"...\"`",
            ),
            (Some(ns), Some(d)) => {
                let rule = &toolsmith_lint::platform::OPENAI.name;
                if !rule.accepts(&ns.value()) {
                    cx.error_at(
                        ns.span(),
                        format!(
                            "namespace `{}` is not a name OpenAI accepts: {}",
                            ns.value(),
                            rule.text
                        ),
                    );
                }
                if d.value().trim().is_empty() {
                    cx.error_at(
                        d.span(),
                        "the namespace description is empty: say what the namespace's tools are for",
                    );
                }
            }
            (None, None) => {}
        }
        attr
    }
}

#[cfg(test)]
mod reference {
    //! The reference pages of the facade (`src/docs/*.md`, on `toolsmith::tool` and
    //! `toolsmith::tools`) list every key the parser accepts, and no other.

    use super::{ArgKey, ToolKey, ToolsKey};

    /// The keys in the first cells of the table under `heading`: the identifier each cell opens
    /// with (`requires_approval` of "`requires_approval(when = fn_name)`").
    fn table_keys(page: &str, heading: &str) -> Vec<String> {
        let start = page
            .find(heading)
            .unwrap_or_else(|| panic!("the reference has no section {heading}"));
        page[start..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|row| {
                let cell = row.split('|').nth(1).unwrap_or_default().trim();
                cell.trim_start_matches('`')
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()
            })
            .collect()
    }

    fn same(documented: Vec<String>, parsed: Vec<&str>, what: &str) {
        let mut documented = documented;
        let mut parsed: Vec<String> = parsed.into_iter().map(String::from).collect();
        documented.sort();
        parsed.sort();
        assert_eq!(
            documented, parsed,
            "the reference table of {what} against the parser's keys"
        );
    }

    #[test]
    fn the_reference_tables_list_every_key() {
        let tool = include_str!("../../src/docs/tool.md");
        same(
            table_keys(tool, "# `#[tool(...)]` keys"),
            ToolKey::ALL.iter().map(|k| k.as_str()).collect(),
            "#[tool(...)]",
        );
        same(
            table_keys(tool, "# `#[arg(...)]` keys"),
            ArgKey::ALL.iter().map(|k| k.as_str()).collect(),
            "#[arg(...)]",
        );
        same(
            table_keys(include_str!("../../src/docs/tools.md"), "| Key |"),
            ToolsKey::ALL.iter().map(|k| k.as_str()).collect(),
            "#[tools(...)]",
        );
    }
}
