use toolsmith::{tool, tools};

struct Host;

#[tools(prefix = "host")]
impl Host {
    /// Reads the host name. Returns it.
    #[tool(read_only)]
    fn read_host(&self) -> String {
        String::new()
    }
}

struct Store<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Counts the items. Returns the count.
    #[tool(read_only)]
    fn count_items(&self) -> u64 {
        0
    }
}

fn main() {
    let _ = Host::tools();
}
