//! The one table of platform facts: each agent platform's tool-name rule, length limits and the
//! schema keywords and formats it accepts. The `#[tool]` macro (name checks), the lint budgets
//! ([`crate::LintConfig`]) and `toolsmith-core`'s export lowering all read it.
//!
//! Every fact names its source in its rustdoc: the platform's documentation as summarized in
//! the design notes (`TARGETS.md`, including its December 2026 updates), or the reference
//! implementation the export is checked against.
//!
//! ```
//! use toolsmith_lint::platform::{ANTHROPIC, GEMINI, MCP, PLATFORMS};
//! assert!(MCP.name.accepts("files.read"));
//! assert!(!ANTHROPIC.name.accepts("files.read"));
//! assert!(!GEMINI.name.accepts("1st_tool"));
//! assert_eq!(PLATFORMS.len(), 5);
//! ```

/// How a tool name may start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstChar {
    /// Any character the rule allows.
    Any,
    /// An ASCII letter or `_`.
    LetterOrUnderscore,
}

/// A platform's rule for tool names: 1 to `max_len` bytes of ASCII letters, digits, `_`, `-`
/// and the `extra` characters, starting as `first` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameRule {
    /// The longest name, in characters (all allowed characters are ASCII).
    pub max_len: usize,
    /// Characters allowed besides ASCII letters, digits, `_` and `-`.
    pub extra: &'static [u8],
    /// How the name may start.
    pub first: FirstChar,
    /// The rule in words, for error messages.
    pub text: &'static str,
}

impl NameRule {
    /// Whether the rule allows `c` anywhere in a name.
    pub const fn allows(&self, c: u8) -> bool {
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' {
            return true;
        }
        let mut i = 0;
        while i < self.extra.len() {
            if self.extra[i] == c {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether the rule allows `c` as the first character.
    pub const fn allows_first(&self, c: u8) -> bool {
        match self.first {
            FirstChar::Any => self.allows(c),
            FirstChar::LetterOrUnderscore => c.is_ascii_alphabetic() || c == b'_',
        }
    }

    /// Whether `name` satisfies the rule.
    pub const fn accepts(&self, name: &str) -> bool {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > self.max_len || !self.allows_first(b[0]) {
            return false;
        }
        let mut i = 0;
        while i < b.len() {
            if !self.allows(b[i]) {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// What a platform's strict mode accepts, beyond its loose rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrictFacts {
    /// At most this many strict tools per request.
    pub max_tools: Option<usize>,
    /// The string formats it keeps; any other `format` moves into the description.
    pub formats: &'static [&'static str],
    /// Keywords it does not accept, in the order their phrases are written into the
    /// description: groups, read one after the other.
    pub unsupported: &'static [&'static [&'static str]],
    /// The largest `minItems` it accepts.
    pub max_min_items: Option<u64>,
    /// At most this many optional parameters per request.
    pub max_optional_params: Option<usize>,
    /// At most this many union-typed parameters per request.
    pub max_union_params: Option<usize>,
}

/// The description budgets a platform's guidance recommends (lint budgets, not hard limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guidance {
    /// Longest tool description.
    pub description: usize,
    /// Longest parameter description.
    pub param_description: usize,
    /// Longest tool or parameter name.
    pub name: usize,
    /// Longest definition (name, description and input schema as compact JSON).
    pub definition: usize,
}

/// One agent platform's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Platform {
    /// The platform's name as messages write it.
    pub label: &'static str,
    /// Its tool-name rule.
    pub name: NameRule,
    /// Longest tool description it accepts, in characters.
    pub max_description: Option<usize>,
    /// Whether a tool needs a non-empty description.
    pub description_required: bool,
    /// At most this many tools per request.
    pub max_tools: Option<usize>,
    /// Keywords it refuses at the root of an input schema.
    pub root_forbidden: &'static [&'static str],
    /// Keywords it does not accept anywhere (moved into the description), strict or not.
    pub unsupported: &'static [&'static str],
    /// Its strict mode, where it has one.
    pub strict: Option<StrictFacts>,
    /// Its published description budgets, where it has some.
    pub guidance: Option<Guidance>,
}

/// Conditional and dependent keywords no strict mode takes (TARGETS.md, OpenAI "Not supported"
/// and Anthropic strict), in description order.
#[rustfmt::skip]
const STRICT_UNSUPPORTED_APPLICATORS: &[&str] = &[
    "default", "not", "if", "then", "else", "patternProperties", "dependentRequired",
    "dependentSchemas", "propertyNames", "contains", "minContains", "maxContains",
];

/// MCP (Model Context Protocol), versions 2025-06-18 to 2026-07-28.
///
/// - Name: "SHOULD be 1–128 characters of `[A-Za-z0-9_.-]`" (TARGETS.md, MCP; restated for
///   2025-11-25 in its December 2026 updates).
/// - No description or request limits; any 2020-12 keyword (2026-07-28, December 2026 updates).
#[rustfmt::skip]
pub const MCP: Platform = Platform {
    label: "MCP",
    name: NameRule {
        max_len: 128,
        extra: b".",
        first: FirstChar::Any,
        text: "1 to 128 characters from A-Z a-z 0-9 _ . -",
    },
    max_description: None,
    description_required: false,
    max_tools: None,
    root_forbidden: &[],
    unsupported: &[],
    strict: None,
    guidance: None,
};

/// OpenAI function calling (Chat Completions and Responses).
///
/// - Name `^[a-zA-Z0-9_-]{1,64}$`; description at most 1024 characters (an API error,
///   undocumented); at most 128 functions per request; no `oneOf/anyOf/allOf/enum/const/not` at
///   the root (TARGETS.md, OpenAI).
/// - Strict: formats {date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid};
///   length, uniqueness and property-count bounds, `not`, `if/then/else`, `dependent*`,
///   `patternProperties` and the `contains` family unsupported (TARGETS.md, OpenAI "Strict";
///   compared with openai-agents' `ensure_strict_json_schema`).
#[rustfmt::skip]
pub const OPENAI: Platform = Platform {
    label: "OpenAI",
    name: NameRule {
        max_len: 64,
        extra: b"",
        first: FirstChar::Any,
        text: "1 to 64 characters from A-Z a-z 0-9 _ - (pattern ^[a-zA-Z0-9_-]{1,64}$)",
    },
    max_description: Some(1024),
    description_required: false,
    max_tools: Some(128),
    root_forbidden: &["oneOf", "anyOf", "allOf", "enum", "const", "not"],
    unsupported: &[],
    strict: Some(StrictFacts {
        max_tools: None,
        formats: &[
            "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
        ],
        unsupported: &[
            &["minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties"],
            STRICT_UNSUPPORTED_APPLICATORS,
        ],
        max_min_items: None,
        max_optional_params: None,
        max_union_params: None,
    }),
    guidance: None,
};

/// Anthropic Messages tool use.
///
/// - Name `^[a-zA-Z0-9_-]{1,64}$`; no `oneOf/anyOf/allOf` at the top level (TARGETS.md,
///   Anthropic Messages).
/// - Strict: at most 20 strict tools, 24 optional and 16 union-typed parameters per request;
///   no numeric or length bounds, `minItems` only 0 or 1, no complex `pattern` (TARGETS.md and
///   its December 2026 updates). The formats kept are those the `anthropic` SDK's
///   `transform_schema` keeps (checked against the SDK in `toolsmith-core/tests/it/export_consumers.rs`).
#[rustfmt::skip]
pub const ANTHROPIC: Platform = Platform {
    label: "Anthropic",
    name: NameRule {
        max_len: 64,
        extra: b"",
        first: FirstChar::Any,
        text: "1 to 64 characters from A-Z a-z 0-9 _ - (pattern ^[a-zA-Z0-9_-]{1,64}$)",
    },
    max_description: None,
    description_required: false,
    max_tools: None,
    root_forbidden: &["oneOf", "anyOf", "allOf"],
    unsupported: &[],
    strict: Some(StrictFacts {
        max_tools: Some(20),
        formats: &[
            "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
            "uuid",
        ],
        unsupported: &[
            &[
                "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
                "exclusiveMaximum", "multipleOf", "maxItems", "uniqueItems", "minProperties",
                "maxProperties", "pattern",
            ],
            STRICT_UNSUPPORTED_APPLICATORS,
        ],
        max_min_items: Some(1),
        max_optional_params: Some(24),
        max_union_params: Some(16),
    }),
    guidance: None,
};

/// Google Gemini function declarations (`parametersJsonSchema`).
///
/// - Name: starts with a letter or `_`, then `[A-Za-z0-9_.:-]` (TARGETS.md, Gemini). The
///   December 2026 updates say up to 128 characters (64 in older docs); 64 is kept, as
///   TARGETS.md advises, "to be safe".
/// - `not`, `if/then/else`, `patternProperties` and `uniqueItems` move into the description
///   (TARGETS.md, Gemini "Lowering"), and so do `dependentRequired`/`dependentSchemas`.
#[rustfmt::skip]
pub const GEMINI: Platform = Platform {
    label: "Gemini",
    name: NameRule {
        max_len: 64,
        extra: b".:",
        first: FirstChar::LetterOrUnderscore,
        text: "a letter or _ followed by A-Z a-z 0-9 _ . : -, at most 64 characters in all",
    },
    max_description: None,
    description_required: false,
    max_tools: None,
    root_forbidden: &[],
    unsupported: &[
        "not", "if", "then", "else", "patternProperties", "uniqueItems", "dependentRequired",
        "dependentSchemas",
    ],
    strict: None,
    guidance: None,
};

/// WebMCP (`document.modelContext.registerTool` in the browser).
///
/// - Name 1–128 of ASCII alphanumerics, `_`, `-`, `.`; description required and non-empty
///   (TARGETS.md, WebMCP).
/// - Chrome's recommended budgets: description 500, parameter description 150, tool and
///   parameter names 30 (TARGETS.md, WebMCP); the lint applies Chrome's 1,500-character output
///   budget to the whole definition.
#[rustfmt::skip]
pub const WEBMCP: Platform = Platform {
    label: "WebMCP",
    name: NameRule {
        max_len: 128,
        extra: b".",
        first: FirstChar::Any,
        text: "1 to 128 characters from A-Z a-z 0-9 _ - .",
    },
    max_description: None,
    description_required: true,
    max_tools: None,
    root_forbidden: &[],
    unsupported: &[],
    strict: None,
    guidance: Some(CHROME_GUIDANCE),
};

/// Chrome's recommended WebMCP budgets: description 500, parameter description 150, tool and
/// parameter names 30 (TARGETS.md, WebMCP), and its 1,500-character output budget, which the
/// lint applies to the whole definition. The lint's default profile.
pub const CHROME_GUIDANCE: Guidance = Guidance {
    description: 500,
    param_description: 150,
    name: 30,
    definition: 1500,
};

/// Every platform, in the order messages list them.
pub const PLATFORMS: [&Platform; 5] = [&MCP, &OPENAI, &ANTHROPIC, &GEMINI, &WEBMCP];

/// The platforms whose name rule rejects `name`, and why, for the `#[tool]` macro's message;
/// `None` when every platform accepts it.
///
/// ```
/// use toolsmith_lint::platform::name_problem;
/// assert_eq!(name_problem("search_products"), None);
/// assert_eq!(
///     name_problem("files.read").as_deref(),
///     Some("tool name `files.read` contains `.`, which OpenAI and Anthropic reject: use `_` or `-`"),
/// );
/// ```
pub fn name_problem(name: &str) -> Option<String> {
    let len = name.chars().count();
    if len == 0 {
        return Some("a tool name cannot be empty".into());
    }
    let rejecting = |f: &dyn Fn(&Platform) -> bool| -> Vec<&'static str> {
        PLATFORMS.iter().filter(|p| f(p)).map(|p| p.label).collect()
    };
    let refused_by = |c: char| rejecting(&|p| !(c.is_ascii() && p.name.allows(c as u8)));
    if let Some(c) = name
        .chars()
        .find(|c| refused_by(*c).len() == PLATFORMS.len())
    {
        return Some(format!(
            "tool name `{name}` contains {c:?}, which every agent platform rejects: use ASCII letters, digits, `_` or `-`"
        ));
    }
    if let Some((c, refused)) = name
        .chars()
        .map(|c| (c, refused_by(c)))
        .find(|(_, refused)| !refused.is_empty())
    {
        return Some(format!(
            "tool name `{name}` contains `{c}`, which {} reject: use `_` or `-`",
            and_list(&refused)
        ));
    }
    let shortest = PLATFORMS
        .iter()
        .map(|p| p.name.max_len)
        .filter(|max| len > *max)
        .min();
    if let Some(max) = shortest {
        let refused = rejecting(&|p| p.name.max_len == max);
        return Some(format!(
            "tool name `{name}` is {len} characters; {} accept at most {max}",
            and_list(&refused)
        ));
    }
    let first = name.as_bytes()[0];
    let refused = rejecting(&|p| !p.name.allows_first(first));
    if !refused.is_empty() {
        let starts = "a letter or `_`";
        return Some(format!(
            "tool name `{name}` must start with {starts} for {}",
            and_list(&refused)
        ));
    }
    None
}

fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [head @ .., last] => format!("{} and {last}", head.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_problems_name_the_platforms() {
        let long = "a".repeat(65);
        assert_eq!(
            name_problem(&long).unwrap(),
            format!("tool name `{long}` is 65 characters; OpenAI, Anthropic and Gemini accept at most 64")
        );
        assert_eq!(
            name_problem("1st").unwrap(),
            "tool name `1st` must start with a letter or `_` for Gemini"
        );
        assert_eq!(
            name_problem("a b").unwrap(),
            "tool name `a b` contains ' ', which every agent platform rejects: use ASCII letters, digits, `_` or `-`"
        );
        assert_eq!(
            name_problem("ns:tool").unwrap(),
            "tool name `ns:tool` contains `:`, which MCP, OpenAI, Anthropic and WebMCP reject: use `_` or `-`"
        );
        assert_eq!(name_problem(""), Some("a tool name cannot be empty".into()));
        assert_eq!(name_problem("_private-tool"), None);
    }

    #[test]
    fn rules_match_the_documented_patterns() {
        for p in PLATFORMS {
            assert!(p.name.accepts("search_products"), "{}", p.label);
            assert!(!p.name.accepts(""), "{}", p.label);
            assert!(p.name.accepts(&"a".repeat(p.name.max_len)), "{}", p.label);
            assert!(
                !p.name.accepts(&"a".repeat(p.name.max_len + 1)),
                "{}",
                p.label
            );
        }
        assert!(GEMINI.name.accepts("ns:tool.v2"));
        assert!(!OPENAI.name.accepts("ns:tool"));
    }
}
