//! Results that are more than JSON (`toolsmith::content`): each content type returned by a
//! `#[tool]`, as the envelope carries it, as `tools/list` describes it, and as rmcp's own client
//! receives it through `tools/call` in every protocol revision (each result checked against the
//! official `CallToolResult` schema of the revision).

use crate::fixture;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use toolsmith::content::{Audio, Content, Image, Resource, ResourceLink};
use toolsmith::export::{tool_result, McpVersion, Target};
use toolsmith::mcp::McpServer;
use toolsmith::{tool, Status, ToolError, Toolbox};

const BOUND: Duration = Duration::from_secs(30);

/// The bytes of a 1×1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Renders the status light of a service as a small picture. Returns a PNG image.
#[tool(read_only)]
fn render_status_light() -> Image {
    Image::png(PNG)
}

/// Plays the chime of a service. Returns a WAV clip.
#[tool(read_only)]
fn play_chime() -> Result<Audio, ToolError> {
    Ok(Audio::wav(b"RIFF\x24\x00\x00\x00WAVEfmt ".to_vec()))
}

/// Reads the release notes of a version. Returns the notes as an embedded Markdown resource.
#[tool(read_only)]
fn read_release_notes(
    /// The version, such as "1.2".
    version: String,
) -> Result<Resource, ToolError> {
    if version.is_empty() {
        return Err(ToolError::invalid_input(
            "NO_VERSION",
            "Name a version, such as 1.2.",
        ));
    }
    Ok(Resource::text(
        format!("notes://{version}"),
        "text/markdown",
        format!("# {version}\nFixes."),
    ))
}

/// Links the manual of a product. Returns a link to the manual the client can read.
#[tool(read_only)]
fn link_manual() -> ResourceLink {
    ResourceLink::new("file:///manuals/tent.pdf", "tent.pdf")
        .with_mime_type("application/pdf")
        .with_description("The tent's manual.")
}

/// A summary of a chart.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct ChartSummary {
    /// How many points the chart has.
    points: u32,
}

/// Charts the sales of a week. Returns the number of points as data, a caption and the chart.
#[tool(read_only)]
fn chart_sales() -> Content<ChartSummary> {
    Content::with_data(ChartSummary { points: 7 })
        .text("Sales of the week:")
        .block(Image::png(PNG))
}

/// Shows several kinds of content at once. Returns text, an image and an embedded resource.
#[tool(read_only)]
fn show_mixed() -> Content {
    Content::new()
        .text("Multiple content types:")
        .block(Image::png(PNG))
        .block(Resource::text(
            "test://mixed",
            "application/json",
            r#"{"test":"data"}"#,
        ))
}

/// Bytes whose base64 starts `AKIAIOSFODNN7EXAMPLE/` (an AWS key id, as the redactor sees it),
/// the start of a large picture.
fn tricky_image() -> Vec<u8> {
    use base64::Engine as _;
    let mut bytes = base64::engine::general_purpose::STANDARD
        .decode("AKIAIOSFODNN7EXAMPLE////")
        .unwrap();
    bytes.extend((0..300_000u32).map(|i| (i % 251) as u8));
    bytes
}

/// Photographs the rack of a server. Returns a large image and a caption.
#[tool(read_only)]
fn get_rack_photo() -> Content {
    Content::new()
        .text("Rack 4, taken with key AKIAIOSFODNN7EXAMPLE")
        .block(Image::jpeg(tricky_image()))
        .block(Resource::text(
            "notes://rack-4",
            "text/plain",
            "login: postgres://app:hunter2@db:5432/main",
        ))
}

fn toolbox() -> Arc<Toolbox> {
    Arc::new(
        Toolbox::builder()
            .tools([
                get_rack_photo::tool(),
                render_status_light::tool(),
                play_chime::tool(),
                read_release_notes::tool(),
                link_manual::tool(),
                chart_sales::tool(),
                show_mixed::tool(),
            ])
            .build()
            .unwrap(),
    )
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn the_envelope_carries_each_block_as_mcp_writes_it() {
    let tb = toolbox();
    let env = tb.call("render_status_light", json!({})).await;
    assert_eq!(env.status, Status::Ok);
    assert_eq!(
        env.data,
        Some(json!({"type": "image", "mimeType": "image/png", "data": b64(PNG)}))
    );
    let env = tb.call("chart_sales", json!({})).await;
    assert_eq!(env.data.as_ref().unwrap()["data"], json!({"points": 7}));
    assert_eq!(env.data.as_ref().unwrap()["content"][1]["type"], "image");
    // A tool's error is still the envelope's status.
    let env = tb.call("read_release_notes", json!({"version": ""})).await;
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("NO_VERSION"));
}

#[test]
fn the_spec_says_what_comes_back() {
    let tb = toolbox();
    let kinds: Vec<(String, Option<&str>)> = tb
        .specs()
        .iter()
        .map(|s| (s.name.clone(), s.content_kind().map(|k| k.as_str())))
        .collect();
    assert_eq!(
        kinds,
        [
            ("get_rack_photo".to_string(), Some("mixed")),
            ("render_status_light".to_string(), Some("image")),
            ("play_chime".into(), Some("audio")),
            ("read_release_notes".into(), Some("resource")),
            ("link_manual".into(), Some("resource_link")),
            ("chart_sales".into(), Some("mixed")),
            ("show_mixed".into(), Some("mixed")),
        ]
    );
    for version in [
        McpVersion::V2025_06_18,
        McpVersion::V2025_11_25,
        McpVersion::V2026_07_28,
    ] {
        let list = tb.export(Target::Mcp(version)).unwrap();
        let tools = list["tools"].as_array().unwrap();
        for t in tools {
            let name = t["name"].as_str().unwrap();
            let kind = t["_meta"]["toolsmith/content"].as_str();
            assert!(kind.is_some(), "{name}: the kind is listed under _meta");
            // Only data beside the blocks has an output schema; blocks are `content`.
            assert_eq!(
                t.get("outputSchema").is_some(),
                name == "chart_sales",
                "{name}: {t}"
            );
            assert!(
                !t.to_string().contains("x-toolsmith-content"),
                "the marker is not exported: {t}"
            );
        }
        let chart = tools.iter().find(|t| t["name"] == "chart_sales").unwrap();
        let out = &chart["outputSchema"];
        let props = if out
            .get("properties")
            .and_then(|p| p.get("points"))
            .is_some()
        {
            &out["properties"]
        } else {
            &out["properties"]["result"]["properties"]
        };
        assert!(props.get("points").is_some(), "{out}");
    }
}

/// Content blocks are whole or absent: a large image passes the output budget uncut, and the
/// redactor masks the blocks' text but never the base64 of a binary block, even where it looks
/// like a secret.
#[tokio::test]
async fn content_is_not_cut_and_only_its_text_is_redacted() {
    let tb = toolbox();
    let env = tb.call("get_rack_photo", json!({})).await;
    assert_eq!(env.status, Status::Ok);
    assert!(!env.truncated && env.reference.is_none(), "{:?}", env.note);
    let blocks = env.data.as_ref().unwrap()["content"].as_array().unwrap();
    assert_eq!(
        blocks[0]["text"],
        "Rack 4, taken with key [REDACTED:aws_access_key_id]"
    );
    assert_eq!(
        blocks[1]["data"],
        b64(&tricky_image()),
        "the image is whole"
    );
    assert!(blocks[1]["data"]
        .as_str()
        .unwrap()
        .starts_with("AKIAIOSFODNN7EXAMPLE"));
    assert_eq!(
        blocks[2]["resource"]["text"],
        "login: postgres://app:[REDACTED:url_password]@db:5432/main"
    );
}

/// Each platform takes back what it can carry: images where it shows them, a PDF as a document
/// or file where it reads them, and a note in text for the rest; errors stay the envelope.
#[tokio::test]
async fn each_platform_takes_back_what_it_can_carry() {
    let tb = toolbox();
    let spec = tb.spec("chart_sales").unwrap();
    let env = tb.call("chart_sales", json!({})).await;
    let png = b64(PNG);

    let a = tool_result(Some(&spec), &env, Target::Anthropic { strict: false });
    assert_eq!(a["is_error"], false);
    let text: Value = serde_json::from_str(a["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["status"], "ok");
    assert_eq!(
        text["data"],
        json!({"points": 7}),
        "the data, never the blocks: {text}"
    );
    assert_eq!(
        a["content"][1],
        json!({"type": "text", "text": "Sales of the week:"})
    );
    assert_eq!(
        a["content"][2],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}})
    );

    let o = tool_result(Some(&spec), &env, Target::OpenAiResponses { strict: false });
    assert_eq!(o[0]["type"], "input_text");
    assert_eq!(o[2]["type"], "input_image");
    assert_eq!(o[2]["image_url"], format!("data:image/png;base64,{png}"));

    let chat = tool_result(Some(&spec), &env, Target::OpenAiChat { strict: false });
    let chat = chat.as_str().unwrap();
    assert!(chat.contains("Sales of the week:"), "{chat}");
    assert!(
        chat.contains("[image image/png, 69 bytes: not shown; OpenAI Chat tool messages carry no images of this type]"),
        "{chat}"
    );

    let g = tool_result(Some(&spec), &env, Target::Gemini);
    assert_eq!(g["response"]["data"], json!({"points": 7}));
    assert_eq!(g["response"]["content"], json!(["Sales of the week:"]));
    assert_eq!(g["parts"][0]["inlineData"]["mimeType"], "image/png");

    let w = tool_result(Some(&spec), &env, Target::WebMcp);
    assert_eq!(w["content"][2]["type"], "image");

    // Audio: only MCP and WebMCP carry it.
    let spec = tb.spec("play_chime").unwrap();
    let env = tb.call("play_chime", json!({})).await;
    let a = tool_result(Some(&spec), &env, Target::Anthropic { strict: false });
    assert!(a["content"][1]["text"]
        .as_str()
        .unwrap()
        .contains("Anthropic tool results carry no audio"));
    let g = tool_result(Some(&spec), &env, Target::Gemini);
    assert!(g.get("parts").is_none(), "{g}");

    // An error is the envelope as text everywhere.
    let spec = tb.spec("read_release_notes").unwrap();
    let env = tb.call("read_release_notes", json!({"version": ""})).await;
    let a = tool_result(Some(&spec), &env, Target::Anthropic { strict: false });
    assert_eq!(a["is_error"], true);
    assert_eq!(a["content"].as_array().unwrap().len(), 1);
    let o = tool_result(Some(&spec), &env, Target::OpenAiResponses { strict: false });
    assert_eq!(o, Value::String(env.to_json()));
}

/// The `type` of each content block of a `CallToolResult`.
fn types(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect()
}

async fn call_all(version: ProtocolVersion) {
    let tb = toolbox();
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(McpServer::new(Arc::clone(&tb)).serve(server_end));
    let lifecycle = if version.has_initialize() {
        rmcp::service::ClientLifecycleMode::Initialize
    } else {
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    let client = rmcp::service::serve_client_with_lifecycle((), client_end, lifecycle)
        .await
        .unwrap();
    let version = &version;
    let call = |name: &'static str, args: Value| {
        let client = &client;
        async move {
            let Value::Object(args) = args else {
                unreachable!()
            };
            let result = tokio::time::timeout(
                BOUND,
                client.call_tool(CallToolRequestParams::new(name).with_arguments(args)),
            )
            .await
            .expect("answered within the bound")
            .unwrap();
            let value = serde_json::to_value(&result).unwrap();
            let schema = fixture::definition_validator(version.as_str(), "CallToolResult");
            let errors: Vec<String> = schema.iter_errors(&value).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{name} {version}: {errors:?}\n{value}");
            value
        }
    };
    let r = call("render_status_light", json!({})).await;
    assert_eq!(
        r["content"],
        json!([{"type": "image", "mimeType": "image/png", "data": b64(PNG)}]),
        "{r}"
    );
    assert_eq!(r["isError"], false);
    assert!(r.get("structuredContent").is_none(), "{r}");
    let r = call("play_chime", json!({})).await;
    assert_eq!(r["content"][0]["type"], "audio");
    assert_eq!(r["content"][0]["mimeType"], "audio/wav");
    let r = call("read_release_notes", json!({"version": "1.2"})).await;
    assert_eq!(
        r["content"],
        json!([{"type": "resource", "resource": {"uri": "notes://1.2",
                "mimeType": "text/markdown", "text": "# 1.2\nFixes."}}])
    );
    let r = call("link_manual", json!({})).await;
    assert_eq!(r["content"][0]["type"], "resource_link");
    assert_eq!(r["content"][0]["uri"], "file:///manuals/tent.pdf");
    let r = call("show_mixed", json!({})).await;
    assert_eq!(types(&r), ["text", "image", "resource"], "{r}");
    // Data beside the blocks: its JSON is the text block, and structuredContent.
    let r = call("chart_sales", json!({})).await;
    assert_eq!(types(&r), ["text", "text", "image"], "{r}");
    let structured = &r["structuredContent"];
    assert!(
        structured["points"] == 7 || structured["result"]["points"] == 7,
        "{r}"
    );
    // An error is the envelope, as for any tool.
    let r = call("read_release_notes", json!({"version": ""})).await;
    assert_eq!(r["isError"], true, "{r}");
    client.cancel().await.unwrap();
    tokio::time::timeout(BOUND, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn every_content_type_reaches_an_rmcp_client_in_every_version() {
    for version in [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ] {
        call_all(version).await;
    }
}

/// The output budget does not cut content, so a byte limit bounds it: a result whose content
/// passes `max_content_bytes` is `failed` with `CONTENT_TOO_LARGE` (through `call` and through
/// `call_json`, which keeps a typed result as text), and one within it is whole.
#[tokio::test]
async fn content_over_the_byte_limit_is_refused_whole() {
    let tb = Toolbox::builder()
        .tools([get_rack_photo::tool(), render_status_light::tool()])
        .max_content_bytes(10_000)
        .build()
        .unwrap();
    let small = tb.call("render_status_light", json!({})).await;
    assert_eq!(small.status, Status::Ok);
    let big = tb.call("get_rack_photo", json!({})).await;
    assert_eq!(big.status, Status::Failed, "{big:?}");
    assert_eq!(
        big.code.as_deref(),
        Some(toolsmith::codes::CONTENT_TOO_LARGE)
    );
    assert!(big.data.is_none());
    let message = big.message.unwrap();
    assert!(message.contains("over the 10000"), "{message}");
    let text = tb.call_json("get_rack_photo", "{}").await;
    let env: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(env["code"], "CONTENT_TOO_LARGE", "{env}");
    // The default limit (16 MiB) lets the 400 KB photo through.
    let env = toolbox().call("get_rack_photo", json!({})).await;
    assert_eq!(env.status, Status::Ok);
}
