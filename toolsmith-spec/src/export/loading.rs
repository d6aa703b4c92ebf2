//! What a list adds to its tools: the order of every export, deferred loading with the
//! platform's tool-search tool, OpenAI namespaces and Anthropic's cache breakpoint.
//!
//! Per tool, lowering is [`super::lower`]'s; the rules here need the whole list.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::error::{ExportError, ExportErrorKind};
use super::names::NameRule;
use super::target::Target;
use super::tree::Tree;
use crate::spec::ToolSpec;

/// The MCP `_meta` key that marks a deferred tool (a non-core tool of a list with a core set).
pub(crate) const DEFERRED_META_KEY: &str = "toolsmith/deferred";

/// Settings of an export beyond its [`Target`]: the tool-search tool that deferred tools need
/// and Anthropic's cache breakpoint. `ExportOptions::default()` is what
/// [`export`](super::export) uses.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::{export_with, ExportOptions, Target, ToolSearch};
/// use toolsmith::ToolSpec;
/// let schema = serde_json::json!({"type": "object", "additionalProperties": false});
/// let specs = [
///     ToolSpec::new("search_products", "Searches the catalog. Returns products.", schema.clone())
///         .with_core(true),
///     ToolSpec::new("refund_order", "Refunds an order. Returns the refund.", schema),
/// ];
/// let options = ExportOptions::default().with_cache_control(true);
/// let tools = export_with(&specs, Target::Anthropic { strict: false }, &options).unwrap();
/// assert_eq!(tools[0]["type"], "tool_search_tool_regex_20251119");
/// assert_eq!(tools[1]["defer_loading"], true); // refund_order: not core
/// assert_eq!(tools[2]["cache_control"]["type"], "ephemeral"); // the last tool loaded up front
/// let bare = ExportOptions::default().with_tool_search(ToolSearch::Off);
/// let tools = export_with(&specs, Target::Anthropic { strict: false }, &bare).unwrap();
/// assert_eq!(tools.as_array().unwrap().len(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Put `cache_control: {"type": "ephemeral"}` on the last tool of the Anthropic export that
    /// is loaded up front (deferred tools are not part of the cached prefix). Other targets
    /// have no such field and ignore it. Off by default.
    pub cache_control: bool,
    /// The tool-search tool added when a list defers tools.
    pub tool_search: ToolSearch,
}

impl ExportOptions {
    /// Sets [`cache_control`](ExportOptions::cache_control).
    #[must_use]
    pub const fn with_cache_control(mut self, on: bool) -> ExportOptions {
        self.cache_control = on;
        self
    }

    /// Sets [`tool_search`](ExportOptions::tool_search).
    #[must_use]
    pub const fn with_tool_search(mut self, search: ToolSearch) -> ExportOptions {
        self.tool_search = search;
        self
    }
}

/// The tool-search tool an export adds in front of its tools when it defers some: Anthropic
/// and OpenAI refuse a request with deferred tools and no way to search them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolSearch {
    /// Anthropic's regex search (`tool_search_tool_regex_20251119`); OpenAI's hosted
    /// `{"type": "tool_search"}`. The default.
    #[default]
    Regex,
    /// Anthropic's BM25 search (`tool_search_tool_bm25_20251119`); OpenAI's hosted
    /// `{"type": "tool_search"}`.
    Bm25,
    /// No search tool: the host adds its own (a client-executed search, say) to the request.
    Off,
}

/// The order of every export: tools outside a namespace first, then each namespace in name
/// order; within each, tools by name (byte order). Independent of the order of `specs`, so an
/// export is byte for byte the same whatever order the tools were registered in. A stable
/// sort: tools with the same namespace and name keep their order (the second is a duplicate).
pub(crate) fn order(specs: &[ToolSpec]) -> Vec<usize> {
    fn key(s: &ToolSpec) -> (Option<&str>, &str) {
        (
            s.namespace.as_ref().map(|n| n.name.as_str()),
            s.name.as_str(),
        )
    }
    let mut idx: Vec<usize> = (0..specs.len()).collect();
    idx.sort_by(|&a, &b| key(&specs[a]).cmp(&key(&specs[b])));
    idx
}

/// Whether `target` has a deferral field (`defer_loading`).
fn defers(target: Target) -> bool {
    matches!(
        target,
        Target::Anthropic { .. } | Target::OpenAiResponses { .. }
    )
}

/// Whether a tool is deferred in a list: the list has a core set and the tool is not in it.
fn deferred(specs: &[ToolSpec], i: usize) -> bool {
    !specs[i].core && specs.iter().any(|s| s.core)
}

/// Every problem of the namespaces of `specs`, by spec index, as the OpenAI Responses export
/// reports them: a name OpenAI does not accept, an empty description, two descriptions of one
/// namespace, a namespace named like a tool of the list.
pub(crate) fn namespace_errors(specs: &[ToolSpec], target: Target) -> HashMap<usize, ExportError> {
    let names: HashSet<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let mut first: HashMap<&str, &str> = HashMap::new();
    let mut out = HashMap::new();
    for i in order(specs) {
        let spec = &specs[i];
        let Some(ns) = &spec.namespace else { continue };
        let problem = if !NameRule::OpenAi.accepts(&ns.name) {
            Some((
                "/namespace/name",
                format!("the name must be {}", NameRule::OpenAi.describe()),
            ))
        } else if ns.description.trim().is_empty() {
            Some((
                "/namespace/description",
                "the description is empty; the model reads it to decide whether to load the \
                 namespace's tools"
                    .to_string(),
            ))
        } else if names.contains(ns.name.as_str()) {
            Some((
                "/namespace/name",
                "a tool of the list has the same name".to_string(),
            ))
        } else {
            match first.insert(&ns.name, &ns.description) {
                Some(other) if other != ns.description => Some((
                    "/namespace/description",
                    format!("another tool describes it differently: {other:?}"),
                )),
                _ => None,
            }
        };
        if let Some((pointer, reason)) = problem {
            out.insert(
                i,
                ExportError {
                    tool: spec.name.clone(),
                    target,
                    pointer: pointer.into(),
                    kind: ExportErrorKind::InvalidNamespace {
                        namespace: ns.name.clone(),
                        reason,
                    },
                },
            );
        }
    }
    out
}

/// Every problem of the namespaces of `specs` (see [`ToolSpec::namespace`]), in export order:
/// a name OpenAI's rule rejects (`^[a-zA-Z0-9_-]{1,64}$`), an empty description, one namespace
/// described two ways, a namespace with the name of a tool of the list. The OpenAI Responses
/// export fails with the first; toolsmith-core's toolbox refuses to build with any.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::export::check_namespaces;
/// use toolsmith::{Namespace, ToolSpec};
/// let schema = serde_json::json!({"type": "object"});
/// let specs = [
///     ToolSpec::new("billing", "Bills. Returns the bill.", schema.clone()),
///     ToolSpec::new("refund", "Refunds. Returns the refund.", schema)
///         .with_namespace(Namespace::new("billing", "Invoices and refunds.")),
/// ];
/// let problems = check_namespaces(&specs);
/// assert_eq!(problems[0].pointer, "/namespace/name");
/// assert!(problems[0].to_string().contains("a tool of the list has the same name"));
/// ```
pub fn check_namespaces(specs: &[ToolSpec]) -> Vec<ExportError> {
    let mut errors = namespace_errors(specs, Target::OpenAiResponses { strict: false });
    order(specs)
        .into_iter()
        .filter_map(|i| errors.remove(&i))
        .collect()
}

/// The list-level fields of a lowered list (in export order, each tool with its spec index):
/// `defer_loading` (or MCP `_meta`) on deferred tools, the tool-search tool in front, OpenAI
/// namespaces, Anthropic's cache breakpoint.
pub(crate) fn finish<'a>(
    specs: &'a [ToolSpec],
    target: Target,
    options: &ExportOptions,
    tools: Vec<(usize, Tree<'a>)>,
) -> Vec<Tree<'a>> {
    let mut out: Vec<(Option<usize>, bool, Tree<'a>)> = Vec::with_capacity(tools.len() + 1);
    let mut any_deferred = false;
    for (i, mut tool) in tools {
        let is_deferred = deferred(specs, i);
        if is_deferred {
            let entries = tool.make_entries();
            if defers(target) {
                any_deferred = true;
                entries.insert("defer_loading", Tree::Val(Value::Bool(true)));
            } else if let Target::Mcp(_) = target {
                // MCP has no deferral field: the mark travels in `_meta`, for hosts and for
                // `toolsmith measure`.
                match entries.get_mut("_meta") {
                    Some(Tree::Val(Value::Object(meta))) => {
                        meta.insert(DEFERRED_META_KEY.into(), Value::Bool(true));
                    }
                    _ => entries.insert("_meta", Tree::Val(json!({ DEFERRED_META_KEY: true }))),
                }
            }
        }
        out.push((Some(i), is_deferred && defers(target), tool));
    }
    if any_deferred {
        let search = match (target, options.tool_search) {
            (_, ToolSearch::Off) => None,
            (Target::Anthropic { .. }, ToolSearch::Regex) => Some(json!({
                "type": "tool_search_tool_regex_20251119",
                "name": "tool_search_tool_regex",
            })),
            (Target::Anthropic { .. }, ToolSearch::Bm25) => Some(json!({
                "type": "tool_search_tool_bm25_20251119",
                "name": "tool_search_tool_bm25",
            })),
            _ => Some(json!({"type": "tool_search"})),
        };
        if let Some(search) = search {
            out.insert(0, (None, false, Tree::Val(search)));
        }
    }
    if options.cache_control && matches!(target, Target::Anthropic { .. }) {
        if let Some((_, _, tool)) = out.iter_mut().rev().find(|(_, d, _)| !d) {
            tool.make_entries()
                .insert("cache_control", Tree::Val(json!({"type": "ephemeral"})));
        }
    }
    if matches!(target, Target::OpenAiResponses { .. }) {
        return group_namespaces(specs, out.into_iter().map(|(i, _, t)| (i, t)));
    }
    out.into_iter().map(|(_, _, t)| t).collect()
}

/// OpenAI Responses: the tools of each namespace (adjacent in export order) in one
/// `{"type": "namespace", name, description, tools}` entry where the first of them stood.
fn group_namespaces<'a>(
    specs: &'a [ToolSpec],
    tools: impl Iterator<Item = (Option<usize>, Tree<'a>)>,
) -> Vec<Tree<'a>> {
    let mut out: Vec<Tree<'a>> = Vec::new();
    let mut open: Option<(&'a str, usize)> = None;
    for (i, tool) in tools {
        let Some(ns) = i.and_then(|i| specs[i].namespace.as_ref()) else {
            open = None;
            out.push(tool);
            continue;
        };
        if let Some((name, at)) = open {
            if name == ns.name {
                if let Tree::Obj(group) = &mut out[at] {
                    if let Some(Tree::Arr(members)) = group.get_mut("tools") {
                        members.push(tool);
                        continue;
                    }
                }
            }
        }
        open = Some((&ns.name, out.len()));
        out.push(Tree::object([
            ("type", Tree::Str("namespace")),
            ("name", Tree::Str(&ns.name)),
            ("description", Tree::Str(&ns.description)),
            ("tools", Tree::Arr(vec![tool])),
        ]));
    }
    out
}
