//! Tool-name rules per target, as `const fn`s free of dependencies so the `#[tool]` macro (or a
//! small shared lint crate) can reuse them at compile time.

use super::target::Target;

/// A platform's rule for tool names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameRule {
    /// MCP (SHOULD): 1–128 characters of `[A-Za-z0-9_.-]`.
    Mcp,
    /// OpenAI: `^[a-zA-Z0-9_-]{1,64}$`.
    OpenAi,
    /// Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    Anthropic,
    /// Gemini: a letter or `_`, then `[A-Za-z0-9_.:-]`, at most 64 characters.
    Gemini,
    /// WebMCP: 1–128 characters of ASCII alphanumerics, `_`, `-`, `.`.
    WebMcp,
}

impl NameRule {
    /// Whether `name` satisfies the rule.
    ///
    /// ```
    /// use tool_core::export::NameRule;
    /// const OK: bool = NameRule::OpenAi.accepts("search_products");
    /// assert!(OK);
    /// assert!(!NameRule::OpenAi.accepts("files.read"));
    /// assert!(NameRule::Mcp.accepts("files.read"));
    /// assert!(!NameRule::Gemini.accepts("1st_tool"));
    /// ```
    pub const fn accepts(self, name: &str) -> bool {
        let b = name.as_bytes();
        let max = match self {
            NameRule::Mcp | NameRule::WebMcp => 128,
            NameRule::OpenAi | NameRule::Anthropic | NameRule::Gemini => 64,
        };
        if b.is_empty() || b.len() > max {
            return false;
        }
        if let NameRule::Gemini = self {
            if !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
                return false;
            }
        }
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let ok = c.is_ascii_alphanumeric()
                || c == b'_'
                || c == b'-'
                || match self {
                    NameRule::Mcp | NameRule::WebMcp => c == b'.',
                    NameRule::Gemini => c == b'.' || c == b':',
                    NameRule::OpenAi | NameRule::Anthropic => false,
                };
            if !ok {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The rule in words, for error messages.
    pub const fn describe(self) -> &'static str {
        match self {
            NameRule::Mcp => "1 to 128 characters from A-Z a-z 0-9 _ . -",
            NameRule::OpenAi | NameRule::Anthropic => {
                "1 to 64 characters from A-Z a-z 0-9 _ - (pattern ^[a-zA-Z0-9_-]{1,64}$)"
            }
            NameRule::Gemini => {
                "a letter or _ followed by A-Z a-z 0-9 _ . : -, at most 64 characters in all"
            }
            NameRule::WebMcp => "1 to 128 characters from A-Z a-z 0-9 _ - .",
        }
    }
}

/// The targets whose name rule rejects `name` (empty when every target accepts it).
///
/// A name made of `[a-z0-9_]`, starting with a letter and at most 64 characters long, is
/// accepted everywhere.
///
/// ```
/// use tool_core::export::{name_rejected_by, Target};
/// assert!(name_rejected_by("search_products").is_empty());
/// let rejected = name_rejected_by("files.read");
/// assert!(rejected.contains(&Target::OpenAiChat { strict: false }));
/// assert!(!rejected.contains(&Target::Gemini));
/// ```
pub fn name_rejected_by(name: &str) -> Vec<Target> {
    Target::all()
        .iter()
        .copied()
        .filter(|t| !t.name_rule().accepts(name))
        .collect()
}
