//! Golden files per target for the representative specs: `tests/golden/export/<slug>.json` plus
//! `index.json`, compared with `check_snapshot` (so the drift check is exercised on real files).
//! `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test -p toolsmith-core --test it export_golden::` rewrites them.

use crate::fixtures;

use std::path::PathBuf;

use toolsmith_core::export::{check_snapshot, Target};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/export")
}

#[test]
fn golden_files_match_the_export_of_every_target() {
    let specs = fixtures::all();
    if let Err(drift) = check_snapshot(&specs, golden_dir()) {
        panic!("{drift}");
    }
    for target in Target::all() {
        assert!(
            golden_dir()
                .join(format!("{}.json", target.slug()))
                .exists(),
            "golden file for {target} is missing"
        );
    }
}
