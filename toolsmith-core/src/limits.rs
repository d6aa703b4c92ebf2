//! Bounds on a call's arguments, checked before they are parsed or validated.
//!
//! Arguments as JSON text longer than the limit are refused before a byte is parsed; arguments
//! that arrive parsed (a `serde_json::Value` from a transport) are measured as the exact length of
//! their compact JSON text, with an explicit stack, stopping as soon as the limit is passed, and refused when they are larger or nest
//! deeper than JSON text may (serde_json's own limit of [`MAX_ARGUMENT_DEPTH`] levels).
//!
//! | code | status | when |
//! |---|---|---|
//! | `ARGUMENTS_TOO_LARGE` | `invalid_input` | over the toolbox's byte limit |
//! | `ARGUMENTS_TOO_DEEP` | `invalid_input` | nested deeper than [`MAX_ARGUMENT_DEPTH`] |

use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::reply::TextScan;
use serde_json::Value;

/// The largest arguments a toolbox reads unless set with
/// [`ToolboxBuilder::max_argument_bytes`](crate::ToolboxBuilder::max_argument_bytes): 4 MiB,
/// room for the largest text parameter with every character escaped.
pub(crate) const DEFAULT_MAX_ARGUMENT_BYTES: usize = 4 * 1024 * 1024;

/// The deepest nesting of arrays and objects accepted in parsed arguments; JSON text deeper than
/// this is refused by the parser itself.
pub(crate) const MAX_ARGUMENT_DEPTH: usize = 128;

/// The deepest a tool's result may nest. The envelope and a transport wrap the result in a few
/// more levels (`data`, MCP's `structuredContent`, `result`), and serde_json, like many JSON
/// readers, refuses text nested deeper than 128 levels: a deeper result would reach the client as
/// an answer it cannot read, so it is replaced by a `failed` envelope (`OUTPUT_NOT_ENCODABLE`).
pub(crate) const MAX_RESULT_DEPTH: usize = 100;

fn too_large(size: Option<usize>, limit: usize) -> Box<Envelope> {
    let size = match size {
        Some(n) => format!("{n} bytes"),
        None => format!("more than {limit} bytes"),
    };
    Box::new(Envelope::error(
        Status::InvalidInput,
        codes::ARGUMENTS_TOO_LARGE,
        format!(
            "The arguments are {size}, over this host's limit of {limit} bytes, so they were not \
             read. Send less: shorter text, fewer items, or split the work into several calls."
        ),
    ))
}

/// Refuses JSON text longer than `limit` bytes, before it is parsed.
pub(crate) fn check_text(text: &str, limit: usize) -> Result<(), Box<Envelope>> {
    if text.len() > limit {
        return Err(too_large(Some(text.len()), limit));
    }
    Ok(())
}

/// Extra bytes serde_json's escaping adds to each byte of a string: one for `"`, `\\` and the
/// control characters with a short escape (`\b`, `\t`, `\n`, `\f`, `\r`), five for the other
/// control characters (`\u00XX`); every other byte is written as it is.
const ESCAPE_EXTRA: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = 5;
        b += 1;
    }
    table[0x08] = 1;
    table[0x09] = 1;
    table[0x0A] = 1;
    table[0x0C] = 1;
    table[0x0D] = 1;
    table[b'"' as usize] = 1;
    table[b'\\' as usize] = 1;
    table
};

/// The bytes of a string's JSON text as serde_json writes it: the quotes and every escape.
fn string_len(s: &str) -> usize {
    let escapes: usize = s
        .bytes()
        .map(|b| usize::from(ESCAPE_EXTRA[usize::from(b)]))
        .sum();
    s.len() + 2 + escapes
}

/// The bytes of a number's JSON text as serde_json writes it: integers counted by their digits,
/// floats by their `Display` (the same shortest form serde_json writes) into a counter, so
/// nothing is allocated.
fn number_len(n: &serde_json::Number) -> usize {
    fn digits(u: u64) -> usize {
        u.checked_ilog10().map_or(1, |l| l as usize + 1)
    }
    if let Some(u) = n.as_u64() {
        digits(u)
    } else if let Some(i) = n.as_i64() {
        usize::from(i < 0) + digits(i.unsigned_abs())
    } else {
        struct Count(usize);
        impl std::fmt::Write for Count {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0 += s.len();
                Ok(())
            }
        }
        let mut count = Count(0);
        // Writing to a counter cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut count, format_args!("{n}"));
        count.0
    }
}

/// The refusal of arguments nested deeper than [`MAX_ARGUMENT_DEPTH`].
fn too_deep() -> Box<Envelope> {
    Box::new(Envelope::error(
        Status::InvalidInput,
        codes::ARGUMENTS_TOO_DEEP,
        format!(
            "The arguments nest arrays and objects deeper than {MAX_ARGUMENT_DEPTH} \
             levels, so they were not read. Send flatter data."
        ),
    ))
}

/// The size of a scalar's JSON text, `None` for a container ([`check_value`]).
#[inline]
fn scalar<const BOUND: bool>(v: &Value) -> Option<usize> {
    match v {
        Value::Null | Value::Bool(true) => Some(4),
        Value::Bool(false) => Some(5),
        Value::Number(n) => Some(number_len(n)),
        Value::String(s) => Some(text_len::<BOUND>(s)),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Adds a scalar member of a container at `depth` to `size`, or puts a container member on
/// the stack; `false` when a scalar member is too deep or `size` passes `limit` (measuring
/// stops there).
#[inline]
fn member<'a, const BOUND: bool>(
    m: &'a Value,
    depth: usize,
    limit: usize,
    size: &mut usize,
    stack: &mut Vec<(&'a Value, usize)>,
) -> bool {
    match scalar::<BOUND>(m) {
        Some(_) if depth + 1 > MAX_ARGUMENT_DEPTH => false,
        Some(n) => {
            *size = size.saturating_add(n);
            *size <= limit
        }
        None => {
            stack.push((m, depth + 1));
            true
        }
    }
}

/// Refuses parsed arguments whose JSON text (compact, as `serde_json::to_string` writes it)
/// would be longer than `limit` bytes, or that nest deeper than [`MAX_ARGUMENT_DEPTH`]: the
/// same arguments as a value and as text pass or fail alike. The text is counted, not written:
/// strings with their escapes, numbers as serde_json writes them, and the punctuation. Stops
/// measuring as soon as a limit is passed, and never recurses. A container's scalar members are
/// The length of `value`'s compact JSON, counted without keeping the text.
pub(crate) fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// measured with it, so flat arguments (an object of strings, numbers and flags) allocate nothing.
pub(crate) fn check_value(value: &Value, limit: usize) -> Result<(), Box<Envelope>> {
    // First with each string's length bounded from above (no byte read): at every point of the
    // walk that size is at least the exact one, so arguments it passes pass, and one that stops
    // it for depth stops the exact walk at the same place. Only arguments whose bound is over
    // the limit are measured exactly, which decides (and reports) as before.
    match walk::<true>(value, limit) {
        Err(Refused::TooLarge) => walk::<false>(value, limit),
        other => other,
    }
    .map_err(|refused| match refused {
        Refused::TooLarge => too_large(None, limit),
        Refused::TooDeep => too_deep(),
    })
}

/// Why [`walk`] refused the arguments.
enum Refused {
    TooLarge,
    TooDeep,
}

/// The length of a string's JSON text: exact, or (`BOUND`) at least it, without reading the
/// text (an escape is at most six bytes: `\u00xx`).
#[inline]
fn text_len<const BOUND: bool>(s: &str) -> usize {
    if BOUND {
        s.len().saturating_mul(6).saturating_add(2)
    } else {
        string_len(s)
    }
}

/// [`check_value`]'s walk, with each string measured by [`text_len`].
fn walk<const BOUND: bool>(value: &Value, limit: usize) -> Result<(), Refused> {
    let mut size = 0usize;
    let mut stack: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 1));
    while let Some((v, depth)) = next.take().or_else(|| stack.pop()) {
        if depth > MAX_ARGUMENT_DEPTH {
            return Err(Refused::TooDeep);
        }
        // A member is one level below its container (a scalar too, as when it was measured on
        // its own): scalars are added here, containers wait on the stack.
        let fits = match v {
            // The brackets, and a comma between two members.
            Value::Array(items) => {
                size = size.saturating_add(2 + items.len().saturating_sub(1));
                size <= limit
                    && items
                        .iter()
                        .all(|m| member::<BOUND>(m, depth, limit, &mut size, &mut stack))
            }
            // The braces, a comma between two members, and each key (a string) with its colon.
            Value::Object(map) => {
                size = size.saturating_add(2 + map.len().saturating_sub(1));
                map.iter().all(|(k, m)| {
                    size = size.saturating_add(text_len::<BOUND>(k) + 1);
                    size <= limit && member::<BOUND>(m, depth, limit, &mut size, &mut stack)
                })
            }
            _ => {
                size = size.saturating_add(scalar::<BOUND>(v).unwrap_or(0));
                true
            }
        };
        if size > limit {
            return Err(Refused::TooLarge);
        }
        if !fits {
            return Err(Refused::TooDeep);
        }
    }
    Ok(())
}

/// Whether `value` nests arrays and objects more than `limit` levels deep (`1` is no level,
/// `[1]` one, `[[1]]` two), measured with an explicit stack.
pub(crate) fn deeper_than(value: &Value, limit: usize) -> bool {
    fn push<'a>(v: &'a Value, depth: usize, stack: &mut Vec<(&'a Value, usize)>) {
        let nested = |c: &&Value| matches!(c, Value::Array(_) | Value::Object(_));
        match v {
            Value::Array(items) => stack.extend(items.iter().filter(nested).map(|c| (c, depth))),
            Value::Object(map) => stack.extend(map.values().filter(nested).map(|c| (c, depth))),
            _ => {}
        }
    }
    if !matches!(value, Value::Array(_) | Value::Object(_)) {
        return false;
    }
    if limit == 0 {
        return true;
    }
    // No allocation for a flat result: the stack only grows for nested containers.
    let mut stack = Vec::new();
    push(value, 2, &mut stack);
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        push(v, depth + 1, &mut stack);
    }
    false
}

/// The JSON writer of [`to_scanned_text`].
mod scanned_text {
    use crate::reply::TextScan;
    use serde_json::ser::{CharEscape, CompactFormatter, Formatter};
    use std::io::{Result as IoResult, Write};

    /// Compact output (serde_json's own) that counts open arrays and objects, fails the write
    /// past the limit, and judges each string for the scan.
    pub(super) struct Depth<'a> {
        pub(super) open: usize,
        pub(super) limit: usize,
        pub(super) too_deep: &'a mut bool,
        pub(super) scan: Option<TextScan<'a>>,
        /// Within an object key.
        pub(super) key: bool,
        /// Pieces (fragments and escapes) of the string being written.
        pub(super) pieces: usize,
        /// Some string may be changed by redaction (or the scan could not tell).
        pub(super) changes: &'a mut bool,
    }
    impl Depth<'_> {
        fn enter<W: ?Sized + Write>(&mut self, out: &mut W, b: &[u8]) -> IoResult<()> {
            self.open += 1;
            if self.open > self.limit {
                *self.too_deep = true;
                return Err(std::io::Error::other("too deep"));
            }
            out.write_all(b)
        }
        /// Judges the string being written by its first piece, `s`: a string without escapes
        /// is that one piece, and a later piece follows an escape, which already counted.
        fn judge(&mut self, s: &str) {
            if let Some(scan) = &self.scan {
                if self.pieces == 0 && !*self.changes {
                    *self.changes = scan.may_change(s, self.key);
                }
            }
        }
        /// A value written inside a key, other than its text: the scan cannot judge the key.
        fn in_key(&mut self) {
            *self.changes |= self.key;
        }
    }
    macro_rules! key_values {
        ($($name:ident: $ty:ty),*) => {$(
            fn $name<W: ?Sized + Write>(&mut self, out: &mut W, v: $ty) -> IoResult<()> {
                self.in_key();
                CompactFormatter.$name(out, v)
            }
        )*};
    }
    impl Formatter for Depth<'_> {
        fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            self.enter(out, b"[")
        }
        fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            self.open -= 1;
            out.write_all(b"]")
        }
        fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            self.enter(out, b"{")
        }
        fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            self.open -= 1;
            out.write_all(b"}")
        }
        fn begin_object_key<W: ?Sized + Write>(
            &mut self,
            out: &mut W,
            first: bool,
        ) -> IoResult<()> {
            self.key = true;
            CompactFormatter.begin_object_key(out, first)
        }
        fn end_object_key<W: ?Sized + Write>(&mut self, _out: &mut W) -> IoResult<()> {
            self.key = false;
            Ok(())
        }
        fn begin_string<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            self.pieces = 0;
            out.write_all(b"\"")
        }
        fn write_string_fragment<W: ?Sized + Write>(
            &mut self,
            out: &mut W,
            fragment: &str,
        ) -> IoResult<()> {
            self.judge(fragment);
            self.pieces += 1;
            out.write_all(fragment.as_bytes())
        }
        fn write_char_escape<W: ?Sized + Write>(
            &mut self,
            out: &mut W,
            escape: CharEscape,
        ) -> IoResult<()> {
            *self.changes = true;
            self.pieces += 1;
            CompactFormatter.write_char_escape(out, escape)
        }
        fn end_string<W: ?Sized + Write>(&mut self, out: &mut W) -> IoResult<()> {
            // A string of no pieces is the empty string.
            self.judge("");
            out.write_all(b"\"")
        }
        fn write_raw_fragment<W: ?Sized + Write>(
            &mut self,
            out: &mut W,
            raw: &str,
        ) -> IoResult<()> {
            *self.changes = true;
            out.write_all(raw.as_bytes())
        }
        fn write_number_str<W: ?Sized + Write>(&mut self, out: &mut W, v: &str) -> IoResult<()> {
            self.in_key();
            out.write_all(v.as_bytes())
        }
        key_values!(
            write_bool: bool, write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64,
            write_i128: i128, write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64,
            write_u128: u128, write_f32: f32, write_f64: f64
        );
    }
}

/// `serde_json::to_string(value)`, or `None` when the text would be nested deeper than `limit`
/// levels, as [`deeper_than`] counts them on the value (each array and object opens one).
/// Writing stops at the first level too many.
///
/// Each string is judged by `scan`, when given, as it is written: the flag is
/// `true` when a scan ran and no string of the text is one redaction would change
/// ([`TextScan::may_change`]), exactly as [`Redactor::json_text_may_change`] judges the text.
/// A string written with an escape, a number or boolean written as an object key, and raw JSON
/// count as changing (the text scan sees them only through their escaped or raw form).
///
/// [`Redactor::json_text_may_change`]: crate::redact::Redactor::json_text_may_change
pub(crate) fn to_scanned_text<T: serde::Serialize + ?Sized>(
    value: &T,
    limit: usize,
    scan: Option<TextScan<'_>>,
) -> Result<Option<(String, bool)>, serde_json::Error> {
    let (mut too_deep, mut changes) = (false, false);
    let scanned = scan.is_some();
    // Room for the envelope around a typical result, which is written into the same buffer
    // (`Envelope::json_around_data_text`).
    let mut out = Vec::with_capacity(256);
    let written = value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out,
        scanned_text::Depth {
            open: 0,
            limit,
            too_deep: &mut too_deep,
            scan,
            key: false,
            pieces: 0,
            changes: &mut changes,
        },
    ));
    let clean = scanned && !changes;
    match written {
        Err(_) if too_deep => Ok(None),
        Err(e) => Err(e),
        // serde_json writes UTF-8 only.
        Ok(()) => Ok(Some((
            String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            clean,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{check_text, check_value, deeper_than, to_scanned_text};
    use serde_json::{json, Value};

    #[test]
    fn text_over_the_limit_is_refused_before_parsing() {
        assert!(check_text(r#"{"a": 1}"#, 100).is_ok());
        let env = check_text(&"x".repeat(101), 100).unwrap_err();
        assert_eq!(env.code.as_deref(), Some("ARGUMENTS_TOO_LARGE"));
    }

    /// The reference for the allocation-free measure: the depth with every node on the stack,
    /// the size as the length of the text serde_json writes.
    fn check_value_reference(value: &Value, limit: usize) -> Result<(), &'static str> {
        let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
        while let Some((v, depth)) = stack.pop() {
            if depth > super::MAX_ARGUMENT_DEPTH {
                return Err("ARGUMENTS_TOO_DEEP");
            }
            match v {
                Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
                Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
                _ => {}
            }
        }
        if serde_json::to_string(value).unwrap().len() > limit {
            return Err("ARGUMENTS_TOO_LARGE");
        }
        Ok(())
    }

    fn arb_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z]{0,12}".prop_map(Value::from),
            // Quotes, backslashes, every control character, non-ASCII text.
            "[\\x00-\\x1f\"\\\\a\u{7f}é€😀]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z\"\\\\\\x00-\\x1f]{0,6}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_measure_accepts_and_refuses_as_the_reference(v in arb_value(), limit in 0usize..400) {
            let ours = check_value(&v, limit).map_err(|e| e.code.unwrap_or_default());
            let theirs = check_value_reference(&v, limit).map_err(str::to_string);
            // Which limit is named may differ when both are passed; refusing may not.
            proptest::prop_assert_eq!(ours.is_ok(), theirs.is_ok());
            if theirs.is_err() && check_value_reference(&v, usize::MAX).is_ok() {
                proptest::prop_assert_eq!(ours, theirs);
            }
            // At the edge: the text's own length passes, one byte less does not.
            if check_value_reference(&v, usize::MAX).is_ok() {
                let len = serde_json::to_string(&v).unwrap().len();
                proptest::prop_assert!(check_value(&v, len).is_ok(), "{} at {}", v, len);
                let under = check_value(&v, len - 1).unwrap_err();
                proptest::prop_assert_eq!(under.code.as_deref(), Some("ARGUMENTS_TOO_LARGE"));
            }
        }
    }

    /// The property above reads `proptest-regressions/limits.txt` (the default `SourceParallel`
    /// naming) and replays every seed committed there.
    #[test]
    fn the_committed_regression_seeds_are_the_ones_replayed() {
        crate::test_support::assert_replays(
            include_str!("../proptest-regressions/limits.txt"),
            proptest::prelude::ProptestConfig::default(),
            file!(),
        );
    }

    #[test]
    fn the_depth_bound_counts_scalars_below_the_deepest_container_as_before() {
        for levels in [126, 127, 128, 129] {
            for leaf in [Value::from(1), json!([]), json!({}), json!({"k": "v"})] {
                let mut v = leaf.clone();
                for _ in 0..levels {
                    v = Value::Array(vec![v]);
                }
                let ours = check_value(&v, usize::MAX).map_err(|e| e.code.unwrap_or_default());
                let theirs = check_value_reference(&v, usize::MAX).map_err(str::to_string);
                assert_eq!(ours, theirs, "{levels} levels around {leaf}");
            }
        }
    }

    /// A value is counted as the bytes of its JSON text, exactly: numbers of every kind, strings
    /// with every escape, keys, nesting; the same limit passes or refuses the value and its
    /// text alike, one byte under, at and one byte over its length.
    #[test]
    fn a_value_counts_as_its_text_at_the_edge_of_the_limit() {
        let values = [
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.0),
            json!(-0.0),
            json!(1e300),
            json!(2.5e-308),
            json!(0.1),
            json!(123_456.789),
            json!(null),
            json!(true),
            json!(false),
            json!(""),
            json!("quote \" backslash \\ slash / tab \t nl \n cr \r bs \u{8} ff \u{c}"),
            json!("\u{0}\u{1}\u{1f}\u{7f} é € 😀"),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"": {}}),
            json!({"k\"\u{1}": [1, -2, 3.5, "a\nb", null, {"x": [true, false]}]}),
            json!([1, [2, [3, [4, [5.25e-7]]]], {"a\\": {"b": {"c": "\u{2028}"}}}]),
            Value::Array(
                (0..1000)
                    .map(|i| json!(i * 7919 % 100_003 - 50_000))
                    .collect(),
            ),
        ];
        for v in &values {
            let text = serde_json::to_string(v).unwrap();
            let len = text.len();
            for limit in [len.saturating_sub(1), len, len + 1] {
                let as_value = check_value(v, limit).map_err(|e| e.code.unwrap_or_default());
                let as_text = check_text(&text, limit).map_err(|e| e.code.unwrap_or_default());
                assert_eq!(as_value, as_text, "{text} at limit {limit}");
                assert_eq!(as_value.is_ok(), len <= limit, "{text} at limit {limit}");
            }
        }
    }

    #[test]
    fn a_value_over_the_limit_is_refused() {
        assert!(check_value(&json!({"a": [1, 2]}), 100).is_ok());
        let env = check_value(&json!({"a": "x".repeat(200)}), 100).unwrap_err();
        assert_eq!(env.code.as_deref(), Some("ARGUMENTS_TOO_LARGE"));
    }

    fn nested(levels: usize) -> Value {
        let mut v = Value::from(1);
        for _ in 0..levels {
            v = Value::Array(vec![v]);
        }
        v
    }

    #[test]
    fn depth_counts_containers() {
        assert!(!deeper_than(&json!(1), 0));
        assert!(deeper_than(&json!([]), 0));
        assert!(!deeper_than(&json!([1, {"a": 2}]), 2));
        assert!(deeper_than(&json!([1, {"a": [2]}]), 2));
        assert!(!deeper_than(&nested(100), 100));
        assert!(deeper_than(&nested(101), 100));
    }

    #[test]
    fn the_text_depth_agrees_with_the_value_depth() {
        let mut shapes: Vec<Value> = vec![
            json!(1),
            json!("[[[{"),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"a": [1, {"b": "]]]}}\\\"["}]}),
            json!([1, [2, [3, [4]]], {"k": {"k": {}}}]),
        ];
        let mut deep = json!("x");
        for i in 0..12 {
            deep = if i % 2 == 0 {
                json!([deep])
            } else {
                json!({"n": deep, "s": "}]"})
            };
            shapes.push(deep.clone());
        }
        for v in &shapes {
            let text = serde_json::to_string(v).unwrap();
            for limit in 0..15 {
                let written = to_scanned_text(v, limit, None).unwrap().map(|(t, clean)| {
                    assert!(!clean, "no scan, nothing judged clean");
                    t
                });
                assert_eq!(
                    written.is_none(),
                    deeper_than(v, limit),
                    "{text} at limit {limit}"
                );
                if let Some(written) = written {
                    assert_eq!(written, text);
                }
            }
        }
    }
}
