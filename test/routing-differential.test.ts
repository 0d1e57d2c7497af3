import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { test } from "node:test";
import { toWebRequest } from "@modelcontextprotocol/node";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { classifyEra, type EraSignal } from "wymcp";

/** 12,000; the mutation run asks for fewer (test/mutation/era.ts), as it runs this once per surviving mutant. */
const VARIANTS = Number(process.env.WYMCP_ROUTING_VARIANTS ?? 12_000);
const SEED = 15;
const CLAIM = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** A JSON token written as is (a number JSON.stringify would not produce: `1e999`, `9007199254740993`). */
const raw = (text: string) => `@@raw:${text}@@`;
const ABSENT = Symbol("absent");
type Maybe<T> = T | typeof ABSENT;

function withMembers(members: Record<string, Maybe<unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== ABSENT));
}

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(fc.constant<typeof ABSENT>(ABSENT), arbitrary);

const revision = fc.constantFrom("2026-07-28", "2027-01-01", "2025-11-25", "2025-06-18", "2024-11-05");
const oddRevision = fc.constantFrom(
  "latest",
  "",
  "9",
  "1",
  "abc",
  " 2026-07-28",
  "2026-07-28 ",
  "2026-7-28",
  "2026-07-28T00:00",
  "2026-07-27",
  "2026-07-29",
  "2025-11-25, 2026-07-28",
);
const claim = fc.oneof(
  { weight: 4, arbitrary: revision },
  { weight: 2, arbitrary: oddRevision },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(1, 2026, 1.5, 0, null, true, false, [], ["2026-07-28"], {}, { v: "2026-07-28" }, raw("1e999")),
  },
);
const jsonObject = fc.constantFrom<unknown>({}, { a: 1 }, { a: { b: [1, "x", null] } }, { a: raw("1e999") });
const capabilities = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      {},
      { roots: { listChanged: true } },
      { sampling: {} },
      { elicitation: {} },
      { elicitation: { form: {}, url: {} } },
      { tasks: 5 },
      { experimental: { x: {} } },
      { extensions: { "a/b": { c: 1 } } },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      [],
      "all",
      1,
      { roots: { listChanged: "yes" } },
      { roots: [] },
      { sampling: [] },
      { sampling: { tools: 1 } },
      { elicitation: { form: { applyDefaults: 1 } } },
      { elicitation: { url: [] } },
      { elicitation: [] },
      { experimental: { x: 1 } },
      { experimental: [] },
      { extensions: { x: null } },
    ),
  },
  { weight: 1, arbitrary: jsonObject.map((value) => ({ experimental: { x: value }, elicitation: { form: value } })) },
);
const clientInfo = fc.constantFrom<unknown>(
  { name: "c", version: "1" },
  { name: "c", version: "1", title: "C", icons: [{ src: "https://x/i.png", sizes: ["16x16"], theme: "dark" }] },
  { name: "c" },
  { name: 1, version: "1" },
  { name: "c", version: "1", icons: [{ src: "x", theme: "blue" }] },
  { name: "c", version: "1", icons: {} },
  null,
);
/** A `_meta`; `framed` keeps the members the JSON-RPC framing itself types (progress token, task link) well-typed. */
const metaOf = (framed: boolean) =>
  fc
    .record({
      claim: fc.oneof({ weight: 3, arbitrary: claim }, fc.constant<typeof ABSENT>(ABSENT)),
      capabilities: maybe(capabilities),
      info: maybe(clientInfo),
      level: maybe(fc.constantFrom<unknown>("info", "emergency", "loud", 3)),
      progress: maybe(framed ? fc.constantFrom<unknown>(1, "t") : fc.constantFrom<unknown>(1.5, null, raw("9007199254740993"))),
      task: maybe(framed ? fc.constant<unknown>({ taskId: "t" }) : fc.constantFrom<unknown>({ taskId: 1 }, null)),
      other: maybe(fc.constantFrom<unknown>(1, { nested: true }, "x")),
    })
    .map(({ claim, capabilities, info, level, progress, task, other }) =>
      withMembers({
        [CLAIM]: claim,
        [CAPABILITIES]: capabilities,
        "io.modelcontextprotocol/clientInfo": info,
        "io.modelcontextprotocol/logLevel": level,
        progressToken: progress,
        "io.modelcontextprotocol/related-task": task,
        "example.com/other": other,
      }),
    );
const paramsOf = (framed: boolean) =>
  fc
    .record({
      meta: maybe(framed ? metaOf(true) : fc.oneof(metaOf(false), fc.constantFrom<unknown>(null, [], "m"))),
      extra: maybe(fc.constantFrom<unknown>("x", { a: 1 })),
    })
    .map(({ meta, extra }) => withMembers({ _meta: meta, name: extra, protocolVersion: "2025-11-25" }));
const methods = fc.constantFrom(
  "initialize",
  "tools/call",
  "tools/list",
  "server/discover",
  "notifications/initialized",
  "notifications/cancelled",
  "unknown/thing",
);
const goodId = fc.constantFrom<unknown>(1, "a", 0, -3, raw("-0"), raw("1.0"));
const badId = fc.constantFrom<unknown>(null, 1.5, true, {}, raw("9007199254740993"), raw("1e999"));
/** A request or notification the SDK frames as one, so the lane turns on claims and headers. */
const framed = fc
  .record({
    id: maybe(goodId),
    method: methods,
    params: fc.oneof({ weight: 4, arbitrary: paramsOf(true) }, fc.constant<typeof ABSENT>(ABSENT)),
  })
  .map(({ id, method, params }) => withMembers({ jsonrpc: "2.0", id, method, params }));
/** Framing broken in one or more places: version, id, method, params, `_meta` members, an extra key. */
const misframed = fc
  .record({
    jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant<unknown>("2.0") }, fc.constantFrom<unknown>("1.0", 2, ABSENT)),
    id: fc.oneof(goodId, badId, fc.constant<typeof ABSENT>(ABSENT)),
    method: fc.oneof({ weight: 4, arbitrary: methods }, fc.constantFrom<unknown>(5, null, ABSENT)),
    params: fc.oneof(paramsOf(false), paramsOf(true), fc.constantFrom<unknown>(null, [], 5, "p", ABSENT)),
    extra: fc.oneof(fc.constant<typeof ABSENT>(ABSENT), fc.constantFrom<unknown>(1, null)),
  })
  .map(({ jsonrpc, id, method, params, extra }) => withMembers({ jsonrpc, id, method, params, extra }));
/** An `initialize` claiming a modern revision: only a whole, well-typed envelope takes it off the handshake lane. */
const modernInitialize = fc
  .record({ id: goodId, revision: fc.constantFrom("2026-07-28", "2027-01-01"), meta: metaOf(true) })
  .map(({ id, revision, meta }) => ({ jsonrpc: "2.0", id, method: "initialize", params: { _meta: { ...meta, [CLAIM]: revision } } }));
const message = fc.oneof({ weight: 8, arbitrary: framed }, { weight: 2, arbitrary: misframed }, { weight: 2, arbitrary: modernInitialize });
const id = fc.oneof({ weight: 3, arbitrary: goodId }, badId);
const response = fc.oneof(
  fc
    .record({ id, result: fc.constantFrom<unknown>({}, { content: [] }, { _meta: {} }, { _meta: null }, [], 5, null) })
    .map(({ id, result }) => ({ jsonrpc: "2.0", id, result })),
  fc
    .record({
      id: maybe(id),
      error: fc.constantFrom<unknown>(
        { code: -32601, message: "no" },
        { code: 1, message: "x", data: [1] },
        { code: 1.5, message: "x" },
        { code: 1 },
        { code: 1, message: 2 },
        null,
      ),
    })
    .map(({ id, error }) => withMembers({ jsonrpc: "2.0", id, error })),
);
const single = fc.oneof({ weight: 10, arbitrary: message }, { weight: 3, arbitrary: response });
const body = fc.oneof(
  { weight: 20, arbitrary: single },
  { weight: 4, arbitrary: fc.array(single, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(5, "s", null, true, false, 0, [[]], raw("1e999")) },
);

const versionValue = fc.oneof(
  { weight: 3, arbitrary: revision },
  { weight: 2, arbitrary: oddRevision.filter((value) => !value.includes(",")) },
  { weight: 1, arbitrary: fc.constantFrom(" \t2026-07-28\t ", "2025-06-18\t") },
);
const versionHeader = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Record<string, string | string[]>>({}) },
  { weight: 5, arbitrary: versionValue.map((value) => ({ "mcp-protocol-version": value })) },
  { weight: 1, arbitrary: versionValue.map((value) => ({ "MCP-Protocol-Version": value })) },
  // A repeated header (Node gives arrays for some) and two keys that differ only in case.
  { weight: 1, arbitrary: fc.array(versionValue, { maxLength: 3 }).map((values) => ({ "mcp-protocol-version": values })) },
  {
    weight: 1,
    arbitrary: fc.tuple(versionValue, versionValue).map(([a, b]) => ({ "MCP-Protocol-Version": a, "mcp-protocol-version": b })),
  },
);
const variant = fc.record({
  version: versionHeader,
  session: fc.boolean(),
  methodHeader: fc.constantFrom<string | undefined>(undefined, "tools/call", "initialize"),
  asFetchHeaders: fc.boolean(),
  body,
});

function bodyText(value: unknown): string {
  return JSON.stringify(value).replace(/"@@raw:([^@]*)@@"/g, "$1");
}

/** The request the SDK sees: a Fetch Request as given, or built by the SDK's own Node bridge from a Node-shaped request. */
async function sdkRequest(
  headers: Record<string, string | string[]>,
  text: string,
  asFetchHeaders: boolean,
): Promise<{ request: Request; classifierHeaders: Headers | Record<string, string | string[]> }> {
  if (asFetchHeaders) {
    const fetchHeaders = new Headers({ "content-type": "application/json" });
    for (const [name, value] of Object.entries(headers)) for (const item of [value].flat()) fetchHeaders.append(name, item);
    return {
      request: new Request("http://localhost/mcp", { method: "POST", headers: fetchHeaders, body: text }),
      classifierHeaders: fetchHeaders,
    };
  }
  const node = Object.assign(Readable.from([Buffer.from(text)]), {
    method: "POST",
    url: "/mcp",
    headers: { "content-type": "application/json", ...headers },
  });
  return { request: await toWebRequest(node as unknown as IncomingMessage), classifierHeaders: node.headers };
}

test(`classifyEra puts each of ${VARIANTS} generated POSTs in the lane isLegacyRequest routes it to`, async () => {
  const samples = fc.sample(variant, { numRuns: VARIANTS, seed: SEED });
  const disagreements: string[] = [];
  let disagreed = 0;
  const lanes = { legacy: 0, modern: 0 };
  const signals = new Map<EraSignal, number>();
  for (const { version, session, methodHeader, asFetchHeaders, body: value } of samples) {
    const headers: Record<string, string | string[]> = { ...version };
    if (session) headers["mcp-session-id"] = "s-1";
    if (methodHeader !== undefined) headers["mcp-method"] = methodHeader;
    const text = bodyText(value);
    const { request, classifierHeaders } = await sdkRequest(headers, text, asFetchHeaders);
    const sdk = (await isLegacyRequest(request)) ? "legacy" : "modern";
    const ours = classifyEra(classifierHeaders, JSON.parse(text));
    lanes[ours.era]++;
    signals.set(ours.signal, (signals.get(ours.signal) ?? 0) + 1);
    if (ours.era !== sdk && disagreed++ < 20)
      disagreements.push(`sdk ${sdk}, wymcp ${ours.era} (${ours.signal}): ${JSON.stringify(headers)} ${text}`);
  }
  console.log(
    `routing differential: ${samples.length} variants, ${disagreed} disagreements; legacy ${lanes.legacy}, modern ${lanes.modern}; signals ${JSON.stringify(Object.fromEntries(signals))}`,
  );
  assert.deepEqual(disagreements, [], `${disagreed} disagreements, the first shown`);
  // The generator reaches both lanes and every signal a POST can carry, so agreement is not agreement on one case.
  assert.ok(lanes.legacy > VARIANTS / 10 && lanes.modern > VARIANTS / 10, JSON.stringify(lanes));
  for (const signal of [
    "batch",
    "response",
    "not-json-rpc",
    "body-meta",
    "initialize",
    "header-protocol-version",
    "header-session-id",
    "default",
  ] as const) {
    assert.ok((signals.get(signal) ?? 0) > 20, `signal ${signal}: ${signals.get(signal) ?? 0}`);
  }
});
