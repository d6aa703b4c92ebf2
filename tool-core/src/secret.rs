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
/// use tool_core::SecretKey;
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

    /// HMAC-SHA-256 over `parts` (each length-prefixed).
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        for part in parts {
            m.update(&(part.len() as u64).to_le_bytes());
            m.update(part);
        }
        m.finalize().into_bytes().into()
    }
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
