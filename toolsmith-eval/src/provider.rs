//! The model endpoints an evaluation talks to, over their own wire formats: OpenAI's chat
//! completions and responses (and every server that speaks them: llama.cpp, vLLM, Ollama,
//! OpenRouter...), and Anthropic's messages.
//!
//! The API key is read from the environment variable the [`Provider`] names, only when a request
//! is sent; it goes in the request's header and nowhere else (an error that quotes a response
//! has it scrubbed). Rate limits and overload (`429`, `5xx`, Anthropic's `529`) are retried,
//! waiting what `Retry-After` says (bounded) or backing off exponentially.

use crate::scenario::{Case, Role};
use serde_json::{json, Value};
use std::time::Duration;
use toolsmith_core::export::{export, Target};
use toolsmith_core::ToolSpec;

/// A wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// OpenAI chat completions (`POST {base}/chat/completions`).
    OpenAiChat,
    /// OpenAI responses (`POST {base}/responses`).
    OpenAiResponses,
    /// Anthropic messages (`POST {base}/messages`).
    Anthropic,
}

impl Api {
    /// `openai-chat`, `openai-responses` or `anthropic`.
    pub fn slug(self) -> &'static str {
        match self {
            Api::OpenAiChat => "openai-chat",
            Api::OpenAiResponses => "openai-responses",
            Api::Anthropic => "anthropic",
        }
    }

    /// The API with this slug.
    pub fn from_slug(slug: &str) -> Option<Api> {
        [Api::OpenAiChat, Api::OpenAiResponses, Api::Anthropic]
            .into_iter()
            .find(|a| a.slug() == slug)
    }

    /// The export target whose tools this API takes.
    pub fn target(self) -> Target {
        match self {
            Api::OpenAiChat => Target::OpenAiChat { strict: false },
            Api::OpenAiResponses => Target::OpenAiResponses { strict: false },
            Api::Anthropic => Target::Anthropic { strict: false },
        }
    }

    fn default_base(self) -> &'static str {
        match self {
            Api::OpenAiChat | Api::OpenAiResponses => "https://api.openai.com/v1",
            Api::Anthropic => "https://api.anthropic.com/v1",
        }
    }

    fn default_key_env(self) -> &'static str {
        match self {
            Api::OpenAiChat | Api::OpenAiResponses => "OPENAI_API_KEY",
            Api::Anthropic => "ANTHROPIC_API_KEY",
        }
    }
}

/// Reads an environment variable (see [`Provider::env`]).
pub type EnvLookup = std::sync::Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Where and how requests go: the API, the endpoint, the model, the key's variable, and the
/// sampling and retry settings.
#[derive(Clone)]
pub struct Provider {
    api: Api,
    base_url: String,
    model: String,
    key_env: String,
    env: EnvLookup,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    retries: u32,
    backoff: Duration,
    max_wait: Duration,
    timeout: Duration,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never held here, only its variable's name.
        f.debug_struct("Provider")
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("key_env", &self.key_env)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// `model` on `api`'s official endpoint, its key in the API's usual variable
    /// (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
    pub fn new(api: Api, model: impl Into<String>) -> Provider {
        Provider {
            api,
            base_url: api.default_base().to_string(),
            model: model.into(),
            key_env: api.default_key_env().to_string(),
            env: std::sync::Arc::new(|name: &str| std::env::var(name).ok()),
            temperature: None,
            max_tokens: None,
            retries: 5,
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(60),
            timeout: Duration::from_secs(120),
        }
    }

    /// Another endpoint speaking the same API (a local server: `http://127.0.0.1:8080/v1`).
    #[must_use]
    pub fn base_url(mut self, url: impl Into<String>) -> Provider {
        self.base_url = url.into().trim_end_matches('/').to_string();
        self
    }

    /// The environment variable that holds the key (read when a request is sent).
    #[must_use]
    pub fn key_env(mut self, name: impl Into<String>) -> Provider {
        self.key_env = name.into();
        self
    }

    /// Where the key's variable is read: the process's environment by default; a host whose
    /// environment is a map of its own (a test, a sandbox) gives its lookup.
    #[must_use]
    pub fn env(mut self, lookup: EnvLookup) -> Provider {
        self.env = lookup;
        self
    }

    /// The sampling temperature (the endpoint's default when not set).
    #[must_use]
    pub fn temperature(mut self, t: f64) -> Provider {
        self.temperature = Some(t);
        self
    }

    /// At most this many tokens per answer. Unset, OpenAI's APIs use the endpoint's own bound
    /// and Anthropic's (which requires one) 1024. Sent as `max_completion_tokens` in chat
    /// completions (OpenAI's reasoning models refuse `max_tokens`), `max_output_tokens` in
    /// responses, `max_tokens` in Anthropic's messages.
    #[must_use]
    pub fn max_tokens(mut self, n: u32) -> Provider {
        self.max_tokens = Some(n);
        self
    }

    /// Retries of a rate-limited or failed request (default 5), the first backoff (default
    /// 1 s, doubled each time) and the longest wait a `Retry-After` may ask (default 60 s).
    #[must_use]
    pub fn retries(mut self, retries: u32, backoff: Duration, max_wait: Duration) -> Provider {
        self.retries = retries;
        self.backoff = backoff;
        self.max_wait = max_wait;
        self
    }

    /// The API.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The endpoint's base URL.
    pub fn url(&self) -> &str {
        &self.base_url
    }

    /// Whether the key's variable holds a key (checked before a run, so a missing key is one
    /// error rather than a failed trial each).
    pub fn check_key(&self) -> Result<(), AskError> {
        self.key().map(|_| ())
    }

    fn key(&self) -> Result<String, AskError> {
        match (self.env)(&self.key_env) {
            Some(key) if !key.trim().is_empty() => Ok(key),
            _ => Err(AskError::NoKey(self.key_env.clone())),
        }
    }
}

/// One tool call the model made.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The arguments, or the text the model wrote when it is not a JSON object.
    pub arguments: Result<Value, String>,
}

/// What the model answered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// Its tool calls, in order.
    pub calls: Vec<Call>,
    /// Its text, if any.
    pub text: String,
    /// The tokens the endpoint counted for it (requests are counted by [`Client::ask`]).
    pub usage: Usage,
}

/// Tokens and requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Requests sent (retries included).
    pub requests: u64,
    /// Requests retried.
    pub retries: u64,
    /// Input tokens, as the endpoint counted them.
    pub input_tokens: u64,
    /// Output tokens, as the endpoint counted them.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Usage) {
        self.requests += other.requests;
        self.retries += other.retries;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why no answer came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskError {
    /// The key's variable is not set.
    NoKey(String),
    /// The endpoint refused the request, retries spent (the status and its message).
    Http(u16, String),
    /// The endpoint could not be reached, retries spent.
    Transport(String),
    /// The endpoint answered something that is not its API's answer.
    Malformed(String),
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskError::NoKey(var) => write!(f, "the environment variable {var} holds no API key"),
            AskError::Http(status, message) => write!(f, "HTTP {status}: {message}"),
            AskError::Transport(why) => write!(f, "the endpoint could not be reached: {why}"),
            AskError::Malformed(why) => write!(f, "the answer is malformed: {why}"),
        }
    }
}

impl std::error::Error for AskError {}

/// Sends cases to one provider.
#[derive(Clone, Debug)]
pub struct Client {
    provider: Provider,
    http: reqwest::Client,
}

impl Client {
    /// A client of `provider`.
    pub fn new(provider: Provider) -> Result<Client, AskError> {
        let http = reqwest::Client::builder()
            .timeout(provider.timeout)
            // A key must not follow a redirect to another host.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AskError::Transport(e.to_string()))?;
        Ok(Client { provider, http })
    }

    /// The provider.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// The tools as this API takes them.
    pub fn tools(&self, specs: &[ToolSpec]) -> Result<Value, String> {
        export(specs, self.provider.api.target()).map_err(|e| e.to_string())
    }

    /// Asks the model `case` with `tools` (from [`tools`](Self::tools)) and `system`: the answer
    /// or why none came, and the requests and tokens it took either way.
    pub async fn ask(
        &self,
        system: Option<&str>,
        case: &Case,
        tools: &Value,
    ) -> (Result<Answer, AskError>, Usage) {
        let mut usage = Usage::default();
        let result = self.ask_counting(system, case, tools, &mut usage).await;
        if let Ok(answer) = &result {
            usage.input_tokens += answer.usage.input_tokens;
            usage.output_tokens += answer.usage.output_tokens;
        }
        (result, usage)
    }

    async fn ask_counting(
        &self,
        system: Option<&str>,
        case: &Case,
        tools: &Value,
        usage: &mut Usage,
    ) -> Result<Answer, AskError> {
        let key = self.provider.key()?;
        let (url, body) = self.request(system, case, tools);
        let mut attempt = 0;
        loop {
            usage.requests += 1;
            let mut req = self.http.post(&url).json(&body);
            req = match self.provider.api {
                Api::Anthropic => req
                    .header("x-api-key", &key)
                    .header("anthropic-version", "2023-06-01"),
                _ => req.bearer_auth(&key),
            };
            let wait = match req.send().await {
                Ok(res) if res.status().is_success() => {
                    let text = match read_capped(res, MAX_ANSWER_BYTES).await {
                        Ok(Some(text)) => text,
                        Ok(None) => {
                            return Err(AskError::Malformed(format!(
                                "the answer is larger than {} MiB",
                                MAX_ANSWER_BYTES >> 20
                            )))
                        }
                        Err(e) => return Err(AskError::Transport(scrub(&e.to_string(), &key))),
                    };
                    return self
                        .parse(&text)
                        .map_err(|why| AskError::Malformed(scrub(&why, &key)));
                }
                Ok(res) => {
                    let status = res.status().as_u16();
                    let after = retry_after(res.headers());
                    // An error's body is read only as far as its message needs.
                    let text = read_capped(res, 64 * 1024)
                        .await
                        .ok()
                        .flatten()
                        .unwrap_or_default();
                    let message = scrub(&error_message(&text), &key);
                    if !retryable(status) || attempt >= self.provider.retries {
                        return Err(AskError::Http(status, message));
                    }
                    after.unwrap_or_else(|| self.backoff(attempt))
                }
                Err(e) => {
                    if attempt >= self.provider.retries {
                        return Err(AskError::Transport(scrub(&e.to_string(), &key)));
                    }
                    self.backoff(attempt)
                }
            };
            attempt += 1;
            usage.retries += 1;
            tokio::time::sleep(wait.min(self.provider.max_wait)).await;
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.provider
            .backoff
            .saturating_mul(1 << attempt.min(6))
            .min(self.provider.max_wait)
    }

    fn request(&self, system: Option<&str>, case: &Case, tools: &Value) -> (String, Value) {
        let p = &self.provider;
        let turns = case
            .history
            .iter()
            .map(|t| (t.role, t.text.as_str()))
            .chain([(Role::User, case.prompt.as_str())]);
        let role = |r: Role| match r {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        match p.api {
            Api::OpenAiChat => {
                let mut messages: Vec<Value> = system
                    .map(|s| json!({"role": "system", "content": s}))
                    .into_iter()
                    .collect();
                messages.extend(turns.map(|(r, t)| json!({"role": role(r), "content": t})));
                let mut body = json!({"model": p.model, "messages": messages, "tools": tools});
                if let Some(t) = p.temperature {
                    body["temperature"] = json!(t);
                }
                if let Some(n) = p.max_tokens {
                    body["max_completion_tokens"] = json!(n);
                }
                (format!("{}/chat/completions", p.base_url), body)
            }
            Api::OpenAiResponses => {
                let input: Vec<Value> = turns
                    .map(|(r, t)| json!({"role": role(r), "content": t}))
                    .collect();
                let mut body =
                    json!({"model": p.model, "input": input, "tools": tools, "store": false});
                if let Some(n) = p.max_tokens {
                    body["max_output_tokens"] = json!(n);
                }
                if let Some(s) = system {
                    body["instructions"] = json!(s);
                }
                if let Some(t) = p.temperature {
                    body["temperature"] = json!(t);
                }
                (format!("{}/responses", p.base_url), body)
            }
            Api::Anthropic => {
                let messages: Vec<Value> = turns
                    .map(|(r, t)| json!({"role": role(r), "content": t}))
                    .collect();
                let mut body = json!({"model": p.model, "max_tokens": p.max_tokens.unwrap_or(1024),
                                      "messages": messages, "tools": tools});
                if let Some(s) = system {
                    body["system"] = json!(s);
                }
                if let Some(t) = p.temperature {
                    body["temperature"] = json!(t);
                }
                (format!("{}/messages", p.base_url), body)
            }
        }
    }

    /// The answer in a successful response's body.
    fn parse(&self, text: &str) -> Result<Answer, String> {
        let body: Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {}", clip(text)))?;
        let count = |v: &Value| v.as_u64().unwrap_or(0);
        match self.provider.api {
            Api::OpenAiChat => {
                let message = body["choices"][0]["message"]
                    .as_object()
                    .ok_or_else(|| format!("no `choices[0].message`: {}", clip(text)))?;
                let calls = match message.get("tool_calls") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(calls)) => calls
                        .iter()
                        .map(|c| {
                            let f = &c["function"];
                            let name = f["name"]
                                .as_str()
                                .ok_or_else(|| format!("a tool call without a name: {c}"))?;
                            Ok(Call {
                                name: name.to_string(),
                                arguments: arguments_text(&f["arguments"]),
                            })
                        })
                        .collect::<Result<_, String>>()?,
                    Some(other) => return Err(format!("`tool_calls` is not a list: {other}")),
                };
                Ok(Answer {
                    calls,
                    text: message
                        .get("content")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    usage: Usage {
                        input_tokens: count(&body["usage"]["prompt_tokens"]),
                        output_tokens: count(&body["usage"]["completion_tokens"]),
                        ..Usage::default()
                    },
                })
            }
            Api::OpenAiResponses => {
                let items = body["output"]
                    .as_array()
                    .ok_or_else(|| format!("no `output` list: {}", clip(text)))?;
                let mut answer = Answer::default();
                for item in items {
                    match item["type"].as_str() {
                        Some("function_call") => answer.calls.push(Call {
                            name: item["name"]
                                .as_str()
                                .ok_or_else(|| format!("a function call without a name: {item}"))?
                                .to_string(),
                            arguments: arguments_text(&item["arguments"]),
                        }),
                        Some("message") => {
                            for part in item["content"].as_array().into_iter().flatten() {
                                answer.text.push_str(part["text"].as_str().unwrap_or(""));
                            }
                        }
                        _ => {}
                    }
                }
                answer.usage.input_tokens = count(&body["usage"]["input_tokens"]);
                answer.usage.output_tokens = count(&body["usage"]["output_tokens"]);
                Ok(answer)
            }
            Api::Anthropic => {
                let blocks = body["content"]
                    .as_array()
                    .ok_or_else(|| format!("no `content` list: {}", clip(text)))?;
                let mut answer = Answer::default();
                for block in blocks {
                    match block["type"].as_str() {
                        Some("tool_use") => answer.calls.push(Call {
                            name: block["name"]
                                .as_str()
                                .ok_or_else(|| format!("a tool_use without a name: {block}"))?
                                .to_string(),
                            arguments: match &block["input"] {
                                v @ Value::Object(_) => Ok(v.clone()),
                                other => Err(other.to_string()),
                            },
                        }),
                        Some("text") => answer.text.push_str(block["text"].as_str().unwrap_or("")),
                        _ => {}
                    }
                }
                answer.usage.input_tokens = count(&body["usage"]["input_tokens"]);
                answer.usage.output_tokens = count(&body["usage"]["output_tokens"]);
                Ok(answer)
            }
        }
    }
}

/// The largest answer read: an endpoint that sends more (a broken proxy, a hostile server) gets
/// a `malformed` trial, not the process's memory.
pub const MAX_ANSWER_BYTES: usize = 16 << 20;

/// A response's body as text, read chunk by chunk up to `limit` bytes (`None` past it; invalid
/// UTF-8 replaced).
async fn read_capped(
    mut res: reqwest::Response,
    limit: usize,
) -> Result<Option<String>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}

/// A call's arguments, written as JSON text (OpenAI) or, by some servers, as an object.
fn arguments_text(v: &Value) -> Result<Value, String> {
    match v {
        Value::Object(_) => Ok(v.clone()),
        Value::String(text) if text.trim().is_empty() => Ok(json!({})),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(obj @ Value::Object(_)) => Ok(obj),
            _ => Err(text.clone()),
        },
        other => Err(other.to_string()),
    }
}

/// Statuses worth another try: rate limits, overload, a gateway's failures.
fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// What `Retry-After` (seconds) or `retry-after-ms` asks.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let read = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    if let Some(ms) = read("retry-after-ms").filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    read("retry-after")
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// The message of an error body (`{"error": {"message"}}` in both APIs), else its text.
fn error_message(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| clip(text))
}

/// `text` cut to 300 characters for a message.
fn clip(text: &str) -> String {
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        cut
    }
}

/// `text` with the key replaced, should an endpoint quote it back.
fn scrub(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_string();
    }
    text.replace(key, "[key]")
}
