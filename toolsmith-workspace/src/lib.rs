//! A directory that tools may read, search and write, with the boundary enforced by the
//! operating system: the `toolsmith-workspace` crate of toolsmith (the facade's feature `workspace`).
//!
//! A [`Workspace`] holds an open handle to its root and opens every path the model gives
//! *beneath* that handle with [`cap_std`] (on Linux through `openat2` with `RESOLVE_BENEATH`
//! where the kernel has it): `..` above the root, absolute symbolic links and links that lead out
//! are refused by the kernel at the moment of the open, so a file swapped for a link between a
//! check and its use cannot escape. Special files (FIFOs, sockets, devices) are opened without
//! blocking and refused; files with more than one hard link are refused, because the other link
//! may be outside the root.
//!
//! Every refusal is a [`WorkspaceError`] with a stable code and a message that names the path the
//! model gave and never a host path; it converts into a [`ToolError`] with `?`. Tools take the
//! workspace as a context value (`#[context] ws: &Workspace`).
//!
//! ```
//! use toolsmith_workspace::Workspace;
//! let root = std::env::temp_dir().join(format!("toolsmith-ws-doc-{}", std::process::id()));
//! std::fs::create_dir_all(root.join("notes")).unwrap();
//! let ws = Workspace::open(&root).unwrap();
//! ws.write_text("notes/todo.md", "- pack the tent\n").unwrap();
//! let file = ws.read_text("notes/todo.md", 1000).unwrap();
//! assert_eq!(file.content, "- pack the tent\n");
//! let err = ws.read_text("../etc/passwd", 1000).unwrap_err();
//! assert_eq!(err.code(), "OUTSIDE_WORKSPACE");
//! assert!(!err.to_string().contains(&root.display().to_string()));
//! std::fs::remove_dir_all(&root).unwrap();
//! ```

#![deny(unreachable_pub)]
#![deny(missing_docs)]

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, Metadata, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use toolsmith_core::{codes, Status, ToolError};

/// The longest path accepted, in bytes (the usual `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// The longest file or folder name accepted, in bytes (the usual `NAME_MAX`).
pub const MAX_NAME_BYTES: usize = 255;
/// Folders nested deeper than this below the search scope are not searched.
pub const MAX_SEARCH_DEPTH: usize = 64;

/// Characters that look like `/`, `\` or `.` but are not: a path that uses them is refused, so a
/// model (or a person reading its call) is never misled about where a path leads.
const LOOK_ALIKES: &[char] = &[
    '\u{2215}', // DIVISION SLASH
    '\u{2044}', // FRACTION SLASH
    '\u{FF0F}', // FULLWIDTH SOLIDUS
    '\u{29F8}', // BIG SOLIDUS
    '\u{2571}', // BOX DRAWINGS LIGHT DIAGONAL
    '\u{FF3C}', // FULLWIDTH REVERSE SOLIDUS
    '\u{2216}', // SET MINUS
    '\u{29F5}', // REVERSE SOLIDUS OPERATOR
    '\u{FE68}', // SMALL REVERSE SOLIDUS
    '\u{FF0E}', // FULLWIDTH FULL STOP
    '\u{2024}', // ONE DOT LEADER
    '\u{2025}', // TWO DOT LEADER
    '\u{FE52}', // SMALL FULL STOP
    '\u{0701}', // SYRIAC SUPRALINEAR FULL STOP
];

/// Why a workspace operation was refused or failed. Messages name the path the model gave, never
/// a host path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The path is empty.
    #[error(
        "\"path\" is empty. Give a path relative to the workspace root, e.g. \"notes/todo.md\"."
    )]
    EmptyPath,
    /// The path contains a NUL, a control character, a look-alike of `/`, `\` or `.`, or is too
    /// long.
    #[error("{path:?} is not a usable path: it {reason}. Give a path relative to the workspace root, e.g. \"notes/todo.md\".")]
    InvalidPath {
        /// The path as given (shortened when very long).
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The path is absolute.
    #[error("The path is absolute. Only paths relative to the workspace root are accepted, e.g. \"notes/todo.md\".")]
    AbsolutePath,
    /// The path leads outside the root (`..` above it, or a link that leads out).
    #[error("{path:?} leads outside the workspace. Paths are relative to the workspace root and stay inside it: no \"..\" above the root, no links that lead out. Retrying will not help.")]
    Outside {
        /// The path as given.
        path: String,
    },
    /// A link on the way loops or points nowhere.
    #[error("{path:?} cannot be resolved inside the workspace (a symbolic link that loops or points nowhere). Retrying will not help.")]
    Unresolvable {
        /// The path as given.
        path: String,
    },
    /// The path names a folder or a special file where a regular file is needed.
    #[error("{path:?} is {what}, not a regular file; these tools read and write regular text files only.")]
    NotAFile {
        /// The path as given.
        path: String,
        /// What it is: "a folder", "a pipe, socket or device".
        what: &'static str,
    },
    /// The file has other hard links, which may be outside the root.
    #[error("{path:?} has more than one hard link, and another link may lead outside the workspace, so it is not opened. Retrying will not help.")]
    HardLinked {
        /// The path as given.
        path: String,
    },
    /// Nothing exists at the path.
    #[error("No file at {path:?} (checked relative to the workspace root). Check the spelling.")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The path names a file where a folder is needed.
    #[error("{path:?} is a file, not a folder.")]
    NotAFolder {
        /// The path as given.
        path: String,
    },
    /// The folder a file would be written into does not exist.
    #[error(
        "The folder of {path:?} does not exist in the workspace. Write into an existing folder."
    )]
    FolderNotFound {
        /// The path as given.
        path: String,
    },
    /// The file is larger than the limit.
    #[error("{path:?} is {bytes} bytes, over the limit of {limit}.")]
    TooLarge {
        /// The path as given.
        path: String,
        /// The file's size, as far as it was read.
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{path:?} is not UTF-8 text (the first invalid byte is at offset {offset}); it may be a binary file. Only text files are read.")]
    NotText {
        /// The path as given.
        path: String,
        /// The offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// The file exists but could not be read.
    #[error("{path:?} could not be read. Tell the user the file is not readable.")]
    Unreadable {
        /// The path as given.
        path: String,
    },
    /// The file could not be written.
    #[error("{path:?} could not be written. Tell the user the file could not be saved.")]
    WriteFailed {
        /// The path as given.
        path: String,
    },
}

impl WorkspaceError {
    /// The stable code: `EMPTY_PATH`, `INVALID_PATH`, `ABSOLUTE_PATH`, `OUTSIDE_WORKSPACE`,
    /// `UNRESOLVABLE_PATH`, `NOT_A_FILE`, `HARD_LINKED`, `NOT_FOUND`, `NOT_A_FOLDER`,
    /// `FOLDER_NOT_FOUND`,
    /// `FILE_TOO_LARGE`, `NOT_TEXT`, `UNREADABLE` or `WRITE_FAILED`.
    pub fn code(&self) -> &'static str {
        match self {
            WorkspaceError::EmptyPath => codes::EMPTY_PATH,
            WorkspaceError::InvalidPath { .. } => codes::INVALID_PATH,
            WorkspaceError::AbsolutePath => codes::ABSOLUTE_PATH,
            WorkspaceError::Outside { .. } => codes::OUTSIDE_WORKSPACE,
            WorkspaceError::Unresolvable { .. } => codes::UNRESOLVABLE_PATH,
            WorkspaceError::NotAFile { .. } => codes::NOT_A_FILE,
            WorkspaceError::HardLinked { .. } => codes::HARD_LINKED,
            WorkspaceError::NotFound { .. } => codes::NOT_FOUND,
            WorkspaceError::NotAFolder { .. } => codes::NOT_A_FOLDER,
            WorkspaceError::FolderNotFound { .. } => codes::FOLDER_NOT_FOUND,
            WorkspaceError::TooLarge { .. } => codes::FILE_TOO_LARGE,
            WorkspaceError::NotText { .. } => codes::NOT_TEXT,
            WorkspaceError::Unreadable { .. } => codes::UNREADABLE,
            WorkspaceError::WriteFailed { .. } => codes::WRITE_FAILED,
        }
    }

    /// The envelope status: `denied` for what the boundary refuses (including a path with a NUL,
    /// a control character or a look-alike of `/` or `.`), `invalid_input` for a path the model
    /// can fix, `refused` for a file over the limit, `failed` for the rest.
    pub fn status(&self) -> Status {
        match self {
            WorkspaceError::AbsolutePath
            | WorkspaceError::Outside { .. }
            | WorkspaceError::Unresolvable { .. }
            | WorkspaceError::NotAFile { .. }
            | WorkspaceError::HardLinked { .. }
            // A NUL, a control character or a look-alike of `/` or `.` is never a typo: it is a
            // way past the boundary checks, refused as the boundary refuses.
            | WorkspaceError::InvalidPath { .. } => Status::Denied,
            WorkspaceError::EmptyPath
            | WorkspaceError::NotFound { .. }
            | WorkspaceError::NotAFolder { .. }
            | WorkspaceError::FolderNotFound { .. } => Status::InvalidInput,
            WorkspaceError::TooLarge { .. } => Status::Refused,
            WorkspaceError::NotText { .. }
            | WorkspaceError::Unreadable { .. }
            | WorkspaceError::WriteFailed { .. } => Status::Failed,
        }
    }
}

impl From<WorkspaceError> for ToolError {
    fn from(e: WorkspaceError) -> ToolError {
        let code = e.code();
        let message = e.to_string();
        match e.status() {
            Status::Denied => ToolError::denied(code, message),
            Status::InvalidInput => ToolError::invalid_input(code, message),
            Status::Refused => match e {
                WorkspaceError::TooLarge { bytes, limit, .. } => ToolError::refused(code, message)
                    .with_details(serde_json::json!({ "bytes": bytes, "max_bytes": limit })),
                _ => ToolError::refused(code, message),
            },
            _ => ToolError::failed(code, message),
        }
    }
}

/// One text file's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextFile {
    /// The file's path relative to the root, links resolved, `/`-separated.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its text.
    pub content: String,
}

/// What kind of thing a folder entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link (not followed).
    Link,
    /// A FIFO, socket or device.
    Special,
}

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// The entry's path relative to the root (names that are not UTF-8 are shown lossily).
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
    /// Its size in bytes (files only; 0 otherwise).
    pub bytes: u64,
}

/// One line that contains a search's query.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Match {
    /// The file, relative to the root.
    pub path: String,
    /// The line number, starting at 1.
    pub line: u32,
    /// The line's text, trimmed and cut to 200 characters.
    pub text: String,
}

/// Bounds on one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchLimits {
    /// Files larger than this many bytes are skipped.
    pub max_file_bytes: u64,
    /// At most this many matches are collected.
    pub max_matches: usize,
}

impl SearchLimits {
    /// These limits with files larger than `bytes` skipped.
    #[must_use]
    pub fn with_max_file_bytes(mut self, bytes: u64) -> Self {
        self.max_file_bytes = bytes;
        self
    }

    /// These limits with at most `matches` matches collected.
    #[must_use]
    pub fn with_max_matches(mut self, matches: usize) -> Self {
        self.max_matches = matches;
        self
    }
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            max_file_bytes: 1_000_000,
            max_matches: 5_000,
        }
    }
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written {
    /// The file's path relative to the root.
    pub path: String,
    /// Bytes written.
    pub bytes_written: u64,
    /// Whether the file was created (false: an existing file was replaced).
    pub created: bool,
}

/// Where a write goes: an open handle to its folder, the file name in it, and whether it exists.
struct WriteTarget {
    folder: Dir,
    /// The folder relative to the root (`.` for the root), for display.
    folder_rel: PathBuf,
    name: std::ffi::OsString,
    exists: bool,
}

/// The directory tools may touch, held open; injected by the host, never named by the model.
#[derive(Debug)]
pub struct Workspace {
    dir: Dir,
    /// The canonical root, used only to tell apart the reasons for a refusal the operating
    /// system already made (never to decide one, and never shown).
    root: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Workspace {
    /// Opens the workspace rooted at `root`, which must be an existing directory.
    ///
    /// # Errors
    /// When `root` cannot be resolved or is not a directory.
    pub fn open(root: impl AsRef<Path>) -> io::Result<Self> {
        let root = std::fs::canonicalize(root)?;
        if !std::fs::metadata(&root)?.is_dir() {
            return Err(io::Error::new(
                ErrorKind::NotADirectory,
                "the workspace root is not a directory",
            ));
        }
        let dir = Dir::open_ambient_dir(&root, ambient_authority())?;
        Ok(Workspace { dir, root })
    }

    /// Reads a UTF-8 text file of at most `max_bytes` bytes.
    ///
    /// # Errors
    /// A [`WorkspaceError`]: the path is refused, nothing is there, it is not a regular file,
    /// it is over the limit or not UTF-8.
    pub fn read_text(&self, path: &str, max_bytes: u64) -> Result<TextFile, WorkspaceError> {
        let rel = check_syntax(path)?;
        let file = self.open_file(&rel, path)?;
        let text = read_limited(file, path, max_bytes)?;
        Ok(TextFile {
            path: self.display(&rel),
            bytes: text.len() as u64,
            content: text,
        })
    }

    /// What a path names: a regular file, a folder, or nothing (`None`).
    ///
    /// # Errors
    /// A [`WorkspaceError`] for a path that is refused or names a special file.
    pub fn kind(&self, path: &str) -> Result<Option<EntryKind>, WorkspaceError> {
        let rel = check_syntax(path)?;
        match self.dir.metadata(&rel) {
            Ok(m) if m.is_dir() => Ok(Some(EntryKind::Folder)),
            Ok(m) if m.is_file() => Ok(Some(EntryKind::File)),
            Ok(_) => Err(WorkspaceError::NotAFile {
                path: path.to_string(),
                what: "a pipe, socket or device",
            }),
            Err(e) => match self.classify(path, &e) {
                WorkspaceError::NotFound { .. } => Ok(None),
                other => Err(other),
            },
        }
    }

    /// Lists a folder's entries in name order; links are listed, not followed.
    ///
    /// # Errors
    /// A [`WorkspaceError`] for a path that is refused, missing or not a folder.
    pub fn list(&self, path: &str) -> Result<Vec<Entry>, WorkspaceError> {
        let rel = check_syntax(path)?;
        let folder = self.open_folder(&rel, path)?;
        let base = self.display(&rel);
        let mut out = Vec::new();
        for entry in folder.entries().map_err(|_| unreadable(path))? {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            let (kind, bytes) = match entry.file_type() {
                Ok(t) if t.is_symlink() => (EntryKind::Link, 0),
                Ok(t) if t.is_dir() => (EntryKind::Folder, 0),
                Ok(t) if t.is_file() => (
                    EntryKind::File,
                    entry.metadata().map(|m| m.len()).unwrap_or(0),
                ),
                _ => (EntryKind::Special, 0),
            };
            out.push(Entry {
                path: join_display(&base, &name),
                kind,
                bytes,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Searches the text files under `path` (the whole workspace for `None`) for lines that
    /// contain `query`, ignoring case, in path order. Links are not followed; files that are not
    /// UTF-8, special files, hard-linked files and files over the limit are skipped.
    ///
    /// # Errors
    /// A [`WorkspaceError`] for a scope that is refused or missing.
    pub fn search(
        &self,
        path: Option<&str>,
        query: &str,
        limits: SearchLimits,
    ) -> Result<Vec<Match>, WorkspaceError> {
        let needle = query.to_lowercase();
        let mut out = Vec::new();
        let Some(path) = path else {
            let root = self.dir.try_clone().map_err(|_| unreadable("."))?;
            search_folder(&root, ".", &needle, limits, 0, &mut out);
            return Ok(out);
        };
        let rel = check_syntax(path)?;
        match self.kind(path)? {
            Some(EntryKind::Folder) => {
                let folder = self.open_folder(&rel, path)?;
                search_folder(&folder, &self.display(&rel), &needle, limits, 0, &mut out);
            }
            Some(_) => {
                let file = self.open_file(&rel, path)?;
                search_file(file, &self.display(&rel), &needle, limits, &mut out);
            }
            None => {
                return Err(WorkspaceError::NotFound {
                    path: path.to_string(),
                })
            }
        }
        Ok(out)
    }

    /// Checks where a write of `path` would go without writing: the same refusals as
    /// [`Workspace::write_text`], so a person is never asked to approve a write the boundary
    /// refuses anyway. Returns whether the file would be created.
    ///
    /// # Errors
    /// A [`WorkspaceError`] for a path that is refused, a missing folder or a special file.
    pub fn check_write(&self, path: &str) -> Result<bool, WorkspaceError> {
        self.write_target(path).map(|t| !t.exists)
    }

    /// Writes `content` to a file atomically: into a new temporary file beside it, synced, then
    /// renamed over the target, so a reader sees the old text or the new, never a mix. The
    /// target's folder must exist.
    ///
    /// # Errors
    /// A [`WorkspaceError`] for a path that is refused, a missing folder, a special file, or a
    /// failed write (the temporary file is removed).
    pub fn write_text(&self, path: &str, content: &str) -> Result<Written, WorkspaceError> {
        let target = self.write_target(path)?;
        let failed = || WorkspaceError::WriteFailed {
            path: path.to_string(),
        };
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(&target.name);
        tmp_name.push(format!(".{}.{n}.tmp", std::process::id()));
        let mut options = OpenOptions::new();
        // create_new: O_CREAT | O_EXCL, so a link planted under the temporary name is not followed.
        options.write(true).create_new(true);
        let mut file = target
            .folder
            .open_with(&tmp_name, &options)
            .map_err(|_| failed())?;
        let written = file
            .write_all(content.as_bytes())
            .and_then(|()| file.sync_all());
        drop(file);
        if written.is_err() {
            let _ = target.folder.remove_file(&tmp_name);
            return Err(failed());
        }
        if target
            .folder
            .rename(&tmp_name, &target.folder, &target.name)
            .is_err()
        {
            let _ = target.folder.remove_file(&tmp_name);
            return Err(failed());
        }
        let rel = target.folder_rel.join(&target.name);
        Ok(Written {
            path: self.display(&rel),
            bytes_written: content.len() as u64,
            created: !target.exists,
        })
    }

    fn write_target(&self, path: &str) -> Result<WriteTarget, WorkspaceError> {
        let mut rel = check_syntax(path)?;
        // A link to a file inside the root is written through: the write goes to its target.
        if let Ok(m) = self.dir.symlink_metadata(&rel) {
            if m.file_type().is_symlink() {
                rel = match self.dir.canonicalize(&rel) {
                    Ok(real) => real,
                    Err(e) => return Err(self.classify(path, &e)),
                };
            }
        }
        let name = match rel.components().next_back() {
            Some(Component::Normal(n)) => n.to_os_string(),
            // `.`, `notes/..`: a folder.
            _ => {
                return Err(WorkspaceError::NotAFile {
                    path: path.to_string(),
                    what: "a folder",
                })
            }
        };
        let folder_rel = rel
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let folder = match self.dir.open_dir(&folder_rel) {
            Ok(d) => d,
            Err(e) => {
                return Err(match self.classify(path, &e) {
                    WorkspaceError::NotFound { .. } | WorkspaceError::NotAFile { .. } => {
                        WorkspaceError::FolderNotFound {
                            path: path.to_string(),
                        }
                    }
                    other => other,
                })
            }
        };
        let exists = match folder.symlink_metadata(&name) {
            Ok(m) => {
                check_regular(&m, path)?;
                true
            }
            Err(e) if e.kind() == ErrorKind::NotFound => false,
            Err(e) => return Err(self.classify(path, &e)),
        };
        Ok(WriteTarget {
            folder,
            folder_rel,
            name,
            exists,
        })
    }

    /// Opens a regular file beneath the root without blocking (a FIFO does not wait for a
    /// writer) and checks what was opened.
    fn open_file(&self, rel: &Path, path: &str) -> Result<File, WorkspaceError> {
        let file = self
            .dir
            .open_with(rel, &read_options())
            .map_err(|e| self.classify(path, &e))?;
        let meta = file.metadata().map_err(|_| unreadable(path))?;
        check_regular(&meta, path)?;
        Ok(file)
    }

    fn open_folder(&self, rel: &Path, path: &str) -> Result<Dir, WorkspaceError> {
        match self.dir.open_dir(rel) {
            Ok(d) => Ok(d),
            Err(e) => Err(match self.classify(path, &e) {
                WorkspaceError::Unreadable { .. } if self.dir.is_file(rel) => {
                    WorkspaceError::NotAFolder {
                        path: path.to_string(),
                    }
                }
                other => other,
            }),
        }
    }

    /// `rel` with links resolved, relative to the root, `/`-separated (`.` for the root).
    fn display(&self, rel: &Path) -> String {
        let real = self
            .dir
            .canonicalize(rel)
            .unwrap_or_else(|_| rel.to_path_buf());
        let parts: Vec<String> = real
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts.is_empty() {
            ".".to_string()
        } else {
            parts.join("/")
        }
    }

    /// Tells apart the reasons for a refusal: the operating system already refused the open;
    /// this only picks the message, by resolving the path on the host the way it would have led.
    fn classify(&self, path: &str, e: &io::Error) -> WorkspaceError {
        let owned = || path.to_string();
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return WorkspaceError::Unresolvable { path: owned() };
        }
        let joined = self.root.join(path);
        match std::fs::canonicalize(&joined) {
            Ok(real) if !real.starts_with(&self.root) => WorkspaceError::Outside { path: owned() },
            Ok(real) => match std::fs::metadata(&real) {
                Ok(m) if m.is_dir() => WorkspaceError::NotAFile {
                    path: owned(),
                    what: "a folder",
                },
                Ok(m) if !m.is_file() => WorkspaceError::NotAFile {
                    path: owned(),
                    what: "a pipe, socket or device",
                },
                _ if e.kind() == ErrorKind::NotFound => WorkspaceError::NotFound { path: owned() },
                _ => unreadable(path),
            },
            Err(ce) if ce.kind() == ErrorKind::NotFound => {
                // Find the deepest ancestor that exists; a link on the way that exists but does
                // not resolve makes the path unresolvable, an ancestor outside makes it outside.
                let mut cur: &Path = &joined;
                loop {
                    if std::fs::symlink_metadata(cur).is_ok() {
                        return WorkspaceError::Unresolvable { path: owned() };
                    }
                    let Some(up) = cur.parent() else {
                        return WorkspaceError::Unresolvable { path: owned() };
                    };
                    match std::fs::canonicalize(up) {
                        Ok(real) if !real.starts_with(&self.root) => {
                            return WorkspaceError::Outside { path: owned() }
                        }
                        Ok(_) => return WorkspaceError::NotFound { path: owned() },
                        Err(e) if e.kind() == ErrorKind::NotFound => cur = up,
                        Err(e) if e.kind() == ErrorKind::NotADirectory => {
                            return WorkspaceError::NotFound { path: owned() }
                        }
                        Err(_) => return WorkspaceError::Unresolvable { path: owned() },
                    }
                }
            }
            Err(ce) if ce.kind() == ErrorKind::NotADirectory => {
                WorkspaceError::NotFound { path: owned() }
            }
            Err(_) => WorkspaceError::Unresolvable { path: owned() },
        }
    }
}

fn unreadable(path: &str) -> WorkspaceError {
    WorkspaceError::Unreadable {
        path: path.to_string(),
    }
}

fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options
}

/// A regular file with one link, or the refusal.
fn check_regular(meta: &Metadata, path: &str) -> Result<(), WorkspaceError> {
    if meta.is_dir() {
        return Err(WorkspaceError::NotAFile {
            path: path.to_string(),
            what: "a folder",
        });
    }
    if meta.file_type().is_symlink() {
        return Err(WorkspaceError::Unresolvable {
            path: path.to_string(),
        });
    }
    if !meta.is_file() {
        return Err(WorkspaceError::NotAFile {
            path: path.to_string(),
            what: "a pipe, socket or device",
        });
    }
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(WorkspaceError::HardLinked {
                path: path.to_string(),
            });
        }
    }
    Ok(())
}

/// Reads at most `limit` bytes of UTF-8 text.
fn read_limited(file: File, path: &str, limit: u64) -> Result<String, WorkspaceError> {
    let size = file.metadata().map_err(|_| unreadable(path))?.len();
    if size > limit {
        return Err(WorkspaceError::TooLarge {
            path: path.to_string(),
            bytes: size,
            limit,
        });
    }
    let mut raw = Vec::new();
    // At most one byte over the limit, in case the file grew since it was measured.
    file.take(limit + 1)
        .read_to_end(&mut raw)
        .map_err(|_| unreadable(path))?;
    if raw.len() as u64 > limit {
        return Err(WorkspaceError::TooLarge {
            path: path.to_string(),
            bytes: raw.len() as u64,
            limit,
        });
    }
    String::from_utf8(raw).map_err(|e| WorkspaceError::NotText {
        path: path.to_string(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Checks the text of a path before anything is opened: not empty, no NUL or control
/// character, no look-alike of a separator or a dot, not too long, relative, never above the
/// root. Returns it as a relative path with `.` components dropped.
fn check_syntax(path: &str) -> Result<PathBuf, WorkspaceError> {
    let invalid = |reason| WorkspaceError::InvalidPath {
        path: path.chars().take(200).collect(),
        reason,
    };
    if path.trim().is_empty() {
        return Err(WorkspaceError::EmptyPath);
    }
    if path.contains('\0') {
        return Err(invalid("contains a NUL character"));
    }
    if path.chars().any(char::is_control) {
        return Err(invalid("contains a control character"));
    }
    if path.contains(LOOK_ALIKES) {
        return Err(invalid(
            "contains a character that looks like \"/\", \"\\\" or \".\" but is not one",
        ));
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(invalid("is longer than 4096 bytes"));
    }
    let p = Path::new(path);
    if p.is_absolute() || p.has_root() || path.starts_with('\\') || path.contains(":\\") {
        return Err(WorkspaceError::AbsolutePath);
    }
    let mut depth = 0usize;
    let mut rel = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(name) => {
                if name.len() > MAX_NAME_BYTES {
                    return Err(invalid("has a name longer than 255 bytes"));
                }
                depth += 1;
                rel.push(name);
            }
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => {
                    depth = d;
                    rel.push("..");
                }
                None => {
                    return Err(WorkspaceError::Outside {
                        path: path.to_string(),
                    })
                }
            },
            Component::RootDir | Component::Prefix(_) => return Err(WorkspaceError::AbsolutePath),
        }
    }
    if rel.as_os_str().is_empty() {
        rel.push(".");
    }
    Ok(rel)
}

fn join_display(base: &str, name: &str) -> String {
    if base == "." {
        name.to_string()
    } else {
        format!("{base}/{name}")
    }
}

fn search_folder(
    folder: &Dir,
    shown: &str,
    needle: &str,
    limits: SearchLimits,
    depth: usize,
    out: &mut Vec<Match>,
) {
    if depth > MAX_SEARCH_DEPTH {
        return;
    }
    let Ok(entries) = folder.entries() else {
        return;
    };
    let mut names: Vec<(std::ffi::OsString, cap_std::fs::FileType)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_type().ok().map(|t| (e.file_name(), t)))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in names {
        if out.len() >= limits.max_matches {
            return;
        }
        let child = join_display(shown, &name.to_string_lossy());
        // Links are not followed: a link could lead outside the root.
        if kind.is_dir() {
            // Opened beneath `folder`: a folder swapped for a link since it was listed cannot
            // lead out of it.
            if let Ok(sub) = folder.open_dir(&name) {
                search_folder(&sub, &child, needle, limits, depth + 1, out);
            }
        } else if kind.is_file() {
            if let Ok(file) = folder.open_with(&name, &read_options()) {
                search_file(file, &child, needle, limits, out);
            }
        }
    }
}

fn search_file(file: File, shown: &str, needle: &str, limits: SearchLimits, out: &mut Vec<Match>) {
    let Ok(meta) = file.metadata() else { return };
    if check_regular(&meta, shown).is_err() {
        return;
    }
    let Ok(text) = read_limited(file, shown, limits.max_file_bytes) else {
        return; // over the limit, or not UTF-8 text
    };
    for (i, line) in text.lines().enumerate() {
        if out.len() >= limits.max_matches {
            return;
        }
        if line.to_lowercase().contains(needle) {
            out.push(Match {
                path: shown.to_string(),
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                text: line.trim().chars().take(200).collect(),
            });
        }
    }
}
