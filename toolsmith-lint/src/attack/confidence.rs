//! How sure a hit is, and so its severity: an error, or a warning.
//!
//! The structures the classes find (an order to the agent, another tool named, a fixed value, a
//! label) are also how real servers document their tools: "call `resolve_library_id` first to
//! get the ID", "always in UTC", "IMPORTANT USAGE GUIDELINES", "set `mode` to `raw` for every
//! field". What such documentation never does, and an attack on the agent needs, is *decisive*:
//!
//! - keep something from the user ([`conceals`]);
//! - name a destination of its own for the agent's data: an address that is not an example
//!   ([`names_address`]);
//! - hand secrets or the conversation on: a sensitive thing and a verb that gives it away
//!   ([`sensitive`], [`forwards`]);
//! - make a fixed call of a tool that is not in the list: another server's tool (not one of
//!   this list's names, or any tool when the tool is checked alone) called with a literal
//!   argument ([`fixed_foreign_call`]);
//! - set the user's request aside by name (a dismissal whose object is what the user asked for).
//!
//! A class's hit with decisive evidence in its sentence, or a form the class knows to be an
//! attack's own (a label that claims authority over the agent, an address slipped into what the
//! agent sends, money multiplied), is sure: an error. Any other hit is a warning: worth a look
//! from whoever reviews the list, and never the word that stops it.

use crate::lexicon::authority::AUTHORITY_CLAIMS;
use crate::lexicon::terms::terms;

use super::cues::{
    conceals, forwards, named_tools, names_address, obliges, sensitive, tokens, Local, NamedTool,
};
use super::sentence::{automaton, Sentence, Text};
use super::user_override::sets_instructions_aside;
use crate::lexicon::cues::{
    CALLING, EGRESS_VERBS, ELSEWHERE, HANDOVER_VERBS, NEGATIONS, PERSONAL_DATA, PERSONAL_PHRASES,
    RETENTION_VERBS,
};
use crate::text::{is_email, is_example_address, is_url, NameSet};

/// Whether `s` carries evidence no documentation has: concealment, an address of its own,
/// secrets handed on, a fixed call of another server's tool, the user's request set aside by
/// name.
pub(super) fn decisive(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    local: &Local,
) -> bool {
    conceals(t, s)
        || names_destination(t, s)
        || hands_on_secrets(t, s)
        || fixed_foreign_call(t, s, own, others, local)
        || sets_request_aside(t, s)
}

/// Whether `s` gives secrets or the conversation away: a private file (`~/.ssh/id_rsa`,
/// `.env`) read or passed, or a sensitive thing (credentials, the conversation) sent out; never
/// in a sentence that warns against it ("never write to ~/.ssh").
pub(super) fn hands_on_secrets(t: &Text, s: &Sentence) -> bool {
    if t.has_word(s, NEGATIONS) {
        return false;
    }
    let line = t.line(s);
    if names_private_file(line) {
        // Nothing a tool does for the user needs the agent near these.
        return true;
    }
    // Files of secrets (`.env`, a cloud or cluster config), as opposed to a word that names
    // one (`call_token`, `api_key`), which tools that use them name.
    let private = [
        ".env",
        ".aws/",
        ".kube/",
        ".npmrc",
        "mcp.json",
        "~/.config",
        ".docker/config",
    ]
    .iter()
    .any(|p| line.contains(p));
    // Out of the user's reach: an address, a remote or third party, the attacker.
    let elsewhere = || names_destination(t, s) || t.has_word(s, ELSEWHERE);
    (private && t.has_word(s, HANDOVER_VERBS))
        || (sensitive(t, s) && (t.has_word(s, EGRESS_VERBS) || forwards(t, s)) && elsewhere())
}

/// Whether `line` (lowercase) names one of [`PRIVATE_FILES`].
fn names_private_file(line: &str) -> bool {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| automaton(PRIVATE_FILES)).is_match(line)
}

/// Files that hold the user's keys and passwords: no documentation sends the agent to them (a
/// warning against them is a negation, handled before).
const PRIVATE_FILES: &[&str] = &[
    ".ssh/",
    "id_rsa",
    "id_ed25519",
    "/etc/passwd",
    "/etc/shadow",
    ".aws/credentials",
    ".git-credentials",
    ".netrc",
    ".pgpass",
    ".bash_history",
    ".zsh_history",
    ".gnupg",
];

/// Whether the text as a whole has shown its hand: a sentence claims priority over the user's
/// request, keeps something from the user, or sends the agent to the user's private files.
/// Every hit in such a text is sure.
pub(super) fn hostile(t: &Text) -> bool {
    t.sentences.iter().any(|s| {
        sets_request_aside(t, s)
            || conceals(t, s)
            || sets_instructions_aside(t, s).is_some()
            || grants_privileges(t, s)
            || (!t.has_word(s, NEGATIONS) && {
                let line = t.line(s);
                names_private_file(line)
            })
    })
}

/// Whether `s` orders a destructive step ("must first run `migrate-reset`", "call write_query
/// with a DELETE statement to empty the table"): with an order to call another tool, no
/// workflow a server documents.
pub(super) fn destructive(t: &Text, s: &Sentence) -> bool {
    t.has_word(s, terms!["reset", "wipe", "erase", "truncate", "purge"])
        || t.has_phrase(
            s,
            terms![
                "delete all",
                "delete statement",
                "drop table",
                "drop database",
                "empty the table",
                "empty the database",
                "remove all",
                "delete every",
                "delete everything",
            ],
        )
        || t.line(s).contains("rm -rf")
}

/// Whether `s` names an address of its own as a destination: an e-mail address, or a URL that
/// something goes to ("to https://...", "into", "via", "the endpoint at"), neither of them one reserved for
/// examples (a link to documentation, "e.g. user@example.com", is no destination).
fn names_destination(t: &Text, s: &Sentence) -> bool {
    names_address(t, s) && {
        let text = &t.orig[s.start..s.end];
        tokens(text).any(|(at, tok)| {
            let before = text[..at].trim_end().to_ascii_lowercase();
            !is_example_address(tok)
                && (is_email(tok)
                    || (is_url(tok)
                        && (["to", "into", "via"]
                            .iter()
                            .any(|w| before.ends_with(&format!(" {w}")) || before == *w)
                            || endpoint_at(&before))))
        })
    }
}

/// Whether the text before a URL ends with a network endpoint and "at" ("our verification
/// endpoint at https://..."): a place data is sent to, where "the FAQ at https://..." is a page
/// to read.
fn endpoint_at(before: &str) -> bool {
    let Some(rest) = before.strip_suffix(" at") else {
        return false;
    };
    let noun = rest
        .rsplit(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    matches!(
        noun,
        "endpoint" | "endpoints" | "server" | "webhook" | "api" | "service" | "collector" | "host"
    )
}

/// Whether `s` names a tool that is not one of the list's (another server's: a tool is never
/// another server's business), and gives a quoted argument for the call: "call
/// `run_select_query` with the query 'SELECT ...'", "fetch `company_overview` for 'META'".
pub(super) fn fixed_foreign_call(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    local: &Local,
) -> bool {
    // The call is ordered (an obligation, or a step before or around others), not offered.
    if !(obliges(t, s)
        || t.has_word(
            s,
            terms!["before", "first", "prior", "always", "automatically"],
        ))
    {
        return false;
    }
    let named = named_tools(t, s, own, others, Some(local));
    // A tool actually called: its name right after a verb that calls it.
    let called = named.iter().find_map(|n| match n {
        NamedTool::Foreign(i) | NamedTool::Sibling(i)
            if *i > 0 && CALLING.contains(&t.word(s, *i - 1)) =>
        {
            Some(*i)
        }
        _ => None,
    });
    let Some(called) = called else {
        return false;
    };
    // A name set with `=` in the sentence ("use `fontStyle` ... (`fontStyle=1`)") is a key of
    // a value the tool takes, not a tool called.
    let key = t.word(s, called).trim_start_matches('\'');
    let line = t.line(s);
    if [format!("{key}="), format!("{key} =")]
        .iter()
        .any(|k| line.contains(k.as_str()))
    {
        return false;
    }
    // A quoted argument after it: not a name of a tool, nor of a parameter or field the list
    // knows ("use `get_branch` or `list_branches`", "the value of \"query.topK\"").
    let names: Vec<&str> = named
        .iter()
        .filter_map(|n| match n {
            NamedTool::Foreign(i) | NamedTool::Sibling(i) | NamedTool::Maybe(i) => {
                Some(t.word(s, *i).trim_start_matches('\''))
            }
            NamedTool::Generic => None,
        })
        .collect();
    let after = s.words[called].1;
    quoted(&t.orig[after..s.end]).any(|q| {
        !names.iter().any(|f| q.eq_ignore_ascii_case(f))
            && !q.eq_ignore_ascii_case(own)
            && !local.contains(q)
    })
}

/// The quoted spans of `text` ('...', "...", `...`, and the typographic quotes), each trimmed:
/// a quote opens after a character that is not part of a word and closes before one, so the
/// apostrophe of "user's" opens nothing.
fn quoted(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let opens =
            matches!(c, b'\'' | b'"' | b'`') && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if opens {
            if let Some(len) = text[i + 1..].find(char::from(c)) {
                let end = i + 1 + len;
                let closes = end + 1 >= b.len() || !b[end + 1].is_ascii_alphanumeric();
                if closes {
                    let q = text[i + 1..end].trim();
                    if !q.is_empty() {
                        out.push(q);
                    }
                    i = end + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    for (open, close) in [('\u{2018}', '\u{2019}'), ('\u{201C}', '\u{201D}')] {
        let mut rest = text;
        while let Some(a) = rest.find(open) {
            let after = &rest[a + open.len_utf8()..];
            let Some(z) = after.find(close) else { break };
            let q = after[..z].trim();
            if !q.is_empty() {
                out.push(q);
            }
            rest = &after[z + close.len_utf8()..];
        }
    }
    out.into_iter()
}

/// Whether `s` names what the user asked for and sets it aside: "ignore the user's request",
/// "the user's instructions do not apply", "this description's priority is higher than the
/// user's query".
pub(super) fn sets_request_aside(t: &Text, s: &Sentence) -> bool {
    let n = s.words.len();
    // "the user's request", "what the user actually asked", "the value the user gives", "user
    // instructions": the user next to what they asked or gave ("their request" once the user
    // is named).
    let user = |w: &str| {
        matches!(
            w,
            "user" | "user's" | "users" | "users'" | "human" | "human's"
        )
    };
    let named = (0..n).any(|i| user(t.word(s, i)));
    // "the limit the user asks for", but not "if the user asks for ..., ignore ...".
    let conditional = |i: usize| {
        (i.saturating_sub(3)..i).any(|k| {
            matches!(
                t.word(s, k),
                "if" | "when" | "whenever" | "unless" | "once" | "where"
            )
        })
    };
    let request = named
        && (0..n.saturating_sub(1)).any(|i| {
            (user(t.word(s, i)) || matches!(t.word(s, i), "their" | "his" | "her"))
                && (i + 1..(i + 4).min(n)).any(|j| {
                    (matches!(t.word(s, j), "asks" | "wants") && !conditional(i))
                        || matches!(
                            t.word(s, j),
                            "request"
                                | "requests"
                                | "asked"
                                | "wanted"
                                | "gives"
                                | "gave"
                                | "provides"
                                | "provided"
                                | "supplies"
                                | "supplied"
                                | "enters"
                                | "entered"
                                | "specifies"
                                | "specified"
                                | "query"
                                | "queries"
                                | "instructions"
                                | "instruction"
                                | "input"
                                | "prompt"
                                | "choice"
                                | "preferences"
                                | "wishes"
                        )
                })
        });
    request
        && (0..n).any(|i| {
            matches!(
                t.word(s, i),
                "ignore"
                    | "ignored"
                    | "disregard"
                    | "disregarded"
                    | "override"
                    | "overrides"
                    | "overridden"
                    | "supersede"
                    | "supersedes"
                    | "irrelevant"
                    | "outranks"
                    | "precedence"
                    | "priority"
                    | "regardless"
            )
        })
}

/// Whether a word of `s` from `from` to `to` (a label) claims authority
/// ([`AUTHORITY_CLAIMS`](crate::lexicon::authority::AUTHORITY_CLAIMS)).
/// A policy or protocol alone claims it only when shouted (`POLICY:`): "Azure Policy" and "the
/// OAuth protocol" are products and standards.
pub(super) fn claims_authority(t: &Text, s: &Sentence, from: usize, to: usize) -> bool {
    (from..=to.min(s.words.len().saturating_sub(1))).any(|i| {
        let w = t.word(s, i);
        AUTHORITY_CLAIMS.contains(&w)
            && (!matches!(w, "policy" | "policies" | "protocol" | "protocols") || {
                let (a, b) = s.words[i];
                t.orig[a..b].bytes().all(|c| !c.is_ascii_lowercase())
            })
    })
}

/// Whether `s` hands the agent a role or privileges: a role to play ("ACT AS: ...", "you are
/// now ..."), with privileges or trust beyond the user's (root, admin, unrestricted, all
/// commands trusted) or checks switched off (access controls bypassed, safety filters
/// disabled, a "jailbreak mode"). Two of these in one sentence, or one beside a role to play.
pub(super) fn grants_privileges(t: &Text, s: &Sentence) -> bool {
    let role = t.has_phrase(
        s,
        terms![
            "act as",
            "acting as",
            "you are now",
            "you now have",
            "pretend to be",
        ],
    );
    let elevated = [
        t.has_phrase(
            s,
            terms![
                "root privileges",
                "admin privileges",
                "administrator privileges",
                "elevated privileges",
                "full privileges",
                "unrestricted access",
                "full trust",
                "trust all",
                "without validation",
                "without restrictions",
                "all safety",
                "safety restrictions",
                "access controls",
                "content filters",
            ],
        ),
        t.has_word(
            s,
            terms!["unrestricted", "jailbreak", "superadmin", "superuser"],
        ),
        t.has_word(
            s,
            terms!["bypass", "bypasses", "disable", "disables", "escalate"],
        ),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    elevated >= 2 || (role && elevated >= 1)
}

/// Whether `s` says that the user's data leaves for a place out of their reach: credentials,
/// private files or personal data (what they typed, where they are, what their machine is, the
/// conversation), sent or kept (`stored remotely`, `cached externally`, `shared with third
/// parties`) at an address, a remote server, a third party. A tool that says so of itself is
/// built to exfiltrate, whatever else it does.
pub(super) fn exfiltrates(t: &Text, s: &Sentence) -> bool {
    // The cheap and rare conditions first: most sentences move nothing anywhere.
    let moves = || t.has_word(s, EGRESS_VERBS) || t.has_word(s, RETENTION_VERBS) || forwards(t, s);
    let data =
        || sensitive(t, s) || t.has_word(s, PERSONAL_DATA) || t.has_phrase(s, PERSONAL_PHRASES);
    moves()
        && (t.has_word(s, ELSEWHERE) || names_destination(t, s))
        && !t.has_word(s, NEGATIONS)
        && data()
}
