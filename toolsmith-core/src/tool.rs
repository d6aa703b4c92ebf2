//! [`Tool`]: a spec together with the executor that runs it.

use crate::context::Context;
use crate::error::ToolError;
use crate::reply::Reply;
use crate::schema::{self, ParamDef, SchemaFn};
use crate::spec::{Allow, Effects, ToolSpec};
use serde_json::Value;
use std::any::TypeId;
use std::sync::Arc;

pub use crate::reply::BoxFuture;

/// The executor the macro generates: decodes validated arguments, fetches context, runs the
/// function and serializes its output.
pub(crate) type InvokeFn =
    for<'a> fn(&'a Context, &'a Value) -> BoxFuture<'a, Result<Reply<Value>, ToolError>>;

/// The executor the macro generates for a sync function: run on the blocking pool.
pub(crate) type BlockingFn = fn(&Context, &Value) -> Result<Reply<Value>, ToolError>;

/// An executor written by hand (see [`Tool::from_fn`]).
pub(crate) type DynInvoke =
    Arc<dyn Fn(Arc<Context>, Value) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync>;

/// A context value a tool needs (a `#[context]` parameter or the `&self` of a method tool).
#[derive(Clone, Copy, Debug)]
pub struct ContextDef {
    /// The parameter that receives it (`self` for method tools).
    pub param: &'static str,
    /// The type's name as written in the signature.
    pub type_name: &'static str,
    /// The type's id.
    pub type_id: fn() -> TypeId,
}

/// Everything `#[tool]` knows about a function. Built by generated code; use [`Tool`].
#[doc(hidden)]
pub struct ToolDef {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub params: &'static [ParamDef],
    pub output: Option<SchemaFn>,
    pub effects: Effects,
    pub allows: &'static [(&'static str, &'static str)],
    pub contexts: &'static [ContextDef],
    pub timeout_ms: Option<u64>,
    pub output_budget: Option<usize>,
    pub idempotency_key: &'static [&'static str],
    pub version: &'static str,
    /// The example calls of `#[tool(example(...))]`, each a JSON object as text (checked by the
    /// macro, so it parses).
    pub examples: &'static [&'static str],
    /// `#[tool(deprecated(...))]`: since, note, replaced_by (the description already ends with
    /// the notice).
    pub deprecated: Option<(&'static str, Option<&'static str>, Option<&'static str>)>,
    /// The icons of `#[tool(icon ...)]`, each MCP's `Icon` object as JSON text (checked by the
    /// macro).
    pub icons: &'static [&'static str],
    /// The executor of validated arguments.
    pub exec: Exec,
    /// Typed decoding with the constraints compiled in ([`crate::typed`]), when every
    /// parameter allows it.
    pub typed: Option<crate::typed::TypedDef>,
}

/// The generated executor of validated arguments. Built by generated code.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Exec {
    /// A sync function: runs on the blocking pool when a tokio runtime is present.
    Sync(BlockingFn),
    /// An async function.
    Async(InvokeFn),
}

#[derive(Clone)]
pub(crate) enum Invoke {
    Generated(InvokeFn),
    /// A sync tool: runs on the blocking pool when a tokio runtime is present.
    Blocking(BlockingFn),
    Dynamic(DynInvoke),
}

pub(crate) struct ToolInner {
    pub(crate) spec: ToolSpec,
    pub(crate) invoke: Invoke,
    pub(crate) contexts: Vec<ContextDef>,
    pub(crate) problems: Vec<String>,
    pub(crate) output_budget: Option<usize>,
    pub(crate) idempotency_key: Vec<String>,
    /// The generated fast path ([`crate::typed`]).
    pub(crate) typed: Option<crate::typed::TypedDef>,
    /// Whether the output may hold text a secret could be in, decided once from the output
    /// schema ([`crate::output_text`]); when not, redaction skips the result's data.
    pub(crate) output_may_hold_text: bool,
    /// The condition that decides per call whether the approver is asked
    /// ([`Tool::requires_approval_when`]).
    pub(crate) approval_when: Option<ApprovalWhen>,
}

/// The condition of a tool whose approval depends on its arguments: its name (for the audit
/// record and the approval request) and the pure function of the validated arguments that
/// answers `true` when this call needs the approver.
#[derive(Clone)]
pub(crate) struct ApprovalWhen {
    pub(crate) name: String,
    pub(crate) decide: Arc<dyn Fn(&Value) -> bool + Send + Sync>,
}

/// A tool: its [`ToolSpec`] and its executor. Cheap to clone.
///
/// `#[tool] fn search(...)` gives `search::tool()`; `#[tools] impl Server` gives
/// `Server::tools()`. Register tools with [`Toolbox::builder`](crate::Toolbox::builder).
#[derive(Clone)]
pub struct Tool {
    pub(crate) inner: Arc<ToolInner>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.inner.spec.name)
            .finish()
    }
}

impl Tool {
    /// Builds a tool from the macro's definition. Schema problems (for example a constraint that
    /// does not fit a user type's schema) are kept and reported when a toolbox is built.
    #[doc(hidden)]
    pub fn from_def(def: ToolDef) -> Tool {
        let (input_schema, mut problems) = schema::input_schema(def.params);
        let output_schema = def.output.map(schema::output_schema);
        let output_may_hold_text = crate::output_text::may_hold_text(output_schema.as_ref());
        let mut spec = ToolSpec::new(def.name, def.description, input_schema)
            .with_effects(def.effects)
            .with_allows(
                def.allows
                    .iter()
                    .map(|(rule, reason)| Allow::new(*rule, *reason)),
            )
            .with_version(def.version);
        spec.title = def.title.map(String::from);
        spec.output_schema = output_schema;
        spec.timeout_ms = def.timeout_ms;
        for (i, text) in def.examples.iter().enumerate() {
            match serde_json::from_str(text) {
                Ok(example) => spec.examples.push(example),
                Err(e) => problems.push(format!("example {} is not JSON: {e}", i + 1)),
            }
        }
        if let Some((since, note, replaced_by)) = def.deprecated {
            let mut d = toolsmith_spec::Deprecation::new(since);
            d.note = note.map(String::from);
            d.replaced_by = replaced_by.map(String::from);
            spec = spec.with_deprecated(d);
        }
        for (i, text) in def.icons.iter().enumerate() {
            match serde_json::from_str(text) {
                Ok(icon) => spec.icons.push(icon),
                Err(e) => problems.push(format!("icon {} is not an MCP icon: {e}", i + 1)),
            }
        }
        Tool {
            inner: Arc::new(ToolInner {
                spec,
                invoke: match def.exec {
                    Exec::Sync(f) => Invoke::Blocking(f),
                    Exec::Async(f) => Invoke::Generated(f),
                },
                contexts: def.contexts.to_vec(),
                problems,
                output_budget: def.output_budget,
                idempotency_key: def.idempotency_key.iter().map(|k| k.to_string()).collect(),
                typed: def.typed,
                output_may_hold_text,
                approval_when: None,
            }),
        }
    }

    /// A tool from a spec written by hand and a closure that runs it — for tools whose
    /// definition is only known at run time (a proxy for another server, a plugin).
    ///
    /// The closure receives the toolbox's context and the validated arguments.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Tool, ToolSpec, Effects};
    /// let spec = ToolSpec::new(
    ///     "echo_text",
    ///     "Echoes the text. Returns the same text.",
    ///     serde_json::json!({"type": "object", "properties": {"text": {"type": "string", "description": "Text to echo."}}, "required": ["text"], "additionalProperties": false}),
    /// )
    /// .with_effects(Effects::none().with_read_only(true))
    /// .with_version("1.0.0");
    /// let tool = Tool::from_fn(spec, |_ctx, args| Box::pin(async move { Ok(args["text"].clone()) }));
    /// assert_eq!(tool.spec().name, "echo_text");
    /// ```
    pub fn from_fn<F>(spec: ToolSpec, run: F) -> Tool
    where
        F: Fn(Arc<Context>, Value) -> BoxFuture<'static, Result<Value, ToolError>>
            + Send
            + Sync
            + 'static,
    {
        Tool {
            inner: Arc::new(ToolInner {
                spec,
                invoke: Invoke::Dynamic(Arc::new(run)),
                contexts: Vec::new(),
                problems: Vec::new(),
                output_budget: None,
                idempotency_key: Vec::new(),
                typed: None,
                // A hand-written executor's result is not bound to the spec's output schema.
                output_may_hold_text: true,
                approval_when: None,
            }),
        }
    }

    /// The tool's spec.
    pub fn spec(&self) -> &ToolSpec {
        &self.inner.spec
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.inner.spec.name
    }

    /// Limits the characters of serialized `data` this tool returns (the toolbox default applies
    /// otherwise).
    #[must_use]
    pub fn with_output_budget(self, max_chars: usize) -> Tool {
        self.map_inner(|inner| inner.output_budget = Some(max_chars))
    }

    /// Names the arguments that identify a request: a repeat of a completed request with the same
    /// values within the toolbox's idempotency window is refused as `DUPLICATE`.
    #[must_use]
    pub fn with_idempotency_key<I, S>(self, params: I) -> Tool
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let params: Vec<String> = params.into_iter().map(Into::into).collect();
        self.map_inner(|inner| inner.idempotency_key = params)
    }

    /// Approval that depends on the arguments: `when` (named `name` in the audit record and the
    /// approval request) decides for each call whether the toolbox's [`Approver`](crate::Approver)
    /// is asked. It is the run-time form of `#[tool(requires_approval(when = fn_name))]`.
    ///
    /// `when` reads the validated arguments, defaults filled in (exactly what the approver and
    /// the tool see), after the policy, validation and the before-hooks, and before the
    /// idempotency claim and the approval; it never runs the tool. It must be a pure function of
    /// the arguments: `true` asks the approver, `false` lets the call run unasked. If it panics,
    /// the call is put to the approver (the safe reading: it never runs unapproved), and the
    /// panic is counted as a fault of the approver.
    ///
    /// The spec says the tool may need approval: [`Effects::requires_approval`] and
    /// [`Effects::conditional_approval`] are set, so a [`Policy`](crate::Policy) that refuses
    /// `requires_approval` tools refuses it whatever the arguments.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Effects, Tool, ToolSpec};
    /// # let schema = serde_json::json!({"type": "object", "properties": {"amount": {"type": "integer", "description": "NOK."}}, "required": ["amount"], "additionalProperties": false});
    /// let spec = ToolSpec::new("send_money", "Sends money. Returns the transfer id.", schema)
    ///     .with_effects(Effects::none().with_writes(true))
    ///     .with_version("1.0.0");
    /// let tool = Tool::from_fn(spec, |_ctx, _args| Box::pin(async { Ok(serde_json::json!("t-1")) }))
    ///     .requires_approval_when("over_limit", |args| args["amount"].as_u64().is_none_or(|a| a > 100));
    /// assert!(tool.spec().effects.requires_approval && tool.spec().effects.conditional_approval);
    /// ```
    #[must_use]
    pub fn requires_approval_when<F>(self, name: impl Into<String>, when: F) -> Tool
    where
        F: Fn(&Value) -> bool + Send + Sync + 'static,
    {
        let condition = ApprovalWhen {
            name: name.into(),
            decide: Arc::new(when),
        };
        self.map_inner(|inner| {
            inner.spec.effects = inner.spec.effects.with_conditional_approval(true);
            inner.approval_when = Some(condition);
        })
    }

    /// Marks the tool as part of the toolbox's always-loaded core set (`#[tool(core)]`): once
    /// any tool of a list is core, the Anthropic and OpenAI Responses exports defer the others
    /// (see [`ToolSpec::core`]).
    #[must_use]
    pub fn with_core(self, core: bool) -> Tool {
        self.map_inner(|inner| inner.spec.core = core)
    }

    /// Lets (or makes) the tool's calls run as tasks, polled until done (`#[tool(task =
    /// "...")]`; see [`ToolSpec::task`] and the [`task`](crate::state::task) module).
    #[must_use]
    pub fn with_task(self, task: crate::TaskSupport) -> Tool {
        self.map_inner(|inner| inner.spec.task = task)
    }

    /// Puts the tool into a namespace (`#[tools(namespace = "...")]`; see
    /// [`ToolSpec::namespace`]).
    #[must_use]
    pub fn with_namespace(self, namespace: crate::Namespace) -> Tool {
        self.map_inner(|inner| inner.spec.namespace = Some(namespace))
    }

    fn map_inner(self, f: impl FnOnce(&mut ToolInner)) -> Tool {
        let mut inner = match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => ToolInner {
                spec: shared.spec.clone(),
                invoke: shared.invoke.clone(),
                contexts: shared.contexts.clone(),
                problems: shared.problems.clone(),
                output_budget: shared.output_budget,
                idempotency_key: shared.idempotency_key.clone(),
                typed: shared.typed,
                output_may_hold_text: shared.output_may_hold_text,
                approval_when: shared.approval_when.clone(),
            },
        };
        f(&mut inner);
        Tool {
            inner: Arc::new(inner),
        }
    }

    /// Whether the tool's typed fast path (the decoding `#[tool]` generates for a fully typed
    /// tool, which skips the general validator) takes these arguments as valid: `None` when the
    /// tool has none (a `Tool::from_fn` tool, or one whose schema the fast path leaves to the
    /// validator). The fast path must never take what the validator refuses; this lets a test
    /// check that on its own tools.
    pub fn typed_accepts<'a>(
        &self,
        args: impl Into<crate::arguments::Arguments<'a>>,
    ) -> Option<bool> {
        let def = self.inner.typed.as_ref()?;
        let args = args.into();
        Some(
            crate::typed::decode(Some(def), args.as_input())
                .args()
                .is_some(),
        )
    }

    /// Whether the tool's output may hold text a secret could be in, so redaction reads its
    /// data ([`crate::output_text`]).
    #[doc(hidden)]
    pub fn output_may_hold_text(&self) -> bool {
        self.inner.output_may_hold_text
    }

    /// The context values the tool needs.
    pub fn contexts(&self) -> &[ContextDef] {
        &self.inner.contexts
    }

    /// Whether the executor was generated by `#[tool]` (and so applies the declared defaults
    /// of absent parameters when it decodes its arguments).
    pub(crate) fn is_generated(&self) -> bool {
        !matches!(self.inner.invoke, Invoke::Dynamic(_))
    }
}

/// The declaration rules `#[tool]` enforces at compile time, checked again when any tool is
/// registered, so a tool built at run time ([`Tool::from_fn`]) cannot skip them.
pub(crate) fn declaration_problems(spec: &ToolSpec) -> Vec<String> {
    let e = &spec.effects;
    let mut problems = Vec::new();
    if e.read_only {
        for (on, key) in [(e.writes, "writes"), (e.destructive, "destructive")] {
            if on {
                problems.push(format!(
                    "`read_only` and `{key}` contradict each other: a read-only tool changes nothing; keep the one that is true"
                ));
            }
        }
    }
    let allowed = spec
        .allows
        .iter()
        .any(|a| a.rule == "destructive_without_approval");
    if e.destructive && !e.requires_approval && !allowed {
        problems.push("a `destructive` tool needs `requires_approval`, so a human confirms each call; or add the allow rule `destructive_without_approval` with a reason".to_string());
    } else if e.destructive && e.conditional_approval && !allowed {
        problems.push("a `destructive` tool needs approval of every call, and a condition on the arguments lets some run unasked: declare `requires_approval` without a condition, or add the allow rule `destructive_without_approval` with a reason".to_string());
    }
    problems
}
