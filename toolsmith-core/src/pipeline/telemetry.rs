//! Tracing (cargo feature `tracing`, on by default): every call runs inside a span that follows
//! the OpenTelemetry semantic conventions for generative-AI tool execution.
//!
//! - span name: `execute_tool {tool}`. `tracing` span names are static, so the span is named
//!   `execute_tool` and carries the full name in the field `otel.name`, which
//!   `tracing-opentelemetry` uses as the exported span's name (what an OpenTelemetry backend
//!   shows); other subscribers show `execute_tool` with the field;
//! - attributes: `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`,
//!   `gen_ai.tool.call.id` (the operation id), `gen_ai.tool.type = "function"`; when the status
//!   is not `ok`, `error.type` (the envelope's code) and `otel.status_code = "ERROR"`;
//! - events inside the span: `gen_ai.tool.denied`, `gen_ai.tool.refused`, `gen_ai.tool.timeout`,
//!   `gen_ai.tool.panic` and `gen_ai.tool.cancelled` (the host dropped the call), each with
//!   `error.type`.
//!
//! Argument values never go into a span or an event, nor do messages (which can echo them).
//! Without a subscriber interested in the span, it is disabled and costs a relaxed load; the
//! span name is only formatted for an enabled span.

use crate::envelope::Envelope;
use crate::operation::OperationId;
use std::future::Future;

#[cfg(feature = "tracing")]
mod enabled {
    use super::{Envelope, Future, OperationId};
    use crate::envelope::Status;
    use tracing::field::Empty;
    use tracing::{Instrument, Level, Span};

    pub(crate) fn span(tool: &str, operation_id: &OperationId) -> Span {
        let span = tracing::info_span!(
            "execute_tool",
            otel.name = Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = tool,
            // Read (and its text built) only for an enabled span.
            gen_ai.tool.call.id = operation_id.as_str(),
            "gen_ai.tool.type" = "function",
            "error.type" = Empty,
            otel.status_code = Empty,
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("execute_tool {tool}").as_str());
        }
        span
    }

    pub(crate) fn instrument<F: Future>(future: F, span: Span) -> impl Future<Output = F::Output> {
        future.instrument(span)
    }

    /// Records a call's outcome on its span; `panicked`: the tool or the pipeline panicked.
    pub(crate) fn finish(panicked: bool, env: &Envelope) {
        if env.status == Status::Ok {
            return;
        }
        let span = Span::current();
        let code = env.code.as_deref().unwrap_or(env.status.as_str());
        if !span.is_disabled() {
            span.record("error.type", code);
            span.record("otel.status_code", "ERROR");
        }
        if panicked {
            tracing::event!(name: "gen_ai.tool.panic", Level::ERROR, "error.type" = code, "the call panicked");
            return;
        }
        match env.status {
            Status::Denied => {
                tracing::event!(name: "gen_ai.tool.denied", Level::WARN, "error.type" = code, "the call was denied");
            }
            Status::Refused => {
                tracing::event!(name: "gen_ai.tool.refused", Level::WARN, "error.type" = code, "the call was refused");
            }
            Status::Timeout => {
                tracing::event!(name: "gen_ai.tool.timeout", Level::WARN, "error.type" = code, "the tool timed out");
            }
            _ => {}
        }
    }

    pub(crate) fn cancelled() {
        tracing::event!(
            name: "gen_ai.tool.cancelled",
            Level::WARN,
            "error.type" = crate::codes::CANCELLED,
            "the host dropped the call"
        );
    }
}

#[cfg(feature = "tracing")]
pub(crate) use enabled::{cancelled, finish, instrument, span};

/// Without the feature, a call has no span.
#[cfg(not(feature = "tracing"))]
pub(crate) struct NoSpan;

#[cfg(not(feature = "tracing"))]
pub(crate) fn span(_tool: &str, _operation_id: &OperationId) -> NoSpan {
    NoSpan
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn instrument<F: Future>(future: F, _span: NoSpan) -> F {
    future
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn finish(_panicked: bool, _env: &Envelope) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn cancelled() {}
