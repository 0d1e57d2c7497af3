/**
 * @module brief-answer: the one-line answer to tool arguments that fail their input schema. Its reader is the model
 * that must retry the call, not a person reading a log: the first few locations, each with its problem, and how many
 * there were; built in one pass over the validator's errors, with no sort and no map for the common case of a few
 * errors. The likely branch of a failed anyOf (likely-branch.ts) and the escaping of keys (log-safe.ts) are the
 * core's own; no value of the arguments appears, only keys inside locations.
 */
import { escapePointer, UNION_MESSAGE } from "../../core/distill.js";
import { factWords } from "../../core/fact-words.js";
import { keepLikelyBranches } from "../../core/likely-branch.js";
import { cutEscaped, SEGMENT_LENGTH, safePointer } from "../../core/log-safe.js";

/** An error as the generated validators leave it (Ajv's shape); a failed anyOf branch's carry `branches` tags. */
export interface BriefError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  branches?: Array<number | string>;
}

/** Locations named in the answer (three: briefAnswer keeps them in locals), and the characters kept of each. */
export const BRIEF_LIMITS = { locations: 3, locationLength: 120 } as const;

/**
 * `N invalid locations: /a must be string; /b is required; and 2 more`. `budget`: a list this long was cut short by
 * the validator (error-budget.ts), so the count reads `N+`.
 * @example briefAnswer([{ instancePath: "/n", keyword: "type", params: { type: "number" } }], 64) === "1 invalid location: /n must be number"
 */
export function briefAnswer(errors: readonly BriefError[], budget: number): string {
  // One error, the commonest answer by far: no bookkeeping at all.
  if (errors.length === 1 && budget > 1) {
    const only = errors[0]!;
    if (only.keyword !== "anyOf" && !only.branches) return "1 invalid location: " + shown(locationOf(only)) + " " + problemOf(only);
  }
  const kept = hasBranches(errors) ? (keepLikelyBranches(errors as never) as readonly BriefError[]) : errors;
  // The named locations and their problems in locals, not arrays: most answers name one or two, and allocating
  // arrays cost more than the rest of the answer (bench/tools.ts, invalid calls: docs/performance.md#figures-behind-code-comments).
  let at0 = "";
  let at1 = "";
  let at2 = "";
  let problem0 = "";
  let problem1 = "";
  let problem2 = "";
  let named = 0;
  // Every location past the named ones, to count them once each; allocated only when there are that many.
  let others: Set<string> | undefined;
  let unions: BriefError[] | undefined;
  for (let i = 0; i < kept.length; i++) {
    const error = kept[i]!;
    if (error.keyword === "anyOf") {
      (unions ??= []).push(error);
      continue;
    }
    const location = locationOf(error);
    if (named > 0 && location === at0) problem0 = withSecond(problem0, error);
    else if (named > 1 && location === at1) problem1 = withSecond(problem1, error);
    else if (named > 2 && location === at2) problem2 = withSecond(problem2, error);
    else if (named === 0) {
      at0 = location;
      problem0 = problemOf(error);
      named = 1;
    } else if (named === 1) {
      at1 = location;
      problem1 = problemOf(error);
      named = 2;
    } else if (named === 2) {
      at2 = location;
      problem2 = problemOf(error);
      named = 3;
    } else (others ??= new Set()).add(location);
  }
  let count = named + (others ? others.size : 0);
  // A union's "must match one of the allowed shapes" is said only where no problem of its likely branch is.
  if (unions) {
    for (const union of unions) {
      const at = union.instancePath;
      const below = (l: string) => l === at || l.startsWith(`${at}/`);
      if ((named > 0 && below(at0)) || (named > 1 && below(at1)) || (named > 2 && below(at2)) || (others && [...others].some(below)))
        continue;
      count++;
      if (named === 0) (at0 = at), (problem0 = UNION_MESSAGE), (named = 1);
      else if (named === 1) (at1 = at), (problem1 = UNION_MESSAGE), (named = 2);
      else if (named === 2) (at2 = at), (problem2 = UNION_MESSAGE), (named = 3);
      else (others ??= new Set()).add(at);
    }
  }
  const cut = errors.length >= budget;
  // Numbers are joined with +: a template literal converting a number costs more (docs/performance.md#figures-behind-code-comments).
  let text =
    count + (cut ? "+" : "") + (count === 1 && !cut ? " invalid location: " : " invalid locations: ") + shown(at0) + " " + problem0;
  if (named > 1) text += "; " + shown(at1) + " " + problem1;
  if (named > 2) text += "; " + shown(at2) + " " + problem2;
  return count > named ? text + "; and " + (count - named) + " more" : text;
}

/**
 * A location as the line names it. Short plain ASCII is shown as it is; anything else goes through the core's
 * escaping (log-safe.ts), which is the one judge of what a log may carry. (A regular expression over the whole line
 * cost more than the rest of the answer: the line is a rope, and testing it flattens it.)
 */
function shown(location: string): string {
  if (location === "") return "(the value)";
  if (location.length <= SEGMENT_LENGTH && plainAscii(location)) return location;
  return cutEscaped(safePointer(location), BRIEF_LIMITS.locationLength);
}

function plainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x5c) return false;
  }
  return true;
}

/** A named location's problems: a second one is added when it differs, a third is left out (the line stays short). */
function withSecond(problems: string, error: BriefError): string {
  if (problems.includes(", ")) return problems;
  const problem = problemOf(error);
  return problems === problem ? problems : `${problems}, ${problem}`;
}

function hasBranches(errors: readonly BriefError[]): boolean {
  for (const error of errors) if (error.branches) return true;
  return false;
}

function locationOf(error: BriefError): string {
  const k = error.keyword;
  if (k === "required" || k === "dependentRequired" || k === "dependencies") {
    return `${error.instancePath}/${escapePointer(String(error.params.missingProperty))}`;
  }
  return error.instancePath;
}

/**
 * Words from the schema's facts alone: `enum` and `const` say "the allowed values", never which; a bound's and a
 * format's words are the core's (`factWords`). Numbers are joined with `+`: a template literal converting one costs
 * more (see the comment in `briefAnswer`).
 */
function problemOf(error: BriefError): string {
  const p = error.params;
  switch (error.keyword) {
    case "type": {
      const type = typeof p.type === "string" ? p.type : String(p.type);
      return type.includes(",") ? "must be " + type.split(",").join(" or ") : "must be " + type;
    }
    case "required":
    case "dependentRequired":
    case "dependencies":
      return "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "has a property the schema does not allow";
    case "const":
      return "must equal the schema's constant";
    case "enum":
      return "must be one of the allowed values";
    case "maxProperties":
      return "must have at most " + p.limit + " properties";
    case "minProperties":
      return "must have at least " + p.limit + " properties";
    case "pattern":
      return typeof p.pattern === "string" && p.pattern.length <= 60
        ? `must match pattern ${JSON.stringify(p.pattern)}`
        : "must match the schema's pattern";
    case "multipleOf":
      return "must be a multiple of " + p.multipleOf;
    case "uniqueItems":
      return "must not have duplicate items";
    case "not":
      return "must not match the excluded shape";
    default:
      return factWords(error.keyword, p) ?? `fails the schema's ${JSON.stringify(error.keyword)} rule`;
  }
}
