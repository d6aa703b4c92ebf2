use toolsmith::tool;

/// Reads a number. Returns it.
#[tool(read_only)]
fn read_number(
    /// The number, e.g. 5.
    #[arg(minimum = "5")]
    n: u32,
) -> u32 {
    n
}

/// Reads a word. Returns it.
#[tool(read_only)]
fn read_word(
    /// The word, e.g. "tent".
    #[arg(max_length = 1.5)]
    word: String,
) -> String {
    word
}

/// Reads a level. Returns it.
#[tool(read_only)]
fn read_level(
    /// The level, e.g. 3.
    #[arg(maximum = LIMIT)]
    level: u32,
) -> u32 {
    level
}

const LIMIT: u32 = 9;

fn main() {}
