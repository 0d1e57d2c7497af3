"""A legacy-mode client session against one URL, printed as one JSON transcript on stdout.

usage: legacy_client.py sdk|fastmcp URL [bad|bad-only]

sdk: the official Python SDK's Client (mode="legacy"); fastmcp: FastMCP's Client (its streamable HTTP transport).
Every call's outcome is recorded, errors included, so two runs (gated and ungated) can be compared entry by entry.
With "bad", the session also sends a tools/call whose name is a number through the client's own request path and
records what the client shows its user; "bad-only" sends only that call, then a ping.
"""

import json
import sys

import anyio


def outcome(value):
    """A call's result as plain JSON, or the error the client raised (its type, code and message)."""
    if isinstance(value, list):
        return [outcome(item) for item in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if hasattr(value, "__dataclass_fields__"):
        return {name: outcome(getattr(value, name)) for name in sorted(value.__dataclass_fields__)}
    return value


async def record(transcript, name, call):
    try:
        transcript.append([name, "ok", outcome(await call())])
    except Exception as error:  # noqa: BLE001 - what the user sees is the point
        code = getattr(error, "code", None)
        transcript.append([name, "error", type(error).__name__, code, str(error)])


async def bad_call(client, transcript):
    # The client's own request path, below its typed helpers (which would refuse a number for a name).
    await record(
        transcript,
        "tools/call bad name",
        lambda: client.session._dispatcher.send_raw_request("tools/call", {"name": 5, "arguments": {}}, {}),
    )


async def sdk_session(url, bad):
    from mcp.client.client import Client
    from mcp_types import PromptReference, ResourceTemplateReference

    transcript = []
    progress = []
    async with Client(url, mode="legacy") as client:
        if bad == "bad-only":
            await bad_call(client, transcript)
            await record(transcript, "ping after", client.send_ping)
            return transcript
        transcript.append(["negotiated", "ok", client.session._negotiated_version])
        await record(transcript, "tools/list", client.list_tools)
        await record(transcript, "tools/call echo", lambda: client.call_tool("echo", {"text": "hi"}))
        await record(transcript, "tools/call add", lambda: client.call_tool("add", {"a": 1, "b": 2}))

        async def on_progress(value, total, message):
            progress.append([value, total])

        await record(transcript, "tools/call slow", lambda: client.call_tool("slow", {"steps": 3}, progress_callback=on_progress))
        transcript.append(["progress", "ok", progress])
        # Cancellation: the call is abandoned after 30 ms, which sends notifications/cancelled.
        with anyio.move_on_after(0.03):
            await client.call_tool("slow", {"steps": 5})
        transcript.append(["cancelled", "ok", None])
        await record(transcript, "tools/call unknown", lambda: client.call_tool("nope", {}))
        await record(transcript, "prompts/list", client.list_prompts)
        await record(transcript, "prompts/get", lambda: client.get_prompt("greet", {"name": "Ada"}))
        await record(
            transcript,
            "completion/complete prompt",
            lambda: client.complete(PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "A"}),
        )
        await record(
            transcript,
            "completion/complete template",
            lambda: client.complete(ResourceTemplateReference(type="ref/resource", uri="note://{id}"), {"name": "id", "value": "1"}),
        )
        await record(transcript, "resources/list", client.list_resources)
        await record(transcript, "resources/templates/list", client.list_resource_templates)
        await record(transcript, "resources/read static", lambda: client.read_resource("file:///readme.txt"))
        await record(transcript, "resources/read template", lambda: client.read_resource("note://12"))
        await record(transcript, "logging/setLevel", lambda: client.set_logging_level("info"))
        await record(transcript, "ping", client.send_ping)
        await record(transcript, "roots/list_changed", client.send_roots_list_changed)
        if bad:
            await bad_call(client, transcript)
            await record(transcript, "ping after", client.send_ping)
    return transcript


async def fastmcp_session(url, bad):
    from fastmcp import Client

    transcript = []
    progress = []
    async with Client(url, mode="legacy") as client:
        if bad == "bad-only":
            await bad_call(client, transcript)
            await record(transcript, "ping after", client.ping)
            return transcript
        await record(transcript, "tools/list", client.list_tools)
        await record(transcript, "tools/call echo", lambda: client.call_tool("echo", {"text": "hi"}))
        await record(transcript, "tools/call add", lambda: client.call_tool("add", {"a": 1, "b": 2}))

        async def on_progress(value, total, message):
            progress.append([value, total])

        await record(transcript, "tools/call slow", lambda: client.call_tool("slow", {"steps": 3}, progress_handler=on_progress))
        transcript.append(["progress", "ok", progress])
        await record(transcript, "tools/call unknown", lambda: client.call_tool("nope", {}))
        await record(transcript, "prompts/list", client.list_prompts)
        await record(transcript, "prompts/get", lambda: client.get_prompt("greet", {"name": "Ada"}))
        await record(transcript, "resources/list", client.list_resources)
        await record(transcript, "resources/templates/list", client.list_resource_templates)
        await record(transcript, "resources/read static", lambda: client.read_resource("file:///readme.txt"))
        await record(transcript, "resources/read template", lambda: client.read_resource("note://12"))
        await record(transcript, "logging/setLevel", lambda: client.set_logging_level("info"))
        await record(transcript, "ping", client.ping)
        if bad:
            await bad_call(client, transcript)
    return transcript


def main():
    kind, url = sys.argv[1], sys.argv[2]
    bad = sys.argv[3] if len(sys.argv) > 3 else None
    session = sdk_session if kind == "sdk" else fastmcp_session
    transcript = anyio.run(session, url, bad)
    print(json.dumps(transcript, sort_keys=True))


if __name__ == "__main__":
    main()
