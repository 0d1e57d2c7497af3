import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { eras } from "../generated/index.js";
import { outbound } from "../generated/outbound.js";
import { readSpecSchema, repoRoot, type JsonObject } from "./support/spec.js";

const config = JSON.parse(readFileSync(join(repoRoot, "schemas", "legacy.json"), "utf8")) as {
  revision: string;
  revisions: { list: string[]; requestUnion: string; notificationUnion: string; withoutHeader: string };
};
const legacy = eras.legacy;

/** Method → definition of a union's members, read from the official file (draft-07 revisions keep `definitions`). */
function unionOf(revision: string, union: string): Array<[string, string]> {
  const schema = readSpecSchema(revision);
  const defs = (schema.$defs ?? schema.definitions) as Record<string, JsonObject>;
  const members = ((defs[union]!.anyOf ?? defs[union]!.oneOf) as JsonObject[]).map((m) => String(m.$ref).split("/").pop()!);
  return members.map((definition) => [((defs[definition]!.properties as JsonObject).method as JsonObject).const as string, definition]);
}

describe("the legacy lane's per-revision method tables", () => {
  test("schemas/legacy.json names the four legacy revisions, oldest first, ending with the era's own", () => {
    assert.deepEqual(config.revisions.list, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
    assert.equal(config.revisions.list.at(-1), config.revision);
    assert.deepEqual([...legacy.revisions.keys()], config.revisions.list);
    assert.equal(legacy.revisionWithoutHeader, "2025-03-26");
  });

  for (const revision of config.revisions.list) {
    test(`${revision}: requests and notifications are that revision's ClientRequest and ClientNotification unions, in order`, () => {
      const tables = legacy.revisions.get(revision as never)!;
      assert.deepEqual(
        [...tables.requests].map(([method, { definition }]) => [method, definition]),
        unionOf(revision, config.revisions.requestUnion),
      );
      assert.deepEqual(
        [...tables.notifications].map(([method, { definition }]) => [method, definition]),
        unionOf(revision, config.revisions.notificationUnion),
      );
    });
  }

  test("a definition identical across revisions is one validator; one that differs is not", () => {
    const validator = (revision: string, method: string) => legacy.revisions.get(revision as never)!.requests.get(method)!.validate;
    // CallToolRequest did not change from 2024-11-05 to 2025-06-18; 2025-11-25 made it a whole JSON-RPC request.
    assert.equal(validator("2024-11-05", "tools/call"), validator("2025-06-18", "tools/call"));
    assert.notEqual(validator("2025-06-18", "tools/call"), validator("2025-11-25", "tools/call"));
    // initialize changed at 2025-06-18 (title, ...) and again at 2025-11-25.
    assert.equal(validator("2024-11-05", "initialize"), validator("2025-03-26", "initialize"));
    assert.notEqual(validator("2025-03-26", "initialize"), validator("2025-06-18", "initialize"));
    const all = [...legacy.revisions.values()].flatMap((t) => [...t.requests.values(), ...t.notifications.values()].map((m) => m.validate));
    const distinct = new Set(all).size;
    assert.ok(distinct < all.length / 2 + 10, `${distinct} distinct validators for ${all.length} methods`);
  });

  test("the 2025-11-25 validators are the module's bare exports (the era's own revision)", () => {
    const exports = legacy as unknown as Record<string, unknown>;
    for (const [method, { definition, validate }] of legacy.revisions.get("2025-11-25")!.requests) {
      assert.equal(validate, exports[definition], method);
    }
  });

  test("the era-wide method table stays empty: framing mode judges no method", () => {
    assert.equal(legacy.methods.size, 0);
  });
});

describe("the legacy outbound tables per revision", () => {
  test("every revision has results for its requests, and the era's own revision's tables are the top-level ones", () => {
    assert.deepEqual([...outbound.legacy.revisions.keys()], config.revisions.list);
    const own = outbound.legacy.revisions.get("2025-11-25")!;
    assert.equal(own.results, outbound.legacy.results);
    assert.equal(own.notifications, outbound.legacy.notifications);
    for (const revision of config.revisions.list) {
      const tables = outbound.legacy.revisions.get(revision as never)!;
      for (const [method] of unionOf(revision, "ClientRequest")) assert.ok(tables.results.has(method), `${revision} ${method}`);
      for (const [method, definition] of unionOf(revision, "ServerNotification")) {
        assert.equal(tables.notifications.get(method)?.definition, definition, `${revision} ${method}`);
      }
    }
    // 2024-11-05 had no elicitation and no tasks.
    assert.equal(outbound.legacy.revisions.get("2024-11-05")!.requests.has("elicitation/create"), false);
    assert.equal(outbound.legacy.revisions.get("2024-11-05")!.results.has("tasks/get"), false);
  });

  test("the modern module has one revision, its own", () => {
    assert.deepEqual([...outbound.modern.revisions.keys()], ["2026-07-28"]);
  });
});
