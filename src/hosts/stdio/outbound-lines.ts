/** @module outbound-lines: the `outbound` rule on the lines a stdio server writes: each message judged, a violation reported. */
import { answerId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import type { Formats } from "../../core/formats.js";
import { legacyRevisionOf } from "../../core/legacy-revision.js";
import { validateMcpResponse } from "../../outbound/validate-response.js";
import type { Report } from "../../core/rules.js";
import { outboundReport } from "../../outbound/tap.js";

import { isObject, type Pending } from "./pending.js";

/**
 * The `outbound` rule on one message the server wrote: judged in its request's era, else the session's. A legacy line is
 * judged by the revision the session negotiated, as `wymcp check` and the HTTP tap judge it: an answer by its request's,
 * the server's own message by the session's (the revision assumed without one, until then). A violation is reported.
 */
export function checkServerItem({
  item,
  request,
  sessionEra,
  sessionRevision,
  formats,
  onReport,
}: {
  item: unknown;
  request: Pending | undefined;
  sessionEra: Era;
  sessionRevision: string | undefined;
  formats: Formats | undefined;
  onReport: (report: Report) => void;
}): void {
  const era = request?.era ?? sessionEra;
  const protocolVersion =
    era === "legacy" ? (request ? request.revision : legacyRevisionOf(undefined, sessionRevision).revision) : undefined;
  const context = { era, protocolVersion, formats };
  const result = validateMcpResponse(item, request ? { ...context, method: request.method } : context);
  if (result.outcome === "pass") return;
  const own = isObject(item) && typeof item.method === "string" ? item.method : undefined;
  const id = isObject(item) && Object.hasOwn(item, "id") ? answerId(item) : undefined;
  onReport(outboundReport({ era, method: request?.method ?? own, id, violations: result.violations }));
}
