use toolsmith::tool;

/// Reads a value. Returns it.
#[tool(read_only)]
unsafe fn read_value() -> String {
    String::new()
}

/// Echoes a text. Returns it.
#[tool(read_only)]
fn echo_text(
    /// The text, e.g. "hi".
    text: impl Into<String>,
) -> String {
    text.into()
}

/// Reads a label. Returns it.
#[tool(read_only)]
fn read_label() -> impl std::fmt::Display {
    String::new()
}

fn main() {
    let _ = (read_value::tool(), echo_text::tool(), read_label::tool());
}
