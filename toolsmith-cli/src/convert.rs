//! `toolsmith convert --to TARGET FILE`: a third-party tool list lowered with the export pipeline
//! of `toolsmith-core`, with a report of what the target could not carry.

use std::path::Path;

use serde_json::Value;
use toolsmith_spec::export::{export, export_tool, McpVersion, Target};
use toolsmith_spec::{Effects, ToolSpec};

use crate::input;
use crate::{emit, CliError};

/// The target for a `--to` value: a short name or an exact slug.
pub fn target(to: &str) -> Result<Target, CliError> {
    let t = match to {
        "mcp" => Some(Target::Mcp(McpVersion::V2025_11_25)),
        "openai" => Some(Target::OpenAiChat { strict: false }),
        other => Target::from_slug(other),
    };
    t.ok_or_else(|| {
        let slugs: Vec<&str> = Target::all().iter().map(|t| t.slug()).collect();
        CliError::input(format!(
            "unknown target `{to}`; use mcp, openai, anthropic, gemini, webmcp or one of: {}",
            slugs.join(", ")
        ))
    })
}

/// The effects a third-party tool declares through MCP annotations, under MCP's defaults (a tool
/// that says nothing may write, destroy and reach the open world).
pub fn effects(def: &Value) -> Effects {
    let hint = |k: &str| {
        def.get("annotations")
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    let read_only = hint("readOnlyHint") == Some(true);
    Effects::none()
        .with_read_only(read_only)
        .with_writes(!read_only)
        .with_destructive(!read_only && hint("destructiveHint") != Some(false))
        .with_open_world(hint("openWorldHint") != Some(false))
        .with_idempotent(hint("idempotentHint") == Some(true))
}

/// The canonical spec of an MCP-shaped definition, or why there is none.
pub fn spec_of(def: &Value) -> Result<ToolSpec, String> {
    let Some(obj) = def.as_object() else {
        return Err("the definition is not a JSON object".into());
    };
    let name = match obj.get("name") {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        _ => return Err("the definition has no name".into()),
    };
    let title = obj
        .get("title")
        .or_else(|| def.pointer("/annotations/title"))
        .and_then(Value::as_str)
        .map(String::from);
    let description = obj
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let input_schema = obj
        .get("inputSchema")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    let mut spec = ToolSpec::new(name, description, input_schema)
        .with_effects(effects(def))
        .with_version("0.0.0");
    spec.title = title;
    Ok(spec)
}

/// What `target` drops of a definition that was carried.
fn losses(def: &Value, lowered: &Value, target: Target) -> Vec<String> {
    let mut out = Vec::new();
    let mcp = matches!(target, Target::Mcp(_));
    let has = |k: &str| def.get(k).is_some_and(|v| !v.is_null());
    if has("outputSchema") && !mcp {
        out.push(format!(
            "outputSchema dropped: {target} has no output schema"
        ));
    }
    if has("annotations") && !matches!(target, Target::Mcp(_) | Target::WebMcp) {
        out.push(format!(
            "annotations dropped: {target} has no tool annotations"
        ));
    }
    if has("title") && !matches!(target, Target::Mcp(_) | Target::WebMcp) {
        out.push(format!("title dropped: {target} has no tool title"));
    }
    if let Some(obj) = def.as_object() {
        for k in obj.keys() {
            if !matches!(
                k.as_str(),
                "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations"
            ) {
                out.push(format!("`{k}` dropped: the export pipeline carries name, title, description, schemas and annotations"));
            }
        }
    }
    let description = def
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let lowered_description = lowered
        .get("description")
        .or_else(|| lowered.pointer("/function/description"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !lowered_description.is_empty() && lowered_description != description {
        out.push("description changed by the lowering (constraints the target cannot express moved into text)".into());
    }
    let schema_key = [
        "inputSchema",
        "parameters",
        "input_schema",
        "parametersJsonSchema",
    ];
    let lowered_schema = schema_key.iter().find_map(|k| {
        lowered
            .get(*k)
            .or_else(|| lowered.get("function").and_then(|f| f.get(*k)))
    });
    if let (Some(a), Some(b)) = (def.get("inputSchema"), lowered_schema) {
        if a != b {
            out.push(format!(
                "input schema rewritten for {target} (see the export pipeline)"
            ));
        }
    }
    out
}

/// Runs the command.
pub fn run(to: &str, file: &Path) -> Result<u8, CliError> {
    let target = target(to)?;
    let source = input::load_file(file)?;
    let mut report: Vec<String> = Vec::new();
    let mut specs = exportable(&source, target, &mut report);
    let mut doc = export_list(&mut specs, target, &mut report)?;
    let left_out = report.len();
    let dropped = carry(&mut doc, &specs, &source.defs, target);
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    ))?;
    for line in &report {
        eprintln!("toolsmith: convert: {line}");
    }
    for (loss, names) in &dropped {
        let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
        eprintln!(
            "toolsmith: convert: {loss}: {}{} ({} tool{})",
            shown.join(", "),
            if names.len() > 8 { ", ..." } else { "" },
            names.len(),
            if names.len() == 1 { "" } else { "s" }
        );
    }
    eprintln!(
        "toolsmith: converted {} of {} tools to {} ({}){}",
        specs.len(),
        source.defs.len(),
        target,
        target.slug(),
        if left_out > 0 {
            format!("; {left_out} left out")
        } else {
            String::new()
        }
    );
    Ok(u8::from(left_out > 0))
}

/// The spec of each definition of `source` that `target` can carry on its own, with the
/// definition's index; each one left out is told in `report`.
fn exportable(
    source: &input::Source,
    target: Target,
    report: &mut Vec<String>,
) -> Vec<(usize, ToolSpec)> {
    let mut specs = Vec::new();
    for (i, def) in source.defs.iter().enumerate() {
        match spec_of(def) {
            Ok(spec) => match export_tool(&spec, target) {
                Ok(_) => specs.push((i, spec)),
                Err(e) => report.push(format!(
                    "`{}` left out: {}; {}",
                    spec.name,
                    e.problem(),
                    e.fix()
                )),
            },
            Err(why) => report.push(format!(
                "tool {} ({}) left out: {why}",
                i, source.tools[i].at
            )),
        }
    }
    specs
}

/// The list of `specs` exported to `target`. A list rule that fails (duplicate names,
/// per-request limits) leaves out the tool it names, told in `report`, and the export is tried
/// again.
fn export_list(
    specs: &mut Vec<(usize, ToolSpec)>,
    target: Target,
    report: &mut Vec<String>,
) -> Result<Value, CliError> {
    loop {
        let list: Vec<ToolSpec> = specs.iter().map(|(_, s)| s.clone()).collect();
        match export(&list, target) {
            Ok(doc) => return Ok(doc),
            Err(e) => {
                report.push(format!(
                    "`{}` left out: {}; {}",
                    e.tool,
                    e.problem(),
                    e.fix()
                ));
                let before = specs.len();
                if let Some(k) = specs.iter().rposition(|(_, s)| s.name == e.tool) {
                    specs.remove(k);
                }
                if specs.len() == before {
                    return Err(CliError::input(format!("cannot convert to {target}: {e}")));
                }
            }
        }
    }
}

/// Finishes the carried tools of `doc`, in order, and returns what was carried with losses:
/// each loss once, with the tools it applies to. MCP keeps each tool's own output schema
/// (toolsmith's envelope schema describes toolsmith results, not this server's).
fn carry(
    doc: &mut Value,
    specs: &[(usize, ToolSpec)],
    defs: &[Value],
    target: Target,
) -> Vec<(String, Vec<String>)> {
    let mut dropped: Vec<(String, Vec<String>)> = Vec::new();
    let items: Option<&mut Vec<Value>> = match doc {
        Value::Array(items) => Some(items),
        Value::Object(m) => {
            let key = if m.contains_key("tools") {
                "tools"
            } else {
                "functionDeclarations"
            };
            m.get_mut(key).and_then(Value::as_array_mut)
        }
        _ => None,
    };
    for (tool, (i, spec)) in items.into_iter().flatten().zip(specs) {
        let def = &defs[*i];
        if let (Target::Mcp(_), Some(obj)) = (target, tool.as_object_mut()) {
            match def.get("outputSchema") {
                Some(s) => {
                    obj.insert("outputSchema".into(), s.clone());
                }
                None => {
                    obj.remove("outputSchema");
                }
            }
        }
        for loss in losses(def, tool, target) {
            match dropped.iter_mut().find(|(l, _)| *l == loss) {
                Some((_, names)) => names.push(spec.name.clone()),
                None => dropped.push((loss, vec![spec.name.clone()])),
            }
        }
    }
    dropped
}
