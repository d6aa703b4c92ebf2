//! Cursors: which page a call asks for, and the tagged cursor strings that carry it.

use super::DEFAULT_HINT;
use crate::codes;
use crate::error::ToolError;
use serde_json::Value;

/// Which page of a result to show, and what the cursor of the next page is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRequest {
    /// Where the page starts: an item index for lists, a character index for text.
    pub offset: usize,
    /// The digest of the request's arguments without the cursor ([`page_digest`]); next-page
    /// cursors are bound to it.
    pub args_digest: String,
    /// The record-store reference of the full result, when this page is served from a stored
    /// record; carried into the next cursor.
    pub reference: Option<String>,
    /// How to narrow the request, appended to the note; [`DEFAULT_HINT`] when `None`.
    pub hint: Option<String>,
}

impl PageRequest {
    /// The first page of a request whose arguments have the digest `args_digest`.
    pub fn first(args_digest: impl Into<String>) -> Self {
        PageRequest {
            offset: 0,
            args_digest: args_digest.into(),
            reference: None,
            hint: None,
        }
    }

    /// The page a cursor points at, after checking that the cursor belongs to these arguments.
    ///
    /// # Errors
    /// [`CursorError`] when the cursor is malformed or was issued for other arguments.
    pub fn from_cursor(cursor: &str, args_digest: impl Into<String>) -> Result<Self, CursorError> {
        let args_digest = args_digest.into();
        let pos = decode_cursor(cursor, &args_digest)?;
        Ok(PageRequest {
            offset: pos.offset,
            args_digest,
            reference: pos.reference,
            hint: None,
        })
    }

    /// The page requested by a call's arguments: reads the string argument `cursor_param` (when
    /// present and not null) and binds the page to the digest of the other arguments.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::budget::PageRequest;
    /// let args = serde_json::json!({"query": "boots"});
    /// let first = PageRequest::from_args(&args, "cursor").unwrap();
    /// assert_eq!(first.offset, 0);
    /// let bad = serde_json::json!({"query": "boots", "cursor": "not-a-cursor"});
    /// assert!(PageRequest::from_args(&bad, "cursor").is_err());
    /// ```
    ///
    /// # Errors
    /// [`CursorError`] when the cursor argument is not a string, is malformed, or belongs to
    /// other arguments.
    pub fn from_args(args: &Value, cursor_param: &str) -> Result<Self, CursorError> {
        let digest = page_digest(args, cursor_param);
        match args.get(cursor_param) {
            None | Some(Value::Null) => Ok(PageRequest::first(digest)),
            Some(Value::String(c)) => PageRequest::from_cursor(c, digest),
            Some(_) => Err(CursorError::Malformed),
        }
    }

    /// Sets the narrowing hint appended to notes.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub(crate) fn hint(&self) -> &str {
        self.hint.as_deref().unwrap_or(DEFAULT_HINT)
    }
}

/// The digest of a call's arguments without its cursor argument: SHA-256 over the canonical JSON,
/// 16 hex characters. Next-page cursors are bound to it.
pub fn page_digest(args: &Value, cursor_param: &str) -> String {
    match args {
        Value::Object(map) if map.contains_key(cursor_param) => {
            let mut rest = map.clone();
            rest.remove(cursor_param);
            crate::audit::args_digest(&Value::Object(rest))
        }
        other => crate::audit::args_digest(other),
    }
}

/// A cursor that cannot be used with this request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// The text is not a cursor this library issued, or it was edited.
    #[error(
        "The cursor is not one this tool returned (it may have been edited or cut). Pass the \
         cursor exactly as the previous result gave it, or leave the cursor out to start from the \
         first page."
    )]
    Malformed,
    /// The cursor was issued for a request with different arguments.
    #[error(
        "The cursor belongs to a request with different arguments. Repeat the call with the \
         same arguments as the call that returned the cursor, or leave the cursor out to start \
         from the first page."
    )]
    Foreign,
}

impl CursorError {
    /// The stable code of this error: `INVALID_CURSOR`.
    pub fn code(&self) -> &'static str {
        codes::INVALID_CURSOR
    }

    /// This error as an `invalid_input` tool error naming the cursor argument.
    pub fn into_tool_error(self, cursor_param: &str) -> ToolError {
        ToolError::invalid_input(self.code(), format!("\"{cursor_param}\": {self}"))
    }
}

/// A decoded cursor: where the next page starts and, when the result was stored, its reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CursorPosition {
    /// The offset of the page: an item index for lists, a character index for text.
    pub offset: usize,
    /// The record-store reference of the full result, if it was stored.
    pub reference: Option<String>,
}

const CURSOR_PREFIX: &str = "c1";

/// Hex characters of a cursor's tag (128 bits of HMAC-SHA-256).
const TAG_HEX: usize = 32;

/// The key a cursor's tag is made with: derived from the binding (`args_digest`).
fn cursor_tag_key(args_digest: &str) -> crate::secret::SecretKey {
    crate::secret::SecretKey::derive(args_digest.as_bytes())
}

fn cursor_tag(offset: usize, reference: &str, args_digest: &str) -> String {
    cursor_tag_key(args_digest).mac_hex(
        &[
            b"toolsmith-cursor",
            offset.to_string().as_bytes(),
            reference.as_bytes(),
        ],
        TAG_HEX / 2,
    )
}

/// Whether `tag` (hex) is the tag of this offset and reference under `args_digest`, compared in
/// constant time.
fn cursor_tag_matches(tag: &str, offset: usize, reference: &str, args_digest: &str) -> bool {
    crate::secret::unhex(tag).is_some_and(|tag| {
        cursor_tag_key(args_digest).verify(
            &[
                b"toolsmith-cursor",
                offset.to_string().as_bytes(),
                reference.as_bytes(),
            ],
            &tag,
        )
    })
}

fn reference_is_embeddable(reference: &str) -> bool {
    !reference.is_empty()
        && reference.len() <= 128
        && reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Encodes a cursor for the page starting at `offset` of the request with `args_digest`.
///
/// The tag is an HMAC keyed with `args_digest`: a cursor is only as unforgeable as its binding
/// is secret. The toolbox binds cursors with its own key (never a digest a caller can compute).
///
/// `reference` (the stored full result) is embedded only when it consists of ASCII letters,
/// digits, `_` and `-` (as [`MemoryRecordStore`](crate::store::MemoryRecordStore) references do); otherwise it is left out and the
/// next page is served by running the tool again.
pub fn encode_cursor(offset: usize, args_digest: &str, reference: Option<&str>) -> String {
    let reference = reference
        .filter(|r| reference_is_embeddable(r))
        .unwrap_or("");
    let tag = cursor_tag(offset, reference, args_digest);
    format!("{CURSOR_PREFIX}.{offset}.{reference}.{tag}")
}

/// Decodes a cursor and checks that it was issued for a request with `args_digest`.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::budget::{decode_cursor, encode_cursor, CursorError};
/// let c = encode_cursor(40, "abc", Some("rec_1"));
/// assert_eq!(decode_cursor(&c, "abc").unwrap().offset, 40);
/// assert_eq!(decode_cursor(&c, "other"), Err(CursorError::Foreign));
/// assert_eq!(decode_cursor("40", "abc"), Err(CursorError::Malformed));
/// ```
///
/// # Errors
/// [`CursorError::Malformed`] for text that is not an intact cursor; [`CursorError::Foreign`] for
/// a cursor issued for other arguments.
pub fn decode_cursor(cursor: &str, args_digest: &str) -> Result<CursorPosition, CursorError> {
    let mut parts = cursor.trim().split('.');
    let (Some(prefix), Some(offset), Some(reference), Some(tag), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return Err(CursorError::Malformed);
    };
    if prefix != CURSOR_PREFIX
        || tag.len() != TAG_HEX
        || !tag.bytes().all(|b| b.is_ascii_hexdigit())
        || !(reference.is_empty() || reference_is_embeddable(reference))
        || offset.is_empty()
        || !offset.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(CursorError::Malformed);
    }
    let offset: usize = offset.parse().map_err(|_| CursorError::Malformed)?;
    if !cursor_tag_matches(tag, offset, reference, args_digest) {
        // An edited offset or reference and a cursor from other arguments look the same here;
        // a cursor edited by hand is rare, a cursor reused with other arguments is not.
        return Err(CursorError::Foreign);
    }
    Ok(CursorPosition {
        offset,
        reference: (!reference.is_empty()).then(|| reference.to_string()),
    })
}
