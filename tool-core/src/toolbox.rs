//! [`Toolbox`]: the registry of tools and the call pipeline.

use crate::approval::{ApprovalRequest, Approver, CallInfo, Hooks};
use crate::audit::{
    keyed_args_digest, new_operation_id, AuditEvent, AuditRecord, AuditSink, CANCELLED,
};
use crate::budget::{
    bound_channels, fit_envelope, page_digest, CursorError, MemoryRecordStore, OutputBudget,
    PageRequest, RecordStore,
};
use crate::context::Context;
use crate::envelope::{Envelope, Status};
use crate::error::ToolError;
use crate::fault::{Fault, FaultCounts, FaultHandler, FaultKind, Faults, GuardedStore};
use crate::idempotency::{
    Disposition, Gate, GateOutcome, IdempotencyGate, IdempotencyKey, Started,
};
use crate::policy::{Caller, Policy};
use crate::redact::Redactor;
use crate::reply::Reply;
use crate::secret::SecretKey;
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
    /// A tool's declared effects break a declaration rule `#[tool]` enforces at compile time
    /// (checked again for tools built at run time).
    #[error("tool `{tool}`: {reason}")]
    InvalidDeclaration {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
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
impl Arguments {
    /// The arguments as the typed fast path reads them.
    fn as_input(&self) -> crate::typed::Input<'_> {
        match self {
            Arguments::Text(text) => crate::typed::Input::Text(text),
            Arguments::Value(value) => crate::typed::Input::Value(value),
        }
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
    /// The generated typed decoding ([`crate::typed`]); not for schemas whose checks the
    /// validator leaves in part to the full JSON Schema validator.
    typed: Option<crate::typed::TypedDef>,
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
    /// key and the same arguments, by the same caller, within the window is refused as
    /// `DUPLICATE` without running again; the key reused with other arguments is `invalid_input`
    /// (`IDEMPOTENCY_KEY_REUSED`).
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
    audit_key: Option<SecretKey>,
    offload_sync_tools: bool,
    typed_decoding: bool,
    max_argument_bytes: usize,
    approval_timeout: Option<Duration>,
    on_fault: Option<FaultHandler>,
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
            audit_key: None,
            offload_sync_tools: false,
            typed_decoding: true,
            max_argument_bytes: crate::limits::DEFAULT_MAX_ARGUMENT_BYTES,
            approval_timeout: None,
            on_fault: None,
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
    /// must run inside a tokio runtime with time enabled. A tool with a timeout runs apart from
    /// the caller's task (a sync tool on the blocking pool, an async tool as its own task), so
    /// the timeout answers on time even when the tool blocks.
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

    /// Runs every sync tool on tokio's blocking pool, also those without a timeout, so a slow
    /// sync tool never occupies one of the host's async threads. By default only sync tools with
    /// a timeout (declared, or [`default_timeout`](Self::default_timeout)) go there, since the
    /// hand-off costs about ten microseconds per call against a fraction of one inline.
    #[must_use]
    pub fn offload_sync_tools(mut self) -> Self {
        self.offload_sync_tools = true;
        self
    }

    /// Turns the typed fast path ([`crate::typed`]) off, so every call is parsed and validated
    /// as a JSON value. For tests that compare the two paths; the answers are the same.
    #[doc(hidden)]
    #[must_use]
    pub fn without_typed_decoding(mut self) -> Self {
        self.typed_decoding = false;
        self
    }

    /// The key of the argument digests in audit records (default: a random key per toolbox).
    /// Set one the host keeps secret to compare digests across toolboxes and restarts; the
    /// digests stay unreadable to anyone without it.
    #[must_use]
    pub fn audit_key(mut self, key: SecretKey) -> Self {
        self.audit_key = Some(key);
        self
    }

    /// The largest arguments a call may send, in bytes of JSON (default
    /// [`DEFAULT_MAX_ARGUMENT_BYTES`](crate::limits::DEFAULT_MAX_ARGUMENT_BYTES)). Larger
    /// arguments are refused before they are parsed, as `invalid_input` with the code
    /// `ARGUMENTS_TOO_LARGE`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let tb = tool_core::Toolbox::builder().max_argument_bytes(64).build().unwrap();
    /// let env = tb.call("any_tool", "x".repeat(65)).await;
    /// assert_eq!(env.code.as_deref(), Some("ARGUMENTS_TOO_LARGE"));
    /// # });
    /// ```
    #[must_use]
    pub fn max_argument_bytes(mut self, limit: usize) -> Self {
        self.max_argument_bytes = limit;
        self
    }

    /// How long the approver may take to answer (default: no limit). A call whose approval does
    /// not come in time does not run: it is `denied` with the code `APPROVAL_TIMEOUT`, and its
    /// idempotency key is released. Uses tokio's timer, like the tool timeouts.
    #[must_use]
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.approval_timeout = Some(timeout);
        self
    }

    /// A callback told of every fault of the host's parts (an audit sink or a record store that
    /// fails, an approver that panics; see [`crate::fault`]). Faults are counted whether or not a
    /// callback is set ([`Toolbox::faults`]). The callback runs inside the call: keep it short,
    /// and do not call the toolbox from it. A panic in it is contained.
    #[must_use]
    pub fn on_fault(mut self, f: impl Fn(&Fault) + Send + Sync + 'static) -> Self {
        self.on_fault = Some(Arc::new(f));
        self
    }

    /// Builds the toolbox, reporting every problem at once: duplicate names, missing context
    /// values, unusable schemas.
    pub fn build(self) -> Result<Toolbox, BuildError> {
        let mut registry = Registry::default();
        let mut problems = Vec::new();
        for tool in &self.tools {
            match prepare(tool, &self.context, &registry) {
                Ok(mut entry) => {
                    if !self.typed_decoding {
                        entry.typed = None;
                    }
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
        let faults = Arc::new(Faults::new(self.on_fault));
        if let Some(sink) = &self.audit {
            for e in &registry.entries {
                write_audit(
                    sink.as_ref(),
                    &faults,
                    &AuditRecord::register(e.tool.spec()),
                );
            }
        }
        let store = Arc::new(GuardedStore::new(self.store, Arc::clone(&faults)));
        let gate = IdempotencyGate::new(self.idempotency_window)
            .refusing_in_progress()
            .with_durable_store(Arc::clone(&store) as Arc<dyn RecordStore>);
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
                store,
                default_timeout: self.default_timeout,
                gate,
                secret: SecretKey::random(),
                offload_sync_tools: self.offload_sync_tools,
                typed_decoding: self.typed_decoding,
                audit_key: self.audit_key.unwrap_or_else(SecretKey::random),
                max_argument_bytes: self.max_argument_bytes,
                approval_timeout: self.approval_timeout,
                faults,
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
    for reason in crate::tool::declaration_problems(spec) {
        problems.push(Problem::InvalidDeclaration {
            tool: name.clone(),
            reason,
        });
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
            typed: tool.inner.typed.filter(|_| !validator.uses_fallback()),
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
    /// The host's record store, with its failures counted as faults.
    store: Arc<GuardedStore>,
    default_timeout: Option<Duration>,
    gate: IdempotencyGate,
    /// Binds cursors to tool, caller and arguments.
    secret: SecretKey,
    /// Run every sync tool on the blocking pool, not only those with a timeout.
    offload_sync_tools: bool,
    /// Whether the typed fast path is on (it is, except in tests comparing the two paths).
    typed_decoding: bool,
    /// Keys the argument digests of audit records.
    audit_key: SecretKey,
    /// The largest arguments a call may send, in bytes of JSON.
    max_argument_bytes: usize,
    approval_timeout: Option<Duration>,
    faults: Arc<Faults>,
}

/// The registry of tools and the call pipeline:
/// argument size limit → lookup → policy → parsing and validation (defaults filled in) →
/// cursor → before-hooks → stored page or idempotency → approval → execution (timeout, panics
/// caught) → output contract → redaction → after-hooks → output budget (data, notes, messages)
/// → audit → envelope.
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
    /// The call stopped before the end of the pipeline: its envelope is still to be redacted
    /// and bounded.
    early: bool,
}

impl Outcome {
    fn early(env: Envelope, entry: Option<Arc<Entry>>, args: Option<Value>) -> Self {
        Outcome {
            env,
            entry,
            args,
            detail: None,
            early: true,
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

    /// How many faults of the host's parts (audit sink, record store, approver) this toolbox has
    /// seen since it was built; see [`crate::fault`] and [`ToolboxBuilder::on_fault`].
    pub fn faults(&self) -> FaultCounts {
        self.shared.faults.counts()
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
                Ok(mut entry) => {
                    if !self.shared.typed_decoding {
                        entry.typed = None;
                    }
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
                write_audit(
                    sink.as_ref(),
                    &self.shared.faults,
                    &AuditRecord::register(tool.spec()),
                );
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
                    write_audit(
                        sink.as_ref(),
                        &self.shared.faults,
                        &AuditRecord::deregister(entry.tool.spec()),
                    );
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
    ///
    /// Every call leaves one audit record. If the host drops the returned future before it
    /// finishes (a client disconnect, an outer timeout), the record is written when the future
    /// is dropped: it has no `status`, the code `CANCELLED` ([`crate::audit::CANCELLED`]), and a
    /// `detail` saying whether the tool had started (then its effects are unknown, and repeats of
    /// a keyed write are refused as `OUTCOME_UNKNOWN` for the idempotency window).
    pub async fn call_with(
        &self,
        name: &str,
        args: impl Into<Arguments>,
        options: CallOptions,
    ) -> Envelope {
        let started = Instant::now();
        let operation_id = new_operation_id();
        let trace = Trace::default();
        let mut dropped = DropAudit {
            toolbox: self,
            tool: name,
            caller: &options.caller,
            operation_id: &operation_id,
            started,
            trace: &trace,
            armed: true,
        };
        // Host code runs inside the pipeline too (hooks, the approver, the record store): a panic
        // there becomes `failed` like a panic in a tool, so `call` itself never panics.
        let run = Box::pin(self.run(name, args.into(), &options, &operation_id, &trace));
        let outcome = CatchUnwind(run).await;
        dropped.armed = false;
        let Outcome {
            mut env,
            entry,
            args,
            detail,
            early,
        } = match outcome {
            Ok(outcome) => outcome,
            Err(panic) => Outcome {
                env: internal_failure(),
                entry: None,
                args: None,
                detail: Some(format!("panic in the call pipeline: {panic}")),
                early: false,
            },
        };
        if early {
            self.sanitize(entry.as_ref(), &mut env);
        }
        env.operation_id = Some(operation_id.clone());
        if let Some(sink) = &self.shared.audit {
            let mut rec = AuditRecord::new(AuditEvent::Call, operation_id.as_str(), name);
            if let Some(entry) = &entry {
                rec.fingerprint = entry.fingerprint.clone();
                rec.version = entry.tool.spec().version.clone();
            }
            rec.caller = options.caller.id().map(String::from);
            rec.status = Some(env.status);
            rec.code = env.code.clone();
            rec.duration_ms =
                Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
            rec.args_digest = args
                .as_ref()
                .map(|a| keyed_args_digest(&self.shared.audit_key, a));
            // Host-only detail (a panic's text, output-contract errors) can quote secrets too.
            rec.detail = match (detail, &self.shared.redactor) {
                (Some(d), Some(r)) => Some(r.redact_str(&d).into_owned()),
                (d, _) => d,
            };
            // A failing sink must not turn a finished call into a panic; its failure is a fault.
            write_audit(sink.as_ref(), &self.shared.faults, &rec);
        }
        env
    }

    /// Redacts and bounds an envelope that left the pipeline early (unknown tool, policy,
    /// validation, cursor, before-hook, expired page): these carry text too (a hook's message,
    /// an echo of the arguments), and the model reads them like any result.
    fn sanitize(&self, entry: Option<&Arc<Entry>>, env: &mut Envelope) {
        if let Some(r) = &self.shared.redactor {
            r.redact_envelope(env);
        }
        let budget = entry.map_or(self.shared.budget, |e| self.budget_of(e));
        bound_channels(env, budget);
    }

    /// The output budget of a tool: its own, or the toolbox default.
    fn budget_of(&self, entry: &Entry) -> OutputBudget {
        entry
            .tool
            .inner
            .output_budget
            .map(OutputBudget::new)
            .unwrap_or(self.shared.budget)
    }

    async fn run(
        &self,
        name: &str,
        args: Arguments,
        options: &CallOptions,
        operation_id: &str,
        trace: &Trace,
    ) -> Outcome {
        let sh = &self.shared;
        // Oversized arguments are refused before anything reads them, whatever the tool.
        let size = match &args {
            Arguments::Text(text) => crate::limits::check_text(text, sh.max_argument_bytes),
            Arguments::Value(v) => crate::limits::check_value(v, sh.max_argument_bytes),
        };
        if let Err(env) = size {
            return Outcome::early(*env, None, None);
        }
        let reg = self.snapshot();
        let Some(&i) = reg.index.get(name) else {
            let env = unknown_tool(&reg, name, &sh.policy, &options.caller);
            return Outcome::early(env, None, None);
        };
        let entry = Arc::clone(&reg.entries[i]);
        drop(reg);
        trace.set_entry(&entry);
        let spec = entry.tool.spec();
        // Authorization first: the policy needs only the declared effects, so a denied caller
        // costs no parsing or validation and learns nothing about the parameters.
        if let Err(denial) = sh.policy.check(spec, &options.caller) {
            // The audit record still gets a digest of what was sent (parsing is linear; no
            // schema work is done).
            let sent = match args {
                Arguments::Value(v) => Some(v),
                Arguments::Text(t) => parse_text(&t).ok(),
            };
            return Outcome::early(denial.into_envelope(), Some(entry), sent);
        }
        // The typed fast path, for calls whose later stages need no argument value.
        let needs_value = crate::typed::needs_value(
            sh.audit.is_some(),
            !sh.hooks.is_empty(),
            entry.paginated,
            !entry.tool.inner.idempotency_key.is_empty() || options.idempotency_key.is_some(),
            spec.effects.requires_approval,
        );
        if !needs_value {
            if let Some(typed) = crate::typed::decode(entry.typed.as_ref(), args.as_input()) {
                return self.run_typed(entry, typed, options, trace).await;
            }
        }
        let args = match prepare_arguments(&entry, args) {
            Ok(args) => args,
            Err((env, args)) => return Outcome::early(env, Some(entry), args),
        };
        if sh.audit.is_some() {
            // Kept for the record of a call dropped from here on.
            trace.set_args_digest(keyed_args_digest(&sh.audit_key, &args));
        }
        let mut page = match self.page_request(&entry, &args, &options.caller) {
            Ok(page) => page,
            Err(env) => return Outcome::early(env, Some(entry), Some(args)),
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
        let budget = self.budget_of(&entry);
        let (env, detail) = match self.page_source(&entry, &mut page) {
            PageSource::Stored(raw) => (Envelope::ok(raw), None),
            PageSource::Expired => {
                return Outcome::early(page_expired(spec), Some(entry), Some(args));
            }
            PageSource::Run => {
                self.gated_execute(&entry, &args, options, operation_id, trace, budget)
                    .await
            }
        };
        let env = self.conclude(&entry, env, Some(&call), &page, budget);
        Outcome {
            env,
            entry: Some(entry),
            args: Some(args),
            detail,
            early: false,
        }
    }

    /// The end of a call that ran (or was served from the store): redaction, after-hooks,
    /// output budget.
    fn conclude(
        &self,
        entry: &Entry,
        mut env: Envelope,
        call: Option<&CallInfo<'_>>,
        page: &PageRequest,
        budget: OutputBudget,
    ) -> Envelope {
        let sh = &self.shared;
        if let Some(r) = &sh.redactor {
            crate::output_text::redact_result(r, &mut env, entry.tool.inner.output_may_hold_text);
        }
        if let Some(call) = call {
            sh.hooks.run_after(call, &mut env);
        }
        fit_envelope(&mut env, budget, page, sh.store.as_ref());
        // Notes, messages and error details are bounded like data (after the hooks, which may
        // have added to them).
        bound_channels(&mut env, budget);
        if !entry.paginated {
            // Without a cursor parameter the model cannot ask for the next page.
            env.cursor = None;
        }
        env
    }

    /// The rest of a call whose arguments the typed fast path decoded: no stage configured for
    /// it reads the argument value ([`crate::typed::needs_value`]), so it goes straight to the
    /// executor and then to the end of the pipeline.
    async fn run_typed(
        &self,
        entry: Arc<Entry>,
        args: crate::typed::TypedArgs,
        options: &CallOptions,
        trace: &Trace,
    ) -> Outcome {
        let budget = self.budget_of(&entry);
        let page = match self.page_request(&entry, &Value::Null, &options.caller) {
            Ok(page) => page,
            Err(env) => return Outcome::early(env, Some(entry), None),
        };
        trace.mark_started();
        let (env, detail, _) = self.execute(&entry, Exec::Typed(args)).await;
        let env = self.conclude(&entry, env, None, &page, budget);
        Outcome {
            env,
            entry: Some(entry),
            args: None,
            detail,
            early: false,
        }
    }

    /// The page a call asks for. Cursors are bound, with the toolbox's secret key, to the tool,
    /// the caller and the other arguments: a cursor cannot be built by a caller, moved to another
    /// tool, or replayed by another caller.
    #[allow(clippy::result_large_err)]
    fn page_request(
        &self,
        entry: &Entry,
        args: &Value,
        caller: &Caller,
    ) -> Result<PageRequest, Envelope> {
        if !entry.paginated {
            return Ok(PageRequest::first(String::new()).with_hint(
                "The rest is not shown; ask for less (narrower arguments) to see other parts.",
            ));
        }
        let binding = self.shared.secret.mac_hex(
            &[
                b"toolsmith-page",
                entry.tool.name().as_bytes(),
                caller.id().unwrap_or_default().as_bytes(),
                page_digest(args, "cursor").as_bytes(),
            ],
            16,
        );
        let page = match args.get("cursor") {
            None | Some(Value::Null) => Ok(PageRequest::first(binding)),
            Some(Value::String(c)) => PageRequest::from_cursor(c, binding),
            Some(_) => Err(CursorError::Malformed),
        };
        page.map_err(|e| e.into_tool_error("cursor").into_envelope())
    }

    /// Where the requested page comes from: the record store (a later page of a kept result), a
    /// run of the tool, or nowhere (a later page of a write whose result is no longer kept: a
    /// write is never run again just to show a page).
    fn page_source(&self, entry: &Entry, page: &mut PageRequest) -> PageSource {
        let later_page = page.reference.is_some() || page.offset > 0;
        if let Some(raw) = page
            .reference
            .as_deref()
            .and_then(|r| self.shared.store.get(r))
        {
            return PageSource::Stored(raw);
        }
        page.reference = None;
        if later_page && !entry.tool.spec().effects.read_only {
            PageSource::Expired
        } else {
            PageSource::Run
        }
    }

    /// The idempotency key of a call: the declared identifying arguments, or the explicit key
    /// (bound to all the arguments), scoped to the caller and the tool.
    fn idempotency_key(
        &self,
        entry: &Entry,
        args: &Value,
        options: &CallOptions,
    ) -> Option<IdempotencyKey> {
        let name = entry.tool.name();
        let caller = options.caller.id();
        let declared = &entry.tool.inner.idempotency_key;
        if !declared.is_empty() {
            let keys: Vec<&str> = declared.iter().map(String::as_str).collect();
            return Some(IdempotencyKey::from_args(name, args, &keys).for_caller(caller));
        }
        options.idempotency_key.as_deref().map(|k| {
            IdempotencyKey::explicit(name, k)
                .for_caller(caller)
                .with_request(args)
        })
    }

    /// Approval and execution behind the idempotency gate (when the call has a key).
    async fn gated_execute(
        &self,
        entry: &Arc<Entry>,
        args: &Value,
        options: &CallOptions,
        operation_id: &str,
        trace: &Trace,
        budget: OutputBudget,
    ) -> (Envelope, Option<String>) {
        let sh = &self.shared;
        let Some(key) = self.idempotency_key(entry, args, options) else {
            let (env, detail, _) = self
                .approve_and_execute(entry, args, options, None, trace)
                .await;
            return (env, detail);
        };
        let effects = entry.tool.spec().effects;
        // Repeating a read or an idempotent write is safe, so its unknown outcome releases the key.
        let safe_to_repeat = effects.read_only || effects.idempotent;
        let gated = sh
            .gate
            .run_tracked(key, operation_id, |started| async move {
                let track = (!safe_to_repeat).then_some(&started);
                let (mut env, detail, ran) = self
                    .approve_and_execute(entry, args, options, track, trace)
                    .await;
                // Keep the result so a refused repeat can point at it; redact it first, as
                // everything kept is.
                if let Some(r) = &sh.redactor {
                    r.redact_envelope(&mut env);
                }
                if env.status == Status::Ok && env.reference.is_none() {
                    if let Some(data) = &env.data {
                        env.reference = sh.store.keep(data.clone());
                    }
                }
                // A returned error is kept too, so a repeat answered as a duplicate can say
                // what the original outcome was.
                let kept = if env.is_success() {
                    env.reference.clone()
                } else if ran == Ran::Returned {
                    sh.store.keep(serde_json::json!({
                        "status": env.status,
                        "code": env.code,
                        "message": env.message,
                    }))
                } else {
                    None
                };
                let disposition = match ran {
                    Ran::NotRun => Disposition::Release,
                    Ran::Returned => Disposition::Keep,
                    Ran::Stopped if safe_to_repeat => Disposition::Release,
                    Ran::Stopped => Disposition::Unknown,
                };
                GatedEnvelope {
                    env,
                    detail,
                    disposition,
                    kept,
                }
            })
            .await;
        let name = entry.tool.name();
        match gated {
            Gate::Ran(g) => (g.env, g.detail),
            Gate::Duplicate(dup) => {
                let original = dup.reference.as_deref().and_then(|r| sh.store.get(r));
                // The original is shown only when it fits the output budget (a refused envelope
                // is not cut); its `ref` always names it.
                let original = original.filter(|o| crate::budget::fits(o, budget.max_chars));
                let mut env = dup.into_envelope(name, &sh.gate);
                if let (Some(original), Some(Value::Object(details))) =
                    (original, env.data.as_mut())
                {
                    details.insert("original".into(), original);
                }
                (env, None)
            }
            Gate::Refused(refusal) => (refusal.into_envelope(name, &sh.gate), None),
        }
    }

    /// Approval (for `requires_approval` tools), then execution.
    async fn approve_and_execute(
        &self,
        entry: &Arc<Entry>,
        args: &Value,
        options: &CallOptions,
        started: Option<&Started>,
        trace: &Trace,
    ) -> (Envelope, Option<String>, Ran) {
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
                return (env, None, Ran::NotRun);
            };
            let request = ApprovalRequest::new(spec, args.clone(), options.caller.clone());
            let approval = match self.ask_approver(approver.as_ref(), &request).await {
                Ok(approval) => approval,
                Err(env) => return (env, None, Ran::NotRun),
            };
            if let Some(e) = approval.into_tool_error(&spec.name) {
                return (e.into_envelope(), None, Ran::NotRun);
            }
        }
        if let Some(started) = started {
            started.mark();
        }
        trace.mark_started();
        self.execute(entry, Exec::Value(args)).await
    }

    /// Asks the approver, within the approval timeout, containing a panic. Either answer is
    /// the approver's; otherwise the envelope of a call that did not run: `denied`
    /// (`APPROVAL_TIMEOUT`) when no answer came in time, `failed` (`APPROVER_FAILED`, counted as
    /// a fault) when the approver panicked.
    async fn ask_approver(
        &self,
        approver: &dyn Approver,
        request: &ApprovalRequest,
    ) -> Result<crate::approval::Approval, Envelope> {
        let asked = CatchUnwind(Box::pin(async move { approver.approve(request).await }));
        let answer = match self.shared.approval_timeout {
            Some(limit) => match tokio::time::timeout(limit, asked).await {
                Ok(answer) => answer,
                Err(_) => return Err(approval_timeout_envelope(&request.tool, limit)),
            },
            None => asked.await,
        };
        answer.map_err(|panic| {
            self.shared.faults.report(Fault {
                kind: FaultKind::Approver,
                tool: Some(request.tool.clone()),
                operation_id: None,
                detail: format!("panic: {panic}"),
            });
            ToolError::failed(
                "APPROVER_FAILED",
                format!(
                    "The approval step for \"{}\" failed, so the call did not run. Retrying is unlikely to help; tell the user the action needs their approval and could not be confirmed here.",
                    request.tool
                ),
            )
            .into_envelope()
        })
    }

    /// Runs the executor with the tool's timeout, catching panics, and checks the output contract.
    async fn execute(&self, entry: &Arc<Entry>, args: Exec<'_>) -> (Envelope, Option<String>, Ran) {
        let spec = entry.tool.spec();
        let timeout = spec
            .timeout_ms
            .map(Duration::from_millis)
            .or(self.shared.default_timeout);
        let reply = match args {
            Exec::Value(args) => self.invoke(entry, args, timeout).await,
            Exec::Typed(args) => self.invoke_typed(entry, args, timeout).await,
        };
        let reply = match reply {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => return (e.into_envelope(), None, Ran::Returned),
            Err(Stop::Timeout(limit)) => {
                return (timeout_envelope(spec, limit), None, Ran::Stopped)
            }
            Err(Stop::Panic(panic)) => {
                return (
                    internal_failure(),
                    Some(format!("panic: {panic}")),
                    Ran::Stopped,
                )
            }
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
                return (
                    env,
                    Some(format!("output contract: {detail}")),
                    Ran::Returned,
                );
            }
        }
        let mut env = Envelope::ok(reply.data);
        env.note = reply.note;
        env.truncated = reply.truncated;
        (env, None, Ran::Returned)
    }

    /// Calls the executor.
    ///
    /// - A sync tool with a timeout (or every sync tool, with
    ///   [`ToolboxBuilder::offload_sync_tools`]) runs on tokio's blocking pool, so it does not
    ///   stall the host's async threads and its timeout answers on time (the thread itself cannot
    ///   be stopped: it runs to its end in the background, and its result is discarded). Without
    ///   a timeout it runs in the caller's task, at the cost of a function call.
    /// - An async tool with a timeout runs as a task of its own, so the timer fires even when the
    ///   tool blocks its thread (on a multi-threaded runtime; on a current-thread runtime a tool
    ///   that blocks stalls everything until it yields). The task is aborted at the timeout or
    ///   when the call is dropped.
    /// - Otherwise, and outside a tokio runtime, the executor runs in the caller's task.
    async fn invoke(
        &self,
        entry: &Arc<Entry>,
        args: &Value,
        timeout: Option<Duration>,
    ) -> Result<Result<Reply<Value>, ToolError>, Stop> {
        let sh = &self.shared;
        let runtime = tokio::runtime::Handle::try_current().ok();
        match (&entry.tool.inner.invoke, runtime) {
            (Invoke::Blocking(f), Some(rt)) if timeout.is_some() || sh.offload_sync_tools => {
                let (f, context, args) = (*f, Arc::clone(&sh.context), args.clone());
                let task = rt.spawn_blocking(move || {
                    catch_unwind(AssertUnwindSafe(|| f(&context, &args))).map_err(panic_text)
                });
                join_task(task, timeout).await
            }
            (Invoke::Generated(f), Some(rt)) if timeout.is_some() => {
                let (f, context, args) = (*f, Arc::clone(&sh.context), args.clone());
                let task = rt.spawn(async move { CatchUnwind(f(&context, &args)).await });
                join_task(task, timeout).await
            }
            (Invoke::Dynamic(f), Some(rt)) if timeout.is_some() => {
                let (f, context, args) = (Arc::clone(f), Arc::clone(&sh.context), args.clone());
                let fut: BoxFuture<'static, Result<Reply<Value>, ToolError>> =
                    Box::pin(async move { f(context, args).await.map(Reply::new) });
                let task = rt.spawn(CatchUnwind(fut));
                join_task(task, timeout).await
            }
            (invoke, _) => {
                // The executor is called inside the future, so a panic while it builds its own
                // future (possible in a hand-written `Tool::from_fn` closure) is caught like one
                // while polling.
                let fut: BoxFuture<'_, Result<Reply<Value>, ToolError>> = match invoke {
                    Invoke::Generated(f) => {
                        let f = *f;
                        let context = &sh.context;
                        Box::pin(async move { f(context, args).await })
                    }
                    Invoke::Blocking(f) => {
                        let f = *f;
                        let context = &sh.context;
                        Box::pin(async move { f(context, args) })
                    }
                    Invoke::Dynamic(f) => {
                        let (f, context, args) =
                            (Arc::clone(f), Arc::clone(&sh.context), args.clone());
                        Box::pin(async move { f(context, args).await.map(Reply::new) })
                    }
                };
                let outcome = match timeout {
                    Some(limit) => match tokio::time::timeout(limit, CatchUnwind(fut)).await {
                        Ok(outcome) => outcome,
                        Err(_) => return Err(Stop::Timeout(limit)),
                    },
                    None => CatchUnwind(fut).await,
                };
                outcome.map_err(Stop::Panic)
            }
        }
    }

    /// [`Toolbox::invoke`] for arguments the typed fast path decoded: the same choice of where
    /// the executor runs.
    async fn invoke_typed(
        &self,
        entry: &Arc<Entry>,
        args: crate::typed::TypedArgs,
        timeout: Option<Duration>,
    ) -> Result<Result<Reply<Value>, ToolError>, Stop> {
        let sh = &self.shared;
        let Some(def) = entry.typed else {
            return Ok(Err(crate::typed::wrong_arguments()));
        };
        let runtime = tokio::runtime::Handle::try_current().ok();
        match (def.blocking, runtime) {
            (Some(f), Some(rt)) if timeout.is_some() || sh.offload_sync_tools => {
                let context = Arc::clone(&sh.context);
                let task = rt.spawn_blocking(move || {
                    catch_unwind(AssertUnwindSafe(|| f(&context, args))).map_err(panic_text)
                });
                join_task(task, timeout).await
            }
            (None, Some(rt)) if timeout.is_some() => {
                let (f, context) = (def.invoke, Arc::clone(&sh.context));
                let task = rt.spawn(async move { CatchUnwind(f(&context, args)).await });
                join_task(task, timeout).await
            }
            (blocking, _) => {
                let context = &sh.context;
                let fut: BoxFuture<'_, Result<Reply<Value>, ToolError>> = match blocking {
                    Some(f) if timeout.is_none() => {
                        // A sync tool in the caller's task: no future needed.
                        return catch_unwind(AssertUnwindSafe(|| f(context, args)))
                            .map_err(|p| Stop::Panic(panic_text(p)));
                    }
                    Some(f) => Box::pin(async move { f(context, args) }),
                    None => (def.invoke)(context, args),
                };
                let outcome = match timeout {
                    Some(limit) => match tokio::time::timeout(limit, CatchUnwind(fut)).await {
                        Ok(outcome) => outcome,
                        Err(_) => return Err(Stop::Timeout(limit)),
                    },
                    None => CatchUnwind(fut).await,
                };
                outcome.map_err(Stop::Panic)
            }
        }
    }
}

/// The arguments an executor runs on.
enum Exec<'a> {
    /// The validated value (the general path).
    Value(&'a Value),
    /// Arguments the typed fast path decoded.
    Typed(crate::typed::TypedArgs),
}

/// Why an executor gave no result.
enum Stop {
    Timeout(Duration),
    /// It panicked (the message is for the audit record only).
    Panic(String),
}

/// Whether the executor ran, for what the idempotency gate keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ran {
    /// Refused before it started (approval rejected or unavailable).
    NotRun,
    /// It returned a result, an error included.
    Returned,
    /// It was stopped (timeout) or crashed (panic): its effects are unknown.
    Stopped,
}

/// Where a requested page comes from ([`Toolbox::page_source`]).
enum PageSource {
    Stored(Value),
    Run,
    Expired,
}

/// The refusal of a later page of a write whose result is no longer kept.
fn page_expired(spec: &ToolSpec) -> Envelope {
    ToolError::refused(
        "PAGE_EXPIRED",
        format!(
            "The rest of this result of \"{}\" is no longer kept, and the tool changes data, so it was not run again just to show a page. Use the pages already shown; run it again (without the cursor) only if the user wants the action done again.",
            spec.name
        ),
    )
    .into_envelope()
}

/// Awaits a spawned executor with a timeout; the task is aborted when this future ends or is
/// dropped (a blocking task cannot be aborted once it runs and finishes in the background).
async fn join_task<R: Send + 'static>(
    task: tokio::task::JoinHandle<Result<R, String>>,
    timeout: Option<Duration>,
) -> Result<R, Stop> {
    let mut task = AbortOnDrop(task);
    let joined = match timeout {
        Some(limit) => match tokio::time::timeout(limit, &mut task.0).await {
            Ok(joined) => joined,
            Err(_) => {
                // Stop the tool before answering: a cooperative task is cancelled at its next
                // await, at once. One that blocks its thread cannot be; it is not waited for
                // longer than the grace period.
                task.0.abort();
                let _ = tokio::time::timeout(ABORT_GRACE, &mut task.0).await;
                return Err(Stop::Timeout(limit));
            }
        },
        None => (&mut task.0).await,
    };
    match joined {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(panic)) => Err(Stop::Panic(panic)),
        Err(e) => Err(Stop::Panic(format!(
            "the tool's task ended without a result: {e}"
        ))),
    }
}

/// How long a timed-out async tool is given to be cancelled before the timeout is answered.
const ABORT_GRACE: Duration = Duration::from_millis(100);

/// Aborts a spawned task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the pipeline learned about a call so far, for the audit record of a dropped call.
#[derive(Default)]
struct Trace(std::sync::Mutex<TraceInner>);

#[derive(Default)]
struct TraceInner {
    entry: Option<Arc<Entry>>,
    args_digest: Option<String>,
    started: bool,
}

impl Trace {
    fn lock(&self) -> std::sync::MutexGuard<'_, TraceInner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn set_entry(&self, entry: &Arc<Entry>) {
        self.lock().entry = Some(Arc::clone(entry));
    }
    fn set_args_digest(&self, digest: String) {
        self.lock().args_digest = Some(digest);
    }
    fn mark_started(&self) {
        self.lock().started = true;
    }
}

/// Writes the audit record of a call whose future is dropped before it finishes.
struct DropAudit<'a> {
    toolbox: &'a Toolbox,
    tool: &'a str,
    caller: &'a Caller,
    operation_id: &'a str,
    started: Instant,
    trace: &'a Trace,
    armed: bool,
}

impl Drop for DropAudit<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Some(sink) = &self.toolbox.shared.audit else {
            return;
        };
        let t = self.trace.lock();
        let mut rec = AuditRecord::new(AuditEvent::Call, self.operation_id, self.tool);
        if let Some(entry) = &t.entry {
            rec.fingerprint.clone_from(&entry.fingerprint);
            rec.version.clone_from(&entry.tool.spec().version);
        }
        rec.caller = self.caller.id().map(String::from);
        rec.code = Some(CANCELLED.to_string());
        rec.duration_ms =
            Some(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX));
        rec.args_digest.clone_from(&t.args_digest);
        rec.detail = Some(if t.started {
            "the host dropped the call while the tool ran; its effects are unknown".to_string()
        } else {
            "the host dropped the call before the tool ran".to_string()
        });
        drop(t);
        write_audit(sink.as_ref(), &self.toolbox.shared.faults, &rec);
    }
}

/// Parses, validates and completes the arguments: the value every later stage (the approver,
/// the hooks, the tool) sees. On failure, the envelope and whatever arguments were parsed.
#[allow(clippy::result_large_err)]
fn prepare_arguments(entry: &Entry, args: Arguments) -> Result<Value, (Envelope, Option<Value>)> {
    let spec = entry.tool.spec();
    let mut args = match args {
        Arguments::Value(v) => v,
        Arguments::Text(text) => parse_text(&text).map_err(|env| (*env, None))?,
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
        Err(errors) => return Err((invalid_arguments(errors), Some(args))),
    }
    if entry.tool.is_generated() {
        apply_defaults(&spec.input_schema, &mut args);
    }
    Ok(args)
}

/// Fills in the declared default of every absent top-level parameter, as the generated
/// executor's decoding does, so the approver and the hooks see what the tool will run with.
fn apply_defaults(schema: &Value, args: &mut Value) {
    let (Some(props), Value::Object(map)) =
        (schema.get("properties").and_then(Value::as_object), args)
    else {
        return;
    };
    for (name, prop) in props {
        if let Some(default) = prop.get("default") {
            if !map.contains_key(name) {
                map.insert(name.clone(), default.clone());
            }
        }
    }
}

/// An envelope with its audit detail, as the idempotency gate's outcome.
struct GatedEnvelope {
    env: Envelope,
    detail: Option<String>,
    disposition: Disposition,
    /// The record-store reference a duplicate points at: the result's data, or the summary of
    /// a returned error.
    kept: Option<String>,
}

impl GateOutcome for GatedEnvelope {
    fn succeeded(&self) -> bool {
        self.env.is_success()
    }
    fn reference(&self) -> Option<String> {
        self.kept.clone()
    }
    fn disposition(&self) -> Disposition {
        self.disposition
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

/// The envelope of a call whose approval did not come within `limit`.
fn approval_timeout_envelope(tool: &str, limit: Duration) -> Envelope {
    ToolError::denied(
        "APPROVAL_TIMEOUT",
        format!(
            "No one approved the call to \"{tool}\" within {} ms, so it did not run. Tell the user it needs their approval; call it again only if they ask.",
            limit.as_millis()
        ),
    )
    .into_envelope()
}

/// Writes one audit record; an error or a panic of the sink is counted as a fault.
fn write_audit(sink: &dyn AuditSink, faults: &Faults, rec: &AuditRecord) {
    if let Err(e) = crate::fault::contained(|| sink.try_record(rec)) {
        faults.report(Fault {
            kind: FaultKind::AuditSink,
            tool: Some(rec.tool.clone()),
            operation_id: Some(rec.operation_id.clone()),
            detail: e.to_string(),
        });
    }
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

/// The error for a name that is not a tool; it lists only the tools `caller` may call.
fn unknown_tool(reg: &Registry, name: &str, policy: &Policy, caller: &Caller) -> Envelope {
    let names: Vec<String> = reg
        .entries
        .iter()
        .filter(|e| policy.check(e.tool.spec(), caller).is_ok())
        .map(|e| format!("\"{}\"", e.tool.name()))
        .collect();
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
            Err(payload) => Poll::Ready(Err(panic_text(payload))),
        }
    }
}

/// The text of a panic's payload (for the audit record only).
pub(crate) fn panic_text(payload: Box<dyn Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-text payload".to_string())
}
