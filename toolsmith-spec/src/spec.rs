//! The canonical, agent-facing definition of a tool.
//!
//! A [`ToolSpec`] is what the model reads (name, title, description, input and output schemas) plus
//! what the host needs to know about the tool's side effects. Every export target is lowered from
//! this one value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::icon::{Icon, IconTheme};

/// The side effects a tool declares in `#[tool(...)]`.
///
/// Every tool declares its effects explicitly; the declaration is part of the spec, feeds the
/// annotations of every export target and is what a [`Policy`](crate) checks before a call runs.
///
/// More effects may be added, so the struct cannot be built with a literal outside this crate:
/// start from [`Effects::none`] (or `Effects::default()`, the same value) and turn flags on with
/// the `with_*` setters, one per flag, named after the field and the `#[tool(...)]` keyword. The
/// setters are `const`, so a set of effects can be a constant. The fields stay public for reading.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
/// use toolsmith::Effects;
/// const DELETE: Effects = Effects::none()
///     .with_writes(true)
///     .with_destructive(true)
///     .with_requires_approval(true);
/// assert!(DELETE.destructive && !DELETE.read_only);
/// assert_eq!(DELETE.names(), vec!["writes", "destructive", "requires_approval"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct Effects {
    /// Reads only; changes nothing anywhere.
    pub read_only: bool,
    /// Creates or changes state.
    pub writes: bool,
    /// Deletes or overwrites state in a way that cannot be undone.
    pub destructive: bool,
    /// Talks to systems outside the host over the network.
    pub network: bool,
    /// Interacts with an open world of external entities (the web, other people's data).
    pub open_world: bool,
    /// Repeating the same call has no additional effect.
    pub idempotent: bool,
    /// A human confirms each call before it runs.
    pub requires_approval: bool,
    /// Returns text written by third parties, which the model must not follow as instructions.
    pub untrusted_output: bool,
    /// Whether a call needs approval is decided per call, by a condition on its arguments
    /// (`#[tool(requires_approval(when = fn_name))]`, `Tool::requires_approval_when`):
    /// [`requires_approval`](Effects::requires_approval) is then also set, since any call
    /// *may* need a person. Serialized (`conditionalApproval`) only when set, so the
    /// fingerprints of other tools do not change.
    #[serde(skip_serializing_if = "is_false")]
    pub conditional_approval: bool,
}

/// For `skip_serializing_if`: a flag that is off is left out.
fn is_false(on: &bool) -> bool {
    !*on
}

impl Effects {
    /// No effects declared: every flag off. The same value as `Effects::default()`, usable in a
    /// `const`.
    pub const fn none() -> Effects {
        Effects {
            read_only: false,
            writes: false,
            destructive: false,
            network: false,
            open_world: false,
            idempotent: false,
            requires_approval: false,
            untrusted_output: false,
            conditional_approval: false,
        }
    }

    /// Sets [`read_only`](Effects::read_only): reads only; changes nothing anywhere.
    #[must_use]
    pub const fn with_read_only(mut self, on: bool) -> Effects {
        self.read_only = on;
        self
    }

    /// Sets [`writes`](Effects::writes): creates or changes state.
    #[must_use]
    pub const fn with_writes(mut self, on: bool) -> Effects {
        self.writes = on;
        self
    }

    /// Sets [`destructive`](Effects::destructive): deletes or overwrites state in a way that
    /// cannot be undone.
    #[must_use]
    pub const fn with_destructive(mut self, on: bool) -> Effects {
        self.destructive = on;
        self
    }

    /// Sets [`network`](Effects::network): talks to systems outside the host over the network.
    #[must_use]
    pub const fn with_network(mut self, on: bool) -> Effects {
        self.network = on;
        self
    }

    /// Sets [`open_world`](Effects::open_world): interacts with an open world of external
    /// entities.
    #[must_use]
    pub const fn with_open_world(mut self, on: bool) -> Effects {
        self.open_world = on;
        self
    }

    /// Sets [`idempotent`](Effects::idempotent): repeating the same call has no additional
    /// effect.
    #[must_use]
    pub const fn with_idempotent(mut self, on: bool) -> Effects {
        self.idempotent = on;
        self
    }

    /// Sets [`requires_approval`](Effects::requires_approval): a human confirms each call before
    /// it runs.
    #[must_use]
    pub const fn with_requires_approval(mut self, on: bool) -> Effects {
        self.requires_approval = on;
        self
    }

    /// Sets [`conditional_approval`](Effects::conditional_approval): a condition on the
    /// arguments decides per call whether a person approves it. Turning it on also turns on
    /// [`requires_approval`](Effects::requires_approval) (a call may need approval); turning
    /// it off leaves `requires_approval` as it is.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// let e = toolsmith::Effects::none().with_writes(true).with_conditional_approval(true);
    /// assert!(e.requires_approval && e.conditional_approval);
    /// assert_eq!(e.names(), vec!["writes", "requires_approval"]);
    /// ```
    #[must_use]
    pub const fn with_conditional_approval(mut self, on: bool) -> Effects {
        self.conditional_approval = on;
        if on {
            self.requires_approval = true;
        }
        self
    }

    /// Sets [`untrusted_output`](Effects::untrusted_output): returns text written by third
    /// parties.
    #[must_use]
    pub const fn with_untrusted_output(mut self, on: bool) -> Effects {
        self.untrusted_output = on;
        self
    }

    /// The names of the declared effects, in declaration-keyword form (`read_only`, `writes`, ...).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// let e = toolsmith::Effects::none().with_read_only(true).with_untrusted_output(true);
    /// assert_eq!(e.names(), vec!["read_only", "untrusted_output"]);
    /// ```
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.read_only, "read_only"),
            (self.writes, "writes"),
            (self.destructive, "destructive"),
            (self.network, "network"),
            (self.open_world, "open_world"),
            (self.idempotent, "idempotent"),
            (self.requires_approval, "requires_approval"),
            (self.untrusted_output, "untrusted_output"),
        ];
        all.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect()
    }
}

/// A deliberate exception to one lint rule, declared with `#[tool(allow(rule, reason = "..."))]`.
///
/// The reason travels with the spec so exceptions stay visible in exports and audits. Built with
/// [`Allow::new`]; the fields stay public for reading.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
/// use toolsmith::spec::Allow;
/// let allow = Allow::new("description_budget", "legal text must be quoted in full");
/// assert_eq!(allow.rule, "description_budget");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Allow {
    /// The lint rule id, e.g. `description_budget`.
    pub rule: String,
    /// Why the exception is deliberate.
    pub reason: String,
}

impl Allow {
    /// An exception to the lint rule `rule` (its id, e.g. `description_budget`), for `reason`.
    pub fn new(rule: impl Into<String>, reason: impl Into<String>) -> Allow {
        Allow {
            rule: rule.into(),
            reason: reason.into(),
        }
    }
}

/// The keyword of an output schema that says the tool answers with content blocks (an image,
/// audio, an embedded resource, a link to one, or several of them) rather than JSON data: its
/// value is a [`ContentKind`]. toolsmith-core's content types (`toolsmith_core::content`) write it in
/// their schemas; the exports read it ([`ToolSpec::content_kind`]) and leave it out.
pub const CONTENT_KEYWORD: &str = "x-toolsmith-content";

/// What a tool that answers with content returns (see [`CONTENT_KEYWORD`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentKind {
    /// One image (MCP `image` content).
    Image,
    /// One audio clip (MCP `audio` content).
    Audio,
    /// One embedded resource, text or binary (MCP `resource` content).
    Resource,
    /// One link to a resource (MCP `resource_link` content).
    ResourceLink,
    /// Several blocks of any kind, and optionally JSON data beside them.
    Mixed,
}

impl ContentKind {
    /// The keyword's value: `image`, `audio`, `resource`, `resource_link` or `mixed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Image => "image",
            ContentKind::Audio => "audio",
            ContentKind::Resource => "resource",
            ContentKind::ResourceLink => "resource_link",
            ContentKind::Mixed => "mixed",
        }
    }

    /// The kind a keyword value names, if any.
    pub fn parse(value: &str) -> Option<ContentKind> {
        [
            ContentKind::Image,
            ContentKind::Audio,
            ContentKind::Resource,
            ContentKind::ResourceLink,
            ContentKind::Mixed,
        ]
        .into_iter()
        .find(|k| k.as_str() == value)
    }
}

/// The canonical definition of one tool.
///
/// Serialized with camelCase keys (`inputSchema`, `outputSchema`), the shape MCP uses.
///
/// `#[tool]` builds the spec of a declared tool. A spec written by hand (for a tool only known at
/// run time, see toolsmith-core's `Tool::from_fn`) starts from [`ToolSpec::new`] with the
/// three parts every tool has, and the `with_*` setters add the rest. More fields may be added, so
/// the struct cannot be built with a literal outside this crate; the fields stay public for
/// reading and for changing an existing spec.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
/// use toolsmith::{Effects, ToolSpec};
/// use toolsmith::spec::Allow;
/// let spec = ToolSpec::new(
///     "delete_file",
///     "Deletes one file in the workspace. Returns nothing.",
///     serde_json::json!({
///         "type": "object",
///         "properties": {"path": {"type": "string", "description": "Path to delete."}},
///         "required": ["path"],
///         "additionalProperties": false,
///     }),
/// )
/// .with_title("Delete file")
/// .with_effects(Effects::none().with_writes(true).with_destructive(true).with_requires_approval(true))
/// .with_allow(Allow::new("description_budget", "kept short on purpose"))
/// .with_timeout_ms(5_000)
/// .with_version("1.2.0");
/// assert_eq!(spec.title.as_deref(), Some("Delete file"));
/// assert_eq!(spec.output_schema, None);
/// assert_eq!(spec.param_names(), vec!["path"]);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name the model calls the tool by, e.g. `search_products`.
    pub name: String,
    /// A short human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does and what it returns; the model's operator manual.
    pub description: String,
    /// The JSON Schema of the arguments: always an object schema with `additionalProperties: false`.
    pub input_schema: Value,
    /// The JSON Schema of the data a successful call returns, when the tool returns data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The declared side effects.
    pub effects: Effects,
    /// Lint exceptions with their reasons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allows: Vec<Allow>,
    /// The per-tool timeout in milliseconds, when one is declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The implementation version (the declaring crate's version unless set explicitly).
    pub version: String,
    /// Example calls: each one the arguments of a call, a JSON object that fits
    /// [`input_schema`](ToolSpec::input_schema). `#[tool(example(...))]` declares them and checks
    /// them at compile time; the toolbox checks them again when a tool is registered. Exported as
    /// Anthropic's `input_examples` and under MCP `_meta` (`toolsmith/examples`); serialized
    /// only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// The tool's deprecation, when it is deprecated ([`ToolSpec::with_deprecated`], which also
    /// appends the notice to the description); serialized only when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<crate::Deprecation>,
    /// Icons a client shows beside the tool (MCP's `icons`, 2025-11-25 and 2026-07-28; other
    /// targets have no such field and drop them). Not model-facing: no part of the fingerprint;
    /// serialized only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Part of the always-loaded core set (`#[tool(core)]`, `ToolboxBuilder::core`). Once any
    /// tool of a list is core, the Anthropic and OpenAI Responses exports defer every other one
    /// (`defer_loading: true`); a list with no core tool defers nothing. Serialized (and
    /// fingerprinted) only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub core: bool,
    /// The namespace the tool belongs to (`#[tools(namespace = ...)]`,
    /// `ToolboxBuilder::namespace`): the OpenAI Responses export groups a namespace's tools
    /// into one `{"type": "namespace"}` entry; other targets ignore it. Serialized (and
    /// fingerprinted) only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Namespace>,
    /// Whether a call may run as an MCP task, polled until done (`#[tool(task = "...")]`,
    /// [`ToolSpec::with_task`]): exported as `execution.taskSupport` in MCP 2025-11-25; in
    /// 2026-07-28 the server decides per call, and a `required` tool is refused to a client
    /// without the tasks extension. Not model-facing: no part of the fingerprint; serialized
    /// only when not [`TaskSupport::Forbidden`].
    #[serde(default, skip_serializing_if = "TaskSupport::is_forbidden")]
    pub task: TaskSupport,
}

/// Whether a tool's calls may run as tasks (MCP's `taskSupport`): a call that outlives its
/// request, which the client polls, on any replica that shares the state store.
///
/// ```
/// use toolsmith_spec::spec::TaskSupport;
/// assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
/// assert_eq!(TaskSupport::parse("optional"), Some(TaskSupport::Optional));
/// assert_eq!(TaskSupport::Required.as_str(), "required");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Every call answers in its own request (the default).
    #[default]
    Forbidden,
    /// A client that asks for a task gets one; others get the result directly.
    Optional,
    /// Every call runs as a task; a client that cannot poll one is refused.
    Required,
}

impl TaskSupport {
    /// The three values, as MCP spells them.
    pub const ALL: [TaskSupport; 3] = [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ];

    /// The value as MCP spells it: `forbidden`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// The value MCP spells `s`, if any.
    pub fn parse(s: &str) -> Option<TaskSupport> {
        TaskSupport::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// `true` for [`TaskSupport::Forbidden`].
    pub fn is_forbidden(&self) -> bool {
        *self == TaskSupport::Forbidden
    }
}

/// A group of tools the model sees under one name and description (OpenAI Responses'
/// `namespace` tool). Built with [`Namespace::new`]; the fields stay public for reading.
///
/// ```
/// let ns = toolsmith_spec::spec::Namespace::new("billing", "Invoices, refunds and payment methods.");
/// assert_eq!(ns.name, "billing");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Namespace {
    /// The namespace's name, e.g. `billing` (OpenAI's function-name rule:
    /// `^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tools of the namespace are for: the model reads it before it loads them.
    pub description: String,
}

impl Namespace {
    /// A namespace named `name`, described by `description`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Namespace {
        Namespace {
            name: name.into(),
            description: description.into(),
        }
    }
}

impl ToolSpec {
    /// A spec with its name, description and input schema (a JSON Schema object schema).
    ///
    /// The rest starts empty: no title, no output schema, no effects ([`Effects::none`]), no lint
    /// exceptions, no timeout, and version `0.0.0` (unversioned); set them with the `with_*`
    /// setters.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            effects: Effects::none(),
            allows: Vec::new(),
            timeout_ms: None,
            version: "0.0.0".into(),
            examples: Vec::new(),
            deprecated: None,
            icons: Vec::new(),
            core: false,
            namespace: None,
            task: TaskSupport::Forbidden,
        }
    }

    /// What the tool answers with when it answers with content blocks rather than JSON data
    /// (its output schema carries [`CONTENT_KEYWORD`]); `None` for a tool that returns data.
    ///
    /// ```
    /// use toolsmith_spec::spec::{ContentKind, CONTENT_KEYWORD};
    /// let spec = toolsmith_spec::ToolSpec::new("render_chart", "Renders a chart.", serde_json::json!({}))
    ///     .with_output_schema(serde_json::json!({ CONTENT_KEYWORD: "image" }));
    /// assert_eq!(spec.content_kind(), Some(ContentKind::Image));
    /// ```
    pub fn content_kind(&self) -> Option<ContentKind> {
        let kind = self.output_schema.as_ref()?.get(CONTENT_KEYWORD)?;
        ContentKind::parse(kind.as_str()?)
    }

    /// The schema of the JSON data beside a tool's content blocks (a [`ContentKind::Mixed`]
    /// result's `data`), or the whole output schema of a tool that returns data; `None` when the
    /// tool returns no data.
    pub fn data_schema(&self) -> Option<&Value> {
        let out = self.output_schema.as_ref()?;
        match self.content_kind() {
            None => Some(out),
            Some(ContentKind::Mixed) => out.get("properties")?.get("data"),
            Some(_) => None,
        }
    }

    /// Sets the short human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> ToolSpec {
        self.title = Some(title.into());
        self
    }

    /// Sets the JSON Schema of the data a successful call returns.
    #[must_use]
    pub fn with_output_schema(mut self, output_schema: Value) -> ToolSpec {
        self.output_schema = Some(output_schema);
        self
    }

    /// Sets the declared side effects.
    #[must_use]
    pub fn with_effects(mut self, effects: Effects) -> ToolSpec {
        self.effects = effects;
        self
    }

    /// Adds one lint exception after those already declared.
    #[must_use]
    pub fn with_allow(mut self, allow: Allow) -> ToolSpec {
        self.allows.push(allow);
        self
    }

    /// Sets the lint exceptions, replacing those already declared.
    #[must_use]
    pub fn with_allows(mut self, allows: impl IntoIterator<Item = Allow>) -> ToolSpec {
        self.allows = allows.into_iter().collect();
        self
    }

    /// Sets the per-tool timeout in milliseconds.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> ToolSpec {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Sets the implementation version.
    #[must_use]
    pub fn with_version(mut self, version: impl Into<String>) -> ToolSpec {
        self.version = version.into();
        self
    }

    /// Adds one example call after those already declared: the arguments of a call, as a JSON
    /// object that fits the input schema (the toolbox refuses a tool whose example does not).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// # use toolsmith::ToolSpec;
    /// let spec = ToolSpec::new(
    ///     "search_products",
    ///     "Searches the catalog. Returns matching products.",
    ///     serde_json::json!({
    ///         "type": "object",
    ///         "properties": {"query": {"type": "string"}},
    ///         "required": ["query"],
    ///         "additionalProperties": false,
    ///     }),
    /// )
    /// .with_example(serde_json::json!({"query": "tent"}));
    /// assert_eq!(spec.examples, vec![serde_json::json!({"query": "tent"})]);
    /// ```
    #[must_use]
    pub fn with_example(mut self, example: Value) -> ToolSpec {
        self.examples.push(example);
        self
    }

    /// Adds one icon after those already declared (the toolbox refuses a tool whose icon breaks
    /// MCP's rules: [`Icon::problems`]).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// # use toolsmith::ToolSpec;
    /// use toolsmith::spec::Icon;
    /// let spec = ToolSpec::new("search_products", "Searches the catalog.", serde_json::json!({"type": "object"}))
    ///     .with_icon(Icon::new("https://example.com/search.svg").with_sizes(["any"]));
    /// assert_eq!(spec.icons[0].sizes, ["any"]);
    /// ```
    #[must_use]
    pub fn with_icon(mut self, icon: Icon) -> ToolSpec {
        self.icons.push(icon);
        self
    }

    /// Marks the tool as part of the always-loaded core set (see [`core`](ToolSpec::core)).
    #[must_use]
    pub fn with_core(mut self, core: bool) -> ToolSpec {
        self.core = core;
        self
    }

    /// Lets (or makes) the tool's calls run as tasks (see [`task`](ToolSpec::task)).
    #[must_use]
    pub fn with_task(mut self, task: TaskSupport) -> ToolSpec {
        self.task = task;
        self
    }

    /// Puts the tool into a namespace (see [`namespace`](ToolSpec::namespace)).
    #[must_use]
    pub fn with_namespace(mut self, namespace: Namespace) -> ToolSpec {
        self.namespace = Some(namespace);
        self
    }

    /// The names of the model-facing parameters, in declaration order.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// # use toolsmith::ToolSpec;
    /// let spec = ToolSpec::new(
    ///     "greet",
    ///     "Greets. Returns the greeting.",
    ///     serde_json::json!({"type": "object", "properties": {"who": {"type": "string"}}}),
    /// );
    /// assert_eq!(spec.param_names(), vec!["who"]);
    /// ```
    pub fn param_names(&self) -> Vec<&str> {
        self.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The description of one parameter, if the parameter exists and has one.
    pub fn param_description(&self, param: &str) -> Option<&str> {
        self.input_schema
            .get("properties")?
            .get(param)?
            .get("description")?
            .as_str()
    }

    /// The agent-facing part of the spec (name, title, description, schemas, effects), as the
    /// canonical JSON that fingerprints and snapshots are computed from.
    pub fn agent_facing(&self) -> Value {
        let mut v = serde_json::json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "effects": self.effects,
        });
        let obj = v.as_object_mut().expect("object literal");
        if let Some(t) = &self.title {
            obj.insert("title".into(), Value::String(t.clone()));
        }
        if let Some(o) = &self.output_schema {
            obj.insert("outputSchema".into(), o.clone());
        }
        // The model reads the examples where a target carries them (Anthropic's
        // `input_examples`); absent when there are none, so specs without examples keep their
        // fingerprints.
        if !self.examples.is_empty() {
            obj.insert("examples".into(), Value::Array(self.examples.clone()));
        }
        // The deprecation (the notice is in the description too); absent when not deprecated.
        if let Some(d) = &self.deprecated {
            obj.insert(
                "deprecated".into(),
                serde_json::to_value(d).unwrap_or(Value::Null),
            );
        }
        // Whether the model sees the tool up front, and the group it sees it in: absent unless
        // declared, so existing fingerprints stay.
        if self.core {
            obj.insert("core".into(), Value::Bool(true));
        }
        if let Some(ns) = &self.namespace {
            obj.insert(
                "namespace".into(),
                serde_json::json!({"name": ns.name, "description": ns.description}),
            );
        }
        v
    }
}

impl ToolSpec {
    /// The spec's fingerprint: a SHA-256 over the canonical JSON of its agent-facing definition
    /// ([`ToolSpec::agent_facing`], keys sorted), as 16 lowercase hex characters.
    ///
    /// It changes when, and only when, something the model reads changes: the "description version"
    /// recorded in audit records and artifact indexes.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::spec::*; } pub mod content { pub use toolsmith_spec::spec::*; } }
    /// # use toolsmith::ToolSpec;
    /// let mut spec = ToolSpec::new(
    ///     "greet",
    ///     "Greets. Returns the greeting.",
    ///     serde_json::json!({"type": "object"}),
    /// )
    /// .with_version("1.0.0");
    /// let before = spec.fingerprint();
    /// spec.version = "1.0.1".into();
    /// assert_eq!(before, spec.fingerprint());
    /// spec.description = "Greets warmly. Returns the greeting.".into();
    /// assert_ne!(before, spec.fingerprint());
    /// ```
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let canonical = canonical_json(&self.agent_facing());
        let digest = Sha256::digest(canonical.as_bytes());
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Compact JSON with object keys sorted at every level: a stable text for hashing and diffing.
pub fn canonical_json(value: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&map[k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_none_is_the_default_and_each_setter_sets_its_own_flag() {
        assert_eq!(Effects::none(), Effects::default());
        assert!(Effects::none().names().is_empty());
        type Setter = fn(Effects, bool) -> Effects;
        let set: [(Setter, &str); 8] = [
            (Effects::with_read_only, "read_only"),
            (Effects::with_writes, "writes"),
            (Effects::with_destructive, "destructive"),
            (Effects::with_network, "network"),
            (Effects::with_open_world, "open_world"),
            (Effects::with_idempotent, "idempotent"),
            (Effects::with_requires_approval, "requires_approval"),
            (Effects::with_untrusted_output, "untrusted_output"),
        ];
        for (setter, name) in set {
            let on = setter(Effects::none(), true);
            assert_eq!(on.names(), vec![name]);
            assert_eq!(setter(on, false), Effects::none(), "{name} turns off again");
        }
    }

    #[test]
    fn conditional_approval_is_serialized_only_when_set() {
        let plain = Effects::none()
            .with_writes(true)
            .with_requires_approval(true);
        let text = serde_json::to_string(&plain).unwrap();
        assert!(!text.contains("conditionalApproval"), "{text}");
        let conditional = plain.with_conditional_approval(true);
        let value = serde_json::to_value(conditional).unwrap();
        assert_eq!(value["conditionalApproval"], true);
        assert_eq!(value["requiresApproval"], true);
        let back: Effects = serde_json::from_value(value).unwrap();
        assert_eq!(back, conditional);
        let spec = |e| {
            ToolSpec::new("pay", "Pays.", serde_json::json!({"type": "object"})).with_effects(e)
        };
        assert_ne!(spec(plain).fingerprint(), spec(conditional).fingerprint());
        // Off again, requires_approval stays as set.
        assert_eq!(conditional.with_conditional_approval(false), plain);
    }

    #[test]
    fn the_constructor_and_setters_fill_every_field() {
        let schema = serde_json::json!({"type": "object"});
        let out = serde_json::json!({"type": "string"});
        let effects = Effects::none().with_writes(true);
        let spec = ToolSpec::new("send", "Sends. Returns the id.", schema.clone())
            .with_title("Send")
            .with_output_schema(out.clone())
            .with_effects(effects)
            .with_allow(Allow::new("a", "first"))
            .with_allow(Allow::new("b", "second"))
            .with_timeout_ms(250)
            .with_version("2.0.0");
        let literal = ToolSpec {
            name: "send".into(),
            title: Some("Send".into()),
            description: "Sends. Returns the id.".into(),
            input_schema: schema.clone(),
            output_schema: Some(out),
            effects,
            allows: vec![
                Allow {
                    rule: "a".into(),
                    reason: "first".into(),
                },
                Allow {
                    rule: "b".into(),
                    reason: "second".into(),
                },
            ],
            timeout_ms: Some(250),
            version: "2.0.0".into(),
            examples: Vec::new(),
            deprecated: None,
            icons: Vec::new(),
            core: false,
            namespace: None,
            task: TaskSupport::Forbidden,
        };
        assert_eq!(spec, literal);
        let with_example = spec.clone().with_example(serde_json::json!({"to": "a"}));
        assert_eq!(with_example.examples, vec![serde_json::json!({"to": "a"})]);
        assert_ne!(with_example.fingerprint(), spec.fingerprint());
        assert!(serde_json::to_string(&with_example)
            .unwrap()
            .ends_with(r#""examples":[{"to":"a"}]}"#));
        let replaced = spec.with_allows([Allow::new("c", "only")]);
        assert_eq!(replaced.allows, vec![Allow::new("c", "only")]);

        let bare = ToolSpec::new("send", "Sends.", schema);
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"name":"send","description":"Sends.","inputSchema":{"type":"object"},"effects":{"readOnly":false,"writes":false,"destructive":false,"network":false,"openWorld":false,"idempotent":false,"requiresApproval":false,"untrustedOutput":false},"version":"0.0.0"}"#
        );
    }
}

/// Deprecation lives beside the spec (not in `deprecation.rs`), so that `deprecation` needs
/// nothing of `spec` and the two modules import in one direction.
impl ToolSpec {
    /// Deprecates the tool: sets [`deprecated`](ToolSpec::deprecated) and appends the
    /// deprecation's notice to the description (replacing the notice of an earlier deprecation;
    /// a description that already ends with this notice, as `#[tool]` builds it, is kept).
    #[must_use]
    pub fn with_deprecated(mut self, deprecation: crate::Deprecation) -> ToolSpec {
        if let Some(old) = self.deprecated.take() {
            let old = old.notice();
            if let Some(base) = self.description.trim_end().strip_suffix(old.as_str()) {
                self.description = base.trim_end().to_string();
            }
        }
        self.description =
            toolsmith_lint::deprecation::with_notice(&self.description, &deprecation.notice());
        self.deprecated = Some(deprecation);
        self
    }
}

#[cfg(test)]
mod deprecation_tests {
    use super::ToolSpec;
    use crate::Deprecation;

    #[test]
    fn a_deprecation_changes_the_fingerprint_and_serializes_only_when_present() {
        let spec = ToolSpec::new(
            "book_flight",
            "Books. Returns the booking.",
            serde_json::json!({"type": "object"}),
        );
        let plain = serde_json::to_string(&spec).unwrap();
        assert!(!plain.contains("deprecated"));
        let d = spec
            .clone()
            .with_deprecated(Deprecation::new("3").with_replacement("book_trip"));
        assert_ne!(d.fingerprint(), spec.fingerprint());
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(
            json["deprecated"],
            serde_json::json!({"since": "3", "replacedBy": "book_trip"})
        );
        assert_eq!(d.agent_facing()["deprecated"], json["deprecated"]);
        // Deprecating again replaces the notice; the same notice is not appended twice.
        let again = d
            .clone()
            .with_deprecated(Deprecation::new("4").with_replacement("book_trip"));
        assert_eq!(
            again.description,
            "Books. Returns the booking. Deprecated since version 4. Use `book_trip` instead."
        );
        let back: ToolSpec = serde_json::from_value(json).unwrap();
        assert_eq!(back, d);
    }
}
