/**
 * The core's admission stage on its own (src/core/admission.ts), as a new face would call it: each step's verdict as
 * data, each refusal's words from one place, the whole stage composed by `admit`. The hosts' suites
 * (admission.test.ts, check-parity.test.ts) pin the same verdicts through the faces.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  admit,
  admitBytes,
  bodyTooLarge,
  checkMediaType,
  isAcceptedNotification,
  judgeBody,
  nestedTooDeeply,
  parseBody,
  parseError,
  readBody,
  REFUSAL_MESSAGES,
  type RejectInfo,
  reportRefusal,
  unsupportedMediaType,
} from "../src/core/admission.js";
import { eraWithoutBody, resolveLimits } from "../src/options/options.js";
import { reportsOf } from "../src/core/pipeline.js";
import { resolveRules } from "../src/core/rules.js";

const NO_CONTEXT = { hosts: false, versions: false, outbound: false, lock: false };
import { MODERN_META } from "./support/messages.js";

const settings = resolveLimits({ maxBodyBytes: 64, maxDepth: 3 });
const bytes = (text: string) => new TextEncoder().encode(text);
const toolsList = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

describe("each step of the stage", () => {
  test("checkMediaType: undefined for JSON, the 415 refusal otherwise", () => {
    assert.equal(checkMediaType("application/json; charset=utf-8"), undefined);
    assert.deepEqual(checkMediaType("text/plain"), unsupportedMediaType());
    assert.deepEqual(checkMediaType(undefined), {
      ok: false,
      status: 415,
      reason: "unsupported-media-type",
      rule: "limits",
      response: { jsonrpc: "2.0", id: null, error: { code: -32600, message: REFUSAL_MESSAGES.mediaType } },
      era: undefined,
      kind: undefined,
    });
  });

  test("readBody: a declared length over the limit is refused before the source is read", async () => {
    let read = false;
    const source = () => {
      read = true;
      return [bytes(toolsList)];
    };
    assert.deepEqual(await readBody(source, settings, "65"), bodyTooLarge(64));
    assert.equal(read, false);
    assert.deepEqual(await readBody(source, settings, 64), { ok: true, bytes: bytes(toolsList) });
    assert.equal(read, true);
  });

  test("readBody: a streamed body is read up to the limit and no further; a length that is no number is ignored", async () => {
    const pulled: number[] = [];
    async function* chunks() {
      for (let i = 0; i < 100; i++) {
        pulled.push(i);
        yield new Uint8Array(30);
      }
    }
    assert.deepEqual(await readBody(chunks, settings, "lots"), bodyTooLarge(64));
    assert.deepEqual(pulled, [0, 1, 2], "the third chunk passes the limit; nothing after it is pulled");
    assert.equal(bodyTooLarge(64).response.error.message, "Payload Too Large: the body exceeds the limit of 64 bytes");
  });

  test("parseBody: strict UTF-8, then JSON; anything else the fixed -32700", () => {
    assert.deepEqual(parseBody(bytes('{"a":[1]}'), settings), { ok: true, body: { a: [1] } });
    for (const bad of [new Uint8Array([0x22, 0xff, 0x22]), bytes('{"leak":'), bytes("")])
      assert.deepEqual(parseBody(bad, settings), parseError());
    assert.equal(parseError().response.error.code, -32700);
  });

  test("judgeBody: the nesting bound first, with the id kept, before the era is asked", () => {
    let asked = false;
    const era = () => {
      asked = true;
      return "legacy" as const;
    };
    const deep = { jsonrpc: "2.0", id: "d", method: "m", params: { a: [[]] } };
    assert.deepEqual(judgeBody(deep, { era }, settings), nestedTooDeeply(3, "d"));
    assert.equal(asked, false);
    assert.equal(nestedTooDeeply(3, "d").response.error.message, REFUSAL_MESSAGES.tooDeep(3));
  });

  test("judgeBody: a lane given as a string, or by a function of the body; undefined is legacy", () => {
    const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name: 5 } };
    const modern = judgeBody(call, { era: "modern" }, resolveLimits({}));
    assert.equal(modern.ok, false);
    assert.deepEqual(
      modern.ok ? [] : [modern.status, modern.reason, modern.era, modern.kind, modern.definition, modern.response.error.code],
      [400, "invalid-message", "modern", "request", "CallToolRequest", -32602],
    );
    assert.equal("revision" in modern, false, "only a legacy params failure names a revision");
    // The legacy lane in framing mode passes it on its framing; in params mode (the default) its name fails 2025-03-26.
    const framingOnly = { ...resolveLimits({}), rules: resolveRules({ params: "off" }, undefined, NO_CONTEXT) };
    assert.deepEqual(judgeBody(call, { era: () => undefined }, framingOnly), {
      ok: true,
      body: call,
      era: "legacy",
      result: { outcome: "pass", kind: "request", definition: "JSONRPCRequest" },
    });
    const params = judgeBody(call, { era: () => undefined }, resolveLimits({}));
    assert.deepEqual(params.ok ? [] : [params.status, params.era, params.definition, params.revision, params.response.error.code], [
      200,
      "legacy",
      "CallToolRequest",
      "2025-03-26",
      -32602,
    ]);
    assert.equal(judgeBody(call, { era: (body) => (body === call ? "modern" : "legacy") }, resolveLimits({})).era, "modern");
  });

  test("judgeBody passes the request's MCP-Protocol-Version on: a legacy batch is refused under 2025-06-18", () => {
    const batch = [JSON.parse(toolsList)];
    assert.equal(judgeBody(batch, { era: "legacy" }, resolveLimits({})).ok, true);
    const refused = judgeBody(batch, { era: "legacy", protocolVersion: "2025-06-18" }, resolveLimits({}));
    assert.deepEqual(refused.ok ? undefined : [refused.reason, refused.kind], ["invalid-message", "batch"]);
  });
});

describe("admit: the whole stage", () => {
  const exchange = (over: Partial<Parameters<typeof admit>[0]> = {}) => ({
    contentType: "application/json",
    chunks: () => [bytes(toolsList)],
    era: "legacy" as const,
    ...over,
  });

  test("in order: media type, size, parse, nesting, validation", async () => {
    assert.deepEqual(await admit(exchange({ contentType: "text/plain", chunks: () => [bytes("{")] }), settings), unsupportedMediaType());
    assert.deepEqual(await admit(exchange({ contentLength: "65" }), settings), bodyTooLarge(64));
    assert.deepEqual(await admit(exchange({ chunks: () => [bytes("{nope")] }), settings), parseError());
    assert.deepEqual(await admit(exchange({ chunks: () => [bytes('{"id":1,"a":{"b":{"c":{}}}}')] }), settings), nestedTooDeeply(3, 1));
    const accepted = await admit(exchange(), settings);
    assert.deepEqual(accepted, {
      ok: true,
      body: JSON.parse(toolsList),
      era: "legacy",
      result: { outcome: "pass", kind: "request", definition: "ListToolsRequest", revision: "2025-03-26" },
    });
  });

  test("a body the host parsed already is judged as it is: no size limit, no parse", async () => {
    const parsed = { body: JSON.parse(toolsList) };
    const chunks = () => {
      throw new Error("the stream must not be read");
    };
    const verdict = await admit(exchange({ parsed, chunks, contentLength: "999999" }), settings);
    assert.equal(verdict.ok, true);
  });
});

describe("admitBytes: the stage for a body already in memory", () => {
  test("a body of exactly maxBodyBytes is judged; one byte more is refused 413", () => {
    const context = { contentType: "application/json", era: "legacy" as const };
    const atLimit = `${toolsList}${" ".repeat(64 - bytes(toolsList).byteLength)}`;
    assert.equal(bytes(atLimit).byteLength, 64);
    assert.equal(admitBytes(bytes(atLimit), context, settings).ok, true);
    assert.deepEqual(admitBytes(bytes(`${atLimit} `), context, settings), bodyTooLarge(64));
  });

  test("the same verdicts as admit, in the same order, and no promise", async () => {
    const context = { contentType: "application/json", era: "legacy" as const };
    const cases: Array<[string, string, string?]> = [
      ["media type", "{", "text/plain"],
      ["size", `${toolsList}${" ".repeat(64)}`],
      ["parse", "{nope"],
      ["nesting", '{"id":1,"a":{"b":{"c":{}}}}'],
      ["validation", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":5}'],
      ["pass", toolsList],
    ];
    for (const [step, text, contentType] of cases) {
      const body = bytes(text);
      const inMemory = admitBytes(body, { ...context, contentType: contentType ?? context.contentType }, settings);
      assert.ok(!(inMemory instanceof Promise), step);
      const streamed = await admit({ ...context, contentType: contentType ?? context.contentType, chunks: () => [body] }, settings);
      assert.deepEqual(inMemory, streamed, step);
    }
  });
});

describe("what the faces share beside the stage", () => {
  test("reportRefusal tells onReject once, without ok or definition, and swallows its throw", () => {
    const seen: RejectInfo[] = [];
    const refused = judgeBody({ jsonrpc: "1.0", id: 1, method: "x" }, { era: "legacy" }, resolveLimits({}));
    assert.equal(refused.ok, false);
    if (refused.ok) return;
    reportRefusal((info) => seen.push(info), refused);
    assert.deepEqual(seen, [
      { status: 400, reason: "invalid-message", rule: "framing", response: refused.response, era: "legacy", kind: "request" },
    ]);
    assert.doesNotThrow(() =>
      reportRefusal(() => {
        throw new Error("logger down");
      }, refused),
    );
    assert.doesNotThrow(() => reportRefusal(undefined, refused));
  });

  test("a clock (a face with telemetry) times the validation and keeps a refused body; onReject never sees either", () => {
    let now = 10;
    const clocked = { ...resolveLimits({}), clock: () => (now += 0.25) };
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: MODERN_META, name: "x", arguments: "a string" } };
    const refused = judgeBody(call, { era: "modern" }, clocked);
    assert.deepEqual(refused.ok ? undefined : [refused.reason, refused.validationMs, refused.body], ["invalid-message", 0.25, call]);
    const passed = judgeBody({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { era: "legacy" }, clocked);
    assert.deepEqual(passed.ok ? [passed.validationMs, "body" in passed] : undefined, [0.25, true]);
    const deep = { id: "d", a: { b: { c: {} } } };
    const tooDeep = judgeBody(deep, { era: "legacy" }, { ...clocked, maxDepth: 3 });
    assert.deepEqual(tooDeep.ok ? undefined : [tooDeep.reason, tooDeep.body, "validationMs" in tooDeep], [
      "nested-too-deeply",
      deep,
      false,
    ]);
    const seen: RejectInfo[] = [];
    if (!refused.ok) reportRefusal((info) => seen.push(info), refused);
    assert.deepEqual(Object.keys(seen[0] ?? {}).sort(), ["era", "kind", "reason", "response", "rule", "status"]);
    const plain = judgeBody(call, { era: "modern" }, resolveLimits({}));
    assert.deepEqual(["validationMs" in plain, "body" in plain], [false, false], "without a clock the stage reads none and keeps nothing");
  });

  test("reportsOf: a params failure in report is handed on, and its one report names the rule and what onReject would have heard", () => {
    const reportMode = { ...resolveLimits({}), rules: resolveRules({ params: "report" }, undefined, NO_CONTEXT) };
    const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: 5 } };
    const admitted = judgeBody(call, { era: "legacy" }, reportMode);
    if (!admitted.ok) assert.fail("report mode hands a params failure on");
    const seen = reportsOf(admitted) ?? [];
    assert.equal(seen.length, 1);
    assert.deepEqual(
      { ...seen[0], message: undefined, errors: undefined },
      {
        rule: "params",
        direction: "in",
        era: "legacy",
        method: "tools/call",
        id: 5,
        client: undefined,
        status: 200,
        code: -32602,
        message: undefined,
        errors: undefined,
      },
    );
    assert.match(seen[0]!.message, /CallToolRequest/);
    // Nothing to report: a pass, a bypass (a legacy response).
    for (const body of [JSON.parse(toolsList), { jsonrpc: "2.0", id: 1, result: {} }]) {
      const other = judgeBody(body, { era: "legacy" }, reportMode);
      if (other.ok) assert.equal(reportsOf(other), undefined);
    }
  });

  test("isAcceptedNotification: a modern notification only, not a legacy response or a pass", () => {
    assert.equal(isAcceptedNotification({ outcome: "bypass", kind: "notification", reason: "modern-notification" }), true);
    assert.equal(isAcceptedNotification({ outcome: "bypass", kind: "response", reason: "legacy-response" }), false);
    assert.equal(isAcceptedNotification({ outcome: "pass", kind: "notification", definition: "JSONRPCNotification" }), false);
  });

  test("eraWithoutBody: the option's era for no body; legacy when it gives none or throws", () => {
    assert.equal(
      eraWithoutBody(() => "modern", {}),
      "modern",
    );
    assert.equal(
      eraWithoutBody(() => undefined, {}),
      "legacy",
    );
    assert.equal(
      eraWithoutBody(() => {
        throw new Error("broken");
      }, {}),
      "legacy",
    );
    let seenBody: unknown = "unset";
    eraWithoutBody((_request, body) => {
      seenBody = body;
      return "legacy";
    }, {});
    assert.equal(seenBody, undefined);
  });
});
