//! Shared by the MCP server tests: a workspace on disk (with a link that leads out of it), the
//! toolbox serving it, and the official `Tool` validators.

use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// `base/ws` is the workspace; `base/outside/secret.txt` is not, and `ws/link_out` leads there.
pub struct Dir {
    pub base: PathBuf,
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

impl Dir {
    pub fn new(label: &str) -> Dir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let base =
            std::env::temp_dir().join(format!("toolsmith-mcp-{label}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("ws/notes")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/secret.txt"), "SECRET-OUTSIDE\n").unwrap();
        fs::write(
            base.join("ws/notes/todo.md"),
            "# Todo\n- TODO: pack the tent\n",
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("outside"), base.join("ws/link_out")).unwrap();
        Dir { base }
    }

    pub fn root(&self) -> PathBuf {
        self.base.join("ws")
    }

    /// Host paths no message may contain.
    pub fn host_paths(&self) -> Vec<String> {
        let canon = fs::canonicalize(&self.base).unwrap();
        vec![self.base.display().to_string(), canon.display().to_string()]
    }

    /// The path attacks: (path, what it tries).
    pub fn attacks(&self) -> Vec<(String, &'static str)> {
        let mut v = vec![
            ("../outside/secret.txt".to_string(), "dot-dot"),
            (
                self.base.join("outside/secret.txt").display().to_string(),
                "absolute",
            ),
            ("notes/\u{0}todo.md".to_string(), "NUL byte"),
        ];
        if cfg!(unix) {
            v.push(("link_out/secret.txt".to_string(), "symlink out"));
        }
        v
    }
}

/// A JSON file of the repository, by its path from the root.
pub fn workspace_file(rel: &str) -> Value {
    let path = crate::workspace().join(rel);
    serde_json::from_slice(&fs::read(&path).unwrap()).unwrap()
}

/// A validator for the official `Tool` definition of `version` (see
/// toolsmith-core/tests/it/export_mcp_schema.rs).
pub fn tool_validator(version: &str) -> jsonschema::Validator {
    definition_validator(version, "Tool")
}

/// A validator for the definition `name` (e.g. `ListToolsResult`) of the official schema of
/// `version`.
pub fn definition_validator(version: &str, name: &str) -> jsonschema::Validator {
    let mut doc = workspace_file(&format!("tests/fixtures/specs/mcp-schema-{version}.json"));
    let defs = if doc.get("definitions").is_some() {
        "definitions"
    } else {
        "$defs"
    };
    assert!(
        doc[defs].get(name).is_some(),
        "no {name} in the {version} schema"
    );
    doc["$ref"] = json!(format!("#/{defs}/{name}"));
    jsonschema::validator_for(&doc).unwrap()
}

/// A 2026-07-28 request (sessionless, id 7, the version in `_meta` and the header, the client's
/// `capabilities` in `_meta`), ready to send: `Mcp-Name` is the request's `name`, `taskId` or
/// `uri` (the routing headers).
pub fn request_2026(
    url: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(body.to_string());
    let name = ["name", "taskId", "uri"]
        .iter()
        .find_map(|k| params.get(*k).and_then(Value::as_str));
    match name {
        Some(name) => req.header("mcp-name", name),
        None => req,
    }
}

/// [`request_2026`] with `extra` headers, sent: the HTTP status and the JSON-RPC message
/// answering it.
pub async fn post_2026(
    url: &str,
    method: &str,
    params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    const BOUND: std::time::Duration = std::time::Duration::from_secs(30);
    let mut req = request_2026(url, method, params, capabilities);
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let res = tokio::time::timeout(BOUND, req.send())
        .await
        .unwrap()
        .unwrap();
    let status = res.status().as_u16();
    let text = tokio::time::timeout(BOUND, res.text())
        .await
        .unwrap()
        .unwrap();
    let message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:").map(str::trim).or(Some(l)))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m.get("id") == Some(&json!(7)))
        .unwrap_or_else(|| panic!("no answer in {text:?}"));
    (status, message)
}

/// Polls `tasks/get` for the task `id` on `url` (as a client of `capabilities`, with `headers`)
/// until `done` holds for the task, pausing 20 ms between polls as a task's client does, for at
/// most 30 s: the task as last answered.
pub async fn poll_task(
    url: &str,
    id: &str,
    capabilities: Value,
    headers: &[(&str, &str)],
    done: impl Fn(&Value) -> bool,
) -> Value {
    let bound = std::time::Duration::from_secs(30);
    let asked = std::time::Instant::now();
    loop {
        let (_, answer) = post_2026(
            url,
            "tasks/get",
            json!({"taskId": id}),
            capabilities.clone(),
            headers,
        )
        .await;
        assert!(answer.get("error").is_none(), "task {id}: {answer}");
        let task = &answer["result"];
        if done(task) {
            return task.clone();
        }
        assert!(asked.elapsed() < bound, "task {id} still {answer}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
