//! [`Reply`]: a successful result that also tells the model something.

/// A boxed, sendable future: what an async executor returns.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A successful result with a note for the model, e.g. "Showing 10 of 37. Add category or
/// max_price to narrow the search."
///
/// Return `Reply<T>` (or `Result<Reply<T>, ToolError>`) from a `#[tool]` function instead of `T`;
/// the output schema is `T`'s, the note becomes the envelope's `note`, and `truncated: true` when
/// [`Reply::truncated`] says the tool itself left items out.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// let r = toolsmith::Reply::new(vec![1, 2, 3]).note("Showing 3 of 40. Add a date range to narrow.").truncated();
/// assert_eq!(r.note.as_deref(), Some("Showing 3 of 40. Add a date range to narrow."));
/// assert!(r.truncated);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Reply<T> {
    /// The data.
    pub data: T,
    /// The note for the model.
    pub note: Option<String>,
    /// Whether the tool left part of the result out (the note should say what and how to narrow).
    pub truncated: bool,
}

impl<T> Reply<T> {
    /// A reply carrying `data` and no note.
    pub fn new(data: T) -> Self {
        Reply {
            data,
            note: None,
            truncated: false,
        }
    }

    /// Adds a note.
    #[must_use]
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// Marks the data as a part of a larger result.
    #[must_use]
    pub fn truncated(mut self) -> Self {
        self.truncated = true;
        self
    }
}

impl<T> Reply<T> {
    /// The same reply with its data mapped.
    pub(crate) fn map_data<U>(self, f: impl FnOnce(T) -> U) -> Reply<U> {
        Reply {
            data: f(self.data),
            note: self.note,
            truncated: self.truncated,
        }
    }
}

impl<T> From<T> for Reply<T> {
    fn from(data: T) -> Self {
        Reply::new(data)
    }
}

/// How a typed tool's result is encoded, chosen by the caller of the pipeline: a JSON value (for
/// an [`Envelope`](crate::Envelope)), or JSON text straight from the result's `Serialize` (for
/// [`Toolbox::call_json`](crate::Toolbox::call_json), which never builds the value unless a
/// later stage needs it). Used by generated code.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Encoding<'a> {
    /// `serde_json::to_value`.
    Value,
    /// `serde_json::to_string`; with a scan, each string is judged for redaction as it is
    /// written, so the redaction stage need not read the text again.
    Text(Option<TextScan<'a>>),
}

/// What the redaction stage asks of each string of a result written as text
/// ([`Encoding::Text`]): whether redacting the result could change it. The redaction service
/// implements it; this layer only carries it from the pipeline to the encoder.
pub(crate) trait StringScan: Sync {
    /// Whether redaction could change `s` (an object key if `key`).
    fn may_change(&self, s: &str, key: bool) -> bool;
}

/// The scan a result's strings are judged by while it is written as text. Made by the pipeline
/// only; generated code passes it on.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct TextScan<'a>(pub(crate) &'a dyn StringScan);

impl TextScan<'_> {
    /// Whether redaction could change `s` (an object key if `key`).
    pub(crate) fn may_change(&self, s: &str, key: bool) -> bool {
        self.0.may_change(s, key)
    }
}

impl std::fmt::Debug for TextScan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextScan")
    }
}

/// A result encoded as [`Encoding`] asked. Used by generated code.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub enum Encoded {
    /// The result as a JSON value.
    Value(serde_json::Value),
    /// The result as compact JSON text.
    Text {
        /// The text.
        json: String,
        /// The text was scanned as it was written ([`Encoding::Text`] with a scan) and no
        /// string in it is one redaction would change.
        redaction_clean: bool,
    },
}
