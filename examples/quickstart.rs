//! The shortest complete tour of toolsmith: declare tools, lint them, export them as build
//! artifacts, and call them.
//!
//! Run it with `cargo run --example quickstart`.

use toolsmith::export::{default_artifact_dir, McpVersion, Target};
use toolsmith::lint::LintConfig;
use toolsmith::{model, tool, ToolError, Toolbox};

/// A product in the catalogue.
#[model]
struct Product {
    /// Stock-keeping unit, e.g. "TNT-2P".
    sku: String,
    /// Product name.
    name: String,
    /// Price in NOK.
    price_nok: u32,
}

/// Product categories.
#[model]
#[serde(rename_all = "snake_case")]
enum Category {
    /// Tents and shelters.
    Tents,
    /// Sleeping bags and mats.
    Sleeping,
    /// Stoves, pots and fuel.
    Cooking,
}

/// The catalogue the tools read; injected by the host, never supplied by the model.
struct Catalogue {
    products: Vec<(Category, Product)>,
}

/// Searches the outdoor-gear catalogue by name. Returns up to 10 matching products, cheapest first, each with SKU, name and price in NOK.
#[tool(read_only, title = "Search products")]
fn search_products(
    /// Words to look for in product names, e.g. "tent".
    #[arg(min_length = 2, max_length = 100)]
    query: String,
    /// Only products in this category.
    category: Option<Category>,
    /// Highest price in NOK, e.g. 2500.
    #[arg(minimum = 0)]
    max_price: Option<u32>,
    #[context] catalogue: &Catalogue,
) -> Result<Vec<Product>, ToolError> {
    let query = query.to_lowercase();
    let mut hits: Vec<Product> = catalogue
        .products
        .iter()
        .filter(|(c, p)| {
            p.name.to_lowercase().contains(&query)
                && category.as_ref().is_none_or(|want| same_category(want, c))
                && max_price.is_none_or(|max| p.price_nok <= max)
        })
        .map(|(_, p)| Product {
            sku: p.sku.clone(),
            name: p.name.clone(),
            price_nok: p.price_nok,
        })
        .collect();
    if hits.is_empty() {
        return Err(ToolError::empty(
            "No products match. Try a shorter query or leave out the category.",
        ));
    }
    hits.sort_by_key(|p| p.price_nok);
    hits.truncate(10);
    Ok(hits)
}

fn same_category(a: &Category, b: &Category) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Converts an amount in NOK to EUR at a fixed demo rate. Returns the amount in EUR, rounded to cents.
#[tool(read_only)]
async fn convert_price(
    /// Amount in NOK, e.g. 1299.
    #[arg(minimum = 0, maximum = 1000000)]
    amount_nok: f64,
) -> f64 {
    (amount_nok * 0.086 * 100.0).round() / 100.0
}

/// The catalogue of the demo: four products.
fn demo_catalogue() -> Catalogue {
    Catalogue {
        products: vec![
            (
                Category::Tents,
                Product {
                    sku: "TNT-2P".into(),
                    name: "Fjell 2-person tent".into(),
                    price_nok: 3499,
                },
            ),
            (
                Category::Tents,
                Product {
                    sku: "TNT-1P".into(),
                    name: "Vidde 1-person tent".into(),
                    price_nok: 2199,
                },
            ),
            (
                Category::Sleeping,
                Product {
                    sku: "BAG-M5".into(),
                    name: "Vinter sleeping bag".into(),
                    price_nok: 1899,
                },
            ),
            (
                Category::Cooking,
                Product {
                    sku: "STV-GAS".into(),
                    name: "Kompakt gas stove".into(),
                    price_nok: 499,
                },
            ),
        ],
    }
}

/// Prints the toolbox's MCP `tools/list`.
fn print_tools_list(toolbox: &Toolbox) -> Result<(), Box<dyn std::error::Error>> {
    println!("== tools/list (MCP 2025-11-25) ==");
    let mcp = toolbox.export(Target::Mcp(McpVersion::V2025_11_25))?;
    println!("{}", serde_json::to_string_pretty(&mcp)?);
    Ok(())
}

/// Prints the runtime lint's findings and the list's context cost.
fn print_lint(toolbox: &Toolbox) {
    println!("\n== lint ==");
    let findings = toolbox.lint(&LintConfig::default());
    println!("{} finding(s)", findings.len());
    for f in &findings {
        println!("  {f}");
    }
    let cost = toolsmith::lint::measure_specs(&toolbox.specs());
    println!(
        "context cost: {} characters, about {} tokens",
        cost.total_chars, cost.estimated_tokens
    );
}

/// Writes the build artifacts to the default directory and lists what was not exported.
fn write_artifacts(toolbox: &Toolbox) -> Result<(), Box<dyn std::error::Error>> {
    let dir = default_artifact_dir();
    let report = toolbox.write_artifacts(&dir)?;
    println!(
        "\n== artifacts ==\n{} files in {}",
        report.files.len(),
        dir.display()
    );
    for failure in &report.failures {
        println!("  not exported: {failure}");
    }
    Ok(())
}

/// Makes each demo call and prints the envelope it answers.
async fn show_calls(toolbox: &Toolbox) {
    println!("\n== calls ==");
    let calls = [
        ("search_products", r#"{"query": "tent", "max_price": 3000}"#),
        (
            "search_products",
            r#"{"query": "tent", "category": "tents"}"#,
        ),
        ("search_products", r#"{"query": "kayak"}"#),
        (
            "search_products",
            r#"{"query": "tent", "max_price": "cheap"}"#,
        ),
        ("search_products", r#"{"max_price": 100}"#),
        ("search_products", r#"{"query": "tent", "colour": "red"}"#),
        (
            "search_products",
            r#"{"query": "tent", "category": "boats"}"#,
        ),
        ("convert_price", r#"{"amount_nok": 1299}"#),
        ("book_flight", r#"{}"#),
    ];
    for (name, args) in calls {
        let env = toolbox.call(name, args).await;
        println!("{name} {args}\n  -> {}", env.to_json());
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Declare: the functions above are the tools. Register them with the context they need.
    let toolbox = Toolbox::builder()
        .tool(search_products::tool())
        .tool(convert_price::tool())
        .context(demo_catalogue())
        .build()?;

    // 2. The specs the model reads, as an MCP server would list them.
    print_tools_list(&toolbox)?;

    // 3. Lint: the compiler already enforced the rules on the text it saw; the runtime lint also
    //    sees the full schemas (nested types, enums). A clean tool list has no findings.
    print_lint(&toolbox);

    // 4. Build artifacts: one file per platform plus an index of fingerprints.
    write_artifacts(&toolbox)?;

    // 5. Calls, valid and invalid, and the envelopes the model reads back.
    show_calls(&toolbox).await;
    Ok(())
}
