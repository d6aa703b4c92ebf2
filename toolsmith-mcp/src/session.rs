//! One session over a stream transport (stdio, or any rmcp transport): [`McpServer::serve`],
//! and the session handler that ends the session soon after its input closes.

use crate::errors::ServeError;
use crate::server::McpServer;
use rmcp::model::{
    ClientNotification, ClientRequest, ProtocolVersion, ServerConfig, ServerResult,
    SubscriptionsListenResult,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer};
use std::borrow::Cow;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

impl McpServer {
    /// Serves one client on this process's stdin and stdout until it disconnects.
    ///
    /// # Errors
    /// When the session cannot start or the transport fails.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve(rmcp::transport::stdio()).await
    }

    /// Serves one client over any rmcp transport (a duplex stream in tests) until it
    /// disconnects.
    ///
    /// Returns soon after the client closes its side (end of input): the answers to requests
    /// still running are sent first (rmcp waits up to 5 s for them), and the client's
    /// `subscriptions/listen` streams end at once with their final result, as they would when
    /// the server shuts down, so an open subscription never holds the session up.
    ///
    /// # Errors
    /// When the session cannot start or the transport fails.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let input_closed = CancellationToken::new();
        let transport = WatchedInput {
            inner: transport.into_transport(),
            closed: input_closed.clone(),
        };
        let session = Session {
            server: McpServer {
                inner: self.inner,
                // The session's own state (its log level), as `for_session` gives.
                session: Arc::default(),
                input_closed: Some(input_closed.clone()),
            },
            input_closed,
        };
        let running = rmcp::serve_server(session, transport)
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    }
}

/// The handler of one session served by [`McpServer::serve`]: the server, and the end of the
/// session's input ([`WatchedInput`]).
///
/// Once the input has closed, rmcp's service loop stops reading and sending anything but
/// answers, and waits (up to 5 s) for every request handler still running to answer before it
/// ends; it cancels their requests only after that wait. Two kinds of handler would hold it
/// for the whole wait:
///
/// - a `subscriptions/listen` stream answers only when its request is cancelled, and one whose
///   acknowledgment was being sent when the input closed waits for a delivery report the loop
///   no longer gives; so each ends at once here, with the final result of a stream the server
///   ends (`SubscriptionsListenResult`);
/// - a call that reports progress waits for each notification's delivery report the same way;
///   [`reporting_progress`] stops sending reports once the input has closed (the session's
///   server holds the same token), and the call's answer still goes out.
///
/// Without this a session with an open subscription took those 5 s to end (and the TypeScript
/// SDK's client, which waits 2 s for a stdio server to exit, killed it).
struct Session {
    /// The server, its `input_closed` set to the same token.
    server: McpServer,
    input_closed: CancellationToken,
}

impl rmcp::Service<RoleServer> for Session {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        if !matches!(request, ClientRequest::SubscriptionsListenRequest(_)) {
            return rmcp::Service::handle_request(&self.server, request, context).await;
        }
        let id = context.id.clone();
        tokio::select! {
            result = rmcp::Service::handle_request(&self.server, request, context) => result,
            () = self.input_closed.cancelled() => {
                let mut ended = SubscriptionsListenResult::complete(id);
                ended.meta.set_server_info(self.server.inner.info.clone());
                Ok(ServerResult::SubscriptionsListenResult(ended))
            }
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        rmcp::Service::handle_notification(&self.server, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        rmcp::Service::get_info(&self.server)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        rmcp::Service::supported_protocol_versions(&self.server)
    }
}

/// A transport whose end of input is announced: when `receive` finds no more messages,
/// `closed` is cancelled (see [`Session`]).
struct WatchedInput<T> {
    inner: T,
    closed: CancellationToken,
}

impl<T> rmcp::transport::Transport<RoleServer> for WatchedInput<T>
where
    T: rmcp::transport::Transport<RoleServer>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.closed.cancel();
        }
        message
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        // Closing is the end of input too (the loop closes the transport when it ends for any
        // reason).
        self.closed.cancel();
        self.inner.close()
    }
}
