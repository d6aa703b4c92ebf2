use toolsmith::tool;

/// Saves a note. Returns the note id.
#[tool(writes, idempotency_key(title, body))]
fn save_note(
    /// The note's title, e.g. "Groceries".
    title: String,
) -> String {
    title
}

/// Reads a note. Returns its text.
#[tool(read_only, idempotency_key(id))]
fn read_note(
    /// The note id, e.g. "n-12".
    id: String,
) -> String {
    id
}

/// Lists notes. Returns note titles.
#[tool(read_only, output_budget = 10)]
fn list_notes() -> Vec<String> {
    Vec::new()
}

fn main() {}
