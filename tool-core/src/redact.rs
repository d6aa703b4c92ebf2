//! Redaction of secrets in tool results: API keys, bearer tokens, private keys and passwords.
//!
//! A [`Redactor`] is built once per toolbox and applied to every result before the model reads it
//! (and before anything is recorded). It knows the secret formats of common providers and accepts
//! patterns the host adds. Each secret is replaced by `[REDACTED:<kind>]`, where `kind` names the
//! pattern that matched, so the model can still tell that something was there.
//!
//! ```
//! use tool_core::redact::Redactor;
//! let r = Redactor::new();
//! let out = r.redact_str("key: AKIAIOSFODNN7EXAMPLE, db: postgres://app:hunter2@db:5432/main");
//! assert_eq!(out, "key: [REDACTED:aws_access_key_id], db: postgres://app:[REDACTED:url_password]@db:5432/main");
//! ```

use crate::envelope::Envelope;
use regex::{Captures, Regex, RegexSet};
use serde_json::Value;
use std::borrow::Cow;

/// The name of the capture group that, when a pattern has it, marks the part to replace.
///
/// A pattern without this group has its whole match replaced.
pub const SECRET_GROUP: &str = "secret";

/// A check on a candidate secret that rules out false positives a regex cannot express.
type Validator = fn(&str) -> bool;

#[derive(Clone, Debug)]
struct Rule {
    kind: String,
    regex: Regex,
    validator: Option<Validator>,
}

/// An error building a [`Redactor`] from a pattern given as text.
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    /// The pattern is not a valid regular expression.
    #[error("the redaction pattern {kind:?} is not a valid regular expression: {source}")]
    InvalidPattern {
        /// The kind the pattern was added under.
        kind: String,
        /// The parse error.
        #[source]
        source: regex::Error,
    },
}

/// Replaces secrets in text and JSON values with `[REDACTED:<kind>]`.
///
/// Built-in kinds (in the order they are applied):
///
/// | kind | matches |
/// |---|---|
/// | `private_key` | PEM blocks `-----BEGIN ... PRIVATE KEY----- ... -----END ... PRIVATE KEY-----` (also an unterminated one, to the end of the text) |
/// | `anthropic_api_key` | `sk-ant-...` |
/// | `openai_api_key` | `sk-...`, `sk-proj-...` |
/// | `stripe_key` | `sk_live_...`, `rk_live_...` (and the `_test_` forms) |
/// | `aws_access_key_id` | `AKIA...` / `ASIA...` followed by 16 characters |
/// | `aws_secret_access_key` | the value after `aws_secret_access_key =` / `:` |
/// | `github_token` | `ghp_`, `gho_`, `ghs_`, `ghr_`, `ghu_`, `github_pat_` |
/// | `slack_token` | `xoxb-`, `xoxa-`, `xoxp-`, `xoxr-`, `xoxs-` |
/// | `google_api_key` | `AIza` followed by 35 characters |
/// | `bearer_token` | the token after `Authorization: Bearer` or `Bearer` |
/// | `url_password` | the password in `scheme://user:password@host` |
/// | `connection_string_password` | the value of `password=` / `pwd=` in connection strings |
///
/// In JSON values, [`Redactor::redact_value`] also replaces the whole string value of a field
/// whose key names a secret (`password`, `secret`, `api_key`, `access_token`, `private_key`,
/// `client_secret`, `authorization`, ...; kind `secret_field`).
///
/// Host patterns are added with [`Redactor::with_pattern`]. A pattern with a capture group named
/// `secret` has only that group replaced; otherwise the whole match is.
///
/// All regexes are compiled once, when the redactor is built; a [`RegexSet`] over all patterns
/// decides in one pass which patterns need to run on a given text.
#[derive(Clone, Debug)]
pub struct Redactor {
    rules: Vec<Rule>,
    set: Option<RegexSet>,
    secret_key: Option<Regex>,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

/// A bearer token found without an `Authorization` header must look like a token, not a word:
/// it contains a digit or token punctuation, or is long.
fn looks_like_token(s: &str) -> bool {
    s.len() >= 24
        || (s.len() >= 8
            && s.chars()
                .any(|c| c.is_ascii_digit() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/')))
}

/// A random key contains a digit; a hyphenated word that happens to start with `sk-` does not.
fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// Built-in patterns: (kind, regex, validator). Order matters: more specific forms come first, and
/// a replaced secret is no longer matched by later patterns.
fn builtin_patterns() -> Vec<(&'static str, &'static str, Option<Validator>)> {
    vec![
        (
            "private_key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\z)",
            None,
        ),
        ("anthropic_api_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", None),
        (
            "openai_api_key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
            Some(has_digit),
        ),
        (
            "stripe_key",
            r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
            None,
        ),
        ("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", None),
        (
            "aws_secret_access_key",
            r#"(?i:aws_secret_access_key)["']?\s*[=:]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
            None,
        ),
        (
            "github_token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            None,
        ),
        ("slack_token", r"\bxox[baprs]-[A-Za-z0-9\-]{10,}", None),
        ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}", None),
        (
            "bearer_token",
            r#"(?i:authorization)["']?\s*[:=]\s*["']?(?i:bearer)\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)"#,
            None,
        ),
        (
            "bearer_token",
            r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)",
            Some(looks_like_token),
        ),
        (
            "url_password",
            r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@",
            None,
        ),
        (
            "connection_string_password",
            r#"(?i:\b(?:password|pwd))\s*=\s*(?P<secret>"[^"]*"|'[^']*'|[^;&\s"']+)"#,
            None,
        ),
    ]
}

const SECRET_KEY_PATTERN: &str = r"(?i)^(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|private[_-]?key|secret[_-]?access[_-]?key|authorization|x[_-]api[_-]key)$";

impl Redactor {
    /// A redactor with every built-in pattern and the secret-field rule.
    pub fn new() -> Self {
        let rules = builtin_patterns()
            .into_iter()
            .map(|(kind, pattern, validator)| Rule {
                kind: kind.to_string(),
                regex: Regex::new(pattern).expect("built-in redaction patterns are valid"),
                validator,
            })
            .collect();
        let secret_key = Regex::new(SECRET_KEY_PATTERN).expect("built-in key pattern is valid");
        Redactor::from_rules(rules, Some(secret_key))
    }

    /// A redactor with no patterns at all (not even the secret-field rule); add your own with
    /// [`Redactor::with_pattern`].
    pub fn empty() -> Self {
        Redactor::from_rules(Vec::new(), None)
    }

    fn from_rules(rules: Vec<Rule>, secret_key: Option<Regex>) -> Self {
        // The set is only a prefilter: if it cannot be built (size limits), every rule runs.
        let set = RegexSet::new(rules.iter().map(|r| r.regex.as_str())).ok();
        Redactor {
            rules,
            set,
            secret_key,
        }
    }

    /// Adds a host pattern; matches are replaced by `[REDACTED:<kind>]`.
    ///
    /// If `regex` has a capture group named `secret`, only that group is replaced, so context such
    /// as a header name stays readable. Host patterns run after the built-in ones.
    ///
    /// ```
    /// use tool_core::redact::Redactor;
    /// let r = Redactor::new()
    ///     .with_pattern("employee_id", regex::Regex::new(r"\bEMP-\d{6}\b").unwrap());
    /// assert_eq!(r.redact_str("owner EMP-004211"), "owner [REDACTED:employee_id]");
    /// ```
    #[must_use]
    pub fn with_pattern(self, kind: impl Into<String>, regex: Regex) -> Self {
        let Redactor {
            mut rules,
            secret_key,
            ..
        } = self;
        rules.push(Rule {
            kind: kind.into(),
            regex,
            validator: None,
        });
        Redactor::from_rules(rules, secret_key)
    }

    /// Like [`Redactor::with_pattern`], with the pattern given as text.
    ///
    /// # Errors
    /// [`RedactError::InvalidPattern`] when `pattern` is not a valid regular expression.
    pub fn try_with_pattern(
        self,
        kind: impl Into<String>,
        pattern: &str,
    ) -> Result<Self, RedactError> {
        let kind = kind.into();
        match Regex::new(pattern) {
            Ok(regex) => Ok(self.with_pattern(kind, regex)),
            Err(source) => Err(RedactError::InvalidPattern { kind, source }),
        }
    }

    /// The kinds this redactor replaces, in the order they are applied (a kind may repeat when it
    /// has several patterns).
    pub fn kinds(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.kind.as_str()).collect()
    }

    /// Redacts `text`; borrows it unchanged when nothing matched.
    ///
    /// ```
    /// use tool_core::redact::Redactor;
    /// let r = Redactor::new();
    /// assert!(matches!(r.redact_str("nothing secret here"), std::borrow::Cow::Borrowed(_)));
    /// assert_eq!(r.redact_str("Authorization: Bearer abc.def.ghi"), "Authorization: Bearer [REDACTED:bearer_token]");
    /// ```
    pub fn redact_str<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redact_str_counted(text).0
    }

    /// Redacts `text` and returns how many secrets were replaced.
    pub fn redact_str_counted<'t>(&self, text: &'t str) -> (Cow<'t, str>, usize) {
        let candidates: Vec<usize> = match &self.set {
            // The common case, text without secrets, is one pass of the set with no allocation.
            Some(set) if !set.is_match(text) => return (Cow::Borrowed(text), 0),
            Some(set) => set.matches(text).into_iter().collect(),
            None => (0..self.rules.len()).collect(),
        };
        let mut out: Cow<'t, str> = Cow::Borrowed(text);
        let mut count = 0;
        for i in candidates {
            let rule = &self.rules[i];
            let mut replaced_here = 0;
            let next = rule.regex.replace_all(&out, |caps: &Captures<'_>| {
                let whole = caps.get(0).map_or("", |m| m.as_str());
                let (secret, start, end) = match caps.name(SECRET_GROUP) {
                    Some(m) => {
                        let base = caps.get(0).map_or(0, |w| w.start());
                        (m.as_str(), m.start() - base, m.end() - base)
                    }
                    None => (whole, 0, whole.len()),
                };
                if secret.is_empty() || rule.validator.is_some_and(|ok| !ok(secret)) {
                    return whole.to_string();
                }
                replaced_here += 1;
                format!(
                    "{}[REDACTED:{}]{}",
                    &whole[..start],
                    rule.kind,
                    &whole[end..]
                )
            });
            if replaced_here > 0 {
                count += replaced_here;
                out = Cow::Owned(next.into_owned());
            }
        }
        (out, count)
    }

    /// Redacts every string in `value` in place (array items, object values, nested at any depth)
    /// and returns how many secrets were replaced.
    ///
    /// A string field whose key names a secret (`password`, `api_key`, `access_token`, ...) is
    /// replaced whole by `[REDACTED:secret_field]`. Object keys themselves are left as they are.
    ///
    /// ```
    /// use tool_core::redact::Redactor;
    /// let mut v = serde_json::json!({"user": "ann", "password": "correct horse", "log": ["token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"]});
    /// assert_eq!(Redactor::new().redact_value(&mut v), 2);
    /// assert_eq!(v["password"], "[REDACTED:secret_field]");
    /// assert_eq!(v["log"][0], "token [REDACTED:github_token]");
    /// ```
    pub fn redact_value(&self, value: &mut Value) -> usize {
        match value {
            Value::String(s) => {
                let (out, n) = self.redact_str_counted(s);
                if n > 0 {
                    let owned = out.into_owned();
                    *s = owned;
                }
                n
            }
            Value::Array(items) => items.iter_mut().map(|v| self.redact_value(v)).sum(),
            Value::Object(map) => {
                let mut n = 0;
                for (key, v) in map.iter_mut() {
                    let secret_field = self.secret_key.as_ref().is_some_and(|re| re.is_match(key));
                    match v {
                        Value::String(s)
                            if secret_field && !s.is_empty() && !is_redacted_marker(s) =>
                        {
                            *s = "[REDACTED:secret_field]".to_string();
                            n += 1;
                        }
                        _ => n += self.redact_value(v),
                    }
                }
                n
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }

    /// Redacts the model-facing text of an envelope in place: its `data`, `message` and `note`.
    /// Returns how many secrets were replaced.
    pub fn redact_envelope(&self, env: &mut Envelope) -> usize {
        let mut n = 0;
        if let Some(data) = env.data.as_mut() {
            n += self.redact_value(data);
        }
        for text in [env.message.as_mut(), env.note.as_mut()]
            .into_iter()
            .flatten()
        {
            let (out, k) = self.redact_str_counted(text);
            if k > 0 {
                let owned = out.into_owned();
                *text = owned;
                n += k;
            }
        }
        n
    }
}

fn is_redacted_marker(s: &str) -> bool {
    s.starts_with("[REDACTED:") && s.ends_with(']') && !s[1..].contains('[')
}
