//! The store example's page for people (`examples/store/page.rs`): the search and add-to-cart
//! forms rendered from the tools' specs, the endpoint they post to, and the page in Debian's
//! Chromium with WebMCP, where the forms are declarative tools an agent calls and a person fills
//! in, both through the toolbox's pipeline. The endpoint's guard (`toolsmith::ui::RequestGuard`)
//! refuses a post from another site's page and any request under a foreign name (DNS
//! rebinding): checked on `respond`, over raw HTTP as curl sends it, and in Chromium with a
//! hostile page on another origin.

#[allow(dead_code)]
#[path = "../../examples/store/page.rs"]
mod page;
use crate::store_tools as tools;

use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::ui::RequestGuard;
use toolsmith::Toolbox;

/// The host and origin the unit tests' requests come from: the page's own, as a browser on it
/// sends them.
const HOST: &str = "127.0.0.1:8080";
const ORIGIN: &str = "http://127.0.0.1:8080";

fn store() -> Toolbox {
    let customer = tools::Customer {
        id: "cust-1".into(),
        purchased: Vec::new(),
    };
    tools::toolbox(tools::demo_catalogue(), customer).unwrap()
}

/// Answers a request as the page's own script or form sends it: the page's `Host`, its
/// `Origin` and `Sec-Fetch-Site: same-origin` on a post, and `content_type` when given.
async fn respond(
    tb: &Toolbox,
    method: &str,
    path: &str,
    query: Option<&str>,
    content_type: Option<&str>,
    body: &[u8],
) -> page::Answer {
    let mut headers = vec![("Host", HOST)];
    if method != "GET" {
        headers.extend([("Origin", ORIGIN), ("Sec-Fetch-Site", "same-origin")]);
    }
    if let Some(ct) = content_type {
        headers.push(("Content-Type", ct));
    }
    let guard = RequestGuard::loopback();
    page::respond(tb, &guard, method, path, query, &headers, body).await
}

/// The number of items in the cart after adding one more LMP-HEAD through the toolbox: what
/// was added before, plus one.
async fn items_after_one_more(tb: &Toolbox) -> u64 {
    let env = tb
        .call("add_to_cart", json!({"sku": "LMP-HEAD", "quantity": 1}))
        .await;
    let wire: Value = serde_json::from_str(&env.to_json()).unwrap();
    assert_eq!(wire["status"], "ok", "{wire}");
    wire["data"]["cart_items"].as_u64().unwrap()
}

fn json_of(answer: &page::Answer) -> Value {
    assert_eq!(answer.content_type, "application/json", "{answer:?}");
    serde_json::from_str(&answer.body).unwrap()
}

#[tokio::test]
async fn the_page_has_a_declarative_form_per_tool_and_no_other() {
    let tb = store();
    let answer = respond(&tb, "GET", "/", None, None, b"").await;
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
    let answer = respond(
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
    let answer = respond(
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
    let answer = respond(
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
    let answer = respond(
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
        let answer = respond(&tb, method, path, query, ct, body).await;
        assert_eq!(answer.status, want, "{method} {path} {ct:?}: {answer:?}");
        assert!(!answer.body.is_empty());
    }
    let big = vec![b'x'; page::MAX_BODY + 1];
    let answer = respond(&tb, "POST", "/call", None, Some("application/json"), &big).await;
    assert_eq!(answer.status, 413);
}

/// A post from another site's page, and any request under a name the page is not served under
/// (DNS rebinding), is refused before the toolbox sees it: nothing reaches the cart. A client
/// outside a browser (neither `Origin` nor `Sec-Fetch-Site`) is let through: it could post
/// anything anyway, and a browser's page always says where it is from.
#[tokio::test]
async fn the_guard_refuses_cross_site_posts_and_foreign_hosts_before_any_tool_runs() {
    let tb = store();
    let guard = RequestGuard::loopback();
    let form = Some("tool=add_to_cart");
    let body: &[u8] = b"sku=TNT-2P&quantity=2";
    let ct = ("Content-Type", "application/x-www-form-urlencoded");
    let rebound = "rebind.attacker.example:8080";
    // (what the request is, method, path, headers, the status it gets)
    type Case<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, &'a str)>, u16);
    let cases: [Case; 8] = [
        (
            "a hidden form on another site",
            "POST",
            "/call",
            vec![
                ("Host", HOST),
                ("Origin", "http://evil.example"),
                ("Sec-Fetch-Site", "cross-site"),
                ct,
            ],
            403,
        ),
        (
            "curl with another site's Origin",
            "POST",
            "/call",
            vec![("host", HOST), ("origin", "http://evil.example"), ct],
            403,
        ),
        (
            "a page that hides its origin",
            "POST",
            "/call",
            vec![("Host", HOST), ("Origin", "null"), ct],
            403,
        ),
        (
            "a page of a sibling site",
            "POST",
            "/call",
            vec![("Host", HOST), ("Sec-Fetch-Site", "same-site"), ct],
            403,
        ),
        (
            "another port of the same host",
            "POST",
            "/call",
            vec![("Host", HOST), ("Origin", "http://127.0.0.1:9999"), ct],
            403,
        ),
        (
            "a rebound name posting to itself",
            "POST",
            "/call",
            vec![
                ("Host", rebound),
                ("Origin", "http://rebind.attacker.example:8080"),
                ("Sec-Fetch-Site", "same-origin"),
                ct,
            ],
            403,
        ),
        (
            "a rebound name reading the page",
            "GET",
            "/",
            vec![("Host", rebound)],
            403,
        ),
        ("a request with no Host", "POST", "/call", vec![ct], 400),
    ];
    for (what, method, path, headers, want) in cases {
        let answer = page::respond(&tb, &guard, method, path, form, &headers, body).await;
        assert_eq!(answer.status, want, "{what}: {answer:?}");
        assert_eq!(answer.content_type, "text/plain; charset=utf-8", "{what}");
        assert!(
            !answer.body.contains("\"status\""),
            "{what}: a tool ran: {answer:?}"
        );
    }
    let foreign = page::respond(&tb, &guard, "GET", "/", None, &[("Host", rebound)], b"").await;
    assert!(foreign.body.contains(rebound), "{foreign:?}");
    assert_eq!(
        items_after_one_more(&tb).await,
        1,
        "nothing reached the cart"
    );

    // No Origin, no Sec-Fetch-Site: not a page in a browser, let through.
    let answer = page::respond(
        &tb,
        &guard,
        "POST",
        "/call",
        form,
        &[("host", HOST), ct],
        body,
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.body.contains("\"cart_items\":3"), "{answer:?}");
}

/// Sends raw HTTP/1.1 to `addr` as curl does: `head` is the request line and headers (no blank
/// line); the body follows with its length. Returns the status and the body.
async fn raw_http(addr: std::net::SocketAddr, head: &str, body: &[u8]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the page answers within ten seconds")
        .unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text}"));
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// The served page, over real HTTP as curl sends it: another site's `Origin` and a foreign
/// `Host` get 403 and run nothing; the page's own name without an `Origin` is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_another_site_s_origin_and_a_foreign_host_get_403() {
    let tb = Arc::new(store());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(page::serve(
        Arc::clone(&tb),
        RequestGuard::loopback(),
        listener,
    ));
    let post = "POST /call?tool=add_to_cart HTTP/1.1";
    let form = "Content-Type: application/x-www-form-urlencoded";
    let body: &[u8] = b"sku=TNT-2P&quantity=2";

    let (status, text) = raw_http(
        addr,
        &format!("{post}\r\nHost: {addr}\r\nOrigin: http://evil.example\r\n{form}"),
        body,
    )
    .await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("http://evil.example"), "{text}");
    for request in [
        format!(
            "GET / HTTP/1.1\r\nHost: rebind.attacker.example:{}",
            addr.port()
        ),
        format!(
            "{post}\r\nHost: rebind.attacker.example:{}\r\n{form}",
            addr.port()
        ),
    ] {
        let (status, text) = raw_http(addr, &request, body).await;
        assert_eq!(status, 403, "{request}: {text}");
        assert!(text.contains("rebind.attacker.example"), "{text}");
    }
    let (status, text) = raw_http(addr, &format!("{post}\r\nHost: {addr}\r\n{form}"), body).await;
    server.abort();
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("\"cart_items\":2"),
        "only this addition is in the cart: {text}"
    );
}

/// Runs `script` of the consumers with `args` in `chromium`; returns the JSON it prints last.
async fn run_node(chromium: &str, script: &str, args: &[String]) -> Value {
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(crate::common::consumers_dir().join(script))
        .args(args)
        .env("TOOLSMITH_CHROMIUM", chromium)
        .current_dir(crate::common::consumers_dir())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("the browser finishes within two minutes")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("{script} printed no JSON:\n{stdout}\n{stderr}"))
}

/// Serves the store's page on 127.0.0.1 behind the loopback guard; returns its URL and the task.
async fn serve(tb: &Arc<Toolbox>) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = tokio::spawn(page::serve(
        Arc::clone(tb),
        RequestGuard::loopback(),
        listener,
    ));
    (url, server)
}

/// The attack of issue 49 in Chromium: a page on another site (`http://evil.example:PORT/`, a
/// name Chromium resolves to 127.0.0.1) posts `add_to_cart` to the store's endpoint with a
/// no-cors fetch and a hidden, auto-submitted form; a rebound name
/// (`http://rebind.example:STOREPORT/`) loads the page and posts to it as its own origin. Every
/// one is refused (403) and nothing reaches the cart; the store's own page, submitting its form
/// natively in the same browser, still adds to the cart, and that addition is the only one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_page_cannot_use_the_store_through_the_person_s_browser() {
    let Some(chromium) = crate::common::chromium() else {
        return;
    };
    let tb = Arc::new(store());
    let (url, server) = serve(&tb).await;
    let seen = run_node(&chromium, "store_attack.mjs", &[url]).await;
    server.abort();

    let cross = seen["crossSite"].as_array().unwrap();
    assert_eq!(
        cross.len(),
        2,
        "the fetch and the form reached the store: {seen}"
    );
    for request in cross {
        assert_eq!(request["status"], 403, "{request}");
    }
    // The form's post is what a browser sends across sites, so the guard is what refused it.
    let form = cross.iter().find(|r| r["kind"] == "document").unwrap();
    assert!(
        form["origin"]
            .as_str()
            .is_some_and(|o| o.starts_with("http://evil.example:")),
        "{form}"
    );
    assert_eq!(form["secFetchSite"], "cross-site", "{form}");
    assert_eq!(seen["rebindPage"]["status"], 403, "{}", seen["rebindPage"]);
    assert!(
        seen["rebindPage"]["body"]
            .as_str()
            .unwrap()
            .contains("`rebind.example:"),
        "{}",
        seen["rebindPage"]
    );
    assert_eq!(seen["rebindPost"]["status"], 403, "{}", seen["rebindPost"]);

    let own = &seen["own"];
    assert_eq!(own["status"], 200, "{own}");
    assert!(
        own["body"].as_str().unwrap().contains("\"cart_items\":1"),
        "the person's own addition is the only one in the cart: {own}"
    );
    assert_eq!(items_after_one_more(&tb).await, 2);
}

/// The page over real HTTP in Chromium: both forms register as WebMCP tools with the specs'
/// words; the agent's search submits at once, its cart addition waits for the person's press
/// (the tool writes); a person's typing reaches the toolbox too. `TOOLSMITH_SCREENSHOT=path`
/// saves the README's picture.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_page_works_in_chromium_for_an_agent_and_a_person() {
    let Some(chromium) = crate::common::chromium() else {
        return;
    };
    let tb = Arc::new(store());
    let (url, server) = serve(&tb).await;
    let mut args = vec![url];
    if let Ok(shot) = std::env::var("TOOLSMITH_SCREENSHOT") {
        args.push(shot);
    }
    let seen = run_node(&chromium, "store_page.mjs", &args).await;
    server.abort();

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
