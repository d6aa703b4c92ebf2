//! The canonical, agent-facing definition of a tool.
//!
//! A [`ToolSpec`] is what the model reads (name, title, description, input and output schemas) plus
//! what the host needs to know about the tool's side effects. Every export target is lowered from
//! this one value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The side effects a tool declares in `#[tool(...)]`.
///
/// Every tool declares its effects explicitly; the declaration is part of the spec, feeds the
/// annotations of every export target and is what a [`Policy`](crate) checks before a call runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
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
}

impl Effects {
    /// The names of the declared effects, in declaration-keyword form (`read_only`, `writes`, ...).
    ///
    /// ```
    /// let e = tool_core::Effects { read_only: true, untrusted_output: true, ..Default::default() };
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
/// The reason travels with the spec so exceptions stay visible in exports and audits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Allow {
    /// The lint rule id, e.g. `description_budget`.
    pub rule: String,
    /// Why the exception is deliberate.
    pub reason: String,
}

/// The canonical definition of one tool.
///
/// Serialized with camelCase keys (`inputSchema`, `outputSchema`), the shape MCP uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
}

impl ToolSpec {
    /// The names of the model-facing parameters, in declaration order.
    ///
    /// ```
    /// # use tool_core::{Allow, Effects, ToolSpec};
    /// let spec = ToolSpec {
    ///     name: "greet".into(), title: None, description: "Greets. Returns the greeting.".into(),
    ///     input_schema: serde_json::json!({"type": "object", "properties": {"who": {"type": "string"}}}),
    ///     output_schema: None, effects: Effects::default(), allows: vec![], timeout_ms: None,
    ///     version: "1.0.0".into(),
    /// };
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
    /// # use tool_core::{Allow, Effects, ToolSpec};
    /// let mut spec = ToolSpec {
    ///     name: "greet".into(), title: None, description: "Greets. Returns the greeting.".into(),
    ///     input_schema: serde_json::json!({"type": "object"}), output_schema: None,
    ///     effects: Effects::default(), allows: vec![], timeout_ms: None, version: "1.0.0".into(),
    /// };
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
