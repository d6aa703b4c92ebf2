//! Stages `cursor` and `stored_page`: which page a call asks for, and whether it comes from the
//! record store.
//!
//! Cursors are bound, with the toolbox's secret key, to the tool, the caller and the other
//! arguments: a cursor cannot be built by a caller, moved to another tool, or replayed by another
//! caller. A later page of a kept result is served from the store; a later page of a write whose
//! result is no longer kept is refused, as a write is never run again just to show a page.

use super::{CallState, Entry, Step};
use crate::budget::{page_digest, CursorError, PageRequest};
use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::fault::{GuardedState, GuardedStore};
use crate::policy::Caller;
use crate::secret::SecretKey;
use crate::store::RecordStore;
use serde_json::Value;
use std::sync::Arc;

/// Stages `cursor` and `stored_page`, with the key cursors are bound with and the record store
/// kept results are read from.
pub(crate) struct Paging {
    /// Binds cursors to tool, caller and arguments.
    pub(crate) secret: SecretKey,
    pub(crate) store: Arc<GuardedStore>,
    /// The state shared with the other replicas, when the toolbox has one: kept results are
    /// read there instead ([`stored_page_shared`]).
    pub(crate) shared: Option<Arc<GuardedState>>,
}

/// Stage `cursor`: reads and checks the `cursor` argument. A tool without a cursor parameter
/// gets no page request here: its result is cut, when it must be, from the first page with
/// [`unpaginated`]'s hint (stage `budget`), and nothing is built for the results that fit. (A
/// call on the typed fast path has no argument value; it is never one of a paginated tool.)
pub(super) fn cursor(sh: &Paging, call: &mut CallState<'_>) -> Step {
    if !call.entry().paginated {
        call.page = None;
        return Step::Continue;
    }
    let args = call.args.as_ref().unwrap_or(&Value::Null);
    match page_request(sh, call.entry(), args, call.options.who()) {
        Ok(page) => {
            call.page = Some(Box::new(page));
            Step::Continue
        }
        Err(env) => Step::refuse(env),
    }
}

#[allow(clippy::result_large_err)]
fn page_request(
    sh: &Paging,
    entry: &Entry,
    args: &Value,
    caller: &Caller,
) -> Result<PageRequest, Envelope> {
    let binding = sh.secret.mac_hex(
        &[
            b"toolsmith-page",
            entry.tool.name().as_bytes(),
            caller.id().unwrap_or_default().as_bytes(),
            page_digest(args, "cursor").as_bytes(),
        ],
        16,
    );
    let page = match args.get("cursor") {
        None | Some(Value::Null) => Ok(PageRequest::first(binding)),
        Some(Value::String(c)) => PageRequest::from_cursor(c, binding),
        Some(_) => Err(CursorError::Malformed),
    };
    page.map_err(|e| e.into_tool_error("cursor").into_envelope())
}

/// The page a tool without a cursor parameter shows: the first, and a hint that asks for less
/// (the model cannot ask for the next page).
pub(super) fn unpaginated() -> PageRequest {
    PageRequest::first(String::new())
        .with_hint("The rest is not shown; ask for less (narrower arguments) to see other parts.")
}

/// Stage `stored_page`: where the requested page comes from. A later page of a kept result is
/// the answer, read from the record store; a later page of a write whose result is no longer
/// kept is refused; anything else runs the tool.
pub(super) fn stored_page(sh: &Paging, call: &mut CallState<'_>) -> Step {
    let raw = call
        .page
        .as_ref()
        .and_then(|p| p.reference.as_deref())
        .and_then(|r| sh.store.get(r));
    page_from(raw, call)
}

/// [`stored_page`] for a toolbox with a shared state: the kept result is read there, so a
/// cursor issued by another replica (with the same cursor key) is served here.
pub(super) async fn stored_page_shared(state: &GuardedState, call: &mut CallState<'_>) -> Step {
    let reference = call.page.as_ref().and_then(|p| p.reference.clone());
    let raw = match reference {
        Some(r) => state.read(&r).await,
        None => None,
    };
    page_from(raw, call)
}

/// The answer of `stored_page` once the kept result (`raw`) is read, or found missing.
fn page_from(raw: Option<Value>, call: &mut CallState<'_>) -> Step {
    let read_only = call.entry().tool.spec().effects.read_only;
    let Some(page) = call.page.as_mut() else {
        return Step::Continue;
    };
    let later_page = page.reference.is_some() || page.offset > 0;
    if let Some(raw) = raw {
        return Step::answer(Envelope::ok(raw));
    }
    page.reference = None;
    if later_page && !read_only {
        Step::refuse(page_expired(&call.entry().tool.spec().name))
    } else {
        Step::Continue
    }
}

/// The refusal of a later page of a write whose result is no longer kept.
fn page_expired(tool: &str) -> Envelope {
    ToolError::refused(
        codes::PAGE_EXPIRED,
        format!(
            "The rest of this result of \"{tool}\" is no longer kept, and the tool changes data, so it was not run again just to show a page. Use the pages already shown; run it again (without the cursor) only if the user wants the action done again.",
        ),
    )
    .into_envelope()
}
