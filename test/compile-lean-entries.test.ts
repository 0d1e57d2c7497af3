import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { staticGraph } from "./support/graph.js";
import { repoRoot } from "./support/spec.js";

const dist = join(repoRoot, "dist");
const COMPILERS = /^(?:ajv|ajv-formats|json-schema-to-typescript|re2js)(?:\/|$)/;

for (const entry of ["index.js", "node-http.js", "fetch.js", "outbound.js", "otel.js"]) {
  test(`dist/${entry} never loads Ajv, ajv-formats, json-schema-to-typescript, re2js or the compiler`, () => {
    const { files, bare, dynamic } = staticGraph(join(dist, entry));
    for (const specifier of [...bare, ...dynamic]) assert.doesNotMatch(specifier, COMPILERS, specifier);
    assert.deepEqual([...dynamic], [], "no lazy import either");
    for (const file of files)
      assert.doesNotMatch(readFileSync(file, "utf8"), /^\/\/ src\/(?:cli\/)?compile\//m, `${file} carries the compiler`);
  });
}

test("dist/cli.js loads the compiler only when `wymcp compile` runs: a dynamic import of a chunk of its own", () => {
  const { bare, dynamic } = staticGraph(join(dist, "cli.js"));
  for (const specifier of bare) assert.doesNotMatch(specifier, COMPILERS, specifier);
  // Each command is a chunk of its own (`command-*.js`); exactly one of them, compile's, imports the compilers.
  const chunks = [...dynamic].filter((s) => /^\.\/command-[\w-]+\.js$/.test(s));
  const compilers = chunks.filter((chunk) => [...staticGraph(join(dist, chunk)).bare].some((s) => COMPILERS.test(s)));
  assert.equal(compilers.length, 1, `the command chunks ${chunks.join(", ")}: one imports the compilers`);
});

/** The chunk `wymcp compile` runs: the one command chunk that imports the compilers. */
function compileChunk(): string {
  const chunks = [...staticGraph(join(dist, "cli.js")).dynamic].filter((s) => /^\.\/command-[\w-]+\.js$/.test(s));
  const found = chunks.find((chunk) => [...staticGraph(join(dist, chunk)).bare].some((s) => COMPILERS.test(s)));
  assert.ok(found, "a command chunk imports the compilers");
  return found;
}

const CLIENT = /^@modelcontextprotocol\/client(?:\/|$)/;

test("the official client (for --from and --from-stdio) is loaded by those flags only: a chunk the compile chunk imports lazily", () => {
  for (const entry of ["index.js", "node-http.js", "fetch.js", "outbound.js", "cli.js"]) {
    const { bare } = staticGraph(join(dist, entry));
    for (const specifier of bare) assert.doesNotMatch(specifier, CLIENT, `${entry} loads ${specifier}`);
  }
  const compile = staticGraph(join(dist, compileChunk()));
  for (const specifier of compile.bare) assert.doesNotMatch(specifier, CLIENT, `wymcp compile from files loads ${specifier}`);
  const lazy = [...compile.dynamic].filter((s) => /^\.\/from-server-\w+\.js$/.test(s));
  assert.equal(lazy.length, 1, "one lazily imported chunk talks to servers");
  assert.ok(
    [...staticGraph(join(dist, lazy[0]!)).bare].some((s) => CLIENT.test(s)),
    "that chunk imports the client",
  );
});
