//! Runtime of [toolsmith](https://docs.rs/toolsmith): the tool spec model, schema generation and
//! hygiene, argument validation, the result envelope and the [`Toolbox`] that dispatches calls.
//!
//! Application crates depend on the `toolsmith` facade, which re-exports this crate and the
//! `#[tool]` macro; this crate is usable on its own to lint or export tool lists.
#![warn(missing_docs)]

pub mod approval;
pub mod audit;
pub mod budget;
pub mod codes;
pub mod context;
pub mod envelope;
pub mod error;
pub mod export;
pub mod fault;
pub mod idempotency;
pub mod limits;
pub mod lint;
pub mod output_text;
pub mod pipeline;
pub mod policy;
pub mod progress;
pub mod redact;
pub mod reply;
pub mod schema;
pub mod secret;
pub mod spec;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod store;
pub mod tool;
pub mod toolbox;
pub mod typed;
pub mod validate;
#[cfg(feature = "workspace")]
pub mod workspace;

pub use approval::{Approval, ApprovalRequest, Approver, Hooks};
pub use audit::{AuditRecord, AuditSink, JsonLinesSink, MemorySink};
pub use context::Context;
pub use envelope::{Envelope, Status};
pub use error::ToolError;
pub use policy::{Caller, Policy};
pub use progress::Progress;
pub use reply::Reply;
pub use spec::{Allow, Effects, ToolSpec};
pub use tool::Tool;
pub use toolbox::{Arguments, BuildError, CallOptions, Problem, Toolbox, ToolboxBuilder};
#[cfg(feature = "workspace")]
pub use workspace::{Workspace, WorkspaceError};

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
    pub use crate::reply::Reply;
    pub use crate::schema::{schema_of, Constraint, Num, ParamDef};
    pub use crate::spec::Effects;
    pub use crate::tool::{BoxFuture, ContextDef, Tool, ToolDef};
    pub use schemars;
    pub use serde;
    pub use serde_json::Value;

    /// The typed fast path's pieces ([`crate::typed`]).
    pub mod typed {
        pub use crate::typed::{
            starts_object, wrong_arguments, Known, KnownType, PatternCell, Probe, TypeProbe,
            TypedArgs, TypedDef, Unknown, UnknownType,
        };
        pub use serde_json::from_str;
        pub use std::marker::PhantomData;
    }

    /// Decodes validated arguments into the generated argument struct.
    pub fn decode<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T, ToolError> {
        T::deserialize(args).map_err(|e| {
            ToolError::invalid_input(
                crate::codes::INVALID_ARGUMENT,
                format!("The arguments could not be read: {e}."),
            )
        })
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

    fn unencodable() -> ToolError {
        ToolError::failed(
            crate::codes::OUTPUT_NOT_ENCODABLE,
            "The tool produced a result that could not be encoded as JSON. Retrying will not help; tell the user the action may have completed but its result is unavailable.",
        )
    }

    /// Encodes a plain return value.
    pub fn ok_output<T: serde::Serialize>(value: T) -> Result<Reply<Value>, ToolError> {
        serde_json::to_value(value)
            .map(Reply::new)
            .map_err(|_| unencodable())
    }

    /// Encodes a `Result` return value; the error converts into a [`ToolError`].
    pub fn result_output<T: serde::Serialize, E: Into<ToolError>>(
        result: Result<T, E>,
    ) -> Result<Reply<Value>, ToolError> {
        match result {
            Ok(v) => ok_output(v),
            Err(e) => Err(e.into()),
        }
    }

    /// Encodes a [`Reply`] return value.
    pub fn reply_output<T: serde::Serialize>(reply: Reply<T>) -> Result<Reply<Value>, ToolError> {
        let data = serde_json::to_value(reply.data).map_err(|_| unencodable())?;
        Ok(Reply {
            data,
            note: reply.note,
            truncated: reply.truncated,
        })
    }

    /// Encodes a `Result<Reply<T>, E>` return value.
    pub fn result_reply_output<T: serde::Serialize, E: Into<ToolError>>(
        result: Result<Reply<T>, E>,
    ) -> Result<Reply<Value>, ToolError> {
        match result {
            Ok(r) => reply_output(r),
            Err(e) => Err(e.into()),
        }
    }

    /// The unit result.
    pub fn unit_output() -> Result<Reply<Value>, ToolError> {
        Ok(Reply::new(Value::Null))
    }
}
