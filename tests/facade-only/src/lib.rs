//! Tools declared in a crate whose only dependency is `toolsmith`.

use toolsmith::{model, tool, ToolError};

/// Filters for a search.
#[model]
pub struct Filters {
    /// Size in EU shoe sizes, e.g. 42.
    pub size: Option<u8>,
    /// Colour name, e.g. "red".
    pub colour: Option<String>,
}

/// How to sort results.
#[model]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// Cheapest first.
    PriceAscending,
    /// Best rated first.
    Rating,
}

/// One search hit.
#[model]
pub struct Hit {
    /// Stock-keeping unit, e.g. "SHO-42".
    pub sku: String,
}

/// Searches shoes. Returns matching SKUs, best first.
#[tool(read_only)]
pub fn search_shoes(
    /// Words to look for, e.g. "trail".
    #[arg(min_length = 1)]
    query: String,
    /// Optional filters.
    filters: Option<Filters>,
    /// Sort order; default rating.
    sort: Option<SortOrder>,
) -> Result<Vec<Hit>, ToolError> {
    let size = filters.and_then(|f| f.size).unwrap_or(0);
    let _ = sort;
    Ok(vec![Hit {
        sku: format!("{query}-{size}"),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
