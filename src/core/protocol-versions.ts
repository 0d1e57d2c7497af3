/**
 * @module protocol-versions: the modern protocol versions a face knows, and the spec's `UnsupportedProtocolVersionError`
 * answer (`-32022`, `data.supported` and `data.requested`). `requested` is the client's claim: it is echoed only
 * escaped and cut (log-safe.ts), so that an answer or a log line holding it cannot be fed control characters.
 */
import { eras } from "../../generated/index.js";
import { errorResponse, type JsonRpcErrorResponse, type JsonRpcId } from "./envelope.js";
import { escapeText } from "./log-safe.js";
import { PROTOCOL_VERSION_META_KEY } from "./routing-shapes.js";

const CLAIM_POINTER = `/params/_meta/${PROTOCOL_VERSION_META_KEY.replace("/", "~1")}`;

/** The spec's `UnsupportedProtocolVersionError` code. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The modern revisions whose definitions this library carries (the generated modern era's). */
export const KNOWN_MODERN_REVISIONS: readonly string[] = Object.freeze([eras.modern.revision]);

/** Characters of a requested version echoed at most, after escaping; a longer one is cut and ends in `…`. */
export const MAX_ECHOED_VERSION_LENGTH = 32;

/** The body's `_meta["io.modelcontextprotocol/protocolVersion"]`, whatever its type; `undefined` when it has none. */
export function claimedVersion(body: unknown): unknown {
  const params = (body as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
}

/** The `400`/-32022 answer: the versions served, and the one requested, escaped and cut. */
export function unsupportedVersionResponse(id: JsonRpcId, supported: readonly string[], requested: string): JsonRpcErrorResponse {
  return errorResponse(
    id,
    UNSUPPORTED_PROTOCOL_VERSION,
    "Unsupported protocol version: the server does not serve the version the request names",
    {
      errors: [{ instancePath: CLAIM_POINTER, messages: ["must be a protocol version the server serves"] }],
      supported: [...supported],
      requested: escapeText(requested, MAX_ECHOED_VERSION_LENGTH),
    },
  );
}
