//! [`Toolbox`]: the registry of tools and its builder. Calls run through the pipeline
//! ([`crate::pipeline`]); build-time checks live in `pipeline::prepare`.

use crate::approval::{Approver, Hooks};
pub use crate::arguments::Arguments;
use crate::audit::{AuditRecord, AuditSink};
use crate::budget::{
    result_uri, MemoryRecordStore, OutputBudget, RecordStore, ResultReadError, ResultResource,
    ResultUri, RESULT_MIME_TYPE,
};
use crate::content::DEFAULT_MAX_CONTENT_BYTES;
use crate::context::Context;
use crate::envelope::{Envelope, Status};
use crate::fault::{
    Fault, FaultCounts, FaultHandler, FaultKind, Faults, GuardedState, GuardedStore,
};
use crate::idempotency::IdempotencyGate;
pub use crate::options::CallOptions;
use crate::pipeline::approval::Approve;
use crate::pipeline::audit::AuditTrail;
use crate::pipeline::budget::OutputCut;
use crate::pipeline::decode::Decode;
use crate::pipeline::execute::Execute;
use crate::pipeline::idempotency::Claims;
use crate::pipeline::paging::Paging;
use crate::pipeline::policy::PolicyCheck;
pub use crate::pipeline::prepare::Problem;
use crate::pipeline::redact::Redact;
use crate::pipeline::registry::{Engine, Registry, Retirement};
use crate::pipeline::retire::{replacement_problems, retirement_problem};
use crate::pipeline::size::ArgumentSize;
use crate::pipeline::threads::{Isolation, ToolThreads};
use crate::pipeline::{prepare, Entry, Stage, StageId, Stages};
use crate::policy::{Caller, Denial, Policy};
use crate::redact::Redactor;
use crate::secret::SecretKey;
use crate::spec::ToolSpec;
use crate::state::StateStore;
use crate::tool::Tool;
use arc_swap::ArcSwap;
use std::any::Any;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

/// Error returned by [`ToolboxBuilder::build`] and [`Toolbox::register`]: every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
#[non_exhaustive]
pub struct BuildError {
    /// The problems, in registration order.
    pub problems: Vec<Problem>,
}

/// Error returned by [`Toolbox::deregister`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no tool named `{name}` is registered")]
#[non_exhaustive]
pub struct NotRegistered {
    /// The name asked for.
    pub name: String,
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
    /// Whether a tool's requests to the client pass the redactor too.
    redact_client_requests: bool,
    budget: OutputBudget,
    max_content_bytes: usize,
    store: Arc<dyn RecordStore>,
    state: Option<Arc<dyn StateStore>>,
    claim_lease: Duration,
    default_timeout: Option<Duration>,
    idempotency_window: Duration,
    audit_key: Option<SecretKey>,
    cursor_key: Option<SecretKey>,
    offload_sync_tools: bool,
    isolation: Isolation,
    tool_threads: usize,
    typed_decoding: bool,
    check_output_contract: bool,
    max_argument_bytes: usize,
    approval_timeout: Option<Duration>,
    on_fault: Option<FaultHandler>,
    host_stages: Vec<(StageId, Arc<dyn Stage>)>,
    retirement: Retirement,
    /// The core set and namespaces given on the builder, applied at build.
    loading: Loading,
}

/// What the builder says about loading: the core set and the namespaces, by tool name.
#[derive(Default)]
struct Loading {
    core: Vec<String>,
    namespaces: Vec<(crate::spec::Namespace, Vec<String>)>,
}

impl Default for ToolboxBuilder {
    fn default() -> Self {
        // Every toolbox supplies the progress and client handles, so `#[context] progress:
        // &Progress` and `#[context] client: &Client` need no setup; reports and requests go
        // nowhere (or degrade) unless a transport listens (crate::progress, crate::client).
        let mut context = Context::new();
        context.insert(crate::progress::Progress::default());
        context.insert(crate::client::Client::default());
        ToolboxBuilder {
            tools: Vec::new(),
            context,
            policy: Policy::allow_all(),
            approver: None,
            hooks: Hooks::new(),
            audit: None,
            redactor: Some(Arc::new(Redactor::new())),
            redact_client_requests: true,
            budget: OutputBudget::default(),
            max_content_bytes: DEFAULT_MAX_CONTENT_BYTES,
            store: Arc::new(MemoryRecordStore::default()),
            state: None,
            claim_lease: DEFAULT_CLAIM_LEASE,
            default_timeout: None,
            idempotency_window: DEFAULT_IDEMPOTENCY_WINDOW,
            audit_key: None,
            cursor_key: None,
            offload_sync_tools: false,
            isolation: Isolation::None,
            tool_threads: Self::DEFAULT_TOOL_THREADS,
            typed_decoding: true,
            check_output_contract: cfg!(debug_assertions),
            max_argument_bytes: crate::limits::DEFAULT_MAX_ARGUMENT_BYTES,
            approval_timeout: None,
            on_fault: None,
            host_stages: Vec::new(),
            retirement: Retirement::default(),
            loading: Loading::default(),
        }
    }
}

/// How long a completed request identifies its repeats, unless set with
/// [`ToolboxBuilder::idempotency_window`]: one hour.
pub(crate) const DEFAULT_IDEMPOTENCY_WINDOW: Duration = Duration::from_secs(3600);

/// How long a claim in the shared state lives unless renewed ([`ToolboxBuilder::claim_lease`]).
pub(crate) const DEFAULT_CLAIM_LEASE: Duration = Duration::from_secs(10);

impl ToolboxBuilder {
    /// The most threads a toolbox runs tools on unless set with
    /// [`tool_threads`](Self::tool_threads).
    pub const DEFAULT_TOOL_THREADS: usize = 64;

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
    pub fn approver(self, approver: impl Approver + 'static) -> Self {
        self.shared_approver(Arc::new(approver))
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
    pub fn audit(self, sink: impl AuditSink + 'static) -> Self {
        self.shared_audit(Arc::new(sink))
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

    /// Whether what a tool sends its client passes the redactor (default `true`): the messages
    /// and system prompt of a [`Client::sample`](crate::Client::sample) request, which the
    /// client's model reads, and the text of a question to the user ([`Client::ask`]: its
    /// message, its fields' titles, descriptions and text defaults), as the toolbox redacts a
    /// result. Log messages are the tool's own words to the host and pass as they are.
    ///
    /// `false` is the way out for a host whose tools must send the client's model a secret (a
    /// token it is to use, say): its tools' requests then go out as written, while results are
    /// still redacted. Prefer leaving it on and handing the model a reference to the secret.
    ///
    /// [`Client::ask`]: crate::Client::ask
    #[must_use]
    pub fn redact_client_requests(mut self, redact: bool) -> Self {
        self.redact_client_requests = redact;
        self
    }

    /// The default output budget in characters of serialized `data` (default 1500, Chrome's
    /// guidance); `#[tool(output_budget = N)]` overrides it per tool.
    #[must_use]
    pub fn output_budget(mut self, max_chars: usize) -> Self {
        self.budget = OutputBudget::new(max_chars);
        self
    }

    /// The most bytes of JSON (base64 included) the content blocks of one result may take
    /// (default [`DEFAULT_MAX_CONTENT_BYTES`], 16 MiB): the output budget does not cut content
    /// ([`crate::content`]), so a larger result is `failed` with
    /// [`CONTENT_TOO_LARGE`](crate::codes::CONTENT_TOO_LARGE) instead of sent.
    #[must_use]
    pub fn max_content_bytes(mut self, limit: usize) -> Self {
        self.max_content_bytes = limit;
        self
    }

    /// Where full results cut to the budget are kept (default: an in-memory store of 256 records).
    #[must_use]
    pub fn record_store(mut self, store: impl RecordStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The state this toolbox shares with the other replicas of its service (a
    /// [`StateStore`](crate::state::StateStore): Redis, PostgreSQL, ...): every keyed call
    /// also claims its idempotency key there, holding a lease while it runs, and its outcome is
    /// written there, so a repeat is answered the same on every replica (`DUPLICATE`,
    /// `IN_PROGRESS`, `OUTCOME_UNKNOWN`), and a replica that dies mid-run leaves the write's
    /// outcome unknown, never free to run again. When the store cannot be reached, keyed calls
    /// are `temporary_failure` (`IDEMPOTENCY_UNAVAILABLE`) and do not run; calls without a key
    /// never touch it. Default: none (one process; the in-memory gate).
    #[must_use]
    pub fn state_store(mut self, store: Arc<dyn StateStore>) -> Self {
        self.state = Some(store);
        self
    }

    /// How long a claim in the [`state_store`](Self::state_store) lives unless renewed
    /// (default 10 s; at least 30 ms). It is renewed every third of it while the tool runs, so
    /// it only lapses when the replica that holds it dies: repeats are `IN_PROGRESS` until
    /// then, and `OUTCOME_UNKNOWN` (a write that had started) or run (one that had not) after.
    #[must_use]
    pub fn claim_lease(mut self, lease: Duration) -> Self {
        self.claim_lease = lease;
        self
    }

    /// The timeout of tools that declare none (default: none). Timeouts use tokio's timer: calls
    /// must run inside a tokio runtime with time enabled. A tool with a timeout runs on the
    /// toolbox's tool threads ([`tool_threads`](Self::tool_threads)), apart from the caller's
    /// runtime, so the timeout answers on time and the host's other work goes on even when the
    /// tool blocks its thread.
    #[must_use]
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// How long a completed request identifies its repeats (default one hour).
    #[must_use]
    pub fn idempotency_window(mut self, window: Duration) -> Self {
        self.idempotency_window = window;
        self
    }

    /// Runs every sync tool on the toolbox's tool threads ([`tool_threads`](Self::tool_threads)),
    /// also those without a timeout, so a slow sync tool never occupies one of the host's async
    /// threads. By default only tools with a timeout (declared, or
    /// [`default_timeout`](Self::default_timeout)) go there, since the hand-off costs about ten
    /// microseconds per call against a fraction of one inline.
    #[must_use]
    pub fn offload_sync_tools(mut self) -> Self {
        self.offload_sync_tools = true;
        self
    }

    /// Runs the named tools (sync or async, registered now or later) on the toolbox's tool
    /// threads whatever their timeout, so one that blocks its thread holds a thread of the
    /// toolbox, never one of the host's runtime. Tools with a timeout run there anyway. Give
    /// an isolated tool a timeout too: without one, a call that finds every tool thread taken
    /// waits until one frees.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// let tb = toolsmith::Toolbox::builder()
    ///     .isolate_tools(["convert_document", "render_chart"])
    ///     .build()
    ///     .unwrap();
    /// # drop(tb);
    /// ```
    #[must_use]
    pub fn isolate_tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let mut listed = match std::mem::take(&mut self.isolation) {
            Isolation::Listed(names) => names,
            Isolation::All => return self.isolate_all_tools(),
            Isolation::None => Default::default(),
        };
        listed.extend(names.into_iter().map(Into::into));
        self.isolation = Isolation::Listed(listed);
        self
    }

    /// Runs every tool on the toolbox's tool threads (see [`isolate_tools`](Self::isolate_tools)),
    /// for a host that cannot vouch that its tools never block. Each call then pays a hand-off
    /// to a tool thread (recorded in BENCHMARKS.md), and at most
    /// [`tool_threads`](Self::tool_threads) calls run at once.
    #[must_use]
    pub fn isolate_all_tools(mut self) -> Self {
        self.isolation = Isolation::All;
        self
    }

    /// The most threads the toolbox runs tools on, apart from the caller's runtime (default
    /// [`DEFAULT_TOOL_THREADS`](Self::DEFAULT_TOOL_THREADS), 64; at least 1). Each run holds one thread, also a tool that
    /// blocks it past its timeout, until the tool returns
    /// ([`Toolbox::held_tool_threads`] counts those). A call that finds them all taken waits
    /// for one within its timeout; when none frees in time, the tool did not run and the call
    /// is `temporary_failure` with the code `TOOLS_BUSY`.
    #[must_use]
    pub fn tool_threads(mut self, limit: usize) -> Self {
        self.tool_threads = limit;
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

    /// Whether each result is checked against its tool's output schema (the stage
    /// `output_contract`): a result that does not match is `failed` with `OUTPUT_CONTRACT`, the
    /// mismatch in the audit record. Default: on in debug builds (and so in tests), where such a
    /// result is a bug to find; off in release builds, where the check would parse every
    /// result a tool returns as text ([`Toolbox::call_json`]) again. Turn it on in release for
    /// tools whose output another program reads, or off in debug to run as release does.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; }
    /// let toolbox = toolsmith::Toolbox::builder()
    ///     .check_output_contract(true)
    ///     .build()
    ///     .unwrap();
    /// # let _ = toolbox;
    /// ```
    #[must_use]
    pub fn check_output_contract(mut self, check: bool) -> Self {
        self.check_output_contract = check;
        self
    }

    /// The key that binds cursors to their tool, caller and arguments (default: a random key
    /// per toolbox, so a cursor is honoured only by the toolbox that issued it). Replicas of a
    /// service that share a [`state_store`](Self::state_store) are given the same key
    /// ([`SecretKey::from_env`], [`SecretKey::from_file`]) so that each serves the others'
    /// cursors; keep it secret, as anyone with it can forge cursors.
    #[must_use]
    pub fn cursor_key(mut self, key: SecretKey) -> Self {
        self.cursor_key = Some(key);
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

    /// The largest arguments a call may send, in bytes of JSON (default 4 MiB). Larger
    /// arguments are refused before they are parsed, as `invalid_input` with the code
    /// `ARGUMENTS_TOO_LARGE`. Arguments given as a `serde_json::Value` are counted as the bytes
    /// of their compact JSON text (as `serde_json::to_string` writes it, without writing it), so
    /// the same arguments as a value and as that text pass or fail alike.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let tb = toolsmith::Toolbox::builder().max_argument_bytes(64).build().unwrap();
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
    /// fails, an approver that panics; see [`Fault`](crate::Fault)). Faults are counted whether or not a
    /// callback is set ([`Toolbox::faults`]). The callback runs inside the call: keep it short,
    /// and do not call the toolbox from it. A panic in it is contained.
    #[must_use]
    pub fn on_fault(mut self, f: impl Fn(&Fault) + Send + Sync + 'static) -> Self {
        self.on_fault = Some(Arc::new(f));
        self
    }

    /// Adds a host stage to the call pipeline, run just before the built-in stage `before` (one
    /// of `lookup` to `output_contract`; see [`crate::pipeline`] for the order and what each
    /// point has seen). Stages placed at the same point run in the order they were added. A
    /// stage that ends the call answers like a built-in refusal: the tool does not run, and the
    /// envelope is redacted, bounded and audited. A point outside that range is reported by
    /// [`build`](Self::build) as [`Problem::InvalidStage`].
    ///
    /// Typical points: [`StageId::Policy`] (the tool is known, nothing is parsed: a rate limit
    /// or a quota), [`StageId::Cursor`] (the arguments are validated: a remote policy on
    /// their values), [`StageId::Execute`] (after approval, just before the tool runs).
    #[must_use]
    pub fn stage(mut self, before: StageId, stage: impl Stage) -> Self {
        self.host_stages.push((before, Arc::new(stage)));
        self
    }

    /// Retires the deprecated tool `name` at `at`: from then on it is absent from
    /// [`Toolbox::specs`] and every export (an MCP server tells its clients the list changed),
    /// and its calls are `invalid_input` with the code `TOOL_RETIRED`, whose message names the
    /// tool that replaces it (with that tool's description) so the model calls it instead. The
    /// call does not run the tool and is audited with the deprecation state `retired`.
    ///
    /// A deprecation names a version, not a date: the host chooses when the window ends. A
    /// time already past at build retires the tool at once (it is never listed). The times
    /// are read from the toolbox's [`clock`](Self::clock): replicas retire a tool each by its
    /// own clock, so give them the same time and keep their clocks in step (a replica whose
    /// clock is behind lists the tool a little longer). [`build`](Self::build) reports a name
    /// that is not a registered tool, or one that is not deprecated, as
    /// [`Problem::InvalidRetirement`].
    #[must_use]
    pub fn retire_at(mut self, name: impl Into<String>, at: SystemTime) -> Self {
        self.retirement.at.insert(name.into(), at);
        self
    }

    /// Retires every deprecated tool (registered now or later) at `start + window`, unless
    /// [`retire_at`](Self::retire_at) gives it a time of its own; `start` is when the host
    /// published the deprecations (a release's date, say). See [`retire_at`](Self::retire_at).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::time::{Duration, SystemTime};
    /// use toolsmith::{Deprecation, Effects, Tool, ToolSpec, Toolbox};
    /// let tool = |name: &str, deprecation: Option<Deprecation>| {
    ///     let mut spec = ToolSpec::new(name, "Searches. Returns offers.",
    ///         serde_json::json!({"type": "object", "additionalProperties": false}))
    ///         .with_effects(Effects::none().with_read_only(true)).with_version("3.0.0");
    ///     if let Some(d) = deprecation { spec = spec.with_deprecated(d); }
    ///     Tool::from_fn(spec, |_, _| Box::pin(async { Ok(serde_json::json!([])) }))
    /// };
    /// let published = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    /// let now = std::sync::Arc::new(std::sync::Mutex::new(published));
    /// let clock = std::sync::Arc::clone(&now);
    /// let toolbox = Toolbox::builder()
    ///     .tool(tool("search_v1", Some(Deprecation::new("3").with_replacement("search"))))
    ///     .tool(tool("search", None))
    ///     .retire_deprecated_after(published, Duration::from_secs(30 * 86_400))
    ///     .clock(move || *clock.lock().unwrap())
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(toolbox.names(), ["search_v1", "search"]);
    /// *now.lock().unwrap() += Duration::from_secs(30 * 86_400);
    /// assert_eq!(toolbox.names(), ["search"]);
    /// let env = toolbox.call("search_v1", "{}").await;
    /// assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    /// assert!(env.message.unwrap().contains("Call \"search\" instead"));
    /// # });
    /// ```
    #[must_use]
    pub fn retire_deprecated_after(mut self, start: SystemTime, window: Duration) -> Self {
        self.retirement.deprecated_at = Some(start.checked_add(window).unwrap_or(start));
        self
    }

    /// Where the toolbox reads the time retirements are judged by (default
    /// `SystemTime::now`): for tests, and for hosts that keep their own time.
    #[must_use]
    pub fn clock(mut self, now: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        self.retirement.clock = Arc::new(now);
        self
    }

    /// Builds the toolbox, reporting every problem at once: duplicate names, missing context
    /// values, unusable schemas, host stages out of place, a replacement that is not
    /// registered or a cycle of replacements, a retirement time for a tool that is not
    /// registered or not deprecated, a core set or namespace naming no registered tool.
    pub fn build(mut self) -> Result<Toolbox, BuildError> {
        let mut registry = Registry::default();
        let mut problems = Vec::new();
        let tools = std::mem::take(&mut self.tools);
        self.tools = apply_loading(tools, &self.loading, &mut problems);
        for tool in &self.tools {
            match prepare(tool, &self.context, &registry, self.check_output_contract) {
                Ok(entry) => {
                    problems.extend(retirement_problem(&self.retirement, tool.spec()));
                    registry.schedule(&self.retirement, tool.spec());
                    registry.push(entry);
                }
                Err(mut p) => problems.append(&mut p),
            }
        }
        problems.extend(replacement_problems(
            &registry,
            self.tools.iter().map(Tool::name),
        ));
        for name in self.retirement.at.keys() {
            if !self.tools.iter().any(|t| t.name() == name) {
                problems.push(Problem::InvalidRetirement {
                    tool: name.clone(),
                    reason: "it has a retirement time but no tool of that name is registered"
                        .into(),
                });
            }
        }
        for (before, _) in &self.host_stages {
            if !before.accepts_host_stage() {
                problems.push(Problem::InvalidStage { before: *before });
            }
        }
        problems.extend(namespace_problems(
            registry.entries.iter().map(|e| e.tool.spec().clone()),
        ));
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        let faults = Arc::new(Faults::new(self.on_fault.clone()));
        let retirement = self.retirement.clone();
        let stages = self.into_stages(&faults);
        for e in &registry.entries {
            stages.audit.write(&AuditRecord::register(e.tool.spec()));
        }
        // A window that ended before the build: those tools are never listed.
        for e in registry.retire_due(retirement.now()) {
            stages.audit.write(&AuditRecord::retire(e.tool.spec()));
        }
        Ok(Toolbox {
            engine: Engine {
                registry: ArcSwap::from_pointee(registry),
                stages,
                faults,
                retirement,
            },
            writing: Mutex::new(()),
            changes: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The stages, each given the settings it owns: what several stages need (the record
    /// store, the fault counter, the redactor) each gets a handle to.
    fn into_stages(self, faults: &Arc<Faults>) -> Stages {
        let store = Arc::new(GuardedStore::new(self.store, Arc::clone(faults)));
        // Kept results live as long as the repeats they answer (the idempotency window).
        let shared = self.state.as_ref().map(|state| {
            Arc::new(GuardedState::new(
                Arc::clone(state),
                Arc::clone(faults),
                self.idempotency_window,
            ))
        });
        let mut gate = IdempotencyGate::new(self.idempotency_window)
            .refusing_in_progress()
            .with_durable_store(Arc::clone(&store) as Arc<dyn RecordStore>);
        if let Some(state) = self.state {
            let counted = Arc::clone(faults);
            gate = gate
                .with_state_store(state, self.claim_lease)
                .reporting_to(Arc::new(move |e| {
                    counted.report(Fault {
                        kind: FaultKind::RecordStore,
                        tool: None,
                        operation_id: None,
                        detail: e.to_string(),
                    })
                }));
        }
        let mut host = self.host_stages;
        // In pipeline order; a stable sort keeps the order of stages at one point.
        host.sort_by_key(|(before, _)| crate::pipeline::ORDER.iter().position(|id| id == before));
        // The fast path skips the argument value, which the audit digest, the hooks and the
        // host's stages read.
        let typed =
            self.typed_decoding && self.audit.is_none() && self.hooks.is_empty() && host.is_empty();
        Stages {
            size: ArgumentSize {
                max_bytes: self.max_argument_bytes,
            },
            policy: PolicyCheck {
                policy: self.policy,
            },
            decode: Decode { typed },
            paging: Paging {
                secret: self.cursor_key.unwrap_or_else(SecretKey::random),
                store: Arc::clone(&store),
                shared: shared.clone(),
            },
            hooks: self.hooks,
            claims: Claims {
                gate,
                store: Arc::clone(&store),
                budget: self.budget,
                faults: Arc::clone(faults),
                shared: shared.clone(),
            },
            approval: Approve {
                approver: self.approver,
                timeout: self.approval_timeout,
                faults: Arc::clone(faults),
            },
            execute: Execute {
                context: Arc::new(self.context),
                check_output_contract: self.check_output_contract,
                default_timeout: self.default_timeout,
                offload_sync_tools: self.offload_sync_tools,
                isolation: self.isolation,
                threads: ToolThreads::new(self.tool_threads),
                redactor: self.redactor.clone(),
                client_redactor: self
                    .redactor
                    .clone()
                    .filter(|_| self.redact_client_requests),
                faults: Arc::clone(faults),
            },
            redact: Redact {
                redactor: self.redactor.clone(),
            },
            cut: OutputCut {
                budget: self.budget,
                max_content_bytes: self.max_content_bytes,
                store,
                shared,
            },
            audit: AuditTrail {
                sink: self.audit,
                key: self.audit_key.unwrap_or_else(SecretKey::random),
                redactor: self.redactor,
                faults: Arc::clone(faults),
            },
            host,
        }
    }
}

/// Deferred loading and namespaces, set on the builder (the same marks as `#[tool(core)]` and
/// `#[tools(namespace = ...)]`).
impl ToolboxBuilder {
    /// Marks the named tools as the toolbox's always-loaded core set (as `#[tool(core)]` does):
    /// once any tool is core, the Anthropic and OpenAI Responses exports defer every other tool
    /// (`defer_loading: true`, with the platform's tool-search tool); with no core tool nothing
    /// is deferred. Applies to the tools registered on the builder; a name that is not one of
    /// them fails [`build`](Self::build) with [`Problem::UnknownTool`]. May be called more than
    /// once; the sets add up.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Tool, ToolSpec, Toolbox};
    /// let tool = |name: &str| Tool::from_fn(
    ///     ToolSpec::new(name, "Does one thing. Returns the result.", serde_json::json!({"type": "object"})),
    ///     |_, _| Box::pin(async { Ok(serde_json::json!({})) }),
    /// );
    /// let tb = Toolbox::builder()
    ///     .tool(tool("search_orders"))
    ///     .tool(tool("refund_order"))
    ///     .core(["search_orders"])
    ///     .build()
    ///     .unwrap();
    /// let tools = tb.export(toolsmith::export::Target::Anthropic { strict: false }).unwrap();
    /// assert_eq!(tools[1]["name"], "refund_order");
    /// assert_eq!(tools[1]["defer_loading"], true);
    /// let err = Toolbox::builder().tool(tool("search_orders")).core(["serch_orders"]).build().unwrap_err();
    /// assert!(err.to_string().contains("`.core(...)` names `serch_orders`, which is not a registered tool"));
    /// ```
    #[must_use]
    pub fn core<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.loading.core.extend(names.into_iter().map(Into::into));
        self
    }

    /// Puts the named tools into the namespace `name`, described by `description` (as
    /// `#[tools(namespace = ..., namespace_description = ...)]` does): the OpenAI Responses
    /// export groups them into one `{"type": "namespace"}` entry; other targets ignore
    /// namespaces. A name that is not a tool registered on the builder fails
    /// [`build`](Self::build) with [`Problem::UnknownTool`]; a namespace OpenAI cannot take (its
    /// name breaks the function-name rule, its description is empty or differs between tools,
    /// a tool has its name) with [`Problem::InvalidNamespace`].
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Tool, ToolSpec, Toolbox};
    /// let tool = |name: &str| Tool::from_fn(
    ///     ToolSpec::new(name, "Does one thing. Returns the result.", serde_json::json!({"type": "object"})),
    ///     |_, _| Box::pin(async { Ok(serde_json::json!({})) }),
    /// );
    /// let tb = Toolbox::builder()
    ///     .tool(tool("list_invoices"))
    ///     .tool(tool("refund_invoice"))
    ///     .namespace("billing", "Invoices and refunds.", ["list_invoices", "refund_invoice"])
    ///     .build()
    ///     .unwrap();
    /// let tools = tb.export(toolsmith::export::Target::OpenAiResponses { strict: true }).unwrap();
    /// assert_eq!(tools[0]["type"], "namespace");
    /// assert_eq!(tools[0]["tools"][1]["name"], "refund_invoice");
    /// ```
    #[must_use]
    pub fn namespace<S: Into<String>>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        tools: impl IntoIterator<Item = S>,
    ) -> Self {
        self.loading.namespaces.push((
            crate::spec::Namespace::new(name, description),
            tools.into_iter().map(Into::into).collect(),
        ));
        self
    }
}

/// The builder's core set and namespaces applied to its tools; a name that is no tool's is a
/// problem.
fn apply_loading(
    mut tools: Vec<Tool>,
    loading: &Loading,
    problems: &mut Vec<Problem>,
) -> Vec<Tool> {
    let mut marks: Vec<(&'static str, &String)> = Vec::new();
    marks.extend(loading.core.iter().map(|n| ("core", n)));
    for (_, names) in &loading.namespaces {
        marks.extend(names.iter().map(|n| ("namespace", n)));
    }
    for (setting, name) in marks {
        if !tools.iter().any(|t| t.name() == name.as_str()) {
            let registered: Vec<&str> = tools.iter().map(Tool::name).collect();
            problems.push(Problem::UnknownTool {
                setting,
                name: name.clone(),
                registered: registered.join(", "),
            });
        }
    }
    for tool in &mut tools {
        if loading.core.iter().any(|n| n == tool.name()) {
            *tool = tool.clone().with_core(true);
        }
        if let Some((ns, _)) = loading
            .namespaces
            .iter()
            .rev()
            .find(|(_, names)| names.iter().any(|n| n == tool.name()))
        {
            *tool = tool.clone().with_namespace(ns.clone());
        }
    }
    tools
}

/// The namespace problems of a tool list ([`toolsmith_spec::export::check_namespaces`]).
fn namespace_problems(specs: impl Iterator<Item = ToolSpec>) -> Vec<Problem> {
    let specs: Vec<ToolSpec> = specs.collect();
    if specs.iter().all(|s| s.namespace.is_none()) {
        return Vec::new();
    }
    toolsmith_spec::export::check_namespaces(&specs)
        .into_iter()
        .map(|e| Problem::InvalidNamespace {
            tool: e.tool.clone(),
            reason: e.problem(),
        })
        .collect()
}

/// The registry of tools. Calls run through the pipeline of [`crate::pipeline`]: argument size
/// limit → lookup → policy → decoding → validation (defaults filled in) → cursor →
/// before-hooks → stored page → idempotency → approval → execution (timeout, panics caught) →
/// output contract → redaction → idempotency record → after-hooks → output budget (data, notes,
/// messages) → audit → envelope; the host can add its own stages
/// ([`ToolboxBuilder::stage`]).
///
/// A toolbox is shared by reference across concurrent calls (`Arc<Toolbox>`); registering and
/// retiring tools take `&self`.
pub struct Toolbox {
    /// The registry and the stages every call runs through.
    pub(crate) engine: Engine,
    /// Held by the one `update` that derives the next registry from the current one.
    writing: Mutex<()>,
    /// The registry's generation, for [`Toolbox::watch_changes`].
    changes: tokio::sync::watch::Sender<u64>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reg = self.registry();
        f.debug_struct("Toolbox")
            .field("tools", &reg.names())
            .finish()
    }
}

impl Toolbox {
    /// Starts building a toolbox.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder::default()
    }

    /// The registry for a moment's reading: no reference count is taken. Tools whose
    /// retirement time has come leave it first.
    pub(crate) fn registry(&self) -> arc_swap::Guard<Arc<Registry>> {
        self.retire_due();
        self.engine.registry()
    }

    /// Moves the deprecated tools whose retirement time has come out of the list: a change
    /// like a deregistration (the generation moves, watchers are told, each is audited as
    /// [`AuditEvent::Retire`](crate::AuditEvent::Retire)).
    fn retire_due(&self) {
        let current = self.engine.registry();
        if current.retire_at.is_empty() {
            return;
        }
        let now = self.engine.retirement.now();
        if !current.any_due(now) {
            return;
        }
        drop(current);
        let mut retired = Vec::new();
        let changed = self.update(|reg| {
            let mut next = reg.clone();
            retired = next.retire_due(now);
            (!retired.is_empty()).then_some(next)
        });
        if let Some(generation) = changed {
            for e in &retired {
                self.audit_change(AuditRecord::retire(e.tool.spec()));
            }
            self.announce(generation);
        }
    }

    /// How long until the next listed deprecated tool retires, by the toolbox's
    /// [clock](ToolboxBuilder::clock) (zero when one is due now); `None` when none is to
    /// retire. A server that keeps sessions open wakes then, so its clients hear that the
    /// list changed without asking first.
    pub fn next_retirement_in(&self) -> Option<Duration> {
        let reg = self.engine.registry();
        let next = reg.retire_at.values().min()?;
        Some(
            next.duration_since(self.engine.retirement.now())
                .unwrap_or(Duration::ZERO),
        )
    }

    /// Replaces the registry with the one `f` derives from it (`None`: nothing changed), one
    /// writer at a time; returns the new registry's generation.
    fn update(&self, f: impl FnOnce(&Registry) -> Option<Registry>) -> Option<u64> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let current = self.engine.registry.load();
        let mut next = f(&current)?;
        next.generation = current.generation + 1;
        self.engine.registry.store(Arc::new(next));
        Some(current.generation + 1)
    }

    /// Tells the watchers of a new generation. Writers that race may get here out of order, so
    /// the watched value only moves forward.
    fn announce(&self, generation: u64) {
        self.changes.send_if_modified(|n| {
            let newer = generation > *n;
            if newer {
                *n = generation;
            }
            newer
        });
    }

    /// The specs of the registered tools, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.registry()
            .entries
            .iter()
            .map(|e| e.tool.spec().clone())
            .collect()
    }

    /// The spec of one registered tool.
    pub fn spec(&self, name: &str) -> Option<ToolSpec> {
        let reg = self.registry();
        reg.index
            .get(name)
            .map(|&i| reg.entries[i].tool.spec().clone())
    }

    /// How many faults of the host's parts (audit sink, record store, approver) this toolbox has
    /// seen since it was built; see [`Fault`](crate::Fault) and [`ToolboxBuilder::on_fault`].
    pub fn faults(&self) -> FaultCounts {
        self.engine.faults.counts()
    }

    /// How many of the toolbox's tool threads ([`ToolboxBuilder::tool_threads`]) still run a
    /// tool whose call has already ended: it passed its timeout without stopping (a sync tool,
    /// or an async tool that blocks its thread), or the host dropped the call. Each holds its
    /// thread until the tool returns; a figure that keeps growing names a tool that blocks. For
    /// the host's health checks.
    pub fn held_tool_threads(&self) -> usize {
        self.engine.stages.execute.threads.held()
    }

    /// The names of the registered tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.registry()
            .names()
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// Writes a register or deregister record, when the toolbox has an audit sink.
    fn audit_change(&self, rec: AuditRecord) {
        self.engine.stages.audit.write(&rec);
    }

    /// Registers a tool on a running toolbox (with the same checks as [`ToolboxBuilder::build`]).
    pub fn register(&self, tool: Tool) -> Result<(), BuildError> {
        let mut result = Ok(());
        let execute = &self.engine.stages.execute;
        let changed = self.update(|reg| {
            match prepare(&tool, &execute.context, reg, execute.check_output_contract) {
                Ok(entry) => {
                    let mut next = reg.clone();
                    next.retired.remove(tool.name());
                    next.push(entry);
                    let retirement = &self.engine.retirement;
                    next.schedule(retirement, tool.spec());
                    let mut problems: Vec<Problem> = retirement_problem(retirement, tool.spec())
                        .into_iter()
                        .collect();
                    problems.extend(replacement_problems(&next, [tool.name()]));
                    problems.extend(namespace_problems(
                        next.entries.iter().map(|e| e.tool.spec().clone()),
                    ));
                    if problems.is_empty() {
                        Some(next)
                    } else {
                        result = Err(BuildError { problems });
                        None
                    }
                }
                Err(problems) => {
                    result = Err(BuildError { problems });
                    None
                }
            }
        });
        if let Some(generation) = changed {
            self.audit_change(AuditRecord::register(tool.spec()));
            self.announce(generation);
        }
        result
    }

    /// Retires a tool: it leaves [`specs`](Self::specs), and calls to it return `invalid_input`
    /// (code `TOOL_RETIRED`) naming the tools that remain. For a planned retirement, in which
    /// the model is first told what to use instead, deprecate the tool and give it a time
    /// ([`ToolboxBuilder::retire_at`]). A deprecated tool that names this one as its
    /// replacement keeps naming it in its notice: deregister or re-register that one too.
    pub fn deregister(&self, name: &str) -> Result<(), NotRegistered> {
        let mut removed: Option<Arc<Entry>> = None;
        let changed = self.update(|reg| {
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
            next.retired.insert(name.to_string(), None);
            next.retire_at = reg.retire_at.clone();
            next.retire_at.remove(name);
            removed.is_some().then_some(next)
        });
        let (Some(entry), Some(generation)) = (removed, changed) else {
            return Err(NotRegistered {
                name: name.to_string(),
            });
        };
        self.audit_change(AuditRecord::deregister(entry.tool.spec()));
        self.announce(generation);
        Ok(())
    }

    /// A receiver that sees a new value after every [`register`](Self::register) and
    /// [`deregister`](Self::deregister): servers use it to tell connected clients that the tool
    /// list changed. The value counts the changes since the toolbox was built.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # use toolsmith::{Tool, Toolbox, ToolSpec, Effects};
    /// let toolbox = Toolbox::builder().build().unwrap();
    /// let mut changes = toolbox.watch_changes();
    /// assert!(!changes.has_changed().unwrap());
    /// # let spec = ToolSpec::new("noop", "Does nothing. Returns null.",
    /// #     serde_json::json!({"type": "object", "additionalProperties": false}))
    /// #     .with_effects(Effects::none().with_read_only(true)).with_version("1.0.0");
    /// toolbox.register(Tool::from_fn(spec, |_, _| Box::pin(async { Ok(serde_json::Value::Null) }))).unwrap();
    /// assert!(changes.has_changed().unwrap());
    /// assert_eq!(*changes.borrow_and_update(), 1);
    /// ```
    pub fn watch_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// How many times the tool list has changed since the toolbox was built, read from the
    /// current tools themselves (the value [`watch_changes`](Self::watch_changes) reports once
    /// the change is announced). A cache of anything derived from the tools (their specs, an
    /// export) is current while this has not moved.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # use toolsmith::{Tool, Toolbox, ToolSpec, Effects};
    /// let toolbox = Toolbox::builder().build().unwrap();
    /// assert_eq!(toolbox.generation(), 0);
    /// # let spec = ToolSpec::new("noop", "Does nothing. Returns null.",
    /// #     serde_json::json!({"type": "object", "additionalProperties": false}))
    /// #     .with_effects(Effects::none().with_read_only(true)).with_version("1.0.0");
    /// toolbox.register(Tool::from_fn(spec, |_, _| Box::pin(async { Ok(serde_json::Value::Null) }))).unwrap();
    /// assert_eq!(toolbox.generation(), 1);
    /// toolbox.deregister("noop").unwrap();
    /// assert_eq!(toolbox.generation(), 2);
    /// ```
    pub fn generation(&self) -> u64 {
        self.registry().generation
    }

    /// Calls a tool as an anonymous caller. Never panics and never fails: every outcome is an
    /// [`Envelope`].
    ///
    /// `args` is a `serde_json::Value` or JSON text (`String`), owned or borrowed (`&Value`,
    /// `&str`: not copied, see [`Arguments`]).
    pub fn call<'a>(
        &'a self,
        name: &'a str,
        args: impl Into<Arguments<'a>>,
    ) -> impl Future<Output = Envelope> + 'a {
        self.call_with(name, args, CallOptions::default())
    }

    /// Calls a tool on behalf of `caller` (checked by the policy, recorded in the audit trail).
    pub fn call_as<'a>(
        &'a self,
        caller: &Caller,
        name: &'a str,
        args: impl Into<Arguments<'a>>,
    ) -> impl Future<Output = Envelope> + 'a {
        self.call_with(name, args, CallOptions::new().caller(caller.clone()))
    }

    /// Calls a tool with per-call options (caller, idempotency key).
    ///
    /// Every call leaves one audit record. If the host drops the returned future before it
    /// finishes (a client disconnect, an outer timeout), the record is written when the future
    /// is dropped: it has no `status`, the code `CANCELLED` ([`crate::codes::CANCELLED`]), and a
    /// `detail` saying whether the tool had started (then its effects are unknown, and repeats of
    /// a keyed write are refused as `OUTCOME_UNKNOWN` for the idempotency window).
    pub fn call_with<'a>(
        &'a self,
        name: &'a str,
        args: impl Into<Arguments<'a>>,
        options: CallOptions,
    ) -> impl Future<Output = Envelope> + 'a {
        crate::pipeline::call(&self.engine, name, args.into(), options)
    }

    /// The full result an envelope's `ref` names, as a resource only `caller` can read: its URI
    /// (bound with the toolbox's [cursor key](ToolboxBuilder::cursor_key) to `tool` and to the
    /// caller's identity), a name, a title and a description for the model. `None` when the
    /// envelope has no `ref`. `tool` is the tool the call named, and `caller` the caller it was
    /// made for: a server announces the resource in the call's result (MCP: a `resource_link`
    /// content block) and serves it with [`read_result`](Self::read_result).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use toolsmith::{budget::RESULT_URI_PREFIX, Caller, Effects, Tool, ToolSpec, Toolbox};
    /// let spec = ToolSpec::new("list_numbers", "Lists numbers. Returns a list.",
    ///     serde_json::json!({"type": "object", "additionalProperties": false}))
    ///     .with_effects(Effects::none().with_read_only(true)).with_version("1.0.0");
    /// let tool = Tool::from_fn(spec, |_, _| Box::pin(async {
    ///     Ok(serde_json::json!((0..1000).collect::<Vec<_>>()))
    /// }));
    /// let toolbox = Toolbox::builder().tool(tool).output_budget(100).build().unwrap();
    /// let ann = Caller::new("ann");
    /// let env = toolbox.call_as(&ann, "list_numbers", "{}").await;
    /// assert!(env.truncated);
    /// let link = toolbox.result_resource("list_numbers", &env, &ann).unwrap();
    /// assert!(link.uri.starts_with(RESULT_URI_PREFIX));
    /// let full = toolbox.read_result(&link.uri, &ann).await.unwrap();
    /// assert_eq!(full.as_array().unwrap().len(), 1000);
    /// // Another caller is refused.
    /// assert!(toolbox.read_result(&link.uri, &Caller::new("bob")).await.is_err());
    /// # });
    /// ```
    pub fn result_resource(
        &self,
        tool: &str,
        env: &Envelope,
        caller: &Caller,
    ) -> Option<ResultResource> {
        let reference = env.reference.as_deref()?;
        let kept = "kept for a while, for this caller only";
        let description = if env.status != Status::Ok {
            format!(
                "The result of the earlier call to \"{tool}\" that this call repeats, as JSON \
                 ({kept})."
            )
        } else if env.truncated {
            format!(
                "The full result of this call to \"{tool}\", of which the text shows a part, as \
                 JSON ({kept}). Read it when the part shown is not enough."
            )
        } else {
            format!("The full result of this call to \"{tool}\", as JSON ({kept}).")
        };
        Some(ResultResource {
            uri: result_uri(&self.engine.stages.paging.secret, tool, reference, caller),
            name: reference.to_string(),
            title: format!("Full result of {tool}"),
            description,
            mime_type: RESULT_MIME_TYPE.to_string(),
        })
    }

    /// Whether the policy lets `caller` call `tool` now: the policy stage's check alone (no
    /// arguments, no approval); `None` when no tool of that name is registered. A host re-checks
    /// with it a caller who comes back later for the result of an earlier call: the MCP server
    /// does for a task's `tasks/get`, so a caller whose scope was taken away since the call
    /// started is refused its result.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Caller, Policy, Tool, ToolSpec, Toolbox};
    /// let spec = ToolSpec::new(
    ///     "get_report",
    ///     "Gets the monthly sales report. Returns the report's text.",
    ///     serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}),
    /// )
    /// .with_effects(toolsmith::Effects::none().with_read_only(true));
    /// let toolbox = Toolbox::builder()
    ///     .tool(Tool::from_fn(spec, |_ctx, _args| Box::pin(async { Ok(serde_json::json!("report")) })))
    ///     .policy(Policy::allow_all().require_scope("get_report", "reports:read"))
    ///     .build()
    ///     .unwrap();
    /// let reader = Caller::new("ann").with_scope("reports:read");
    /// assert!(toolbox.policy_check("get_report", &reader).unwrap().is_ok());
    /// assert!(toolbox.policy_check("get_report", &Caller::new("ann")).unwrap().is_err());
    /// assert!(toolbox.policy_check("no_such_tool", &reader).is_none());
    /// ```
    pub fn policy_check(&self, tool: &str, caller: &Caller) -> Option<Result<(), Denial>> {
        let reg = self.registry();
        let &i = reg.index.get(tool)?;
        Some(
            self.engine
                .stages
                .policy
                .policy
                .check(reg.entries[i].tool.spec(), caller),
        )
    }

    /// Checks arguments for a tool without calling it: the check the pipeline's `validate`
    /// stage makes (optional `null`s dropped, the arguments validated against the exact schema
    /// the model was given, integers written as floats normalized, declared defaults filled in),
    /// and nothing else. No tool runs, nothing is claimed, approved, recorded or audited, and the
    /// policy is not asked ([`policy_check`](Self::policy_check) does that). What an evaluation of
    /// a model's calls uses: would this call have been accepted?
    ///
    /// `None` when no tool has the name; else the arguments as the tool would receive them, or
    /// every problem found (each with its path, code and message, the message quoting the
    /// parameter's description).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use serde_json::json;
    /// use toolsmith::{Tool, ToolSpec, Toolbox};
    /// let spec = ToolSpec::new("set_volume", "Sets the volume. Returns the new level.",
    ///     json!({"type": "object", "additionalProperties": false, "required": ["level"],
    ///            "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 10,
    ///                                     "description": "The level, 0 to 10."}}}));
    /// let tool = Tool::from_fn(spec, |_, _| Box::pin(async { unreachable!("never called") }));
    /// let toolbox = Toolbox::builder().tool(tool).build().unwrap();
    /// assert_eq!(toolbox.check_arguments("set_volume", json!({"level": 3.0})),
    ///            Some(Ok(json!({"level": 3}))));
    /// let errors = toolbox.check_arguments("set_volume", json!({"level": 11})).unwrap().unwrap_err();
    /// assert_eq!(errors[0].path, "level");
    /// assert!(toolbox.check_arguments("no_such_tool", json!({})).is_none());
    /// ```
    pub fn check_arguments(
        &self,
        tool: &str,
        mut args: serde_json::Value,
    ) -> Option<Result<serde_json::Value, Vec<crate::validate::ArgError>>> {
        let entry = {
            let reg = self.registry();
            let &i = reg.index.get(tool)?;
            Arc::clone(&reg.entries[i])
        };
        Some(crate::pipeline::validate::checked(&entry, &mut args).map(|()| args))
    }

    /// The policy the toolbox checks every call against ([`ToolboxBuilder::policy`]): what a
    /// server reads to say which scopes a tool needs before it runs.
    pub fn policy(&self) -> &Policy {
        &self.engine.stages.policy.policy
    }

    /// Reads the kept result a URI of [`result_resource`](Self::result_resource) names, for
    /// `caller`: the full result as the call kept it (redacted as its answer was).
    ///
    /// The checks come in this order, and nothing is read from the store before the first
    /// three pass: the URI is a kept result's ([`ResultReadError::NotAResult`], else
    /// [`Malformed`](ResultReadError::Malformed)); its tag binds it to this caller
    /// ([`Foreign`](ResultReadError::Foreign): another caller's link, a guessed reference or
    /// an edited one); the tool is still registered and the policy lets the caller call it now
    /// ([`ToolUnavailable`](ResultReadError::ToolUnavailable),
    /// [`Denied`](ResultReadError::Denied)). Then the record store (or the shared state) is
    /// read: a result it no longer keeps is [`NotKept`](ResultReadError::NotKept), a store
    /// that fails is [`Unavailable`](ResultReadError::Unavailable) (and a fault).
    ///
    /// # Errors
    /// A [`ResultReadError`] saying which check refused the read, with a message for the model.
    pub async fn read_result(
        &self,
        uri: &str,
        caller: &Caller,
    ) -> Result<serde_json::Value, ResultReadError> {
        let parsed = ResultUri::parse(uri)?;
        let stages = &self.engine.stages;
        if !parsed.is_for(&stages.paging.secret, caller) {
            return Err(ResultReadError::Foreign);
        }
        {
            let reg = self.registry();
            let Some(&i) = reg.index.get(&parsed.tool) else {
                return Err(ResultReadError::ToolUnavailable { tool: parsed.tool });
            };
            stages
                .policy
                .policy
                .check(reg.entries[i].tool.spec(), caller)
                .map_err(ResultReadError::Denied)?;
        }
        let read = match &stages.paging.shared {
            Some(state) => state.try_read(&parsed.reference).await,
            None => stages.paging.store.read(&parsed.reference),
        };
        match read {
            Ok(Some(value)) => Ok(value),
            Ok(None) => Err(ResultReadError::NotKept { tool: parsed.tool }),
            Err(_) => Err(ResultReadError::Unavailable),
        }
    }

    /// Calls a tool as an anonymous caller and returns the envelope as JSON text: the same
    /// outcome as [`Toolbox::call`] followed by [`Envelope::to_json`], for hosts that hand the
    /// text to the model (an OpenAI or Anthropic tool message, a WebMCP result).
    ///
    /// It costs less: a `#[tool]`'s result is serialized once, straight to JSON text, and that
    /// text goes into the envelope as it is. It becomes a `serde_json::Value` only when a stage
    /// has to read or change it: redaction that finds something to mask, a result over the
    /// output budget, an idempotency key, after-hooks. The text is the result's own
    /// `Serialize` output, so two exotic results read differently than through `call`: an
    /// `f32` is written in its shortest `f32` form (`0.1`, where the value widens it to
    /// `0.10000000149011612`), and an integer beyond 64 bits is written out, where the value
    /// path answers `OUTPUT_NOT_ENCODABLE`.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = toolsmith::Toolbox::builder().build().unwrap();
    /// let text = toolbox.call_json("no_such_tool", "{}").await;
    /// let envelope: serde_json::Value = serde_json::from_str(&text).unwrap();
    /// assert_eq!(envelope["status"], "invalid_input");
    /// # });
    /// ```
    pub fn call_json<'a>(
        &'a self,
        name: &'a str,
        args: impl Into<Arguments<'a>>,
    ) -> impl Future<Output = String> + 'a {
        self.call_json_with(name, args, CallOptions::default())
    }

    /// [`Toolbox::call_json`] with per-call options (caller, idempotency key), as
    /// [`Toolbox::call_with`].
    pub fn call_json_with<'a>(
        &'a self,
        name: &'a str,
        args: impl Into<Arguments<'a>>,
        options: CallOptions,
    ) -> impl Future<Output = String> + 'a {
        crate::pipeline::call_json(&self.engine, name, args.into(), options)
    }
}
