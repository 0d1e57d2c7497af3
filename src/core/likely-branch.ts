import type { ValidationError } from "../../generated/validator.js";

/** Errors as the generated validators leave them: a failed anyOf branch's carry `[union, at, branch]` triples. */
type TaggedError = ValidationError & { branches?: Array<number | string> };

/**
 * For every anyOf that failed, keeps the errors of the branch (or branches, on a tie) the client most
 * likely meant, and drops the other branches' complaints: a text block missing its `text` is reported
 * as that, not with the fields an image or a tool result would have needed. A branch is preferred, in
 * order, when its errors: do not reject the value's own type or constant; do not reject a constant
 * member (a discriminator such as `type`); find fewer faults on the value's own level (missing members);
 * are fewer. Inner unions are settled first (their anyOf error comes first), so an outer union counts
 * what is left of them.
 */
export function keepLikelyBranches(errors: readonly ValidationError[]): readonly ValidationError[] {
  // union number → union location → branch → its errors; nested maps hash each location string once (V8
  // caches a string's hash), where a joined key would build and hash a new string per tag.
  let unions: Map<number, Map<string, Map<number, TaggedError[]>>> | undefined;
  for (const error of errors as readonly TaggedError[]) {
    const tags = error.branches;
    if (!tags) continue;
    unions ??= new Map();
    for (let k = 0; k < tags.length; k += 3) {
      let places = unions.get(tags[k] as number);
      if (!places) unions.set(tags[k] as number, (places = new Map()));
      let branches = places.get(tags[k + 1] as string);
      if (!branches) places.set(tags[k + 1] as string, (branches = new Map()));
      const branch = tags[k + 2] as number;
      const list = branches.get(branch);
      if (list) list.push(error);
      else branches.set(branch, [error]);
    }
  }
  if (!unions) return errors;
  const dropped = new Set<ValidationError>();
  for (const error of errors) {
    if (error.keyword !== "anyOf") continue;
    const at = error.instancePath;
    const branches = unions.get(error.params.union as number)?.get(at);
    if (!branches || branches.size < 2) continue;
    const scored = [...branches.values()].map((list) => {
      const alive = dropped.size === 0 ? list : list.filter((e) => !dropped.has(e));
      return { alive, score: score(alive, at) };
    });
    let best = Number.POSITIVE_INFINITY;
    for (const s of scored) if (s.score < best) best = s.score;
    for (const { alive, score } of scored) if (score !== best) for (const e of alive) dropped.add(e);
  }
  return dropped.size === 0 ? errors : errors.filter((e) => !dropped.has(e));
}

/** Lower is likelier; the weights order the criteria of `keepLikelyBranches` lexicographically. */
function score(errors: readonly ValidationError[], at: string): number {
  let rejectsValue = 0;
  let rejectsConstantMember = 0;
  let atValue = 0;
  const below = `${at}/`;
  for (const { keyword, instancePath } of errors) {
    const constant = keyword === "const" || keyword === "enum";
    if (instancePath === at) {
      atValue++;
      if (constant || keyword === "type") rejectsValue = 1;
    } else if (constant && instancePath.startsWith(below) && !instancePath.includes("/", below.length)) {
      rejectsConstantMember = 1;
    }
  }
  return rejectsValue * 1e15 + rejectsConstantMember * 1e10 + atValue * 1e5 + errors.length;
}
