//! Stage `redact`: secrets (API keys, bearer tokens, private keys, passwords in URLs, host
//! patterns) are masked in everything the envelope says, once, whatever ended the call: an
//! early envelope carries text too (a hook's message, an echo of the arguments), and the model
//! reads it like any result. What the idempotency record keeps is redacted, as it comes after.
//!
//! The data of a result (`ok`) of a tool whose output schema holds no free text is skipped
//! ([`crate::output_text`]): a result the pipeline answered (the tool's, a stored page of it, a
//! repeat of it). An envelope that ended the call early (a host stage's included) is always
//! redacted whole: it is not bound to the tool's output schema.
//!
//! Object keys that are property names of the tool's output schema are checked once per tool
//! (on its first call) and looked up after that ([`QuietKeys`]).
//!
//! A typed tool's result written as JSON text (`call_json`) is judged while it is written: the
//! tool's encoder gets the redactor and the quiet keys ([`scan`]), each string is checked as
//! serde_json writes it, and a text found clean is not read again here. A tool run in a task of
//! its own (a timeout, offloaded sync tools) writes without the scan, and its text is scanned
//! here (`Redactor::json_text_may_change`, the same check on each string).

use super::{CallState, Entry, Step};
use crate::client::{
    Answer, ClientChannel, ClientError, ClientFuture, LogLevel, LogMessage, Question,
    SampleRequest, SampleResult,
};
use crate::envelope::{Envelope, Status};
use crate::redact::{QuietKeys, Redactor, ResultScan};
use std::borrow::Cow;
use std::sync::Arc;

/// The keys of the tool's output schema that `r` leaves alone, checked on the tool's first call.
fn quiet_keys<'e>(r: &Redactor, e: &'e Entry) -> &'e QuietKeys {
    e.quiet_keys.get_or_init(|| {
        let schema = e.tool.spec().output_schema.as_ref();
        r.quiet_keys(
            schema
                .map(crate::output_text::property_names)
                .unwrap_or_default(),
        )
    })
}

/// The scan a typed tool's text result is written with (`execute`), so this stage need not
/// read the text again: none without a redactor, or for a tool whose results this stage skips.
pub(super) fn scan<'a>(redactor: Option<&'a Redactor>, e: &'a Entry) -> Option<ResultScan<'a>> {
    let redactor = redactor?;
    e.tool.inner.output_may_hold_text.then(|| ResultScan {
        redactor,
        quiet: quiet_keys(redactor, e),
    })
}

/// Stage `redact`, with the toolbox's redactor (none: the stage has nothing to do).
pub(crate) struct Redact {
    pub(crate) redactor: Option<Arc<Redactor>>,
}

pub(super) fn run(sh: &Redact, call: &mut CallState<'_>) -> Step {
    let may_hold_text = call.early
        || call
            .entry
            .as_ref()
            .is_none_or(|e| e.tool.inner.output_may_hold_text);
    let Some(r) = &sh.redactor else {
        return Step::Continue;
    };
    // An answer whose data is text judged clean as it was written, with no code, message or
    // note (a plain `ok`): nothing in it to mask.
    if call.data_text_clean && call.env.as_ref().is_some_and(Envelope::has_no_text) {
        return Step::Continue;
    }
    let none = QuietKeys::default();
    let quiet = match &call.entry {
        Some(e) => quiet_keys(r, e),
        None => &none,
    };
    // A result kept as JSON text stays text when no string in it (key or value) is one
    // redaction would touch (judged while the tool wrote it, or here); otherwise it is
    // redacted as a value.
    if may_hold_text
        && !call.data_text_clean
        && call
            .data_text
            .as_deref()
            .is_some_and(|t| r.json_text_may_change(t, quiet))
    {
        // The entry stays borrowed (`quiet`): only the fields the value replaces are touched.
        super::materialize(&mut call.data_text, &mut call.env, &mut call.detail);
    }
    let content = call.entry.as_ref().and_then(|e| e.content);
    if let Some(env) = call.env.as_mut() {
        match content {
            // The base64 of binary blocks is no text a secret could be in, and masking a match
            // in it would break the image: only the blocks' text is read.
            Some(kind) if !call.early && env.status == Status::Ok => {
                r.redact_content_in(env, kind, quiet);
            }
            _ => redact_result(r, env, may_hold_text, quiet),
        }
    }
    Step::Continue
}

/// Redacts a tool's envelope: its texts (code, message, note) always, its data unless it is a
/// result (`ok`) of a tool whose output cannot hold text
/// ([`crate::output_text::may_hold_text`]). Error details and
/// refusals carry the toolbox's or the tool's own text, so they are always redacted.
fn redact_result(r: &Redactor, env: &mut Envelope, may_hold_text: bool, quiet: &QuietKeys) {
    if may_hold_text || env.status != Status::Ok {
        r.redact_envelope_in(env, quiet);
        return;
    }
    for text in [env.code.as_mut(), env.message.as_mut(), env.note.as_mut()]
        .into_iter()
        .flatten()
    {
        if let std::borrow::Cow::Owned(clean) = r.redact_str(text) {
            *text = clean;
        }
    }
}

/// The transport's channel to the client, behind the toolbox's redactor: what a tool sends the
/// client's model (a sampling request's messages and system prompt) and its user (a question's
/// message, its fields' titles, descriptions and text defaults) is redacted as a result would
/// be, since the client's model reads it. Log messages pass as they are (the tool's own words
/// to the host's log, documented on [`crate::Client`]).
struct RedactingChannel {
    inner: Arc<dyn ClientChannel>,
    redactor: Arc<Redactor>,
}

impl RedactingChannel {
    fn redacted(&self, text: &str) -> Option<String> {
        match self.redactor.redact_str(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(text) => Some(text),
        }
    }
}

impl ClientChannel for RedactingChannel {
    fn log_level(&self) -> Option<LogLevel> {
        self.inner.log_level()
    }

    fn log(&self, message: LogMessage) {
        self.inner.log(message);
    }

    fn can_sample(&self) -> bool {
        self.inner.can_sample()
    }

    fn can_elicit(&self) -> bool {
        self.inner.can_elicit()
    }

    fn sample(
        &self,
        mut request: SampleRequest,
    ) -> ClientFuture<'_, Result<SampleResult, ClientError>> {
        for message in &mut request.messages {
            if let Some(text) = self.redacted(message) {
                *message = text;
            }
        }
        if let Some(text) = request
            .system_prompt
            .as_deref()
            .and_then(|p| self.redacted(p))
        {
            request.system_prompt = Some(text);
        }
        self.inner.sample(request)
    }

    fn elicit<'a>(
        &'a self,
        question: &'a Question,
    ) -> ClientFuture<'a, Result<Answer, ClientError>> {
        match question.map_text(|text| self.redacted(text)) {
            None => self.inner.elicit(question),
            Some(redacted) => Box::pin(async move { self.inner.elicit(&redacted).await }),
        }
    }

    // A request that carries no text of the tool's: nothing to redact.
    fn roots(&self) -> ClientFuture<'_, Result<Vec<crate::client::Root>, ClientError>> {
        self.inner.roots()
    }
}

/// The channel a tool's requests to the client go through during its run: the transport's
/// ([`crate::with_client`]) behind `redactor`; `None` when no transport talks to a client, or
/// the toolbox does not redact them ([`ToolboxBuilder::redact_client_requests`]).
///
/// [`ToolboxBuilder::redact_client_requests`]: crate::ToolboxBuilder::redact_client_requests
pub(super) fn client_channel(redactor: Option<&Arc<Redactor>>) -> Option<Arc<dyn ClientChannel>> {
    let redactor = Arc::clone(redactor?);
    let inner = crate::client::current()?;
    Some(Arc::new(RedactingChannel { inner, redactor }))
}
