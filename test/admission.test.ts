/**
 * The admission both hosts share (media type, size, JSON, nesting, era, validation), pinned through each public
 * adapter: `wymcpFetch` on plain Requests and `wymcpNode` behind a node:http server, with the same cases.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Era, JsonRpcErrorResponse, RejectInfo, WymcpInfo } from "wymcp";
import * as fetchEntry from "wymcp/fetch";
import * as nodeEntry from "wymcp/node";
import { wymcpFetch, wymcpOf, type FetchOptions } from "wymcp/fetch";
import { wymcpNode, type NodeOptions } from "wymcp/node";

/** What a host did with one POST: the answer it sent, or what it handed on. */
interface Outcome {
  status: number;
  answer?: JsonRpcErrorResponse;
  handedOn?: WymcpInfo;
  /** The parsed body handed on: `req.body` on Node, `wymcpOf(request).body` on Fetch. */
  body?: unknown;
}

interface Host {
  name: string;
  /** POSTs `chunks` (no Content-Length unless given: the body is streamed) and reports what happened. */
  post(chunks: string[], headers?: Record<string, string>): Promise<Outcome>;
  rejects: RejectInfo[];
  close(): Promise<void>;
}

type Options = Omit<NodeOptions & FetchOptions, "era" | "onReject"> & { era?: (body: unknown) => Era | undefined };

const JSON_TYPE = { "Content-Type": "application/json" };

function fetchHost(options: Options = {}): Host {
  const rejects: RejectInfo[] = [];
  const { era, ...rest } = options;
  const guard = wymcpFetch({ ...rest, era: era && ((_req, body) => era(body)), onReject: (info) => rejects.push(info) });
  return {
    name: "wymcpFetch",
    rejects,
    async post(chunks, headers = JSON_TYPE) {
      const bytes = chunks.map((c) => new TextEncoder().encode(c));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = bytes.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
      const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers, body, duplex: "half" } as RequestInit);
      const response = await guard(request);
      if (!response) return { status: 200, handedOn: wymcpOf(request), body: wymcpOf(request)?.body };
      assert.equal(response.headers.get("content-type"), "application/json");
      return { status: response.status, answer: (await response.json()) as JsonRpcErrorResponse };
    },
    close: async () => undefined,
  };
}

async function nodeHost(options: Options = {}): Promise<Host> {
  const rejects: RejectInfo[] = [];
  const { era, ...rest } = options;
  const guard = wymcpNode({ ...rest, era: era && ((_req, body) => era(body)), onReject: (info) => rejects.push(info) });
  const server = http.createServer((req, res) => {
    void guard(req, res, (error?: unknown) => {
      res.writeHead(error ? 500 : 200, JSON_TYPE);
      res.end(JSON.stringify(error ? { next: String(error) } : { handedOn: req.wymcp, body: (req as { body?: unknown }).body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name: "wymcpNode",
    rejects,
    post: (chunks, headers = JSON_TYPE) =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => {
            const parsed = JSON.parse(text) as { handedOn?: WymcpInfo; body?: unknown; next?: string } & JsonRpcErrorResponse;
            if (res.statusCode === 500) return reject(new Error(`next(error): ${parsed.next}`));
            resolve(
              res.statusCode === 200
                ? { status: 200, handedOn: parsed.handedOn, body: parsed.body }
                : { status: res.statusCode ?? 0, answer: parsed },
            );
          });
        });
        req.on("error", reject);
        // Each chunk is its own write: with no Content-Length, node:http sends them chunked, as a streaming client does.
        for (const chunk of chunks) req.write(chunk);
        req.end();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const LIMIT = toolsList.length;
/** `text` split in two, so the bytes arrive in more than one chunk. */
const halves = (text: string) => [text.slice(0, 10), text.slice(10)];

const hosts: Array<[string, (options?: Options) => Promise<Host>]> = [
  ["wymcpFetch", async (options) => fetchHost(options)],
  ["wymcpNode", nodeHost],
];

for (const [name, make] of hosts) {
  describe(`${name}: the shared admission`, () => {
    let host: Host;
    before(async () => {
      host = await make({
        limits: { maxBodyBytes: LIMIT },
        era: (body) => ((body as { params?: { _meta?: unknown } })?.params?._meta ? "modern" : undefined),
      });
    });
    after(() => host.close());

    test("a streamed body of exactly the limit is read and handed on", async () => {
      const seen = await host.post(halves(toolsList));
      assert.equal(seen.status, 200);
      assert.deepEqual(seen.body, JSON.parse(toolsList), "the body parsed here is handed on");
      assert.deepEqual(seen.handedOn?.result, { outcome: "pass", kind: "request", definition: "ListToolsRequest", revision: "2025-03-26" });
    });

    test("a streamed body one byte over the limit is answered 413 body-too-large, though it is valid JSON", async () => {
      host.rejects.length = 0;
      const seen = await host.post(halves(`${toolsList} `));
      assert.equal(seen.status, 413);
      assert.deepEqual([seen.answer?.id, seen.answer?.error.code], [null, -32600]);
      assert.match(seen.answer?.error.message ?? "", new RegExp(`limit of ${LIMIT} bytes`));
      assert.deepEqual(host.rejects, [
        { status: 413, response: seen.answer, reason: "body-too-large", rule: "limits", era: undefined, kind: undefined },
      ]);
    });

    test("a declared Content-Length over the limit is answered 413 body-too-large before the body is judged", async () => {
      host.rejects.length = 0;
      const body = `${toolsList} `;
      const seen = await host.post([body], { ...JSON_TYPE, "Content-Length": String(body.length) });
      assert.equal(seen.status, 413);
      assert.deepEqual(
        host.rejects.map((r) => [r.status, r.reason]),
        [[413, "body-too-large"]],
      );
    });

    test("a media type that is not JSON is answered 415 unsupported-media-type, and so is a missing one", async () => {
      host.rejects.length = 0;
      const plain = await host.post([toolsList], { "Content-Type": "text/plain" });
      const none = await host.post([toolsList], {});
      for (const seen of [plain, none]) {
        assert.equal(seen.status, 415);
        assert.deepEqual([seen.answer?.id, seen.answer?.error.code], [null, -32600]);
      }
      assert.deepEqual(
        host.rejects.map((r) => [r.status, r.reason, r.era, r.kind]),
        [
          [415, "unsupported-media-type", undefined, undefined],
          [415, "unsupported-media-type", undefined, undefined],
        ],
      );
      assert.deepEqual(host.rejects[0]?.response, plain.answer);
    });

    test("each refusal reaches onReject once, with its own reason", async () => {
      host.rejects.length = 0;
      const parse = await host.post(["{nope"]);
      const invalid = await host.post([JSON.stringify({ jsonrpc: "1.0", id: 2, method: "x" })]);
      assert.deepEqual(
        host.rejects.map((r) => [r.status, r.reason, r.era, r.kind, (r.response as JsonRpcErrorResponse).error.code]),
        [
          [400, "parse-error", undefined, undefined, -32700],
          [400, "invalid-message", "legacy", "request", -32600],
        ],
      );
      assert.deepEqual(
        host.rejects.map((r) => r.response),
        [parse.answer, invalid.answer],
      );
    });

    test("a legacy batch is judged item by item with no MCP-Protocol-Version, and refused under 2025-06-18, which removed batches", async () => {
      const batch = JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "a" }]);
      const judged = await host.post([batch]);
      assert.deepEqual(judged.handedOn?.result, { outcome: "pass", kind: "batch", definition: "JSONRPCBatchRequest" });
      const older = await host.post([batch], { ...JSON_TYPE, "MCP-Protocol-Version": "2025-03-26" });
      assert.equal(older.handedOn?.result.kind, "batch");
      host.rejects.length = 0;
      const refused = await host.post([batch], { ...JSON_TYPE, "MCP-Protocol-Version": "2025-06-18" });
      assert.equal(refused.status, 400);
      assert.equal(refused.answer?.error.code, -32600);
      assert.deepEqual(
        host.rejects.map((r) => [r.reason, r.kind]),
        [["invalid-message", "batch"]],
      );
      assert.equal(
        refused.answer?.error.message,
        "Invalid JSON-RPC batch (revision 2025-06-18 and later take none: one message per request)",
      );
    });
  });

  describe(`${name}: defaults and the era callback`, () => {
    test("nesting: 64 levels are handed on, 65 are answered 400 nested-too-deeply with the id kept", async () => {
      const host = await make();
      try {
        const call = (levels: number) =>
          `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"d":${"[".repeat(levels - 3)}${"]".repeat(levels - 3)}}}}`;
        assert.equal((await host.post([call(64)])).status, 200);
        const deep = await host.post([call(65)]);
        assert.equal(deep.status, 400);
        assert.deepEqual([deep.answer?.id, deep.answer?.error.code], [3, -32600]);
        assert.match(deep.answer?.error.message ?? "", /limit of 64 levels/);
        assert.deepEqual(
          host.rejects.map((r) => [r.status, r.reason]),
          [[400, "nested-too-deeply"]],
        );
      } finally {
        await host.close();
      }
    });

    test("an era callback's verdict decides the lane; undefined means legacy", async () => {
      const modern = await make({ era: () => "modern" });
      const unset = await make({ era: () => undefined });
      try {
        const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 });
        const { era, result } = (await modern.post([notification])).handedOn ?? {};
        assert.deepEqual(
          { era, result },
          { era: "modern", result: { outcome: "bypass", kind: "notification", reason: "modern-notification" } },
        );
        const legacy = await unset.post([notification]);
        assert.equal(legacy.status, 400);
        assert.deepEqual(
          unset.rejects.map((r) => [r.era, r.kind]),
          [["legacy", "notification"]],
        );
      } finally {
        await modern.close();
        await unset.close();
      }
    });
  });
}

describe("the answers' words and the options' checks", () => {
  test("each refusal says why in a fixed message that quotes nothing of the body", async () => {
    const host = fetchHost({ limits: { maxBodyBytes: 64 } });
    const message = async (chunks: string[], headers?: Record<string, string>) => (await host.post(chunks, headers)).answer?.error.message;
    assert.equal(await message(["{}"], { "Content-Type": "text/plain" }), "Unsupported Media Type: Content-Type must be application/json");
    assert.equal(await message(["x".repeat(65)]), "Payload Too Large: the body exceeds the limit of 64 bytes");
    assert.equal(await message(['{"leak":']), "Parse error: the body is not valid JSON");
    const deep = fetchHost({ limits: { maxDepth: 2 } });
    const answer = (await deep.post(['{"id":"d","a":{"b":{}}}'])).answer;
    assert.deepEqual(answer, {
      jsonrpc: "2.0",
      id: "d",
      error: { code: -32600, message: "Invalid Request: the body nests arrays and objects deeper than the limit of 2 levels" },
    });
  });

  test("Content-Type: application/json with any parameters, a charset label of any value included, in any case and spacing", async () => {
    const host = fetchHost();
    const accepted = [
      "application/json",
      " APPLICATION/JSON ",
      "application/json ; charset=utf-8",
      "application/json; charset = utf-8",
      "application/json;charset=UTF8",
      'application/json; Charset="utf-8"',
      "application/json; profile=x",
      "application/json; flag",
      "application/json; charsetx",
      // The label is not read, as the SDK alone does not read it: the bytes are judged as strict UTF-8.
      "application/json; charset=utf-16",
      "application/json; charset=iso-8859-1",
      "application/json; charset=",
      'application/json; charset=x"utf-8"',
    ];
    for (const type of accepted) assert.equal((await host.post([toolsList], { "Content-Type": type })).status, 200, type);
    const refused = ["", "application/json-seq", "text/json", "application/json,application/json", "text/plain; charset=utf-8"];
    for (const type of refused) assert.equal((await host.post([toolsList], { "Content-Type": type })).status, 415, JSON.stringify(type));
  });

  test("a charset label other than UTF-8 does not change how the bytes are read: invalid UTF-8 is -32700, UTF-16 bytes too", async () => {
    const guard = wymcpFetch();
    const answer = async (body: Uint8Array, type: string) => {
      const response = await guard(new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "Content-Type": type }, body }));
      return [response?.status, ((await response?.json()) as JsonRpcErrorResponse | undefined)?.error.code];
    };
    const latin1 = new Uint8Array([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"'), 0xe9, ...Buffer.from('"}}')]);
    assert.deepEqual(await answer(latin1, "application/json; charset=iso-8859-1"), [400, -32700]);
    assert.deepEqual(await answer(new Uint8Array(Buffer.from(toolsList, "utf16le")), "application/json; charset=utf-16le"), [400, -32700]);
  });

  test("bytes that are not UTF-8 are a parse error, not decoded with replacement characters", async () => {
    const rejects: RejectInfo[] = [];
    const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: JSON_TYPE, body: new Uint8Array([0x22, 0xff, 0x22]) });
    const response = await wymcpFetch({ onReject: (info) => rejects.push(info) })(request);
    assert.equal(response?.status, 400);
    assert.deepEqual(
      rejects.map((r) => [r.reason, (r.response as JsonRpcErrorResponse).error.code]),
      [["parse-error", -32700]],
    );
  });

  test("a declared Content-Length decides on its own: over the limit is 413 whatever arrives, exactly the limit is read", async () => {
    const host = fetchHost({ limits: { maxBodyBytes: LIMIT } });
    assert.equal((await host.post([toolsList], { ...JSON_TYPE, "Content-Length": String(LIMIT + 1) })).status, 413);
    assert.equal((await host.post([toolsList], { ...JSON_TYPE, "Content-Length": String(LIMIT) })).status, 200);
  });

  test("a Content-Length that is no number is ignored: the stream's length decides", async () => {
    const host = fetchHost({ limits: { maxBodyBytes: LIMIT } });
    const headers = { ...JSON_TYPE, "Content-Length": "lots" };
    assert.equal((await host.post([toolsList], headers)).status, 200);
    assert.equal((await host.post([`${toolsList} `], headers)).status, 413);
  });

  test("a streamed body arrives whole: bytes split anywhere, even inside a character, are joined in order", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "é✓", method: "tools/list" });
    const bytes = new TextEncoder().encode(body);
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: JSON_TYPE,
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    const guard = wymcpFetch();
    assert.equal(await guard(request), undefined);
    assert.deepEqual(wymcpOf(request)?.body, JSON.parse(body));
  });

  test("maxDepth must be a positive integer or Infinity, checked when the middleware is built", () => {
    for (const maxDepth of [0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY]) {
      // One error class for every option (WymcpOptionError), still a RangeError as this check always threw.
      assert.throws(() => wymcpFetch({ limits: { maxDepth: maxDepth } }), {
        name: "WymcpOptionError",
        message: `wymcp: limits.maxDepth must be a positive integer or Infinity, not ${maxDepth} (a number)`,
      });
      assert.throws(() => wymcpNode({ limits: { maxDepth: maxDepth } }), RangeError);
    }
    for (const maxDepth of [1, 64, Number.POSITIVE_INFINITY, undefined])
      assert.doesNotThrow(() => wymcpFetch({ limits: { maxDepth: maxDepth } }));
  });

  test("maxDepth Infinity turns the bound off; maxDepth 1 allows only a flat message", async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":${"[".repeat(500)}${"]".repeat(500)}}}`;
    assert.equal((await fetchHost({ limits: { maxDepth: Number.POSITIVE_INFINITY } }).post([deep])).status, 200);
    const flat = fetchHost({ limits: { maxDepth: 1 } });
    assert.equal((await flat.post(['{"jsonrpc":"2.0","id":1,"method":"m"}'])).status, 200);
    assert.equal((await flat.post(['{"jsonrpc":"2.0","id":1,"method":"m","params":{}}'])).status, 400);
  });

  test("an onReject that throws does not stop the answer (wymcpFetch)", async () => {
    const guard = wymcpFetch({
      onReject: () => {
        throw new Error("logger down");
      },
    });
    const response = await guard(new Request("http://127.0.0.1/mcp", { method: "POST", headers: JSON_TYPE, body: "nope" }));
    assert.equal(response?.status, 400);
  });
});

describe("wymcpNode after a body parser (req.body already set)", () => {
  /** A server whose first middleware sets req.body to `parsed`, as express.json() does, whatever bytes came. */
  async function withParsed(parsed: unknown, options: NodeOptions, use: (url: string) => Promise<void>) {
    const guard = wymcpNode(options);
    const server = http.createServer((req, res) => {
      (req as http.IncomingMessage & { body?: unknown }).body = parsed;
      void guard(req, res, () => {
        res.writeHead(200, JSON_TYPE);
        res.end(JSON.stringify({ handedOn: req.wymcp }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
  const post = (url: string, headers: Record<string, string> = JSON_TYPE) =>
    fetch(url, { method: "POST", headers, body: "ignored: the parsed body counts" });

  test("the parsed body is judged, not the bytes: no size limit or parse error applies to it", async () => {
    const rejects: RejectInfo[] = [];
    await withParsed(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { limits: { maxBodyBytes: 1 }, onReject: (i) => rejects.push(i) },
      async (url) => {
        const res = await post(url);
        assert.equal(res.status, 200);
        assert.deepEqual(((await res.json()) as { handedOn: WymcpInfo }).handedOn.result, {
          outcome: "pass",
          kind: "request",
          definition: "ListToolsRequest",
          revision: "2025-03-26",
        });
        assert.equal((await post(url, { "Content-Type": "text/plain" })).status, 415);
      },
    );
    assert.deepEqual(
      rejects.map((r) => r.reason),
      ["unsupported-media-type"],
    );
  });

  test("a parsed body is held to the nesting bound and judged in the era the callback gives", async () => {
    const rejects: RejectInfo[] = [];
    await withParsed(
      { jsonrpc: "2.0", id: 4, method: "m", params: { a: [[[]]] } },
      { limits: { maxDepth: 3 }, era: () => "modern", onReject: (i) => rejects.push(i) },
      async (url) => {
        const res = await post(url);
        assert.equal(res.status, 400);
        assert.equal(((await res.json()) as JsonRpcErrorResponse).id, 4);
      },
    );
    await withParsed({ jsonrpc: "2.0", id: 5, result: {} }, { era: () => "modern", onReject: (i) => rejects.push(i) }, async (url) => {
      assert.equal((await post(url)).status, 400);
    });
    assert.deepEqual(
      rejects.map((r) => [r.reason, r.era, r.kind]),
      [
        ["nested-too-deeply", undefined, undefined],
        ["invalid-message", "modern", "response"],
      ],
    );
  });
});

describe("the default limits", () => {
  test("both adapters export 4 MiB and 64 levels as DEFAULT_MAX_BODY_BYTES and DEFAULT_MAX_DEPTH", () => {
    for (const entry of [nodeEntry, fetchEntry]) {
      assert.equal(entry.DEFAULT_MAX_BODY_BYTES, 4 * 1024 * 1024);
      assert.equal(entry.DEFAULT_MAX_DEPTH, 64);
    }
  });

  test("wymcpFetch() with no options reads a streamed body of exactly 4 MiB and answers 413 to one byte more", async () => {
    const host = fetchHost();
    const padded = toolsList.padEnd(fetchEntry.DEFAULT_MAX_BODY_BYTES, " ");
    assert.equal((await host.post([padded.slice(0, 1 << 20), padded.slice(1 << 20)])).status, 200);
    assert.equal((await host.post([padded, " "])).status, 413);
  });
});

describe("an era callback that throws", () => {
  test("wymcpFetch: the guard's promise rejects with the callback's error, and nothing is answered or reported", async () => {
    const rejects: RejectInfo[] = [];
    const broken = new Error("era lookup failed");
    const guard = wymcpFetch({
      era: () => {
        throw broken;
      },
      onReject: (info) => rejects.push(info),
    });
    const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: JSON_TYPE, body: toolsList });
    await assert.rejects(guard(request), (error) => error === broken);
    assert.equal(wymcpOf(request), undefined);
    assert.deepEqual(rejects, []);
  });

  test("wymcpNode: the error goes to next(error), Connect's convention, and nothing is answered", async () => {
    const broken = new Error("era lookup failed");
    const guard = wymcpNode({
      era: () => {
        throw broken;
      },
    });
    const server = http.createServer((req, res) => {
      void guard(req, res, (error?: unknown) => {
        res.writeHead(error === broken ? 500 : 200);
        res.end(error === broken ? "next(error)" : "handed on");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
        method: "POST",
        headers: JSON_TYPE,
        body: toolsList,
      });
      assert.deepEqual([res.status, await res.text()], [500, "next(error)"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
