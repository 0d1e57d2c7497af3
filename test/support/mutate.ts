/**
 * The differential tests' one mutation: a copy of `base` with the member at a path replaced or deleted.
 * Path steps wrap around the keys (or indices) found at each level, so any list of numbers is a path.
 */
export function mutateAt(base: unknown, path: number[], replacement: unknown, remove: boolean): unknown {
  const copy = structuredClone(base);
  let parent: Record<string | number, unknown> | undefined;
  let key: string | number | undefined;
  let node: unknown = copy;
  for (const step of path) {
    if (node === null || typeof node !== "object") break;
    const keys: Array<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string | number, unknown>;
    key = keys[step % keys.length]!;
    node = parent[key];
  }
  if (parent === undefined || key === undefined) return replacement;
  if (remove && !Array.isArray(parent)) delete parent[key];
  else parent[key] = replacement;
  return copy;
}
