"""The official Python MCP SDK (PyPI `mcp`) against the toolsmith example server.

Run by tests/it/mcp_interop.rs:

    python python_client.py MODE stdio SERVER_BIN ROOT SPEC_DIR HOST_PATH...
    python python_client.py MODE http URL SPEC_DIR HOST_PATH...

MODE is the SDK's connection mode: "auto" (negotiates 2026-07-28 through server/discover) or
"legacy" (the initialize handshake). Over stdio or streamable HTTP, against a fresh server:
lists the tools and validates each against the official schema of the negotiated version;
reads a file; sends an invalid argument; sends path attacks; reads the full result a cut
result links as a resource (and is refused an edited link); receives list_changed after a
register; cancels a slow tool and checks the next call is served. Prints one OK line, or
exits 1 with the failed check.
"""

import json
import sys

import anyio
import jsonschema
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

BOUND = 30  # seconds: every wait is bounded, so a broken server fails instead of hanging


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)


def tool_validator(spec_dir, version):
    with open(f"{spec_dir}/mcp-schema-{version}.json") as f:
        doc = json.load(f)
    defs = "definitions" if "definitions" in doc else "$defs"
    doc["$ref"] = f"#/{defs}/Tool"
    cls = jsonschema.validators.validator_for(doc)
    return cls(doc)


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def session(server, mode, spec_dir, host_paths, fresh):
    seen = []

    async def on_message(message):
        seen.append(message)

    async with Client(server, mode=mode, message_handler=on_message, read_timeout_seconds=BOUND) as c:
        version = c.protocol_version
        # tools/list, validated against the official Tool definition.
        listed = (await c.list_tools()).tools
        names = [t.name for t in listed]
        check({"read_file", "search_text", "write_file", "wait_ms"} <= set(names), f"tools: {names}")
        validator = tool_validator(spec_dir, version)
        for tool in listed:
            wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
            errors = [e.message for e in validator.iter_errors(wire)]
            check(not errors, f"{version}: {tool.name} rejected by the official schema: {errors}")

        # Reading a file (the SDK validates structuredContent against the outputSchema).
        r = await c.call_tool("read_file", {"path": "notes/todo.md"})
        check(not r.is_error, f"read_file failed: {text_of(r)}")
        check(r.structured_content["content"].startswith("# Todo"), f"read: {r.structured_content}")

        # An invalid argument: a result with isError, quoting the parameter's description.
        r = await c.call_tool("read_file", {"path": "notes/todo.md", "max_bytes": 0})
        check(r.is_error, "max_bytes 0 was accepted")
        check("Largest file size to read" in text_of(r), f"no description in: {text_of(r)}")

        # Path attacks: denied, and no host path in any text.
        for path in ["../outside/secret.txt", host_paths[0] + "/outside/secret.txt", "notes/\x00todo.md", "link_out/secret.txt"]:
            r = await c.call_tool("read_file", {"path": path})
            check(r.is_error, f"{path!r} was not an error")
            check(r.structured_content == {"status": "denied"}, f"{path!r}: {r.structured_content}")
            wire = json.dumps(r.model_dump(by_alias=True, mode="json"))
            check("SECRET-OUTSIDE" not in wire, f"{path!r} leaked the file outside")
            for host in host_paths:
                check(host not in wire, f"{path!r}: host path {host} in {wire}")

        # A long list is cut to the budget; its full result is linked as a resource, which the
        # SDK reads back as JSON; an edited link is refused.
        r = await c.call_tool("list_entries", {"count": 500})
        check(not r.is_error, f"list_entries failed: {text_of(r)}")
        links = [b for b in r.content if isinstance(b, types.ResourceLink)]
        check(len(links) == 1, f"no resource_link in the cut result: {r.content}")
        link = links[0]
        check(link.mime_type == "application/json", f"link: {link}")
        check(link.uri.startswith("toolsmith://result/"), f"link: {link}")
        read = await c.read_resource(link.uri)
        check(len(read.contents) == 1, f"read: {read}")
        body = read.contents[0]
        check(body.mime_type == "application/json", f"read: {body}")
        entries = json.loads(body.text)
        check([e["n"] for e in entries] == list(range(1, 501)), f"read: {body.text[:200]}")
        edited = link.uri[:-1] + ("1" if link.uri[-1] == "0" else "0")
        try:
            await c.read_resource(edited)
            raise Failed("an edited result link was read")
        except MCPError as e:
            check(e.code == -32602, f"edited link: {e.code} {e.message}")
            check("not made for this caller" in e.message, f"edited link: {e.message}")

        # list_changed after a register.
        if fresh:
            if version >= "2026-07-28":
                async with c.listen(tools_list_changed=True) as sub:
                    r = await c.call_tool("enable_count_words", {})
                    check(not r.is_error, f"enable_count_words: {text_of(r)}")
                    with anyio.fail_after(BOUND):
                        async for _event in sub:
                            break
            else:
                r = await c.call_tool("enable_count_words", {})
                check(not r.is_error, f"enable_count_words: {text_of(r)}")
                with anyio.fail_after(BOUND):
                    while not any(isinstance(m, types.ToolListChangedNotification) for m in seen):
                        await anyio.sleep(0.02)
            names = [t.name for t in (await c.list_tools(cache_mode="refresh") if version >= "2026-07-28" else await c.list_tools()).tools]
            check("count_words" in names, f"count_words not listed after list_changed: {names}")

        # Cancel a slow tool once it is running; the next call is served.
        started = anyio.Event()

        async def on_progress(progress, total, message):
            started.set()

        async with anyio.create_task_group() as tg:
            scope = anyio.CancelScope()

            async def slow():
                with scope:
                    await c.call_tool("wait_ms", {"ms": 60000}, progress_callback=on_progress)
                    raise Failed("the cancelled call returned")

            tg.start_soon(slow)
            with anyio.fail_after(BOUND):
                await started.wait()
            scope.cancel()
        with anyio.fail_after(BOUND):
            r = await c.call_tool("read_file", {"path": "notes/todo.md"})
        check(not r.is_error, "the call after a cancellation failed")
        return version


async def main(argv):
    mode, transport = argv[1], argv[2]
    if transport == "stdio":
        server_bin, root, spec_dir = argv[3], argv[4], argv[5]
        host_paths = argv[6:]
        server = StdioServerParameters(command=server_bin, args=[root, "--demo"])
    else:
        server, spec_dir = argv[3], argv[4]
        host_paths = argv[5:]
    version = await session(server, mode, spec_dir, host_paths, fresh=True)
    print(f"OK {transport} mode={mode} version={version}", flush=True)


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv)
    except Failed as e:
        print(f"FAILED: {e}", flush=True)
        sys.exit(1)
