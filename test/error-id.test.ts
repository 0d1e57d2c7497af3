/**
 * The `"id"` of wymcp's own error answers: the request's id when it is one wymcp may echo, `null` when it cannot be
 * determined (JSON-RPC 2.0 §5), and its own outbound check (`wymcp/outbound`, `wymcp check --direction out`) accepts
 * both, through the `orNull` erratum on the error-response definitions (schemas/outbound/errata.json).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { validateMcpResponse } from "wymcp/outbound";
import { answerClientErrors, gateNode, type McpFetchHandler } from "wymcp/node";
import { wymcpFetch } from "wymcp/fetch";
import { applyErrata } from "../scripts/codegen/select-outbound.js";
import { repoRoot } from "./support/spec.js";
import { MODERN_META } from "./support/messages.js";
import { listening, rawPost } from "./support/gate-fixtures.js";

const ERAS = ["legacy", "modern"] as const;
const json = { "content-type": "application/json" };
const modernHeaders = { ...json, "mcp-protocol-version": "2026-07-28" };

/** Each kind of answer wymcp builds itself, with the id it carries. */
async function ownAnswers(): Promise<Array<{ name: string; status: number; answer: { id?: unknown } }>> {
  const guard = wymcpFetch({
    limits: { maxBodyBytes: 1000, maxDepth: 4 },
    era: (req) => (req.headers.get("mcp-protocol-version") ? "modern" : "legacy"),
  });
  const cases: Array<[string, Record<string, string>, string]> = [
    ["415 (wrong media type)", { "content-type": "text/plain" }, "{}"],
    ["413 (body over the limit)", json, "x".repeat(1001)],
    ["400/-32700 (not JSON)", json, "{"],
    ["400 too deep, no id", json, '{"a":[[[[1]]]]}'],
    ["400 too deep, with id", json, '{"jsonrpc":"2.0","id":3,"method":"x","params":[[[1]]]}'],
    ["400/-32600 legacy, echoed id", json, '{"jsonrpc":"1.0","id":"a","method":"ping"}'],
    ["400/-32600 invalid id", json, '{"jsonrpc":"2.0","id":true,"method":"ping"}'],
    [
      "400/-32602 modern, echoed id",
      modernHeaders,
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name: 1 } }),
    ],
    ["400/-32600 not a message", json, "[]"],
  ];
  const out = [];
  for (const [name, headers, body] of cases) {
    const refused = await guard(new Request("http://localhost/mcp", { method: "POST", headers, body }));
    assert.ok(refused, name);
    out.push({ name, status: refused.status, answer: (await refused.json()) as { id?: unknown } });
  }
  return out;
}

describe("wymcp's own error answers pass its own outbound check", () => {
  test("every kind of refusal carries an echoed id or null, and passes validateMcpResponse in both eras", async () => {
    const answers = await ownAnswers();
    const ids = Object.fromEntries(answers.map((a) => [a.name, a.answer.id]));
    assert.deepEqual(ids, {
      "415 (wrong media type)": null,
      "413 (body over the limit)": null,
      "400/-32700 (not JSON)": null,
      "400 too deep, no id": null,
      "400 too deep, with id": 3,
      "400/-32600 legacy, echoed id": "a",
      "400/-32600 invalid id": null,
      "400/-32602 modern, echoed id": 5,
      "400/-32600 not a message": null,
    });
    for (const { name, answer } of answers) {
      for (const era of ERAS)
        assert.equal(
          validateMcpResponse(answer, { era }).outcome,
          "pass",
          `${name} (${era}): ${JSON.stringify(validateMcpResponse(answer, { era }))}`,
        );
    }
  });

  test("the clientError answer (no request parsed, so id null) passes too", async () => {
    const server = await listening(
      answerClientErrors(http.createServer(gateNode({ fetch: async () => new Response(null) } satisfies McpFetchHandler))),
    );
    try {
      const { port } = new URL(server.url);
      const text = await new Promise<string>((resolve, reject) => {
        let got = "";
        const socket = net.connect(Number(port), "127.0.0.1", () =>
          socket.write("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n"),
        );
        socket
          .setEncoding("utf8")
          .on("data", (chunk: string) => (got += chunk))
          .on("end", () => resolve(got))
          .on("error", reject);
      });
      assert.match(text, /^HTTP\/1\.1 400 /);
      const answer = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { id: unknown };
      assert.equal(answer.id, null);
      for (const era of ERAS) assert.equal(validateMcpResponse(answer, { era }).outcome, "pass");
    } finally {
      await server.close();
    }
  });

  test("a 500 from gateNode for a request it could not read an id from carries null and passes", async () => {
    const server = await listening(http.createServer(gateNode({ fetch: async () => Promise.reject(new Error("boom")) })));
    try {
      const answer = await rawPost(server.url, json, '{"jsonrpc":"2.0","method":"notifications/x"}');
      assert.equal(answer.status, 500);
      const body = JSON.parse(answer.text) as { id: unknown };
      assert.equal(body.id, null);
      for (const era of ERAS) assert.equal(validateMcpResponse(body, { era }).outcome, "pass");
    } finally {
      await server.close();
    }
  });
});

describe("the outbound check on id null: an erratum for error responses only", () => {
  const error = (id: unknown) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request" } });

  test("an error response with id null passes in both eras; one with id true or 1.5 still fails", () => {
    for (const era of ERAS) {
      assert.equal(validateMcpResponse(error(null), { era }).outcome, "pass", era);
      assert.equal(validateMcpResponse(error(true), { era }).outcome, "violation", era);
      assert.equal(validateMcpResponse(error(1.5), { era }).outcome, "violation", era);
    }
  });

  test("typed error responses take the erratum too (modern -32020 HeaderMismatchError with id null)", () => {
    const mismatch = { jsonrpc: "2.0", id: null, error: { code: -32020, message: "Bad Request: the request headers and body disagree" } };
    assert.deepEqual(validateMcpResponse(mismatch, { era: "modern" }), {
      outcome: "pass",
      kind: "error",
      definition: "HeaderMismatchError",
      revision: "2026-07-28",
    });
  });

  test("a result response with id null is still a violation: JSON-RPC allows null only on errors", () => {
    for (const era of ERAS) assert.equal(validateMcpResponse({ jsonrpc: "2.0", id: null, result: {} }, { era }).outcome, "violation", era);
  });

  test("orNull turns a lone $ref into anyOf [$ref, null] on a copy; already so is recorded; anything else stops codegen", () => {
    const defs = { E: { type: "object", properties: { id: { $ref: "#/$defs/RequestId" } } } };
    const erratum = [{ definition: "E", property: "id", orNull: true as const }];
    const { defs: out, applied } = applyErrata(defs, erratum, "r");
    assert.deepEqual((out.E as typeof defs.E).properties.id, { anyOf: [{ $ref: "#/$defs/RequestId" }, { type: "null" }] });
    assert.deepEqual(defs.E.properties.id, { $ref: "#/$defs/RequestId" });
    assert.deepEqual(
      applied.map((a) => a.outcome),
      ["applied"],
    );
    assert.deepEqual(
      applyErrata(out, erratum, "r").applied.map((a) => a.outcome),
      ["already-so"],
    );
    assert.throws(() => applyErrata({ E: { properties: { id: { type: "string" } } } }, erratum, "r"), /erratum E\.id of r \(or null\)/);
  });
});

describe("wymcp check --direction out agrees", () => {
  const cli = join(repoRoot, "dist", "cli.js");
  before(() => {
    if (!existsSync(cli)) spawnSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
  });

  test("a refusal with id null read from stdin is reported as conforming in both eras", () => {
    for (const era of ERAS) {
      const run = spawnSync(process.execPath, [cli, "check", "--direction", "out", "--era", era], {
        input: JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not valid JSON" } }),
        encoding: "utf8",
      });
      assert.equal(run.status, 0, `${era}: ${run.stdout}${run.stderr}`);
    }
  });
});
