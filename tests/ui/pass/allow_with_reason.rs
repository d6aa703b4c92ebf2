use toolsmith::{tool, Toolbox};

/// Deletes every cached thumbnail. Returns how many were deleted. Thumbnails are rebuilt on demand.
#[tool(
    writes,
    destructive,
    allow(destructive_without_approval, reason = "thumbnails are a cache and rebuild on demand")
)]
fn clear_thumbnails() -> u64 {
    0
}

fn main() {
    let toolbox = Toolbox::builder().tool(clear_thumbnails::tool()).build().unwrap();
    let spec = toolbox.spec("clear_thumbnails").unwrap();
    assert_eq!(spec.allows[0].rule, "destructive_without_approval");
    assert_eq!(spec.allows[0].reason, "thumbnails are a cache and rebuild on demand");
    assert!(spec.effects.destructive && spec.effects.writes);
}
