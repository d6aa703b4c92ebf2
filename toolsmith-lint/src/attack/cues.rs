//! The cues several classes (and the entry points of [`super`]) ask of a sentence: does it
//! direct the agent, address it, ask for secrets, name another tool or this one, scope an order
//! to everything, hold an address or a literal value, pass results on, hide something.

use super::sentence::{automaton, Sentence, Text};
use crate::lexicon::cues::{
    ACTION_VERBS, FILLERS, HANDOVER_VERBS, INVOKE_VERBS, OBLIGATION_PHRASES, OBLIGATION_WORDS,
    SENSITIVE_PATHS, SENSITIVE_PHRASES, SENSITIVE_WORDS, TOOL_VERB_PREFIXES, UNITS,
    UNIVERSAL_PHRASES,
};
use crate::lexicon::terms::terms;
use crate::lexicon::{CONVERSATION_PHRASES, CREDENTIAL_PHRASES};
use crate::text::{fold_identifier, is_email, is_url, NameSet};

/// Whether `s` directs the agent: an obligation, or a clause that opens with a verb of
/// [`ACTION_VERBS`].
pub(super) fn directs(t: &Text, s: &Sentence) -> bool {
    cached(&s.directs, || obliges(t, s) || imperative(t, s))
}

pub(super) fn obliges(t: &Text, s: &Sentence) -> bool {
    cached(&s.obliges, || {
        t.has_word(s, OBLIGATION_WORDS) || t.has_phrase(s, OBLIGATION_PHRASES)
    })
}

/// A sentence's answer to a question every class asks, worked out once.
fn cached(cell: &std::cell::Cell<Option<bool>>, f: impl FnOnce() -> bool) -> bool {
    cell.get().unwrap_or_else(|| {
        let v = f();
        cell.set(Some(v));
        v
    })
}

/// Whether a clause of `s` opens with an action verb: the sentence's start, or the word after
/// a comma, a colon or a dash (the main clause after "When X, ..." or a label "Note: ...").
pub(super) fn imperative(t: &Text, s: &Sentence) -> bool {
    let bytes = t.lower.as_bytes();
    let n = s.words.len();
    (0..n).any(|i| {
        let opens = i == 0 || {
            let gap = &bytes[s.words[i - 1].1..s.words[i].0];
            gap.iter()
                .any(|c| matches!(c, b',' | b':' | b'-' | b'*' | b'('))
        };
        opens && {
            let mut k = i;
            while k < n && FILLERS.contains(&t.word(s, k)) {
                k += 1;
            }
            k < n && ACTION_VERBS.contains(&t.word(s, k))
        }
    })
}

/// Whether `s` is written to the agent: "you", "your", or the agent named.
pub(super) fn addresses_agent(t: &Text, s: &Sentence) -> bool {
    t.has_word(
        s,
        terms![
            "you",
            "your",
            "assistant",
            "assistants",
            "agent",
            "agents",
            "ai",
            "llm",
            "llms",
            "chatbot",
            "claude",
            "gpt",
            "copilot",
            "models",
        ],
    ) || t.has_phrase(s, terms!["the model", "language model", "language models"])
}

/// What an attack wants handed over: credentials, private files, payment data, the
/// conversation.
pub(super) fn sensitive(t: &Text, s: &Sentence) -> bool {
    let line = t.line(s);
    static PATHS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    t.has_word(s, SENSITIVE_WORDS)
        || t.has_phrase(s, CREDENTIAL_PHRASES)
        || t.has_phrase(s, CONVERSATION_PHRASES)
        || t.has_phrase(s, SENSITIVE_PHRASES)
        || PATHS
            .get_or_init(|| automaton(SENSITIVE_PATHS))
            .is_match(line)
}

/// The identifiers a tool's own text may name without naming another server's tool: the list's
/// tool names and the tool's own parameters and fields (at any depth), each compared without
/// regard to case, `_` and `-` (`listFollowedProjects` is `list_followed_projects`).
#[derive(Default)]
pub(crate) struct Local<'n, 'a> {
    /// The list's names (folded once per list, by the set).
    list: Option<&'n NameSet<'a>>,
    /// The tool's own fields, folded.
    fields: crate::text::FastSet<String>,
}

impl<'n, 'a> Local<'n, 'a> {
    /// The identifiers of a tool whose list's names are `others` and whose input schema is
    /// `schema`.
    pub(crate) fn new(
        others: Option<&'n NameSet<'a>>,
        schema: Option<&crate::doc::Node<'_>>,
    ) -> Local<'n, 'a> {
        let mut local = Local {
            list: others,
            fields: Default::default(),
        };
        if let Some(schema) = schema {
            local.add_fields(schema, 0);
        }
        local
    }

    fn add_fields(&mut self, node: &crate::doc::Node<'_>, depth: usize) {
        let Some(obj) = node.as_object() else {
            if let Some(items) = node.as_array() {
                for item in items.iter().take(64) {
                    self.add_fields(item, depth + 1);
                }
            }
            return;
        };
        if depth > 16 {
            return;
        }
        for (key, value) in obj.iter() {
            if key == "properties" {
                if let Some(props) = value.as_object() {
                    for (name, _) in props.iter() {
                        self.fields.insert(fold_identifier(name));
                    }
                }
            }
            if value.as_object().is_some() || value.as_array().is_some() {
                self.add_fields(value, depth + 1);
            }
        }
    }

    /// Whether `word` is one of the identifiers.
    pub(crate) fn contains(&self, word: &str) -> bool {
        let folded = fold_identifier(word);
        self.fields.contains(&folded) || self.list.is_some_and(|l| l.contains_folded(&folded))
    }
}

/// A tool a sentence names ([`named_tools`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NamedTool {
    /// A name of the list the tool is linted in: a tool of the same server.
    Sibling(usize),
    /// A word that looks like a tool's name and is not one of the list's: another server's
    /// tool (or, for a tool checked alone, any tool).
    Foreign(usize),
    /// A tool named by what it is, not by its name: "the booking tool", "any other tool".
    Generic,
    /// An identifier that may be a tool's name only because "the" stands before it ("the
    /// manual-approve button"): counted as a named tool, never as a foreign one.
    Maybe(usize),
}

/// Whether `s` names a tool other than this one ([`named_tools`]).
pub(super) fn names_other_tool(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
) -> bool {
    !named_tools(t, s, own, others, None).is_empty()
}

/// The tools other than this one that `s` names, in order: a word of the list's names other
/// than the tool's own (a sibling), an identifier with `_` or `-` (or camelCase) that follows an
/// invoking verb, stands next to "tool" or "function" or starts with an action (a foreign tool
/// when it is not one of the list's names), or "the X tool" and the like (generic).
///
/// With `local`, an identifier the tool's list or its own schema knows ([`Local`]) is a sibling,
/// never a foreign tool.
pub(super) fn named_tools(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    local: Option<&Local>,
) -> Vec<NamedTool> {
    let mut out = Vec::new();
    let n = s.words.len();
    let own = own.to_ascii_lowercase();
    for i in 0..n {
        // A word may open with the apostrophe of a quote ('get_user'): not part of a name.
        let w = t.word(s, i).trim_start_matches('\'');
        if w == own {
            continue;
        }
        let (a, b) = s.words[i];
        let orig = t.orig[a..b].trim_start_matches('\'');
        if others.is_some_and(|names| names.contains(orig) && w.len() > 2) {
            out.push(NamedTool::Sibling(i));
            continue;
        }
        // A command-line flag (`--allow-write`), an operator or variable (`$vectorSearch`,
        // `%PATH%`), a handle or tag (`@user`, `#channel`) is no tool.
        if t.orig[..a].ends_with(['-', '$', '%', '@', '#']) {
            continue;
        }
        let snake = w.contains('_');
        let ident = snake
            || (w.contains('-') && w.len() > 4)
            || orig.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && orig.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        let prev = (i > 0).then(|| t.word(s, i - 1));
        let next = (i + 1 < n).then(|| t.word(s, i + 1));
        let near_tool = |x: Option<&str>| {
            x.is_some_and(|x| matches!(x, "tool" | "tools" | "function" | "endpoint" | "command"))
        };
        let action_first = snake
            && w.split('_')
                .next()
                .is_some_and(|p| TOOL_VERB_PREFIXES.contains(&p));
        let invoked = prev.is_some_and(|p| INVOKE_VERBS.contains(&p));
        if ident && (action_first || invoked || near_tool(next) || near_tool(prev)) {
            out.push(if local.is_some_and(|l| l.contains(orig)) {
                NamedTool::Sibling(i)
            } else {
                NamedTool::Foreign(i)
            });
            continue;
        }
        if ident && prev == Some("the") {
            out.push(NamedTool::Maybe(i));
            continue;
        }
        // "the booking tool", "any email tool", not "this tool".
        if matches!(w, "tool" | "tools" | "function" | "functions" | "connector")
            && i >= 2
            && matches!(
                t.word(s, i - 2),
                "the" | "a" | "another" | "any" | "other" | "every" | "all" | "each"
            )
            && !matches!(t.word(s, i - 1), "this" | "same")
        {
            out.push(NamedTool::Generic);
        }
    }
    if out.is_empty()
        && t.has_phrase(
            s,
            terms![
                "any other tool",
                "all other tools",
                "other tools",
                "another tool",
                "every tool",
                "any tool",
                "each tool",
                "every other tool",
                "other tool",
                "tool call",
                "tool calls",
            ],
        )
    {
        out.push(NamedTool::Generic);
    }
    out
}

/// Whether `s` speaks of this tool: "this tool", "this function", its own name.
pub(super) fn names_this_tool(t: &Text, s: &Sentence, own: &str) -> bool {
    t.has_phrase(
        s,
        terms![
            "this tool",
            "this function",
            "this server",
            "this service",
            "this api",
            "this plugin",
            "this mcp",
            "this connector",
            "this one",
            "this integration",
            "this is the",
            "this is a",
            "this is an",
        ],
    ) || (!own.is_empty() && t.line(s).contains(&own.to_ascii_lowercase()))
}

/// Whether `s` scopes an order to everything: a phrase of [`UNIVERSAL_PHRASES`], or "every",
/// "each", "any" or "all" before a unit of the agent's work ("every pair of tool calls", "any
/// conversation").
pub(super) fn universal(t: &Text, s: &Sentence) -> bool {
    t.has_phrase(s, UNIVERSAL_PHRASES)
        || (0..s.words.len()).any(|i| {
            matches!(t.word(s, i), "every" | "each" | "any" | "all")
                && (i + 1..(i + 4).min(s.words.len())).any(|j| UNITS.contains(&t.word(s, j)))
        })
}

/// Whether `s` holds an e-mail address or a URL (not one given as an example).
pub(super) fn names_address(t: &Text, s: &Sentence) -> bool {
    let text = &t.orig[s.start..s.end];
    // No address without `://` or `@`: most sentences are turned away without a scan.
    if !text.contains("://") && !text.contains('@') {
        return false;
    }
    let lower = t.line(s);
    tokens(text).any(|(at, tok)| {
        (is_email(tok) || is_url(tok))
            && !["e.g.", "for example", "such as", "like ", "format"]
                .iter()
                .any(|ex| {
                    lower[..at].ends_with(ex) || lower[at.saturating_sub(16)..at].contains(ex)
                })
    })
}

/// The tokens of a text (runs between white space, quotes, backticks and brackets, without
/// trailing sentence punctuation), with their byte offsets.
pub(super) fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let sep = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '(' | ')' | '<' | '>' | '[' | ']' | ','
            )
    };
    let mut at = 0;
    text.split(sep).filter_map(move |tok| {
        let start = at;
        at += tok.len() + 1;
        let tok = tok.trim_end_matches(['.', ';', ':', '!', '?']);
        (!tok.is_empty()).then_some((start, tok))
    })
}

/// Whether `s` protects the user's say rather than taking it away: "unless the user has asked
/// you to", "do not run it without asking the user first", "when the user has not confirmed".
pub(super) fn protective(t: &Text, s: &Sentence) -> bool {
    let negated = t.has_phrase(s, terms!["do not", "don't", "never"]);
    let without = t.has_phrase(
        s,
        terms![
            "without asking",
            "without confirmation",
            "without confirming",
            "without the user's",
            "without their",
        ],
    );
    (negated && without)
        || t.has_phrase(
            s,
            terms![
                "unless the user has",
                "unless the user asks",
                "unless the user explicitly",
                "unless they ask",
                "until the user confirms",
                "has not confirmed",
                "not confirmed",
                "wait for confirmation",
                "wait for the user",
                "ask the user first",
                "asking the user first",
                "instead of guessing",
                "confirm with the user",
                "with the user's approval",
                "after the user confirms",
                "only if the user",
                "only when the user",
            ],
        )
}

/// Whether the sentence opens with a verb in the third person ("Deletes ...", "Returns ..."):
/// it describes the tool rather than ordering the agent.
pub(super) fn third_person_start(t: &Text, s: &Sentence) -> bool {
    let w = t.word(s, 0);
    w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !ACTION_VERBS.contains(&w)
}

/// Whether `s` (from word `from_word` on) holds a literal value: a quoted or backticked word,
/// an e-mail address, a URL, a number, a path, an identifier with digits (`acct_1N8x`,
/// `0x7a3F...`) or `true`/`false`.
pub(super) fn literal(t: &Text, s: &Sentence, from_word: usize) -> bool {
    let from = s
        .words
        .get(from_word)
        .map_or(s.end, |w| w.0.saturating_sub(1));
    let rest = &t.orig[from.max(s.start)..s.end];
    let quoted = ['\'', '"', '`', '\u{2018}', '\u{201C}']
        .iter()
        .any(|q| rest.matches(*q).count() >= 2 || (*q != '\'' && rest.contains(*q)));
    quoted
        || rest.split_whitespace().any(|tok| {
            let tok = tok.trim_matches(|c: char| matches!(c, '.' | ',' | ';' | ')' | '(' | ':'));
            is_email(tok)
                || tok.contains("://")
                || (tok.starts_with(['@', '#']) && tok.len() > 2)
                || (tok.contains('@') && tok.contains(':'))
                || tok.starts_with('/')
                || tok.starts_with("~/")
                || (!tok.is_empty()
                    && tok.bytes().any(|b| b.is_ascii_digit())
                    && tok
                        .bytes()
                        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b',')))
                || is_domain(tok)
                || (tok.len() >= 6
                    && tok.bytes().any(|b| b.is_ascii_digit())
                    && tok.bytes().any(|b| b.is_ascii_alphabetic())
                    && tok
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')))
                || tok == "true"
                || tok == "false"
        })
}

/// A host name: `git.mirror-code.xyz`, `hooks.example.app` (two labels or more, a
/// top-level label of letters that is no file extension).
fn is_domain(tok: &str) -> bool {
    let labels: Vec<&str> = tok.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && labels.last().is_some_and(|t| {
            (2..=6).contains(&t.len())
                && t.bytes().all(|b| b.is_ascii_lowercase())
                && !matches!(
                    *t,
                    "txt"
                        | "md"
                        | "json"
                        | "py"
                        | "rs"
                        | "js"
                        | "ts"
                        | "sh"
                        | "csv"
                        | "log"
                        | "toml"
                        | "yaml"
                        | "yml"
                        | "html"
                        | "pdf"
                        | "png"
                        | "jpg"
                        | "ext"
                        | "zip"
                        | "gz"
                        | "exe"
                        | "bat"
                )
        })
        && labels[0].len() > 1
}

/// Whether `s` passes another call's results on: "include what it finds", "with the results".
pub(super) fn forwards(t: &Text, s: &Sentence) -> bool {
    let results = t.has_phrase(
        s,
        terms![
            "what it finds",
            "what it returns",
            "the result",
            "the results",
            "its result",
            "its results",
            "the output",
            "its output",
            "the response",
            "its response",
            "the contents",
            "its contents",
            "full contents",
            "the returned",
            "full list",
            "full arguments",
            "the arguments",
            "full event",
            "the file content",
            "the file's",
        ],
    );
    results && (t.has_word(s, HANDOVER_VERBS) || t.has_word(s, terms!["with"]))
}

/// Whether `s` hides something from the user: in secret, or without telling them ("silently"
/// and "without notifying" of a system's behaviour, or of the organizer of a meeting, hide
/// nothing from the user: the sentence must speak of the user).
pub(super) fn conceals(t: &Text, s: &Sentence) -> bool {
    let user = || {
        t.has_word(
            s,
            terms![
                "user",
                "user's",
                "users",
                "human",
                "them",
                "they",
                "requester",
                "anyone",
            ],
        )
    };
    t.has_word(s, terms!["secretly", "covertly", "discreetly"])
        || (t.has_word(s, terms!["silently", "quietly"]) || concealing_phrase(t, s)) && user()
}

fn concealing_phrase(t: &Text, s: &Sentence) -> bool {
    t.has_phrase(
        s,
        terms![
            "without telling",
            "without informing",
            "without notifying",
            "without mentioning",
            "do not tell",
            "don't tell",
            "do not mention",
            "don't mention",
            "do not inform",
            "do not notify",
            "never mention",
            "never tell",
            "not mention",
        ],
    )
}
