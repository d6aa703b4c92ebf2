//! A parameter type that serde cannot decode (and schemars cannot describe): the errors point at
//! the type.
use toolsmith::tool;

pub struct Opaque;

/// Looks up one record by its key. Returns the record's text.
#[tool(read_only)]
pub fn lookup_record(
    /// The key of the record, as the catalogue gives it.
    key: Opaque,
) -> String {
    let _ = key;
    String::new()
}

fn main() {}
