use toolsmith::tool;

/// Reads a value. Returns it.
#[tool(read_only, name = "read value!")]
fn read_value(
    /// The key, e.g. "a".
    key: String,
    /// Another key, e.g. "b".
    #[arg(name = "key")]
    other: String,
) -> String {
    key + &other
}

fn main() {}
