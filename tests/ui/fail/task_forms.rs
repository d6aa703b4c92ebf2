use toolsmith::tool;

/// Exports the month's report. Returns the report's address.
#[tool(read_only, task = "sometimes")]
async fn export_report() -> String {
    String::new()
}

/// Exports the month's invoices. Returns the archive's address.
#[tool(read_only, task)]
async fn export_invoices() -> String {
    String::new()
}

/// Exports the month's orders. Returns the archive's address.
#[tool(read_only, task = "optional", task = "required")]
async fn export_orders() -> String {
    String::new()
}

/// Exports the month's refunds. Returns the archive's address.
#[tool(read_only, task = optional)]
async fn export_refunds() -> String {
    String::new()
}

fn main() {}
