"""What the official Python SDK's client surfaces to its application when a tools/call is refused.

    python client_views.py '{"url": "URL", "mode": "2026-07-28", "cases": [{"name": "...", "tamper": {...}, "arguments": {...}}]}'

Each case is one session (connect, tools/list, one tools/call of `lookup`). Its `tamper` is applied to that tools/call's
HTTP request only, on its way out: `jsonrpc` replaces the envelope's version, `paramsName` the tool's name, `metaVersion`
the revision in `_meta`, `headers` sets headers. Prints, per case, the result or the exception the application saw.
"""

import json
import sys

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

META_VERSION = "io.modelcontextprotocol/protocolVersion"


class Tamper(httpx2.AsyncBaseTransport):
    """Changes the tools/call request as the case says, then sends it as usual."""

    def __init__(self, tamper):
        self.tamper = tamper
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        body = await request.aread()
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "tools/call":
            tamper = self.tamper
            if "jsonrpc" in tamper:
                message["jsonrpc"] = tamper["jsonrpc"]
            if "paramsName" in tamper:
                message["params"]["name"] = tamper["paramsName"]
            if "metaVersion" in tamper and isinstance(message["params"].get("_meta"), dict):
                message["params"]["_meta"][META_VERSION] = tamper["metaVersion"]
            headers = dict(request.headers)
            headers.pop("content-length", None)
            headers.update(tamper.get("headers", {}))
            request = httpx2.Request(request.method, request.url, headers=headers, content=json.dumps(message).encode())
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


def describe(error):
    seen = {"class": type(error).__name__, "message": str(error)}
    if isinstance(error, MCPError):
        seen["code"] = error.error.code
    return seen


async def run_case(url, mode, case):
    http = httpx2.AsyncClient(transport=Tamper(case.get("tamper", {})))
    try:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await client.list_tools()
            try:
                result = await client.call_tool("lookup", case.get("arguments", {"region": "eu"}))
            except Exception as error:  # noqa: BLE001 - what the application would catch is the finding
                return {"stage": "call", **describe(error)}
            text = " ".join(getattr(item, "text", "") for item in result.content)
            return {"stage": "call", "result": {"isError": bool(result.is_error), "text": text}}
    except Exception as error:  # noqa: BLE001 - a failure outside the call (connect, close) is reported too
        return {"stage": "session", **describe(error)}
    finally:
        await http.aclose()


async def main():
    job = json.loads(sys.argv[1])
    seen = {}
    for case in job["cases"]:
        seen[case["name"]] = await run_case(job["url"], job["mode"], case)
    print(json.dumps(seen, sort_keys=True))


anyio.run(main)
