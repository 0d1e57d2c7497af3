import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { outboundFromEnv } from "../examples/outbound-from-env.js";

const dir = mkdtempSync(join(tmpdir(), "wymcp-outbound-example-"));
const file = join(dir, "violations.jsonl");
let server: LaunchedExample | undefined;

before(async () => {
  // The launched example inherits this file's environment (node --test runs each file in its own process).
  process.env.WYMCP_OUTBOUND = "report";
  process.env.WYMCP_OUTBOUND_FILE = file;
  server = await launchExample();
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("WYMCP_OUTBOUND=report on the example server (what a conformance run will use)", () => {
  test("SDK clients of both eras: every message is checked, the only violation is the SDK's null-id 405 to the legacy GET", async () => {
    for (const modern of [true, false]) {
      const client = new Client(
        { name: "outbound-e2e", version: "0.0.0" },
        modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(server!.url));
      try {
        await client.listTools();
        await client.callTool({ name: "echo", arguments: { text: "x" } });
        await client.getPrompt({ name: "greet", arguments: { name: "y" } });
        await client.readResource({ uri: "file:///readme.txt" });
      } finally {
        await client.close();
      }
    }
    await server!.stop();
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = records.find((r) => r.kind === "summary");
    const violations = records.filter((r) => r.kind === "violation");
    assert.ok(summary && (summary.checked as number) >= 10, `summary: ${JSON.stringify(summary)}`);
    assert.equal(summary.violations, violations.length);
    for (const v of violations) {
      assert.deepEqual(
        { era: v.era, id: v.id, errors: (v.violations as { errors: unknown }).errors },
        {
          era: "legacy",
          id: null,
          errors: [{ instancePath: "/id", messages: ["must be string or integer"] }],
        },
      );
    }
    assert.ok(violations.length <= 1, JSON.stringify(violations));
  });
});

describe("outboundFromEnv", () => {
  test("unset or off: no options, so the adapters stay off", async () => {
    assert.deepEqual(await outboundFromEnv({}), {});
    assert.deepEqual(await outboundFromEnv({ WYMCP_OUTBOUND: "off" }), {});
  });

  test("any other value is refused", async () => {
    await assert.rejects(outboundFromEnv({ WYMCP_OUTBOUND: "on" }), /WYMCP_OUTBOUND must be "off" or "report"/);
  });
});
