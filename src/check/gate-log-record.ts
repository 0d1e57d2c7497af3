/**
 * @module gate-log-record: the lines `wymcp proxy --log json` and `wymcp stdio --log json` write, read back. Such a
 * log holds the gates' verdicts and never a message's body, so `wymcp check` has nothing to judge again: it shows each
 * record as the gate's own verdict (escaped again, since a file can say anything) and counts its refusals.
 */
import type { Face } from "../log/gate-log.js";

/** The faces that write such a log; a record names one of them in `face`. */
const FACES: ReadonlySet<string> = new Set<Face>(["proxy", "stdio"]);

/** Every record begins so: `createLog` writes `time` first. A message of a capture almost never does. */
const PREFIX = new TextEncoder().encode('{"time":"');
// Web APIs, not Buffer: the inspector's page bundles this module with the rest of the judging.
const DECODER = new TextDecoder();

function startsWithPrefix(bytes: Uint8Array): boolean {
  if (bytes.length < PREFIX.length) return false;
  for (let i = 0; i < PREFIX.length; i++) if (bytes[i] !== PREFIX[i]) return false;
  return true;
}

/** One record of a gate's JSON log, as the file holds it (fields unchecked beyond `face` and `event`). */
export interface GateLogRecord {
  face: Face;
  /**
   * `refused`, `dropped`, `report` (a rule's would-be refusal, `direction` `in`, or a server's message found wrong,
   * `out`), or an event of the face's life (`listening`, `stopped`, …). Logs written before the rules say `reported`
   * and `outbound-violation`.
   */
  event: string;
  fields: Record<string, unknown>;
}

/**
 * What a record counts as: a message the gate refused or dropped, one it handed on and reported (a rule in
 * `"report"`), a server's message it found wrong, or none of these.
 */
export type RecordOutcome = "refused" | "reported" | "violation" | "event";

/**
 * The record a line holds, or undefined for anything else (a message, junk): an object that begins with `time`,
 * names a face and an event, and has no `jsonrpc` member.
 */
export function gateLogRecord(bytes: Uint8Array): GateLogRecord | undefined {
  if (!startsWithPrefix(bytes)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(DECODER.decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  if (Object.hasOwn(fields, "jsonrpc") || typeof fields.event !== "string" || typeof fields.face !== "string") return undefined;
  if (!FACES.has(fields.face)) return undefined;
  return { face: fields.face as Face, event: fields.event, fields };
}

export function recordOutcome(record: GateLogRecord): RecordOutcome {
  if (record.event === "refused" || record.event === "dropped") return "refused";
  if (record.event === "report") return record.fields.direction === "out" ? "violation" : "reported";
  if (record.event === "reported") return "reported";
  return record.event === "outbound-violation" ? "violation" : "event";
}
