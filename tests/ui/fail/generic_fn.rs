use toolsmith::tool;

/// Echoes a value. Returns the value.
#[tool(read_only)]
fn echo_value<T: Clone>(
    /// The value, e.g. 1.
    value: u32,
) -> u32 {
    value
}

fn main() {}
