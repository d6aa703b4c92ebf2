//! Host stages: the host's own step at a documented point of the pipeline (a rate limit, a
//! remote policy, a quota), added with [`ToolboxBuilder::stage`](crate::ToolboxBuilder::stage).
//!
//! A stage sees the call so far ([`StageCall`]) and either lets it go on or ends it with an
//! envelope ([`Flow`]). An ended call is answered like a built-in refusal (policy, validation):
//! the tool does not run, the envelope is redacted, bounded and audited, and after-hooks do not
//! see it. Before- and after-hooks ([`Hooks`](crate::Hooks)) remain the simple case for hosts
//! that only observe.
//!
//! A stage may await (a remote check): return [`StageFuture::boxed`]. A stage that answers at
//! once returns [`StageFuture::ready`], which costs no allocation; a plain closure
//! `Fn(&StageCall<'_>) -> Flow` is such a stage.
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! use toolsmith::pipeline::{Flow, StageCall, StageId};
//! use toolsmith::{Status, ToolError, Toolbox};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolbox = Toolbox::builder()
//!     .stage(StageId::Policy, |call: &StageCall<'_>| {
//!         if call.caller().id().is_none() {
//!             Flow::End(ToolError::denied("SIGN_IN", "Sign in first.").into_envelope())
//!         } else {
//!             Flow::Continue
//!         }
//!     })
//!     .build()
//!     .unwrap();
//! assert_eq!(toolbox.call("any_tool", "{}").await.code.as_deref(), Some("UNKNOWN_TOOL"));
//! # });
//! ```

use super::CallState;
use crate::envelope::Envelope;
use crate::policy::Caller;
use crate::spec::ToolSpec;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// What a host stage decides.
#[derive(Debug)]
#[non_exhaustive]
// The envelope is the call's answer, moved once into it; boxing it would cost an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Flow {
    /// The call goes on to the next stage.
    Continue,
    /// The call ends with this envelope (build it with [`ToolError`](crate::ToolError)'s
    /// constructors and [`ToolError::into_envelope`](crate::ToolError::into_envelope)).
    End(Envelope),
}

/// What a host stage sees of a call.
#[derive(Debug)]
pub struct StageCall<'a> {
    tool: &'a str,
    caller: &'a Caller,
    operation_id: &'a str,
    spec: Option<&'a ToolSpec>,
    arguments: Option<&'a Value>,
}

impl<'a> StageCall<'a> {
    /// The tool name the call asked for.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// Who is calling.
    pub fn caller(&self) -> &'a Caller {
        self.caller
    }

    /// The call's operation id (as in its envelope and audit record).
    pub fn operation_id(&self) -> &'a str {
        self.operation_id
    }

    /// The tool's spec, for stages after `lookup`.
    pub fn spec(&self) -> Option<&'a ToolSpec> {
        self.spec
    }

    /// The arguments, for stages after `decode` (validated and with defaults filled in for
    /// stages after `validate`).
    pub fn arguments(&self) -> Option<&'a Value> {
        self.arguments
    }
}

/// A host's step in the call pipeline. Implement it for a type, or pass a closure
/// `Fn(&StageCall<'_>) -> Flow`. The stage is shared by every concurrent call.
pub trait Stage: Send + Sync + 'static {
    /// Decides whether the call goes on.
    fn run<'a>(&'a self, call: &'a StageCall<'a>) -> StageFuture<'a>;
}

impl<F> Stage for F
where
    F: Fn(&StageCall<'_>) -> Flow + Send + Sync + 'static,
{
    fn run<'a>(&'a self, call: &'a StageCall<'a>) -> StageFuture<'a> {
        StageFuture::ready(self(call))
    }
}

/// The answer of a [`Stage`]: at once, or after awaiting.
pub struct StageFuture<'a>(Inner<'a>);

#[allow(clippy::large_enum_variant)]
enum Inner<'a> {
    Ready(Option<Flow>),
    Boxed(Pin<Box<dyn Future<Output = Flow> + Send + 'a>>),
}

impl<'a> StageFuture<'a> {
    /// An answer known at once (no allocation).
    pub fn ready(flow: Flow) -> Self {
        StageFuture(Inner::Ready(Some(flow)))
    }

    /// An answer that needs awaiting.
    pub fn boxed(future: impl Future<Output = Flow> + Send + 'a) -> Self {
        StageFuture(Inner::Boxed(Box::pin(future)))
    }
}

impl std::fmt::Debug for StageFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StageFuture")
    }
}

impl Future for StageFuture<'_> {
    type Output = Flow;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Flow> {
        match &mut self.0 {
            // Polled again after it answered: it answers `Continue`, never panics.
            Inner::Ready(flow) => Poll::Ready(flow.take().unwrap_or(Flow::Continue)),
            Inner::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

/// Runs one host stage on the call so far.
pub(super) async fn run_host(stage: &dyn Stage, call: &CallState<'_>) -> Flow {
    let view = StageCall {
        tool: call.name,
        caller: call.options.who(),
        operation_id: call.operation_id.as_str(),
        spec: call.entry.as_ref().map(|e| e.tool.spec()),
        arguments: call.args.as_ref(),
    };
    stage.run(&view).await
}
