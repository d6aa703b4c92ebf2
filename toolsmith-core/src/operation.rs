//! Operation ids: one per call, shared by the call's envelope, its audit record, its span and
//! the idempotency gate. Made without allocating (the process's prefix and a counter); the text is
//! built only when something reads it.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A new operation id, unique within the process and very likely across processes:
/// `op_<process start in ms since epoch, hex>_<8 random-ish hex>_<counter, hex>`.
///
/// The random part comes from std's per-process randomly keyed hasher; ids are identifiers, not
/// secrets.
pub(crate) fn new_operation_id() -> String {
    OperationId::next().to_text()
}

/// A call's operation id, made without allocating: the process's prefix and the call's number.
/// Its text is built only when something reads it (an enabled span, a host stage or hook, the
/// idempotency gate, an audit record; [`OperationId::as_str`]), or written straight into the
/// envelope's JSON ([`OperationId::push_to`]).
pub(crate) struct OperationId {
    prefix: &'static str,
    n: u64,
    text: std::sync::OnceLock<String>,
}

impl OperationId {
    /// The next id of this process (see [`new_operation_id`]).
    pub(crate) fn next() -> OperationId {
        // The process part (start time and noise) is computed once; each id adds a counter.
        static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let prefix = PREFIX.get_or_init(|| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            let noise = std::collections::hash_map::RandomState::new()
                .hash_one((now.as_nanos(), std::process::id()));
            format!("op_{:x}_{:08x}_", now.as_millis(), noise as u32)
        });
        OperationId {
            prefix,
            n: COUNTER.fetch_add(1, Ordering::Relaxed),
            text: std::sync::OnceLock::new(),
        }
    }

    /// The id's text (built on the first read).
    pub(crate) fn as_str(&self) -> &str {
        self.text.get_or_init(|| self.to_text())
    }

    /// Appends the id's text: `op_`, lower-case hex digits and `_` only, so JSON needs no escape
    /// for it.
    pub(crate) fn push_to(&self, out: &mut String) {
        if let Some(text) = self.text.get() {
            out.push_str(text);
            return;
        }
        out.reserve(self.prefix.len() + 16);
        out.push_str(self.prefix);
        push_hex(out, self.n);
    }

    /// The id's text, in a `String` of its own.
    pub(crate) fn to_text(&self) -> String {
        let mut id = String::with_capacity(self.prefix.len() + 16);
        self.push_to(&mut id);
        id
    }
}

/// Appends `n` in lower-case hexadecimal without leading zeros (as `{n:x}` writes it), without
/// the formatting machinery: it runs on every call.
fn push_hex(out: &mut String, n: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Four bits a digit, and one digit for zero.
    let digits = (64 - n.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        out.push(char::from(DIGITS[((n >> (4 * i)) & 0xf) as usize]));
    }
}

#[cfg(test)]
mod tests {
    /// `op_<start>_<noise>_<counter>`, in lower-case hex, the counter rising from id to id; the
    /// same text however it is read.
    #[test]
    fn an_operation_id_is_its_prefix_and_a_rising_counter() {
        let (a, b) = (super::OperationId::next(), super::OperationId::next());
        let mut written = String::from("x");
        a.push_to(&mut written);
        assert_eq!(written[1..], *a.as_str());
        let mut again = String::new();
        a.push_to(&mut again);
        assert_eq!(again, a.as_str());
        let b_text = super::OperationId::next();
        let owned = b_text.to_text();
        assert_eq!(b_text.as_str(), owned);
        assert_eq!(b_text.to_text(), owned);
        let parts = |id: &str| -> Vec<String> { id.split('_').map(String::from).collect() };
        let (pa, pb) = (parts(a.as_str()), parts(b.as_str()));
        assert_eq!(pa.len(), 4, "{}", a.as_str());
        assert_eq!(pa[0], "op");
        assert_eq!(pa[2].len(), 8);
        for part in pa.iter().chain(&pb).skip(1).filter(|p| *p != "op") {
            assert!(
                !part.is_empty() && part.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')),
                "{part}"
            );
        }
        assert_eq!(pa[..3], pb[..3], "one process prefix");
        let counter = |p: &[String]| u64::from_str_radix(&p[3], 16).unwrap();
        assert!(counter(&pb) > counter(&pa));
    }

    #[test]
    fn hex_is_written_as_the_formatter_writes_it() {
        for n in [
            0,
            1,
            9,
            10,
            15,
            16,
            255,
            256,
            0xdead_beef,
            u64::MAX - 1,
            u64::MAX,
        ]
        .into_iter()
        .chain((0..64).map(|s| 1u64 << s))
        {
            let mut out = String::from("op_");
            super::push_hex(&mut out, n);
            assert_eq!(out, format!("op_{n:x}"));
        }
    }
}
