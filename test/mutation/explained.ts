/**
 * Surviving mutants that no test should kill, each with the reason: equivalent mutants (the program behaves the same)
 * and changes only a cost or a bound far beyond what a test can reach. scripts/mutation.ts matches a survivor by file,
 * mutator, the source text it replaced and the replacement, so an entry outlives line moves; one it no longer
 * matches is unused, and a survivor it does not match is reported unexplained.
 */
export interface Survivor {
  file: string;
  mutator: string;
  original: string;
  replacement: string;
}

export interface Explained extends Partial<Survivor> {
  file: string;
  mutator: string;
  /** The replaced source text, exactly. */
  original: string;
  why: string;
}

export const EXPLAINED: readonly Explained[] = [];

/** The reason a survivor is left alive, if it is explained. */
export function explanationFor(s: Survivor): string | undefined {
  return EXPLAINED.find((e) => e.file === s.file && e.mutator === s.mutator && e.original === s.original && (e.replacement === undefined || e.replacement === s.replacement))?.why;
}
