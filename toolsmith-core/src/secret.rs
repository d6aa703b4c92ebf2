//! Per-toolbox secrets: the key behind cursor tags and audit digests, and random identifiers.
//!
//! The overview is in the docs of [`SecretKey`], where it is rendered.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt::Write as _;

/// A 32-byte key for HMAC-SHA-256. Its bytes are never printed (`Debug` hides them).
///
/// # Overview
///
/// Per-toolbox secrets: the key behind cursor tags and audit digests, and random identifiers.
///
/// A [`SecretKey`] is 32 random bytes from the operating system ([`getrandom`]). The toolbox keys
/// HMAC-SHA-256 ([`hmac`], [`sha2`]) with it, so values a caller knows (arguments, offsets,
/// references) give tags the caller cannot compute, and digests of low-entropy arguments (a PIN)
/// cannot be reversed by trying every value.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::SecretKey;
/// let key = SecretKey::random();
/// let a = key.mac_hex(&[b"cursor", b"42"], 16);
/// assert_eq!(a, key.mac_hex(&[b"cursor", b"42"], 16));
/// assert_ne!(a, SecretKey::random().mac_hex(&[b"cursor", b"42"], 16));
/// assert_eq!(a.len(), 32);
/// ```
#[derive(Clone)]
pub struct SecretKey([u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

impl SecretKey {
    /// A new key from the operating system's random source.
    pub fn random() -> Self {
        let mut bytes = [0u8; 32];
        fill_random(&mut bytes);
        SecretKey(bytes)
    }

    /// A key from bytes the host keeps (for example to compare audit digests across restarts).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        SecretKey(bytes)
    }

    /// A key from text the host keeps (a key file's contents, an environment variable):
    /// 64 hexadecimal digits are the key's 32 bytes; any other text of at least 32 bytes is
    /// hashed into a key ([`derive`](Self::derive)). Surrounding whitespace is ignored.
    /// Replicas that must honour each other's cursors (or compare audit digests) are given the
    /// same text.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::SecretKey;
    /// let hex = "8f".repeat(32);
    /// let a = SecretKey::from_text(&hex).unwrap();
    /// assert_eq!(a.mac_hex(&[b"x"], 8), SecretKey::from_bytes([0x8f; 32]).mac_hex(&[b"x"], 8));
    /// let err = SecretKey::from_text("hunter2").unwrap_err();
    /// assert!(err.to_string().contains("at least 32 bytes"));
    /// ```
    ///
    /// # Errors
    /// [`KeyError`] when the text is shorter than 32 bytes (after trimming).
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut bytes = [0u8; 32];
            for (i, byte) in bytes.iter_mut().enumerate() {
                *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
                    .unwrap_or_else(|_| unreachable!("checked to be hex digits"));
            }
            return Ok(SecretKey(bytes));
        }
        if text.len() < 32 {
            return Err(KeyError::TooShort {
                len: text.len(),
                from: None,
            });
        }
        Ok(SecretKey::derive(text.as_bytes()))
    }

    /// The key in the environment variable `var` ([`from_text`](Self::from_text)).
    ///
    /// # Errors
    /// [`KeyError`] when the variable is not set, not Unicode, or too short.
    pub fn from_env(var: &str) -> Result<Self, KeyError> {
        let text = std::env::var(var).map_err(|_| KeyError::Missing {
            from: format!("the environment variable {var} (not set)"),
        })?;
        SecretKey::from_text(&text)
            .map_err(|e| e.read_from(format!("the environment variable {var}")))
    }

    /// The key in the file at `path` ([`from_text`](Self::from_text)).
    ///
    /// # Errors
    /// [`KeyError`] when the file cannot be read or its key is too short.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, KeyError> {
        let path = path.as_ref();
        let source = format!("the key file {}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| KeyError::Missing {
            from: format!("{source} ({e})"),
        })?;
        SecretKey::from_text(&text).map_err(|e| e.read_from(source))
    }

    /// A key derived from `material` (hashed with SHA-256): for keys that are themselves secret
    /// values, such as a cursor binding made with a toolbox's key.
    pub fn derive(material: &[u8]) -> Self {
        use sha2::Digest;
        SecretKey(Sha256::digest(material).into())
    }

    /// HMAC-SHA-256 over `parts` (each length-prefixed, so the split between parts is part of
    /// the message), as the first `bytes` bytes in lowercase hex (at most 32).
    pub fn mac_hex(&self, parts: &[&[u8]], bytes: usize) -> String {
        let tag = self.mac(parts);
        hex(&tag[..bytes.min(32)])
    }

    /// Whether `tag` is the start of the HMAC-SHA-256 over `parts` (what [`mac`](Self::mac)
    /// computes), compared in constant time. A tag shorter than 16 bytes never matches.
    pub(crate) fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        if tag.len() < 16 || tag.len() > 32 {
            return false;
        }
        self.hmac(parts).verify_truncated_left(tag).is_ok()
    }

    /// HMAC-SHA-256 over `parts` (each length-prefixed).
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        self.hmac(parts).finalize().into_bytes().into()
    }

    /// The HMAC state after `parts` (each length-prefixed).
    fn hmac(&self, parts: &[&[u8]]) -> Hmac<Sha256> {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        for part in parts {
            m.update(&(part.len() as u64).to_le_bytes());
            m.update(part);
        }
        m
    }
}

/// Why a [`SecretKey`] could not be read from configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key text is too short to be a secret.
    #[error(
        "the key{} is {len} bytes; a key needs at least 32 bytes (64 hexadecimal digits, e.g. from `openssl rand -hex 32`)",
        from.as_deref().map(|s| format!(" in {s}")).unwrap_or_default()
    )]
    TooShort {
        /// Its length in bytes.
        len: usize,
        /// Where it was read from.
        from: Option<String>,
    },
    /// The key could not be read at all.
    #[error("no key could be read from {from}")]
    Missing {
        /// Where it was looked for, and why it failed.
        from: String,
    },
}

impl KeyError {
    fn read_from(self, from: String) -> Self {
        match self {
            KeyError::TooShort { len, .. } => KeyError::TooShort {
                len,
                from: Some(from),
            },
            other => other,
        }
    }
}

/// The bytes of `text`, an even number of lowercase hex digits (as [`hex`] writes them); `None`
/// for anything else.
pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    fn digit(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        }
    }
    let text = text.as_bytes();
    if text.len() % 2 != 0 {
        return None;
    }
    text.chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `n` random bytes as lowercase hex: identifiers nobody can guess or step through.
pub(crate) fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    fill_random(&mut bytes);
    hex(&bytes)
}

/// Fills `buf` from the operating system's random source. Should that fail (it does not on the
/// supported platforms), falls back to std's randomly keyed hasher mixed with the time and a
/// counter, which is unpredictable to a caller though not of cryptographic quality.
fn fill_random(buf: &mut [u8]) {
    if getrandom::fill(buf).is_ok() {
        return;
    }
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    for chunk in buf.chunks_mut(8) {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let v = std::collections::hash_map::RandomState::new().hash_one((now, n));
        chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::{KeyError, SecretKey};

    fn tag(k: &SecretKey) -> String {
        k.mac_hex(&[b"cursor"], 16)
    }

    #[test]
    fn a_tag_verifies_against_its_own_key_and_message_only() {
        let key = SecretKey::from_bytes([3; 32]);
        let tag = key.mac(&[b"a", b"bc"]);
        assert!(key.verify(&[b"a", b"bc"], &tag));
        assert!(key.verify(&[b"a", b"bc"], &tag[..16]));
        // The split between parts is part of the message.
        assert!(!key.verify(&[b"ab", b"c"], &tag[..16]));
        assert!(!SecretKey::from_bytes([4; 32]).verify(&[b"a", b"bc"], &tag[..16]));
        let mut edited = tag;
        edited[15] ^= 1;
        assert!(!key.verify(&[b"a", b"bc"], &edited[..16]));
        // Too short to be a tag: never a match, not even a correct prefix.
        assert!(!key.verify(&[b"a", b"bc"], &tag[..8]));
        assert!(!key.verify(&[b"a", b"bc"], &[]));
    }

    #[test]
    fn unhex_reads_what_hex_writes_and_nothing_else() {
        assert_eq!(
            super::unhex(&super::hex(&[0, 0xab, 0xff])),
            Some(vec![0, 0xab, 0xff])
        );
        for bad in ["0", "AB", "0g", "+1", "é1"] {
            assert_eq!(super::unhex(bad), None, "{bad}");
        }
    }

    #[test]
    fn key_text_of_hex_or_long_material_gives_the_same_key_each_time() {
        let hex = "0a".repeat(32);
        assert_eq!(
            tag(&SecretKey::from_text(&format!("  {hex}\n")).unwrap()),
            tag(&SecretKey::from_bytes([0x0a; 32]))
        );
        let phrase = "correct horse battery staple, and a fifth word";
        assert_eq!(
            tag(&SecretKey::from_text(phrase).unwrap()),
            tag(&SecretKey::derive(phrase.as_bytes()))
        );
    }

    #[test]
    fn short_or_missing_keys_are_refused_with_where_they_came_from() {
        let dir = std::env::temp_dir().join(format!("toolsmith-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("cursor.key");
        std::fs::write(&file, "too short\n").unwrap();
        let err = SecretKey::from_file(&file).unwrap_err();
        assert!(matches!(err, KeyError::TooShort { len: 9, .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("cursor.key") && text.contains("at least 32 bytes"),
            "{text}"
        );
        let missing = SecretKey::from_file(dir.join("absent.key")).unwrap_err();
        assert!(matches!(missing, KeyError::Missing { .. }), "{missing:?}");
        assert!(missing.to_string().contains("absent.key"), "{missing}");
        let unset = SecretKey::from_env("TOOLSMITH_TEST_KEY_THAT_IS_NEVER_SET").unwrap_err();
        assert!(
            unset
                .to_string()
                .contains("TOOLSMITH_TEST_KEY_THAT_IS_NEVER_SET"),
            "{unset}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
