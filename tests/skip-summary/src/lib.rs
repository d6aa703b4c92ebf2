//! A test that cannot check what it names, because a consumer or a service it needs is missing,
//! says so through [`skip`]: at once, on standard error past the test harness's capture (so a
//! plain `cargo test` shows it without `--nocapture`), and in a record of the run that the
//! summary test of the `zz-skip-summary` crate prints once at the end of `cargo test
//! --workspace`, grouped by what is missing and with the command that runs those tests.
//!
//! Tests include this file with `#[path = ".../tests/skip-summary/src/lib.rs"] mod skip;`, so it
//! depends on nothing but the standard library. Under `TOOLSMITH_REQUIRE_CONSUMERS=1` (the
//! consumers) or `TOOLSMITH_REQUIRE_SERVICES=1` (Redis, PostgreSQL), as `.ci/run` sets them, a
//! missing piece is a failure, not a skip: [`skip`] panics.
#![allow(dead_code)] // each test uses its own part

use std::io::Write;
use std::path::{Path, PathBuf};

/// What is missing, and so which switch requires it and which command provides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A real consumer: a browser, an SDK, the conformance suite (`.ci/consumers.sh`).
    Consumer,
    /// A real Redis or PostgreSQL (`.ci/services.sh`).
    Service,
    /// The rendered docs the public API check reads (`scripts/public-api.sh`).
    Docs,
}

impl Need {
    /// The variable that turns a skip into a failure, if one does.
    fn required_by(self) -> Option<&'static str> {
        match self {
            Need::Consumer => Some("TOOLSMITH_REQUIRE_CONSUMERS"),
            Need::Service => Some("TOOLSMITH_REQUIRE_SERVICES"),
            Need::Docs => None,
        }
    }

    /// The command that runs the tests that need it.
    pub fn command(self) -> &'static str {
        match self {
            Need::Consumer => "bash .ci/consumers.sh (installs them), then cargo test --workspace",
            Need::Service => "bash .ci/services.sh cargo test --workspace",
            Need::Docs => "bash scripts/public-api.sh",
        }
    }
}

/// Whether `var` is set to `1`.
fn is_set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// Says that the current test did not check what it names because `what` is missing (`why`),
/// and records it for the run's summary; panics instead when the run requires `need` (CI).
///
/// The test is named after the current thread (the harness names each test's thread after it).
#[track_caller]
pub fn skip(need: Need, what: &str, why: &str) {
    if let Some(var) = need.required_by().filter(|v| is_set(v)) {
        panic!(
            "{what} missing ({why}), and {var}=1 requires it: {}",
            need.command()
        );
    }
    let test = std::thread::current().name().unwrap_or("main").to_string();
    let binary = std::env::current_exe()
        .ok()
        .and_then(|e| e.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| {
            s.rsplit_once('-')
                .map_or(s.clone(), |(name, _)| name.to_string())
        })
        .unwrap_or_default();
    let line = format!(
        "SKIP {binary}::{test}: {what} missing ({why}); run: {}\n",
        need.command()
    );
    // Past the harness's capture: `eprintln!` in a passing test is never shown.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Some(dir) = run_dir() {
        let record = Record {
            need,
            what: what.to_string(),
            why: why.to_string(),
            test: format!("{binary}::{test}"),
        };
        let _ = std::fs::create_dir_all(&dir);
        let name = format!("{}-{}.skip", std::process::id(), unique());
        let _ = std::fs::write(dir.join(name), record.to_line());
    }
}

/// A number no other record of this process has.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Where the records of the test binaries a `cargo test` run starts go: the profile's folder of
/// the target directory (`target/debug`, above the binary's `deps`), one folder per run, named
/// after the process that started the binaries (cargo, or nextest).
pub fn run_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile = exe.parent()?.parent()?;
    Some(records_root(profile).join(parent_id().to_string()))
}

fn records_root(profile: &Path) -> PathBuf {
    profile.join("toolsmith-skips")
}

#[cfg(unix)]
fn parent_id() -> u32 {
    std::os::unix::process::parent_id()
}

#[cfg(not(unix))]
fn parent_id() -> u32 {
    0
}

/// One skipped test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub need: Need,
    pub what: String,
    pub why: String,
    pub test: String,
}

impl Record {
    fn to_line(&self) -> String {
        let need = match self.need {
            Need::Consumer => "consumer",
            Need::Service => "service",
            Need::Docs => "docs",
        };
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        format!(
            "{need}\t{}\t{}\t{}\n",
            clean(&self.what),
            clean(&self.why),
            clean(&self.test)
        )
    }

    fn from_line(line: &str) -> Option<Record> {
        let mut parts = line.trim_end_matches('\n').split('\t');
        let need = match parts.next()? {
            "consumer" => Need::Consumer,
            "service" => Need::Service,
            "docs" => Need::Docs,
            _ => return None,
        };
        Some(Record {
            need,
            what: parts.next()?.to_string(),
            why: parts.next()?.to_string(),
            test: parts.next()?.to_string(),
        })
    }
}

/// The records of the run `dir` holds, in the order the tests were named.
pub fn read_records(dir: &Path) -> Vec<Record> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut records: Vec<Record> = entries
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|text| Record::from_line(&text))
        .collect();
    records.sort_by(|a, b| a.test.cmp(&b.test));
    records
}

/// The summary of `records`: what was missing, how many tests it kept from checking (and
/// which), and the command that runs them; `None` when nothing was skipped.
pub fn summary(records: &[Record]) -> Option<String> {
    if records.is_empty() {
        return None;
    }
    // Grouped by what is missing and why, in the order first seen.
    let mut groups: Vec<(&Record, Vec<&str>)> = Vec::new();
    for r in records {
        match groups
            .iter_mut()
            .find(|(g, _)| g.need == r.need && g.what == r.what && g.why == r.why)
        {
            Some((_, tests)) => tests.push(&r.test),
            None => groups.push((r, vec![&r.test])),
        }
    }
    let mut out = format!(
        "\n======== SKIPPED: {} test{} passed without checking what {} name{} ========\n",
        records.len(),
        if records.len() == 1 { "" } else { "s" },
        if records.len() == 1 { "it" } else { "they" },
        if records.len() == 1 { "s" } else { "" },
    );
    for (r, tests) in &groups {
        out.push_str(&format!(
            "- {} missing ({}): {} test{}: {}\n  run them with: {}\n",
            r.what,
            r.why,
            tests.len(),
            if tests.len() == 1 { "" } else { "s" },
            tests.join(", "),
            r.need.command()
        ));
    }
    out.push_str(
        "Everything, as CI runs it (installs the consumers and services first): bash .ci/run\n\n",
    );
    Some(out)
}

/// Removes the record folders of runs whose process is gone (an interrupted run's), keeping
/// `keep`'s.
pub fn prune(root: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let gone = entry
            .file_name()
            .to_str()
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_none_or(|pid| !Path::new(&format!("/proc/{pid}")).exists());
        if path != keep && gone {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
