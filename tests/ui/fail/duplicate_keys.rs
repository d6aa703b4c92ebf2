use toolsmith::tool;

/// Reads a value. Returns it.
#[tool(read_only, read_only)]
fn read_value() -> String {
    String::new()
}

/// Reads a word. Returns it.
#[tool(read_only, title = "Read word", title = "Read a word")]
fn read_word() -> String {
    String::new()
}

/// Reads a line. Returns it.
#[tool(read_only, timeout_ms = 100, timeout_ms = 200)]
fn read_line() -> String {
    String::new()
}

/// Reads a name. Returns it.
#[tool(read_only)]
fn read_name(
    /// The name, e.g. "Ada".
    #[arg(max_length = 3, max_length = 4)]
    name: String,
) -> String {
    name
}

fn main() {
    let _ = (read_value::tool(), read_word::tool(), read_line::tool(), read_name::tool());
}
