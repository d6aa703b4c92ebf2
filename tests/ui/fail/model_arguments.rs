use toolsmith::model;

#[model(rename_all = "camelCase")]
struct Item {
    name: String,
}

fn main() {}
