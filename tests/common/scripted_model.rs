//! A scripted model server on 127.0.0.1: it speaks OpenAI's chat-completions wire (the format
//! most providers and local servers share) and answers each request with the next reply of its
//! script, keeping every request it was sent. A real client (a framework's own provider) talks to
//! it over HTTP, so a test sees exactly what the client sent the model: the tool definitions, and
//! each tool's result as the next turn carries it.
//!
//! A request that asks for a stream (`"stream": true`, as ADK's OpenAI client always does) gets
//! the same reply as server-sent events: `chat.completion.chunk`s (the message as one delta, then
//! the finish reason, then the usage when `stream_options.include_usage` asks for it), then
//! `data: [DONE]`.
//!
//! A request after the script's end gets `500` with a message naming the request's number, so a
//! loop that runs longer than planned fails the test with a reason. [`ScriptedModel::answering`]
//! takes a function instead of a script: a model that reads each request (the tools' texts) and
//! answers from it. [`Reply`] also writes Anthropic's messages and OpenAI's responses, a rate
//! limit with `Retry-After`, an error, and a body that is not an answer at all.

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// One planned answer: an HTTP status, a JSON body (or raw text), and headers.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    /// Sent instead of `body` when set (a malformed answer).
    pub raw: Option<String>,
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// `status` with an error body in both APIs' shape.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            body: json!({"type": "error", "error": {"type": "server_error", "message": message}}),
            raw: None,
            headers: Vec::new(),
        }
    }

    /// A `429` that asks for a retry after `seconds`.
    pub fn rate_limited(seconds: u32) -> Reply {
        let mut reply = Reply::error(429, "Rate limit reached; try again later.");
        reply.headers.push(("retry-after", seconds.to_string()));
        reply
    }

    /// A `200` whose body is `text` as it is (not JSON, or JSON of another shape).
    pub fn raw(text: &str) -> Reply {
        Reply {
            status: 200,
            body: Value::Null,
            raw: Some(text.to_string()),
            headers: Vec::new(),
        }
    }

    /// An Anthropic message that uses `name` with `input`.
    pub fn anthropic_tool_use(name: &str, input: Value) -> Reply {
        Reply::anthropic(
            json!([{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}]),
            "tool_use",
        )
    }

    /// An Anthropic message of text only.
    pub fn anthropic_text(text: &str) -> Reply {
        Reply::anthropic(json!([{"type": "text", "text": text}]), "end_turn")
    }

    fn anthropic(content: Value, stop: &str) -> Reply {
        Reply::ok(json!({
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted",
            "content": content, "stop_reason": stop,
            "usage": {"input_tokens": 20, "output_tokens": 7},
        }))
    }

    /// An OpenAI response (responses API) that calls `name` with `args`.
    pub fn responses_call(name: &str, args: Value) -> Reply {
        Reply::ok(json!({
            "id": "resp_scripted", "object": "response", "status": "completed", "model": "scripted",
            "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                        "name": name, "arguments": args.to_string()}],
            "usage": {"input_tokens": 30, "output_tokens": 9, "total_tokens": 39},
        }))
    }

    /// An OpenAI response (responses API) of text only.
    pub fn responses_text(text: &str) -> Reply {
        Reply::ok(json!({
            "id": "resp_scripted", "object": "response", "status": "completed", "model": "scripted",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}],
            "usage": {"input_tokens": 30, "output_tokens": 9, "total_tokens": 39},
        }))
    }

    fn ok(body: Value) -> Reply {
        Reply {
            status: 200,
            body,
            raw: None,
            headers: Vec::new(),
        }
    }

    /// A chat completion whose message calls `name` with `args` (the call's id is `id`).
    pub fn tool_call(id: &str, name: &str, args: Value) -> Reply {
        Reply::choice(
            json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": args.to_string()},
                }],
            }),
            "tool_calls",
        )
    }

    /// A chat completion whose message is `text`, calling no tool.
    pub fn text(text: &str) -> Reply {
        Reply::choice(json!({"role": "assistant", "content": text}), "stop")
    }

    fn choice(message: Value, finish: &str) -> Reply {
        Reply::ok(json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }))
    }
}

/// What the server was sent: the path, the headers (lower-case names) and the body.
#[derive(Clone, Debug)]
pub struct Sent {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// Answers request `n` (1-based) whose body is `sent`.
pub type Responder = dyn Fn(usize, &Value) -> Reply + Send + Sync;

/// The running server; stopped when dropped.
pub struct ScriptedModel {
    /// The base URL clients are given (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    sent: Arc<Mutex<Vec<Sent>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedModel {
    /// Starts the server on a free port of 127.0.0.1, answering with `script` in order.
    pub async fn start(script: Vec<Reply>) -> ScriptedModel {
        ScriptedModel::answering(move |n, _| {
            script.get(n - 1).cloned().unwrap_or_else(|| {
                Reply::error(500, &format!("the script has no reply for request {n}"))
            })
        })
        .await
    }

    /// Starts the server on a free port of 127.0.0.1, answering each request with `responder`
    /// (a model that reads what it was sent).
    pub async fn answering(
        responder: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
    ) -> ScriptedModel {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a free port on 127.0.0.1");
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let sent = Arc::new(Mutex::new(Vec::new()));
        let responder: Arc<Responder> = Arc::new(responder);
        let kept = Arc::clone(&sent);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (kept, responder) = (Arc::clone(&kept), Arc::clone(&responder));
                let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
                    let (kept, responder) = (Arc::clone(&kept), Arc::clone(&responder));
                    async move {
                        let path = req.uri().path().to_string();
                        let headers = req
                            .headers()
                            .iter()
                            .map(|(k, v)| {
                                (k.as_str().to_string(), v.to_str().unwrap_or("").to_string())
                            })
                            .collect();
                        let body: hyper::body::Incoming = req.into_body();
                        let bytes = body.collect().await.map(|b| b.to_bytes());
                        let body: Value = bytes
                            .ok()
                            .and_then(|b| serde_json::from_slice(&b).ok())
                            .unwrap_or(Value::Null);
                        let stream = body["stream"] == true;
                        let usage = body["stream_options"]["include_usage"] == true;
                        let n = {
                            let mut kept = kept.lock().unwrap();
                            kept.push(Sent {
                                path,
                                headers,
                                body: body.clone(),
                            });
                            kept.len()
                        };
                        let reply = responder(n, &body);
                        let (text, kind) = match &reply.raw {
                            Some(raw) => (raw.clone(), "application/json"),
                            None if stream && reply.status == 200 => {
                                (events(&reply.body, usage), "text/event-stream")
                            }
                            None => (reply.body.to_string(), "application/json"),
                        };
                        let mut res = hyper::Response::new(Full::new(Bytes::from(text)));
                        *res.status_mut() = hyper::StatusCode::from_u16(reply.status).unwrap();
                        res.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            hyper::header::HeaderValue::from_static(kind),
                        );
                        for (name, value) in &reply.headers {
                            res.headers_mut().insert(
                                *name,
                                hyper::header::HeaderValue::from_str(value).unwrap(),
                            );
                        }
                        Ok::<_, std::convert::Infallible>(res)
                    }
                });
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        ScriptedModel { url, sent, task }
    }

    /// Every request body the server was sent, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.sent().into_iter().map(|s| s.body).collect()
    }

    /// Every request the server was sent (path, headers, body), in order.
    pub fn sent(&self) -> Vec<Sent> {
        self.sent.lock().unwrap().clone()
    }
}

/// A chat completion (`completion`) as the server-sent events of a streamed one: the message as
/// one delta (its role, text and tool calls, each call with its index), the finish reason in a
/// chunk of its own, the usage in a last chunk without choices when `usage` asks for it, then
/// `[DONE]`.
fn events(completion: &Value, usage: bool) -> String {
    let choice = &completion["choices"][0];
    let message = &choice["message"];
    let mut delta = json!({"role": "assistant"});
    if let Some(text) = message["content"].as_str() {
        delta["content"] = json!(text);
    }
    if let Some(calls) = message["tool_calls"].as_array() {
        let indexed: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let mut call = call.clone();
                call["index"] = json!(i);
                call
            })
            .collect();
        delta["tool_calls"] = Value::Array(indexed);
    }
    let chunk = |choices: Value| {
        json!({
            "id": completion["id"],
            "object": "chat.completion.chunk",
            "created": completion["created"],
            "model": completion["model"],
            "choices": choices,
        })
    };
    let mut chunks = vec![
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}])),
    ];
    if usage {
        let mut last = chunk(json!([]));
        last["usage"] = completion["usage"].clone();
        chunks.push(last);
    }
    let mut out = String::new();
    for chunk in chunks {
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

/// The content of the `tool` message answering the call `id` in a chat-completions request.
pub fn tool_result(request: &Value, id: &str) -> Option<String> {
    request["messages"].as_array()?.iter().find_map(|m| {
        (m["role"] == "tool" && m["tool_call_id"] == id).then(|| match &m["content"] {
            Value::String(text) => text.clone(),
            // Content as parts: their texts, joined.
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            other => other.to_string(),
        })
    })
}
