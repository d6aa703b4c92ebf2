//! The output budget: results are cut to a size the model can read, honestly and page by page.
//!
//! A successful result's `data` is measured as characters of its compact JSON. When it exceeds the
//! [`OutputBudget`], [`fit`] cuts it structurally:
//!
//! - a long list (the top-level array, or the largest array field of a top-level object) is cut to
//!   as many items as fit, with a note `Showing N of M. <hint>` and a cursor for the next page;
//! - long top-level text is cut at a character boundary with the marker
//!   `… [truncated: N of M characters shown]`, and paged by cursor too;
//! - long strings nested inside objects are cut with the same marker; nested lists are cut with a
//!   marker item `… [truncated: N of M items shown]`.
//!
//! Whenever anything is cut, [`Fitted::truncated`] is true and the note says what. The full raw
//! result goes into a [`RecordStore`] and the envelope carries its reference (the toolbox does
//! all of this on each call's [`Envelope`]).
//!
//! A cursor is an opaque string holding the offset of the next page, the reference of the stored
//! raw result (when there is one) and a tag: an HMAC-SHA-256 keyed with the request's binding
//! ([`PageRequest::args_digest`]), so it cannot be replayed against another binding or edited
//! ([`decode_cursor`]). The toolbox derives the binding with its own secret key from the tool, the
//! caller and the arguments, so a caller cannot compute a valid cursor for anything: not for
//! another tool, another caller, or a reference it guessed.
//!
//! A kept result can also be read whole, as a resource: [`Toolbox::result_resource`] names it
//! with a URI (`toolsmith://result/<ref>?tool=<tool>&tag=<tag>`, [`RESULT_URI_PREFIX`]) whose
//! tag binds it, with the same key as cursors, to the tool and the caller it was made for, and
//! [`Toolbox::read_result`] reads it for that caller only, behind the toolbox's policy.
//!
//! [`Toolbox::result_resource`]: crate::Toolbox::result_resource
//! [`Toolbox::read_result`]: crate::Toolbox::read_result
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! use toolsmith::budget::{fit, OutputBudget, PageRequest};
//! let data = serde_json::json!({"items": (0..200).map(|i| format!("item number {i}")).collect::<Vec<_>>()});
//! let page = PageRequest::first("digest-of-args");
//! let fitted = fit(data, OutputBudget::new(300), &page);
//! assert!(fitted.truncated);
//! let shown = fitted.data["items"].as_array().unwrap().len();
//! assert!(fitted.note.as_deref().unwrap().starts_with(&format!("Showing {shown} of 200 items in \"items\".")));
//! assert!(fitted.cursor.is_some());
//! assert!(serde_json::to_string(&fitted.data).unwrap().chars().count() <= 300);
//! ```

mod cursor;
mod cut;
mod measure;
mod result_uri;

pub use crate::store::{new_reference, MemoryRecordStore, RecordStore};
pub use cursor::{
    decode_cursor, encode_cursor, page_digest, CursorError, CursorPosition, PageRequest,
};
pub use cut::{fit, Fitted};
pub use measure::fits;
#[cfg(test)]
pub(crate) use measure::json_chars;
pub(crate) use result_uri::{result_uri, ResultUri};
pub use result_uri::{ResultReadError, ResultResource, RESULT_MIME_TYPE, RESULT_URI_PREFIX};

use crate::envelope::Envelope;
use cut::text_marker;

/// The default output budget in characters (Chrome's guidance for tool results).
pub const DEFAULT_MAX_CHARS: usize = 1500;

/// The hint appended to the note when a page has a next page and the tool supplied none.
pub const DEFAULT_HINT: &str = "Pass the cursor to see the next page.";

/// When nested values are shortened, no text is cut below this many characters (unless it was
/// shorter); if that is not enough, nested lists are cut instead.
const MIN_KEPT_CHARS: usize = 16;

/// The largest output a tool result may have, in characters of its compact JSON `data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputBudget {
    /// The maximum number of characters (Unicode scalar values) of the compact serialized `data`.
    pub max_chars: usize,
}

impl Default for OutputBudget {
    fn default() -> Self {
        OutputBudget {
            max_chars: DEFAULT_MAX_CHARS,
        }
    }
}

impl OutputBudget {
    /// A budget of `max_chars` characters.
    pub fn new(max_chars: usize) -> Self {
        OutputBudget { max_chars }
    }
}

/// The longest `code` an envelope carries, in characters; longer codes are cut.
pub const MAX_CODE_CHARS: usize = 64;

/// Bounds the channels of an envelope besides an `ok` result's `data`: `message` and `note` are
/// cut to `budget` characters with a marker, `code` to [`MAX_CODE_CHARS`], and the structured
/// details of a non-ok envelope (its `data`) are cut like a result. Returns whether anything
/// was cut.
pub fn bound_channels(env: &mut Envelope, budget: OutputBudget) -> bool {
    let max = budget.max_chars;
    let mut cut = false;
    for text in [env.message.as_mut(), env.note.as_mut()]
        .into_iter()
        .flatten()
    {
        cut |= bound_text(text, max);
    }
    if let Some(code) = env.code.as_mut() {
        if code.chars().count() > MAX_CODE_CHARS {
            *code = code.chars().take(MAX_CODE_CHARS).collect();
            cut = true;
        }
    }
    if env.status != crate::envelope::Status::Ok {
        if let Some(data) = env.data.take() {
            if fits(&data, max) {
                env.data = Some(data);
            } else {
                let fitted = fit(data, budget, &PageRequest::first(String::new()));
                env.data = (!fitted.data.is_null()).then_some(fitted.data);
                env.truncated = true;
                cut = true;
            }
        }
    }
    cut
}

/// Cuts `text` to at most `max` characters plus the marker saying how much was shown.
fn bound_text(text: &mut String, max: usize) -> bool {
    // Characters are at most 4 bytes: text this short in bytes is within the limit.
    if text.len() <= max || text.chars().count() <= max {
        return false;
    }
    let total = text.chars().count();
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    text.truncate(end);
    text.push_str(&text_marker(max, total));
    true
}

/// Fits a successful envelope's `data` to `budget` in place, keeping the full data in `store`.
///
/// Does nothing to envelopes that are not `ok` or carry no data. When the data is cut, the full
/// data is put into `store` (unless this page is already served from a stored record,
/// `page.reference`), the envelope's `ref` names it, and the next-page cursor carries it so the
/// next page can be served from the store. A note already on the envelope (the tool's own) is
/// kept ahead of the note saying what was cut. Returns whether the data was cut.
pub(crate) fn fit_envelope(
    env: &mut Envelope,
    budget: OutputBudget,
    page: &PageRequest,
    store: &dyn RecordStore,
) -> bool {
    if env.status != crate::envelope::Status::Ok {
        return false;
    }
    let Some(data) = env.data.take() else {
        return false;
    };
    if page.offset == 0 && fits(&data, budget.max_chars) {
        env.data = Some(data);
        return false;
    }
    let raw = data.clone();
    let mut fitted = fit(data, budget, page);
    if !fitted.truncated {
        env.data = (!fitted.data.is_null()).then_some(fitted.data);
        return false;
    }
    let reference = match &page.reference {
        Some(r) => r.clone(),
        None => store.put(raw),
    };
    if let Some(o) = fitted.next_offset {
        fitted.cursor = Some(encode_cursor(o, &page.args_digest, Some(&reference)));
    }
    // The tool's own note (e.g. "Showing 10 of 37 matches. Add a category to narrow.") stays,
    // ahead of the note saying what the budget cut.
    let tool_note = env.note.take();
    fitted.apply_to(env);
    if let Some(tool_note) = tool_note {
        env.note = Some(match env.note.take() {
            Some(cut) => format!("{tool_note} {cut}"),
            None => tool_note,
        });
    }
    env.reference = Some(reference);
    true
}

#[cfg(test)]
mod tests {
    use super::{bound_channels, OutputBudget};
    use crate::envelope::{Envelope, Status};

    #[test]
    fn a_long_message_is_cut_to_the_budget() {
        let mut env = Envelope::error(Status::Failed, "E", "x".repeat(5000));
        assert!(bound_channels(&mut env, OutputBudget::new(100)));
        assert!(env.message.unwrap().chars().count() < 160);
    }
}

#[cfg(test)]
mod paging_tests;
