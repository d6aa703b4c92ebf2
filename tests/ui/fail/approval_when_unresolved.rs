use toolsmith::tool;

/// Sends money to an account. Returns the transfer id.
#[tool(writes, requires_approval(when = over_limit))]
fn send_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("t-{amount}")
}

fn main() {}
