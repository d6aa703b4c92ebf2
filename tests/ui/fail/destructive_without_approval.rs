use toolsmith::tool;

/// Deletes a note. Returns the id of the deleted note.
#[tool(writes, destructive)]
fn delete_note(
    /// The note id, e.g. "n-12".
    id: String,
) -> String {
    id
}

fn main() {}
