//! 10,000 concurrent calls on one toolbox, over a mix of tools (reads that yield mid-call,
//! validation failures, tool errors, keyed writes) and 37 callers: every result and every hook's
//! view of a call stays with that call, each keyed write runs exactly once however many of its
//! caller's repeats race it, and the audit trail holds exactly one record per call, with that call's
//! caller and outcome.

use crate::common;

use common::read_only;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith_core::AuditEvent;
use toolsmith_core::{
    Caller, Effects, Hooks, MemorySink, Status, Tool, ToolError, ToolSpec, Toolbox,
};

const CALLS: usize = 10_000;
const CALLERS: usize = 37;
const KEYS: usize = 200;

fn spec(name: &str, effects: Effects, input_schema: Value) -> ToolSpec {
    common::spec(
        name,
        "A tool for the concurrency test. Returns what it was given.",
        input_schema,
        effects,
    )
}

fn id_schema() -> Value {
    json!({"type": "object", "properties": {
        "id": {"type": "integer", "minimum": 0},
        "tag": {"type": "string"}
    }, "required": ["id", "tag"], "additionalProperties": false})
}

/// What one call was, and what it must come back with.
#[derive(Clone, Debug)]
struct Planned {
    tool: &'static str,
    caller: String,
    args: Value,
}

fn plan(i: usize) -> Planned {
    let caller = format!("caller-{}", i % CALLERS);
    let (tool, args) = match i % 5 {
        0 | 1 => ("echo_call", json!({"id": i, "tag": caller})),
        // Invalid: a negative id.
        2 => ("echo_call", json!({"id": -(i as i64) - 1, "tag": caller})),
        3 => ("fail_odd", json!({"id": i, "tag": caller})),
        _ => {
            // Idempotency keys are scoped to the caller, so the repeats of one key come from one
            // caller (its ten repeats race each other); the keys spread over every caller.
            let key = (i / 5) % KEYS;
            let caller = format!("caller-{}", key % CALLERS);
            let args = json!({"key": format!("k{key}"), "id": i, "tag": caller});
            return Planned {
                tool: "keyed_write",
                caller,
                args,
            };
        }
    };
    Planned { tool, caller, args }
}

#[test]
fn ten_thousand_concurrent_calls_keep_to_their_own_call() {
    let runs: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let seen_before: Arc<Mutex<HashMap<String, (String, Value)>>> = Arc::default();
    let mismatched_after = Arc::new(AtomicUsize::new(0));
    let audit = Arc::new(MemorySink::new());

    let echo = Tool::from_fn(spec("echo_call", read_only(), id_schema()), |_, args| {
        Box::pin(async move {
            // Give other calls the chance to interleave with this one.
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            Ok(json!({"id": args["id"], "tag": args["tag"]}))
        })
    });
    let fail = Tool::from_fn(spec("fail_odd", read_only(), id_schema()), |_, args| {
        Box::pin(async move {
            tokio::task::yield_now().await;
            if args["id"].as_u64().unwrap_or(0) % 2 == 1 {
                Err(
                    ToolError::failed("ODD", format!("id {} is odd", args["id"]))
                        .with_details(json!({"id": args["id"], "tag": args["tag"]})),
                )
            } else {
                Ok(json!({"id": args["id"], "tag": args["tag"]}))
            }
        })
    });
    let counter = Arc::clone(&runs);
    let write = Tool::from_fn(
        spec(
            "keyed_write",
            Effects::none().with_writes(true).with_idempotent(true),
            json!({"type": "object", "properties": {
                "key": {"type": "string"}, "id": {"type": "integer"}, "tag": {"type": "string"}
            }, "required": ["key", "id", "tag"], "additionalProperties": false}),
        ),
        move |_, args| {
            let counter = Arc::clone(&counter);
            Box::pin(async move {
                let key = args["key"].as_str().unwrap_or_default().to_string();
                let run = {
                    let mut runs = counter.lock().unwrap();
                    let n = runs.entry(key.clone()).or_insert(0);
                    *n += 1;
                    *n
                };
                tokio::task::yield_now().await;
                Ok(json!({"key": key, "run": run, "id": args["id"]}))
            })
        },
    )
    .with_idempotency_key(["key"]);

    let before_log = Arc::clone(&seen_before);
    let after_bad = Arc::clone(&mismatched_after);
    let hooks = Hooks::new()
        .before(move |call| {
            let caller = call.caller.id().unwrap_or_default().to_string();
            before_log.lock().unwrap().insert(
                call.operation_id.to_string(),
                (caller, call.arguments.clone()),
            );
            Ok(())
        })
        .after(move |call, env| {
            // The after-hook sees the call whose envelope it is given.
            if let Some(data) = &env.data {
                if call.tool == "echo_call" && data["id"] != call.arguments["id"] {
                    after_bad.fetch_add(1, Ordering::Relaxed);
                }
                if call.tool == "echo_call" && data["tag"].as_str() != call.caller.id() {
                    after_bad.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    let toolbox = Arc::new(
        Toolbox::builder()
            .tool(echo)
            .tool(fail)
            .tool(write)
            .hooks(hooks)
            .shared_audit(audit.clone())
            .build()
            .unwrap(),
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let results: Vec<(Planned, toolsmith_core::Envelope)> = rt.block_on(async {
        let handles: Vec<_> = (0..CALLS)
            .map(|i| {
                let tb = Arc::clone(&toolbox);
                let p = plan(i);
                tokio::spawn(async move {
                    let caller = Caller::new(p.caller.clone());
                    let env = tb.call_as(&caller, p.tool, p.args.clone()).await;
                    (p, env)
                })
            })
            .collect();
        let mut out = Vec::with_capacity(CALLS);
        for h in handles {
            out.push(h.await.expect("no call panics"));
        }
        out
    });
    assert_eq!(results.len(), CALLS);

    // Each result is its own call's.
    let mut per_key: HashMap<String, Vec<&toolsmith_core::Envelope>> = HashMap::new();
    let mut by_op: HashMap<String, &Planned> = HashMap::new();
    for (p, env) in &results {
        let op = env
            .operation_id
            .clone()
            .expect("every envelope has an operation id");
        assert!(by_op.insert(op, p).is_none(), "an operation id was reused");
        match p.tool {
            "echo_call" if p.args["id"].as_i64().unwrap() >= 0 => {
                assert_eq!(env.status, Status::Ok, "{}", env.to_json());
                let data = env.data.as_ref().unwrap();
                assert_eq!(data["id"], p.args["id"]);
                assert_eq!(data["tag"], p.args["tag"]);
            }
            "echo_call" => {
                assert_eq!(env.status, Status::InvalidInput, "{}", env.to_json());
                let message = env.message.as_deref().unwrap();
                assert!(message.contains("\"id\" must be at least 0"), "{message}");
            }
            "fail_odd" => {
                let id = p.args["id"].as_u64().unwrap();
                let data = env.data.as_ref().unwrap();
                assert_eq!(data["id"], p.args["id"], "{}", env.to_json());
                assert_eq!(data["tag"], p.args["tag"]);
                if id % 2 == 1 {
                    assert_eq!(env.status, Status::Failed);
                    assert!(env
                        .message
                        .as_deref()
                        .unwrap()
                        .contains(&format!("id {id} ")));
                } else {
                    assert_eq!(env.status, Status::Ok);
                }
            }
            _ => per_key
                .entry(p.args["key"].as_str().unwrap().to_string())
                .or_default()
                .push(env),
        }
    }

    // Each keyed write ran exactly once; its repeats were refused (as duplicates, or as in progress).
    assert_eq!(per_key.len(), KEYS);
    let runs = runs.lock().unwrap();
    for (key, envs) in &per_key {
        assert_eq!(
            runs.get(key),
            Some(&1),
            "{key} ran {:?} times",
            runs.get(key)
        );
        let ok: Vec<_> = envs.iter().filter(|e| e.status == Status::Ok).collect();
        assert_eq!(ok.len(), 1, "{key}: {} ok", ok.len());
        assert_eq!(ok[0].data.as_ref().unwrap()["run"], 1);
        for e in envs.iter().filter(|e| e.status != Status::Ok) {
            assert_eq!(e.status, Status::Refused, "{}", e.to_json());
            // A repeat that arrives while the first still runs is refused as in progress.
            assert!(
                matches!(e.code.as_deref(), Some("DUPLICATE" | "IN_PROGRESS")),
                "{}",
                e.to_json()
            );
        }
    }
    assert_eq!(runs.len(), KEYS);

    // The hooks saw each call as it was.
    assert_eq!(mismatched_after.load(Ordering::Relaxed), 0);
    let before = seen_before.lock().unwrap();
    for (op, (caller, args)) in before.iter() {
        let p = by_op
            .get(op)
            .expect("a before-hook saw an operation no call made");
        assert_eq!(caller, &p.caller);
        assert_eq!(args, &p.args);
    }
    // Every valid call passed the before-hooks (invalid ones end at validation).
    let valid = results
        .iter()
        .filter(|(_, e)| e.status != Status::InvalidInput)
        .count();
    assert_eq!(before.len(), valid);

    // Exactly one audit record per call, with its caller and outcome.
    let records: Vec<_> = audit
        .records()
        .into_iter()
        .filter(|r| r.event == AuditEvent::Call)
        .collect();
    assert_eq!(records.len(), CALLS);
    let status_of: HashMap<&str, Status> = results
        .iter()
        .map(|(_, e)| (e.operation_id.as_deref().unwrap(), e.status))
        .collect();
    let mut ops = HashSet::new();
    for r in &records {
        assert!(
            ops.insert(r.operation_id.clone()),
            "two records for one call"
        );
        let p = by_op.get(&r.operation_id).expect("a record for no call");
        assert_eq!(r.caller.as_deref(), Some(p.caller.as_str()));
        assert_eq!(r.tool, p.tool);
        assert_eq!(r.status, status_of.get(r.operation_id.as_str()).copied());
    }
}

/// Registrations and retirements from many threads at once, while other threads call: none is
/// lost (each derives the next tool list from the one before it), the generation counts every
/// change, and a call finds a tool exactly when the list holds it.
#[test]
fn concurrent_registrations_are_never_lost() {
    const WRITERS: usize = 8;
    const EACH: usize = 25;
    let toolbox = Arc::new(Toolbox::builder().build().unwrap());
    let empty = json!({"type": "object", "additionalProperties": false});
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let toolbox = Arc::clone(&toolbox);
            let empty = empty.clone();
            s.spawn(move || {
                for i in 0..EACH {
                    let name = format!("tool_{w}_{i}");
                    let spec = spec(&name, read_only(), empty.clone());
                    toolbox.register(common::echo_tool(spec)).unwrap();
                    // Every other one is retired again at once.
                    if i % 2 == 1 {
                        toolbox.deregister(&name).unwrap();
                    }
                }
            });
        }
        // A reader racing the writers: a call finds a tool, or names it unknown or retired.
        let reader = Arc::clone(&toolbox);
        s.spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            for n in 0..2_000 {
                let name = format!("tool_{}_{}", n % WRITERS, (n / WRITERS) % EACH);
                let env = rt.block_on(reader.call(&name, json!({})));
                let code = env.code.as_deref();
                assert!(
                    env.status == Status::Ok
                        || code == Some("UNKNOWN_TOOL")
                        || code == Some("TOOL_RETIRED"),
                    "{name}: {env:?}"
                );
            }
        });
    });
    let kept = WRITERS * EACH.div_ceil(2);
    assert_eq!(toolbox.names().len(), kept);
    assert_eq!(
        toolbox.generation(),
        (WRITERS * (EACH + EACH / 2)) as u64,
        "one change per register and per deregister"
    );
    assert_eq!(*toolbox.watch_changes().borrow(), toolbox.generation());
    for w in 0..WRITERS {
        for i in 0..EACH {
            let name = format!("tool_{w}_{i}");
            let env = rt.block_on(toolbox.call(&name, json!({})));
            if i % 2 == 0 {
                assert_eq!(env.status, Status::Ok, "{name}: {env:?}");
            } else {
                assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"), "{name}: {env:?}");
            }
        }
    }
}
