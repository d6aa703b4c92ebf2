use toolsmith::tool;

#[tool(read_only)]
fn lookup_word(
    /// The word to look up, e.g. "fjord".
    word: String,
) -> String {
    word
}

fn main() {
    // The fallback still defines `lookup_word::tool()`: no follow-on error here.
    let _ = lookup_word::tool();
}
