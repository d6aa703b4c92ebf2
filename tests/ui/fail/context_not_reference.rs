use toolsmith::tool;

struct Db;

/// Counts rows. Returns the number of rows.
#[tool(read_only)]
fn count_rows(#[context] db: Db) -> u64 {
    let _ = db;
    0
}

fn main() {}
