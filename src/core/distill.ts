import type { ValidationError } from "../../generated/validator.js";
import type { InvalidRequestData, LocatedError } from "./envelope.js";
import { ERROR_BUDGET } from "./error-budget.js";
import { factWords } from "./fact-words.js";
import { keepLikelyBranches } from "./likely-branch.js";
import { cutEscaped, safePointer } from "./log-safe.js";
import { jsonStringLength } from "./utf8-length.js";

/** Bounds that keep the answer small whatever the input (see `MAX_ANSWER_BYTES` in validate.ts). */
export const LIMITS = {
  /** Validator errors looked at; the rest are only counted. */
  examinedErrors: 1000,
  /** Entries listed in `data.errors`. */
  entries: 20,
  /** Characters of an instance location kept; a longer one ends in `…` (each segment is cut at 64 first, log-safe.ts). */
  locationLength: 200,
  /** Characters of a location quoted in the one-line summary. */
  summaryLocationLength: 60,
  /** Distinct messages kept per location. */
  messagesPerLocation: 6,
  /** UTF-8 bytes of `data.errors` as JSON. */
  entriesBytes: 6000,
} as const;

export interface Distilled {
  /** The one-line summary, `error.message` of the answer. */
  message: string;
  data: InvalidRequestData;
}

/** The words for one validator error, from the schema's facts alone: `messageFor` here, or a face's own (`wymcp compile`'s). */
export type Wording = (keyword: string, params: Record<string, unknown>) => string;

/** How errors are grouped: how many are looked at, messages kept per location, characters kept of a location. */
export interface GroupLimits {
  readonly examinedErrors: number;
  readonly messagesPerLocation: number;
  readonly locationLength: number;
}

/** Validator errors by location: each location's distinct messages and how many problems it had, locations sorted. */
export interface Grouped {
  byLocation: Map<string, { messages: Set<string>; problems: number }>;
  /** Sorted by `comparePointers`: parents before children, array indices numerically. */
  locations: string[];
  /** Problems found, those past the errors examined included. */
  total: number;
}

/**
 * The one distiller every face shares (the answers, the outbound checks, the modules `wymcp compile` writes): one group
 * per instance location, messages merged, locations sorted; of a failed anyOf, only the likely branch's errors count
 * (likely-branch.ts). Only keys of the message (inside locations, escaped and bounded by log-safe.ts) are carried
 * over, never its values.
 */
export function groupErrors(all: readonly ValidationError[], limits: GroupLimits = LIMITS, words: Wording = messageFor): Grouped {
  const errors = keepLikelyBranches(all.length > limits.examinedErrors ? all.slice(0, limits.examinedErrors) : all);
  const total = errors.length + Math.max(0, all.length - limits.examinedErrors);
  const byLocation = new Map<string, { messages: Set<string>; problems: number }>();
  for (const error of errors) {
    const { location, message } = describe(error, words, limits.locationLength);
    let found = byLocation.get(location);
    if (!found) byLocation.set(location, (found = { messages: new Set(), problems: 0 }));
    found.problems++;
    if (found.messages.size < limits.messagesPerLocation) found.messages.add(message);
  }
  const locations = [...byLocation.keys()];
  if (locations.length > 1) locations.sort(comparePointers);
  return { byLocation, locations, total };
}

/**
 * Turns validator errors into the answer's summary and entries (`groupErrors`), bounded in count and bytes.
 */
export function distill(all: readonly ValidationError[], judgedAs: string): Distilled {
  const { byLocation, locations, total } = groupErrors(all);
  let entries: LocatedError[] = [];
  let listedProblems = 0;
  for (const instancePath of locations) {
    if (entries.length === LIMITS.entries) break;
    const { messages, problems } = byLocation.get(instancePath)!;
    entries.push({ instancePath, messages: [...messages] });
    listedProblems += problems;
  }
  // JSON and UTF-8 take at most 6 bytes per UTF-16 unit (a \u escape), so short answers need no measuring;
  // longer ones are measured, and only one over the budget is trimmed entry by entry.
  if (worstCaseBytes(entries) > LIMITS.entriesBytes && entriesLength(entries) > LIMITS.entriesBytes) {
    ({ entries, listedProblems } = withinBudget(entries, byLocation));
  }
  const omitted = total - listedProblems;
  // A validator that filled its error budget stopped looking: there may be more locations than listed (and past
  // the errors examined, which are more than the budget, some were not looked at).
  const count = `${byLocation.size}${all.length >= ERROR_BUDGET ? "+" : ""}`;
  // The summary names the first concrete problem: "must match one of the allowed shapes" only says where to look.
  const firstPath = locations.find((l) => !isOnlyUnion(byLocation.get(l)!.messages)) ?? locations[0] ?? "";
  const firstMessage = [...(byLocation.get(firstPath)?.messages ?? [])].find((m) => m !== UNION_MESSAGE) ?? UNION_MESSAGE;
  const message =
    `Invalid ${judgedAs}: ${count} invalid location${count === "1" ? "" : "s"}; ` + `first: ${quoteLocation(firstPath)} ${firstMessage}`;
  return { message, data: omitted > 0 ? { errors: entries, omitted } : { errors: entries } };
}

/** What a failed anyOf says: it only says where to look, so summaries prefer a concrete problem. */
export const UNION_MESSAGE = "must match one of the allowed shapes";

function isOnlyUnion(messages: Set<string>): boolean {
  return messages.size === 1 && messages.has(UNION_MESSAGE);
}

function worstCaseBytes(entries: LocatedError[]): number {
  let units = 0;
  for (const { instancePath, messages } of entries) {
    units += instancePath.length;
    for (const message of messages) units += message.length;
  }
  return units * 6 + entries.length * 48 + 2;
}

/**
 * UTF-8 bytes of `JSON.stringify(entries)`, counted without building it.
 * @example entriesLength([{ instancePath: "/id", messages: ["is required"] }]) === 51
 */
export function entriesLength(entries: readonly LocatedError[]): number {
  let bytes = 2 + Math.max(0, entries.length - 1);
  for (const entry of entries) bytes += entryLength(entry);
  return bytes;
}

// `{"instancePath":` + `,"messages":[` + `]}`, the fixed part of an entry as JSON.
const ENTRY_FRAME = 16 + 13 + 2;

function entryLength({ instancePath, messages }: LocatedError): number {
  let bytes = ENTRY_FRAME + jsonStringLength(instancePath) + Math.max(0, messages.length - 1);
  for (const message of messages) bytes += jsonStringLength(message);
  return bytes;
}

function withinBudget(all: LocatedError[], byLocation: Map<string, { problems: number }>) {
  const entries: LocatedError[] = [];
  // "[" and "]", less the comma the first entry does not have: each entry then counts itself and one comma.
  let bytes = 1;
  let listedProblems = 0;
  for (const entry of all) {
    const size = entryLength(entry) + 1;
    if (bytes + size > LIMITS.entriesBytes) break;
    bytes += size;
    listedProblems += byLocation.get(entry.instancePath)!.problems;
    entries.push(entry);
  }
  return { entries, listedProblems };
}

function quoteLocation(pointer: string): string {
  if (pointer === "") return "(the message)";
  return cutEscaped(pointer, LIMITS.summaryLocationLength);
}

/**
 * Where an error is and what it says, in words built from the schema's facts alone. A missing member (`required`, and
 * `dependentRequired` as Ajv reports `dependentRequired` and draft-07 `dependencies`) is located at the member.
 */
export function describe(
  error: ValidationError,
  words: Wording = messageFor,
  locationLength: number = LIMITS.locationLength,
): { location: string; message: string } {
  const p = error.params;
  if (error.keyword === "required" || error.keyword === "dependentRequired" || error.keyword === "dependencies") {
    return { location: bound(`${error.instancePath}/${escapePointer(String(p.missingProperty))}`, locationLength), message: "is required" };
  }
  return { location: bound(error.instancePath, locationLength), message: words(error.keyword, p) };
}

/** The core's words for each keyword the MCP schemas use; a schema's own constants are quoted (they are protocol facts). */
export function messageFor(keyword: string, p: Record<string, unknown>): string {
  switch (keyword) {
    case "type":
      return `must be ${alternatives(Array.isArray(p.type) ? p.type.map(String) : String(p.type).split(","))}`;
    case "const":
      return `must equal ${JSON.stringify(p.allowedValue)}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "anyOf":
      return UNION_MESSAGE;
    case "pattern":
      return `must match pattern ${JSON.stringify(p.pattern)}`;
    default:
      return factWords(keyword, p) ?? `fails the schema's ${JSON.stringify(keyword)} rule`;
  }
}

function alternatives(names: string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** A location safe to log: client keys escaped, each segment and then the whole bounded. */
function bound(location: string, length: number): string {
  return cutEscaped(safePointer(location), length);
}

export function escapePointer(key: string): string {
  return key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key;
}

/** Orders JSON Pointers segment by segment, array indices numerically, so parents precede children. */
export function comparePointers(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const aEnd = segmentEnd(a, i + 1);
    const bEnd = segmentEnd(b, j + 1);
    const x = a.slice(i + 1, aEnd);
    const y = b.slice(j + 1, bEnd);
    if (x !== y) {
      if (x.length !== y.length && isIndex(x) && isIndex(y)) return x.length - y.length;
      return x < y ? -1 : 1;
    }
    i = aEnd;
    j = bEnd;
  }
  return a.length - i - (b.length - j);
}

function segmentEnd(pointer: string, from: number): number {
  const end = pointer.indexOf("/", from);
  return end < 0 ? pointer.length : end;
}

function isIndex(segment: string): boolean {
  if (segment.length === 0) return false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
