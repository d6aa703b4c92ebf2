// A real client authenticates with OAuth: the official TypeScript SDK's client
// (@modelcontextprotocol/client, pinned) with its client-credentials provider, against
// examples/mcp_server.rs started with --auth and --resource.
//
//   node oauth_client.mjs MCP_URL ISSUER_URL
//
// The client connects without a token, is told by the server's 401 where its metadata is,
// finds the authorization server there, obtains a token for the server with the scope the 401
// names (workspace:read), and calls a read; then a write whose scope the token lacks: the server's 403 insufficient_scope
// makes the SDK obtain a token with workspace:write and call again, and the write runs.
//
// Prints one `ok` line per check and exits 0, or prints what differed and exits 1.
import { Client, StreamableHTTPClientTransport, ClientCredentialsProvider } from "@modelcontextprotocol/client";
import { check, done } from "./checks.mjs";

const [url, issuer] = process.argv.slice(2);
if (!url || !issuer) {
  console.error("usage: node oauth_client.mjs MCP_URL ISSUER_URL");
  process.exit(2);
}

// Every request the SDK sends, to see the tokens it presents.
const seen = [];
const fetchFn = async (input, init) => {
  const res = await fetch(input, init);
  const headers = new Headers(init?.headers);
  seen.push({ url: String(input), status: res.status, token: headers.get("authorization") ?? "" });
  return res;
};

const provider = new ClientCredentialsProvider({
  clientId: "toolsmith-test",
  clientSecret: "test-secret",
  expectedIssuer: issuer,
});
const client = new Client({ name: "toolsmith-oauth-client", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: fetchFn }));
check("the client connected once it had a token", provider.tokens()?.access_token !== undefined, JSON.stringify(seen));
check(
  "the server's first answer was 401",
  seen.some((r) => r.url === url && r.status === 401 && r.token === ""),
  JSON.stringify(seen.map((r) => [r.url, r.status])),
);

const listed = await client.listTools();
check("tools/list answered", listed.tools.some((t) => t.name === "read_file"), JSON.stringify(listed.tools.map((t) => t.name)));

const read = await client.callTool({ name: "search_text", arguments: { query: "hello" } });
check("a read ran as the token's subject", read.isError !== true, JSON.stringify(read));

const first = provider.tokens()?.access_token;
const wrote = await client.callTool({
  name: "write_file",
  arguments: { path: "from-oauth.txt", content: "written with a stepped-up token\n" },
});
check("the write ran after the step-up", wrote.isError !== true, JSON.stringify(wrote));
check(
  "the server answered 403 before the step-up",
  seen.some((r) => r.url === url && r.status === 403),
  JSON.stringify(seen.map((r) => [r.url, r.status])),
);
check("the SDK obtained another token", provider.tokens()?.access_token !== first, "the token did not change");

await client.close();
done();
