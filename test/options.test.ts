/**
 * Options fail closed: every face checks its options once, when it is built, and a bad one throws WymcpOptionError
 * naming the option and the value's type. Before, `maxBodyBytes: NaN` or `"1mb"` switched the size check off (every
 * comparison with NaN is false), and the guards judged everything legacy when `era` was left out.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import { describe, test } from "node:test";
import { WymcpOptionError as CoreOptionError } from "wymcp";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, resolveOptions } from "../src/options/options.js";
import { gateFetch, WymcpOptionError, wymcpFetch } from "wymcp/fetch";
import { gateNode, WymcpOptionError as NodeOptionError, wymcpNode } from "wymcp/node";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";

const handler = { fetch: async () => new Response(null, { status: 204 }) };

/** Every face, built with `options`. */
const FACES: Array<[string, (options: Record<string, unknown>) => unknown, readonly string[]]> = [
  ["wymcpNode", (o) => wymcpNode(o as never), ["discardTimeoutMs"]],
  ["gateNode", (o) => gateNode(handler, o as never), ["discardTimeoutMs", "onError"]],
  ["wymcpFetch", (o) => wymcpFetch(o as never), []],
  ["gateFetch", (o) => gateFetch(handler, o as never), ["onError", "authInfo"]],
];

/** [option, value, the words the message must hold] */
const BAD: Array<[string, unknown, string]> = [
  ["limits.maxBodyBytes", Number.NaN, "limits.maxBodyBytes must be a positive integer, not NaN (a number)"],
  ["limits.maxBodyBytes", "1mb", 'limits.maxBodyBytes must be a positive integer, not "1mb" (a string)'],
  ["limits.maxBodyBytes", 0, "limits.maxBodyBytes must be a positive integer, not 0 (a number)"],
  ["limits.maxBodyBytes", -1, "not -1 (a number)"],
  ["limits.maxBodyBytes", 1.5, "not 1.5 (a number)"],
  ["limits.maxBodyBytes", Number.POSITIVE_INFINITY, "limits.maxBodyBytes must be a positive integer, not Infinity (a number)"],
  ["limits.maxBodyBytes", null, "not null"],
  ["limits.maxBodyBytes", 2 ** 53, "not 9007199254740992 (a number)"],
  ["limits.maxDepth", Number.NaN, "limits.maxDepth must be a positive integer or Infinity, not NaN (a number)"],
  ["limits.maxDepth", "64", 'limits.maxDepth must be a positive integer or Infinity, not "64" (a string)'],
  ["limits", 5, "limits must be an object, not 5 (a number)"],
  ["era", "Modern", 'era must be "legacy", "modern" or a function, not "Modern" (a string)'],
  ["era", 5, "not 5 (a number)"],
  ["onReject", "console", "onReject must be a function, not"],
  ["onReport", "console", 'onReport must be a function, not "console" (a string)'],
  ["mode", "shadow", 'mode must be "enforce" or "report", not "shadow"'],
  ["mode", "reprot", 'mode must be "enforce" or "report", not "reprot" (did you mean "report"?)'],
  ["rules.params", "strict", 'rules.params must be "enforce", "report" or "off", not "strict"'],
  ["rules.formats", true, 'rules.formats must be "enforce", "report" or "off", not boolean'],
  ["rules.header", "off", 'unknown rule "header" (did you mean "headers"?)'],
  ["rules.origin", "enforce", 'rules.origin: "enforce" needs allow.hosts or allow.origins'],
  ["rules.lock", "report", 'rules.lock: "report" needs tools.lock'],
  ["allow.versions", ["next"], "allow.versions must be a non-empty array of YYYY-MM-DD revisions"],
  ["allow.hosts", [""], "allow.hosts must be an array of non-empty strings"],
  ["allow.host", ["localhost"], 'unknown option "allow.host" (did you mean "hosts"?)'],
  ["outbound", "report", 'outbound must be the check (validateMcpResponse from "wymcp/outbound"), not "report" (a string)'],
  ["tools.lern", true, 'unknown option "tools.lern" (did you mean "learn"?)'],
  ["telemetry", "otel", 'telemetry must be an object with a judged method (mcpTelemetry() from "wymcp/otel"), not "otel" (a string)'],
  ["maxBodySize", 1024, 'unknown option "maxBodySize"'],
  ["maxBodyBytes", 1024, 'unknown option "maxBodyBytes" (now limits.maxBodyBytes)'],
  ["legacyChecks", "report", 'unknown option "legacyChecks" (now rules.params)'],
  ["toolsLock", {}, 'unknown option "toolsLock" (now tools.lock)'],
  ["onToolDrift", () => undefined, 'unknown option "onToolDrift" (now onReport)'],
  ["limits.maxBodyByte", 1024, 'unknown option "limits.maxBodyByte" (did you mean "maxBodyBytes"?)'],
];

/** `{ a: { b: value } }` for the path `a.b`. */
function optionAt(path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split(".");
  return { [head!]: rest.length === 0 ? value : optionAt(rest.join("."), value) };
}

describe("every face refuses a bad option when it is built", () => {
  for (const [face, build, own] of FACES) {
    for (const [option, value, words] of BAD) {
      test(`${face}({ ${option}: ${typeof value === "string" ? JSON.stringify(value) : String(value)} }) throws WymcpOptionError`, () => {
        assert.throws(
          () => build(optionAt(option, value)),
          (error: unknown) => {
            assert.ok(error instanceof WymcpOptionError, String(error));
            assert.ok(error instanceof RangeError);
            assert.equal(error.name, "WymcpOptionError");
            assert.equal((error as WymcpOptionError).option, option);
            assert.ok(error.message.startsWith("wymcp: "), error.message);
            assert.ok(error.message.includes(words), `${error.message} should say ${words}`);
            return true;
          },
        );
      });
    }
    if (own.includes("discardTimeoutMs")) {
      test(`${face}: discardTimeoutMs must be a positive integer (Infinity would fire setTimeout at once)`, () => {
        for (const value of [Number.NaN, 0, "5s", Number.POSITIVE_INFINITY])
          assert.throws(() => build({ limits: { discardTimeoutMs: value } }), {
            name: "WymcpOptionError",
            message: /limits\.discardTimeoutMs must be a positive integer/,
          });
        assert.doesNotThrow(() => build({ limits: { discardTimeoutMs: 1 } }));
      });
    }
    for (const hook of own.filter((o) => o === "onError" || o === "authInfo")) {
      test(`${face}: ${hook} must be a function`, () => {
        assert.throws(() => build({ [hook]: "log" }), {
          name: "WymcpOptionError",
          message: new RegExp(`${hook} must be a function, not "log" \\(a string\\)`),
        });
      });
    }
    test(`${face}: telemetry must be an observer with a judged method (the factory itself, an empty object, null are refused)`, () => {
      const factory = () => ({ judged: () => undefined });
      for (const [value, words] of [
        [factory, "not a function"],
        [Object.assign(() => undefined, { judged: () => undefined }), "not a function"],
        [{}, "not an object"],
        [{ judged: "yes" }, "not an object"],
        [null, "not null"],
        [true, "not a boolean"],
      ] as const)
        assert.throws(
          () => build({ telemetry: value }),
          (error: unknown) =>
            error instanceof WymcpOptionError &&
            error.option === "telemetry" &&
            error.message.includes(`telemetry must be an object with a judged method`) &&
            error.message.endsWith(words),
        );
      assert.doesNotThrow(() => build({ telemetry: factory() }));
      assert.doesNotThrow(() => build({ telemetry: undefined }));
      // Its optional up-front check too: a value that is no method would silently turn telemetry off.
      assert.throws(() => build({ telemetry: { ...factory(), recording: false } }), {
        name: "WymcpOptionError",
        option: "telemetry",
        message: "wymcp: telemetry's recording must be a method, not a boolean",
      });
      assert.doesNotThrow(() => build({ telemetry: { ...factory(), recording: () => false } }));
    });
    test(`${face}: options that are not an object are refused; valid ones and none at all are not`, () => {
      assert.throws(() => build(5 as never), {
        name: "WymcpOptionError",
        option: "options",
        message: /the options must be an object, not 5 \(a number\)/,
      });
      assert.doesNotThrow(() => build({}));
      assert.doesNotThrow(() =>
        build({ limits: { maxBodyBytes: 1, maxDepth: Number.POSITIVE_INFINITY }, era: "modern", onReject: () => undefined }),
      );
      for (const state of ["enforce", "report", "off"]) assert.doesNotThrow(() => build({ rules: { params: state } }), state);
      assert.doesNotThrow(() => build({ mode: "report", allow: { hosts: ["localhost"], versions: ["2026-07-28"] } }));
      for (const formats of ["enforce", "report", "off"]) assert.doesNotThrow(() => build({ rules: { formats } }), formats);
      if (face.startsWith("wymcp"))
        assert.throws(() => build({ onError: () => undefined }), { name: "WymcpOptionError", message: /unknown option "onError"/ });
    });
  }

  test("resolveOptions, as every face calls it: no options object at all is every default", () => {
    const resolved = resolveOptions(undefined, { keys: [], headersOf: () => undefined });
    assert.deepEqual(resolved.settings, {
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      maxDepth: DEFAULT_MAX_DEPTH,
      rules: {
        origin: "off",
        limits: "enforce",
        framing: "enforce",
        params: "enforce",
        formats: "off",
        headers: "enforce",
        versions: "report",
        lock: "off",
        paramHeaders: "enforce",
        toolArguments: "enforce",
        outbound: "off",
      },
    });
    assert.equal(resolved.onReject, undefined);
    assert.equal(resolved.onReport, undefined);
    assert.equal(resolved.era(undefined, { jsonrpc: "2.0", id: 1, method: "tools/list" }), "legacy");
  });

  test("the message shows a number or a short string itself, and of anything else only its type", () => {
    const message = (options: Record<string, unknown>) => {
      try {
        wymcpFetch(options as never);
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    assert.equal(message({ limits: { maxBodyBytes: [1] } }), "wymcp: limits.maxBodyBytes must be a positive integer, not an array");
    assert.equal(
      message({ limits: { maxBodyBytes: { bytes: 1 } } }),
      "wymcp: limits.maxBodyBytes must be a positive integer, not an object",
    );
    assert.equal(message({ limits: { maxBodyBytes: true } }), "wymcp: limits.maxBodyBytes must be a positive integer, not a boolean");
    assert.equal(
      message({ limits: { maxDepth: () => 64 } }),
      "wymcp: limits.maxDepth must be a positive integer or Infinity, not a function",
    );
    assert.equal(message({ limits: { maxBodyBytes: 10n } }), "wymcp: limits.maxBodyBytes must be a positive integer, not a bigint");
    assert.equal(
      message({ limits: { maxBodyBytes: "x".repeat(100) } }),
      `wymcp: limits.maxBodyBytes must be a positive integer, not "${"x".repeat(40)}…" (a string)`,
    );
    assert.equal(
      message({ limits: { maxBodyBytes: "y".repeat(40) } }),
      `wymcp: limits.maxBodyBytes must be a positive integer, not "${"y".repeat(40)}" (a string)`,
    );
  });

  test("an unknown option is named with every option the face takes; one face's own option is unknown to another", () => {
    assert.throws(() => wymcpFetch({ maxBodySize: 1 } as never), {
      name: "WymcpOptionError",
      message:
        'wymcp: unknown option "maxBodySize"; this face takes era, limits, mode, rules, allow, onReject, onReport, tools, outbound, telemetry',
    });
    assert.throws(() => wymcpFetch({ limits: { discardTimeoutMs: 1 } } as never), { message: /unknown option "limits.discardTimeoutMs"/ });
    // The server's tools are checked when the face is built too.
    assert.throws(() => gateNode(handler, { tools: 5 } as never), { message: "wymcp: tools must be an object, not 5 (a number)" });
    assert.throws(() => wymcpFetch({ tools: { learn: "yes" } } as never), { message: /tools.learn must be a boolean/ });
    assert.throws(() => gateNode(handler, { authInfo: () => undefined } as never), { message: /unknown option "authInfo"/ });
    assert.doesNotThrow(() => gateFetch(handler, { authInfo: () => undefined, onError: () => undefined }));
    assert.throws(() => wymcpNode([] as never), { message: "wymcp: the options must be an object, not an array" });
    assert.throws(() => wymcpNode(null as never), { message: "wymcp: the options must be an object, not null" });
  });

  test("era takes either lane by name", async () => {
    const call = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name: 5 } });
    const post = () => new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: call });
    assert.equal(await wymcpFetch({ era: "legacy", rules: { params: "off" } })(post()), undefined, "framing only");
    // The legacy lane's params checks (the default) judge it by 2025-03-26: a numeric name, answered 200/-32602.
    assert.equal((await wymcpFetch({ era: "legacy" })(post()))?.status, 200);
    assert.equal((await wymcpFetch({ era: "modern" })(post()))?.status, 400);
  });

  test("the error class is one: the core entry's, the Node entry's and the Fetch entry's are the same class", () => {
    assert.equal(WymcpOptionError, CoreOptionError);
    assert.equal(NodeOptionError, CoreOptionError);
  });
});

describe("a limit is never silently off", () => {
  test("wymcpFetch: maxBodyBytes NaN or '1mb' cannot be built, so a 10 MB body cannot pass through such a guard", async () => {
    for (const maxBodyBytes of [Number.NaN, "1mb"])
      assert.throws(() => wymcpFetch({ limits: { maxBodyBytes: maxBodyBytes as number } }), WymcpOptionError);
    // The default, by contrast, answers the 10 MB body 413.
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${"x".repeat(10 * 1024 * 1024)}"}}`;
    const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal((await wymcpFetch()(request))?.status, 413);
  });
});

describe("every face defaults to the SDK's routing", () => {
  const badModernCall = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name: 5 } });
  const headers = { "content-type": "application/json", "mcp-protocol-version": "2026-07-28" };

  test("wymcpFetch() without era: a modern tools/call with a numeric name is answered 400/-32602, not handed on", async () => {
    const guard = wymcpFetch();
    const answer = await guard(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: badModernCall }));
    assert.equal(answer?.status, 400);
    const json = (await answer!.json()) as { id: unknown; error: { code: number; data: { errors: Array<{ instancePath: string }> } } };
    assert.deepEqual([json.id, json.error.code], [5, -32602]);
    assert.ok(json.error.data.errors.some((e) => e.instancePath === "/params/name"));
  });

  test("wymcpNode() without era: the same call is answered 400/-32602 and next() is never called", async () => {
    const guard = wymcpNode();
    let handedOn = false;
    const server = await listening(
      http.createServer((req, res) => {
        void guard(req, res, () => {
          handedOn = true;
          res.writeHead(200).end();
        });
      }),
    );
    try {
      const answer = await rawPost(server.url, headers, badModernCall);
      assert.equal(answer.status, 400);
      assert.equal((JSON.parse(answer.text) as { error: { code: number } }).error.code, -32602);
      assert.equal(handedOn, false);
    } finally {
      await server.close();
    }
  });

  test("a request with no signal is still legacy: with framing checks the same call without _meta or header passes", async () => {
    const legacy = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: 5 } });
    const request = () =>
      new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: legacy });
    assert.equal(await wymcpFetch({ rules: { params: "off" } })(request()), undefined);
    // With the params checks (the default), judged legacy by 2025-03-26's CallToolRequest, not as the modern call it lacks.
    const answer = await wymcpFetch()(request());
    assert.equal(answer?.status, 200);
    assert.match(((await answer!.json()) as { error: { message: string } }).error.message, /CallToolRequest, revision 2025-03-26/);
  });
});

describe("a gate built without a handler throws when it is built, never on the first request", () => {
  for (const [face, build] of [
    ["gateNode", (handler: unknown) => gateNode(handler as never)],
    ["gateFetch", (handler: unknown) => gateFetch(handler as never)],
  ] as const) {
    for (const handler of [undefined, null, {}, { fetch: "no" }]) {
      test(`${face}(${JSON.stringify(handler) ?? "undefined"}) throws WymcpOptionError naming the handler`, () => {
        assert.throws(() => build(handler), { name: "WymcpOptionError", message: /needs (the SDK's handler|a handler)/ });
      });
    }
  }
});
