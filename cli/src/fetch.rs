//! `toolsmith fetch`: connect to an MCP server with rmcp's client, perform the handshake and
//! print its `tools/list` result.

use std::time::Duration;

use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::json;

use crate::{emit, CliError};

fn fail(message: String) -> CliError {
    CliError { code: 2, message }
}

/// Runs the command: a stdio server started from `command`, or a streamable-HTTP server at
/// `url`. Every failure (the server does not start, exits, answers wrongly or not within
/// `timeout` seconds) is exit code 2.
pub fn run(url: Option<&str>, command: &[String], timeout: f64) -> Result<u8, CliError> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(fail(format!(
            "--timeout must be a positive number of seconds, not {timeout}"
        )));
    }
    let limit = Duration::from_secs_f64(timeout.min(86_400.0));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start the async runtime: {e}")))?;
    let tools = match (url, command) {
        (Some(url), []) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(fail(format!("--url must be an http:// or https:// address, not `{url}`")));
            }
            let what = format!("the server at {url}");
            runtime.block_on(async {
                let transport = StreamableHttpClientTransport::from_uri(url.to_string());
                list(transport, &what, limit).await
            })?
        }
        (None, [program, args @ ..]) => {
            let what = format!("the server `{}`", command.join(" "));
            runtime.block_on(async {
                let mut cmd = tokio::process::Command::new(program);
                cmd.args(args);
                let transport = TokioChildProcess::new(cmd)
                    .map_err(|e| fail(format!("cannot start {what}: {e}")))?;
                list(transport, &what, limit).await
            })?
        }
        (None, []) => {
            return Err(fail(
                "give a server: `toolsmith fetch -- COMMAND ARGS...` or `toolsmith fetch --url http://...`".into(),
            ))
        }
        (Some(_), _) => return Err(fail("give either --url or a command, not both".into())),
    };
    // Shut the runtime down without waiting for a server that ignores the close.
    runtime.shutdown_timeout(Duration::from_millis(500));
    let doc = json!({"tools": tools});
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    ))?;
    Ok(0)
}

/// An error's message without the transport's type name (`Transport [rmcp::...<...>] error:`),
/// which says nothing to a user.
fn cause(e: &dyn std::error::Error) -> String {
    let text = e.to_string();
    let Some(start) = text.find("Transport [") else {
        return text;
    };
    let mut depth = 0usize;
    for (i, c) in text[start..].char_indices() {
        match c {
            '[' | '<' => depth += 1,
            ']' | '>' => {
                depth -= 1;
                if depth == 0 && c == ']' {
                    let rest = text[start + i + 1..].trim_start();
                    let rest = rest.strip_prefix("error: ").unwrap_or(rest);
                    return format!("{}{rest}", &text[..start]);
                }
            }
            _ => {}
        }
    }
    text
}

async fn list<T, E, A>(
    transport: T,
    what: &str,
    limit: Duration,
) -> Result<Vec<serde_json::Value>, CliError>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let secs = limit.as_secs_f64();
    let client = match tokio::time::timeout(limit, ().serve(transport)).await {
        Err(_) => {
            return Err(fail(format!(
                "{what} did not answer the MCP handshake within {secs} s"
            )))
        }
        Ok(Err(e)) => {
            return Err(fail(format!(
                "the MCP handshake with {what} failed: {}",
                cause(&e)
            )))
        }
        Ok(Ok(client)) => client,
    };
    let tools = match tokio::time::timeout(limit, client.list_all_tools()).await {
        Err(_) => Err(fail(format!(
            "{what} did not answer tools/list within {secs} s"
        ))),
        Ok(Err(e)) => Err(fail(format!("tools/list on {what} failed: {e}"))),
        Ok(Ok(tools)) => Ok(tools),
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), client.cancel()).await;
    let tools = tools?;
    tools
        .into_iter()
        .map(|t| {
            serde_json::to_value(t)
                .map_err(|e| fail(format!("cannot serialize a tool of {what}: {e}")))
        })
        .collect()
}
