#![deny(deprecated)]
//! A string parameter's default written as a string literal: the literal becomes the
//! parameter's `String`, in the schema and when the argument is left out.
use toolsmith::tool;

/// Greets a person by name, e.g. "Hello, Ann". Returns the greeting.
#[tool(read_only)]
fn greet_person(
    /// The person's name, e.g. "Ann". Defaults to "friend".
    #[arg(default = "friend")]
    name: String,
    /// The greeting word, e.g. "Hello". Defaults to the empty text, which means "Hello".
    #[arg(default = "")]
    word: String,
) -> String {
    let word = if word.is_empty() { "Hello" } else { &word };
    format!("{word}, {name}")
}

fn main() {
    let spec = greet_person::tool().spec().clone();
    assert_eq!(spec.input_schema["properties"]["name"]["default"], "friend");
    assert_eq!(spec.input_schema["properties"]["word"]["default"], "");
}
