/**
 * @module nearest-name: the known name closest to a misspelt one, for the errors that name it (an unknown option, an
 * unknown rule). Web APIs only.
 */

/**
 * The name of `known` nearest to `given` by edit distance (case ignored), or `undefined` when none is near enough to be
 * a likely misspelling: at most a third of the longer name's letters apart (and at least two edits allowed).
 * @example nearestName("maxBodyByte", ["maxBodyBytes", "maxDepth"]) === "maxBodyBytes"
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const wanted = given.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(wanted.length, best.length) / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** The Levenshtein distance, two rows at a time; names are short (a misspelt key is cut at 64 units). */
function editDistance(a: string, b: string): number {
  const left = a.slice(0, 64);
  const right = b.slice(0, 64);
  let previous = Array.from({ length: right.length + 1 }, (_, i) => i);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[right.length]!;
}

/** The sentence an error adds for a misspelt name: ` (did you mean "maxBodyBytes"?)`, or nothing. */
export function didYouMean(given: string, known: readonly string[]): string {
  const nearest = nearestName(given, known);
  return nearest === undefined ? "" : ` (did you mean ${JSON.stringify(nearest)}?)`;
}
