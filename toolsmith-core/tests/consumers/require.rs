//! How a test finds a real consumer, shared by the consumer tests of toolsmith-core and the facade
//! (`#[path = ".../consumers/require.rs"] mod require;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[path = "../../../tests/skip-summary/src/lib.rs"]
pub(crate) mod skip;

/// The workspace root: the nearest ancestor of `manifest_dir` (a test's `CARGO_MANIFEST_DIR`)
/// that holds `Cargo.lock`.
pub fn workspace_root(manifest_dir: &str) -> PathBuf {
    let start = Path::new(manifest_dir);
    start
        .ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// The Python that runs the consumers: `TOOLSMITH_PYTHON`, else the venv `.ci/consumers.sh`
/// makes (`target/consumers-venv`), else `python3` (whose imports then decide SKIP).
pub fn python(manifest_dir: &str) -> String {
    if let Ok(p) = std::env::var("TOOLSMITH_PYTHON") {
        return p;
    }
    let venv = workspace_root(manifest_dir).join("target/consumers-venv/bin/python");
    if venv.exists() {
        return venv.to_string_lossy().into_owned();
    }
    "python3".into()
}

/// `None` with a SKIP said (at once, and in the run's summary) when the consumer is missing and
/// not required; a panic when `TOOLSMITH_REQUIRE_CONSUMERS=1` (CI) requires it.
#[track_caller]
pub fn missing<T>(what: &str, why: &str) -> Option<T> {
    skip::skip(skip::Need::Consumer, &format!("consumer {what}"), why);
    None
}
