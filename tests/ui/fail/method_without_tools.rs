use toolsmith::tool;

struct Shop;

impl Shop {
    /// Lists the shop's products. Returns product names.
    #[tool(read_only)]
    fn list_products(&self) -> Vec<String> {
        Vec::new()
    }
}

fn main() {}
