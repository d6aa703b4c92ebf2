//! The guard of the endpoint a form posts to: [`RequestGuard`] refuses a post from another
//! site's page and any request under a name the endpoint does not serve, before a tool runs.

use std::fmt;

/// Checks a request to the endpoint a form posts to before it reaches the toolbox, so that a
/// page of another site cannot run a tool through the person's browser and a DNS-rebinding
/// page cannot read the answers.
///
/// A form's endpoint runs a tool for whoever posts to it, and a browser submits a form across
/// sites without asking: a page on any origin can post a hidden form to
/// `http://127.0.0.1:8080/call?tool=add_to_cart`, no script needed. And a page whose name the
/// attacker points at the host's address (DNS rebinding) is, to the browser, the same origin as
/// the endpoint, so it reads every answer; only the `Host` header, which names the attacker's
/// domain, gives it away. The guard is framework-agnostic: give it the request's method and a
/// way to read a header, and answer a [`Refusal`] with its status and message, without running
/// the tool. Its rules:
///
/// - **Every request** (GET included, since rebinding reads answers) must carry a `Host` header
///   naming one of the guard's hosts (compared without regard to case). A missing or malformed
///   `Host` is refused with 400, a foreign one with 403.
/// - **A request that may change state** (any method but GET, HEAD and OPTIONS) is refused with
///   403 when its `Origin` is `null` (a sandboxed or privacy-hiding page), or names another
///   origin than the endpoint's own (`http` or `https` with the authority of the `Host` header)
///   and than those allowed with [`allow_origin`](Self::allow_origin); and, unless its origin is
///   one so allowed, when its `Sec-Fetch-Site` is present and neither `same-origin` nor `none`
///   (a page of another site, or of a sibling subdomain).
/// - A request with neither `Origin` nor `Sec-Fetch-Site` passes: it does not come from a page
///   in a browser (browsers send `Origin` on every POST, `null` where they hide it, and
///   `Sec-Fetch-Site` on every request), and a client outside a browser (curl, a script) could
///   post anything it likes anyway. Authenticate callers where that matters: the guard only
///   keeps other sites' pages from acting through the person's browser.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::ui::RequestGuard;
///
/// let guard = RequestGuard::loopback();
/// // The request's headers, as the server framework holds them (names in any case).
/// let headers = [("Host", "127.0.0.1:8080"), ("Origin", "http://evil.example")];
/// let header = |name: &str| {
///     headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
/// };
/// let refusal = guard.check("POST", header).unwrap_err();
/// assert_eq!(refusal.status(), 403);
/// // Reading the page is fine; posting from the page itself too.
/// assert!(guard.check("GET", header).is_ok());
/// let own = [("host", "127.0.0.1:8080"), ("origin", "http://127.0.0.1:8080"), ("sec-fetch-site", "same-origin")];
/// assert!(guard.check("POST", |name| own.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)).is_ok());
/// ```
#[derive(Debug, Clone)]
pub struct RequestGuard {
    /// The hosts as given, for the refusal's message.
    named: Vec<String>,
    /// The hosts parsed; an entry that is not a host is `None` and matches nothing.
    hosts: Vec<Option<Authority>>,
    /// The origins allowed besides the endpoint's own.
    origins: Vec<Origin>,
}

impl RequestGuard {
    /// A guard for an endpoint served on the loopback interface: the hosts `localhost`,
    /// `127.0.0.1` and `[::1]`, on any port (the hosts the MCP server's HTTP listener accepts by
    /// default).
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::loopback();
    /// let host = |name: &str| (name == "host").then_some("localhost:3000");
    /// assert!(guard.check("GET", host).is_ok());
    /// let rebound = |name: &str| (name == "host").then_some("rebind.example:3000");
    /// assert_eq!(guard.check("GET", rebound).unwrap_err().status(), 403);
    /// ```
    pub fn loopback() -> Self {
        Self::for_hosts(["localhost", "127.0.0.1", "[::1]"])
    }

    /// A guard for an endpoint served under `hosts`: each a host name or address, alone (any
    /// port) or with a port (that port only), as in `shop.example`, `shop.example:8443`,
    /// `10.0.0.5` or `[::1]:8080`. Names are compared without regard to case. An entry that is
    /// not a host (a URL, say) matches no request; the refusal's message lists the entries as
    /// given, so such a mistake shows. Behind a reverse proxy, list the names the browser uses,
    /// and have the proxy pass the browser's `Host` on (or list the page's origin with
    /// [`allow_origin`](Self::allow_origin)): a post's `Origin` is compared with the `Host` the
    /// endpoint sees.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::for_hosts(["shop.example"]);
    /// assert!(guard.check("GET", |name| (name == "host").then_some("Shop.Example")).is_ok());
    /// assert!(guard.check("GET", |name| (name == "host").then_some("localhost")).is_err());
    /// ```
    pub fn for_hosts<I, S>(hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let named: Vec<String> = hosts.into_iter().map(Into::into).collect();
        let hosts = named.iter().map(|h| allowed_host(h)).collect();
        RequestGuard {
            named,
            hosts,
            origins: Vec::new(),
        }
    }

    /// Also lets pages of `origin` (`scheme://host[:port]`, `http` or `https`; without a port,
    /// the scheme's default) post: a front end of the host's own served from another origin.
    /// Its posts are cross-site, so their `Sec-Fetch-Site` is not checked. An origin that is not
    /// of this form matches no request.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::for_hosts(["api.example"])
    ///     .allow_origin("https://app.example");
    /// let headers = [("host", "api.example"), ("origin", "https://app.example"), ("sec-fetch-site", "same-site")];
    /// let header = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    /// assert!(guard.check("POST", header).is_ok());
    /// ```
    pub fn allow_origin(mut self, origin: impl AsRef<str>) -> Self {
        if let Some(o) = parse_origin(origin.as_ref()) {
            self.origins.push(o);
        }
        self
    }

    /// Checks a request with method `method` (as sent: `GET`, `POST`, ...) whose headers
    /// `header` reads: it is asked for `host`, `origin` and `sec-fetch-site` (in lower case;
    /// look them up without regard to case, as HTTP names are) and answers the header's value,
    /// or `None` when the request has none. A value that is not text may be given as `None`.
    ///
    /// # Errors
    /// A [`Refusal`] when a rule of the guard (see [`RequestGuard`]) refuses the request: answer
    /// it with the refusal's status and message, and do not run the tool.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::loopback();
    /// let headers = [("host", "127.0.0.1:8080"), ("origin", "null")];
    /// let refusal = guard
    ///     .check("POST", |name| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
    ///     .unwrap_err();
    /// assert_eq!(refusal.status(), 403);
    /// assert!(refusal.message().contains("Origin: null"), "{refusal}");
    /// ```
    pub fn check<'h>(
        &self,
        method: &str,
        header: impl Fn(&str) -> Option<&'h str>,
    ) -> Result<(), Refusal> {
        let Some(raw_host) = header("host") else {
            return Err(Refusal::new(
                400,
                "the request has no Host header: send the name the page is served under",
            ));
        };
        let Some(host) = parse_authority(raw_host) else {
            return Err(Refusal::new(
                400,
                format!("the Host header `{raw_host}` is not a host name or address with an optional port"),
            ));
        };
        if !self.hosts.iter().flatten().any(|h| h.admits(&host)) {
            return Err(Refusal::new(
                403,
                format!(
                    "the Host header `{raw_host}` is not a name this endpoint is served under ({}): a page reached under another name (as by DNS rebinding) is refused; if the name is yours, add it to the endpoint's RequestGuard",
                    self.named_hosts()
                ),
            ));
        }
        if matches!(method, "GET" | "HEAD" | "OPTIONS") {
            return Ok(());
        }
        let site = header("sec-fetch-site");
        if let Some(raw_origin) = header("origin") {
            if raw_origin.trim().eq_ignore_ascii_case("null") {
                return Err(Refusal::new(
                    403,
                    format!("a {method} with `Origin: null` (a sandboxed page, or one that hides where it is from) is refused: only the endpoint's own pages may post to it"),
                ));
            }
            let origin = parse_origin(raw_origin);
            if origin
                .as_ref()
                .is_some_and(|o| self.origins.iter().any(|a| a == o))
            {
                return Ok(());
            }
            if !origin.is_some_and(|o| o.same_as(&host)) {
                return Err(Refusal::new(
                    403,
                    format!(
                        "a {method} from the page at `{raw_origin}` is refused: only the endpoint's own pages (http://{raw_host} or https://{raw_host}) may post to it; a front end of your own on another origin is allowed with RequestGuard::allow_origin"
                    ),
                ));
            }
        }
        match site {
            None => Ok(()),
            Some(s) if s.eq_ignore_ascii_case("same-origin") || s.eq_ignore_ascii_case("none") => {
                Ok(())
            }
            Some(s) => Err(Refusal::new(
                403,
                format!(
                    "a {method} from another site's page (`Sec-Fetch-Site: {s}`) is refused: only the endpoint's own pages may post to it; a front end of your own on another origin is allowed with RequestGuard::allow_origin"
                ),
            )),
        }
    }

    fn named_hosts(&self) -> String {
        let mut out = String::new();
        for (i, (named, parsed)) in self.named.iter().zip(&self.hosts).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(named);
            if parsed.is_none() {
                out.push_str(" (not a host: it matches nothing)");
            }
        }
        if out.is_empty() {
            out.push_str("none: the guard lists no host");
        }
        out
    }
}

/// Why a [`RequestGuard`] refused a request: the HTTP status to answer with (400 for a missing
/// or malformed `Host`, 403 otherwise) and a one-line message saying what was wrong.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// let guard = toolsmith::ui::RequestGuard::loopback();
/// let refusal = guard.check("GET", |_| None).unwrap_err();
/// assert_eq!(refusal.status(), 400);
/// assert_eq!(refusal.to_string(), refusal.message());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    status: u16,
    message: String,
}

impl Refusal {
    fn new(status: u16, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
        }
    }

    /// The HTTP status to answer with: 400 or 403.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::loopback();
    /// let refusal = guard.check("GET", |_| Some("evil.example")).unwrap_err();
    /// assert_eq!(refusal.status(), 403);
    /// ```
    pub fn status(&self) -> u16 {
        self.status
    }

    /// What was wrong, in one line, for the response's body.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
    /// let guard = toolsmith::ui::RequestGuard::loopback();
    /// let refusal = guard.check("GET", |_| Some("evil.example")).unwrap_err();
    /// assert!(refusal.message().contains("`evil.example`"));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// A host and an optional port (a `Host` header's value, or an entry of the guard's list).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    /// Lower case; an IPv6 address without its brackets.
    host: String,
    port: Option<u16>,
}

impl Authority {
    /// Whether this entry of the guard's list admits the request's `Host`: the same host, and
    /// the same port when the entry names one.
    fn admits(&self, request: &Authority) -> bool {
        self.host == request.host && (self.port.is_none() || self.port == request.port)
    }
}

/// An allowed or a request's origin: `http` or `https`, a host and a port (the scheme's
/// default when the origin names none).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: &'static str,
    host: String,
    port: u16,
}

impl Origin {
    /// Whether this origin is the endpoint's own: the host and port of the request's `Host`
    /// (whose port, when it names none, is the origin's scheme's default). Either scheme is
    /// accepted, since behind a proxy that ends TLS the endpoint cannot tell which one the page
    /// used.
    fn same_as(&self, host: &Authority) -> bool {
        self.host == host.host && Some(self.port) == host.port.or(Some(default_port(self.scheme)))
    }
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" {
        443
    } else {
        80
    }
}

/// `scheme://host[:port]` with scheme `http` or `https` and nothing after the authority.
fn parse_origin(raw: &str) -> Option<Origin> {
    let raw = raw.trim();
    let (scheme, rest) = raw.split_once("://")?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "http" => "http",
        "https" => "https",
        _ => return None,
    };
    let authority = parse_authority(rest)?;
    Some(Origin {
        scheme,
        port: authority.port.unwrap_or(default_port(scheme)),
        host: authority.host,
    })
}

/// An entry of the guard's list: an authority, or an IPv6 address written without brackets.
fn allowed_host(raw: &str) -> Option<Authority> {
    let raw = raw.trim();
    if !raw.starts_with('[') && raw.matches(':').count() > 1 {
        return parse_authority(&format!("[{raw}]"));
    }
    parse_authority(raw)
}

/// `host[:port]` as a `Host` header carries it (RFC 9110 §7.2): a name or IPv4 address, or an
/// IPv6 address in brackets, then an optional port. `None` when it is anything else.
fn parse_authority(raw: &str) -> Option<Authority> {
    let raw = raw.trim();
    let (host, port) = if let Some(inner) = raw.strip_prefix('[') {
        let (address, rest) = inner.split_once(']')?;
        if address.is_empty()
            || !address
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return None;
        }
        let port = match rest {
            "" => None,
            _ => Some(rest.strip_prefix(':')?),
        };
        (address, port)
    } else {
        let (name, port) = match raw.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (raw, None),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        {
            return None;
        }
        (name, port)
    };
    let port = match port {
        // `host:` names no port (RFC 9110 allows an empty one).
        None | Some("") => None,
        Some(p) if p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some(Authority {
        host: host.to_ascii_lowercase(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `method` with `headers` (lower-case names).
    fn check(guard: &RequestGuard, method: &str, headers: &[(&str, &str)]) -> Result<(), Refusal> {
        guard.check(method, |name| {
            headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        })
    }

    fn status(result: Result<(), Refusal>) -> u16 {
        result.err().map_or(200, |r| r.status())
    }

    #[test]
    fn the_host_must_be_one_the_guard_lists_on_every_method() {
        let guard = RequestGuard::loopback();
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:65535",
        ] {
            assert_eq!(
                status(check(&guard, "GET", &[("host", host)])),
                200,
                "{host}"
            );
            assert_eq!(
                status(check(&guard, "POST", &[("host", host)])),
                200,
                "{host}"
            );
        }
        for method in ["GET", "HEAD", "OPTIONS", "POST"] {
            let refused =
                check(&guard, method, &[("host", "rebind.attacker.example:8080")]).unwrap_err();
            assert_eq!(refused.status(), 403, "{method}");
            assert!(
                refused.message().contains("`rebind.attacker.example:8080`")
                    && refused.message().contains("(localhost, 127.0.0.1, [::1])"),
                "{refused}"
            );
            // A name that merely starts or ends like an allowed one is another name.
            for host in [
                "localhost.attacker.example",
                "127.0.0.1.nip.io",
                "x127.0.0.1",
            ] {
                assert_eq!(
                    status(check(&guard, method, &[("host", host)])),
                    403,
                    "{host}"
                );
            }
        }
    }

    #[test]
    fn a_missing_or_malformed_host_is_a_bad_request() {
        let guard = RequestGuard::loopback();
        assert_eq!(status(check(&guard, "GET", &[])), 400);
        for host in [
            "",
            "::1",
            "[::1",
            "local host",
            "localhost:http",
            "localhost:123456",
            "a@localhost",
            "localhost/x",
        ] {
            assert_eq!(
                status(check(&guard, "GET", &[("host", host)])),
                400,
                "{host:?}"
            );
        }
    }

    #[test]
    fn listed_hosts_match_any_port_or_the_one_they_name() {
        let guard = RequestGuard::for_hosts([
            "Shop.Example:8443",
            "10.0.0.5",
            "::1",
            "https://bad.example",
        ]);
        let ok = |host: &str| status(check(&guard, "GET", &[("host", host)]));
        assert_eq!(ok("shop.example:8443"), 200);
        assert_eq!(ok("shop.example:8444"), 403);
        assert_eq!(ok("shop.example"), 403);
        assert_eq!(ok("10.0.0.5:1234"), 200);
        assert_eq!(ok("[::1]:80"), 200);
        assert_eq!(ok("bad.example"), 403);
        let message = check(&guard, "GET", &[("host", "bad.example")])
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("https://bad.example (not a host"),
            "{message}"
        );
        assert_eq!(
            status(check(
                &RequestGuard::for_hosts(Vec::<String>::new()),
                "GET",
                &[("host", "localhost")]
            )),
            403
        );
    }

    #[test]
    fn a_post_from_another_origin_or_a_null_one_is_refused() {
        let guard = RequestGuard::loopback();
        let host = ("host", "127.0.0.1:8080");
        for origin in [
            "http://evil.example",
            "http://127.0.0.1:8081",
            "http://localhost:8080",
            "http://127.0.0.1",
            "ftp://127.0.0.1:8080",
            "null",
            "NULL",
            "not an origin",
        ] {
            for method in ["POST", "PUT", "DELETE", "PATCH", "post"] {
                let refused = check(&guard, method, &[host, ("origin", origin)]).unwrap_err();
                assert_eq!(refused.status(), 403, "{method} {origin}");
                assert!(
                    refused.message().starts_with(&format!("a {method} ")),
                    "{refused}"
                );
            }
            // Reading is not refused for its origin: a link from another site opens the page.
            assert_eq!(
                status(check(&guard, "GET", &[host, ("origin", origin)])),
                200
            );
        }
        let null = check(&guard, "POST", &[host, ("origin", "null")]).unwrap_err();
        assert!(null.message().contains("`Origin: null`"), "{null}");
    }

    #[test]
    fn a_post_from_the_endpoint_s_own_origin_passes() {
        let guard = RequestGuard::loopback();
        for (host, origin) in [
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("127.0.0.1:8080", "https://127.0.0.1:8080"),
            ("LocalHost:3000", "http://localhost:3000"),
            ("localhost", "http://localhost"),
            ("localhost", "http://localhost:80"),
            ("localhost:443", "https://localhost"),
            ("[::1]:9000", "http://[::1]:9000"),
            // Behind a proxy that ends TLS, the Host names no port and the page is https.
            ("localhost", "https://localhost"),
        ] {
            let headers = [
                ("host", host),
                ("origin", origin),
                ("sec-fetch-site", "same-origin"),
            ];
            assert_eq!(
                status(check(&guard, "POST", &headers)),
                200,
                "{host} {origin}"
            );
        }
        // A port the origin leaves to its scheme is that scheme's port.
        assert_eq!(
            status(check(
                &guard,
                "POST",
                &[("host", "localhost:8080"), ("origin", "https://localhost")]
            )),
            403
        );
    }

    #[test]
    fn sec_fetch_site_must_say_same_origin_or_none_on_a_post() {
        let guard = RequestGuard::loopback();
        let host = ("host", "127.0.0.1:8080");
        for site in ["same-origin", "none", "Same-Origin"] {
            assert_eq!(
                status(check(&guard, "POST", &[host, ("sec-fetch-site", site)])),
                200,
                "{site}"
            );
        }
        for site in ["cross-site", "same-site", "anything"] {
            let refused = check(&guard, "POST", &[host, ("sec-fetch-site", site)]).unwrap_err();
            assert_eq!(refused.status(), 403, "{site}");
            assert!(
                refused
                    .message()
                    .contains(&format!("Sec-Fetch-Site: {site}")),
                "{refused}"
            );
            // Even with an Origin that looks like the endpoint's own.
            let own = ("origin", "http://127.0.0.1:8080");
            assert_eq!(
                status(check(
                    &guard,
                    "POST",
                    &[host, own, ("sec-fetch-site", site)]
                )),
                403
            );
            assert_eq!(
                status(check(&guard, "GET", &[host, ("sec-fetch-site", site)])),
                200
            );
        }
    }

    #[test]
    fn a_request_with_neither_origin_nor_sec_fetch_site_passes() {
        // curl, a script: not a page in a browser, and it could post anything anyway.
        let guard = RequestGuard::loopback();
        assert_eq!(
            status(check(&guard, "POST", &[("host", "127.0.0.1:8080")])),
            200
        );
        // The Host rule still holds for it.
        assert_eq!(
            status(check(&guard, "POST", &[("host", "evil.example")])),
            403
        );
    }

    #[test]
    fn an_allowed_origin_may_post_across_sites() {
        let guard = RequestGuard::for_hosts(["api.example"])
            .allow_origin("https://app.example")
            .allow_origin("http://dev.example:5173")
            .allow_origin("not an origin");
        let post = |origin: &str, site: &str| {
            status(check(
                &guard,
                "POST",
                &[
                    ("host", "api.example"),
                    ("origin", origin),
                    ("sec-fetch-site", site),
                ],
            ))
        };
        assert_eq!(post("https://app.example", "cross-site"), 200);
        assert_eq!(post("https://APP.example:443", "same-site"), 200);
        assert_eq!(post("http://dev.example:5173", "cross-site"), 200);
        assert_eq!(post("http://app.example", "cross-site"), 403);
        assert_eq!(post("https://app.example:8443", "cross-site"), 403);
        assert_eq!(post("http://dev.example", "cross-site"), 403);
        assert_eq!(post("not an origin", "cross-site"), 403);
        // An allowed origin does not widen the hosts.
        let rebound = check(
            &guard,
            "POST",
            &[
                ("host", "rebind.example"),
                ("origin", "https://app.example"),
            ],
        );
        assert_eq!(status(rebound), 403);
    }
}
