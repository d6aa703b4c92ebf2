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
//! loop that runs longer than planned fails the test with a reason.

use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// One planned answer: an HTTP status and a JSON body.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
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
        Reply {
            status: 200,
            body: json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }),
        }
    }
}

/// The running server; stopped when dropped.
pub struct ScriptedModel {
    /// The base URL clients are given (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
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
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a free port on 127.0.0.1");
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(script);
        let kept = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (kept, script) = (Arc::clone(&kept), Arc::clone(&script));
                let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
                    let (kept, script) = (Arc::clone(&kept), Arc::clone(&script));
                    async move {
                        let body: hyper::body::Incoming = req.into_body();
                        let bytes = body.collect().await.map(|b| b.to_bytes());
                        let sent: Value = bytes
                            .ok()
                            .and_then(|b| serde_json::from_slice(&b).ok())
                            .unwrap_or(Value::Null);
                        let stream = sent["stream"] == true;
                        let usage = sent["stream_options"]["include_usage"] == true;
                        let n = {
                            let mut kept = kept.lock().unwrap();
                            kept.push(sent);
                            kept.len()
                        };
                        let reply = script.get(n - 1).cloned().unwrap_or_else(|| Reply {
                            status: 500,
                            body: json!({"error": {
                                "message": format!("the script has no reply for request {n}"),
                                "type": "server_error",
                            }}),
                        });
                        let (body, kind) = if stream && reply.status == 200 {
                            (events(&reply.body, usage), "text/event-stream")
                        } else {
                            (reply.body.to_string(), "application/json")
                        };
                        let mut res = hyper::Response::new(Full::new(Bytes::from(body)));
                        *res.status_mut() = hyper::StatusCode::from_u16(reply.status).unwrap();
                        res.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            hyper::header::HeaderValue::from_static(kind),
                        );
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
        ScriptedModel {
            url,
            requests,
            task,
        }
    }

    /// Every request body the server was sent, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
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
