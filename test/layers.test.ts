/**
 * The layers of src/ point down, with no import circle (scripts/check-layers.ts, run by `npm run lint`): the repository
 * keeps every rule, and the checker finds each kind of breach in a tree made to break it.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { circles, importGraph, layerProblems } from "../scripts/check-layers.js";
import { repoRoot } from "./support/spec.js";

const temps: string[] = [];
after(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A tree of `files` (path → source) in a temporary folder. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-layers-"));
  temps.push(dir);
  for (const [path, code] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), code);
  }
  return dir;
}

test("the repository keeps every rule: no circle in src/, layers pointing down, scripts/ free of test/", () => {
  assert.deepEqual(layerProblems(repoRoot), []);
});

test("the graph sees imports, re-exports, type-only imports and dynamic import()", () => {
  const dir = tree({
    "src/core/a.ts": 'import { b } from "./b.js";\nexport type { C } from "./c.js";\nexport const x = () => import("./d.js");\n',
    "src/core/b.ts": 'import type { C } from "./c.js";\nexport const b = 1;\n',
    "src/core/c.ts": "export type C = 1;\n",
    "src/core/d.ts": "export {};\n",
  });
  const edges = importGraph(dir).map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`);
  assert.deepEqual(edges.sort(), [
    "src/core/a.ts → src/core/b.ts",
    "src/core/a.ts → src/core/c.ts (type)",
    "src/core/a.ts → src/core/d.ts",
    "src/core/b.ts → src/core/c.ts (type)",
  ]);
});

describe("each breach is named", () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      "an import circle in src/, even through a type",
      { "src/hosts/node/a.ts": 'import { b } from "./b.js";\n', "src/hosts/node/b.ts": 'import type { A } from "./a.js";\n' },
      /^import circle: src\/hosts\/node\/a\.ts → src\/hosts\/node\/b\.ts$/,
    ],
    ["src/ importing scripts/", { "src/cli/x.ts": 'import "../../scripts/y.js";\n', "scripts/y.ts": "" }, /src\/ never imports scripts\//],
    ["src/ importing test/", { "src/core/x.ts": 'import "../../test/y.js";\n', "test/y.ts": "" }, /src\/ never imports test\//],
    ["scripts/ importing test/", { "scripts/x.ts": 'import "../test/y.js";\n', "test/y.ts": "" }, /scripts\/ never imports test\//],
    ["core/ importing hosts/", { "src/core/x.ts": 'import "../hosts/y.js";\n', "src/hosts/y.ts": "" }, /core\/ may not import hosts\//],
    ["core/ importing cli/", { "src/core/x.ts": 'import "../cli/y.js";\n', "src/cli/y.ts": "" }, /core\/ may not import cli\//],
    [
      "core/ importing outbound/",
      { "src/core/x.ts": 'import "../outbound/y.js";\n', "src/outbound/y.ts": "" },
      /core\/ may not import outbound\//,
    ],
    [
      "core/ importing node:*",
      { "src/core/x.ts": 'import { readFileSync } from "node:fs";\n' },
      /core\/ imports only core\/ and generated\//,
    ],
    ["core/ importing a package", { "src/core/x.ts": 'import ajv from "ajv";\n' }, /core\/ imports only core\/ and generated\//],
    [
      "outbound/ importing hosts/",
      { "src/outbound/x.ts": 'import type { T } from "../hosts/y.js";\n', "src/hosts/y.ts": "" },
      /outbound\/ may not import hosts\//,
    ],
    [
      "the core entry importing a host",
      { "src/index.ts": 'export type { T } from "./hosts/y.js";\n', "src/hosts/y.ts": "" },
      /core-entry\/ may not import hosts\//,
    ],
    [
      "one host's folder importing another's",
      { "src/hosts/node/x.ts": 'import "../fetch/y.js";\n', "src/hosts/fetch/y.ts": "" },
      /one host's folder never imports another's/,
    ],
    [
      "otel/ importing a host",
      { "src/otel/x.ts": 'import "../hosts/node/y.js";\n', "src/hosts/node/y.ts": "" },
      /otel\/ may not import hosts\//,
    ],
    [
      "a host importing otel/",
      { "src/hosts/node/x.ts": 'import "../../otel/y.js";\n', "src/otel/y.ts": "" },
      /hosts\/ may not import otel\//,
    ],
    [
      "an entry other than src/otel.ts importing otel/",
      { "src/node-http.ts": 'export { y } from "./otel/y.js";\n', "src/otel/y.ts": "export const y = 1;\n" },
      /src\/node-http\.ts imports src\/otel\/y\.ts: only src\/otel\.ts and src\/cli\/otel\/start\.ts import otel\//,
    ],
    [
      "a module of the command line other than --otel's importing otel/",
      { "src/cli/proxy/x.ts": 'import "../../otel/y.js";\n', "src/otel/y.ts": "" },
      /src\/cli\/proxy\/x\.ts imports src\/otel\/y\.ts: only src\/otel\.ts and src\/cli\/otel\/start\.ts import otel\//,
    ],
    [
      "a face outside core/ sequencing the admission stage itself instead of calling the gate pipeline",
      {
        "src/cli/check/x.ts": 'import { parseBody, type Refusal } from "../../core/admission.js";\n',
        "src/core/admission.ts": "export const parseBody = 1;\n",
      },
      /src\/cli\/check\/x\.ts imports parseBody from src\/core\/admission\.ts: outside core\/, the admission stage runs through core\/pipeline\.ts/,
    ],
    [
      "a host taking the whole admission module as a namespace",
      { "src/hosts/node/x.ts": 'import * as stage from "../../core/admission.js";\n', "src/core/admission.ts": "export {};\n" },
      /src\/hosts\/node\/x\.ts imports \* from src\/core\/admission\.ts/,
    ],
    [
      "a host's index.ts that does more than re-export",
      { "src/hosts/node/index.ts": 'export { a } from "./a.js";\nexport const b = 1;\n', "src/hosts/node/a.ts": "export const a = 1;\n" },
      /src\/hosts\/node\/index\.ts: a host's index\.ts only re-exports \(line 2\)/,
    ],
    [
      "a portable folder importing node:*",
      { "src/tools/x.ts": 'import { readFileSync } from "node:fs";\n' },
      /src\/tools\/x\.ts imports node:fs: tools\/ runs on every host/,
    ],
    [
      "a portable folder importing a package",
      { "src/lock/x.ts": 'import ajv from "ajv";\n' },
      /src\/lock\/x\.ts imports ajv: lock\/ runs on every host/,
    ],
    [
      "a portable folder using a Node global",
      { "src/wire/x.ts": 'export const bytes = (text: string) => Buffer.from(text, "utf8");\n' },
      /src\/wire\/x\.ts:1 uses Buffer: wire\/ runs on every host, and only Node has Buffer/,
    ],
    [
      "the telemetry's room importing a package (the observability library stays behind wymcp/otel)",
      { "src/telemetry/x.ts": 'import { trace } from "@opentelemetry/api";\n' },
      /src\/telemetry\/x\.ts imports @opentelemetry\/api: telemetry\/ runs on every host/,
    ],
    [
      "the options' room using a Node global",
      { "src/options/x.ts": "export const env = () => process.env;\n" },
      /src\/options\/x\.ts:1 uses process: options\/ runs on every host/,
    ],
    [
      "core/ importing the telemetry's room (the pipeline traces through the face's tracer)",
      { "src/core/x.ts": 'import type { T } from "../telemetry/y.js";\n', "src/telemetry/y.ts": "" },
      /core\/ may not import telemetry\//,
    ],
    [
      "a new folder of src/ that imports neither node:* nor a package, left out of the portable ones",
      { "src/metrics/x.ts": 'import "../core/a.js";\n', "src/core/a.ts": "" },
      /src\/metrics\/ imports neither node:\* nor a package: list it in PORTABLE/,
    ],
    [
      "a file the Workers entry reaches importing node:*, through a host's shared folder",
      {
        "src/fetch.ts": 'export { f } from "./hosts/fetch/index.js";\n',
        "src/hosts/fetch/index.ts": 'export { f } from "./f.js";\n',
        "src/hosts/fetch/f.ts": 'import "../shared/s.js";\nexport const f = 1;\n',
        "src/hosts/shared/s.ts": 'import "node:http";\n',
      },
      /src\/hosts\/shared\/s\.ts imports node:http: src\/fetch\.ts reaches it, and a Worker has no node:http/,
    ],
    [
      "a file the Workers entry reaches using a Node global",
      { "src/fetch.ts": 'export { f } from "./hosts/fetch/f.js";\n', "src/hosts/fetch/f.ts": "export const f = () => process.env;\n" },
      /src\/hosts\/fetch\/f\.ts:1 uses process: src\/fetch\.ts runs on every host/,
    ],
  ];
  for (const [name, files, want] of cases) {
    test(name, () => {
      const problems = layerProblems(tree(files));
      assert.ok(
        problems.some((p) => want.test(p)),
        problems.join("\n") || "no problem found",
      );
    });
  }

  test("what the layers allow is no breach: a host on core/, outbound/, tools/ and lock/ (of the admission stage, its types and byte readers), the features on the wire's framing, the CLI on everything below it, otel/ on core/ and its package behind its entry and --otel's module; a name declared or a member called as a Node global is none", () => {
    const problems = layerProblems(
      tree({
        "src/core/a.ts": 'import "../../generated/x.js";\n',
        "src/core/admission.ts": "export const admit = 1;\nexport type Refusal = 1;\nexport class BodyBytes {}\n",
        "src/core/pipeline.ts": 'import { admit } from "./admission.js";\n',
        "src/hosts/shared/node-body.ts": 'import { BodyBytes, type Refusal } from "../../core/admission.js";\n',
        "src/outbound/b.ts": 'import "../core/a.js";\n',
        "src/hosts/shared/c.ts": 'import "../../core/a.js";\n',
        "src/hosts/node/d.ts": 'import "../shared/c.js";\nimport "../../outbound/b.js";\nimport "node:http";\n',
        "src/hosts/node/index.ts": 'export * from "./d.js";\n',
        "src/codegen/e.ts": 'import "../core/a.js";\nimport "ajv";\n',
        "src/cli/f.ts": 'import "../hosts/node/index.js";\nimport "../codegen/e.js";\nimport "node:fs";\n',
        "src/otel/t.ts": 'import "../core/a.js";\nimport "@opentelemetry/api";\n',
        "src/otel.ts": 'export * from "./otel/t.js";\n',
        "src/cli/otel/start.ts": 'import "../../otel/t.js";\n',
        "src/wire/w.ts": 'import "../core/a.js";\nconst process = (x: { Buffer: number }) => x.Buffer;\nexport { process };\n',
        "src/tools/u.ts": 'import "../wire/w.js";\nimport "../outbound/b.js";\n',
        "src/lock/l.ts": 'import "../wire/w.js";\n',
        "src/hosts/node/k.ts": 'import "../../tools/u.js";\nimport "../../lock/l.js";\n',
        "scripts/g.ts": 'import "../src/cli/f.js";\n',
        "test/h.ts": 'import "../scripts/g.js";\n',
      }),
    );
    assert.deepEqual(problems, []);
  });
});

test("circles() finds every strongly connected component once, and a file importing itself", () => {
  const edge = (from: string, to: string) => ({ from, to, typeOnly: false });
  assert.deepEqual(circles([edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d"), edge("e", "e"), edge("f", "g")]), [
    ["a", "b", "c"],
    ["e"],
  ]);
});
