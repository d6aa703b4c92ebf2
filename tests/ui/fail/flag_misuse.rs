use toolsmith::tool;

/// Reads a value. Returns it.
#[tool(read_only = true)]
fn read_value() -> String {
    String::new()
}

/// Reads a word. Returns it.
#[tool(read_only, timeout_ms = 0)]
fn read_word() -> String {
    String::new()
}

/// Reads a number. Returns it.
#[tool(read_only)]
fn read_number(
    /// Step, e.g. 5.
    #[arg(multiple_of = 0)]
    step: u32,
    #[context]
    #[arg(max_length = 3)]
    host: &String,
) -> u32 {
    let _ = host;
    step
}

fn main() {}
