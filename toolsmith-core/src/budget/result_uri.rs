//! Kept results as resources: the URI that names a result the toolbox kept (the full result of a
//! cut answer, the result of a keyed write), bound to the tool and the caller it was made for,
//! and what reading it can answer.
//!
//! The URI is `toolsmith://result/<ref>?tool=<tool>&tag=<tag>`: `<ref>` is the record-store
//! reference (the envelope's `ref`), `<tool>` the tool whose call produced it, both
//! percent-encoded (every byte but ASCII letters, digits, `-`, `.`, `_` and `~`), and `<tag>`
//! 32 lowercase hex digits: HMAC-SHA-256, keyed with the toolbox's cursor key, over the
//! reference, the tool and the caller's identity. A caller cannot compute a tag, so a guessed
//! reference, another caller's link or an edited one is refused before the store is read.

use crate::policy::{Caller, Denial};
use crate::secret::{hex, unhex, SecretKey};
use std::fmt::Write as _;

/// What every kept-result URI starts with: `toolsmith://result/`.
pub const RESULT_URI_PREFIX: &str = "toolsmith://result/";

/// The MIME type of a kept result read as a resource: its compact JSON.
pub const RESULT_MIME_TYPE: &str = "application/json";

/// Bytes of a URI's tag (128 bits of HMAC-SHA-256), written as twice as many hex digits.
const TAG_BYTES: usize = 16;

/// The longest URI read (longer text is refused unread), in bytes.
const MAX_URI_BYTES: usize = 2048;

/// A kept result as an MCP resource: what a `resource_link` content block (or a resource
/// listing) says of it. Made by
/// [`Toolbox::result_resource`](crate::Toolbox::result_resource) for the caller the result was
/// made for; only that caller can read it
/// ([`Toolbox::read_result`](crate::Toolbox::read_result)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultResource {
    /// The URI to read: `toolsmith://result/<ref>?tool=<tool>&tag=<tag>`.
    pub uri: String,
    /// The resource's programmatic name: the record-store reference (`rec_...`).
    pub name: String,
    /// A short title for people: `Full result of <tool>`.
    pub title: String,
    /// What the resource is, for the model: the full result of the call, and how long and for
    /// whom it is kept.
    pub description: String,
    /// [`RESULT_MIME_TYPE`].
    pub mime_type: String,
}

/// Why a kept result could not be read by its URI
/// ([`Toolbox::read_result`](crate::Toolbox::read_result)). Each message says what to do next.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResultReadError {
    /// The URI is not a kept result's: it does not start with [`RESULT_URI_PREFIX`].
    #[error(
        "This server has no resource at that URI: its resources are the full results of its \
         tools' calls, named by the resource links in tool results (toolsmith://result/...). \
         Read a URI exactly as a tool result gave it."
    )]
    NotAResult,
    /// The URI starts like a kept result's but is incomplete or was edited.
    #[error(
        "The result link is incomplete or was edited. Read the URI exactly as the tool result's \
         resource link gave it, or call the tool again for a new one."
    )]
    Malformed,
    /// The tag does not match: the link was made for another caller, or edited.
    #[error(
        "The result link was not made for this caller (or was edited): a kept result can be \
         read only by the caller whose call produced it. Read a link from one of your own tool \
         results, or call the tool again."
    )]
    Foreign,
    /// The policy no longer lets the caller call the tool whose result this is.
    #[error("{}", .0.message())]
    Denied(Denial),
    /// The tool whose result this is is no longer registered (retired), so its results are not
    /// served either.
    #[error(
        "The tool \"{tool}\" that produced this result is no longer served, so its kept results \
         are not either. Call one of the tools the server lists now."
    )]
    ToolUnavailable {
        /// The tool named in the URI.
        tool: String,
    },
    /// The store no longer keeps the result: it was evicted or expired.
    #[error(
        "This result is no longer kept: kept results expire, and older ones make room for newer \
         ones. Call \"{tool}\" again to get it anew (for a tool that changes data, only if the \
         user wants the action done again), or use the part the tool result showed."
    )]
    NotKept {
        /// The tool whose result it was.
        tool: String,
    },
    /// The store could not be read (the fault is counted and reported to the host).
    #[error(
        "The store that keeps results could not be read just now. Try again in a moment; the \
         result itself may still be kept."
    )]
    Unavailable,
}

impl ResultReadError {
    /// Whether the answer is "no such resource" (the URI is not a kept result's, its tool is
    /// gone, or the store dropped the result), as against a link refused to this caller
    /// ([`Malformed`](Self::Malformed), [`Foreign`](Self::Foreign),
    /// [`Denied`](Self::Denied)) or a store that failed
    /// ([`Unavailable`](Self::Unavailable)). MCP servers answer the first with the protocol's
    /// resource-not-found error.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            ResultReadError::NotAResult
                | ResultReadError::ToolUnavailable { .. }
                | ResultReadError::NotKept { .. }
        )
    }
}

/// A kept-result URI, parsed (its tag not yet checked).
#[derive(Debug)]
pub(crate) struct ResultUri {
    pub(crate) reference: String,
    pub(crate) tool: String,
    tag: Vec<u8>,
}

impl ResultUri {
    /// Parses `uri`.
    pub(crate) fn parse(uri: &str) -> Result<ResultUri, ResultReadError> {
        let Some(rest) = uri.strip_prefix(RESULT_URI_PREFIX) else {
            return Err(ResultReadError::NotAResult);
        };
        if uri.len() > MAX_URI_BYTES {
            return Err(ResultReadError::Malformed);
        }
        let (reference, query) = rest.split_once('?').ok_or(ResultReadError::Malformed)?;
        let reference = decode(reference).ok_or(ResultReadError::Malformed)?;
        let (mut tool, mut tag) = (None, None);
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').ok_or(ResultReadError::Malformed)?;
            let slot = match key {
                "tool" => &mut tool,
                "tag" => &mut tag,
                _ => return Err(ResultReadError::Malformed),
            };
            if slot.replace(value).is_some() {
                return Err(ResultReadError::Malformed);
            }
        }
        let tool =
            decode(tool.ok_or(ResultReadError::Malformed)?).ok_or(ResultReadError::Malformed)?;
        let tag = tag
            .filter(|t| t.len() == 2 * TAG_BYTES)
            .and_then(unhex)
            .ok_or(ResultReadError::Malformed)?;
        if reference.is_empty() || tool.is_empty() {
            return Err(ResultReadError::Malformed);
        }
        Ok(ResultUri {
            reference,
            tool,
            tag,
        })
    }

    /// Whether the tag binds this reference and tool to `caller` under `key` (constant time).
    pub(crate) fn is_for(&self, key: &SecretKey, caller: &Caller) -> bool {
        key.verify(&tag_parts(&self.tool, &self.reference, caller), &self.tag)
    }
}

/// The URI of the result kept under `reference`, produced by `tool` for `caller`.
pub(crate) fn result_uri(key: &SecretKey, tool: &str, reference: &str, caller: &Caller) -> String {
    let tag = key.mac(&tag_parts(tool, reference, caller));
    format!(
        "{RESULT_URI_PREFIX}{}?tool={}&tag={}",
        encode(reference),
        encode(tool),
        hex(&tag[..TAG_BYTES])
    )
}

/// What a URI's tag is computed over: the purpose, the tool, the caller's identity (empty for
/// an anonymous caller, as in cursors) and the reference, each length-prefixed by the MAC.
fn tag_parts<'a>(tool: &'a str, reference: &'a str, caller: &'a Caller) -> [&'a [u8]; 4] {
    [
        b"toolsmith-result",
        tool.as_bytes(),
        caller.id().unwrap_or_default().as_bytes(),
        reference.as_bytes(),
    ]
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Percent-encodes every byte of `text` but the unreserved ones (RFC 3986).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if unreserved(b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Decodes what [`encode`] wrote (either case of hex digits); `None` for anything else, or for
/// bytes that are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let pair = text.get(i + 1..i + 3)?;
                if !pair.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                out.push(u8::from_str_radix(pair, 16).ok()?);
                i += 3;
            }
            b if unreserved(b) => {
                out.push(b);
                i += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::{result_uri, ResultReadError, ResultUri, RESULT_URI_PREFIX};
    use crate::policy::Caller;
    use crate::secret::SecretKey;

    fn key() -> SecretKey {
        SecretKey::from_bytes([7; 32])
    }

    #[test]
    fn a_uri_reads_back_for_its_caller_only() {
        let ann = Caller::new("ann");
        let uri = result_uri(&key(), "search_text", "rec_0123", &ann);
        assert!(uri.starts_with(RESULT_URI_PREFIX), "{uri}");
        let parsed = ResultUri::parse(&uri).unwrap();
        assert_eq!(parsed.reference, "rec_0123");
        assert_eq!(parsed.tool, "search_text");
        assert!(parsed.is_for(&key(), &ann));
        assert!(!parsed.is_for(&key(), &Caller::new("bob")));
        assert!(!parsed.is_for(&key(), &Caller::anonymous()));
        assert!(!parsed.is_for(&SecretKey::from_bytes([8; 32]), &ann));
    }

    #[test]
    fn references_and_tool_names_outside_the_unreserved_set_round_trip() {
        let caller = Caller::anonymous();
        let uri = result_uri(&key(), "files/read é", "results/42?x=1&tag=0#", &caller);
        assert!(!uri.contains(' ') && !uri.contains('#'), "{uri}");
        let parsed = ResultUri::parse(&uri).unwrap();
        assert_eq!(parsed.reference, "results/42?x=1&tag=0#");
        assert_eq!(parsed.tool, "files/read é");
        assert!(parsed.is_for(&key(), &caller));
    }

    #[test]
    fn edits_are_malformed_or_fail_the_tag() {
        let ann = Caller::new("ann");
        let uri = result_uri(&key(), "search_text", "rec_0123", &ann);
        let tag = uri.rsplit_once("tag=").unwrap().1.to_string();
        let malformed = [
            format!("{RESULT_URI_PREFIX}rec_0123"),
            format!("{RESULT_URI_PREFIX}?tool=search_text&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_0123?tool=search_text"),
            format!(
                "{RESULT_URI_PREFIX}rec_0123?tool=search_text&tag={}",
                &tag[2..]
            ),
            format!(
                "{RESULT_URI_PREFIX}rec_0123?tool=search_text&tag={}",
                tag.to_uppercase()
            ),
            format!("{RESULT_URI_PREFIX}rec_0123?tool=search_text&tag={tag}&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_0123?tool=search_text&tag={tag}&more=1"),
            format!("{RESULT_URI_PREFIX}rec 0123?tool=search_text&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_%ZZ?tool=search_text&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_%FF?tool=search_text&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_%+1?tool=search_text&tag={tag}"),
            format!("{RESULT_URI_PREFIX}rec_0123?tool=&tag={tag}"),
            format!("{RESULT_URI_PREFIX}{}?tool=a&tag={tag}", "r".repeat(3000)),
        ];
        for uri in malformed {
            assert_eq!(
                ResultUri::parse(&uri).unwrap_err(),
                ResultReadError::Malformed,
                "{uri}"
            );
        }
        // Well-formed edits parse, and their tag fails.
        for edited in [
            uri.replace("rec_0123", "rec_0124"),
            uri.replace("search_text", "write_file"),
            format!(
                "{}{}",
                &uri[..uri.len() - 1],
                if uri.ends_with('0') { '1' } else { '0' }
            ),
        ] {
            let parsed = ResultUri::parse(&edited).unwrap();
            assert!(!parsed.is_for(&key(), &ann), "{edited}");
        }
        // The query's keys may come in either order.
        let swapped = format!("{RESULT_URI_PREFIX}rec_0123?tag={tag}&tool=search_text");
        assert!(ResultUri::parse(&swapped).unwrap().is_for(&key(), &ann));
    }

    #[test]
    fn other_uris_are_not_results() {
        for uri in [
            "file:///etc/passwd",
            "toolsmith://other/x",
            "",
            "toolsmith://result",
        ] {
            let err = ResultUri::parse(uri).unwrap_err();
            assert_eq!(err, ResultReadError::NotAResult, "{uri}");
            assert!(err.is_not_found());
        }
        assert!(!ResultReadError::Foreign.is_not_found());
    }
}
