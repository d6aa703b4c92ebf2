//! toolsmith tools inside [rig](https://docs.rs/rig-agent) agents: [`ToolboxTools`] hands a
//! [`Toolbox`]'s tools to a rig agent as `rig_core::tool::DynamicTool`s, or as a
//! `rig_agent::tool::ToolSet` an agent retrieves from by embedding, and every call the agent makes
//! goes through the toolbox's pipeline (validation against the schema the model saw, policy and
//! approval, idempotency, output budget, redaction, audit).
//!
//! ```no_run
//! # fn run(toolbox: toolsmith_core::Toolbox, model: rig_core::DynModel<rig_core::operation::Completion>) {
//! use rig_agent::AgentBuilder;
//! use toolsmith_rig::ToolboxTools;
//!
//! let tools = ToolboxTools::new(toolbox);
//! let agent = AgentBuilder::new(model)
//!     .preamble("You help with the user's notes.")
//!     .dynamic_tools(tools.dynamic_tools())
//!     .build();
//! # let _ = agent;
//! # }
//! ```
//!
//! **Who calls.** Each run says who it acts for with a [`RunCaller`] in its tool context
//! (`agent.prompt(..).tool_context(ctx)`); without one the call is anonymous, and a policy that
//! [requires an identity](toolsmith_core::Policy::require_identity) refuses it.
//! [`ToolboxTools::caller`] maps the context to a [`Caller`] of the host's own instead.
//!
//! **What the agent gets back.** A plain `ok` is the tool's data. `empty`, `needs_input` and an
//! `ok` that says more (a note, a cursor, a kept result) are results too: the whole envelope, so
//! the model reads the note or relays the question to the user. Every other status is rig's tool
//! error ([`ToolExecutionError`]): its text is the envelope's message (for invalid arguments, the
//! parameter's description), its code the envelope's code, its kind the status's (below), and the
//! model reads the whole envelope.
//!
//! | status | rig's error kind | retryable |
//! |---|---|---|
//! | `invalid_input` | `InvalidArgs` | no: the model fixes the arguments |
//! | `refused` | a refusal (`PermissionDenied`) | no |
//! | `denied` | `PermissionDenied` | no |
//! | `cancelled_by_user` | `Cancelled` | no |
//! | `temporary_failure` | `Other` | yes, after the envelope's `retry_after` |
//! | `failed` | `Other` | no |
//! | `timeout` | `Timeout` | only for a read-only or idempotent tool |
//!
//! Approval is the toolbox's: a tool that requires it runs when the toolbox's
//! [`Approver`](toolsmith_core::Approver) says yes, and is `cancelled_by_user` when it says no.
//!
//! **Retrieval.** [`ToolboxTools::schemas`] gives each tool's embedding documents (its title,
//! description and parameters' descriptions), keyed by its name, for the vector store an agent
//! retrieves tools from (`AgentBuilder::retrieved_tools(n, index, tools.toolset())`).
//!
//! Compatibility: rig-core and rig-agent 0.44.0 (Rust 1.95).

#![deny(missing_docs)]
#![deny(unreachable_pub)]

use rig_agent::tool::ToolSet;
use rig_core::embeddings::ToolSchema;
use rig_core::message::ToolName;
use rig_core::tool::{ContextValue, DynamicTool, ToolContext, ToolExecutionError, ToolOutput};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;
use toolsmith_core::{Caller, Envelope, Status, ToolSpec, Toolbox};

/// Maps a call's rig tool context to the caller it acts for.
pub type CallerFn = dyn Fn(&ToolContext) -> Caller + Send + Sync;

/// A [`Toolbox`]'s tools for rig: as dynamic tools ([`dynamic_tools`](Self::dynamic_tools)), as a
/// tool set ([`toolset`](Self::toolset)) and with their embedding documents
/// ([`schemas`](Self::schemas)). Cheap to clone.
#[derive(Clone)]
pub struct ToolboxTools {
    toolbox: Arc<Toolbox>,
    only: Option<BTreeSet<String>>,
    caller: Arc<CallerFn>,
}

impl std::fmt::Debug for ToolboxTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolboxTools")
            .field("tools", &self.toolbox.names())
            .field("only", &self.only)
            .finish_non_exhaustive()
    }
}

/// Who a rig run acts for, carried in the run's tool context: put it there with
/// `ToolContext::insert` and hand the context to `AgentRunner::tool_context`. The default
/// [`ToolboxTools`] reads it; a context without it calls anonymously.
///
/// ```
/// use rig_core::tool::ToolContext;
/// use toolsmith_rig::RunCaller;
///
/// let mut context = ToolContext::new();
/// context.insert(RunCaller::new("ann").with_scope("billing:write")).unwrap();
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCaller {
    /// The caller's id (policy grants, idempotency and cursors are kept per id).
    pub id: String,
    /// The caller's roles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The caller's scopes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl RunCaller {
    /// A caller with `id`, no roles and no scopes.
    pub fn new(id: impl Into<String>) -> RunCaller {
        RunCaller {
            id: id.into(),
            ..RunCaller::default()
        }
    }

    /// Adds a role.
    #[must_use]
    pub fn with_role(mut self, role: impl Into<String>) -> RunCaller {
        self.roles.push(role.into());
        self
    }

    /// Adds a scope.
    #[must_use]
    pub fn with_scope(mut self, scope: impl Into<String>) -> RunCaller {
        self.scopes.push(scope.into());
        self
    }

    /// The toolsmith [`Caller`] it names.
    pub fn to_caller(&self) -> Caller {
        let caller = Caller::new(self.id.clone());
        let caller = self.roles.iter().fold(caller, |c, r| c.with_role(r));
        self.scopes.iter().fold(caller, |c, s| c.with_scope(s))
    }
}

impl ContextValue for RunCaller {
    const KEY: &'static str = "toolsmith.caller";
}

/// The default caller: the context's [`RunCaller`], else anonymous (a value of another shape
/// under its key is anonymous too: the least a call can be allowed).
fn run_caller(context: &ToolContext) -> Caller {
    match context.get::<RunCaller>() {
        Ok(Some(caller)) if !caller.id.is_empty() => caller.to_caller(),
        _ => Caller::anonymous(),
    }
}

impl ToolboxTools {
    /// Every tool of `toolbox` (a `Toolbox` or an `Arc<Toolbox>` the host keeps), called as the
    /// run's [`RunCaller`].
    pub fn new(toolbox: impl Into<Arc<Toolbox>>) -> ToolboxTools {
        ToolboxTools {
            toolbox: toolbox.into(),
            only: None,
            caller: Arc::new(run_caller),
        }
    }

    /// Only the named tools (names the toolbox does not have are left out).
    #[must_use]
    pub fn only<I, S>(mut self, names: I) -> ToolboxTools
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Maps each call's tool context to the caller it acts for (default: the context's
    /// [`RunCaller`], else anonymous), so the toolbox's policy, idempotency scopes and audit see
    /// the host's caller.
    #[must_use]
    pub fn caller(
        mut self,
        f: impl Fn(&ToolContext) -> Caller + Send + Sync + 'static,
    ) -> ToolboxTools {
        self.caller = Arc::new(f);
        self
    }

    /// The tools as rig dynamic tools, in the toolbox's order, for
    /// `AgentBuilder::dynamic_tools`.
    pub fn dynamic_tools(&self) -> Vec<DynamicTool> {
        self.specs()
            .filter_map(|spec| self.dynamic_tool(spec))
            .collect()
    }

    /// The tools as a rig tool set, for `AgentBuilder::retrieved_tools` (with an index built
    /// from [`schemas`](Self::schemas)) or `ToolSet::add_tools`.
    pub fn toolset(&self) -> ToolSet {
        ToolSet::from_dynamic_tools(self.dynamic_tools())
    }

    /// Each tool's embedding documents, named by the tool: its title, its description and one
    /// document per parameter (`name: description`). Embed them (rig's `EmbeddingsBuilder`) into
    /// a vector store whose ids are the names, and the agent retrieves the tools whose text is
    /// nearest each prompt.
    pub fn schemas(&self) -> Vec<ToolSchema> {
        self.specs()
            .map(|spec| ToolSchema {
                embedding_docs: embedding_docs(&spec),
                name: spec.name,
                context: Value::Null,
            })
            .collect()
    }

    fn specs(&self) -> impl Iterator<Item = ToolSpec> + '_ {
        self.toolbox
            .specs()
            .into_iter()
            .filter(|spec| self.only.as_ref().is_none_or(|o| o.contains(&spec.name)))
    }

    /// One tool as a rig dynamic tool (`None` for a name rig refuses: an empty one, which a
    /// toolbox never holds).
    fn dynamic_tool(&self, spec: ToolSpec) -> Option<DynamicTool> {
        let name = ToolName::new(spec.name.clone()).ok()?;
        let repeat_safe = spec.effects.read_only || spec.effects.idempotent;
        let tools = self.clone();
        let tool_name = spec.name;
        Some(DynamicTool::new_with_context(
            name,
            spec.description,
            spec.input_schema,
            move |context: &mut ToolContext, args: Value| {
                // The caller is read before the call starts: the future borrows nothing.
                let caller = (tools.caller)(context);
                let (tools, name) = (tools.clone(), tool_name.clone());
                Box::pin(async move {
                    let env = tools.toolbox.call_as(&caller, &name, args).await;
                    outcome(env, repeat_safe)
                })
            },
        ))
    }
}

/// The documents a tool is retrieved by.
fn embedding_docs(spec: &ToolSpec) -> Vec<String> {
    let mut docs: Vec<String> = spec.title.iter().cloned().collect();
    docs.push(spec.description.clone());
    if let Some(properties) = spec.input_schema["properties"].as_object() {
        docs.extend(properties.iter().filter_map(|(name, schema)| {
            let description = schema["description"].as_str()?;
            Some(format!("{name}: {description}"))
        }));
    }
    docs
}

/// What rig hands the model: the envelope's answer as the tool's output, or as a tool error of
/// the status's kind (the table in the crate's documentation).
fn outcome(env: Envelope, repeat_safe: bool) -> Result<ToolOutput, ToolExecutionError> {
    let status = env.status;
    let code = env.code.clone();
    let message = env
        .message
        .clone()
        .unwrap_or_else(|| status.as_str().replace('_', " "));
    let answer = env.into_answer();
    let error = match status {
        Status::Ok | Status::Empty | Status::NeedsInput => return Ok(ToolOutput::json(answer)),
        Status::InvalidInput => ToolExecutionError::invalid_args(message),
        Status::Refused => ToolExecutionError::refused(message),
        Status::Denied => ToolExecutionError::permission_denied(message),
        Status::CancelledByUser => ToolExecutionError::cancelled(message),
        Status::TemporaryFailure => ToolExecutionError::other(message).with_retryable(true),
        Status::Timeout => ToolExecutionError::timeout(message).with_retryable(repeat_safe),
        _ => ToolExecutionError::other(message).with_retryable(false),
    };
    let error = match code {
        Some(code) => error.with_code(code),
        None => error,
    };
    Err(error.with_model_output(ToolOutput::json(answer)))
}
