//! Why a tool could not be exported to a target.

use std::fmt;

use super::names::NameRule;
use super::target::Target;

/// A tool that cannot be lowered to a target.
///
/// The message names the tool, the target, the place (a JSON pointer into the tool's canonical
/// definition: `/name`, `/description`, `/inputSchema/properties/tags`, ...), what is wrong and
/// what to do about it.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{export, Target};
/// use toolsmith::ToolSpec;
/// let spec = ToolSpec::new(
///     "files.read",
///     "Reads a file. Returns its text.",
///     serde_json::json!({"type": "object", "additionalProperties": false}),
/// )
/// .with_version("1.0.0");
/// let err = export(&[spec], Target::OpenAiChat { strict: false }).unwrap_err();
/// assert_eq!(err.tool, "files.read");
/// assert_eq!(err.pointer, "/name");
/// assert!(err.to_string().starts_with("cannot export tool `files.read` to OpenAI Chat Completions"));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ExportError {
    /// The tool's name.
    pub tool: String,
    /// The target that cannot express it.
    pub target: Target,
    /// JSON pointer into the tool's canonical definition (`/inputSchema/...` for schema problems).
    pub pointer: String,
    /// What is wrong.
    pub kind: ExportErrorKind,
}

/// The kinds of [`ExportError`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ExportErrorKind {
    /// The name breaks the target's name rule.
    InvalidName {
        /// The rule that rejected it.
        rule: NameRule,
    },
    /// Another tool in the same list already has this name.
    DuplicateName,
    /// The description is longer than the target accepts.
    DescriptionTooLong {
        /// Its length in characters.
        len: usize,
        /// The target's limit.
        max: usize,
    },
    /// The target requires a non-empty description.
    MissingDescription,
    /// The input schema's root is not `type: "object"`.
    NonObjectRoot,
    /// A keyword the target forbids at the schema root (`oneOf`, `anyOf`, `enum`, ...).
    RootKeyword {
        /// The keyword.
        keyword: String,
    },
    /// A recursive type, which the target cannot express (it cannot resolve `$ref`).
    Recursive {
        /// The `$ref` value, e.g. `#/$defs/Node`.
        reference: String,
    },
    /// A `$ref` that does not point into the root `$defs`.
    UnresolvableRef {
        /// The `$ref` value.
        reference: String,
    },
    /// A map-like object (`additionalProperties` is a schema or `true`) in a strict target.
    MapLike,
    /// A tuple (`prefixItems`), which the target cannot express.
    Tuple,
    /// An array without an `items` schema.
    ArrayWithoutItems,
    /// A schema with no type at all (e.g. `serde_json::Value`) in a strict target.
    Untyped,
    /// An enum with a non-scalar value in a target that allows only scalars.
    NonScalarEnum,
    /// A per-request limit of the target is exceeded by adding this tool.
    RequestLimit {
        /// What is limited, e.g. "strict tools".
        what: &'static str,
        /// The count including this tool.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The tool's namespace cannot be exported: its name breaks OpenAI's name rule, its
    /// description is empty, another tool declares the same namespace with another description,
    /// or a tool of the list has the namespace's name.
    InvalidNamespace {
        /// The namespace's name.
        namespace: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl ExportError {
    /// What is wrong, as a sentence fragment.
    pub fn problem(&self) -> String {
        use ExportErrorKind::*;
        match &self.kind {
            InvalidName { rule } => format!(
                "the name `{}` is not accepted: {} names must be {}",
                self.tool,
                self.target,
                rule.describe()
            ),
            DuplicateName => "another tool in the list already has this name".into(),
            DescriptionTooLong { len, max } => {
                format!("the description is {len} characters long; the limit is {max}")
            }
            MissingDescription => "the description is empty and the target requires one".into(),
            NonObjectRoot => "the input schema's root is not `\"type\": \"object\"`".into(),
            RootKeyword { keyword } => {
                format!("`{keyword}` is not allowed at the root of the input schema")
            }
            Recursive { reference } => format!(
                "the schema is recursive (`$ref: \"{reference}\"` refers to a type that contains \
                 itself) and the target cannot express recursion"
            ),
            UnresolvableRef { reference } => {
                format!(
                    "`$ref: \"{reference}\"` does not point to a definition in the root `$defs`"
                )
            }
            MapLike => {
                "the object accepts arbitrary keys (`additionalProperties` is not `false`), \
                        which strict mode cannot express"
                    .into()
            }
            Tuple => "a tuple (`prefixItems`) cannot be expressed by the target".into(),
            ArrayWithoutItems => "the array has no `items` schema".into(),
            Untyped => "the schema accepts any value (it has no `type`), which strict mode cannot \
                        express"
                .into(),
            NonScalarEnum => {
                "the enum has a value that is not a string, number, boolean or null".into()
            }
            RequestLimit { what, count, max } => {
                format!("adding this tool makes {count} {what} in one request; the limit is {max}")
            }
            InvalidNamespace { namespace, reason } => format!("namespace `{namespace}`: {reason}"),
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> String {
        use ExportErrorKind::*;
        let relaxed = match self.target {
            Target::OpenAiChat { strict: true } => Some("`Target::OpenAiChat { strict: false }`"),
            Target::OpenAiResponses { strict: true } => {
                Some("`Target::OpenAiResponses { strict: false }`")
            }
            Target::Anthropic { strict: true } => Some("`Target::Anthropic { strict: false }`"),
            _ => None,
        };
        let or_relaxed = relaxed
            .map(|r| format!(", or export this tool with {r}"))
            .unwrap_or_default();
        match &self.kind {
            InvalidName { .. } => "Rename the tool (`#[tool(name = \"...\")]`); a name of \
                lowercase letters, digits and `_`, starting with a letter and at most 64 \
                characters, works on every target."
                .into(),
            DuplicateName => "Give each tool a unique name.".into(),
            DescriptionTooLong { .. } => "Shorten the description: keep what the model needs to \
                choose and call the tool, move the rest into parameter descriptions."
                .into(),
            MissingDescription => "Add a doc comment to the tool function.".into(),
            NonObjectRoot | RootKeyword { .. } => "Take the arguments as named parameters (or one \
                struct) so the input is a plain object; put alternatives inside a parameter."
                .into(),
            Recursive { .. } => format!(
                "Bound the nesting with a non-recursive type (for example a flat list with parent \
                 ids){}.",
                match self.target {
                    Target::Anthropic { strict: true } => {
                        ", or export with `Target::Anthropic { strict: false }`"
                    }
                    _ => "",
                }
            ),
            UnresolvableRef { .. } => "Keep definitions in the root `$defs` and refer to them as \
                `#/$defs/Name`."
                .into(),
            MapLike => format!(
                "Use a list of `{{key, value}}` objects or a struct with named fields instead of \
                 a map{or_relaxed}."
            ),
            Tuple => format!("Use a struct with named fields instead of a tuple{or_relaxed}."),
            ArrayWithoutItems => {
                "Give the array an item type (`Vec<T>` with `T: JsonSchema`).".into()
            }
            Untyped => format!(
                "Give the parameter a concrete type instead of `serde_json::Value`{or_relaxed}."
            ),
            NonScalarEnum => format!("Use an enum of strings{or_relaxed}."),
            RequestLimit { what, max, .. } if what.ends_with("tools") => format!(
                "Send at most {max} tools per request (split the toolbox by task){or_relaxed}."
            ),
            RequestLimit { .. } => format!(
                "Make some parameters required or send fewer strict tools per request{or_relaxed}."
            ),
            InvalidNamespace { .. } => {
                "Give every tool of a namespace the same namespace name \
                (letters, digits, `_` and `-`, at most 64) and description, and a name no tool \
                of the list has (`#[tools(namespace = \"...\", namespace_description = \"...\")]`)."
                    .into()
            }
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot export tool `{}` to {}: {} (at {}). {}",
            self.tool,
            self.target,
            self.problem(),
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            },
            self.fix()
        )
    }
}

impl std::error::Error for ExportError {}
