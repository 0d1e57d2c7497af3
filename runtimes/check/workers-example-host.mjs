/**
 * @module The matrix's driver for examples/workers: `node workers-example-host.mjs <bundled example> <date>` serves the
 * example Worker (the SDK behind gateFetch, tool schemas precompiled by wymcp compile) through Miniflare with default
 * compatibility flags, so no eval and no nodejs_compat, and sends it tools/call requests. Prints one JSON line.
 * test/workers-example.test.ts runs the same scenarios on Node.
 */
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";

const [script, compatibilityDate] = process.argv.slice(2);

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "matrix", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function result(name, ok, detail) {
  return { name: `workers example: ${name}`, ok: Boolean(ok), detail: ok ? undefined : detail };
}

const mf = new Miniflare({ modules: true, script: readFileSync(script, "utf8"), compatibilityDate, compatibilityFlags: [] });
try {
  const call = async (name, args, params = {}) => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": String(name),
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name, arguments: args, ...params } });
    const response = await mf.dispatchFetch("http://localhost/mcp", { method: "POST", headers, body });
    const text = await response.text();
    const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
    try {
      return { status: response.status, body: JSON.parse(json), text };
    } catch {
      return { status: response.status, body: undefined, text };
    }
  };

  const results = [];
  const sum = await call("sum", { numbers: [1, 2, 3.5] });
  results.push(
    result(
      "a tools/call through the gate reaches a tool with a precompiled input schema",
      sum.status === 200 && sum.body?.result?.content?.[0]?.text === "6.5",
      sum,
    ),
  );
  const note = await call("add_note", { title: "Buy milk", body: "2 litres", tags: ["home", "shop"], due: "2026-12-24" });
  results.push(
    result(
      "a date format and a pattern pass, checked by the embedded formats",
      note.body?.result?.content?.[0]?.text === 'note "Buy milk" stored with 2 tag(s)',
      note,
    ),
  );

  const bad = await call("add_note", { title: "", body: 7, tags: ["Not OK", "Not OK"], due: "24/12/2026", colour: "red" });
  const expected =
    "Input validation error: Invalid arguments for tool add_note: 7 invalid locations: (the value) has a property the schema does not allow; " +
    "/title must be at least 1 characters long; /body must be string; and 4 more";
  results.push(
    result(
      "bad arguments are refused by the SDK with the precompiled brief answer",
      bad.body?.result?.isError === true && bad.body.result.content?.[0]?.text === expected,
      bad,
    ),
  );

  const refused = await call("sum", { numbers: [1] }, { name: 42 });
  const at = refused.body?.error?.data?.errors?.map((e) => e.instancePath);
  results.push(
    result(
      "a bad MCP message is refused 400 by the gate",
      refused.status === 400 && refused.body.error.code === -32602 && at?.includes("/params/name"),
      refused,
    ),
  );

  console.log(JSON.stringify({ nodeHttp: false, results }));
} finally {
  await mf.dispose();
}
