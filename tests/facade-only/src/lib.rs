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
