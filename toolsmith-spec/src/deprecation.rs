//! A tool's deprecation: since which version, why, and which tool replaces it.
//!
//! A deprecated tool stays callable and listed, and its description ends with the fixed notice
//! of [`toolsmith_lint::deprecation::notice`] (`Deprecated since version 3: ... Use `book_trip`
//! instead.`), so the model reads what to use instead on every platform. The MCP export also
//! carries the deprecation under `_meta` ([`DEPRECATED_META_KEY`]). When the host's window ends,
//! the toolbox retires the tool (toolsmith-core's `ToolboxBuilder::retire_at`).

use serde::{Deserialize, Serialize};

/// The MCP `_meta` key under which a deprecated tool's [`Deprecation`] is exported:
/// `{"since": "3", "note": "...", "replacedBy": "book_trip"}`.
pub const DEPRECATED_META_KEY: &str = "toolsmith/deprecated";

/// A tool's deprecation, declared with `#[tool(deprecated(since = "3", note = "...",
/// replaced_by = "book_trip"))]` or set on a spec built at run time with
/// [`ToolSpec::with_deprecated`](crate::ToolSpec::with_deprecated). Serialized with camelCase keys (`replacedBy`).
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::{Deprecation, ToolSpec};
/// let spec = ToolSpec::new("book_flight", "Books a flight. Returns the booking.", serde_json::json!({"type": "object"}))
///     .with_deprecated(Deprecation::new("3").with_note("bookings moved to one tool").with_replacement("book_trip"));
/// assert_eq!(
///     spec.description,
///     "Books a flight. Returns the booking. Deprecated since version 3: bookings moved to one tool. Use `book_trip` instead."
/// );
/// assert_eq!(spec.deprecated.unwrap().replaced_by.as_deref(), Some("book_trip"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Deprecation {
    /// The version since which the tool is deprecated (a version, not a date: the host sets
    /// the retirement time).
    pub since: String,
    /// Why, or what changed, in a few words the model reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The tool to call instead. A toolbox refuses a deprecated tool whose replacement is not
    /// registered, and a cycle of replacements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

impl Deprecation {
    /// Deprecated since version `since`, with no note and no replacement.
    pub fn new(since: impl Into<String>) -> Deprecation {
        Deprecation {
            since: since.into(),
            note: None,
            replaced_by: None,
        }
    }

    /// Sets the note: why, or what changed.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Deprecation {
        self.note = Some(note.into());
        self
    }

    /// Sets the tool that replaces this one.
    #[must_use]
    pub fn with_replacement(mut self, tool: impl Into<String>) -> Deprecation {
        self.replaced_by = Some(tool.into());
        self
    }

    /// The sentence appended to the description ([`toolsmith_lint::deprecation::notice`]).
    pub fn notice(&self) -> String {
        toolsmith_lint::deprecation::notice(
            &self.since,
            self.note.as_deref(),
            self.replaced_by.as_deref(),
        )
    }
}
