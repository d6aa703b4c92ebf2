//! The `#[tool]` declarations of the validation tests: every parameter shape and constraint
//! keyword the macro emits. `tests/it/validation.rs` calls them through a toolbox;
//! `tests/it/differential.rs` checks their generated schemas against `jsonschema`.

use serde_json::{json, Value};
use toolsmith::{model, tool, tools, Tool, ToolError, Toolbox};

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

/// Garment sizes.
#[model]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
pub enum Size {
    /// Small, chest up to 90 cm.
    Small,
    /// Medium, chest 90 to 100 cm.
    Medium,
    /// Large, chest over 100 cm.
    Large,
}

#[model]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
#[allow(missing_docs)]
pub enum Colour {
    Red,
    Green,
    Blue,
}

/// Search filters.
#[model]
#[derive(Debug)]
pub struct Filters {
    /// Garment size, e.g. "medium".
    pub size: Size,
    /// Colour to match, e.g. "red".
    pub colour: Option<Colour>,
    /// Heaviest weight in grams, e.g. 800.
    pub max_weight: Option<u32>,
}

/// One line of an order.
#[model]
#[derive(Debug)]
pub struct LineItem {
    /// Stock-keeping unit, e.g. "TNT-2P".
    pub sku: String,
    /// How many, e.g. 2.
    pub quantity: u32,
}

/// A shape to cut.
#[model]
#[serde(tag = "kind", rename_all = "snake_case")]
#[derive(Debug)]
pub enum Shape {
    /// A circle.
    Circle {
        /// Radius in cm, e.g. 4.5.
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// Width in cm, e.g. 10.
        width: f64,
        /// Height in cm, e.g. 20.
        height: f64,
    },
}

/// A folder with sub-folders.
#[model]
#[derive(Debug)]
pub struct Folder {
    /// Folder name, e.g. "docs".
    pub name: String,
    /// Sub-folders.
    pub children: Vec<Folder>,
}

/// A linked list of numbers.
#[model]
#[derive(Debug)]
pub struct Chain {
    /// The number at this link, e.g. 7.
    pub value: i64,
    /// The next link, if any.
    pub next: Option<Box<Chain>>,
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/// Searches products by words in their names. Returns the query and code it searched with.
#[tool(read_only)]
pub fn search_text(
    /// Words to look for in product names, e.g. "tent".
    #[arg(min_length = 2, max_length = 10)]
    query: String,
    /// Product code, e.g. "TNT-12".
    #[arg(pattern = "^[A-Z]{3}-[0-9]+$")]
    code: Option<String>,
) -> Value {
    json!({"query": query, "code": code})
}

/// Lists offers in a price band. Returns the decoded arguments.
#[tool(read_only)]
pub fn list_offers(
    /// Highest price in NOK, e.g. 2500.
    #[arg(minimum = 0, maximum = 10000)]
    max_price: Option<f64>,
    /// Discount as a fraction, e.g. 0.2.
    #[arg(exclusive_minimum = 0, exclusive_maximum = 1)]
    discount: Option<f64>,
    /// Pack size in units of five, e.g. 10.
    #[arg(multiple_of = 5)]
    pack: Option<u32>,
    /// Length in quarter metres, e.g. 1.75.
    #[arg(multiple_of = 0.25)]
    length: Option<f64>,
    /// Number of offers, e.g. 3.
    #[arg(minimum = -5, maximum = 50)]
    count: Option<i64>,
) -> Value {
    json!({"max_price": max_price, "discount": discount, "pack": pack, "length": length, "count": count})
}

/// Compares products side by side. Returns the SKUs compared.
#[tool(read_only)]
pub fn compare_skus(
    /// SKUs to compare, e.g. ["TNT-2P", "TNT-1P"].
    #[arg(min_items = 2, max_items = 3, unique_items)]
    skus: Vec<String>,
    /// Whether to include discontinued products, e.g. false.
    discontinued: Option<bool>,
) -> Value {
    json!({"skus": skus, "discontinued": discontinued})
}

/// Lists recent orders. Returns the page size and sort order used.
#[tool(read_only)]
pub fn list_orders(
    /// How many orders to list, e.g. 20.
    #[arg(default = 10, minimum = 1, maximum = 100)]
    limit: u32,
    /// Sort newest first, e.g. true.
    #[arg(default = true)]
    newest_first: bool,
) -> Value {
    json!({"limit": limit, "newest_first": newest_first})
}

/// Finds garments matching filters. Returns the filters as decoded.
#[tool(read_only)]
pub fn find_garments(
    /// Filters to apply.
    filters: Filters,
    /// Colour, e.g. "blue".
    colour: Option<Colour>,
    /// Size, e.g. "small".
    size: Option<Size>,
) -> Value {
    json!({"filters": format!("{filters:?}"), "colour": format!("{colour:?}"), "size": format!("{size:?}")})
}

/// Prices an order. Returns the number of lines and units.
#[tool(read_only)]
pub fn calculate_order(
    /// Order lines, e.g. [{"sku": "TNT-2P", "quantity": 1}].
    #[arg(min_items = 1)]
    items: Vec<LineItem>,
) -> Value {
    let units: u32 = items.iter().map(|i| i.quantity).sum();
    json!({"lines": items.len(), "units": units})
}

/// Computes the area of a shape. Returns the area in square cm.
#[tool(read_only)]
pub fn compute_area(
    /// The shape, e.g. {"kind": "circle", "radius": 2}.
    shape: Shape,
) -> f64 {
    match shape {
        Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
        Shape::Rectangle { width, height } => width * height,
    }
}

/// Counts folders in a tree. Returns the number of folders.
#[tool(read_only)]
pub fn count_folders(
    /// The root folder, e.g. {"name": "docs", "children": []}.
    root: Folder,
) -> usize {
    fn count(f: &Folder) -> usize {
        1 + f.children.iter().map(count).sum::<usize>()
    }
    count(&root)
}

/// Sums a chain of numbers. Returns the sum.
#[tool(read_only)]
pub fn add_chain(
    /// The first link, e.g. {"value": 1, "next": {"value": 2}}.
    chain: Chain,
) -> i64 {
    let mut sum = 0;
    let mut at = Some(&chain);
    while let Some(link) = at {
        sum += link.value;
        at = link.next.as_deref();
    }
    sum
}

/// Repeats a word. Returns the repeated word.
#[tool(read_only)]
// ToolError is large (168 bytes), so clippy flags every `Result<_, ToolError>` tool (reported).
#[allow(clippy::result_large_err)]
pub fn echo_word(
    /// The word, e.g. "ha".
    word: String,
    /// How many times, e.g. 3.
    times: u8,
) -> Result<String, ToolError> {
    Ok(word.repeat(usize::from(times)))
}

/// Sets the speaker volume. Returns the volume set.
#[tool(read_only)]
pub fn set_volume(
    /// Volume from 0 to 255, e.g. 80.
    // No declared bounds: `u8`'s own range is what the validator enforces (a declared bound
    // outside it, e.g. `minimum = -10`, is a compile error).
    volume: u8,
) -> u8 {
    volume
}

/// Reports the time of day. Returns a fixed time.
#[tool(read_only)]
pub fn get_time() -> &'static str {
    "12:00"
}

/// A warehouse.
pub struct Warehouse {
    stock: u32,
}

#[tools]
impl Warehouse {
    /// Checks the stock of a SKU. Returns the number in stock.
    #[tool(read_only)]
    fn check_stock(
        &self,
        /// Stock-keeping unit, e.g. "TNT-2P".
        #[arg(min_length = 3)]
        sku: String,
    ) -> Value {
        json!({"sku": sku, "stock": self.stock})
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Every tool declared above (the differential tests reuse their schemas).
pub fn tools_under_test() -> Vec<Tool> {
    let mut tools = vec![
        search_text::tool(),
        list_offers::tool(),
        compare_skus::tool(),
        list_orders::tool(),
        find_garments::tool(),
        calculate_order::tool(),
        compute_area::tool(),
        count_folders::tool(),
        add_chain::tool(),
        echo_word::tool(),
        get_time::tool(),
        set_volume::tool(),
    ];
    tools.extend(Warehouse::tools());
    tools
}

/// A toolbox of [`tools_under_test`], with the `Warehouse` the method tool needs.
pub fn toolbox() -> Toolbox {
    toolbox_with(true)
}

/// The test toolbox, with the typed fast path on or off (the differential tests compare them).
pub fn toolbox_with(typed: bool) -> Toolbox {
    toolbox_with_tools(typed, Vec::new())
}

/// [`toolbox_with`], with more tools.
pub fn toolbox_with_tools(typed: bool, extra: Vec<Tool>) -> Toolbox {
    let builder = Toolbox::builder()
        .tools(tools_under_test())
        .tools(extra)
        .context(Warehouse { stock: 4 });
    let builder = if typed {
        builder
    } else {
        builder.without_typed_decoding()
    };
    builder.build().expect("the test toolbox builds")
}
