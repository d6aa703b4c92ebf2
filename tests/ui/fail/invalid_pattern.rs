use toolsmith::tool;

/// Finds a ticket. Returns its title.
#[tool(read_only)]
fn find_ticket(
    /// Ticket id, e.g. "SUP-1042".
    #[arg(pattern = "^SUP-[0-9+$")]
    id: String,
) -> String {
    id
}

fn main() {}
