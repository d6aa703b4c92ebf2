use toolsmith::tool;

/// Books a table. Returns the booking reference.
#[tool(writes)]
fn book_table(
    restaurant: String,
    /// Number of guests, 1 to 12.
    guests: u8,
    time: String,
) -> String {
    format!("{restaurant} {guests} {time}")
}

fn main() {}
