import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { before, describe, test } from "node:test";
import { runInContext, createContext } from "node:vm";
import { build } from "esbuild";
import fc from "fast-check";
import { jsonStringLength, utf8Length } from "../src/core/utf8-length.js";
import { entriesLength, LIMITS } from "../src/core/distill.js";
import { LONG_ERROR_LIST_PROMPTS_GET, modernToolsCall } from "./support/messages.js";
import { repoRoot } from "./support/spec.js";

const encoder = new TextEncoder();

describe("utf8Length counts UTF-8 bytes without encoding", () => {
  test("it equals TextEncoder's byte count on any Unicode string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (s) => utf8Length(s) === encoder.encode(s).length),
      { seed: 9, numRuns: 3000 },
    );
  });

  test("it equals TextEncoder's count on UTF-16 with lone surrogates (each encoded as U+FFFD, 3 bytes)", () => {
    const units = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }).map((codes) => String.fromCharCode(...codes));
    fc.assert(
      fc.property(units, (s) => utf8Length(s) === encoder.encode(s).length),
      { seed: 9, numRuns: 3000 },
    );
  });

  test("the boundaries of each encoded length", () => {
    const cases: Array<[string, number]> = [
      ["", 0],
      ["\u007f", 1],
      ["\u0080", 2],
      ["\u07ff", 2],
      ["\u0800", 3],
      ["\uffff", 3],
      ["\u{10000}", 4],
      ["\u{10ffff}", 4],
      ["\ud800", 3],
      ["\udc00\ud800", 6],
    ];
    for (const [s, bytes] of cases) assert.equal(utf8Length(s), bytes, JSON.stringify(s));
  });
});

describe("the answer's size is counted without building its JSON", () => {
  const utf16 = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 30 }).map((codes) => String.fromCharCode(...codes));
  const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "grapheme", maxLength: 30 }), utf16);
  test("jsonStringLength equals the UTF-8 size of JSON.stringify(string), escapes and lone surrogates included", () => {
    fc.assert(
      fc.property(text, (s) => jsonStringLength(s) === encoder.encode(JSON.stringify(s)).length),
      { seed: 9, numRuns: 5000 },
    );
  });
  test("entriesLength equals the UTF-8 size of JSON.stringify(entries)", () => {
    const entries = fc.array(fc.record({ instancePath: text, messages: fc.array(text, { maxLength: 6 }) }), { maxLength: 25 });
    fc.assert(
      fc.property(entries, (e) => entriesLength(e) === encoder.encode(JSON.stringify(e)).length),
      { seed: 9, numRuns: 2000 },
    );
  });
});

/** Node-only names the portable modules must not use; comments are allowed to name them. */
const NODE_ONLY: Array<[string, RegExp]> = [
  ["Buffer", /\bBuffer\s*[.(]|\bnew\s+Buffer\b|globalThis\.Buffer\b/],
  ["process", /\bprocess\s*\.|globalThis\.process\b/],
  ["a node: module", /\bfrom\s*["']node:|\bimport\s*\(\s*["']node:|\brequire\s*\(\s*["']node:/],
];

/**
 * The Node-only modules: the Node entry and the Node plumbing (node-*.ts), the Node host's folder and the command line's
 * two gates (a Node HTTP server, a child process's pipes), src/cli/ (the command line), the compiler (Ajv, files), and
 * the checker's and the inspector's file and socket sides, the live page's taps of a Node server and pipes
 * (inspect/live/), and the OpenTelemetry Node SDK's set-up for `--otel`. The rest of the checker runs in the inspector's
 * page too.
 */
const NODE_ONLY_FOLDERS = ["hosts/node/", "hosts/proxy/", "hosts/stdio/", "cli/", "compile/", "inspect/live/"];
const NODE_ONLY_FILES = new Set(["check/check-files.ts", "check/input.ts", "inspect/listener.ts", "otel/command-sdk.ts"]);

describe("nothing outside the Node-only modules (node-*.ts, the Node hosts, src/cli/, src/compile/, the checker's and inspector's I/O) uses Node-only globals or modules", () => {
  const portable = readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
    .map((f) => f.split(sep).join("/"))
    .filter(
      (f) =>
        f.endsWith(".ts") &&
        !/(^|\/)node-[^/]*$/.test(f) &&
        !NODE_ONLY_FOLDERS.some((folder) => f.startsWith(folder)) &&
        !NODE_ONLY_FILES.has(f),
    );
  test("src/ has portable modules to check", () => assert.ok(portable.length >= 8));
  for (const file of portable) {
    const code = readFileSync(join(repoRoot, "src", file), "utf8");
    for (const [name, pattern] of NODE_ONLY) test(`src/${file} uses no ${name}`, () => assert.doesNotMatch(code, pattern));
  }
});

// npm test builds dist/ first (pretest); a lone run of this file on a fresh clone builds it here.
before(() => {
  if (!existsSync(join(repoRoot, "dist", "fetch.js"))) execFileSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
});

/** The built entry as one script (what ships, chunks included), to run where there is no module loader. */
async function script(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [join(repoRoot, "dist", entry)],
    bundle: true,
    format: "iife",
    globalName: "wymcp",
    platform: "neutral",
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}

describe("the built core runs in a context without Buffer, process or TextEncoder (node:vm)", () => {
  test("it rejects the body that crashed workerd with 400 and the whole bounded list", async () => {
    const context = createContext({ body: structuredClone(LONG_ERROR_LIST_PROMPTS_GET), valid: modernToolsCall() });
    const out = runInContext(
      `${await script("index.js")}
const r = wymcp.validateMcpRequest(body, wymcp.classifyEra({}, body).era);
JSON.stringify({
  globals: [typeof Buffer, typeof process, typeof TextEncoder, typeof require],
  outcome: r.outcome, status: r.status, entries: r.response.error.data.errors.length,
  valid: wymcp.validateMcpRequest(valid, "modern").outcome,
})`,
      context,
    ) as string;
    assert.deepEqual(JSON.parse(out), {
      globals: ["undefined", "undefined", "undefined", "undefined"],
      outcome: "reject",
      status: 400,
      entries: LIMITS.entries,
      valid: "pass",
    });
  });

  test("the body is one whose answer distill.ts measures (so the test reaches the byte count)", () => {
    const units = 20 * ("/params/arguments/argument00".length + "must be string".length);
    assert.ok(units * 6 + 20 * 48 + 2 > LIMITS.entriesBytes);
  });

  test("wymcpFetch answers that body 400 with only Web APIs at hand", async () => {
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(LONG_ERROR_LIST_PROMPTS_GET),
    });
    const context = createContext({ Request, Response, TextDecoder, request });
    const response = (await runInContext(
      `${await script("fetch.js")}\nwymcp.wymcpFetch({ era: () => "modern" })(request)`,
      context,
    )) as Response;
    assert.equal(runInContext("typeof Buffer + typeof process", context), "undefinedundefined");
    assert.equal(response.status, 400);
    const answer = (await response.json()) as { error: { data: { errors: unknown[] } } };
    assert.equal(answer.error.data.errors.length, LIMITS.entries);
  });
});
