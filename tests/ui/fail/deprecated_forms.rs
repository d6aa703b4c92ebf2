use toolsmith::tool;

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "3", until = "4"))]
fn book_a(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(note = "bookings moved to one tool", replaced_by = "book_trip"))]
fn book_b(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated)]
fn book_c(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "version 3"))]
fn book_d(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "3", since = "4"))]
fn book_e(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "3", note = "use `book_trip`"))]
fn book_f(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "3"), deprecated(since = "4"))]
fn book_g(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

fn main() {}
