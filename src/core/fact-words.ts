/**
 * @module fact-words: the words for a keyword whose schema facts any answer may repeat (a bound, a format's name), the
 * same in the protocol's answers (distill.ts) and a tool's (compile/runtime/brief-answer.ts). Numbers are joined with
 * `+`, which the tools' answers need (a template literal converting one costs more there).
 */

/** The words for `keyword` with its error's params `p`; `undefined` for a keyword whose words differ per answer. */
export function factWords(keyword: string, p: Record<string, unknown>): string | undefined {
  switch (keyword) {
    case "format":
      return `must be a valid ${JSON.stringify(p.format)} string`;
    case "oneOf":
      return "must match exactly one of the allowed shapes";
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return "must be " + p.comparison + " " + p.limit;
    case "maxItems":
      return "must have at most " + p.limit + " items";
    case "minItems":
      return "must have at least " + p.limit + " items";
    case "maxLength":
      return "must be at most " + p.limit + " characters long";
    case "minLength":
      return "must be at least " + p.limit + " characters long";
    default:
      return undefined;
  }
}
