import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { validateMcpRequest } from "wymcp";
import { validateMcpResponse } from "wymcp/outbound";
import { eras } from "../generated/index.js";
import { KEPT_KEY_UNITS } from "../src/codegen/bound-keys.js";
import { escapeSegment, escapeText, cutEscaped, safePointer, SEGMENT_LENGTH } from "../src/core/log-safe.js";
import { generate } from "../fuzz/adversarial/cases.js";
import { headersFor, judgeCli, judgeParsed } from "../fuzz/adversarial/judge-path.js";
import { longName, longNameTargets, NAME_STYLES, ROUTE_ITEMS } from "../fuzz/adversarial/long-names.js";
import { MODERN_META } from "./support/messages.js";
import { printable } from "../src/check/render.js";

/** The red team's case: a modern tools/call answering a sampling request with 80 content items no branch admits. */
function redTeamCall(name: string) {
  const bad = Array.from({ length: 80 }, () => ({ type: "adversarial" }));
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      _meta: MODERN_META,
      name: "echo",
      inputResponses: { [name]: { role: "assistant", model: "m", content: bad } },
    },
  };
}

const MIB = 1024 * 1024;

const targets = longNameTargets(generate().targets);

describe("a long member name costs no more than what an answer shows of it", () => {
  test("the red team's case (one 1 MiB name over 80 bad sampling items) is answered as the same message with the name cut to its shown units", () => {
    for (const style of NAME_STYLES) {
      const name = longName(style, MIB);
      const long = validateMcpRequest(redTeamCall(name), "modern");
      const cut = validateMcpRequest(redTeamCall(name.slice(0, KEPT_KEY_UNITS)), "modern");
      assert.equal(long.outcome, "reject", style);
      assert.deepEqual(long, cut, style);
      if (long.outcome !== "reject") continue;
      assert.equal(long.response.error.code, -32602);
      // The name's segment is cut after SEGMENT_LENGTH characters and marked.
      const segment = long.response.error.data!.errors[0]!.instancePath.split("/")[3]!;
      assert.ok(segment.endsWith("…") && segment.length <= SEGMENT_LENGTH + 1, segment);
    }
  });

  test("the generated validators keep at most KEPT_KEY_UNITS units of a name in every error location, however long the name", () => {
    const validate = eras.modern.methods.get("tools/call")!.validate;
    for (const length of [KEPT_KEY_UNITS + 1, MIB, 4 * MIB - 4096]) {
      assert.equal(validate(redTeamCall("x".repeat(length))), false);
      const errors = validate.errors ?? [];
      assert.ok(errors.length >= 64, `${errors.length} errors`);
      for (const error of errors) {
        const longest = Math.max(...error.instancePath.split("/").map((s) => s.length));
        assert.ok(longest <= KEPT_KEY_UNITS, `a segment of ${longest} units in an error of a ${length}-unit name`);
      }
      // The union tags the likely-branch choice reads are locations too.
      for (const error of errors as Array<{ branches?: unknown[] }>) {
        for (const tag of error.branches ?? []) if (typeof tag === "string") assert.ok(tag.length < 200, tag.slice(0, 80));
      }
    }
  });

  test("a name shorter than the kept units is located whole, `~` and `/` escaped as JSON Pointer asks", () => {
    const validate = eras.modern.methods.get("tools/call")!.validate;
    assert.equal(validate(redTeamCall("a/b~c")), false);
    assert.ok(validate.errors!.some((e) => e.instancePath.startsWith("/params/inputResponses/a~1b~0c/")));
  });

  test("escapeSegment gives escapeText then cutEscaped's result, for any segment and any place in a pointer", () => {
    const unit = fc.constantFrom(
      "a",
      "~0",
      "~1",
      "\\",
      "\u0007",
      "\u001b",
      "\u2028",
      "\u2026",
      "\u202e",
      "\ud83d\ude00",
      "\ud83d",
      "\ude00",
      "é",
      "u",
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 90 }).map((a) => a.join("")),
        fc.string({ maxLength: 5 }),
        (segment, before) => {
          const escaped = escapeText(segment);
          const want = escaped.length <= SEGMENT_LENGTH ? escaped : cutEscaped(escaped, SEGMENT_LENGTH);
          assert.equal(escapeSegment(segment), want);
          const clean = before.replace(/[/~\\]/g, "");
          assert.equal(escapeSegment(`${clean}/${segment}/x`, clean.length + 1, clean.length + 1 + segment.length), want);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("wymcp check's printable is the core's escaping, and a text of megabytes prints as its first units do", () => {
    const unit = fc.constantFrom("a", "\\", "u", "\u001b", "\u2028", "\ud83d\ude00", "\ud83d", "\ude00", "~0");
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 80 }).map((a) => a.join("")),
        fc.integer({ min: 1, max: 40 }),
        (text, max) => {
          assert.equal(printable(text, max), escapeText(text, max));
          // Every unit prints as at least one character: what follows the first max + 1 units cannot change the output.
          assert.equal(printable(`${text}${"\u2028".repeat(4 * MIB)}`, max), printable(`${text}${"\u2028".repeat(max + 1)}`, max));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("safePointer of a pointer with a 4 MiB segment is that segment's kept prefix, the segments after it kept", () => {
    const pointer = `/params/${"\u2028".repeat(4 * MIB)}/content/7`;
    assert.equal(safePointer(pointer), `/params/${"\\u2028".repeat(10)}…/content/7`);
  });

  test("every long-name target of every lane, in every style, is judged as its cut twin, inbound and outbound and by wymcp check", () => {
    assert.ok(targets.some((t) => t.via === "route" && t.lane === "inbound-modern" && t.label.startsWith("CreateMessageResult.content")));
    assert.ok(targets.some((t) => t.lane === "outbound-modern") && targets.some((t) => t.lane === "outbound-legacy"));
    for (const target of targets) {
      for (const style of NAME_STYLES) {
        const name = longName(style, 256 * 1024);
        const long = target.withName(name);
        const cut = target.withName(name.slice(0, KEPT_KEY_UNITS));
        const judged = judgeParsed(target.base, JSON.parse(JSON.stringify(long)), headersFor(target.base, long));
        const twin = judgeParsed(target.base, JSON.parse(JSON.stringify(cut)), headersFor(target.base, cut));
        const label = `${target.lane} ${target.via} ${target.label} ${style}`;
        assert.equal(judged.rejected, target.rejects, label);
        assert.deepEqual(judged, twin, label);
      }
    }
    // wymcp check: one route case per direction, bytes in, the same verdict as its cut twin.
    for (const lane of ["inbound-modern", "outbound-modern"]) {
      const target = targets.find((t) => t.lane === lane && t.via === "route")!;
      const name = longName("mixed", MIB);
      const long = judgeCli(target.base, Buffer.from(JSON.stringify(target.withName(name))));
      const cut = judgeCli(target.base, Buffer.from(JSON.stringify(target.withName(name.slice(0, KEPT_KEY_UNITS)))));
      assert.deepEqual(long, cut, lane);
    }
  });

  test("an outbound result with a 1 MiB name over bad items is answered as its cut twin (validateMcpResponse)", () => {
    const target = targets.find((t) => t.lane === "outbound-modern" && t.via === "route")!;
    const name = longName("u2028", MIB);
    const options = { era: target.era, method: target.base.root.method };
    const long = validateMcpResponse(target.withName(name), options);
    const cut = validateMcpResponse(target.withName(name.slice(0, KEPT_KEY_UNITS)), options);
    assert.equal(long.outcome, "violation");
    assert.deepEqual(long, cut);
    assert.equal(ROUTE_ITEMS, 80);
  });
});
