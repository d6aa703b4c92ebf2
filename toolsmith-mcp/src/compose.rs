//! The rest of an MCP server beside the toolbox: prompts, resources, resource templates, resource
//! subscriptions and completions, served by an rmcp `ServerHandler` the host hands to
//! [`McpServer::with_handler`].
//!
//! toolsmith owns the tools (`tools/list`, `tools/call`, their notifications) and the session's
//! lifecycle; everything else a server offers is rmcp's business, written with rmcp's own types
//! (or its `#[prompt_router]` macros). [`McpServer`] holds the handler behind [`Delegate`], an
//! object-safe view of the methods it forwards, so `McpServer` stays one type whatever handler
//! it is given.
//!
//! | request | answered by |
//! |---|---|
//! | `initialize`, `server/discover`, `ping`, `tools/*`, tool notifications | the toolbox ([`McpServer`]) |
//! | `prompts/list`, `prompts/get` | the handler |
//! | `resources/list`, `resources/templates/list` | the handler |
//! | `resources/read` | the toolbox for its own URIs (`toolsmith:`, [`McpServer::read_toolbox_resource`]), the handler for every other |
//! | `resources/subscribe`, `resources/unsubscribe` (2025 revisions) | the handler |
//! | `subscriptions/listen` (2026-07-28) | both: tool-list changes from the toolbox, what the handler accepts from the handler, on one stream |
//! | `completion/complete` | the handler |
//!
//! Without a handler each of these answers as rmcp's default handler does: an empty list where
//! the server declares the capability, `-32601` (method not found) elsewhere.

use crate::delegate::{Delegate, Reply};
use crate::server::McpServer;
use rmcp::model::{
    CompleteRequestMethod, CompleteRequestParams, CompleteResult, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestMethod, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestMethod, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::sync::Arc;

/// The URI scheme of the toolbox's own resources, which [`McpServer`] reads itself and never
/// forwards to the handler (compared without regard to case, as URI schemes are).
pub(crate) const TOOLBOX_SCHEME: &str = "toolsmith:";

/// Whether `uri` names one of the toolbox's own resources (scheme [`TOOLBOX_SCHEME`]).
pub(crate) fn is_toolbox_uri(uri: &str) -> bool {
    uri.get(..TOOLBOX_SCHEME.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(TOOLBOX_SCHEME))
}

/// The longest URI quoted back in an error's `data`, in bytes.
const MAX_QUOTED_URI: usize = 2048;

/// Resource-not-found (`-32002`; rmcp sends it as `-32602` to 2026-07-28 clients, as that
/// revision asks) for `uri`, quoted in `data` as the specification's example does.
pub(crate) fn resource_not_found(uri: &str, why: &str) -> ErrorData {
    let data = (uri.len() <= MAX_QUOTED_URI).then(|| serde_json::json!({ "uri": uri }));
    ErrorData::resource_not_found(format!("Resource not found: {why}"), data)
}

/// The capabilities the server declares: its own (the tools), and from the handler's its
/// `prompts`, `resources` and `completions`, with the handler's `instructions` when the server
/// has none. The handler's other capabilities (logging, extensions, experimental ones) are not
/// taken: the server does not forward their requests.
pub(crate) fn merged(mut own: ServerConfig, handler: &dyn Delegate) -> ServerConfig {
    let theirs = handler.config();
    let ServerCapabilities {
        prompts,
        resources,
        completions,
        ..
    } = theirs.capabilities;
    own.capabilities.prompts = own.capabilities.prompts.or(prompts);
    own.capabilities.completions = own.capabilities.completions.or(completions);
    own.capabilities.resources = match (own.capabilities.resources, resources) {
        (Some(mut mine), Some(theirs)) => {
            mine.subscribe = Some(mine.subscribe == Some(true) || theirs.subscribe == Some(true));
            mine.list_changed =
                Some(mine.list_changed == Some(true) || theirs.list_changed == Some(true));
            Some(mine)
        }
        (mine, theirs) => mine.or(theirs),
    };
    own.instructions = own.instructions.or(theirs.instructions);
    own
}

/// The union of two subscription filters (each category accepted by either).
pub(crate) fn union(a: SubscriptionFilter, b: SubscriptionFilter) -> SubscriptionFilter {
    let either =
        |x: Option<bool>, y: Option<bool>| (x == Some(true) || y == Some(true)).then_some(true);
    let resource_subscriptions = match (a.resource_subscriptions, b.resource_subscriptions) {
        (Some(mut x), Some(y)) => {
            for uri in y {
                if !x.contains(&uri) {
                    x.push(uri);
                }
            }
            Some(x)
        }
        (x, y) => x.or(y),
    };
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = either(a.tools_list_changed, b.tools_list_changed);
    filter.prompts_list_changed = either(a.prompts_list_changed, b.prompts_list_changed);
    filter.resources_list_changed = either(a.resources_list_changed, b.resources_list_changed);
    filter.resource_subscriptions = resource_subscriptions;
    filter
}

impl McpServer {
    /// Serves prompts, resources, resource templates, resource subscriptions and completions with
    /// `handler`, an rmcp `ServerHandler`, beside the toolbox's tools.
    ///
    /// The server forwards to it `prompts/list`, `prompts/get`, `resources/list`,
    /// `resources/templates/list`, `resources/read` (except the toolbox's own `toolsmith:` URIs),
    /// `resources/subscribe`, `resources/unsubscribe` and `completion/complete`, and on
    /// 2026-07-28 the notifications its `accepted_subscription_filter` and `listen` take on a
    /// `subscriptions/listen` stream, beside the toolbox's tool-list changes. It declares the
    /// `prompts`, `resources` and `completions` capabilities of the handler's `get_info` (and its
    /// `instructions`); the tools, the session's lifecycle and the server's name stay the
    /// toolbox's, and the handler's tool methods, logging and other requests are never called.
    ///
    /// One handler serves every session of the server (clones of the server share it): state it
    /// keeps per client, such as subscriptions, is keyed by the request's peer.
    ///
    /// ```no_run
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod mcp { pub use toolsmith_mcp::*; } }
    /// # async fn run(toolbox: toolsmith::Toolbox) -> Result<(), toolsmith::mcp::ServeError> {
    /// use rmcp::model::{ServerCapabilities, ServerConfig};
    /// use toolsmith::mcp::McpServer;
    ///
    /// /// Prompts and resources, written with rmcp's own types.
    /// struct Library;
    ///
    /// impl rmcp::ServerHandler for Library {
    ///     fn get_info(&self) -> ServerConfig {
    ///         ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    ///     }
    ///     // list_prompts, get_prompt, ...
    /// }
    ///
    /// McpServer::new(toolbox).with_handler(Library).serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn with_handler(self, handler: impl ServerHandler) -> Self {
        let handler: Arc<dyn Delegate> = Arc::new(handler);
        self.map(|i| i.handler = Some(handler))
    }

    pub(crate) fn handler(&self) -> Option<&dyn Delegate> {
        self.inner.handler.as_deref()
    }

    /// Whether the server declares a capability (what rmcp's default handler checks before it
    /// answers a list with an empty one).
    fn declares(&self, capability: impl FnOnce(&ServerCapabilities) -> bool) -> bool {
        capability(&ServerHandler::get_info(self).capabilities)
    }

    /// Reads one of the toolbox's own resources, a URI of scheme `toolsmith:`.
    ///
    /// The toolbox's kept results (the full results the output budget refers to, announced as
    /// `resource_link`s) are served here, to the caller each was made for
    /// ([`Toolbox::read_result`](toolsmith_core::Toolbox::read_result)). The URIs of this scheme never
    /// reach the handler given to [`with_handler`](Self::with_handler), so it cannot answer for
    /// them.
    pub(crate) async fn read_toolbox_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // A kept result by the URI its `resource_link` gave, for the caller it was made for
        // (`Toolbox::read_result`): its JSON as text, `application/json`.
        let caller = self.caller_of(&context);
        let value = self
            .inner
            .toolbox
            .read_result(&request.uri, &caller)
            .await
            .map_err(|e| crate::errors::read_error(&request.uri, &e))?;
        let text = serde_json::to_string(&value).map_err(crate::errors::internal)?;
        let contents = rmcp::model::ResourceContents::text(text, request.uri)
            .with_mime_type(toolsmith_core::budget::RESULT_MIME_TYPE);
        // rmcp gives 2026-07-28 clients the cache hints a result without its own gets: private
        // to the caller, fresh for 0 ms.
        Ok(rmcp::model::ReadResourceResult::new(vec![contents]).into())
    }

    /// A tool's MCP App (`ui://toolsmith/<tool>`), for a client that announced the extension.
    fn read_app(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !self.inner.apps {
            return Err(resource_not_found(
                uri,
                "this server serves no tool forms (its MCP Apps are switched off)",
            ));
        }
        if !self.apps_for(context, crate::version::version_of(context)) {
            return Err(resource_not_found(
                uri,
                "tool forms are served to clients that announce the MCP Apps extension (io.modelcontextprotocol/ui)",
            ));
        }
        let toolbox = &self.inner.toolbox;
        let catalog = self.inner.catalog.get(toolbox);
        let spec = toolsmith_spec::ui::app_tool(uri)
            .and_then(|tool| catalog.specs.get(tool))
            .ok_or_else(|| resource_not_found(uri, "no tool of this server has this form"))?;
        Ok(crate::apps::read(spec, uri).into())
    }

    pub(crate) async fn handler_complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        match self.handler() {
            Some(h) => h.complete(request, context).await,
            None if self.declares(|c| c.completions.is_some()) => Ok(CompleteResult::default()),
            None => Err(ErrorData::method_not_found::<CompleteRequestMethod>()),
        }
    }

    pub(crate) async fn handler_get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        match self.handler() {
            Some(h) => h.get_prompt(request, context).await,
            None => Err(ErrorData::method_not_found::<GetPromptRequestMethod>()),
        }
    }

    pub(crate) async fn handler_list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        match self.handler() {
            Some(h) => h.list_prompts(request, context).await,
            None if self.declares(|c| c.prompts.is_some()) => Ok(ListPromptsResult::default()),
            None => Err(ErrorData::method_not_found::<ListPromptsRequestMethod>()),
        }
    }

    pub(crate) async fn handler_list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        match self.handler() {
            Some(h) => h.list_resources(request, context).await,
            None if self.declares(|c| c.resources.is_some()) => Ok(ListResourcesResult::default()),
            None => Err(ErrorData::method_not_found::<ListResourcesRequestMethod>()),
        }
    }

    pub(crate) async fn handler_list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        match self.handler() {
            Some(h) => h.list_resource_templates(request, context).await,
            None if self.declares(|c| c.resources.is_some()) => {
                Ok(ListResourceTemplatesResult::default())
            }
            None => Err(ErrorData::method_not_found::<
                ListResourceTemplatesRequestMethod,
            >()),
        }
    }

    /// `resources/read`: the toolbox's own URIs here, every other one to the handler.
    pub(crate) async fn route_read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if is_toolbox_uri(&request.uri) {
            return self.read_toolbox_resource(request, context).await;
        }
        if crate::apps::is_app_uri(&request.uri) {
            return self.read_app(&request.uri, &context);
        }
        match self.handler() {
            Some(h) => h.read_resource(request, context).await,
            None => Err(resource_not_found(
                &request.uri,
                "the server has no resource at this URI",
            )),
        }
    }

    pub(crate) async fn handler_subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.handler() {
            Some(h) => h.subscribe(request, context).await,
            None => Err(ErrorData::method_not_found::<SubscribeRequestMethod>()),
        }
    }

    pub(crate) async fn handler_unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.handler() {
            Some(h) => h.unsubscribe(request, context).await,
            None => Err(ErrorData::method_not_found::<UnsubscribeRequestMethod>()),
        }
    }

    /// The filter a `subscriptions/listen` stream is accepted with: the toolbox's own (`own`)
    /// and what the handler accepts of `requested`.
    pub(crate) fn with_handler_filter(
        &self,
        own: SubscriptionFilter,
        requested: &SubscriptionFilter,
    ) -> SubscriptionFilter {
        match self
            .handler()
            .and_then(|h| h.accepted_subscription_filter(requested))
        {
            Some(theirs) => union(own, theirs),
            None => own,
        }
    }

    /// The handler's side of a `subscriptions/listen` stream: its `listen`, which sends on the
    /// stream's sink (rmcp filters it to what was accepted), when it accepts any of what the
    /// client requested. Otherwise a future that never ends and holds `context`: the stream's
    /// sink works only while its context lives, and the toolbox's side sends on it.
    pub(crate) fn handler_listen(&self, context: SubscriptionContext) -> Reply<'_, ()> {
        match self.handler() {
            Some(h)
                if h.accepted_subscription_filter(context.requested())
                    .is_some() =>
            {
                h.listen(context)
            }
            _ => Box::pin(async move {
                let _alive = context;
                std::future::pending().await
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_toolbox_uri, union};
    use rmcp::model::SubscriptionFilter;

    #[test]
    fn the_toolbox_scheme_is_matched_without_regard_to_case_and_only_as_a_scheme() {
        assert!(is_toolbox_uri("toolsmith://results/abc"));
        assert!(is_toolbox_uri("ToolSmith:abc"));
        assert!(!is_toolbox_uri("test://toolsmith:x"));
        assert!(!is_toolbox_uri("toolsmith"));
        assert!(!is_toolbox_uri(""));
        // A multi-byte character where the scheme would end is no panic.
        assert!(!is_toolbox_uri("toolsmit\u{e9}://x"));
    }

    #[test]
    fn a_union_of_filters_takes_every_category_and_each_uri_once() {
        let a = SubscriptionFilter::builder().tools_list_changed().build();
        let mut b = SubscriptionFilter::builder().prompts_list_changed().build();
        b.resource_subscriptions = Some(vec!["test://a".into(), "test://b".into()]);
        let mut c = SubscriptionFilter::new();
        c.resource_subscriptions = Some(vec!["test://b".into(), "test://c".into()]);
        let all = union(union(a, b), c);
        assert_eq!(all.tools_list_changed, Some(true));
        assert_eq!(all.prompts_list_changed, Some(true));
        assert_eq!(all.resources_list_changed, None);
        assert_eq!(
            all.resource_subscriptions.unwrap(),
            ["test://a", "test://b", "test://c"]
        );
    }
}
