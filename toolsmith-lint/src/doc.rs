//! A borrowed JSON document: the model the lint rules read.
//!
//! A [`Node`] borrows its strings from the text it was parsed from (or from an arena, for strings
//! with escapes) and its arrays and objects are slices in a [`bumpalo::Bump`] arena, so a large
//! tool list is read without a heap allocation per value. Every node keeps the byte offset where
//! it starts in the text, so a finding's JSON pointer maps to a line and column without scanning
//! the text again.
//!
//! [`parse`] accepts exactly what `serde_json` accepts and reads the same values (objects keep
//! their key order; numbers read as `serde_json::Number` reads them). Where it cannot vouch for
//! that (a syntax error, a duplicate key, nesting deeper than [`MAX_DEPTH`], a number that is not
//! a plain integer and that `serde_json` would refuse), it returns `None` and the caller parses
//! with `serde_json` (for its exact error) and converts with [`Node::from_value`].
//!
//! ```
//! let arena = bumpalo::Bump::new();
//! let text = r#"{"tools": [{"name": "a", "n": 1.50}]}"#;
//! let doc = toolsmith_lint::doc::parse(text, &arena).unwrap();
//! let name = doc.pointer("/tools/0/name").unwrap();
//! assert_eq!((name.as_str(), name.at), (Some("a"), 20));
//! assert_eq!(doc.pointer("/tools/0/n").unwrap().to_string(), "1.5");
//! assert!(toolsmith_lint::doc::parse(r#"{"a": 1, "a": 2}"#, &arena).is_none());
//! ```

use std::fmt;

use std::sync::mpsc;
use std::thread::ScopedJoinHandle;

use bumpalo::Bump;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// One JSON value and the byte offset in its text where it starts (0 for a converted value).
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    /// Byte offset of the value's first character in the parsed text.
    pub at: usize,
    /// The value.
    pub kind: Kind<'a>,
}

/// What a [`Node`] holds.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as `serde_json::Number` writes it (`1.50` reads as `1.5`).
    Number(&'a str),
    /// A string, unescaped.
    String(&'a str),
    /// An array.
    Array(&'a [Node<'a>]),
    /// An object.
    Object(Obj<'a>),
}

/// The members of an object, in document order; keys are unique.
#[derive(Clone, Copy, Debug)]
pub struct Obj<'a>(pub &'a [(&'a str, Node<'a>)]);

impl<'a> Obj<'a> {
    /// The value at `key`.
    pub fn get(&self, key: &str) -> Option<&'a Node<'a>> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Whether the object has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The members, in document order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a Node<'a>)> + 'a {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> Node<'a> {
    /// A node without a place in a text.
    pub const fn new(kind: Kind<'a>) -> Node<'a> {
        Node { at: 0, kind }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'a str> {
        match self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<Obj<'a>> {
        match self.kind {
            Kind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&'a [Node<'a>]> {
        match self.kind {
            Kind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self.kind, Kind::Object(_))
    }

    /// Whether this is a number.
    pub fn is_number(&self) -> bool {
        matches!(self.kind, Kind::Number(_))
    }

    /// The value at `key`, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&'a Node<'a>> {
        self.as_object()?.get(key)
    }

    /// The value at a JSON pointer (RFC 6901), as `serde_json::Value::pointer` finds it.
    pub fn pointer<'s>(&'s self, pointer: &str) -> Option<&'s Node<'a>> {
        match self.deepest(pointer) {
            (node, true) => Some(node),
            (_, false) => None,
        }
    }

    /// The deepest value on the way to a JSON pointer: the value itself and `true` when it
    /// exists, else the nearest enclosing value that does and `false` (the node itself for a
    /// pointer that does not start with `/`).
    pub fn deepest<'s>(&'s self, pointer: &str) -> (&'s Node<'a>, bool) {
        if pointer.is_empty() {
            return (self, true);
        }
        let Some(rest) = pointer.strip_prefix('/') else {
            return (self, false);
        };
        let mut node = self;
        for token in rest.split('/') {
            let token = crate::walk::unescape_token(token);
            let next = match node.kind {
                Kind::Object(o) => o.get(&token),
                Kind::Array(a) => parse_index(&token).and_then(|i| a.get(i)),
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => return (node, false),
            }
        }
        (node, true)
    }

    /// `null`, `a boolean`, `a number`, `a string`, `an array` or `an object`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(_) => "a number",
            Kind::String(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
        }
    }

    /// The node of a `serde_json::Value`, with its strings and containers in `arena`.
    pub fn from_value(v: &Value, arena: &'a Bump) -> Node<'a> {
        Node::new(match v {
            Value::Null => Kind::Null,
            Value::Bool(b) => Kind::Bool(*b),
            Value::Number(n) => Kind::Number(arena.alloc_str(&n.to_string())),
            Value::String(s) => Kind::String(arena.alloc_str(s)),
            Value::Array(items) => Kind::Array(
                arena.alloc_slice_fill_iter(items.iter().map(|i| Node::from_value(i, arena))),
            ),
            Value::Object(m) => {
                Kind::Object(Obj(arena
                    .alloc_slice_fill_iter(m.iter().map(|(k, v)| {
                        (&*arena.alloc_str(k), Node::from_value(v, arena))
                    }))))
            }
        })
    }

    /// The `serde_json::Value` of this node.
    pub fn to_value(&self) -> Value {
        match self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Number(n) => number(n).map_or(Value::Null, Value::Number),
            Kind::String(s) => Value::String(s.to_string()),
            Kind::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Kind::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// The `serde_json::Number` a node's number text stands for: read exactly (the text is how
/// `serde_json` wrote the number, which Rust's float reading gives back bit for bit).
fn number(text: &str) -> Option<serde_json::Number> {
    if let Ok(u) = text.parse::<u64>() {
        Some(u.into())
    } else if let Ok(i) = text.parse::<i64>() {
        Some(i.into())
    } else {
        serde_json::Number::from_f64(text.parse().ok()?)
    }
}

/// An array index token as `serde_json::Value::pointer` reads it (no sign, no leading zero).
fn parse_index(s: &str) -> Option<usize> {
    if s.starts_with('+') || (s.starts_with('0') && s.len() != 1) {
        return None;
    }
    s.parse().ok()
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.kind {
            Kind::Null => s.serialize_unit(),
            Kind::Bool(b) => s.serialize_bool(b),
            Kind::Number(n) => match number(n) {
                Some(n) => n.serialize(s),
                None => s.serialize_unit(),
            },
            Kind::String(t) => s.serialize_str(t),
            Kind::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Kind::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'a> crate::walk::Json<'a> for &'a Node<'a> {
    fn members(self) -> Option<impl Iterator<Item = (&'a str, Self)> + 'a> {
        Some(self.as_object()?.iter())
    }

    fn items(self) -> Option<impl Iterator<Item = Self> + 'a> {
        Some(self.as_array()?.iter())
    }

    fn at_pointer(self, pointer: &str) -> Option<Self> {
        self.pointer(pointer)
    }
}

impl fmt::Display for Node<'_> {
    /// Compact JSON, as `serde_json::Value` displays.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// Whether a byte string is plain ASCII that a JSON string writes as it is: no byte of 0x80 or
/// more, no `"`, `\\` or control character. Eight bytes at a time.
pub(crate) fn is_plain_ascii(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Exact for "any byte": a borrow only runs past a byte that already matched (a byte below
    // 0x20), and a byte of 0x80 or more matches by its high bit.
    let bad = |w: u64| {
        let zeros = |x: u64| x.wrapping_sub(ONES) & !x;
        (zeros(w ^ (ONES * u64::from(b'"')))
            | zeros(w ^ (ONES * u64::from(b'\\')))
            | w.wrapping_sub(ONES * 0x20)
            | w)
            & HIGH
            != 0
    };
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        if bad(u64::from_le_bytes([
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
        ])) {
            return false;
        }
    }
    // The last bytes, padded with a plain letter.
    let mut tail = [b'a'; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    !bad(u64::from_le_bytes(tail))
}

/// The index of the first `"`, `\\` or control character of a byte string (what ends a JSON
/// string's plain run), eight bytes at a time.
fn first_escape(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte that is zero, exact up to the lowest one: a borrow only runs
    // past a byte that already matched, so the lowest bit set is the first match.
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut at = 0;
    while let Some(c) = b.get(at..at + 8) {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let hits = zeros(w ^ (ONES * u64::from(b'"')))
            | zeros(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    b[at..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|i| at + i)
}

/// Nesting deeper than this is left to `serde_json` (whose own limit is 128).
pub const MAX_DEPTH: usize = 100;

/// Parses a JSON text into nodes in `arena`; `None` when the text is not plain JSON this parser
/// vouches for (see the [module documentation](self)): parse it with `serde_json` instead.
pub fn parse<'a>(text: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    Parser::new(text, arena, 0, 0).document()
}

/// [`parse`] on two threads for a large text (1 MiB or more, with a second core): a second
/// thread reads the items of an array from what looks like a separator of objects past the
/// middle of the text on (`}, {"`, with their containers in `side`), and the first takes them
/// over when it gets there and finds that it is one. The result is [`parse`]'s, node for node.
pub fn parse_in_two<'a>(text: &'a str, arena: &'a Bump, side: &'a mut Bump) -> Option<Node<'a>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if text.len() < 1 << 20 || cores < 2 {
        return parse(text, arena);
    }
    split_parse(text, arena, side, text.len() / 2).0
}

/// The items of an array after one of its separators, where the array's `]` is, and how deep
/// the items nest (containers, counted from the array's).
type Rest<'a> = Option<(Vec<Node<'a>>, usize, usize)>;

/// [`parse_in_two`] with the second thread's part from the first [`guess_split`] at or after
/// `from`; also says whether the first thread took that part over.
fn split_parse<'a>(
    text: &'a str,
    arena: &'a Bump,
    side: &'a mut Bump,
    from: usize,
) -> (Option<Node<'a>>, bool) {
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        let rest = s.spawn(move || -> Rest<'a> {
            let found = guess_split(text.as_bytes(), from);
            let _ = tx.send(found);
            // How deep the array is is not known here: the depth is counted from it, and the
            // first thread checks the limit.
            let mut p = Parser::new(text, side, found? + 1, 0);
            let mut items = Vec::new();
            loop {
                items.push(p.value()?);
                p.ws();
                match p.peek()? {
                    b',' => p.i += 1,
                    b']' => return Some((items, p.i, p.peak)),
                    _ => return None,
                }
            }
        });
        let mut p = Parser::new(text, arena, 0, 0);
        p.handoff = Some(Handoff {
            from,
            at: None,
            rx,
            rest: Some(rest),
            taken: false,
        });
        let root = p.document();
        (root, p.handoff.is_some_and(|h| h.taken))
    })
}

/// The first thread's side of [`split_parse`].
struct Handoff<'a, 's> {
    /// The split is at or after this offset.
    from: usize,
    /// Where the split is (`None` inside: there is none), once the second thread said so.
    at: Option<Option<usize>>,
    rx: mpsc::Receiver<Option<usize>>,
    /// The second thread's items.
    rest: Option<ScopedJoinHandle<'s, Rest<'a>>>,
    /// Whether they were taken over.
    taken: bool,
}

/// The first `,` at or after `from` that looks like a separator of an array of objects: `}`
/// before it and `{"` after it, with white space between. It may be inside a string (`"}, {"`
/// is one) or a separator of an array inside an item, not of the list: the first thread takes
/// the second thread's items only when it stands at that `,` between two items of an array
/// (see [`Parser::take_rest`]), which it then is.
fn guess_split(b: &[u8], from: usize) -> Option<usize> {
    // The first byte at or after `i` that is not white space.
    let skip = |mut i: usize| {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(i) {
            i += 1;
        }
        i
    };
    let mut i = from;
    while let Some(k) = memchr::memchr(b'}', b.get(i..)?) {
        i += k + 1;
        let comma = skip(i);
        if b.get(comma) != Some(&b',') {
            continue;
        }
        let open = skip(comma + 1);
        if b.get(open) == Some(&b'{') && b.get(skip(open + 1)) == Some(&b'"') {
            return Some(comma);
        }
    }
    None
}

struct Parser<'a, 's> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    arena: &'a Bump,
    /// Members of the objects being read, innermost last.
    members: Vec<(&'a str, Node<'a>)>,
    /// Items of the arrays being read, innermost last.
    items: Vec<Node<'a>>,
    depth: usize,
    /// The deepest `depth` reached.
    peak: usize,
    /// The part a second thread reads (see [`parse_in_two`]).
    handoff: Option<Handoff<'a, 's>>,
}

impl<'a, 's> Parser<'a, 's> {
    fn new(text: &'a str, arena: &'a Bump, i: usize, depth: usize) -> Parser<'a, 's> {
        Parser {
            text,
            b: text.as_bytes(),
            i,
            arena,
            members: Vec::new(),
            items: Vec::new(),
            depth,
            peak: depth,
            handoff: None,
        }
    }

    /// The whole text as one value.
    fn document(&mut self) -> Option<Node<'a>> {
        let root = self.value()?;
        self.ws();
        (self.i == self.b.len()).then_some(root)
    }

    /// At an array's separator: when the second thread reads on from here, its items (the
    /// parser then stands at the array's `]`).
    fn take_rest(&mut self) {
        let i = self.i;
        let Some(h) = self.handoff.as_mut() else {
            return;
        };
        if i < h.from || h.rest.is_none() {
            return;
        }
        // Past `from` the split can be here: wait for the second thread to say where it is.
        let rx = &h.rx;
        if *h.at.get_or_insert_with(|| rx.recv().ok().flatten()) != Some(i) {
            return;
        }
        let Some(rest) = h.rest.take() else { return };
        match rest.join() {
            // The items nest from this array on, which is `self.depth` deep.
            Ok(Some((items, end, peak))) if self.depth + peak <= MAX_DEPTH => {
                h.taken = true;
                self.items.extend(items);
                self.i = end;
            }
            // It found an error, or nesting too deep from here: read on from here, to the same
            // error.
            Ok(_) => {}
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self) -> Option<Node<'a>> {
        self.ws();
        let at = self.i;
        let kind = match self.peek()? {
            b'"' => Kind::String(self.string()?),
            b'{' => self.object()?,
            b'[' => self.array()?,
            b't' => self.literal(b"true", Kind::Bool(true))?,
            b'f' => self.literal(b"false", Kind::Bool(false))?,
            b'n' => self.literal(b"null", Kind::Null)?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return None,
        };
        Some(Node { at, kind })
    }

    fn literal(&mut self, word: &[u8], kind: Kind<'a>) -> Option<Kind<'a>> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(kind)
        } else {
            None
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<Kind<'a>> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let int_digits = self.i - int_start;
        let mut plain = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            plain = false;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            plain = false;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        let raw = &self.text[start..self.i];
        // A plain integer of up to 18 digits (not `-0`) reads as itself; anything else as
        // serde_json reads it in a document (which may refuse it: out of range).
        if plain && int_digits <= 18 && raw != "-0" {
            return Some(Kind::Number(raw));
        }
        match serde_json::from_str(raw).ok()? {
            Value::Number(n) => Some(Kind::Number(self.arena.alloc_str(&n.to_string()))),
            _ => None,
        }
    }

    /// A string starting at `"`: borrowed from the text when it has no escapes.
    fn string(&mut self) -> Option<&'a str> {
        self.i += 1;
        let start = self.i;
        // The closing quote or the first escape, unless a control character comes first.
        let end = start + first_escape(&self.b[start..])?;
        if self.b[end] < 0x20 {
            // A control character: not JSON.
            return None;
        }
        self.i = end;
        if self.b[end] == b'\\' {
            return self.escaped(start);
        }
        self.i += 1;
        Some(&self.text[start..end])
    }

    /// The rest of a string with escapes, from its first `\` (the contents start at `start`).
    fn escaped(&mut self, start: usize) -> Option<&'a str> {
        let mut out = String::with_capacity(self.i - start + 16);
        out.push_str(&self.text[start..self.i]);
        loop {
            let run = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run..self.i]);
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(self.arena.alloc_str(&out));
                }
                b'\\' => {
                    let c = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    out.push(match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    });
                }
                _ => return None,
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.i..self.i + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// The character of a `\u` escape (after the `u`); surrogates only in pairs.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                if self.b.get(self.i..self.i + 2)? != b"\\u" {
                    return None;
                }
                self.i += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            c => char::from_u32(c),
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        self.peak = self.peak.max(self.depth);
        self.i += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Just inside an opening bracket: whether the container is empty (then past `close`).
    fn empty(&mut self, close: u8) -> bool {
        self.ws();
        let empty = self.peek() == Some(close);
        if empty {
            self.i += 1;
        }
        empty
    }

    /// After a member or an item: `true` past a `,` (another one follows), `false` past
    /// `close`; `None` on anything else.
    fn more(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = self.peek()?;
        self.i += 1;
        match c {
            b',' => Some(true),
            c if c == close => Some(false),
            _ => None,
        }
    }

    fn object(&mut self) -> Option<Kind<'a>> {
        self.enter()?;
        let base = self.members.len();
        if !self.empty(b'}') {
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return None;
                }
                let key = self.string()?;
                self.ws();
                if self.peek()? != b':' {
                    return None;
                }
                self.i += 1;
                // Most members are strings: read one without the dispatch of `value`.
                self.ws();
                let v = match self.peek()? {
                    b'"' => Node {
                        at: self.i,
                        kind: Kind::String(self.string()?),
                    },
                    _ => self.value()?,
                };
                self.members.push((key, v));
                if !self.more(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        let members = &self.members[base..];
        if has_duplicate(members) {
            return None;
        }
        let slice = self.arena.alloc_slice_copy(members);
        self.members.truncate(base);
        Some(Kind::Object(Obj(slice)))
    }

    fn array(&mut self) -> Option<Kind<'a>> {
        self.enter()?;
        let base = self.items.len();
        if !self.empty(b']') {
            loop {
                let v = self.value()?;
                self.items.push(v);
                if self.handoff.is_some() {
                    self.ws();
                    self.take_rest();
                }
                if !self.more(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        let slice = self.arena.alloc_slice_copy(&self.items[base..]);
        self.items.truncate(base);
        Some(Kind::Array(slice))
    }
}

/// Whether two members have the same key.
fn has_duplicate(members: &[(&str, Node<'_>)]) -> bool {
    if members.len() <= 16 {
        return members
            .iter()
            .enumerate()
            .any(|(i, (k, _))| members[..i].iter().any(|(o, _)| o == k));
    }
    let mut seen = crate::text::FastSet::default();
    !members.iter().all(|(k, _)| seen.insert(*k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json reads, and what the parser reads (converted back), for one text.
    fn both(text: &str) -> (Option<Value>, Option<Value>) {
        let arena = Bump::new();
        (
            serde_json::from_str(text).ok(),
            parse(text, &arena).map(|n| n.to_value()),
        )
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2, 0, 3.25, 1e3, -0, 1E-2, 123456789012345678901, true, false, null]}"#,
            r#"  ["x\"y\\z\/\b\f\n\r\t\u00e9\ud83d\ude00 é", {}, [], {"": ""}]  "#,
            "\"\\u0000\"",
            "-12",
            r#"{"k~/": {"a b": [[[]]]}}"#,
        ] {
            let (want, got) = both(text);
            assert!(want.is_some(), "{text}");
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn leaves_to_serde_json_what_it_cannot_vouch_for() {
        for text in [
            "",
            "{",
            "[1,]",
            r#"{"a":1,}"#,
            "01",
            "1.",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1] x",
            "\"a\u{1}b\"",
            r#""\ud800""#,
            r#""\udc00x""#,
            r#""\x""#,
            r#"{"a": 1, "a": 2}"#,
            "1e400",
            "{\"a\" 1}",
        ] {
            let arena = Bump::new();
            assert!(parse(text, &arena).is_none(), "{text:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&deep, &Bump::new()).is_none());
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok, &Bump::new()).is_some());
    }

    #[test]
    fn the_first_end_of_a_plain_run_is_found_in_any_place() {
        for n in 0..20 {
            let plain = "aé~ ".repeat(n);
            assert_eq!(first_escape(plain.as_bytes()), None);
            for bad in ["\"", "\\", "\n", "\u{1f}", "\u{0}"] {
                for at in (0..=plain.len()).filter(|&i| plain.is_char_boundary(i)) {
                    // A second end after the first one does not move it.
                    let t = format!("{}{bad}{}\"\u{1}", &plain[..at], &plain[at..]);
                    assert_eq!(first_escape(t.as_bytes()), Some(at), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn escapes_and_non_ascii_are_found_in_any_place() {
        for n in 0..20 {
            let plain = "a~ }".repeat(n);
            assert!(is_plain_ascii(plain.as_bytes()));
            for at in 0..=plain.len() {
                // DEL and the printable ASCII are written as they are.
                let t = format!("{}\u{7f} !~{}", &plain[..at], &plain[at..]);
                assert!(is_plain_ascii(t.as_bytes()), "{t:?}");
                for bad in [
                    "\"",
                    "\\",
                    "\n",
                    "\u{1f}",
                    "\u{0}",
                    "é",
                    "\u{80}",
                    "\u{10ffff}",
                ] {
                    let t = format!("{}{bad}{}", &plain[..at], &plain[at..]);
                    assert!(!is_plain_ascii(t.as_bytes()), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn two_threads_read_what_one_reads() {
        let tools: Vec<String> = (0..300)
            .map(|i| format!(r#"{{"name": "t{i}", "d": "a, [b] {{c}} \"q\" \\", "n": [{i}, [1, 2], {{"x": []}}]}}"#))
            .collect();
        let text = format!(
            r#"{{"head": [1, "]"], "tools": [{}], "tail": {{"k": [3]}}}}"#,
            tools.join(", ")
        );
        let want = serde_json::from_str::<Value>(&text).unwrap();
        let one = Bump::new();
        let offsets = |n: &Node<'_>| {
            (0..300)
                .map(|i| n.pointer(&format!("/tools/{i}/n/1")).unwrap().at)
                .collect::<Vec<_>>()
        };
        let single = parse(&text, &one).unwrap();
        for from in [
            0,
            1,
            20,
            text.len() / 3,
            text.len() / 2,
            text.len() - 40,
            text.len(),
        ] {
            let (arena, mut side) = (Bump::new(), Bump::new());
            let (got, taken) = split_parse(&text, &arena, &mut side, from);
            let got = got.unwrap();
            assert_eq!(got.to_value(), want, "{from}");
            assert_eq!(offsets(&got), offsets(&single), "{from}");
            // The second thread's part is taken over wherever there is one (every `}, {"` of
            // this text separates two tools).
            assert_eq!(
                taken,
                guess_split(text.as_bytes(), from).is_some(),
                "{from}"
            );
        }
        assert!(guess_split(text.as_bytes(), text.len() / 2).is_some());
        assert!(guess_split(text.as_bytes(), text.len()).is_none());
        // Errors on either side of the split stay errors.
        for bad in [
            text.replacen("\"t1\"", "\"t1", 1),
            text.replacen("\"t299\"", "t299", 1),
            text.replacen("\"x\": []", "\"x\": [,]", 250),
        ] {
            let (arena, mut side) = (Bump::new(), Bump::new());
            assert!(split_parse(&bad, &arena, &mut side, bad.len() / 2)
                .0
                .is_none());
        }
    }

    /// [`split_parse`] of `text` from `from`: the same value as [`parse`] (or none), and
    /// whether the second thread's part was taken over.
    fn split_as_one(text: &str, from: usize) -> bool {
        let one = Bump::new();
        let (arena, mut side) = (Bump::new(), Bump::new());
        let (two, taken) = split_parse(text, &arena, &mut side, from);
        let single = parse(text, &one);
        assert_eq!(
            two.map(|n| n.to_value()),
            single.map(|n| n.to_value()),
            "{text:?} from {from}"
        );
        taken
    }

    #[test]
    fn a_wrong_guess_of_the_split_is_not_taken() {
        // `}, {"` inside a string: the first thread never stands there.
        let text = r#"{"tools": [{"d": "p}, {"}, {"d": "q"}]}"#;
        assert_eq!(guess_split(text.as_bytes(), 0), text.find(", {\""));
        assert!(!split_as_one(text, 0));
        assert!(split_as_one(text, text.find("\"}").unwrap()));
        // A separator of an array inside an item: taken, for the rest of that array.
        let text = r#"[{"a": [{"x": 1}, {"y": 2}], "b": 1}, {"c": 3}]"#;
        assert_eq!(guess_split(text.as_bytes(), 0), text.find(", {\"y"));
        assert!(split_as_one(text, 0));
        // Not a separator after all (not JSON).
        assert!(!split_as_one(r#"[{"a": 1}, {"b" 2}]"#, 0));
        assert!(!split_as_one(r#"[{"a": 1}, {"b": 2}"#, 0));
    }

    #[test]
    fn the_depth_limit_holds_across_the_split() {
        // The second thread counts depth from the array it reads on: the first one checks the
        // limit with the array's own depth.
        for (outer, inner) in [(50, 49), (50, 50), (1, MAX_DEPTH - 2), (1, MAX_DEPTH - 1)] {
            let text = format!(
                r#"{}{{"a": 1}}, {{"b": {}{}}}{}"#,
                "[".repeat(outer),
                "[".repeat(inner),
                "]".repeat(inner),
                "]".repeat(outer)
            );
            let fits = outer + 1 + inner <= MAX_DEPTH;
            assert_eq!(
                parse(&text, &Bump::new()).is_some(),
                fits,
                "{outer} {inner}"
            );
            assert_eq!(split_as_one(&text, 0), fits, "{outer} {inner}");
        }
    }

    #[test]
    fn nodes_know_where_they_start_and_display_as_serde_json() {
        let arena = Bump::new();
        let text = "{\n \"a\": [ 10 , \"é\\\"\" ],\"b\":1.0}";
        let doc = parse(text, &arena).unwrap();
        assert_eq!(doc.pointer("/a/0").map(|n| n.at), Some(10));
        assert_eq!(doc.pointer("/a/1").map(|n| n.at), Some(15));
        assert_eq!(doc.deepest("/a/7/x").0.at, 8);
        assert!(doc.pointer("/a/01").is_none());
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(doc.to_string(), value.to_string());
        let converted = Node::from_value(&value, &arena);
        assert_eq!(converted.to_string(), value.to_string());
    }

    mod random {
        use super::*;
        use proptest::prelude::*;

        use crate::testgen::json;

        /// The text of a value, compact or pretty, with one character deleted, replaced or
        /// inserted at `at` when `edit` says so.
        fn text_of(v: &Value, pretty: bool, edit: u8, at: usize, c: char) -> String {
            let text = if pretty {
                serde_json::to_string_pretty(v).unwrap()
            } else {
                serde_json::to_string(v).unwrap()
            };
            let mut chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            match edit % 4 {
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                2 if at < chars.len() => chars[at] = c,
                3 => chars.insert(at, c),
                _ => {}
            }
            chars.into_iter().collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Whatever the parser reads, serde_json reads the same; on a split at any offset
            /// the two-thread parse reads what the one-thread parse reads, offsets included.
            #[test]
            fn the_parser_never_disagrees_with_serde_json(
                v in json(),
                pretty in any::<bool>(),
                edit in any::<u8>(),
                at in any::<usize>(),
                c in prop_oneof![Just(','), Just(']'), Just('}'), Just('"'), Just('\\'), Just(':'), Just('1'), Just(' '), Just('{'), Just('[')],
                from in any::<usize>(),
            ) {
                let text = text_of(&v, pretty, edit, at, c);
                let arena = Bump::new();
                let one = parse(&text, &arena);
                if let Some(node) = &one {
                    let want: Value = serde_json::from_str(&text)
                        .map_err(|e| TestCaseError::fail(format!("{text:?}: serde_json: {e}")))?;
                    prop_assert_eq!(node.to_value(), want, "{:?}", text);
                }
                if edit % 4 == 0 {
                    // An unedited text without duplicate keys is read by the parser itself.
                    let unique = v == serde_json::from_str::<Value>(&text).unwrap();
                    prop_assert!(one.is_some() || !unique, "{:?}", text);
                }
                let (two_arena, mut side) = (Bump::new(), Bump::new());
                let (two, _) = split_parse(&text, &two_arena, &mut side, from % (text.len() + 1));
                prop_assert_eq!(two.map(|n| n.to_value()), one.map(|n| n.to_value()), "{:?}", text);
            }
        }
    }
}
