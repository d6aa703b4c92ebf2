use toolsmith::tool;

/// Lists files. Returns file names.
#[tool(read_only)]
fn list_files(
    /// Largest number of names to return, e.g. 20.
    #[arg(default = Some(20))]
    limit: Option<u32>,
) -> Vec<String> {
    let _ = limit;
    Vec::new()
}

fn main() {}
