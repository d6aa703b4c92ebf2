use toolsmith::tool;

fn over_limit(amount: &u32) -> bool {
    *amount > 100
}

/// Sends money to an account. Returns the transfer id.
#[tool(writes, requires_approval(if = over_limit))]
fn send_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("t-{amount}")
}

/// Sends a gift card. Returns the card id.
#[tool(writes, requires_approval())]
fn send_gift_card(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("g-{amount}")
}

/// Moves money between accounts. Returns the transfer id.
#[tool(writes, requires_approval, requires_approval(when = over_limit))]
fn move_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("m-{amount}")
}

/// Deletes an account. Returns the closing balance.
#[tool(writes, destructive, requires_approval(when = over_limit))]
fn delete_account(
    /// Balance in NOK, e.g. 250.
    amount: u32,
) -> u32 {
    amount
}

/// Moves money to savings. Returns the transfer id.
#[tool(writes, requires_approval(when = over_limit, also = over_limit))]
fn save_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("s-{amount}")
}

fn main() {}
