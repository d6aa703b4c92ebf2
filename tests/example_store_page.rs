//! The store example's page for people (`examples/store/page.rs`): the search and add-to-cart
//! forms rendered from the tools' specs, the endpoint they post to, and the page in Debian's
//! Chromium with WebMCP, where the forms are declarative tools an agent calls and a person fills
//! in, both through the toolbox's pipeline.

#[path = "../tool-core/tests/consumers/require.rs"]
mod require;

#[allow(dead_code)]
#[path = "../examples/store/page.rs"]
mod page;
#[allow(dead_code)]
#[path = "../examples/store/tools.rs"]
mod tools;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolsmith::Toolbox;

fn store() -> Toolbox {
    let customer = tools::Customer {
        id: "cust-1".into(),
        purchased: Vec::new(),
    };
    tools::toolbox(tools::demo_catalogue(), customer).unwrap()
}

fn json_of(answer: &page::Answer) -> Value {
    assert_eq!(answer.content_type, "application/json", "{answer:?}");
    serde_json::from_str(&answer.body).unwrap()
}

#[tokio::test]
async fn the_page_has_a_declarative_form_per_tool_and_no_other() {
    let tb = store();
    let answer = page::respond(&tb, "GET", "/", None, None, b"").await;
    assert_eq!(answer.status, 200);
    for tool in page::PAGE_TOOLS {
        assert!(
            answer.body.contains(&format!("toolname=\"{tool}\"")),
            "{tool}"
        );
        assert!(
            answer
                .body
                .contains(&format!("action=\"/call?tool={tool}\"")),
            "{tool}"
        );
    }
    // compare_products is not on the page (and its list of SKUs has no declarative control).
    assert!(!answer.body.contains("compare_products"));
}

#[tokio::test]
async fn the_script_s_json_reaches_the_toolbox() {
    let tb = store();
    let body = json!({"tool": "search_products", "arguments": {"query": "jacket"}}).to_string();
    let answer = page::respond(
        &tb,
        "POST",
        "/call",
        Some("tool=search_products"),
        Some("application/json"),
        body.as_bytes(),
    )
    .await;
    assert_eq!(answer.status, 200);
    let env = json_of(&answer);
    assert_eq!(env["status"], "ok", "{env}");
    assert!(env["data"]["total"].as_u64().unwrap() > 0, "{env}");

    // What the schema forbids is refused by the toolbox, naming the parameter.
    let body = json!({"tool": "add_to_cart", "arguments": {"sku": "BOOT-TROLL", "quantity": 11}})
        .to_string();
    let answer = page::respond(
        &tb,
        "POST",
        "/call",
        None,
        Some("application/json; charset=utf-8"),
        body.as_bytes(),
    )
    .await;
    let env = json_of(&answer);
    assert_eq!(env["status"], "invalid_input", "{env}");
    assert!(env.to_string().contains("quantity"), "{env}");
}

#[tokio::test]
async fn a_native_submission_is_typed_by_the_spec() {
    let tb = store();
    let answer = page::respond(
        &tb,
        "POST",
        "/call",
        Some("tool=add_to_cart"),
        Some("application/x-www-form-urlencoded"),
        b"sku=BOOT-TROLL&quantity=1&size=43",
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(
        answer.body.starts_with("<!doctype html>"),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("\"status\":\"ok\""), "{}", answer.body);
    // A number that is not a number stays text: the toolbox names the parameter.
    let answer = page::respond(
        &tb,
        "POST",
        "/call",
        Some("tool=add_to_cart"),
        Some("application/x-www-form-urlencoded"),
        b"sku=BOOT-TROLL&quantity=two",
    )
    .await;
    assert!(answer.body.contains("invalid_input"), "{}", answer.body);
    assert!(answer.body.contains("quantity"), "{}", answer.body);
}

#[tokio::test]
async fn bad_requests_get_a_status_and_a_reason() {
    let tb = store();
    // (method, path, query, content type, body, the status it gets)
    type Case<'a> = (
        &'a str,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        &'a [u8],
        u16,
    );
    let cases: [Case; 7] = [
        (
            "POST",
            "/call",
            None,
            Some("application/json"),
            b"{not json",
            400,
        ),
        (
            "POST",
            "/call",
            None,
            Some("application/json"),
            b"{\"arguments\": {}}",
            400,
        ),
        (
            "POST",
            "/call",
            None,
            Some("application/json"),
            b"{\"tool\": \"compare_products\", \"arguments\": {\"skus\": [\"A\", \"B\"]}}",
            404,
        ),
        (
            "POST",
            "/call",
            None,
            Some("application/x-www-form-urlencoded"),
            b"sku=A",
            400,
        ),
        ("POST", "/call", None, Some("text/plain"), b"hello", 415),
        ("PUT", "/", None, None, b"", 405),
        ("GET", "/admin", None, None, b"", 404),
    ];
    for (method, path, query, ct, body, want) in cases {
        let answer = page::respond(&tb, method, path, query, ct, body).await;
        assert_eq!(answer.status, want, "{method} {path} {ct:?}: {answer:?}");
        assert!(!answer.body.is_empty());
    }
    let big = vec![b'x'; page::MAX_BODY + 1];
    let answer = page::respond(&tb, "POST", "/call", None, Some("application/json"), &big).await;
    assert_eq!(answer.status, 413);
}

fn consumers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-core/tests/consumers")
}

/// The page over real HTTP in Chromium: both forms register as WebMCP tools with the specs'
/// words; the agent's search submits at once, its cart addition waits for the person's press
/// (the tool writes); a person's typing reaches the toolbox too. `TOOLSMITH_SCREENSHOT=path`
/// saves the README's picture.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_page_works_in_chromium_for_an_agent_and_a_person() {
    let chromium =
        std::env::var("TOOLSMITH_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        require::missing::<()>("chromium", &format!("{chromium} does not exist"));
        return;
    }
    if !consumers_dir()
        .join("node_modules/playwright-core")
        .exists()
    {
        require::missing::<()>(
            "playwright-core",
            "tool-core/tests/consumers/node_modules is not installed",
        );
        return;
    }
    let tb = Arc::new(store());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = tokio::spawn(page::serve(Arc::clone(&tb), listener));
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(consumers_dir().join("store_page.mjs"))
        .arg(&url)
        .env("TOOLSMITH_CHROMIUM", &chromium)
        .current_dir(consumers_dir());
    if let Ok(shot) = std::env::var("TOOLSMITH_SCREENSHOT") {
        cmd.arg(shot);
    }
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .expect("the browser finishes within two minutes")
        .expect("node runs");
    server.abort();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "store_page.mjs failed:\n{stdout}\n{stderr}"
    );
    let seen: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON:\n{stdout}\n{stderr}"));

    let names: Vec<&str> = seen["registered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    for tool in page::PAGE_TOOLS {
        assert!(names.contains(&tool), "{names:?}");
        let registered = seen["registered"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .unwrap();
        assert_eq!(
            registered["description"],
            json!(tb.spec(tool).unwrap().description)
        );
    }
    let env: Value = serde_json::from_str(seen["agentSearch"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {seen}"));
    assert_eq!(env["status"], "ok", "{env}");
    let env: Value = serde_json::from_str(seen["agentCart"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {seen}"));
    assert_eq!(env["status"], "ok", "{env}");
    assert_eq!(env["data"]["line"]["sku"], "BOOT-TROLL", "{env}");
    let env: Value = serde_json::from_str(seen["personCart"].as_str().unwrap()).unwrap();
    assert_eq!(env["status"], "ok", "{env}");
    let env: Value = serde_json::from_str(seen["personSearch"].as_str().unwrap()).unwrap();
    assert_eq!(env["status"], "ok", "{env}");
}
