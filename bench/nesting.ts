/**
 * @module Nesting: the first depth at which the operations a body may meet after the gate throw `RangeError` in this
 * process: V8's `JSON.stringify` and `structuredClone`, and the official SDK's Node bridge, which re-serializes a
 * body handed to it already parsed (`toWebRequest(req, parsedBody)`). The figures the `maxDepth` default stays under.
 */
import { toWebRequest } from "@modelcontextprotocol/node";
import { table } from "./measure.js";

export interface Break {
  operation: string;
  shape: "arrays" | "objects";
  /** The smallest depth that throws, or null when none up to the search bound does. */
  firstFailingDepth: number | null;
}

const SEARCH_BOUND = 200_000;

function nested(depth: number, shape: Break["shape"]): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = shape === "arrays" ? [value] : { a: value };
  return value;
}

/** Binary search for the first failing depth; failure must be monotonic in depth, which it is for stack exhaustion. */
async function firstFailing(run: (value: unknown) => unknown, shape: Break["shape"]): Promise<number | null> {
  const fails = async (depth: number) => {
    try {
      await run(nested(depth, shape));
      return false;
    } catch (error) {
      if (error instanceof RangeError) return true;
      throw error;
    }
  };
  if (!(await fails(SEARCH_BOUND))) return null;
  let ok = 1;
  let bad = SEARCH_BOUND;
  while (bad - ok > 1) {
    const mid = (ok + bad) >> 1;
    if (await fails(mid)) bad = mid;
    else ok = mid;
  }
  return bad;
}

/** A POST as the SDK's bridge sees it once a body parser (or wymcp) has read the stream. */
const fakeRequest = { method: "POST", url: "/mcp", headers: { host: "127.0.0.1", "content-type": "application/json" } };

export async function measureBreaks(): Promise<Break[]> {
  const operations: [string, (value: unknown) => unknown][] = [
    ["JSON.stringify", (value) => JSON.stringify(value)],
    ["structuredClone", (value) => structuredClone(value)],
    ["SDK toWebRequest(req, parsedBody) (what toNodeHandler runs)", (value) => toWebRequest(fakeRequest as never, value)],
  ];
  const out: Break[] = [];
  for (const [operation, run] of operations) {
    for (const shape of ["arrays", "objects"] as const) out.push({ operation, shape, firstFailingDepth: await firstFailing(run, shape) });
  }
  return out;
}

export function breaksTable(breaks: Break[]): string {
  return table(
    ["operation", "nesting", "first depth that throws"],
    breaks.map((b) => [b.operation, b.shape, b.firstFailingDepth === null ? `none up to ${SEARCH_BOUND}` : String(b.firstFailingDepth)]),
    [2],
  );
}
