use toolsmith::tool;

/// Sends a message. Returns the message id.
#[tool]
fn send_message(
    /// The text to send, e.g. "Hello".
    text: String,
) -> String {
    text
}

fn main() {}
