//! The first-run rule of `check_snapshot`: a missing snapshot is written and passes locally,
//! and is an error when `CI` is set; the update switch rewrites a snapshot locally, never in
//! CI. One test in its own binary, because it sets environment
//! variables.

#[path = "consumers/fixtures.rs"]
mod fixtures;

use toolsmith_core::export::{check_snapshot, SnapshotDrift, UPDATE_ENV};

#[test]
fn missing_snapshot_is_an_error_in_ci_and_written_otherwise() {
    let dir = std::env::temp_dir().join(format!("toolsmith-snap-ci-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let specs = fixtures::all();
    std::env::remove_var(UPDATE_ENV);

    std::env::set_var("CI", "true");
    match check_snapshot(&specs, &dir) {
        Err(e @ SnapshotDrift::Missing { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "no tool snapshot in {}: `CI` is set, so it is not created here. Run \
                 `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test` locally and commit the directory.",
                dir.display()
            )
        ),
        other => panic!("expected Missing, got {other:?}"),
    }
    assert!(!dir.exists());

    std::env::remove_var("CI");
    check_snapshot(&specs, &dir).expect("first run writes the snapshot");
    assert!(dir.join("index.json").exists());
    assert!(dir.join("webmcp.json").exists());

    // In CI, an existing snapshot is compared as usual.
    std::env::set_var("CI", "true");
    check_snapshot(&specs, &dir).expect("unchanged");
    let mut changed = specs.clone();
    changed[0].description = "Find products.".into();
    assert!(matches!(
        check_snapshot(&changed, &dir),
        Err(SnapshotDrift::Changed { .. })
    ));

    // In CI the update switch is ignored: a run that rewrote the snapshot before comparing
    // would pass whatever changed.
    std::env::set_var(UPDATE_ENV, "1");
    assert!(matches!(
        check_snapshot(&changed, &dir),
        Err(SnapshotDrift::Changed { .. })
    ));
    // Elsewhere it writes the new snapshot.
    std::env::remove_var("CI");
    check_snapshot(&changed, &dir).expect("update writes");
    std::env::remove_var(UPDATE_ENV);
    check_snapshot(&changed, &dir).expect("updated snapshot matches");
    std::fs::remove_dir_all(&dir).unwrap();
}
