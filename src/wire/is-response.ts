/**
 * @module is-response: whether a parsed message is a response, asked by the stdio gate, the checker, telemetry and the
 * inspector. A module of its own, not a part of classify-message.ts: that one is in the core entry, and the faces that
 * ask this import it without the core's bundle.
 */

/**
 * Whether a parsed message is a response: an object with a `result` or an `error` of its own and no `method`, whatever
 * its id. The one test every face and the checker use to ask it (`classifyMessage`'s `response` asks for an id
 * besides, to route it; a batch is asked item by item).
 */
export function isResponse(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    !Object.hasOwn(body, "method") &&
    (Object.hasOwn(body, "result") || Object.hasOwn(body, "error"))
  );
}
