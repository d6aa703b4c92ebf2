//! [`ToolError`]: how a tool reports an outcome other than `ok`.

use crate::codes;
use crate::envelope::{Envelope, Status};
use serde_json::Value;

/// A non-ok outcome of a tool, with a stable code and a model-facing message.
///
/// There is one constructor per non-ok status. Each can carry structured details
/// ([`ToolError::with_details`]), which reach the model as the envelope's `data`.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::{ToolError, Status};
/// let e = ToolError::needs_input(["size"], "Which size? The boot comes in 42, 43 and 44.")
///     .with_details(serde_json::json!({"sizes": [42, 43, 44]}));
/// assert_eq!(e.status(), Status::NeedsInput);
/// assert_eq!(e.code(), "NEEDS_INPUT");
/// ```
///
/// A user error type converts with `?` when it implements `From<MyError> for ToolError`:
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::ToolError;
/// enum StoreError { OutOfStock }
/// impl From<StoreError> for ToolError {
///     fn from(e: StoreError) -> Self {
///         match e {
///             StoreError::OutOfStock => ToolError::refused("OUT_OF_STOCK", "Only 2 left. Ask the user whether 2 will do."),
///         }
///     }
/// }
/// fn buy() -> Result<(), ToolError> { Err(StoreError::OutOfStock)? }
/// assert_eq!(buy().unwrap_err().code(), "OUT_OF_STOCK");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}", .inner.message)]
pub struct ToolError {
    // Boxed so `Result<T, ToolError>` stays small (one pointer) on every tool's return path.
    inner: Box<Inner>,
}

#[derive(Clone, Debug, PartialEq)]
struct Inner {
    status: Status,
    code: String,
    message: String,
    details: Option<Value>,
    missing: Vec<String>,
    retry_after: Option<u64>,
}

impl ToolError {
    /// A general constructor; prefer the per-status constructors.
    ///
    /// A `status` of `ok` is not an error and is recorded as `failed`.
    pub fn new(status: Status, code: impl Into<String>, message: impl Into<String>) -> Self {
        let status = if status == Status::Ok {
            Status::Failed
        } else {
            status
        };
        ToolError {
            inner: Box::new(Inner {
                status,
                code: code.into(),
                message: message.into(),
                details: None,
                missing: Vec::new(),
                retry_after: None,
            }),
        }
    }

    /// Nothing matched (not an error for the agent): say what to try next in `message`.
    pub fn empty(message: impl Into<String>) -> Self {
        Self::new(Status::Empty, codes::EMPTY, message)
    }

    /// The arguments are wrong: name the argument and show what right looks like.
    pub fn invalid_input(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Status::InvalidInput, code, message)
    }

    /// Information only the user has is missing: list it in `missing`.
    pub fn needs_input<I, S>(missing: I, message: impl Into<String>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut e = Self::new(Status::NeedsInput, codes::NEEDS_INPUT, message);
        e.inner.missing = missing.into_iter().map(Into::into).collect();
        e
    }

    /// A business rule says no (limits, duplicates); the user decides.
    pub fn refused(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Status::Refused, code, message)
    }

    /// Outside the boundary this caller may act in; retrying will not help.
    pub fn denied(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Status::Denied, code, message)
    }

    /// The user declined the action.
    pub fn cancelled_by_user(message: impl Into<String>) -> Self {
        Self::new(Status::CancelledByUser, codes::CANCELLED_BY_USER, message)
    }

    /// A transient condition: retry after `retry_after_secs` seconds.
    pub fn temporary(
        retry_after_secs: u64,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let mut e = Self::new(Status::TemporaryFailure, code, message);
        e.inner.retry_after = Some(retry_after_secs);
        e
    }

    /// The tool could not complete; retrying blindly will not help.
    pub fn failed(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Status::Failed, code, message)
    }

    /// The tool ran out of time.
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(Status::Timeout, codes::TIMEOUT, message)
    }

    /// Attaches structured details, returned to the model as the envelope's `data`.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.inner.details = Some(details);
        self
    }

    /// The status this error reports.
    pub fn status(&self) -> Status {
        self.inner.status
    }

    /// The stable code.
    pub fn code(&self) -> &str {
        &self.inner.code
    }

    /// The model-facing message.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The structured details, if any.
    pub fn details(&self) -> Option<&Value> {
        self.inner.details.as_ref()
    }

    /// For `needs_input`: what to ask the user for.
    pub fn missing(&self) -> &[String] {
        &self.inner.missing
    }

    /// For `temporary_failure`: seconds to wait.
    pub fn retry_after(&self) -> Option<u64> {
        self.inner.retry_after
    }

    /// The envelope this error becomes.
    pub fn into_envelope(self) -> Envelope {
        let inner = *self.inner;
        let mut env = Envelope::error(inner.status, inner.code, inner.message);
        env.data = inner.details;
        env.missing = inner.missing;
        env.retry_after = inner.retry_after;
        env
    }
}

impl From<ToolError> for Envelope {
    fn from(e: ToolError) -> Self {
        e.into_envelope()
    }
}
