use toolsmith::tool;

/// Saves a note. Returns the note id.
#[tool(writes, idempotency_key())]
fn save_note(
    /// The note's title, e.g. "Groceries".
    title: String,
) -> String {
    title
}

/// Saves a draft. Returns the draft id.
#[tool(writes, idempotency_key(draft::title))]
fn save_draft(
    /// The draft's title, e.g. "Groceries".
    title: String,
) -> String {
    title
}

/// Saves a memo. Returns the memo id.
#[tool(writes, idempotency_key(title), idempotency_key(title))]
fn save_memo(
    /// The memo's title, e.g. "Groceries".
    title: String,
) -> String {
    title
}

fn main() {}
