//! toolsmith tools inside [ADK-Rust](https://docs.rs/adk-core) agents: [`ToolboxTools`] hands
//! a [`Toolbox`]'s tools to an agent as `adk_core::Tool`s, or as one `adk_core::Toolset`, and
//! every call the agent makes goes through the toolbox's pipeline (validation against the schema
//! the model saw, policy and approval, idempotency, output budget, redaction, audit).
//!
//! ```no_run
//! # async fn run(toolbox: toolsmith_core::Toolbox) -> adk_core::Result<()> {
//! use std::sync::Arc;
//! use toolsmith_adk::ToolboxTools;
//!
//! let tools = ToolboxTools::new(toolbox);
//! // Each tool, for `LlmAgentBuilder::tool` (or the whole set, for `.toolset(Arc::new(tools))`).
//! for tool in tools.tools() {
//!     println!("{}: read-only {}", tool.name(), tool.is_read_only());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! What ADK asks of a tool comes from its spec:
//!
//! | ADK | toolsmith |
//! |---|---|
//! | `name`, `description`, `parameters_schema` | the spec's name, description and input schema |
//! | `response_schema` | the output schema |
//! | `is_read_only` | `read_only` |
//! | `is_concurrency_safe` | `read_only` without `network` (a read of local state) |
//! | `is_long_running` | `task = "optional"` or `"required"` |
//! | `required_scopes` | the scopes the toolbox's policy requires of the tool |
//!
//! **What the agent gets back.** A plain `ok` is the tool's data. Every other outcome is the
//! envelope as JSON (`status`, `code`, `message`, and what else it carries): the message says what
//! went wrong and what to do next (for invalid arguments, the parameter's description), and the
//! status says who acts next. It is handed back as the tool's result, never as an error, so ADK's
//! retry of failed tools never runs a write again that the boundary refused or already ran.
//!
//! **Who calls.** By default the caller is ADK's user id (`ReadonlyContext::user_id`), with no
//! roles or scopes; [`ToolboxTools::caller`] maps the context to a [`Caller`] of the host's own.

#![deny(missing_docs)]
#![deny(unreachable_pub)]

use adk_core::{ReadonlyContext, ToolContext};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use toolsmith_core::{Caller, TaskSupport, ToolSpec, Toolbox};

/// Maps an ADK context to the caller the call acts for.
pub type CallerFn = dyn Fn(&dyn ReadonlyContext) -> Caller + Send + Sync;

/// A [`Toolbox`]'s tools for ADK-Rust: each as an `adk_core::Tool` ([`tools`](Self::tools)),
/// or all of them as an `adk_core::Toolset` (this value). Cheap to clone.
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

impl ToolboxTools {
    /// Every tool of `toolbox` (a `Toolbox` or an `Arc<Toolbox>` the host keeps), called as
    /// ADK's user.
    pub fn new(toolbox: impl Into<Arc<Toolbox>>) -> ToolboxTools {
        ToolboxTools {
            toolbox: toolbox.into(),
            only: None,
            caller: Arc::new(|ctx: &dyn ReadonlyContext| Caller::new(ctx.user_id())),
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

    /// Maps each call's ADK context to the caller it acts for (default: ADK's user id, with no
    /// roles or scopes), so the toolbox's policy, idempotency scopes and audit see the host's
    /// caller.
    #[must_use]
    pub fn caller(
        mut self,
        f: impl Fn(&dyn ReadonlyContext) -> Caller + Send + Sync + 'static,
    ) -> ToolboxTools {
        self.caller = Arc::new(f);
        self
    }

    /// The tools as ADK tools, in the toolbox's order.
    pub fn tools(&self) -> Vec<Arc<dyn adk_core::Tool>> {
        self.toolbox
            .specs()
            .into_iter()
            .filter(|spec| self.only.as_ref().is_none_or(|o| o.contains(&spec.name)))
            .map(|spec| Arc::new(self.tool_of(spec)) as Arc<dyn adk_core::Tool>)
            .collect()
    }

    fn tool_of(&self, spec: ToolSpec) -> AdkTool {
        let effects = &spec.effects;
        let scopes = self
            .toolbox
            .policy()
            .required_scopes(&spec.name)
            .map(intern)
            .collect();
        AdkTool {
            read_only: effects.read_only,
            concurrency_safe: effects.read_only && !effects.network,
            long_running: spec.task != TaskSupport::Forbidden,
            scopes,
            parameters: spec.input_schema.clone(),
            response: spec.output_schema.clone(),
            description: spec.description.clone(),
            name: spec.name,
            tools: self.clone(),
        }
    }
}

#[async_trait::async_trait]
impl adk_core::Toolset for ToolboxTools {
    fn name(&self) -> &str {
        "toolsmith"
    }

    async fn tools(
        &self,
        _ctx: Arc<dyn ReadonlyContext>,
    ) -> adk_core::Result<Vec<Arc<dyn adk_core::Tool>>> {
        Ok(ToolboxTools::tools(self))
    }
}

/// One toolbox tool as an ADK tool.
struct AdkTool {
    tools: ToolboxTools,
    name: String,
    description: String,
    parameters: Value,
    response: Option<Value>,
    read_only: bool,
    concurrency_safe: bool,
    long_running: bool,
    /// `&'static` because ADK borrows them for as long as the tool lives ([`intern`]).
    scopes: Vec<&'static str>,
}

#[async_trait::async_trait]
impl adk_core::Tool for AdkTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters_schema(&self) -> Option<Value> {
        Some(self.parameters.clone())
    }

    fn response_schema(&self) -> Option<Value> {
        self.response.clone()
    }

    fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn is_concurrency_safe(&self) -> bool {
        self.concurrency_safe
    }

    fn is_long_running(&self) -> bool {
        self.long_running
    }

    fn required_scopes(&self) -> &[&str] {
        &self.scopes
    }

    async fn execute(&self, ctx: Arc<dyn ToolContext>, args: Value) -> adk_core::Result<Value> {
        let context: &dyn ReadonlyContext = &*ctx;
        let caller = (self.tools.caller)(context);
        let env = self.tools.toolbox.call_as(&caller, &self.name, args).await;
        Ok(env.into_answer())
    }
}

/// `scope` as a `&'static str`, each distinct scope leaked once (scopes are few, and ADK's
/// `Tool::required_scopes` lends `&str`s for the tool's life).
fn intern(scope: &str) -> &'static str {
    static SCOPES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut set = SCOPES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(&kept) = set.get(scope) {
        return kept;
    }
    let leaked: &'static str = Box::leak(scope.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}
