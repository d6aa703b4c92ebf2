//! `tools/call`: one call through the toolbox's pipeline, with its client channel and
//! notifications, its 2026-07-28 `input_required` rounds, and its result.

use crate::client;
use crate::errors::{cancelled, internal, protocol_error};
use crate::input_required;
use crate::server::McpServer;
use crate::version::version_of;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, MetaObject,
    ProgressToken, Resource, ResultType,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use std::ops::ControlFlow;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolsmith_core::budget::ResultResource;
use toolsmith_core::export::{mcp_call_parts, McpVersion};
use toolsmith_core::{with_client, ClientChannel, Question};
use toolsmith_core::{with_progress, ProgressSink};
use toolsmith_core::{CallOptions, Caller, Envelope, Status};

/// What a 2026-07-28 call keeps for its `input_required` rounds (see `input_required.rs`).
pub(crate) struct InputRounds {
    /// The call's arguments as the client sent them.
    original: Value,
    /// The caller the call acts for.
    caller: Caller,
    /// Whether the client elicits forms: a `needs_input` becomes a question to the user.
    asking: bool,
    /// The fields answered in earlier rounds (in the verified state).
    earlier: serde_json::Map<String, Value>,
    /// The expiry of the state the retry presented: every state issued in answer keeps it.
    expires: Option<u64>,
}

impl InputRounds {
    /// The rounds of a call, or `None` for a call whose answers do not come in rounds.
    fn of(
        version: McpVersion,
        context: &RequestContext<RoleServer>,
        args: &Value,
        caller: &Caller,
    ) -> Option<Self> {
        // 2026-07-28: a call that needs the user's input is answered `input_required`, and
        // retried with the answers (see `input_required.rs`): the original arguments and the
        // caller are kept for the seal.
        // Only for a client that declared it can answer (elicitation or sampling in the
        // request's `_meta`): no other call pays for the copies below.
        let rounds = version == McpVersion::V2026_07_28 && answers_requests(context);
        rounds.then(|| InputRounds {
            original: args.clone(),
            caller: caller.clone(),
            asking: elicits_forms(context),
            earlier: serde_json::Map::new(),
            expires: None,
        })
    }
}

/// Whether a 2026-07-28 request's client declared it can answer requests: elicitation or
/// sampling, in the request's `_meta`.
fn answers_requests(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some() || c.sampling.is_some())
}

/// Whether a 2026-07-28 request's client declared elicitation in form mode (in the request's
/// `_meta`, as 2026-07-28 clients declare their capabilities per request).
fn elicits_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// An MCP `resource_link` to a kept result.
fn resource_link(link: ResultResource) -> ContentBlock {
    ContentBlock::resource_link(
        Resource::new(link.uri, link.name)
            .with_title(link.title)
            .with_description(link.description)
            .with_mime_type(link.mime_type),
    )
}

/// Drives `call` until it ends or the client cancels the request, sending its notifications as
/// they are made: progress reports as `notifications/progress` for `token` (the outbox is the
/// call's progress sink only when the client sent one), log messages as
/// `notifications/message`.
/// After `input_closed` (a stream session's end of input, see [`Session`]) nothing more is
/// sent: rmcp no longer reports a notification delivered then.
///
/// rmcp's client sends a progress token with every request, and every call has a client
/// channel, so this runs on every call: the outbox costs one small allocation and nothing more
/// until the tool reports or logs.
///
/// [`Session`]: crate::session
pub(crate) async fn driving(
    call: impl std::future::Future<Output = Envelope>,
    outbox: &client::Outbox,
    token: Option<&ProgressToken>,
    context: &RequestContext<RoleServer>,
    input_closed: Option<&CancellationToken>,
) -> Result<Envelope, ErrorData> {
    tokio::pin!(call);
    let env = loop {
        tokio::select! {
            // The call first: one that finishes on its first poll (a sync tool run in place)
            // never registers with the cancellation token or the outbox's `Notify`.
            biased;
            env = &mut call => break env,
            // A cancelled request: the call's future is dropped here, and rmcp has already
            // forgotten the request, so nothing more is sent for it.
            () = context.ct.cancelled() => return Err(cancelled()),
            () = outbox.ready.notified() => {
                while let Some(item) = outbox.pop() {
                    send_unless_closed(item, token, context, input_closed).await;
                }
            }
        }
    };
    // Notifications made just before the call ended go out before its result.
    while let Some(item) = outbox.pop() {
        send_unless_closed(item, token, context, input_closed).await;
    }
    Ok(env)
}

/// Sends one notification of a call, unless the session's input has closed: rmcp no longer
/// reports a notification delivered then, and waiting for the report would hold the call (and
/// the session's end) up. The call's answer still goes out.
async fn send_unless_closed(
    item: client::Outgoing,
    token: Option<&ProgressToken>,
    context: &RequestContext<RoleServer>,
    input_closed: Option<&CancellationToken>,
) {
    match input_closed {
        Some(closed) => {
            tokio::select! {
                biased;
                () = closed.cancelled() => {}
                () = client::send(item, token, &context.peer) => {}
            }
        }
        None => client::send(item, token, &context.peer).await,
    }
}

impl McpServer {
    /// Answers one `tools/call` ([`ServerHandler::call_tool`](rmcp::ServerHandler::call_tool)):
    /// applies the `requestState` of a 2026-07-28 retry, runs the call with its client channel,
    /// and answers its result, or the `input_required` of its next round.
    pub(crate) async fn tools_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let version = version_of(&context);
        let caller = self.caller_of(&context);
        let mut args = request.arguments.map_or(Value::Null, Value::Object);
        let name: &str = &request.name;
        let dispatch = self.dispatch(name, version, &context)?;
        let mut rounds = InputRounds::of(version, &context, &args, &caller);
        // The answers to the tool's own requests (`Client::ask`, `Client::sample`): those of
        // earlier rounds (in the verified state), then this request's.
        let mut answers = serde_json::Map::new();
        if let (Some(state), Some(rounds)) = (&request.request_state, &mut rounds) {
            let responses = request.input_responses.as_ref();
            let resumed = self.resume(name, state, responses, &rounds.caller, &rounds.original)?;
            match self.apply_state(name, resumed, rounds, &mut args, version, &context)? {
                ControlFlow::Continue(earlier_answers) => answers = earlier_answers,
                ControlFlow::Break(response) => return Ok(response),
            }
        }
        let outbox = Arc::new(client::Outbox::default());
        if let Some(responses) = request.input_responses.filter(|_| rounds.is_some()) {
            answers.extend(responses);
        }
        let answers = rounds.is_some().then(|| client::Rounds::new(answers));
        let channel = self.call_channel(&context, version, &outbox, answers);
        // A task-capable tool called by a request that declared the tasks extension: a task,
        // once its questions are answered.
        if let crate::tasks::Dispatch::Task { tasks, writes } = dispatch {
            let call = crate::tasks::Call {
                name,
                args,
                caller,
                channel,
                outbox,
                rounds,
            };
            return self.call_or_task((&tasks, writes), call, &context).await;
        }
        let env = self
            .drive_call(name, args, caller, &channel, &outbox, &context)
            .await?;
        self.call_response(name, env, version, &context, rounds, &channel)
    }

    /// Applies the verified `requestState` of a 2026-07-28 retry: the fields it answers join
    /// `args`, and the answers of its earlier rounds to the tool's own requests go on with the
    /// call; a state that asks again, or refuses the call, is the call's answer.
    fn apply_state(
        &self,
        name: &str,
        (resume, expiry): (input_required::Resume, u64),
        rounds: &mut InputRounds,
        args: &mut Value,
        version: McpVersion,
        context: &RequestContext<RoleServer>,
    ) -> Result<ControlFlow<CallToolResponse, serde_json::Map<String, Value>>, ErrorData> {
        rounds.expires = Some(expiry);
        match resume {
            input_required::Resume::Answered(fields) => {
                if let Value::Object(map) = args {
                    map.extend(fields.clone());
                }
                rounds.earlier = fields;
                Ok(ControlFlow::Continue(serde_json::Map::new()))
            }
            input_required::Resume::AskAgain(question, answered) => {
                let (caller, original) = (&rounds.caller, &rounds.original);
                self.input_required(name, &question, answered, caller, original, rounds.expires)
                    .map(ControlFlow::Break)
            }
            input_required::Resume::Answers(earlier_answers) => {
                Ok(ControlFlow::Continue(earlier_answers))
            }
            input_required::Resume::Refused(env) => Ok(ControlFlow::Break(
                self.result_of(name, env, version, context)?.into(),
            )),
        }
    }

    /// The client channel of one call: the session's, with the call's `outbox` and
    /// (2026-07-28) the answers it arrived with.
    fn call_channel(
        &self,
        context: &RequestContext<RoleServer>,
        version: McpVersion,
        outbox: &Arc<client::Outbox>,
        rounds: Option<client::Rounds>,
    ) -> Arc<client::CallChannel> {
        Arc::new(client::CallChannel::new(
            context,
            &self.session,
            version,
            Arc::clone(outbox),
            rounds,
            self.input_closed.clone(),
            self.inner.client_timeout,
        ))
    }

    /// Runs the call through the pipeline ([`run_call`](Self::run_call)) with its client
    /// channel, sending its notifications while it runs ([`driving`]); its progress reports
    /// reach the client when the client sent a progress token.
    async fn drive_call(
        &self,
        name: &str,
        args: Value,
        caller: Caller,
        channel: &Arc<client::CallChannel>,
        outbox: &Arc<client::Outbox>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Envelope, ErrorData> {
        let token = context.meta.get_progress_token();
        // Boxed: the pipeline's future is large, and rmcp moves the request's future into a
        // task of its own, copying it whole on every call when it is held inline.
        let call = Box::pin(with_client(
            channel.clone(),
            self.run_call(name, args, caller, channel),
        ));
        match &token {
            // No token: progress reports are no-ops, and the outbox carries log messages only.
            None => driving(call, outbox, None, context, self.input_closed.as_ref()).await,
            Some(token) => {
                let sink: Arc<dyn ProgressSink> = outbox.clone();
                driving(
                    with_progress(sink, call),
                    outbox,
                    Some(token),
                    context,
                    self.input_closed.as_ref(),
                )
                .await
            }
        }
    }

    /// The answer to a call that ran: in 2026-07-28 rounds, the `input_required` of the tool's
    /// requests no answer met, or of a question for its `needs_input`; otherwise its result.
    pub(crate) fn call_response(
        &self,
        name: &str,
        env: Envelope,
        version: McpVersion,
        context: &RequestContext<RoleServer>,
        rounds: Option<InputRounds>,
        channel: &client::CallChannel,
    ) -> Result<CallToolResponse, ErrorData> {
        // 2026-07-28: a tool that failed for a capability the request did not declare is
        // `-32021`, naming it (the client may declare it and call again).
        if env.code.as_deref() == Some(toolsmith_core::codes::CLIENT_UNSUPPORTED) {
            if let Some(capability) = channel.missing_capability() {
                return Err(crate::errors::missing_capability(capability));
            }
        }
        if let Some(rounds) = rounds {
            if let Some(response) = self.ask_pending(name, &rounds, channel) {
                return response;
            }
            if let Some(response) = self.ask_missing(name, &env, rounds) {
                return response;
            }
        }
        Ok(self.result_of(name, env, version, context)?.into())
    }

    /// The `input_required` answer that carries the tool's requests no answer met (2026-07-28),
    /// if it made any.
    fn ask_pending(
        &self,
        name: &str,
        rounds: &InputRounds,
        channel: &client::CallChannel,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let requests = channel.rounds()?;
        // The tool asked for what no answer met: this run's result gives way to the
        // requests, and the next round runs the tool again with the answers.
        let pending = requests.pending();
        if pending.is_empty() {
            return None;
        }
        let asked = input_required::rounds(
            &self.inner.state_key,
            name,
            pending,
            requests.answers.clone(),
            &rounds.caller,
            &rounds.original,
            rounds.expires,
        );
        Some(asked.map(CallToolResponse::from).map_err(internal))
    }

    /// The `input_required` answer that asks the user for the missing fields of a `needs_input`
    /// (2026-07-28, a client that elicits forms), when a form can ask for them.
    fn ask_missing(
        &self,
        name: &str,
        env: &Envelope,
        rounds: InputRounds,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        if !rounds.asking {
            return None;
        }
        // A field answered in an earlier round and missing again is not asked twice: the
        // agent gets the `needs_input` (the client bounds the rounds too).
        let question = self
            .question_for(name, env)
            .filter(|q| !q.fields().iter().any(|f| rounds.earlier.contains_key(f)))?;
        let (caller, original) = (&rounds.caller, &rounds.original);
        Some(self.input_required(
            name,
            &question,
            rounds.earlier,
            caller,
            original,
            rounds.expires,
        ))
    }

    /// Runs one `tools/call` through the pipeline. When the client can answer questions, a
    /// `needs_input` whose `missing` fields are all plain parameters of the tool becomes one
    /// question to the user (`elicitation/create`), and the call runs again, through the whole
    /// pipeline, with the answers merged into its arguments: once, so a tool that answers
    /// `needs_input` again ends the call with it. A user who declines makes the envelope
    /// `cancelled_by_user` (`CANCELLED_BY_USER`; `QUESTION_DISMISSED` when the question was
    /// dismissed); an answer that does not fit is `INVALID_ANSWER`; a client that fails to ask
    /// leaves the `needs_input` as it was.
    pub(crate) async fn run_call(
        &self,
        name: &str,
        args: Value,
        caller: Caller,
        channel: &client::CallChannel,
    ) -> Envelope {
        let toolbox = &self.inner.toolbox;
        // No question can follow, or (2026-07-28) it follows in an `input_required` result
        // (`call_tool`): the arguments go to the call as they are.
        if !channel.can_elicit() || channel.rounds().is_some() {
            return toolbox
                .call_with(name, args, CallOptions::new().caller(caller))
                .await;
        }
        // Borrowed, so they are still here for a second run.
        let env = toolbox
            .call_with(name, &args, CallOptions::new().caller(caller.clone()))
            .await;
        let Some(question) = self.question_for(name, &env) else {
            return env;
        };
        let answer = match channel.elicit(&question).await {
            Ok(answer) => answer,
            // The client could not ask: the agent asks the user instead.
            Err(_) => return env,
        };
        match question.answered(answer) {
            Ok(fields) => {
                let mut merged = match args {
                    Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                merged.extend(fields);
                toolbox
                    .call_with(
                        name,
                        Value::Object(merged),
                        CallOptions::new().caller(caller),
                    )
                    .await
            }
            Err(e) => e.into_envelope(),
        }
    }

    /// The `CallToolResult` of an envelope of the tool `name` (a JSON-RPC error where the
    /// version makes the envelope one).
    pub(crate) fn result_of(
        &self,
        name: &str,
        env: Envelope,
        version: McpVersion,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(error) = protocol_error(&env, version) {
            return Err(error);
        }
        let toolbox = &self.inner.toolbox;
        // The kept full result, for the caller it was made for (the caller was moved into the
        // call's options; mapping the request again gives the same one, and is done only for
        // the few results that keep something).
        let link = env
            .reference
            .is_some()
            .then(|| toolbox.result_resource(name, &env, &self.caller_of(context)))
            .flatten();
        let catalog = self.inner.catalog.get(toolbox);
        // rmcp's result type built from the parts directly: no JSON tree to decode again.
        let parts = mcp_call_parts(catalog.specs.get(name), env, version).with_resource_link(link);
        let mut blocks = Vec::with_capacity(1 + parts.content.len());
        if !parts.text.is_empty() || parts.content.is_empty() {
            blocks.push(ContentBlock::text(parts.text));
        }
        // A tool's own content blocks (images, audio, resources, links), written by
        // `toolsmith_core::content` in MCP's shapes.
        for block in parts.content {
            blocks.push(serde_json::from_value::<ContentBlock>(block).map_err(internal)?);
        }
        blocks.extend(parts.resource_link.map(resource_link));
        let mut result = CallToolResult::success(blocks);
        result.structured_content = parts.structured_content;
        result.is_error = Some(parts.is_error);
        result.meta = (!parts.meta.is_empty()).then(|| MetaObject(parts.meta));
        result.result_type = Some(ResultType::COMPLETE);
        Ok(result)
    }

    /// The `input_required` answer that asks `question` (2026-07-28).
    fn input_required(
        &self,
        name: &str,
        question: &Question,
        earlier: serde_json::Map<String, Value>,
        caller: &Caller,
        args: &Value,
        expires: Option<u64>,
    ) -> Result<CallToolResponse, ErrorData> {
        input_required::ask(
            &self.inner.state_key,
            name,
            question,
            earlier,
            caller,
            args,
            expires,
        )
        .map(CallToolResponse::from)
        .map_err(internal)
    }

    /// Verifies a retry's `requestState` and reads its answer (2026-07-28).
    fn resume(
        &self,
        name: &str,
        state: &str,
        responses: Option<&rmcp::model::InputResponses>,
        caller: &Caller,
        args: &Value,
    ) -> Result<(input_required::Resume, u64), ErrorData> {
        let catalog = self.inner.catalog.get(&self.inner.toolbox);
        let Some(spec) = catalog.specs.get(name) else {
            return Err(ErrorData::invalid_params(
                format!("the requestState names no tool of this server (\"{name}\")"),
                None,
            ));
        };
        input_required::resume(
            &self.inner.state_key,
            name,
            &spec.input_schema,
            state,
            responses,
            caller,
            args,
        )
        .map_err(|why| ErrorData::invalid_params(why, None))
    }

    /// The question for the missing fields of a `needs_input` envelope: `None` when the
    /// envelope is something else, names no field, or a field is not a parameter of the tool a
    /// form can ask for.
    fn question_for(&self, name: &str, env: &Envelope) -> Option<Question> {
        if env.status != Status::NeedsInput || env.missing.is_empty() {
            return None;
        }
        let toolbox = &self.inner.toolbox;
        let catalog = self.inner.catalog.get(toolbox);
        let spec = catalog.specs.get(name)?;
        let message = env.message.clone().unwrap_or_default();
        Question::for_fields(message, &spec.input_schema, &env.missing).ok()
    }
}
