// A real client drives tasks end to end: the official TypeScript SDK's client
// (@modelcontextprotocol/client) with the official tasks package (@modelcontextprotocol/ext-tasks),
// both pinned in package-lock.json, against examples/conformance_server.rs.
//
//   node tasks_client.mjs URL
//
// The client negotiates 2026-07-28 (`server/discover`, pinned), and ext-tasks runs each call:
// a task that completes, one that asks a question (answered through `tasks/update`), one that
// fails, and one cancelled while it runs. ext-tasks sends the 2026-07-28 task requests through
// the host's own dispatcher (`rawDispatch`, as its guide says: the SDK's codecs do not carry
// them); here that is one HTTP POST per request with the headers the revision requires.
//
// Prints one `ok` line per check and exits 0, or prints what differed and exits 1.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
import { check, done } from "./checks.mjs";

const url = process.argv[2];
if (!url) {
  console.error("usage: node tasks_client.mjs URL");
  process.exit(2);
}
const VERSION = "2026-07-28";
const clientInfo = { name: "toolsmith-tasks-client", version: "1.0.0" };
const clientCapabilities = {
  elicitation: { form: {} },
  extensions: { "io.modelcontextprotocol/tasks": {} },
};


let nextId = 1;
// One JSON-RPC request as one POST; the answer is the body (JSON) or the SSE event whose `id`
// is the request's (notifications on the stream come before it).
async function rawDispatch(request, options) {
  const id = `raw-${nextId++}`;
  const params = request.params ?? {};
  const name = params.name ?? params.taskId;
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": request.method,
    ...(name === undefined ? {} : { "mcp-name": String(name) }),
  };
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, ...request }),
    signal: options?.signal,
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const messages = type.includes("text/event-stream")
    ? text
        .split(/\r?\n\r?\n/)
        .map((event) =>
          event
            .split(/\r?\n/)
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trimStart())
            .join("\n"),
        )
        .filter((data) => data.length > 0)
        .map((data) => JSON.parse(data))
    : [JSON.parse(text)];
  const answer = messages.find((m) => m.id === id);
  if (answer === undefined) {
    throw new Error(`no answer to ${request.method} (HTTP ${res.status}): ${text.slice(0, 300)}`);
  }
  return answer.error === undefined
    ? { kind: "result", result: answer.result }
    : { kind: "error", error: answer.error };
}

const client = new Client(clientInfo, {
  versionNegotiation: { mode: { pin: VERSION } },
  capabilities: { elicitation: { form: {} } },
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
check("the client negotiated 2026-07-28", client.getProtocolEra() === "modern", client.getProtocolEra());
await client.listTools();

const questions = [];
const session = createTaskSessionFromClient(client, {
  endpointId: "toolsmith-conformance-server",
  rawDispatch,
  v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities },
  onInputRequest: async (request, context) => {
    questions.push({ kind: request.kind, message: request.params.message, delivery: context.delivery });
    return { action: "accept", content: { confirm: true } };
  },
});
check(
  "the session serves tasks, their cancellation and their questions",
  session.capabilities.execution && session.capabilities.cancellation && session.capabilities.inputResponses,
  JSON.stringify(session.capabilities),
);

const text = (outcome) => outcome.result?.content?.map((block) => block.text).join("") ?? "";
const require = { task: { preference: "require" } };

// A task that completes: polled with tasks/get until its result.
{
  const execution = await session.callTool("slow_compute", { seconds: 1, label: "report" }, require);
  const statuses = [];
  const { outcome } = await execution.settle({
    onEvent: (event) => {
      if (event.type === "task") statuses.push(event.task.status);
    },
  });
  check("slow_compute ran as a task", execution.kind === "task", execution.kind);
  check("slow_compute was seen working", statuses.includes("working"), statuses.join(","));
  check(
    "slow_compute completed with its result",
    outcome.status === "completed" && text(outcome).includes("Computed report in 1 s"),
    JSON.stringify(outcome),
  );
}

// A task that asks a question: the client answers it (tasks/update) and the tool goes on.
{
  const execution = await session.callTool("confirm_delete", { filename: "a.txt" }, require);
  const { outcome } = await execution.settle();
  check(
    "confirm_delete asked its question inside the task",
    questions.length === 1 && questions[0].kind === "elicitation" && questions[0].delivery === "task-update"
      && questions[0].message === "Delete a.txt?",
    JSON.stringify(questions),
  );
  check(
    "confirm_delete completed with the answer",
    outcome.status === "completed" && text(outcome).includes("confirm=true for a.txt"),
    JSON.stringify(outcome),
  );
}

// A task whose tool fails.
{
  const execution = await session.callTool("failing_job", {}, require);
  const { outcome } = await execution.settle();
  const failed = outcome.status === "failed"
    || (outcome.status === "completed" && outcome.result?.isError === true);
  check("failing_job ended failed", failed, JSON.stringify(outcome));
  check(
    "failing_job's failure says why",
    JSON.stringify(outcome).includes("The job failed"),
    JSON.stringify(outcome),
  );
}

// A task cancelled while it runs.
{
  const execution = await session.callTool("slow_compute", { seconds: 60, label: "long" }, require);
  check("the long slow_compute ran as a task", execution.kind === "task", execution.kind);
  await execution.cancel();
  const { outcome } = await execution.settle();
  check("the long slow_compute ended cancelled", outcome.status === "cancelled", JSON.stringify(outcome));
}

await session.close();
await client.close();
done();
