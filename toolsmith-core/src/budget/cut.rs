//! Cutting: fitting a value to a budget structurally (lists, text, nested values), page by page.

use super::measure::{chars_upto, escaped_len, fits, json_chars};
use super::{encode_cursor, OutputBudget, PageRequest, MIN_KEPT_CHARS};
use crate::envelope::Envelope;
use serde_json::{Map, Value};

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

pub(super) fn text_marker(shown: usize, total: usize) -> String {
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
/// described in the budget module's docs; the compact JSON of [`Fitted::data`] never exceeds
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
    let (wrapper, items, field) = match split_items(data) {
        Ok(split) => split,
        Err(untouched) => return Fitted::untouched(untouched),
    };
    let total = items.len();
    let start = page.offset.min(total);
    let (mut wrapper, mut shortened) = small_wrapper(wrapper, &items[start..], max);
    let avail = max.saturating_sub(chars_upto(&wrapper, max));
    let mut page_items = items_within(&items[start..], avail);
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
    let span = ItemsShown {
        start,
        shown,
        total,
        shortened,
    };
    let next_offset = more.then_some(last);
    Fitted {
        data: wrapper,
        truncated: true,
        note: Some(items_note(&span, field.as_deref(), page)),
        cursor: next_offset.map(|o| encode_cursor(o, &page.args_digest, page.reference.as_deref())),
        next_offset,
        total: Some(total),
    }
}

/// Splits the data into the wrapper (everything but the paged array), the items, and the
/// field that held them; data with nothing to page comes back as the error, untouched.
fn split_items(data: Value) -> Result<(Value, Vec<Value>, Option<String>), Value> {
    match data {
        Value::Array(items) => Ok((Value::Array(Vec::new()), items, None)),
        Value::Object(mut map) => {
            let Some(field) = largest_array_field(&map) else {
                return Err(Value::Object(map));
            };
            let items = match map.get_mut(&field) {
                Some(Value::Array(items)) => std::mem::take(items),
                _ => Vec::new(),
            };
            Ok((Value::Object(map), items, Some(field)))
        }
        other => Err(other),
    }
}

/// Keeps the wrapper small enough that items have room: at most half the budget, or what the
/// remaining items leave over when that is more. Returns it and whether it was shortened.
fn small_wrapper(wrapper: Value, rest: &[Value], max: usize) -> (Value, bool) {
    let mut rest_len = 0usize;
    for item in rest {
        rest_len += chars_upto(item, max) + 1;
        if rest_len > max {
            break;
        }
    }
    let wrapper_budget = (max / 2).max(max.saturating_sub(rest_len));
    if !fits(&wrapper, wrapper_budget) {
        if let Some(small) = shrink(&wrapper, wrapper_budget) {
            return (small, true);
        }
    }
    (wrapper, false)
}

/// As many items from the start of `rest` as fit in `avail` characters (with their commas).
fn items_within(rest: &[Value], avail: usize) -> Vec<Value> {
    let mut page_items: Vec<Value> = Vec::new();
    let mut used = 0;
    for item in rest {
        let w = chars_upto(item, avail) + usize::from(!page_items.is_empty());
        if used + w > avail {
            break;
        }
        used += w;
        page_items.push(item.clone());
    }
    page_items
}

/// Which items a page of a list shows.
#[derive(Clone, Copy)]
struct ItemsShown {
    start: usize,
    shown: usize,
    total: usize,
    shortened: bool,
}

/// The note of a page of a list: what it shows, what was shortened, how to see more.
fn items_note(span: &ItemsShown, field: Option<&str>, page: &PageRequest) -> String {
    let ItemsShown {
        start,
        shown,
        total,
        shortened,
    } = *span;
    let last = start + shown;
    let more = last < total;
    let what = match field {
        Some(f) => format!(" items in \"{f}\""),
        None => String::new(),
    };
    let mut note = if start == 0 {
        format!("Showing {shown} of {total}{what}.")
    } else if shown == 0 {
        format!(
            "The cursor is past the end of the list ({total}{what}). Leave the cursor out to start from the first page."
        )
    } else {
        format!("Showing {}–{last} of {total}{what}.", start + 1)
    };
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
    note
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
