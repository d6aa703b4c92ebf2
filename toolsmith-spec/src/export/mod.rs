//! Exports: one canonical [`ToolSpec`] list lowered to every agent platform.
//!
//! # The pipeline
//!
//! There is one lowering pipeline, not one exporter per platform. A target's
//! profile (a private table in `lower.rs`, one row per [`Target`]) switches passes on or off and
//! sets limits; every target then runs the same steps:
//!
//! 1. **Tool checks** — the name against the target's [`NameRule`], the description (required
//!    and non-empty for WebMCP; at most 1024 characters for OpenAI).
//! 2. **Root checks** — the input root must be `"type": "object"`; OpenAI forbids `oneOf`,
//!    `anyOf`, `allOf`, `enum`, `const`, `not` at the root, Anthropic `oneOf`, `anyOf`, `allOf`.
//! 3. **`$schema`** — dropped for every vendor API; kept as written for MCP (SEP-1613: a client
//!    reads the dialect from it, and the conformance suite's `json-schema-2020-12` checks it).
//!    Only a hand-written schema has one: the canonical schema of a Rust type carries none.
//! 4. **`$ref` inlining** (Gemini, Anthropic strict) — every `$ref` is replaced by its definition
//!    from the root `$defs`; a recursive type cannot be inlined and is an error. Other targets
//!    keep `$defs`/`$ref` (the canonical schema only keeps them for recursive types).
//! 5. **A walk over every subschema**, applying per node:
//!    - *merge `allOf`* of plain objects (Gemini, strict targets);
//!    - *collapse const unions* (OpenAI, Anthropic, Gemini): a documented enum
//!      `oneOf: [{"const": "low", "title": "Reply within 3 days"}, ...]` becomes
//!      `{"type": "string", "enum": ["low", ...]}` and the titles go into the description
//!      (`"... One of: low (Reply within 3 days), high (Reply today)."`);
//!    - *`oneOf` → `anyOf`* (OpenAI, Anthropic strict, Gemini); *`const` → `enum`* (Gemini);
//!    - *rejections*: tuples (`prefixItems`) in strict targets, arrays without `items` for
//!      OpenAI, non-scalar enum values and schemas with no type in strict targets;
//!    - *strict objects* (strict targets): every object gets `additionalProperties: false`
//!      (a map-like object, i.e. `additionalProperties` not `false`, is an error). OpenAI strict
//!      also lists every property in `required` and makes each optional one nullable
//!      (`"type": ["string", "null"]`, `null` added to an `enum`, or `anyOf: [..., {"type":
//!      "null"}]` when there is no `type`): **null means absent**, see
//!      the validate stage for the host side, which drops a `null` given for an optional parameter. A `$ref` with sibling keywords is wrapped
//!      as `anyOf: [{"$ref": ...}]` so the reference stays bare;
//!    - *constraints → description*: keywords the target cannot express are removed and
//!      appended to that subschema's description as one parenthetical, e.g.
//!      `"Search text. (at least 1 character; at most 200 characters)"`. The runtime still
//!      enforces them, because it validates against the canonical schema.
//! 6. **Assembly** — the tool object in the target's shape (below), annotations mapped from
//!    [`Effects`](crate::spec::Effects); then list rules in export order (below): unique names and
//!    per-request limits (OpenAI 128 tools; Anthropic strict 20 tools, 24 optional and 16
//!    union-typed parameters in all). [`export`] fails on the first problem;
//!    [`write_artifacts`] exports what it can and lists every failure in `index.json`.
//!
//! Every failure is an [`ExportError`] naming the tool, the target, a JSON pointer into the
//! tool's canonical definition (`/name`, `/inputSchema/properties/tags/items`, ...), the problem
//! and what to do.
//!
//! # Targets
//!
//! | [`Target`] | slug | document | per tool |
//! |---|---|---|---|
//! | `Mcp(V2025_06_18)` | `mcp-2025-06-18` | `{"tools": [...]}` | `name, title?, description, inputSchema, outputSchema?, annotations, _meta?` |
//! | `Mcp(V2025_11_25)` | `mcp-2025-11-25` | same | same |
//! | `Mcp(V2026_07_28)` | `mcp-2026-07-28` | same | same; output schema of any type |
//! | `OpenAiChat { strict }` | `openai-chat[-strict]` | `[...]` | `{"type": "function", "function": {name, description, parameters, strict}}` |
//! | `OpenAiResponses { strict }` | `openai-responses[-strict]` | `[...]` | `{"type": "function", name, description, parameters, strict}` |
//! | `Anthropic { strict }` | `anthropic[-strict]` | `[...]` | `{name, description, input_schema, strict?}` |
//! | `Gemini` | `gemini` | `{"functionDeclarations": [...]}` | `{name, description, parametersJsonSchema}` |
//! | `WebMcp` | `webmcp` | `[...]` | `{name, title?, description, inputSchema, annotations}` (the `registerTool` dictionary without `execute`) |
//!
//! **MCP.** The schema is passed through (it is already clean 2020-12). `outputSchema` is the
//! tool's own output type, object-wrapped as `{"result": ...}` where the protocol version needs
//! an object (2025-06-18, 2025-11-25), with one `anyOf` arm that admits the status-only
//! `structuredContent` of a non-ok call; toolsmith-core's `export::mcp_call_result` is the call side of the same rule,
//! and, on every outcome but an `ok` whose data is the whole answer, carries the envelope in the
//! text block and in `_meta` under `ENVELOPE_META_KEY`.
//! Annotations are always explicit because the
//! protocol's defaults are pessimistic: `title` (when the spec has one), `readOnlyHint` =
//! `read_only`, `destructiveHint` = `destructive` and not `read_only`, `idempotentHint` =
//! `idempotent` or `read_only`, `openWorldHint` = `open_world`. Lint exceptions go into
//! `_meta: {"toolsmith/allows": [{"rule", "reason"}]}`; a tool whose approval a condition on the
//! arguments decides ([`Effects::conditional_approval`](crate::spec::Effects::conditional_approval))
//! carries `"toolsmith/approval": "conditional"` there. `execution.taskSupport` is not emitted
//! (its default, `forbidden`, is what toolsmith executors do).
//!
//! **OpenAI.** `strict` is always emitted (the Responses API defaults to strict). Strict lowering
//! keeps `pattern`, the formats `date-time time date duration email hostname ipv4 ipv6 uuid`,
//! numeric bounds, `minItems`/`maxItems`, `enum`, `const`, `anyOf`, `$defs`/`$ref` (recursion is
//! allowed); it moves `minLength`, `maxLength`, `uniqueItems`, `default`, other formats and the
//! conditional keywords into the description. The result is a fixed point of openai-agents'
//! `ensure_strict_json_schema` (proved by a consumer test). Not checked: the 5000-property,
//! depth-10 and 1000-enum-value limits.
//!
//! **Anthropic.** Plain: the schema as is, documented enums collapsed. Strict: `$ref`s inlined
//! (recursion is an error), numeric bounds, string lengths, `pattern`, `default`, `maxItems`,
//! `minItems` above 1, `uniqueItems` and formats outside the SDK's list moved into the
//! description, exactly as the `anthropic` SDK's `transform_schema` would (the export is a fixed
//! point of it); per-request limits checked across the list.
//!
//! **Gemini.** `parametersJsonSchema` with `$ref`s inlined (recursion is an error), `allOf`
//! merged, `const` → `enum`, `oneOf` → `anyOf`; `not`, `if/then/else`, `patternProperties`,
//! `uniqueItems` moved into the description. The output schema is not exported.
//!
//! **WebMCP.** The canonical schema unchanged; annotations `readOnlyHint` = `read_only`,
//! `untrustedContentHint` = `untrusted_output`, `consequentialHint` = `writes` or
//! `destructive` or `requires_approval` (always explicit). A consumer test registers the export
//! in real Chromium and reads it back with `getTools()`.
//!
//! **Lint exceptions outside MCP.** The vendor APIs reject unknown fields, so `allows` are not
//! put into OpenAI, Anthropic, Gemini or WebMCP tool objects; they stay visible in the MCP
//! `_meta` and in the artifacts' `index.json`.
//!
//! # Deferred loading, namespaces, caching and order
//!
//! **Order.** Every export (and `index.json`) lists the tools in one order whatever the order of
//! the specs: tools outside a namespace first, then each namespace by name; within each, by
//! name. Two toolboxes that register the same tools in any order export the same bytes, so a
//! prompt prefix stays byte-identical between requests and builds.
//!
//! **Deferred loading.** A list with no core tool ([`ToolSpec::core`]) defers nothing: its
//! exports are as they were. Once any tool is core, every other tool is deferred:
//! - Anthropic and OpenAI Responses: `"defer_loading": true` on the tool, and, in front of the
//!   list, the platform's tool-search tool ([`ToolSearch`]; both APIs refuse deferred tools
//!   without one): Anthropic `{"type": "tool_search_tool_regex_20251119", "name":
//!   "tool_search_tool_regex"}` (or BM25), OpenAI `{"type": "tool_search"}`.
//! - MCP: no deferral field; every tool is listed, a deferred one with `_meta:
//!   {"toolsmith/deferred": true}` for hosts that load on demand (and for `toolsmith measure`).
//! - OpenAI Chat Completions, Gemini and WebMCP have no deferral: every tool as before.
//!
//! [`export_tool`] exports one tool without its list, so it never defers.
//!
//! **Namespaces** ([`ToolSpec::namespace`]). The OpenAI Responses export puts a namespace's
//! tools into one `{"type": "namespace", "name", "description", "tools": [...]}` entry (each
//! member the usual function object, `defer_loading` included); a model calls a member by its
//! own name, and the call names the namespace beside it. A namespace's name follows OpenAI's
//! function-name rule, its description must not be empty and must be the same on every member,
//! and no tool of the list may have its name ([`check_namespaces`], `InvalidNamespace`). The
//! other targets have no namespaces and ignore them; their tools are listed flat.
//!
//! **Caching** ([`ExportOptions::cache_control`]). Anthropic caches the tool definitions up to
//! a `cache_control` breakpoint; the export puts `{"type": "ephemeral"}` on the last tool that
//! is loaded up front (deferred tools are not part of the prefix; with the tool-search tool
//! alone up front, on that). OpenAI caches prefixes without a field, and the other targets have
//! none: the option changes only the Anthropic export.
//!
//! # Artifacts and drift (the `cargo test` recipe)
//!
//! In the manner of ts-rs, a crate's own test writes its artifacts and checks them against a
//! committed snapshot:
//!
//! ```no_run
//! # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
//! # fn specs() -> Vec<toolsmith::ToolSpec> { vec![] }
//! #[test]
//! fn tool_specs_are_exported_and_unchanged() {
//!     let specs = specs(); // e.g. toolbox.specs()
//!     toolsmith::export::write_artifacts(&specs, toolsmith::export::default_artifact_dir())
//!         .unwrap();
//!     // Fails with a per-tool diff when an exported definition changed;
//!     // `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test` accepts the change.
//!     if let Err(drift) = toolsmith::export::check_snapshot(
//!         &specs,
//!         concat!(env!("CARGO_MANIFEST_DIR"), "/tool-specs"),
//!     ) {
//!         panic!("{drift}");
//!     }
//! }
//! ```
//!
//! The snapshot is the full artifact set (one file per target plus `index.json`), so a
//! reviewer sees in the diff exactly what each platform will receive. See [`check_snapshot`]
//! for the first-run and CI rules.

mod artifacts;
mod error;
mod loading;
mod lower;
pub mod mcp;
mod names;
mod snapshot;
mod target;
mod tree;

/// The host side of OpenAI strict mode lives with the argument clean-up of the call pipeline.
pub use artifacts::{
    default_artifact_dir, write_artifacts, write_artifacts_with, ArtifactError, ArtifactReport,
};
pub use error::{ExportError, ExportErrorKind};
pub use loading::{check_namespaces, ExportOptions, ToolSearch};
pub use names::{name_rejected_by, NameRule};
pub use snapshot::{check_snapshot, update_requested, SnapshotDrift, UPDATE_ENV};
pub use target::{McpVersion, Target};

use serde_json::Value;

use crate::spec::ToolSpec;

/// The tool list for `target`, in the document shape the target uses: `{"tools": [...]}` for
/// MCP (like a `tools/list` result), `{"functionDeclarations": [...]}` for Gemini, an array of
/// tool objects for OpenAI, Anthropic and WebMCP.
///
/// Fails with the first [`ExportError`] in export order.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{export, McpVersion, Target};
/// use toolsmith::{Effects, ToolSpec};
/// let spec = ToolSpec::new(
///     "get_time",
///     "Returns the current UTC time as RFC 3339 text.",
///     serde_json::json!({"type": "object", "additionalProperties": false}),
/// )
/// .with_title("Get time")
/// .with_effects(Effects::none().with_read_only(true))
/// .with_version("1.0.0");
/// let mcp = export(&[spec.clone()], Target::Mcp(McpVersion::V2025_11_25)).unwrap();
/// assert_eq!(mcp["tools"][0]["annotations"]["readOnlyHint"], true);
/// let openai = export(&[spec], Target::OpenAiResponses { strict: true }).unwrap();
/// assert_eq!(openai[0]["parameters"]["required"], serde_json::json!([]));
/// ```
pub fn export(specs: &[ToolSpec], target: Target) -> Result<Value, ExportError> {
    export_with(specs, target, &ExportOptions::default())
}

/// [`export`] with [`ExportOptions`]: Anthropic's cache breakpoint, the tool-search tool that
/// deferred tools need. See [the list's own fields](self#deferred-loading-namespaces-caching-and-order).
pub fn export_with(
    specs: &[ToolSpec],
    target: Target,
    options: &ExportOptions,
) -> Result<Value, ExportError> {
    export_tree(specs, target, options).map(tree::Tree::into_value)
}

/// The JSON text of the tool list for `target`: byte for byte
/// `serde_json::to_string(&export(specs, target)?)`, without building that value.
///
/// The lowering borrows every part of the specs it leaves unchanged and copies only what a pass
/// of the target changes, then writes the document straight to text. Use it where the export is
/// sent or stored as text (an HTTP body, a file); [`write_artifacts`] writes its files this way.
///
/// Fails with the first [`ExportError`] in export order, the same error [`export`] returns.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{export, export_text, Target};
/// use toolsmith::ToolSpec;
/// let spec = ToolSpec::new(
///     "get_time",
///     "Returns the current UTC time as RFC 3339 text.",
///     serde_json::json!({"type": "object", "additionalProperties": false}),
/// )
/// .with_version("1.0.0");
/// let specs = [spec];
/// for &target in Target::all() {
///     let text = export_text(&specs, target).unwrap();
///     assert_eq!(text, serde_json::to_string(&export(&specs, target).unwrap()).unwrap());
/// }
/// ```
pub fn export_text(specs: &[ToolSpec], target: Target) -> Result<String, ExportError> {
    export_text_with(specs, target, &ExportOptions::default())
}

/// [`export_text`] with [`ExportOptions`]: byte for byte the text of [`export_with`].
pub fn export_text_with(
    specs: &[ToolSpec],
    target: Target,
    options: &ExportOptions,
) -> Result<String, ExportError> {
    export_tree(specs, target, options).map(|doc| doc.to_text())
}

/// The lowered document of [`export_with`] and [`export_text_with`], borrowing from `specs`.
fn export_tree<'a>(
    specs: &'a [ToolSpec],
    target: Target,
    options: &ExportOptions,
) -> Result<tree::Tree<'a>, ExportError> {
    let assembled = lower::assemble(specs, target, lower::Until::FirstFailure);
    if let Some(first) = assembled.failures.into_iter().next() {
        return Err(first);
    }
    Ok(lower::wrap_list(
        target,
        loading::finish(specs, target, options, assembled.tools),
    ))
}

/// One tool object for `target` (the element [`export`] would put in the list).
///
/// List rules (unique names, per-request limits) do not apply to a single tool.
pub fn export_tool(spec: &ToolSpec, target: Target) -> Result<Value, ExportError> {
    lower::lower_tool(spec, &lower::Passes::of(target)).map(|(tool, _)| tool.into_value())
}

/// The JSON text of one tool object for `target`: byte for byte
/// `serde_json::to_string(&export_tool(spec, target)?)`, written without building that value
/// (see [`export_text`]).
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{export_tool, export_tool_text, Target};
/// use toolsmith::ToolSpec;
/// let spec = ToolSpec::new(
///     "get_time",
///     "Returns the current UTC time as RFC 3339 text.",
///     serde_json::json!({"type": "object", "additionalProperties": false}),
/// )
/// .with_version("1.0.0");
/// let target = Target::OpenAiChat { strict: true };
/// let text = export_tool_text(&spec, target).unwrap();
/// assert_eq!(text, export_tool(&spec, target).unwrap().to_string());
/// ```
pub fn export_tool_text(spec: &ToolSpec, target: Target) -> Result<String, ExportError> {
    lower::lower_tool(spec, &lower::Passes::of(target)).map(|(tool, _)| tool.to_tool_text())
}
