use toolsmith::tool;

/// Sums numbers. Returns the sum.
#[tool(read_only)]
unsafe extern "C" fn add_numbers(
    /// The count, e.g. 2.
    count: u32,
    _: ...
) -> u32 {
    count
}

fn main() {}
