//! The MCP fields of 2025-11-25 and 2026-07-28: a tool's `icons`, the `x-mcp-header` annotation
//! of `#[arg(header = "...")]`, and the cache hints of `tools/list`.
//!
//! - The exports: icons in MCP 2025-11-25 and 2026-07-28 only, `x-mcp-header` in MCP 2026-07-28
//!   only, each valid against the official `Tool` (and `ListToolsResult`) definition of its
//!   revision, with the `format: uri` of `Icon.src` asserted; no other target carries either.
//! - Registration: a tool built at run time with a broken icon or annotation is refused, naming
//!   the rule; the fingerprint ignores icons.
//! - The server over streamable HTTP: the list each revision receives, the cache hints of
//!   `McpServer::list_cache` (2026-07-28 only), and rmcp's check of `Mcp-Param-*` headers
//!   against the arguments (a matching, a Base64 non-ASCII, a missing, a differing and an
//!   undecodable header; a request header named like a standard one).
//! - The official Python SDK (`mcp` from PyPI) lists the tools with their icons (nothing
//!   dropped for its annotation) and calls through its own `Mcp-Param-*` headers.

use crate::fixture;

use crate::require;

use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use toolsmith::export::{export, McpVersion, Target};
use toolsmith::mcp::{CacheScope, McpServer};
use toolsmith::spec::{Icon, IconTheme};
use toolsmith::{tool, Tool, ToolSpec, Toolbox};

const BOUND: Duration = Duration::from_secs(30);

/// Runs one query in a region. Returns the region and the query.
#[tool(
    read_only,
    icon = "https://example.com/query.svg",
    icon(src = "https://example.com/query-48.png", mime_type = "image/png", sizes = ["48x48", "96x96"], theme = "dark")
)]
fn run_query(
    /// Region to run in, e.g. "eu-west1".
    #[arg(header = "Region")]
    region: String,
    /// Shard number, e.g. 3.
    #[arg(header = "Shard", maximum = 1000)]
    shard: Option<u32>,
    /// The query, e.g. "select 1".
    query: String,
) -> String {
    format!("{region}/{}: {query}", shard.unwrap_or(0))
}

/// Routes one message by its method. Returns the method.
#[tool(read_only)]
fn route_message(
    /// The message's method, e.g. "ping"; mirrored into `Mcp-Param-Method`, never `Mcp-Method`.
    #[arg(header = "Method")]
    method: String,
) -> String {
    method
}

fn specs() -> Vec<ToolSpec> {
    vec![run_query::tool().spec().clone()]
}

fn official(version: &str, name: &str) -> jsonschema::Validator {
    let mut doc =
        fixture::workspace_file(&format!("tests/fixtures/specs/mcp-schema-{version}.json"));
    let defs = if doc.get("definitions").is_some() {
        "definitions"
    } else {
        "$defs"
    };
    doc["$ref"] = json!(format!("#/{defs}/{name}"));
    // `format` asserted: an icon's `src` must be a URI.
    jsonschema::options()
        .should_validate_formats(true)
        .build(&doc)
        .unwrap()
}

#[track_caller]
fn assert_conforms(version: &str, name: &str, value: &Value) {
    let errors: Vec<String> = official(version, name)
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{version} {name}: {errors:?}\n{value}");
}

/// Every `x-mcp-header` in a JSON document.
fn headers_in(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    if k == "x-mcp-header" {
                        out.push(v.to_string());
                    }
                    walk(v, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

#[test]
fn the_2026_07_28_export_carries_icons_and_headers_valid_against_the_official_schema() {
    let doc = export(&specs(), Target::Mcp(McpVersion::V2026_07_28)).unwrap();
    let tool = &doc["tools"][0];
    assert_eq!(
        tool["icons"],
        json!([
            {"src": "https://example.com/query.svg"},
            {"src": "https://example.com/query-48.png", "mimeType": "image/png",
             "sizes": ["48x48", "96x96"], "theme": "dark"}
        ])
    );
    let props = &tool["inputSchema"]["properties"];
    assert_eq!(props["region"]["x-mcp-header"], "Region");
    assert_eq!(props["shard"]["x-mcp-header"], "Shard");
    assert!(props["query"].get("x-mcp-header").is_none());
    assert_conforms("2026-07-28", "Tool", tool);
    // As the server sends it: with the required cache hints.
    let mut list = doc.clone();
    list["resultType"] = json!("complete");
    list["ttlMs"] = json!(60_000);
    list["cacheScope"] = json!("public");
    assert_conforms("2026-07-28", "ListToolsResult", &list);
    // A bad cache hint is refused by the same schema (the check can fail).
    list["cacheScope"] = json!("shared");
    assert!(!official("2026-07-28", "ListToolsResult").is_valid(&list));
    // And an icon whose src is no URI.
    let mut bad = tool.clone();
    bad["icons"][0]["src"] = json!("not a uri");
    assert!(!official("2026-07-28", "Tool").is_valid(&bad));
}

#[test]
fn older_revisions_and_other_targets_get_what_their_schema_allows() {
    let specs = specs();
    let doc = export(&specs, Target::Mcp(McpVersion::V2025_11_25)).unwrap();
    let tool = &doc["tools"][0];
    assert_eq!(tool["icons"].as_array().map(Vec::len), Some(2));
    assert_eq!(headers_in(&doc), Vec::<String>::new());
    assert_conforms("2025-11-25", "Tool", tool);
    assert_conforms("2025-11-25", "ListToolsResult", &doc);

    let doc = export(&specs, Target::Mcp(McpVersion::V2025_06_18)).unwrap();
    assert!(doc["tools"][0].get("icons").is_none(), "{doc}");
    assert_eq!(headers_in(&doc), Vec::<String>::new());
    assert_conforms("2025-06-18", "Tool", &doc["tools"][0]);

    for target in [
        Target::OpenAiChat { strict: true },
        Target::OpenAiChat { strict: false },
        Target::OpenAiResponses { strict: true },
        Target::Anthropic { strict: true },
        Target::Anthropic { strict: false },
        Target::Gemini,
        Target::WebMcp,
    ] {
        let doc = export(&specs, target).unwrap();
        let text = doc.to_string();
        assert_eq!(headers_in(&doc), Vec::<String>::new(), "{target:?}: {text}");
        assert!(!text.contains("icons"), "{target:?}: {text}");
        assert!(!text.contains("example.com"), "{target:?}: {text}");
    }
}

/// A root `$schema` the schema's author wrote reaches MCP clients of every revision (SEP-1613:
/// the client reads the dialect from it; the conformance suite's `json-schema-2020-12` checks
/// it), each export still valid against its revision's `Tool`; the other targets take none.
#[test]
fn a_hand_written_root_schema_uri_reaches_mcp_clients_only() {
    let dialect = "https://json-schema.org/draft/2020-12/schema";
    let spec = ToolSpec::new(
        "echo_contact",
        "Echoes a contact. Returns the arguments it was given.",
        json!({
            "$schema": dialect,
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The contact's name."}},
            "additionalProperties": false
        }),
    );
    for version in McpVersion::ALL {
        let doc = export(std::slice::from_ref(&spec), Target::Mcp(version)).unwrap();
        let tool = &doc["tools"][0];
        assert_eq!(
            tool["inputSchema"]["$schema"], dialect,
            "{version:?}: {doc}"
        );
        assert_conforms(version.as_str(), "Tool", tool);
    }
    for target in Target::all()
        .iter()
        .filter(|t| !matches!(t, Target::Mcp(_)))
    {
        let doc = export(std::slice::from_ref(&spec), *target).unwrap();
        assert!(!doc.to_string().contains("$schema"), "{target:?}: {doc}");
    }
}

#[test]
fn the_canonical_spec_keeps_the_header_and_the_fingerprint_ignores_icons() {
    let spec = run_query::tool().spec().clone();
    assert_eq!(
        spec.input_schema["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    let mut bare = spec.clone();
    bare.icons.clear();
    assert_eq!(bare.fingerprint(), spec.fingerprint());
    // Serialized only when present.
    assert!(serde_json::to_value(&bare).unwrap().get("icons").is_none());
    assert_eq!(
        serde_json::to_value(&spec).unwrap()["icons"][1]["theme"],
        "dark"
    );
}

fn echo(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_, args| Box::pin(async move { Ok(args) }))
}

fn schema(props: Value) -> Value {
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

#[test]
fn a_tool_built_at_run_time_is_checked_at_registration() {
    let good = ToolSpec::new(
        "route_call",
        "Routes one call. Returns it.",
        schema(json!({"region": {"type": "string", "x-mcp-header": "Region"}})),
    )
    .with_icon(
        Icon::new("data:image/png;base64,iVBORw0KGgo=")
            .with_mime_type("image/png")
            .with_sizes(["any"])
            .with_theme(IconTheme::Light),
    );
    let toolbox = Toolbox::builder().build().unwrap();
    toolbox.register(echo(good)).unwrap();

    let cases: Vec<(ToolSpec, &str)> = vec![
        (
            ToolSpec::new("a", "A tool.", schema(json!({})))
                .with_icon(Icon::new("javascript:alert(1)")),
            "icon 1: icon src",
        ),
        (
            ToolSpec::new("b", "A tool.", schema(json!({})))
                .with_icon(Icon::new("https://example.com/b.png").with_sizes(["48"])),
            "neither WxH",
        ),
        (
            ToolSpec::new("c", "A tool.", schema(json!({}))).with_icon(
                Icon::new("data:image/png;base64,iVBORw0KGgo=").with_mime_type("image/svg+xml"),
            ),
            "contradicts",
        ),
        (
            ToolSpec::new("d", "A tool.", schema(json!({}))).with_icon(Icon::new(format!(
                "data:image/png;base64,{}",
                "A".repeat(20_000)
            ))),
            "over the limit",
        ),
        (
            ToolSpec::new(
                "e",
                "A tool.",
                schema(json!({"region": {"type": "string", "x-mcp-header": "Bad Name"}})),
            ),
            "RFC 9110 token",
        ),
        (
            ToolSpec::new(
                "f",
                "A tool.",
                schema(json!({"place": {"type": "object", "x-mcp-header": "Place"}})),
            ),
            "of type `object`",
        ),
        (
            ToolSpec::new(
                "g",
                "A tool.",
                schema(json!({
                    "a": {"type": "string", "x-mcp-header": "Region"},
                    "b": {"type": "string", "x-mcp-header": "REGION"},
                })),
            ),
            "case-insensitive",
        ),
        (
            ToolSpec::new(
                "h",
                "A tool.",
                schema(
                    json!({"tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}}),
                ),
            ),
            "off the `properties` chain",
        ),
    ];
    for (spec, expected) in cases {
        let name = spec.name.clone();
        let err = toolbox.register(echo(spec)).unwrap_err().to_string();
        assert!(err.contains(expected), "{name}: {err}");
        assert!(
            err.contains(&format!("`{name}`")) || err.contains(&name),
            "{err}"
        );
    }
    assert_eq!(toolbox.specs().len(), 1);
}

#[test]
fn the_header_annotation_costs_the_validator_nothing() {
    let v = toolsmith::validate::Validator::new(&run_query::tool().spec().input_schema).unwrap();
    assert!(
        !v.uses_fallback(),
        "x-mcp-header must not hand the schema to the full validator"
    );
}

// --- the server over streamable HTTP --------------------------------------------------------

async fn serve(server: McpServer) -> (toolsmith::mcp::HttpServer, String) {
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    (http, url)
}

fn toolbox() -> Arc<Toolbox> {
    Arc::new(Toolbox::builder().tool(run_query::tool()).build().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_named_like_a_standard_one_stays_under_its_prefix() {
    let toolbox = Toolbox::builder()
        .tool(route_message::tool())
        .build()
        .unwrap();
    let (http, url) = serve(McpServer::new(toolbox)).await;
    let call = json!({"name": "route_message", "arguments": {"method": "ping"}});
    // `Mcp-Method` names the JSON-RPC method; `Mcp-Param-Method` the argument: both checked.
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        call.clone(),
        &[("mcp-param-method", "ping")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["structuredContent"], "ping", "{answer}");
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        call,
        &[("mcp-param-method", "tools/call")],
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32020)),
        "{answer}"
    );
    http.shutdown().await;
}

/// One 2026-07-28 request with no client capabilities (see [`fixture::post_2026`]).
async fn post_2026(url: &str, method: &str, params: Value, extra: &[(&str, &str)]) -> (u16, Value) {
    fixture::post_2026(url, method, params, json!({}), extra).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_lists_icons_headers_and_the_cache_hints_it_was_given() {
    // Default: every client asks each time, privately.
    let (http, url) = serve(McpServer::new(toolbox())).await;
    let (status, answer) = post_2026(&url, "tools/list", json!({}), &[]).await;
    assert_eq!(status, 200, "{answer}");
    let list = &answer["result"];
    assert_eq!(
        (&list["ttlMs"], &list["cacheScope"]),
        (&json!(0), &json!("private"))
    );
    assert_conforms("2026-07-28", "ListToolsResult", list);
    http.shutdown().await;

    let server = McpServer::new(toolbox()).list_cache(Duration::from_secs(300), CacheScope::Public);
    let (http, url) = serve(server).await;
    let (status, answer) = post_2026(&url, "tools/list", json!({}), &[]).await;
    assert_eq!(status, 200, "{answer}");
    let list = &answer["result"];
    assert_eq!(list["ttlMs"], 300_000);
    assert_eq!(list["cacheScope"], "public");
    assert_conforms("2026-07-28", "ListToolsResult", list);
    let tool = &list["tools"][0];
    assert_eq!(tool["icons"][1]["sizes"], json!(["48x48", "96x96"]));
    assert_eq!(
        tool["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    // A 2025-11-25 session: icons, no annotation, no hints.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let client = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut req = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = session {
            req = req
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", "2025-11-25");
        }
        req.send()
    };
    let res = post(init, None).await.unwrap();
    let session = res.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let _ = res.text().await;
    let _ = post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(session.clone()),
    )
    .await
    .unwrap();
    let res = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        Some(session),
    )
    .await
    .unwrap();
    let text = res.text().await.unwrap();
    let list: Value = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|m| m["id"] == 2)
        .unwrap()["result"]
        .clone();
    assert_eq!(
        list.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["tools"]
    );
    assert_eq!(list["tools"][0]["icons"].as_array().map(Vec::len), Some(2));
    assert_eq!(headers_in(&list), Vec::<String>::new());
    assert_conforms("2025-11-25", "ListToolsResult", &list);
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_mcp_param_header_must_match_the_argument() {
    let (http, url) = serve(McpServer::new(toolbox())).await;
    let call = |region: &str| json!({"name": "run_query", "arguments": {"region": region, "query": "select 1"}});
    // Matching: served.
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        call("eu-west1"),
        &[("mcp-param-region", "eu-west1")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    // 2026-07-28: any JSON value is structured content, unwrapped.
    assert_eq!(
        answer["result"]["structuredContent"], "eu-west1/0: select 1",
        "{answer}"
    );

    // Non-ASCII: the client sends it Base64-wrapped, and it matches once decoded.
    // "Zürich" in UTF-8, Base64.
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        call("Zürich"),
        &[("mcp-param-region", "=?base64?WsO8cmljaA==?=")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");

    // Refused before the tool runs: HTTP 400 with -32020 (HeaderMismatch).
    let refused: [(&str, Vec<(&str, &str)>); 5] = [
        // Routed on one region, asked to act on another.
        ("eu-west1", vec![("mcp-param-region", "us-east1")]),
        // The header left out while the argument is there.
        ("eu-west1", vec![]),
        // A Base64 wrapper that does not decode.
        (
            "eu-west1",
            vec![("mcp-param-region", "=?base64?ZXUtd2VzdDE?=")],
        ),
        // The plain form of a value that needs Base64 does not match its encoding.
        ("Zürich", vec![("mcp-param-region", "=?base64?WnVyaWNo?=")]),
        // Case matters in values.
        ("eu-west1", vec![("mcp-param-region", "EU-WEST1")]),
    ];
    for (region, headers) in refused {
        let (status, answer) = post_2026(&url, "tools/call", call(region), &headers).await;
        assert_eq!(status, 400, "{region} {headers:?}: {answer}");
        assert_eq!(answer["error"]["code"], -32020, "{answer}");
    }
    // The optional shard: absent, no header expected; given, its header must come too.
    let with_shard =
        json!({"name": "run_query", "arguments": {"region": "eu", "shard": 3, "query": "q"}});
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        with_shard.clone(),
        &[("mcp-param-region", "eu")],
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32020)),
        "{answer}"
    );
    let (status, answer) = post_2026(
        &url,
        "tools/call",
        with_shard,
        &[("mcp-param-region", "eu"), ("mcp-param-shard", "3")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["structuredContent"], "eu/3: q", "{answer}");
    http.shutdown().await;
}

// --- the official Python SDK ----------------------------------------------------------------

const PYTHON_CLIENT: &str = r#"
import sys, anyio
from mcp import Client

async def main(url, mode):
    async with Client(url, mode=mode) as c:
        tools = (await c.list_tools()).tools
        names = [t.name for t in tools]
        assert names == ["run_query"], names
        t = tools[0]
        icons = [(i.src, i.mime_type, i.sizes, i.theme) for i in (t.icons or [])]
        assert icons == [
            ("https://example.com/query.svg", None, None, None),
            ("https://example.com/query-48.png", "image/png", ["48x48", "96x96"], "dark"),
        ], icons
        header = t.input_schema["properties"]["region"].get("x-mcp-header")
        version = c.protocol_version
        if version == "2026-07-28":
            assert header == "Region", t.input_schema
        else:
            assert header is None, t.input_schema
        # On 2026-07-28 the SDK mirrors the argument into Mcp-Param-Region (Base64 for Zürich).
        r = await c.call_tool("run_query", {"region": "Zürich", "query": "q"})
        assert not r.is_error, r
        # 2026-07-28 sends any value unwrapped; the 2025 revisions wrap it in an object.
        expected = "Zürich/0: q" if version == "2026-07-28" else {"result": "Zürich/0: q"}
        assert r.structured_content == expected, r.structured_content
        print(f"OK {mode} {version}")

anyio.run(main, sys.argv[1], sys.argv[2])
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_lists_the_icons_and_calls_through_its_own_headers() {
    let python = require::python(env!("CARGO_MANIFEST_DIR"));
    let probe = std::process::Command::new(&python)
        .args(["-c", "import mcp, anyio"])
        .output();
    if !matches!(&probe, Ok(o) if o.status.success()) {
        require::missing::<()>("mcp (PyPI)", "`import mcp` fails");
        return;
    }
    let (http, url) = serve(McpServer::new(toolbox())).await;
    for mode in ["auto", "legacy"] {
        let out = tokio::time::timeout(
            BOUND * 2,
            tokio::process::Command::new(&python)
                .args(["-c", PYTHON_CLIENT, &url, mode])
                .kill_on_drop(true)
                .output(),
        )
        .await
        .expect("the Python client ends within the bound")
        .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{mode}: {text}");
        let expected = if mode == "auto" {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        assert!(text.contains(&format!("OK {mode} {expected}")), "{text}");
    }
    http.shutdown().await;
}
