//! Measuring: the size of a value as characters of its compact JSON, stopping early past a limit.

use serde_json::Value;

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
pub(crate) fn json_chars(v: &Value) -> usize {
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
pub(super) fn chars_upto(v: &Value, limit: usize) -> usize {
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
pub(super) fn size_upper_bound(v: &Value, limit: usize) -> Option<usize> {
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
pub(super) fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        _ => 1,
    }
}
