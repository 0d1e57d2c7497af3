/**
 * @module legacy-checks: the names of the `legacyChecks` option every face takes, apart from legacy-revision.ts so
 * that knowing them loads no validator.
 */

/**
 * What the legacy lane checks: `"params"` the framing and a known method's params against the revision's definition
 * (`-32602` when they fail), `"report"` the same but a params failure is passed on and reported, `"framing"` the
 * JSON-RPC framing alone.
 */
export type LegacyChecks = "params" | "report" | "framing";

export const LEGACY_CHECKS: readonly LegacyChecks[] = ["params", "report", "framing"];

/** The mode a face uses when given none (docs/validation.md says why this one). */
export const DEFAULT_LEGACY_CHECKS: LegacyChecks = "params";
