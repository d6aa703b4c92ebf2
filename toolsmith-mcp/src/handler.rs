//! The request handler: rmcp's `ServerHandler` for [`McpServer`]. Tools are the toolbox's
//! (`tools/call` in `call.rs`); prompts, resources and completions go to the handler of
//! [`McpServer::with_handler`] (`compose.rs`); each session's watcher reports tool-list changes.

use crate::server::McpServer;
use crate::version::{version_of, VERSIONS};
use crate::watch::next_retirement;
use crate::{client, compose};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams, UpdateTaskParams,
};
#[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, in the 2025 revisions
use rmcp::model::{SetLevelRequestMethod, SetLevelRequestParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use toolsmith_core::export::McpVersion;

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // logging: deprecated in 2026-07-28, in the 2025 revisions
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            // The full results kept when a result is cut (or a keyed write's), read by the
            // URI of the `resource_link` in the call's result; per caller and short-lived, so
            // `resources/list` lists none of them.
            .enable_resources()
            .enable_tool_list_changed()
            .build();
        let mut capabilities = capabilities;
        // MCP Apps: each tool's form, for clients that announce the extension too (`apps`).
        if self.inner.apps {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    toolsmith_spec::ui::APP_EXTENSION.to_string(),
                    serde_json::Map::from_iter([(
                        "mimeTypes".to_string(),
                        Value::from(vec![toolsmith_spec::ui::APP_MIME_TYPE]),
                    )]),
                );
        }
        // Tasks (2026-07-28, SEP-2663), when the server keeps them (`tasks`).
        if self.inner.tasks.is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_string(),
                    serde_json::Map::new(),
                );
        }
        let own = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        // With the prompts, resources and completions of the handler, if any.
        match self.handler() {
            Some(handler) => compose::merged(own, handler),
            None => own,
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(VERSIONS.to_vec())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let version = version_of(&context);
        let toolbox = &self.inner.toolbox;
        let apps = self.apps_for(&context, version);
        let list = self
            .inner
            .catalog
            .get(toolbox)
            .list(toolbox, version, apps)?;
        let mut list = ListToolsResult::clone(&list);
        self.inner.list_cache.apply(&mut list, version);
        Ok(list)
    }

    /// The tool as listed to 2026-07-28 clients (rmcp checks `Mcp-Param-*` headers against its
    /// input schema).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let toolbox = &self.inner.toolbox;
        let list = self
            .inner
            .catalog
            .get(toolbox)
            .list(toolbox, McpVersion::V2026_07_28, false)
            .ok()?;
        list.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools_call(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.get_task_of(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.update_task_of(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_of(request, context).await
    }

    /// Sets the session's log level (2025 revisions); 2026-07-28 has no such request (each
    /// call names its level in `_meta`).
    #[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, in the 2025 revisions
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if version_of(&context) == McpVersion::V2026_07_28 {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        self.session.set_level(client::level_of(request.level));
        Ok(())
    }

    // Prompts, resources and completions: the handler's (`compose.rs`).

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.handler_complete(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.handler_get_prompt(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.handler_list_prompts(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.handler_list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.handler_list_resource_templates(request, context).await
    }

    /// The toolbox's own URIs (`toolsmith:`) are read by `read_toolbox_resource`, every other
    /// one by the handler.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.route_read_resource(request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler_subscribe(request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler_unsubscribe(request, context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.inner.starts.acknowledge_watch(&self.inner.toolbox);
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // One watcher per session: it ends when sending to the client fails (on the next
        // change), when the toolbox is dropped, when a later session finds this one ended (see
        // `Watchers`) or when the server is dropped.
        let (mut changes, missed) = self.inner.starts.start_watch(&self.inner.toolbox);
        let peer = context.peer;
        // Weak: the watcher must not keep the toolbox alive (its end ends the watch).
        let toolbox = Arc::downgrade(&self.inner.toolbox);
        let watcher = tokio::spawn({
            let peer = peer.clone();
            async move {
                if missed && peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
                loop {
                    tokio::select! {
                        changed = changes.changed() => {
                            if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                                break;
                            }
                        }
                        // A deprecated tool's retirement time came: the toolbox retires it
                        // when asked, and the change arrives above.
                        () = next_retirement(&toolbox) => {}
                    }
                }
            }
        });
        self.inner.watchers.add(peer, watcher.abort_handle());
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // rmcp acknowledges the stream right after this returns, before `listen` runs.
        self.inner.starts.acknowledge_watch(&self.inner.toolbox);
        let own = SubscriptionFilter::builder().tools_list_changed().build();
        // And what the handler accepts (prompts, resources).
        Some(self.with_handler_filter(own, requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let (mut changes, missed) = self.inner.starts.start_watch(&self.inner.toolbox);
        let toolbox = Arc::downgrade(&self.inner.toolbox);
        let wanted = context.accepted().tools_list_changed == Some(true);
        let sink = context.sink().clone();
        let cancelled = context.request_context().ct.clone();
        // The handler's notifications go on the same stream, from its own `listen`; the stream
        // ends when either side ends it.
        let mut theirs = self.handler_listen(context);
        if missed && wanted && sink.notify_tool_list_changed().await.is_err() {
            return Ok(());
        }
        loop {
            tokio::select! {
                () = cancelled.cancelled() => return Ok(()),
                ended = &mut theirs => return ended,
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if wanted && sink.notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                () = next_retirement(&toolbox) => {}
            }
        }
    }
}
