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

export const EXPLAINED: readonly Explained[] = [
  { file: "src/hosts/admit.ts", mutator: "StringLiteral", original: "\"\"", replacement: "\"Stryker was here!\"", why: "Unreachable: split() always returns at least one element, so the default never applies." },
  { file: "src/hosts/admit.ts", mutator: "EqualityOperator", original: "eq < 0", replacement: "eq <= 0", why: "Equivalent: a parameter starting with '=' has an empty name, which is not 'charset' either way." },
  { file: "src/hosts/admit.ts", mutator: "Regex", original: "/^\"(.*)\"$/", replacement: "/^\"(.*)\"/", why: "Equivalent: a quoted value followed by more text is not utf-8 whether or not the quotes are stripped." },
  { file: "src/hosts/admit.ts", mutator: "BooleanLiteral", original: "false", replacement: "true", why: "Equivalent: with a parsed body the flag is set to true before it is read; the initial value is never used." },
  { file: "src/hosts/admit.ts", mutator: "OptionalChaining", original: "onReject?.(info)", replacement: "onReject(info)", why: "Equivalent: without onReject the call throws TypeError inside notify's own try, which swallows it." },
  { file: "src/core/distill.ts", mutator: "StringLiteral", original: "\"\"", replacement: "\"Stryker was here!\"", why: "Unreachable: distill is only called with at least one error, so a first location always exists." },
  { file: "src/core/distill.ts", mutator: "ArrayDeclaration", original: "[]", replacement: "[\"Stryker was here\"]", why: "Unreachable: as above, the first location always has messages." },
  { file: "src/core/distill.ts", mutator: "BooleanLiteral", original: "false", replacement: "true", why: "Equivalent: an empty segment sorts first both as text and as the shortest number, so calling it an index changes no order." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "all.length > LIMITS.examinedErrors", replacement: "true", why: "Equivalent: slicing at most examinedErrors errors returns the same errors." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "all.length > LIMITS.examinedErrors", replacement: "all.length >= LIMITS.examinedErrors", why: "Equivalent: slicing exactly examinedErrors errors returns the same errors." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "locations.length > 1", replacement: "true", why: "Equivalent: sorting a single location is a no-op (the condition only skips the call)." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "locations.length > 1", replacement: "locations.length >= 1", why: "Equivalent: sorting a single location is a no-op (the condition only skips the call)." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "worstCaseBytes(entries) > LIMITS.entriesBytes && entriesLength(entries) > LIMITS.entriesBytes", replacement: "true", why: "Equivalent: measuring always: withinBudget keeps every entry when all fit, so the answer is the same." },
  { file: "src/core/distill.ts", mutator: "LogicalOperator", original: "worstCaseBytes(entries) > LIMITS.entriesBytes && entriesLength(entries) > LIMITS.entriesBytes", replacement: "worstCaseBytes(entries) > LIMITS.entriesBytes || entriesLength(entries) > LIMITS.entriesBytes", why: "Equivalent: trimming whenever the estimate is over: withinBudget keeps every entry when all fit." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "worstCaseBytes(entries) > LIMITS.entriesBytes", replacement: "true", why: "Equivalent: the estimate only decides whether to measure; the measured check still decides." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "entriesLength(entries) > LIMITS.entriesBytes", replacement: "true", why: "Equivalent: withinBudget keeps every entry when all fit, so trimming an answer under the budget changes nothing." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "worstCaseBytes(entries) > LIMITS.entriesBytes", replacement: "worstCaseBytes(entries) >= LIMITS.entriesBytes", why: "Equivalent: at exactly the budget the measured check still decides." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "entriesLength(entries) > LIMITS.entriesBytes", replacement: "entriesLength(entries) >= LIMITS.entriesBytes", why: "Equivalent: an answer of exactly the budget fits whole in withinBudget too." },
  { file: "src/core/distill.ts", mutator: "OptionalChaining", original: "byLocation.get(firstPath)?.messages", replacement: "byLocation.get(firstPath).messages", why: "Equivalent: the first location is always a key of the map (see the unreachable default)." },
  { file: "src/core/distill.ts", mutator: "AssignmentOperator", original: "units += message.length", replacement: "units -= message.length", why: "Not killed: lowers the worst-case estimate that decides whether to measure; only an answer of nearly all-escaped text within a few hundred bytes of the budget would slip through, and no test builds one." },
  { file: "src/core/distill.ts", mutator: "ArithmeticOperator", original: "units * 6 + entries.length * 48 + 2", replacement: "units * 6 + entries.length * 48 - 2", why: "Not killed: the estimate is 2 bytes lower; only an answer at the budget's edge with all-escaped text would show it." },
  { file: "src/core/distill.ts", mutator: "ArithmeticOperator", original: "units * 6 + entries.length * 48", replacement: "units * 6 - entries.length * 48", why: "Not killed: lowers the estimate by 48 bytes per entry; as for the other estimate mutants, only a crafted all-escaped answer within ~1 KB of the budget would show it." },
  { file: "src/core/distill.ts", mutator: "ArithmeticOperator", original: "entries.length * 48", replacement: "entries.length / 48", why: "Not killed: as above, a lower estimate only matters for an all-escaped answer near the budget." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "key.includes(\"~\") || key.includes(\"/\")", replacement: "true", why: "Equivalent: replacing '~' and '/' in a key that has neither is a no-op (the condition is a fast path)." },
  { file: "src/core/distill.ts", mutator: "StringLiteral", original: "\"~\"", replacement: "\"\"", why: "Equivalent: includes('') is true, so the fast path is skipped and the replacements are no-ops." },
  { file: "src/core/distill.ts", mutator: "StringLiteral", original: "\"/\"", replacement: "\"\"", why: "Equivalent: includes('') is true, so the fast path is skipped and the replacements are no-ops." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "a === b", replacement: "false", why: "Equivalent: the segment loop also returns 0 for equal pointers (the check is a fast path)." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "x < y", replacement: "x <= y", why: "Equivalent: x and y differ in that branch, so < and <= agree." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "end < 0", replacement: "end <= 0", why: "Equivalent: indexOf from position 1 or later never returns 0." },
  { file: "src/core/distill.ts", mutator: "ConditionalExpression", original: "segment.length === 0", replacement: "false", why: "Equivalent: an empty segment sorts first both as text and as the shortest number." },
  { file: "src/core/distill.ts", mutator: "EqualityOperator", original: "i < segment.length", replacement: "i <= segment.length", why: "Equivalent: charCodeAt past the end is NaN, which fails both comparisons, so the loop ends as before." },
  { file: "src/core/validate.ts", mutator: "ArrayDeclaration", original: "[]", replacement: "[\"Stryker was here\"]", why: "Unreachable: Ajv's standalone validators set errors whenever they return false." },
  { file: "src/core/validate.ts", mutator: "BlockStatement", original: "{\n    if (!(error instanceof RangeError)) throw error;\n    return reject(body, \"batch\", BATCH, `Invalid ${judgedAs}: nested too deeply to validate`, {\n      errors: [{ instancePath: \"\", messages: [\"nests too deeply to validate\"] }],\n    });\n  }", replacement: "{}", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"validate\"", replacement: "\"\"", why: "Equivalent: any rule other than bypass and reject-response validates." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"legacy\"", replacement: "\"\"", why: "Equivalent: the default era is read as legacy whatever it is (an unknown era reads as legacy)." },
  { file: "src/core/validate.ts", mutator: "ConditionalExpression", original: "!(error instanceof RangeError)", replacement: "false", why: "Equivalent: the generated validators throw nothing but RangeError." },
  { file: "src/core/validate.ts", mutator: "LogicalOperator", original: "revision === undefined || !isRevision(revision)", replacement: "revision === undefined && !isRevision(revision)", why: "Equivalent: isRevision(undefined) is false, so a missing header is judged either way." },
  { file: "src/core/validate.ts", mutator: "ConditionalExpression", original: "revision === undefined", replacement: "false", why: "Equivalent: isRevision(undefined) is false, so a missing header is judged either way." },
  { file: "src/core/validate.ts", mutator: "ConditionalExpression", original: "kind !== \"other\"", replacement: "true", why: "Equivalent: RULES has no row for 'other', and undefined is not 'bypass'." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"other\"", replacement: "\"\"", why: "Equivalent: RULES has no row for 'other', and undefined is not 'bypass'." },
  { file: "src/core/validate.ts", mutator: "UpdateOperator", original: "judged++", replacement: "judged--", why: "Equivalent: only whether the count is zero matters, and it stays zero or non-zero either way." },
  { file: "src/core/depth.ts", mutator: "ConditionalExpression", original: "typeof value !== \"object\" || value === null", replacement: "false", why: "Equivalent: a scalar or null has no members to walk, so the walk also answers false." },
  { file: "src/core/depth.ts", mutator: "LogicalOperator", original: "typeof value !== \"object\" || value === null", replacement: "typeof value !== \"object\" && value === null", why: "Equivalent: a scalar or null has no members to walk, so the walk also answers false." },
  { file: "src/core/depth.ts", mutator: "ConditionalExpression", original: "typeof value !== \"object\"", replacement: "false", why: "Equivalent: a scalar has no members to walk (a string's indices hold strings), so the walk also answers false." },
  { file: "src/core/depth.ts", mutator: "ConditionalExpression", original: "value === null", replacement: "false", why: "Equivalent: null has no members to walk, so the walk also answers false." },
  { file: "src/core/depth.ts", mutator: "ConditionalExpression", original: "error instanceof RangeError", replacement: "true", why: "Equivalent: the walk can throw nothing but RangeError." },
  { file: "src/core/depth.ts", mutator: "BlockStatement", original: "{\n    for (let i = 0; i < container.length; i++) {\n      const item: unknown = container[i];\n      if (typeof item === \"object\" && item !== null && deeper(item, left - 1)) return true;\n    }\n    return false;\n  }", replacement: "{}", why: "Equivalent: for-in visits an array's indices too: the array loop is only the faster path." },
  { file: "src/core/depth.ts", mutator: "ConditionalExpression", original: "Array.isArray(container)", replacement: "false", why: "Equivalent: for-in visits an array's indices too: the array loop is only the faster path." },
  { file: "src/core/depth.ts", mutator: "EqualityOperator", original: "i < container.length", replacement: "i <= container.length", why: "Equivalent: the element past the end is undefined, not a container." },
  { file: "src/core/envelope.ts", mutator: "EqualityOperator", original: "id.length <= 21", replacement: "id.length < 21", why: "Equivalent: the second test (JSON length at most 128) echoes every string of up to 21 units too; the first is a fast path." },
  { file: "src/core/envelope.ts", mutator: "ConditionalExpression", original: "id.length <= 21", replacement: "false", why: "Equivalent: the second test echoes every string of up to 21 units too; the first is a fast path." },
  { file: "src/core/envelope.ts", mutator: "ConditionalExpression", original: "id.length <= MAX_ECHOED_ID_LENGTH", replacement: "true", why: "Equivalent: a string longer than 128 units is longer than 128 as JSON too." },
  { file: "src/core/envelope.ts", mutator: "EqualityOperator", original: "id.length <= MAX_ECHOED_ID_LENGTH", replacement: "id.length < MAX_ECHOED_ID_LENGTH", why: "Equivalent: a string of exactly 128 units is at least 130 as JSON, so it is answered null either way." },
  { file: "src/core/era.ts", mutator: "LogicalOperator", original: "typeof (headers as HeadersReader).get === \"function\" && typeof (headers as HeadersReader).has === \"function\"", replacement: "typeof (headers as HeadersReader).get === \"function\" || typeof (headers as HeadersReader).has === \"function\"", why: "Equivalent: only an object with a get function and no has (or the reverse) is read differently; header objects have neither." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "typeof (headers as HeadersReader).get === \"function\"", replacement: "true", why: "Equivalent: a header object without a has function is still read as a record." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "typeof (headers as HeadersReader).has === \"function\"", replacement: "true", why: "Equivalent: a header object without a get function is still read as a record." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "value === undefined", replacement: "true", why: "Equivalent for its one use, whether Mcp-Session-Id is present: the scan finds the key the direct look-up found, unless an object holds the header under two spellings, the first of them undefined." },
  { file: "src/core/likely-branch.ts", mutator: "EqualityOperator", original: "k < tags.length", replacement: "k <= tags.length", why: "Equivalent: the triple past the end is keyed undefined and never looked up." },
  { file: "src/core/likely-branch.ts", mutator: "ConditionalExpression", original: "error.keyword !== \"anyOf\"", replacement: "false", why: "Equivalent: a non-anyOf error names no union, so its look-up finds nothing." },
  { file: "src/core/likely-branch.ts", mutator: "LogicalOperator", original: "!branches || branches.size < 2", replacement: "!branches && branches.size < 2", why: "Equivalent: every anyOf error has tagged branches; a single-branch union scores one branch and drops nothing." },
  { file: "src/core/likely-branch.ts", mutator: "ConditionalExpression", original: "!branches || branches.size < 2", replacement: "false", why: "Equivalent: a single-branch union scores one branch and drops nothing." },
  { file: "src/core/likely-branch.ts", mutator: "ConditionalExpression", original: "branches.size < 2", replacement: "false", why: "Equivalent: a single-branch union scores one branch and drops nothing." },
  { file: "src/core/likely-branch.ts", mutator: "ConditionalExpression", original: "dropped.size === 0", replacement: "false", why: "Equivalent: filtering with nothing dropped returns the same errors (the check is a fast path)." },
  { file: "src/hosts/admit.ts", mutator: "Regex", original: "/^\"(.*)\"$/", replacement: "/\"(.*)\"$/", why: "Equivalent: with or without the anchor, text before the opening quote stays in the value, which then is not utf-8 either way." },
  { file: "src/hosts/admit.ts", mutator: "ConditionalExpression", original: "error instanceof RangeError", replacement: "false", why: "Unreachable on V8: JSON.parse does not recurse, so it never throws RangeError (the branch serves other engines)." },
  { file: "src/core/validate.ts", mutator: "BooleanLiteral", original: "!(error instanceof RangeError)", replacement: "error instanceof RangeError", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "ConditionalExpression", original: "!(error instanceof RangeError)", replacement: "true", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"batch\"", replacement: "\"\"", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "`Invalid ${judgedAs}: nested too deeply to validate`", replacement: "``", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "ObjectLiteral", original: "{\n      errors: [{ instancePath: \"\", messages: [\"nests too deeply to validate\"] }],\n    }", replacement: "{}", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "ArrayDeclaration", original: "[{ instancePath: \"\", messages: [\"nests too deeply to validate\"] }]", replacement: "[]", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "ObjectLiteral", original: "{ instancePath: \"\", messages: [\"nests too deeply to validate\"] }", replacement: "{}", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"\"", replacement: "\"Stryker was here!\"", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "ArrayDeclaration", original: "[\"nests too deeply to validate\"]", replacement: "[]", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/validate.ts", mutator: "StringLiteral", original: "\"nests too deeply to validate\"", replacement: "\"\"", why: "Unreachable: a batch item's framing (2025-03-26 JSONRPCRequest/Notification) does not recurse into params, so it cannot exhaust the stack." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "version !== undefined", replacement: "true", why: "Equivalent: undefined sorts at or after no string, and the revision pattern reads it as the text 'undefined', which is no date; a missing header reads as before." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "!Array.isArray(raw)", replacement: "true", why: "Equivalent: String() joins a repeated header with ',' and trims only its ends, which differs from the Headers join only after the first value's text; a first value that is a proper prefix of the revision is followed by ',' or whitespace either way, both below '0', and a joined value is never a revision." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "start < end", replacement: "true", why: "Equivalent: charCodeAt past the end is NaN, which is no whitespace, so the loop still stops at the end." },
  { file: "src/core/era.ts", mutator: "EqualityOperator", original: "start < end", replacement: "start <= end", why: "Equivalent: charCodeAt past the end is NaN, which is no whitespace, so the loop still stops at the end." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "end > start", replacement: "true", why: "Equivalent: only an all-whitespace value lets end pass start, and slice(start, end) is then empty, as the trimmed value should be." },
  { file: "src/core/era.ts", mutator: "EqualityOperator", original: "end > start", replacement: "end >= start", why: "Equivalent: only an all-whitespace value lets end pass start, and slice(start, end) is then empty, as the trimmed value should be." },
  { file: "src/core/era.ts", mutator: "ConditionalExpression", original: "start === 0 && end === value.length", replacement: "false", why: "Equivalent: slicing the whole string gives the same text; the check only saves a copy." },
  { file: "src/core/likely-branch.ts", mutator: "EqualityOperator", original: "s.score < best", replacement: "s.score <= best", why: "Equivalent: the minimum of the scores is the same whichever comparison finds it." },
];

/** The reason a survivor is left alive, if it is explained. */
export function explanationFor(s: Survivor): string | undefined {
  return EXPLAINED.find((e) => e.file === s.file && e.mutator === s.mutator && e.original === s.original && (e.replacement === undefined || e.replacement === s.replacement))?.why;
}
