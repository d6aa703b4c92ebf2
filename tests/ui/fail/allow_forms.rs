use toolsmith::tool;

/// Reads the licence. Returns the licence text.
#[tool(read_only, allow(reason = "legal text"))]
fn read_licence() -> String {
    String::new()
}

/// Reads the notice. Returns the notice text.
#[tool(read_only, allow(description_budget, name_style, reason = "legal text"))]
fn read_notice() -> String {
    String::new()
}

/// Reads the terms. Returns the terms text.
#[tool(read_only, allow(lint::description_budget, reason = "legal text"))]
fn read_terms() -> String {
    String::new()
}

/// Reads the policy. Returns the policy text.
#[tool(read_only, allow(description_budget, reason = "  "))]
fn read_policy() -> String {
    String::new()
}

fn main() {}
