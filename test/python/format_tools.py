"""Tools whose parameters pydantic writes with a `format`, served by the official SDK's MCPServer and by FastMCP, for
the tool-argument formats differential.

    python format_tools.py < values.json > verdicts.json

The input is `{"kind": [value, ...], ...}` for the kinds below. For each framework, each kind is one tool `k_<kind>`
with one parameter `v` of that type; the tool is listed in memory through the framework's own client, and called with
each value. The output is `{"<framework>": {"<kind>": {"schema": <the property v as listed>, "accepted": [value, ...]}}}`,
a value accepted when the call answers without `isError`.
"""

import datetime
import ipaddress
import json
import sys
import uuid

import anyio
from pydantic import AnyUrl, EmailStr

KINDS = {
    "datetime": datetime.datetime,
    "date": datetime.date,
    "time": datetime.time,
    "uuid": uuid.UUID,
    "email": EmailStr,
    "url": AnyUrl,
    "ipv4": ipaddress.IPv4Address,
    "ipv6": ipaddress.IPv6Address,
}


def add_tools(server):
    for kind, annotation in KINDS.items():

        def tool(v):
            return "ok"

        tool.__annotations__ = {"v": annotation, "return": str}
        server.tool(name=f"k_{kind}")(tool)
    return server


async def official(values):
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = add_tools(MCPServer("wymcp-format-tools"))
    async with Client(server) as client:
        listed = (await client.list_tools()).tools
        return await judge({t.name: t.input_schema for t in listed}, values, client.call_tool, lambda r: r.is_error)


async def fastmcp(values):
    from fastmcp import Client, FastMCP

    server = add_tools(FastMCP("wymcp-format-tools"))
    async with Client(server) as client:
        listed = await client.list_tools()

        async def call(name, arguments):
            return await client.call_tool(name, arguments, raise_on_error=False)

        return await judge({t.name: t.inputSchema for t in listed}, values, call, lambda r: r.is_error)


async def judge(schemas, values, call, is_error):
    out = {}
    for kind in KINDS:
        accepted = []
        for value in values.get(kind, []):
            try:
                result = await call(f"k_{kind}", {"v": value})
                if not is_error(result):
                    accepted.append(value)
            except Exception:  # noqa: BLE001 - a refusal raised instead of answered is a refusal too
                pass
        out[kind] = {"schema": schemas[f"k_{kind}"]["properties"]["v"], "accepted": accepted}
    return out


async def main():
    values = json.load(sys.stdin)
    result = {"mcp": await official(values), "fastmcp": await fastmcp(values)}
    sys.stdout.write(json.dumps(result))


if __name__ == "__main__":
    anyio.run(main)
