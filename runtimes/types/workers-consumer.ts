/**
 * @module A Worker typed by @cloudflare/workers-types alone (no @types/node, skipLibCheck off): it must compile
 * against the packed `wymcp`, `wymcp/fetch` and `wymcp/outbound`.
 */
import { validateMcpResponse, type OutboundResult } from "wymcp/outbound";
import { classifyEra, validateMcpRequest, type Era, type ModernTypes, type RejectInfo, type ValidationResult } from "wymcp";
import { DEFAULT_MAX_BODY_BYTES, wymcpFetch, wymcpOf, type FetchWymcpInfo } from "wymcp/fetch";

const rejected: RejectInfo[] = [];
const guard = wymcpFetch({
  limits: { maxBodyBytes: DEFAULT_MAX_BODY_BYTES / 4 },
  era: (request: Request, body: unknown): Era => classifyEra(request.headers, body).era,
  onReject: (info) => void rejected.push(info),
});

export function judge(call: ModernTypes.CallToolRequest): ValidationResult["outcome"] {
  return validateMcpRequest(call, "modern").outcome;
}

export default {
  async fetch(request: Request): Promise<Response> {
    const refused = await guard(request);
    if (refused) return refused;
    const info: FetchWymcpInfo | undefined = wymcpOf(request);
    return Response.json({ era: info?.era ?? null });
  },
} satisfies ExportedHandler;

export function checkResult(message: unknown): OutboundResult["outcome"] {
  return validateMcpResponse(message, { era: "modern", method: "tools/call" }).outcome;
}
