"""The official Python SDK's client: one session per target, all at once, printing what each saw as one JSON object.

    python drive.py '[{"name": "...", "mode": "legacy", "http": "URL"}, {"name": "...", "mode": "2026-07-28", "stdio": ["cmd", "arg"]}]'

`mode` is "legacy" (the initialize handshake) or a modern revision ("2026-07-28"); `scenario` is "echo" (the tools of
echo_servers.py, the default) or "filesystem" (@modelcontextprotocol/server-filesystem, serving `dir`). Importing the
SDK takes seconds, so every session of a test runs in one process.
"""

import json
import sys

import anyio
from mcp import Client, MCPError, StdioServerParameters


def dump(items):
    return [item.model_dump(mode="json", exclude_none=True) for item in items]


async def outcome(call):
    """A tool call's result, or the JSON-RPC error code it was refused with."""
    try:
        result = await call
    except MCPError as error:
        return {"refused": error.error.code}
    return {"isError": bool(result.is_error), "content": dump(result.content)}


async def filesystem(client, folder):
    tools = await client.list_tools()
    return {
        "version": client.protocol_version,
        "tools": sorted(tool.name for tool in tools.tools),
        "allowed": await outcome(client.call_tool("list_allowed_directories", {})),
        "read": await outcome(client.call_tool("read_text_file", {"path": f"{folder}/hello.txt"})),
        "list": await outcome(client.call_tool("list_directory", {"path": folder})),
        "outside": await outcome(client.call_tool("read_text_file", {"path": "/etc/hostname"})),
        "wrong arguments": await outcome(client.call_tool("read_text_file", {"path": 5})),
    }


async def session(target):
    server = target["http"] if "http" in target else StdioServerParameters(command=target["stdio"][0], args=target["stdio"][1:])
    async with Client(server, mode=target["mode"]) as client:
        if target.get("scenario") == "filesystem":
            return await filesystem(client, target["dir"])
        tools = await client.list_tools()
        echo = await client.call_tool("echo", {"text": "héllo"})
        add = await client.call_tool("add", {"a": 2, "b": 3})
        wrong = await client.call_tool("add", {"a": "two", "b": 3})
        prompt = await client.get_prompt("greet", {"name": "Ada"})
        resource = await client.read_resource("file:///readme.txt")
        return {
            "version": client.protocol_version,
            "tools": sorted(tool.name for tool in tools.tools),
            "echo": {"isError": bool(echo.is_error), "content": dump(echo.content)},
            "add": {"isError": bool(add.is_error), "content": dump(add.content)},
            "wrong arguments": {"isError": bool(wrong.is_error)},
            "prompt": dump(prompt.messages),
            "resource": dump(resource.contents),
        }


async def main() -> None:
    targets = json.loads(sys.argv[1])
    seen = {}

    async def run(target):
        try:
            seen[target["name"]] = await session(target)
        except Exception as error:  # noqa: BLE001 - reported to the test, which fails on it
            seen[target["name"]] = {"error": f"{type(error).__name__}: {error}"}

    async with anyio.create_task_group() as group:
        for target in targets:
            group.start_soon(run, target)
    print(json.dumps(seen, sort_keys=True))


anyio.run(main)
