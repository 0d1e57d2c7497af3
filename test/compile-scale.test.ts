import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { SCHEMAS_PER_GROUP } from "../src/compile/compile-schemas.js";
import { LIST_LIMITS, listServerTools, ServerListError } from "../src/compile/from-server.js";
import { generate } from "../src/compile/generate.js";
import { inputOf } from "../src/compile/read-inputs.js";
import { repoRoot } from "./support/spec.js";

type Result = { valid: boolean; errorMessage?: string };

/** `count` small tools, each with a schema of its own (a property named after it), as one tools/list result. */
function manyTools(count: number) {
  const tools = Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    inputSchema: { type: "object", properties: { [`arg${i}`]: { type: "integer", minimum: i } }, required: [`arg${i}`] },
  }));
  return inputOf("many-tools.json", Buffer.from(JSON.stringify({ tools })), { tools }, "many-tools");
}

// Ajv's standaloneCode, given every schema at once, overflowed the stack past about 8,000 schemas.
test("10,000 tools compile (no stack overflow) into one module whose validators each check their own tool", async () => {
  const count = 10_000;
  const dir = mkdtempSync(join(tmpdir(), "wymcp-compile-scale-"));
  try {
    const files = await generate([manyTools(count)], dir);
    const manifest = JSON.parse(files.get("manifest.json")!) as { schemas: unknown[]; groups: Array<{ schemas: number }> };
    assert.equal(manifest.schemas.length, count);
    assert.equal(
      manifest.groups.reduce((sum, g) => sum + g.schemas, 0),
      count,
    );
    assert.ok(manifest.groups.every((g) => g.schemas <= SCHEMAS_PER_GROUP));
    for (const [file, text] of files) writeFileSync(join(dir, file), text);
    const compiled = (await import(pathToFileURL(join(dir, "index.js")).href)) as {
      tools: Record<string, { input: (input: unknown) => Result }>;
    };
    for (const i of [0, SCHEMAS_PER_GROUP - 1, SCHEMAS_PER_GROUP, 5_000, count - 1]) {
      const check = compiled.tools[`tool_${i}`]!.input;
      assert.equal(check({ [`arg${i}`]: i }).valid, true, `tool_${i} takes its own argument`);
      assert.equal(check({ [`arg${i}`]: i - 1 }).valid, false, `tool_${i} refuses a value below its minimum`);
      assert.equal(check({ [`arg${i + 1}`]: i }).valid, false, `tool_${i} requires its own argument, not its neighbour's`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--from: one page of 200,000 tools ends in the tools limit's error, not a stack overflow", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-compile-page-"));
  const file = join(dir, "tools.json");
  const count = 2 * LIST_LIMITS.tools;
  writeFileSync(
    file,
    JSON.stringify({ tools: Array.from({ length: count }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } })) }),
  );
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "test/support/tools-server.ts"), file, "--http"], {
    cwd: repoRoot,
    env: { ...process.env, TOOLS_PAGE: String(count) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`the server exited (${code}) before it listened`)));
    });
    await assert.rejects(listServerTools({ url, headers: {} }), (error: unknown) => {
      assert.ok(error instanceof ServerListError, String(error));
      assert.equal(error.message, `tools/list listed more than ${LIST_LIMITS.tools} tools`);
      return true;
    });
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
    rmSync(dir, { recursive: true, force: true });
  }
});
