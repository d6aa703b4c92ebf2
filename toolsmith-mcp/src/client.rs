//! A tool's requests to its client over MCP: the [`ClientChannel`] of one `tools/call`, the
//! session's log level, and the question the server asks for the missing fields of a
//! `needs_input` answer.
//!
//! - Log messages are `notifications/message`. In the 2025 revisions the level is the session's
//!   (`logging/setLevel`); before the client sets one every message is sent (the spec leaves
//!   that to the server; the official TypeScript SDK does the same, and rmcp filters nothing).
//!   In 2026-07-28, which has no `logging/setLevel`, the level is the call's own
//!   (`_meta["io.modelcontextprotocol/logLevel"]`), and a call without it gets no messages, as
//!   that revision requires.
//! - Sampling (`sampling/createMessage`) and elicitation (`elicitation/create`, form mode) are
//!   server-to-client requests in the 2025 revisions, sent only to a client that declared the
//!   capability. 2026-07-28 has no server-to-client requests: there the call asks in rounds
//!   (SEP-2322). A tool's `ask` or `sample` that the request's `inputResponses` (or those of
//!   earlier rounds, carried in the sealed `requestState`) answer under the request's name
//!   ([`Question::key`], [`SampleRequest::request_key`]) gets that answer; one they do not
//!   answer is noted, the tool's run ends as it would without a client (`needs_input`, or
//!   `CLIENT_UNSUPPORTED`), and the server answers `input_required` with every noted request
//!   instead of that run's result. The client sends the call again with the answers, and the
//!   tool runs again from the start: a tool asks before it acts.
//!
//! Each request names the `tools/call` it comes from, so over streamable HTTP it travels on
//! that call's response stream (SEP-2260), from the tool threads too (rmcp would take the
//! originating request from a task-local, which a tool thread does not have).

// Logging and sampling are deprecated by SEP-2577 (2026-07-28) and stay in the 2025 revisions
// this server speaks.
#![allow(deprecated)]

use rmcp::model::{CancelledNotification, CancelledNotificationParam, ServerNotification};
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, ElicitationAction, ElicitationSchema, InputRequest, LoggingLevel,
    LoggingMessageNotificationParam, ModelHint, ModelPreferences, ProgressToken, RequestId, Role,
    SamplingMessage, SamplingMessageContentBlock, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, PeerRequestOptions, RequestContext};
use rmcp::{Peer, RoleServer, ServiceError};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use toolsmith_core::export::McpVersion;
use toolsmith_core::state::task::TaskHandle;
use toolsmith_core::{
    Answer, ClientChannel, ClientError, ClientFuture, LogLevel, LogMessage, ProgressReport,
    ProgressSink, Question, Root, SampleRequest, SampleResult,
};

/// What one MCP session keeps: the log level its client set.
#[derive(Debug, Default)]
pub(crate) struct Session {
    level: Mutex<Option<LogLevel>>,
}

impl Session {
    /// Sets the session's level (`logging/setLevel`).
    pub(crate) fn set_level(&self, level: LogLevel) {
        *self.level.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// The least severe level the session's client receives: the level it set, or every level
    /// before it set one.
    fn level(&self) -> LogLevel {
        self.level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or(LogLevel::Debug)
    }
}

/// The level rmcp's model names for a level.
pub(crate) fn level_of(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn logging_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// A notification of a call on its way to the task that sends it.
pub(crate) enum Outgoing {
    Progress(ProgressReport),
    Log(LogMessage),
}

/// A call's notifications (progress reports, log messages) on their way to the task that sends
/// them, in the order they were made.
#[derive(Default)]
pub(crate) struct Outbox {
    queue: Mutex<VecDeque<Outgoing>>,
    /// Woken on every push (a push while nobody waits leaves a permit, so none is missed).
    pub(crate) ready: tokio::sync::Notify,
}

impl Outbox {
    pub(crate) fn pop(&self) -> Option<Outgoing> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }

    fn push(&self, item: Outgoing) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(item);
        self.ready.notify_one();
    }
}

impl ProgressSink for Outbox {
    fn report(&self, report: ProgressReport) {
        self.push(Outgoing::Progress(report));
    }
}

/// Sends one notification of a call: a progress report for `token` (dropped without one), or a
/// log message.
pub(crate) async fn send(item: Outgoing, token: Option<&ProgressToken>, peer: &Peer<RoleServer>) {
    match item {
        Outgoing::Progress(report) => {
            let Some(token) = token else { return };
            let mut p = rmcp::model::ProgressNotificationParam::new(token.clone(), report.progress);
            p.total = report.total;
            p.message = report.message;
            let _ = peer.notify_progress(p).await;
        }
        Outgoing::Log(message) => {
            let mut p =
                LoggingMessageNotificationParam::new(logging_level(message.level), message.data);
            p.logger = message.logger;
            let _ = peer.notify_logging_message(p).await;
        }
    }
}

/// Where a call's log level comes from.
enum Level {
    /// The session's (2025 revisions).
    Session(Arc<Session>),
    /// The call's own `_meta` (2026-07-28); `None`: no messages.
    Call(Option<LogLevel>),
}

/// The [`ClientChannel`] of one `tools/call`.
pub(crate) struct CallChannel {
    peer: Peer<RoleServer>,
    /// The `tools/call` request the tool's requests come from.
    request: RequestId,
    level: Level,
    outbox: Arc<Outbox>,
    /// Why sampling is not possible, if it is not.
    no_sampling: Option<&'static str>,
    /// Why elicitation (form mode) is not possible, if it is not.
    no_elicitation: Option<&'static str>,
    /// Why `roots/list` is not possible, if it is not.
    no_roots: Option<&'static str>,
    /// 2026-07-28: the answers this round has, and the requests it could not answer.
    rounds: Option<Rounds>,
    /// The end of a stream session's input: a request still waiting then is answered
    /// [`ClientError::Closed`] (rmcp no longer reads the client's answers).
    input_closed: Option<tokio_util::sync::CancellationToken>,
    /// How long a request waits for the client's answer ([`McpServer::client_timeout`]).
    ///
    /// [`McpServer::client_timeout`]: crate::McpServer::client_timeout
    timeout: Duration,
    /// The task the call runs as (2026-07-28 tasks extension), once it is one: its requests
    /// become the task's `inputRequests`, answered by `tasks/update` on any replica. Set when
    /// the call becomes a task, which may be after its first requests were asked in rounds.
    task: std::sync::OnceLock<TaskHandle>,
    /// 2026-07-28: the capability a request of the tool needed that the client did not
    /// declare in the request's `_meta` (`sampling`, `elicitation`), if any.
    missing: Mutex<Option<&'static str>>,
}

/// A 2026-07-28 call's rounds (SEP-2322): the answers so far, by request name, and the requests
/// of this run that no answer met.
#[derive(Default)]
pub(crate) struct Rounds {
    pub(crate) answers: serde_json::Map<String, serde_json::Value>,
    pending: Mutex<Vec<(String, InputRequest)>>,
}

impl Rounds {
    /// The rounds of a call that arrived with `answers`.
    pub(crate) fn new(answers: serde_json::Map<String, serde_json::Value>) -> Rounds {
        Rounds {
            answers,
            pending: Mutex::default(),
        }
    }

    /// The requests of this run that no answer met, each once, in the order they were made.
    pub(crate) fn pending(&self) -> Vec<(String, InputRequest)> {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Notes a request no answer met; the tool then goes on as without a client.
    fn note(&self, key: String, request: InputRequest) -> ClientError {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if !pending.iter().any(|(k, _)| *k == key) {
            pending.push((key, request));
        }
        ClientError::Unsupported(format!(
            "the request \"{}\" goes to the client in an input_required result",
            pending.last().map_or("", |(k, _)| k.as_str())
        ))
    }
}

/// The key of a call's `roots/list` request among its `inputRequests` (2026-07-28).
const ROOTS_KEY: &str = "client_roots";

/// Why a 2026-07-28 call cannot ask its client: it did not declare the capability in the
/// request's `_meta`.
const NO_SAMPLING_2026: &str = "the client did not declare sampling in this request's _meta";
const NO_ROOTS_2026: &str = "the client did not declare roots in this request's _meta";
const NO_ELICITATION_2026: &str =
    "the client did not declare elicitation in form mode in this request's _meta";

impl CallChannel {
    /// The channel of a call; `rounds` (2026-07-28) holds the answers the call arrived with.
    pub(crate) fn new(
        context: &RequestContext<RoleServer>,
        session: &Arc<Session>,
        version: McpVersion,
        outbox: Arc<Outbox>,
        rounds: Option<Rounds>,
        input_closed: Option<tokio_util::sync::CancellationToken>,
        timeout: Duration,
    ) -> CallChannel {
        let (level, no_sampling, no_elicitation, no_roots) = if version == McpVersion::V2026_07_28 {
            let level = context.meta.log_level().map(level_of);
            let capabilities = context.meta.client_capabilities();
            let sampling = capabilities.as_ref().is_some_and(|c| c.sampling.is_some());
            let roots = capabilities.as_ref().is_some_and(|c| c.roots.is_some());
            let forms = capabilities
                .and_then(|c| c.elicitation)
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
            (
                Level::Call(level),
                (!sampling).then_some(NO_SAMPLING_2026),
                (!forms).then_some(NO_ELICITATION_2026),
                (!roots).then_some(NO_ROOTS_2026),
            )
        } else {
            let info = context.peer.peer_info();
            let capabilities = info.as_ref().map(|i| &i.capabilities);
            let sampling = capabilities.is_some_and(|c| c.sampling.is_some());
            // A client that declares elicitation with neither mode supports forms (2025-06-18
            // knew no other mode).
            let forms = capabilities
                .and_then(|c| c.elicitation.as_ref())
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
            let roots = capabilities.is_some_and(|c| c.roots.is_some());
            (
                Level::Session(Arc::clone(session)),
                (!sampling).then_some("the client did not declare the sampling capability"),
                (!forms).then_some("the client did not declare elicitation in form mode"),
                (!roots).then_some("the client did not declare the roots capability"),
            )
        };
        CallChannel {
            peer: context.peer.clone(),
            request: context.id.clone(),
            level,
            outbox,
            no_sampling,
            no_elicitation,
            no_roots,
            rounds: rounds.filter(|_| version == McpVersion::V2026_07_28),
            input_closed,
            timeout,
            task: std::sync::OnceLock::new(),
            missing: Mutex::new(None),
        }
    }

    /// The capability a request of the tool needed that the client did not declare
    /// (2026-07-28), if any: the call answers `-32021` naming it when the tool failed for it.
    pub(crate) fn missing_capability(&self) -> Option<&'static str> {
        *self.missing.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that a request needed `capability`, which the 2026-07-28 client did not declare.
    fn lacks(&self, capability: &'static str, why: &'static str) -> ClientError {
        if matches!(self.level, Level::Call(_)) {
            *self.missing.lock().unwrap_or_else(PoisonError::into_inner) = Some(capability);
        }
        ClientError::Unsupported(why.into())
    }

    /// From now on the call runs as the task `task`: a request that no answer of its rounds
    /// meets is asked through the task.
    pub(crate) fn run_as(&self, task: TaskHandle) {
        let _ = self.task.set(task);
    }

    /// The answer to the request `key`, when the call's rounds or its task give it: an answer
    /// the call arrived with; else the answer to the request asked through its task; else, in
    /// rounds, the request noted for the next round (an error for the tool). `None`: the
    /// request goes to the client directly.
    async fn answer_of(
        &self,
        key: &str,
        request: impl FnOnce() -> InputRequest,
    ) -> Option<Result<serde_json::Value, ClientError>> {
        if let Some(answer) = self.rounds.as_ref().and_then(|r| r.answers.get(key)) {
            return Some(Ok(answer.clone()));
        }
        if let Some(task) = self.task.get() {
            return Some(self.ask_task(task, key, request()).await);
        }
        let rounds = self.rounds.as_ref()?;
        Some(Err(rounds.note(key.to_string(), request())))
    }

    /// Asks `request` through the call's task (its `inputRequests` under `key`) and waits for
    /// the answer `tasks/update` gives, at most the client timeout.
    async fn ask_task(
        &self,
        task: &TaskHandle,
        key: &str,
        request: InputRequest,
    ) -> Result<serde_json::Value, ClientError> {
        let request = serde_json::to_value(&request)
            .map_err(|e| ClientError::Unsupported(format!("the request cannot be encoded: {e}")))?;
        match tokio::time::timeout(self.timeout, task.ask(key, request)).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(ClientError::Closed),
            Err(_) => {
                // Nobody answered in time: the question leaves the task's `inputRequests`.
                let _ = task.withdraw(key).await;
                Err(ClientError::TimedOut(self.timeout))
            }
        }
    }

    /// The call's rounds (2026-07-28).
    pub(crate) fn rounds(&self) -> Option<&Rounds> {
        self.rounds.as_ref()
    }

    /// The mark that sends a request on the call's stream.
    fn origin(&self) -> OriginatingRequestId {
        OriginatingRequestId(self.request.clone())
    }

    /// Sends a request (marked with [`origin`](Self::origin)) to the client and waits for its
    /// answer, at most [`timeout`](Self::timeout) (rmcp then tells the client the request is
    /// cancelled). A wait that ends otherwise (the tool stopped: its timeout, its call dropped)
    /// tells the client too, so it stops asking its user or its model.
    async fn request(&self, request: ServerRequest) -> Result<ClientResult, ClientError> {
        let sent = async {
            let handle = self
                .peer
                .send_request_with_option(request, PeerRequestOptions::with_timeout(self.timeout))
                .await
                .map_err(client_error)?;
            let pending = Withdraw(Some((self.peer.clone(), handle.id.clone())));
            let answer = handle.await_response().await;
            pending.answered();
            answer.map_err(client_error)
        };
        match &self.input_closed {
            Some(closed) => tokio::select! {
                biased;
                () = closed.cancelled() => Err(ClientError::Closed),
                answer = sent => answer,
            },
            None => sent.await,
        }
    }
}

/// A request to the client still waiting for its answer: dropped before [`answered`], it sends
/// `notifications/cancelled` for the request, so the client withdraws the question or stops the
/// generation nobody waits for any more.
///
/// [`answered`]: Withdraw::answered
struct Withdraw(Option<(Peer<RoleServer>, RequestId)>);

impl Withdraw {
    /// The answer came (or rmcp ended the wait itself, and told the client so).
    fn answered(mut self) {
        self.0 = None;
    }
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some((peer, id)) = self.0.take() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some("the tool stopped waiting for the answer".into()),
        ));
        // A closed transport cannot be told, and needs not be.
        rt.spawn(async move {
            let _ = peer
                .send_notification(ServerNotification::CancelledNotification(notification))
                .await;
        });
    }
}

/// What an rmcp error of a request to the client means to the tool.
fn client_error(e: ServiceError) -> ClientError {
    match e {
        ServiceError::McpError(e) => ClientError::Rejected {
            code: e.code.0,
            message: e.message.into_owned(),
        },
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => ClientError::Closed,
        ServiceError::Cancelled { .. } => ClientError::Closed,
        ServiceError::Timeout { timeout } => ClientError::TimedOut(timeout),
        ServiceError::UnexpectedResponse => {
            ClientError::InvalidAnswer("the client answered with another kind of result".into())
        }
        other => ClientError::Rejected {
            code: rmcp::model::ErrorCode::INTERNAL_ERROR.0,
            message: other.to_string(),
        },
    }
}

/// The `sampling/createMessage` parameters of a request.
fn sampling_params(request: SampleRequest) -> CreateMessageRequestParams {
    let messages = request
        .messages
        .into_iter()
        .map(|text| SamplingMessage::new(Role::User, SamplingMessageContentBlock::text(text)))
        .collect();
    let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
    params.system_prompt = request.system_prompt;
    params.temperature = request.temperature.map(|t| t as f32);
    if !request.model_hints.is_empty() {
        let mut preferences = ModelPreferences::new();
        preferences.hints = Some(
            request
                .model_hints
                .into_iter()
                .map(ModelHint::new)
                .collect(),
        );
        params.model_preferences = Some(preferences);
    }
    params
}

/// The text of the model's answer.
fn sample_result(result: rmcp::model::CreateMessageResult) -> Result<SampleResult, ClientError> {
    let mut text = String::new();
    for block in result.message.content.into_vec() {
        match block {
            SamplingMessageContentBlock::Text(t) => text.push_str(&t.text),
            _ => {
                return Err(ClientError::InvalidAnswer(
                    "the model answered with content other than text".into(),
                ))
            }
        }
    }
    let mut out = SampleResult::new(text, result.model);
    if let Some(reason) = result.stop_reason {
        out = out.with_stop_reason(reason);
    }
    Ok(out)
}

impl ClientChannel for CallChannel {
    fn log_level(&self) -> Option<LogLevel> {
        match &self.level {
            Level::Session(session) => Some(session.level()),
            Level::Call(level) => *level,
        }
    }

    fn log(&self, message: LogMessage) {
        self.outbox.push(Outgoing::Log(message));
    }

    fn can_sample(&self) -> bool {
        self.no_sampling.is_none()
    }

    fn can_elicit(&self) -> bool {
        self.no_elicitation.is_none()
    }

    fn sample(
        &self,
        request: SampleRequest,
    ) -> ClientFuture<'_, Result<SampleResult, ClientError>> {
        Box::pin(async move {
            if let Some(why) = self.no_sampling {
                return Err(self.lacks("sampling", why));
            }
            let key = request.request_key();
            let params = sampling_params(request);
            let answer = self
                .answer_of(&key, || {
                    InputRequest::CreateMessage(CreateMessageRequest::new(params.clone()))
                })
                .await;
            if let Some(answer) = answer {
                let result: rmcp::model::CreateMessageResult = serde_json::from_value(answer?)
                    .map_err(|e| {
                        ClientError::InvalidAnswer(format!(
                            "the input response \"{key}\" is not a sampling result: {e}"
                        ))
                    })?;
                return sample_result(result);
            }
            let mut request = CreateMessageRequest::new(params);
            request.extensions.insert(self.origin());
            match self
                .request(ServerRequest::CreateMessageRequest(request))
                .await?
            {
                ClientResult::CreateMessageResult(result) => sample_result(*result),
                _ => Err(ClientError::InvalidAnswer(
                    "the client answered with another kind of result".into(),
                )),
            }
        })
    }

    fn elicit<'a>(
        &'a self,
        question: &'a Question,
    ) -> ClientFuture<'a, Result<Answer, ClientError>> {
        Box::pin(async move {
            if let Some(why) = self.no_elicitation {
                return Err(self.lacks("elicitation", why));
            }
            let schema = match question.schema() {
                serde_json::Value::Object(schema) => {
                    ElicitationSchema::from_json_schema(schema.clone())
                }
                _ => unreachable!("a question's form is an object"),
            }
            .map_err(|e| {
                ClientError::Unsupported(format!("the question's form is not one MCP accepts: {e}"))
            })?;
            let mut request = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question.message().to_string(),
                requested_schema: schema,
            });
            let key = question.key();
            let answer = self
                .answer_of(&key, || InputRequest::Elicitation(request.clone()))
                .await;
            let result = if let Some(answer) = answer {
                serde_json::from_value::<rmcp::model::ElicitResult>(answer?).map_err(|e| {
                    ClientError::InvalidAnswer(format!(
                        "the input response \"{key}\" is not an elicitation result: {e}"
                    ))
                })?
            } else {
                request.extensions.insert(self.origin());
                match self.request(ServerRequest::ElicitRequest(request)).await? {
                    ClientResult::ElicitResult(result) => result,
                    _ => {
                        return Err(ClientError::InvalidAnswer(
                            "the client answered with another kind of result".into(),
                        ))
                    }
                }
            };
            Ok(match result.action {
                ElicitationAction::Accept => Answer::Accept(match result.content {
                    Some(serde_json::Value::Object(content)) => content,
                    Some(other) => {
                        return Err(ClientError::InvalidAnswer(format!(
                            "the answer's content is not an object of fields: {other}"
                        )))
                    }
                    None => serde_json::Map::new(),
                }),
                ElicitationAction::Decline => Answer::Decline,
                ElicitationAction::Cancel => Answer::Cancel,
                other => {
                    return Err(ClientError::InvalidAnswer(format!(
                        "the client answered with the unknown action {other:?}"
                    )))
                }
            })
        })
    }

    fn roots(&self) -> ClientFuture<'_, Result<Vec<Root>, ClientError>> {
        Box::pin(async move {
            if let Some(why) = self.no_roots {
                return Err(self.lacks("roots", why));
            }
            let answer = self
                .answer_of(ROOTS_KEY, || {
                    InputRequest::ListRoots(rmcp::model::ListRootsRequest::default())
                })
                .await;
            let result = if let Some(answer) = answer {
                serde_json::from_value::<rmcp::model::ListRootsResult>(answer?).map_err(|e| {
                    ClientError::InvalidAnswer(format!(
                        "the input response \"{ROOTS_KEY}\" is not a roots list: {e}"
                    ))
                })?
            } else {
                let mut request = rmcp::model::ListRootsRequest::default();
                request.extensions.insert(self.origin());
                match self
                    .request(ServerRequest::ListRootsRequest(request))
                    .await?
                {
                    ClientResult::ListRootsResult(result) => result,
                    _ => {
                        return Err(ClientError::InvalidAnswer(
                            "the client answered with another kind of result".into(),
                        ))
                    }
                }
            };
            Ok(result
                .roots
                .into_iter()
                .map(|r| Root::new(r.uri, r.name))
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_log_level_maps_both_ways() {
        for level in LogLevel::ALL {
            assert_eq!(level_of(logging_level(level)), level);
            // And the wire names agree.
            assert_eq!(
                serde_json::to_value(logging_level(level)).unwrap(),
                json!(level.as_str())
            );
        }
    }

    /// Every form toolsmith-core builds is one rmcp's elicitation schema accepts as it is.
    #[test]
    fn question_forms_are_elicitation_schemas() {
        let q = Question::new(
            "?",
            &json!({"type": "object", "properties": {
                "email": {"type": "string", "format": "email", "minLength": 3, "description": "Mail"},
                "site": {"type": "string", "format": "uri", "pattern": "^https"},
                "day": {"type": "string", "format": "date", "default": "2025-01-01"},
                "size": {"type": "string", "enum": ["s", "m"]},
                "tone": {"oneOf": [{"const": "warm", "title": "Warm"}, {"const": "dry", "description": "Dry"}]},
                "count": {"type": "integer", "minimum": 1, "maximum": 9},
                "ratio": {"type": ["number", "null"], "exclusiveMinimum": 0},
                "ok": {"type": "boolean", "default": true},
            }, "required": ["email", "count"]}),
        )
        .unwrap();
        let serde_json::Value::Object(form) = q.schema().clone() else {
            unreachable!()
        };
        let schema = ElicitationSchema::from_json_schema(form).unwrap();
        let back = serde_json::to_value(&schema).unwrap();
        assert_eq!(
            &back,
            q.schema(),
            "the form survives rmcp's model unchanged"
        );
    }
}
