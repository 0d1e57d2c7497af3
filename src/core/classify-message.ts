/** What a parsed body is, judged by its members alone (before any schema). */
export type MessageKind = "request" | "notification" | "response" | "other";

/** Only a body's own members count: one a prototype lends (`Object.create({ id: 1 })`) is not the client's. */
export function classifyMessage(body: unknown): MessageKind {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "other";
  // Written out, without a helper taking the name: this is the per-message hot path, kept small so that it inlines.
  if (!ownMembersOnly(body)) return classifyOwn(body);
  if ("method" in body) return "id" in body ? "request" : "notification";
  return "id" in body && ("result" in body || "error" in body) ? "response" : "other";
}

/** The same rules on a body some prototype may lend members to: only its own count. */
function classifyOwn(body: object): MessageKind {
  const hasId = Object.hasOwn(body, "id");
  if (Object.hasOwn(body, "method")) return hasId ? "request" : "notification";
  return hasId && (Object.hasOwn(body, "result") || Object.hasOwn(body, "error")) ? "response" : "other";
}

/**
 * Whether `in` reads only `body`'s own members of the four that classify it: its prototype is none, or
 * `Object.prototype` lending none of them (what `JSON.parse` builds). `in` is then exact, and
 * cheaper than `Object.hasOwn`, which optimized code calls out to (docs/performance.md#figures-behind-code-comments).
 */
function ownMembersOnly(body: object): boolean {
  const proto: unknown = Object.getPrototypeOf(body);
  if (proto === null) return true;
  return (
    proto === Object.prototype &&
    !("method" in Object.prototype) &&
    !("id" in Object.prototype) &&
    !("result" in Object.prototype) &&
    !("error" in Object.prototype)
  );
}
