/**
 * @module canonical-json: one text for a JSON value whatever the order of its keys, the rule the tools lock digests
 * and `wymcp compile`'s structure key hashes (and so the runtime a compiled module carries).
 */

/** JSON with every object's keys sorted (UTF-16 order); what JSON leaves out (undefined, functions) is left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => (isAbsent(item) ? "null" : canonicalJson(item))).join(",")}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (!isAbsent(item)) parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Whether JSON leaves a value out (a member of it) or writes it as `null` (an item of an array). */
export function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}
