use toolsmith::tools;

trait Greeter {
    fn greet(&self) -> String;
}

struct Host;

#[tools]
impl Greeter for Host {
    fn greet(&self) -> String {
        String::new()
    }
}

struct Empty;

#[tools]
impl Empty {
    fn helper(&self) {}
}

fn main() {}
