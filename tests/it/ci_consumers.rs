//! `.ci/consumers.sh` makes sure the browser can run WebMCP: it probes the chromium it is given
//! (`TOOLSMITH_CHROMIUM`), upgrades through apt when the probe fails, probes again, and stops with
//! a clear message when it still fails.
//!
//! Apt no longer serves a chromium without WebMCP, so the browser here is a stub: a wrapper that
//! reports version 148 and starts the real chromium without `--enable-features=WebMCPTesting`, a
//! real browser without the API. `apt-get` is a stub too (`TOOLSMITH_APT_GET`): it records its
//! arguments and, in the upgrade case, turns the wrapper into the plain real browser, as an
//! upgrade to a build with WebMCP would. The Python and npm parts are skipped; the probe needs
//! node and the playwright-core that `.ci/consumers.sh` installs (SKIP without them, unless
//! `TOOLSMITH_REQUIRE_CONSUMERS=1`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::require;

const REAL_CHROMIUM: &str = "/usr/bin/chromium";

/// `false` with a SKIP printed when the probe's consumers are missing and not required (a panic
/// when CI requires them).
fn probe_can_run() -> bool {
    let missing = if !Path::new(REAL_CHROMIUM).exists() {
        Some(format!("{REAL_CHROMIUM} does not exist"))
    } else if !crate::workspace()
        .join("toolsmith-core/tests/consumers/node_modules/playwright-core")
        .exists()
    {
        Some("toolsmith-core/tests/consumers/node_modules/playwright-core is not installed".into())
    } else if Command::new("node").arg("--version").output().is_err() {
        Some("`node` is not on PATH".into())
    } else {
        None
    };
    let Some(why) = missing else { return true };
    require::missing::<()>("the browser probe", &why);
    false
}

fn write_exe(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write stub");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod stub");
}

struct Stubs {
    dir: PathBuf,
    browser: PathBuf,
    apt: PathBuf,
    log: PathBuf,
}

impl Stubs {
    /// A browser without the API and an apt-get that upgrades it when `upgrades`.
    fn new(label: &str, upgrades: bool) -> Stubs {
        let dir = std::env::temp_dir().join(format!(
            "toolsmith-ci-consumers-{label}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("stub dir");
        let browser = dir.join("chromium");
        let apt = dir.join("apt-get");
        let log = dir.join("apt.log");
        write_exe(
            &browser,
            &format!(
                "#!/bin/sh\n\
                 if [ \"$1\" = \"--version\" ]; then\n\
                 \x20 echo \"Chromium 148.0.7778.167 built on Debian GNU/Linux 12 (bookworm)\"; exit 0\n\
                 fi\n\
                 for a do shift; [ \"$a\" = \"--enable-features=WebMCPTesting\" ] || set -- \"$@\" \"$a\"; done\n\
                 exec {REAL_CHROMIUM} \"$@\"\n"
            ),
        );
        let upgrade = if upgrades {
            format!(
                "if [ \"$1\" = install ]; then\n\
                 \x20 printf '#!/bin/sh\\nexec {REAL_CHROMIUM} \"$@\"\\n' > '{}'\n\
                 fi\n",
                browser.display()
            )
        } else {
            String::new()
        };
        write_exe(
            &apt,
            &format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\n{upgrade}exit 0\n",
                log.display()
            ),
        );
        Stubs {
            dir,
            browser,
            apt,
            log,
        }
    }

    fn run(&self) -> Output {
        Command::new("bash")
            .arg(crate::workspace().join(".ci/consumers.sh"))
            .env("TOOLSMITH_CHROMIUM", &self.browser)
            .env("TOOLSMITH_APT_GET", &self.apt)
            .env("TOOLSMITH_SKIP_PYTHON", "1")
            .env("TOOLSMITH_SKIP_NODE", "1")
            .output()
            .expect("run .ci/consumers.sh")
    }

    fn apt_calls(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Stubs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn text(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_browser_without_webmcp_is_upgraded_through_apt_and_probed_again() {
    if !probe_can_run() {
        return;
    }
    let stubs = Stubs::new("upgrade", true);
    let out = stubs.run();
    let all = text(&out);
    assert!(out.status.success(), "the upgrade path failed:\n{all}");
    assert_eq!(
        stubs.apt_calls(),
        ["update", "install -y --no-install-recommends chromium"],
        "{all}"
    );
    assert!(
        all.contains(
            "Chromium 148.0.7778.167 built on Debian GNU/Linux 12 (bookworm) cannot run WebMCP"
        ),
        "the first probe's failure is not reported:\n{all}"
    );
    assert!(
        all.contains("runs WebMCP after the upgrade"),
        "the second probe is not reported:\n{all}"
    );
}

#[test]
fn a_browser_that_still_lacks_webmcp_after_the_upgrade_stops_the_script_with_a_clear_message() {
    if !probe_can_run() {
        return;
    }
    let stubs = Stubs::new("stop", false);
    let out = stubs.run();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        stubs.apt_calls(),
        ["update", "install -y --no-install-recommends chromium"]
    );
    for needle in [
        "chromium cannot run WebMCP: document.modelContext is missing",
        "found:  Chromium 148.0.7778.167",
        "tried:  apt-get update && apt-get install chromium (upgrade from Chromium 148",
        "needed: a chromium whose document.modelContext exists",
        "\"error\":\"document.modelContext is missing\"",
    ] {
        assert!(stderr.contains(needle), "missing {needle:?} in:\n{stderr}");
    }
}

#[test]
fn a_browser_with_webmcp_is_left_alone() {
    if !probe_can_run() {
        return;
    }
    let stubs = Stubs::new("fine", false);
    write_exe(
        &stubs.browser,
        &format!("#!/bin/sh\nexec {REAL_CHROMIUM} \"$@\"\n"),
    );
    let out = stubs.run();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        stubs.apt_calls().is_empty(),
        "apt ran: {:?}",
        stubs.apt_calls()
    );
    assert!(
        text(&out).contains("runs WebMCP: {\"ok\":true"),
        "{}",
        text(&out)
    );
}
