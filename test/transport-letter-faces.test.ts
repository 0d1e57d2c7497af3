import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { createLog } from "../src/log/gate-log.js";
import { createProxy, listen, type ProxyOptions } from "../src/hosts/proxy/proxy.js";
import { gateFetch } from "../src/hosts/fetch/gate.js";
import { wymcpFetch } from "../src/hosts/fetch/guard.js";
import { gateNode } from "../src/hosts/node/gate.js";
import type { RejectInfo } from "../src/core/admission.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { recordingUpstream, type Upstream } from "./support/proxy.js";

const JSON_TYPE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { _meta: MODERN_META, name: "echo", arguments: {} } });
const AGREEING = { ...JSON_TYPE, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" };

/** A handler that answers every request it is reached by, so that a test sees whether the face let it through. */
const reached = { fetch: async () => Response.json({ jsonrpc: "2.0", id: 3, result: { reached: true } }) };

/** One request of any method with the headers given (the Host included, as sent). */
function send(url: string, method: string, headers: Record<string, string | string[]>, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function assertForbidden(answer: { status: number; text: string }) {
  assert.equal(answer.status, 403, answer.text);
  const parsed = JSON.parse(answer.text) as Record<string, unknown>;
  assert.equal("id" in parsed, false, "a 403 answer has no id");
  assert.equal((parsed.error as { code: number }).code, -32000);
}

function assertMismatch(answer: { status: number; text: string }, header: string) {
  assert.equal(answer.status, 400, answer.text);
  const { id, error } = JSON.parse(answer.text) as { id: unknown; error: { code: number; message: string } };
  assert.equal(id, 3);
  assert.equal(error.code, -32020);
  assert.match(error.message, new RegExp(`the ${header} header`));
}

describe("gateNode: Host and Origin, and the header rules, on a real socket", () => {
  let open: Awaited<ReturnType<typeof listening>>;
  let plain: Awaited<ReturnType<typeof listening>>;
  const refused: RejectInfo[] = [];
  before(async () => {
    open = await listening(
      http.createServer(gateNode(reached, { allow: { hosts: ["127.0.0.1", "localhost"] }, onReject: (info) => refused.push(info) })),
    );
    plain = await listening(http.createServer(gateNode(reached)));
  });
  after(async () => {
    await open.close();
    await plain.close();
  });

  for (const method of ["POST", "GET", "DELETE"]) {
    test(`a ${method} naming a foreign Host is answered 403 before the handler, and onReject hears of it`, async () => {
      const before = refused.length;
      const answer = await send(open.url, method, { ...AGREEING, host: "evil.example" }, method === "POST" ? CALL : undefined);
      assertForbidden(answer);
      assert.equal(refused.at(before)?.reason, "forbidden-host");
    });
    test(`a ${method} from a foreign Origin is answered 403`, async () => {
      const answer = await send(open.url, method, { ...AGREEING, origin: "http://evil.example" }, method === "POST" ? CALL : undefined);
      assertForbidden(answer);
    });
  }

  test("an allowed Host and no Origin reach the handler", async () => {
    const answer = await send(open.url, "POST", AGREEING, CALL);
    assert.equal(answer.status, 200, answer.text);
  });

  test("with no allow.hosts the check is off: a gate cannot know where it listens", async () => {
    const answer = await send(plain.url, "POST", { ...AGREEING, host: "evil.example" }, CALL);
    assert.equal(answer.status, 200, answer.text);
  });

  test("a modern tools/call whose Mcp-Name disagrees with its body is answered 400/-32020", async () => {
    assertMismatch(await rawPost(plain.url, { ...AGREEING, "mcp-name": "other" }, CALL), "Mcp-Name");
  });

  test("a header sent twice with different values is refused, though req.headers would join them", async () => {
    assertMismatch(await rawPost(plain.url, { ...AGREEING, "mcp-method": ["tools/call", "tools/list"] }, CALL), "Mcp-Method");
  });

  test("a header sent twice with the same value passes", async () => {
    const answer = await rawPost(plain.url, { ...AGREEING, "mcp-name": ["echo", "echo"] }, CALL);
    assert.equal(answer.status, 200, answer.text);
  });

  // req.headers reads "a, b" for both: only req.headersDistinct tells them apart.
  const COMMA_CALL = CALL.replace('"name":"echo"', '"name":"a, b"');
  test("a tool name with a comma, its Mcp-Name sent once, passes", async () => {
    const answer = await rawPost(plain.url, { ...AGREEING, "mcp-name": "a, b" }, COMMA_CALL);
    assert.equal(answer.status, 200, answer.text);
  });

  test("two Mcp-Name values that Node joins into the body's name are refused as a repeat", async () => {
    const answer = await rawPost(plain.url, { ...AGREEING, "mcp-name": ["a", "b"] }, COMMA_CALL);
    assertMismatch(answer, "Mcp-Name");
    assert.match(answer.text, /repeated/);
  });
});

describe("gateFetch and wymcpFetch: the same rules on a Request", () => {
  const gated = gateFetch(reached, { allow: { hosts: ["localhost:8787"] } });
  const request = (method: string, headers: Record<string, string>, body?: string) =>
    new Request("http://localhost:8787/mcp", { method, headers, body });

  for (const method of ["POST", "GET", "DELETE"]) {
    test(`a ${method} naming a foreign Host is answered 403`, async () => {
      const answer = await gated(request(method, { ...AGREEING, host: "evil.example" }, method === "POST" ? CALL : undefined));
      assertForbidden({ status: answer.status, text: await answer.text() });
    });
  }

  test("a Request with no Host header is judged by its URL's host", async () => {
    const answer = await gated(request("POST", AGREEING, CALL));
    assert.equal(answer.status, 200);
  });

  test("a missing Mcp-Method is answered 400/-32020", async () => {
    const { "mcp-method": _m, ...rest } = AGREEING;
    const answer = await gated(request("POST", rest, CALL));
    assertMismatch({ status: answer.status, text: await answer.text() }, "Mcp-Method");
  });

  test("wymcpFetch refuses the foreign Origin and the disagreeing header too", async () => {
    const guard = wymcpFetch({ allow: { origins: ["https://app.example"] } });
    const foreign = await guard(request("GET", { origin: "https://evil.example" }));
    assert.equal(foreign?.status, 403);
    const mismatch = await guard(request("POST", { ...AGREEING, "mcp-protocol-version": "2025-11-25" }, CALL));
    assertMismatch({ status: mismatch?.status ?? 0, text: (await mismatch?.text()) ?? "" }, "MCP-Protocol-Version");
    assert.equal(await guard(request("POST", { ...AGREEING, origin: "https://app.example" }, CALL)), undefined);
  });

  test("rules.headers off and allow.versions: each check has its switch", async () => {
    const off = gateFetch(reached, { rules: { headers: "off" } });
    assert.equal((await off(request("POST", JSON_TYPE, CALL))).status, 200);
    const strict = gateFetch(reached, { allow: { versions: ["2025-11-25"] } });
    const answer = await strict(request("POST", AGREEING, CALL));
    const body = (await answer.json()) as { error: { code: number; data: { supported: string[]; requested: string } } };
    assert.equal(answer.status, 400);
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data.supported, ["2025-11-25"]);
    assert.equal(body.error.data.requested, "2026-07-28");
  });
});

describe("wymcp proxy: loopback Host and Origin by default, and the header rules", () => {
  let upstream: Upstream;
  const proxies: Array<{ close: () => void; url: string }> = [];
  const options = (extra: Partial<ProxyOptions> = {}): ProxyOptions => ({
    upstream: upstream.url,
    timeoutMs: 60_000,
    drainTimeoutMs: 1_000,
    rewriteHost: false,
    limits: { maxBodyBytes: 65_536, maxDepth: 64 },
    log: "text",
    passThrough: false,
    otel: false,
    ...extra,
  });
  const start = async (extra: Partial<ProxyOptions> = {}) => {
    const proxy = createProxy(
      options(extra),
      createLog("proxy", "text", () => undefined),
    );
    const { server, address } = await listen(proxy, "127.0.0.1", 0);
    const running = { url: `http://127.0.0.1:${address.port}/mcp`, close: () => void server.close() };
    // Closed listening and with every connection dropped, or this file's process never exits.
    proxies.push({
      close: () => {
        server.close();
        server.closeAllConnections();
      },
      url: running.url,
    });
    return running;
  };
  before(async () => {
    upstream = await recordingUpstream();
  });
  after(async () => {
    for (const proxy of proxies) proxy.close();
    await upstream.close();
  });

  for (const method of ["POST", "GET", "DELETE"]) {
    test(`on a loopback address, a ${method} naming a foreign Host gets 403 and never reaches the upstream`, async () => {
      const proxy = await start();
      upstream.received.length = 0;
      const answer = await send(proxy.url, method, { ...AGREEING, host: "evil.example.com" }, method === "POST" ? CALL : undefined);
      assertForbidden(answer);
      assert.equal(upstream.received.length, 0);
    });
  }

  test("a loopback Host with the proxy's port and a loopback Origin pass", async () => {
    const proxy = await start();
    const { host } = new URL(proxy.url);
    const answer = await send(proxy.url, "POST", { ...AGREEING, origin: `http://${host}` }, CALL);
    assert.equal(answer.status, 200, answer.text);
  });

  test("--allow-any-host turns the loopback default off; --allowed-host replaces it", async () => {
    const any = await start({ allowAnyHost: true });
    // The upstream answers a GET 202: what matters is that it was reached.
    assert.equal((await send(any.url, "GET", { host: "evil.example.com" })).status, 202);
    const listed = await start({ allow: { hosts: ["mcp.internal"] } });
    assertForbidden(await send(listed.url, "GET", {}));
    assert.equal((await send(listed.url, "GET", { host: "mcp.internal:1" })).status, 202);
  });

  test("a modern request whose headers disagree with its body gets 400/-32020, not forwarded", async () => {
    const proxy = await start();
    upstream.received.length = 0;
    assertMismatch(await rawPost(proxy.url, { ...AGREEING, "mcp-name": "=?base64?ZWNobw?=" }, CALL), "Mcp-Name");
    assert.equal(upstream.received.length, 0);
    const answer = await rawPost(proxy.url, { ...AGREEING, "mcp-name": "=?base64?ZWNobw==?=" }, CALL);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(upstream.received.length, 1);
  });
});
