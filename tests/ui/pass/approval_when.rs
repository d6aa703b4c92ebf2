use toolsmith::{tool, tools, Client};

/// Whether a transfer needs the user: above 100 NOK, or to a new account.
fn needs_user(amount: &u32, to: &String, note: &Option<String>) -> bool {
    let _ = note;
    *amount > 100 || to.starts_with("new:")
}

/// Sends money to an account. Returns the transfer id.
#[tool(writes, requires_approval(when = needs_user), idempotency_key(to, amount))]
async fn send_money(
    /// Amount in NOK, e.g. 250.
    amount: u32,
    /// Account to pay, e.g. "1234.56.78901".
    to: String,
    #[context] client: &Client,
    /// A note for the receiver, e.g. "rent".
    note: Option<String>,
) -> String {
    let _ = client;
    format!("t-{amount}-{to}-{note:?}")
}

mod rules {
    pub fn over_limit(amount: &u32) -> bool {
        *amount > 100
    }
}

struct Bank;

#[tools]
impl Bank {
    /// Pays an invoice from the bank's account. Returns the payment id.
    #[tool(writes, requires_approval(when = Self::large))]
    fn pay_invoice(&self, /** Amount in NOK, e.g. 250. */ amount: u32) -> String {
        format!("p-{amount}")
    }

    /// Refunds an order. Returns the refund id.
    #[tool(writes, requires_approval(when = rules::over_limit))]
    fn refund_order(&self, /** Amount in NOK, e.g. 250. */ amount: u32) -> String {
        format!("r-{amount}")
    }

    fn large(amount: &u32) -> bool {
        *amount > 1000
    }
}

fn main() {
    let tool = send_money::tool();
    assert!(tool.spec().effects.requires_approval && tool.spec().effects.conditional_approval);
    assert_eq!(Bank::tools().len(), 2);
}
