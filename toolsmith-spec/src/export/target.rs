//! The export targets: which platform, which protocol version, strict or not.

use std::fmt;

/// A Model Context Protocol revision with its own `Tool` shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum McpVersion {
    /// `2025-06-18`: typed input/output shape, `outputSchema` root must be an object.
    V2025_06_18,
    /// `2025-11-25`: adds `$schema` (absent means 2020-12), `icons`, `execution.taskSupport`.
    V2025_11_25,
    /// `2026-07-28`: any 2020-12 keyword at the input root; output may be any type.
    V2026_07_28,
}

impl McpVersion {
    /// Every supported revision, oldest first.
    pub const ALL: [McpVersion; 3] = [
        McpVersion::V2025_06_18,
        McpVersion::V2025_11_25,
        McpVersion::V2026_07_28,
    ];

    /// The revision date as MCP spells it, e.g. `"2025-11-25"`.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// use toolsmith::export::McpVersion;
    /// assert_eq!(McpVersion::V2025_11_25.as_str(), "2025-11-25");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            McpVersion::V2025_06_18 => "2025-06-18",
            McpVersion::V2025_11_25 => "2025-11-25",
            McpVersion::V2026_07_28 => "2026-07-28",
        }
    }
}

impl fmt::Display for McpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One platform a tool list can be exported to.
///
/// Each target has a stable file-name [`slug`](Target::slug) (used by
/// [`write_artifacts`](super::write_artifacts)) and a human-readable [`Display`](fmt::Display)
/// used in error messages.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{McpVersion, Target};
/// let t = Target::OpenAiChat { strict: true };
/// assert_eq!(t.slug(), "openai-chat-strict");
/// assert_eq!(t.to_string(), "OpenAI Chat Completions (strict)");
/// assert_eq!(Target::from_slug("mcp-2025-11-25"), Some(Target::Mcp(McpVersion::V2025_11_25)));
/// assert_eq!(Target::all().len(), 11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Target {
    /// An MCP `tools/list` result for one protocol revision.
    Mcp(McpVersion),
    /// OpenAI Chat Completions `tools`: `{"type":"function","function":{...}}`.
    OpenAiChat {
        /// Emit `strict: true` and lower the schema to the strict subset.
        strict: bool,
    },
    /// OpenAI Responses API `tools`: `{"type":"function","name",...}`.
    OpenAiResponses {
        /// Emit `strict: true` and lower the schema to the strict subset.
        strict: bool,
    },
    /// Anthropic Messages `tools`: `{"name","description","input_schema"}`.
    Anthropic {
        /// Emit `strict: true` and lower the schema to the strict-tool subset.
        strict: bool,
    },
    /// Google Gemini `functionDeclarations` with `parametersJsonSchema`.
    Gemini,
    /// WebMCP `document.modelContext.registerTool` dictionaries (without `execute`).
    WebMcp,
}

const ALL_TARGETS: [Target; 11] = [
    Target::Mcp(McpVersion::V2025_06_18),
    Target::Mcp(McpVersion::V2025_11_25),
    Target::Mcp(McpVersion::V2026_07_28),
    Target::OpenAiChat { strict: false },
    Target::OpenAiChat { strict: true },
    Target::OpenAiResponses { strict: false },
    Target::OpenAiResponses { strict: true },
    Target::Anthropic { strict: false },
    Target::Anthropic { strict: true },
    Target::Gemini,
    Target::WebMcp,
];

impl Target {
    /// Every target, in the stable order used for artifacts and snapshots.
    pub const fn all() -> &'static [Target] {
        &ALL_TARGETS
    }

    /// The stable file-name slug: `mcp-2025-06-18`, `mcp-2025-11-25`, `mcp-2026-07-28`,
    /// `openai-chat`, `openai-chat-strict`, `openai-responses`, `openai-responses-strict`,
    /// `anthropic`, `anthropic-strict`, `gemini`, `webmcp`.
    pub const fn slug(self) -> &'static str {
        match self {
            Target::Mcp(McpVersion::V2025_06_18) => "mcp-2025-06-18",
            Target::Mcp(McpVersion::V2025_11_25) => "mcp-2025-11-25",
            Target::Mcp(McpVersion::V2026_07_28) => "mcp-2026-07-28",
            Target::OpenAiChat { strict: false } => "openai-chat",
            Target::OpenAiChat { strict: true } => "openai-chat-strict",
            Target::OpenAiResponses { strict: false } => "openai-responses",
            Target::OpenAiResponses { strict: true } => "openai-responses-strict",
            Target::Anthropic { strict: false } => "anthropic",
            Target::Anthropic { strict: true } => "anthropic-strict",
            Target::Gemini => "gemini",
            Target::WebMcp => "webmcp",
        }
    }

    /// The target with this [`slug`](Target::slug), if any.
    pub fn from_slug(slug: &str) -> Option<Target> {
        ALL_TARGETS.iter().copied().find(|t| t.slug() == slug)
    }

    /// Whether the target is a strict (constrained-decoding) variant.
    pub const fn is_strict(self) -> bool {
        matches!(
            self,
            Target::OpenAiChat { strict: true }
                | Target::OpenAiResponses { strict: true }
                | Target::Anthropic { strict: true }
        )
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let strict = |s: bool| if s { " (strict)" } else { "" };
        match *self {
            Target::Mcp(v) => write!(f, "MCP {v}"),
            Target::OpenAiChat { strict: s } => write!(f, "OpenAI Chat Completions{}", strict(s)),
            Target::OpenAiResponses { strict: s } => write!(f, "OpenAI Responses{}", strict(s)),
            Target::Anthropic { strict: s } => write!(f, "Anthropic Messages{}", strict(s)),
            Target::Gemini => f.write_str("Gemini"),
            Target::WebMcp => f.write_str("WebMCP"),
        }
    }
}
