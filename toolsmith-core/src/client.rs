//! Requests from a running tool to the client that called it: log messages, a completion from
//! the client's model, a question to the user.
//!
//! The overview is in the docs of [`Client`], where it is rendered.

use crate::codes;
use crate::envelope::Status;
use crate::error::ToolError;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The severity of a log message: the eight levels of RFC 5424 (syslog) that MCP uses, from the
/// least severe ([`Debug`](LogLevel::Debug)) to the most ([`Emergency`](LogLevel::Emergency)).
/// Levels order by severity, so `LogLevel::Warning > LogLevel::Info`.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::client::LogLevel;
/// assert!(LogLevel::Error > LogLevel::Warning);
/// assert_eq!(LogLevel::Warning.as_str(), "warning");
/// assert_eq!("notice".parse::<LogLevel>(), Ok(LogLevel::Notice));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information (how the work goes).
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name on the wire (`"debug"` ... `"emergency"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the eight log levels.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a log level; the levels are debug, info, notice, warning, error, critical, alert and emergency")]
pub struct UnknownLogLevel(pub String);

impl std::str::FromStr for LogLevel {
    type Err = UnknownLogLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| UnknownLogLevel(s.to_string()))
    }
}

/// One log message of a tool, as a transport receives it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LogMessage {
    /// Its severity.
    pub level: LogLevel,
    /// The name of the logger (the part of the tool it comes from), if given.
    pub logger: Option<String>,
    /// The message: a JSON string for [`Client::log`], any JSON for [`Client::log_data`].
    pub data: Value,
}

/// What a tool asks of the client's model ([`Client::sample`]): user messages of text, an
/// optional system prompt, the most tokens to generate, and optional preferences.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::client::SampleRequest;
/// let request = SampleRequest::new("Summarize in one line: ...", 200)
///     .with_system_prompt("You summarize support tickets.")
///     .with_temperature(0.2)
///     .with_model_hint("claude");
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SampleRequest {
    /// The user messages, in order (each one text).
    pub messages: Vec<String>,
    /// The system prompt, if any (the client may change or ignore it).
    pub system_prompt: Option<String>,
    /// The most tokens the model may generate.
    pub max_tokens: u32,
    /// The sampling temperature, if the tool cares (0.0 to 1.0).
    pub temperature: Option<f64>,
    /// Names of models or model families the tool would prefer, best first (hints: the client
    /// chooses).
    pub model_hints: Vec<String>,
    /// The request's name for a transport that asks in rounds (see [`Question::with_key`]);
    /// `None`: `sample_` and a digest of the request.
    pub key: Option<String>,
}

impl SampleRequest {
    /// A request of one user message and at most `max_tokens` tokens of answer.
    pub fn new(message: impl Into<String>, max_tokens: u32) -> Self {
        SampleRequest {
            messages: vec![message.into()],
            system_prompt: None,
            max_tokens,
            temperature: None,
            model_hints: Vec::new(),
            key: None,
        }
    }

    /// Names the request (see [`Question::with_key`]).
    #[must_use]
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The request's name: the one given, or `sample_` and a digest of the messages, the system
    /// prompt and the token limit.
    pub fn request_key(&self) -> String {
        if let Some(k) = &self.key {
            return k.clone();
        }
        let mut parts: Vec<&[u8]> = self.messages.iter().map(|m| m.as_bytes()).collect();
        let limit = self.max_tokens.to_string();
        parts.push(self.system_prompt.as_deref().unwrap_or_default().as_bytes());
        parts.push(limit.as_bytes());
        digest_key("sample", &parts)
    }

    /// Adds a user message after the others.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.messages.push(message.into());
        self
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a model hint (a model or family name, e.g. `"claude"`), after the others.
    #[must_use]
    pub fn with_model_hint(mut self, name: impl Into<String>) -> Self {
        self.model_hints.push(name.into());
        self
    }
}

/// A root the client shares with the server (MCP `roots/list`): a folder or file of the user's,
/// named by its URI (usually `file://`), which a tool may confine itself to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI, e.g. `file:///home/ann/project`.
    pub uri: String,
    /// A name for it the client chose, if any.
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Root {
        Root {
            uri: uri.into(),
            name,
        }
    }
}

/// The client model's answer to a [`SampleRequest`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SampleResult {
    /// The text the model generated.
    pub text: String,
    /// The model that generated it, as the client names it.
    pub model: String,
    /// Why the generation stopped (`"endTurn"`, `"maxTokens"`, `"stopSequence"`, ...), if said.
    pub stop_reason: Option<String>,
}

impl SampleResult {
    /// A result (what a transport or a test's channel builds from the client's answer).
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        SampleResult {
            text: text.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// Sets the stop reason.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// Why a request to the client got no answer ([`Client::sample`]; [`Client::ask`] turns these
/// into the [`ToolError`] it returns).
///
/// Each converts into a [`ToolError`] with `?`:
///
/// | error | status | code |
/// |---|---|---|
/// | [`Unsupported`](ClientError::Unsupported) | `failed` | [`CLIENT_UNSUPPORTED`](codes::CLIENT_UNSUPPORTED) |
/// | [`Rejected`](ClientError::Rejected) with code `-1` (MCP's "user rejected") | `cancelled_by_user` | [`CANCELLED_BY_USER`](codes::CANCELLED_BY_USER) |
/// | [`Rejected`](ClientError::Rejected), any other code | `failed` | [`CLIENT_REJECTED`](codes::CLIENT_REJECTED) |
/// | [`Closed`](ClientError::Closed) | `failed` | [`CLIENT_CLOSED`](codes::CLIENT_CLOSED) |
/// | [`TimedOut`](ClientError::TimedOut) | `failed` | [`CLIENT_TIMEOUT`](codes::CLIENT_TIMEOUT) |
/// | [`InvalidAnswer`](ClientError::InvalidAnswer) | `failed` | [`INVALID_ANSWER`](codes::INVALID_ANSWER) |
///
/// A keyed write ([`#[tool(writes, idempotency_key(...))]`](crate::idempotency)) that ends with
/// one of these errors, because its request got no answer it could use, did not act: its key is
/// released, so the agent's retry runs, unless the tool said it had already taken effect
/// ([`Client::mark_acted`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The client cannot do this: it did not declare the capability, the protocol version has
    /// no such request, or no client is connected to the call at all (a plain
    /// [`Toolbox::call`](crate::Toolbox::call)). The text says which.
    #[error("the client cannot answer this request: {0}")]
    Unsupported(String),
    /// The client answered with a JSON-RPC error: it declined (MCP suggests code `-1` when the
    /// user rejected the request) or failed.
    #[error("the client answered with error {code}: {message}")]
    Rejected {
        /// The JSON-RPC error code.
        code: i32,
        /// The client's message.
        message: String,
    },
    /// The connection to the client closed before it answered.
    #[error("the connection to the client closed before it answered")]
    Closed,
    /// The client did not answer within the time the transport allows for a request (over MCP,
    /// `McpServer::client_timeout`); the request was withdrawn.
    #[error("the client did not answer within {} ms", .0.as_millis())]
    TimedOut(std::time::Duration),
    /// The client answered, but not with what was asked (a sampling answer that is not text).
    #[error("the client's answer is not what was asked: {0}")]
    InvalidAnswer(String),
}

/// `<prefix>_` and 12 hexadecimal digits of the SHA-256 of `parts` (each length-prefixed).
fn digest_key(prefix: &str, parts: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    let d = h.finalize();
    let hex: String = d[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}_{hex}")
}

/// The JSON-RPC code MCP suggests for a request the user rejected.
const USER_REJECTED: i32 = -1;

impl From<ClientError> for ToolError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Unsupported(why) => ToolError::failed(
                codes::CLIENT_UNSUPPORTED,
                format!(
                    "The tool needs something of the client that it cannot give ({why}). \
                     Retrying will not help; tell the user the tool cannot run here."
                ),
            ),
            ClientError::Rejected { code, message } if code == USER_REJECTED => {
                ToolError::cancelled_by_user(format!(
                    "The user rejected the tool's request to the client ({message}). Stop, and \
                     do not retry unless the user asks."
                ))
            }
            ClientError::Rejected { code, message } => ToolError::failed(
                codes::CLIENT_REJECTED,
                format!(
                    "The client refused the tool's request (error {code}: {message}). Do not \
                     retry blindly; tell the user what the tool could not do."
                ),
            ),
            ClientError::Closed => ToolError::failed(
                codes::CLIENT_CLOSED,
                "The connection to the client closed while the tool waited for its answer.",
            ),
            ClientError::TimedOut(limit) => ToolError::failed(
                codes::CLIENT_TIMEOUT,
                format!(
                    "The client did not answer the tool's request within {} s, so the tool \
                     stopped without acting. Tell the user; call the tool again only if they \
                     want to answer.",
                    limit.as_secs_f64()
                ),
            ),
            ClientError::InvalidAnswer(why) => invalid_answer(&why),
        }
    }
}

fn invalid_answer(why: &str) -> ToolError {
    ToolError::failed(
        codes::INVALID_ANSWER,
        format!(
            "The answer the client gave does not fit what the tool asked for: {why}. Tell the \
             user, and call the tool again only if they want to answer again."
        ),
    )
}

/// The user's answer to a [`Question`], as the client reports it (MCP's `accept`, `decline`
/// and `cancel`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// The user answered; the content is the form's fields (checked by [`Question::check`]).
    Accept(Map<String, Value>),
    /// The user declined to answer.
    Decline,
    /// The user dismissed the question without choosing (closed the dialog).
    Cancel,
}

/// A question's form cannot be shown to a user: a field MCP's forms cannot express, or a schema
/// that is not an object of fields. Converts into a [`ToolError`] `failed` /
/// [`INVALID_QUESTION`](codes::INVALID_QUESTION).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.text())]
pub struct QuestionError {
    field: Option<String>,
    reason: String,
}

impl QuestionError {
    fn of_field(field: &str, reason: impl Into<String>) -> Self {
        QuestionError {
            field: Some(field.to_string()),
            reason: reason.into(),
        }
    }

    fn of_form(reason: impl Into<String>) -> Self {
        QuestionError {
            field: None,
            reason: reason.into(),
        }
    }

    /// The field that cannot be asked, when one field is the reason.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    fn text(&self) -> String {
        match &self.field {
            Some(field) => format!(
                "the field \"{field}\" cannot be asked: {}; a question asks for text (with a \
                 format or a list of choices), a number, a whole number or a yes/no",
                self.reason
            ),
            None => format!("the question cannot be asked: {}", self.reason),
        }
    }
}

impl From<QuestionError> for ToolError {
    fn from(e: QuestionError) -> Self {
        ToolError::failed(
            codes::INVALID_QUESTION,
            format!(
                "The tool could not ask the user ({e}). Retrying will not help; tell the user \
                 the tool is not working correctly."
            ),
        )
    }
}

/// The string formats a question may carry (MCP's elicitation schema).
const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// A question for the user: a message and a form of flat fields, in the shape MCP's elicitation
/// (`elicitation/create`, form mode) accepts: an object whose properties are each text (with an
/// optional `format` of `email`, `uri`, `date` or `date-time`, length bounds, or a list of
/// choices as `enum` or as `oneOf` of `{const, title}`), a number or an integer (with bounds), or
/// a boolean. Anything else (a nested object, a list, a union, a field of any JSON) is refused
/// with a [`QuestionError`] naming the field. Keywords the form has no place for (`pattern`,
/// other formats, exclusive bounds) are left out of the form; the answer is checked by the tool
/// that asked (the type it is read into, or the toolbox's validation of a call).
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use serde_json::json;
/// use toolsmith::Question;
/// let q = Question::new("Where should it ship?", &json!({
///     "type": "object",
///     "properties": {
///         "email": {"type": "string", "format": "email", "description": "Where to send the receipt"},
///         "express": {"type": "boolean"},
///     },
///     "required": ["email"],
/// })).unwrap();
/// assert_eq!(q.fields(), ["email", "express"]);
/// let nested = Question::new("?", &json!({
///     "type": "object",
///     "properties": {"address": {"type": "object", "properties": {}}},
/// }));
/// assert_eq!(nested.unwrap_err().field(), Some("address"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    message: String,
    schema: Value,
    fields: Vec<String>,
    key: Option<String>,
}

impl Question {
    /// A question of `message` with the form `schema` (a JSON Schema object of flat fields).
    ///
    /// # Errors
    /// When the schema is not an object of fields MCP's forms can express.
    pub fn new(message: impl Into<String>, schema: &Value) -> Result<Question, QuestionError> {
        let root = schema
            .as_object()
            .ok_or_else(|| QuestionError::of_form("its form is not a JSON Schema object"))?;
        if let Some(t) = root.get("type") {
            if t != "object" {
                return Err(QuestionError::of_form(format!(
                    "its form must be an object of fields, and this one has type {t}"
                )));
            }
        }
        let properties = match root.get("properties") {
            Some(Value::Object(p)) if !p.is_empty() => p,
            _ => return Err(QuestionError::of_form("its form has no fields")),
        };
        let required: Vec<&str> = match root.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut fields = Map::new();
        for (name, schema) in properties {
            fields.insert(name.clone(), field(name, schema)?);
        }
        let required = properties
            .keys()
            .filter(|k| required.contains(&k.as_str()))
            .cloned()
            .collect();
        Ok(Question::of_fields(message.into(), fields, required))
    }

    /// A question whose form is the fields of `T` (its `schemars` schema); the answer is read
    /// into `T` by [`Client::ask`].
    ///
    /// # Errors
    /// When `T` is not a struct of fields MCP's forms can express (the error names the field).
    pub fn of<T: JsonSchema>(message: impl Into<String>) -> Result<Question, QuestionError> {
        let generator = toolsmith_spec::schema::input_generator();
        let schema = generator.into_root_schema_for::<T>().to_value();
        let schema = toolsmith_spec::schema::clean_document(schema);
        Question::new(message, &schema)
    }

    /// A question for some of a tool's parameters: the properties named in `fields` of its
    /// `input_schema` (with their descriptions), every one of them required. This is how the
    /// MCP server asks the user for the `missing` fields of a `needs_input` answer.
    ///
    /// # Errors
    /// When a field is not a property of the schema, or cannot be asked.
    pub fn for_fields(
        message: impl Into<String>,
        input_schema: &Value,
        fields: &[String],
    ) -> Result<Question, QuestionError> {
        if fields.is_empty() {
            return Err(QuestionError::of_form("it names no field"));
        }
        let properties = input_schema.get("properties").and_then(Value::as_object);
        let mut out = Map::new();
        for name in fields {
            let schema = properties.and_then(|p| p.get(name)).ok_or_else(|| {
                QuestionError::of_field(name, "it is not one of the tool's parameters")
            })?;
            out.insert(name.clone(), field(name, schema)?);
        }
        // Each field once, in the order first named.
        let required = out.keys().cloned().collect();
        Ok(Question::of_fields(message.into(), out, required))
    }

    fn of_fields(message: String, fields: Map<String, Value>, required: Vec<String>) -> Question {
        let names = fields.keys().cloned().collect();
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(fields));
        if !required.is_empty() {
            schema.insert(
                "required".into(),
                Value::Array(required.into_iter().map(Value::String).collect()),
            );
        }
        Question {
            message,
            schema: Value::Object(schema),
            fields: names,
            key: None,
        }
    }

    /// Names the question for a transport that asks in rounds (MCP 2026-07-28's
    /// `input_required` results name each request, and the client answers by that name):
    /// without a name it is `ask_` and a digest of the message and the form, the same on every
    /// run of the tool, which is what a retry needs.
    #[must_use]
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The question's name (see [`with_key`](Self::with_key)).
    pub fn key(&self) -> String {
        match &self.key {
            Some(k) => k.clone(),
            None => digest_key(
                "ask",
                &[self.message.as_bytes(), self.schema.to_string().as_bytes()],
            ),
        }
    }

    /// This question with `f` applied to the text the user reads (the message, each field's
    /// title and description, a text default): `None` when `f` changed nothing. The fields, the
    /// choices and the request's name stay as they were.
    pub(crate) fn map_text(&self, f: impl Fn(&str) -> Option<String>) -> Option<Question> {
        let mut changed = false;
        let mut apply = |v: &mut Value| {
            if let Some(new) = v.as_str().and_then(&f) {
                *v = Value::String(new);
                changed = true;
            }
        };
        let mut message = Value::String(self.message.clone());
        apply(&mut message);
        let mut schema = self.schema.clone();
        if let Some(Value::Object(fields)) = schema.get_mut("properties") {
            for field in fields.values_mut().filter_map(Value::as_object_mut) {
                for keyword in ["title", "description", "default"] {
                    if let Some(v) = field.get_mut(keyword) {
                        apply(v);
                    }
                }
                // The titles of the choices (not their values: the answer is checked
                // against those).
                for (key, list) in field.iter_mut() {
                    let options = match (key.as_str(), list) {
                        ("oneOf" | "anyOf", Value::Array(options)) => Some(options),
                        ("items", Value::Object(items)) => {
                            items.get_mut("anyOf").and_then(Value::as_array_mut)
                        }
                        _ => None,
                    };
                    for title in options
                        .into_iter()
                        .flatten()
                        .filter_map(|o| o.get_mut("title"))
                    {
                        apply(title);
                    }
                }
            }
        }
        changed.then(|| Question {
            message: match message {
                Value::String(m) => m,
                _ => self.message.clone(),
            },
            schema,
            fields: self.fields.clone(),
            key: self.key.clone(),
        })
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form, as MCP's `requestedSchema`: `{"type": "object", "properties": {...},
    /// "required": [...]}` with only the keywords a form may carry.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The names of the form's fields, in order.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The `needs_input` error that asks the agent for the question's fields instead (what
    /// [`Client::ask`] returns when no client can show the question).
    pub fn needs_input(&self) -> ToolError {
        ToolError::needs_input(self.fields.iter().cloned(), self.message.clone())
    }

    /// What the user's answer makes of the call: the checked fields ([`check`](Self::check)),
    /// or the error its envelope carries.
    ///
    /// # Errors
    /// `cancelled_by_user` with [`CANCELLED_BY_USER`](codes::CANCELLED_BY_USER) (declined) or
    /// [`QUESTION_DISMISSED`](codes::QUESTION_DISMISSED) (dismissed); `failed` /
    /// [`INVALID_ANSWER`](codes::INVALID_ANSWER) when the content does not fit the form.
    pub fn answered(&self, answer: Answer) -> Result<Map<String, Value>, ToolError> {
        match answer {
            Answer::Accept(content) => self.check(content),
            Answer::Decline => Err(ToolError::cancelled_by_user(format!(
                "The user declined to answer the tool's question (\"{}\"). Stop, and do not \
                 retry unless the user asks.",
                self.message
            ))),
            Answer::Cancel => Err(ToolError::new(
                Status::CancelledByUser,
                codes::QUESTION_DISMISSED,
                format!(
                    "The user dismissed the tool's question (\"{}\") without answering. Do not \
                     retry unless the user asks.",
                    self.message
                ),
            )),
        }
    }

    /// Checks an accepted answer against the form: only the form's fields, every required one
    /// present, each of its type, within its bounds and among its choices. A whole number sent
    /// as `3.0` becomes `3`; a `null` for a field that is not required is left out.
    ///
    /// # Errors
    /// A `failed` / [`INVALID_ANSWER`](codes::INVALID_ANSWER) [`ToolError`] saying what does
    /// not fit.
    pub fn check(&self, content: Map<String, Value>) -> Result<Map<String, Value>, ToolError> {
        let properties = self.schema["properties"].as_object();
        let required = self.schema.get("required").and_then(Value::as_array);
        let is_required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
        let mut out = Map::new();
        for (name, value) in content {
            let Some(schema) = properties.and_then(|p| p.get(&name)) else {
                return Err(invalid_answer(&format!(
                    "it has the field \"{name}\", which the question did not ask for"
                )));
            };
            if value.is_null() && !is_required(&name) {
                continue;
            }
            let value = check_field(&name, schema, value).map_err(|why| invalid_answer(&why))?;
            out.insert(name, value);
        }
        if let Some(missing) = self
            .fields
            .iter()
            .find(|f| is_required(f) && !out.contains_key(*f))
        {
            return Err(invalid_answer(&format!(
                "the required field \"{missing}\" is missing"
            )));
        }
        Ok(out)
    }
}

/// One field of a question's form, in the shape MCP's elicitation accepts.
fn field(name: &str, schema: &Value) -> Result<Value, QuestionError> {
    let Some(obj) = schema.as_object() else {
        return Err(QuestionError::of_field(name, "it accepts any JSON value"));
    };
    // `anyOf: [X, {"type": "null"}]` (an optional field written by hand) is X.
    if let Some(Value::Array(branches)) = obj.get("anyOf") {
        let merged = without_null_branch(name, obj, branches)?;
        return field(name, &Value::Object(merged));
    }
    if obj.get("type").and_then(Value::as_str) == Some("array") {
        return multi_select(name, obj);
    }
    refuse_unaskable(name, obj)?;
    let kind = single_type(name, obj)?;
    let mut out = Map::new();
    for keyword in ["title", "description"] {
        if let Some(Value::String(s)) = obj.get(keyword) {
            out.insert(keyword.into(), Value::String(s.clone()));
        }
    }
    if let Some(Value::Array(options)) = obj.get("oneOf") {
        return titled_choices(name, options, obj, out);
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return enum_choices(name, values, obj, out);
    }
    typed_field(name, kind, obj, out)
}

/// The schema of an `anyOf` with one branch besides `null`, merged into one (refused otherwise).
fn without_null_branch(
    name: &str,
    obj: &Map<String, Value>,
    branches: &[Value],
) -> Result<Map<String, Value>, QuestionError> {
    let real: Vec<&Value> = branches
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
        .collect();
    if let [one] = real[..] {
        let mut merged = obj.clone();
        merged.remove("anyOf");
        if let Some(inner) = one.as_object() {
            for (k, v) in inner {
                merged.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        return Ok(merged);
    }
    Err(QuestionError::of_field(
        name,
        "it may be one of several kinds",
    ))
}

/// Refuses a field whose schema uses a keyword no form field can express.
fn refuse_unaskable(name: &str, obj: &Map<String, Value>) -> Result<(), QuestionError> {
    for (keyword, what) in [
        ("$ref", "it refers to a recursive type"),
        ("allOf", "it combines several schemas"),
        ("not", "it is defined by exclusion"),
        ("if", "it is conditional"),
        ("properties", "it is an object"),
        ("items", "it is a list"),
        ("const", "it has a single fixed value"),
    ] {
        if obj.contains_key(keyword) {
            return Err(QuestionError::of_field(name, what));
        }
    }
    Ok(())
}

/// The one JSON type a field declares besides `null` (`None` when it declares none).
fn single_type<'o>(
    name: &str,
    obj: &'o Map<String, Value>,
) -> Result<Option<&'o str>, QuestionError> {
    match obj.get("type") {
        None => Ok(None),
        Some(Value::String(t)) => Ok(Some(t.as_str())),
        Some(Value::Array(types)) => {
            let real: Vec<&str> = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match real[..] {
                [one] => Ok(Some(one)),
                _ => Err(QuestionError::of_field(
                    name,
                    "it may be one of several types",
                )),
            }
        }
        Some(_) => Err(QuestionError::of_field(name, "its type is not a type name")),
    }
}

/// A field of choices written as `enum` (of text only), with their older-form titles if any.
fn enum_choices(
    name: &str,
    values: &[Value],
    obj: &Map<String, Value>,
    mut out: Map<String, Value>,
) -> Result<Value, QuestionError> {
    let values: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
    if values.is_empty() || !values.iter().all(|v| v.is_string()) {
        return Err(QuestionError::of_field(
            name,
            "its choices are not all text (a form offers choices of text only)",
        ));
    }
    out.insert("type".into(), "string".into());
    let count = values.len();
    out.insert(
        "enum".into(),
        Value::Array(values.into_iter().cloned().collect()),
    );
    // The titles of the choices in MCP's older form (2025-06-18), kept when they fit.
    if let Some(Value::Array(names)) = obj.get("enumNames") {
        if names.len() == count && names.iter().all(Value::is_string) {
            out.insert("enumNames".into(), Value::Array(names.clone()));
        }
    }
    copy_default(obj, &mut out, Value::is_string);
    Ok(Value::Object(out))
}

/// A field of one primitive type (text, number or yes/no) with the limits a form keeps.
fn typed_field(
    name: &str,
    kind: Option<&str>,
    obj: &Map<String, Value>,
    mut out: Map<String, Value>,
) -> Result<Value, QuestionError> {
    match kind {
        Some("string") => {
            out.insert("type".into(), "string".into());
            for keyword in ["minLength", "maxLength"] {
                if let Some(n) = obj.get(keyword).filter(|v| v.is_u64()) {
                    out.insert(keyword.into(), n.clone());
                }
            }
            if let Some(Value::String(format)) = obj.get("format") {
                if FORMATS.contains(&format.as_str()) {
                    out.insert("format".into(), Value::String(format.clone()));
                }
            }
            copy_default(obj, &mut out, Value::is_string);
        }
        Some(t @ ("number" | "integer")) => {
            out.insert("type".into(), t.into());
            for keyword in ["minimum", "maximum"] {
                if let Some(n) = obj.get(keyword).filter(|v| v.is_number()) {
                    out.insert(keyword.into(), n.clone());
                }
            }
            copy_default(obj, &mut out, Value::is_number);
        }
        Some("boolean") => {
            out.insert("type".into(), "boolean".into());
            copy_default(obj, &mut out, Value::is_boolean);
        }
        Some("object") => return Err(QuestionError::of_field(name, "it is an object")),
        Some("array") => return Err(QuestionError::of_field(name, "it is a list")),
        Some(other) => {
            return Err(QuestionError::of_field(
                name,
                format!("its type \"{other}\" is not one a form can ask for"),
            ))
        }
        None => return Err(QuestionError::of_field(name, "it accepts any JSON value")),
    }
    Ok(Value::Object(out))
}

/// A field of choices written as `oneOf` of `{const, title}` (schemars' documented enums).
fn titled_choices(
    name: &str,
    options: &[Value],
    obj: &Map<String, Value>,
    mut out: Map<String, Value>,
) -> Result<Value, QuestionError> {
    let mut choices = Vec::new();
    for option in options {
        let Some(Value::String(value)) = option.get("const") else {
            return Err(QuestionError::of_field(
                name,
                "it may be one of several kinds (each choice of a form is one text constant)",
            ));
        };
        let title = option
            .get("title")
            .or_else(|| option.get("description"))
            .and_then(Value::as_str)
            .unwrap_or(value);
        let mut choice = Map::new();
        choice.insert("const".into(), Value::String(value.clone()));
        choice.insert("title".into(), Value::String(title.to_string()));
        choices.push(Value::Object(choice));
    }
    if choices.is_empty() {
        return Err(QuestionError::of_field(name, "it offers no choice"));
    }
    out.insert("type".into(), "string".into());
    out.insert("oneOf".into(), Value::Array(choices));
    copy_default(obj, &mut out, Value::is_string);
    Ok(Value::Object(out))
}

/// A field of several choices (MCP 2025-11-25's multi-select): a list whose items are one of
/// a few texts, written as `enum` or as `anyOf`/`oneOf` of `{const, title}`, with
/// `minItems`/`maxItems`.
fn multi_select(name: &str, obj: &Map<String, Value>) -> Result<Value, QuestionError> {
    let not_choices = || {
        QuestionError::of_field(
            name,
            "it is a list, and a form asks only for lists of choices of text",
        )
    };
    let items = obj
        .get("items")
        .and_then(Value::as_object)
        .ok_or_else(not_choices)?;
    let mut out = Map::new();
    for keyword in ["title", "description"] {
        if let Some(Value::String(s)) = obj.get(keyword) {
            out.insert(keyword.into(), Value::String(s.clone()));
        }
    }
    out.insert("type".into(), "array".into());
    let item = if let Some(Value::Array(values)) = items.get("enum") {
        if values.is_empty() || !values.iter().all(Value::is_string) {
            return Err(not_choices());
        }
        serde_json::json!({"type": "string", "enum": values})
    } else if let Some(Value::Array(options)) = items.get("anyOf").or_else(|| items.get("oneOf")) {
        let mut choices = Vec::new();
        for option in options {
            let value = option
                .get("const")
                .and_then(Value::as_str)
                .ok_or_else(not_choices)?;
            let title = option.get("title").and_then(Value::as_str).unwrap_or(value);
            choices.push(serde_json::json!({"const": value, "title": title}));
        }
        if choices.is_empty() {
            return Err(not_choices());
        }
        serde_json::json!({"anyOf": choices})
    } else {
        return Err(not_choices());
    };
    out.insert("items".into(), item);
    for keyword in ["minItems", "maxItems"] {
        if let Some(n) = obj.get(keyword).filter(|v| v.is_u64()) {
            out.insert(keyword.into(), n.clone());
        }
    }
    copy_default(obj, &mut out, |d| {
        d.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    });
    Ok(Value::Object(out))
}

fn copy_default(obj: &Map<String, Value>, out: &mut Map<String, Value>, fits: fn(&Value) -> bool) {
    if let Some(d) = obj.get("default").filter(|d| fits(d)) {
        out.insert("default".into(), d.clone());
    }
}

/// Checks one answered field against its (normalized) form field.
fn check_field(name: &str, schema: &Value, value: Value) -> Result<Value, String> {
    let kind = schema["type"].as_str().unwrap_or_default();
    let value = match kind {
        "string" => check_text_answer(name, schema, value)?,
        "integer" if value.is_i64() || value.is_u64() => value,
        "integer" => match value.as_f64() {
            // A whole number a client wrote as a float (`3.0`).
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => return Err(misfit(name, "a whole number", &value)),
        },
        "number" if value.is_number() => value,
        "number" => return Err(misfit(name, "a number", &value)),
        "boolean" if value.is_boolean() => value,
        "boolean" => return Err(misfit(name, "true or false", &value)),
        "array" => check_list_answer(name, schema, value)?,
        _ => value,
    };
    if let Some(n) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|min| n < min)
            || schema["maximum"].as_f64().is_some_and(|max| n > max)
        {
            return Err(misfit(name, "within the bounds asked", &value));
        }
    }
    Ok(value)
}

/// The complaint that the field `name` should be `what` and is `value`.
fn misfit(name: &str, what: &str, value: &Value) -> String {
    format!("the field \"{name}\" should be {what}, and is {value}")
}

/// Checks an answered text: its length and, for a field of choices, that it is one of them.
fn check_text_answer(name: &str, schema: &Value, value: Value) -> Result<Value, String> {
    let Some(s) = value.as_str() else {
        return Err(misfit(name, "text", &value));
    };
    let len = s.chars().count() as u64;
    if schema["minLength"].as_u64().is_some_and(|min| len < min)
        || schema["maxLength"].as_u64().is_some_and(|max| len > max)
    {
        return Err(misfit(name, "text of the length asked", &value));
    }
    let choices: Option<Vec<&str>> = match (schema.get("enum"), schema.get("oneOf")) {
        (Some(Value::Array(values)), _) => Some(values.iter().filter_map(Value::as_str).collect()),
        (_, Some(Value::Array(options))) => {
            Some(options.iter().filter_map(|o| o["const"].as_str()).collect())
        }
        _ => None,
    };
    if choices.is_some_and(|c| !c.contains(&s)) {
        return Err(misfit(name, "one of the choices offered", &value));
    }
    Ok(value)
}

/// Checks an answered list: choices offered only, and as many as the field asks.
fn check_list_answer(name: &str, schema: &Value, value: Value) -> Result<Value, String> {
    let items = &schema["items"];
    let choices: Vec<&str> = match (items.get("enum"), items.get("anyOf")) {
        (Some(Value::Array(values)), _) => values.iter().filter_map(Value::as_str).collect(),
        (_, Some(Value::Array(options))) => {
            options.iter().filter_map(|o| o["const"].as_str()).collect()
        }
        _ => Vec::new(),
    };
    let Some(picked) = value.as_array() else {
        return Err(misfit(name, "a list of the choices offered", &value));
    };
    let count = picked.len() as u64;
    if !picked
        .iter()
        .all(|v| v.as_str().is_some_and(|s| choices.contains(&s)))
        || schema["minItems"].as_u64().is_some_and(|min| count < min)
        || schema["maxItems"].as_u64().is_some_and(|max| count > max)
    {
        return Err(misfit(
            name,
            "a list of the choices offered, as many as asked",
            &value,
        ));
    }
    Ok(value)
}

/// A boxed future a [`ClientChannel`] answers with.
pub type ClientFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Carries a tool's requests to the client of one call (implemented by transports: the MCP
/// server implements it on the call's connection).
///
/// A transport runs the call inside [`with_client`]; the [`Client`] handle of every tool of that
/// call then reaches it, on the tool threads too.
pub trait ClientChannel: Send + Sync {
    /// The least severe level the client receives now, `None` when it receives no log messages.
    /// [`Client::log`] sends only messages at or above it.
    fn log_level(&self) -> Option<LogLevel>;

    /// Delivers one log message (already at or above [`log_level`](Self::log_level)). Called on
    /// the tool's task or thread: must not block.
    fn log(&self, message: LogMessage);

    /// Whether the client can answer [`sample`](Self::sample) requests.
    fn can_sample(&self) -> bool;

    /// Whether the client can show [`elicit`](Self::elicit) questions to the user.
    fn can_elicit(&self) -> bool;

    /// Asks the client's model for a completion.
    fn sample(&self, request: SampleRequest)
        -> ClientFuture<'_, Result<SampleResult, ClientError>>;

    /// Asks the user a question (its form already checked); the answer's content is checked by
    /// the caller.
    fn elicit<'a>(
        &'a self,
        question: &'a Question,
    ) -> ClientFuture<'a, Result<Answer, ClientError>>;

    /// The roots the client shares (MCP `roots/list`). The default answers
    /// [`ClientError::Unsupported`]: a transport without roots.
    fn roots(&self) -> ClientFuture<'_, Result<Vec<Root>, ClientError>> {
        Box::pin(std::future::ready(Err(ClientError::Unsupported(
            "this client shares no roots".into(),
        ))))
    }
}

tokio::task_local! {
    static CHANNEL: Arc<dyn ClientChannel>;
}

/// Runs `fut` (a toolbox call) with `channel` receiving the requests of every [`Client`] handle
/// of the call.
pub async fn with_client<F: Future>(channel: Arc<dyn ClientChannel>, fut: F) -> F::Output {
    CHANNEL.scope(channel, fut).await
}

/// The channel of the current call, if a transport set one (carried to the tool threads).
pub(crate) fn current() -> Option<Arc<dyn ClientChannel>> {
    CHANNEL.try_with(Arc::clone).ok()
}

/// Runs `f` with `channel` as the current call's channel (on a tool thread).
pub(crate) fn sync_scope<R>(channel: Option<Arc<dyn ClientChannel>>, f: impl FnOnce() -> R) -> R {
    match channel {
        Some(channel) => CHANNEL.sync_scope(channel, f),
        None => f(),
    }
}

/// Polls `fut` with `channel` as the current call's channel (on a tool thread).
pub(crate) async fn scope<F: Future>(channel: Option<Arc<dyn ClientChannel>>, fut: F) -> F::Output {
    match channel {
        Some(channel) => CHANNEL.scope(channel, fut).await,
        None => fut.await,
    }
}

/// What the toolbox learns from one run of a keyed tool about its dealings with the client:
/// whether the tool said it had taken effect ([`Client::mark_acted`]), and whether it waits for
/// an answer now. A request to the client that goes unanswered releases the call's idempotency
/// key only when the tool had not acted; so does a run stopped (its timeout) or dropped (its
/// caller gone) while it waited for its client.
#[derive(Debug, Default)]
pub(crate) struct Talk {
    acted: std::sync::atomic::AtomicBool,
    /// Requests to the client sent and not answered: counted down only when an answer (or an
    /// error) comes back, so a run stopped or dropped while it waits leaves it above zero.
    waiting: std::sync::atomic::AtomicUsize,
}

impl Talk {
    /// Whether the tool marked the call as having taken effect.
    pub(crate) fn acted(&self) -> bool {
        self.acted.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether the run waits (or was stopped while it waited) for its client's answer without
    /// having said it acted: then it did nothing yet (a tool asks before it acts, or says so).
    pub(crate) fn stopped_at_question(&self) -> bool {
        self.waiting.load(std::sync::atomic::Ordering::Acquire) > 0 && !self.acted()
    }
}

/// Awaits a request to the client, counted in the run's [`Talk`] while it waits: the count goes
/// down when the answer comes back, not when the wait is dropped.
async fn asking<F: Future>(request: F) -> F::Output {
    let talk = current_talk();
    if let Some(t) = &talk {
        t.waiting.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }
    let answer = request.await;
    if let Some(t) = &talk {
        t.waiting.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
    answer
}

tokio::task_local! {
    static TALK: Arc<Talk>;
}

/// The talk record of the current run, if the pipeline keeps one (carried to the tool threads).
pub(crate) fn current_talk() -> Option<Arc<Talk>> {
    TALK.try_with(Arc::clone).ok()
}

/// Polls `fut` (a tool's run) with `talk` recording what the tool says of its effects.
pub(crate) async fn talk_scope<F: Future>(talk: Option<Arc<Talk>>, fut: F) -> F::Output {
    match talk {
        Some(talk) => TALK.scope(talk, fut).await,
        None => fut.await,
    }
}

/// Runs `f` (a sync tool, on a tool thread) with `talk` recording what it says of its effects.
pub(crate) fn talk_sync_scope<R>(talk: Option<Arc<Talk>>, f: impl FnOnce() -> R) -> R {
    match talk {
        Some(talk) => TALK.sync_scope(talk, f),
        None => f(),
    }
}

/// Whether `code` says a request to the client got no answer the tool could use: the client
/// could not take it, refused it with an error, closed, did not answer in time, or answered
/// with something else than was asked (and the question itself could not be put). A tool that
/// ends with one of these stopped at its question, so (unless it said otherwise with
/// [`Client::mark_acted`]) it did not act.
pub(crate) fn unanswered(code: &str) -> bool {
    [
        codes::CLIENT_UNSUPPORTED,
        codes::CLIENT_REJECTED,
        codes::CLIENT_CLOSED,
        codes::CLIENT_TIMEOUT,
        codes::INVALID_ANSWER,
        codes::INVALID_QUESTION,
    ]
    .contains(&code)
}

/// The handle a tool talks back to its client through (a context value every toolbox
/// supplies): log messages, a completion from the client's model, a question to the user.
///
/// # Overview
///
/// A tool takes it as a context parameter (`#[context] client: &Client`). A transport that
/// talks to a client (the MCP server: `notifications/message`, `sampling/createMessage`,
/// `elicitation/create`) runs the call inside [`with_client`], with a [`ClientChannel`] of the
/// call's connection; it reaches the tool on the toolbox's tool threads too (tools with a
/// timeout, isolated tools).
///
/// - [`log`](Client::log), [`log_data`](Client::log_data): a log message, sent only at or above
///   the level the client asked for.
/// - [`sample`](Client::sample): a completion from the client's model, or a [`ClientError`]
///   (which converts into a [`ToolError`] with `?`).
/// - [`ask`](Client::ask) a question whose form is the fields of a type, [`elicit`](Client::elicit)
///   one whose form is a schema built at run time (see [`Question`] for what a form may hold).
///   The user's answer comes back read into the type; a user who declines is a
///   `cancelled_by_user` [`ToolError`] ([`CANCELLED_BY_USER`](codes::CANCELLED_BY_USER)), one who
///   dismisses the question without choosing is `cancelled_by_user` too, with the code
///   [`QUESTION_DISMISSED`](codes::QUESTION_DISMISSED). When no client can show the question,
///   `ask` answers `needs_input` naming the form's fields, so the agent asks the user instead:
///   name the fields after the tool's parameters (and make those parameters optional), so the
///   agent's next call carries the answer.
///
/// Outside a transport that talks back (a plain [`Toolbox::call`](crate::Toolbox::call), or a
/// client without the capability) each request degrades, so a tool never has to ask whether a
/// client listens: a log message goes nowhere, `sample` is
/// [`ClientError::Unsupported`], and `ask`/`elicit` are `needs_input`.
///
/// Log messages are the tool's own words: the toolbox's redaction does not see them.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::{Client, Status};
/// use toolsmith::client::{ClientError, LogLevel, SampleRequest};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Size {
///     /// The boot size, 42 to 44.
///     size: u32,
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let client = Client::default(); // what every toolbox supplies; here no call is under way
/// assert!(!client.is_connected());
/// client.log(LogLevel::Info, "checking stock"); // goes nowhere
/// let sampled = client.sample(SampleRequest::new("Suggest a size", 50)).await;
/// assert!(matches!(sampled, Err(ClientError::Unsupported(_))));
/// let asked = client.ask::<Size>("Which size? The boot comes in 42, 43 and 44.").await;
/// let e = asked.err().unwrap();
/// assert_eq!(e.status(), Status::NeedsInput);
/// assert_eq!(e.missing(), ["size"]);
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Client {
    _private: (),
}

impl Client {
    /// Whether a transport that talks back to a client runs the current call.
    pub fn is_connected(&self) -> bool {
        current().is_some()
    }

    /// Whether a log message at `level` would reach the client now (to skip building an
    /// expensive one).
    pub fn logs(&self, level: LogLevel) -> bool {
        current().is_some_and(|c| c.log_level().is_some_and(|min| level >= min))
    }

    /// Sends a text log message at `level`, if the client receives that level; a no-op
    /// otherwise.
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        self.send(level, None, || Value::String(message.into()));
    }

    /// Sends a structured log message (any JSON, from the logger `logger` when given) at
    /// `level`, if the client receives that level; a no-op otherwise.
    pub fn log_data(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        self.send(level, logger, || data);
    }

    fn send(&self, level: LogLevel, logger: Option<&str>, data: impl FnOnce() -> Value) {
        let Some(channel) = current() else { return };
        if channel.log_level().is_some_and(|min| level >= min) {
            channel.log(LogMessage {
                level,
                logger: logger.map(String::from),
                data: data(),
            });
        }
    }

    /// Tells the toolbox that the call has taken effect (the write is done, the message sent).
    ///
    /// A keyed write that asks its client something (a completion, a question) and gets no
    /// usable answer ends with a `failed` error the toolbox reads as "stopped at the question,
    /// did nothing": its idempotency key is released, so the agent's retry runs. So is a run
    /// stopped by its timeout, or dropped with its call, while it waits for the answer. A tool
    /// that acts first (or while it asks) and asks after calls this once the act is done: from
    /// then on the call's outcome is kept whatever it ends with, and a repeat is a `DUPLICATE`
    /// (or `OUTCOME_UNKNOWN`), never a second act. Outside a keyed call it has no effect.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::{Client, ToolError};
    /// use toolsmith::client::SampleRequest;
    ///
    /// async fn refund_and_explain(client: &Client, order: &str) -> Result<String, ToolError> {
    ///     // ... the refund goes through here ...
    ///     client.mark_acted();
    ///     let note = client
    ///         .sample(SampleRequest::new(format!("Explain the refund of {order} in one line."), 60))
    ///         .await?;
    ///     Ok(note.text)
    /// }
    /// # let _ = refund_and_explain;
    /// ```
    pub fn mark_acted(&self) {
        let _ = TALK.try_with(|t| t.acted.store(true, std::sync::atomic::Ordering::Release));
    }

    /// Whether the client can answer [`sample`](Self::sample).
    pub fn can_sample(&self) -> bool {
        current().is_some_and(|c| c.can_sample())
    }

    /// Whether the client can show a question to the user ([`ask`](Self::ask),
    /// [`elicit`](Self::elicit)); without it they answer `needs_input`.
    pub fn can_ask(&self) -> bool {
        current().is_some_and(|c| c.can_elicit())
    }

    /// Asks the client's model for a completion (MCP `sampling/createMessage`; the client, and
    /// usually its user, decides whether and how to answer).
    ///
    /// # Errors
    /// [`ClientError::Unsupported`] without a client that samples, [`ClientError::Rejected`]
    /// when the client declines or fails, [`ClientError::Closed`] when the connection closes,
    /// [`ClientError::InvalidAnswer`] when the answer is not text. Each converts into a
    /// [`ToolError`] with `?`.
    pub async fn sample(&self, request: SampleRequest) -> Result<SampleResult, ClientError> {
        let Some(channel) = current() else {
            return Err(ClientError::Unsupported(
                "no client is connected to this call".into(),
            ));
        };
        asking(channel.sample(request)).await
    }

    /// The roots the client shares with the server (MCP `roots/list`): the folders of the
    /// user's a tool may work in. Over MCP 2026-07-28 the request travels as an
    /// `input_required` round (or a task's `inputRequests`), like a question.
    ///
    /// # Errors
    /// [`ClientError::Unsupported`] without a client that shares roots (one that did not
    /// declare the `roots` capability, or no client), and the errors of
    /// [`sample`](Self::sample) otherwise.
    pub async fn roots(&self) -> Result<Vec<Root>, ClientError> {
        let Some(channel) = current() else {
            return Err(ClientError::Unsupported(
                "no client is connected to this call".into(),
            ));
        };
        asking(channel.roots()).await
    }

    /// Asks the user for the fields of `T` (MCP `elicitation/create`, form mode), with
    /// `message` saying what and why; the answer comes back read into `T`.
    ///
    /// # Errors
    /// As a [`ToolError`] for the envelope:
    /// - `needs_input` naming `T`'s fields, when no client can show the question (outside MCP,
    ///   or a client without elicitation): the agent asks the user instead;
    /// - `cancelled_by_user`: the user declined ([`CANCELLED_BY_USER`](codes::CANCELLED_BY_USER))
    ///   or dismissed the question ([`QUESTION_DISMISSED`](codes::QUESTION_DISMISSED));
    /// - `failed`: `T` is not a struct of fields a form can ask for
    ///   ([`INVALID_QUESTION`](codes::INVALID_QUESTION), naming the field), the answer does not
    ///   fit `T` ([`INVALID_ANSWER`](codes::INVALID_ANSWER)), or the client failed
    ///   ([`CLIENT_REJECTED`](codes::CLIENT_REJECTED), [`CLIENT_CLOSED`](codes::CLIENT_CLOSED)).
    pub async fn ask<T: JsonSchema + DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<T, ToolError> {
        let question = Question::of::<T>(message)?;
        let content = self.put(&question).await?;
        serde_json::from_value(Value::Object(content)).map_err(|e| invalid_answer(&e.to_string()))
    }

    /// Asks the user to fill in the form `schema` (built at run time; see [`Question`] for what
    /// it may hold), with `message` saying what and why; the answer is the form's fields,
    /// checked against it ([`Question::check`]).
    ///
    /// # Errors
    /// As [`ask`](Self::ask).
    pub async fn elicit(
        &self,
        message: impl Into<String>,
        schema: &Value,
    ) -> Result<Map<String, Value>, ToolError> {
        let question = Question::new(message, schema)?;
        self.put(&question).await
    }

    /// Asks the user `question` (built with [`Question::new`] or [`Question::of`], perhaps
    /// named with [`Question::with_key`]); the answer is its fields, checked.
    ///
    /// # Errors
    /// As [`ask`](Self::ask).
    pub async fn question(&self, question: &Question) -> Result<Map<String, Value>, ToolError> {
        self.put(question).await
    }

    async fn put(&self, question: &Question) -> Result<Map<String, Value>, ToolError> {
        let Some(channel) = current().filter(|c| c.can_elicit()) else {
            return Err(question.needs_input());
        };
        match asking(channel.elicit(question)).await {
            Ok(answer) => question.answered(answer),
            Err(ClientError::Unsupported(_)) => Err(question.needs_input()),
            Err(e) => Err(e.into()),
        }
    }
}
