//! The `workspace` example's behaviour: reads, paged search, approved writes, and the path-attack
//! table (every attack refused, nothing outside the root read or written, no host path revealed).

use crate::common;
use crate::workspace_tools as tools;

use common::rt;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};
use toolsmith::approval::sync_approver;
use toolsmith::Approval;
use toolsmith::{Envelope, Status, Toolbox};

// The shared tree (`base/ws` is the workspace, `base/outside` is not) with the links and the
// special file the attack table needs.
use common::workspace::Tree as Fixture;

impl Fixture {
    /// The tree with the links and the special file the example's attack table needs (`new` is
    /// workspace_attacks' tree, an inherent method of the same shared type).
    fn example() -> Fixture {
        let tree = Fixture::create("example-workspace", "outside", "# Todo\n- pack the tent\n");
        let (base, ws) = (&tree.base, tree.ws());
        fs::write(ws.join("notes/deep/more.md"), "tent pegs\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(base.join("outside"), ws.join("link_out")).unwrap();
            symlink(base.join("ws-evil"), ws.join("sibling")).unwrap();
            symlink(base.join("outside/secret.txt"), ws.join("file_link")).unwrap();
            symlink(base.join("outside/nowhere.txt"), ws.join("dangling")).unwrap();
            symlink(ws.join("loop_b"), ws.join("loop_a")).unwrap();
            symlink(ws.join("loop_a"), ws.join("loop_b")).unwrap();
            symlink("notes/todo.md", ws.join("inner_link")).unwrap();
            let status = std::process::Command::new("mkfifo")
                .arg(ws.join("fifo"))
                .status()
                .expect("mkfifo runs");
            assert!(status.success(), "mkfifo failed");
        }
        tree
    }

    fn toolbox(&self, approver: Arc<dyn toolsmith::Approver>) -> Toolbox {
        tools::toolbox(tools::Workspace::open(self.ws()).unwrap(), approver).unwrap()
    }
}

/// An approver that records every request's arguments and answers with `answer`.
fn recording(answer: Approval) -> (Arc<dyn toolsmith::Approver>, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let approver = sync_approver(move |req| {
        log.lock()
            .unwrap()
            .push(json!({"tool": req.tool, "arguments": req.arguments}));
        answer.clone()
    });
    (approver, seen)
}

#[test]
fn every_tool_passes_the_lint_and_stays_within_budgets() {
    common::assert_lint_clean_within_budgets(tools::tools(), |spec| {
        // The root is never a parameter.
        assert!(spec.input_schema["properties"].get("root").is_none());
    });
}

#[test]
fn declared_effects_match_the_scenario() {
    let specs: Vec<_> = tools::tools().iter().map(|t| t.spec().clone()).collect();
    let by = |n: &str| specs.iter().find(|s| s.name == n).unwrap().effects;
    assert!(by("read_file").read_only);
    assert!(by("search_text").read_only);
    let w = by("write_file");
    assert!(w.writes && w.requires_approval && w.idempotent && !w.read_only);
}

#[test]
fn reads_a_file_inside_the_workspace() {
    let fx = Fixture::example();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let env = rt().block_on(tb.call("read_file", json!({"path": "notes/todo.md"})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.unwrap();
    assert_eq!(data["path"], "notes/todo.md");
    assert_eq!(data["content"], "# Todo\n- pack the tent\n");
    assert_eq!(data["bytes"], 23);
    // A link that stays inside the root is followed; the real path is reported.
    let env = rt().block_on(tb.call("read_file", json!({"path": "inner_link"})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.unwrap()["path"], "notes/todo.md");
    let env = rt().block_on(tb.call("read_file", json!({"path": "./notes/deep/../todo.md"})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
}

fn assert_nothing_leaked(fx: &Fixture, env: &Envelope, case: &str) {
    let text = env.to_json();
    assert!(
        !text.contains(&fx.canary),
        "{case}: leaked the outside file: {text}"
    );
    for host in fx.host_paths() {
        assert!(
            !text.contains(&host),
            "{case}: revealed the host path: {text}"
        );
    }
}

/// (path, expected status, expected code)
fn attack_table(fx: &Fixture) -> Vec<(String, Status, &'static str)> {
    let outside_abs = fx.base.join("outside/secret.txt").display().to_string();
    let mut table = vec![
        ("/etc/passwd".to_string(), Status::Denied, "ABSOLUTE_PATH"),
        (outside_abs, Status::Denied, "ABSOLUTE_PATH"),
        (
            "\\\\server\\share\\x".into(),
            Status::Denied,
            "ABSOLUTE_PATH",
        ),
        (
            "../outside/secret.txt".into(),
            Status::Denied,
            "OUTSIDE_WORKSPACE",
        ),
        ("..".into(), Status::Denied, "OUTSIDE_WORKSPACE"),
        (
            "notes/../../outside/secret.txt".into(),
            Status::Denied,
            "OUTSIDE_WORKSPACE",
        ),
        (
            "./notes/deep/../../../outside/secret.txt".into(),
            Status::Denied,
            "OUTSIDE_WORKSPACE",
        ),
        ("notes".into(), Status::Denied, "NOT_A_FILE"),
        (".".into(), Status::Denied, "NOT_A_FILE"),
        ("notes/deep/..".into(), Status::Denied, "NOT_A_FILE"),
        ("".into(), Status::InvalidInput, "*"),
        ("notes/\u{0}todo.md".into(), Status::Denied, "INVALID_PATH"),
    ];
    if cfg!(unix) {
        table.extend([
            (
                "link_out/secret.txt".to_string(),
                Status::Denied,
                "OUTSIDE_WORKSPACE",
            ),
            ("link_out".into(), Status::Denied, "OUTSIDE_WORKSPACE"),
            (
                "sibling/secret.txt".into(),
                Status::Denied,
                "OUTSIDE_WORKSPACE",
            ),
            (
                "../ws-evil/secret.txt".into(),
                Status::Denied,
                "OUTSIDE_WORKSPACE",
            ),
            (
                "link_out/new.txt".into(),
                Status::Denied,
                "OUTSIDE_WORKSPACE",
            ),
            ("file_link".into(), Status::Denied, "OUTSIDE_WORKSPACE"),
            ("dangling".into(), Status::Denied, "UNRESOLVABLE_PATH"),
            ("loop_a".into(), Status::Denied, "UNRESOLVABLE_PATH"),
            ("loop_a/x.txt".into(), Status::Denied, "UNRESOLVABLE_PATH"),
            ("fifo".into(), Status::Denied, "NOT_A_FILE"),
        ]);
    }
    table
}

#[test]
fn read_file_refuses_every_path_attack_and_reads_nothing_outside() {
    let fx = Fixture::example();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();
    for (path, status, code) in attack_table(&fx) {
        let env = rt.block_on(tb.call("read_file", json!({ "path": path })));
        assert_eq!(env.status, status, "{path:?}: {}", env.to_json());
        if code != "*" {
            assert_eq!(
                env.code.as_deref(),
                Some(code),
                "{path:?}: {}",
                env.to_json()
            );
        }
        assert!(
            env.data.as_ref().is_none_or(|d| d.get("content").is_none()),
            "{path:?}"
        );
        assert_nothing_leaked(&fx, &env, &path);
    }
}

#[test]
fn write_file_refuses_every_path_attack_before_approval_and_writes_nothing_outside() {
    let fx = Fixture::example();
    let (approver, seen) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();
    let listing = || -> Vec<_> {
        let mut v: Vec<_> = ["outside", "ws-evil"]
            .iter()
            .flat_map(|d| fs::read_dir(fx.base.join(d)).unwrap())
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    let before = listing();
    for (path, status, code) in attack_table(&fx) {
        let env = rt.block_on(tb.call("write_file", json!({ "path": path, "content": "pwned" })));
        assert_eq!(env.status, status, "{path:?}: {}", env.to_json());
        if code != "*" {
            assert_eq!(
                env.code.as_deref(),
                Some(code),
                "{path:?}: {}",
                env.to_json()
            );
        }
        assert_nothing_leaked(&fx, &env, &path);
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "the approver was asked: {:?}",
        seen.lock().unwrap()
    );
    assert_eq!(before, listing());
    assert_eq!(before.len(), 2);
    let sibling = fs::read_to_string(fx.base.join("ws-evil/secret.txt")).unwrap();
    assert_eq!(sibling, format!("{}\n", fx.canary));
    let secret = fs::read_to_string(fx.base.join("outside/secret.txt")).unwrap();
    assert_eq!(secret, format!("{}\n", fx.canary));
}

#[test]
fn search_text_refuses_path_attacks_and_does_not_follow_links_out() {
    let fx = Fixture::example();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();
    for (path, status, _) in attack_table(&fx) {
        if path == "notes" || path == "." || path == "notes/deep/.." {
            continue; // folders inside the root are valid search scopes
        }
        let env = rt.block_on(tb.call("search_text", json!({ "query": "CANARY", "path": path })));
        let expected = [status, Status::Denied, Status::InvalidInput];
        assert!(
            expected.contains(&env.status),
            "{path:?}: {}",
            env.to_json()
        );
        assert_nothing_leaked(&fx, &env, &path);
    }
    // The whole workspace contains links that lead out; they are not followed.
    let env = rt.block_on(tb.call("search_text", json!({ "query": "CANARY" })));
    assert_eq!(env.status, Status::Empty, "{}", env.to_json());
    assert_nothing_leaked(&fx, &env, "whole workspace");
}

#[test]
fn missing_file_names_the_relative_path_without_the_host_path() {
    let fx = Fixture::example();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let env = rt().block_on(tb.call("read_file", json!({"path": "notes/nope.md"})));
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("NOT_FOUND"));
    let msg = env.message.clone().unwrap();
    assert!(msg.contains("\"notes/nope.md\""), "{msg}");
    assert!(msg.contains("relative to the workspace root"), "{msg}");
    assert_nothing_leaked(&fx, &env, "missing");
    let env = rt().block_on(tb.call("read_file", json!({"path": "no/such/folder/x.md"})));
    assert_eq!(env.code.as_deref(), Some("NOT_FOUND"), "{}", env.to_json());
    assert_nothing_leaked(&fx, &env, "missing folder");
}

#[test]
fn files_over_the_limit_and_non_utf8_files_are_clear_failures() {
    let fx = Fixture::example();
    fs::write(fx.ws().join("big.txt"), "x".repeat(9000)).unwrap();
    fs::write(
        fx.ws().join("image.bin"),
        [0x89u8, b'P', b'N', b'G', 0xff, 0xfe, 0x00],
    )
    .unwrap();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();

    let env = rt.block_on(tb.call("read_file", json!({"path": "big.txt"})));
    let msg = common::assert_outcome(&env, Status::Refused, "FILE_TOO_LARGE");
    assert!(
        msg.contains("9000 bytes") && msg.contains("max_bytes"),
        "{msg}"
    );
    assert_eq!(env.data.unwrap()["max_bytes"], 8000);

    let env = rt.block_on(tb.call("read_file", json!({"path": "big.txt", "max_bytes": 9000})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());

    let env = rt.block_on(tb.call("read_file", json!({"path": "image.bin"})));
    assert_eq!(env.status, Status::Failed, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("NOT_TEXT"));
    assert!(env.message.unwrap().contains("not UTF-8"));
}

#[test]
fn search_pages_through_every_match_with_a_cursor() {
    let fx = Fixture::example();
    let total = 75;
    let text: String = (1..=total)
        .map(|i| format!("needle number {i}\n"))
        .collect();
    fs::write(fx.ws().join("notes/many.txt"), text).unwrap();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();

    let mut lines = Vec::new();
    let mut args = json!({"query": "NEEDLE"});
    let mut pages = 0;
    loop {
        let env = rt.block_on(tb.call("search_text", args.clone()));
        assert_eq!(env.status, Status::Ok, "{}", env.to_json());
        pages += 1;
        let page = env.data.clone().unwrap();
        let page = page.as_array().unwrap();
        assert!(!page.is_empty());
        for m in page {
            assert_eq!(m["path"], "notes/many.txt");
            lines.push(m["line"].as_u64().unwrap());
        }
        let note = env.note.clone().unwrap_or_default();
        if pages == 1 {
            assert!(env.truncated);
            assert!(
                note.starts_with(&format!("Showing {} of {total}.", page.len())),
                "{note}"
            );
        }
        match env.cursor {
            Some(c) => args = json!({"query": "NEEDLE", "cursor": c}),
            None => break,
        }
        assert!(pages < 50, "paging does not end");
    }
    assert!(pages > 1);
    assert_eq!(lines, (1..=total as u64).collect::<Vec<_>>());

    // A cursor is bound to its search.
    let env = rt.block_on(tb.call("search_text", json!({"query": "NEEDLE"})));
    let c = env.cursor.unwrap();
    let env = rt.block_on(tb.call("search_text", json!({"query": "tent", "cursor": c})));
    assert_eq!(env.status, Status::InvalidInput, "{}", env.to_json());
}

#[test]
fn search_with_no_match_is_empty_with_a_hint() {
    let fx = Fixture::example();
    let (approver, _) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let env = rt().block_on(tb.call("search_text", json!({"query": "kayak"})));
    assert_eq!(env.status, Status::Empty);
    let msg = env.message.unwrap();
    assert!(msg.contains("\"kayak\"") && msg.contains("Try"), "{msg}");
    // Scoped to a folder.
    let env = rt().block_on(tb.call(
        "search_text",
        json!({"query": "pegs", "path": "notes/deep"}),
    ));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.unwrap()[0]["path"], "notes/deep/more.md");
}

#[test]
fn write_asks_the_approver_with_the_exact_change_and_is_not_repeated() {
    let fx = Fixture::example();
    let (approver, seen) = recording(Approval::Approved);
    let tb = fx.toolbox(approver);
    let rt = rt();
    let args = json!({"path": "notes/packing.md", "content": "- tent\n- stove\n"});

    let env = rt.block_on(tb.call("write_file", args.clone()));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.as_ref().unwrap()["created"], true);
    assert_eq!(
        fs::read_to_string(fx.ws().join("notes/packing.md")).unwrap(),
        "- tent\n- stove\n"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        vec![json!({"tool": "write_file", "arguments": args})]
    );

    // The same change again: refused as a duplicate before the approver is asked.
    let env = rt.block_on(tb.call("write_file", args.clone()));
    assert_eq!(env.status, Status::Refused, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("DUPLICATE"));
    assert_eq!(seen.lock().unwrap().len(), 1);

    // A different change to the same file replaces it.
    let env = rt.block_on(tb.call(
        "write_file",
        json!({"path": "notes/packing.md", "content": "- tent\n"}),
    ));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.unwrap()["created"], false);
    assert_eq!(seen.lock().unwrap().len(), 2);

    // A missing folder is reported before approval.
    let env = rt.block_on(tb.call("write_file", json!({"path": "nope/x.md", "content": "x"})));
    assert_eq!(
        env.code.as_deref(),
        Some("FOLDER_NOT_FOUND"),
        "{}",
        env.to_json()
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn rejected_write_is_cancelled_by_user_and_changes_nothing() {
    let fx = Fixture::example();
    let (approver, seen) = recording(Approval::rejected("not now"));
    let tb = fx.toolbox(approver);
    let env = rt().block_on(tb.call(
        "write_file",
        json!({"path": "notes/todo.md", "content": "overwritten"}),
    ));
    assert_eq!(env.status, Status::CancelledByUser, "{}", env.to_json());
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(
        seen.lock().unwrap()[0]["arguments"],
        json!({"path": "notes/todo.md", "content": "overwritten"})
    );
    assert_eq!(
        fs::read_to_string(fx.ws().join("notes/todo.md")).unwrap(),
        "# Todo\n- pack the tent\n"
    );
}

#[test]
fn the_root_is_injected_and_checked_at_open() {
    let fx = Fixture::example();
    assert!(tools::Workspace::open(fx.ws().join("notes/todo.md")).is_err());
    assert!(tools::Workspace::open(fx.base.join("missing")).is_err());
    assert!(Path::new(&fx.ws()).is_dir());
}
