/**
 * `wymcp check` (dist/cli.js, as installed) on the ways input is named and read, the help, and how it exits when
 * something other than a verdict goes wrong.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertFreshDist } from "./support/built.js";
import { CLI, cleanEnv, FIXTURES, lineFor, wymcp } from "./support/cli.js";
import { MODERN_META } from "./support/messages.js";

const good = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
const bad = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: MODERN_META, name: 5 } });
const summaryOf = (stdout: string) => /^(\d+) messages?: (\d+) pass, (\d+) rejected, (\d+) bypassed$/m.exec(stdout)?.slice(1).map(Number);

let tmp = "";
const file = (name: string, text: string) => {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
};
before(() => {
  assertFreshDist();
  tmp = mkdtempSync(join(tmpdir(), "wymcp-cli-input-"));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("wymcp check: how a file is read", () => {
  test("a .ndjson file holds one message per line", () => {
    const path = file("capture.ndjson", `${good}\n${bad}\n`);
    const run = wymcp([path]);
    assert.equal(run.status, 1);
    assert.deepEqual(summaryOf(run.stdout), [2, 1, 1, 0]);
    assert.match(lineFor(run.stdout, `${path}:2`), /reject .*\(CallToolRequest\) +-32602$/);
  });

  test("--format jsonl reads a .json file line by line; without it the same file is one message, and not JSON", () => {
    const path = file("two.json", `${good}\n${bad}\n`);
    const lines = wymcp(["--format", "jsonl", path]);
    assert.deepEqual(summaryOf(lines.stdout), [2, 1, 1, 0]);
    assert.match(lineFor(lines.stdout, `${path}:1`), /pass +modern \(_meta\) +tools\/list request \(ListToolsRequest\)$/);
    const whole = wymcp([path]);
    assert.equal(whole.status, 1);
    assert.match(lineFor(whole.stdout, `${path}:1`), /reject +- +not JSON +-32700$/);
    assert.deepEqual(summaryOf(whole.stdout), [1, 0, 1, 0]);
  });

  test("--format jsonl reads standard input line by line, as it is read with no --format", () => {
    const run = wymcp(["--format", "jsonl", "-"], { input: `${good}\n${good}\n` });
    assert.equal(run.status, 0);
    assert.deepEqual(summaryOf(run.stdout), [2, 2, 0, 0]);
  });

  test("--max-body-bytes bounds a whole .json message too: its exact size is judged, one byte less is too large (413)", () => {
    const pretty = JSON.stringify(JSON.parse(bad), null, 2);
    const path = file("pretty.json", pretty);
    const size = Buffer.byteLength(pretty);
    const judged = wymcp(["--max-body-bytes", String(size), path]);
    assert.match(lineFor(judged.stdout, `${path}:1`), /reject .*\(CallToolRequest\) +-32602$/);
    const tooLarge = wymcp(["--json", "--max-body-bytes", String(size - 1), path]);
    assert.equal(tooLarge.status, 1);
    const verdict = JSON.parse(tooLarge.stdout.split("\n")[0]!) as {
      line: number;
      reason: string;
      status: number;
      response: { error: { message: string } };
    };
    assert.deepEqual([verdict.line, verdict.reason, verdict.status], [1, "body-too-large", 413]);
    assert.match(verdict.response.error.message, new RegExp(`limit of ${size - 1} bytes`));
  });
});

describe("wymcp check: --header", () => {
  const judged = (input: string, ...headers: string[]) => {
    const run = wymcp(["--json", ...headers.flatMap((h) => ["--header", h])], { input });
    return JSON.parse(run.stdout.split("\n")[0]!) as { era: string; eraSignal: string; outcome: string; kind: string };
  };
  const notification = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n';

  test("may be repeated: every header given is read, and the era follows classifyEra's order over all of them", () => {
    const session = judged(notification, "Mcp-Session-Id: s1");
    assert.deepEqual([session.era, session.eraSignal], ["legacy", "header-session-id"]);
    for (const order of [
      ["Mcp-Session-Id: s1", "MCP-Protocol-Version: 2026-07-28"],
      ["MCP-Protocol-Version: 2026-07-28", "Mcp-Session-Id: s1"],
    ]) {
      const both = judged(notification, ...order);
      assert.deepEqual([both.era, both.eraSignal, both.outcome], ["modern", "header-protocol-version", "bypass"], order.join(", "));
    }
  });

  test("given twice under one name (in any case), the last value counts", () => {
    const twice = judged(notification, "MCP-Protocol-Version: 2026-07-28", "mcp-protocol-version: 2025-06-18");
    assert.deepEqual([twice.era, twice.outcome], ["legacy", "pass"]);
    const batch = '[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n';
    // 2025-03-26 judges a batch item by item; 2025-06-18 removed batches and refuses one.
    assert.equal(judged(batch, "MCP-Protocol-Version: 2025-06-18", "MCP-Protocol-Version: 2025-03-26").outcome, "pass");
    assert.equal(judged(batch, "MCP-Protocol-Version: 2025-03-26", "MCP-Protocol-Version: 2025-06-18").outcome, "reject");
  });
});

describe("wymcp help", () => {
  for (const args of [["help"], ["-h"], ["--help"], ["check", "-h"], ["check", "--help"]]) {
    test(`wymcp ${args.join(" ")} prints the usage on stdout and exits 0`, () => {
      const run = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: cleanEnv() });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^Usage: wymcp check \[options\] \[file \.\.\.\]\n/);
      assert.match(run.stdout, /Exit codes: 0 .*, 1 .*, 2 /);
      // wymcp's own help lists both commands; `wymcp check --help` is about check alone.
      if (args[0] === "check") assert.doesNotMatch(run.stdout, /wymcp compile/);
      else assert.match(run.stdout, /^ {3}or: wymcp compile <input>\.\.\. --out <dir>/m);
      assert.equal(run.stderr, "");
    });
  }
});

describe("wymcp check: exits that are not verdicts", () => {
  test("a reader that closes the pipe early (| head -n 1) ends the run quietly, exit 0, no EPIPE on stderr", () => {
    const path = file("large.jsonl", `${bad}\n`.repeat(5000));
    const script = `"${process.execPath}" "${CLI}" check "${path}" 2>"${join(tmp, "stderr.txt")}" | head -n 1; echo "status=\${PIPESTATUS[0]}"; cat "${join(tmp, "stderr.txt")}"`;
    const run = spawnSync("bash", ["-c", script], { encoding: "utf8", env: cleanEnv(), cwd: FIXTURES });
    const [first, status, ...stderr] = run.stdout.split("\n");
    assert.match(first ?? "", /large\.jsonl:1 +reject/);
    assert.equal(status, "status=0", run.stdout);
    assert.equal(stderr.join("\n"), "", "the bin wrote to stderr");
  });

  test("an internal error exits 2, never 1, with its stack on stderr", () => {
    // Writing the verdicts fails the way a bug of ours would: a throw from deep inside the run.
    const broken = "data:text/javascript,process.stdout.write=()=>{throw new Error('simulated internal failure')}";
    const run = wymcp(["bad-tools-call.json"], { nodeArgs: ["--import", broken] });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^wymcp: internal error: Error: simulated internal failure\n {4}at /);
  });
});
