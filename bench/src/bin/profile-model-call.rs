//! A loop of `Toolbox::call` on tools whose parameters are `#[model]` types, for callgrind: the
//! typed fast path's cost on model-typed arguments.
//!
//! ```sh
//! cargo build --release -p toolsmith-bench --bin profile-model-call
//! valgrind --tool=callgrind target/release/profile-model-call order text 2000
//! ```
//!
//! Arguments: scenario (`order`: a struct with a nested struct, a list of structs and an enum;
//! `ticket`: the helpdesk's `create_ticket`, a unit enum), entry point (`text` or `value`),
//! number of calls (default 10000).

use serde_json::Value;
use toolsmith::{model, tool, Toolbox};
use toolsmith_bench::helpdesk::{self, Priority};

/// Where an order goes.
#[model]
pub struct Address {
    /// Street and number, e.g. "1 Main St".
    pub street: String,
    /// Postal code, e.g. "12345".
    pub postcode: String,
}

/// One line of an order.
#[model]
pub struct Line {
    /// Stock-keeping unit, e.g. "TNT-2P".
    pub sku: String,
    /// How many, e.g. 2.
    pub quantity: u32,
}

/// An order.
#[model]
pub struct Order {
    /// Where it goes.
    pub ship_to: Address,
    /// Its lines.
    pub lines: Vec<Line>,
    /// How urgent.
    pub priority: Priority,
    /// A note for the courier, e.g. "gate 3".
    pub note: Option<String>,
}

/// Places an order. Returns the number of units ordered.
#[tool(writes)]
pub fn place_order(
    /// The order.
    order: Order,
) -> u32 {
    let _ = (&order.ship_to.street, &order.ship_to.postcode, &order.note);
    let _ = order.priority;
    order
        .lines
        .iter()
        .map(|l| l.quantity + l.sku.is_empty() as u32)
        .sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scenario = args.first().map_or("order", String::as_str);
    let entry = args.get(1).map_or("text", String::as_str);
    let calls = toolsmith_bench::count_arg(&args, 2, 10_000, "calls");
    let (name, text) = match scenario {
        "order" => (
            "place_order",
            r#"{"order": {"ship_to": {"street": "1 Main St", "postcode": "12345"}, "lines": [{"sku": "TNT-2P", "quantity": 2}, {"sku": "STV-1", "quantity": 1}], "priority": "urgent", "note": "gate 3"}}"#,
        ),
        "ticket" => (
            "create_ticket",
            r#"{"subject": "Cannot log in", "body": "The reset link has expired.", "priority": "urgent"}"#,
        ),
        other => {
            eprintln!("unknown scenario {other:?}; use order or ticket");
            std::process::exit(2);
        }
    };
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let rt = toolsmith_bench::runtime();
    let toolbox = Toolbox::builder()
        .tool(place_order::tool())
        .tool(helpdesk::create_ticket::tool())
        .build()
        .unwrap_or_else(|e| panic!("the toolbox does not build: {e}"));
    let mut bytes = 0usize;
    for _ in 0..calls {
        let env = match entry {
            "value" => rt.block_on(toolbox.call(name, value.clone())),
            _ => rt.block_on(toolbox.call(name, text)),
        };
        let json = env.to_json();
        assert_eq!(env.status, toolsmith::Status::Ok, "{json}");
        bytes += json.len();
    }
    println!("{calls} calls, {bytes} bytes of envelopes");
}
