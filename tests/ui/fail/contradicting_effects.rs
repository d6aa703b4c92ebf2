use toolsmith::tool;

/// Archives a note. Returns the archive id.
#[tool(read_only, writes, destructive, requires_approval)]
fn archive_note(
    /// The note id, e.g. "n-12".
    id: String,
) -> String {
    id
}

/// Reads a note. Returns its text.
#[tool(read_only, idempotent)]
fn read_note(
    /// The note id, e.g. "n-12".
    id: String,
) -> String {
    id
}

fn main() {}
