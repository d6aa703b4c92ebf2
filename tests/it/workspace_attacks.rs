//! The path-attack corpus against the hardened [`Workspace`]: every case is refused by every
//! operation (read, list, search, check and write), no byte of the canary outside the root is ever
//! returned, nothing outside the root changes, and no message shows a host path. A race swaps a
//! checked file (and a checked folder) for a link to the canary while reads run.
//!
//! Run with `--nocapture` to see the table of cases and outcomes.
#![cfg(unix)]

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use toolsmith::workspace::{SearchLimits, Workspace, WorkspaceError};

// The shared tree: `base/ws` is the root; `base/outside` holds the canary.
use common::workspace::Tree as Fixture;

impl Fixture {
    fn new() -> Fixture {
        Fixture::create("attacks", "OUTSIDE-THE-ROOT", "- pack the tent\n")
    }

    fn secret(&self) -> PathBuf {
        self.base.join("outside/secret.txt")
    }

    /// Every file outside the root with its contents, to prove nothing there changed.
    fn outside_state(&self) -> Vec<(PathBuf, String)> {
        let mut v = Vec::new();
        for d in ["outside", "ws-evil"] {
            for e in fs::read_dir(self.base.join(d)).unwrap() {
                let p = e.unwrap().path();
                let text = fs::read_to_string(&p).unwrap_or_default();
                v.push((p, text));
            }
        }
        v.sort();
        v
    }
}

/// Plants the links, special files and odd names the corpus needs; returns the cases that
/// could not be set up on this machine (reported in the table, never silently skipped).
fn plant(fx: &Fixture) -> Vec<String> {
    use std::os::unix::ffi::OsStrExt;
    let ws = fx.ws();
    let outside = fx.base.join("outside");
    symlink(&outside, ws.join("link_out")).unwrap();
    symlink(fx.secret(), ws.join("file_link")).unwrap();
    symlink("../outside/secret.txt", ws.join("rel_link")).unwrap();
    symlink("..", ws.join("up")).unwrap();
    symlink("chain_b", ws.join("chain_a")).unwrap();
    symlink("notes/../rel_link", ws.join("chain_b")).unwrap();
    symlink(fx.base.join("ws-evil"), ws.join("sibling")).unwrap();
    symlink(outside.join("nowhere.txt"), ws.join("dangling")).unwrap();
    symlink("loop_b", ws.join("loop_a")).unwrap();
    symlink("loop_a", ws.join("loop_b")).unwrap();
    symlink("self_loop", ws.join("self_loop")).unwrap();
    symlink("/proc/self/root", ws.join("proc_link")).unwrap();
    symlink("/proc/self/environ", ws.join("environ_link")).unwrap();
    symlink("/dev/zero", ws.join("dev_link")).unwrap();
    symlink("/", ws.join("root_link")).unwrap();
    // A link with a name that is not UTF-8, pointing out.
    symlink(
        fx.secret(),
        ws.join(std::ffi::OsStr::from_bytes(b"bad\xff\xfename")),
    )
    .unwrap();
    fs::create_dir_all(ws.join(std::ffi::OsStr::from_bytes(b"dir\xff"))).unwrap();
    let mut missing = Vec::new();
    let status = std::process::Command::new("mkfifo")
        .arg(ws.join("fifo"))
        .status();
    if !status.is_ok_and(|s| s.success()) {
        missing.push("fifo (mkfifo failed)".to_string());
    }
    if std::os::unix::net::UnixListener::bind(ws.join("socket")).is_err() {
        missing.push("socket (bind failed)".to_string());
    }
    if fs::hard_link(fx.secret(), ws.join("hard.txt")).is_err() {
        missing.push("hard link (another file system)".to_string());
    }
    missing
}

fn corpus(fx: &Fixture) -> Vec<(&'static str, String)> {
    let abs_secret = fx.secret().display().to_string();
    let mut v: Vec<(&'static str, String)> = vec![
        // `..` escapes
        ("dotdot", "../outside/secret.txt".into()),
        ("dotdot", "..".into()),
        ("dotdot", "../".into()),
        ("dotdot", "notes/../../outside/secret.txt".into()),
        ("dotdot", "./notes/deep/../../../outside/secret.txt".into()),
        ("dotdot", "notes/todo.md/../../../outside/secret.txt".into()),
        ("dotdot", "../ws/../outside/secret.txt".into()),
        ("dotdot", "../ws-evil/secret.txt".into()),
        ("dotdot", "notes/deep/../../..".into()),
        // absolute paths
        ("absolute", "/etc/passwd".into()),
        ("absolute", abs_secret.clone()),
        ("absolute", format!("/{abs_secret}")),
        ("absolute", "//etc/passwd".into()),
        ("absolute", "\\\\server\\share\\secret.txt".into()),
        ("absolute", "\\etc\\passwd".into()),
        ("absolute", "C:\\Windows\\win.ini".into()),
        // links out
        ("symlink out", "link_out/secret.txt".into()),
        ("symlink out", "link_out".into()),
        ("symlink out", "link_out/new.txt".into()),
        ("symlink out", "file_link".into()),
        ("symlink out", "rel_link".into()),
        ("symlink out", "up/outside/secret.txt".into()),
        ("symlink out", "up".into()),
        ("symlink out", "chain_a".into()),
        ("symlink out", "sibling/secret.txt".into()),
        ("symlink out", "dangling".into()),
        ("symlink out", "root_link/etc/passwd".into()),
        // loops
        ("symlink loop", "loop_a".into()),
        ("symlink loop", "loop_a/x.txt".into()),
        ("symlink loop", "self_loop".into()),
        ("symlink loop", "self_loop/self_loop".into()),
        // NUL and control characters
        ("nul", "notes/\u{0}todo.md".into()),
        ("nul", "notes/todo.md\u{0}.png".into()),
        ("nul", "\u{0}".into()),
        ("control", "notes/\u{1b}[2Jtodo.md".into()),
        ("control", "notes\n/../../outside/secret.txt".into()),
        // very long names and paths
        ("long", "a".repeat(256)),
        ("long", format!("notes/{}", "x".repeat(300))),
        ("long", "a/".repeat(2100)),
        ("long", "./".repeat(2100) + "../outside/secret.txt"),
        (
            "long",
            format!("{}{}", "notes/../".repeat(400), "../outside/secret.txt"),
        ),
        // special files
        ("fifo", "fifo".into()),
        ("socket", "socket".into()),
        // /proc and /dev
        ("proc/dev", "/proc/self/environ".into()),
        ("proc/dev", "/proc/self/root/etc/passwd".into()),
        ("proc/dev", "/dev/zero".into()),
        ("proc/dev", "/dev/stdin".into()),
        ("proc/dev", "../../../../../../proc/self/environ".into()),
        ("proc/dev", "proc_link/etc/passwd".into()),
        ("proc/dev", "environ_link".into()),
        ("proc/dev", "dev_link".into()),
        // hard links
        ("hard link", "hard.txt".into()),
        // names that are not UTF-8 (as the model can write them: lossily)
        ("non-UTF-8", "bad\u{FFFD}\u{FFFD}name".into()),
        ("non-UTF-8", "dir\u{FFFD}/../../outside/secret.txt".into()),
        // look-alikes of `/` and `.`
        ("look-alike", "\u{FF0E}\u{FF0E}/outside/secret.txt".into()),
        ("look-alike", "..\u{2215}outside\u{2215}secret.txt".into()),
        ("look-alike", "\u{2024}\u{2024}/outside/secret.txt".into()),
        (
            "look-alike",
            "notes\u{FF0F}..\u{FF0F}..\u{FF0F}outside".into(),
        ),
        ("look-alike", "..\u{2044}outside".into()),
        ("look-alike", "\u{2025}/outside/secret.txt".into()),
        ("look-alike", "..\u{FF3C}outside\u{FF3C}secret.txt".into()),
        // case tricks
        ("case", "LINK_OUT/secret.txt".into()),
        ("case", "Link_Out".into()),
        ("case", "../WS/../outside/secret.txt".into()),
        ("case", "NOTES/../../outside/secret.txt".into()),
        ("case", "File_Link".into()),
    ];
    v.sort_by_key(|(class, _)| *class);
    v
}

fn shown(path: &str) -> String {
    let s: String = path.chars().take(44).collect();
    let s = s
        .replace('\u{0}', "\\0")
        .replace('\n', "\\n")
        .replace('\u{1b}', "\\e");
    if path.chars().count() > 44 {
        format!("{s}…")
    } else {
        s
    }
}

fn code(r: &Result<impl Sized, WorkspaceError>) -> &'static str {
    match r {
        Ok(_) => "OK",
        Err(e) => e.code(),
    }
}

#[test]
fn every_path_attack_is_refused_by_every_operation_and_nothing_leaks() {
    let fx = Fixture::new();
    let missing = plant(&fx);
    let ws = Workspace::open(fx.ws()).unwrap();
    let before = fx.outside_state();
    let limits = SearchLimits::default();
    let mut failures = Vec::new();
    let mut rows = 0;
    let mut writes_inside = 0;
    println!(
        "{:<12} {:<46} {:<18} {:<18} {:<18} {:<18}",
        "class", "path", "read", "list", "search", "write"
    );
    for (class, path) in corpus(&fx) {
        rows += 1;
        let read = ws.read_text(&path, 1_000_000);
        let list = ws.list(&path);
        let search = ws.search(Some(&path), "CANARY", limits);
        let check = ws.check_write(&path);
        let write = ws.write_text(&path, "pwned");
        println!(
            "{class:<12} {:<46} {:<18} {:<18} {:<18} {:<18}",
            shown(&path),
            code(&read),
            code(&list),
            code(&search),
            match &write {
                Ok(_) => "OK (new file inside)",
                Err(e) => e.code(),
            }
        );
        // Reads and writes are refused outright. A list or search of a path that is not a
        // folder or file inside the root is refused; none returns anything from outside.
        if read.is_ok() {
            failures.push(format!("{class} {path:?}: read succeeded"));
        }
        // A write that is allowed must land on a new regular file inside the root (a name that
        // only looks like an attack, such as `Link_Out` beside `link_out`); it is removed again.
        match (&check, &write) {
            (Err(_), Err(_)) => {}
            (Ok(true), Ok(w)) if w.created => {
                let landed = fx.ws().join(&w.path);
                let meta = fs::symlink_metadata(&landed);
                if !meta.is_ok_and(|m| m.is_file())
                    || !fs::canonicalize(&landed)
                        .is_ok_and(|r| r.starts_with(fs::canonicalize(fx.ws()).unwrap()))
                {
                    failures.push(format!(
                        "{class} {path:?}: the write did not land inside the root"
                    ));
                }
                let _ = fs::remove_file(&landed);
                writes_inside += 1;
            }
            _ => failures.push(format!(
                "{class} {path:?}: write allowed: {check:?} {write:?}"
            )),
        }
        if list.is_ok() {
            failures.push(format!("{class} {path:?}: list succeeded"));
        }
        if search.is_ok() {
            failures.push(format!("{class} {path:?}: search succeeded"));
        }
        let mut texts: Vec<String> = Vec::new();
        if let Ok(f) = &read {
            texts.push(f.content.clone());
        }
        if let Ok(m) = &search {
            texts.extend(m.iter().map(|m| m.text.clone()));
        }
        for r in [
            read.as_ref().err(),
            list.as_ref().err(),
            search.as_ref().err(),
            check.as_ref().err(),
            write.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        {
            texts.push(r.to_string());
            let status = r.status();
            if !matches!(
                status,
                toolsmith::Status::Denied | toolsmith::Status::InvalidInput
            ) {
                failures.push(format!(
                    "{class} {path:?}: refused as {status:?} ({})",
                    r.code()
                ));
            }
        }
        for t in &texts {
            if t.contains(&fx.canary) {
                failures.push(format!("{class} {path:?}: returned canary bytes"));
            }
            for host in fx.host_paths() {
                if t.contains(&host) {
                    failures.push(format!("{class} {path:?}: showed the host path: {t}"));
                }
            }
        }
    }
    for m in &missing {
        println!("not set up here: {m}");
    }
    println!(
        "{rows} cases: reads, lists and searches all refused; {} writes refused, {writes_inside} \
         created a new file inside the root; {} failures",
        rows - writes_inside,
        failures.len()
    );
    assert!(rows >= 60);
    assert!(
        missing.is_empty(),
        "the corpus could not be set up: {missing:?}"
    );
    assert_eq!(
        fx.outside_state(),
        before,
        "a file outside the root changed"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The whole workspace: links out are listed, never followed; nothing of the canary.
    let all = ws.search(None, "CANARY", limits).unwrap();
    assert!(all.is_empty(), "{all:?}");
    let listing = ws.list(".").unwrap();
    assert!(listing.iter().any(|e| e.path == "link_out"));
    assert!(listing.iter().any(|e| e.path.starts_with("bad")));
    // What is inside still works.
    assert_eq!(
        ws.read_text("notes/todo.md", 100).unwrap().content,
        "- pack the tent\n"
    );
}

#[test]
fn refusals_have_the_documented_codes() {
    let fx = Fixture::new();
    plant(&fx);
    let ws = Workspace::open(fx.ws()).unwrap();
    let table = [
        ("../outside/secret.txt", "OUTSIDE_WORKSPACE"),
        ("/etc/passwd", "ABSOLUTE_PATH"),
        ("link_out/secret.txt", "OUTSIDE_WORKSPACE"),
        ("file_link", "OUTSIDE_WORKSPACE"),
        ("rel_link", "OUTSIDE_WORKSPACE"),
        ("dangling", "UNRESOLVABLE_PATH"),
        ("loop_a", "UNRESOLVABLE_PATH"),
        ("self_loop", "UNRESOLVABLE_PATH"),
        ("notes/\u{0}x", "INVALID_PATH"),
        ("\u{FF0E}\u{FF0E}/outside/secret.txt", "INVALID_PATH"),
        ("fifo", "NOT_A_FILE"),
        ("socket", "NOT_A_FILE"),
        ("notes", "NOT_A_FILE"),
        ("hard.txt", "HARD_LINKED"),
        ("NOTES/todo.md", "NOT_FOUND"),
        ("", "EMPTY_PATH"),
    ];
    for (path, expected) in table {
        let e = ws.read_text(path, 1000).unwrap_err();
        assert_eq!(e.code(), expected, "{path:?}: {e}");
    }
    // A FIFO is refused without waiting for a writer (this test would hang otherwise), and
    // refused for writes too.
    assert_eq!(ws.write_text("fifo", "x").unwrap_err().code(), "NOT_A_FILE");
    assert_eq!(ws.list("notes/todo.md").unwrap_err().code(), "NOT_A_FOLDER");
}

#[test]
fn writes_are_atomic_and_leave_no_temporary_files() {
    let fx = Fixture::new();
    let ws = Workspace::open(fx.ws()).unwrap();
    let w = ws.write_text("notes/new.md", "one\n").unwrap();
    assert!(w.created);
    assert_eq!(w.path, "notes/new.md");
    let w = ws.write_text("notes/new.md", "two\n").unwrap();
    assert!(!w.created);
    assert_eq!(
        fs::read_to_string(fx.ws().join("notes/new.md")).unwrap(),
        "two\n"
    );
    // A link inside the root is written through to its target, which stays a link's target.
    symlink("notes/new.md", fx.ws().join("inner")).unwrap();
    let w = ws.write_text("inner", "three\n").unwrap();
    assert_eq!(w.path, "notes/new.md");
    assert!(fs::symlink_metadata(fx.ws().join("inner"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(fx.ws().join("notes/new.md")).unwrap(),
        "three\n"
    );
    let names: Vec<String> = fs::read_dir(fx.ws().join("notes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    assert_eq!(
        ws.write_text("nope/x.md", "x").unwrap_err().code(),
        "FOLDER_NOT_FOUND"
    );
}

/// Runs `step` (which flips a path between inside and a link out) until `stop` is set or `limit`
/// steps are done, counting the finished steps in `done`; returns the number of steps.
fn swapper(
    step: impl Fn(bool) + Send + 'static,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicUsize>,
    limit: usize,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) && swaps < limit {
            step(swaps % 2 == 0);
            swaps += 1;
            done.fetch_add(1, Ordering::SeqCst);
        }
        swaps
    })
}

/// What the reads of one raced path met.
#[derive(Debug, Default)]
struct RaceTally {
    /// Reads that returned the inside file.
    inside: usize,
    /// Reads refused as leading outside the workspace: they met the swapped link.
    met_link: usize,
    /// Reads during which at least one swap of the path finished.
    during_swap: usize,
    /// Refusals by code.
    codes: std::collections::BTreeMap<&'static str, usize>,
}

#[test]
fn a_file_swapped_for_a_link_to_the_canary_during_reads_never_leaks() {
    let fx = Fixture::new();
    let ws = Workspace::open(fx.ws()).unwrap();
    fs::write(fx.ws().join("race.txt"), "inside\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // The file: renamed over atomically, a regular file one moment and a link to the canary the
    // next, so every open sees one or the other.
    let (root, secret) = (fx.ws(), fx.secret());
    let file_swaps = Arc::new(AtomicUsize::new(0));
    let files = swapper(
        move |inside| {
            let tmp = root.join(".race.next");
            let _ = fs::remove_file(&tmp);
            if inside {
                let _ = fs::write(&tmp, "inside\n");
            } else {
                let _ = symlink(&secret, &tmp);
            }
            let _ = fs::rename(&tmp, root.join("race.txt"));
        },
        Arc::clone(&stop),
        Arc::clone(&file_swaps),
        2_000_000,
    );
    // The folder: moved aside and replaced by a link to the canary's folder, then moved back.
    fs::create_dir_all(fx.ws().join("racedir")).unwrap();
    fs::write(fx.ws().join("racedir/secret.txt"), "inside\n").unwrap();
    let (root, outside) = (fx.ws(), fx.base.join("outside"));
    let dir_swaps = Arc::new(AtomicUsize::new(0));
    let dirs = swapper(
        move |inside| {
            let (dir, aside) = (root.join("racedir"), root.join(".racedir.aside"));
            if inside {
                let _ = fs::remove_file(&dir);
                let _ = fs::rename(&aside, &dir);
            } else {
                let _ = fs::rename(&dir, &aside);
                let _ = symlink(&outside, &dir);
            }
        },
        Arc::clone(&stop),
        Arc::clone(&dir_swaps),
        2_000_000,
    );
    let targets = [
        ("race.txt", &file_swaps),
        ("racedir/secret.txt", &dir_swaps),
    ];
    let mut tallies = [RaceTally::default(), RaceTally::default()];
    let mut leaked = Vec::new();
    // Rounds of 1,000 reads and 1,000 searches: at least 6, then more (at most 60) until each
    // path has had reads that met its link and reads that a swap overlapped. The bound keeps a
    // machine that never interleaves the threads from looping: it fails below instead.
    const ROUND: usize = 1000;
    let (min_rounds, max_rounds) = (6, 60);
    let mut reads = 0usize;
    for round in 0..max_rounds {
        let proven = tallies.iter().all(|t| t.met_link > 0 && t.during_swap > 0);
        if round >= min_rounds && proven {
            break;
        }
        for i in 0..ROUND {
            let which = i % 2;
            let (path, swaps) = targets[which];
            let tally = &mut tallies[which];
            let before = swaps.load(Ordering::SeqCst);
            let result = ws.read_text(path, 1000);
            if swaps.load(Ordering::SeqCst) != before {
                tally.during_swap += 1;
            }
            reads += 1;
            match result {
                Ok(f) => {
                    tally.inside += 1;
                    // The only text inside the workspace at either path.
                    if f.content != "inside\n" {
                        leaked.push(format!("{path} read {:?}", f.content));
                    }
                }
                Err(e) => {
                    if e.code() == "OUTSIDE_WORKSPACE" {
                        tally.met_link += 1;
                    }
                    *tally.codes.entry(e.code()).or_insert(0) += 1;
                    if e.to_string().contains("CANARY") {
                        leaked.push(format!("{path} refused with {e}"));
                    }
                }
            }
            if let Ok(found) = ws.search(Some("racedir"), "CANARY", SearchLimits::default()) {
                if !found.is_empty() {
                    leaked.push(format!("search found {found:?}"));
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = files.join().unwrap() + dirs.join().unwrap();
    let _ = fs::remove_file(fx.ws().join("racedir"));
    println!("race: {reads} reads and {reads} searches during {swaps} swaps");
    for ((path, _), t) in targets.iter().zip(&tallies) {
        println!(
            "  {path}: {} read the inside file, {} met the link (refused as outside), \
             {} overlapped a swap; refusals {:?}",
            t.inside, t.met_link, t.during_swap, t.codes
        );
    }
    assert!(leaked.is_empty(), "canary bytes were returned: {leaked:?}");
    for ((path, _), t) in targets.iter().zip(&tallies) {
        // The race happened: reads met the swapped link, and swaps finished during reads.
        assert!(t.met_link > 0, "no read of {path} met the link: {t:?}");
        assert!(
            t.during_swap > 0,
            "no swap of {path} finished during a read: {t:?}"
        );
        assert_eq!(
            t.inside + t.codes.values().sum::<usize>(),
            reads / 2,
            "{path}: {t:?}"
        );
    }
    assert_eq!(
        fs::read_to_string(fx.secret()).unwrap(),
        format!("{}\n", fx.canary)
    );
}

mod generated {
    //! Paths assembled from the corpus's pieces: none reads the canary or shows a host path.
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "..",
            ".",
            "/",
            "//",
            "\\",
            "link_out",
            "file_link",
            "rel_link",
            "up",
            "chain_a",
            "loop_a",
            "dangling",
            "proc_link",
            "root_link",
            "notes",
            "deep",
            "todo.md",
            "outside",
            "secret.txt",
            "ws",
            "ws-evil",
            "sibling",
            "\u{FF0E}",
            "\u{2215}",
            "\u{0}",
            "hard.txt",
            "fifo",
            "etc",
            "passwd",
            "NOTES",
            "bad\u{FFFD}\u{FFFD}name",
        ])
    }

    #[test]
    fn no_assembled_path_reads_the_canary() {
        let fx = Fixture::new();
        plant(&fx);
        let ws = Workspace::open(fx.ws()).unwrap();
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        let result = runner.run(&prop::collection::vec(piece(), 1..9), |pieces| {
            let path = pieces.concat();
            let outcomes = [
                ws.read_text(&path, 10_000).err().map(|e| e.to_string()),
                ws.read_text(&path, 10_000).ok().map(|f| f.content),
                ws.search(Some(&path), "CANARY", SearchLimits::default())
                    .err()
                    .map(|e| e.to_string()),
                ws.list(&path).err().map(|e| e.to_string()),
            ];
            for text in outcomes.into_iter().flatten() {
                prop_assert!(!text.contains(&fx.canary), "{:?} returned the canary", path);
                for host in fx.host_paths() {
                    prop_assert!(
                        !text.contains(&host),
                        "{:?} showed a host path: {}",
                        path,
                        text
                    );
                }
            }
            if let Ok(found) = ws.search(Some(&path), "CANARY", SearchLimits::default()) {
                prop_assert!(found.is_empty(), "{:?} found the canary", path);
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    }
}
