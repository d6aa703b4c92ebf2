//! The `workspace` tools: read, search and write UTF-8 text files inside one root directory.
//!
//! The root is injected by the host ([`Workspace`]), never supplied by the model. Every path the
//! model gives is resolved on the file system (symbolic links followed) and the result is compared
//! with the canonical root component by component (`Path::starts_with`), never as a string prefix.
//! Messages name the path the model gave, never the host path of the root.

use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use toolsmith::approval::Approver;
use toolsmith::{model, tool, BuildError, Hooks, ToolError, Toolbox};

/// The largest file `read_file` reads without `max_bytes`.
pub const DEFAULT_MAX_BYTES: u32 = 8_000;
/// Files larger than this are skipped by `search_text`.
pub const SEARCH_FILE_LIMIT: u64 = 1_000_000;
/// At most this many matches are collected by one search.
pub const SEARCH_MATCH_LIMIT: usize = 5_000;

/// The directory the tools may touch; injected by the host, never supplied by the model.
#[derive(Debug)]
pub struct Workspace {
    /// The canonical (fully resolved) root.
    root: PathBuf,
}

impl Workspace {
    /// A workspace rooted at `root`, which must be an existing directory.
    ///
    /// # Errors
    /// When `root` cannot be resolved or is not a directory.
    pub fn open(root: impl AsRef<Path>) -> std::io::Result<Self> {
        let root = fs::canonicalize(root)?;
        if !fs::metadata(&root)?.is_dir() {
            return Err(std::io::Error::new(
                ErrorKind::NotADirectory,
                "the workspace root is not a directory",
            ));
        }
        Ok(Workspace { root })
    }

    /// `real` (canonical, inside the root) relative to the root, with `/` separators.
    fn display(&self, real: &Path) -> String {
        let rel = real.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            ".".to_string()
        } else {
            parts.join("/")
        }
    }
}

/// What a model-supplied path resolved to.
#[derive(Debug)]
enum Resolved {
    /// An existing regular file inside the root.
    File(PathBuf),
    /// An existing directory inside the root.
    Dir(PathBuf),
    /// Nothing exists there. `parent` is the canonical directory that would hold it, when that
    /// directory exists (inside the root); `name` is the last component.
    Missing {
        parent: Option<PathBuf>,
        name: Option<std::ffi::OsString>,
    },
}

fn outside(path: &str) -> ToolError {
    ToolError::denied(
        "OUTSIDE_WORKSPACE",
        format!(
            "{path:?} leads outside the workspace. Paths are relative to the workspace root and \
             stay inside it: no \"..\" above the root, no links that lead out. Retrying will not help."
        ),
    )
}

fn unresolvable(path: &str) -> ToolError {
    ToolError::denied(
        "UNRESOLVABLE_PATH",
        format!(
            "{path:?} cannot be resolved inside the workspace (a symbolic link that loops or \
             points nowhere). Retrying will not help."
        ),
    )
}

fn not_a_file(path: &str, what: &str) -> ToolError {
    ToolError::denied(
        "NOT_A_FILE",
        format!("{path:?} is {what}, not a regular file; these tools read and write regular text files only."),
    )
}

/// Checks the text of a path: not empty, no NUL, relative, never above the root.
fn check_syntax(path: &str) -> Result<(), ToolError> {
    if path.trim().is_empty() {
        return Err(ToolError::invalid_input(
            "EMPTY_PATH",
            "\"path\" is empty. Give a path relative to the workspace root, e.g. \"notes/todo.md\".",
        ));
    }
    if path.contains('\0') {
        // A NUL byte is never a typo: it truncates the path where the system reads it, a way
        // past the boundary checks. Refused as the boundary refuses, not as bad input.
        return Err(ToolError::denied(
            "INVALID_PATH",
            "\"path\" contains a NUL character, which no workspace path has. Give a path relative to the workspace root, e.g. \"notes/todo.md\". Retrying will not help.",
        ));
    }
    let p = Path::new(path);
    if p.is_absolute() || p.has_root() || path.starts_with('\\') {
        return Err(ToolError::denied(
            "ABSOLUTE_PATH",
            // An absolute path is not echoed: it may name host directories.
            "The path is absolute. Only paths relative to the workspace root are accepted, e.g. \
             \"notes/todo.md\".",
        ));
    }
    let mut depth = 0usize;
    for c in p.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Err(outside(path)),
            },
            Component::RootDir | Component::Prefix(_) => return Err(ToolError::denied(
                "ABSOLUTE_PATH",
                "The path is absolute. Only paths relative to the workspace root are accepted, \
                     e.g. \"notes/todo.md\".",
            )),
        }
    }
    Ok(())
}

/// Resolves a model-supplied path inside the workspace.
fn resolve(ws: &Workspace, path: &str) -> Result<Resolved, ToolError> {
    check_syntax(path)?;
    let joined = ws.root.join(path);
    match fs::canonicalize(&joined) {
        Ok(real) => {
            if !real.starts_with(&ws.root) {
                return Err(outside(path));
            }
            let meta = fs::metadata(&real).map_err(|_| unresolvable(path))?;
            if meta.is_file() {
                Ok(Resolved::File(real))
            } else if meta.is_dir() {
                Ok(Resolved::Dir(real))
            } else {
                Err(not_a_file(path, "a pipe, socket or device"))
            }
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // Find the deepest ancestor that exists; it must be inside the root. Anything on the
            // way that exists as a link but does not resolve is refused.
            let mut cur: &Path = &joined;
            let mut first = true;
            loop {
                if fs::symlink_metadata(cur).is_ok() {
                    return Err(unresolvable(path));
                }
                let Some(up) = cur.parent() else {
                    return Err(unresolvable(path));
                };
                match fs::canonicalize(up) {
                    Ok(real) => {
                        if !real.starts_with(&ws.root) {
                            return Err(outside(path));
                        }
                        let parent = (first && real.is_dir()).then_some(real);
                        let name = match joined.components().next_back() {
                            Some(Component::Normal(n)) => Some(n.to_os_string()),
                            _ => None,
                        };
                        return Ok(Resolved::Missing { parent, name });
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {
                        cur = up;
                        first = false;
                    }
                    Err(e) if e.kind() == ErrorKind::NotADirectory => {
                        return Ok(Resolved::Missing {
                            parent: None,
                            name: None,
                        })
                    }
                    Err(_) => return Err(unresolvable(path)),
                }
            }
        }
        Err(e) if e.kind() == ErrorKind::NotADirectory => Ok(Resolved::Missing {
            parent: None,
            name: None,
        }),
        Err(_) => Err(unresolvable(path)),
    }
}

fn not_found(path: &str) -> ToolError {
    ToolError::invalid_input(
        "NOT_FOUND",
        format!(
            "No file at {path:?} (checked relative to the workspace root). Check the spelling, or \
             find the file with search_text."
        ),
    )
}

/// One file's text.
#[model]
pub struct FileText {
    /// The path relative to the workspace root, e.g. "notes/todo.md".
    pub path: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The file's text.
    pub content: String,
}

/// Reads one UTF-8 text file inside the workspace. Returns its path, size in bytes and text.
#[tool(read_only, title = "Read file", output_budget = 10000)]
pub fn read_file(
    /// Path relative to the workspace root, e.g. "notes/todo.md".
    #[arg(min_length = 1, max_length = 4096)]
    path: String,
    /// Largest file size to read, in bytes, 1 to 200000. Default 8000.
    #[arg(minimum = 1, maximum = 200000)]
    max_bytes: Option<u32>,
    #[context] ws: &Workspace,
) -> Result<FileText, ToolError> {
    let limit = u64::from(max_bytes.unwrap_or(DEFAULT_MAX_BYTES));
    let real = match resolve(ws, &path)? {
        Resolved::File(real) => real,
        Resolved::Dir(_) => return Err(not_a_file(&path, "a folder")),
        Resolved::Missing { .. } => return Err(not_found(&path)),
    };
    let size = fs::metadata(&real).map_err(|_| not_found(&path))?.len();
    if size > limit {
        return Err(ToolError::refused(
            "FILE_TOO_LARGE",
            format!(
                "{path:?} is {size} bytes, over the limit of {limit}. Pass a larger max_bytes (up \
                 to 200000), or find the lines you need with search_text."
            ),
        )
        .with_details(serde_json::json!({ "bytes": size, "max_bytes": limit })));
    }
    let mut file = fs::File::open(&real).map_err(|_| {
        ToolError::failed(
            "UNREADABLE",
            format!(
                "{path:?} could not be opened for reading. Tell the user the file is not readable."
            ),
        )
    })?;
    let mut raw = Vec::new();
    // Read at most one byte over the limit, in case the file grew since it was measured.
    (&mut file)
        .take(limit + 1)
        .read_to_end(&mut raw)
        .map_err(|_| {
            ToolError::failed(
                "UNREADABLE",
                format!("{path:?} could not be read. Tell the user the file is not readable."),
            )
        })?;
    if raw.len() as u64 > limit {
        return Err(ToolError::refused(
            "FILE_TOO_LARGE",
            format!("{path:?} is over the limit of {limit} bytes. Pass a larger max_bytes (up to 200000)."),
        ));
    }
    let content = String::from_utf8(raw).map_err(|e| {
        ToolError::failed(
            "NOT_TEXT",
            format!(
                "{path:?} is not UTF-8 text (the first invalid byte is at offset {}); it may be a \
                 binary file. read_file reads text files only.",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(FileText {
        path: ws.display(&real),
        bytes: content.len() as u64,
        content,
    })
}

/// One line that contains the query.
#[model]
pub struct TextMatch {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The line number, starting at 1.
    pub line: u32,
    /// The line's text, cut to 200 characters.
    pub text: String,
}

fn collect_matches(ws: &Workspace, dir: &Path, needle: &str, out: &mut Vec<TextMatch>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if out.len() >= SEARCH_MATCH_LIMIT {
            return;
        }
        // Links are not followed: a link could lead outside the root.
        let Ok(meta) = fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            collect_matches(ws, &p, needle, out);
        } else if meta.is_file() {
            search_file(ws, &p, meta.len(), needle, out);
        }
    }
}

fn search_file(ws: &Workspace, file: &Path, size: u64, needle: &str, out: &mut Vec<TextMatch>) {
    if size > SEARCH_FILE_LIMIT {
        return;
    }
    let Ok(text) = fs::read_to_string(file) else {
        return; // not UTF-8 text
    };
    let shown = ws.display(file);
    for (i, line) in text.lines().enumerate() {
        if out.len() >= SEARCH_MATCH_LIMIT {
            return;
        }
        if line.to_lowercase().contains(needle) {
            out.push(TextMatch {
                path: shown.clone(),
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                text: line.trim().chars().take(200).collect(),
            });
        }
    }
}

/// Searches the text files of the workspace for lines containing the query, ignoring case.
/// Returns the matching lines with file path and line number, in path order, a page at a time.
#[tool(read_only, title = "Search text")]
pub fn search_text(
    /// Text to look for, e.g. "TODO". Case is ignored.
    #[arg(min_length = 1, max_length = 200)]
    query: String,
    /// Folder or file to search, relative to the workspace root, e.g. "notes". Default: the whole workspace.
    #[arg(min_length = 1, max_length = 4096)]
    path: Option<String>,
    /// The cursor from a previous result of the same search, to get its next page.
    cursor: Option<String>,
    #[context] ws: &Workspace,
) -> Result<Vec<TextMatch>, ToolError> {
    // The toolbox serves later pages; the tool always computes the whole result.
    let _ = cursor;
    let needle = query.to_lowercase();
    let mut out = Vec::new();
    let scope = match &path {
        None => {
            collect_matches(ws, &ws.root, &needle, &mut out);
            "the workspace".to_string()
        }
        Some(p) => {
            match resolve(ws, p)? {
                Resolved::Dir(real) => collect_matches(ws, &real, &needle, &mut out),
                Resolved::File(real) => {
                    let size = fs::metadata(&real).map(|m| m.len()).unwrap_or(u64::MAX);
                    search_file(ws, &real, size, &needle, &mut out);
                }
                Resolved::Missing { .. } => {
                    return Err(ToolError::invalid_input(
                        "NOT_FOUND",
                        format!("Nothing exists at {p:?} (checked relative to the workspace root). Leave out path to search the whole workspace."),
                    ))
                }
            }
            format!("{p:?}")
        }
    };
    if out.is_empty() {
        return Err(ToolError::empty(format!(
            "No line in {scope} contains {query:?}. Try a shorter or different word, or leave \
             out path to search the whole workspace."
        )));
    }
    Ok(out)
}

/// Where a write goes: the canonical target inside the root, and whether it will be created.
fn write_target(ws: &Workspace, path: &str) -> Result<(PathBuf, bool), ToolError> {
    match resolve(ws, path)? {
        Resolved::File(real) => Ok((real, false)),
        Resolved::Dir(_) => Err(not_a_file(path, "a folder")),
        Resolved::Missing {
            parent: Some(parent),
            name: Some(name),
        } => Ok((parent.join(name), true)),
        Resolved::Missing { .. } => Err(ToolError::invalid_input(
            "FOLDER_NOT_FOUND",
            format!(
                "The folder of {path:?} does not exist in the workspace. Write into an existing \
                 folder; search_text with a folder path shows what exists."
            ),
        )),
    }
}

/// What a write did.
#[model]
pub struct Written {
    /// The path relative to the workspace root.
    pub path: String,
    /// Bytes written.
    pub bytes_written: u64,
    /// Whether the file was created (false: an existing file was replaced).
    pub created: bool,
}

/// Writes a UTF-8 text file inside the workspace, replacing any existing file at that path, after a
/// person approves the exact change. Returns the path, bytes written and whether it was created.
#[tool(
    writes,
    requires_approval,
    idempotent,
    idempotency_key(path, content),
    title = "Write file"
)]
pub fn write_file(
    /// Path relative to the workspace root, e.g. "notes/todo.md". Its folder must exist.
    #[arg(min_length = 1, max_length = 4096)]
    path: String,
    /// The complete new text of the file.
    #[arg(max_length = 200000)]
    content: String,
    #[context] ws: &Workspace,
) -> Result<Written, ToolError> {
    let (target, created) = write_target(ws, &path)?;
    fs::write(&target, content.as_bytes()).map_err(|_| {
        ToolError::failed(
            "WRITE_FAILED",
            format!("{path:?} could not be written. Tell the user the file could not be saved."),
        )
    })?;
    Ok(Written {
        path: ws.display(&target),
        bytes_written: content.len() as u64,
        created,
    })
}

/// A before-hook that checks a write's path before anyone is asked to approve it, so a person
/// never approves a change the boundary refuses anyway. `write_file` checks again when it runs.
pub fn boundary_hooks(ws: Arc<Workspace>) -> Hooks {
    Hooks::new().before(move |call| {
        if call.tool == "write_file" {
            let path = call.arguments["path"].as_str().unwrap_or_default();
            write_target(&ws, path)?;
        }
        Ok(())
    })
}

/// The workspace toolbox: the three tools, the workspace, the boundary hook and the approver
/// asked before writes.
///
/// # Errors
/// When the toolbox cannot be built (it can: the tools and context are complete).
pub fn toolbox(workspace: Workspace, approver: Arc<dyn Approver>) -> Result<Toolbox, BuildError> {
    let ws = Arc::new(workspace);
    Toolbox::builder()
        .tool(read_file::tool())
        .tool(search_text::tool())
        .tool(write_file::tool())
        .shared_context(Arc::clone(&ws))
        .hooks(boundary_hooks(ws))
        .shared_approver(approver)
        .build()
}

/// The specs of the workspace tools, for lint and export checks without a workspace.
pub fn tools() -> Vec<toolsmith::Tool> {
    vec![read_file::tool(), search_text::tool(), write_file::tool()]
}
