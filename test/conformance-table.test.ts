import assert from "node:assert/strict";
import { test } from "node:test";
import { type Check, type Mode, serverTable } from "../scripts/conformance-table.js";

const check = (id: string, status: string, name?: string): Check => ({ id, status, ...(name && { name }) });

const run = (byMode: Partial<Record<Mode, Check[]>>, modes: Mode[] = ["alone", "proxy"]) =>
  serverTable(modes, new Map([["scenario-a", new Map(Object.entries(byMode) as [Mode, Check[]][])]]));

test("a check passed alone and failed, warned or absent behind wymcp is lost, naming the mode", () => {
  const { lost } = run(
    {
      alone: [check("a", "SUCCESS"), check("b", "SUCCESS"), check("c", "SUCCESS"), check("d", "FAILURE")],
      proxy: [check("a", "SUCCESS"), check("b", "FAILURE"), check("d", "SUCCESS")],
      gateFetch: [check("a", "WARNING"), check("b", "SUCCESS"), check("c", "SUCCESS"), check("d", "FAILURE")],
    },
    ["alone", "proxy", "gateFetch"],
  );
  assert.deepEqual(lost, ["scenario-a: a (gateFetch)", "scenario-a: b (proxy)", "scenario-a: c (proxy)"]);
});

test("repeated ids are told apart by their order, so a second occurrence lost is seen", () => {
  const { lost, table } = run({
    alone: [check("x", "SUCCESS", "Same"), check("x", "SUCCESS", "Same")],
    proxy: [check("x", "SUCCESS", "Same"), check("x", "FAILURE", "Same")],
  });
  assert.deepEqual(lost, ["scenario-a: x Same (2) (proxy)"]);
  assert.match(table, /\| x Same \(2\) +\| pass +\| FAIL +\|/);
});

test("the count is passed of passed, failed and warned: an info or a skip is not counted", () => {
  const { summary } = run({
    alone: [check("a", "SUCCESS"), check("b", "WARNING"), check("c", "FAILURE"), check("d", "INFO"), check("e", "SKIPPED")],
    proxy: [check("a", "SUCCESS"), check("b", "SUCCESS"), check("c", "FAILURE"), check("d", "INFO"), check("e", "SKIPPED")],
  });
  assert.deepEqual(summary, [["scenario-a", "1/3", "2/3"]]);
});

test("a check passed behind wymcp only is a gain of that mode, and loses nothing", () => {
  const { lost, gained } = run(
    {
      alone: [check("a", "FAILURE"), check("b", "WARNING"), check("c", "SUCCESS")],
      proxy: [check("a", "SUCCESS"), check("b", "WARNING"), check("c", "SUCCESS")],
      gateFetch: [check("a", "FAILURE"), check("b", "SUCCESS"), check("c", "SUCCESS")],
    },
    ["alone", "proxy", "gateFetch"],
  );
  assert.deepEqual(lost, []);
  assert.deepEqual(Object.fromEntries(gained), { proxy: ["scenario-a: a"], gateFetch: ["scenario-a: b"] });
});
