use toolsmith::tool;

fn wrong_type(amount: &u64) -> bool {
    *amount > 100
}

/// Sends money to an account. Returns the transfer id.
#[tool(writes, requires_approval(when = wrong_type))]
fn send_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("t-{amount}")
}

fn too_few(amount: &u32) -> bool {
    *amount > 100
}

/// Pays an invoice. Returns the payment id.
#[tool(writes, requires_approval(when = too_few))]
fn pay_invoice(
    /// Amount in NOK, e.g. 250.
    amount: u32,
    /// Account to pay, e.g. "1234.56.78901".
    account: String,
) -> String {
    format!("p-{amount}-{account}")
}

fn not_bool(amount: &u32) -> u32 {
    *amount
}

/// Refunds an order. Returns the refund id.
#[tool(writes, requires_approval(when = not_bool))]
fn refund_order(
    /// Amount in NOK, e.g. 250.
    amount: u32,
) -> String {
    format!("r-{amount}")
}

fn by_value(amount: u32) -> bool {
    amount > 100
}

/// Tips a courier. Returns the tip id.
#[tool(writes, requires_approval(when = by_value))]
fn send_tip(
    /// Amount in NOK, e.g. 25.
    amount: u32,
) -> String {
    format!("tip-{amount}")
}

fn main() {}
