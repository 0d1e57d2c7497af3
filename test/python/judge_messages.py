"""The official Python SDK's own models judging client messages, for the never-worse differential.

    python judge_messages.py < messages.jsonl > verdicts.jsonl

Each input line is `{"version": "<revision>", "body": <message>}`; each output line, in the same order, is
`{"ok": true}` or `{"ok": false, "why": "<first failed location>"}`. A message is judged as the SDK's server judges
it: the JSON-RPC envelope of its kind (`mcp_types.jsonrpc`), then, for a method the revision defines, the per-version
wire model and the version-free model (`mcp_types.methods.parse_client_request` / `parse_client_notification`,
the 2025-11-25 shapes for every legacy revision, the 2026-07-28 ones for the modern revision). A method the revision
does not define is judged on its envelope alone. Importing pydantic's models takes a while, so one process judges
every message of a run.
"""

import json
import sys

from mcp_types import jsonrpc, methods
from pydantic import ValidationError


def first_error(error: ValidationError) -> str:
    detail = error.errors()[0]
    return "/" + "/".join(str(part) for part in detail["loc"]) + ": " + detail["type"]


def judge(version: str, body: object) -> str | None:
    """None when the SDK accepts the message, else why not."""
    if not isinstance(body, dict):
        return "not an object"
    if "method" in body:
        request = "id" in body
        envelope = jsonrpc.JSONRPCRequest if request else jsonrpc.JSONRPCNotification
        envelope.model_validate(body)
        method, params = body["method"], body.get("params")
        table = methods.CLIENT_REQUESTS if request else methods.CLIENT_NOTIFICATIONS
        if (method, version) not in table:
            return None
        if request:
            methods.parse_client_request(method, version, params)
        else:
            methods.parse_client_notification(method, version, params)
        return None
    jsonrpc.jsonrpc_message_adapter.validate_python(body)
    return None


def main() -> None:
    out = []
    for line in sys.stdin:
        item = json.loads(line)
        try:
            why = judge(item["version"], item["body"])
        except ValidationError as error:
            why = first_error(error)
        except Exception as error:  # noqa: BLE001 - any other failure is the SDK refusing the message too
            why = f"{type(error).__name__}: {str(error)[:120]}"
        out.append(json.dumps({"ok": True} if why is None else {"ok": False, "why": why}))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
