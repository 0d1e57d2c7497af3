"""The Python servers of the tests, nobody here wrote their SDKs: one tool set, two frameworks.

    python echo_servers.py mcpserver-http   the official SDK's MCPServer over Streamable HTTP on a free loopback
                                            port; prints "listening on http://127.0.0.1:PORT/mcp" once it serves
    python echo_servers.py fastmcp-stdio    FastMCP over stdio
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


def mcpserver_http() -> None:
    import anyio
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    server = tools(MCPServer("wymcp-python-mcpserver"))
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


def fastmcp_stdio() -> None:
    from fastmcp import FastMCP

    tools(FastMCP("wymcp-python-fastmcp")).run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    {"mcpserver-http": mcpserver_http, "fastmcp-stdio": fastmcp_stdio}[sys.argv[1]]()
