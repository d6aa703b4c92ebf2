//! Stage `budget`: the answer's `data` is cut to the tool's output budget (a note, a cursor, the
//! raw result's `ref` in the record store); notes, messages and error details are bounded like
//! data, after the hooks, which may have added to them. A call that ended before an answer has
//! only its channels bounded.

use super::{CallState, Entry, Step};
use crate::budget::{bound_channels, fit_envelope, OutputBudget};
use crate::envelope::Status;
use crate::fault::{GuardedState, GuardedStore};
use crate::store::{new_reference, RecordStore};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};

/// Stage `budget`, with the toolbox's default output budget and the record store cut results
/// are kept in.
pub(crate) struct OutputCut {
    pub(crate) budget: OutputBudget,
    /// The most bytes of JSON a content tool's `ok` may carry ([`crate::content`]: not cut).
    pub(crate) max_content_bytes: usize,
    pub(crate) store: Arc<GuardedStore>,
    /// The state shared with the other replicas, when the toolbox has one: cut results are
    /// kept there instead ([`run_shared`]).
    pub(crate) shared: Option<Arc<GuardedState>>,
}

/// The results a cut keeps, named (with [`new_reference`]) while the envelope is cut and
/// written to the shared state after it: cutting stays synchronous.
#[derive(Default)]
struct Pending(Mutex<Vec<(String, Value)>>);

impl RecordStore for Pending {
    fn put(&self, value: Value) -> String {
        let reference = new_reference();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((reference.clone(), value));
        reference
    }

    fn get(&self, _: &str) -> Option<Value> {
        None
    }
}

/// Stage `budget` for a toolbox with a shared state: the results the cut keeps are written
/// there (a write that fails is a fault, and its `ref` leads nowhere, as with a record store).
pub(super) async fn run_shared(
    sh: &OutputCut,
    state: &GuardedState,
    call: &mut CallState<'_>,
) -> Step {
    let pending = Pending::default();
    let step = cut(sh, &pending, call);
    let kept = pending
        .0
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    for (reference, value) in kept {
        state.keep_as(&reference, &value).await;
    }
    step
}

/// Replaces a content tool's `ok` whose JSON passes `limit` bytes by `failed`
/// ([`CONTENT_TOO_LARGE`](crate::codes::CONTENT_TOO_LARGE)): content blocks are not cut, so
/// this bounds them. The size is counted as serde_json writes it, without writing it.
fn refuse_large_content(limit: usize, call: &mut CallState<'_>) {
    let size = match (&call.data_text, call.env.as_ref()) {
        (Some(text), _) => text.len(),
        (None, Some(env)) if env.status == Status::Ok => {
            env.data.as_ref().map_or(0, crate::limits::json_len)
        }
        _ => return,
    };
    if size <= limit {
        return;
    }
    let tool = call.name.to_string();
    call.data_text = None;
    call.env = Some(
        crate::error::ToolError::failed(
            crate::codes::CONTENT_TOO_LARGE,
            format!(
                "The result of \"{tool}\" is {size} bytes of content, over the {limit} this host \
                 sends, so it is not shown. Tell the user the result is too large to show here."
            ),
        )
        .into_envelope(),
    );
}

/// The output budget of a call: its tool's own, or the toolbox's `default`.
pub(super) fn budget_of(default: OutputBudget, entry: Option<&Entry>) -> OutputBudget {
    entry
        .and_then(|e| e.tool.inner.output_budget)
        .map_or(default, OutputBudget::new)
}

pub(super) fn run(sh: &OutputCut, call: &mut CallState<'_>) -> Step {
    cut(sh, sh.store.as_ref(), call)
}

/// Cuts the call's answer to its budget, keeping full results in `store`.
fn cut(sh: &OutputCut, store: &dyn RecordStore, call: &mut CallState<'_>) -> Step {
    let budget = budget_of(sh.budget, call.entry.as_deref());
    if call.early {
        if let Some(env) = call.env.as_mut() {
            bound_channels(env, budget);
        }
        return Step::Continue;
    }
    // Content blocks are whole or absent (an image cut in half is no image): a content tool's
    // result is not cut but bounded in bytes; its channels are bounded below as any.
    let content = call.entry.as_ref().is_some_and(|e| e.content.is_some());
    if content {
        refuse_large_content(sh.max_content_bytes, call);
    }
    // A result kept as text that fits is left as it is (`fit_envelope` leaves such a value
    // alone too); one that may be cut is cut as a value.
    let fits = |t: &str| t.len() <= budget.max_chars || t.chars().count() <= budget.max_chars;
    let cut_as_value = !content
        && (call.page.as_ref().is_some_and(|p| p.offset != 0)
            || call.data_text.as_deref().is_some_and(|t| !fits(t)));
    if cut_as_value {
        call.materialize();
    }
    let Some(env) = call.env.as_mut() else {
        return Step::Continue;
    };
    match &call.page {
        _ if content => {}
        Some(page) => {
            fit_envelope(env, budget, page, store);
        }
        // A tool without a cursor parameter (stage `cursor` sets no page for it): only a value
        // can need cutting (a text that fits is left as it is, above), and its first page is
        // built only for a value that does not fit (`fit_envelope` leaves the others alone).
        None if env.status == Status::Ok
            && env
                .data
                .as_ref()
                .is_some_and(|d| !crate::budget::fits(d, budget.max_chars))
            && call.entry.as_ref().is_some_and(|e| !e.paginated) =>
        {
            fit_envelope(env, budget, &super::paging::unpaginated(), store);
        }
        None => {}
    }
    // A plain answer (its data kept as text, no message, note or code) has no channel to bound.
    if !env.has_no_text() {
        bound_channels(env, budget);
    }
    if call.entry.as_ref().is_some_and(|e| !e.paginated) {
        // Without a cursor parameter the model cannot ask for the next page.
        env.cursor = None;
    }
    Step::Continue
}
