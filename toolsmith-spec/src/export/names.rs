//! Tool-name rules per target, read from the table of platform facts
//! ([`toolsmith_lint::platform`]), which the `#[tool]` macro reads too.

use super::target::Target;
use toolsmith_lint::platform::{self, Platform};

/// A platform's rule for tool names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// use toolsmith::export::NameRule;
    /// const OK: bool = NameRule::OpenAi.accepts("search_products");
    /// assert!(OK);
    /// assert!(!NameRule::OpenAi.accepts("files.read"));
    /// assert!(NameRule::Mcp.accepts("files.read"));
    /// assert!(!NameRule::Gemini.accepts("1st_tool"));
    /// ```
    pub const fn accepts(self, name: &str) -> bool {
        self.platform().name.accepts(name)
    }

    /// The rule in words, for error messages.
    pub const fn describe(self) -> &'static str {
        self.platform().name.text
    }

    /// The platform whose rule this is, in the table of platform facts.
    pub const fn platform(self) -> &'static Platform {
        match self {
            NameRule::Mcp => &platform::MCP,
            NameRule::OpenAi => &platform::OPENAI,
            NameRule::Anthropic => &platform::ANTHROPIC,
            NameRule::Gemini => &platform::GEMINI,
            NameRule::WebMcp => &platform::WEBMCP,
        }
    }
}

/// The targets whose name rule rejects `name` (empty when every target accepts it).
///
/// A name made of `[a-z0-9_]`, starting with a letter and at most 64 characters long, is
/// accepted everywhere.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{name_rejected_by, Target};
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

/// The name rule of a target lives here, beside the rules, so that `target` needs nothing of
/// `names` and the two modules import in one direction.
impl Target {
    /// The tool-name rule this target enforces.
    pub const fn name_rule(self) -> NameRule {
        match self {
            Target::Mcp(_) => NameRule::Mcp,
            Target::OpenAiChat { .. } | Target::OpenAiResponses { .. } => NameRule::OpenAi,
            Target::Anthropic { .. } => NameRule::Anthropic,
            Target::Gemini => NameRule::Gemini,
            Target::WebMcp => NameRule::WebMcp,
        }
    }
}
