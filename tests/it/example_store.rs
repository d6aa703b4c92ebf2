//! The `store` example's behaviour: search with a cut-off note, comparisons, and cart rules
//! (sizes, per-customer limits, stock), with stock counts never shown.

use crate::common;
use crate::store_tools as tools;

use common::call_blocking as call;
use serde_json::{json, Value};
use toolsmith::{Status, Toolbox};

fn store(purchased: Vec<(String, u32)>) -> Toolbox {
    let customer = tools::Customer {
        id: "cust-1".into(),
        purchased,
    };
    tools::toolbox(tools::demo_catalogue(), customer).unwrap()
}

/// The whole numbers written in `text`.
fn numbers_in(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// Every object key anywhere in `v`.
fn keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

#[test]
fn every_tool_passes_the_lint_and_stays_within_budgets() {
    common::assert_lint_clean_within_budgets(tools::tools(), |spec| {
        // The customer, catalogue and carts are injected, never parameters.
        let props = spec.input_schema["properties"].as_object().unwrap();
        assert!(props
            .keys()
            .all(|k| !k.contains("customer") && !k.contains("cart")));
    });
    let effects = |n: &str| {
        tools::tools()
            .into_iter()
            .find(|t| t.name() == n)
            .unwrap()
            .spec()
            .effects
    };
    assert!(effects("search_products").read_only);
    assert!(effects("compare_products").read_only);
    assert!(effects("add_to_cart").writes && !effects("add_to_cart").idempotent);
}

#[test]
fn no_output_schema_exposes_a_stock_count() {
    for tool in tools::tools() {
        let mut ks = Vec::new();
        keys(tool.spec().output_schema.as_ref().unwrap(), &mut ks);
        for k in ks {
            assert!(
                !k.contains("stock") || k == "in_stock",
                "{}: {k}",
                tool.name()
            );
        }
    }
}

#[test]
fn more_than_ten_matches_shows_ten_with_the_total_and_a_narrowing_note() {
    let tb = store(vec![]);
    let env = call(&tb, "search_products", json!({"query": "jacket"}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(
        env.note.as_deref(),
        Some("Showing 10 of 12. Add category or max_price to narrow the search.")
    );
    assert!(!env.truncated, "the toolbox did not have to cut the result");
    let data = env.data.unwrap();
    assert_eq!(data["total"], 12);
    let products = data["products"].as_array().unwrap();
    assert_eq!(products.len(), 10);
    for p in products {
        let mut ks: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        ks.sort_unstable();
        assert_eq!(ks, ["in_stock", "name", "price", "rating", "sku"]);
        assert_eq!(p["price"]["currency"], "NOK");
        assert!(p["price"]["amount"].as_u64().unwrap() > 0);
        assert!(p["name"].as_str().unwrap().contains("jacket"));
    }
    // Best first: every name matches equally, so the ratings never rise.
    let ratings: Vec<f64> = products
        .iter()
        .map(|p| p["rating"].as_f64().unwrap())
        .collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
    assert_eq!(products[0]["sku"], "JKT-STORM");
}

#[test]
fn narrowed_search_shows_all_matches_without_a_note() {
    let tb = store(vec![]);
    let env = call(
        &tb,
        "search_products",
        json!({"query": "jacket", "max_price": 1500, "in_stock_only": true}),
    );
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert!(env.note.is_none());
    let data = env.data.unwrap();
    let products = data["products"].as_array().unwrap();
    assert_eq!(data["total"].as_u64().unwrap() as usize, products.len());
    assert!(!products.is_empty());
    for p in products {
        assert!(p["price"]["amount"].as_u64().unwrap() <= 1500);
        assert_eq!(p["in_stock"], true);
    }
    // A sold-out product appears without in_stock_only, flagged.
    let env = call(&tb, "search_products", json!({"query": "sailing jacket"}));
    assert_eq!(env.data.unwrap()["products"][0]["in_stock"], false);
    let env = call(
        &tb,
        "search_products",
        json!({"query": "sailing jacket", "in_stock_only": true}),
    );
    assert_eq!(env.status, Status::Empty, "{}", env.to_json());
    // A category narrows.
    let env = call(
        &tb,
        "search_products",
        json!({"query": "fleece", "category": "clothing"}),
    );
    assert_eq!(env.data.unwrap()["total"], 2);
}

#[test]
fn no_match_is_empty_with_a_suggestion() {
    let tb = store(vec![]);
    let env = call(&tb, "search_products", json!({"query": "kayak"}));
    assert_eq!(env.status, Status::Empty);
    let msg = env.message.unwrap();
    assert!(msg.contains("\"kayak\"") && msg.contains("Try"), "{msg}");
    let env = call(
        &tb,
        "search_products",
        json!({"query": "tent", "max_price": 10}),
    );
    assert_eq!(env.status, Status::Empty);
    assert!(env.message.unwrap().contains("leave out"));
}

#[test]
fn compare_returns_one_row_per_attribute_in_the_given_order() {
    let tb = store(vec![]);
    let env = call(
        &tb,
        "compare_products",
        json!({"skus": ["TNT-2P", "TNT-1P", "BOOT-TROLL"]}),
    );
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.clone().unwrap();
    assert_eq!(data["skus"], json!(["TNT-2P", "TNT-1P", "BOOT-TROLL"]));
    let rows = data["rows"].as_array().unwrap();
    let attributes: Vec<&str> = rows
        .iter()
        .map(|r| r["attribute"].as_str().unwrap())
        .collect();
    assert_eq!(
        attributes,
        ["name", "category", "price", "rating", "weight", "in stock", "sizes"]
    );
    for r in rows {
        assert_eq!(r["values"].as_array().unwrap().len(), 3);
    }
    assert_eq!(rows[0]["values"][0], "Fjell 2-person tent");
    assert_eq!(
        rows[2]["values"],
        json!(["3499 NOK", "2199 NOK", "2799 NOK"])
    );
    assert_eq!(rows[6]["values"][2], "40, 41, 42, 43, 44");
    // The stock counts (12, 3 and per size) do not appear.
    let text = env.to_json();
    assert!(!text.contains("stock\":"), "{text}");
}

#[test]
fn compare_lists_every_unknown_sku_and_names_search_products() {
    let tb = store(vec![]);
    let env = call(
        &tb,
        "compare_products",
        json!({"skus": ["TNT-1P", "KAYAK-1", "SUP-9"]}),
    );
    assert_eq!(env.status, Status::InvalidInput, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("UNKNOWN_SKU"));
    let msg = env.message.unwrap();
    assert!(
        msg.contains("\"KAYAK-1\"") && msg.contains("\"SUP-9\""),
        "{msg}"
    );
    assert!(!msg.contains("TNT-1P"), "{msg}");
    assert!(msg.contains("search_products"), "{msg}");
    assert_eq!(env.data.unwrap()["unknown"], json!(["KAYAK-1", "SUP-9"]));
}

#[test]
fn compare_takes_two_to_four_distinct_skus() {
    let tb = store(vec![]);
    for skus in [
        json!(["TNT-1P"]),
        json!(["TNT-1P", "TNT-2P", "TNT-4P", "POT-TI", "STV-GAS"]),
        json!(["TNT-1P", "TNT-1P"]),
        json!(["TNT-1P", "tnt-1p"]),
    ] {
        let env = call(&tb, "compare_products", json!({ "skus": skus }));
        assert_eq!(
            env.status,
            Status::InvalidInput,
            "{skus}: {}",
            env.to_json()
        );
    }
    let env = call(
        &tb,
        "compare_products",
        json!({"skus": ["TNT-1P", "TNT-2P", "TNT-4P", "POT-TI"]}),
    );
    assert_eq!(env.status, Status::Ok);
}

#[test]
fn a_sized_family_needs_a_size_and_lists_the_sizes_in_stock() {
    let tb = store(vec![]);
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "BOOT-TROLL", "quantity": 1}),
    );
    assert_eq!(env.status, Status::NeedsInput, "{}", env.to_json());
    assert_eq!(env.missing, vec!["size".to_string()]);
    // Size 41 is sold out, so it is not offered.
    assert_eq!(
        env.data.as_ref().unwrap()["sizes"],
        json!(["40", "42", "43", "44"])
    );
    assert!(env.message.unwrap().contains("40, 42, 43, 44"));

    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "BOOT-TROLL", "quantity": 2, "size": "42"}),
    );
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.unwrap();
    assert_eq!(data["line"]["size"], "42");
    assert_eq!(data["line"]["quantity"], 2);
    assert_eq!(
        data["line"]["line_total"],
        json!({"amount": 5598, "currency": "NOK"})
    );
    assert_eq!(
        data["cart_total"],
        json!({"amount": 5598, "currency": "NOK"})
    );

    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "BOOT-TROLL", "quantity": 1, "size": "47"}),
    );
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("UNKNOWN_SIZE"));
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "BOOT-TROLL", "quantity": 1, "size": "41"}),
    );
    assert_eq!(env.status, Status::Refused, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("OUT_OF_STOCK"));
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "TNT-2P", "quantity": 1, "size": "M"}),
    );
    assert_eq!(env.code.as_deref(), Some("NOT_SIZED"));
}

#[test]
fn the_per_customer_limit_is_refused_and_nothing_is_added() {
    // The customer bought one headlamp earlier; the limit is 2.
    let tb = store(vec![("LMP-HEAD".into(), 1)]);
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "LMP-HEAD", "quantity": 2}),
    );
    let msg = common::assert_outcome(&env, Status::Refused, "PER_CUSTOMER_LIMIT");
    assert!(
        msg.contains("Nothing was added") && msg.contains("Ask the user"),
        "{msg}"
    );
    assert_eq!(env.data.unwrap()["room"], 1);
    // Nothing was added: the cart is still empty before this line.
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "LMP-HEAD", "quantity": 1}),
    );
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.unwrap()["cart_items"], 1);
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "LMP-HEAD", "quantity": 1}),
    );
    assert_eq!(env.code.as_deref(), Some("PER_CUSTOMER_LIMIT"));
}

#[test]
fn over_stock_is_refused_without_revealing_the_count() {
    let tb = store(vec![]);
    // TNT-1P has 3 in stock (private).
    let env = call(&tb, "add_to_cart", json!({"sku": "TNT-1P", "quantity": 5}));
    assert_eq!(env.status, Status::Refused, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("OUT_OF_STOCK"));
    let text = env.to_json();
    assert!(
        !numbers_in(env.message.as_deref().unwrap()).contains(&3),
        "{text}"
    );
    assert!(env.data.is_none(), "{text}");
    assert!(text.contains("Ask the user"), "{text}");

    // Quantities already in the cart count too.
    let env = call(&tb, "add_to_cart", json!({"sku": "TNT-1P", "quantity": 2}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let env = call(&tb, "add_to_cart", json!({"sku": "TNT-1P", "quantity": 1}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.unwrap()["line"]["quantity"], 3);
    let env = call(&tb, "add_to_cart", json!({"sku": "TNT-1P", "quantity": 1}));
    assert_eq!(
        env.code.as_deref(),
        Some("OUT_OF_STOCK"),
        "{}",
        env.to_json()
    );
    assert!(!numbers_in(env.message.as_deref().unwrap()).contains(&3));
}

#[test]
fn quantity_is_one_to_ten_and_unknown_skus_name_search_products() {
    let tb = store(vec![]);
    for q in [0, 11] {
        let env = call(&tb, "add_to_cart", json!({"sku": "TNT-2P", "quantity": q}));
        assert_eq!(env.status, Status::InvalidInput, "{}", env.to_json());
    }
    let env = call(&tb, "add_to_cart", json!({"sku": "KAYAK-1", "quantity": 1}));
    assert_eq!(env.code.as_deref(), Some("UNKNOWN_SKU"));
    assert!(env.message.unwrap().contains("search_products"));
}

#[test]
fn cart_totals_add_up_across_lines() {
    let tb = store(vec![]);
    call(&tb, "add_to_cart", json!({"sku": "STV-GAS", "quantity": 2}));
    let env = call(
        &tb,
        "add_to_cart",
        json!({"sku": "JKT-BRIS", "quantity": 1, "size": "m"}),
    );
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.unwrap();
    assert_eq!(data["line"]["size"], "M");
    assert_eq!(data["cart_items"], 3);
    assert_eq!(data["cart_total"]["amount"], 2 * 499 + 1299);
}
