/** What a parsed body is, judged by its members alone (before any schema). */
export type MessageKind = "request" | "notification" | "response" | "other";

export function classifyMessage(body: unknown): MessageKind {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "other";
  const hasMethod = Object.hasOwn(body, "method");
  const hasId = Object.hasOwn(body, "id");
  if (hasMethod) return hasId ? "request" : "notification";
  if (hasId && (Object.hasOwn(body, "result") || Object.hasOwn(body, "error"))) return "response";
  return "other";
}
