//! Tracing (feature `tracing`): one span per call with the OpenTelemetry GenAI attributes for
//! tool execution, an event for each denial, refusal, timeout and panic, and no argument value
//! anywhere in what a subscriber sees.
#![cfg(feature = "tracing")]

use crate::common::capture_with;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith_core::pipeline::{Flow, StageCall, StageId};
use toolsmith_core::Policy;
use toolsmith_core::{Effects, ToolSpec};
use toolsmith_core::{Envelope, Status, Tool, ToolError, Toolbox};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A distinctive argument value: it must not reach any span, event or formatted line.
const ARGUMENT: &str = "zq-argument-value-7781";

#[derive(Debug, Clone)]
struct SpanRec {
    id: u64,
    name: &'static str,
    fields: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
struct EventRec {
    name: String,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct Captured {
    spans: Vec<SpanRec>,
    events: Vec<EventRec>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Captured>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().spans.push(SpanRec {
            id: id.into_u64(),
            name: attrs.metadata().name(),
            fields,
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut captured = self.0.lock().unwrap();
        if let Some(span) = captured
            .spans
            .iter_mut()
            .rev()
            .find(|s| s.id == id.into_u64())
        {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let parent = ctx.event_span(event).map(|s| s.id().into_u64());
        self.0.lock().unwrap().events.push(EventRec {
            name: event.metadata().name().to_string(),
            parent,
            fields,
        });
    }
}

fn spec(name: &str, effects: Effects, timeout_ms: Option<u64>) -> ToolSpec {
    let mut spec = ToolSpec::new(
        name,
        "Does a thing with the text. Returns a summary.",
        json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text."}},
            "required": ["text"],
            "additionalProperties": false
        }),
    )
    .with_effects(effects)
    .with_version("1.0.0");
    spec.timeout_ms = timeout_ms;
    spec
}

fn read_only() -> Effects {
    Effects::none().with_read_only(true)
}

fn toolbox() -> Toolbox {
    let echo = Tool::from_fn(spec("echo", read_only(), None), |_, args: Value| {
        Box::pin(async move { Ok(json!({"length": args["text"].as_str().map_or(0, str::len)})) })
    });
    // The timeout is far below the tool's sleep, and long enough for a tool thread to start
    // while the other tests of the binary load the CPU: a thread that took longer to start would
    // make the call `temporary_failure` (`TOOLS_BUSY`, the tool never ran), not `timeout`.
    let slow = Tool::from_fn(spec("slow", read_only(), Some(300)), |_, _| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(Value::Null)
        })
    });
    let crash = Tool::from_fn(spec("crash", read_only(), None), |_, _| {
        Box::pin(async move { panic!("the tool crashed on purpose") })
    });
    let writes = Effects::none().with_writes(true);
    let delete = Tool::from_fn(spec("delete", writes, None), |_, _| {
        Box::pin(async move { Ok(Value::Null) })
    });
    Toolbox::builder()
        .tools([echo, slow, crash, delete])
        .policy(Policy::read_only())
        .stage(StageId::Cursor, |call: &StageCall<'_>| {
            if call.tool() == "echo" && call.arguments().is_some_and(|a| a["text"] == "stop") {
                Flow::End(ToolError::refused("STOPPED", "Stopped by the host.").into_envelope())
            } else {
                Flow::Continue
            }
        })
        .build()
        .unwrap()
}

/// Runs the calls with a subscriber that captures spans and events and formats every line.
async fn traced(calls: &[(&str, Value)]) -> (Vec<Envelope>, Captured, String) {
    let capture = Capture::default();
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(move || writer.clone())
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
        .with_ansi(false);
    let subscriber = tracing_subscriber::registry()
        .with(capture.clone())
        .with(fmt);
    let _guard = capture_with(subscriber);
    let toolbox = toolbox();
    let mut envs = Vec::new();
    for (name, args) in calls {
        envs.push(toolbox.call(name, args.clone()).await);
    }
    let captured = std::mem::take(&mut *capture.0.lock().unwrap());
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    (envs, captured, text)
}

fn call_spans(captured: &Captured) -> Vec<&SpanRec> {
    captured
        .spans
        .iter()
        .filter(|s| s.name == "execute_tool")
        .collect()
}

fn field<'a>(span: &'a SpanRec, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

#[tokio::test]
async fn every_call_opens_an_execute_tool_span_with_the_genai_attributes() {
    let (envs, captured, text) = traced(&[("echo", json!({"text": ARGUMENT}))]).await;
    assert_eq!(envs[0].status, Status::Ok);
    let spans = call_spans(&captured);
    assert_eq!(spans.len(), 1, "{:?}", captured.spans);
    let span = spans[0];
    assert_eq!(field(span, "otel.name"), Some("execute_tool echo"));
    assert_eq!(field(span, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(span, "gen_ai.tool.name"), Some("echo"));
    assert_eq!(
        field(span, "gen_ai.tool.call.id"),
        envs[0].operation_id.as_deref()
    );
    assert_eq!(field(span, "gen_ai.tool.type"), Some("function"));
    assert_eq!(
        field(span, "error.type"),
        None,
        "an ok call has no error type"
    );
    assert!(
        captured.events.iter().all(|e| e.parent != Some(span.id)),
        "an ok call has no event: {:?}",
        captured.events
    );
    assert!(text.contains("execute_tool"), "{text}");
    assert!(!text.contains(ARGUMENT), "{text}");
}

#[tokio::test]
async fn denials_refusals_timeouts_and_panics_are_events_inside_the_span() {
    let calls = [
        ("delete", json!({"text": ARGUMENT})),
        ("echo", json!({"text": "stop"})),
        ("slow", json!({"text": ARGUMENT})),
        ("crash", json!({"text": ARGUMENT})),
        ("echo", json!({"text": 7, "note": ARGUMENT})),
    ];
    let (envs, captured, text) = traced(&calls).await;
    let statuses: Vec<Status> = envs.iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [
            Status::Denied,
            Status::Refused,
            Status::Timeout,
            Status::Failed,
            Status::InvalidInput
        ]
    );
    let spans = call_spans(&captured);
    assert_eq!(spans.len(), calls.len());
    let expected_events = [
        Some("gen_ai.tool.denied"),
        Some("gen_ai.tool.refused"),
        Some("gen_ai.tool.timeout"),
        Some("gen_ai.tool.panic"),
        None,
    ];
    for ((span, env), expected) in spans.iter().zip(&envs).zip(expected_events) {
        let code = env.code.as_deref().unwrap();
        assert_eq!(field(span, "error.type"), Some(code), "{span:?}");
        assert_eq!(field(span, "otel.status_code"), Some("ERROR"));
        assert_eq!(
            field(span, "gen_ai.tool.call.id"),
            env.operation_id.as_deref()
        );
        let events: Vec<&EventRec> = captured
            .events
            .iter()
            .filter(|e| e.parent == Some(span.id))
            .collect();
        match expected {
            Some(name) => {
                assert_eq!(events.len(), 1, "{events:?}");
                assert_eq!(events[0].name, name);
                assert_eq!(
                    events[0].fields.get("error.type").map(String::as_str),
                    Some(code)
                );
            }
            None => assert!(events.is_empty(), "{events:?}"),
        }
    }
    assert_eq!(envs[1].code.as_deref(), Some("STOPPED"));
    assert_eq!(envs[3].code.as_deref(), Some("INTERNAL"));
    for span in &captured.spans {
        assert!(
            span.fields.values().all(|v| !v.contains(ARGUMENT)),
            "{span:?}"
        );
    }
    for event in &captured.events {
        assert!(
            event.fields.values().all(|v| !v.contains(ARGUMENT)),
            "{event:?}"
        );
    }
    assert!(!text.contains(ARGUMENT), "{text}");
    assert!(!text.contains("crashed on purpose"), "{text}");
}

#[tokio::test]
async fn a_dropped_call_is_a_cancelled_event() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let _guard = capture_with(subscriber);
    let toolbox = toolbox();
    let dropped = tokio::time::timeout(
        Duration::from_millis(5),
        toolbox.call("slow", json!({"text": ARGUMENT})),
    )
    .await;
    assert!(dropped.is_err(), "the call was dropped before it finished");
    let captured = capture.0.lock().unwrap();
    let span = captured
        .spans
        .iter()
        .find(|s| s.name == "execute_tool")
        .unwrap();
    let cancelled: Vec<&EventRec> = captured
        .events
        .iter()
        .filter(|e| e.name == "gen_ai.tool.cancelled")
        .collect();
    assert_eq!(cancelled.len(), 1, "{:?}", captured.events);
    assert_eq!(cancelled[0].parent, Some(span.id));
}
