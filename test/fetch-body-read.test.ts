import assert from "node:assert/strict";
import { test } from "node:test";
import { gateFetch } from "wymcp/fetch";

const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

/** A request whose `body` must not be touched: on @hono/node-server that getter builds a second Request and a stream. */
function noBodyGetter(request: Request): Request {
  Object.defineProperty(request, "body", {
    get() {
      throw new Error("request.body was read");
    },
  });
  return request;
}

function handler(seen: unknown[]) {
  return {
    fetch: async (_request: Request, extra?: { parsedBody?: unknown }) => (seen.push(extra?.parsedBody), Response.json({ ok: true })),
  };
}

test("gateFetch reads a body of a declared length within the limit with arrayBuffer(), never through request.body", async () => {
  const seen: unknown[] = [];
  const response = await gateFetch(handler(seen))(
    noBodyGetter(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(CALL.length) },
        body: CALL,
      }),
    ),
  );
  assert.equal(response.status, 200);
  assert.deepEqual(seen, [JSON.parse(CALL)]);
});

test("a body of no declared length goes through the reader, which stops at the limit", async () => {
  const seen: unknown[] = [];
  const stream = (text: string) => new Blob([text]).stream();
  const gated = gateFetch(handler(seen), { limits: { maxBodyBytes: 100 } });
  const init = (body: ReadableStream<Uint8Array>) =>
    ({ method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" }) as RequestInit;
  assert.equal((await gated(new Request("http://localhost/mcp", init(stream(CALL))))).status, 200);
  assert.equal((await gated(new Request("http://localhost/mcp", init(stream(" ".repeat(200) + CALL))))).status, 413);
  assert.deepEqual(seen, [JSON.parse(CALL)]);
});

test("a body longer than the Content-Length it declares is still refused past the limit", async () => {
  const body = " ".repeat(200) + CALL;
  const response = await gateFetch(handler([]), { limits: { maxBodyBytes: 100 } })(
    new Request("http://localhost/mcp", { method: "POST", headers: { "content-type": "application/json", "content-length": "50" }, body }),
  );
  assert.equal(response.status, 413);
});
