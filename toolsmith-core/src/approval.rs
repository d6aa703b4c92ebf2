//! Human approval of consequential calls, and the before/after hooks around a call.
//!
//! The overview is in the docs of [`Approver`], where it is rendered.

use crate::envelope::{Envelope, Status};
use crate::error::ToolError;
use crate::policy::Caller;
use crate::spec::{Effects, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a human is asked to approve: the exact call that will run if approved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool's name.
    pub tool: String,
    /// The tool's human-readable title, when it has one.
    pub title: Option<String>,
    /// The exact arguments the tool will run with: validated, with the declared defaults of
    /// absent parameters filled in.
    pub arguments: Value,
    /// The tool's declared side effects.
    pub effects: Effects,
    /// Who is calling.
    pub caller: Caller,
    /// A one-line summary for a confirmation prompt, e.g.
    /// `Delete file (delete_file; writes, destructive) with path="a.txt"`. Every value is shown
    /// whole up to 80 characters, or cut with a count of the characters not
    /// shown; control and bidirectional characters are escaped ([`escape_for_display`]).
    pub summary: String,
    /// Why this call is asked about: [`ApprovalBasis::Always`] for a `requires_approval` tool,
    /// [`ApprovalBasis::ConditionMet`] (or `ConditionPanicked`) when the tool's condition on
    /// the arguments decided it.
    #[serde(
        default = "ApprovalBasis::always",
        skip_serializing_if = "ApprovalBasis::is_always"
    )]
    pub basis: ApprovalBasis,
    /// The name of the condition that decided it (`over_limit` for
    /// `#[tool(requires_approval(when = over_limit))]`), for a tool that has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// Why a call of a tool that may need approval was, or was not, put to the approver. The
/// audit record keeps it (`approval`, with `approval_condition`), and the approver sees it
/// ([`ApprovalRequest::basis`]).
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::approval::ApprovalBasis;
/// assert!(ApprovalBasis::ConditionPanicked.asks());
/// assert!(!ApprovalBasis::ConditionNotMet.asks());
/// assert_eq!(serde_json::to_value(ApprovalBasis::ConditionMet).unwrap(), "condition_met");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalBasis {
    /// The tool requires approval of every call (`#[tool(requires_approval)]`).
    Always,
    /// The tool's condition on the arguments said this call needs approval.
    ConditionMet,
    /// The tool's condition said this call needs none: it ran without asking.
    ConditionNotMet,
    /// The tool's condition panicked: the call was put to the approver (never run
    /// unapproved), and the panic counted as a fault of the approver.
    ConditionPanicked,
}

impl ApprovalBasis {
    /// Whether the approver is asked.
    pub fn asks(self) -> bool {
        self != ApprovalBasis::ConditionNotMet
    }

    /// The name the audit record writes (`always`, `condition_met`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalBasis::Always => "always",
            ApprovalBasis::ConditionMet => "condition_met",
            ApprovalBasis::ConditionNotMet => "condition_not_met",
            ApprovalBasis::ConditionPanicked => "condition_panicked",
        }
    }

    fn always() -> Self {
        ApprovalBasis::Always
    }

    fn is_always(&self) -> bool {
        *self == ApprovalBasis::Always
    }
}

impl ApprovalRequest {
    /// The request for calling `spec` with `arguments` on behalf of `caller`, with a generated
    /// summary.
    pub fn new(spec: &ToolSpec, arguments: Value, caller: Caller) -> Self {
        let summary = summarize(spec, &arguments);
        ApprovalRequest {
            tool: spec.name.clone(),
            title: spec.title.clone(),
            arguments,
            effects: spec.effects,
            caller,
            summary,
            basis: ApprovalBasis::Always,
            condition: None,
        }
    }

    /// The same request, saying it is asked because `condition` (the tool's condition on the
    /// arguments, by name) decided so (`basis`).
    #[must_use]
    pub fn because(mut self, basis: ApprovalBasis, condition: impl Into<String>) -> Self {
        self.basis = basis;
        self.condition = Some(condition.into());
        self
    }
}

/// The longest argument value shown in a summary, in characters; a longer value is cut and the
/// summary says how many characters are not shown.
pub(crate) const SUMMARY_VALUE_CHARS: usize = 80;

fn summarize(spec: &ToolSpec, args: &Value) -> String {
    let head = match &spec.title {
        Some(t) => format!("{} ({}", escape_for_display(t), spec.name),
        None => format!("Call {} (", spec.name),
    };
    let effects = spec.effects.names().join(", ");
    let sep = if spec.title.is_some() { "; " } else { "" };
    let effects = if effects.is_empty() {
        ")".to_string()
    } else {
        format!("{sep}{effects})")
    };
    let args = match args {
        Value::Object(map) if !map.is_empty() => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}={}", escape_for_display(k), summary_value(v)))
                .collect();
            format!(" with {}", parts.join(", "))
        }
        _ => String::new(),
    };
    format!("{head}{effects}{args}")
}

/// One argument value for a summary: its JSON text with control and bidirectional characters
/// escaped, whole, or cut with a count of what is not shown.
fn summary_value(v: &Value) -> String {
    let text = escape_for_display(&v.to_string());
    let total = text.chars().count();
    if total <= SUMMARY_VALUE_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SUMMARY_VALUE_CHARS).collect();
    format!("{cut}… (+{} more characters)", total - SUMMARY_VALUE_CHARS)
}

/// Whether `c` changes how the text around it is displayed without being visible itself:
/// control characters, and the bidirectional formatting characters (which can make text read in
/// another order than it runs).
fn is_deceptive(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` with every control and bidirectional formatting character written as `\u{xxxx}`, so a
/// person reads exactly the characters that are there.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::approval::escape_for_display;
/// assert_eq!(escape_for_display("pay\u{202E}EMCA"), "pay\\u{202e}EMCA");
/// ```
pub fn escape_for_display(text: &str) -> String {
    if !text.chars().any(is_deceptive) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_deceptive(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A human's answer to an [`ApprovalRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Approval {
    /// The call may run.
    Approved,
    /// The call must not run.
    Rejected {
        /// Why, in the user's words, when given.
        reason: Option<String>,
    },
}

impl Approval {
    /// A rejection with a reason.
    pub fn rejected(reason: impl Into<String>) -> Self {
        Approval::Rejected {
            reason: Some(reason.into()),
        }
    }

    /// Whether the call may run.
    pub fn is_approved(&self) -> bool {
        matches!(self, Approval::Approved)
    }

    /// For a rejection: the `cancelled_by_user` error the call returns (code `CANCELLED_BY_USER`).
    /// `None` when approved.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::Approval;
    /// let e = Approval::rejected("wrong folder").into_tool_error("delete_file").unwrap();
    /// assert_eq!(e.message(), "The user declined the call to \"delete_file\" (reason: wrong folder). \
    ///     It did not run. Do not retry unless the user asks.");
    /// ```
    pub fn into_tool_error(self, tool: &str) -> Option<ToolError> {
        match self {
            Approval::Approved => None,
            Approval::Rejected { reason } => {
                let why = reason
                    .filter(|r| !r.trim().is_empty())
                    .map(|r| format!(" (reason: {})", r.trim()))
                    .unwrap_or_default();
                Some(ToolError::cancelled_by_user(format!(
                    "The user declined the call to \"{tool}\"{why}. It did not run. Do not retry \
                     unless the user asks."
                )))
            }
        }
    }
}

/// The future an [`Approver`] returns.
pub type ApprovalFuture<'a> = Pin<Box<dyn Future<Output = Approval> + Send + 'a>>;

/// Decides whether a consequential call may run, usually by asking a human.
///
/// Object-safe: store it as `Arc<dyn Approver>`.
///
/// # Overview
///
/// Human approval of consequential calls, and the before/after hooks around a call.
///
/// An [`Approver`] sees the exact validated arguments of a call ([`ApprovalRequest`]) and answers
/// [`Approval::Approved`] or [`Approval::Rejected`]. It is async and object-safe without the
/// `async-trait` crate: it returns a boxed future.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::{Approval, ApprovalRequest, Approver};
/// use toolsmith::approval::fn_approver;
/// use toolsmith::Caller;
/// # use toolsmith::{Effects, ToolSpec};
/// # let spec = ToolSpec::new("delete_file", "", serde_json::json!({"type": "object"}))
/// #     .with_title("Delete file")
/// #     .with_effects(Effects::none().with_writes(true).with_destructive(true))
/// #     .with_version("1.0.0");
/// let approver = fn_approver(|req: &ApprovalRequest| {
///     let ok = req.arguments["path"] != "/";
///     async move { if ok { Approval::Approved } else { Approval::rejected("not the root") } }
/// });
/// let req = ApprovalRequest::new(&spec, serde_json::json!({"path": "/"}), Caller::anonymous());
/// let answer = tokio::runtime::Builder::new_current_thread().build().unwrap()
///     .block_on(approver.approve(&req));
/// assert_eq!(answer, Approval::rejected("not the root"));
/// ```
pub trait Approver: Send + Sync {
    /// Answers `req`. The toolbox runs the tool only on [`Approval::Approved`].
    fn approve<'a>(&'a self, req: &'a ApprovalRequest) -> ApprovalFuture<'a>;
}

/// An approver that approves every request (for tests and trusted batch runs).
#[derive(Clone, Copy, Debug, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn approve<'a>(&'a self, _req: &'a ApprovalRequest) -> ApprovalFuture<'a> {
        Box::pin(std::future::ready(Approval::Approved))
    }
}

/// An approver that rejects every request, saying no approver is configured. The safe default.
#[derive(Clone, Copy, Debug, Default)]
pub struct RejectAll;

impl Approver for RejectAll {
    fn approve<'a>(&'a self, _req: &'a ApprovalRequest) -> ApprovalFuture<'a> {
        Box::pin(std::future::ready(Approval::rejected(
            "no one is available to approve this action in this session",
        )))
    }
}

/// An approver that approves everything.
pub fn approve_all() -> Arc<dyn Approver> {
    Arc::new(ApproveAll)
}

/// An approver that rejects everything.
pub fn reject_all() -> Arc<dyn Approver> {
    Arc::new(RejectAll)
}

/// An approver from a closure returning a future (see [`fn_approver`]).
pub struct FnApprover<F>(F);

impl<F> std::fmt::Debug for FnApprover<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnApprover")
    }
}

impl<F, Fut> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest) -> Fut + Send + Sync,
    Fut: Future<Output = Approval> + Send + 'static,
{
    fn approve<'a>(&'a self, req: &'a ApprovalRequest) -> ApprovalFuture<'a> {
        Box::pin((self.0)(req))
    }
}

/// An approver from an async closure: `f` reads the request and returns a future that owns what
/// it needs (clone from the request before the `async move`).
pub fn fn_approver<F, Fut>(f: F) -> FnApprover<F>
where
    F: Fn(&ApprovalRequest) -> Fut + Send + Sync,
    Fut: Future<Output = Approval> + Send + 'static,
{
    FnApprover(f)
}

/// An approver from a synchronous decision.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::{Approval, Approver};
/// use toolsmith::approval::sync_approver;
/// let only_small = sync_approver(|req| {
///     if req.arguments["amount"].as_u64().unwrap_or(u64::MAX) <= 100 { Approval::Approved }
///     else { Approval::rejected("amount over 100") }
/// });
/// # let _ = only_small;
/// ```
pub fn sync_approver<F>(f: F) -> Arc<dyn Approver>
where
    F: Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static,
{
    Arc::new(FnApprover(move |req: &ApprovalRequest| {
        std::future::ready(f(req))
    }))
}

/// What hooks see of a call.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CallInfo<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The arguments exactly as the tool will receive them (validated, defaults filled in).
    pub arguments: &'a Value,
    /// Who is calling.
    pub caller: &'a Caller,
    /// The call's operation id.
    pub operation_id: &'a str,
}

impl<'a> CallInfo<'a> {
    /// What hooks see of a call to `tool` with `arguments` by `caller` (a host testing its hooks
    /// builds one; the toolbox builds the real ones).
    pub fn new(
        tool: &'a str,
        arguments: &'a Value,
        caller: &'a Caller,
        operation_id: &'a str,
    ) -> Self {
        CallInfo {
            tool,
            arguments,
            caller,
            operation_id,
        }
    }
}

/// A hook that runs before a call (after policy, before approval). Returning an error stops the
/// call; the error becomes its envelope.
pub type BeforeHook = Arc<dyn Fn(&CallInfo<'_>) -> Result<(), ToolError> + Send + Sync>;

/// A hook that sees the envelope before it is returned. It may change the envelope's content
/// (e.g. redact it) but not its outcome: [`Hooks::run_after`] restores `status`, `code` and
/// `operation_id` after each hook.
pub type AfterHook = Arc<dyn Fn(&CallInfo<'_>, &mut Envelope) + Send + Sync>;

/// The before- and after-hooks of a toolbox, run in the order they were added.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::Hooks;
/// use toolsmith::approval::CallInfo;
/// use toolsmith::Caller;
/// use toolsmith::{Envelope, Status, ToolError};
/// let hooks = Hooks::new()
///     .before(|call| if call.tool == "drop_db" { Err(ToolError::denied("BLOCKED", "Blocked here.")) } else { Ok(()) })
///     .after(|_, env| { env.status = Status::Failed; env.note = Some("seen".into()); });
/// let args = serde_json::json!({});
/// let caller = Caller::anonymous();
/// let call = CallInfo::new("list", &args, &caller, "op_1");
/// assert!(hooks.run_before(&call).is_ok());
/// let mut env = Envelope::ok(serde_json::json!(1));
/// hooks.run_after(&call, &mut env);
/// assert_eq!(env.status, Status::Ok); // status restored
/// assert_eq!(env.note.as_deref(), Some("seen"));
/// ```
#[derive(Clone, Default)]
pub struct Hooks {
    before: Vec<BeforeHook>,
    after: Vec<AfterHook>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("before", &self.before.len())
            .field("after", &self.after.len())
            .finish()
    }
}

impl Hooks {
    /// No hooks.
    pub fn new() -> Self {
        Hooks::default()
    }

    /// Adds a before-hook.
    #[must_use]
    pub fn before<F>(mut self, f: F) -> Self
    where
        F: Fn(&CallInfo<'_>) -> Result<(), ToolError> + Send + Sync + 'static,
    {
        self.before.push(Arc::new(f));
        self
    }

    /// Adds an after-hook.
    #[must_use]
    pub fn after<F>(mut self, f: F) -> Self
    where
        F: Fn(&CallInfo<'_>, &mut Envelope) + Send + Sync + 'static,
    {
        self.after.push(Arc::new(f));
        self
    }

    /// Whether there are no hooks.
    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.after.is_empty()
    }

    /// Runs the before-hooks in order; the first error stops the call.
    ///
    /// # Errors
    /// The first hook's error. An error with status `ok` cannot exist ([`ToolError::new`] turns
    /// it into `failed`).
    // ToolError is the crate's one error type; tools return it the same way.
    #[allow(clippy::result_large_err)]
    pub fn run_before(&self, call: &CallInfo<'_>) -> Result<(), ToolError> {
        self.before.iter().try_for_each(|hook| hook(call))
    }

    /// Whether any after-hook is registered.
    pub(crate) fn has_after(&self) -> bool {
        !self.after.is_empty()
    }

    /// Runs the after-hooks in order, restoring `status`, `code` and `operation_id` after each,
    /// so no hook can change the outcome of a call.
    pub fn run_after(&self, call: &CallInfo<'_>, env: &mut Envelope) {
        let status: Status = env.status;
        let code = env.code.clone();
        let operation_id = env.operation_id.clone();
        for hook in &self.after {
            hook(call, env);
            env.status = status;
            env.code.clone_from(&code);
            env.operation_id.clone_from(&operation_id);
        }
    }
}
