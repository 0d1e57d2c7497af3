/** @module outbound-lines: `--outbound report` on the lines a stdio server writes: each message judged, a violation logged. */
import { answerId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import type { Formats } from "../../core/formats.js";
import { legacyRevisionOf } from "../../core/legacy-revision.js";
import { validateMcpResponse } from "../../outbound/validate-response.js";
import { safeMethod, type GateLog } from "../../log/gate-log.js";

import { isObject, type Pending } from "./pending.js";

/**
 * `--outbound report` on one message the server wrote: judged in its request's era, else the session's. A legacy line is
 * judged by the revision the session negotiated, as `wymcp check` and the HTTP tap judge it: an answer by its request's,
 * the server's own message by the session's (the revision assumed without one, until then). A violation is logged.
 */
export function checkServerItem(
  log: GateLog,
  item: unknown,
  request: Pending | undefined,
  sessionEra: Era,
  sessionRevision: string | undefined,
  formats: Formats | undefined,
): void {
  const era = request?.era ?? sessionEra;
  const protocolVersion =
    era === "legacy" ? (request ? request.revision : legacyRevisionOf(undefined, sessionRevision).revision) : undefined;
  const context = { era, protocolVersion, formats };
  const result = validateMcpResponse(item, request ? { ...context, method: request.method } : context);
  if (result.outcome === "pass") return;
  const { violations } = result;
  const id = isObject(item) && Object.hasOwn(item, "id") ? answerId(item) : undefined;
  const method = request?.method ?? safeMethod(item);
  log.line(
    "outbound-violation",
    { era, method, id, message: violations.message, errors: violations.errors, omitted: violations.omitted },
    `outbound violation era=${era}${method ? ` method=${JSON.stringify(method)}` : ""}${id !== undefined ? ` id=${JSON.stringify(id)}` : ""}: ${violations.message}`,
  );
}
