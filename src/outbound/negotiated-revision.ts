/** @module negotiated-revision: the one rule for the revision a legacy session negotiated, where no header names it. */
import { legacyRevisionOf } from "../core/legacy-revision.js";

/**
 * The revision a session negotiated, from the server's answer to its `initialize`: the result's `protocolVersion`, read
 * as the header would be read. `undefined` for an answer that names no legacy revision (modern, unknown, an error):
 * the rule without a header stays in force. `wymcp stdio` and `wymcp check` read a session's revision by this one rule.
 */
export function negotiatedRevision(answer: unknown): string | undefined {
  const result = typeof answer === "object" && answer !== null ? (answer as { result?: unknown }).result : undefined;
  const version = typeof result === "object" && result !== null ? (result as { protocolVersion?: unknown }).protocolVersion : undefined;
  const named = legacyRevisionOf(undefined, typeof version === "string" ? version : undefined);
  return named.signal === "header" ? named.revision : undefined;
}
