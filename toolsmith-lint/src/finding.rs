//! Findings, their order, allows, and JSON pointers.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{json, Value};

use crate::rules::{rule_rank, Severity};

/// One problem found in one tool definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule id (an entry of [`crate::RULES`]).
    pub rule: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// The tool's name as written in the definition (empty if it has none).
    pub tool: String,
    /// A JSON pointer (RFC 6901) into the definition at the offending (or missing) value, e.g.
    /// `/inputSchema/properties/query/description`; `""` is the whole definition.
    pub pointer: String,
    /// What is wrong and what to do, in one sentence.
    pub message: String,
    /// Where in the string at [`Finding::pointer`] the offending text is, when the rule knows:
    /// `(start, len)` in characters (Unicode scalar values), `start` 0-based. Reports use it to
    /// mark the text; it is not part of [`Finding::to_json`].
    pub span: Option<(usize, usize)>,
}

impl Finding {
    /// The finding as a JSON object `{rule, severity, tool, pointer, message}` for reports.
    ///
    /// ```
    /// let f = toolsmith_lint::Finding {
    ///     rule: "described", severity: toolsmith_lint::Severity::Error, tool: "t".into(),
    ///     pointer: "/description".into(), message: "m".into(), span: None,
    /// };
    /// assert_eq!(f.to_json()["severity"], "error");
    /// ```
    pub fn to_json(&self) -> Value {
        json!({
            "rule": self.rule,
            "severity": self.severity.as_str(),
            "tool": self.tool,
            "pointer": self.pointer,
            "message": self.message,
        })
    }
}

impl fmt::Display for Finding {
    /// `error[description_budget] search_products /description: description is 612 characters; ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(definition)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{}[{}] {} {}: {}",
            self.severity, self.rule, self.tool, pointer, self.message
        )
    }
}

/// Escapes one JSON pointer reference token (`~` → `~0`, `/` → `~1`).
///
/// ```
/// assert_eq!(toolsmith_lint::escape_pointer_token("a/b~c"), "a~1b~0c");
/// ```
pub fn escape_pointer_token(token: &str) -> String {
    crate::walk::escape_token(token).into_owned()
}

/// Splits a JSON pointer into its unescaped reference tokens (`""` gives none). The macro uses
/// this to map `/inputSchema/properties/<param>/description` back to a parameter.
///
/// ```
/// assert_eq!(
///     toolsmith_lint::pointer_tokens("/inputSchema/properties/a~1b/description"),
///     vec!["inputSchema", "properties", "a/b", "description"],
/// );
/// assert!(toolsmith_lint::pointer_tokens("").is_empty());
/// ```
pub fn pointer_tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .strip_prefix('/')
        .unwrap_or(pointer)
        .split('/')
        .map(|t| crate::walk::unescape_token(t).into_owned())
        .collect()
}

/// Appends tokens to a pointer, escaping each.
pub(crate) fn child(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    crate::walk::push_token(&mut out, token);
    out
}

use crate::walk::unescape_token as unescape;

fn tokens(pointer: &str) -> impl Iterator<Item = &str> {
    let rest = pointer.strip_prefix('/').unwrap_or(pointer);
    rest.split('/')
        .take(if pointer.is_empty() { 0 } else { usize::MAX })
}

fn cmp_pointers(a: &str, b: &str) -> Ordering {
    // The tokens before the last `/` of the common prefix are the same in both: compare from
    // there (pointers of one tool mostly share a long head).
    let common = common_prefix(a.as_bytes(), b.as_bytes());
    if common == a.len() && common == b.len() {
        return Ordering::Equal;
    }
    if a.starts_with('/') && b.starts_with('/') {
        if let Some(k) = a.as_bytes()[..common].iter().rposition(|&c| c == b'/') {
            // The first tokens after `k` differ as text (the pointers part inside them or where
            // one ends): they decide, unless they read the same (`01` and `1`, `~` and `~0`).
            let ord = cmp_token(first_token(&a[k + 1..]), first_token(&b[k + 1..]));
            if ord != Ordering::Equal {
                return ord;
            }
            return cmp_tokens(&a[k..], &b[k..]);
        }
    }
    cmp_tokens(a, b)
}

/// How many bytes two byte strings share at their start, eight at a time.
fn common_prefix(x: &[u8], y: &[u8]) -> usize {
    let n = x.len().min(y.len());
    let mut i = 0;
    while i + 8 <= n {
        let p = u64::from_le_bytes(x[i..i + 8].try_into().expect("eight bytes"));
        let q = u64::from_le_bytes(y[i..i + 8].try_into().expect("eight bytes"));
        if p != q {
            return i + ((p ^ q).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && x[i] == y[i] {
        i += 1;
    }
    i
}

/// The text of a pointer up to its first `/` (tokens are short: a plain loop beats `find`).
fn first_token(rest: &str) -> &str {
    rest.bytes()
        .position(|c| c == b'/')
        .map_or(rest, |i| &rest[..i])
}

/// Two reference tokens: array indices numerically (as `u64` parses them), anything else by
/// its unescaped text.
fn cmp_token(x: &str, y: &str) -> Ordering {
    // Only a token that starts with a digit or `+` parses as a `u64`.
    let number = |t: &str| {
        matches!(t.as_bytes().first(), Some(b'0'..=b'9' | b'+'))
            .then(|| t.parse::<u64>().ok())
            .flatten()
    };
    if let Some(n) = number(x) {
        if let Some(m) = number(y) {
            return n.cmp(&m);
        }
    }
    unescape(x).cmp(&unescape(y))
}

/// [`cmp_pointers`] token by token from the start.
fn cmp_tokens(a: &str, b: &str) -> Ordering {
    let (mut ta, mut tb) = (tokens(a), tokens(b));
    loop {
        match (ta.next(), tb.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            // Equal tokens compare equal however they read: skip the number parse.
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                let ord = cmp_token(x, y);
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

/// Sorts one tool's findings by pointer (token by token, array indices numerically), then by the
/// rule's position in [`crate::RULES`], then by message.
pub(crate) fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        cmp_pointers(&a.pointer, &b.pointer)
            .then_with(|| rule_rank(a.rule).cmp(&rule_rank(b.rule)))
            .then_with(|| a.message.cmp(&b.message))
    });
}

/// Drops findings that are explicitly allowed. Each allow is `(tool, rule)`: the tool name (or
/// `"*"` for every tool) and the rule id. Order is kept.
///
/// For a [`ToolSpec`](https://docs.rs/toolsmith-core) pass `(spec.name, allow.rule)` for each of its
/// `allows`; check the rule ids exist with [`crate::lookup_rule`] first.
///
/// ```
/// use toolsmith_lint::{apply_allows, lint_definition, LintConfig};
/// let tool = serde_json::json!({"name": "products", "description": "Returns products."});
/// let findings = lint_definition(&tool, &LintConfig::default());
/// assert!(findings.iter().any(|f| f.rule == "name_style"));
/// let kept = apply_allows(findings, &[("products".into(), "name_style".into())]);
/// assert!(kept.iter().all(|f| f.rule != "name_style"));
/// ```
pub fn apply_allows(findings: Vec<Finding>, allows: &[(String, String)]) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|f| {
            !allows
                .iter()
                .any(|(tool, rule)| (tool == "*" || *tool == f.tool) && rule == f.rule)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_compare_from_their_common_head_as_from_the_start() {
        let pointers = [
            "",
            "/",
            "//",
            "x",
            "/a",
            "/ab",
            "/a/b",
            "/a/b/c",
            "/a/2",
            "/a/10",
            "/a/10/x",
            "/a/9/x",
            "/a/01",
            "/a~1b",
            "/a~0",
            "/a/é",
            "/a/ê",
            "/a/éb/1",
            "/inputSchema/properties/q/description",
            "/inputSchema/properties/q",
            "/inputSchema/properties/qq/description",
            "/inputSchema/properties/p/description",
            "/a/~",
            "/a/~0",
            "/a/~/x",
            "/a/~0/y",
            "/a/01/x",
            "/a/1/y",
            "/a/+1/z",
            "/a/1",
            "/a/10/x/01234567/9",
            "/a/10/x/01234567/10",
            "/a/10/x/0123456789abcdef/q",
            "/a/10/x/0123456789abcdeg",
            "/a/10/x/0123456789abcdef/q~1r",
            "/a/10/x/0123456789abcdef/q~1",
            "~0/x",
            "~/y",
        ];
        for a in pointers {
            for b in pointers {
                assert_eq!(cmp_pointers(a, b), cmp_tokens(a, b), "{a:?} {b:?}");
                let naive = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                assert_eq!(common_prefix(a.as_bytes(), b.as_bytes()), naive);
                assert_eq!(
                    cmp_pointers(a, b),
                    cmp_pointers(b, a).reverse(),
                    "{a:?} {b:?}"
                );
            }
        }
        assert_eq!(cmp_pointers("/a/9/x", "/a/10"), Ordering::Less);
        assert_eq!(cmp_pointers("/a/b", "/a/b/c"), Ordering::Less);
    }
}
