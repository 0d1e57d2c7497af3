import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { MODERN_META as META } from "./support/messages.js";

// The example hands the SDK a body-less Request and writes its Response back itself: SSE must still stream,
// and a client that goes away must still end its stream on the server.
let server: LaunchedExample;
before(async () => {
  server = await launchExample();
});
after(async () => {
  await server?.stop();
});

const listen = (id: number, signal: AbortSignal) =>
  fetch(server.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    }),
    signal,
  });

/** Opens a listen stream and reads until its acknowledgement arrives; the stream itself stays open. */
async function acknowledged(id: number, abort: AbortController): Promise<{ res: Response; first: string }> {
  const res = await listen(id, abort.signal);
  assert.equal(res.status, 200, server.stderr());
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const reader = res.body!.getReader();
  let first = "";
  while (!first.includes("\n\n")) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before its first event: ${first}`);
    first += new TextDecoder().decode(value);
  }
  return { res, first };
}

describe("SSE through the gated example", () => {
  test("a subscriptions/listen stream delivers its acknowledgement while it stays open", async () => {
    const abort = new AbortController();
    const { first } = await acknowledged(1, abort);
    assert.match(first, /notifications\/subscriptions\/acknowledged/);
    abort.abort();
  });

  test("clients that disconnect end their streams: 1,100 opened and dropped in turn stay under the SDK's limit of 1,024", async () => {
    for (let id = 10; id < 1_110; id++) {
      const abort = new AbortController();
      const { first } = await acknowledged(id, abort);
      // A leaked stream would count against the limit, and the SDK would answer "Subscription limit reached".
      assert.doesNotMatch(first, /limit reached/, `stream ${id - 10} refused`);
      abort.abort();
    }
  });
});
