//! 2026-07-28: a `needs_input` asked through an `input_required` result (SEP-2322, multi
//! round-trip requests).
//!
//! The 2026-07-28 protocol has no requests from server to client: a server that needs the user
//! answers `tools/call` with `{"resultType": "input_required", "inputRequests": {...},
//! "requestState": "..."}`, and the client asks the user, then sends the same `tools/call`
//! again with the answers (`inputResponses`) and the `requestState` as it was. The 2025 path
//! asks in the middle of the call instead (`elicitation/create`, see `client.rs`).
//!
//! When a call answers `needs_input` with missing fields that are parameters of the tool a form
//! can ask for, and the client declared elicitation in the request's capabilities, the server
//! answers `input_required` with one form (under [`REQUEST_KEY`]). The `requestState` carries
//! what the server needs on the retry and nothing it has to remember: the tool, the fields
//! asked, the message, the answers of earlier rounds, and an expiry; it is sealed with an
//! HMAC-SHA-256 under the server's request-state key over that and the caller and the canonical
//! JSON of the call's arguments. So a retry is served by any replica that shares the key
//! (`McpServer::request_state_key`), and a state that was edited, made for other arguments,
//! another caller or another tool, or has expired, is refused with a JSON-RPC error (`-32602`)
//! that says why. Answers go into the arguments, and the call runs the whole pipeline again
//! (validation, policy, approval, audit).

use base64::Engine as _;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, InputResponses,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use toolsmith_core::{Answer, Caller, Question, SecretKey};

/// The key of the one input request (a form for the missing parameters).
pub(crate) const REQUEST_KEY: &str = "needs_input";

/// How long a `requestState` is honoured.
pub(crate) const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The largest `requestState` accepted (the arguments limit bounds what it can carry anyway).
const MAX_STATE_BYTES: usize = 256 * 1024;

/// What a `requestState` says, under its seal.
#[derive(Serialize, Deserialize)]
struct State {
    /// The tool.
    t: String,
    /// The fields asked.
    f: Vec<String>,
    /// The question's message.
    m: String,
    /// The answers of earlier rounds, merged into the arguments on the retry.
    a: Map<String, Value>,
    /// Expiry, seconds since the Unix epoch.
    e: u64,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
}

/// The seal over the state's text, the caller and the call's arguments.
fn seal(key: &SecretKey, payload: &str, caller: &Caller, args: &Value) -> String {
    let args = toolsmith_spec::canonical_json(args);
    key.mac_hex(
        &[
            b"toolsmith/input_required/v1",
            payload.as_bytes(),
            caller.id().unwrap_or_default().as_bytes(),
            args.as_bytes(),
        ],
        32,
    )
}

/// The sealed `requestState` of `state`.
fn sealed(key: &SecretKey, state: &State, caller: &Caller, args: &Value) -> Result<String, String> {
    let payload = b64().encode(serde_json::to_vec(state).map_err(|e| e.to_string())?);
    let mac = seal(key, &payload, caller, args);
    Ok(format!("{payload}.{mac}"))
}

/// When a new state expires: at the expiry of the state the retry presented (`Some`), so a
/// call's rounds all end [`STATE_TTL`] after its first, however often a client presents a
/// state without answering it; [`STATE_TTL`] from now for a call's first round.
fn expiry(presented: Option<u64>) -> u64 {
    presented.unwrap_or_else(|| now() + STATE_TTL.as_secs())
}

/// The `input_required` result of a run whose tool made requests no answer met (`Client::ask`,
/// `Client::sample`): those requests, and a state carrying every answer so far, so the next
/// round's run finds them all; `expires`: the expiry of the state the call presented.
pub(crate) fn rounds(
    key: &SecretKey,
    tool: &str,
    pending: Vec<(String, InputRequest)>,
    answers: Map<String, Value>,
    caller: &Caller,
    args: &Value,
    expires: Option<u64>,
) -> Result<InputRequiredResult, String> {
    let state = State {
        t: tool.to_string(),
        f: Vec::new(),
        m: String::new(),
        a: answers,
        e: expiry(expires),
    };
    let requests: InputRequests = pending.into_iter().collect();
    Ok(InputRequiredResult::new(
        Some(requests),
        Some(sealed(key, &state, caller, args)?),
    ))
}

/// The `input_required` result that asks `question` for the tool `tool`, carrying the answers
/// of earlier rounds; `expires`: the expiry of the state the call presented.
pub(crate) fn ask(
    key: &SecretKey,
    tool: &str,
    question: &Question,
    earlier: Map<String, Value>,
    caller: &Caller,
    args: &Value,
    expires: Option<u64>,
) -> Result<InputRequiredResult, String> {
    let schema = match question.schema() {
        Value::Object(schema) => ElicitationSchema::from_json_schema(schema.clone())
            .map_err(|e| format!("the question's form is not one MCP accepts: {e}"))?,
        _ => return Err("the question's form is not an object".into()),
    };
    let request = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message().to_string(),
        requested_schema: schema,
    });
    let state = State {
        t: tool.to_string(),
        f: question.fields().to_vec(),
        m: question.message().to_string(),
        a: earlier,
        e: expiry(expires),
    };
    let mut requests = InputRequests::new();
    requests.insert(REQUEST_KEY.to_string(), InputRequest::Elicitation(request));
    Ok(InputRequiredResult::new(
        Some(requests),
        Some(sealed(key, &state, caller, args)?),
    ))
}

/// What a retry carries, once its state is verified.
pub(crate) enum Resume {
    /// The answers (with those of earlier rounds) to merge into the arguments.
    Answered(Map<String, Value>),
    /// The user declined or dismissed the question: the envelope to answer.
    Refused(toolsmith_core::Envelope),
    /// The retry carries no answer to the question: ask it again.
    AskAgain(Question, Map<String, Value>),
    /// A state of the tool's own requests: the answers of earlier rounds, by request name.
    Answers(Map<String, Value>),
}

/// Verifies `state` for a retry of `tool` by `caller` with `args`, and reads the answer in
/// `responses`; with it, the state's expiry, which every state issued in answer to the retry
/// keeps. `Err`: why the state is refused (a JSON-RPC error for the client).
pub(crate) fn resume(
    key: &SecretKey,
    tool: &str,
    input_schema: &Value,
    state: &str,
    responses: Option<&InputResponses>,
    caller: &Caller,
    args: &Value,
) -> Result<(Resume, u64), String> {
    if state.len() > MAX_STATE_BYTES {
        return Err(format!(
            "the requestState is {} bytes, over the {MAX_STATE_BYTES} this server issues",
            state.len()
        ));
    }
    let Some((payload, mac)) = state.rsplit_once('.') else {
        return Err("the requestState is not one this server issued".into());
    };
    let expected = seal(key, payload, caller, args);
    if !constant_time_eq(expected.as_bytes(), mac.as_bytes()) {
        return Err(
            "the requestState does not verify: it was changed, or it was issued for \
                    other arguments, another caller or another server key; send the request \
                    again without it"
                .into(),
        );
    }
    let state: State = b64()
        .decode(payload)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or("the requestState is not one this server issued")?;
    if state.t != tool {
        return Err(format!(
            "the requestState was issued for the tool \"{}\", not \"{tool}\"",
            state.t
        ));
    }
    if state.e < now() {
        return Err("the requestState has expired; send the request again without it".into());
    }
    let expires = state.e;
    let resume = read_answer(state, input_schema, responses)?;
    Ok((resume, expires))
}

/// What a verified state and the retry's responses make of the call.
fn read_answer(
    state: State,
    input_schema: &Value,
    responses: Option<&InputResponses>,
) -> Result<Resume, String> {
    if state.f.is_empty() {
        return Ok(Resume::Answers(state.a));
    }
    let question = Question::for_fields(state.m, input_schema, &state.f)
        .map_err(|e| format!("the question of the requestState no longer fits the tool: {e}"))?;
    let Some(response) = responses.and_then(|r| r.get(REQUEST_KEY)) else {
        return Ok(Resume::AskAgain(question, state.a));
    };
    let answer = match answer_of(response) {
        Ok(answer) => answer,
        Err(e) => return Ok(Resume::Refused(e.into_envelope())),
    };
    match question.answered(answer) {
        Ok(fields) => {
            let mut all = state.a;
            all.extend(fields);
            Ok(Resume::Answered(all))
        }
        Err(e) => Ok(Resume::Refused(e.into_envelope())),
    }
}

/// An `ElicitResult` as an [`Answer`].
fn answer_of(response: &Value) -> Result<Answer, toolsmith_core::ToolError> {
    let invalid = |why: &str| {
        toolsmith_core::ClientError::InvalidAnswer(format!(
            "the input response {REQUEST_KEY:?} {why}"
        ))
        .into()
    };
    match response.get("action").and_then(Value::as_str) {
        Some("accept") => match response.get("content") {
            Some(Value::Object(content)) => Ok(Answer::Accept(content.clone())),
            None | Some(Value::Null) => Ok(Answer::Accept(Map::new())),
            Some(_) => Err(invalid("has content that is not an object of fields")),
        },
        Some("decline") => Ok(Answer::Decline),
        Some("cancel") => Ok(Answer::Cancel),
        _ => Err(invalid(
            "is not an elicitation result (no accept, decline or cancel)",
        )),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"size": {"type": "integer"}},
               "required": ["size"]})
    }

    fn state_of(result: &InputRequiredResult) -> String {
        result.request_state.clone().unwrap()
    }

    /// A state whose expiry has passed is refused, whatever else holds (seal, caller, tool).
    #[test]
    fn an_expired_state_is_refused() {
        let key = SecretKey::random();
        let (ann, args) = (Caller::new("ann"), json!({"item": "hiker"}));
        let state = State {
            t: "get_boot_price".into(),
            f: vec!["size".into()],
            m: "Which size?".into(),
            a: Map::new(),
            e: now() - 1,
        };
        let sealed = sealed(&key, &state, &ann, &args).unwrap();
        let refused = resume(
            &key,
            "get_boot_price",
            &schema(),
            &sealed,
            None,
            &ann,
            &args,
        );
        assert!(
            matches!(&refused, Err(why) if why.contains("has expired")),
            "{:?}",
            refused.err()
        );
    }

    /// A state issued in answer to a retry keeps the expiry of the state the retry presented;
    /// a call's first state expires `STATE_TTL` from now.
    #[test]
    fn a_state_issued_for_a_retry_keeps_the_presented_expiry() {
        let key = SecretKey::random();
        let (ann, args) = (Caller::new("ann"), json!({"item": "hiker"}));
        let question = Question::for_fields("Which size?", &schema(), &["size".into()]).unwrap();
        let first = ask(&key, "t", &question, Map::new(), &ann, &args, None).unwrap();
        let (resumed, expires) =
            resume(&key, "t", &schema(), &state_of(&first), None, &ann, &args).unwrap();
        let first_expiry = now() + STATE_TTL.as_secs();
        assert!(expires <= first_expiry && expires + 5 >= first_expiry);
        let Resume::AskAgain(question, earlier) = resumed else {
            panic!("no answer: asked again")
        };
        let presented = expires - 60; // as if the first state were a minute older
        let again = ask(&key, "t", &question, earlier, &ann, &args, Some(presented)).unwrap();
        let (_, kept) = resume(&key, "t", &schema(), &state_of(&again), None, &ann, &args).unwrap();
        assert_eq!(kept, presented);
        let rounds = rounds(
            &key,
            "t",
            Vec::new(),
            Map::new(),
            &ann,
            &args,
            Some(presented),
        );
        let (_, kept) = resume(
            &key,
            "t",
            &schema(),
            &state_of(&rounds.unwrap()),
            None,
            &ann,
            &args,
        )
        .unwrap();
        assert_eq!(kept, presented);
    }
}
