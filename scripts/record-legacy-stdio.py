"""Records a legacy stdio session for `wymcp check`'s fixtures: test/fixtures/cli/legacy-elicitation.jsonl.

usage: .venv/bin/python scripts/record-legacy-stdio.py [OUT]

The official Python SDK on both sides: its Client in legacy mode (it negotiates the newest legacy revision, 2025-11-25)
launches its MCPServer over stdio through a relay that copies each line, in the order it crossed, into OUT. The tool
`book_table` asks the user for a date (elicitation/create) and then the client's model for a confirmation
(sampling/createMessage); the client's callbacks answer both. No headers: a stdio session has none, which is what the
fixture is for. Nothing in OUT is typed by hand; rerunning records the same messages.
"""

import os
import subprocess
import sys
import threading
import warnings

HERE = os.path.abspath(__file__)
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "..", "test", "fixtures", "cli", "legacy-elicitation.jsonl")


def server() -> None:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp_types import SamplingMessage, TextContent
    from pydantic import BaseModel

    app = MCPServer("bistro")

    class Booking(BaseModel):
        date: str
        guests: int

    @app.tool()
    async def book_table(restaurant: str, ctx: Context) -> str:
        """Books a table, asking the user for the date and party size."""
        answer = await ctx.elicit(f"When should I book {restaurant}, and for how many?", Booking)
        if answer.action != "accept":
            return "No booking made."
        # Sampling is deprecated from 2026-07-28 on; in a 2025-11-25 session it is the way to ask the client's model.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reply = await ctx.request_context.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text=f"Write a one-line confirmation for {restaurant}."))],
                max_tokens=60,
                related_request_id=ctx.request_id,
            )
        return f"Booked {restaurant} on {answer.data.date} for {answer.data.guests}: {reply.content.text}"

    app.run("stdio")


def relay(out: str, command: list[str]) -> None:
    """Copies stdin to the child and the child's stdout back, writing each line to `out` as it passes."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lock = threading.Lock()
    with open(out, "wb") as log:

        def record(line: bytes) -> None:
            with lock:
                log.write(line if line.endswith(b"\n") else line + b"\n")
                log.flush()

        def upstream() -> None:
            for line in sys.stdin.buffer:
                record(line)
                child.stdin.write(line)
                child.stdin.flush()
            child.stdin.close()

        threading.Thread(target=upstream, daemon=True).start()
        for line in child.stdout:
            record(line)
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
        child.wait()


async def client(out: str) -> None:
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import CreateMessageResult, ElicitResult, TextContent

    async def on_elicit(context, params):
        return ElicitResult(action="accept", content={"date": "2026-12-24", "guests": 4})

    async def on_sample(context, params):
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="See you on Christmas Eve!"), model="stub-model"
        )

    relayed = StdioServerParameters(command=sys.executable, args=[HERE, "relay", out, "--", sys.executable, HERE, "server"])
    async with Client(relayed, mode="legacy", elicitation_callback=on_elicit, sampling_callback=on_sample) as session:
        await session.list_tools()
        result = await session.call_tool("book_table", {"restaurant": "Chez Ada"})
        print(result.content[0].text, file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        server()
    elif sys.argv[1:2] == ["relay"]:
        relay(sys.argv[2], sys.argv[sys.argv.index("--") + 1 :])
    else:
        import anyio

        anyio.run(client, os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT))
