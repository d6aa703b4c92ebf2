//! The streamable HTTP server as an OAuth 2.1 resource server (MCP's authorization
//! specification): [`OAuth`] settings, given to [`McpServer::oauth`](crate::McpServer::oauth).
//!
//! With them, every request to the MCP endpoint must carry `Authorization: Bearer <token>`, a
//! JWT access token that the authorization server issued for this server:
//!
//! - its signature verifies with one of the authorization server's keys (its JWKS, found from
//!   its metadata, RFC 8414 or OpenID Connect discovery, and kept; fetched again when a token
//!   names a key the set lacks, at most once per
//!   [`refetch_interval`](OAuth::refetch_interval));
//! - its algorithm is on the allow-list (asymmetric only: never `none`, never HMAC);
//! - its issuer is the authorization server, its audience this server's resource URI (RFC
//!   8707), and it is within its validity (`exp`, `nbf`, with a small [leeway](OAuth::leeway)).
//!
//! Its subject becomes the [`Caller`](toolsmith_core::Caller)'s id, its `scope` (or `scp`) the caller's scopes, a claim
//! the host names ([`roles_claim`](OAuth::roles_claim)) its roles; the token itself goes no
//! further (it is taken off the request before rmcp sees it, so no tool, log, span or audit
//! record holds it).
//!
//! The server publishes its Protected Resource Metadata (RFC 9728) at
//! `/.well-known/oauth-protected-resource` and at the path-suffixed form for its endpoint
//! (`/.well-known/oauth-protected-resource/mcp`), and answers:
//!
//! | request | answer |
//! |---|---|
//! | no token (and anonymous access not allowed) | `401`, `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope="…"` when [`scopes`](OAuth::scopes) are set) |
//! | a token that does not pass (malformed, too long, expired, not yet valid, another issuer or audience, a bad signature, an unknown key or algorithm) | `401`, `error="invalid_token"` with an `error_description` that says which |
//! | a token in the query string, or two `Authorization` headers | `400`, `error="invalid_request"` |
//! | `tools/call` of a tool whose policy requires a scope the token lacks ([`Policy::require_scope`](toolsmith_core::Policy::require_scope)) | `403`, `error="insufficient_scope"`, `scope="…"` naming the tool's scopes |
//! | the authorization server's keys cannot be fetched and none are kept | `503` with `Retry-After`; no tool runs |
//! | a request with another subject's `Mcp-Session-Id` | `404`, as for an unknown session |
//!
//! None of these runs a tool. Anonymous access is the host's choice
//! ([`allow_anonymous`](OAuth::allow_anonymous)), never the default.

use jsonwebtoken::Algorithm;
use std::time::Duration;

mod guard;
mod verify;

pub(crate) use guard::{Authenticated, Guard};
pub(crate) use verify::Verifier;

/// The algorithms a token may be signed with: asymmetric ones only (an HMAC algorithm would let
/// anyone holding the authorization server's public key sign tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// RSASSA-PSS with SHA-384.
    PS384,
    /// RSASSA-PSS with SHA-512.
    PS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
    /// EdDSA (Ed25519).
    EdDSA,
}

impl SigningAlgorithm {
    fn jose(self) -> Algorithm {
        match self {
            SigningAlgorithm::RS256 => Algorithm::RS256,
            SigningAlgorithm::RS384 => Algorithm::RS384,
            SigningAlgorithm::RS512 => Algorithm::RS512,
            SigningAlgorithm::PS256 => Algorithm::PS256,
            SigningAlgorithm::PS384 => Algorithm::PS384,
            SigningAlgorithm::PS512 => Algorithm::PS512,
            SigningAlgorithm::ES256 => Algorithm::ES256,
            SigningAlgorithm::ES384 => Algorithm::ES384,
            SigningAlgorithm::EdDSA => Algorithm::EdDSA,
        }
    }
}

/// The settings of the HTTP server as an OAuth 2.1 resource server (see the
/// [module](self)): which authorization server it trusts and which resource it is.
///
/// ```
/// use std::time::Duration;
/// use toolsmith_mcp::oauth::OAuth;
/// let oauth = OAuth::new("https://login.example.com", "https://tools.example.com/mcp")
///     .scopes(["notes:read"])
///     .roles_claim("roles")
///     .leeway(Duration::from_secs(30));
/// assert_eq!(oauth.resource(), "https://tools.example.com/mcp");
/// ```
#[derive(Clone, Debug)]
pub struct OAuth {
    issuer: String,
    resource: String,
    jwks_uri: Option<String>,
    scopes: Vec<String>,
    algorithms: Vec<SigningAlgorithm>,
    leeway: Duration,
    roles_claim: Option<String>,
    anonymous: bool,
    refetch_interval: Duration,
    keys_max_age: Duration,
    fetch_timeout: Duration,
    max_token_bytes: usize,
    introspection: Option<Introspection>,
}

/// Where opaque tokens are checked ([`OAuth::introspection`]).
#[derive(Clone)]
struct Introspection {
    endpoint: String,
    client_id: String,
    client_secret: String,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret is never printed.
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The default longest token accepted, in bytes.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The largest metadata or key set fetched from the authorization server, in bytes.
const MAX_FETCH_BYTES: usize = 1024 * 1024;

impl OAuth {
    /// Trusts the authorization server `issuer` (its issuer identifier, an `https` URL; `http`
    /// only on a loopback address) for the resource `resource`: this server's canonical URI, as
    /// clients name it and as tokens carry it in their audience (for example
    /// `https://tools.example.com/mcp`).
    ///
    /// Defaults: RS256, PS256, ES256 and EdDSA accepted; a leeway of 60 s on `exp` and `nbf`;
    /// no roles claim; anonymous requests refused; the key set fetched again at most every
    /// 30 s for an unknown key and every hour regardless; fetches bounded at 5 s; tokens up to
    /// [`DEFAULT_MAX_TOKEN_BYTES`].
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> OAuth {
        OAuth {
            issuer: issuer.into(),
            resource: resource.into(),
            jwks_uri: None,
            scopes: Vec::new(),
            algorithms: vec![
                SigningAlgorithm::RS256,
                SigningAlgorithm::PS256,
                SigningAlgorithm::ES256,
                SigningAlgorithm::EdDSA,
            ],
            leeway: Duration::from_secs(60),
            roles_claim: None,
            anonymous: false,
            refetch_interval: Duration::from_secs(30),
            keys_max_age: Duration::from_secs(3600),
            fetch_timeout: Duration::from_secs(5),
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            introspection: None,
        }
    }

    /// The resource URI tokens must be issued for.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The key set's URL, when the authorization server publishes no metadata (default: read
    /// from its metadata).
    #[must_use]
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> OAuth {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// The scopes a client should ask for to use this server at all: named in the `401`
    /// challenge's `scope` and first in the metadata's `scopes_supported` (which also lists
    /// every scope the toolbox's policy requires of some tool). Default: none.
    #[must_use]
    pub fn scopes<I, S>(mut self, scopes: I) -> OAuth
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The algorithms accepted (default RS256, PS256, ES256, EdDSA). An empty list keeps the
    /// default.
    #[must_use]
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = SigningAlgorithm>) -> OAuth {
        let list: Vec<_> = algorithms.into_iter().collect();
        if !list.is_empty() {
            self.algorithms = list;
        }
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that disagree (default 60 s; at most
    /// 5 minutes).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> OAuth {
        self.leeway = leeway.min(Duration::from_secs(300));
        self
    }

    /// The claim whose value (a string, space-separated, or an array of strings) gives the
    /// caller's roles (default: none).
    #[must_use]
    pub fn roles_claim(mut self, claim: impl Into<String>) -> OAuth {
        self.roles_claim = Some(claim.into());
        self
    }

    /// Serves requests without a token as the anonymous caller (a request with a token that
    /// does not pass is still refused). Default: refused with `401`.
    #[must_use]
    pub fn allow_anonymous(mut self) -> OAuth {
        self.anonymous = true;
        self
    }

    /// The least time between two fetches of the key set that tokens with unknown keys cause
    /// (default 30 s): a flood of made-up key ids becomes at most one request per interval to
    /// the authorization server.
    #[must_use]
    pub fn refetch_interval(mut self, interval: Duration) -> OAuth {
        self.refetch_interval = interval;
        self
    }

    /// How long a fetched key set is used before it is fetched again (default one hour; a
    /// failed refresh keeps the old keys).
    #[must_use]
    pub fn keys_max_age(mut self, age: Duration) -> OAuth {
        self.keys_max_age = age;
        self
    }

    /// The bound on each fetch from the authorization server (default 5 s).
    #[must_use]
    pub fn fetch_timeout(mut self, timeout: Duration) -> OAuth {
        self.fetch_timeout = timeout;
        self
    }

    /// Accepts opaque access tokens too: a token that is not a JWT is checked at the
    /// authorization server's token introspection endpoint (RFC 7662), which this server calls
    /// as the client `client_id` with `client_secret` (HTTP Basic). The answer must say the
    /// token is `active`, issued for this server (`aud` names the resource), by the issuer (when
    /// it says), within `exp`/`nbf`, for a subject; its `scope` gives the scopes. An answer is
    /// kept (by a digest of the token, never the token) until the token expires or for a minute,
    /// whichever is sooner; at most 16 checks run at once. Default: JWTs only.
    #[must_use]
    pub fn introspection(
        mut self,
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> OAuth {
        self.introspection = Some(Introspection {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        });
        self
    }

    /// The longest token accepted, in bytes (default [`DEFAULT_MAX_TOKEN_BYTES`]).
    #[must_use]
    pub fn max_token_bytes(mut self, bytes: usize) -> OAuth {
        self.max_token_bytes = bytes.max(1);
        self
    }
}
