use toolsmith::tool;

/// Lists the open orders. Returns their ids.
#[tool(read_only, icon = "orders.png")]
fn list_orders() -> Vec<String> {
    Vec::new()
}

/// Lists the closed orders. Returns their ids.
#[tool(read_only, icon(src = "https://example.com/o.png", mime_type = "text/html", sizes = ["48", "any"], theme = "blue"))]
fn list_closed() -> Vec<String> {
    Vec::new()
}

/// Lists the held orders. Returns their ids.
#[tool(read_only, icon(src = "data:image/png;base64,iVBORw0KGgo=", mime_type = "image/svg+xml"))]
fn list_held() -> Vec<String> {
    Vec::new()
}

/// Lists the late orders. Returns their ids.
#[tool(read_only, icon(src = "data:image/png,raw", sizes = []))]
fn list_late() -> Vec<String> {
    Vec::new()
}

/// Lists the lost orders. Returns their ids.
#[tool(read_only, icon(mime_type = "image/png"))]
fn list_lost() -> Vec<String> {
    Vec::new()
}

/// Lists the new orders. Returns their ids.
#[tool(read_only, icon(src = "javascript:alert(1)", size = "48x48"))]
fn list_new() -> Vec<String> {
    Vec::new()
}

/// Lists the odd orders. Returns their ids.
#[tool(read_only, icon(src = "data:image/png;base64,not base64"))]
fn list_odd() -> Vec<String> {
    Vec::new()
}

fn main() {}
