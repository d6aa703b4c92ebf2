use toolsmith::tool;

/// Reads a page. Returns its text.
#[tool(read_only)]
fn read_page(
    /// The page number, e.g. 3.
    #[arg(minimum = -5, maximum = 5000000000)]
    page: u32,
    /// The zoom level, e.g. 2.
    #[arg(exclusive_maximum = 300)]
    zoom: u8,
    /// The offset, e.g. -3.
    #[arg(minimum = -200, maximum = 100)]
    offset: i8,
) -> String {
    let _ = (page, zoom, offset);
    String::new()
}

fn main() {}
