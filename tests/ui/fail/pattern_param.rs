use toolsmith::tool;

/// Adds two numbers. Returns their sum.
#[tool(read_only)]
fn add_pair(
    /// The two numbers, e.g. [1, 2].
    (a, b): (u8, u8),
) -> u16 {
    a as u16 + b as u16
}

fn main() {}
