/**
 * The words of an answer, built from a validator error's schema facts alone (distill.ts `describe`): one case per
 * keyword, including those only the outbound checks and `wymcp compile` meet.
 */
import assert from "node:assert/strict";
import { describe as suite, test } from "node:test";
import fc from "fast-check";
import type { ValidationError } from "../generated/validator.js";
import { comparePointers, describe, distill, entriesLength, escapePointer, groupErrors, LIMITS } from "../src/core/distill.js";
import { ERROR_BUDGET } from "../src/core/error-budget.js";
import type { LocatedError } from "../src/core/envelope.js";

const error = (keyword: string, params: Record<string, unknown>, instancePath = "/params/x"): ValidationError =>
  ({ keyword, params, instancePath, schemaPath: "#/x" }) as ValidationError;

const CASES: Array<[string, ValidationError, { location: string; message: string }]> = [
  ["type, one", error("type", { type: "string" }), { location: "/params/x", message: "must be string" }],
  [
    "type, two as Ajv joins them",
    error("type", { type: "string,integer" }),
    { location: "/params/x", message: "must be string or integer" },
  ],
  [
    "type, three as an array",
    error("type", { type: ["string", "number", "null"] }),
    { location: "/params/x", message: "must be string, number or null" },
  ],
  ["const", error("const", { allowedValue: "2.0" }), { location: "/params/x", message: 'must equal "2.0"' }],
  ["enum", error("enum", { allowedValues: ["a", 1, null] }), { location: "/params/x", message: 'must be one of "a", 1, null' }],
  ["format", error("format", { format: "uri" }), { location: "/params/x", message: 'must be a valid "uri" string' }],
  ["anyOf", error("anyOf", {}), { location: "/params/x", message: "must match one of the allowed shapes" }],
  ["oneOf", error("oneOf", {}), { location: "/params/x", message: "must match exactly one of the allowed shapes" }],
  ["minimum", error("minimum", { comparison: ">=", limit: 0 }), { location: "/params/x", message: "must be >= 0" }],
  ["maximum", error("maximum", { comparison: "<=", limit: 1 }), { location: "/params/x", message: "must be <= 1" }],
  ["exclusiveMinimum", error("exclusiveMinimum", { comparison: ">", limit: 0 }), { location: "/params/x", message: "must be > 0" }],
  ["exclusiveMaximum", error("exclusiveMaximum", { comparison: "<", limit: 9 }), { location: "/params/x", message: "must be < 9" }],
  ["maxItems", error("maxItems", { limit: 3 }), { location: "/params/x", message: "must have at most 3 items" }],
  ["minItems", error("minItems", { limit: 1 }), { location: "/params/x", message: "must have at least 1 items" }],
  ["maxLength", error("maxLength", { limit: 8 }), { location: "/params/x", message: "must be at most 8 characters long" }],
  ["minLength", error("minLength", { limit: 2 }), { location: "/params/x", message: "must be at least 2 characters long" }],
  ["pattern", error("pattern", { pattern: "^a+$" }), { location: "/params/x", message: 'must match pattern "^a+$"' }],
  ["any other keyword", error("uniqueItems", { i: 1, j: 2 }), { location: "/params/x", message: 'fails the schema\'s "uniqueItems" rule' }],
  [
    "required: the missing member is located, escaped",
    error("required", { missingProperty: "a/b~c" }),
    { location: "/params/x/a~1b~0c", message: "is required" },
  ],
  ["required at the message itself", error("required", { missingProperty: "id" }, ""), { location: "/id", message: "is required" }],
  // wymcp compile's schemas may use these; Ajv names the missing member as for `required`.
  [
    "dependentRequired: the missing member is located",
    error("dependentRequired", { property: "a", missingProperty: "b", depsCount: 1, deps: "b" }),
    { location: "/params/x/b", message: "is required" },
  ],
  [
    "dependencies (draft-07): the missing member is located",
    error("dependencies", { property: "a", missingProperty: "c/d", depsCount: 1, deps: "c/d" }),
    { location: "/params/x/c~1d", message: "is required" },
  ],
];

suite("describe: a validator error in the answer's words", () => {
  for (const [name, given, want] of CASES) test(name, () => assert.deepEqual(describe(given), want));

  test("a location longer than the bound keeps its first characters and ends in an ellipsis", () => {
    // Segments of 39 characters, under the 64-character cut of a single key (log-safe.ts).
    const exact = `/${"a".repeat(39)}`.repeat(LIMITS.locationLength / 40);
    assert.equal(describe(error("type", { type: "string" }, exact)).location, exact);
    const over = `${exact}b`;
    assert.equal(describe(error("type", { type: "string" }, over)).location, `${exact}…`);
    const missing = describe(error("required", { missingProperty: "k".repeat(500) }, ""));
    // One key: the 64-character cut of a key comes first (log-safe.ts).
    assert.equal(missing.location, `/${"k".repeat(64)}…`);
  });
});

suite("groupErrors: the one distiller, with a face's own words and bounds", () => {
  test("each location once, sorted, its messages merged in the face's words and bounded in count and length", () => {
    const words = (keyword: string) => `breaks ${keyword}`;
    const errors = [
      error("type", { type: "string" }, "/b"),
      error("minimum", { comparison: ">=", limit: 1 }, "/a"),
      error("maximum", { comparison: "<=", limit: 9 }, "/a"),
      error("pattern", { pattern: "x" }, "/a"),
      error("required", { missingProperty: "z".repeat(50) }, ""),
    ];
    const { byLocation, locations, total } = groupErrors(errors, { examinedErrors: 10, messagesPerLocation: 2, locationLength: 20 }, words);
    assert.deepEqual(locations, ["/a", "/b", `/${"z".repeat(19)}…`]);
    assert.deepEqual([...byLocation.get("/a")!.messages], ["breaks minimum", "breaks maximum"]);
    assert.equal(byLocation.get("/a")!.problems, 3);
    assert.deepEqual([...byLocation.get(`/${"z".repeat(19)}…`)!.messages], ["is required"]);
    assert.equal(total, 5);
  });

  test("past examinedErrors, errors are counted but not looked at", () => {
    const errors = Array.from({ length: 5 }, (_, i) => error("type", { type: "string" }, `/${i}`));
    const { locations, total } = groupErrors(errors, { examinedErrors: 2, messagesPerLocation: 6, locationLength: 200 });
    assert.deepEqual(locations, ["/0", "/1"]);
    assert.equal(total, 5);
  });
});

suite("escapePointer", () => {
  test("escapes ~ before / (RFC 6901), and leaves other keys as they are", () => {
    assert.equal(escapePointer("a~1"), "a~01");
    assert.equal(escapePointer("~/"), "~0~1");
    assert.equal(escapePointer("a/b/c"), "a~1b~1c");
    assert.equal(escapePointer("plain key"), "plain key");
  });
});

const at = (instancePath: string, keyword = "type", params: Record<string, unknown> = { type: "string" }) =>
  error(keyword, params, instancePath);

suite("distill: merging, counting and the summary's first problem", () => {
  test("keeps at most 6 distinct messages for one location", () => {
    const errors = Array.from({ length: 8 }, (_, i) => at("/a", "const", { allowedValue: i }));
    assert.deepEqual(
      distill(errors, "X").data.errors[0]!.messages,
      [0, 1, 2, 3, 4, 5].map((i) => `must equal ${i}`),
    );
  });

  test("counts locations exactly below the error budget, and says N+ from it on (a validator stops there) and past 1000 examined", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => at(`/${i}`));
    assert.match(distill(many(ERROR_BUDGET - 1), "X").message, new RegExp(`: ${ERROR_BUDGET - 1} invalid locations;`));
    assert.match(distill(many(ERROR_BUDGET), "X").message, new RegExp(`: ${ERROR_BUDGET}\\+ invalid locations;`));
    assert.match(distill(many(1001), "X").message, /: 1000\+ invalid locations;/);
    assert.equal(distill(many(1001), "X").data.omitted, 1001 - LIMITS.entries);
  });

  test("the summary names the first location with a concrete problem, and that problem, not the union's", () => {
    const union = at("/a", "anyOf", {});
    assert.match(distill([union, at("/a"), at("/b", "const", { allowedValue: 1 })], "X").message, /first: \/a must be string$/);
    assert.match(distill([union, at("/b", "const", { allowedValue: 1 })], "X").message, /first: \/b must equal 1$/);
    assert.match(distill([union], "X").message, /first: \/a must match one of the allowed shapes$/);
  });

  test("an answer over its byte budget lists the entries that fit, whole, and counts the rest as omitted", () => {
    // 20 locations with 6 long messages each: about 9 KB listed whole, half as much again as the budget.
    const locations = Array.from({ length: 20 }, (_, i) => `/${String(i).padStart(2, "0")}`);
    const messagesAt = (location: string) =>
      Array.from({ length: 6 }, (_, m) => at(location, "const", { allowedValue: `${m}${"v".repeat(60)}` }));
    const errors = locations.flatMap(messagesAt);
    const { data } = distill(errors, "X");
    const listed = data.errors.length;
    assert.ok(listed >= 1 && listed < 20, `${listed} listed`);
    assert.deepEqual(
      data.errors.map((e) => e.instancePath),
      locations.slice(0, listed),
    );
    assert.equal(data.omitted, (20 - listed) * 6);
    const bytes = Buffer.byteLength(JSON.stringify(data.errors));
    assert.equal(entriesLength(data.errors), bytes);
    const next =
      Buffer.byteLength(
        JSON.stringify([
          {
            instancePath: locations[listed]!,
            messages: messagesAt(locations[listed]!).map((e) => `must equal ${JSON.stringify(e.params.allowedValue)}`),
          },
        ]),
      ) - 1;
    assert.ok(bytes <= LIMITS.entriesBytes && bytes + next > LIMITS.entriesBytes, `${bytes} bytes, the next entry ${next}`);
  });

  test("entries that fill the byte budget exactly are listed, and one byte more leaves the last of them out", () => {
    const constAt = (location: string, length: number) => at(location, "const", { allowedValue: "v".repeat(length) });
    const entryBytes = (length: number) => entriesLength([{ instancePath: "/a", messages: [`must equal "${"v".repeat(length)}"`] }]) - 2;
    // Two entries of exactly the budget as JSON ([, the two, the comma between, ]), then a third that cannot fit.
    const second = LIMITS.entriesBytes - 3 - entryBytes(2900) - entryBytes(0);
    const exact = distill([constAt("/a", 2900), constAt("/b", second), constAt("/c", 10)], "X").data;
    assert.deepEqual(
      exact.errors.map((e) => e.instancePath),
      ["/a", "/b"],
    );
    assert.equal(entriesLength(exact.errors), LIMITS.entriesBytes);
    assert.equal(exact.omitted, 1);
    const over = distill([constAt("/a", 2900), constAt("/b", second + 1), constAt("/c", 10)], "X").data;
    assert.deepEqual(
      over.errors.map((e) => e.instancePath),
      ["/a"],
    );
    assert.equal(over.omitted, 2);
  });

  test("an answer whose bytes are mostly its locations (three UTF-8 bytes a character) is held to the budget too", () => {
    // 20 locations of 186 characters (segments stay under the 64-character cut) and one short message each: about 11 KB listed whole.
    const locations = Array.from({ length: 20 }, (_, i) => `/${String(i).padStart(2, "0")}${`/${"語".repeat(60)}`.repeat(3)}`);
    const { data } = distill(
      locations.map((location) => at(location)),
      "X",
    );
    assert.ok(data.errors.length >= 1 && data.errors.length < 20, `${data.errors.length} listed`);
    assert.ok(entriesLength(data.errors) <= LIMITS.entriesBytes, `${entriesLength(data.errors)} bytes`);
    assert.equal(data.omitted, 20 - data.errors.length);
  });
});

suite("entriesLength", () => {
  test("is the UTF-8 length of the entries as JSON, counted without building it", () => {
    const cases: LocatedError[][] = [
      [],
      [{ instancePath: "", messages: [] }],
      [{ instancePath: "/id", messages: ["is required"] }],
      [
        { instancePath: "/a", messages: ["x", "y", "z"] },
        { instancePath: '/é✓/\u0001"\\', messages: ['must equal "2.0"'] },
        { instancePath: "/😀", messages: ["m"] },
      ],
    ];
    for (const entries of cases) assert.equal(entriesLength(entries), Buffer.byteLength(JSON.stringify(entries)), JSON.stringify(entries));
  });
});

/** The order by definition: segment by segment, two all-digit segments of different lengths as numbers, prefixes first. */
function referenceOrder(a: string, b: string): number {
  const x = a.split("/").slice(1);
  const y = b.split("/").slice(1);
  if (a === "" || b === "") return a === b ? 0 : a === "" ? -1 : 1;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [s, t] = [x[i]!, y[i]!];
    if (s === t) continue;
    const digits = /^\d+$/;
    if (digits.test(s) && digits.test(t) && s.length !== t.length) return s.length - t.length;
    return s < t ? -1 : 1;
  }
  return x.length - y.length;
}

suite("comparePointers", () => {
  test("orders any two pointers as the definition does", () => {
    const pointer = fc
      .array(fc.stringMatching(/^[a0-9~]{0,3}$/), { maxLength: 4 })
      .map((segments) => segments.map((s) => `/${s}`).join(""));
    fc.assert(
      fc.property(pointer, pointer, (a, b) => {
        assert.equal(Math.sign(comparePointers(a, b)), Math.sign(referenceOrder(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      }),
      { numRuns: 3000, seed: 20261203 },
    );
  });

  test("fixed cases: prefixes first, indices numerically, an empty segment before any other", () => {
    const sign = (a: string, b: string) => Math.sign(comparePointers(a, b));
    assert.deepEqual([sign("/a", "/a/b"), sign("/a/b", "/a"), sign("", "/a"), sign("/a", ""), sign("/a", "/a")], [-1, 1, -1, 1, 0]);
    assert.deepEqual([sign("/9", "/10"), sign("/10", "/9"), sign("/1a", "/10"), sign("//x", "/a"), sign("/a/", "/a")], [-1, 1, 1, -1, 1]);
    // Characters below '0' and above '9' make a segment text: it sorts as text against an index of another length.
    assert.deepEqual([sign("/--", "/9"), sign("/9", "/--"), sign("/::", "/9")], [-1, 1, 1]);
  });
});
