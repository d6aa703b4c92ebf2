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
//! result goes into a [`RecordStore`] and the envelope carries its reference ([`fit_envelope`]
//! does all of this on an [`Envelope`]).
//!
//! A cursor is an opaque string holding the offset of the next page, the reference of the stored
//! raw result (when there is one) and a tag: an HMAC-SHA-256 keyed with the request's binding
//! ([`PageRequest::args_digest`]), so it cannot be replayed against another binding or edited
//! ([`decode_cursor`]). The toolbox derives the binding with its own secret key from the tool, the
//! caller and the arguments, so a caller cannot compute a valid cursor for anything: not for
//! another tool, another caller, or a reference it guessed.
//!
//! ```
//! use tool_core::budget::{fit, OutputBudget, PageRequest};
//! let data = serde_json::json!({"items": (0..200).map(|i| format!("item number {i}")).collect::<Vec<_>>()});
//! let page = PageRequest::first("digest-of-args");
//! let fitted = fit(data, OutputBudget::new(300), &page);
//! assert!(fitted.truncated);
//! let shown = fitted.data["items"].as_array().unwrap().len();
//! assert!(fitted.note.as_deref().unwrap().starts_with(&format!("Showing {shown} of 200 items in \"items\".")));
//! assert!(fitted.cursor.is_some());
//! assert!(serde_json::to_string(&fitted.data).unwrap().chars().count() <= 300);
//! ```

use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

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
    /// use tool_core::budget::PageRequest;
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

    fn hint(&self) -> &str {
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

fn cursor_tag(offset: usize, reference: &str, args_digest: &str) -> String {
    let key = crate::secret::SecretKey::derive(args_digest.as_bytes());
    key.mac_hex(
        &[
            b"toolsmith-cursor",
            offset.to_string().as_bytes(),
            reference.as_bytes(),
        ],
        TAG_HEX / 2,
    )
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
/// digits, `_` and `-` (as [`MemoryRecordStore`] references do); otherwise it is left out and the
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
/// use tool_core::budget::{decode_cursor, encode_cursor, CursorError};
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
    if cursor_tag(offset, reference, args_digest) != tag {
        // An edited offset or reference and a cursor from other arguments look the same here;
        // a cursor edited by hand is rare, a cursor reused with other arguments is not.
        return Err(CursorError::Foreign);
    }
    Ok(CursorPosition {
        offset,
        reference: (!reference.is_empty()).then(|| reference.to_string()),
    })
}

/// The result of fitting data to a budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The data to return; at most the budget's characters of compact JSON.
    pub data: Value,
    /// Whether anything was left out of `data`.
    pub truncated: bool,
    /// What was cut and how to see more, when anything was.
    pub note: Option<String>,
    /// The cursor of the next page, when there is one.
    pub cursor: Option<String>,
    /// The offset the cursor points at.
    pub next_offset: Option<usize>,
    /// The total number of items (lists) or characters (text) of the paged value, when paged.
    pub total: Option<usize>,
}

impl Fitted {
    fn untouched(data: Value) -> Self {
        Fitted {
            data,
            truncated: false,
            note: None,
            cursor: None,
            next_offset: None,
            total: None,
        }
    }

    /// Writes this result into an envelope: `data` (left out when null), `truncated`, `note` and
    /// `cursor`.
    pub fn apply_to(self, env: &mut Envelope) {
        env.data = (!self.data.is_null()).then_some(self.data);
        env.truncated = self.truncated;
        env.note = self.note;
        env.cursor = self.cursor;
    }
}

/// Counts the characters written to it; fails once more than `limit` were written, so a size
/// check on a large value stops early.
struct CharCounter {
    chars: usize,
    limit: usize,
}

impl std::io::Write for CharCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // serde_json writes valid UTF-8: count every byte that is not a continuation byte.
        self.chars += buf.iter().filter(|b| (**b & 0xC0) != 0x80).count();
        if self.chars > self.limit {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Number of characters of the compact JSON of `v`.
pub fn json_chars(v: &Value) -> usize {
    let mut counter = CharCounter {
        chars: 0,
        limit: usize::MAX,
    };
    match serde_json::to_writer(&mut counter, v) {
        Ok(()) => counter.chars,
        Err(_) => usize::MAX,
    }
}

/// The number of characters of the compact JSON of `v` when at most `limit`, else `limit + 1`
/// (found without writing past the limit).
fn chars_upto(v: &Value, limit: usize) -> usize {
    let mut counter = CharCounter { chars: 0, limit };
    match serde_json::to_writer(&mut counter, v) {
        Ok(()) => counter.chars,
        Err(_) => limit.saturating_add(1),
    }
}

/// Whether the compact JSON of `v` has at most `max` characters; stops writing at the limit.
pub fn fits(v: &Value, max: usize) -> bool {
    // Most results are far below the budget: a walk that bounds the size from above settles them
    // without serializing.
    if size_upper_bound(v, max).is_some() {
        return true;
    }
    let mut counter = CharCounter {
        chars: 0,
        limit: max,
    };
    serde_json::to_writer(&mut counter, v).is_ok()
}

/// An upper bound of the characters of `v`'s compact JSON, or `None` once it exceeds `limit`.
/// Strings count six characters per byte (the longest escape, `\u00XX`), numbers 24.
fn size_upper_bound(v: &Value, limit: usize) -> Option<usize> {
    fn walk(v: &Value, total: &mut usize, limit: usize) -> bool {
        let add = |total: &mut usize, n: usize| {
            *total += n;
            *total <= limit
        };
        match v {
            Value::Null | Value::Bool(_) => add(total, 5),
            Value::Number(_) => add(total, 24),
            Value::String(s) => add(total, 2 + 6 * s.len()),
            Value::Array(items) => {
                add(total, 2 + items.len()) && items.iter().all(|item| walk(item, total, limit))
            }
            Value::Object(map) => {
                add(total, 2 + map.len())
                    && map
                        .iter()
                        .all(|(k, item)| add(total, 3 + 6 * k.len()) && walk(item, total, limit))
            }
        }
    }
    let mut total = 0;
    walk(v, &mut total, limit).then_some(total)
}

/// Characters a string takes inside compact JSON (escapes counted as written), excluding quotes.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        _ => 1,
    }
}

fn text_marker(shown: usize, total: usize) -> String {
    format!("… [truncated: {shown} of {total} characters shown]")
}

fn items_marker(shown: usize, total: usize) -> String {
    format!("… [truncated: {shown} of {total} items shown]")
}

/// The array that paging applies to.
#[derive(Clone, Debug, PartialEq)]
enum Pager {
    /// The data is text.
    Text,
    /// The data is an array.
    TopArray,
    /// The data is an object; the named field is its largest array.
    Field(String),
    /// Nothing to page.
    None,
}

fn choose_pager(data: &Value) -> Pager {
    match data {
        Value::String(_) => Pager::Text,
        Value::Array(_) => Pager::TopArray,
        Value::Object(map) => largest_array_field(map).map_or(Pager::None, Pager::Field),
        _ => Pager::None,
    }
}

/// The key of the largest array field of `map` (by JSON size; the first of equals).
fn largest_array_field(map: &Map<String, Value>) -> Option<String> {
    let mut best: Option<(&String, usize)> = None;
    for (k, v) in map {
        if v.is_array() {
            let size = json_chars(v);
            if best.is_none_or(|(_, b)| size > b) {
                best = Some((k, size));
            }
        }
    }
    best.map(|(k, _)| k.clone())
}

/// Fits `data` into `budget`, showing the page `page` asks for.
///
/// Data within budget on the first page is returned untouched. Otherwise the result is cut as
/// described in the [module docs](self); the compact JSON of [`Fitted::data`] never exceeds
/// `budget.max_chars` characters. Each page shows at least one item, so paging always advances.
/// Data that cannot be cut structurally to the budget (for example an object with thousands of
/// small fields) is shown as the start of its JSON text, with a note saying so.
pub fn fit(data: Value, budget: OutputBudget, page: &PageRequest) -> Fitted {
    let max = budget.max_chars;
    if page.offset == 0 && fits(&data, max) {
        return Fitted::untouched(data);
    }
    let fitted = match choose_pager(&data) {
        Pager::Text => match data {
            Value::String(text) => fit_text(&text, max, page),
            other => Fitted::untouched(other),
        },
        Pager::TopArray | Pager::Field(_) => fit_items(data, max, page),
        Pager::None => {
            if fits(&data, max) {
                // A later page of data that has no pages: there is nothing more to show.
                Fitted::untouched(data)
            } else {
                match shrink(&data, max) {
                    Some(small) => Fitted {
                        data: small,
                        truncated: true,
                        note: Some(format!(
                            "Long values were shortened to fit {max} characters; each cut is marked \"[truncated: ...]\". {}",
                            narrow_hint(page)
                        )),
                        cursor: None,
                        next_offset: None,
                        total: None,
                    },
                    None => preview(&data, max, page),
                }
            }
        }
    };
    // The guarantee holds whatever happened above.
    if fits(&fitted.data, max) {
        fitted
    } else {
        preview(&fitted.data, max, page)
    }
}

/// The hint for a cut without a cursor: the tool's own hint, or a generic one.
fn narrow_hint(page: &PageRequest) -> String {
    page.hint
        .clone()
        .unwrap_or_else(|| "Narrow the request to see less at once.".to_string())
}

/// Last resort: the start of the data's JSON text, as a string.
fn preview(data: &Value, max: usize, page: &PageRequest) -> Fitted {
    let text = serde_json::to_string(data).unwrap_or_default();
    let total = text.chars().count();
    let cut = cut_text(&text, max);
    let data = match cut {
        Some(s) => Value::String(s),
        None => Value::Null,
    };
    Fitted {
        data,
        truncated: true,
        note: Some(format!(
            "The result ({total} characters of JSON) cannot be shortened structurally to fit \
             {max} characters; showing the start of its JSON text. {}",
            narrow_hint(page)
        )),
        cursor: None,
        next_offset: None,
        total: None,
    }
}

/// `text` cut so that its JSON string (with quotes and the marker) fits `max`; `None` when even
/// the marker does not fit.
fn cut_text(text: &str, max: usize) -> Option<String> {
    let total = text.chars().count();
    // Upper bound of the marker: the counts never exceed `total`.
    let marker_len = text_marker(total, total).chars().count() + 1;
    let room = max.checked_sub(2 + marker_len)?;
    let (kept, end) = prefix_within(text, room);
    Some(format!("{}{}", &text[..end], text_marker(kept, total)))
}

/// The longest prefix of `text` whose JSON-escaped length fits in `room`: its length in
/// characters and its end in bytes.
fn prefix_within(text: &str, room: usize) -> (usize, usize) {
    let mut used = 0;
    let mut kept = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let w = escaped_len(c);
        if used + w > room {
            break;
        }
        used += w;
        kept += 1;
        end = i + c.len_utf8();
    }
    (kept, end)
}

fn fit_text(text: &str, max: usize, page: &PageRequest) -> Fitted {
    let total = text.chars().count();
    let start = page.offset.min(total);
    let byte_start = text
        .char_indices()
        .nth(start)
        .map_or(text.len(), |(i, _)| i);
    let rest = &text[byte_start..];
    if start == 0 && fits(&Value::String(text.to_string()), max) {
        return Fitted::untouched(Value::String(text.to_string()));
    }
    // Reserve the marker's worst case so the page plus marker fit.
    let marker_len = text_marker(total, total).chars().count() + 1;
    let room = max.saturating_sub(2 + marker_len);
    let (kept, end) = prefix_within(rest, room);
    let last = start + kept;
    let more = last < total;
    if kept == 0 && more {
        // Not even one character fits beside the marker: the budget is too small to page.
        return preview(&Value::String(text.to_string()), max, page);
    }
    let shown = if more || start > 0 {
        format!("{}{}", &rest[..end], text_marker(kept, total))
    } else {
        rest[..end].to_string()
    };
    let note = if start >= total && total > 0 {
        format!("The cursor is past the end of the text ({total} characters). Leave the cursor out to start from the beginning.")
    } else if more {
        format!(
            "Showing characters {}–{} of {total}. {}",
            start + 1,
            last,
            page.hint()
        )
    } else {
        format!(
            "Showing characters {}–{} of {total}. This is the last page.",
            start + 1,
            last
        )
    };
    let next_offset = more.then_some(last);
    Fitted {
        data: Value::String(shown),
        truncated: true,
        note: Some(note),
        cursor: next_offset.map(|o| encode_cursor(o, &page.args_digest, page.reference.as_deref())),
        next_offset,
        total: Some(total),
    }
}

fn fit_items(data: Value, max: usize, page: &PageRequest) -> Fitted {
    // Split the data into the wrapper (everything but the paged array) and the items.
    let (mut wrapper, items, field) = match data {
        Value::Array(items) => (Value::Array(Vec::new()), items, None),
        Value::Object(mut map) => {
            let Some(field) = largest_array_field(&map) else {
                return Fitted::untouched(Value::Object(map));
            };
            let items = match map.get_mut(&field) {
                Some(Value::Array(items)) => std::mem::take(items),
                _ => Vec::new(),
            };
            (Value::Object(map), items, Some(field))
        }
        other => return Fitted::untouched(other),
    };
    let total = items.len();
    let start = page.offset.min(total);
    let mut shortened = false;

    // Keep the wrapper small enough that items have room: at most half the budget, or what the
    // remaining items leave over when that is more.
    let mut rest_len = 0usize;
    for item in &items[start..] {
        rest_len += chars_upto(item, max) + 1;
        if rest_len > max {
            break;
        }
    }
    let wrapper_budget = (max / 2).max(max.saturating_sub(rest_len));
    if !fits(&wrapper, wrapper_budget) {
        if let Some(small) = shrink(&wrapper, wrapper_budget) {
            wrapper = small;
            shortened = true;
        }
    }
    let wrapper_len = chars_upto(&wrapper, max);
    let avail = max.saturating_sub(wrapper_len);

    let mut page_items: Vec<Value> = Vec::new();
    let mut used = 0;
    for item in &items[start..] {
        let w = chars_upto(item, avail) + usize::from(!page_items.is_empty());
        if used + w > avail {
            break;
        }
        used += w;
        page_items.push(item.clone());
    }
    if page_items.is_empty() && start < total {
        // The next item alone does not fit: show it shortened, so paging still advances.
        match shrink(&items[start], avail) {
            Some(small) => {
                page_items.push(small);
                shortened = true;
            }
            None => {
                let mut whole = wrapper;
                put_items(&mut whole, field.as_deref(), items);
                return preview(&whole, max, page);
            }
        }
    }
    let shown = page_items.len();
    let last = start + shown;
    let more = last < total;
    put_items(&mut wrapper, field.as_deref(), page_items);

    let what = match &field {
        Some(f) => format!(" items in \"{f}\""),
        None => String::new(),
    };
    let range = if start == 0 {
        format!("Showing {shown} of {total}{what}.")
    } else if shown == 0 {
        format!(
            "The cursor is past the end of the list ({total}{what}). Leave the cursor out to start from the first page."
        )
    } else {
        format!("Showing {}–{last} of {total}{what}.", start + 1)
    };
    let mut note = range;
    if shortened {
        note.push_str(" Long values were shortened; each cut is marked \"[truncated: ...]\".");
    }
    if more {
        note.push(' ');
        note.push_str(page.hint());
    } else if start > 0 && shown > 0 {
        note.push_str(" This is the last page.");
    } else if shortened {
        note.push(' ');
        note.push_str(&narrow_hint(page));
    }
    let next_offset = more.then_some(last);
    Fitted {
        data: wrapper,
        truncated: true,
        note: Some(note),
        cursor: next_offset.map(|o| encode_cursor(o, &page.args_digest, page.reference.as_deref())),
        next_offset,
        total: Some(total),
    }
}

fn put_items(wrapper: &mut Value, field: Option<&str>, items: Vec<Value>) {
    match (wrapper, field) {
        (Value::Object(map), Some(f)) => {
            if let Some(slot) = map.get_mut(f) {
                *slot = Value::Array(items);
            }
        }
        (slot @ Value::Array(_), None) => *slot = Value::Array(items),
        _ => {}
    }
}

/// Longest string and longest array anywhere in `v`.
fn extents(v: &Value, longest_str: &mut usize, longest_arr: &mut usize) {
    match v {
        Value::String(s) => *longest_str = (*longest_str).max(s.chars().count()),
        Value::Array(items) => {
            *longest_arr = (*longest_arr).max(items.len());
            for i in items {
                extents(i, longest_str, longest_arr);
            }
        }
        Value::Object(map) => {
            for i in map.values() {
                extents(i, longest_str, longest_arr);
            }
        }
        _ => {}
    }
}

/// `v` with every string longer than `cap` characters cut to `cap` plus the marker, and every
/// array longer than `items` cut to `items` plus a marker item.
fn capped(v: &Value, cap: usize, items: usize) -> Value {
    match v {
        Value::String(s) => {
            let n = s.chars().count();
            if n > cap {
                let end = s.char_indices().nth(cap).map_or(s.len(), |(i, _)| i);
                Value::String(format!("{}{}", &s[..end], text_marker(cap, n)))
            } else {
                v.clone()
            }
        }
        Value::Array(list) => {
            let mut out: Vec<Value> = list
                .iter()
                .take(items)
                .map(|i| capped(i, cap, items))
                .collect();
            if list.len() > items {
                out.push(Value::String(items_marker(items, list.len())));
            }
            Value::Array(out)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, i)| (k.clone(), capped(i, cap, items)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// Largest `x` in `lo..=hi` with `ok(x)`, assuming `ok` is monotone (true up to some point).
fn largest(lo: usize, hi: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
    if lo > hi || !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// Shrinks `v` to at most `max` characters of JSON by cutting long strings (as little as possible,
/// longest first), then long nested arrays. `None` when that is not enough.
fn shrink(v: &Value, max: usize) -> Option<Value> {
    if fits(v, max) {
        return Some(v.clone());
    }
    let (mut longest_str, mut longest_arr) = (0, 0);
    extents(v, &mut longest_str, &mut longest_arr);
    // No string can be longer than the budget in the output, and no array can have more items
    // than half of it: cap those first so every probe below works on bounded data.
    let base = capped(v, longest_str.min(max), longest_arr.min(max / 2 + 1));
    let min_cap = MIN_KEPT_CHARS.min(longest_str);
    let all_items = longest_arr.min(max / 2 + 1);
    if let Some(cap) = largest(min_cap, longest_str.min(max), |cap| {
        fits(&capped(&base, cap, all_items), max)
    }) {
        return Some(capped(&base, cap, all_items));
    }
    let strings_cut = capped(&base, min_cap, all_items);
    let k = largest(1, all_items, |k| {
        fits(&capped(&strings_cut, min_cap, k), max)
    })?;
    Some(capped(&strings_cut, min_cap, k))
}

/// Where full results are kept when a result is cut, so the host (or a next page) can reach them,
/// and the results a refused repeat of a keyed write points at.
///
/// A store that can fail implements the `try_` methods; the toolbox calls those, counts each
/// error (and each panic) as a fault ([`crate::fault`]) and answers the call all the same: the
/// kept result of a keyed write that could not be stored has no reference (its repeat is still a
/// `DUPLICATE`, without the original), a cut result that could not be stored keeps a `ref` and
/// cursor that lead nowhere, and a page that cannot be read is treated like an evicted one.
///
/// A durable store (one that survives a restart, such as the SQLite store of the `sqlite`
/// feature) also keeps the idempotency records of the toolbox's gate
/// ([`keeps_outcomes`](RecordStore::keeps_outcomes)), so a repeat of an approved write after a
/// restart is refused exactly as before it.
pub trait RecordStore: Send + Sync {
    /// Stores `value` and returns its reference.
    fn put(&self, value: Value) -> String;
    /// The value stored under `reference`, if it is still kept.
    fn get(&self, reference: &str) -> Option<Value>;

    /// Stores `value`, or says why it could not. The default calls [`put`](RecordStore::put).
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when the value was not kept.
    fn try_put(&self, value: Value) -> Result<String, crate::fault::BackendError> {
        Ok(self.put(value))
    }

    /// The value stored under `reference`, or why it could not be read. The default calls
    /// [`get`](RecordStore::get).
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when the store could not be read.
    fn try_get(&self, reference: &str) -> Result<Option<Value>, crate::fault::BackendError> {
        Ok(self.get(reference))
    }

    /// Whether this store keeps idempotency records (the `*_outcome` methods). Default `false`:
    /// the gate keeps them in memory only.
    fn keeps_outcomes(&self) -> bool {
        false
    }

    /// Keeps the idempotency record of `key` (an opaque id), replacing any earlier one.
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when it was not kept.
    fn put_outcome(
        &self,
        key: &str,
        outcome: &crate::idempotency::StoredOutcome,
    ) -> Result<(), crate::fault::BackendError> {
        let _ = (key, outcome);
        Ok(())
    }

    /// The idempotency record of `key`, if one is kept.
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when the store could not be read.
    fn get_outcome(
        &self,
        key: &str,
    ) -> Result<Option<crate::idempotency::StoredOutcome>, crate::fault::BackendError> {
        let _ = key;
        Ok(None)
    }

    /// Forgets the idempotency record of `key`.
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when it could not be removed.
    fn remove_outcome(&self, key: &str) -> Result<(), crate::fault::BackendError> {
        let _ = key;
        Ok(())
    }
}

/// An in-memory [`RecordStore`] keeping the most recent `capacity` records; the oldest is evicted.
///
/// References look like `rec_<32 hex>`: 128 random bits each, so nobody can guess or step
/// through another caller's references.
///
/// ```
/// use tool_core::budget::{MemoryRecordStore, RecordStore};
/// let store = MemoryRecordStore::new(2);
/// let a = store.put(serde_json::json!(1));
/// let b = store.put(serde_json::json!(2));
/// let _c = store.put(serde_json::json!(3));
/// assert_eq!(store.get(&a), None); // evicted
/// assert_eq!(store.get(&b), Some(serde_json::json!(2)));
/// ```
#[derive(Debug)]
pub struct MemoryRecordStore {
    capacity: usize,
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    order: VecDeque<String>,
    records: HashMap<String, Value>,
}

/// The default number of records a [`MemoryRecordStore`] keeps.
pub const DEFAULT_RECORD_CAPACITY: usize = 256;

impl Default for MemoryRecordStore {
    fn default() -> Self {
        MemoryRecordStore::new(DEFAULT_RECORD_CAPACITY)
    }
}

impl MemoryRecordStore {
    /// A store keeping at most `capacity` records (at least one).
    pub fn new(capacity: usize) -> Self {
        MemoryRecordStore {
            capacity: capacity.max(1),
            inner: Mutex::new(StoreInner::default()),
        }
    }

    /// How many records are kept now.
    pub fn len(&self) -> usize {
        self.lock().records.len()
    }

    /// Whether no record is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StoreInner> {
        // A panic while holding the lock cannot leave the map half-updated in a way that
        // matters here; keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl RecordStore for MemoryRecordStore {
    fn put(&self, value: Value) -> String {
        let reference = format!("rec_{}", crate::secret::random_hex(16));
        let mut inner = self.lock();
        inner.order.push_back(reference.clone());
        inner.records.insert(reference.clone(), value);
        while inner.order.len() > self.capacity {
            if let Some(old) = inner.order.pop_front() {
                inner.records.remove(&old);
            }
        }
        reference
    }

    fn get(&self, reference: &str) -> Option<Value> {
        self.lock().records.get(reference).cloned()
    }
}

/// The longest `code` an envelope carries, in characters; longer codes are cut.
pub const MAX_CODE_CHARS: usize = 64;

/// Bounds the channels of an envelope besides an `ok` result's `data`: `message` and `note` are
/// cut to `budget` characters with a marker, `code` to [`MAX_CODE_CHARS`], and the structured
/// details of a non-ok envelope (its `data`) are cut like a result. Returns whether anything
/// was cut.
///
/// ```
/// use tool_core::budget::{bound_channels, OutputBudget};
/// let mut env = tool_core::Envelope::error(tool_core::Status::Failed, "E", "x".repeat(5000));
/// assert!(bound_channels(&mut env, OutputBudget::new(100)));
/// assert!(env.message.unwrap().chars().count() < 160);
/// ```
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
///
/// ```
/// use tool_core::budget::*;
/// use tool_core::Envelope;
/// let store = MemoryRecordStore::default();
/// let mut env = Envelope::ok(serde_json::json!((0..500).collect::<Vec<_>>()));
/// let cut = fit_envelope(&mut env, OutputBudget::default(), &PageRequest::first("d"), &store);
/// assert!(cut && env.truncated);
/// let raw = store.get(env.reference.as_deref().unwrap()).unwrap();
/// assert_eq!(raw.as_array().unwrap().len(), 500);
/// let next = decode_cursor(env.cursor.as_deref().unwrap(), "d").unwrap();
/// assert_eq!(next.reference, env.reference);
/// ```
pub fn fit_envelope(
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
