//! The quality rules of [`crate::quality`] on one tool definition: a description read once for
//! its components (`states_purpose`, `says_when_to_use`, `states_limits`) and the parameters'
//! explanations (`explains_parameters`). The lint pass runs them when the quality rules are on.

use std::borrow::Cow;

use crate::doc::{Node, Obj};
use crate::text::{to_snake_case, Words};
use crate::verbs::VERBS;

/// Own words (beyond the tool's name, see [`Reading::own`]) a description needs for
/// `states_purpose`: an action, its object, and a few words of how it behaves or what comes back.
const PURPOSE_WORDS: usize = 5;

/// What one pass over a description's words finds.
#[derive(Debug, Default, PartialEq, Eq)]
struct Reading {
    /// Distinct content words the tool's name does not hold (counted up to [`PURPOSE_WORDS`]);
    /// a run of ideographs, written without spaces, counts one word per two characters.
    own: usize,
    /// Whether a word is a verb (in any of its forms), or the text is written in ideographs.
    action: bool,
    /// Whether a phrase says when to use the tool, when not to, or what to use instead.
    when: bool,
    /// Whether a word or phrase states a limit, a caveat or what the tool does not do.
    limits: bool,
    /// Whether most letters of the text are Latin: the cue words of `when` and `limits` are
    /// English, and say nothing of a text in another script.
    latin: bool,
}

/// Word classes of [`CUES`] (bits).
const FUNCTION: u32 = 1;
/// Adjectives of fitness before "for"/"when": "useful for", "best when", "ideal for".
const FIT: u32 = 1 << 1;
/// Verbs of using a tool: "use", "call", "invoke", ...
const USE: u32 = 1 << 2;
/// What makes a use-verb guidance: "use when", "use for", "use instead", "use only", ...
const CONDITION: u32 = 1 << 3;
/// Words skipped between a use-verb and its condition: "use this tool when".
const SKIP: u32 = 1 << 4;
/// Conjunctions of a situation: "when", "if", "whenever", "once", "unless".
const WHEN: u32 = 1 << 5;
/// Who or what the situation is about: "when you need", "if the user asks".
const AGENT: u32 = 1 << 6;
/// Negations that turn a use into a "when not": "not for", "never use", "avoid".
const NOT: u32 = 1 << 7;
/// What a negation turns away: "not for", "not recommended", "don't use".
const NOT_WHAT: u32 = 1 << 8;
/// Words that name an alternative: "instead", "unlike", "prefer".
const ALTERNATIVE: u32 = 1 << 9;
/// Words that name a place in a workflow: "prerequisite", "workflow".
const WORKFLOW: u32 = 1 << 10;
/// Sequence words before a use: "before using", "after calling".
const SEQUENCE: u32 = 1 << 11;
/// Forms of a use after a sequence word: "using", "calling", "call", ...
const USING: u32 = 1 << 12;
/// A limit wherever it stands: "only", "cannot", "maximum", "fails", "unless", "except", ...
const LIMIT: u32 = 1 << 13;
/// A caveat label that opens a sentence: "Note:", "Warning:", "Important:".
const CAVEAT: u32 = 1 << 14;
/// Nouns after "use"/"usage" that head a list of uses: "use cases", "usage scenarios".
const USES: u32 = 1 << 15;
/// Modal verbs before a passive use: "should be used", "can be called".
const MODAL: u32 = 1 << 16;

/// The words the quality rules read, each with its classes (sorted, to be read).
const CUES: &[(&str, u32)] = &[
    ("a", FUNCTION),
    ("about", FUNCTION),
    ("above", FUNCTION),
    ("across", FUNCTION),
    ("after", FUNCTION | CONDITION | SEQUENCE),
    ("agent", AGENT),
    ("all", FUNCTION),
    ("also", FUNCTION),
    ("alternatively", ALTERNATIVE),
    ("an", FUNCTION),
    ("and", FUNCTION),
    ("any", FUNCTION),
    ("api", FUNCTION),
    ("applicable", NOT_WHAT),
    ("appropriate", FIT | NOT_WHAT),
    ("approximate", LIMIT),
    ("approximately", LIMIT),
    ("are", FUNCTION),
    ("aren't", FUNCTION | LIMIT),
    ("as", FUNCTION),
    ("assistant", AGENT),
    ("at", FUNCTION),
    ("avoid", NOT),
    ("be", FUNCTION),
    ("been", FUNCTION),
    ("before", FUNCTION | CONDITION | SEQUENCE),
    ("being", FUNCTION),
    ("best", FIT),
    ("beware", LIMIT),
    ("both", FUNCTION),
    ("but", FUNCTION),
    ("by", FUNCTION),
    ("call", USE | USING | NOT_WHAT),
    ("called", USE),
    ("calling", USE | USING | NOT_WHAT),
    ("can", FUNCTION | MODAL),
    ("can't", FUNCTION | LIMIT),
    ("cannot", FUNCTION | LIMIT),
    ("capped", LIMIT),
    ("careful", LIMIT),
    ("case", USES),
    ("cases", USES),
    ("caution", CAVEAT),
    ("caveat", CAVEAT | LIMIT),
    ("caveats", CAVEAT | LIMIT),
    ("choose", USE),
    ("could", FUNCTION | MODAL),
    ("deprecated", LIMIT),
    ("designed", FIT | NOT_WHAT),
    ("did", FUNCTION),
    ("didn't", FUNCTION | LIMIT),
    ("do", FUNCTION),
    ("does", FUNCTION),
    ("doesn't", FUNCTION | NOT | LIMIT),
    ("don't", FUNCTION | NOT | LIMIT),
    ("each", FUNCTION),
    ("essential", FIT),
    ("every", FUNCTION),
    ("exceed", LIMIT),
    ("exceeding", LIMIT),
    ("exceeds", LIMIT),
    ("except", LIMIT),
    ("exclude", LIMIT),
    ("excluded", LIMIT),
    ("excludes", LIMIT),
    ("excluding", LIMIT),
    ("exclusively", LIMIT),
    ("experimental", LIMIT),
    ("fail", LIMIT),
    ("failed", LIMIT),
    ("fails", LIMIT),
    ("failure", LIMIT),
    ("for", FUNCTION | CONDITION | NOT_WHAT),
    ("from", FUNCTION),
    ("function", FUNCTION | SKIP),
    ("given", FUNCTION),
    ("good", FIT),
    ("great", FIT),
    ("had", FUNCTION),
    ("handy", FIT),
    ("has", FUNCTION),
    ("have", FUNCTION),
    ("helpful", FIT),
    ("her", FUNCTION),
    ("his", FUNCTION),
    ("ideal", FIT),
    ("ideally", FIT),
    ("if", FUNCTION | CONDITION | WHEN),
    ("important", CAVEAT),
    ("in", FUNCTION),
    ("instead", ALTERNATIVE | CONDITION),
    ("intended", FIT | NOT_WHAT),
    ("into", FUNCTION),
    ("invoke", USE),
    ("invoked", USE),
    ("invoking", USING),
    ("is", FUNCTION),
    ("isn't", FUNCTION | LIMIT),
    ("it", FUNCTION | SKIP),
    ("its", FUNCTION),
    ("limit", LIMIT),
    ("limitation", LIMIT),
    ("limitations", LIMIT),
    ("limited", LIMIT),
    ("limits", LIMIT),
    ("max", LIMIT),
    ("maximum", LIMIT),
    ("may", FUNCTION | MODAL),
    ("mcp", FUNCTION),
    ("meant", FIT | NOT_WHAT),
    ("method", FUNCTION),
    ("might", FUNCTION | MODAL),
    ("min", LIMIT),
    ("minimum", LIMIT),
    ("must", FUNCTION | LIMIT | MODAL),
    ("necessary", AGENT),
    ("needed", AGENT | NOT_WHAT),
    ("neither", LIMIT),
    ("never", FUNCTION | NOT | LIMIT),
    ("no", FUNCTION | NOT),
    ("nor", FUNCTION | LIMIT),
    ("not", FUNCTION | NOT | LIMIT),
    ("note", CAVEAT),
    ("of", FUNCTION),
    ("on", FUNCTION),
    ("once", FUNCTION | CONDITION | WHEN),
    ("one", FUNCTION | SKIP),
    ("only", FUNCTION | CONDITION | LIMIT),
    ("onto", FUNCTION),
    ("optimised", FIT),
    ("optimized", FIT),
    ("optional", FUNCTION),
    ("optionally", FUNCTION),
    ("or", FUNCTION),
    ("otherwise", LIMIT),
    ("our", FUNCTION),
    ("over", FUNCTION),
    ("paginated", LIMIT),
    ("per", FUNCTION),
    ("perfect", FIT),
    ("pick", USE),
    ("prefer", ALTERNATIVE),
    ("preferable", ALTERNATIVE),
    ("preferred", FIT | ALTERNATIVE),
    ("prerequisite", WORKFLOW),
    ("prerequisites", WORKFLOW),
    ("provided", FUNCTION),
    ("recommended", FIT | NOT_WHAT),
    ("require", LIMIT),
    ("requirement", LIMIT),
    ("requirements", LIMIT),
    ("requires", LIMIT),
    ("restrict", LIMIT),
    ("restricted", LIMIT),
    ("restriction", LIMIT),
    ("restrictions", LIMIT),
    ("restricts", LIMIT),
    ("running", USING),
    ("scenario", USES),
    ("scenarios", USES),
    ("server", FUNCTION),
    ("shall", FUNCTION | MODAL),
    ("should", FUNCTION | MODAL),
    ("so", FUNCTION),
    ("solely", LIMIT),
    ("some", FUNCTION),
    ("specific", FUNCTION),
    ("specified", FUNCTION),
    ("such", FUNCTION),
    ("suitable", FIT | NOT_WHAT),
    ("suited", FIT),
    ("than", FUNCTION),
    ("that", FUNCTION),
    ("the", FUNCTION | SKIP),
    ("their", FUNCTION),
    ("them", FUNCTION),
    ("then", FUNCTION),
    ("these", FUNCTION),
    ("they", FUNCTION),
    ("this", FUNCTION | SKIP),
    ("those", FUNCTION),
    ("through", FUNCTION),
    ("timeout", LIMIT),
    ("to", FUNCTION),
    ("tool", FUNCTION | SKIP),
    ("tools", FUNCTION),
    ("truncate", LIMIT),
    ("truncated", LIMIT),
    ("truncates", LIMIT),
    ("unable", LIMIT),
    ("under", FUNCTION),
    ("unless", FUNCTION | WHEN | LIMIT),
    ("unlike", ALTERNATIVE),
    ("unsupported", LIMIT),
    ("upon", FUNCTION),
    ("usage", USES),
    ("use", USE | USING | NOT_WHAT),
    ("used", FUNCTION | USE),
    ("useful", FIT),
    ("user", AGENT),
    ("users", AGENT),
    ("uses", FUNCTION),
    ("using", FUNCTION | USE | USING | NOT_WHAT),
    ("various", FUNCTION),
    ("via", FUNCTION),
    ("warning", CAVEAT),
    ("was", FUNCTION),
    ("we", FUNCTION),
    ("were", FUNCTION),
    ("when", FUNCTION | CONDITION | WHEN),
    ("whenever", FUNCTION | CONDITION | WHEN),
    ("whether", FUNCTION),
    ("which", FUNCTION),
    ("while", FUNCTION),
    ("who", FUNCTION),
    ("will", FUNCTION),
    ("with", FUNCTION | CONDITION),
    ("within", FUNCTION),
    ("without", FUNCTION),
    ("won't", FUNCTION | LIMIT),
    ("workflow", WORKFLOW),
    ("would", FUNCTION | MODAL),
    ("you", FUNCTION | AGENT),
    ("your", FUNCTION | AGENT),
];

/// The classes of a lowercase word (0 for a word of no class), from a hash table of [`CUES`]
/// built on first use.
fn classes(word: &str) -> u32 {
    static TABLE: std::sync::OnceLock<crate::text::FastMap<&'static str, u32>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| CUES.iter().copied().collect());
    if word.len() > LONGEST_CUE {
        return 0;
    }
    table.get(word).copied().unwrap_or(0)
}

/// The length of the longest word of [`CUES`].
const LONGEST_CUE: usize = 13;

/// Whether a character is an ideograph or kana: text in those scripts has no spaces between
/// its words.
fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// A word without the endings of its plural and third person, and a final `e`: `retrieves`,
/// `retrieve` and `retrieved`'s stem `retriev` compare equal, as do `search` and `searches`.
fn stem(word: &str) -> &str {
    let mut w = word;
    for end in ["ing", "ed", "s", "e"] {
        if w.len() > end.len() + 2 {
            if let Some(s) = w.strip_suffix(end) {
                w = s;
            }
        }
    }
    w
}

/// Whether a lowercase word is a verb of [`VERBS`] in one of its forms (`list`, `lists`,
/// `listed`, `listing`, `retrieves`, `making`, `copies`, `stopped`).
fn is_verb_form(word: &str) -> bool {
    let known = |w: &str| VERBS.binary_search(&w).is_ok();
    if known(word) {
        return true;
    }
    let mut base = String::new();
    for (end, add) in [
        ("ies", "y"),
        ("ied", "y"),
        ("es", ""),
        ("s", ""),
        ("ed", ""),
        ("ed", "e"),
        ("ing", ""),
        ("ing", "e"),
    ] {
        if let Some(stem) = word.strip_suffix(end).filter(|s| s.len() >= 2) {
            base.clear();
            base.push_str(stem);
            base.push_str(add);
            if known(&base) {
                return true;
            }
            // A doubled final consonant: `stopped`, `running`.
            let b = stem.as_bytes();
            if add.is_empty()
                && b.len() >= 3
                && b[b.len() - 1] == b[b.len() - 2]
                && known(&stem[..stem.len() - 1])
            {
                return true;
            }
        }
    }
    false
}

/// Whether word `i` of an ASCII `text` is part of a path, a URL or an identifier rather than
/// prose: `_`, `/`, `{`, `$` or `\\` before or `_`, `/`, `}` or `(` after it, or a `.` between
/// it and a letter or digit (`file.json`, `api.example.com`).
fn is_code(text: &[u8], (start, len): (usize, usize)) -> bool {
    let before = start.checked_sub(1).map(|k| text[k]);
    let after = text.get(start + len).copied();
    let dotted = |k: Option<usize>| {
        k.and_then(|k| text.get(k))
            .is_some_and(u8::is_ascii_alphanumeric)
    };
    matches!(before, Some(b'_' | b'/' | b'{' | b'$' | b'\\'))
        || matches!(after, Some(b'_' | b'/' | b'}' | b'('))
        || (before == Some(b'.') && dotted(start.checked_sub(2)))
        || (after == Some(b'.') && dotted(Some(start + len + 1)))
}

/// Reads a description's words once for the description components; `text` is the description
/// and `name` the tool's name.
fn read(text: &str, ws: &Words, name: &str) -> Reading {
    // Every word lowercased, one after the other in one buffer.
    let mut buf = String::with_capacity(text.len());
    let mut ends: Vec<(u32, u32)> = Vec::with_capacity(ws.len());
    for i in 0..ws.len() {
        let start = buf.len() as u32;
        ws.push_lower(i, &mut buf);
        ends.push((start, buf.len() as u32));
    }
    let words: Vec<&str> = ends
        .iter()
        .map(|&(a, b)| &buf[a as usize..b as usize])
        .collect();
    let ascii = text.is_ascii();
    let class: Vec<u32> = words.iter().map(|w| classes(w)).collect();
    let snake = to_snake_case(name);
    let name_stems: Vec<&str> = snake.split('_').map(stem).collect();
    let mut r = Reading::default();
    let mut own: Vec<&str> = Vec::with_capacity(PURPOSE_WORDS);
    let (mut latin, mut other) = (0usize, 0usize);
    let at = |i: usize| class.get(i).copied().unwrap_or(0);
    let word = |i: usize| words.get(i).copied().unwrap_or("");
    // The class of the first word of the current sentence, and whether it holds a use-verb.
    let mut opens_with_for = false;
    for (i, &w) in words.iter().enumerate() {
        let c = class[i];
        if ws.sentence_start(i) {
            opens_with_for = w == "for";
        }
        // Script (an ASCII word has no ideograph and one character a byte).
        let mut ideographs = 0usize;
        let chars = if ascii || w.is_ascii() {
            latin += w.len();
            w.len()
        } else {
            let mut n = 0;
            for ch in w.chars() {
                n += 1;
                if is_ideograph(ch) {
                    ideographs += 1;
                }
                if (ch as u32) < 0x250 {
                    latin += 1;
                } else {
                    other += 1;
                }
            }
            n
        };
        // Purpose: the action, and the words of its own (prose, not paths or identifiers).
        if ideographs > 0 {
            r.action = true;
            r.own += ideographs.div_ceil(2);
        } else if c & FUNCTION == 0
            && chars > 1
            && !w.bytes().all(|b| b.is_ascii_digit())
            && !(ascii && is_code(text.as_bytes(), ws.span(i, i)))
        {
            let s = stem(w);
            if r.own < PURPOSE_WORDS && !name_stems.contains(&s) && !own.contains(&s) {
                own.push(s);
                r.own += 1;
            }
            if !r.action && is_verb_form(w) {
                r.action = true;
            }
        }
        // When to use it, when not, what instead.
        if !r.when {
            let next = at(i + 1);
            r.when = (c & FIT != 0
                && matches!(
                    word(i + 1),
                    "for" | "when" | "if" | "to" | "in" | "with" | "as"
                ))
                || (c & USE != 0 && {
                    let mut j = i + 1;
                    while j < words.len() && j <= i + 3 && at(j) & SKIP != 0 {
                        j += 1;
                    }
                    at(j) & CONDITION != 0 || (j > i + 1 && word(j) == "to")
                })
                || (c & (WHEN | SEQUENCE) != 0
                    && (next & AGENT != 0 || (next & SKIP != 0 && at(i + 2) & AGENT != 0)))
                || (matches!(w, "used" | "called")
                    && i >= 2
                    && word(i - 1) == "be"
                    && at(i - 2) & MODAL != 0)
                || (w == "when" && word(i + 1) == "to" && at(i + 2) & USE != 0)
                || (c & NOT != 0
                    && next & NOT_WHAT != 0
                    && !(word(i + 1) == "for" && matches!(word(i + 2), "example" | "instance")))
                || (c & ALTERNATIVE != 0)
                || (w == "rather" && word(i + 1) == "than")
                || (c & SEQUENCE != 0 && next & USING != 0)
                || (c & WORKFLOW != 0)
                || (matches!(w, "use" | "usage") && next & USES != 0)
                || (opens_with_for && c & USE != 0 && !ws.sentence_start(i));
        }
        // Limits.
        if !r.limits {
            // "not only" adds, it does not limit.
            let not_only = (w == "only" && i > 0 && word(i - 1) == "not")
                || (w == "not" && word(i + 1) == "only");
            r.limits = (c & LIMIT != 0 && !not_only)
                || (c & CAVEAT != 0 && ws.sentence_start(i))
                || (w == "up" && word(i + 1) == "to")
                || (w == "at" && matches!(word(i + 1), "most" | "least"))
                || (w == "no" && matches!(word(i + 1), "more" | "longer"));
        }
    }
    r.latin = latin >= other;
    r
}

/// The findings of the description components (`states_purpose`, `says_when_to_use`,
/// `states_limits`) on one description (`text`, split into `ws`) of the tool `name`: each
/// missing component's rule and message, in the rule table's order.
pub(crate) fn description(text: &str, ws: &Words, name: &str) -> Vec<(&'static str, String)> {
    let r = read(text, ws, name);
    [
        ("states_purpose", states_purpose(&r)),
        ("says_when_to_use", says_when_to_use(&r)),
        ("states_limits", states_limits(&r)),
    ]
    .into_iter()
    .filter_map(|(rule, message)| Some((rule, message?)))
    .collect()
}

/// `states_purpose`: what is missing of the purpose in a [`Reading`], as a message.
fn states_purpose(r: &Reading) -> Option<String> {
    if r.own < PURPOSE_WORDS {
        let n = r.own;
        Some(format!(
            "the description says little beyond the tool's name ({n} word{} of its own); say what the tool does, to what, and how it behaves or what comes back",
            if n == 1 { "" } else { "s" }
        ))
    } else if !r.action {
        Some("the description names no action; say what the tool does (a verb), to what, and what comes back".to_string())
    } else {
        None
    }
}

/// `says_when_to_use`: the message when a [`Reading`] of an English text holds no guidance.
fn says_when_to_use(r: &Reading) -> Option<String> {
    (r.latin && !r.when).then(|| "the description does not say when to use the tool; add when it fits and, where another tool fits better, what to use instead (\"Use it when ...\", \"For ..., use ... instead\")".to_string())
}

/// `states_limits`: the message when a [`Reading`] of an English text states no limit.
fn states_limits(r: &Reading) -> Option<String> {
    (r.latin && !r.limits).then(|| "the description states no limits; add what the tool does not do, its bounds (\"at most 100 results\", \"only public repositories\") or when it fails".to_string())
}

/// Whether a parameter's description says more than its name: a content word the name does not
/// hold (or any ideograph). Most descriptions answer at their first or second word, so the words
/// are read one by one, without splitting the text first.
fn says_more(text: &str, name: &str) -> bool {
    let mut snake = None;
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .any(|w| {
            if w.chars().any(is_ideograph) {
                return true;
            }
            let w: Cow<'_, str> = if w.chars().any(char::is_uppercase) {
                Cow::Owned(w.to_lowercase())
            } else {
                Cow::Borrowed(w)
            };
            if classes(&w) & FUNCTION != 0
                || w.chars().count() < 2
                || w.bytes().all(|b| b.is_ascii_digit())
            {
                return false;
            }
            let snake: &String = snake.get_or_insert_with(|| to_snake_case(name));
            let s = stem(&w);
            !snake.split('_').any(|n| stem(n) == s)
        })
}

/// Whether `text` names `name` as a word of its own (case aside): not inside a longer identifier.
fn names(text: &str, name: &str) -> bool {
    let (t, n) = (text.as_bytes(), name.as_bytes());
    if n.is_empty() || n.len() > t.len() {
        return false;
    }
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    (0..=t.len() - n.len()).any(|at| {
        t[at..at + n.len()].eq_ignore_ascii_case(n)
            && (at == 0 || !ident(t[at - 1]))
            && t.get(at + n.len()).is_none_or(|&b| !ident(b))
    })
}

/// The keys of a schema that give a value's format: its type, its values, its shape.
const FORMAT_KEYS: [&str; 10] = [
    "type",
    "enum",
    "const",
    "format",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
    "items",
    "properties",
];

/// `explains_parameters`: each top-level parameter's meaning (its description says more than its
/// name, or the tool's description names it) and its format (its schema gives a type); the
/// message naming those that are not explained, if any.
pub(crate) fn explains_parameters(obj: Obj<'_>) -> Option<String> {
    let schema = obj.get("inputSchema").filter(|s| s.is_object())?;
    let props = schema.get("properties").and_then(Node::as_object)?;
    let description = obj.get("description").and_then(Node::as_str).unwrap_or("");
    let mut unexplained: Vec<&str> = Vec::new();
    for (name, p) in props.iter() {
        let Some(po) = p.as_object() else {
            unexplained.push(name);
            continue;
        };
        let format = FORMAT_KEYS.iter().any(|k| po.contains_key(k));
        let explained = (format
            && crate::schema::effective_description(schema, p).is_some_and(|d| says_more(d, name)))
            || names(description, name);
        if !explained {
            unexplained.push(name);
        }
    }
    if unexplained.is_empty() {
        return None;
    }
    let shown: Vec<String> = unexplained
        .iter()
        .take(3)
        .map(|n| format!("{n:?}"))
        .collect();
    let more = unexplained.len() - shown.len();
    let list = match (shown.len(), more) {
        (1, _) => shown[0].clone(),
        (_, 0) => format!(
            "{} and {}",
            shown[..shown.len() - 1].join(", "),
            shown[shown.len() - 1]
        ),
        _ => format!("{} and {more} more", shown.join(", ")),
    };
    Some(if unexplained.len() == 1 {
        format!("parameter {list} is not explained; say what it means and its format, in its schema description or in the tool's description")
    } else {
        format!("parameters {list} are not explained; say what each means and its format, in its schema description or in the tool's description")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LintConfig;
    use crate::quality::{is_component, lint_definition};
    use serde_json::{json, Value};

    fn reading(text: &str, name: &str) -> Reading {
        read(text, &Words::new(text), name)
    }

    /// The rules of the description components that fire on a tool.
    fn fired(name: &str, description: &str) -> Vec<&'static str> {
        let tool = json!({"name": name, "description": description});
        lint_definition(&tool, &LintConfig::default())
            .into_iter()
            .map(|f| f.rule)
            .filter(|r| is_component(r))
            .collect()
    }

    #[test]
    fn cues_are_sorted_and_unique() {
        assert!(CUES.windows(2).all(|w| w[0].0 < w[1].0));
        for (w, c) in CUES {
            assert_eq!(w.to_lowercase(), *w);
            assert!(w.len() <= LONGEST_CUE, "{w}");
            assert_eq!(classes(w), *c);
        }
        assert_eq!(CUES.iter().map(|(w, _)| w.len()).max(), Some(LONGEST_CUE));
    }

    #[test]
    fn purpose_needs_words_beyond_the_name() {
        // The name restated, or one short clause: too little.
        assert_eq!(reading("Gets the invoice.", "get_invoice").own, 0);
        assert!(fired("get_invoice", "Gets the invoice.").contains(&"states_purpose"));
        assert!(fired("send_sms", "Send an SMS message to a phone.").contains(&"states_purpose"));
        // What it does, to what, and what comes back.
        let good = "Send an SMS message to a phone number through the carrier gateway; returns the delivery receipt id.";
        assert!(!fired("send_sms", good).contains(&"states_purpose"));
        let r = reading(good, "send_sms");
        assert!(r.action && r.own >= PURPOSE_WORDS);
    }

    #[test]
    fn paths_and_identifiers_are_not_words_of_its_own() {
        let api = "Make a GET request to /v1/accounts/{account_sid}/addresses.json";
        assert_eq!(reading(api, "list_addresses").own, 3, "make, get, request");
        assert!(is_code(b"see max_rows", (4, 3)));
        assert!(is_code(b"open file.json", (5, 4)));
        assert!(!is_code(b"Ends here. Next", (11, 4)));
    }

    #[test]
    fn purpose_needs_an_action() {
        let nouns = "Weather data: temperature, humidity, wind, precipitation, hourly.";
        let r = reading(nouns, "forecast");
        assert!(r.own >= PURPOSE_WORDS && !r.action, "{r:?}");
        let f = lint_definition(
            &json!({"name": "forecast", "description": nouns}),
            &LintConfig::default(),
        );
        assert!(f
            .iter()
            .any(|f| f.rule == "states_purpose" && f.message.contains("names no action")));
    }

    #[test]
    fn verb_forms_are_verbs() {
        for w in [
            "list",
            "lists",
            "listed",
            "listing",
            "retrieves",
            "making",
            "copies",
            "stopped",
            "running",
            "used",
        ] {
            assert!(is_verb_form(w), "{w}");
        }
        for w in ["temperature", "humidity", "the", "xyzzy"] {
            assert!(!is_verb_form(w), "{w}");
        }
    }

    #[test]
    fn ideographs_count_by_characters_and_skip_the_english_cues() {
        // Twelve ideographs: six words of its own; the cue rules cannot read it.
        let r = reading("获取当前城市的天气预报信息", "get_weather");
        assert!(r.action && r.own >= PURPOSE_WORDS && !r.latin, "{r:?}");
        let f = fired("get_weather", "获取当前城市的天气预报信息");
        assert!(
            f.iter()
                .all(|r| !matches!(*r, "states_purpose" | "says_when_to_use" | "states_limits")),
            "{f:?}"
        );
    }

    #[test]
    fn when_to_use_reads_fit_conditions_and_alternatives() {
        for text in [
            "Useful for checking a build before release.",
            "Use this tool when the user asks about invoices.",
            "Use it to compare two prices.",
            "Call it only after creating the session.",
            "When you need the latest rate, call this.",
            "If the user gives a city, pass it here.",
            "Not recommended for large files.",
            "Prefer the batch variant for many pages.",
            "Searches pages rather than posts.",
            "For posts, use search_posts.",
            "Run this before calling deploy_app.",
            "Typical use cases: audits, reviews.",
            "Best when the id is known.",
            "Should be used in a chat of its own.",
            "After you have saved the draft, this publishes it.",
        ] {
            assert!(reading(text, "x").when, "{text}");
        }
        for text in [
            "Uses the public API to read the invoice.",
            "Use the 'limit' parameter to page.",
            "Returns the invoice and its lines.",
            "Not for example purposes.",
            "Sends a message to a channel.",
            "The values used in the report.",
        ] {
            assert!(!reading(text, "x").when, "{text}");
        }
    }

    #[test]
    fn limits_read_bounds_negations_and_caveats() {
        for text in [
            "Returns up to 50 rows.",
            "Only public repositories are searched.",
            "It cannot read binary files.",
            "Fails if the file is missing.",
            "Note: results are cached for an hour.",
            "At most 10 items.",
            "Does not follow redirects.",
            "Deprecated; see read_file.",
        ] {
            assert!(reading(text, "x").limits, "{text}");
        }
        for text in [
            "Returns the rows of the table.",
            "Create a note in the notebook.",
            "Not only files but folders are listed.",
        ] {
            assert!(!reading(text, "x").limits, "{text}");
        }
    }

    #[test]
    fn parameters_are_explained_by_the_schema_or_the_prose() {
        let tool = |desc: &str, props: Value| {
            json!({"name": "get_rate", "description": desc,
                   "inputSchema": {"type": "object", "properties": props}})
        };
        let rule = |t: &Value| -> Vec<String> {
            lint_definition(t, &LintConfig::default())
                .into_iter()
                .filter(|f| f.rule == "explains_parameters")
                .map(|f| f.message)
                .collect()
        };
        // Explained in the schema.
        let ok = tool(
            "Returns the rate.",
            json!({"currency": {"type": "string", "description": "ISO 4217 code, e.g. \"EUR\"."}}),
        );
        assert!(rule(&ok).is_empty());
        // Explained in the prose.
        let prose = tool(
            "Returns the rate of `currency` (an ISO 4217 code).",
            json!({"currency": {"type": "string"}}),
        );
        assert!(rule(&prose).is_empty());
        // The name restated, no description, no type.
        let bad = tool(
            "Returns the rate.",
            json!({"currency": {"type": "string", "description": "The currency."}, "day": {"type": "string"}, "when": {"description": "Day of the quote, YYYY-MM-DD."}}),
        );
        assert_eq!(
            rule(&bad),
            ["parameters \"currency\", \"day\" and \"when\" are not explained; say what each means and its format, in its schema description or in the tool's description"]
        );
        // No parameters: nothing to explain.
        assert!(rule(&tool("Returns the rate.", json!({}))).is_empty());
    }

    #[test]
    fn names_match_whole_identifiers() {
        assert!(names("Pass `max_rows` to page.", "max_rows"));
        assert!(names("Query: the words", "query"));
        assert!(!names("Pass max_rows_total.", "max_rows"));
        assert!(!names("subquery", "query"));
    }
}
