import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { validateMcpRequest } from "wymcp";
import { repoRoot } from "./support/spec.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const lines = readme.split("\n");
const fences = [...readme.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1]!,
  code: m[2]!,
  line: readme.slice(0, m.index).split("\n").length,
}));
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
};

describe("README.md, the front door", () => {
  test("its first code block is the two commands of a clone: the main job, then the tests, which .ci/run runs", () => {
    const commands = fences[0]!.code
      .trimEnd()
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, ""));
    assert.deepEqual(commands, ["npm ci && npm run codegen", "npm test"]);
    assert.ok(pkg.scripts.codegen && pkg.scripts.test);
    assert.match(readFileSync(join(repoRoot, ".ci", "run"), "utf8"), /^timeout .* npm test$/m);
  });

  test("a reader learns what it is in the first 25 lines and has it in front of a server by line 60", () => {
    const firstParagraph = lines.slice(2, lines.indexOf("", 2)).join(" ");
    assert.ok(lines.indexOf("", 2) <= 25, "the opening paragraph ends within 25 lines");
    assert.match(firstParagraph, /^wymcp checks every message an MCP client sends before your server sees it\./);
    const install = lines.indexOf("## Install");
    const gated = lines.findIndex((line) => line.startsWith("http.createServer(gateNode("));
    assert.ok(install > 0 && install < 30, `## Install at line ${install + 1}`);
    assert.ok(gated > install && gated < 60, `the gate in front of a server at line ${gated + 1}`);
  });

  test("the install line names the tarball npm pack writes, until the one line says npm i wymcp", () => {
    const install = fences.find((f) => f.lang === "sh" && /^npm i /m.test(f.code))!;
    const first = install.code.split("\n")[0]!;
    assert.ok(
      first.startsWith(`npm i ./${pkg.name}-${pkg.version}.tgz @modelcontextprotocol/server zod `) ||
        first.startsWith(`npm i ${pkg.name} @modelcontextprotocol/server zod`),
      first,
    );
  });

  test("the answer it shows for its curl is the one the gate gives that body under that header", () => {
    const shown = fences.find((f) => f.lang === "console" && f.code.includes("$ curl"))!.code;
    const body = /-d '([^']+)'/.exec(shown)![1]!;
    const version = /-H 'mcp-protocol-version: ([^']+)'/.exec(shown)![1]!;
    const answer = shown.split("\n").find((line) => line.startsWith('{"jsonrpc"'))!;
    const result = validateMcpRequest(JSON.parse(body), "legacy", { protocolVersion: version });
    assert.equal(result.outcome, "reject");
    assert.equal(answer, result.outcome === "reject" ? JSON.stringify(result.response) : "");
  });

  test("it links every guide, and holds no test count or duration a command did not write", () => {
    for (const guide of readdirSync(join(repoRoot, "docs", "guides")).filter((f) => f.endsWith(".md"))) {
      assert.ok(readme.includes(`](docs/guides/${guide})`), `no link to docs/guides/${guide}`);
    }
    assert.doesNotMatch(readme, /\b\d[\d,]* tests\b|\b\d+ min\b|\b\d+(?:\.\d+)? s\b/);
  });
});
