use toolsmith::tool;

#[tool(read_only)]
fn lookup_word(
    /// The word to look up, e.g. "fjord".
    word: String,
) -> String {
    word
}

fn main() {}
