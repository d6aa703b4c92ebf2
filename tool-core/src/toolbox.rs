//! [`Toolbox`]: the registry of tools and the call pipeline.

use crate::approval::{ApprovalRequest, Approver, CallInfo, Hooks};
use crate::audit::{args_digest, new_operation_id, AuditEvent, AuditRecord, AuditSink};
use crate::budget::{
    fit_envelope, page_digest, CursorError, MemoryRecordStore, OutputBudget, PageRequest,
    RecordStore,
};
use crate::context::Context;
use crate::envelope::{Envelope, Status};
use crate::error::ToolError;
use crate::idempotency::{Gate, GateOutcome, IdempotencyGate, IdempotencyKey};
use crate::policy::{Caller, Policy};
use crate::redact::Redactor;
use crate::reply::Reply;
use crate::spec::ToolSpec;
use crate::tool::{BoxFuture, Invoke, Tool};
use crate::validate::{self, Valid, Validator};
use serde_json::Value;
use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

/// One problem found while building a toolbox or registering a tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// Two tools share a name.
    #[error("two tools are named `{name}`; tool names must be unique (rename one with #[tool(name = \"...\")])")]
    DuplicateTool {
        /// The shared name.
        name: String,
    },
    /// A tool needs a context value that was not supplied.
    #[error("tool `{tool}` needs a context value of type `{type_name}` for `{param}`; supply it with .context(...) on the builder")]
    MissingContext {
        /// The tool.
        tool: String,
        /// The parameter that receives the value.
        param: String,
        /// The type, as written in the tool's signature.
        type_name: String,
    },
    /// A tool's schema is unusable.
    #[error("tool `{tool}`: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
}

/// Error returned by [`ToolboxBuilder::build`] and [`Toolbox::register`]: every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct BuildError {
    /// The problems, in registration order.
    pub problems: Vec<Problem>,
}

/// Error returned by [`Toolbox::deregister`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no tool named `{name}` is registered")]
pub struct NotRegistered {
    /// The name asked for.
    pub name: String,
}

/// The arguments of a call: an already-parsed JSON value (MCP, Anthropic) or JSON text (OpenAI).
#[derive(Debug, Clone)]
pub enum Arguments {
    /// Parsed JSON.
    Value(Value),
    /// JSON text, parsed by the toolbox.
    Text(String),
}

impl From<Value> for Arguments {
    fn from(v: Value) -> Self {
        Arguments::Value(v)
    }
}
impl From<&Value> for Arguments {
    fn from(v: &Value) -> Self {
        Arguments::Value(v.clone())
    }
}
impl From<String> for Arguments {
    fn from(s: String) -> Self {
        Arguments::Text(s)
    }
}
impl From<&str> for Arguments {
    fn from(s: &str) -> Self {
        Arguments::Text(s.to_string())
    }
}

struct Entry {
    tool: Tool,
    validator: Validator,
    /// The output schema's validator (debug builds only).
    output_validator: Option<Validator>,
    fingerprint: String,
    /// Whether the tool takes a `cursor` argument, so the toolbox can serve next pages.
    paginated: bool,
}

#[derive(Default, Clone)]
struct Registry {
    entries: Vec<Arc<Entry>>,
    index: HashMap<String, usize>,
    retired: BTreeSet<String>,
}

impl Registry {
    fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }
}

/// Per-call settings: who is calling, and an explicit idempotency key.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    caller: Caller,
    idempotency_key: Option<String>,
}

impl CallOptions {
    /// Anonymous caller, no idempotency key.
    pub fn new() -> Self {
        Self::default()
    }

    /// The caller's identity, checked by the [`Policy`] and recorded in the audit trail.
    #[must_use]
    pub fn caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// An explicit idempotency key: a repeat of a completed call to the same tool with the same
    /// key within the window is refused as `DUPLICATE` without running again.
    #[must_use]
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
}

/// Builds a [`Toolbox`]: register tools, the context values they need, and the boundary settings
/// (policy, approver, hooks, audit sink, redaction, output budget, timeouts).
pub struct ToolboxBuilder {
    tools: Vec<Tool>,
    context: Context,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    hooks: Hooks,
    audit: Option<Arc<dyn AuditSink>>,
    redactor: Option<Arc<Redactor>>,
    budget: OutputBudget,
    store: Arc<dyn RecordStore>,
    default_timeout: Option<Duration>,
    idempotency_window: Duration,
}

impl Default for ToolboxBuilder {
    fn default() -> Self {
        // Every toolbox supplies the progress handle, so `#[context] progress: &Progress` needs
        // no setup; reports go nowhere unless a transport listens (crate::progress).
        let mut context = Context::new();
        context.insert(crate::progress::Progress::default());
        ToolboxBuilder {
            tools: Vec::new(),
            context,
            policy: Policy::allow_all(),
            approver: None,
            hooks: Hooks::new(),
            audit: None,
            redactor: Some(Arc::new(Redactor::new())),
            budget: OutputBudget::default(),
            store: Arc::new(MemoryRecordStore::default()),
            default_timeout: None,
            idempotency_window: DEFAULT_IDEMPOTENCY_WINDOW,
        }
    }
}

/// How long a completed request identifies its repeats, unless set with
/// [`ToolboxBuilder::idempotency_window`]: one hour.
pub const DEFAULT_IDEMPOTENCY_WINDOW: Duration = Duration::from_secs(3600);

impl ToolboxBuilder {
    /// Registers one tool (`my_fn::tool()` for a `#[tool]` function).
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Registers several tools (`MyServer::tools()` for a `#[tools]` impl block).
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Supplies a context value, injected into every `#[context] x: &T` parameter of type `T`
    /// (and into `&self` of method tools of type `T`).
    #[must_use]
    pub fn context<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.context.insert(value);
        self
    }

    /// Supplies a context value the host keeps a handle to.
    #[must_use]
    pub fn shared_context<T: Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.context.insert_shared(value);
        self
    }

    /// The policy checked before every call (default: [`Policy::allow_all`]).
    #[must_use]
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The approver asked before every call to a `requires_approval` tool. Without one, such
    /// calls are `denied`.
    #[must_use]
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Like [`approver`](Self::approver), for an approver already behind an `Arc`.
    #[must_use]
    pub fn shared_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Before- and after-hooks that observe every call.
    #[must_use]
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The sink that receives one audit record per call, register and deregister.
    #[must_use]
    pub fn audit(mut self, sink: impl AuditSink + 'static) -> Self {
        self.audit = Some(Arc::new(sink));
        self
    }

    /// Like [`audit`](Self::audit), for a sink the host keeps a handle to.
    #[must_use]
    pub fn shared_audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }

    /// The redactor run on every result and message (default: [`Redactor::new`], the built-in
    /// patterns). Add host patterns with [`Redactor::with_pattern`].
    #[must_use]
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(Arc::new(redactor));
        self
    }

    /// Turns redaction off (for hosts that redact elsewhere).
    #[must_use]
    pub fn without_redaction(mut self) -> Self {
        self.redactor = None;
        self
    }

    /// The default output budget in characters of serialized `data` (default 1500, Chrome's
    /// guidance); `#[tool(output_budget = N)]` overrides it per tool.
    #[must_use]
    pub fn output_budget(mut self, max_chars: usize) -> Self {
        self.budget = OutputBudget::new(max_chars);
        self
    }

    /// Where full results cut to the budget are kept (default: an in-memory store of 256 records).
    #[must_use]
    pub fn record_store(mut self, store: impl RecordStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The timeout of tools that declare none (default: none). Timeouts use tokio's timer: calls
    /// must run inside a tokio runtime with time enabled.
    #[must_use]
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// How long a completed request identifies its repeats (default
    /// [`DEFAULT_IDEMPOTENCY_WINDOW`]).
    #[must_use]
    pub fn idempotency_window(mut self, window: Duration) -> Self {
        self.idempotency_window = window;
        self
    }

    /// Builds the toolbox, reporting every problem at once: duplicate names, missing context
    /// values, unusable schemas.
    pub fn build(self) -> Result<Toolbox, BuildError> {
        let mut registry = Registry::default();
        let mut problems = Vec::new();
        for tool in &self.tools {
            match prepare(tool, &self.context, &registry) {
                Ok(entry) => {
                    registry
                        .index
                        .insert(tool.name().to_string(), registry.entries.len());
                    registry.entries.push(Arc::new(entry));
                }
                Err(mut p) => problems.append(&mut p),
            }
        }
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        if let Some(sink) = &self.audit {
            for e in &registry.entries {
                sink.record(&AuditRecord::register(e.tool.spec()));
            }
        }
        Ok(Toolbox {
            registry: RwLock::new(Arc::new(registry)),
            changes: tokio::sync::watch::Sender::new(0),
            shared: Shared {
                context: Arc::new(self.context),
                policy: self.policy,
                approver: self.approver,
                hooks: self.hooks,
                audit: self.audit,
                redactor: self.redactor,
                budget: self.budget,
                store: self.store,
                default_timeout: self.default_timeout,
                gate: IdempotencyGate::new(self.idempotency_window),
            },
        })
    }
}

fn prepare(tool: &Tool, context: &Context, registry: &Registry) -> Result<Entry, Vec<Problem>> {
    let name = tool.name().to_string();
    let spec = tool.spec();
    let mut problems = Vec::new();
    if registry.index.contains_key(&name) {
        problems.push(Problem::DuplicateTool { name: name.clone() });
    }
    for c in tool.contexts() {
        if !context.contains((c.type_id)()) {
            problems.push(Problem::MissingContext {
                tool: name.clone(),
                param: c.param.to_string(),
                type_name: c.type_name.to_string(),
            });
        }
    }
    for reason in &tool.inner.problems {
        problems.push(Problem::InvalidSchema {
            tool: name.clone(),
            reason: reason.clone(),
        });
    }
    let params = spec.param_names();
    for key in &tool.inner.idempotency_key {
        if !params.contains(&key.as_str()) {
            problems.push(Problem::InvalidSchema {
                tool: name.clone(),
                reason: format!("the idempotency key names `{key}`, which is not a parameter"),
            });
        }
    }
    let validator = match Validator::new(&spec.input_schema) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(Problem::InvalidSchema {
                tool: name.clone(),
                reason: e.to_string(),
            });
            None
        }
    };
    // The output contract is checked in debug builds (and so in tests) only.
    let output_validator = if cfg!(debug_assertions) {
        match spec.output_schema.as_ref().map(Validator::new) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                problems.push(Problem::InvalidSchema {
                    tool: name.clone(),
                    reason: format!("output schema: {e}"),
                });
                None
            }
            None => None,
        }
    } else {
        None
    };
    let paginated = spec
        .input_schema
        .pointer("/properties/cursor/type")
        .is_some_and(|t| t == "string");
    match validator {
        Some(validator) if problems.is_empty() => Ok(Entry {
            tool: tool.clone(),
            validator,
            output_validator,
            fingerprint: spec.fingerprint(),
            paginated,
        }),
        _ => Err(problems),
    }
}

/// The boundary settings shared by every call.
struct Shared {
    context: Arc<Context>,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    hooks: Hooks,
    audit: Option<Arc<dyn AuditSink>>,
    redactor: Option<Arc<Redactor>>,
    budget: OutputBudget,
    store: Arc<dyn RecordStore>,
    default_timeout: Option<Duration>,
    gate: IdempotencyGate,
}

/// The registry of tools and the call pipeline:
/// lookup → validation → policy → before-hooks → idempotency → approval → execution (timeout,
/// panics caught) → output contract → redaction → after-hooks → output budget → audit → envelope.
///
/// A toolbox is shared by reference across concurrent calls (`Arc<Toolbox>`); registering and
/// retiring tools take `&self`.
pub struct Toolbox {
    registry: RwLock<Arc<Registry>>,
    /// Counts registrations and retirements, for [`Toolbox::watch_changes`].
    changes: tokio::sync::watch::Sender<u64>,
    shared: Shared,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reg = self.snapshot();
        f.debug_struct("Toolbox")
            .field("tools", &reg.names())
            .finish()
    }
}

/// What a call produced besides its envelope, for the audit record.
struct Outcome {
    env: Envelope,
    entry: Option<Arc<Entry>>,
    args: Option<Value>,
    detail: Option<String>,
}

impl Outcome {
    fn early(env: Envelope, entry: Option<Arc<Entry>>, args: Option<Value>) -> Self {
        Outcome {
            env,
            entry,
            args,
            detail: None,
        }
    }
}

impl Toolbox {
    /// Starts building a toolbox.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder::default()
    }

    fn snapshot(&self) -> Arc<Registry> {
        match self.registry.read() {
            Ok(r) => Arc::clone(&r),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn update(&self, f: impl FnOnce(&Registry) -> Registry) {
        let mut guard = match self.registry.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let next = f(&guard);
        *guard = Arc::new(next);
    }

    /// The specs of the registered tools, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.snapshot()
            .entries
            .iter()
            .map(|e| e.tool.spec().clone())
            .collect()
    }

    /// The spec of one registered tool.
    pub fn spec(&self, name: &str) -> Option<ToolSpec> {
        let reg = self.snapshot();
        reg.index
            .get(name)
            .map(|&i| reg.entries[i].tool.spec().clone())
    }

    /// Lints every registered tool's spec (full schemas included) with the given budgets.
    pub fn lint(&self, config: &crate::lint::LintConfig) -> Vec<crate::lint::Finding> {
        self.snapshot()
            .entries
            .iter()
            .flat_map(|e| crate::lint::lint_with(e.tool.spec(), config))
            .collect()
    }

    /// The tool list lowered for one agent platform (see [`crate::export`]).
    pub fn export(
        &self,
        target: crate::export::Target,
    ) -> Result<Value, crate::export::ExportError> {
        crate::export::export(&self.specs(), target)
    }

    /// Writes one file per export target plus `index.json` into `dir` (see
    /// [`crate::export::write_artifacts`]); [`crate::export::default_artifact_dir`] is
    /// `target/tool-specs/`.
    pub fn write_artifacts(
        &self,
        dir: impl AsRef<std::path::Path>,
    ) -> Result<crate::export::ArtifactReport, crate::export::ArtifactError> {
        crate::export::write_artifacts(&self.specs(), dir)
    }

    /// Compares the current exports with a committed snapshot directory and fails with a
    /// readable diff on drift; `TOOLSMITH_UPDATE_SNAPSHOTS=1` accepts the new snapshot (see
    /// [`crate::export::check_snapshot`]).
    pub fn check_snapshot(
        &self,
        dir: impl AsRef<std::path::Path>,
    ) -> Result<(), crate::export::SnapshotDrift> {
        crate::export::check_snapshot(&self.specs(), dir)
    }

    /// The names of the registered tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.snapshot()
            .names()
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// Registers a tool on a running toolbox (with the same checks as [`ToolboxBuilder::build`]).
    pub fn register(&self, tool: Tool) -> Result<(), BuildError> {
        let mut result = Ok(());
        self.update(|reg| {
            let mut next = reg.clone();
            match prepare(&tool, &self.shared.context, reg) {
                Ok(entry) => {
                    next.retired.remove(tool.name());
                    next.index
                        .insert(tool.name().to_string(), next.entries.len());
                    next.entries.push(Arc::new(entry));
                }
                Err(problems) => result = Err(BuildError { problems }),
            }
            next
        });
        if result.is_ok() {
            if let Some(sink) = &self.shared.audit {
                sink.record(&AuditRecord::register(tool.spec()));
            }
            self.changes.send_modify(|n| *n += 1);
        }
        result
    }

    /// Retires a tool: it leaves [`specs`](Self::specs), and calls to it return `invalid_input`
    /// (code `TOOL_RETIRED`) naming the tools that remain.
    pub fn deregister(&self, name: &str) -> Result<(), NotRegistered> {
        let mut removed: Option<Arc<Entry>> = None;
        self.update(|reg| {
            let mut next = Registry::default();
            for e in &reg.entries {
                if e.tool.name() == name {
                    removed = Some(Arc::clone(e));
                } else {
                    next.index
                        .insert(e.tool.name().to_string(), next.entries.len());
                    next.entries.push(Arc::clone(e));
                }
            }
            next.retired = reg.retired.clone();
            if removed.is_some() {
                next.retired.insert(name.to_string());
            }
            next
        });
        match removed {
            Some(entry) => {
                if let Some(sink) = &self.shared.audit {
                    sink.record(&AuditRecord::deregister(entry.tool.spec()));
                }
                self.changes.send_modify(|n| *n += 1);
                Ok(())
            }
            None => Err(NotRegistered {
                name: name.to_string(),
            }),
        }
    }

    /// A receiver that sees a new value after every [`register`](Self::register) and
    /// [`deregister`](Self::deregister): servers use it to tell connected clients that the tool
    /// list changed. The value counts the changes since the toolbox was built.
    ///
    /// ```
    /// # use tool_core::{Tool, Toolbox, ToolSpec, Effects};
    /// let toolbox = Toolbox::builder().build().unwrap();
    /// let mut changes = toolbox.watch_changes();
    /// assert!(!changes.has_changed().unwrap());
    /// # let spec = ToolSpec { name: "noop".into(), title: None, description: "Does nothing. Returns null.".into(),
    /// #     input_schema: serde_json::json!({"type": "object", "additionalProperties": false}),
    /// #     output_schema: None, effects: Effects { read_only: true, ..Default::default() },
    /// #     allows: vec![], timeout_ms: None, version: "1.0.0".into() };
    /// toolbox.register(Tool::from_fn(spec, |_, _| Box::pin(async { Ok(serde_json::Value::Null) }))).unwrap();
    /// assert!(changes.has_changed().unwrap());
    /// assert_eq!(*changes.borrow_and_update(), 1);
    /// ```
    pub fn watch_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Calls a tool as an anonymous caller. Never panics and never fails: every outcome is an
    /// [`Envelope`].
    ///
    /// `args` is a `serde_json::Value` or JSON text (`&str`/`String`).
    pub async fn call(&self, name: &str, args: impl Into<Arguments>) -> Envelope {
        self.call_with(name, args, CallOptions::default()).await
    }

    /// Calls a tool on behalf of `caller` (checked by the policy, recorded in the audit trail).
    pub async fn call_as(
        &self,
        caller: &Caller,
        name: &str,
        args: impl Into<Arguments>,
    ) -> Envelope {
        self.call_with(name, args, CallOptions::new().caller(caller.clone()))
            .await
    }

    /// Calls a tool with per-call options (caller, idempotency key).
    pub async fn call_with(
        &self,
        name: &str,
        args: impl Into<Arguments>,
        options: CallOptions,
    ) -> Envelope {
        let started = Instant::now();
        let operation_id = new_operation_id();
        // Host code runs inside the pipeline too (hooks, the approver, the record store): a panic
        // there becomes `failed` like a panic in a tool, so `call` itself never panics.
        let run = Box::pin(self.run(name, args.into(), &options, &operation_id));
        let Outcome {
            mut env,
            entry,
            args,
            detail,
        } = match CatchUnwind(run).await {
            Ok(outcome) => outcome,
            Err(panic) => Outcome {
                env: internal_failure(),
                entry: None,
                args: None,
                detail: Some(format!("panic in the call pipeline: {panic}")),
            },
        };
        env.operation_id = Some(operation_id.clone());
        if let Some(sink) = &self.shared.audit {
            let mut rec = AuditRecord::new(AuditEvent::Call, operation_id, name);
            if let Some(entry) = &entry {
                rec.fingerprint = entry.fingerprint.clone();
                rec.version = entry.tool.spec().version.clone();
            }
            rec.caller = options.caller.id.clone();
            rec.status = Some(env.status);
            rec.code = env.code.clone();
            rec.duration_ms =
                Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
            rec.args_digest = args.as_ref().map(args_digest);
            // Host-only detail (a panic's text, output-contract errors) can quote secrets too.
            rec.detail = match (detail, &self.shared.redactor) {
                (Some(d), Some(r)) => Some(r.redact_str(&d).into_owned()),
                (d, _) => d,
            };
            // A failing sink must not turn a finished call into a panic.
            let _ = catch_unwind(AssertUnwindSafe(|| sink.record(&rec)));
        }
        env
    }

    async fn run(
        &self,
        name: &str,
        args: Arguments,
        options: &CallOptions,
        operation_id: &str,
    ) -> Outcome {
        let sh = &self.shared;
        let reg = self.snapshot();
        let Some(&i) = reg.index.get(name) else {
            return Outcome::early(unknown_tool(&reg, name), None, None);
        };
        let entry = Arc::clone(&reg.entries[i]);
        drop(reg);
        let spec = entry.tool.spec();
        let mut args = match args {
            Arguments::Value(v) => v,
            Arguments::Text(text) => match parse_text(&text) {
                Ok(v) => v,
                Err(env) => return Outcome::early(*env, Some(entry), None),
            },
        };
        if args.is_null() {
            // "No arguments" is sent as null by some clients.
            args = Value::Object(Default::default());
        }
        // Strict-mode clients (OpenAI) send null for an optional parameter they leave out.
        if contains_null(&args) {
            crate::export::strip_null_optionals(&spec.input_schema, &mut args);
        }
        match entry.validator.validate(&args) {
            Ok(Valid::AsIs) => {}
            Ok(Valid::NormalizeIntegers) => validate::normalize_integers(&mut args),
            Err(errors) => {
                return Outcome::early(invalid_arguments(errors), Some(entry), Some(args))
            }
        }
        if let Err(denial) = sh.policy.check(spec, &options.caller) {
            return Outcome::early(denial.into_envelope(), Some(entry), Some(args));
        }
        let mut page = if entry.paginated {
            // Cursors are bound to the arguments and to the caller, so one caller's pages cannot
            // be replayed by another.
            let digest = args_digest(&serde_json::json!({
                "args": page_digest(&args, "cursor"),
                "caller": options.caller.id,
            }));
            let page = match args.get("cursor") {
                None | Some(Value::Null) => Ok(PageRequest::first(digest)),
                Some(Value::String(c)) => PageRequest::from_cursor(c, digest),
                Some(_) => Err(CursorError::Malformed),
            };
            match page {
                Ok(page) => page,
                Err(e) => {
                    let env = e.into_tool_error("cursor").into_envelope();
                    return Outcome::early(env, Some(entry), Some(args));
                }
            }
        } else {
            PageRequest::first(String::new()).with_hint(
                "The rest is not shown; ask for less (narrower arguments) to see other parts.",
            )
        };
        let call = CallInfo {
            tool: name,
            arguments: &args,
            caller: &options.caller,
            operation_id,
        };
        if let Err(e) = sh.hooks.run_before(&call) {
            return Outcome::early(e.into_envelope(), Some(entry), Some(args));
        }

        let budget = entry
            .tool
            .inner
            .output_budget
            .map(OutputBudget::new)
            .unwrap_or(sh.budget);
        // A later page of a result kept in the record store is served from there.
        let stored = page.reference.as_deref().and_then(|r| sh.store.get(r));
        let (mut env, detail) = if let Some(raw) = stored {
            (Envelope::ok(raw), None)
        } else {
            page.reference = None;
            let key = if !entry.tool.inner.idempotency_key.is_empty() {
                let keys: Vec<&str> = entry
                    .tool
                    .inner
                    .idempotency_key
                    .iter()
                    .map(String::as_str)
                    .collect();
                Some(IdempotencyKey::from_args(name, &args, &keys))
            } else {
                options
                    .idempotency_key
                    .as_deref()
                    .map(|k| IdempotencyKey::explicit(name, k))
            };
            match key {
                Some(key) => {
                    let gated = sh
                        .gate
                        .run(key, operation_id, || async {
                            let (mut env, detail) =
                                self.approve_and_execute(&entry, &args, options).await;
                            // Keep the result so a refused repeat can point at it; redact it
                            // first, as everything kept is.
                            if let Some(r) = &sh.redactor {
                                r.redact_envelope(&mut env);
                            }
                            if env.status == Status::Ok && env.reference.is_none() {
                                if let Some(data) = &env.data {
                                    env.reference = Some(sh.store.put(data.clone()));
                                }
                            }
                            GatedEnvelope(env, detail)
                        })
                        .await;
                    match gated {
                        Gate::Ran(GatedEnvelope(env, detail)) => (env, detail),
                        Gate::Duplicate(dup) => {
                            let original = dup.reference.as_deref().and_then(|r| sh.store.get(r));
                            // The original is shown only when it fits the output budget (a
                            // refused envelope is not cut); its `ref` always names it.
                            let original =
                                original.filter(|o| crate::budget::fits(o, budget.max_chars));
                            let mut env = dup.into_envelope(name, &sh.gate);
                            if let (Some(original), Some(Value::Object(details))) =
                                (original, env.data.as_mut())
                            {
                                details.insert("original".into(), original);
                            }
                            (env, None)
                        }
                    }
                }
                None => self.approve_and_execute(&entry, &args, options).await,
            }
        };

        if let Some(r) = &sh.redactor {
            r.redact_envelope(&mut env);
        }
        sh.hooks.run_after(&call, &mut env);
        fit_envelope(&mut env, budget, &page, sh.store.as_ref());
        if !entry.paginated {
            // Without a cursor parameter the model cannot ask for the next page.
            env.cursor = None;
        }
        Outcome {
            env,
            entry: Some(entry),
            args: Some(args),
            detail,
        }
    }

    /// Approval (for `requires_approval` tools), then execution.
    async fn approve_and_execute(
        &self,
        entry: &Arc<Entry>,
        args: &Value,
        options: &CallOptions,
    ) -> (Envelope, Option<String>) {
        let spec = entry.tool.spec();
        if spec.effects.requires_approval {
            let Some(approver) = &self.shared.approver else {
                let env = ToolError::denied(
                    "APPROVAL_UNAVAILABLE",
                    format!(
                        "The call to \"{}\" needs a person's approval, and no one can approve it here. It did not run; retrying will not help. Tell the user it needs approval.",
                        spec.name
                    ),
                )
                .into_envelope();
                return (env, None);
            };
            let request = ApprovalRequest::new(spec, args.clone(), options.caller.clone());
            let approval = approver.approve(&request).await;
            if let Some(e) = approval.into_tool_error(&spec.name) {
                return (e.into_envelope(), None);
            }
        }
        self.execute(entry, args).await
    }

    /// Runs the executor with the tool's timeout, catching panics, and checks the output contract.
    async fn execute(&self, entry: &Arc<Entry>, args: &Value) -> (Envelope, Option<String>) {
        let spec = entry.tool.spec();
        let sh = &self.shared;
        // The executor is called inside the future, so a panic while it builds its own future
        // (possible in a hand-written `Tool::from_fn` closure) is caught like one while polling.
        let fut: BoxFuture<'_, Result<Reply<Value>, ToolError>> = match &entry.tool.inner.invoke {
            Invoke::Generated(f) => {
                let f = *f;
                let context = &sh.context;
                Box::pin(async move { f(context, args).await })
            }
            Invoke::Dynamic(f) => {
                let (f, context, args) = (Arc::clone(f), Arc::clone(&sh.context), args.clone());
                Box::pin(async move { f(context, args).await.map(Reply::new) })
            }
        };
        let timeout = spec
            .timeout_ms
            .map(Duration::from_millis)
            .or(sh.default_timeout);
        let outcome = match timeout {
            Some(limit) => match tokio::time::timeout(limit, CatchUnwind(fut)).await {
                Ok(outcome) => outcome,
                Err(_) => return (timeout_envelope(spec, limit), None),
            },
            None => CatchUnwind(fut).await,
        };
        let reply = match outcome {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => return (e.into_envelope(), None),
            Err(panic) => return (internal_failure(), Some(format!("panic: {panic}"))),
        };
        if let Some(v) = &entry.output_validator {
            if let Err(errors) = v.validate(&reply.data) {
                let env = ToolError::failed(
                    "OUTPUT_CONTRACT",
                    "The tool returned a result that does not match its declared output, so it is not shown. Retrying will not help; tell the user the tool is not working correctly.",
                )
                .into_envelope();
                let detail = errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                return (env, Some(format!("output contract: {detail}")));
            }
        }
        let mut env = Envelope::ok(reply.data);
        env.note = reply.note;
        env.truncated = reply.truncated;
        (env, None)
    }
}

/// An envelope with its audit detail, as the idempotency gate's outcome.
struct GatedEnvelope(Envelope, Option<String>);

impl GateOutcome for GatedEnvelope {
    fn succeeded(&self) -> bool {
        self.0.is_success()
    }
    fn reference(&self) -> Option<String> {
        self.0.reference.clone()
    }
}

/// The envelope of a panic: generic, with no panic text, type name or path.
fn internal_failure() -> Envelope {
    ToolError::failed(
        "INTERNAL",
        "The tool failed unexpectedly and did not complete. Retrying the same call is unlikely to help; tell the user the action could not be done.",
    )
    .into_envelope()
}

fn timeout_envelope(spec: &ToolSpec, limit: Duration) -> Envelope {
    let e = &spec.effects;
    let ms = limit.as_millis();
    let advice = if e.read_only {
        "It only reads, so calling it again is safe; if it keeps timing out, ask for less."
    } else if e.idempotent {
        "It is idempotent, so calling it again with the same arguments is safe."
    } else {
        "It may have partly completed. Do not repeat it blindly: check the current state first, or ask the user."
    };
    ToolError::timeout(format!(
        "The tool \"{}\" did not finish within {ms} ms and was stopped. {advice}",
        spec.name
    ))
    .into_envelope()
}

fn contains_null(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(map) => map.values().any(contains_null),
        _ => false,
    }
}

fn parse_text(text: &str) -> Result<Value, Box<Envelope>> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| {
        Box::new(Envelope::error(
            Status::InvalidInput,
            "INVALID_INPUT",
            format!(
                "The arguments are not valid JSON ({e}). Send one JSON object, e.g. {{\"name\": \"value\"}}."
            ),
        ))
    })
}

fn unknown_tool(reg: &Registry, name: &str) -> Envelope {
    let names: Vec<String> = reg.names().iter().map(|n| format!("\"{n}\"")).collect();
    let available = if names.is_empty() {
        "No tools are available.".to_string()
    } else {
        format!("The tools are {}.", names.join(", "))
    };
    if reg.retired.contains(name) {
        Envelope::error(
            Status::InvalidInput,
            "TOOL_RETIRED",
            format!("The tool \"{name}\" was retired and can no longer be called. {available}"),
        )
    } else {
        Envelope::error(
            Status::InvalidInput,
            "UNKNOWN_TOOL",
            format!("No tool is named \"{name}\". {available}"),
        )
    }
}

fn invalid_arguments(errors: Vec<validate::ArgError>) -> Envelope {
    let code = errors.first().map_or("INVALID_ARGUMENT", |e| e.code);
    let message = errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut env = Envelope::error(Status::InvalidInput, code, message);
    if errors.len() > 1 {
        let list: Vec<Value> = errors
            .iter()
            .map(|e| serde_json::json!({"path": e.path, "code": e.code, "message": e.message}))
            .collect();
        env.data = Some(serde_json::json!({ "errors": list }));
    }
    env
}

/// Turns a panic inside a future into an error result.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    /// The output, or the panic's message (for the audit record only).
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic with a non-text payload".to_string());
                Poll::Ready(Err(message))
            }
        }
    }
}
