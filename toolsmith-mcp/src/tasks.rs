//! Tasks over MCP (2026-07-28, the extension `io.modelcontextprotocol/tasks`, SEP-2663): a
//! `tools/call` that becomes a task, and `tasks/get`, `tasks/update`, `tasks/cancel`, each
//! answered from the [`Tasks`] store (see [`McpServer::tasks`]).
//!
//! rmcp gates the `tasks/*` methods on the extension (`-32021` for a request that does not
//! declare it, `-32601` for a server that does not serve tasks) and refuses a task to such a
//! request; this module decides which calls become tasks and maps the records.

use crate::client;
use crate::server::McpServer;
use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, CreateTaskResult, DetailedTask,
    GetTaskParams, GetTaskResult, InputRequests, JsonObject, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{json, Value};
use std::sync::Arc;
use std::task::Poll;
use toolsmith_core::export::McpVersion;
use toolsmith_core::state::task::{TaskError, TaskRecord, TaskStatus, Tasks};
use toolsmith_core::state::BoxFuture;
use toolsmith_core::{with_client, with_progress, Caller, Envelope, ProgressSink, TaskSupport};

/// A `tools/call` ready to run: what `call_or_task` needs of it.
pub(crate) struct Call<'a> {
    pub(crate) name: &'a str,
    pub(crate) args: Value,
    pub(crate) caller: Caller,
    pub(crate) channel: Arc<client::CallChannel>,
    pub(crate) outbox: Arc<client::Outbox>,
    pub(crate) rounds: Option<crate::call::InputRounds>,
}

/// What a `tools/call` of a task-capable server does with the call.
pub(crate) enum Dispatch {
    /// Run it in its request.
    Direct,
    /// Run it as a task (once it first waits) in `tasks`; `writes`: whether the tool declares
    /// writes (a lapsed run is then `OUTCOME_UNKNOWN`).
    Task { tasks: Tasks, writes: bool },
}

/// Whether the request declared the tasks extension (in its `_meta`, 2026-07-28).
fn declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks())
}

/// The JSON-RPC error of a task operation.
fn task_error(e: TaskError) -> ErrorData {
    match e {
        TaskError::NotFound(_) => ErrorData::invalid_params(e.to_string(), None),
        TaskError::TooManyForCaller { .. }
        | TaskError::TooManyLive { .. }
        | TaskError::TooManyRunning { .. } => ErrorData::invalid_request(e.to_string(), None),
        _ => ErrorData::internal_error(e.to_string(), None),
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

impl McpServer {
    /// How `tools/call` of `name` runs: as a task when the server serves tasks, the tool
    /// supports them and the request declared the extension; a tool that requires a task,
    /// called without it, is refused (`-32021`).
    pub(crate) fn dispatch(
        &self,
        name: &str,
        version: McpVersion,
        context: &RequestContext<RoleServer>,
    ) -> Result<Dispatch, ErrorData> {
        let Some(tasks) = &self.inner.tasks else {
            return Ok(Dispatch::Direct);
        };
        if version != McpVersion::V2026_07_28 {
            return Ok(Dispatch::Direct);
        }
        let catalog = self.inner.catalog.get(&self.inner.toolbox);
        let spec = catalog.specs.get(name);
        let support = spec.map_or(TaskSupport::Forbidden, |s| s.task);
        match (support, declares_tasks(context)) {
            (TaskSupport::Forbidden, _) => Ok(Dispatch::Direct),
            (_, true) => Ok(Dispatch::Task {
                tasks: tasks.clone(),
                writes: spec.is_some_and(|s| s.effects.writes),
            }),
            (TaskSupport::Required, false) => Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            )),
            (TaskSupport::Optional, false) => Ok(Dispatch::Direct),
        }
    }

    /// Runs `tools/call` as a task: the call is polled once in its request, so the questions
    /// a tool asks before it starts work go to the client in `input_required` rounds (MRTR)
    /// and a call that ends at once is answered at once; a call still running after that
    /// becomes a task, answered with its id (`resultType: "task"`), and runs on through the
    /// toolbox's pipeline in the background, its further questions going to the task's
    /// `inputRequests`.
    pub(crate) async fn call_or_task(
        &self,
        (tasks, writes): (&Tasks, bool),
        call: Call<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let version = McpVersion::V2026_07_28;
        let Call {
            name,
            args,
            caller,
            channel,
            outbox,
            rounds,
        } = call;
        let owner = caller.clone();
        let server = self.clone();
        let (tool, running) = (name.to_string(), Arc::clone(&channel));
        let sink: Arc<dyn ProgressSink> = outbox.clone();
        let mut run: BoxFuture<'static, Envelope> = Box::pin(with_progress(
            sink,
            with_client(
                Arc::clone(&channel) as Arc<dyn toolsmith_core::ClientChannel>,
                async move { server.run_call(&tool, args, caller, &running).await },
            ),
        ));
        let first = std::future::poll_fn(|cx| Poll::Ready(run.as_mut().poll(cx))).await;
        if let Poll::Ready(env) = first {
            // Its notifications go out before its answer, as a direct call's do.
            let token = context.meta.get_progress_token();
            let ready = std::future::ready(env);
            let env = crate::call::driving(ready, &outbox, token.as_ref(), context, None).await?;
            return self.call_response(name, env, version, context, rounds, &channel);
        }
        let record = tasks
            .start(name, &owner, writes, move |task| {
                let status = task.clone();
                channel.run_as(task);
                Box::pin(async move {
                    // Progress messages become the task's status message; log messages have
                    // no stream to go to (2026-07-28 sends them on a request's own stream).
                    loop {
                        tokio::select! {
                            biased;
                            env = &mut run => break env,
                            () = outbox.ready.notified() => {
                                let mut last = None;
                                while let Some(item) = outbox.pop() {
                                    if let client::Outgoing::Progress(r) = item {
                                        last = r.message.or(last);
                                    }
                                }
                                if let Some(message) = last {
                                    let _ = status.status_message(&message).await;
                                }
                            }
                        }
                    }
                })
            })
            .await
            .map_err(task_error)?;
        Ok(CallToolResponse::Task(CreateTaskResult::new(task_of(
            &record,
        ))))
    }

    /// `tasks/get`: the task with its status's payload (its result, its error or its open
    /// questions).
    pub(crate) async fn get_task_of(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let tasks = self.served_tasks()?;
        let caller = self.caller_of(&context);
        let record = tasks
            .get(&request.task_id, &caller)
            .await
            .map_err(task_error)?;
        Ok(GetTaskResult::new(self.detailed(record, &context)?))
    }

    /// `tasks/update`: answers the task's open questions (keys that name none are ignored).
    pub(crate) async fn update_task_of(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.served_tasks()?;
        let caller = self.caller_of(&context);
        let responses = serde_json::to_value(&request.input_responses)
            .map(object)
            .unwrap_or_default();
        tasks
            .answer(&request.task_id, &caller, responses)
            .await
            .map_err(task_error)
    }

    /// `tasks/cancel`: asks the task's runner to stop; an ended task is left as it is.
    pub(crate) async fn cancel_task_of(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.served_tasks()?;
        let caller = self.caller_of(&context);
        tasks
            .cancel(&request.task_id, &caller)
            .await
            .map_err(task_error)
    }

    fn served_tasks(&self) -> Result<&Tasks, ErrorData> {
        self.inner
            .tasks
            .as_ref()
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }

    /// The record as MCP's `DetailedTask`: a completed call's envelope becomes its result as a
    /// direct call's would (through the same pipeline, for the caller who polls), or its
    /// JSON-RPC error (`failed`) where the revision makes the envelope one.
    fn detailed(
        &self,
        record: TaskRecord,
        context: &RequestContext<RoleServer>,
    ) -> Result<DetailedTask, ErrorData> {
        let task = task_of(&record);
        let payload = match record.status {
            TaskStatus::Working => TaskPayload::Working,
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => {
                let requests: InputRequests =
                    serde_json::from_value(Value::Object(record.input_requests)).map_err(|e| {
                        ErrorData::internal_error(
                            format!("the task's input requests do not decode: {e}"),
                            None,
                        )
                    })?;
                TaskPayload::InputRequired {
                    input_requests: requests,
                }
            }
            TaskStatus::Completed => {
                let Some(mut env) = record.envelope else {
                    return Err(ErrorData::internal_error(
                        "a completed task's record holds no envelope",
                        None,
                    ));
                };
                // The policy again, for the caller who polls: a scope or role taken away since
                // the call started refuses the result as it would refuse the call.
                let caller = self.caller_of(context);
                if let Some(Err(denial)) = self.inner.toolbox.policy_check(&record.tool, &caller) {
                    env = denial.into_envelope();
                }
                match self.result_of(&record.tool, env, McpVersion::V2026_07_28, context) {
                    Ok(result) => TaskPayload::Completed {
                        result: serde_json::to_value(result)
                            .map(object)
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?,
                    },
                    Err(error) => TaskPayload::Failed {
                        error: serde_json::to_value(error).map(object).unwrap_or_default(),
                    },
                }
            }
            TaskStatus::Failed => {
                let failure =
                    record
                        .failure
                        .unwrap_or_else(|| toolsmith_core::state::task::TaskFailure {
                            code: "TASK_FAILED".into(),
                            message: "the task failed".into(),
                        });
                TaskPayload::Failed {
                    error: object(json!({
                        "code": rmcp::model::ErrorCode::INTERNAL_ERROR.0,
                        "message": failure.message,
                        "data": {"code": failure.code},
                    })),
                }
            }
        };
        Ok(DetailedTask::new(task, payload))
    }
}

/// The task's fields as MCP names them.
fn task_of(record: &TaskRecord) -> Task {
    let status = match record.status {
        TaskStatus::Working => rmcp::model::TaskStatus::Working,
        TaskStatus::InputRequired => rmcp::model::TaskStatus::InputRequired,
        TaskStatus::Completed => rmcp::model::TaskStatus::Completed,
        TaskStatus::Failed => rmcp::model::TaskStatus::Failed,
        TaskStatus::Cancelled => rmcp::model::TaskStatus::Cancelled,
    };
    let mut task = Task::new(
        record.id.clone(),
        status,
        record.created_at(),
        record.updated_at(),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(record.poll_ms);
    if let Some(message) = &record.status_message {
        task = task.with_status_message(message.clone());
    }
    task
}
