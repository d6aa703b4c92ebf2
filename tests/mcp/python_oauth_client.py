"""A real client authenticates with OAuth: the official Python MCP SDK (`mcp`, pinned in
.ci/consumers-requirements.txt) with its client-credentials provider, against
examples/mcp_server.rs started with --auth and --resource, its tokens from the real
authorization server of tests/conformance/oauth_provider.mjs.

    python python_oauth_client.py MCP_URL ISSUER_URL ROOT

The client is refused (401), finds the authorization server from the server's metadata, obtains
a token with the scope the 401 names, reads; a write is refused (403 insufficient_scope), the
SDK obtains a token with the write scope, and the write lands in ROOT. Prints one `ok` line per
check and exits 0, or prints what differed and exits 1.
"""

import sys

import anyio
import httpx2
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

BOUND = 30  # seconds: every wait is bounded


class Memory:
    """Token storage in memory."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


failures = 0


def check(cond, what, detail=""):
    global failures
    if cond:
        print(f"ok {what}")
    else:
        failures += 1
        print(f"FAILED {what}: {detail}")


async def main(url, issuer, root):
    storage = Memory()
    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=storage,
        client_id="toolsmith-test",
        client_secret="test-secret",
        issuer=issuer,
    )
    statuses = []

    async def seen(response):
        if str(response.url).split("?")[0] == url:
            statuses.append(response.status_code)

    async with httpx2.AsyncClient(auth=provider, timeout=BOUND, event_hooks={"response": [seen]}) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy", read_timeout_seconds=BOUND) as c:
            check(401 in statuses, "the server's first answer was 401", statuses)
            first = storage.tokens.access_token if storage.tokens else None
            check(first is not None, "the SDK obtained a token")
            read = await c.call_tool("search_text", {"query": "hello"})
            check(not read.is_error, "a read ran", read)
            wrote = await c.call_tool(
                "write_file", {"path": "from-python.txt", "content": "written by the Python SDK\n"}
            )
            check(not wrote.is_error, "the write ran after the step-up", wrote)
            check(403 in statuses, "the server answered 403 before the step-up", statuses)
            check(storage.tokens.access_token != first, "the SDK obtained another token")
    with open(f"{root}/from-python.txt") as f:
        check(f.read() == "written by the Python SDK\n", "the file holds the write")
    if failures:
        print(f"{failures} check(s) failed")
        sys.exit(1)
    print("all checks passed")


async def bounded(url, issuer, root):
    with anyio.fail_after(4 * BOUND):
        await main(url, issuer, root)


if __name__ == "__main__":
    anyio.run(bounded, *sys.argv[1:4])
