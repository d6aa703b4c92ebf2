use toolsmith::{tool, tools};

struct Counter;

#[tools]
impl Counter {
    /// Reads the counter. Returns its value.
    #[tool(read_only)]
    fn read_counter(self) -> u64 {
        0
    }

    /// Bumps the counter. Returns the new value.
    #[tool(writes)]
    fn bump_counter(&mut self) -> u64 {
        1
    }
}

fn main() {
    // The fallback still defines `Counter::tools()`: no follow-on error here.
    let _ = Counter::tools();
}
