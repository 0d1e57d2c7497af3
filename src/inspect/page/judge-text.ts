/**
 * @module judge-text: a pasted or dropped text judged in the browser by `wymcp check`'s own judging (check/capture.ts):
 * a HAR file, one JSON message, or JSONL, as one capture, under the era and revision picked. No host type.
 */
import { resolveLimits } from "../../options/options.js";
import { harMessageContext, judgeInCapture, type RequestEra } from "../../check/capture.js";
import { Exchange } from "../../check/exchange.js";
import { harMessages } from "../../check/har.js";
import type { JudgeOptions } from "../../check/judge.js";
import { Negotiations } from "../../check/negotiation.js";
import type { RowInput } from "../row.js";

/** The era and revision to judge under: `auto` reads them from the messages, as `wymcp check` does. */
export interface Choice {
  era: "auto" | "legacy" | "modern";
  /** A revision's MCP-Protocol-Version header for every message (a legacy one), or undefined. */
  revision?: string;
}

/** The revisions a pick offers; the last is the modern era's. */
export const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;

function optionsOf({ era, revision }: Choice): JudgeOptions {
  const modern = revision === REVISIONS[REVISIONS.length - 1];
  return {
    era: revision === undefined ? era : modern ? "modern" : "legacy",
    direction: "auto",
    headers: revision === undefined || modern ? {} : { "mcp-protocol-version": revision },
    method: undefined,
    settings: { ...resolveLimits({}) },
  };
}

function isHar(value: unknown): boolean {
  const log = (value as { log?: { entries?: unknown } } | null)?.log;
  return typeof value === "object" && value !== null && Array.isArray(log?.entries);
}

/**
 * Judges `text` as a capture named `source`: a HAR file (an object with `log.entries`), else one JSON value, else one
 * message per line.
 * @example judgeText('{"jsonrpc":"2.0","id":1,"method":"ping"}', "pasted", { era: "auto" })[0].verdict.outcome // "pass"
 */
export function judgeText(text: string, source: string, choice: Choice): RowInput[] {
  const options = optionsOf(choice);
  const exchange = new Exchange();
  const negotiated = new Negotiations();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const rows: RowInput[] = [];
  let whole: unknown;
  let parsed = false;
  try {
    whole = JSON.parse(text);
    parsed = true;
  } catch {
    // Not one JSON value: one message per line.
  }
  if (parsed && isHar(whole)) {
    let requestEra: RequestEra;
    for (const message of harMessages(text, options.settings.maxBodyBytes).messages) {
      const { context, session, negotiation } = harMessageContext(message, options, exchange, requestEra);
      const state = { exchange, session, negotiated, negotiation };
      const { verdict, body } = judgeInCapture({ source, line: message.entry, bytes: message.bytes, context }, options, state);
      if (message.part === "request")
        requestEra = verdict.era ? { entry: message.entry, era: verdict.era, eraSignal: "request" } : undefined;
      rows.push({ verdict, body, text: message.bytes && decoder.decode(message.bytes) });
    }
    return rows;
  }
  const state = { exchange, session: "", negotiated, negotiation: "" };
  const lines = parsed && typeof whole === "object" && whole !== null && !Array.isArray(whole) ? [text] : text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = index === 0 ? line.replace(/^\uFEFF/, "") : line;
    if (trimmed.trim() === "") return;
    const bytes = encoder.encode(trimmed);
    const within = bytes.length <= options.settings.maxBodyBytes ? bytes : undefined;
    const { verdict, body } = judgeInCapture(
      { source, line: index + 1, bytes: within, context: { pair: (id) => exchange.answer("", id) } },
      options,
      state,
    );
    rows.push({ verdict, body, text: within && trimmed });
  });
  return rows;
}
