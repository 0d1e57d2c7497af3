/**
 * @module depth: the nesting bound. Counts open arrays and objects in a parsed JSON value, the way
 * System.Text.Json and Jackson count depth: `1` and `"x"` are depth 0, `{}` and `[]` depth 1, `{"a":[]}` depth 2.
 */

/**
 * Default deepest nesting a POST body may have (64, System.Text.Json's default). The deepest official
 * 2026-07-28 example nests 7 levels; V8's own `structuredClone` gives up near 1,900 nested objects and
 * `JSON.stringify` near 4,100, both of which the official SDK's Node bridge and handlers may run on the body.
 */
export const DEFAULT_MAX_DEPTH = 64;

/**
 * Whether `value` nests deeper than `maxDepth`. Stops at the first container past the limit, so the work is
 * bounded by the size of the value and the recursion by `maxDepth`. Runs on the parsed value rather than on the
 * bytes: the walk costs a small share of `JSON.parse` of the same bytes, a byte scanner several times more (`npm run bench`
 * measures both: docs/performance.md#targets).
 * A `maxDepth` too large for this runtime's stack to walk counts as exceeded (`RangeError` is caught).
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null || maxDepth === Number.POSITIVE_INFINITY) return false;
  try {
    return deeper(value, maxDepth);
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}

/** `left` is how many more levels may open, this container's included. */
function deeper(container: object, left: number): boolean {
  if (left <= 0) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const item: unknown = container[i];
      if (typeof item === "object" && item !== null && deeper(item, left - 1)) return true;
    }
    return false;
  }
  // for-in over a JSON.parse result visits own keys through V8's enum cache, without allocating a key array.
  for (const key in container) {
    const item: unknown = (container as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null && deeper(item, left - 1)) return true;
  }
  return false;
}
