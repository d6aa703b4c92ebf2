//! The `workspace` tools: read, search and write UTF-8 text files inside one root directory.
//!
//! The root is injected by the host ([`Workspace`], toolsmith's hardened workspace), never
//! supplied by the model. Every path the model gives is opened beneath the root's handle by the
//! operating system (`openat2` with `RESOLVE_BENEATH` on Linux), so `..`, absolute paths and links
//! that lead out are refused at the open itself, even for a file swapped for a link after a check.
//! Messages name the path the model gave, never the host path of the root.

use std::sync::Arc;
use toolsmith::workspace::{SearchLimits, WorkspaceError};
use toolsmith::Approver;
use toolsmith::{codes, model, tool, BuildError, Hooks, ToolError, Toolbox};

pub use toolsmith::workspace::Workspace;

/// The largest file `read_file` reads without `max_bytes`.
pub const DEFAULT_MAX_BYTES: u32 = 8_000;
/// Files larger than this are skipped by `search_text`.
pub const SEARCH_FILE_LIMIT: u64 = 1_000_000;
/// At most this many matches are collected by one search.
pub const SEARCH_MATCH_LIMIT: usize = 5_000;

/// The workspace's refusal, with the next step these tools offer.
fn with_hint(e: WorkspaceError) -> ToolError {
    match e {
        WorkspaceError::NotFound { path } => ToolError::invalid_input(
            codes::NOT_FOUND,
            format!(
                "No file at {path:?} (checked relative to the workspace root). Check the spelling, or \
                 find the file with search_text."
            ),
        ),
        WorkspaceError::TooLarge { path, bytes, limit } => ToolError::refused(
            codes::FILE_TOO_LARGE,
            format!(
                "{path:?} is {bytes} bytes, over the limit of {limit}. Pass a larger max_bytes (up \
                 to 200000), or find the lines you need with search_text."
            ),
        )
        .with_details(serde_json::json!({ "bytes": bytes, "max_bytes": limit })),
        WorkspaceError::NotText { path, offset } => ToolError::failed(
            codes::NOT_TEXT,
            format!(
                "{path:?} is not UTF-8 text (the first invalid byte is at offset {offset}); it may be a \
                 binary file. read_file reads text files only."
            ),
        ),
        WorkspaceError::FolderNotFound { path } => ToolError::invalid_input(
            codes::FOLDER_NOT_FOUND,
            format!(
                "The folder of {path:?} does not exist in the workspace. Write into an existing \
                 folder; search_text with a folder path shows what exists."
            ),
        ),
        other => other.into(),
    }
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
    let file = ws.read_text(&path, limit).map_err(with_hint)?;
    Ok(FileText {
        path: file.path,
        bytes: file.bytes,
        content: file.content,
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
    let limits = SearchLimits::default()
        .with_max_file_bytes(SEARCH_FILE_LIMIT)
        .with_max_matches(SEARCH_MATCH_LIMIT);
    let found = ws.search(path.as_deref(), &query, limits).map_err(|e| match e {
        WorkspaceError::NotFound { path } => ToolError::invalid_input(
            codes::NOT_FOUND,
            format!("Nothing exists at {path:?} (checked relative to the workspace root). Leave out path to search the whole workspace."),
        ),
        other => with_hint(other),
    })?;
    let scope = match &path {
        None => "the workspace".to_string(),
        Some(p) => format!("{p:?}"),
    };
    let out: Vec<TextMatch> = found
        .into_iter()
        .map(|m| TextMatch {
            path: m.path,
            line: m.line,
            text: m.text,
        })
        .collect();
    if out.is_empty() {
        return Err(ToolError::empty(format!(
            "No line in {scope} contains {query:?}. Try a shorter or different word, or leave \
             out path to search the whole workspace."
        )));
    }
    Ok(out)
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
    let written = ws.write_text(&path, &content).map_err(with_hint)?;
    Ok(Written {
        path: written.path,
        bytes_written: written.bytes_written,
        created: written.created,
    })
}

/// A before-hook that checks a write's path before anyone is asked to approve it, so a person
/// never approves a change the boundary refuses anyway. `write_file` checks again when it runs.
pub fn boundary_hooks(ws: Arc<Workspace>) -> Hooks {
    Hooks::new().before(move |call| {
        if call.tool == "write_file" {
            let path = call.arguments["path"].as_str().unwrap_or_default();
            ws.check_write(path).map_err(with_hint)?;
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
