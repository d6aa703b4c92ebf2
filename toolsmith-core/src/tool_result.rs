//! A call's result as each agent platform takes a tool's output back: the envelope as text (the
//! model reads the status, code, message and data there, as always), and a tool's content blocks
//! ([`crate::content`]) in the shapes the platform accepts, with a note in text for what it
//! cannot carry.
//!
//! | block | MCP | Anthropic `tool_result` | OpenAI Responses | OpenAI Chat | Gemini | WebMCP |
//! |---|---|---|---|---|---|---|
//! | text | text | text | `input_text` | text | in `response` | text |
//! | image | image | `image` (PNG, JPEG, GIF, WebP; others noted) | `input_image` (data URL) | noted | `parts[].inlineData` | image |
//! | audio | audio | noted | noted | noted | noted | audio |
//! | embedded text resource | resource | text | `input_text` | text | in `response` | resource |
//! | embedded binary resource | resource | `document` for PDF, else noted | `input_file` (data URL) | noted | `parts[].inlineData` for PDF, else noted | resource |
//! | resource link | resource_link | text (the URI) | `input_text` | text | in `response` | resource_link |
//!
//! "Noted" means the block is replaced by a text such as `[audio/wav, 4 bytes: not shown; this
//! platform's tool results carry no audio]`, so the model knows something was there.

use crate::envelope::{Envelope, Status};
use crate::mcp_result::mcp_call_result;
use serde_json::{json, Map, Value};
use toolsmith_spec::export::Target;
use toolsmith_spec::spec::ContentKind;
use toolsmith_spec::ToolSpec;

/// The output of a call of the tool `spec` (`None`: not known) as `target` takes it back:
///
/// - **MCP**: the `CallToolResult` ([`mcp_call_result`](crate::export::mcp_call_result)).
/// - **Anthropic**: `{"content": [...], "is_error": bool}`, the body of a `tool_result` block
///   (add `"type": "tool_result"` and the `tool_use_id`).
/// - **OpenAI Responses**: the `output` of a `function_call_output` item: the envelope's text,
///   or an array of `input_text` / `input_image` / `input_file` parts when the tool answered
///   with content.
/// - **OpenAI Chat**: the `content` of the `tool` message: text (Chat Completions takes no
///   images in tool messages; content is noted).
/// - **Gemini**: `{"response": {...}, "parts": [...]}`, the body of a `functionResponse` (add
///   the `name`): the envelope as the response object, media as `inlineData` parts.
/// - **WebMCP**: `{"content": [...]}`, MCP's blocks, as a tool's `execute` answers.
///
/// Which block each platform carries ("noted": replaced by a text saying what was there):
///
/// | block | MCP | Anthropic | OpenAI Responses | OpenAI Chat | Gemini | WebMCP |
/// |---|---|---|---|---|---|---|
/// | text, embedded text resource, link | as is | text | `input_text` | text | in `response` | as is |
/// | image | as is | `image` (PNG, JPEG, GIF, WebP) | `input_image` | noted | `inlineData` | as is |
/// | audio | as is | noted | noted | noted | noted | as is |
/// | binary resource | as is | `document` (PDF) | `input_file` | noted | `inlineData` (PDF) | as is |
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::content::Image;
/// use toolsmith::export::{tool_result, Target};
/// use toolsmith::{Envelope, Status};
/// let env = Envelope::error(Status::Failed, "NO_CHART", "No chart for that week.");
/// let out = tool_result(None, &env, Target::Anthropic { strict: false });
/// assert_eq!(out["is_error"], true);
/// assert_eq!(out["content"][0]["type"], "text");
/// ```
pub fn tool_result(spec: Option<&ToolSpec>, env: &Envelope, target: Target) -> Value {
    if let Target::Mcp(version) = target {
        return mcp_call_result(spec, env, version);
    }
    let (text, blocks) = split(spec, env);
    match target {
        Target::Anthropic { .. } => anthropic(text, &blocks, env),
        Target::OpenAiResponses { .. } => openai_responses(text, &blocks),
        Target::OpenAiChat { .. } => Value::String(joined(text, &blocks, PLATFORM_OPENAI_CHAT)),
        Target::Gemini => gemini(&text, &blocks),
        // `Target` may grow: a new platform gets MCP's blocks until it is taught its own.
        _ => webmcp(text, blocks),
    }
}

const PLATFORM_ANTHROPIC: &str = "Anthropic tool results";
const PLATFORM_OPENAI: &str = "OpenAI function outputs";
const PLATFORM_OPENAI_CHAT: &str = "OpenAI Chat tool messages";
const PLATFORM_GEMINI: &str = "Gemini function responses";

/// The envelope's text (with the data beside the blocks, never the blocks) and the blocks of a
/// content tool's `ok`; every other result is its envelope's text alone.
fn split(spec: Option<&ToolSpec>, env: &Envelope) -> (String, Vec<Value>) {
    let kind = spec.and_then(ToolSpec::content_kind);
    let (Some(kind), Status::Ok, Some(data)) = (kind, env.status, env.data.as_ref()) else {
        return (env.to_json(), Vec::new());
    };
    let mut shown = env.clone();
    let blocks = match (kind, data) {
        (ContentKind::Mixed, Value::Object(m)) => {
            shown.data = m.get("data").cloned();
            m.get("content")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        }
        _ => {
            shown.data = None;
            vec![data.clone()]
        }
    };
    (shown.to_json(), blocks)
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The note that stands for a block the platform cannot carry.
fn note(block: &Value, platform: &str) -> String {
    let kind = str_of(block, "type");
    let (mime, payload) = match kind {
        "resource" => {
            let r = &block["resource"];
            (str_of(r, "mimeType"), str_of(r, "blob"))
        }
        _ => (str_of(block, "mimeType"), str_of(block, "data")),
    };
    // Base64: four characters for three bytes, less the padding.
    let padding = payload.bytes().rev().take_while(|b| *b == b'=').count();
    let bytes = (payload.len() / 4 * 3).saturating_sub(padding);
    let what = match kind {
        "audio" => "audio",
        "image" => "images of this type",
        _ => "binary resources of this type",
    };
    format!("[{kind} {mime}, {bytes} bytes: not shown; {platform} carry no {what}]")
}

/// A text block's text, an embedded text resource (its URI first) or a link, as text; `None`
/// for a binary block.
fn as_text(block: &Value) -> Option<String> {
    match str_of(block, "type") {
        "text" => Some(str_of(block, "text").to_string()),
        "resource" => {
            let r = &block["resource"];
            r.get("text").and_then(Value::as_str).map(|t| {
                format!(
                    "[resource {} ({})]\n{t}",
                    str_of(r, "uri"),
                    str_of(r, "mimeType")
                )
            })
        }
        "resource_link" => {
            let mut line = format!(
                "[resource link {}: {}",
                str_of(block, "name"),
                str_of(block, "uri")
            );
            for key in ["mimeType", "description"] {
                if let Some(v) = block.get(key).and_then(Value::as_str) {
                    line.push_str(&format!("; {v}"));
                }
            }
            line.push(']');
            Some(line)
        }
        _ => None,
    }
}

/// The text and every block as one text (binary blocks noted).
fn joined(text: String, blocks: &[Value], platform: &str) -> String {
    let mut out = text;
    for block in blocks {
        out.push('\n');
        out.push_str(&as_text(block).unwrap_or_else(|| note(block, platform)));
    }
    out
}

fn is_pdf(mime: &str) -> bool {
    mime == "application/pdf"
}

fn anthropic(text: String, blocks: &[Value], env: &Envelope) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    for block in blocks {
        let image = str_of(block, "type") == "image"
            && ["image/png", "image/jpeg", "image/gif", "image/webp"]
                .contains(&str_of(block, "mimeType"));
        let resource = &block["resource"];
        let pdf = str_of(block, "type") == "resource"
            && is_pdf(str_of(resource, "mimeType"))
            && resource.get("blob").is_some();
        content.push(if image {
            json!({"type": "image", "source": {"type": "base64",
                "media_type": str_of(block, "mimeType"), "data": str_of(block, "data")}})
        } else if pdf {
            json!({"type": "document", "source": {"type": "base64",
                "media_type": "application/pdf", "data": str_of(resource, "blob")}})
        } else {
            let t = as_text(block).unwrap_or_else(|| note(block, PLATFORM_ANTHROPIC));
            json!({"type": "text", "text": t})
        });
    }
    json!({"content": content, "is_error": !env.is_success()})
}

fn openai_responses(text: String, blocks: &[Value]) -> Value {
    if blocks.is_empty() {
        return Value::String(text);
    }
    let mut parts = vec![json!({"type": "input_text", "text": text})];
    for block in blocks {
        let resource = &block["resource"];
        parts.push(match str_of(block, "type") {
            "image" => json!({"type": "input_image", "image_url": format!(
                "data:{};base64,{}", str_of(block, "mimeType"), str_of(block, "data"))}),
            "resource" if resource.get("blob").is_some() => {
                let uri = str_of(resource, "uri");
                let filename = uri
                    .rsplit('/')
                    .next()
                    .filter(|n| !n.is_empty())
                    .unwrap_or(uri);
                json!({"type": "input_file", "filename": filename, "file_data": format!(
                    "data:{};base64,{}", str_of(resource, "mimeType"), str_of(resource, "blob"))})
            }
            _ => {
                let t = as_text(block).unwrap_or_else(|| note(block, PLATFORM_OPENAI));
                json!({"type": "input_text", "text": t})
            }
        });
    }
    Value::Array(parts)
}

fn gemini(text: &str, blocks: &[Value]) -> Value {
    // The response is the envelope as an object, the data beside the blocks in it.
    let mut response = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut texts = Vec::new();
    let mut parts = Vec::new();
    for block in blocks {
        let resource = &block["resource"];
        let inline = match str_of(block, "type") {
            "image" => Some((str_of(block, "mimeType"), str_of(block, "data"))),
            "resource" if is_pdf(str_of(resource, "mimeType")) => resource
                .get("blob")
                .and_then(Value::as_str)
                .map(|b| ("application/pdf", b)),
            _ => None,
        };
        match inline {
            Some((mime, data)) => {
                parts.push(json!({"inlineData": {"mimeType": mime, "data": data}}));
            }
            None => {
                texts.push(Value::String(
                    as_text(block).unwrap_or_else(|| note(block, PLATFORM_GEMINI)),
                ));
            }
        }
    }
    if !texts.is_empty() {
        response.insert("content".into(), Value::Array(texts));
    }
    let mut out = Map::new();
    out.insert("response".into(), Value::Object(response));
    if !parts.is_empty() {
        out.insert("parts".into(), Value::Array(parts));
    }
    Value::Object(out)
}

fn webmcp(text: String, blocks: Vec<Value>) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    content.extend(blocks);
    json!({ "content": content })
}
