import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { validateMcpRequest } from "wymcp";
import { lineFor, locationsFor, wymcp } from "./support/cli.js";

const BAD_CALL = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 5, arguments: {} } };
const input = `${JSON.stringify(BAD_CALL)}\n`;
const header = (revision: string) => ["--header", `MCP-Protocol-Version: ${revision}`];

describe("wymcp check --rule params, on the legacy lane", () => {
  test("enforce (the default): a legacy call with a bad name is rejected -32602, located, naming the revision of the header", () => {
    const run = wymcp([...header("2025-06-18"), "-"], { input });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(
      lineFor(run.stdout, "<stdin>:1"),
      /reject +legacy \(header\) +tools\/call request \(CallToolRequest, revision 2025-06-18\) +-32602$/,
    );
    assert.deepEqual(locationsFor(run.stdout, "<stdin>:1"), ["/params/name  must be string"]);
  });

  test("--json gives the middleware's answer: status 200, the same JSON-RPC error as validateMcpRequest", () => {
    const run = wymcp(["--json", ...header("2025-11-25"), "-"], { input });
    const verdict = JSON.parse(run.stdout.split("\n")[0]!) as { status: number; revision: string; response: unknown };
    const direct = validateMcpRequest(BAD_CALL, "legacy", { protocolVersion: "2025-11-25" });
    assert.equal(direct.outcome, "reject");
    assert.deepEqual([verdict.status, verdict.revision, verdict.response], [200, "2025-11-25", direct.response]);
  });

  test("off: the seed's rule, the call passes on its JSON-RPC framing", () => {
    const run = wymcp(["--rule", "params=off", ...header("2025-06-18"), "-"], { input });
    assert.equal(run.status, 0, run.stdout);
    assert.match(lineFor(run.stdout, "<stdin>:1"), /pass +legacy \(header\) +tools\/call request \(JSONRPCRequest; framing only\)$/);
  });

  for (const flags of [["--rule", "params=report"], ["--report"]])
    test(`${flags.join(" ")}: the call passes, printed with the rule and what enforcing it would answer, and both tables count it`, () => {
      const run = wymcp([...flags, "-"], { input });
      assert.equal(run.status, 0, run.stdout);
      assert.match(
        lineFor(run.stdout, "<stdin>:1"),
        /pass +legacy \(no signal\) +tools\/call request \(CallToolRequest, revision 2025-03-26\) +reported params -32602$/,
      );
      assert.deepEqual(locationsFor(run.stdout, "<stdin>:1"), ["/params/name  must be string"]);
      assert.match(
        run.stdout,
        /^by rule +state +refused +reported\nparams +report +0 +1\n1 message: 1 pass \(1 reported\), 0 rejected, 0 bypassed$/m,
      );
    });

  test("an unknown state is a usage error (exit 2) naming the three, and the nearest; the old flag is gone", () => {
    const run = wymcp(["--rule", "params=strict", "-"], { input });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^wymcp check: --rule params=strict: a rule's state is enforce, report or off$/m);
    assert.match(wymcp(["--rule", "params=reprt", "-"], { input }).stderr, /\(did you mean "report"\?\)/);
    assert.match(wymcp(["--legacy-checks", "framing", "-"], { input }).stderr, /^wymcp check: unknown flag --legacy-checks$/m);
  });
});

describe("wymcp check --direction out names the legacy revision it judged by", () => {
  // structuredContent came with 2025-06-18: a string there is no violation of 2024-11-05, whose result has no such member.
  const result = `${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [], structuredContent: "x" } })}\n`;
  const out = (...args: string[]) => wymcp(["--direction", "out", "--method", "tools/call", ...args, "-"], { input: result });

  test("the header's revision, and its own definition", () => {
    const old = out(...header("2024-11-05"));
    assert.equal(old.status, 0, old.stdout);
    assert.match(
      lineFor(old.stdout, "<stdin>:1"),
      /pass +legacy \(header\) +out: tools\/call result \(CallToolResult, revision 2024-11-05\)$/,
    );
    const later = out(...header("2025-06-18"));
    assert.equal(later.status, 1, later.stdout);
    assert.match(
      lineFor(later.stdout, "<stdin>:1"),
      /reject +legacy \(header\) +out: tools\/call result \(CallToolResult, revision 2025-06-18\)$/,
    );
    assert.deepEqual(locationsFor(later.stdout, "<stdin>:1"), ["/result/structuredContent  must be object"]);
  });

  test("without a header, 2025-03-26, as a server assumes; --json carries the revision", () => {
    const run = out("--json");
    const verdict = JSON.parse(run.stdout.split("\n")[0]!) as { revision: string; outcome: string };
    assert.deepEqual([verdict.revision, verdict.outcome], ["2025-03-26", "pass"]);
  });
});
