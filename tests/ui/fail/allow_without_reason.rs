use toolsmith::tool;

/// Reads the licence. Returns the licence text.
#[tool(read_only, allow(description_budget))]
fn read_licence() -> String {
    String::new()
}

/// Reads the notice. Returns the notice text.
#[tool(read_only, allow(no_such_rule, reason = "testing"))]
fn read_notice() -> String {
    String::new()
}

fn main() {}
