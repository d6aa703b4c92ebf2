use toolsmith::{tool, tools, Toolbox};

struct Billing;

#[tools(namespace = "billing", namespace_description = "Invoices and refunds of the shop's customers.")]
impl Billing {
    /// Lists the invoices of a customer. Returns invoice ids.
    #[tool(read_only, core)]
    fn list_invoices(&self) -> Vec<String> {
        Vec::new()
    }

    /// Refunds an invoice in full. Returns the refund id.
    #[tool(writes)]
    fn refund_invoice(&self, /** The invoice to refund, e.g. "inv_1". */ invoice: String) -> String {
        invoice
    }
}

fn main() {
    let tools = Billing::tools();
    assert!(tools[0].spec().core);
    let _ = Toolbox::builder().tools(tools).context(Billing).build();
}
