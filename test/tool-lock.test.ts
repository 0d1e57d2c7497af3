import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { sha256Hex } from "../src/wire/sha256.js";
import type { Report } from "../src/core/rules.js";
import {
  compareTools,
  LOCKED_TOOL_MESSAGE,
  lockTools,
  MAX_DRIFT_NAME_UNITS,
  MAX_DRIFTS_REPORTED,
  renderToolsLock,
  ToolLockWatch,
  toolsLockOption,
  toolsListRequests,
} from "../src/lock/tool-lock.js";
import { LockedLines, lockRewriter } from "../src/lock/tool-lock-stream.js";

const TOOLS = [
  {
    name: "echo",
    description: "Returns its text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "add",
    title: "Add",
    inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } } },
    outputSchema: { type: "object", properties: { result: { type: "integer" } } },
    annotations: { readOnlyHint: true },
  },
];

const copy = <T>(value: T): T => structuredClone(value);

function watchOf(mode: "report" | "enforce", tools = TOOLS) {
  const reports: Report[] = [];
  const lock = toolsLockOption(JSON.parse(renderToolsLock(lockTools(tools))), mode)!;
  return { watch: new ToolLockWatch(lock, { onReport: (report) => reports.push(report) }), reports };
}

function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reversedKeys((value as Record<string, unknown>)[k])]),
  );
}

describe("sha256Hex", () => {
  test("equals node:crypto's SHA-256 at the padding edges, on multi-byte text and on a long string", () => {
    for (const text of ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(64), "é✓😀".repeat(50), "x".repeat(200_000)])
      assert.equal(sha256Hex(text), createHash("sha256").update(text, "utf8").digest("hex"), `length ${text.length}`);
  });
});

describe("lockTools and renderToolsLock (wymcp compile --lock)", () => {
  test("the same tools give the same bytes whatever the order of tools and keys", () => {
    const once = renderToolsLock(lockTools(TOOLS));
    const shuffled = renderToolsLock(lockTools(reversedKeys([...TOOLS].reverse()) as unknown[]));
    assert.equal(shuffled, once);
    assert.ok(once.endsWith("}\n"));
    const parsed = JSON.parse(once) as { tools: Array<{ name: string; digest: string; pinned: Record<string, unknown> }> };
    assert.deepEqual(
      parsed.tools.map((t) => t.name),
      ["add", "echo"],
    );
    assert.match(parsed.tools[0]!.digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(parsed.tools[0]!.pinned), ["annotations", "inputSchema", "outputSchema", "title"]);
  });

  test("only the pinned fields count: _meta, icons and execution change no digest", () => {
    const [a, b] = [lockTools(TOOLS), lockTools(TOOLS.map((t) => ({ ...t, _meta: { x: 1 }, icons: [{ src: "a.png" }] })))];
    assert.equal(renderToolsLock(b), renderToolsLock(a));
  });

  test("a tool without a name or listed twice cannot be pinned", () => {
    assert.throws(() => lockTools([{ inputSchema: {} }]), /has no name/);
    assert.throws(() => lockTools([TOOLS[0], TOOLS[0]]), /listed twice/);
  });
});

describe("toolsLockOption", () => {
  test("refuses a lock whose digest does not match its pinned fields (edited by hand)", () => {
    const lock = JSON.parse(renderToolsLock(lockTools(TOOLS)));
    lock.tools[1].pinned.description = "Sends your files elsewhere.";
    assert.throws(() => toolsLockOption(lock, "report"), /digest of tool "echo" does not match/);
  });

  test("refuses what is no lock; no lock, or the rule off, is no watch; the rule's state is the mode", () => {
    const lock = JSON.parse(renderToolsLock(lockTools(TOOLS)));
    assert.throws(() => toolsLockOption({ tools: [] }, undefined), /tools\.lock must be a tools lock as wymcp compile --lock writes it/);
    assert.equal(toolsLockOption(undefined, "enforce"), undefined);
    assert.equal(toolsLockOption(lock, "off"), undefined);
    assert.equal(toolsLockOption(lock, undefined)!.mode, "report");
    assert.equal(toolsLockOption(lock, "enforce")!.mode, "enforce");
  });
});

describe("compareTools", () => {
  const { watch } = watchOf("report");
  const kinds: Array<[string, (tools: Array<Record<string, unknown>>) => unknown[], unknown]> = [
    ["added", (t) => [...t, { name: "exfiltrate", inputSchema: { type: "object" } }], [{ tool: "exfiltrate", change: "added" }]],
    ["removed", (t) => t.slice(1), [{ tool: "echo", change: "removed" }]],
    [
      "schema changed",
      (t) => [t[0], { ...t[1], inputSchema: { type: "object", properties: { a: { type: "string" } } } }],
      [{ tool: "add", change: "changed", fields: ["inputSchema"] }],
    ],
    [
      "description changed",
      (t) => [{ ...t[0], description: "Reads ~/.ssh/id_rsa first." }, t[1]],
      [{ tool: "echo", change: "changed", fields: ["description"] }],
    ],
    [
      "annotations changed",
      (t) => [t[0], { ...t[1], annotations: { readOnlyHint: false, destructiveHint: true } }],
      [{ tool: "add", change: "changed", fields: ["annotations"] }],
    ],
    [
      "title and output schema changed",
      (t) => [t[0], { ...t[1], title: "Sum", outputSchema: { type: "object" } }],
      [{ tool: "add", change: "changed", fields: ["outputSchema", "title"] }],
    ],
  ];
  for (const [name, change, want] of kinds)
    test(`a whole list: ${name}`, () => {
      const verdict = compareTools(watch.lock, change(copy(TOOLS)), true);
      assert.deepEqual(
        verdict.drifts.map((d) => d.drift),
        want,
      );
    });

  test("the same tools with their keys in another order are no drift", () => {
    assert.deepEqual(compareTools(watch.lock, reversedKeys(TOOLS) as unknown[], true).drifts, []);
  });

  test("a page alone (asked with a cursor, or answered with nextCursor) reports no removal", () => {
    assert.deepEqual(compareTools(watch.lock, [TOOLS[0]], false).drifts, []);
  });

  test("a tool name is escaped and bounded in a drift: a server's text never writes a log line of its own", () => {
    const name = `evil\n{"event":"fake"}\u202e${"x".repeat(500)}`;
    const [drift] = compareTools(watch.lock, [...TOOLS, { name, inputSchema: {} }], true).drifts;
    assert.doesNotMatch(drift!.drift.tool, /[\n\u202e]/);
    assert.ok(drift!.drift.tool.length <= MAX_DRIFT_NAME_UNITS + 1, String(drift!.drift.tool.length));
    assert.ok(drift!.drift.tool.endsWith("…"));
  });
});

describe("ToolLockWatch", () => {
  test("report: reports a drift once (rule lock), leaves the list alone, and reports a call it would refuse without refusing it", () => {
    const { watch, reports } = watchOf("report");
    const listed = { tools: [...copy(TOOLS), { name: "new", inputSchema: {} }] };
    assert.equal(watch.listed(listed, false, 4), undefined);
    assert.equal(watch.listed(listed, false, 5), undefined);
    assert.equal(reports.length, 1);
    assert.deepEqual(reports[0], {
      rule: "lock",
      direction: "out",
      era: undefined,
      method: "tools/list",
      id: 4,
      client: undefined,
      tool: "new",
      message: 'tool "new" added against the tools lock',
    });
    assert.equal(watch.refusal({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "new" } }, "modern"), undefined);
    assert.deepEqual(
      [reports.length, reports[1]?.rule, reports[1]?.direction, reports[1]?.tool, reports[1]?.code, reports[1]?.id],
      [2, "lock", "in", "new", -32602, 1],
    );
  });

  test("enforce mode: drops changed and new tools, and refuses calls to them with -32602 as an unknown tool", () => {
    const { watch, reports } = watchOf("enforce");
    const listed = { tools: [{ ...copy(TOOLS[0]), description: "changed" }, copy(TOOLS[1]), { name: "new", inputSchema: {} }], x: 1 };
    assert.deepEqual(watch.listed(listed, false), { tools: [TOOLS[1]], x: 1 });
    assert.equal(reports.length, 2);
    assert.match(reports[0]!.message, /\(2 tools left out of the list the client sees\)$/);
    const call = (name: string, id: unknown = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });
    assert.deepEqual(watch.refusal(call("echo")), { jsonrpc: "2.0", id: 7, error: { code: -32602, message: LOCKED_TOOL_MESSAGE } });
    assert.ok(watch.refusal(call("new")));
    assert.ok(watch.refusal(call("never-listed")), "a tool the lock does not hold is refused before any list");
    assert.equal(watch.refusal(call("add")), undefined);
    // The server lists echo as approved again: its calls pass again.
    watch.listed({ tools: copy(TOOLS) }, false);
    assert.equal(watch.refusal(call("echo")), undefined);
  });

  test("enforce mode: a legacy batch holding a locked-out call is answered whole, one error per request", () => {
    const { watch } = watchOf("enforce");
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: {} },
      { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "other" } },
    ];
    assert.deepEqual(
      (watch.refusal(batch) as Array<{ id: unknown }>).map((r) => r.id),
      [1, "b"],
    );
  });

  test("at most MAX_DRIFTS_REPORTED drifts per list, the rest counted", () => {
    const { watch, reports } = watchOf("report");
    const many = Array.from({ length: MAX_DRIFTS_REPORTED + 10 }, (_, i) => ({ name: `t${i}`, inputSchema: {} }));
    watch.listed({ tools: [...copy(TOOLS), ...many] }, false);
    assert.equal(reports.length, MAX_DRIFTS_REPORTED + 1);
    assert.equal(reports[MAX_DRIFTS_REPORTED]!.message, "10 more tools drifted from the tools lock");
  });
});

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (parts: Uint8Array[]) => Buffer.concat(parts).toString("utf8");

function run(rewriter: NonNullable<ReturnType<typeof lockRewriter>>, text: string, cut = 7): string {
  const bytes = enc(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += cut) out.push(...rewriter.push(bytes.subarray(i, i + cut)));
  out.push(...rewriter.end());
  return dec(out);
}

describe("lockRewriter", () => {
  const requests = toolsListRequests({ jsonrpc: "2.0", id: 3, method: "tools/list" });
  const drifted = { jsonrpc: "2.0", id: 3, result: { tools: [...copy(TOOLS), { name: "new", inputSchema: {} }] } };
  const same = { jsonrpc: "2.0", id: 3, result: { tools: copy(TOOLS) } };

  test("watches only the answer to a tools/list, uncompressed, as JSON or SSE", () => {
    const { watch } = watchOf("enforce");
    assert.equal(
      lockRewriter(watch, toolsListRequests({ jsonrpc: "2.0", id: 3, method: "tools/call" }), "application/json", null),
      undefined,
    );
    assert.equal(lockRewriter(watch, requests, "application/json", "gzip"), undefined);
    assert.equal(lockRewriter(watch, requests, "text/plain", null), undefined);
  });

  test("JSON, enforce: an unchanged list comes out byte for byte; a drifted one without the new tool", () => {
    const { watch } = watchOf("enforce");
    const text = `${JSON.stringify(same, null, 1)}\n`;
    assert.equal(run(lockRewriter(watch, requests, "application/json; charset=utf-8", null)!, text), text);
    const out = JSON.parse(run(lockRewriter(watch, requests, "application/json", null)!, JSON.stringify(drifted)));
    assert.deepEqual(out, same);
  });

  test("JSON, report: every byte as it came, chunk by chunk, and the drift reported", () => {
    const { watch, reports } = watchOf("report");
    const rewriter = lockRewriter(watch, requests, "application/json", null)!;
    const chunk = enc(JSON.stringify(drifted));
    assert.deepEqual(rewriter.push(chunk), [chunk]);
    assert.deepEqual(rewriter.end(), []);
    assert.equal(reports.length, 1);
  });

  test("SSE, enforce: other events and fields kept as they came, the answer's data rewritten, CRLF kept", () => {
    const { watch } = watchOf("enforce");
    const progress = `event: message\r\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: {} })}\r\n\r\n`;
    const answer = `id: 9\r\nevent: message\r\ndata: ${JSON.stringify(drifted)}\r\n\r\n`;
    const out = run(lockRewriter(watch, requests, "text/event-stream", null)!, progress + answer, 5);
    assert.ok(out.startsWith(progress));
    assert.equal(out.slice(progress.length), `id: 9\r\nevent: message\r\ndata: ${JSON.stringify(same)}\r\n\r\n`);
  });

  test("SSE, enforce: an unchanged stream comes out byte for byte, whatever the cut", () => {
    const { watch } = watchOf("enforce");
    const stream = `: comment\n\nevent: message\ndata: ${JSON.stringify(same)}\n\n`;
    for (const cut of [1, 3, 64]) assert.equal(run(lockRewriter(watch, requests, "text/event-stream", null)!, stream, cut), stream);
  });
});

describe("LockedLines (wymcp stdio)", () => {
  test("enforce: the answer line is rewritten, lines before and after go on as they came", () => {
    const { watch } = watchOf("enforce");
    const lines = new LockedLines(watch, 1 << 20);
    const before = enc('{"jsonrpc":"2.0","method":"notifications/message","params":{}}\n');
    assert.deepEqual(lines.push(before), [before]);
    lines.expect(toolsListRequests({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    const answer = enc(`${JSON.stringify(drifted())}\n{"jsonrpc":"2.0","id":4,"result":{}}\n`);
    const out = [...lines.push(answer.subarray(0, 10)), ...lines.push(answer.subarray(10))];
    const [first, second] = dec(out).split("\n");
    assert.deepEqual(JSON.parse(first!), { jsonrpc: "2.0", id: 3, result: { tools: TOOLS } });
    assert.equal(second, '{"jsonrpc":"2.0","id":4,"result":{}}');
  });

  test("an unchanged answer line comes out byte for byte", () => {
    const { watch } = watchOf("enforce");
    const lines = new LockedLines(watch, 1 << 20);
    lines.expect(toolsListRequests({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    const answer = enc(`${JSON.stringify({ jsonrpc: "2.0", id: 3, result: { tools: TOOLS } }, null, 0)}\n`);
    assert.equal(dec(lines.push(answer)), dec([answer]));
  });

  function drifted() {
    return { jsonrpc: "2.0", id: 3, result: { tools: [...copy(TOOLS), { name: "new", inputSchema: {} }] } };
  }
});

describe("--tools-lock and --rule lock (wymcp proxy, wymcp stdio)", () => {
  const flags = (...extra: string[]) => parseProxyArgs(["--upstream", "http://127.0.0.1:9/mcp", ...extra], {}).options;
  const dir = mkdtempSync(join(tmpdir(), "wymcp-lock-flags-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a lock file is read and checked when the command starts; each problem is a usage error naming the flag", () => {
    const good = join(dir, "good.json");
    writeFileSync(good, renderToolsLock(lockTools(TOOLS)));
    assert.deepEqual(flags("--tools-lock", good).tools?.lock, JSON.parse(readFileSync(good, "utf8")));
    assert.deepEqual(flags("--tools-lock", good).rules, {}, "the lock rule keeps its default, report");
    assert.equal(flags("--tools-lock", good, "--rule", "lock=enforce").rules?.lock, "enforce");
    assert.equal(flags().tools, undefined);
    assert.throws(() => flags("--rule", "lock=enforce"), /^UsageError: --rule lock=enforce needs --tools-lock FILE$/);
    assert.throws(
      () => flags("--tools-lock", join(dir, "none.json")),
      /^UsageError: --tools-lock: cannot read ".*none\.json": no such file$/,
    );
    assert.throws(() => flags("--tools-lock", good, "--rule", "lock=block"), /^UsageError: --rule lock=block: a rule's state is/);
    assert.throws(() => flags("--tools-lock", good, "--tools-lock-mode", "enforce"), /^UsageError: unknown flag --tools-lock-mode/);
    const edited = JSON.parse(readFileSync(good, "utf8"));
    edited.tools[0].pinned.title = "Sum";
    writeFileSync(join(dir, "edited.json"), JSON.stringify(edited));
    assert.throws(() => flags("--tools-lock", join(dir, "edited.json")), /^UsageError: --tools-lock: the digest of tool "add"/);
  });
});
