//! Host stages: a stage the host adds at a documented point of the pipeline. The case here is a
//! per-caller rate limit that answers `refused` (`RATE_LIMITED`, with `retry_after`), leaving
//! other callers alone, with the refused call in the audit trail.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith_core::pipeline::{Flow, Stage, StageCall, StageFuture, StageId, ORDER};
use toolsmith_core::Caller;
use toolsmith_core::MemorySink;
use toolsmith_core::{Effects, ToolSpec};
use toolsmith_core::{Problem, Status, Tool, ToolError, Toolbox};

fn echo(runs: Arc<AtomicUsize>) -> Tool {
    let spec = ToolSpec::new(
        "echo",
        "Echoes the text. Returns it unchanged.",
        json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Text to echo."}},
            "required": ["text"],
            "additionalProperties": false
        }),
    )
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.0.0");
    Tool::from_fn(spec, move |_, args: Value| {
        runs.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(args) })
    })
}

/// Allows `limit` calls per caller, then refuses with a retry hint. It awaits (as a remote
/// limiter would), so it returns a boxed future.
struct RateLimit {
    limit: usize,
    retry_after_secs: u64,
    seen: Mutex<HashMap<String, usize>>,
}

impl Stage for RateLimit {
    fn run<'a>(&'a self, call: &'a StageCall<'a>) -> StageFuture<'a> {
        StageFuture::boxed(async move {
            tokio::task::yield_now().await;
            let who = call.caller().id().unwrap_or("anonymous").to_string();
            let mut seen = self.seen.lock().unwrap();
            let n = seen.entry(who).or_default();
            *n += 1;
            if *n <= self.limit {
                return Flow::Continue;
            }
            let mut env = ToolError::refused(
                "RATE_LIMITED",
                format!(
                    "Too many calls to \"{}\". Wait {} seconds, then try again.",
                    call.tool(),
                    self.retry_after_secs
                ),
            )
            .into_envelope();
            env.retry_after = Some(self.retry_after_secs);
            Flow::End(env)
        })
    }
}

#[tokio::test]
async fn a_rate_limit_stage_refuses_one_caller_and_leaves_the_other_alone() {
    let runs = Arc::new(AtomicUsize::new(0));
    let audit = Arc::new(MemorySink::new());
    let toolbox = Toolbox::builder()
        .tool(echo(Arc::clone(&runs)))
        .shared_audit(audit.clone())
        .stage(
            StageId::Policy,
            RateLimit {
                limit: 2,
                retry_after_secs: 30,
                seen: Mutex::default(),
            },
        )
        .build()
        .unwrap();
    let ann = Caller::new("ann");
    let bob = Caller::new("bob");
    for _ in 0..2 {
        let env = toolbox.call_as(&ann, "echo", json!({"text": "hi"})).await;
        assert_eq!(env.status, Status::Ok, "{env:?}");
    }
    let limited = toolbox.call_as(&ann, "echo", json!({"text": "hi"})).await;
    assert_eq!(limited.status, Status::Refused);
    assert_eq!(limited.code.as_deref(), Some("RATE_LIMITED"));
    assert_eq!(limited.retry_after, Some(30));
    assert!(limited.message.as_deref().unwrap().contains("\"echo\""));
    assert!(limited.operation_id.is_some());
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "the refused call did not run"
    );
    let wire: Value = serde_json::from_str(&limited.to_json()).unwrap();
    assert_eq!(wire["retry_after"], 30);

    // Another caller has its own allowance.
    let other = toolbox.call_as(&bob, "echo", json!({"text": "yo"})).await;
    assert_eq!(other.status, Status::Ok);
    assert_eq!(other.data, Some(json!({"text": "yo"})));
    assert_eq!(runs.load(Ordering::SeqCst), 3);

    let records = audit.records();
    let refused: Vec<_> = records
        .iter()
        .filter(|r| r.code.as_deref() == Some("RATE_LIMITED"))
        .collect();
    assert_eq!(refused.len(), 1, "{records:?}");
    let rec = refused[0];
    assert_eq!(rec.status, Some(Status::Refused));
    assert_eq!(rec.caller.as_deref(), Some("ann"));
    assert_eq!(rec.tool, "echo");
    assert_eq!(rec.operation_id, limited.operation_id.clone().unwrap());
    assert!(!rec.fingerprint.is_empty(), "the tool was looked up");
}

#[tokio::test]
async fn a_stage_sees_what_the_stages_before_it_produced() {
    type Seen = Arc<Mutex<Vec<(StageId, bool, Option<Value>)>>>;
    let seen: Seen = Arc::default();
    let mut builder = Toolbox::builder().tool(echo(Arc::default()));
    for at in [
        StageId::Lookup,
        StageId::Policy,
        StageId::Cursor,
        StageId::Execute,
    ] {
        let seen = Arc::clone(&seen);
        builder = builder.stage(at, move |call: &StageCall<'_>| {
            let spec = call.spec().is_some();
            seen.lock()
                .unwrap()
                .push((at, spec, call.arguments().cloned()));
            assert!(call.operation_id().starts_with("op_"));
            Flow::Continue
        });
    }
    let toolbox = builder.build().unwrap();
    let env = toolbox.call("echo", r#"{"text": "hi"}"#).await;
    assert_eq!(env.status, Status::Ok);
    let args = Some(json!({"text": "hi"}));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            (StageId::Lookup, false, None),
            (StageId::Policy, true, None),
            (StageId::Cursor, true, args.clone()),
            (StageId::Execute, true, args),
        ]
    );
}

#[tokio::test]
async fn a_stage_that_ends_the_call_is_redacted_and_skips_the_rest() {
    let runs = Arc::new(AtomicUsize::new(0));
    let later = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&later);
    let toolbox = Toolbox::builder()
        .tool(echo(Arc::clone(&runs)))
        .stage(StageId::Approval, |_: &StageCall<'_>| {
            Flow::End(
                ToolError::denied(
                    "BLOCKED",
                    "Blocked; the key sk-abcdefghijklmnopqrstuvwxyz012345 is not allowed.",
                )
                .into_envelope(),
            )
        })
        .stage(StageId::Execute, move |_: &StageCall<'_>| {
            counter.fetch_add(1, Ordering::SeqCst);
            Flow::Continue
        })
        .build()
        .unwrap();
    let env = toolbox.call("echo", json!({"text": "hi"})).await;
    assert_eq!(env.status, Status::Denied);
    assert_eq!(env.code.as_deref(), Some("BLOCKED"));
    assert!(
        !env.message
            .as_deref()
            .unwrap()
            .contains("sk-abcdefghijklmnop"),
        "{env:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(later.load(Ordering::SeqCst), 0, "later stages do not run");
}

#[test]
fn stages_outside_the_documented_points_are_refused_at_build() {
    for at in ORDER {
        let built = Toolbox::builder()
            .stage(*at, |_: &StageCall<'_>| Flow::Continue)
            .build();
        if at.accepts_host_stage() {
            assert!(built.is_ok(), "{at}");
        } else {
            let err = built.unwrap_err();
            assert_eq!(err.problems, vec![Problem::InvalidStage { before: *at }]);
            assert!(err.to_string().contains(at.name()), "{err}");
        }
    }
    let points: Vec<&str> = ORDER
        .iter()
        .filter(|s| s.accepts_host_stage())
        .map(|s| s.name())
        .collect();
    assert_eq!(points.first(), Some(&"lookup"));
    assert_eq!(points.last(), Some(&"output_contract"));
}
