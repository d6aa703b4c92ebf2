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
/// | `private_key` | PEM blocks `-----BEGIN ... PRIVATE KEY----- ... -----END ... PRIVATE KEY-----` and PGP `PRIVATE KEY BLOCK`s (also an unterminated one, to the end of the text) |
/// | `anthropic_api_key` | `sk-ant-...` |
/// | `openai_api_key` | `sk-...`, `sk-proj-...` |
/// | `stripe_key` | `sk_live_...`, `rk_live_...` (and the `_test_` forms), webhook secrets `whsec_...` |
/// | `aws_access_key_id` | `AKIA...` / `ASIA...` followed by 16 characters |
/// | `aws_secret_access_key` | the value after `aws_secret_access_key =` / `:` |
/// | `github_token` | `ghp_`, `gho_`, `ghs_`, `ghr_`, `ghu_`, `github_pat_` |
/// | `slack_token` | `xoxb-`, `xoxa-`, `xoxp-`, `xoxr-`, `xoxs-`, app tokens `xapp-` |
/// | `slack_webhook` | the path of `hooks.slack.com/services/T.../B.../...` |
/// | `gitlab_token` | `glpat-...` |
/// | `npm_token` | `npm_` followed by 36 characters |
/// | `sendgrid_api_key` | `SG.<22>.<43>` |
/// | `google_api_key` | `AIza` followed by 35 characters |
/// | `bearer_token` | the token after `Authorization: Bearer` or `Bearer` |
/// | `jwt` | a JSON Web Token `eyJ....eyJ....<signature>` (header, payload, signature) |
/// | `url_password` | the password in `scheme://user:password@host` |
/// | `connection_string_password` | the value of `password=` / `pwd=` in connection strings |
///
/// In JSON values, [`Redactor::redact_value`] also replaces the whole value (string, number, list
/// or object) of a field whose key names a secret (kind `secret_field`, see
/// [`is_secret_field`]: `password`, `db_password`, `userPassword`, `secret`, `token`,
/// `access_token`, `api_key`, `secret_key`, `private_key`, `pin`, `authorization`, ...), redacts
/// object keys like any text, and treats a PEM private key split over the items of a list as one
/// block.
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
    /// Whether the secret-field rule and the split-PEM rule apply (the built-in set).
    builtin_fields: bool,
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
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
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
            r"\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{24,})",
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
        (
            "slack_token",
            r"\b(?:xox[baprs]|xapp)-[A-Za-z0-9\-]{10,}",
            None,
        ),
        (
            "slack_webhook",
            r"\bhooks\.slack\.com/services/(?P<secret>T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+)",
            None,
        ),
        ("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}", None),
        ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", None),
        (
            "sendgrid_api_key",
            r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
            None,
        ),
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
        // After the bearer patterns, so a JWT sent as a bearer token is reported as one.
        (
            "jwt",
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}",
            None,
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

/// The most space-separated words a field name has; a longer key is a sentence.
const MAX_FIELD_WORDS: usize = 4;

/// Words that, as the last word of a field name, name a secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "pin",
    "cvv",
    "cvc",
    "apikey",
    "authorization",
    "credential",
    "credentials",
];

/// Words that, before a last word `key`, make it name a secret (`api_key`, `secret_key`).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "private",
    "secret",
    "access",
    "signing",
    "encryption",
    "master",
    "auth",
    "session",
];

/// Words before a last word `token` that name a pagination token, not a secret.
const PAGE_TOKEN_QUALIFIERS: &[&str] = &["page", "next", "continuation", "cursor", "sync"];

/// Whether a field name names a secret: its last word (split at `_`, `-`, `.`, spaces and
/// lowercase-to-uppercase changes, compared case-insensitively) is one of `password`, `passwd`,
/// `pwd`, `passphrase`, `secret`, `token`, `pin`, `cvv`, `cvc`, `apikey`, `authorization`,
/// `credential(s)`, or it is `key` after `api`, `private`, `secret`, `access`, `signing`,
/// `encryption`, `master`, `auth` or `session`. A pagination token (`next_page_token`) is not a
/// secret, and neither is a key of more than four space-separated words (a sentence used as a
/// key, `"ghp is a prefix, not a token"`); secrets in such keys are still found by the patterns.
///
/// ```
/// use tool_core::redact::is_secret_field;
/// for k in ["password", "db_password", "userPassword", "token", "secret_key", "X-Api-Key", "pin"] {
///     assert!(is_secret_field(k), "{k}");
/// }
/// for k in ["max_tokens", "token_count", "keyboard", "next_page_token", "pinned", "author"] {
///     assert!(!is_secret_field(k), "{k}");
/// }
/// ```
pub fn is_secret_field(key: &str) -> bool {
    // A key of more than four words is a sentence used as a key, not a field name.
    if key.split_whitespace().nth(MAX_FIELD_WORDS).is_some() {
        return false;
    }
    // Runs on every object key of every result: find the last two words without allocating.
    let (before, last) = last_two_words(key);
    let Some(last) = last else {
        return false;
    };
    let is = |w: &str, list: &[&str]| list.iter().any(|x| x.eq_ignore_ascii_case(w));
    if last.eq_ignore_ascii_case("token") && before.is_some_and(|w| is(w, PAGE_TOKEN_QUALIFIERS)) {
        return false;
    }
    is(last, SECRET_WORDS)
        || (last.eq_ignore_ascii_case("key") && before.is_some_and(|w| is(w, KEY_QUALIFIERS)))
}

/// The last two words of a field name (split at characters that are not letters or digits, and
/// where a lowercase letter or digit is followed by an uppercase one): `(second to last, last)`.
fn last_two_words(key: &str) -> (Option<&str>, Option<&str>) {
    let mut words: [Option<&str>; 2] = [None, None];
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, c) in key.char_indices() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                words = [words[1], Some(&key[s..i])];
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            if let Some(s) = start.take() {
                words = [words[1], Some(&key[s..i])];
            }
        }
        if start.is_none() {
            start = Some(i);
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if let Some(s) = start {
        words = [words[1], Some(&key[s..])];
    }
    (words[0], words[1])
}

/// The first line of a PEM private key block, and its last line.
const PEM_BEGIN: &str = "-----BEGIN ";
const PEM_END: &str = "-----END ";
const PEM_PRIVATE: &str = "PRIVATE KEY";

/// Whether `s` opens a private-key block that it does not close.
fn opens_pem_block(s: &str) -> bool {
    match s.rfind(PEM_BEGIN) {
        Some(begin) => {
            let rest = &s[begin..];
            rest.contains(PEM_PRIVATE) && !rest.contains(PEM_END)
        }
        None => false,
    }
}

/// Whether `s` closes a private-key block.
fn closes_pem_block(s: &str) -> bool {
    s.find(PEM_END)
        .is_some_and(|end| s[end..].contains(PEM_PRIVATE))
}

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
        Redactor::from_rules(rules, true)
    }

    /// A redactor with no patterns at all (not even the secret-field rule); add your own with
    /// [`Redactor::with_pattern`].
    pub fn empty() -> Self {
        Redactor::from_rules(Vec::new(), false)
    }

    fn from_rules(rules: Vec<Rule>, builtin_fields: bool) -> Self {
        // The set is only a prefilter: if it cannot be built (size limits), every rule runs.
        let set = RegexSet::new(rules.iter().map(|r| r.regex.as_str())).ok();
        Redactor {
            rules,
            set,
            builtin_fields,
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
            builtin_fields,
            ..
        } = self;
        rules.push(Rule {
            kind: kind.into(),
            regex,
            validator: None,
        });
        Redactor::from_rules(rules, builtin_fields)
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

    /// Redacts every string in `value` in place (array items, object keys and values, nested at
    /// any depth) and returns how many secrets were replaced.
    ///
    /// The value of a field whose key names a secret ([`is_secret_field`]) is replaced whole by
    /// `[REDACTED:secret_field]`, whatever its type (only `null`, booleans and empty strings are
    /// left). Keys are redacted like any text. In a list, the items after one that opens a PEM
    /// private key block, up to the one that closes it, are redacted as part of the key.
    ///
    /// ```
    /// use tool_core::redact::Redactor;
    /// let mut v = serde_json::json!({"user": "ann", "password": "correct horse", "pin": 4821, "log": ["token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"]});
    /// assert_eq!(Redactor::new().redact_value(&mut v), 3);
    /// assert_eq!(v["password"], "[REDACTED:secret_field]");
    /// assert_eq!(v["pin"], "[REDACTED:secret_field]");
    /// assert_eq!(v["log"][0], "token [REDACTED:github_token]");
    /// ```
    pub fn redact_value(&self, value: &mut Value) -> usize {
        match value {
            Value::String(s) => self.redact_string(s),
            Value::Array(items) => {
                let mut n = 0;
                let mut in_pem = false;
                for item in items.iter_mut() {
                    if self.builtin_fields {
                        if let Value::String(s) = item {
                            if in_pem {
                                in_pem = !closes_pem_block(s);
                                *s = "[REDACTED:private_key]".to_string();
                                n += 1;
                                continue;
                            }
                            in_pem = opens_pem_block(s);
                        } else {
                            in_pem = false;
                        }
                    }
                    n += self.redact_value(item);
                }
                n
            }
            Value::Object(map) => {
                let mut n = 0;
                let mut renamed: Vec<(String, String)> = Vec::new();
                for (key, v) in map.iter_mut() {
                    let (k, kn) = self.redact_str_counted(key);
                    if kn > 0 {
                        renamed.push((key.clone(), k.into_owned()));
                        n += kn;
                    }
                    if self.builtin_fields && is_secret_field(key) && hides_something(v) {
                        *v = Value::String("[REDACTED:secret_field]".to_string());
                        n += 1;
                    } else {
                        n += self.redact_value(v);
                    }
                }
                if !renamed.is_empty() {
                    rename_keys(map, &renamed);
                }
                n
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }

    fn redact_string(&self, s: &mut String) -> usize {
        let (out, n) = self.redact_str_counted(s);
        if n > 0 {
            let owned = out.into_owned();
            *s = owned;
        }
        n
    }

    /// Redacts the model-facing text of an envelope in place: its `data` (keys included),
    /// `code`, `message` and `note`. Returns how many secrets were replaced.
    pub fn redact_envelope(&self, env: &mut Envelope) -> usize {
        let mut n = 0;
        if let Some(data) = env.data.as_mut() {
            n += self.redact_value(data);
        }
        for text in [env.code.as_mut(), env.message.as_mut(), env.note.as_mut()]
            .into_iter()
            .flatten()
        {
            n += self.redact_string(text);
        }
        n
    }
}

/// Whether replacing `v` under a secret-named key hides anything: not for `null`, booleans,
/// empty strings, or a value already redacted.
fn hides_something(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) => false,
        Value::String(s) => !s.is_empty() && !is_redacted_marker(s),
        _ => true,
    }
}

/// Renames keys in place of their old position (`(old, new)` pairs); a new name that collides
/// with another key gets a numeric suffix so no value is lost.
fn rename_keys(map: &mut serde_json::Map<String, Value>, renamed: &[(String, String)]) {
    let old = std::mem::take(map);
    for (k, v) in old {
        let mut name = renamed
            .iter()
            .find(|(from, _)| *from == k)
            .map_or(k, |(_, to)| to.clone());
        if map.contains_key(&name) {
            let base = name.clone();
            let mut i = 2;
            while map.contains_key(&name) {
                name = format!("{base}#{i}");
                i += 1;
            }
        }
        map.insert(name, v);
    }
}

fn is_redacted_marker(s: &str) -> bool {
    s.starts_with("[REDACTED:") && s.ends_with(']') && !s[1..].contains('[')
}
