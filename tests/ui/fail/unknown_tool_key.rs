use toolsmith::tool;

/// Reads the clock. Returns the current time as text.
#[tool(read_only, cache = true)]
fn get_time() -> String {
    String::new()
}

fn main() {}
