//! Per-call overhead of `Toolbox::call` against the serde floor and rmcp's `ToolRouter::call`.
//!
//! Each criterion group holds the paths of one scenario side by side, measured in the same run:
//! `floor` (serde into the argument struct, hand-written checks of the same constraints, the
//! same function, `serde_json::to_string` of the result), `toolsmith` (`Toolbox::call` →
//! `Envelope::to_json`) and, with `--features rmcp`, `rmcp` (`ToolRouter::call` →
//! `serde_json::to_string` of the `CallToolResult`).
//!
//! Scenarios × entry points: `valid`, `invalid_type` (`max_price: "cheap"`, which every path
//! rejects) and `invalid_constraint` (`query: "x"`, shorter than `min_length = 2`: rmcp does not
//! check it and runs the tool) × `text` (JSON text, the OpenAI entry point) and `value` (an
//! already-parsed `serde_json::Value`, MCP/Anthropic; the floor uses `serde_json::from_value`).
//!
//! ```sh
//! cargo bench -p toolsmith-bench --features rmcp --bench call -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::Value;
use std::hint::black_box;
use toolsmith::Toolbox;

const TOOL: &str = "search_products";

const SCENARIOS: [(&str, &str); 3] = [
    (
        "valid",
        r#"{"query": "tent", "max_price": 4000, "in_stock_only": true}"#,
    ),
    (
        "invalid_type",
        r#"{"query": "tent", "max_price": "cheap", "in_stock_only": true}"#,
    ),
    (
        "invalid_constraint",
        r#"{"query": "x", "max_price": 4000, "in_stock_only": true}"#,
    ),
];

async fn floor_text(text: &str) -> String {
    toolsmith_bench::store::floor_text(text)
}

async fn floor_value(value: Value) -> String {
    toolsmith_bench::store::floor_value(value)
}

async fn toolsmith_text(toolbox: &Toolbox, text: &str) -> String {
    toolbox.call(TOOL, text).await.to_json()
}

async fn toolsmith_value(toolbox: &Toolbox, value: Value) -> String {
    toolbox.call(TOOL, value).await.to_json()
}

/// `Toolbox::call_json`: the result serialized once, straight into the envelope's text.
async fn toolsmith_json<'a, A: Into<toolsmith::Arguments<'a>>>(
    toolbox: &'a Toolbox,
    args: A,
) -> String {
    toolbox.call_json(TOOL, args).await
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// An envelope without its per-call `operation_id`.
fn without_operation_id(mut envelope: Value) -> Value {
    if let Some(map) = envelope.as_object_mut() {
        map.remove("operation_id");
    }
    envelope
}

/// Checks, before anything is timed, that the paths agree: the same data on success, an error
/// where the floor reports one.
fn check_agreement(toolbox: &Toolbox, rt: &tokio::runtime::Runtime) {
    for (scenario, text) in SCENARIOS {
        let floor = parse(&rt.block_on(floor_text(text)));
        let ours = without_operation_id(parse(&rt.block_on(toolsmith_text(toolbox, text))));
        let ours_value =
            without_operation_id(parse(&rt.block_on(toolsmith_value(toolbox, parse(text)))));
        assert_eq!(
            ours, ours_value,
            "{scenario}: text and value entry points disagree"
        );
        for json in [
            rt.block_on(toolsmith_json(toolbox, text)),
            rt.block_on(toolsmith_json(toolbox, parse(text))),
        ] {
            assert_eq!(
                without_operation_id(parse(&json)),
                ours,
                "{scenario}: call_json and call disagree"
            );
        }
        if scenario == "valid" {
            assert_eq!(
                ours["status"], "ok",
                "{scenario}: toolsmith returned {ours}"
            );
            assert_eq!(
                ours["data"], floor,
                "{scenario}: toolsmith and the floor disagree"
            );
        } else {
            assert_eq!(
                ours["status"], "invalid_input",
                "{scenario}: toolsmith returned {ours}"
            );
            assert!(
                floor.get("error").is_some(),
                "{scenario}: the floor returned {floor}"
            );
        }
    }
}

#[cfg(feature = "rmcp")]
fn check_rmcp(caller: &toolsmith_bench::rmcp_tools::RmcpCaller, rt: &tokio::runtime::Runtime) {
    let (_, text) = SCENARIOS[0];
    let floor = rt.block_on(floor_text(text));
    let theirs = parse(&rt.block_on(caller.call_text(TOOL, text)));
    assert_eq!(
        theirs["content"][0]["text"].as_str(),
        Some(floor.as_str()),
        "rmcp and the floor disagree: {theirs}"
    );
}

fn bench_calls(c: &mut Criterion) {
    let rt = toolsmith_bench::runtime();
    let _guard = rt.enter();
    let toolbox = toolsmith_bench::store_toolbox();
    check_agreement(&toolbox, &rt);
    #[cfg(feature = "rmcp")]
    let caller = {
        let caller = toolsmith_bench::rmcp_tools::RmcpCaller::new();
        check_rmcp(&caller, &rt);
        caller
    };

    for (scenario, text) in SCENARIOS {
        let mut group = c.benchmark_group(format!("call_{scenario}_text"));
        group.bench_function("floor", |b| {
            b.iter(|| rt.block_on(floor_text(black_box(text))))
        });
        group.bench_function("toolsmith", |b| {
            b.iter(|| rt.block_on(toolsmith_text(&toolbox, black_box(text))))
        });
        group.bench_function("toolsmith_json", |b| {
            b.iter(|| rt.block_on(toolsmith_json(&toolbox, black_box(text))))
        });
        #[cfg(feature = "rmcp")]
        group.bench_function("rmcp", |b| {
            b.iter(|| rt.block_on(caller.call_text(TOOL, black_box(text))))
        });
        group.finish();

        let value = parse(text);
        let mut group = c.benchmark_group(format!("call_{scenario}_value"));
        group.bench_function("floor", |b| {
            b.iter_batched(
                || value.clone(),
                |v| rt.block_on(floor_value(v)),
                BatchSize::SmallInput,
            )
        });
        group.bench_function("toolsmith", |b| {
            b.iter_batched(
                || value.clone(),
                |v| rt.block_on(toolsmith_value(&toolbox, v)),
                BatchSize::SmallInput,
            )
        });
        group.bench_function("toolsmith_json", |b| {
            b.iter_batched(
                || value.clone(),
                |v| rt.block_on(toolsmith_json(&toolbox, v)),
                BatchSize::SmallInput,
            )
        });
        #[cfg(feature = "rmcp")]
        group.bench_function("rmcp", |b| {
            b.iter_batched(
                || value.clone(),
                |v| rt.block_on(caller.call_value(TOOL, v)),
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench_calls);
criterion_main!(benches);
