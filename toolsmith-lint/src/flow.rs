//! `toxic_flow`, the list rule: tools that together read private data, take in untrusted
//! content and send data out (the "lethal trifecta"). Text injected into the untrusted content
//! can then have the agent read the private data and send it away, without any single tool
//! being poisoned.
//!
//! Each tool's legs come from its declared MCP annotations where present (`openWorldHint: true`
//! with `readOnlyHint: true` reads the outside world; with `readOnlyHint: false` it acts on it)
//! and from its name, title and description otherwise: a reading verb with a private object
//! ("reads e-mails", "query the database"), a reading verb with an outside source ("fetch a
//! URL", "search the web", "list issues"), a sending verb ("send an e-mail", "post a message",
//! "upload"). A list where each leg has a tool (the same tool may stand in two) gets one finding.

use serde_json::Value;

use crate::doc::Node;
use crate::finding::Finding;
use crate::rules::severity_of;

/// The legs of one tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Legs {
    private: bool,
    untrusted: bool,
    sends: bool,
}

static READ_VERBS: WordSet = WordSet::new(&[
    "read",
    "reads",
    "reading",
    "get",
    "gets",
    "list",
    "lists",
    "search",
    "searches",
    "query",
    "queries",
    "fetch",
    "fetches",
    "retrieve",
    "retrieves",
    "access",
    "accesses",
    "open",
    "opens",
    "view",
    "views",
    "export",
    "exports",
    "download",
    "downloads",
    "browse",
    "browses",
    "scrape",
    "scrapes",
    "crawl",
    "crawls",
    "load",
    "loads",
    "returns",
    "return",
    "find",
    "finds",
    "lookup",
    "look",
    "inspect",
    "show",
    "shows",
    "check",
    "checks",
    "receive",
    "receives",
    "summarize",
    "summarizes",
]);

static PRIVATE_OBJECTS: WordSet = WordSet::new(&[
    "email",
    "emails",
    "e-mail",
    "e-mails",
    "inbox",
    "mailbox",
    "mail",
    "messages",
    "dm",
    "dms",
    "document",
    "documents",
    "database",
    "databases",
    "records",
    "customer",
    "customers",
    "contact",
    "contacts",
    "calendar",
    "notes",
    "drive",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "password",
    "passwords",
    "environment",
    "account",
    "accounts",
    "transactions",
    "payments",
    "medical",
    "health",
    "personal",
    "private",
    "chat",
    "chats",
    "conversation",
    "conversations",
    "files",
    "file",
    "repository",
    "repositories",
    "repo",
    "repos",
    "patient",
    "patients",
    "salary",
    "payroll",
    "invoice",
    "invoices",
    "orders",
    "profile",
    "profiles",
    "keys",
    "wallet",
    "balance",
    "history",
    "logs",
    "table",
    "tables",
    "sql",
    "crm",
    "tickets",
    "ticket",
    "employee",
    "employees",
]);

static UNTRUSTED_OBJECTS: WordSet = WordSet::new(&[
    "web",
    "webpage",
    "webpages",
    "url",
    "urls",
    "website",
    "websites",
    "internet",
    "page",
    "pages",
    "html",
    "rss",
    "feed",
    "feeds",
    "news",
    "issue",
    "issues",
    "comment",
    "comments",
    "email",
    "emails",
    "e-mail",
    "e-mails",
    "inbox",
    "messages",
    "tweet",
    "tweets",
    "posts",
    "reviews",
    "forum",
    "public",
    "untrusted",
    "third-party",
    "external",
    "online",
    "http",
    "https",
    "browser",
    "pr",
    "prs",
    "pull",
    "channel",
    "channels",
    "search",
    "results",
]);

static SEND_VERBS: WordSet = WordSet::new(&[
    "send",
    "sends",
    "sending",
    "email",
    "emails",
    "mail",
    "post",
    "posts",
    "upload",
    "uploads",
    "publish",
    "publishes",
    "share",
    "shares",
    "tweet",
    "tweets",
    "forward",
    "forwards",
    "notify",
    "notifies",
    "webhook",
    "reply",
    "replies",
    "comment",
    "submit",
    "submits",
    "push",
    "pushes",
    "transfer",
    "transfers",
    "message",
    "dm",
    "invite",
    "invites",
]);

/// Reading verbs that are no nouns: they read wherever they stand in the first sentence.
static READ_ONLY_VERBS: WordSet = WordSet::new(&[
    "reads",
    "fetches",
    "retrieves",
    "downloads",
    "scrapes",
    "crawls",
    "browses",
    "queries",
    "searches",
    "lists",
]);

/// Sending verbs that are no nouns ("sends", not "e-mails" or "posts", which may be what a tool
/// reads).
static SEND_ONLY_VERBS: WordSet = WordSet::new(&[
    "send",
    "sends",
    "sending",
    "upload",
    "uploads",
    "publish",
    "publishes",
    "forward",
    "forwards",
    "notify",
    "notifies",
    "submit",
    "submits",
    "transmit",
    "transmits",
    "webhook",
    "webhooks",
]);

/// What a created thing is when others can read it: creating one sends data out.
static PUBLIC_OBJECTS: WordSet = WordSet::new(&[
    "public", "gist", "issue", "comment", "post", "tweet", "paste", "pastebin", "message",
    "webpage", "page", "pr",
]);

/// The lowercase words of a text (letters, digits, `-` and `_`).
fn words(text: &str) -> Words {
    let mut lower = String::with_capacity(text.len());
    let mut spans = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')) {
        if w.is_empty() {
            continue;
        }
        // `send_email` reads as "send email".
        for part in w.split('_') {
            let start = lower.len();
            if part.is_ascii() {
                lower.push_str(part);
                lower[start..].make_ascii_lowercase();
            } else {
                lower.push_str(&part.to_lowercase());
            }
            spans.push((start, lower.len()));
        }
    }
    Words { lower, spans }
}

/// The lowercase words of a text, in one buffer.
struct Words {
    lower: String,
    spans: Vec<(usize, usize)>,
}

impl Words {
    fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans.iter().map(|&(a, b)| &self.lower[a..b])
    }
}

/// The first of [`words`] of `text`.
fn first_word(text: &str) -> Option<String> {
    let w = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .find(|w| !w.is_empty())?;
    Some(w.split('_').next().unwrap_or_default().to_lowercase())
}

/// A word list, looked up through a hash set built on first use.
struct WordSet {
    list: &'static [&'static str],
    set: std::sync::OnceLock<crate::text::FastSet<&'static str>>,
}

impl WordSet {
    const fn new(list: &'static [&'static str]) -> WordSet {
        WordSet {
            list,
            set: std::sync::OnceLock::new(),
        }
    }

    fn contains(&self, w: &str) -> bool {
        self.set
            .get_or_init(|| self.list.iter().copied().collect())
            .contains(w)
    }
}

fn any(ws: &[&str], set: &WordSet) -> bool {
    ws.iter().any(|w| set.contains(w))
}

fn any_of(ws: &[&str], list: &[&str]) -> bool {
    ws.iter().any(|w| list.contains(w))
}

/// The legs of a tool from its text: its name, title and description.
fn legs_of_text(name: &str, title: &str, description: &str) -> Legs {
    // The description's first sentence says what the tool does; later sentences may mention
    // other things ("returns an error if the file is private").
    let first = description.split(['.', '\n']).next().unwrap_or_default();
    let all = words(&format!("{name} {title} {first}"));
    let ws: Vec<&str> = all.iter().collect();
    // The verbs: the first word of the name (`send_email`), of the title and of the first
    // sentence ("Sends ..."); the objects may stand anywhere in them.
    let firsts = [first_word(name), first_word(title), first_word(first)];
    let verbs: Vec<&str> = firsts.iter().flatten().map(String::as_str).collect();
    let reads = any(&verbs, &READ_VERBS) || any(&ws, &READ_ONLY_VERBS);
    let sends = any(&verbs, &SEND_VERBS)
        || any(&ws, &SEND_ONLY_VERBS)
        || ws.windows(2).any(|p| {
            matches!(
                (p[0], p[1]),
                ("http", "request")
                    | ("http", "post")
                    | ("make", "request")
                    | ("create", "issue")
                    | ("create", "comment")
                    | ("create", "message")
                    | ("create", "post")
            )
        });
    let creates = any_of(
        &verbs,
        &["create", "creates", "make", "makes", "open", "opens"],
    );
    let sends = sends || (creates && any(&ws, &PUBLIC_OBJECTS));
    // A request to any URL brings its response back: the outside world read.
    let answers = any_of(&ws, &["returns", "response", "responses"]);
    Legs {
        private: reads && any(&ws, &PRIVATE_OBJECTS),
        untrusted: (reads || (sends && answers)) && any(&ws, &UNTRUSTED_OBJECTS),
        sends,
    }
}

/// The legs of one tool definition.
fn legs(
    name: &str,
    title: &str,
    description: &str,
    read_only: Option<bool>,
    open_world: Option<bool>,
) -> Legs {
    let mut l = legs_of_text(name, title, description);
    match (open_world, read_only) {
        // Declared closed: nothing from or to the outside, whatever the text says.
        (Some(false), _) => {
            l.untrusted = false;
            l.sends = false;
        }
        (Some(true), Some(true)) => {
            l.untrusted = true;
            l.sends = false;
        }
        (Some(true), Some(false)) => l.sends = true,
        (_, Some(true)) => l.sends = false,
        _ => {}
    }
    l
}

/// The finding for a list whose legs are all present, naming the tools of each.
fn finding(names_and_legs: &[(String, Legs)]) -> Option<Finding> {
    let pick = |f: fn(&Legs) -> bool| -> Vec<&str> {
        names_and_legs
            .iter()
            .filter(|(_, l)| f(l))
            .map(|(n, _)| n.as_str())
            .collect()
    };
    let private = pick(|l| l.private);
    let untrusted = pick(|l| l.untrusted);
    let sends = pick(|l| l.sends);
    if private.is_empty() || untrusted.is_empty() || sends.is_empty() {
        return None;
    }
    let show = |v: &[&str]| {
        let mut s = v.iter().take(5).copied().collect::<Vec<_>>().join(", ");
        if v.len() > 5 {
            s.push_str(&format!(" and {} more", v.len() - 5));
        }
        s
    };
    Some(Finding {
        rule: "toxic_flow",
        severity: severity_of("toxic_flow"),
        tool: String::new(),
        pointer: String::new(),
        message: format!(
            "the list reads private data ({}), takes in untrusted content ({}) and sends data out ({}): text injected into the untrusted content can have the agent send the private data away; require approval for the sending tools or split the list",
            show(&private),
            show(&untrusted),
            show(&sends)
        ),
        span: None,
    })
}

/// `toxic_flow` over a list of tool definitions: one finding (for the whole list: its `tool`
/// and `pointer` are empty) when the list reads private data, takes in untrusted content and
/// sends data out, naming the tools of each leg.
///
/// ```
/// let tools = vec![
///     serde_json::json!({"name": "read_inbox", "description": "Reads the user's e-mails. Returns the newest 20."}),
///     serde_json::json!({"name": "send_email", "description": "Sends an e-mail. Returns its id."}),
/// ];
/// let f = toolsmith_lint::toxic_flow(&tools).unwrap();
/// assert_eq!(f.rule, "toxic_flow");
/// assert!(f.message.contains("(read_inbox)"));
/// ```
pub fn toxic_flow(tools: &[Value]) -> Option<Finding> {
    let arena = bumpalo::Bump::new();
    let nodes: Vec<Node<'_>> = tools.iter().map(|t| Node::from_value(t, &arena)).collect();
    toxic_flow_nodes(&nodes)
}

/// [`toxic_flow`] on tool definitions read as borrowed [`Node`]s.
pub fn toxic_flow_nodes(tools: &[Node<'_>]) -> Option<Finding> {
    fn str_of<'a>(t: &Node<'a>, k: &str) -> &'a str {
        t.get(k).and_then(Node::as_str).unwrap_or_default()
    }
    let hint = |t: &Node<'_>, k: &str| {
        t.get("annotations")
            .and_then(|a| a.get(k))
            .and_then(Node::as_bool)
    };
    let all: Vec<(String, Legs)> = tools
        .iter()
        .map(|t| {
            let name = str_of(t, "name");
            (
                name.to_string(),
                legs(
                    name,
                    str_of(t, "title"),
                    str_of(t, "description"),
                    hint(t, "readOnlyHint"),
                    hint(t, "openWorldHint"),
                ),
            )
        })
        .collect();
    finding(&all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_from_text() {
        let l = legs_of_text(
            "fetch_url",
            "",
            "Fetches a web page. Returns it as markdown.",
        );
        assert!(l.untrusted && !l.private);
        let l = legs_of_text("read_inbox", "", "Reads the user's e-mails.");
        assert!(l.private && l.untrusted && !l.sends);
        let l = legs_of_text("send_email", "", "Sends an e-mail to the address given.");
        assert!(l.sends);
        let l = legs_of_text("get_sum", "", "Returns the sum of two numbers.");
        assert_eq!(l, Legs::default());
    }

    #[test]
    fn annotations_win_over_text() {
        let l = legs("post_note", "", "Posts a note.", Some(false), Some(false));
        assert!(!l.sends);
        let l = legs("x", "", "Does x.", Some(true), Some(true));
        assert!(l.untrusted && !l.sends);
        let l = legs("x", "", "Does x.", Some(false), Some(true));
        assert!(l.sends);
    }
}
