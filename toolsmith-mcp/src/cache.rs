//! The cache hints of MCP 2026-07-28 list results (`ttlMs`, `cacheScope`) on `tools/list`.
//!
//! 2026-07-28 requires both on every complete `tools/list` result. They are a freshness hint:
//! a client may reuse a list for `ttlMs` milliseconds without asking again, and a
//! `notifications/tools/list_changed` invalidates it at once, but only for a client that
//! listens (`subscriptions/listen`); a client without a stream learns of a change when the time
//! runs out. So the default is `ttlMs: 0` (ask every time) with `cacheScope: "private"`, the
//! values rmcp fills in, and a host whose tool set stays as built opts into longer lists with
//! [`McpServer::list_cache`](crate::McpServer::list_cache).

use rmcp::model::ListToolsResult;
use std::time::Duration;
use toolsmith_core::export::McpVersion;

/// Who may keep a cached `tools/list` (MCP 2026-07-28 `cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CacheScope {
    /// Only caches of the same authorization context (the default): the list is not shared
    /// between users.
    #[default]
    Private,
    /// Any cache, shared gateways and proxies included, across users: right when every caller
    /// sees the same list (the toolbox does not filter the list by caller; a host that serves
    /// one toolbox per tenant behind one endpoint must keep it private).
    Public,
}

/// The hints a server puts on its 2026-07-28 `tools/list` results.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ListCache {
    ttl_ms: u64,
    scope: CacheScope,
}

impl ListCache {
    pub(crate) fn new(ttl: Duration, scope: CacheScope) -> ListCache {
        ListCache {
            ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
            scope,
        }
    }

    /// Sets the hints on a list for a client of `version` (only 2026-07-28 defines them; rmcp
    /// strips nothing for older clients, so they are left off there).
    pub(crate) fn apply(self, list: &mut ListToolsResult, version: McpVersion) {
        if version != McpVersion::V2026_07_28 {
            list.ttl_ms = None;
            list.cache_scope = None;
            return;
        }
        list.ttl_ms = Some(self.ttl_ms);
        list.cache_scope = Some(match self.scope {
            CacheScope::Private => rmcp::model::CacheScope::Private,
            CacheScope::Public => rmcp::model::CacheScope::Public,
        });
    }
}
