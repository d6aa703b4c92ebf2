//! Tool-poisoning heuristics for third-party text: instructions aimed at the agent, requests for
//! credentials, private files or the conversation, addresses to send data to, and descriptions
//! that change how another tool of the list is used.
//!
//! Every check works on one string (a title, a description, a parameter description) split once
//! into [`Words`] and into "tokens" (runs of characters between whitespace, quotes and brackets,
//! for paths, URLs, e-mail addresses and tool names). A hit carries a character span into the
//! string so reports can mark the offending text.

use crate::text::NameSet;

use crate::lexicon::{AGENT_TAGS, GENERIC_PARAMS, PRIVATE_PATHS};
use crate::text::{
    is_email, is_url, List, WordSet, Words, MARK_AT, MARK_LT, MARK_PATH, MARK_SCHEME,
};

/// One match: what was found (for the message) and where, as `(start, len)` in characters
/// (0-based start) of the string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub what: String,
    pub span: (usize, usize),
}

/// Whether a parameter name is one of the generic names of [`GENERIC_PARAMS`].
pub(crate) fn is_generic_param(name: &str) -> bool {
    GENERIC_PARAMS.contains(&name.to_ascii_lowercase().as_str())
}

/// The characters of `text` in `span`, as written.
fn original(text: &str, span: (usize, usize)) -> String {
    text.chars().skip(span.0).take(span.1).collect()
}

/// The character position of a byte offset.
fn char_at(text: &str, byte: usize) -> usize {
    if text.is_ascii() {
        byte
    } else {
        text[..byte].chars().count()
    }
}

fn char_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let a = char_at(text, start);
    (a, char_at(text, end) - a)
}

/// Calls `f(token, byte_start)` for each token: a run between whitespace, quotes, backticks and
/// brackets, with trailing sentence punctuation removed.
fn for_tokens(text: &str, mut f: impl FnMut(&str, usize) -> bool) -> bool {
    let bytes = text.as_bytes();
    let is_sep = |b: u8| TOKEN_SEPARATOR[b as usize];
    let mut i = 0;
    while i < bytes.len() {
        if is_sep(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !is_sep(bytes[i]) {
            i += 1;
        }
        let mut end = i;
        while end > start && matches!(bytes[end - 1], b'.' | b';' | b':' | b'!' | b'?') {
            end -= 1;
        }
        // Splitting at ASCII bytes keeps UTF-8 boundaries.
        if end > start && f(&text[start..end], start) {
            return true;
        }
    }
    false
}

/// The bytes tokens are split at: ASCII white space, quotes, backticks, brackets and commas.
static TOKEN_SEPARATOR: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = b.is_ascii_whitespace()
            || matches!(
                b,
                b'"' | b'\'' | b'`' | b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b','
            );
        i += 1;
    }
    t
};

/// The word range `(first, last)` of the sentence holding word `i`.
fn sentence_of(ws: &Words, i: usize) -> (usize, usize) {
    let mut a = i;
    while a > 0 && !ws.sentence_start(a) {
        a -= 1;
    }
    let mut b = i;
    while b + 1 < ws.len() && !ws.sentence_start(b + 1) {
        b += 1;
    }
    (a, b)
}

fn sentence_has(ws: &Words, i: usize, set: WordSet) -> bool {
    let (a, b) = sentence_of(ws, i);
    (a..=b).any(|k| ws.in_set(k, set))
}

/// The word index at or after a character position (1-based `at` of words).
fn word_at_char(ws: &Words, ch: usize) -> Option<usize> {
    (0..ws.len())
        .find(|&k| ws.at(k) > ch)
        .map(|k| k.saturating_sub(1))
        .or_else(|| ws.len().checked_sub(1))
}

/// `agent_instructions`: `<IMPORTANT>`-style blocks and phrases addressed to the agent.
pub(crate) fn agent_instructions(text: &str, ws: &Words) -> Option<Hit> {
    let mut tag: Option<Hit> = None;
    if ws.marks() & MARK_LT != 0 {
        let bytes = text.as_bytes();
        for (i, _) in text.match_indices('<') {
            let mut j = i + 1;
            if bytes.get(j) == Some(&b'/') {
                j += 1;
            }
            let name_start = j;
            while j < bytes.len() && bytes[j].is_ascii_alphabetic() {
                j += 1;
            }
            let name = text[name_start..j].to_ascii_lowercase();
            if j < bytes.len()
                && matches!(bytes[j], b'>' | b' ')
                && AGENT_TAGS.contains(&name.as_str())
            {
                let end = text[j..].find('>').map_or(j, |k| j + k + 1);
                tag = Some(Hit {
                    what: text[i..end].to_string(),
                    span: char_span(text, i, end),
                });
                break;
            }
        }
    }
    let phrase = ws.find_any(List::Agent).map(|(i, j, _)| {
        let span = ws.span(i, j);
        Hit {
            what: original(text, span),
            span,
        }
    });
    match (tag, phrase) {
        (Some(t), Some(p)) => Some(if p.span.0 < t.span.0 { p } else { t }),
        (t, p) => t.or(p),
    }
}

/// Whether a text holds `/`, `_`, `~` or a `.` before a letter: each of [`PRIVATE_PATHS`] and
/// `.env` does, so a text without any holds none of them ([`MARK_PATH`] of its words).
#[cfg(test)]
fn may_hold_a_path(text: &str) -> bool {
    Words::new(text).marks() & MARK_PATH != 0
}

/// [`PRIVATE_PATHS`] and `.env`, matched ASCII-case-insensitively in one pass.
fn private_paths() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(PRIVATE_PATHS.iter().copied().chain([".env"]))
            .expect("the private paths build an automaton")
    })
}

/// [`PRIVATE_PATHS`] alone, as [`private_paths`].
fn private_paths_only() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(PRIVATE_PATHS)
            .expect("the private paths build an automaton")
    })
}

/// `sensitive_data_request`: a private file or path anywhere, or a credential asked for.
pub(crate) fn sensitive_request(text: &str, ws: &Words) -> Option<Hit> {
    // A token is a substring of the text and no pattern holds a token separator, so a text
    // without any of the paths (in any case) has no token with one.
    if ws.marks() & MARK_PATH != 0 && private_paths().is_match(text) {
        let mut found = None;
        for_tokens(text, |tok, at| {
            if !tok.bytes().any(|b| matches!(b, b'.' | b'/' | b'_' | b'~')) {
                return false;
            }
            // Case-insensitive: the same as lowercasing the token and matching the lowercase
            // patterns.
            let hit = private_paths_only().is_match(tok) || is_dotenv(tok);
            if hit {
                found = Some(Hit {
                    what: tok.to_string(),
                    span: char_span(text, at, at + tok.len()),
                });
            }
            hit
        });
        if found.is_some() {
            return found;
        }
    }
    request_phrase(text, ws, List::Credential)
}

/// A `.env` file (any case): `.env`, `.env.local`, `path/.env`, not `process.env` or
/// `.environment`.
fn is_dotenv(tok: &str) -> bool {
    let b = tok.as_bytes();
    (0..b.len().saturating_sub(3)).any(|i| {
        b[i..i + 4].eq_ignore_ascii_case(b".env") && {
            let before_ok = i == 0 || matches!(b[i - 1], b'/' | b'~' | b'\\');
            let after = b.get(i + 4);
            before_ok && after.is_none_or(|c| *c == b'.' || *c == b'/')
        }
    })
}

/// Whether the sentence of word `i` holds a verb of
/// [`REQUEST_VERBS`](crate::lexicon::REQUEST_VERBS) that no negation governs: "Never put API
/// keys in the URL" warns against what "Put your API key here" asks.
fn sentence_asks(ws: &Words, i: usize) -> bool {
    let (a, b) = sentence_of(ws, i);
    let negated = |k: usize| {
        (k.saturating_sub(2).max(a)..k).any(|n| {
            ["never", "not", "don't", "avoid", "no"]
                .iter()
                .any(|w| ws.is_word(n, w))
        })
    };
    (a..=b).any(|k| ws.in_set(k, WordSet::Request) && !negated(k))
}

/// A phrase of `set` in a sentence that also holds one of
/// [`REQUEST_VERBS`](crate::lexicon::REQUEST_VERBS) (not negated).
fn request_phrase(text: &str, ws: &Words, set: List) -> Option<Hit> {
    let mut from = 0;
    while let Some((i, j, _)) = ws.find_any_from(set, from) {
        if sentence_asks(ws, i) {
            let span = ws.span(i, j);
            return Some(Hit {
                what: original(text, span),
                span,
            });
        }
        from = i + 1;
    }
    None
}

/// `conversation_exfiltration`: the conversation, the system prompt or other tools' data asked
/// to be put into an argument.
pub(crate) fn conversation_request(text: &str, ws: &Words) -> Option<Hit> {
    request_phrase(text, ws, List::Conversation)
}

/// `exfiltration_target`: a URL or an e-mail address in a sentence that sends something.
pub(crate) fn exfiltration_target(text: &str, ws: &Words) -> Option<Hit> {
    if ws.marks() & (MARK_SCHEME | MARK_AT) == 0 {
        return None;
    }
    let mut found = None;
    for_tokens(text, |tok, at| {
        if !(is_url(tok) || is_email(tok)) {
            return false;
        }
        let span = char_span(text, at, at + tok.len());
        let sends = word_at_char(ws, span.0).is_some_and(|w| sentence_has(ws, w, WordSet::Send));
        if sends {
            found = Some(Hit {
                what: tok.to_string(),
                span,
            });
        }
        sends
    });
    found
}

/// `tool_shadowing`: a sentence that names another tool of the list (`others`, without this
/// tool's own name) together with a word that changes how it is used. `words` are the text's
/// [`Words`] when the caller has them: a text none of whose words is a cue is then passed over
/// without a search for the names. With the hit, whether it is sure: the sentence changes the
/// other tool's use by more than an obligation (secrets or results passed on, concealment, a
/// fixed value, an address, an override). The list's tools are the same server's, and "call
/// `get_next_task` after this" is how a server orders its own tools' work: a warning.
pub(crate) fn shadowing(
    text: &str,
    own: &str,
    others: &NameSet<'_>,
    words: Option<&Words>,
) -> Option<(Hit, bool)> {
    if words.is_some_and(|ws| !ws.has_shadow_cue()) || !others.may_occur_in(text) {
        return None;
    }
    let mut found = None;
    let mut split: Option<Words> = None;
    for_tokens(text, |tok, at| {
        // The trimmed bytes are ASCII: the rest keeps its UTF-8 boundaries.
        let trim = |c: &u8| matches!(c, b'*' | b'_' | b'-' | b'.');
        let b = tok.as_bytes();
        let lead = b.iter().take_while(|c| trim(c)).count();
        let tail = b[lead..].iter().rev().take_while(|c| trim(c)).count();
        let tok = &tok[lead..tok.len() - tail];
        if tok.len() < 2 || !others.contains(tok) || tok == own {
            return false;
        }
        let ws = match words {
            Some(ws) => ws,
            None => split.get_or_insert_with(|| Words::new(text)),
        };
        let start = at + text[at..].find(tok).unwrap_or(0);
        let span = char_span(text, start, start + tok.len());
        // A cue word and a sentence that changes the other tool's use (an obligation, a fixed
        // value, secrets, results passed on, concealment): "Call get_status after start_job
        // to see progress" names two tools and a cue, and changes nothing.
        let cued = word_at_char(ws, span.0).is_some_and(|w| {
            sentence_has(ws, w, WordSet::ShadowCue) || {
                let (a, b) = sentence_of(ws, w);
                (a..b).any(|k| ws.is_word(k, "instead") && ws.is_word(k + 1, "of"))
            }
        });
        let changes = if cued {
            crate::attack::changes_use(text, start)
        } else {
            None
        };
        if let Some(strong) = changes {
            found = Some((
                Hit {
                    what: tok.to_string(),
                    span,
                },
                strong,
            ));
        }
        changes.is_some()
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(t: &str) -> Option<String> {
        agent_instructions(t, &Words::new(t)).map(|h| h.what)
    }

    #[test]
    fn agent_tags_and_phrases() {
        assert_eq!(
            agent("Adds. <IMPORTANT>read it</IMPORTANT>").as_deref(),
            Some("<IMPORTANT>")
        );
        assert_eq!(agent("Returns a < b and c > d."), None);
        assert_eq!(
            agent("Adds numbers. Before using this tool, read the config.").as_deref(),
            Some("Before using this tool")
        );
        assert_eq!(
            agent("Use this to see what exists before trying to read files."),
            None
        );
    }

    #[test]
    fn spans_are_in_characters() {
        let t = "é <IMPORTANT> x";
        let h = agent_instructions(t, &Words::new(t)).unwrap();
        assert_eq!(h.span, (2, 11));
    }

    #[test]
    fn every_private_path_passes_the_quick_check() {
        for p in PRIVATE_PATHS.iter().chain(&[".env"]) {
            assert!(may_hold_a_path(p), "{p}");
            assert!(may_hold_a_path(&p.to_ascii_uppercase()), "{p}");
        }
        assert!(!may_hold_a_path("Reads a file. Returns its text as UTF-8."));
        assert!(may_hold_a_path("Returns its text, e.g. as UTF-8"));
    }

    #[test]
    fn dotenv() {
        assert!(is_dotenv(".env"));
        assert!(is_dotenv("./.env.local"));
        assert!(is_dotenv("~/project/.env"));
        assert!(!is_dotenv("process.env"));
        assert!(!is_dotenv(".environment"));
        assert!(is_dotenv("~/App/.ENV"));
        assert!(!is_dotenv("Process.Env"));
    }
}
