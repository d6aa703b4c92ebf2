use toolsmith::tool;

#[tool(read_only)]
struct NotAFunction;

fn main() {}
