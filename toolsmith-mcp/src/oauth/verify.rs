//! Checking a token: the verifier, the authorization server's keys (discovered, kept, fetched
//! again at a bounded rate), introspection of opaque tokens, and the challenges of a refusal.

use super::guard::Refusal;
use super::{OAuth, MAX_FETCH_BYTES};
use crate::errors::ServeError;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};
use toolsmith_core::Caller;

/// Why a token was refused.
enum TokenError {
    /// `401 invalid_token`, with what was wrong.
    Invalid(String),
    /// The keys cannot be had: `503`.
    Unavailable(String),
}

/// The keys of the authorization server, by key id.
struct KeySet {
    keys: Vec<Key>,
    fetched: Instant,
}

struct Key {
    kid: Option<String>,
    family: AlgorithmFamily,
    /// The algorithm the key is published for, when its JWK names one.
    alg: Option<Algorithm>,
    key: DecodingKey,
}

/// The verifier the HTTP server holds: the settings, the kept keys, and the subjects that
/// opened sessions.
pub(crate) struct Verifier {
    settings: OAuth,
    /// `resource_metadata` of the challenges.
    metadata_url: String,
    /// The paths the metadata is served at.
    metadata_paths: [String; 2],
    client: reqwest::Client,
    keys: RwLock<Option<Arc<KeySet>>>,
    /// Held while fetching: one fetch at a time; the instant of the last attempt and the key
    /// set's URL once known.
    fetching: tokio::sync::Mutex<FetchState>,
    /// The subject each session was opened by (`Mcp-Session-Id`).
    sessions: Mutex<Sessions>,
    /// Introspected opaque tokens, by digest: the caller and until when the answer holds.
    introspected: Mutex<HashMap<[u8; 32], (Caller, Instant)>>,
    /// At most this many introspection requests at once.
    introspecting: tokio::sync::Semaphore,
}

/// The most introspection answers kept.
const MAX_INTROSPECTED: usize = 10_000;

/// How long an introspection answer is kept at most.
const INTROSPECTION_TTL: Duration = Duration::from_secs(60);

/// The most sessions whose subject is kept; past it the oldest is forgotten (and refused from
/// then on, as an unknown session is).
const MAX_SESSIONS: usize = 65_536;

/// The subject of each open session, and the order they were opened in.
#[derive(Default)]
struct Sessions {
    subjects: HashMap<String, Option<String>>,
    order: std::collections::VecDeque<String>,
}

#[derive(Default)]
struct FetchState {
    /// The last fetch of any kind (a failed one holds the next back a moment).
    last_attempt: Option<Instant>,
    /// The last fetch a token with an unknown key caused (at most one per refetch interval).
    last_refetch: Option<Instant>,
    jwks_uri: Option<String>,
}

/// Whether `url` may be fetched over plain HTTP: a loopback host only.
fn loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// `raw` as an absolute `https` URL (`http` on loopback), or a configuration error naming
/// `what`.
fn secure_url(raw: &str, what: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("{what} {raw:?} is not a URL: {e}"))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback(&url) => Ok(url),
        _ => Err(format!(
            "{what} {raw:?} must be an https URL (http only on a loopback address)"
        )),
    }
}

impl Verifier {
    /// Checks the settings and builds the client that fetches the keys.
    pub(crate) fn new(settings: OAuth) -> Result<Verifier, ServeError> {
        // jsonwebtoken picks its crypto from its features, and finds none when an application's
        // graph turns on both of its backends (another crate asking for the pure-Rust one): it
        // would then panic at the first token. Install ours unless one is already chosen.
        if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
            let _ = jsonwebtoken::crypto::CryptoProvider::install_default(
                &jsonwebtoken::crypto::aws_lc::DEFAULT_PROVIDER,
            );
        }
        let config = |m: String| ServeError::Config(m);
        secure_url(&settings.issuer, "the issuer").map_err(config)?;
        if let Some(uri) = &settings.jwks_uri {
            secure_url(uri, "the JWKS URI").map_err(config)?;
        }
        if let Some(i) = &settings.introspection {
            secure_url(&i.endpoint, "the introspection endpoint").map_err(config)?;
        }
        let resource = secure_url(&settings.resource, "the resource").map_err(config)?;
        if resource.fragment().is_some() {
            return Err(config(format!(
                "the resource {:?} must not have a fragment (RFC 8707)",
                settings.resource
            )));
        }
        let path = resource.path().trim_end_matches('/');
        let base = "/.well-known/oauth-protected-resource";
        let metadata_paths = [base.to_string(), format!("{base}{path}")];
        let origin = resource.origin().ascii_serialization();
        let metadata_url = format!("{origin}{base}{path}");
        let client = reqwest::Client::builder()
            .timeout(settings.fetch_timeout)
            // A redirect may not leave https (or loopback): keys fetched over plain HTTP from
            // elsewhere could be anyone's.
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let safe = attempt.url().scheme() == "https" || loopback(attempt.url());
                if attempt.previous().len() >= 3 || !safe {
                    attempt.stop()
                } else {
                    attempt.follow()
                }
            }))
            .build()
            .map_err(|e| config(format!("the HTTP client for the key set: {e}")))?;
        Ok(Verifier {
            settings,
            metadata_url,
            metadata_paths,
            client,
            keys: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(FetchState::default()),
            sessions: Mutex::new(Sessions::default()),
            introspected: Mutex::new(HashMap::new()),
            introspecting: tokio::sync::Semaphore::new(16),
        })
    }

    /// The host of the resource URI (the name clients reach this server by).
    pub(crate) fn resource_host(&self) -> Option<String> {
        let url = url::Url::parse(&self.settings.resource).ok()?;
        url.host_str()
            .map(|h| h.trim_matches(['[', ']']).to_string())
    }

    /// Whether `path` is where the metadata is served.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        self.metadata_paths.iter().any(|p| p == path)
    }

    /// The Protected Resource Metadata (RFC 9728): the resource, its authorization server,
    /// the scopes (the host's, then every scope the policy requires), header tokens only.
    pub(crate) fn metadata(&self, policy: &toolsmith_core::Policy) -> crate::http::Response {
        let mut scopes = self.settings.scopes.clone();
        for s in policy.scopes() {
            if !scopes.iter().any(|have| have == s) {
                scopes.push(s.to_string());
            }
        }
        let body = json!({
            "resource": self.settings.resource,
            "authorization_servers": [self.settings.issuer],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
            "resource_signing_alg_values_supported": [],
        });
        let mut res = super::guard::json_response(http::StatusCode::OK, &body);
        // Browser-based clients (the MCP Inspector) read it from another origin.
        res.headers_mut().insert(
            http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
            http::HeaderValue::from_static("*"),
        );
        res
    }

    fn challenge(&self, error: Option<(&str, &str)>, scope: Option<&str>) -> String {
        let mut c = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        if let Some(scope) = scope.filter(|s| !s.is_empty()) {
            c.push_str(&format!(", scope=\"{}\"", quoted(scope)));
        }
        if let Some((error, description)) = error {
            c.push_str(&format!(
                ", error=\"{error}\", error_description=\"{}\"",
                quoted(description)
            ));
        }
        c
    }

    fn refusal(
        &self,
        status: http::StatusCode,
        error: &'static str,
        description: String,
    ) -> Refusal {
        let base = self.settings.scopes.join(" ");
        let challenge = Some(self.challenge(Some((error, &description)), Some(&base)));
        Refusal {
            status,
            challenge,
            retry_after: None,
            error,
            description,
        }
    }

    /// The caller of a request to the endpoint, from its `Authorization` header; `None` for
    /// an anonymous request the settings allow. The header is checked, never passed on.
    pub(crate) async fn authenticate(
        &self,
        parts: &http::request::Parts,
    ) -> Result<Option<Caller>, Refusal> {
        if parts
            .uri
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("access_token=")))
        {
            return Err(self.refusal(
                http::StatusCode::BAD_REQUEST,
                "invalid_request",
                "an access token in the query string is refused; send it in the Authorization \
                 header"
                    .into(),
            ));
        }
        let mut values = parts.headers.get_all(http::header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            if parts.headers.contains_key(http::header::AUTHORIZATION) {
                return Err(self.refusal(
                    http::StatusCode::BAD_REQUEST,
                    "invalid_request",
                    "more than one Authorization header".into(),
                ));
            }
            if self.settings.anonymous {
                return Ok(None);
            }
            let base = self.settings.scopes.join(" ");
            return Err(Refusal {
                status: http::StatusCode::UNAUTHORIZED,
                challenge: Some(self.challenge(None, Some(&base))),
                retry_after: None,
                error: "invalid_token",
                description: "this server needs an access token (Authorization: Bearer …); \
                              its metadata names the authorization server"
                    .into(),
            });
        };
        let token = value
            .to_str()
            .ok()
            .and_then(|v| {
                let (scheme, token) = v.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                self.refusal(
                    http::StatusCode::UNAUTHORIZED,
                    "invalid_token",
                    "the Authorization header is not `Bearer <token>`".into(),
                )
            })?;
        match self.verify(token).await {
            Ok(caller) => Ok(Some(caller)),
            Err(TokenError::Invalid(why)) => {
                Err(self.refusal(http::StatusCode::UNAUTHORIZED, "invalid_token", why))
            }
            Err(TokenError::Unavailable(why)) => Err(Refusal {
                status: http::StatusCode::SERVICE_UNAVAILABLE,
                challenge: None,
                retry_after: Some(self.settings.refetch_interval.as_secs().clamp(1, 60)),
                error: "temporarily_unavailable",
                description: format!(
                    "the authorization server's keys could not be fetched ({why}); no tool \
                     ran; try again shortly"
                ),
            }),
        }
    }

    /// The `403 insufficient_scope` for a call of `tool` by `caller`, when the policy requires
    /// a scope the caller lacks; the challenge names every scope the tool requires.
    pub(crate) fn scope_check(
        &self,
        policy: &toolsmith_core::Policy,
        tool: &str,
        caller: &Caller,
    ) -> Result<(), Refusal> {
        let required: Vec<&str> = policy.required_scopes(tool).collect();
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|s| !caller.has_scope(s))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let description = format!(
            "the tool {tool:?} needs the scope{} {}, which this token lacks",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(" ")
        );
        let error = "insufficient_scope";
        Err(Refusal {
            status: http::StatusCode::FORBIDDEN,
            challenge: Some(self.challenge(Some((error, &description)), Some(&required.join(" ")))),
            retry_after: None,
            error,
            description,
        })
    }

    /// The `401` for an anonymous call of `tool` (the settings allow anonymous requests) when
    /// the policy requires a scope of it: the client must come back with a token.
    pub(crate) fn anonymous_check(
        &self,
        policy: &toolsmith_core::Policy,
        tool: &str,
    ) -> Result<(), Refusal> {
        let required: Vec<&str> = policy.required_scopes(tool).collect();
        if required.is_empty() {
            return Ok(());
        }
        Err(Refusal {
            status: http::StatusCode::UNAUTHORIZED,
            challenge: Some(self.challenge(None, Some(&required.join(" ")))),
            retry_after: None,
            error: "invalid_token",
            description: format!(
                "the tool {tool:?} needs an access token with the scope{} {}",
                if required.len() == 1 { "" } else { "s" },
                required.join(" ")
            ),
        })
    }

    /// Whether the session `id` may be used by `subject`: only by the subject that opened it
    /// here (every session is opened through this check; an id it never saw, or forgot, is
    /// answered as unknown).
    pub(crate) fn session_allowed(&self, id: &str, subject: Option<&str>) -> bool {
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .subjects
            .get(id)
            .is_some_and(|owner| owner.as_deref() == subject)
    }

    /// Records that `subject` opened the session `id`, forgetting the oldest past
    /// [`MAX_SESSIONS`].
    pub(crate) fn session_opened(&self, id: &str, subject: Option<&str>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        while sessions.subjects.len() >= MAX_SESSIONS {
            let Some(oldest) = sessions.order.pop_front() else {
                break;
            };
            sessions.subjects.remove(&oldest);
        }
        let id = id.to_string();
        if sessions
            .subjects
            .insert(id.clone(), subject.map(str::to_string))
            .is_none()
        {
            sessions.order.push_back(id);
        }
    }

    /// Forgets the session `id` (closed).
    pub(crate) fn session_closed(&self, id: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions.subjects.remove(id).is_some() {
            sessions.order.retain(|kept| kept != id);
        }
    }

    /// Verifies `token` and reads its caller.
    async fn verify(&self, token: &str) -> Result<Caller, TokenError> {
        let s = &self.settings;
        if token.len() > s.max_token_bytes {
            return Err(TokenError::Invalid(format!(
                "the access token is longer than {} bytes",
                s.max_token_bytes
            )));
        }
        let jwt = token.bytes().filter(|b| *b == b'.').count() == 2;
        if !jwt && s.introspection.is_some() {
            return self.introspect(token).await;
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| malformed_header(token))?;
        let alg = header.alg;
        if !s.algorithms.iter().any(|a| a.jose() == alg) {
            return Err(TokenError::Invalid(format!(
                "the access token is signed with {alg:?}, which this server does not accept \
                 (it accepts {})",
                s.algorithms
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let kid = header.kid.as_deref();
        let keys = self.keys_for(kid, alg).await?;
        let key = find_key(&keys, kid, alg).ok_or_else(|| {
            TokenError::Invalid(match kid.filter(|k| echoable(k)) {
                Some(kid) => format!(
                    "the access token's key {kid:?} is not among the authorization server's keys"
                ),
                None if kid.is_some() => {
                    "the access token's key is not among the authorization server's keys".into()
                }
                None => "the access token names no key (kid) and the authorization server has \
                         no single key for its algorithm"
                    .into(),
            })
        })?;
        let mut validation = Validation::new(alg);
        validation.algorithms = vec![alg];
        validation.leeway = s.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&s.issuer]);
        validation.set_audience(&[&s.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Value>(token, &key.key, &validation)
            .map_err(|e| TokenError::Invalid(self.describe(&e)))?;
        self.caller_of(&data.claims)
    }

    /// Checks an opaque token at the introspection endpoint (RFC 7662), or takes the answer
    /// kept for it.
    async fn introspect(&self, token: &str) -> Result<Caller, TokenError> {
        use sha2::Digest as _;
        let Some(config) = &self.settings.introspection else {
            return Err(TokenError::Invalid("the access token is not a JWT".into()));
        };
        let digest: [u8; 32] = sha2::Sha256::digest(token.as_bytes()).into();
        if let Some(caller) = self.kept_introspection(&digest) {
            return Ok(caller);
        }
        let _permit = self
            .introspecting
            .acquire()
            .await
            .map_err(|_| TokenError::Unavailable("introspection is shut down".into()))?;
        let url = &config.endpoint;
        let res = self
            .client
            .post(url)
            .basic_auth(&config.client_id, Some(&config.client_secret))
            .header(http::header::ACCEPT, "application/json")
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(format!(
                "token={}&token_type_hint=access_token",
                url::form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>()
            ))
            .send()
            .await
            .map_err(|e| TokenError::Unavailable(format!("{url}: {}", without_url(&e))))?;
        let status = res.status();
        if !status.is_success() {
            return Err(TokenError::Unavailable(format!(
                "{url} answered {status} to this server's introspection request"
            )));
        }
        let body = res
            .bytes()
            .await
            .map_err(|e| TokenError::Unavailable(format!("{url}: {}", without_url(&e))))?;
        if body.len() > MAX_FETCH_BYTES {
            return Err(TokenError::Unavailable(format!(
                "{url} sent more than {MAX_FETCH_BYTES} bytes"
            )));
        }
        let answer: Value = serde_json::from_slice(&body).map_err(|_| {
            TokenError::Unavailable(format!("{url} answered something that is not JSON"))
        })?;
        let (caller, until) = self.introspected_caller(&answer)?;
        let mut kept = self
            .introspected
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX_INTROSPECTED {
            let now = Instant::now();
            kept.retain(|_, (_, until)| *until > now);
            if kept.len() >= MAX_INTROSPECTED {
                kept.clear();
            }
        }
        kept.insert(digest, (caller.clone(), until));
        Ok(caller)
    }

    fn kept_introspection(&self, digest: &[u8; 32]) -> Option<Caller> {
        let kept = self
            .introspected
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        kept.get(digest)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(caller, _)| caller.clone())
    }

    /// The caller an introspection answer names, and until when the answer may be kept.
    fn introspected_caller(&self, answer: &Value) -> Result<(Caller, Instant), TokenError> {
        let s = &self.settings;
        let invalid = |why: String| Err(TokenError::Invalid(why));
        if answer.get("active") != Some(&Value::Bool(true)) {
            return invalid("the access token is not active (introspection)".into());
        }
        if let Some(iss) = answer.get("iss") {
            if iss.as_str() != Some(s.issuer.as_str()) {
                return invalid(format!(
                    "the access token was issued by another authorization server, not {}",
                    s.issuer
                ));
            }
        }
        let for_us = match answer.get("aud") {
            Some(Value::String(aud)) => aud == &s.resource,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&s.resource)),
            _ => false,
        };
        if !for_us {
            return invalid(format!(
                "the access token was issued for another resource, not {}",
                s.resource
            ));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let leeway = s.leeway.as_secs();
        let exp = answer.get("exp").and_then(Value::as_u64);
        if exp.is_some_and(|exp| exp.saturating_add(leeway) <= now) {
            return invalid("the access token has expired".into());
        }
        let nbf = answer.get("nbf").and_then(Value::as_u64);
        if nbf.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return invalid("the access token is not valid yet (nbf)".into());
        }
        let caller = self.caller_of(answer)?;
        let left = exp.map_or(INTROSPECTION_TTL, |exp| {
            Duration::from_secs(exp.saturating_sub(now)).min(INTROSPECTION_TTL)
        });
        Ok((caller, Instant::now() + left))
    }

    fn describe(&self, e: &jsonwebtoken::errors::Error) -> String {
        use jsonwebtoken::errors::ErrorKind as K;
        let s = &self.settings;
        match e.kind() {
            K::ExpiredSignature => "the access token has expired".into(),
            K::ImmatureSignature => "the access token is not valid yet (nbf)".into(),
            K::InvalidAudience => format!(
                "the access token was issued for another resource, not {}",
                s.resource
            ),
            K::InvalidIssuer => format!(
                "the access token was issued by another authorization server, not {}",
                s.issuer
            ),
            K::InvalidSignature => "the access token's signature does not verify".into(),
            K::MissingRequiredClaim(c) => format!("the access token has no {c:?} claim"),
            K::InvalidClaimFormat(c) => format!("the access token's {c:?} claim is malformed"),
            K::InvalidAlgorithm | K::InvalidKeyFormat | K::InvalidRsaKey(_) => {
                "the access token's algorithm does not match its key".into()
            }
            _ => "the access token is malformed".into(),
        }
    }

    /// The caller the claims name.
    fn caller_of(&self, claims: &Value) -> Result<Caller, TokenError> {
        let sub = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| TokenError::Invalid("the access token's subject is empty".into()))?;
        let mut caller = Caller::new(sub);
        let scopes = words(claims.get("scope")).chain(words(claims.get("scp")));
        for scope in scopes {
            caller = caller.with_scope(scope);
        }
        if let Some(claim) = &self.settings.roles_claim {
            for role in words(claims.get(claim)) {
                caller = caller.with_role(role);
            }
        }
        Ok(caller)
    }

    /// The key set to verify a token with key id `kid` and algorithm `alg`: the kept one,
    /// fetched first when there is none or it is past its age, and fetched again (at most once
    /// per refetch interval) when it has no such key.
    async fn keys_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<Arc<KeySet>, TokenError> {
        let kept = self
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let fresh = kept
            .as_ref()
            .is_some_and(|k| k.fetched.elapsed() < self.settings.keys_max_age);
        match kept {
            Some(keys) if fresh && find_key(&keys, kid, alg).is_some() => return Ok(keys),
            _ => {}
        }
        let mut state = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let kept = self
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(keys) = &kept {
            let fresh = keys.fetched.elapsed() < self.settings.keys_max_age;
            if fresh && find_key(keys, kid, alg).is_some() {
                return Ok(Arc::clone(keys));
            }
            let interval = self.settings.refetch_interval;
            if fresh {
                let recent = state.last_refetch.is_some_and(|t| t.elapsed() < interval);
                if recent {
                    // Another unknown key within the interval: no fetch, the kept keys decide.
                    return Ok(Arc::clone(keys));
                }
                state.last_refetch = Some(Instant::now());
            } else if state.last_attempt.is_some_and(|t| t.elapsed() < interval) {
                // Past their age, and a refresh failed within the interval: the kept keys serve
                // (requests do not queue behind a fetch each while the server is down).
                return Ok(Arc::clone(keys));
            }
        } else if state.last_attempt.is_some_and(|t| {
            t.elapsed() < self.settings.refetch_interval.min(Duration::from_secs(1))
        }) {
            // No keys, and a fetch just failed: do not hammer the authorization server.
            return Err(TokenError::Unavailable(
                "the last fetch failed moments ago".into(),
            ));
        }
        state.last_attempt = Some(Instant::now());
        match self.fetch_keys(&mut state).await {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) =
                    Some(Arc::clone(&keys));
                Ok(keys)
            }
            // A failed refresh keeps the old keys.
            Err(why) => kept.ok_or(TokenError::Unavailable(why)),
        }
    }

    async fn fetch_keys(&self, state: &mut FetchState) -> Result<KeySet, String> {
        let uri = match (&self.settings.jwks_uri, &state.jwks_uri) {
            (Some(uri), _) | (None, Some(uri)) => uri.clone(),
            (None, None) => {
                let uri = self.discover().await?;
                state.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let set: jsonwebtoken::jwk::JwkSet = serde_json::from_slice(&self.fetch(&uri).await?)
            .map_err(|e| format!("the key set at {uri} is not a JWK set: {e}"))?;
        let keys = set
            .keys
            .iter()
            .filter_map(|jwk| {
                let key = DecodingKey::from_jwk(jwk).ok()?;
                let family = key.family();
                // Never a symmetric key: a shared secret in a public set is no signature.
                (family != AlgorithmFamily::Hmac).then_some(())?;
                let alg = jwk
                    .common
                    .key_algorithm
                    .and_then(|a| a.to_string().parse::<Algorithm>().ok());
                Some(Key {
                    kid: jwk.common.key_id.clone(),
                    family,
                    alg,
                    key,
                })
            })
            .collect();
        Ok(KeySet {
            keys,
            fetched: Instant::now(),
        })
    }

    /// The key set's URL from the authorization server's metadata: RFC 8414 first, then
    /// OpenID Connect discovery; the metadata must name the configured issuer.
    async fn discover(&self) -> Result<String, String> {
        let issuer = url::Url::parse(&self.settings.issuer).map_err(|e| e.to_string())?;
        let origin = issuer.origin().ascii_serialization();
        let path = issuer.path().trim_end_matches('/');
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
            format!("{origin}/.well-known/openid-configuration{path}"),
        ];
        let mut last = String::new();
        for candidate in candidates {
            let body = match self.fetch(&candidate).await {
                Ok(body) => body,
                Err(e) => {
                    last = e;
                    continue;
                }
            };
            let meta: Value = serde_json::from_slice(&body)
                .map_err(|e| format!("the metadata at {candidate} is not JSON: {e}"))?;
            if meta.get("issuer").and_then(Value::as_str) != Some(self.settings.issuer.as_str()) {
                return Err(format!(
                    "the metadata at {candidate} names another issuer, not {}",
                    self.settings.issuer
                ));
            }
            let uri = meta
                .get("jwks_uri")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the metadata at {candidate} names no jwks_uri"))?;
            secure_url(uri, "the metadata's jwks_uri")?;
            return Ok(uri.to_string());
        }
        Err(last)
    }

    /// GETs `url`, at most [`MAX_FETCH_BYTES`].
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        let mut res = self
            .client
            .get(url)
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {}", without_url(&e)))?;
        if !res.status().is_success() {
            return Err(format!("{url} answered {}", res.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = res
            .chunk()
            .await
            .map_err(|e| format!("{url}: {}", without_url(&e)))?
        {
            if body.len() + chunk.len() > MAX_FETCH_BYTES {
                return Err(format!("{url} sent more than {MAX_FETCH_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// The key of `keys` for a token with key id `kid` and algorithm `alg`: the key with that id
/// (of the algorithm's family, and of that algorithm when the key names one); without an id,
/// the only key of the family.
fn find_key<'a>(keys: &'a KeySet, kid: Option<&str>, alg: Algorithm) -> Option<&'a Key> {
    let family = alg.family();
    let fits = |k: &&Key| k.family == family && k.alg.is_none_or(|a| a == alg);
    match kid {
        Some(kid) => keys
            .keys
            .iter()
            .filter(fits)
            .find(|k| k.kid.as_deref() == Some(kid)),
        None => {
            let mut of_family = keys.keys.iter().filter(fits);
            match (of_family.next(), of_family.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
    }
}

/// Why a token's header does not decode: an unsigned token (`alg: none`) said as such.
fn malformed_header(token: &str) -> TokenError {
    use base64::Engine as _;
    let alg = token
        .split('.')
        .next()
        .and_then(|h| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(h)
                .ok()
        })
        .and_then(|h| serde_json::from_slice::<Value>(&h).ok())
        .and_then(|h| h.get("alg").and_then(Value::as_str).map(str::to_string));
    TokenError::Invalid(match alg {
        Some(a) if a.eq_ignore_ascii_case("none") => {
            "the access token is unsigned (alg none), which is never accepted".into()
        }
        Some(a) if echoable(&a) => {
            format!("the access token's algorithm {a:?} is unknown to this server")
        }
        _ => "the access token is not a well-formed JWT".into(),
    })
}

/// Whether a value the token chose may be quoted back in an answer: short, and plain ASCII
/// (a header carries nothing else).
fn echoable(text: &str) -> bool {
    text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

/// A claim's words: a space-separated string, or an array of strings.
fn words(value: Option<&Value>) -> impl Iterator<Item = String> + '_ {
    let (text, list) = match value {
        Some(Value::String(s)) => (Some(s.as_str()), None),
        Some(Value::Array(a)) => (None, Some(a)),
        _ => (None, None),
    };
    text.into_iter()
        .flat_map(str::split_whitespace)
        .map(str::to_string)
        .chain(
            list.into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string),
        )
        .filter(|w| !w.is_empty())
}

/// A value fit for a quoted-string of a challenge: quotes and backslashes dropped, control
/// characters replaced.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| *c != '"' && *c != '\\')
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A fetch error without the URL reqwest repeats (the caller says it once).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_decode() || e.is_body() {
        "the body could not be read"
    } else {
        "the request failed"
    };
    kind.to_string()
}

#[cfg(test)]
mod tests {
    use super::super::guard::called_tool;
    use super::*;

    #[test]
    fn settings_that_cannot_be_served_are_refused_when_the_server_binds() {
        let cases = [
            (
                OAuth::new("http://login.example.com", "https://tools.example.com/mcp"),
                "the issuer \"http://login.example.com\" must be an https URL",
            ),
            (
                OAuth::new("https://login.example.com", "tools.example.com/mcp"),
                "the resource \"tools.example.com/mcp\" is not a URL",
            ),
            (
                OAuth::new(
                    "https://login.example.com",
                    "https://tools.example.com/mcp#x",
                ),
                "must not have a fragment",
            ),
            (
                OAuth::new("https://login.example.com", "https://tools.example.com/mcp")
                    .jwks_uri("ftp://login.example.com/keys"),
                "the JWKS URI \"ftp://login.example.com/keys\" must be an https URL",
            ),
        ];
        for (settings, says) in cases {
            let Err(err) = Verifier::new(settings) else {
                panic!("accepted: {says}");
            };
            assert!(err.to_string().contains(says), "{err}");
        }
        // Plain HTTP on loopback only (a local authorization server in development).
        for local in [
            "http://127.0.0.1:9000",
            "http://localhost:9000",
            "http://[::1]:9000",
        ] {
            Verifier::new(OAuth::new(local, "http://127.0.0.1:8080/mcp")).unwrap();
        }
    }

    #[test]
    fn the_metadata_url_follows_the_resource_path() {
        let v = Verifier::new(OAuth::new(
            "https://login.example.com",
            "https://tools.example.com/team/mcp/",
        ))
        .unwrap();
        assert_eq!(
            v.metadata_url,
            "https://tools.example.com/.well-known/oauth-protected-resource/team/mcp"
        );
        assert!(v.is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(v.is_metadata_path("/.well-known/oauth-protected-resource/team/mcp"));
        assert!(!v.is_metadata_path("/.well-known/oauth-protected-resource/other"));
    }

    #[test]
    fn claims_become_a_caller() {
        let v = Verifier::new(
            OAuth::new("https://login.example.com", "https://tools.example.com/mcp")
                .roles_claim("roles"),
        )
        .unwrap();
        let Ok(caller) = v.caller_of(&json!({
            "sub": "ann", "scope": "a b", "scp": ["c"], "roles": ["admin", 7, "ops"]
        })) else {
            panic!("refused")
        };
        assert_eq!(caller.id(), Some("ann"));
        assert!(["a", "b", "c"].iter().all(|s| caller.has_scope(s)));
        assert!(caller.has_role("admin") && caller.has_role("ops"));
        assert_eq!(caller.roles.len(), 2);
        for claims in [json!({"sub": "  "}), json!({"sub": 7}), json!({})] {
            assert!(v.caller_of(&claims).is_err(), "{claims}");
        }
    }

    #[test]
    fn a_header_that_does_not_decode_is_said_plainly() {
        let header = |h: &str| format!("{}.e30.", b64(h.as_bytes()));
        let said = |token: &str| match malformed_header(token) {
            TokenError::Invalid(why) => why,
            TokenError::Unavailable(why) => panic!("{why}"),
        };
        assert!(said(&header(r#"{"alg":"none"}"#)).contains("unsigned (alg none)"));
        assert!(said(&header(r#"{"alg":"XX999"}"#)).contains("\"XX999\" is unknown"));
        assert!(said("garbage").contains("not a well-formed JWT"));
    }

    fn b64(bytes: &[u8]) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    #[test]
    fn a_session_is_its_openers_only_and_the_list_is_bounded() {
        let v = Verifier::new(OAuth::new(
            "https://login.example.com",
            "https://t.example/mcp",
        ))
        .unwrap();
        assert!(
            !v.session_allowed("s1", Some("ann")),
            "an id never opened here"
        );
        v.session_opened("s1", Some("ann"));
        v.session_opened("s2", None);
        assert!(v.session_allowed("s1", Some("ann")));
        assert!(!v.session_allowed("s1", Some("bob")));
        assert!(!v.session_allowed("s1", None));
        assert!(v.session_allowed("s2", None));
        assert!(!v.session_allowed("s2", Some("ann")));
        v.session_closed("s1");
        assert!(!v.session_allowed("s1", Some("ann")));
        // Past the bound the oldest is forgotten, and refused from then on.
        for n in 0..MAX_SESSIONS {
            v.session_opened(&format!("n{n}"), Some("ann"));
        }
        assert!(!v.session_allowed("s2", None));
        assert!(v.session_allowed(&format!("n{}", MAX_SESSIONS - 1), Some("ann")));
        let kept = v.sessions.lock().unwrap();
        assert_eq!(kept.subjects.len(), MAX_SESSIONS);
        assert_eq!(kept.order.len(), MAX_SESSIONS);
    }

    #[test]
    fn only_short_plain_values_are_quoted_back() {
        assert!(echoable("rsa-1") && echoable("RS256") && echoable("urn:key.2"));
        assert!(!echoable(&"k".repeat(65)));
        assert!(!echoable("caf\u{e9}") && !echoable("a b") && !echoable("a\"b"));
    }

    #[test]
    fn the_scope_check_reads_the_called_tool() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay"}}"#;
        assert_eq!(called_tool(call).as_deref(), Some("pay"));
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(called_tool(list), None);
        assert_eq!(called_tool(b"not json"), None);
        // A challenge's quoted values carry no quote or control character.
        assert_eq!(quoted("a\"b\\c\nd"), "abc d");
    }
}
