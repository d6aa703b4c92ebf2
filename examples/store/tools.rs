//! The `store` tools: search and compare a small outdoor-gear catalogue, and add to a cart.
//!
//! The catalogue, the signed-in customer and the carts are injected by the host. Prices are in
//! NOK. Stock counts stay private: results say only whether something is in stock, and refusals
//! never state how many are left.

use std::collections::HashMap;
use std::sync::Mutex;
use toolsmith::{model, tool, BuildError, Reply, ToolError, Toolbox};

/// The currency of every price.
pub const CURRENCY: &str = "NOK";
/// At most this many products per search.
pub const MAX_RESULTS: usize = 10;

/// A product category.
#[model]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Tents and shelters.
    Tents,
    /// Sleeping bags and mats.
    Sleeping,
    /// Jackets and other clothing.
    Clothing,
    /// Boots and shoes.
    Footwear,
    /// Stoves and pots.
    Cooking,
    /// Headlamps and lanterns.
    Lighting,
}

impl Category {
    fn word(self) -> &'static str {
        match self {
            Category::Tents => "tents",
            Category::Sleeping => "sleeping",
            Category::Clothing => "clothing",
            Category::Footwear => "footwear",
            Category::Cooking => "cooking",
            Category::Lighting => "lighting",
        }
    }
}

/// How much of a product the store has: one count, or one per size. Never shown to the model.
#[derive(Clone, Debug)]
pub enum Stock {
    /// One count for the product.
    Units(u32),
    /// A count per size, in size order.
    Sizes(Vec<(String, u32)>),
}

/// One product of the catalogue (host data; the model sees [`ProductHit`] and comparisons).
#[derive(Clone, Debug)]
pub struct Product {
    /// Stock-keeping unit; for products sold in sizes, the family's SKU.
    pub sku: String,
    /// Product name.
    pub name: String,
    /// Category.
    pub category: Category,
    /// Price in NOK.
    pub price_nok: u32,
    /// Average rating, 0 to 5.
    pub rating: f64,
    /// Weight in grams.
    pub weight_g: u32,
    /// Stock (private).
    pub stock: Stock,
    /// At most this many per customer, counting earlier purchases.
    pub limit_per_customer: Option<u32>,
}

impl Product {
    fn in_stock(&self) -> bool {
        match &self.stock {
            Stock::Units(n) => *n > 0,
            Stock::Sizes(sizes) => sizes.iter().any(|(_, n)| *n > 0),
        }
    }
}

/// The catalogue; injected by the host.
#[derive(Debug)]
pub struct Catalogue {
    /// The products.
    pub products: Vec<Product>,
}

impl Catalogue {
    fn find(&self, sku: &str) -> Option<&Product> {
        let sku = sku.trim();
        self.products
            .iter()
            .find(|p| p.sku.eq_ignore_ascii_case(sku))
    }
}

/// The signed-in customer; injected by the host, never supplied by the model.
#[derive(Debug)]
pub struct Customer {
    /// Customer id.
    pub id: String,
    /// Earlier purchases: SKU and quantity (counted against per-customer limits).
    pub purchased: Vec<(String, u32)>,
}

/// One line of a cart (host state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Product SKU (the family's SKU for sized products).
    pub sku: String,
    /// Size, for sized products.
    pub size: Option<String>,
    /// Quantity.
    pub quantity: u32,
}

/// Every customer's cart; injected by the host.
#[derive(Debug, Default)]
pub struct Carts {
    /// Lines by customer id.
    pub by_customer: Mutex<HashMap<String, Vec<Line>>>,
}

/// A price with its currency.
#[model]
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    /// Amount in whole kroner.
    pub amount: u32,
    /// Currency code, always "NOK".
    pub currency: String,
}

fn nok(amount: u32) -> Price {
    Price {
        amount,
        currency: CURRENCY.to_string(),
    }
}

/// A product in search results.
#[model]
pub struct ProductHit {
    /// Stock-keeping unit, e.g. "TNT-2P".
    pub sku: String,
    /// Product name.
    pub name: String,
    /// Price.
    pub price: Price,
    /// Average rating, 0 to 5.
    pub rating: f64,
    /// Whether it can be ordered now.
    pub in_stock: bool,
}

/// Products matching a search.
#[model]
pub struct SearchResult {
    /// How many products match in all.
    pub total: u32,
    /// Up to 10 products, best match first.
    pub products: Vec<ProductHit>,
}

/// How well `p` matches the query words: `None` when a word is missing.
fn score(p: &Product, words: &[String]) -> Option<u32> {
    let name = p.name.to_lowercase();
    let mut score = 0;
    for w in words {
        if name.contains(w.as_str()) {
            score += 2;
        } else if p.category.word().contains(w.as_str())
            || p.sku.to_lowercase().contains(w.as_str())
        {
            score += 1;
        } else {
            return None;
        }
    }
    Some(score)
}

/// Searches the outdoor-gear catalogue. Returns up to 10 products, best match first, each with
/// SKU, name, price in NOK, rating and whether it is in stock, plus the total number of matches.
#[tool(read_only, title = "Search products")]
pub fn search_products(
    /// Words to look for in product names and kinds, e.g. "down jacket".
    #[arg(min_length = 2, max_length = 100)]
    query: String,
    /// Only products in this category.
    category: Option<Category>,
    /// Highest price in NOK, e.g. 2500.
    #[arg(minimum = 0)]
    max_price: Option<u32>,
    /// Only products that can be ordered now. Default false.
    in_stock_only: Option<bool>,
    #[context] catalogue: &Catalogue,
) -> Result<Reply<SearchResult>, ToolError> {
    let words: Vec<String> = query
        .to_lowercase()
        .split_whitespace()
        .map(|w| w.trim_end_matches('s').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    let mut hits: Vec<(u32, &Product)> = catalogue
        .products
        .iter()
        .filter(|p| category.is_none_or(|c| c == p.category))
        .filter(|p| max_price.is_none_or(|m| p.price_nok <= m))
        .filter(|p| !in_stock_only.unwrap_or(false) || p.in_stock())
        .filter_map(|p| score(p, &words).map(|s| (s, p)))
        .collect();
    if hits.is_empty() {
        let mut tips = vec!["Try a broader word such as \"jacket\", \"tent\" or \"stove\""];
        if category.is_some() || max_price.is_some() || in_stock_only == Some(true) {
            tips.push("or leave out category, max_price or in_stock_only");
        }
        return Err(ToolError::empty(format!(
            "No products match {query:?}. {}.",
            tips.join(" ")
        )));
    }
    hits.sort_by(|(sa, a), (sb, b)| {
        sb.cmp(sa)
            .then(b.rating.total_cmp(&a.rating))
            .then(a.price_nok.cmp(&b.price_nok))
    });
    let total = hits.len();
    let products = hits
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, p)| ProductHit {
            sku: p.sku.clone(),
            name: p.name.clone(),
            price: nok(p.price_nok),
            rating: p.rating,
            in_stock: p.in_stock(),
        })
        .collect();
    let result = SearchResult {
        total: u32::try_from(total).unwrap_or(u32::MAX),
        products,
    };
    if total > MAX_RESULTS {
        Ok(Reply::new(result).note(format!(
            "Showing {MAX_RESULTS} of {total}. Add category or max_price to narrow the search."
        )))
    } else {
        Ok(Reply::new(result))
    }
}

/// One attribute across the compared products.
#[model]
pub struct AttributeRow {
    /// The attribute, e.g. "price".
    pub attribute: String,
    /// Each product's value, in the order of `skus`.
    pub values: Vec<String>,
}

/// Products side by side.
#[model]
pub struct Comparison {
    /// The compared SKUs, in the order given.
    pub skus: Vec<String>,
    /// One row per attribute.
    pub rows: Vec<AttributeRow>,
}

fn unknown_skus(unknown: &[String]) -> ToolError {
    let list: Vec<String> = unknown.iter().map(|s| format!("{s:?}")).collect();
    ToolError::invalid_input(
        "UNKNOWN_SKU",
        format!(
            "No product has the SKU {}. Find SKUs with search_products.",
            list.join(", ")
        ),
    )
    .with_details(serde_json::json!({ "unknown": unknown }))
}

/// Compares 2 to 4 products side by side. Returns one row per attribute (name, category, price,
/// rating, weight, in stock, sizes) with each product's value, in the order the SKUs were given.
#[tool(read_only, title = "Compare products")]
pub fn compare_products(
    /// 2 to 4 different SKUs from search_products, e.g. ["TNT-1P", "TNT-2P"].
    #[arg(min_items = 2, max_items = 4, unique_items)]
    skus: Vec<String>,
    #[context] catalogue: &Catalogue,
) -> Result<Comparison, ToolError> {
    let unknown: Vec<String> = skus
        .iter()
        .filter(|s| catalogue.find(s).is_none())
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(unknown_skus(&unknown));
    }
    let products: Vec<&Product> = skus.iter().filter_map(|s| catalogue.find(s)).collect();
    let mut distinct: Vec<&str> = products.iter().map(|p| p.sku.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != products.len() {
        return Err(ToolError::invalid_input(
            "DUPLICATE_SKU",
            "The same product is listed twice (SKUs ignore case). Give 2 to 4 different SKUs.",
        ));
    }
    let row = |attribute: &str, f: &dyn Fn(&Product) -> String| AttributeRow {
        attribute: attribute.to_string(),
        values: products.iter().map(|p| f(p)).collect(),
    };
    let rows = vec![
        row("name", &|p| p.name.clone()),
        row("category", &|p| p.category.word().to_string()),
        row("price", &|p| format!("{} {CURRENCY}", p.price_nok)),
        row("rating", &|p| format!("{:.1} of 5", p.rating)),
        row("weight", &|p| format!("{} g", p.weight_g)),
        row("in stock", &|p| {
            if p.in_stock() { "yes" } else { "no" }.to_string()
        }),
        row("sizes", &|p| match &p.stock {
            Stock::Units(_) => "one size".to_string(),
            Stock::Sizes(s) => s
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    ];
    Ok(Comparison {
        skus: products.iter().map(|p| p.sku.clone()).collect(),
        rows,
    })
}

/// A line of the cart after adding.
#[model]
#[derive(Clone, Debug, PartialEq)]
pub struct CartLine {
    /// Product SKU.
    pub sku: String,
    /// Product name.
    pub name: String,
    /// Size, for products sold in sizes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// Quantity on this line.
    pub quantity: u32,
    /// Price of one.
    pub unit_price: Price,
    /// Price of the line.
    pub line_total: Price,
}

/// The cart after adding.
#[model]
pub struct CartUpdate {
    /// The line that was added to (or created).
    pub line: CartLine,
    /// Number of items in the cart.
    pub cart_items: u32,
    /// Total price of the cart.
    pub cart_total: Price,
}

fn refused_fewer(code: &str, what: String) -> ToolError {
    ToolError::refused(
        code,
        format!("{what} Nothing was added. Ask the user whether they want a smaller quantity."),
    )
}

/// Adds a product to the signed-in customer's shopping cart (changes the cart; nothing is bought).
/// Returns the cart line and the cart total in NOK.
#[tool(writes, title = "Add to cart")]
pub fn add_to_cart(
    /// The product's SKU from search_products, e.g. "BOOT-TROLL".
    #[arg(min_length = 2, max_length = 40)]
    sku: String,
    /// How many to add, 1 to 10.
    #[arg(minimum = 1, maximum = 10)]
    quantity: u32,
    /// The size, for products sold in sizes, e.g. "42" or "M".
    #[arg(min_length = 1, max_length = 10)]
    size: Option<String>,
    #[context] catalogue: &Catalogue,
    #[context] customer: &Customer,
    #[context] carts: &Carts,
) -> Result<CartUpdate, ToolError> {
    let Some(product) = catalogue.find(&sku) else {
        return Err(unknown_skus(&[sku]));
    };
    // Which size, and how many the store has of it (private).
    let (size, stock) = size_in_stock(product, size)?;
    let mut all = carts
        .by_customer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let cart = all.entry(customer.id.clone()).or_default();
    within_limit(product, customer, cart, quantity)?;
    let in_cart_this: u32 = cart
        .iter()
        .filter(|l| l.sku == product.sku && l.size == size)
        .map(|l| l.quantity)
        .sum();
    if in_cart_this + quantity > stock {
        let what = match &size {
            Some(s) => format!("{} in size {s}", product.name),
            None => product.name.clone(),
        };
        return Err(refused_fewer(
            "OUT_OF_STOCK",
            format!("There is not enough {what} in stock for {quantity} more."),
        ));
    }
    let line = add_line(cart, product, size, quantity);
    let price_of = |sku: &str| catalogue.find(sku).map_or(0, |p| p.price_nok);
    let cart_total: u32 = cart.iter().map(|l| price_of(&l.sku) * l.quantity).sum();
    let cart_items: u32 = cart.iter().map(|l| l.quantity).sum();
    Ok(CartUpdate {
        line: CartLine {
            sku: line.sku,
            name: product.name.clone(),
            size: line.size,
            quantity: line.quantity,
            unit_price: nok(product.price_nok),
            line_total: nok(product.price_nok * line.quantity),
        },
        cart_items,
        cart_total: nok(cart_total),
    })
}

/// The size of `product` to add (none for a product not sold in sizes) and how many the store
/// has of it; a size missing, given for a product without sizes, or unknown is an error.
fn size_in_stock(
    product: &Product,
    size: Option<String>,
) -> Result<(Option<String>, u32), ToolError> {
    match (&product.stock, size) {
        (Stock::Units(n), None) => Ok((None, *n)),
        (Stock::Units(_), Some(_)) => Err(ToolError::invalid_input(
            "NOT_SIZED",
            format!("{} is not sold in sizes. Leave out size.", product.sku),
        )),
        (Stock::Sizes(sizes), None) => {
            let available: Vec<&str> = sizes
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(s, _)| s.as_str())
                .collect();
            if available.is_empty() {
                return Err(refused_fewer(
                    "OUT_OF_STOCK",
                    format!("{} is sold out in every size.", product.name),
                ));
            }
            Err(ToolError::needs_input(
                ["size"],
                format!(
                    "Which size? {} is sold in sizes; in stock now: {}. Ask the user, then call \
                     again with size.",
                    product.name,
                    available.join(", ")
                ),
            )
            .with_details(serde_json::json!({ "sku": product.sku, "sizes": available })))
        }
        (Stock::Sizes(sizes), Some(want)) => {
            let offered: Vec<&str> = sizes.iter().map(|(s, _)| s.as_str()).collect();
            match sizes
                .iter()
                .find(|(s, _)| s.eq_ignore_ascii_case(want.trim()))
            {
                Some((s, n)) => Ok((Some(s.clone()), *n)),
                None => Err(ToolError::invalid_input(
                    "UNKNOWN_SIZE",
                    format!(
                        "{} is not sold in size {want:?}. Sizes: {}.",
                        product.name,
                        offered.join(", ")
                    ),
                )
                .with_details(serde_json::json!({ "sizes": offered }))),
            }
        }
    }
}

/// Refuses `quantity` more of a product limited per customer when the customer's cart and
/// earlier purchases already hold too many.
fn within_limit(
    product: &Product,
    customer: &Customer,
    cart: &[Line],
    quantity: u32,
) -> Result<(), ToolError> {
    let Some(limit) = product.limit_per_customer else {
        return Ok(());
    };
    let in_cart: u32 = cart
        .iter()
        .filter(|l| l.sku == product.sku)
        .map(|l| l.quantity)
        .sum();
    let bought: u32 = customer
        .purchased
        .iter()
        .filter(|(s, _)| *s == product.sku)
        .map(|(_, q)| *q)
        .sum();
    let already = in_cart + bought;
    if already + quantity <= limit {
        return Ok(());
    }
    let room = limit.saturating_sub(already);
    Err(refused_fewer(
        "PER_CUSTOMER_LIMIT",
        format!(
            "{} is limited to {limit} per customer; this customer already has {already} \
             (in the cart or bought earlier), so at most {room} more can be added.",
            product.name
        ),
    )
    .with_details(serde_json::json!({ "limit": limit, "already": already, "room": room })))
}

/// Adds `quantity` of `product` in `size` to the cart (to its line, or a new one); returns the
/// line as it is now.
fn add_line(cart: &mut Vec<Line>, product: &Product, size: Option<String>, quantity: u32) -> Line {
    match cart
        .iter_mut()
        .find(|l| l.sku == product.sku && l.size == size)
    {
        Some(l) => {
            l.quantity += quantity;
            l.clone()
        }
        None => {
            let l = Line {
                sku: product.sku.clone(),
                size,
                quantity,
            };
            cart.push(l.clone());
            l
        }
    }
}

fn sized(sizes: &[(&str, u32)]) -> Stock {
    Stock::Sizes(sizes.iter().map(|(s, n)| ((*s).to_string(), *n)).collect())
}

/// The demo catalogue: 27 products, 12 of them jackets.
pub fn demo_catalogue() -> Catalogue {
    use Category::*;
    let p = |sku: &str, name: &str, category, price_nok, rating, weight_g, stock| Product {
        sku: sku.into(),
        name: name.into(),
        category,
        price_nok,
        rating,
        weight_g,
        stock,
        limit_per_customer: None,
    };
    let jacket_sizes = |s, m, l, xl| sized(&[("S", s), ("M", m), ("L", l), ("XL", xl)]);
    let mut products = vec![
        p(
            "TNT-1P",
            "Vidde 1-person tent",
            Tents,
            2199,
            4.4,
            1400,
            Stock::Units(3),
        ),
        p(
            "TNT-2P",
            "Fjell 2-person tent",
            Tents,
            3499,
            4.7,
            2100,
            Stock::Units(12),
        ),
        p(
            "TNT-4P",
            "Hytte 4-person tent",
            Tents,
            5999,
            4.2,
            4800,
            Stock::Units(0),
        ),
        p(
            "BAG-SUM",
            "Sommer sleeping bag",
            Sleeping,
            999,
            4.1,
            900,
            Stock::Units(23),
        ),
        p(
            "BAG-WIN",
            "Vinter sleeping bag",
            Sleeping,
            1899,
            4.6,
            1600,
            Stock::Units(5),
        ),
        p(
            "MAT-AIR",
            "Luft sleeping mat",
            Sleeping,
            799,
            4.3,
            500,
            Stock::Units(14),
        ),
        p(
            "STV-GAS",
            "Kompakt gas stove",
            Cooking,
            499,
            4.5,
            300,
            Stock::Units(31),
        ),
        p(
            "POT-TI",
            "Titan cook pot",
            Cooking,
            649,
            4.8,
            150,
            Stock::Units(9),
        ),
        p(
            "LMP-HEAD",
            "Lys headlamp",
            Lighting,
            399,
            4.6,
            90,
            Stock::Units(41),
        ),
        p(
            "LMP-CAMP",
            "Leir lantern",
            Lighting,
            549,
            4.0,
            400,
            Stock::Units(6),
        ),
        p(
            "BOOT-TROLL",
            "Troll hiking boots",
            Footwear,
            2799,
            4.7,
            1300,
            sized(&[("40", 3), ("41", 0), ("42", 6), ("43", 2), ("44", 4)]),
        ),
        p(
            "BOOT-LETT",
            "Lett trail shoes",
            Footwear,
            1599,
            4.3,
            700,
            sized(&[("39", 2), ("40", 0), ("41", 5), ("42", 1)]),
        ),
        p(
            "TNT-PEGS",
            "Tent pegs, 10 pack",
            Tents,
            149,
            4.0,
            120,
            Stock::Units(57),
        ),
        p(
            "JKT-STORM",
            "Storm shell jacket",
            Clothing,
            3299,
            4.8,
            450,
            jacket_sizes(2, 4, 3, 1),
        ),
        p(
            "JKT-BRIS",
            "Bris wind jacket",
            Clothing,
            1299,
            4.2,
            200,
            jacket_sizes(5, 5, 5, 5),
        ),
        p(
            "JKT-DUN",
            "Dun down jacket",
            Clothing,
            2999,
            4.7,
            500,
            jacket_sizes(1, 0, 2, 0),
        ),
        p(
            "JKT-LETTDUN",
            "Lett down jacket",
            Clothing,
            2499,
            4.5,
            350,
            jacket_sizes(3, 3, 0, 2),
        ),
        p(
            "JKT-FLEECE",
            "Varm fleece jacket",
            Clothing,
            899,
            4.4,
            400,
            jacket_sizes(6, 6, 6, 6),
        ),
        p(
            "JKT-REGN",
            "Regn rain jacket",
            Clothing,
            1499,
            4.1,
            380,
            jacket_sizes(2, 2, 2, 2),
        ),
        p(
            "JKT-SOFT",
            "Ski softshell jacket",
            Clothing,
            1999,
            4.3,
            520,
            jacket_sizes(1, 1, 1, 1),
        ),
        p(
            "JKT-TUR",
            "Tur hiking jacket",
            Clothing,
            1799,
            4.0,
            480,
            jacket_sizes(0, 3, 3, 0),
        ),
        p(
            "JKT-PARKA",
            "Polar parka jacket",
            Clothing,
            4499,
            4.6,
            1100,
            jacket_sizes(1, 1, 0, 0),
        ),
        p(
            "JKT-KYST",
            "Kyst sailing jacket",
            Clothing,
            2699,
            3.9,
            700,
            jacket_sizes(0, 0, 0, 0),
        ),
        p(
            "JKT-BARN",
            "Barn kids rain jacket",
            Clothing,
            699,
            4.5,
            250,
            jacket_sizes(4, 4, 4, 4),
        ),
        p(
            "JKT-SYKKEL",
            "Sykkel cycling jacket",
            Clothing,
            1399,
            3.8,
            210,
            jacket_sizes(2, 0, 2, 0),
        ),
        p(
            "CAP-WOOL",
            "Ull wool beanie",
            Clothing,
            249,
            4.4,
            80,
            Stock::Units(19),
        ),
        p(
            "GLV-FLEECE",
            "Varm fleece gloves",
            Clothing,
            299,
            4.2,
            90,
            Stock::Units(8),
        ),
    ];
    // A campaign price: at most 2 headlamps per customer.
    if let Some(lamp) = products.iter_mut().find(|p| p.sku == "LMP-HEAD") {
        lamp.limit_per_customer = Some(2);
    }
    Catalogue { products }
}

/// The store toolbox: the three tools with the catalogue, the signed-in customer and the carts.
///
/// # Errors
/// When the toolbox cannot be built (it can: the tools and context are complete).
pub fn toolbox(catalogue: Catalogue, customer: Customer) -> Result<Toolbox, BuildError> {
    Toolbox::builder()
        .tools(tools())
        .context(catalogue)
        .context(customer)
        .context(Carts::default())
        .build()
}

/// The store tools.
pub fn tools() -> Vec<toolsmith::Tool> {
    vec![
        search_products::tool(),
        compare_products::tool(),
        add_to_cart::tool(),
    ]
}
