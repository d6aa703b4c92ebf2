//! The stable codes the runtime puts in an envelope's `code`, one constant each.
//!
//! A code names *why* a call ended as it did; the [`Status`] says *who acts next*. Codes are
//! stable: an agent, a host or a test may match on them, and a new release does not rename one.
//! Tools add codes of their own (`ToolError::refused("OUT_OF_STOCK", ...)`); the ones below are
//! those toolsmith itself returns, and [`ALL`] lists each with the status it comes with. The
//! calling guide's code table (`src/docs/guide/calling.md`) is checked against [`ALL`] by a test, both ways.
//!
//! | code | status | when | next step |
//! |---|---|---|---|
//! | [`INVALID_ARGUMENT`] | `invalid_input` | an argument breaks its schema | the agent fixes the named argument |
//! | [`MISSING_ARGUMENT`] | `invalid_input` | a required parameter is absent | the agent provides it |
//! | [`UNKNOWN_ARGUMENT`] | `invalid_input` | a parameter the tool does not have | the agent drops or renames it |
//! | [`INVALID_INPUT`] | `invalid_input` | the arguments are not one JSON object | the agent sends one object |
//! | [`ARGUMENTS_TOO_LARGE`] | `invalid_input` | the arguments pass the host's size limit | the agent sends less or splits the work |
//! | [`ARGUMENTS_TOO_DEEP`] | `invalid_input` | the arguments nest deeper than the limit | the agent sends flatter data |
//! | [`UNKNOWN_TOOL`] | `invalid_input` | no tool has the name | the agent calls one of the listed tools |
//! | [`TOOL_RETIRED`] | `invalid_input` | the tool was deregistered, or retired after its deprecation window | the agent calls the replacement the message names, or one of the listed tools |
//! | [`INVALID_CURSOR`] | `invalid_input` | the cursor was edited or is another request's | the agent passes the cursor as given, or none |
//! | [`IDEMPOTENCY_KEY_REUSED`] | `invalid_input` | a key already used with other arguments | the agent sends a new key |
//! | [`EMPTY`] | `empty` | a tool found nothing (`ToolError::empty`) | the agent changes the query or accepts it |
//! | [`NEEDS_INPUT`] | `needs_input` | a tool lacks what only the user knows | the agent asks the user for `missing` |
//! | [`DUPLICATE`] | `refused` | a repeat of a completed write within the window | the agent uses the original result |
//! | [`IN_PROGRESS`] | `refused` | an identical write is still running | the agent waits `retry_after`, then calls again |
//! | [`OUTCOME_UNKNOWN`] | `refused` | an identical write stopped before it reported | the agent checks the state or asks the user |
//! | [`PAGE_EXPIRED`] | `refused` | a later page of a write whose result is gone | the agent uses the pages shown |
//! | [`POLICY_DENIED`] | `denied` | the caller may not have the tool's effects | the agent stops; the host decides the policy |
//! | [`APPROVAL_UNAVAILABLE`] | `denied` | an approval is required and no approver is set | the host sets an approver |
//! | [`APPROVAL_TIMEOUT`] | `denied` | no one approved within the approval timeout | the agent tells the user; calls again if asked |
//! | [`CANCELLED_BY_USER`] | `cancelled_by_user` | the user declined the call, or a tool's question | the agent stops |
//! | [`QUESTION_DISMISSED`] | `cancelled_by_user` | the user dismissed a tool's question without answering | the agent stops; asks again only if the user wants |
//! | [`IDEMPOTENCY_UNAVAILABLE`] | `temporary_failure` | the record store cannot be read | the agent waits `retry_after`, then calls again |
//! | [`TOOLS_BUSY`] | `temporary_failure` | no tool thread freed within the call's timeout; the tool did not run | the agent waits `retry_after`, then calls again |
//! | [`INTERNAL`] | `failed` | the tool panicked | the agent tells the user; the host reads the audit |
//! | [`APPROVER_FAILED`] | `failed` | the host's approver panicked | the host fixes its approver |
//! | [`NOT_CONFIGURED`] | `failed` | a `#[context]` value is missing | the host provides it |
//! | [`OUTPUT_NOT_ENCODABLE`] | `failed` | the result could not be encoded as JSON, or nests deeper than 100 levels | the tool's author fixes the output type |
//! | [`OUTPUT_CONTRACT`] | `failed` | when checked (by default in debug builds): the result breaks the output schema | the tool's author fixes the tool |
//! | [`CONTENT_TOO_LARGE`] | `failed` | a tool's content blocks (images, audio, resources) pass the host's byte limit | the tool's author returns less (a link instead), or the host raises the limit |
//! | [`CLIENT_UNSUPPORTED`] | `failed` | the tool asked the client for something it cannot do (no sampling, no client) | the agent tells the user the tool cannot run here |
//! | [`CLIENT_REJECTED`] | `failed` | the client answered the tool's request with an error | the agent tells the user |
//! | [`CLIENT_CLOSED`] | `failed` | the connection to the client closed while the tool waited for it | the host reads the audit record |
//! | [`CLIENT_TIMEOUT`] | `failed` | the client did not answer the tool's request within the host's bound | the agent tells the user; calls again if they want to answer |
//! | [`INVALID_ANSWER`] | `failed` | the client's answer does not fit what the tool asked | the agent tells the user; calls again if asked |
//! | [`INVALID_QUESTION`] | `failed` | the tool asked a question no form can show (a nested or list field) | the tool's author fixes the question |
//! | [`TIMEOUT`] | `timeout` | the tool ran past its time limit | the agent repeats only an idempotent or read-only tool |
//! | [`CANCELLED`] | none (audit only) | the host dropped the call before it ended | the host reads the audit record |
//! | [`EMPTY_PATH`] | `invalid_input` | workspace: the path is empty | the agent gives a relative path |
//! | [`NOT_FOUND`] | `invalid_input` | workspace: nothing exists at the path | the agent checks the spelling |
//! | [`NOT_A_FOLDER`] | `invalid_input` | workspace: a file where a folder is needed | the agent names a folder |
//! | [`FOLDER_NOT_FOUND`] | `invalid_input` | workspace: the folder to write into is absent | the agent writes into an existing folder |
//! | [`FILE_TOO_LARGE`] | `refused` | workspace: the file is over the size limit | the agent reads less, or the user decides |
//! | [`INVALID_PATH`] | `denied` | workspace: a NUL, control character or look-alike | the agent stops using the path |
//! | [`ABSOLUTE_PATH`] | `denied` | workspace: the path is absolute | the agent gives a relative path |
//! | [`OUTSIDE_WORKSPACE`] | `denied` | workspace: the path leads outside the root | the agent stays inside the root |
//! | [`UNRESOLVABLE_PATH`] | `denied` | workspace: a link loops or points nowhere | the agent stops using the path |
//! | [`NOT_A_FILE`] | `denied` | workspace: a folder or special file where a file is needed | the agent names a regular file |
//! | [`HARD_LINKED`] | `denied` | workspace: the file has other hard links | the agent stops using the path |
//! | [`NOT_TEXT`] | `failed` | workspace: the file is not UTF-8 text | the agent reads another file |
//! | [`UNREADABLE`] | `failed` | workspace: the file could not be read | the agent tells the user |
//! | [`WRITE_FAILED`] | `failed` | workspace: the file could not be written | the agent tells the user |
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! use toolsmith::{codes, Status, ToolError};
//! let e = ToolError::refused(codes::DUPLICATE, "An identical ticket was opened an hour ago.");
//! assert_eq!(e.code(), "DUPLICATE");
//! assert_eq!(codes::status_of(codes::DUPLICATE), Some(Status::Refused));
//! ```

use crate::envelope::Status;

/// An argument breaks its schema (type, bounds, length, pattern, format, enum, ...), or the
/// validated arguments could not be decoded.
///
/// Status `invalid_input`. The message names the argument by path and quotes its description;
/// the agent fixes it and calls again. With several errors, the first one's code is the
/// envelope's and `data.errors` lists them all.
pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";

/// A required parameter is absent.
///
/// Status `invalid_input`. The agent provides the named parameter and calls again.
pub const MISSING_ARGUMENT: &str = "MISSING_ARGUMENT";

/// A parameter the tool does not have (its schema is closed).
///
/// Status `invalid_input`. The agent drops or renames it; the message lists the parameters.
pub const UNKNOWN_ARGUMENT: &str = "UNKNOWN_ARGUMENT";

/// The arguments are not valid JSON, or not a JSON object.
///
/// Status `invalid_input`. The agent sends one JSON object of the tool's parameters.
pub const INVALID_INPUT: &str = "INVALID_INPUT";

/// The arguments are longer than the host's limit, measured before they are parsed (or
/// estimated for parsed arguments).
///
/// Status `invalid_input`. The agent sends less (shorter text, fewer items) or splits the work
/// into several calls; the host may raise the limit.
pub const ARGUMENTS_TOO_LARGE: &str = "ARGUMENTS_TOO_LARGE";

/// The arguments nest arrays and objects deeper than
/// 128 levels.
///
/// Status `invalid_input`. The agent sends flatter data.
pub const ARGUMENTS_TOO_DEEP: &str = "ARGUMENTS_TOO_DEEP";

/// No tool has the name called (or none this caller may call).
///
/// Status `invalid_input` (a JSON-RPC error over MCP). The agent calls one of the tools the
/// message lists.
pub const UNKNOWN_TOOL: &str = "UNKNOWN_TOOL";

/// The tool was deregistered, or retired when its deprecation window ended
/// ([`ToolboxBuilder::retire_at`](crate::ToolboxBuilder::retire_at)), and can no longer be
/// called; the tool did not run.
///
/// Status `invalid_input` (a JSON-RPC error over MCP): the model acts next. For a retired
/// deprecated tool the message names the tool that replaces it, with its description (the
/// first one along the chain of replacements still listed that the caller may call); otherwise
/// it lists the tools the caller may call.
pub const TOOL_RETIRED: &str = "TOOL_RETIRED";

/// The cursor is not one this tool returned (edited or cut), or it belongs to a request with
/// other arguments.
///
/// Status `invalid_input`. The agent passes the cursor exactly as the previous result gave it,
/// with the same arguments, or leaves it out to start from the first page.
pub const INVALID_CURSOR: &str = "INVALID_CURSOR";

/// An idempotency key was already used for a call with other arguments; the call did not run.
///
/// Status `invalid_input`. The agent sends a new key for a new request, or repeats the earlier
/// request with exactly its arguments.
pub const IDEMPOTENCY_KEY_REUSED: &str = "IDEMPOTENCY_KEY_REUSED";

/// The default code of [`ToolError::empty`](crate::ToolError::empty): nothing matched.
///
/// Status `empty` (not an error). The agent changes the query or accepts there is nothing.
pub const EMPTY: &str = "EMPTY";

/// The default code of [`ToolError::needs_input`](crate::ToolError::needs_input): information
/// only the user has is missing.
///
/// Status `needs_input`. The agent asks the user for what `missing` lists, then calls again.
pub const NEEDS_INPUT: &str = "NEEDS_INPUT";

/// A repeat of a completed write within the idempotency window; it did not run again. The
/// original operation id and result come in `data`.
///
/// Status `refused`. The agent uses the original result; the user decides whether to do the
/// action again.
pub const DUPLICATE: &str = "DUPLICATE";

/// An identical write is still running; this call did not run.
///
/// Status `refused`, with `retry_after`. The agent waits, then calls again with the same
/// arguments to get the result.
pub const IN_PROGRESS: &str = "IN_PROGRESS";

/// An identical write was stopped before it reported, so whether it took effect is unknown;
/// this call did not run.
///
/// Status `refused`. The agent does not repeat it blindly: it checks the current state with a
/// tool that reads it, or asks the user.
pub const OUTCOME_UNKNOWN: &str = "OUTCOME_UNKNOWN";

/// A later page was asked of a write whose full result is no longer kept; the write was not run
/// again to show it.
///
/// Status `refused`. The agent uses the pages already shown, and runs the tool again only if the
/// user wants the action done again.
pub const PAGE_EXPIRED: &str = "PAGE_EXPIRED";

/// The caller may not use the tool's declared effects (the policy); the executor did not run.
///
/// Status `denied`. Retrying will not help: the agent tells the user; the host decides the
/// policy.
pub const POLICY_DENIED: &str = "POLICY_DENIED";

/// The tool requires approval and the host set no approver; the call did not run.
///
/// Status `denied`. The agent tells the user the action needs approval; the host sets an
/// [`Approver`](crate::Approver).
pub const APPROVAL_UNAVAILABLE: &str = "APPROVAL_UNAVAILABLE";

/// No one approved the call within the approval timeout; it did not run.
///
/// Status `denied`. The agent tells the user it needs their approval and calls again only if
/// asked.
pub const APPROVAL_TIMEOUT: &str = "APPROVAL_TIMEOUT";

/// The default code of
/// [`ToolError::cancelled_by_user`](crate::ToolError::cancelled_by_user), of a rejected
/// approval, and of a question the user declined to answer ([`Client::ask`](crate::Client::ask),
/// or the question the MCP server asks for the fields of a `needs_input`): the user declined.
///
/// Status `cancelled_by_user`. The agent stops, and does not retry unless the user asks.
pub const CANCELLED_BY_USER: &str = "CANCELLED_BY_USER";

/// The user dismissed a tool's question without answering or declining (MCP elicitation's
/// `cancel`: the dialog closed), from [`Client::ask`](crate::Client::ask) or the question the
/// MCP server asks for the fields of a `needs_input`.
///
/// Status `cancelled_by_user`. The agent stops; it calls again only if the user wants to
/// answer after all.
pub const QUESTION_DISMISSED: &str = "QUESTION_DISMISSED";

/// The host's record store cannot be read, so whether an identical write already ran is
/// unknown; the call did not run.
///
/// Status `temporary_failure`, with `retry_after`. The agent waits, then calls again with the
/// same arguments; the host restores its store.
pub const IDEMPOTENCY_UNAVAILABLE: &str = "IDEMPOTENCY_UNAVAILABLE";

/// Every one of the toolbox's tool threads stayed taken for the whole of the call's timeout
/// (tools that block hold them), so the tool did not run.
///
/// Status `temporary_failure`, with `retry_after`. The agent waits, then calls again with the
/// same arguments (the idempotency key is released); the host raises
/// `ToolboxBuilder::tool_threads` or fixes the tools that block (the audit record's detail
/// says how many threads tools past their timeout hold).
pub const TOOLS_BUSY: &str = "TOOLS_BUSY";

/// The tool panicked. The message is generic; the panic text goes to the audit only.
///
/// Status `failed`. The agent tells the user the action could not be done; the host reads the
/// audit record.
pub const INTERNAL: &str = "INTERNAL";

/// The host's approver panicked; the call did not run.
///
/// Status `failed`. The agent tells the user the action could not be confirmed; the host fixes
/// its approver (the fault sink and the audit record's detail have the panic's text, redacted in
/// the audit record).
pub const APPROVER_FAILED: &str = "APPROVER_FAILED";

/// A `#[context]` value the tool needs was not provided to the toolbox.
///
/// Status `failed`. The agent tells the user the tool is unavailable; the host provides the
/// value (`ToolboxBuilder::context`).
pub const NOT_CONFIGURED: &str = "NOT_CONFIGURED";

/// The tool's result could not be encoded as JSON (the action may have completed).
///
/// Status `failed`. The agent tells the user the result is unavailable; the tool's author fixes
/// the output type.
pub const OUTPUT_NOT_ENCODABLE: &str = "OUTPUT_NOT_ENCODABLE";

/// A tool's content blocks ([`crate::content`]: images, audio, embedded resources) are larger
/// than the toolbox sends (`ToolboxBuilder::max_content_bytes`, default 16 MiB of JSON); the
/// output budget does not cut content, so this limit bounds it instead.
///
/// Status `failed`. The agent tells the user the result is too large to show; the tool's author
/// returns less (a `ResourceLink` to the data instead of the data), or the host raises the limit.
pub const CONTENT_TOO_LARGE: &str = "CONTENT_TOO_LARGE";

/// Debug builds only: the tool's result does not match its declared output schema, so it is not
/// shown.
///
/// Status `failed`. The agent tells the user the tool is not working correctly; the tool's
/// author fixes the tool or its output type.
pub const OUTPUT_CONTRACT: &str = "OUTPUT_CONTRACT";

/// A tool asked the client for something it cannot do: a completion from a client without the
/// sampling capability, or any request when no client is connected to the call
/// ([`ClientError::Unsupported`](crate::ClientError::Unsupported)).
///
/// Status `failed`. Retrying will not help; the agent tells the user the tool cannot run with
/// this client.
pub const CLIENT_UNSUPPORTED: &str = "CLIENT_UNSUPPORTED";

/// The client answered a tool's request (a completion, a question) with an error of its own
/// ([`ClientError::Rejected`](crate::ClientError::Rejected)); the error code `-1`, MCP's "user
/// rejected", is `cancelled_by_user` instead.
///
/// Status `failed`. The agent does not retry blindly; it tells the user what the tool could not
/// do.
pub const CLIENT_REJECTED: &str = "CLIENT_REJECTED";

/// The connection to the client closed while a tool waited for its answer
/// ([`ClientError::Closed`](crate::ClientError::Closed)).
///
/// Status `failed`. Usually nobody is left to read it; the host reads the audit record.
pub const CLIENT_CLOSED: &str = "CLIENT_CLOSED";

/// The client did not answer a tool's request (a completion, a question) within the time the
/// host allows ([`ClientError::TimedOut`](crate::ClientError::TimedOut)); the request was
/// withdrawn.
///
/// Status `failed`. The agent tells the user; it calls again only if the user wants to answer.
pub const CLIENT_TIMEOUT: &str = "CLIENT_TIMEOUT";

/// The client's answer does not fit what the tool asked: a question's answer with a field of
/// the wrong type, out of bounds, not among the choices, missing or not asked for, or that does
/// not read into the tool's type; a completion that is not text.
///
/// Status `failed`. The agent tells the user; it calls again only if the user wants to answer
/// again.
pub const INVALID_ANSWER: &str = "INVALID_ANSWER";

/// A tool asked a question whose form MCP cannot show: a field that is a nested object, a list,
/// a union or any JSON value (the message names it), or a form that is not an object of fields
/// ([`QuestionError`](crate::QuestionError)).
///
/// Status `failed`. Retrying will not help; the tool's author changes the question's type to
/// flat fields of text, numbers, booleans or choices.
pub const INVALID_QUESTION: &str = "INVALID_QUESTION";

/// The default code of [`ToolError::timeout`](crate::ToolError::timeout), and of a tool stopped
/// at its time limit.
///
/// Status `timeout`. The agent repeats the call only when the tool is idempotent or read-only
/// (the message says which); otherwise it checks the state or asks the user.
pub const TIMEOUT: &str = "TIMEOUT";

/// The code of the audit record of a call whose future the host dropped before it finished. No
/// envelope carries it: nobody was left to receive one.
///
/// No status (the record has none). The host reads the record's `detail` to learn whether the
/// tool was running.
pub const CANCELLED: &str = "CANCELLED";

/// Workspace: the path is empty.
///
/// Status `invalid_input`. The agent gives a path relative to the workspace root.
pub const EMPTY_PATH: &str = "EMPTY_PATH";

/// Workspace: nothing exists at the path.
///
/// Status `invalid_input`. The agent checks the spelling, or finds the file another way.
pub const NOT_FOUND: &str = "NOT_FOUND";

/// Workspace: the path names a file where a folder is needed.
///
/// Status `invalid_input`. The agent names a folder.
pub const NOT_A_FOLDER: &str = "NOT_A_FOLDER";

/// Workspace: the folder a file would be written into does not exist.
///
/// Status `invalid_input`. The agent writes into an existing folder.
pub const FOLDER_NOT_FOUND: &str = "FOLDER_NOT_FOUND";

/// Workspace: the file is larger than the limit; `data` has `bytes` and `max_bytes`.
///
/// Status `refused`. The agent reads less (a larger limit where the tool allows it, or a search),
/// or the user decides.
pub const FILE_TOO_LARGE: &str = "FILE_TOO_LARGE";

/// Workspace: the path contains a NUL, a control character or a look-alike of `/`, `\` or `.`,
/// or is too long. Never a typo, so refused as the boundary refuses.
///
/// Status `denied`. Retrying will not help; the agent stops using the path.
pub const INVALID_PATH: &str = "INVALID_PATH";

/// Workspace: the path is absolute.
///
/// Status `denied`. The agent gives a path relative to the workspace root.
pub const ABSOLUTE_PATH: &str = "ABSOLUTE_PATH";

/// Workspace: the path leads outside the root (`..` above it, or a link that leads out).
///
/// Status `denied`. Retrying will not help; the agent stays inside the root.
pub const OUTSIDE_WORKSPACE: &str = "OUTSIDE_WORKSPACE";

/// Workspace: a symbolic link on the way loops or points nowhere.
///
/// Status `denied`. Retrying will not help; the agent stops using the path.
pub const UNRESOLVABLE_PATH: &str = "UNRESOLVABLE_PATH";

/// Workspace: the path names a folder or a special file where a regular file is needed.
///
/// Status `denied`. The agent names a regular text file.
pub const NOT_A_FILE: &str = "NOT_A_FILE";

/// Workspace: the file has more than one hard link, and another may lead outside the root.
///
/// Status `denied`. Retrying will not help; the agent stops using the path.
pub const HARD_LINKED: &str = "HARD_LINKED";

/// Workspace: the file is not UTF-8 text.
///
/// Status `failed`. The agent reads another file; text tools read text files only.
pub const NOT_TEXT: &str = "NOT_TEXT";

/// Workspace: the file exists but could not be read.
///
/// Status `failed`. The agent tells the user the file is not readable.
pub const UNREADABLE: &str = "UNREADABLE";

/// Workspace: the file could not be written.
///
/// Status `failed`. The agent tells the user the file could not be saved.
pub const WRITE_FAILED: &str = "WRITE_FAILED";

/// A stable code and the envelope status it comes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Code {
    /// The code, as the envelope's `code` carries it.
    pub code: &'static str,
    /// The status it comes with; `None` for [`CANCELLED`], which only audit records carry.
    pub status: Option<Status>,
}

const fn code(code: &'static str, status: Status) -> Code {
    Code {
        code,
        status: Some(status),
    }
}

/// Every code toolsmith itself returns, with its status, in the order of the module's table.
pub const ALL: &[Code] = &[
    code(INVALID_ARGUMENT, Status::InvalidInput),
    code(MISSING_ARGUMENT, Status::InvalidInput),
    code(UNKNOWN_ARGUMENT, Status::InvalidInput),
    code(INVALID_INPUT, Status::InvalidInput),
    code(ARGUMENTS_TOO_LARGE, Status::InvalidInput),
    code(ARGUMENTS_TOO_DEEP, Status::InvalidInput),
    code(UNKNOWN_TOOL, Status::InvalidInput),
    code(TOOL_RETIRED, Status::InvalidInput),
    code(INVALID_CURSOR, Status::InvalidInput),
    code(IDEMPOTENCY_KEY_REUSED, Status::InvalidInput),
    code(EMPTY, Status::Empty),
    code(NEEDS_INPUT, Status::NeedsInput),
    code(DUPLICATE, Status::Refused),
    code(IN_PROGRESS, Status::Refused),
    code(OUTCOME_UNKNOWN, Status::Refused),
    code(PAGE_EXPIRED, Status::Refused),
    code(POLICY_DENIED, Status::Denied),
    code(APPROVAL_UNAVAILABLE, Status::Denied),
    code(APPROVAL_TIMEOUT, Status::Denied),
    code(CANCELLED_BY_USER, Status::CancelledByUser),
    code(QUESTION_DISMISSED, Status::CancelledByUser),
    code(IDEMPOTENCY_UNAVAILABLE, Status::TemporaryFailure),
    code(TOOLS_BUSY, Status::TemporaryFailure),
    code(INTERNAL, Status::Failed),
    code(APPROVER_FAILED, Status::Failed),
    code(NOT_CONFIGURED, Status::Failed),
    code(OUTPUT_NOT_ENCODABLE, Status::Failed),
    code(OUTPUT_CONTRACT, Status::Failed),
    code(CONTENT_TOO_LARGE, Status::Failed),
    code(CLIENT_UNSUPPORTED, Status::Failed),
    code(CLIENT_REJECTED, Status::Failed),
    code(CLIENT_CLOSED, Status::Failed),
    code(CLIENT_TIMEOUT, Status::Failed),
    code(INVALID_ANSWER, Status::Failed),
    code(INVALID_QUESTION, Status::Failed),
    code(TIMEOUT, Status::Timeout),
    Code {
        code: CANCELLED,
        status: None,
    },
    code(EMPTY_PATH, Status::InvalidInput),
    code(NOT_FOUND, Status::InvalidInput),
    code(NOT_A_FOLDER, Status::InvalidInput),
    code(FOLDER_NOT_FOUND, Status::InvalidInput),
    code(FILE_TOO_LARGE, Status::Refused),
    code(INVALID_PATH, Status::Denied),
    code(ABSOLUTE_PATH, Status::Denied),
    code(OUTSIDE_WORKSPACE, Status::Denied),
    code(UNRESOLVABLE_PATH, Status::Denied),
    code(NOT_A_FILE, Status::Denied),
    code(HARD_LINKED, Status::Denied),
    code(NOT_TEXT, Status::Failed),
    code(UNREADABLE, Status::Failed),
    code(WRITE_FAILED, Status::Failed),
];

/// The status a code of [`ALL`] comes with; `None` for a code not in [`ALL`] (a tool's own) and
/// for [`CANCELLED`].
pub fn status_of(code: &str) -> Option<Status> {
    ALL.iter().find(|c| c.code == code).and_then(|c| c.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of the module's rustdoc table: (code, status cell).
    fn doc_rows() -> Vec<(String, String)> {
        include_str!("codes.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | [`"))
            .map(|rest| {
                let (code, rest) = rest.split_once("`]").expect("a code cell");
                let status = rest.trim_start_matches(" |").split(" |").next().unwrap();
                (code.to_string(), status.trim().to_string())
            })
            .collect()
    }

    #[test]
    fn the_module_table_lists_all_in_order_with_their_statuses() {
        let expected: Vec<(String, String)> = ALL
            .iter()
            .map(|c| {
                let status = c.status.map_or("none (audit only)".to_string(), |s| {
                    format!("`{}`", s.as_str())
                });
                (c.code.to_string(), status)
            })
            .collect();
        assert_eq!(doc_rows(), expected);
    }

    #[test]
    fn codes_are_unique_screaming_snake_and_never_ok() {
        let mut seen = std::collections::HashSet::new();
        for c in ALL {
            assert!(seen.insert(c.code), "{} is listed twice", c.code);
            assert!(
                !c.code.is_empty()
                    && c.code
                        .chars()
                        .all(|ch| ch.is_ascii_uppercase() || ch == '_'),
                "{} is not SCREAMING_SNAKE",
                c.code
            );
            assert_ne!(c.status, Some(Status::Ok), "{} comes with ok", c.code);
        }
        assert_eq!(status_of(DUPLICATE), Some(Status::Refused));
        assert_eq!(status_of(CANCELLED), None);
        assert_eq!(status_of("OUT_OF_STOCK"), None);
    }
}
