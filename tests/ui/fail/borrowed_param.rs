use toolsmith::tool;

/// Echoes text. Returns the same text.
#[tool(read_only)]
fn echo_text(
    /// The text, e.g. "hi".
    text: &str,
) -> String {
    text.to_string()
}

fn main() {}
