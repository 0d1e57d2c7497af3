/**
 * @module examples/outbound-from-env: the faces' outbound check switched on from the environment, for the
 * example server and for conformance runs. `WYMCP_OUTBOUND=report` checks every JSON-RPC message the server
 * sends; each violation is one JSON line, appended to `WYMCP_OUTBOUND_FILE` or written to stderr, and at exit
 * one summary line `{"kind":"summary","checked":N,"violations":M,"byEra":{"legacy":L,"modern":K}}` shows the checks did run
 * (`byEra`: messages checked in each era the gate judged the exchange in).
 */
import { appendFileSync } from "node:fs";
import type { OutboundCheck, Report } from "wymcp/node";

/** The check for a face's `outbound` option, and what to do with its reports (the rule `outbound`'s). */
export interface OutboundFromEnv {
  outbound?: OutboundCheck;
  onReport?: (report: Report) => void;
}

export async function outboundFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<OutboundFromEnv> {
  const mode = env.WYMCP_OUTBOUND || "off";
  if (mode === "off") return {};
  if (mode !== "report") throw new Error(`WYMCP_OUTBOUND must be "off" or "report", not ${JSON.stringify(mode)}`);
  // Loaded only here: a server not in report mode never loads the outbound validators.
  const { validateMcpResponse } = await import("../src/outbound.js");
  const file = env.WYMCP_OUTBOUND_FILE;
  const write = (record: object) => {
    const line = JSON.stringify(record);
    if (file) appendFileSync(file, `${line}\n`);
    else process.stderr.write(`wymcp outbound: ${line}\n`);
  };
  let checked = 0;
  let violations = 0;
  const byEra = { legacy: 0, modern: 0 };
  process.once("exit", () => write({ kind: "summary", checked, violations, byEra }));
  return {
    outbound: (message, context) => {
      checked++;
      byEra[context.era === "modern" ? "modern" : "legacy"]++;
      return validateMcpResponse(message, context);
    },
    onReport: (report) => {
      if (report.rule !== "outbound") return;
      violations++;
      write({ kind: "violation", ...report });
    },
  };
}
