import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { replaceSection, writeDocSection } from "../scripts/doc-sections.js";
import { toolsFromFlags } from "../src/cli/tools-flags.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { createLog } from "../src/log/gate-log.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gateFetch } from "../src/fetch.js";
import { gateNode } from "../src/node-http.js";
import type { ArgumentsValidator, ToolSchemaCompiler } from "../src/tools/tools-at-edge.js";
import { baseKind, type FormatTools, pythonFormatTools, zodFormatTools } from "./support/format-tools.js";
import { updatingGoldens } from "./support/golden.js";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import { startProxy } from "./support/proxy.js";
import { startMcpServerHttp } from "./support/python-servers.js";
import { transportHeaders } from "./support/transport-headers.js";
import { repoRoot } from "./support/spec.js";

const DOC = join(repoRoot, "docs", "validation.md");
const COUNTS = "tool-formats:counts";

/** What clients send for each kind: the canonical form, and the forms an SDK's own parser also takes. */
const VALUES: Record<string, string[]> = {
  datetime: [
    "2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00+02:00",
    "2024-05-01T10:00:00.123456789+02:00",
    "2024-05-01T10:00:00",
    "2024-05-01T10:00",
    "2024-05-01 10:00:00",
    "2024-05-01",
    "1714557600",
    "20240501T100000",
  ],
  date: ["2024-05-01", "2024-02-29", "2024-05-01T00:00:00", "2024-5-1", "20240501", "2023-02-29"],
  time: ["10:20:30Z", "10:20:30+02:00", "10:20:30.5+02:00", "10:20:30", "10:20", "102030", "10", "24:00:00"],
  uuid: [
    "123e4567-e89b-12d3-a456-426614174000",
    "123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000",
    "{123e4567-e89b-12d3-a456-426614174000}",
    "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
    "00000000-0000-0000-0000-000000000000",
    "123e4567-e89b-02d3-a456-426614174000",
  ],
  email: ["jose@example.com", "a@b.co", "José <jose@example.com>", "josé@example.com", "jose@localhost", "jose@例え.jp"],
  url: [
    "https://example.com/path",
    "http://localhost:8080",
    "https://example.com/a b",
    "https://example.com/ä",
    "https://例え.jp/",
    "mailto:a@b.c",
    "file:///tmp/x",
    "http://[::1]/",
    "example.com",
  ],
  ipv4: ["192.168.0.1", "0.0.0.0", "255.255.255.255", "01.2.3.4", "1.2.3", "256.1.1.1"],
  ipv6: ["::1", "2001:db8::1", "2001:DB8::1", "::ffff:192.168.0.1", "fe80::1%eth0", "1::2::3"],
};

interface Row {
  sdk: string;
  kind: string;
  format: string;
  accepted: number;
  refusedByDefault: string[];
  refusedByStrict: string[];
}

let served: FormatTools;
const rows: Row[] = [];

before(async () => {
  const [python, zod] = await Promise.all([pythonFormatTools(VALUES), zodFormatTools(VALUES)]);
  served = { ...python, "TS SDK (Zod)": zod };
  const compilers: Record<"default" | "strict", ToolSchemaCompiler> = {
    default: await compiler(),
    strict: await compiler("strict"),
  };
  for (const [sdk, kinds] of Object.entries(served))
    for (const [kind, { schema, accepted }] of Object.entries(kinds)) {
      const inputSchema = { type: "object", properties: { v: schema }, required: ["v"] };
      const refused = async (mode: "default" | "strict") => {
        const validate = await validatorOf(compilers[mode], inputSchema);
        return accepted.filter((v) => !validate({ v }).valid);
      };
      rows.push({
        sdk,
        kind,
        format: typeof schema.format === "string" ? schema.format : "(none)",
        accepted: accepted.length,
        refusedByDefault: await refused("default"),
        refusedByStrict: await refused("strict"),
      });
    }
});

async function compiler(formats?: "strict"): Promise<ToolSchemaCompiler> {
  const made = await edgeCompiler({ formats });
  if (typeof made !== "function") throw new Error(made.missing);
  return made;
}

async function validatorOf(compile: ToolSchemaCompiler, schema: object): Promise<ArgumentsValidator> {
  const outcome = await compile(schema);
  if (!outcome.ok) throw new Error(`the edge did not compile ${JSON.stringify(schema)}: ${outcome.reason}`);
  return outcome.validate;
}

describe("formats in tool arguments: the edge refuses none of the values each SDK's server serves", () => {
  test("every SDK writes the format the kind names, and serves some of the values", () => {
    const formats = new Map(rows.map((r) => [`${r.sdk} ${r.kind}`, r.format]));
    for (const sdk of ["mcp", "fastmcp"]) {
      assert.equal(formats.get(`${sdk} datetime`), "date-time");
      assert.equal(formats.get(`${sdk} time`), "time");
      assert.equal(formats.get(`${sdk} uuid`), "uuid");
      assert.equal(formats.get(`${sdk} email`), "email");
      assert.equal(formats.get(`${sdk} url`), "uri");
    }
    assert.equal(formats.get("TS SDK (Zod) datetime"), "date-time");
    for (const row of rows) assert.ok(row.accepted > 0, `${row.sdk} ${row.kind} serves none of the values`);
  });

  test("by default (formats an annotation) the edge refuses no value the server serves", () => {
    const refused = rows.flatMap((r) => r.refusedByDefault.map((v) => `${r.sdk} ${r.kind} (${r.format}): ${JSON.stringify(v)}`));
    assert.deepEqual(refused, []);
  });

  test("the issue's three values: pydantic's datetime without an offset, time, and a UUID without hyphens pass; strict refuses them", () => {
    for (const sdk of ["mcp", "fastmcp"]) {
      const row = (kind: string) => rows.find((r) => r.sdk === sdk && r.kind === kind)!;
      for (const [kind, value] of [
        ["datetime", "2024-05-01T10:00:00"],
        ["time", "10:20:30"],
        ["uuid", "123e4567e89b12d3a456426614174000"],
      ] as const) {
        assert.ok(served[sdk]![kind]!.accepted.includes(value), `${sdk} serves ${value} as ${kind}`);
        assert.ok(!row(kind).refusedByDefault.includes(value), `the edge passes ${value} as ${kind}`);
        assert.ok(row(kind).refusedByStrict.includes(value), `formats: "strict" refuses ${value} as ${kind}`);
      }
    }
  });

  test("the counts in docs/validation.md are this run's", () => {
    const formats = [...new Set(rows.map((r) => r.format))].filter((f) => f !== "(none)").sort();
    // A format may be asserted by default only where every SDK that writes it refuses what ajv-formats refuses.
    const lenient = formats.filter((f) => rows.some((r) => r.format === f && r.refusedByStrict.length > 0));
    const table = [
      '| SDK | kind | `format` written | values served | refused at the edge (default) | refused under `formats: "strict"` |',
      "|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.sdk} | ${r.kind} | ${r.format === "(none)" ? "none" : `\`${r.format}\``} | ${r.accepted} of ${VALUES[baseKind(r.kind)]!.length} | ${r.refusedByDefault.length} | ${r.refusedByStrict.length}${r.refusedByStrict.length ? `: ${r.refusedByStrict.map((v) => `\`${v}\``).join(", ")}` : ""} |`,
      ),
    ];
    const total = rows.reduce((n, r) => n + r.accepted, 0);
    const strict = rows.reduce((n, r) => n + r.refusedByStrict.length, 0);
    const summary =
      `${rows.length} tools over ${Object.keys(VALUES).length} kinds and 3 SDKs, ${total} values served: ` +
      `${rows.reduce((n, r) => n + r.refusedByDefault.length, 0)} refused at the edge by default, ${strict} under \`formats: "strict"\`. ` +
      `Formats an SDK serves beyond ajv-formats: ${lenient.map((f) => `\`${f}\``).join(", ")}; ` +
      `none beyond it (among these values): ${
        formats
          .filter((f) => !lenient.includes(f))
          .map((f) => `\`${f}\``)
          .join(", ") || "none"
      }.`;
    const section = `${summary}\n\n${table.join("\n")}`;
    if (updatingGoldens()) writeDocSection(DOC, COUNTS, section);
    const doc = readFileSync(DOC, "utf8");
    assert.equal(
      doc,
      replaceSection(doc, COUNTS, section),
      "docs/validation.md's counts are not this run's: npm run golden:update rewrites them",
    );
  });
});

describe("the command line's formats rule reaches the tools at the edge", () => {
  test("wymcp proxy and wymcp stdio compile the tools' schemas with the face's formats: annotation by default, asserted under --rule formats=enforce", async () => {
    const log = createLog("proxy", "text", () => {});
    const flags = { file: undefined, learn: true };
    const schema = { type: "object", properties: { at: { type: "string", format: "date-time" } }, required: ["at"] };
    const verdict = async (formats: "strict" | undefined) => {
      const compile = (await toolsFromFlags(flags, log, { rules: { formats: formats === "strict" ? "enforce" : "off" } }))?.compile;
      assert.ok(compile, "the command line has a compiler");
      return (await validatorOf(compile, schema))({ at: "2024-05-01T10:00:00" }).valid;
    };
    assert.equal(await verdict(undefined), true);
    assert.equal(await verdict("strict"), false);
  });
});

describe("the library faces' own compiler reads a tool's formats by the formats rule", () => {
  test("gateNode with no tools.compile: a date-time without an offset passes by default, and is refused with rules.formats enforced", async () => {
    const tool = {
      name: "at",
      inputSchema: { type: "object", properties: { at: { type: "string", format: "date-time" } }, required: ["at"] },
    };
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { _meta: MODERN_META, name: "at", arguments: { at: "2024-05-01T10:00:00" } },
    };
    const verdict = async (rules: { formats?: "enforce" }) => {
      let served = 0;
      const handler = {
        fetch: async () => {
          served++;
          return Response.json({ jsonrpc: "2.0", id: 3, result: { content: [] } });
        },
      };
      const server = http.createServer(gateNode(handler, { rules, tools: { given: { tools: [tool] }, learn: false } }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      const send = () =>
        fetch(`http://127.0.0.1:${port}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...transportHeaders(call) },
          body: JSON.stringify(call),
        });
      try {
        // The compiler loads and compiles on first use: the first call may pass unjudged while it does; the second is judged.
        await (await send()).text();
        served = 0;
        const answer = (await (await send()).json()) as { result?: { isError?: boolean } };
        return { served, isError: answer.result?.isError === true };
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    };
    assert.deepEqual(await verdict({}), { served: 1, isError: false });
    assert.deepEqual(await verdict({ formats: "enforce" }), { served: 0, isError: true });
  });

  test("gateFetch with no tools.compile loads none, and says so once instead of judging silently", async () => {
    const events: Array<{ kind: string; reason?: string }> = [];
    let served = 0;
    const handler = {
      fetch: async () => {
        served++;
        return Response.json({ jsonrpc: "2.0", id: 3, result: { content: [] } });
      },
    };
    const tool = { name: "n", inputSchema: { type: "object", properties: { n: { type: "number" } } } };
    const gate = gateFetch(handler, {
      tools: { given: { tools: [tool] }, learn: false, onEvent: (event) => void events.push(event as { kind: string }) },
    });
    const call = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { _meta: MODERN_META, name: "n", arguments: { n: "two" } } };
    for (let i = 0; i < 3; i++)
      await (
        await gate(
          new Request("http://localhost/mcp", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...transportHeaders(call) },
            body: JSON.stringify(call),
          }),
        )
      ).text();
    assert.equal(served, 3, "handed on unjudged");
    const told = events.filter((e) => e.kind === "no-compiler");
    assert.equal(told.length, 1);
    assert.match(told[0]!.reason ?? "", /Fetch faces load no compiler.*edgeCompiler\(\) of wymcp\/compile/);
  });
});

describe("behind wymcp proxy, learning (the default), a Python MCPServer's tools", () => {
  test("the issue's three calls (datetime without an offset, time, a UUID without hyphens) are answered as the server alone answers them", async () => {
    assertFreshDist();
    const server = await startMcpServerHttp("formats-http");
    const proxy = await startProxy(["--upstream", server.url.href]);
    try {
      const post = async (base: URL, body: Record<string, unknown>) => {
        const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...transportHeaders(body) };
        const response = await fetch(new URL(server.url.pathname, base), { method: "POST", headers, body: JSON.stringify(body) });
        const text = await response.text();
        const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null");
        return JSON.parse(json) as { result?: { isError?: boolean; tools?: unknown[] } };
      };
      const list = await post(proxy.url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
      assert.ok((list.result?.tools?.length ?? 0) > 0, "the proxy relayed the list, and learned it");
      for (const [tool, v] of [
        ["k_datetime", "2024-05-01T10:00:00"],
        ["k_time", "10:20:30"],
        ["k_uuid", "123e4567e89b12d3a456426614174000"],
        ["k_datetime", "not a date"],
      ] as const) {
        const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: MODERN_META, name: tool, arguments: { v } } };
        const [gated, alone] = [await post(proxy.url, call), await post(server.url, call)];
        assert.equal(gated.result?.isError === true, alone.result?.isError === true, `${tool} ${JSON.stringify(v)}`);
        assert.equal(
          alone.result?.isError === true,
          v === "not a date",
          `the server alone ${v === "not a date" ? "refuses" : "serves"} ${v}`,
        );
      }
    } finally {
      await proxy.stop();
      await server.stop();
    }
  });
});
