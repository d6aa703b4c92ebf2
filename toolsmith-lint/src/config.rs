//! Budget profiles and the crate configuration read from `[package.metadata.toolsmith]`.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::platform::{self, Platform};

/// A named set of budgets. Figures a profile does not set are inherited from [`Profile::Chrome`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Chrome's published WebMCP guidance (the default): description 500, parameter description
    /// 150, tool and parameter names 30, whole definition 1500 characters.
    Chrome,
    /// OpenAI function calling: description 1024, name 64; the rest as chrome.
    OpenAi,
    /// Anthropic tool use: name 64; the rest as chrome.
    Anthropic,
    /// The MCP specification: name 128; the rest as chrome.
    Mcp,
}

impl Profile {
    /// Every profile, in the order error messages list them.
    pub const ALL: [Profile; 4] = [
        Profile::Chrome,
        Profile::OpenAi,
        Profile::Anthropic,
        Profile::Mcp,
    ];

    /// The name used in `Cargo.toml`: `chrome`, `openai`, `anthropic`, `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Chrome => "chrome",
            Profile::OpenAi => "openai",
            Profile::Anthropic => "anthropic",
            Profile::Mcp => "mcp",
        }
    }

    /// Parses a profile name (exact, lowercase).
    ///
    /// ```
    /// assert_eq!(toolsmith_lint::Profile::from_name("openai"), Some(toolsmith_lint::Profile::OpenAi));
    /// assert_eq!(toolsmith_lint::Profile::from_name("gpt"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The budgets the lint rules check against, all in characters (Unicode scalar values).
///
/// ```
/// use toolsmith_lint::{LintConfig, Profile};
/// let cfg = LintConfig::for_profile(Profile::OpenAi);
/// assert_eq!(cfg.description_budget, 1024);
/// assert_eq!(cfg.param_description_budget, 150); // inherited from chrome
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintConfig {
    /// The profile the figures started from (overrides may have changed single figures).
    pub profile: Profile,
    /// Longest tool name (`name_budget`).
    pub name_budget: usize,
    /// Longest parameter name (`param_name_budget`).
    pub param_name_budget: usize,
    /// Longest tool description (`description_budget`).
    pub description_budget: usize,
    /// Longest parameter or field description (`param_description_budget`).
    pub param_description_budget: usize,
    /// Longest definition: name, description and input schema as compact JSON
    /// (`definition_budget`).
    pub definition_budget: usize,
}

impl Default for LintConfig {
    fn default() -> Self {
        LintConfig::for_profile(Profile::Chrome)
    }
}

/// The keys `[package.metadata.toolsmith]` accepts.
pub const CONFIG_KEYS: &[&str] = &[
    "profile",
    "name_budget",
    "param_name_budget",
    "description_budget",
    "param_description_budget",
    "definition_budget",
];

impl LintConfig {
    /// The budgets of a profile.
    pub fn for_profile(profile: Profile) -> LintConfig {
        let g = platform::CHROME_GUIDANCE;
        let chrome = LintConfig {
            profile: Profile::Chrome,
            name_budget: g.name,
            param_name_budget: g.name,
            description_budget: g.description,
            param_description_budget: g.param_description,
            definition_budget: g.definition,
        };
        let limits = |p: &Platform| LintConfig {
            profile,
            name_budget: p.name.max_len,
            description_budget: p.max_description.unwrap_or(chrome.description_budget),
            ..chrome
        };
        match profile {
            Profile::Chrome => chrome,
            Profile::OpenAi => limits(&platform::OPENAI),
            Profile::Anthropic => limits(&platform::ANTHROPIC),
            Profile::Mcp => limits(&platform::MCP),
        }
    }

    /// The budgets of a profile given by name.
    ///
    /// ```
    /// let cfg = toolsmith_lint::LintConfig::profile("mcp").unwrap();
    /// assert_eq!(cfg.name_budget, 128);
    /// assert!(toolsmith_lint::LintConfig::profile("gemini").is_err());
    /// ```
    pub fn profile(name: &str) -> Result<LintConfig, ConfigError> {
        Profile::from_name(name)
            .map(LintConfig::for_profile)
            .ok_or_else(|| ConfigError::UnknownProfile {
                name: name.to_string(),
            })
    }

    /// Reads `[package.metadata.toolsmith]` from the text of a `Cargo.toml`. A manifest without
    /// that section gives the default (chrome) configuration.
    ///
    /// ```
    /// let cfg = toolsmith_lint::LintConfig::from_manifest_str(r#"
    /// [package]
    /// name = "shop"
    ///
    /// [package.metadata.toolsmith]
    /// profile = "openai"
    /// description_budget = 800
    /// "#).unwrap();
    /// assert_eq!((cfg.description_budget, cfg.name_budget), (800, 64));
    /// ```
    pub fn from_manifest_str(manifest: &str) -> Result<LintConfig, ConfigError> {
        let doc: toml::Table =
            manifest
                .parse()
                .map_err(|e: toml::de::Error| ConfigError::Toml {
                    message: e.to_string().trim_end().to_string(),
                })?;
        let Some(section) = toolsmith_section(&doc)? else {
            return Ok(LintConfig::default());
        };
        let mut cfg = match section.get("profile") {
            None => LintConfig::default(),
            Some(toml::Value::String(name)) => LintConfig::profile(name)?,
            Some(other) => {
                return Err(ConfigError::BadValue {
                    key: "profile".into(),
                    found: show(other),
                    expected: "a profile name in quotes",
                })
            }
        };
        let figures: [(&str, &mut usize); 5] = [
            ("name_budget", &mut cfg.name_budget),
            ("param_name_budget", &mut cfg.param_name_budget),
            ("description_budget", &mut cfg.description_budget),
            (
                "param_description_budget",
                &mut cfg.param_description_budget,
            ),
            ("definition_budget", &mut cfg.definition_budget),
        ];
        for (key, slot) in figures {
            if let Some(v) = section.get(key) {
                *slot = budget(key, v)?;
            }
        }
        Ok(cfg)
    }

    /// Reads `Cargo.toml` in `dir` (the macro passes `CARGO_MANIFEST_DIR`) and parses it with
    /// [`LintConfig::from_manifest_str`].
    pub fn from_manifest_dir(dir: impl AsRef<Path>) -> Result<LintConfig, ConfigError> {
        let path = dir.as_ref().join("Cargo.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        LintConfig::from_manifest_str(&text).map_err(|e| ConfigError::InManifest {
            path,
            source: Box::new(e),
        })
    }
}

/// The `[package.metadata.toolsmith]` table of a manifest (`None` when it has none), refused
/// when it is not a table or holds a key outside [`CONFIG_KEYS`].
fn toolsmith_section(doc: &toml::Table) -> Result<Option<&toml::Table>, ConfigError> {
    let section = match doc
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("toolsmith"))
    {
        None => return Ok(None),
        Some(toml::Value::Table(t)) => t,
        Some(other) => {
            return Err(ConfigError::NotATable {
                found: other.type_str(),
            });
        }
    };
    if let Some(key) = section.keys().find(|k| !CONFIG_KEYS.contains(&k.as_str())) {
        return Err(ConfigError::UnknownKey { key: key.clone() });
    }
    Ok(Some(section))
}

/// A budget setting `key` of the section: a positive whole number of characters.
fn budget(key: &str, v: &toml::Value) -> Result<usize, ConfigError> {
    let bad = |found: String| ConfigError::BadValue {
        key: key.into(),
        found,
        expected: "a positive whole number of characters",
    };
    match v {
        toml::Value::Integer(n) if *n > 0 => usize::try_from(*n).map_err(|_| bad(n.to_string())),
        other => Err(bad(show(other))),
    }
}

/// Why a crate's lint configuration could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The manifest could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// The manifest is not valid TOML.
    Toml {
        /// The parser's message.
        message: String,
    },
    /// `package.metadata.toolsmith` is not a table.
    NotATable {
        /// The TOML type found instead.
        found: &'static str,
    },
    /// A key the section does not know.
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// A profile name that does not exist.
    UnknownProfile {
        /// The name as written.
        name: String,
    },
    /// A value of the wrong type or range.
    BadValue {
        /// The key.
        key: String,
        /// The value as written.
        found: String,
        /// What the key takes.
        expected: &'static str,
    },
    /// An error in a specific manifest file.
    InManifest {
        /// The file.
        path: PathBuf,
        /// The error.
        source: Box<ConfigError>,
    },
}

/// A TOML value as a user wrote it, near enough for an error message.
fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => format!("<{}>", other.type_str()),
    }
}

fn profile_names() -> String {
    Profile::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Io { path, message } => write!(f, "cannot read {}: {message}", path.display()),
            ConfigError::Toml { message } => write!(f, "the manifest is not valid TOML: {message}"),
            ConfigError::NotATable { found } => write!(
                f,
                "`package.metadata.toolsmith` is {} {found}; write it as a table, e.g. `[package.metadata.toolsmith]` with `profile = \"chrome\"`",
                if found.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
            ),
            ConfigError::UnknownKey { key } => write!(
                f,
                "unknown key `{key}` in [package.metadata.toolsmith]; valid keys: {}",
                CONFIG_KEYS.join(", ")
            ),
            ConfigError::UnknownProfile { name } => {
                write!(f, "unknown lint profile `{name}`; valid profiles: {}", profile_names())
            }
            ConfigError::BadValue { key, found, expected } => write!(
                f,
                "`{key} = {found}` in [package.metadata.toolsmith] is not valid; `{key}` takes {expected}{}",
                if key == "profile" { format!(" ({})", profile_names()) } else { String::new() }
            ),
            ConfigError::InManifest { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::InManifest { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}
