use toolsmith::tool;

/// Reads a value. Returns it.
#[tool(read_only, name = "values.read")]
fn read_value() -> String {
    String::new()
}

/// Reads a word. Returns it.
#[tool(read_only, name = "2nd_word")]
fn read_word() -> String {
    String::new()
}

/// Reads a line. Returns it.
#[tool(read_only, name = "read_a_line_from_the_configured_input_source_and_return_it_verbatim")]
fn read_line() -> String {
    String::new()
}

fn main() {}
