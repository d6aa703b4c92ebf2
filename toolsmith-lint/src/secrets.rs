//! The one home of secret-looking names: the words that make a name name a secret, and the
//! rule that judges a name by them. Two readers use it: `toolsmith-core`'s redactor, which hides the
//! value of a result field whose name names a secret ([`is_secret_field`]), and the lint rule
//! `no_model_supplied_secrets`, which flags a parameter that asks the model for a credential the
//! host should supply.
//!
//! Both split a name into words and judge its last two the same way
//! ([`Reader::ends_a_secret`]): the last word is one of [`SECRET_WORDS`], or it is `key` after
//! one of [`KEY_QUALIFIERS`], or it is `token` and does not follow one of
//! [`PAGE_TOKEN_QUALIFIERS`]. Each reader adds words of its own to these shared lists
//! ([`FIELD`], [`PARAMETER`]), because a wrong answer costs each something else:
//!
//! - A result field that is missed leaks its value to the model, and a field holds what people
//!   type (a card's `cvv`, a `pin`): the redactor adds the short words of such fields and hides
//!   every `token` but a page token (which the model must hand back to get the next page).
//! - A parameter flagged wrongly is a warning on a sound tool: the lint knows many more harmless
//!   tokens (`max_token`, `request_token`, `prompt_token`), more kinds of keys, credentials
//!   written as one word (`accesstoken`), cookies and bearer values; a PIN or a card code is
//!   what a user may give a tool through the model, so it is no parameter the host supplies.
//!
//! ```
//! use toolsmith_lint::secrets::{is_secret_field, FIELD, PARAMETER};
//! assert!(is_secret_field("db_password") && is_secret_field("X-Api-Key"));
//! assert!(!is_secret_field("next_page_token"));
//! assert!(FIELD.is_secret_word("pin") && !PARAMETER.is_secret_word("pin"));
//! assert!(PARAMETER.ends_a_secret(Some("ssh"), "key") && !FIELD.ends_a_secret(Some("ssh"), "key"));
//! ```

/// Words that, as the last word of a name, make it name a secret, for both readers (neither
/// `key` nor `token`, which [`Reader::ends_a_secret`] judges by the word before them).
pub const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credential",
    "credentials",
    "apikey",
    "authorization",
];

/// Words that, before a last word `key`, make it name a secret (`api_key`, `secret_key`), for
/// both readers.
pub const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "private",
    "secret",
    "access",
    "signing",
    "encryption",
    "master",
    "auth",
];

/// Words before a last word `token` that make it a pagination token, not a secret
/// (`next_page_token`), for both readers.
pub const PAGE_TOKEN_QUALIFIERS: &[&str] = &["page", "next", "continuation", "cursor", "sync"];

/// The words one reader adds to the shared lists, and the judgement of a name's last words by
/// both.
#[derive(Clone, Copy, Debug)]
pub struct Reader {
    /// Last words that name a secret, beyond [`SECRET_WORDS`].
    pub extra_secret_words: &'static [&'static str],
    /// Words before `key` that make it a secret, beyond [`KEY_QUALIFIERS`].
    pub extra_key_qualifiers: &'static [&'static str],
    /// Words before `token` that make it harmless, beyond [`PAGE_TOKEN_QUALIFIERS`].
    pub extra_harmless_token_qualifiers: &'static [&'static str],
}

/// The redactor's words: the names of result fields whose values are hidden. Beyond the shared
/// lists, the short names of what people type (`pwd`, `pin`, `cvv`, `cvc`) and a `session_key`.
pub const FIELD: Reader = Reader {
    extra_secret_words: &["pwd", "pin", "cvv", "cvc"],
    extra_key_qualifiers: &["session"],
    extra_harmless_token_qualifiers: &[],
};

/// The lint's words: the names of parameters the host, not the model, should supply. Beyond the
/// shared lists, credentials written as one word, bearer values and cookies; more kinds of keys
/// (licence, SSH and GPG keys, keys of a client, service or account); and the tokens that are
/// counts, limits, cursors or request ids rather than credentials.
pub const PARAMETER: Reader = Reader {
    extra_secret_words: &[
        "accesstoken",
        "authtoken",
        "refreshtoken",
        "bearertoken",
        "clientsecret",
        "privatekey",
        "secretkey",
        "accesskey",
        "bearer",
        "cookie",
        "cookies",
    ],
    extra_key_qualifiers: &[
        "subscription",
        "license",
        "licence",
        "client",
        "ssh",
        "gpg",
        "pgp",
        "service",
        "app",
        "developer",
        "account",
        "consumer",
        "decryption",
    ],
    extra_harmless_token_qualifiers: &[
        "prev",
        "previous",
        "resume",
        "delta",
        "change",
        "changes",
        "pagination",
        "batch",
        "start",
        "end",
        "stop",
        "max",
        "min",
        "num",
        "total",
        "input",
        "output",
        "prompt",
        "completion",
        "cancellation",
        "cancel",
        "idempotency",
        "request",
        "sequence",
        "search",
        "scroll",
        "offset",
    ],
};

/// Whether `word` is one of `list`, ASCII case ignored.
#[inline]
fn one_of(word: &str, list: &[&str]) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

impl Reader {
    /// Whether `word` (ASCII case ignored), as the last word of a name, makes it name a secret.
    #[inline]
    pub fn is_secret_word(&self, word: &str) -> bool {
        one_of(word, SECRET_WORDS) || one_of(word, self.extra_secret_words)
    }

    /// Whether `word` (ASCII case ignored) before `key` makes it name a secret.
    #[inline]
    pub fn is_key_qualifier(&self, word: &str) -> bool {
        one_of(word, KEY_QUALIFIERS) || one_of(word, self.extra_key_qualifiers)
    }

    /// Whether `word` (ASCII case ignored) before `token` makes it harmless.
    #[inline]
    pub fn is_harmless_token_qualifier(&self, word: &str) -> bool {
        one_of(word, PAGE_TOKEN_QUALIFIERS) || one_of(word, self.extra_harmless_token_qualifiers)
    }

    /// Whether a name whose last word is `last`, after the word `before` (if any), names a
    /// secret: `last` is a secret word, or `key` after a key qualifier, or `token` after no
    /// harmless qualifier (a `token` alone is a secret). Words are compared ignoring ASCII case.
    #[inline]
    pub fn ends_a_secret(&self, before: Option<&str>, last: &str) -> bool {
        if last.eq_ignore_ascii_case("token") {
            return !before.is_some_and(|w| self.is_harmless_token_qualifier(w));
        }
        self.is_secret_word(last)
            || (last.eq_ignore_ascii_case("key")
                && before.is_some_and(|w| self.is_key_qualifier(w)))
    }
}

/// The most space-separated words a field name has; a longer key is a sentence.
const MAX_FIELD_WORDS: usize = 4;

/// Whether a result field's name names a secret, so the redactor hides its value: its last two
/// words (split at characters other than letters and digits, and where a lowercase letter or a
/// digit meets an uppercase one) end a secret for the [`FIELD`] reader
/// ([`Reader::ends_a_secret`]): `password`, `db_password`, `userPassword`, `X-Api-Key`, `pin`,
/// `token`, but not `next_page_token` or `token_count`. A key of more than four
/// space-separated words is a sentence used as a key (`"ghp is a prefix, not a token"`), not a
/// field name; secrets in such keys are still found by the redactor's patterns.
///
/// ```
/// use toolsmith_lint::secrets::is_secret_field;
/// assert!(is_secret_field("userPassword") && is_secret_field("secret_key"));
/// assert!(!is_secret_field("max_tokens") && !is_secret_field("keyboard"));
/// ```
#[inline]
pub fn is_secret_field(key: &str) -> bool {
    // Runs on every object key of every result, and almost every key is not a secret: the last
    // word's last letter already rules most of them out.
    if !may_end_a_secret_word(key) {
        return false;
    }
    // A key of more than four words is a sentence used as a key, not a field name.
    if key.split_whitespace().nth(MAX_FIELD_WORDS).is_some() {
        return false;
    }
    // Runs on every object key of every result: find the last two words without allocating.
    let (before, last) = last_two_words(key);
    last.is_some_and(|last| FIELD.ends_a_secret(before, last))
}

/// The ASCII letters (lower case) that end a last word [`FIELD`] judges a secret (a secret
/// word, `key` or `token`), as a bit set.
const SECRET_WORD_ENDS: u32 = {
    let mut set = (1 << (b'y' - b'a')) | (1 << (b'n' - b'a'));
    let lists = [SECRET_WORDS, FIELD.extra_secret_words];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            set |= 1 << (w[w.len() - 1] - b'a');
            i += 1;
        }
        l += 1;
    }
    set
};

/// `false` only when `key` cannot name a secret: it is ASCII and its last letter or digit does not
/// end a secret word. The last word's last character is the key's last letter or digit, however
/// the key splits into words.
#[inline]
fn may_end_a_secret_word(key: &str) -> bool {
    let bytes = key.as_bytes();
    let Some(&last) = bytes
        .iter()
        .rev()
        .find(|b| !b.is_ascii() || b.is_ascii_alphanumeric())
    else {
        // No letter or digit at all: no word.
        return false;
    };
    if !last.is_ascii() {
        return true;
    }
    let c = last.to_ascii_lowercase();
    c.is_ascii_lowercase() && SECRET_WORD_ENDS & (1 << (c - b'a')) != 0
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

/// Words that name a password wherever they stand in a parameter's name, unless a word of
/// [`PASSWORD_SETTINGS`] follows (`new_password_hash`, but not `password_length`).
const PASSWORD_WORDS: &[&str] = &["password", "passwd", "passphrase"];

/// Words following a password word that make the name a setting, not a password
/// (`password_length`).
const PASSWORD_SETTINGS: &[&str] = &[
    "length",
    "len",
    "hint",
    "policy",
    "strength",
    "rules",
    "requirements",
    "min",
    "max",
    "pattern",
    "format",
];

/// Words before `token` anywhere in a parameter's name that make it a credential
/// (`session_token_value`).
const CREDENTIAL_TOKEN_QUALIFIERS: &[&str] =
    &["access", "refresh", "auth", "bearer", "api", "session"];

/// Whether a parameter whose name has the snake_case words `words` (lowercase) asks for a
/// credential: its last two words end a secret for the [`PARAMETER`] reader, or, anywhere in
/// it, a password word is not followed by a setting word, `key` follows a key qualifier, or
/// `token` follows `access`, `refresh`, `auth`, `bearer`, `api` or `session`.
pub(crate) fn is_credential_parameter(words: &[&str]) -> bool {
    let Some(&last) = words.last() else {
        return false;
    };
    let before = words.len().checked_sub(2).map(|i| words[i]);
    if PARAMETER.ends_a_secret(before, last) {
        return true;
    }
    if let Some(i) = words.iter().position(|w| PASSWORD_WORDS.contains(w)) {
        if !words[i + 1..].iter().any(|w| PASSWORD_SETTINGS.contains(w)) {
            return true;
        }
    }
    words.windows(2).any(|w| match w[1] {
        "key" => PARAMETER.is_key_qualifier(w[0]),
        "token" => CREDENTIAL_TOKEN_QUALIFIERS.contains(&w[0]),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_letter_filter_never_rules_out_a_secret_field() {
        let others = [
            "key",
            "api",
            "next",
            "page",
            "name",
            "sku",
            "count",
            "max",
            "tokens",
            "keys",
            "pinned",
            "Ünïcode",
            "ключ",
        ];
        // Every last word the field reader judges a secret by itself, `token` included.
        let words: Vec<&str> = SECRET_WORDS
            .iter()
            .chain(FIELD.extra_secret_words)
            .copied()
            .chain(["token"])
            .chain(others)
            .collect();
        let seps = ["_", "-", ".", " ", "", "__", "_1", "!"];
        let mut keys = Vec::new();
        for &a in &words {
            for sep in seps {
                for &b in &words {
                    keys.push(format!("{a}{sep}{b}"));
                    keys.push(format!("{a}{sep}{}", b.to_uppercase()));
                    keys.push(format!("{}{sep}{b}{sep}", a.to_uppercase()));
                }
            }
        }
        let mut secret = 0;
        for key in &keys {
            if is_secret_field(key) {
                secret += 1;
                assert!(may_end_a_secret_word(key), "{key:?}");
            }
        }
        // The corpus holds secrets and non-secrets both, so the filter was exercised.
        assert!(
            secret > 100 && secret < keys.len() / 2,
            "{secret} of {}",
            keys.len()
        );
        assert!(!may_end_a_secret_word("price_nok") && !may_end_a_secret_word("___"));
    }

    #[test]
    fn no_word_is_listed_twice_for_one_reader() {
        for reader in [FIELD, PARAMETER] {
            for (shared, extra) in [
                (SECRET_WORDS, reader.extra_secret_words),
                (KEY_QUALIFIERS, reader.extra_key_qualifiers),
                (
                    PAGE_TOKEN_QUALIFIERS,
                    reader.extra_harmless_token_qualifiers,
                ),
            ] {
                let all: Vec<&str> = shared.iter().chain(extra).copied().collect();
                for (i, w) in all.iter().enumerate() {
                    assert!(!all[..i].contains(w), "{w} is listed twice");
                    assert_eq!(w.to_ascii_lowercase(), *w, "{w} is not lowercase");
                    assert!(!matches!(*w, "key" | "token"), "{w} is judged by its rule");
                }
            }
        }
    }
}
