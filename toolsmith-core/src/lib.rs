//! Runtime of [toolsmith](https://docs.rs/toolsmith): the tool spec model, schema generation and
//! hygiene, argument validation, the result envelope and the [`Toolbox`] that dispatches calls.
//!
//! Application crates depend on the `toolsmith` facade, which re-exports this crate and the
//! `#[tool]` macro; this crate is usable on its own to lint or export tool lists. The examples
//! are written against the facade's paths (`toolsmith::...`), which is where a user meets these
//! items; the facade's root is curated, so some of them sit in its modules (`approval`,
//! `client`, `fault`, `spec`) rather than at its root as here.
//!
//! # The public surface
//!
//! Everything a user writes against is at the crate root, except four namespaces named on
//! purpose: [`codes`] (the stable error codes), [`export`] (targets, artifacts, the snapshot
//! check, the MCP result), [`lint`] (the rule set) and [`pipeline`] (the order of the call
//! pipeline and host stages). The hardened workspace and the SQLite record store are crates of
//! their own (`toolsmith-workspace`, `toolsmith-sqlite`), re-exported by the facade behind its features.
//!
//! **Defining tools.** [`Tool`] (what `#[tool]` produces, or [`Tool::from_fn`] at run time),
//! [`ToolSpec`] with its [`Effects`] and [`Allow`]s, [`ToolError`] (one constructor per
//! status), [`Reply`] (a result with a note), [`Context`] (values injected into `#[context]`
//! parameters), [`Progress`] (progress reports of a long call), [`Client`] (log messages, a
//! completion from the client's model, a question to the user).
//!
//! **Building a toolbox.** [`Toolbox::builder`] gives a [`ToolboxBuilder`]; [`build`] fails with
//! a [`BuildError`] listing every [`Problem`]; [`Toolbox::deregister`] fails with
//! [`NotRegistered`].
//!
//! **Calling and the envelope.** [`Toolbox::call`], [`call_as`] and [`call_with`] take
//! [`Arguments`] (JSON text or a value) and [`CallOptions`], and answer an [`Envelope`] whose
//! [`Status`] is one of a closed set.
//!
//! **The boundary.**
//! - Policy: [`Policy`] decides from the [`Caller`] and the tool's [`Effect`]s; a refusal is a
//!   [`Denial`] with its [`DenialReason`].
//! - Approval and hooks: an [`Approver`] ([`approve_all`], [`reject_all`], [`fn_approver`],
//!   [`sync_approver`]) answers an [`ApprovalRequest`] with an [`Approval`]; [`Hooks`] see a
//!   [`CallInfo`] before and the envelope after a call.
//! - Idempotency, budgets and record stores: a [`RecordStore`] ([`MemoryRecordStore`], or
//!   `sqlite::SqliteRecordStore`) keeps pages of cut results and the [`StoredOutcome`]s of
//!   idempotent writes; the budget is set with [`ToolboxBuilder::output_budget`] and
//!   [`Tool::with_output_budget`], keys with [`CallOptions::idempotency_key`] and
//!   [`Tool::with_idempotency_key`].
//! - Redaction: [`Redactor`] (fails to build with a [`RedactError`]).
//! - Audit: an [`AuditSink`] ([`MemorySink`], [`JsonLinesSink`]) receives an [`AuditRecord`] per
//!   [`AuditEvent`]; its argument digest is [`keyed_args_digest`] under the toolbox's
//!   [`SecretKey`] ([`args_digest`] unkeyed).
//! - Faults: a failing host part is a [`Fault`] of a [`FaultKind`], counted in [`FaultCounts`];
//!   backends report a [`BackendError`].
//! - Host stages: [`pipeline::Stage`], placed with [`ToolboxBuilder::stage`] before a
//!   [`pipeline::StageId`] of [`pipeline::ORDER`].
//!
//! **Exports and the snapshot.** [`export::export`] lowers specs for an [`export::Target`];
//! [`export::write_artifacts`] writes every target, [`export::check_snapshot`] checks them in CI;
//! [`export::mcp_call_result`] is the MCP result of an envelope.
//!
//! **Lint.** [`lint::lint`], [`lint::lint_with`] with a [`lint::LintConfig`],
//! [`lint::lint_tool_list`] for third-party lists, [`lint::measure_specs`] for context cost.
//!
//! [`build`]: ToolboxBuilder::build
//! [`call_as`]: Toolbox::call_as
//! [`call_with`]: Toolbox::call_with
#![deny(unreachable_pub)]
#![deny(missing_docs)]
// docs.rs (which sets `docsrs`) marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod approval;
mod arguments;
pub mod audit;
pub mod budget;
mod client;
pub mod codes;
pub mod content;
mod context;
mod envelope;
mod error;
pub mod export;
mod fault;
pub mod idempotency;
mod limits;
pub mod lint;
mod mcp_result;
mod operation;
mod options;
mod output_text;
pub mod pipeline;
mod policy;
mod progress;
mod redact;
mod reply;
mod secret;
pub mod state;
mod store;
mod tool;
mod tool_result;
mod toolbox;
mod typed;
mod unwind;
pub mod validate;

// Defining tools.
pub use client::{
    with_client, Answer, Client, ClientChannel, ClientError, ClientFuture, LogLevel, LogMessage,
    Question, QuestionError, Root, SampleRequest, SampleResult, UnknownLogLevel,
};
pub use content::{Audio, Content, Image};
pub use context::Context;
pub use error::ToolError;
pub use progress::{with_progress, Progress, ProgressReport, ProgressSink};
pub use reply::Reply;
pub use spec::{Allow, Effects, Namespace, TaskSupport, ToolSpec};
pub use spec::{Icon, IconTheme};
pub use tool::Tool;
pub use toolsmith_spec::Deprecation;
/// The agent-facing definition and schema generation are toolsmith-spec's; the runtime reads them
/// through these paths.
use toolsmith_spec::{schema, spec};

// Building a toolbox.
pub use toolbox::{BuildError, NotRegistered, Problem, Toolbox, ToolboxBuilder};

// Calling and the envelope.
pub use envelope::{Envelope, Status};
pub use toolbox::{Arguments, CallOptions};

// The boundary: policy.
pub use policy::{Caller, Denial, DenialReason, Effect, Policy};

// The boundary: approval and hooks.
pub use approval::{
    approve_all, escape_for_display, fn_approver, reject_all, sync_approver, AfterHook, Approval,
    ApprovalBasis, ApprovalFuture, ApprovalRequest, ApproveAll, Approver, BeforeHook, CallInfo,
    FnApprover, Hooks, RejectAll,
};

// The boundary: idempotency, budgets and record stores.
pub use idempotency::StoredOutcome;
pub use store::{new_reference, MemoryRecordStore, RecordStore};

// The boundary: redaction.
pub use redact::{RedactError, Redactor};

// The boundary: audit.
pub use audit::{
    args_digest, keyed_args_digest, AuditEvent, AuditRecord, AuditSink, JsonLinesSink, MemorySink,
};
pub use audit::{AuditDeprecation, DeprecationState};
pub use secret::{KeyError, SecretKey};

// The boundary: faults.
pub use fault::{BackendError, Fault, FaultCounts, FaultHandler, FaultKind};

/// The dependencies whose types appear in the public API, re-exported so users need no direct
/// dependency on them.
#[doc(hidden)]
pub mod __deps {
    pub use regex;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// Items the `#[tool]` macro's generated code refers to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::context::Context;
    pub use crate::error::ToolError;
    pub use crate::reply::{Encoded, Encoding, Reply};
    pub use crate::schema::{schema_of, Constraint, Num, ParamDef};
    pub use crate::spec::{Effects, Namespace, TaskSupport};
    pub use crate::tool::{BoxFuture, ContextDef, Exec, Tool, ToolDef};
    pub use schemars;
    pub use serde;
    pub use serde_json::Value;

    /// The typed fast path's pieces.
    pub mod typed {
        pub use crate::typed::{
            decoded, fill, filled, invoke_async, invoke_blocking, invoke_typed_async,
            invoke_typed_blocking, run_fused, DecodeError, Decoded, Fast, Fused, Input, Known,
            KnownType, PatternCell, Probe, Slot, TypeProbe, TypedArgs, TypedDef, TypedExec,
            Unknown, UnknownType, NO_PATTERN,
        };
        pub use std::marker::PhantomData;
    }

    /// The error of validated arguments that do not decode into the tool's parameters.
    #[cold]
    pub(crate) fn unreadable(e: serde_json::Error) -> ToolError {
        ToolError::invalid_input(
            crate::codes::INVALID_ARGUMENT,
            format!("The arguments could not be read: {e}."),
        )
    }

    /// Fetches a context value for a `#[context]` parameter.
    pub fn context<'a, T: std::any::Any>(
        ctx: &'a Context,
        _param: &str,
    ) -> Result<&'a T, ToolError> {
        ctx.get::<T>().ok_or_else(|| {
            ToolError::failed(
                crate::codes::NOT_CONFIGURED,
                "The tool is not set up on this host and cannot run. Retrying will not help; tell the user the tool is unavailable.",
            )
        })
    }

    /// Serializes a default value into the schema.
    pub fn to_json<T: serde::Serialize>(value: &T) -> Value {
        serde_json::to_value(value).unwrap_or(Value::Null)
    }

    use crate::pipeline::unencodable;

    /// Encodes a result as `encoding` asks.
    ///
    /// Text is at most [`MAX_RESULT_DEPTH`](crate::limits::MAX_RESULT_DEPTH) levels deep: the
    /// depth is counted while the text is written, and a deeper result is encoded as a value
    /// instead, for the output contract to refuse as it refuses any value that deep.
    fn encode<T: serde::Serialize>(
        value: &T,
        encoding: Encoding<'_>,
    ) -> Result<Encoded, ToolError> {
        match encoding {
            Encoding::Value => serde_json::to_value(value).map(Encoded::Value),
            Encoding::Text(scan) => {
                match crate::limits::to_scanned_text(value, crate::limits::MAX_RESULT_DEPTH, scan) {
                    Ok(Some((json, redaction_clean))) => Ok(Encoded::Text {
                        json,
                        redaction_clean,
                    }),
                    Ok(None) => serde_json::to_value(value).map(Encoded::Value),
                    Err(e) => Err(e),
                }
            }
        }
        .map_err(|_| unencodable())
    }

    /// Encodes a plain return value.
    pub fn ok_output<T: serde::Serialize>(
        value: T,
        encoding: Encoding<'_>,
    ) -> Result<Reply<Encoded>, ToolError> {
        encode(&value, encoding).map(Reply::new)
    }

    /// Encodes a `Result` return value; the error converts into a [`ToolError`].
    pub fn result_output<T: serde::Serialize, E: Into<ToolError>>(
        result: Result<T, E>,
        encoding: Encoding<'_>,
    ) -> Result<Reply<Encoded>, ToolError> {
        match result {
            Ok(v) => ok_output(v, encoding),
            Err(e) => Err(e.into()),
        }
    }

    /// Encodes a [`Reply`] return value.
    pub fn reply_output<T: serde::Serialize>(
        reply: Reply<T>,
        encoding: Encoding<'_>,
    ) -> Result<Reply<Encoded>, ToolError> {
        Ok(Reply {
            data: encode(&reply.data, encoding)?,
            note: reply.note,
            truncated: reply.truncated,
        })
    }

    /// Encodes a `Result<Reply<T>, E>` return value.
    pub fn result_reply_output<T: serde::Serialize, E: Into<ToolError>>(
        result: Result<Reply<T>, E>,
        encoding: Encoding<'_>,
    ) -> Result<Reply<Encoded>, ToolError> {
        match result {
            Ok(r) => reply_output(r, encoding),
            Err(e) => Err(e.into()),
        }
    }

    /// The unit result of an async tool's output `()` (no data, whatever the encoding).
    pub fn unit_finish(output: (), encoding: Encoding<'_>) -> Result<Reply<Encoded>, ToolError> {
        let () = output;
        unit_output(encoding)
    }

    /// The unit result (no data, whatever the encoding).
    pub fn unit_output(encoding: Encoding<'_>) -> Result<Reply<Encoded>, ToolError> {
        let _ = encoding;
        Ok(Reply::new(Encoded::Value(Value::Null)))
    }

    /// The result of the validated-value entry point, which always asks for a value.
    pub(crate) fn value_reply(
        result: Result<Reply<Encoded>, ToolError>,
    ) -> Result<Reply<Value>, ToolError> {
        let reply = result?;
        let data = match reply.data {
            Encoded::Value(v) => v,
            Encoded::Text { json, .. } => serde_json::from_str(&json).map_err(|_| unencodable())?,
        };
        Ok(Reply {
            data,
            note: reply.note,
            truncated: reply.truncated,
        })
    }
}

/// Helpers of this crate's unit tests.
#[cfg(test)]
mod test_support {
    /// Asserts that `config`, for the test file `source` (`file!()`), replays exactly the seeds
    /// of the committed regression file whose text is `committed`: a renamed file, a moved test
    /// or persistence switched off fails.
    #[track_caller]
    pub(crate) fn assert_replays(
        committed: &str,
        config: proptest::prelude::ProptestConfig,
        source: &'static str,
    ) {
        let committed: Vec<String> = committed
            .lines()
            .map(|l| l.split('#').next().unwrap_or_default().trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        assert!(!committed.is_empty());
        let loaded: Vec<String> = config
            .failure_persistence
            .expect("failure persistence is on (is PROPTEST_DISABLE_FAILURE_PERSISTENCE set?)")
            .load_persisted_failures2(Some(source))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(loaded, committed);
    }
}
