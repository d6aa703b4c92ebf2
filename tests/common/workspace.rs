//! A temporary directory tree for workspace tests, removed on drop: `base/ws` is the workspace
//! root, `base/outside` and `base/ws-evil` (a sibling whose name starts with the root's name: a
//! string-prefix check would let it in) each hold `secret.txt` with the canary, text that must
//! never reach the model.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The tree; test files add (in an `impl` of their own) the files and links their cases need.
pub struct Tree {
    /// The directory holding the root and the places outside it.
    pub base: PathBuf,
    /// The text of the secrets outside the root.
    pub canary: String,
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

impl Tree {
    /// A fresh tree named after `label`, with the canary `CANARY-<pid>-<n>-<canary_tail>`, the
    /// folders `ws/notes/deep`, and `ws/notes/todo.md` holding `todo`.
    pub fn create(label: &str, canary_tail: &str, todo: &str) -> Tree {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let base =
            std::env::temp_dir().join(format!("toolsmith-{label}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let canary = format!("CANARY-{}-{n}-{canary_tail}", std::process::id());
        let ws = base.join("ws");
        fs::create_dir_all(ws.join("notes/deep")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::create_dir_all(base.join("ws-evil")).unwrap();
        fs::write(base.join("outside/secret.txt"), format!("{canary}\n")).unwrap();
        fs::write(base.join("ws-evil/secret.txt"), format!("{canary}\n")).unwrap();
        fs::write(ws.join("notes/todo.md"), todo).unwrap();
        Tree { base, canary }
    }

    /// The workspace root.
    pub fn ws(&self) -> PathBuf {
        self.base.join("ws")
    }

    /// Host paths that must never reach the model: the base as given and as resolved.
    pub fn host_paths(&self) -> Vec<String> {
        let mut v = vec![self.base.display().to_string()];
        if let Ok(real) = fs::canonicalize(&self.base) {
            v.push(real.display().to_string());
        }
        v
    }
}
