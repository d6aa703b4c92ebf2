//! The handler a host gives [`McpServer::with_handler`](crate::McpServer::with_handler), as the
//! server holds it: [`Delegate`], an object-safe view of the rmcp `ServerHandler` methods it
//! forwards, so `McpServer` stays one type whatever handler it is given.

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::future::Future;
use std::pin::Pin;

/// The future of one delegated request.
pub(crate) type Reply<'a, T> = Pin<Box<dyn Future<Output = Result<T, ErrorData>> + Send + 'a>>;

/// The methods [`McpServer`] forwards to the handler given to [`McpServer::with_handler`], with
/// boxed futures so the handler can sit behind a pointer (rmcp's `ServerHandler` returns
/// `impl Future` and is not object safe). Every rmcp `ServerHandler` is one.
pub(crate) trait Delegate: Send + Sync + 'static {
    fn config(&self) -> ServerConfig;
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, CompleteResult>;
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, GetPromptResponse>;
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListPromptsResult>;
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListResourcesResult>;
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListResourceTemplatesResult>;
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ReadResourceResponse>;
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()>;
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()>;
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter>;
    fn listen(&self, context: SubscriptionContext) -> Reply<'_, ()>;
}

impl<H: ServerHandler> Delegate for H {
    fn config(&self) -> ServerConfig {
        self.get_info()
    }
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, CompleteResult> {
        Box::pin(ServerHandler::complete(self, request, context))
    }
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, GetPromptResponse> {
        Box::pin(ServerHandler::get_prompt(self, request, context))
    }
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListPromptsResult> {
        Box::pin(ServerHandler::list_prompts(self, request, context))
    }
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListResourcesResult> {
        Box::pin(ServerHandler::list_resources(self, request, context))
    }
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListResourceTemplatesResult> {
        Box::pin(ServerHandler::list_resource_templates(
            self, request, context,
        ))
    }
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ReadResourceResponse> {
        Box::pin(ServerHandler::read_resource(self, request, context))
    }
    // rmcp marks both deprecated: they are the 2025 revisions' subscriptions, which the server
    // still speaks (2026-07-28 clients use `subscriptions/listen`).
    #[allow(deprecated)]
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()> {
        Box::pin(ServerHandler::subscribe(self, request, context))
    }
    #[allow(deprecated)]
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()> {
        Box::pin(ServerHandler::unsubscribe(self, request, context))
    }
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        ServerHandler::accepted_subscription_filter(self, requested)
    }
    fn listen(&self, context: SubscriptionContext) -> Reply<'_, ()> {
        Box::pin(ServerHandler::listen(self, context))
    }
}
