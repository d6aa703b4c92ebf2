use toolsmith::tool;

/// Books a flight. Returns the booking reference.
#[tool(writes, deprecated(since = "3", replaced_by = "book trip"))]
fn book_flight(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    flight
}

/// Books a hotel room. Returns the booking reference.
#[tool(writes, deprecated(since = "3", replaced_by = "book_hotel"))]
fn book_hotel(
    /// The hotel's name, e.g. "Grand Hotel Oslo".
    hotel: String,
) -> String {
    hotel
}

/// Books a car. Returns the booking reference.
#[tool(name = "hire_car", writes, deprecated(since = "3", replaced_by = "hire_car"))]
fn book_car(
    /// The pick-up city, e.g. "Bergen".
    city: String,
) -> String {
    city
}

/// Books a train. Returns the booking reference.
#[tool(writes, deprecated(since = "3", replaced_by = ""))]
fn book_train(
    /// The train number, e.g. "R10".
    train: String,
) -> String {
    train
}

fn main() {}
