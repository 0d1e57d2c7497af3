"""The Python servers of the tests, nobody here wrote their SDKs: one tool set, two frameworks.

    python echo_servers.py mcpserver-http   the official SDK's MCPServer over Streamable HTTP on a free loopback
                                            port; prints "listening on http://127.0.0.1:PORT/mcp" once it serves
    python echo_servers.py header-http      mcpserver-http with a tool `lookup` listed first, whose `region` argument
                                            carries the x-mcp-header annotation (Mcp-Param-Region)
    python echo_servers.py fastmcp-stdio    FastMCP over stdio
    python echo_servers.py features-http    the official SDK's MCPServer with every feature test/support/feature-server.ts
                                            has (over Streamable HTTP, announced as mcpserver-http is)
    python echo_servers.py features-stdio   the same over stdio
    python echo_servers.py formats-http     MCPServer over Streamable HTTP with format_tools.py's tools
"""

import socket
import sys


def tools(server):
    @server.tool()
    def echo(text: str) -> str:
        """Returns its text."""
        return f"echo: {text}"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds two integers."""
        return a + b

    @server.prompt()
    def greet(name: str) -> str:
        """Greets someone."""
        return f"Hello, {name}!"

    @server.resource("file:///readme.txt")
    def readme() -> str:
        """A short text."""
        return "wymcp stands in front of this server"

    return server


# The URIs of test/support/feature-server.ts, in the same order: the ones real clients use.
RESOURCE_URIS = [
    "file:///srv/notes/My Notes.txt",
    "file:///srv/notes/café.md",
    "C:/Users/Łukasz/report (final).docx",
    "test://items/a b",
    "a|b",
    "notes/relative.md",
]


def features(server):
    """Every feature a legacy client drives, as test/support/feature-server.ts serves them with the TypeScript SDK."""
    import json

    import anyio
    from mcp.server.mcpserver import Context
    from mcp_types import (
        Completion,
        EmptyResult,
        ResourceUpdatedNotification,
        ResourceUpdatedNotificationParams,
        SamplingMessage,
        SubscribeRequestParams,
        TextContent,
        UnsubscribeRequestParams,
    )
    from pydantic import BaseModel

    class Sum(BaseModel):
        sum: float

    class Name(BaseModel):
        name: str

    @server.tool()
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool()
    def add(a: float, b: float) -> Sum:
        return Sum(sum=a + b)

    @server.tool()
    def fail() -> str:
        raise ValueError("the tool failed on purpose")

    @server.tool()
    async def slow(steps: int, ctx: Context) -> str:
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps)
            await anyio.sleep(0.01)
        return f"done {steps}"

    @server.tool()
    async def log(text: str, ctx: Context) -> str:
        await ctx.info(text, logger_name="features")
        await ctx.debug(f"debug: {text}", logger_name="features")
        return "logged"

    @server.tool()
    async def ask(ctx: Context) -> str:
        sample = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text="Say café"))],
            max_tokens=10,
            related_request_id=ctx.request_id,
        )
        answer = await ctx.elicit("Your name?", Name)
        roots = await ctx.session.list_roots()
        return json.dumps(
            {
                "sample": sample.content.text,
                "answer": answer.data.model_dump() if answer.data else None,
                "roots": [root.model_dump(mode="json", exclude_none=True) for root in roots.roots],
            },
            ensure_ascii=False,
        )

    def text_of(uri: str):
        def read() -> str:
            return f"the text of {uri}"

        return read

    for index, uri in enumerate(RESOURCE_URIS):
        server.resource(uri, name=f"r{index}", mime_type="text/plain")(text_of(uri))

    @server.resource("test://items/{x}", name="item", mime_type="text/plain")
    def item(x: str) -> str:
        return f"item {x}"

    async def subscribe(ctx, params: SubscribeRequestParams) -> EmptyResult:
        update = ResourceUpdatedNotification(params=ResourceUpdatedNotificationParams(uri=params.uri))
        await ctx.session.send_notification(update, related_request_id=ctx.request_id)
        return EmptyResult()

    async def unsubscribe(ctx, params: UnsubscribeRequestParams) -> EmptyResult:
        return EmptyResult()

    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)

    @server.prompt()
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @server.completion()
    async def complete(ref, argument, context):
        names = ["José", "Łukasz", "Ada"]
        return Completion(values=[n for n in names if n.startswith(argument.value)])

    return server


def serve_http(server) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    served = uvicorn.Server(config)

    async def main() -> None:
        async def announce() -> None:
            while not served.started:
                await anyio.sleep(0.01)
            print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)

        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await served.serve(sockets=[sock])

    anyio.run(main)


def mcpserver_http() -> None:
    from mcp.server.mcpserver import MCPServer

    serve_http(tools(MCPServer("wymcp-python-mcpserver")))


def header_http() -> None:
    from typing import Annotated

    from mcp.server.mcpserver import MCPServer
    from pydantic import Field

    server = MCPServer("wymcp-python-mcpserver")

    @server.tool()
    def lookup(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})] = "") -> str:
        """Answers the region it was asked about."""
        return f"region: {region}"

    serve_http(tools(server))


def formats_http() -> None:
    """The tools of format_tools.py (one parameter each of a type pydantic writes with a format), served over HTTP."""
    from format_tools import add_tools
    from mcp.server.mcpserver import MCPServer

    serve_http(add_tools(MCPServer("wymcp-python-formats")))


def features_http() -> None:
    from mcp.server.mcpserver import MCPServer

    serve_http(features(MCPServer("wymcp-python-features")))


def features_stdio() -> None:
    from mcp.server.mcpserver import MCPServer

    features(MCPServer("wymcp-python-features")).run(transport="stdio")


def fastmcp_stdio() -> None:
    from fastmcp import FastMCP

    tools(FastMCP("wymcp-python-fastmcp")).run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    modes = {
        "mcpserver-http": mcpserver_http,
        "header-http": header_http,
        "features-http": features_http,
        "formats-http": formats_http,
        "features-stdio": features_stdio,
        "fastmcp-stdio": fastmcp_stdio,
    }
    modes[sys.argv[1]]()
