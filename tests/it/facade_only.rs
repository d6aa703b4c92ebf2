//! The crate `facade-only` (tests/facade-only), which depends on toolsmith alone: its tools and
//! models work through the facade's paths.

use facade_only::*;
use toolsmith::serde_json::json;
use toolsmith::{Status, Toolbox};

#[test]
fn nested_struct_and_enum_work_through_the_facade() {
    let tb = Toolbox::builder()
        .tool(search_shoes::tool())
        .build()
        .unwrap();
    let rt = toolsmith_test_runtime();
    let env = rt.block_on(tb.call(
        "search_shoes",
        json!({"query": "trail", "filters": {"size": 42}, "sort": "rating"}),
    ));
    assert_eq!(env.status, Status::Ok, "{env:?}");
    assert_eq!(env.data, Some(json!([{"sku": "trail-42"}])));
    let env = rt.block_on(tb.call("search_shoes", json!({"query": "x", "sort": "newest"})));
    assert_eq!(env.status, Status::InvalidInput);
    let env = rt.block_on(tb.call(
        "search_shoes",
        json!({"query": "x", "filters": {"size": "big"}}),
    ));
    assert_eq!(
        env.message.as_deref(),
        Some(r#""filters.size" must be a whole number. Size in EU shoe sizes, e.g. 42."#)
    );
    let schema = &tb.specs()[0].input_schema;
    assert_eq!(
        schema["properties"]["sort"]["oneOf"][0],
        json!({"const": "price_ascending", "title": "Cheapest first."})
    );
}

/// A minimal executor: the facade brings no runtime, and this crate may not add one.
fn toolsmith_test_runtime() -> MiniRuntime {
    MiniRuntime
}

struct MiniRuntime;

impl MiniRuntime {
    fn block_on<F: std::future::Future>(&self, fut: F) -> F::Output {
        use std::task::{Context, Poll, Waker};
        let mut cx = Context::from_waker(Waker::noop());
        let mut fut = std::pin::pin!(fut);
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }
}
